//! Legacy agents' sessions (2025-06-18, 2025-11-25): minted by Herald on
//! `initialize` and kept in rows, so any replica serves them and they outlive
//! a restart. Each replica keeps, per session it has served, its own upstream
//! link (made on first use) and the requests in flight on it. Replicas tell
//! each other when a session ends or an agent cancels a request that runs
//! elsewhere; the rows stay the truth (a replica re-reads a session's row
//! every little while, so a missed wake-up cannot keep a session alive).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine;
use herald_mcp::{Message, RequestId};
use serde_json::Value;
use time::OffsetDateTime;
use tokio_util::sync::CancellationToken;

use super::CallContext;
use super::upstream::{Link, LinkFor, LinkOptions};
use crate::app::AppState;
use crate::replicas::{self, SessionEvent};
use crate::storage::{AgentSessionRecord, Server, StoreError, TokenPrincipal};

pub use crate::storage::sessions::SESSION_IDLE;
/// How often a session's last use is written to its row (not on every request).
const TOUCH_EVERY: Duration = Duration::from_secs(300);
/// How long a replica trusts its copy of a session before reading the row again.
const RECHECK_EVERY: Duration = Duration::from_secs(30);
/// A session this replica has not served for this long leaves its memory
/// (and its upstream link closes); the row stays.
const LOCAL_IDLE: Duration = Duration::from_secs(3600);
const SWEEP_EVERY: Duration = Duration::from_secs(300);

/// This replica's view of the sessions it serves.
pub struct Sessions {
    local: Mutex<HashMap<Vec<u8>, Arc<AgentSession>>>,
    swept: Mutex<Instant>,
}

impl Default for Sessions {
    fn default() -> Self {
        Self { local: Mutex::default(), swept: Mutex::new(Instant::now()) }
    }
}

/// One legacy session as this replica serves it.
pub struct AgentSession {
    pub record: AgentSessionRecord,
    /// This replica's upstream link for the session, made on first use and
    /// renewed after the server's registration or the org's policy changed.
    link: Mutex<Option<Arc<Link>>>,
    /// One link being made at a time.
    linking: tokio::sync::Mutex<()>,
    /// Requests in flight on this replica, by the agent's request id.
    pub in_flight: Mutex<HashMap<RequestId, CancellationToken>>,
    /// When this replica last confirmed the row, last wrote its use, last served it.
    checked: Mutex<Instant>,
    touched: Mutex<Instant>,
    used: Mutex<Instant>,
}

impl AgentSession {
    fn new(record: AgentSessionRecord, link: Option<Arc<Link>>) -> Self {
        let now = Instant::now();
        Self {
            record,
            link: Mutex::new(link),
            linking: tokio::sync::Mutex::new(()),
            in_flight: Mutex::default(),
            checked: Mutex::new(now),
            touched: Mutex::new(now),
            used: Mutex::new(now),
        }
    }

    fn current_link(&self) -> Option<Arc<Link>> {
        self.link.lock().expect("link lock").clone()
    }

    /// This replica's upstream link for the session, made on first use.
    pub async fn link(&self, state: &AppState, ctx: &CallContext) -> Result<Arc<Link>, Message> {
        if let Some(link) = self.current_link() {
            return Ok(link);
        }
        let _one_at_a_time = self.linking.lock().await;
        if let Some(link) = self.current_link() {
            return Ok(link);
        }
        let token = super::Proxy::person_token(state, &ctx.org_slug, &ctx.server, ctx.user_id).await?;
        self.make_link(state, ctx, token).await
    }

    /// A new link for the session, with `token` (the person's, renewed after the server refused
    /// the one before); calls on the old link finish there.
    pub async fn relink(
        &self,
        state: &AppState,
        ctx: &CallContext,
        token: Option<String>,
    ) -> Result<Arc<Link>, Message> {
        let _one_at_a_time = self.linking.lock().await;
        self.renew_link();
        self.make_link(state, ctx, token).await
    }

    async fn make_link(
        &self,
        state: &AppState,
        ctx: &CallContext,
        token: Option<String>,
    ) -> Result<Arc<Link>, Message> {
        let endpoint = state.proxy.endpoint(state, &ctx.org_slug, &ctx.server, token.as_deref())?;
        let options =
            LinkOptions::for_call(ctx, LinkFor::LegacyAgent(self.record.agent_capabilities.as_ref()));
        let link =
            Link::connect(endpoint, options).await.map_err(|e| super::unreachable_server(&ctx.server, &e))?;
        link.listen(super::upstream::StreamContext::of(ctx));
        *self.link.lock().expect("link lock") = Some(link.clone());
        Ok(link)
    }

    /// Lets go of the link: calls running on it finish there, the next one
    /// makes a fresh link (the server's registration or the policy changed).
    fn renew_link(&self) {
        self.link.lock().expect("link lock").take();
    }

    /// Cancels this replica's in-flight requests at once and closes its
    /// upstream link in the background.
    fn shut(self: &Arc<Self>) {
        self.cancel_in_flight();
        let session = self.clone();
        tokio::spawn(async move { session.close().await });
    }

    fn cancel_in_flight(&self) {
        for (_, token) in self.in_flight.lock().expect("in-flight lock").drain() {
            token.cancel();
        }
    }

    /// Cancels this replica's in-flight requests and closes its upstream link.
    async fn close(&self) {
        self.cancel_in_flight();
        let link = self.link.lock().expect("link lock").take();
        if let Some(link) = link
            && let Link::Legacy(link) = link.as_ref()
        {
            link.close().await;
        }
    }

    pub fn agent_info(&self) -> Option<Value> {
        self.record.agent_info.clone()
    }

    /// The agent's answer to a request Herald relayed from the server, if
    /// this replica's link for the session awaits it (`Err` gives it back).
    fn deliver_here(&self, answer: Message) -> Result<(), Message> {
        match self.current_link() {
            Some(link) => match link.as_ref() {
                Link::Legacy(legacy) => legacy.answers.deliver(answer),
                Link::Modern(_) => Err(answer),
            },
            None => Err(answer),
        }
    }
}

/// The largest answer told to other replicas (PostgreSQL's NOTIFY payload
/// is at most 8000 bytes, the event's envelope included).
const MAX_FORWARDED_ANSWER: usize = 7 * 1024;

/// What a legacy agent said about itself in `initialize`.
/// A session about to be minted: its id (chosen before, when the response named it early), the
/// protocol version agreed and what the agent said of itself.
pub struct Minted {
    pub session_id: String,
    pub protocol_version: &'static str,
    pub agent: AgentHello,
}

pub struct AgentHello {
    /// Its `clientInfo`.
    pub info: Option<Value>,
    /// Its `capabilities`.
    pub capabilities: Option<Value>,
}

fn id_hash(session_id: &str) -> Vec<u8> {
    crate::crypto::sha256(session_id.as_bytes())
}

fn encode(hash: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(hash)
}

impl Sessions {
    /// Mints a session for a legacy agent that just initialised, with the
    /// upstream link made for it; returns the `Mcp-Session-Id`.
    pub async fn mint(
        &self,
        state: &AppState,
        principal: &TokenPrincipal,
        server: &Server,
        hello: Minted,
        link: Arc<Link>,
    ) -> Result<String, StoreError> {
        let Minted { session_id, protocol_version, agent } = hello;
        let now = OffsetDateTime::now_utc();
        let record = AgentSessionRecord {
            id_hash: id_hash(&session_id),
            org_id: principal.membership.org.id,
            user_id: principal.user.id,
            server_id: server.id,
            protocol_version: protocol_version.to_owned(),
            agent_info: agent.info,
            agent_capabilities: agent.capabilities,
            token_id: Some(principal.token_id),
            created_at: now,
            last_seen_at: now,
        };
        state.store.create_agent_session(&record).await?;
        let hash = record.id_hash.clone();
        self.local
            .lock()
            .expect("sessions lock")
            .insert(hash, Arc::new(AgentSession::new(record, Some(link))));
        Ok(session_id)
    }

    /// The session `session_id`, if it exists, is not idle, and was minted
    /// for this user and server.
    pub async fn find(
        &self,
        state: &AppState,
        principal: &TokenPrincipal,
        server: &Server,
        session_id: &str,
    ) -> Result<Option<Arc<AgentSession>>, StoreError> {
        self.sweep_now_and_then();
        let hash = id_hash(session_id);
        let cached = self.local.lock().expect("sessions lock").get(&hash).cloned();
        let session = match cached {
            Some(s) if s.checked.lock().expect("checked lock").elapsed() < RECHECK_EVERY => s,
            cached => {
                let row = state.store.agent_session(&hash).await?;
                let fresh = row.filter(|r| {
                    let idle = OffsetDateTime::now_utc() - r.last_seen_at;
                    idle < SESSION_IDLE
                });
                let Some(record) = fresh else {
                    if let Some(gone) = self.local.lock().expect("sessions lock").remove(&hash) {
                        gone.shut();
                    }
                    return Ok(None);
                };
                match cached {
                    Some(s) => {
                        *s.checked.lock().expect("checked lock") = Instant::now();
                        s
                    }
                    None => {
                        let session = Arc::new(AgentSession::new(record, None));
                        self.local
                            .lock()
                            .expect("sessions lock")
                            .entry(hash.clone())
                            .or_insert(session)
                            .clone()
                    }
                }
            }
        };
        // A session is usable only by the user and server it was minted for.
        if session.record.user_id != principal.user.id || session.record.server_id != server.id {
            return Ok(None);
        }
        *session.used.lock().expect("used lock") = Instant::now();
        let stale = {
            let mut touched = session.touched.lock().expect("touched lock");
            let stale = touched.elapsed() >= TOUCH_EVERY;
            if stale {
                *touched = Instant::now();
            }
            stale
        };
        if stale {
            let store = state.store.clone();
            tokio::spawn(async move {
                if let Err(e) = store.touch_agent_session(&hash, OffsetDateTime::now_utc()).await {
                    tracing::debug!(error = %e, "could not record an agent session's use");
                }
            });
        }
        Ok(Some(session))
    }

    /// Ends a session everywhere: its row, this replica's link and calls,
    /// and (told by NOTIFY) the other replicas'.
    pub async fn end(&self, state: &AppState, session_id: &str) -> Result<bool, StoreError> {
        let hash = id_hash(session_id);
        let existed = state.store.delete_agent_session(&hash).await?;
        if let Some(session) = self.local.lock().expect("sessions lock").remove(&hash) {
            session.shut();
        }
        // Sent before the agent hears 204, so the others drop it at once.
        replicas::tell(state.store.as_ref(), SessionEvent::AgentSessionEnded { session: encode(&hash) })
            .await;
        Ok(existed)
    }

    /// The agent cancelled request `id`: here if it runs here, else on the
    /// replica that runs it.
    pub fn cancel(&self, state: &AppState, session: &AgentSession, id: &RequestId) {
        if let Some(token) = session.in_flight.lock().expect("in-flight lock").remove(id) {
            token.cancel();
            return;
        }
        let event = SessionEvent::AgentRequestCancelled {
            session: encode(&session.record.id_hash),
            request: id.clone(),
        };
        replicas::tell_soon(&state.store, event);
    }

    /// The agent answered a request Herald relayed to it from the server:
    /// to this replica's link if it awaits the answer, else to the others.
    /// `Err` says why the answer cannot reach its request.
    pub async fn answered(
        &self,
        state: &AppState,
        session: &AgentSession,
        answer: Message,
    ) -> Result<(), String> {
        let answer = match session.deliver_here(answer) {
            Ok(()) => return Ok(()),
            Err(answer) => answer,
        };
        if state.store.single_process() {
            return Err("no request of the server awaits this answer".into());
        }
        let json = answer.to_json();
        if json.len() > MAX_FORWARDED_ANSWER {
            return Err(format!(
                "this answer is for a request running on another replica and is over {} KiB, the most Herald passes between replicas",
                MAX_FORWARDED_ANSWER / 1024
            ));
        }
        let event = SessionEvent::AgentAnswered { session: encode(&session.record.id_hash), answer: json };
        replicas::tell(state.store.as_ref(), event).await;
        Ok(())
    }

    /// Another replica's session event.
    pub fn on_replica_event(&self, event: SessionEvent) {
        let decode = |s: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(s).ok();
        match event {
            SessionEvent::AgentSessionEnded { session } => {
                let gone =
                    decode(&session).and_then(|h| self.local.lock().expect("sessions lock").remove(&h));
                if let Some(gone) = gone {
                    gone.shut();
                }
            }
            SessionEvent::AgentRequestCancelled { session, request } => {
                let local =
                    decode(&session).and_then(|h| self.local.lock().expect("sessions lock").get(&h).cloned());
                let token = local.and_then(|s| s.in_flight.lock().expect("in-flight lock").remove(&request));
                if let Some(token) = token {
                    token.cancel();
                }
            }
            SessionEvent::AgentAnswered { session, answer } => {
                let local =
                    decode(&session).and_then(|h| self.local.lock().expect("sessions lock").get(&h).cloned());
                if let (Some(local), Ok(answer)) = (local, Message::parse(answer.as_bytes())) {
                    // Only the replica whose link awaits it takes it; the others ignore it.
                    let _ = local.deliver_here(answer);
                }
            }
        }
    }

    /// Ends, on this replica, the sessions `which` picks (their credential or
    /// membership ended): their calls are cancelled and their links closed.
    pub fn shut_where(&self, which: impl Fn(&AgentSession) -> bool) {
        let mut local = self.local.lock().expect("sessions lock");
        local.retain(|_, s| {
            let ends = which(s);
            if ends {
                s.shut();
            }
            !ends
        });
    }

    /// Renews, on this replica, the links of the sessions `which` picks.
    pub fn renew_links_where(&self, which: impl Fn(&AgentSession) -> bool) {
        for session in self.local.lock().expect("sessions lock").values().filter(|s| which(s)) {
            session.renew_link();
        }
    }

    /// Ends every session of a revoked token: its rows here, its calls and
    /// links on every replica (the revocation's `Forget` reaches them).
    pub async fn end_of_token(&self, state: &AppState, token_id: uuid::Uuid) -> Result<(), StoreError> {
        state.store.delete_agent_sessions_of_token(token_id).await?;
        Ok(())
    }

    /// Lets go of every session on this replica (shutting down); rows stay.
    pub async fn close_all(&self) {
        let all: Vec<_> = self.local.lock().expect("sessions lock").drain().map(|(_, s)| s).collect();
        for session in all {
            session.close().await;
        }
    }

    /// Drops sessions this replica has not served for a while (their rows stay).
    fn sweep_now_and_then(&self) {
        {
            let mut swept = self.swept.lock().expect("swept lock");
            if swept.elapsed() < SWEEP_EVERY {
                return;
            }
            *swept = Instant::now();
        }
        let mut local = self.local.lock().expect("sessions lock");
        local.retain(|_, s| {
            let keep = s.used.lock().expect("used lock").elapsed() < LOCAL_IDLE
                || !s.in_flight.lock().expect("in-flight lock").is_empty();
            if !keep {
                s.shut();
            }
            keep
        });
    }
}

/// A fresh session id: 24 random bytes, URL-safe base64 (stored only as its hash).
pub fn new_session_id() -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(crate::crypto::random_bytes::<24>())
}
