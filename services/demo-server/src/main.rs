//! `herald-demo-server --listen 127.0.0.1:3901`: serves the demo MCP server on `/mcp` and prints
//! `READY <addr>` on stdout once it listens.

use std::{io::Write, net::SocketAddr};

use clap::Parser;
use herald_demo_server::{CancellationToken, MCP_PATH, Options};

#[derive(Debug, Parser)]
#[command(
    name = "herald-demo-server",
    version,
    about = "Herald's demo MCP server (both protocol generations)"
)]
struct Args {
    /// Address to listen on (port 0 picks a free port).
    #[arg(long, env = "HERALD_DEMO_LISTEN", default_value = "127.0.0.1:3901")]
    listen: SocketAddr,
    /// Accept this Host header value (repeatable). Without any, only loopback hosts are accepted.
    #[arg(long = "allowed-host", value_name = "HOST")]
    allowed_hosts: Vec<String>,
    /// Accept any Host header (for use behind a proxy or in containers).
    #[arg(long, conflicts_with = "allowed_hosts")]
    any_host: bool,
    /// Answer 2026-07-28 requests with application/json rather than an SSE stream.
    #[arg(long)]
    json_response: bool,
    /// Speak only 2025-11-25 and 2025-06-18: refuse every 2026-07-28 request (server/discover
    /// included) with HTTP 400, so dual-generation clients fall back to initialize.
    #[arg(long)]
    legacy_only: bool,
    /// Key sealing requestState (at least 32 bytes); share it between replicas. Random if unset.
    #[arg(long, env = "HERALD_DEMO_REQUEST_STATE_KEY", hide_env_values = true)]
    request_state_key: Option<String>,
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();

    let args = Args::parse();
    let allowed_hosts = if args.any_host {
        Some(Vec::new())
    } else if args.allowed_hosts.is_empty() {
        None
    } else {
        Some(args.allowed_hosts)
    };
    let options = Options {
        allowed_hosts,
        json_response: args.json_response,
        request_state_key: args.request_state_key.map(String::into_bytes),
        legacy_only: args.legacy_only,
    };
    // Check the options before announcing readiness.
    herald_demo_server::handler(&options)?;

    // Install the signal handlers before announcing readiness, so a prompt SIGTERM is graceful.
    let signalled = shutdown_signal()?;
    let listener = tokio::net::TcpListener::bind(args.listen).await?;
    let addr = listener.local_addr()?;
    {
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "READY {addr}")?;
        stdout.flush()?;
    }
    tracing::info!("serving MCP on http://{addr}{MCP_PATH}");

    let shutdown = CancellationToken::new();
    tokio::spawn({
        let shutdown = shutdown.clone();
        async move {
            signalled.await;
            shutdown.cancel();
        }
    });
    herald_demo_server::serve_with(listener, options, shutdown).await
}

/// Resolves on SIGINT or SIGTERM (Ctrl-C elsewhere). The handlers are installed on return.
#[cfg(unix)]
fn shutdown_signal() -> std::io::Result<impl std::future::Future<Output = ()>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    Ok(async move {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
    })
}

#[cfg(not(unix))]
fn shutdown_signal() -> std::io::Result<impl std::future::Future<Output = ()>> {
    Ok(async {
        let _ = tokio::signal::ctrl_c().await;
    })
}
