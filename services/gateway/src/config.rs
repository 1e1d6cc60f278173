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
    // --- egress: which upstream addresses Herald may connect to (egress.rs) ---
    /// Upstream addresses Herald may connect to: `public`, `public+loopback` or `any`.
    /// Default: `public+loopback` when the public URL is loopback (development), else `public`.
    #[arg(long, env = "HERALD_UPSTREAM_ALLOW", global = true)]
    pub upstream_allow: Option<String>,
    /// Further networks upstream servers may be in, whatever `--upstream-allow` says:
    /// comma-separated CIDRs or addresses, like `10.20.0.0/16,fd12:3456::/48`.
    #[arg(long, env = "HERALD_UPSTREAM_ALLOW_CIDRS", global = true)]
    pub upstream_allow_cidrs: Option<String>,
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
    /// Which upstream addresses Herald may connect to.
    pub egress: crate::egress::EgressPolicy,
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
        let egress = parse_egress(raw, &public_url)?;
        Ok(Self {
            egress,
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
        is_loopback_url(&self.public_url)
    }

    pub fn cookies_secure(&self) -> bool {
        self.public_url.scheme() == "https"
    }

    /// A link into the dashboard; secrets go in the fragment, which browsers never send.
    pub fn dashboard_link(&self, page: &str, secret: &str) -> String {
        format!("{}/{page}#token={secret}", self.public_url.as_str().trim_end_matches('/'))
    }
}

fn is_loopback_url(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// The egress policy: as set, or derived from the public URL (loopback = development).
fn parse_egress(
    raw: &RawSettings,
    public_url: &url::Url,
) -> Result<crate::egress::EgressPolicy, ConfigError> {
    use crate::egress::{Allow, EgressPolicy};
    let allow = match raw.upstream_allow.as_deref().map(str::trim).filter(|a| !a.is_empty()) {
        None => None,
        Some(given) => Some(Allow::parse(given).ok_or_else(|| {
            bad(
                "--upstream-allow",
                "HERALD_UPSTREAM_ALLOW",
                format!("{given:?} is not one of: {}", Allow::CHOICES),
            )
        })?),
    };
    let networks = EgressPolicy::parse_networks(raw.upstream_allow_cidrs.as_deref().unwrap_or_default())
        .map_err(|p| bad("--upstream-allow-cidrs", "HERALD_UPSTREAM_ALLOW_CIDRS", p))?;
    Ok(EgressPolicy::new(allow, networks, is_loopback_url(public_url)))
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
            upstream_allow: None,
            upstream_allow_cidrs: None,
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
            (|r| r.upstream_allow = Some("private".into()), "HERALD_UPSTREAM_ALLOW"),
            (|r| r.upstream_allow_cidrs = Some("10.0.0.0/8,intranet".into()), "HERALD_UPSTREAM_ALLOW_CIDRS"),
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

    #[test]
    fn upstream_egress_follows_the_public_url_unless_set() {
        use crate::egress::Allow;
        let config = |public_url: Option<&str>, allow: Option<&str>, cidrs: Option<&str>| {
            let mut settings = raw();
            settings.public_url = public_url.map(Into::into);
            settings.upstream_allow = allow.map(Into::into);
            settings.upstream_allow_cidrs = cidrs.map(Into::into);
            Config::from_raw(&settings).unwrap().egress
        };
        assert_eq!(config(None, None, None).allow, Allow::PublicAndLoopback);
        assert_eq!(config(Some("http://localhost:8080"), None, None).allow, Allow::PublicAndLoopback);
        let production = config(Some("https://herald.example.com"), None, None);
        assert_eq!((production.allow, production.derived), (Allow::Public, true));
        let set = config(Some("https://herald.example.com"), Some("any"), None);
        assert_eq!((set.allow, set.derived), (Allow::Any, false));
        assert_eq!(config(None, Some("public"), None).allow, Allow::Public);
        let private = config(Some("https://herald.example.com"), None, Some("10.20.0.0/16, fd00::/8"));
        assert_eq!(private.to_string(), "public,10.20.0.0/16,fd00::/8");
    }
}
