//! A release-built `herald` as a child process over a database of its own,
//! and its setup through `herald bootstrap` and the REST API.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use futures_util::{StreamExt, TryStreamExt, stream};
use serde_json::{Value, json};
use tokio::process::{Child, Command};

pub const ORG: &str = "acme";
const OWNER_EMAIL: &str = "owner@bench.example";
/// Throwaway accounts of a throwaway database.
const PASSWORD: &str = "bench passphrase, not a secret";
/// How long start-up may take before it counts as broken.
const START_PATIENCE: Duration = Duration::from_secs(60);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Db {
    Sqlite,
    Postgres,
}

impl Db {
    pub fn name(self) -> &'static str {
        match self {
            Db::Sqlite => "sqlite",
            Db::Postgres => "postgres",
        }
    }
}

/// One database for one configuration: a file in a temporary directory, or
/// a fresh PostgreSQL database dropped at the end.
pub struct Database {
    pub url: String,
    pub dir: PathBuf,
    pg: Option<(String, String)>,
}

impl Database {
    pub fn create(kind: Db, pg_base: &str, scratch: &Path) -> anyhow::Result<Self> {
        let dir = scratch.join(kind.name());
        std::fs::create_dir_all(&dir)?;
        match kind {
            Db::Sqlite => {
                let url = format!("sqlite://{}", dir.join("herald.db").display());
                Ok(Database { url, dir, pg: None })
            }
            Db::Postgres => {
                let name = format!("herald_bench_{}", std::process::id());
                let base = pg_base.trim_end_matches('/').to_owned();
                psql(&base, &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))?;
                psql(&base, &format!("CREATE DATABASE {name}"))?;
                Ok(Database { url: format!("{base}/{name}"), dir, pg: Some((base, name)) })
            }
        }
    }
}

impl Database {
    /// PostgreSQL: vacuums and analyzes what the setup wrote (a thousand accounts and tokens),
    /// as a database in service would have been, so that autovacuum does not run into the
    /// first measured run.
    pub fn settle(&self) -> anyhow::Result<()> {
        match &self.pg {
            Some((base, name)) => {
                let out = std::process::Command::new("psql")
                    .arg(format!("{base}/{name}"))
                    .args(["-q", "-v", "ON_ERROR_STOP=1", "-c", "VACUUM ANALYZE"])
                    .output()
                    .context("psql (the PostgreSQL client) must be installed")?;
                anyhow::ensure!(
                    out.status.success(),
                    "VACUUM ANALYZE: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                Ok(())
            }
            None => Ok(()),
        }
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        if let Some((base, name)) = &self.pg
            && let Err(e) = psql(base, &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        {
            eprintln!("could not drop the benchmark database {name}: {e:#}");
        }
    }
}

fn psql(base: &str, sql: &str) -> anyhow::Result<()> {
    let out = std::process::Command::new("psql")
        .arg(format!("{base}/postgres"))
        .args(["-q", "-v", "ON_ERROR_STOP=1", "-c", sql])
        .output()
        .context("psql (the PostgreSQL client) must be installed")?;
    if !out.status.success() {
        bail!("psql {sql:?}: {}", String::from_utf8_lossy(&out.stderr).trim());
    }
    Ok(())
}

/// `herald bootstrap`: the org and its owner.
pub async fn bootstrap(bin: &Path, db: &Database) -> anyhow::Result<()> {
    let mut child = Command::new(bin)
        .args(["bootstrap", "--org", ORG, "--org-name", "Acme", "--email", OWNER_EMAIL, "--password-stdin"])
        .env("HERALD_DATABASE_URL", &db.url)
        .env("HERALD_LOG_LEVEL", "warn")
        .current_dir(&db.dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot run {}", bin.display()))?;
    use tokio::io::AsyncWriteExt;
    child.stdin.take().expect("piped").write_all(format!("{PASSWORD}\n").as_bytes()).await?;
    let out = child.wait_with_output().await?;
    if !out.status.success() {
        bail!("herald bootstrap failed: {}", String::from_utf8_lossy(&out.stderr).trim());
    }
    Ok(())
}

/// A running `herald serve`.
pub struct Herald {
    child: Child,
    pub pid: u32,
    pub base: String,
    /// From spawn to the first `200` of `/readyz`.
    pub ready_after: Duration,
}

impl Herald {
    pub async fn start(bin: &Path, db: &Database, http: &reqwest::Client) -> anyhow::Result<Self> {
        Self::start_with(bin, db, http, &[]).await
    }

    /// `herald serve` with `env` set on top of the defaults (JSON logs at `info`).
    pub async fn start_with(
        bin: &Path,
        db: &Database,
        http: &reqwest::Client,
        env: &[(&str, &str)],
    ) -> anyhow::Result<Self> {
        // A free port chosen here, so readiness can be polled from the moment of spawning.
        let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let log = std::fs::OpenOptions::new().create(true).append(true).open(db.dir.join("herald.log"))?;
        let started = Instant::now();
        let child = Command::new(bin)
            .arg("serve")
            .env("HERALD_LISTEN", format!("127.0.0.1:{port}"))
            .env("HERALD_DATABASE_URL", &db.url)
            .env("HERALD_LOG_FORMAT", "json")
            .envs(env.iter().copied())
            .current_dir(&db.dir)
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log)
            .kill_on_drop(true)
            .spawn()
            .with_context(|| format!("cannot run {}", bin.display()))?;
        let pid = child.id().context("herald exited at once")?;
        let base = format!("http://127.0.0.1:{port}");
        let mut herald = Herald { child, pid, base, ready_after: Duration::ZERO };
        loop {
            if let Ok(r) = http.get(format!("{}/readyz", herald.base)).send().await
                && r.status() == 200
            {
                break;
            }
            if let Some(status) = herald.child.try_wait()? {
                bail!(
                    "herald exited with {status} before it was ready; see {}",
                    db.dir.join("herald.log").display()
                );
            }
            if started.elapsed() > START_PATIENCE {
                bail!("herald was not ready within {START_PATIENCE:?}");
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        herald.ready_after = started.elapsed();
        Ok(herald)
    }

    /// Resident memory, from /proc.
    pub fn rss_kib(&self) -> anyhow::Result<u64> {
        rss_kib(self.pid)
    }

    /// SIGTERM, then waits for the exit.
    pub async fn stop(mut self) -> anyhow::Result<()> {
        let _ = std::process::Command::new("kill").args(["-TERM", &self.pid.to_string()]).status();
        if tokio::time::timeout(Duration::from_secs(30), self.child.wait()).await.is_err() {
            self.child.kill().await?;
        }
        Ok(())
    }
}

pub fn rss_kib(pid: u32) -> anyhow::Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .context("no VmRSS in /proc/PID/status")
}

/// The session cookie from a sign-in response.
fn session_cookie(response: &reqwest::Response) -> anyhow::Result<String> {
    response
        .headers()
        .get_all(reqwest::header::SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("herald_session="))
        .and_then(|v| v.split(';').next())
        .map(str::to_owned)
        .context("no session cookie")
}

async fn expect(response: reqwest::Response, status: u16, what: &str) -> anyhow::Result<reqwest::Response> {
    if response.status().as_u16() != status {
        bail!("{what}: {} {}", response.status(), response.text().await.unwrap_or_default());
    }
    Ok(response)
}

/// A new API token for the dashboard session `cookie`.
async fn mint_token(http: &reqwest::Client, base: &str, cookie: &str) -> anyhow::Result<String> {
    let response = http
        .post(format!("{base}/api/v1/orgs/{ORG}/tokens"))
        .header("cookie", cookie)
        .json(&json!({ "name": "bench" }))
        .send()
        .await?;
    let body: Value = expect(response, 201, "create a token").await?.json().await?;
    body["secret"].as_str().map(str::to_owned).context("no secret")
}

/// Signs the owner in, mints their token, registers the two upstream
/// endpoints and raises the rate caps (the suite asks far more questions
/// than a person would).
pub async fn setup_owner(
    http: &reqwest::Client,
    base: &str,
    upstream: &crate::upstream::Upstream,
) -> anyhow::Result<String> {
    let response = http
        .post(format!("{base}/api/v1/auth/login"))
        .json(&json!({ "email": OWNER_EMAIL, "password": PASSWORD }))
        .send()
        .await?;
    let response = expect(response, 200, "sign in").await?;
    let token = mint_token(http, base, &session_cookie(&response)?).await?;
    for (slug, path) in [("fast-legacy", "legacy"), ("fast-modern", "modern")] {
        let response = http
            .post(format!("{base}/api/v1/orgs/{ORG}/servers"))
            .bearer_auth(&token)
            .json(&json!({ "slug": slug, "name": slug, "url": upstream.url(path) }))
            .send()
            .await?;
        expect(response, 201, "register a server").await?;
    }
    let policy = json!({ "rate_caps": {
        "per_user_server_per_minute": 1_000_000,
        "per_server_per_hour": 1_000_000,
        "per_org_per_hour": 1_000_000,
        "max_pending_per_user": 10_000,
    } });
    let response =
        http.put(format!("{base}/api/v1/orgs/{ORG}/policy")).bearer_auth(&token).json(&policy).send().await?;
    expect(response, 200, "raise the rate caps").await?;
    Ok(token)
}

/// `count` members, invited and accepted concurrently (account creation
/// hashes a password, which is slow by design); returns their API tokens.
pub async fn members(
    http: &reqwest::Client,
    base: &str,
    owner: &str,
    count: usize,
) -> anyhow::Result<Vec<String>> {
    stream::iter(0..count)
        .map(|i| async move {
            let response = http
                .post(format!("{base}/api/v1/orgs/{ORG}/invites"))
                .bearer_auth(owner)
                .json(&json!({ "email": format!("user{i}@bench.example"), "role": "member" }))
                .send()
                .await?;
            let invite: Value = expect(response, 201, "invite").await?.json().await?;
            let secret =
                invite["link"].as_str().and_then(|l| l.split("#token=").nth(1)).context("no invite link")?;
            let response = http
                .post(format!("{base}/api/v1/invites/accept"))
                .json(&json!({ "token": secret, "name": format!("User {i}"), "password": PASSWORD }))
                .send()
                .await?;
            let response = expect(response, 201, "accept an invite").await?;
            mint_token(http, base, &session_cookie(&response)?).await
        })
        .buffered(16)
        .try_collect()
        .await
}
