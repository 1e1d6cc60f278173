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
    /// The e-mail domains organisations claim for their own identity providers: list them,
    /// confirm one (its people may then sign in through the organisation's provider), revoke.
    Domains(DomainsArgs),
}

#[derive(Debug, Args)]
pub struct DomainsArgs {
    #[command(subcommand)]
    pub action: DomainsAction,
}

#[derive(Debug, Subcommand)]
pub enum DomainsAction {
    /// Every claimed domain, confirmed or awaiting the operator.
    List,
    /// Confirm that DOMAIN belongs to the organisation (check first, by a DNS record or a
    /// contract): its identity provider may then sign in, make and link accounts of DOMAIN.
    Confirm {
        /// The organisation's slug.
        #[arg(long)]
        org: String,
        domain: String,
    },
    /// Withdraw the organisation's claim on DOMAIN, confirmed or not.
    Revoke {
        /// The organisation's slug.
        #[arg(long)]
        org: String,
        domain: String,
    },
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
    /// `GET /metrics` (Prometheus text): `on` or `off`. Where it is served: see
    /// `--metrics-listen` and `--metrics-token`.
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
    #[command(flatten)]
    pub upstream: UpstreamSettings,
    #[command(flatten)]
    pub limits: LimitSettings,
    #[command(flatten)]
    pub hardening: RawHardening,
    #[command(flatten)]
    pub notify: crate::notify::settings::RawNotifySettings,
    #[command(flatten)]
    pub sign_in: crate::sso::settings::RawSignInSettings,
}

/// What keeps one tenant (or a stranger) from taking the service down, or
/// learning about others: sign-in throttling, bounded password hashing, where
/// the metrics are served, the listener's timeouts and caps. Every field is
/// optional here so that the defaults live in one place (`Hardening::from_raw`).
#[derive(Debug, Args, Default, Clone)]
pub struct RawHardening {
    /// Proxies whose X-Forwarded-For Herald believes, as IP addresses or CIDR ranges, comma-separated
    /// (e.g. `10.0.0.5,192.168.0.0/24`). Default: none (the socket's peer is the client).
    #[arg(long, env = "HERALD_TRUSTED_PROXIES", global = true)]
    pub trusted_proxies: Option<String>,
    /// Failed sign-ins per account before each further one waits (exponential back-off). Default: 5.
    #[arg(long, env = "HERALD_LOGIN_FAILURES_PER_ACCOUNT", global = true)]
    pub login_failures_per_account: Option<String>,
    /// Failed sign-ins per client address before each further one waits. Default: 20.
    #[arg(long, env = "HERALD_LOGIN_FAILURES_PER_ADDRESS", global = true)]
    pub login_failures_per_address: Option<String>,
    /// The longest sign-in back-off, in seconds. Default: 900.
    #[arg(long, env = "HERALD_LOGIN_BACKOFF_MAX_SECS", global = true)]
    pub login_backoff_max_secs: Option<String>,
    /// Passwords hashed or verified at once (each takes 19 MiB). Default: the number of CPUs.
    #[arg(long, env = "HERALD_PASSWORD_HASHING_CONCURRENCY", global = true)]
    pub password_hashing_concurrency: Option<String>,
    /// Sign-ins that may wait for a hashing slot; beyond, 503 with Retry-After. Default: 32.
    #[arg(long, env = "HERALD_PASSWORD_HASHING_QUEUE", global = true)]
    pub password_hashing_queue: Option<String>,
    /// A separate listener for `GET /metrics` (e.g. 127.0.0.1:9090); it is then not on the main one.
    #[arg(long, env = "HERALD_METRICS_LISTEN", global = true)]
    pub metrics_listen: Option<String>,
    /// A bearer token `GET /metrics` requires (at least 16 characters).
    #[arg(long, env = "HERALD_METRICS_TOKEN", hide_env_values = true, global = true)]
    pub metrics_token: Option<String>,
    /// Seconds a new connection has to send its first request's headers. Default: 10.
    #[arg(long, env = "HERALD_HEADER_TIMEOUT_SECS", global = true)]
    pub header_timeout_secs: Option<String>,
    /// Seconds a keep-alive connection may wait for its next request. Default: 75.
    #[arg(long, env = "HERALD_IDLE_TIMEOUT_SECS", global = true)]
    pub idle_timeout_secs: Option<String>,
    /// Open client connections at most (websockets included). Default: 3/4 of the open-file limit.
    #[arg(long, env = "HERALD_MAX_CONNECTIONS", global = true)]
    pub max_connections: Option<String>,
    /// Open dashboard websockets per person, on each replica. Default: 16.
    #[arg(long, env = "HERALD_MAX_WEBSOCKETS_PER_USER", global = true)]
    pub max_websockets_per_user: Option<String>,
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
    /// MiB of memory the buffers of upstream messages not yet whole may take, all upstream
    /// connections together, each buffer at its capacity (one message may weigh 16 MiB; a server
    /// streaming one without end is cut off there).
    #[arg(
        long = "upstream-buffer-mib",
        env = "HERALD_UPSTREAM_BUFFER_MIB",
        default_value = "256",
        global = true
    )]
    pub buffer_mib: String,
}

impl Default for UpstreamSettings {
    fn default() -> Self {
        Self {
            connect_timeout: "5s".into(),
            handshake_timeout: "15s".into(),
            response_timeout: "30s".into(),
            buffer_mib: "256".into(),
        }
    }
}

/// How long Herald waits for upstream servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UpstreamLimits {
    pub connect: Duration,
    pub handshake: Duration,
    pub response_headers: Duration,
    /// Bytes of incomplete upstream messages held at once, across every connection.
    pub buffer: usize,
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
    /// Whether the Prometheus registry exists at all (`HERALD_METRICS`).
    pub metrics_endpoint: bool,
    /// Which upstream addresses Herald may connect to.
    pub egress: crate::egress::EgressPolicy,
    pub upstream: UpstreamLimits,
    pub limits: Limits,
    pub hardening: Hardening,
    /// E-mail (SMTP) and how deliveries are retried.
    pub notify: crate::notify::settings::NotifySettings,
    /// Passwords, and the instance's identity provider.
    pub sign_in: crate::sso::settings::SignInSettings,
}

/// The typed form of [`RawHardening`].
#[derive(Debug, Clone)]
pub struct Hardening {
    pub trusted_proxies: Vec<Cidr>,
    pub login: LoginLimits,
    /// Hashing slots, and how many may wait for one.
    pub hashing_concurrency: usize,
    pub hashing_queue: usize,
    /// Where `GET /metrics` is served; `None` on the main listener.
    pub metrics_listen: Option<SocketAddr>,
    pub metrics_token: Option<MetricsToken>,
    pub listener: ListenerLimits,
    pub max_websockets_per_user: usize,
}

/// The sign-in throttle's shape; see `crate::throttle`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginLimits {
    pub failures_per_account: u32,
    pub failures_per_address: u32,
    /// The first wait; each further failure doubles it, up to `backoff_max`.
    pub backoff_base: Duration,
    pub backoff_max: Duration,
    /// Failures are forgotten after this long without another.
    pub forget_after: Duration,
}

/// The main listener's connection hygiene; see `crate::listener`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListenerLimits {
    pub header_timeout: Duration,
    pub idle_timeout: Duration,
    pub max_connections: usize,
}

/// The bearer token `GET /metrics` wants; never printed.
#[derive(Clone, PartialEq, Eq)]
pub struct MetricsToken(String);

impl MetricsToken {
    pub const MIN_LEN: usize = 16;

    /// Whether an `Authorization` header value presents this token (constant time).
    pub fn admits(&self, authorization: Option<&str>) -> bool {
        let Some(given) = authorization.and_then(|v| v.strip_prefix("Bearer ")) else { return false };
        let (a, b) =
            (crate::crypto::sha256(given.trim().as_bytes()), crate::crypto::sha256(self.0.as_bytes()));
        a.iter().zip(&b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
    }
}

impl std::fmt::Debug for MetricsToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MetricsToken(<redacted>)")
    }
}

/// An IP network, `addr/prefix` (a bare address is a network of one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cidr {
    network: std::net::IpAddr,
    prefix: u8,
}

impl Cidr {
    pub fn parse(given: &str) -> Result<Self, String> {
        let given = given.trim();
        let (addr, prefix) = match given.split_once('/') {
            Some((addr, prefix)) => (addr, Some(prefix)),
            None => (given, None),
        };
        let network: std::net::IpAddr = addr
            .parse()
            .map_err(|_| format!("{given:?} is not an IP address or a CIDR range like 10.0.0.0/8"))?;
        let network = network.to_canonical();
        let max = if network.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            None => max,
            Some(p) => p
                .parse::<u8>()
                .ok()
                .filter(|p| *p <= max)
                .ok_or_else(|| format!("{given:?} has a prefix length that is not 0 to {max}"))?,
        };
        let cidr = Self { network, prefix };
        if cidr.mask(network) != network {
            return Err(format!("{given:?} has bits set beyond its prefix length"));
        }
        Ok(cidr)
    }

    pub fn contains(&self, addr: std::net::IpAddr) -> bool {
        let addr = addr.to_canonical();
        addr.is_ipv4() == self.network.is_ipv4() && self.mask(addr) == self.network
    }

    fn mask(&self, addr: std::net::IpAddr) -> std::net::IpAddr {
        match addr {
            std::net::IpAddr::V4(a) => {
                let bits = u32::from(a) & u32::MAX.checked_shl(32 - u32::from(self.prefix)).unwrap_or(0);
                std::net::Ipv4Addr::from(bits).into()
            }
            std::net::IpAddr::V6(a) => {
                let bits = u128::from(a) & u128::MAX.checked_shl(128 - u32::from(self.prefix)).unwrap_or(0);
                std::net::Ipv6Addr::from(bits).into()
            }
        }
    }
}

impl Hardening {
    pub fn from_raw(raw: &RawHardening) -> Result<Self, ConfigError> {
        fn number<T: std::str::FromStr + PartialOrd + std::fmt::Display + Copy>(
            given: &Option<String>,
            flag: &'static str,
            env: &'static str,
            default: T,
            range: std::ops::RangeInclusive<T>,
            what: &str,
        ) -> Result<T, ConfigError> {
            let Some(given) = given.as_deref().map(str::trim).filter(|g| !g.is_empty()) else {
                return Ok(default);
            };
            given.parse::<T>().ok().filter(|n| range.contains(n)).ok_or_else(|| {
                bad(
                    flag,
                    env,
                    format!(
                        "{given:?} is not a whole number of {what} from {} to {}",
                        range.start(),
                        range.end()
                    ),
                )
            })
        }
        let trusted_proxies = match raw.trusted_proxies.as_deref().map(str::trim) {
            None | Some("") => Vec::new(),
            Some(list) => list
                .split(',')
                .map(Cidr::parse)
                .collect::<Result<_, _>>()
                .map_err(|p| bad("--trusted-proxies", "HERALD_TRUSTED_PROXIES", p))?,
        };
        let mut login = LoginLimits {
            failures_per_account: number(
                &raw.login_failures_per_account,
                "--login-failures-per-account",
                "HERALD_LOGIN_FAILURES_PER_ACCOUNT",
                5,
                1..=1000,
                "failures",
            )?,
            failures_per_address: number(
                &raw.login_failures_per_address,
                "--login-failures-per-address",
                "HERALD_LOGIN_FAILURES_PER_ADDRESS",
                20,
                1..=100_000,
                "failures",
            )?,
            backoff_base: Duration::from_secs(1),
            backoff_max: Duration::from_secs(number(
                &raw.login_backoff_max_secs,
                "--login-backoff-max-secs",
                "HERALD_LOGIN_BACKOFF_MAX_SECS",
                900,
                1..=86_400,
                "seconds",
            )?),
            forget_after: Duration::ZERO,
        };
        // Forgotten only well after the longest wait, so waiting out a block never starts afresh.
        login.forget_after = (login.backoff_max * 2).max(Duration::from_secs(3600));
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let hashing_concurrency = number(
            &raw.password_hashing_concurrency,
            "--password-hashing-concurrency",
            "HERALD_PASSWORD_HASHING_CONCURRENCY",
            cores,
            1..=1024,
            "hashes",
        )?;
        let hashing_queue = number(
            &raw.password_hashing_queue,
            "--password-hashing-queue",
            "HERALD_PASSWORD_HASHING_QUEUE",
            32,
            0..=100_000,
            "waiting sign-ins",
        )?;
        let metrics_listen = match raw.metrics_listen.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(given) => Some(given.parse::<SocketAddr>().map_err(|_| {
                bad(
                    "--metrics-listen",
                    "HERALD_METRICS_LISTEN",
                    format!("{given:?} is not an address like 127.0.0.1:9090"),
                )
            })?),
        };
        let metrics_token = match raw.metrics_token.as_deref() {
            None | Some("") => None,
            Some(given) => {
                if given.len() < MetricsToken::MIN_LEN || !given.bytes().all(|b| b.is_ascii_graphic()) {
                    return Err(bad(
                        "--metrics-token",
                        "HERALD_METRICS_TOKEN",
                        format!(
                            "must be at least {} visible ASCII characters without spaces (try `openssl rand -hex 24`)",
                            MetricsToken::MIN_LEN
                        ),
                    ));
                }
                Some(MetricsToken(given.to_owned()))
            }
        };
        let listener = ListenerLimits {
            header_timeout: Duration::from_secs(number(
                &raw.header_timeout_secs,
                "--header-timeout-secs",
                "HERALD_HEADER_TIMEOUT_SECS",
                10,
                1..=3600,
                "seconds",
            )?),
            idle_timeout: Duration::from_secs(number(
                &raw.idle_timeout_secs,
                "--idle-timeout-secs",
                "HERALD_IDLE_TIMEOUT_SECS",
                75,
                1..=86_400,
                "seconds",
            )?),
            max_connections: number(
                &raw.max_connections,
                "--max-connections",
                "HERALD_MAX_CONNECTIONS",
                default_max_connections(),
                1..=10_000_000,
                "connections",
            )?,
        };
        let max_websockets_per_user = number(
            &raw.max_websockets_per_user,
            "--max-websockets-per-user",
            "HERALD_MAX_WEBSOCKETS_PER_USER",
            16,
            1..=10_000,
            "websockets",
        )?;
        Ok(Self {
            trusted_proxies,
            login,
            hashing_concurrency,
            hashing_queue,
            metrics_listen,
            metrics_token,
            listener,
            max_websockets_per_user,
        })
    }
}

/// Three quarters of the process's open-file limit: the last quarter stays for
/// the database, upstream connections and files, so a flood of client
/// connections cannot take the descriptors Herald needs to work.
fn default_max_connections() -> usize {
    (open_file_limit() / 4 * 3).max(64)
}

/// The soft `RLIMIT_NOFILE` (Linux: from /proc/self/limits); 1024 when unknown.
pub fn open_file_limit() -> usize {
    std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|limits| {
            let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
            line.split_whitespace().nth(3)?.parse().ok()
        })
        .unwrap_or(1024)
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
        let upstream = Self::upstream_limits(&raw.upstream)?;
        let limits = Self::limits(&raw.limits)?;
        let hardening = Hardening::from_raw(&raw.hardening)?;
        let notify = crate::notify::settings::NotifySettings::from_raw(&raw.notify, &public_url)?;
        let sign_in =
            crate::sso::settings::SignInSettings::from_raw(&raw.sign_in, is_loopback_url(&public_url))?;
        if hardening.metrics_listen.is_some() && !metrics_endpoint {
            return Err(bad(
                "--metrics-listen",
                "HERALD_METRICS_LISTEN",
                "is set while HERALD_METRICS=off; unset one of them",
            ));
        }
        if hardening.metrics_listen == Some(listen) && listen.port() != 0 {
            return Err(bad("--metrics-listen", "HERALD_METRICS_LISTEN", "must differ from HERALD_LISTEN"));
        }
        Ok(Self {
            notify,
            sign_in,
            upstream,
            limits,
            egress,
            metrics_endpoint,
            hardening,
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
            buffer: raw
                .buffer_mib
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|m| (16..=65_536).contains(m))
                .map(|m| m * 1024 * 1024)
                .ok_or_else(|| {
                    bad(
                        "--upstream-buffer-mib",
                        "HERALD_UPSTREAM_BUFFER_MIB",
                        format!("{:?} is not a whole number of MiB from 16 to 65536", raw.buffer_mib),
                    )
                })?,
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
            upstream: UpstreamSettings::default(),
            limits: LimitSettings::default(),
            hardening: RawHardening::default(),
            notify: Default::default(),
            sign_in: Default::default(),
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
            (|r| r.upstream.connect_timeout = "0s".into(), "HERALD_UPSTREAM_CONNECT_TIMEOUT"),
            (|r| r.upstream.handshake_timeout = "soon".into(), "HERALD_UPSTREAM_HANDSHAKE_TIMEOUT"),
            (|r| r.upstream.response_timeout = "3600s".into(), "HERALD_UPSTREAM_RESPONSE_TIMEOUT"),
            (|r| r.upstream.buffer_mib = "8".into(), "HERALD_UPSTREAM_BUFFER_MIB"),
            (|r| r.limits.calls_per_token = "0".into(), "HERALD_MAX_CALLS_PER_TOKEN"),
            (|r| r.limits.sessions_per_token = "many".into(), "HERALD_MAX_SESSIONS_PER_TOKEN"),
            (|r| r.hardening.trusted_proxies = Some("10.0.0.0/8, nope".into()), "HERALD_TRUSTED_PROXIES"),
            (|r| r.hardening.trusted_proxies = Some("10.0.0.1/8".into()), "HERALD_TRUSTED_PROXIES"),
            (
                |r| r.hardening.login_failures_per_account = Some("0".into()),
                "HERALD_LOGIN_FAILURES_PER_ACCOUNT",
            ),
            (
                |r| r.hardening.login_failures_per_address = Some("x".into()),
                "HERALD_LOGIN_FAILURES_PER_ADDRESS",
            ),
            (|r| r.hardening.login_backoff_max_secs = Some("-1".into()), "HERALD_LOGIN_BACKOFF_MAX_SECS"),
            (
                |r| r.hardening.password_hashing_concurrency = Some("0".into()),
                "HERALD_PASSWORD_HASHING_CONCURRENCY",
            ),
            (|r| r.hardening.password_hashing_queue = Some("many".into()), "HERALD_PASSWORD_HASHING_QUEUE"),
            (|r| r.hardening.metrics_listen = Some("9090".into()), "HERALD_METRICS_LISTEN"),
            (|r| r.hardening.metrics_listen = Some("127.0.0.1:8080".into()), "HERALD_METRICS_LISTEN"),
            (
                |r| {
                    r.metrics = "off".into();
                    r.hardening.metrics_listen = Some("127.0.0.1:9090".into());
                },
                "HERALD_METRICS_LISTEN",
            ),
            (|r| r.hardening.metrics_token = Some("short".into()), "HERALD_METRICS_TOKEN"),
            (|r| r.hardening.header_timeout_secs = Some("0".into()), "HERALD_HEADER_TIMEOUT_SECS"),
            (|r| r.hardening.idle_timeout_secs = Some("1.5".into()), "HERALD_IDLE_TIMEOUT_SECS"),
            (|r| r.hardening.max_connections = Some("0".into()), "HERALD_MAX_CONNECTIONS"),
            (|r| r.hardening.max_websockets_per_user = Some("0".into()), "HERALD_MAX_WEBSOCKETS_PER_USER"),
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
    fn durations_take_seconds_or_milliseconds() {
        assert_eq!(parse_duration("15"), Some(Duration::from_secs(15)));
        assert_eq!(parse_duration("15s"), Some(Duration::from_secs(15)));
        assert_eq!(parse_duration(" 250ms "), Some(Duration::from_millis(250)));
        for bad in ["", "s", "1.5s", "-1", "5m", "ms"] {
            assert_eq!(parse_duration(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn hardening_defaults_and_the_metrics_token_stays_secret() {
        let mut settings = raw();
        let defaults = Config::from_raw(&settings).unwrap().hardening;
        assert!(defaults.trusted_proxies.is_empty());
        assert_eq!((defaults.login.failures_per_account, defaults.login.failures_per_address), (5, 20));
        assert_eq!(defaults.login.backoff_max, Duration::from_secs(900));
        assert!(defaults.hashing_concurrency >= 1);
        assert_eq!(defaults.listener.header_timeout, Duration::from_secs(10));
        assert_eq!(defaults.listener.idle_timeout, Duration::from_secs(75));
        assert!(defaults.listener.max_connections >= 64);
        assert!(defaults.metrics_listen.is_none() && defaults.metrics_token.is_none());

        settings.hardening.metrics_token = Some("a-metrics-token-0123456789".into());
        let err_free = Config::from_raw(&settings).unwrap();
        let token = err_free.hardening.metrics_token.unwrap();
        assert!(!format!("{token:?}").contains("0123456789"));
        assert!(token.admits(Some("Bearer a-metrics-token-0123456789")));
        assert!(!token.admits(Some("Bearer a-metrics-token-012345678")));
        assert!(!token.admits(Some("a-metrics-token-0123456789")));
        assert!(!token.admits(None));
    }

    #[test]
    fn cidr_ranges_match_their_addresses() {
        let net = Cidr::parse("10.1.0.0/16").unwrap();
        assert!(net.contains("10.1.255.3".parse().unwrap()));
        assert!(!net.contains("10.2.0.1".parse().unwrap()));
        // A dual-stack socket reports IPv4 peers as IPv4-mapped IPv6 addresses.
        assert!(net.contains("::ffff:10.1.0.9".parse().unwrap()));
        let one = Cidr::parse("127.0.0.1").unwrap();
        assert!(one.contains("127.0.0.1".parse().unwrap()) && !one.contains("127.0.0.2".parse().unwrap()));
        let v6 = Cidr::parse("2001:db8::/32").unwrap();
        assert!(v6.contains("2001:db8:1::5".parse().unwrap()) && !v6.contains("10.1.0.1".parse().unwrap()));
        assert!(Cidr::parse("0.0.0.0/0").unwrap().contains("8.8.8.8".parse().unwrap()));
        assert!(Cidr::parse("10.0.0.0/33").is_err());
        assert!(Cidr::parse("10.0.0.1/8").is_err());
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
