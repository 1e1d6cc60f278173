//! Typed configuration. Flags and `HERALD_*` variables arrive as strings through
//! clap and are validated here, so a bad value stops the process with one line
//! that names the setting and says what is wrong.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use crate::crypto::SecretKey;

#[derive(Debug, Parser)]
#[command(name = "herald", version, about = "Herald: a multi-tenant MCP host gateway")]
pub struct Cli {
    #[command(flatten)]
    pub settings: RawSettings,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the gateway (the default when no command is given).
    Serve(ServeArgs),
    /// Create the first organisation and its owner from a script.
    Bootstrap(BootstrapArgs),
    /// Probe a running Herald's readiness: exit 0 when `/readyz` answers 200, 1 otherwise.
    /// For container health checks, where no curl is installed.
    Healthcheck(HealthcheckArgs),
}

#[derive(Debug, Args)]
pub struct HealthcheckArgs {
    /// URL to probe. Defaults to http://<listen>/readyz (loopback when listening on all addresses).
    #[arg(long)]
    pub url: Option<String>,
}

#[derive(Debug, Args, Default)]
pub struct ServeArgs {
    /// Also start the bundled demo MCP server and register it in a `demo`
    /// organisation, with a demo account whose password is printed.
    #[arg(long)]
    pub demo: bool,
}

#[derive(Debug, Args)]
pub struct BootstrapArgs {
    /// Slug of the organisation to create (lowercase letters, digits, hyphens).
    #[arg(long)]
    pub org: String,
    /// Display name of the organisation.
    #[arg(long)]
    pub org_name: String,
    /// Email of the owner; an existing account is made owner as it is.
    #[arg(long)]
    pub email: String,
    /// Display name of a new owner account (defaults to the part of the email before @).
    #[arg(long)]
    pub name: Option<String>,
    /// Read the owner's password from standard input (first line).
    #[arg(long, required = true)]
    pub password_stdin: bool,
}

/// Settings as given, before validation. Every one can come from a flag or
/// from its environment variable; flags win.
#[derive(Debug, Args)]
pub struct RawSettings {
    /// Address to listen on.
    #[arg(long, env = "HERALD_LISTEN", default_value = "127.0.0.1:8080", global = true)]
    pub listen: String,
    /// URL at which browsers reach Herald; its origin is the only one allowed to
    /// make cookie-authenticated changes. Defaults to http://<listen>.
    #[arg(long, env = "HERALD_PUBLIC_URL", global = true)]
    pub public_url: Option<String>,
    /// sqlite://PATH (the default, embedded) or postgres://… (production, replicas).
    #[arg(long, env = "HERALD_DATABASE_URL", default_value = "sqlite://data/herald.db", global = true)]
    pub database_url: String,
    /// Instance secret (at least 32 characters). Generated and kept in the database when unset.
    #[arg(long, env = "HERALD_SECRET_KEY", hide_env_values = true, global = true)]
    pub secret_key: Option<String>,
    /// Log filter: a level (error, warn, info, debug, trace) or directives like `herald=debug,info`.
    #[arg(long, env = "HERALD_LOG_LEVEL", default_value = "info", global = true)]
    pub log_level: String,
    /// Log format: `pretty` for people, `json` for log pipelines.
    #[arg(long, env = "HERALD_LOG_FORMAT", default_value = "pretty", global = true)]
    pub log_format: String,
    /// How long a dashboard sign-in lasts, in hours.
    #[arg(long, env = "HERALD_SESSION_HOURS", default_value = "168", global = true)]
    pub session_hours: String,
    /// `GET /metrics` (Prometheus text, unauthenticated): `on` or `off`.
    #[arg(long, env = "HERALD_METRICS", default_value = "on", global = true)]
    pub metrics: String,
    #[command(flatten)]
    pub upstream: UpstreamSettings,
    #[command(flatten)]
    pub limits: LimitSettings,
}

/// Caps on what one credential may hold open at once, as given.
#[derive(Debug, Args, Clone)]
pub struct LimitSettings {
    /// MCP calls one API token may have in flight on one replica (waiting for a person included).
    #[arg(
        long = "max-calls-per-token",
        env = "HERALD_MAX_CALLS_PER_TOKEN",
        default_value = "64",
        global = true
    )]
    pub calls_per_token: String,
    /// Legacy (2025-11-25) agent sessions one API token may keep open (used within 24 hours).
    #[arg(
        long = "max-sessions-per-token",
        env = "HERALD_MAX_SESSIONS_PER_TOKEN",
        default_value = "64",
        global = true
    )]
    pub sessions_per_token: String,
}

impl Default for LimitSettings {
    fn default() -> Self {
        Self { calls_per_token: "64".into(), sessions_per_token: "64".into() }
    }
}

/// Caps on what one credential may hold open at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub calls_per_token: usize,
    pub sessions_per_token: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Config::limits(&LimitSettings::default()).expect("the defaults are valid")
    }
}

/// How long Herald waits for upstream servers, as given (`30`, `30s`, `500ms`).
#[derive(Debug, Args, Clone)]
pub struct UpstreamSettings {
    /// Opening a connection to a server (TCP and TLS).
    #[arg(
        long = "upstream-connect-timeout",
        env = "HERALD_UPSTREAM_CONNECT_TIMEOUT",
        default_value = "5s",
        global = true
    )]
    pub connect_timeout: String,
    /// A server's whole handshake (`initialize` and its stream, or `server/discover`).
    #[arg(
        long = "upstream-handshake-timeout",
        env = "HERALD_UPSTREAM_HANDSHAKE_TIMEOUT",
        default_value = "15s",
        global = true
    )]
    pub handshake_timeout: String,
    /// A server's response headers to any request (not its stream's events). Some servers send
    /// headers only with their first event, 15 s after the request: keep this above that.
    #[arg(
        long = "upstream-response-timeout",
        env = "HERALD_UPSTREAM_RESPONSE_TIMEOUT",
        default_value = "30s",
        global = true
    )]
    pub response_timeout: String,
}

impl Default for UpstreamSettings {
    fn default() -> Self {
        Self { connect_timeout: "5s".into(), handshake_timeout: "15s".into(), response_timeout: "30s".into() }
    }
}

/// How long Herald waits for upstream servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UpstreamLimits {
    pub connect: Duration,
    pub handshake: Duration,
    pub response_headers: Duration,
}

impl Default for UpstreamLimits {
    fn default() -> Self {
        Config::upstream_limits(&UpstreamSettings::default()).expect("the defaults are valid")
    }
}

#[derive(Debug, Clone)]
pub struct Config {
    pub listen: SocketAddr,
    pub public_url: url::Url,
    /// Whether the public URL was given, or derived from the listen address.
    pub public_url_given: bool,
    pub database: DatabaseUrl,
    pub secret_key: Option<SecretKey>,
    pub log_filter: String,
    pub log_format: LogFormat,
    pub session_ttl: Duration,
    /// Whether `GET /metrics` is served.
    pub metrics_endpoint: bool,
    pub upstream: UpstreamLimits,
    pub limits: Limits,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    Pretty,
    Json,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DatabaseUrl {
    Sqlite { path: PathBuf },
    Postgres { url: String },
}

/// One bad setting: which one, and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub flag: &'static str,
    pub env: &'static str,
    pub problem: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invalid setting {} ({}): {}", self.env, self.flag, self.problem)
    }
}

impl std::error::Error for ConfigError {}

fn bad(flag: &'static str, env: &'static str, problem: impl Into<String>) -> ConfigError {
    ConfigError { flag, env, problem: problem.into() }
}

impl Config {
    pub fn from_raw(raw: &RawSettings) -> Result<Self, ConfigError> {
        let listen: SocketAddr = raw.listen.trim().parse().map_err(|_| {
            bad(
                "--listen",
                "HERALD_LISTEN",
                format!("{:?} is not an address like 127.0.0.1:8080", raw.listen),
            )
        })?;
        let public_url = match &raw.public_url {
            Some(given) => parse_public_url(given)?,
            None => default_public_url(listen),
        };
        let database = parse_database_url(&raw.database_url)?;
        let secret_key = match raw.secret_key.as_deref() {
            None | Some("") => None,
            Some(given) => {
                Some(SecretKey::parse(given).map_err(|p| bad("--secret-key", "HERALD_SECRET_KEY", p))?)
            }
        };
        let log_filter = raw.log_level.trim().to_owned();
        tracing_subscriber::EnvFilter::try_new(&log_filter).map_err(|e| {
            bad("--log-level", "HERALD_LOG_LEVEL", format!("{log_filter:?} is not a log filter ({e})"))
        })?;
        let log_format = match raw.log_format.trim() {
            "pretty" => LogFormat::Pretty,
            "json" => LogFormat::Json,
            other => {
                return Err(bad(
                    "--log-format",
                    "HERALD_LOG_FORMAT",
                    format!("{other:?} is not one of: json, pretty"),
                ));
            }
        };
        let session_hours: u64 =
            raw.session_hours.trim().parse().ok().filter(|h| (1..=24 * 90).contains(h)).ok_or_else(|| {
                bad(
                    "--session-hours",
                    "HERALD_SESSION_HOURS",
                    format!("{:?} is not a whole number of hours from 1 to 2160", raw.session_hours),
                )
            })?;
        let metrics_endpoint = match raw.metrics.trim() {
            "on" => true,
            "off" => false,
            other => {
                return Err(bad("--metrics", "HERALD_METRICS", format!("{other:?} is not one of: on, off")));
            }
        };
        let upstream = Self::upstream_limits(&raw.upstream)?;
        let limits = Self::limits(&raw.limits)?;
        Ok(Self {
            upstream,
            limits,
            metrics_endpoint,
            listen,
            public_url_given: raw.public_url.is_some(),
            public_url,
            database,
            secret_key,
            log_filter,
            log_format,
            session_ttl: Duration::from_secs(session_hours * 3600),
        })
    }

    fn limits(raw: &LimitSettings) -> Result<Limits, ConfigError> {
        let count =
            |given: &str, flag, env| {
                given.trim().parse::<u32>().ok().filter(|n| (1..=1_000_000).contains(n)).ok_or_else(|| {
                    bad(flag, env, format!("{given:?} is not a whole number from 1 to 1000000"))
                })
            };
        Ok(Limits {
            calls_per_token: count(
                &raw.calls_per_token,
                "--max-calls-per-token",
                "HERALD_MAX_CALLS_PER_TOKEN",
            )? as usize,
            sessions_per_token: u64::from(count(
                &raw.sessions_per_token,
                "--max-sessions-per-token",
                "HERALD_MAX_SESSIONS_PER_TOKEN",
            )?),
        })
    }

    fn upstream_limits(raw: &UpstreamSettings) -> Result<UpstreamLimits, ConfigError> {
        let seconds = |given: &str, flag, env| {
            parse_duration(given)
                .filter(|d| *d >= Duration::from_millis(100) && *d <= Duration::from_secs(600))
                .ok_or_else(|| {
                    bad(flag, env, format!("{given:?} is not a duration from 100ms to 600s, like 15s"))
                })
        };
        Ok(UpstreamLimits {
            connect: seconds(
                &raw.connect_timeout,
                "--upstream-connect-timeout",
                "HERALD_UPSTREAM_CONNECT_TIMEOUT",
            )?,
            handshake: seconds(
                &raw.handshake_timeout,
                "--upstream-handshake-timeout",
                "HERALD_UPSTREAM_HANDSHAKE_TIMEOUT",
            )?,
            response_headers: seconds(
                &raw.response_timeout,
                "--upstream-response-timeout",
                "HERALD_UPSTREAM_RESPONSE_TIMEOUT",
            )?,
        })
    }

    /// Once bound: a derived public URL names the port really listened on
    /// (which differs when the listen address asked for port 0).
    pub fn bound_to(&mut self, addr: SocketAddr) {
        self.listen = addr;
        if !self.public_url_given {
            self.public_url = default_public_url(addr);
        }
    }

    /// The origin (`scheme://host[:port]`) browsers must send on unsafe requests.
    pub fn public_origin(&self) -> String {
        self.public_url.origin().ascii_serialization()
    }

    /// A development instance: browsers reach it on this machine only. URL
    /// elicitations may then use plain http to loopback.
    pub fn is_development(&self) -> bool {
        match self.public_url.host() {
            Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            None => false,
        }
    }

    pub fn cookies_secure(&self) -> bool {
        self.public_url.scheme() == "https"
    }

    /// A link into the dashboard; secrets go in the fragment, which browsers never send.
    pub fn dashboard_link(&self, page: &str, secret: &str) -> String {
        format!("{}/{page}#token={secret}", self.public_url.as_str().trim_end_matches('/'))
    }
}

/// `15`, `15s` or `500ms`.
pub fn parse_duration(given: &str) -> Option<Duration> {
    let given = given.trim();
    let (number, unit) = match given.strip_suffix("ms") {
        Some(n) => (n, 1),
        None => (given.strip_suffix('s').unwrap_or(given), 1000),
    };
    let number: u64 = number.trim().parse().ok()?;
    Some(Duration::from_millis(number.checked_mul(unit)?))
}

fn parse_public_url(given: &str) -> Result<url::Url, ConfigError> {
    let problem = |p: String| bad("--public-url", "HERALD_PUBLIC_URL", p);
    let url = url::Url::parse(given.trim()).map_err(|e| problem(format!("{given:?} is not a URL ({e})")))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(problem(format!("{given:?} must be an http:// or https:// URL with a host")));
    }
    if url.query().is_some() || url.fragment().is_some() || !url.username().is_empty() {
        return Err(problem(format!("{given:?} may not carry a query, fragment or credentials")));
    }
    Ok(url)
}

/// Where `herald healthcheck` looks by default: this instance's own `/readyz`,
/// over loopback when it listens on every address.
pub fn readiness_url(listen: SocketAddr) -> url::Url {
    let ip = match listen.ip() {
        std::net::IpAddr::V4(ip) if ip.is_unspecified() => std::net::Ipv4Addr::LOCALHOST.into(),
        std::net::IpAddr::V6(ip) if ip.is_unspecified() => std::net::Ipv6Addr::LOCALHOST.into(),
        ip => ip,
    };
    url::Url::parse(&format!("http://{}/readyz", SocketAddr::new(ip, listen.port())))
        .expect("an address forms a URL")
}

fn default_public_url(listen: SocketAddr) -> url::Url {
    let host = if listen.ip().is_unspecified() {
        "localhost".to_owned()
    } else {
        match listen {
            SocketAddr::V4(a) => a.ip().to_string(),
            SocketAddr::V6(a) => format!("[{}]", a.ip()),
        }
    };
    url::Url::parse(&format!("http://{host}:{}", listen.port())).expect("host and port form a URL")
}

fn parse_database_url(given: &str) -> Result<DatabaseUrl, ConfigError> {
    let problem = |p: String| bad("--database-url", "HERALD_DATABASE_URL", p);
    let given = given.trim();
    if let Some(rest) = given.strip_prefix("sqlite://").or_else(|| given.strip_prefix("sqlite:")) {
        let path = rest.split('?').next().unwrap_or_default();
        if path.is_empty() || path == ":memory:" {
            return Err(problem("sqlite needs a file path, like sqlite://data/herald.db".into()));
        }
        return Ok(DatabaseUrl::Sqlite { path: PathBuf::from(path) });
    }
    if given.starts_with("postgres://") || given.starts_with("postgresql://") {
        url::Url::parse(given).map_err(|e| problem(format!("not a valid postgres URL ({e})")))?;
        return Ok(DatabaseUrl::Postgres { url: given.to_owned() });
    }
    Err(problem("must start with sqlite:// or postgres://".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw() -> RawSettings {
        RawSettings {
            listen: "127.0.0.1:8080".into(),
            public_url: None,
            database_url: "sqlite://data/herald.db".into(),
            secret_key: None,
            log_level: "info".into(),
            log_format: "pretty".into(),
            session_hours: "168".into(),
            metrics: "on".into(),
            upstream: UpstreamSettings::default(),
            limits: LimitSettings::default(),
        }
    }

    #[test]
    fn defaults_are_valid() {
        let config = Config::from_raw(&raw()).unwrap();
        assert_eq!(config.public_origin(), "http://127.0.0.1:8080");
        assert_eq!(config.database, DatabaseUrl::Sqlite { path: "data/herald.db".into() });
        assert!(!config.cookies_secure());
    }

    #[test]
    fn each_bad_setting_is_named() {
        type Mutation = fn(&mut RawSettings);
        let cases: Vec<(Mutation, &str)> = vec![
            (|r| r.listen = "nope".into(), "HERALD_LISTEN"),
            (|r| r.public_url = Some("ftp://x".into()), "HERALD_PUBLIC_URL"),
            (|r| r.database_url = "mysql://x".into(), "HERALD_DATABASE_URL"),
            (|r| r.secret_key = Some("short".into()), "HERALD_SECRET_KEY"),
            (|r| r.log_level = "loud[".into(), "HERALD_LOG_LEVEL"),
            (|r| r.log_format = "xml".into(), "HERALD_LOG_FORMAT"),
            (|r| r.session_hours = "0".into(), "HERALD_SESSION_HOURS"),
            (|r| r.metrics = "maybe".into(), "HERALD_METRICS"),
            (|r| r.upstream.connect_timeout = "0s".into(), "HERALD_UPSTREAM_CONNECT_TIMEOUT"),
            (|r| r.upstream.handshake_timeout = "soon".into(), "HERALD_UPSTREAM_HANDSHAKE_TIMEOUT"),
            (|r| r.upstream.response_timeout = "3600s".into(), "HERALD_UPSTREAM_RESPONSE_TIMEOUT"),
            (|r| r.limits.calls_per_token = "0".into(), "HERALD_MAX_CALLS_PER_TOKEN"),
            (|r| r.limits.sessions_per_token = "many".into(), "HERALD_MAX_SESSIONS_PER_TOKEN"),
        ];
        for (mutate, env) in cases {
            let mut settings = raw();
            mutate(&mut settings);
            let err = Config::from_raw(&settings).unwrap_err();
            assert_eq!(err.env, env);
            assert!(!err.to_string().contains('\n'));
        }
    }

    #[test]
    fn durations_take_seconds_or_milliseconds() {
        assert_eq!(parse_duration("15"), Some(Duration::from_secs(15)));
        assert_eq!(parse_duration("15s"), Some(Duration::from_secs(15)));
        assert_eq!(parse_duration(" 250ms "), Some(Duration::from_millis(250)));
        for bad in ["", "s", "1.5s", "-1", "5m", "ms"] {
            assert_eq!(parse_duration(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn the_readiness_probe_reaches_every_address_over_loopback() {
        let url = |listen: &str| readiness_url(listen.parse().unwrap()).to_string();
        assert_eq!(url("0.0.0.0:8080"), "http://127.0.0.1:8080/readyz");
        assert_eq!(url("[::]:8080"), "http://[::1]:8080/readyz");
        assert_eq!(url("10.1.2.3:9000"), "http://10.1.2.3:9000/readyz");
    }

    #[test]
    fn https_public_url_makes_cookies_secure() {
        let mut settings = raw();
        settings.public_url = Some("https://herald.example.com".into());
        let config = Config::from_raw(&settings).unwrap();
        assert!(config.cookies_secure());
        assert_eq!(config.dashboard_link("setup", "abc"), "https://herald.example.com/setup#token=abc");
    }
}
