//! `bench-relay` (src/bin/bench-relay.rs) as a child process in front of the
//! upstream: the bare-proxy path of the overhead measurement.

use std::path::Path;
use std::process::Stdio;

use anyhow::Context;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

pub struct Relay {
    _child: Child,
    base: String,
}

impl Relay {
    /// Starts the relay next to `herald` (same build) in front of `upstream_base`.
    pub async fn start(bin_dir: &Path, upstream_base: &str) -> anyhow::Result<Self> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let bin = bin_dir.join("bench-relay");
        let mut child = Command::new(&bin)
            .arg(format!("127.0.0.1:{port}"))
            .arg(upstream_base)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .with_context(|| format!("cannot run {}", bin.display()))?;
        let stdout = child.stdout.take().context("the relay's stdout")?;
        let first = BufReader::new(stdout).lines().next_line().await?;
        anyhow::ensure!(first.as_deref() == Some("ready"), "bench-relay did not start: {first:?}");
        Ok(Relay { _child: child, base: format!("http://127.0.0.1:{port}") })
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}/{path}", self.base)
    }
}
