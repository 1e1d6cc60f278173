//! The running service: shared state, start-up, and serving on a socket.

use std::ops::Deref;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use time::OffsetDateTime;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::backoff::Backoff;
use crate::broker::{self, Broker};
use crate::config::Config;
use crate::crypto::{self, Keys, SecretKey};
use crate::lookup::Lookups;
use crate::passwords::Passwords;
use crate::proxy::Proxy;
use crate::replicas::{self, Forget, Heard, ReplicaEvent};
use crate::storage::{self, Store};

/// Everything a request handler may need; cheap to clone.
#[derive(Clone)]
pub struct AppState(Arc<AppInner>);

pub struct AppInner {
    pub config: Config,
    pub store: Arc<dyn Store>,
    pub keys: Arc<Keys>,
    /// Notifications beyond the dashboards: webhooks, e-mail, presence.
    pub notifier: Arc<crate::notify::Notifier>,
    pub broker: Arc<Broker>,
    pub proxy: Proxy,
    /// The cached reads of the call path (tokens, servers, policies, memberships).
    pub lookups: Arc<Lookups>,
    /// Bounded password hashing (`HERALD_PASSWORD_HASHING_*`).
    pub passwords: Passwords,
    /// Open dashboard websockets per person (`HERALD_MAX_WEBSOCKETS_PER_USER`).
    pub sockets: crate::api::ws::Seats,
    /// Passwords and identity providers: what is known of each provider.
    pub sign_in: Arc<crate::sso::SignIn>,
    /// Each person's OAuth tokens for upstream servers: the HTTP client and known authorization servers.
    pub upstream_auth: Arc<crate::upstream_auth::UpstreamAuth>,
}

impl Deref for AppState {
    type Target = AppInner;

    fn deref(&self) -> &AppInner {
        &self.0
    }
}

impl AppState {
    /// Drops what `change` made wrong from this replica's caches, and tells
    /// the other replicas before returning, so a revocation answered to the
    /// caller is already on its way everywhere.
    pub async fn forget(&self, change: Forget) {
        self.apply(&change);
        replicas::tell(self.store.as_ref(), change).await;
    }

    /// A change made here or on another replica: cached entries go, and so
    /// do the calls, sessions and links it leaves standing on a stale footing.
    pub fn apply(&self, change: &Forget) {
        self.lookups.forget(change);
        self.proxy.retire(change);
        self.close_sockets(change);
    }

    /// Dashboard sockets live as long as their credential: a sign-out, a
    /// password change, a revoked token, or leaving the organisation a token
    /// belongs to closes them.
    fn close_sockets(&self, change: &Forget) {
        use crate::broker::hub::Scope;
        let hub = &self.broker.hub;
        match *change {
            Forget::SessionEnded { user_id, session_id } => {
                hub.close_where(|user, scope| user == user_id && *scope == Scope::Session { session_id })
            }
            Forget::SessionsEnded { user_id } => {
                hub.close_where(|user, scope| user == user_id && matches!(scope, Scope::Session { .. }))
            }
            Forget::CachedToken { token_id } => hub
                .close_where(|_, scope| matches!(scope, Scope::Token { token_id: t, .. } if *t == token_id)),
            Forget::CachedMember { org_id, user_id, left: true } => hub.close_where(|user, scope| {
                user == user_id && matches!(scope, Scope::Token { org_id: o, .. } if *o == org_id)
            }),
            Forget::CachedMember { .. }
            | Forget::CachedServer { .. }
            | Forget::CachedPolicy { .. }
            | Forget::CachedConnection { .. } => {}
        }
    }

    /// Another replica's event, handed to the part of this one it concerns.
    async fn heard(&self, heard: Heard) {
        match heard {
            Heard::Event(ReplicaEvent::Question(event)) => self.broker.on_replica_event(event).await,
            Heard::Event(ReplicaEvent::Forget(change)) => self.apply(&change),
            Heard::Event(ReplicaEvent::Session(event)) => self.proxy.sessions.on_replica_event(event),
            Heard::Gap => self.broker.resync().await,
        }
    }

    pub fn new(config: Config, store: Arc<dyn Store>, keys: Keys) -> Self {
        let passwords = Passwords::new(config.hardening.hashing_concurrency, config.hardening.hashing_queue);
        let sockets = crate::api::ws::Seats::new(config.hardening.max_websockets_per_user);
        let proxy = Proxy::new(config.upstream, &config.egress);
        let lookups = Arc::new(Lookups::new(store.clone()));
        let broker = Broker::new(store.clone(), lookups.clone(), config.is_development());
        let keys = Arc::new(keys);
        let notifier = crate::notify::Notifier::new(
            store.clone(),
            &broker,
            keys.clone(),
            &config.notify,
            &config.egress,
            config.public_url.clone(),
        );
        let sign_in = Arc::new(crate::sso::SignIn::new(config.sign_in.clone(), &config.egress));
        let upstream_auth =
            Arc::new(crate::upstream_auth::UpstreamAuth::new(&config.egress, config.is_development()));
        Self(Arc::new(AppInner {
            lookups,
            passwords,
            sockets,
            config,
            store,
            keys,
            broker,
            proxy,
            notifier,
            sign_in,
            upstream_auth,
        }))
    }
}

/// Opens the database, settles the instance key, and returns the state.
pub async fn prepare(config: Config) -> anyhow::Result<AppState> {
    let store = open_with_retries(&config.database).await?;
    let secret = instance_secret(&config, store.as_ref()).await?;
    let keys = Keys::derive(&secret);
    Ok(AppState::new(config, store, keys))
}

/// Opens the database, waiting with backoff while it is unreachable (it may
/// still be starting); any other failure (bad credentials, a failed
/// migration) stops Herald at once.
async fn open_with_retries(database: &crate::config::DatabaseUrl) -> anyhow::Result<Arc<dyn Store>> {
    let mut delays = Backoff::new(Duration::from_millis(500), Duration::from_secs(30));
    loop {
        match storage::open(database).await {
            Ok(store) => return Ok(store),
            Err(storage::StoreError::Database(e @ (sqlx::Error::Io(_) | sqlx::Error::PoolTimedOut))) => {
                let delay = delays.next();
                tracing::warn!(error = %e, retry_in = ?delay, "the database is unreachable; retrying");
                tokio::time::sleep(delay).await;
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// The configured key, or the one kept in the database (generated on the
/// first start), so every replica on one database signs and seals alike.
async fn instance_secret(config: &Config, store: &dyn Store) -> anyhow::Result<SecretKey> {
    if let Some(key) = &config.secret_key {
        return Ok(key.clone());
    }
    let stored = store.instance_secret(&SecretKey::generate()).await?;
    tracing::warn!(
        "HERALD_SECRET_KEY is not set: using a key generated on first start and kept in the database. \
         Production deployments should set HERALD_SECRET_KEY (and keep it out of the database backups' reach)."
    );
    SecretKey::parse(&stored).map_err(|e| anyhow::anyhow!("the stored instance key is unusable: {e}"))
}

/// On an empty database, mints the one-time setup link and logs it.
pub async fn announce_setup_link(state: &AppState) -> anyhow::Result<Option<String>> {
    if state.store.has_users().await? {
        return Ok(None);
    }
    let secret = crypto::link_secret();
    let expires_at = OffsetDateTime::now_utc() + crate::api::setup::SETUP_LINK_LIFETIME;
    state.store.put_setup_token(&crypto::token_hash(&secret), expires_at).await?;
    let link = state.config.dashboard_link("setup", &secret);
    tracing::warn!(
        setup_link = %link,
        "this Herald has no accounts yet: open the setup link (valid for 24 hours, until setup is done) \
         to create the first organisation and its owner, or run `herald bootstrap`"
    );
    Ok(Some(link))
}

/// Connections the kernel may complete before Herald accepts them (Linux caps it at
/// `net.core.somaxconn`, 4096 by default). A deep queue matters in a connection flood: when it
/// is full the kernel drops new SYNs, a health probe's among them, and the client only retries
/// a second later.
const LISTEN_BACKLOG: u32 = 4096;

/// Binds the main listener.
pub async fn bind(config: &Config) -> anyhow::Result<TcpListener> {
    listen_on(config.listen).with_context(|| format!("cannot listen on {} (HERALD_LISTEN)", config.listen))
}

/// Binds the metrics listener, when `HERALD_METRICS_LISTEN` asks for one.
pub async fn bind_metrics(config: &Config) -> anyhow::Result<Option<TcpListener>> {
    let Some(addr) = config.hardening.metrics_listen else { return Ok(None) };
    let listener =
        listen_on(addr).with_context(|| format!("cannot listen on {addr} (HERALD_METRICS_LISTEN)"))?;
    Ok(Some(listener))
}

fn listen_on(addr: std::net::SocketAddr) -> std::io::Result<TcpListener> {
    let socket =
        if addr.is_ipv4() { tokio::net::TcpSocket::new_v4()? } else { tokio::net::TcpSocket::new_v6()? };
    // As std's bind does: a restarted Herald can listen while old connections linger in TIME_WAIT.
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(LISTEN_BACKLOG)
}

/// Serves until `shutdown` resolves.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    serve_with_metrics(listener, None, state, shutdown).await
}

/// Serves the API on `listener` and, when given, `GET /metrics` on `metrics`, until `shutdown`
/// resolves.
pub async fn serve_with_metrics(
    listener: TcpListener,
    metrics: Option<TcpListener>,
    state: AppState,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    // Before serving: end whatever a previous run left pending.
    broker::janitor::sweep(&state.broker).await;
    let janitor = broker::janitor::spawn(&state.broker);
    let throttle = crate::throttle::spawn_purge(&state);
    let idle_links = crate::proxy::spawn_link_sweep(&state);
    let deliveries = state.notifier.pump.spawn();
    let listening = state.clone();
    let replica_events = replicas::spawn_listener(state.store.clone(), move |heard| {
        let state = listening.clone();
        async move { state.heard(heard).await }
    });
    let proxy_state = state.clone();
    let stop = CancellationToken::new();
    tokio::spawn({
        let stop = stop.clone();
        async move {
            shutdown.await;
            stop.cancel();
        }
    });
    let scrapes = metrics.map(|listener| {
        let router = crate::telemetry::metrics::router(state.config.hardening.metrics_token.clone());
        let limits =
            crate::config::ListenerLimits { max_connections: 64, ..state.config.hardening.listener.clone() };
        tokio::spawn(crate::listener::serve(listener, router, limits, false, stop.clone().cancelled_owned()))
    });
    let limits = state.config.hardening.listener.clone();
    let router = crate::api::router(state);
    // The router is cloned per connection (an Arc): given the router itself, axum::serve used
    // to deep-clone every route for each connection (about 30 KiB each, held for the
    // connection's life: a suspended call holds one).
    let served = crate::listener::serve(listener, router, limits, true, stop.clone().cancelled_owned()).await;
    proxy_state.proxy.close_all().await;
    proxy_state.notifier.stop().await;
    deliveries.abort();
    // Awaited: the outbox holds the store, and a stopped Herald lets go of its database.
    let _ = deliveries.await;
    janitor.abort();
    throttle.abort();
    idle_links.abort();
    if let Some(events) = replica_events {
        events.abort();
    }
    if let Some(scrapes) = scrapes {
        scrapes.abort();
    }
    served?;
    Ok(())
}
