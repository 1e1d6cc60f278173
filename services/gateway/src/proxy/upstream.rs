//! Connections to upstream servers, in whichever generation they speak.
//!
//! A `Link` is Herald's client of one server on behalf of one user (and, for
//! legacy agents, one agent session): never shared between users. A modern
//! server (2026-07-28) is stateless, so its link only remembers what
//! `server/discover` said. A legacy server gets an `initialize` handshake and
//! a session, re-established transparently when the server forgets it (404),
//! and its standalone GET stream is kept open for notifications.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

use herald_mcp::headers::{
    MCP_METHOD, MCP_NAME, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION,
    encode_header_value, name_param,
};
use herald_mcp::jsonrpc::{
    HEADER_MISMATCH, MISSING_CLIENT_CAPABILITY, PROTOCOL_VERSION_2025_06_18, PROTOCOL_VERSION_2025_11_25,
    PROTOCOL_VERSION_2026_07_28, UNSUPPORTED_PROTOCOL_VERSION,
};
use herald_mcp::transport::{Endpoint, PostHeaders, Reply, TransportError};
use herald_mcp::{Message, ProtocolGeneration, RequestId};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use tokio::sync::{Mutex, RwLock, broadcast};

use super::meta::{RawObject, raw};
use crate::backoff::Backoff;
use crate::domain::ServerProtocol;

/// How to connect to a server.
#[derive(Clone)]
pub struct LinkOptions {
    /// Declare URL-mode elicitation (the org's policy allows it).
    pub url_mode: bool,
    /// Which era to speak (the registry's setting).
    pub protocol: ServerProtocol,
    /// Client capabilities beyond elicitation to declare in a legacy session:
    /// `sampling` and `roots`, when the legacy agent behind the link declared
    /// them and Herald can relay the server's requests to it.
    pub relayed: Map<String, Value>,
    /// How long an era probe (`initialize` with `notifications/initialized`,
    /// or `server/discover`) may take in all, streams included: a server that
    /// accepts and never finishes its handshake must not hold a call.
    pub handshake: Duration,
    /// The link is shared by a person's 2026-07-28 agents, who answer the
    /// server only within their calls.
    pub shared: bool,
}

impl Default for LinkOptions {
    fn default() -> Self {
        LinkOptions {
            url_mode: false,
            protocol: ServerProtocol::Auto,
            relayed: Map::new(),
            handshake: crate::config::UpstreamLimits::default().handshake,
            shared: false,
        }
    }
}

/// Whose requests a link carries, for what Herald declares it can relay.
#[derive(Clone, Copy)]
pub enum LinkFor<'a> {
    /// One legacy agent's session, with the `capabilities` of its `initialize`.
    LegacyAgent(Option<&'a Value>),
    /// A person's 2026-07-28 agents, who share the link.
    ModernAgents,
}

impl LinkOptions {
    /// For a call's link: the org's URL-mode rule, the server's era setting,
    /// and what Herald declares it can relay (`sampling`, `roots`): a legacy
    /// agent's session link declares what that agent declared; the link
    /// modern agents share declares both, each call's agent being asked only
    /// if its own capabilities say it answers (by an `input_required` result
    /// of its call; see `parking`).
    pub fn for_call(ctx: &super::CallContext, link_for: LinkFor<'_>) -> Self {
        let relayed = match link_for {
            LinkFor::LegacyAgent(declared) => declared
                .and_then(Value::as_object)
                .map(|c| {
                    c.iter()
                        .filter(|(name, value)| {
                            RELAYED_CAPABILITIES.contains(&name.as_str()) && value.is_object()
                        })
                        .map(|(name, value)| (name.clone(), value.clone()))
                        .collect()
                })
                .unwrap_or_default(),
            LinkFor::ModernAgents => {
                RELAYED_CAPABILITIES.iter().map(|name| ((*name).to_owned(), json!({}))).collect()
            }
        };
        LinkOptions {
            url_mode: ctx.policy.url_mode.enabled,
            protocol: ctx.server.protocol,
            relayed,
            handshake: ctx.state.config.upstream.handshake,
            shared: matches!(link_for, LinkFor::ModernAgents),
        }
    }
}

/// Client capabilities Herald declares upstream on a legacy agent's behalf,
/// because it can relay the server's requests to that agent.
pub const RELAYED_CAPABILITIES: [&str; 2] = ["sampling", "roots"];

/// What Herald tells servers about itself.
pub fn client_info() -> Value {
    json!({ "name": "herald", "version": env!("CARGO_PKG_VERSION") })
}

/// The elicitation capability Herald declares: it is the host, so it always
/// can show a form; URL mode unless the org's policy turned it off.
fn elicitation_capability(version: &str, url_mode: bool) -> Value {
    if version == PROTOCOL_VERSION_2025_06_18 {
        return json!({ "elicitation": {} });
    }
    if url_mode {
        json!({ "elicitation": { "form": {}, "url": {} } })
    } else {
        json!({ "elicitation": { "form": {} } })
    }
}

/// Herald's capabilities in a legacy session: elicitation, plus what it relays.
fn legacy_capabilities(options: &LinkOptions) -> Value {
    let mut capabilities = elicitation_capability(PROTOCOL_VERSION_2025_11_25, options.url_mode);
    if let Value::Object(c) = &mut capabilities {
        for (name, value) in &options.relayed {
            c.insert(name.clone(), value.clone());
        }
    }
    capabilities
}

#[allow(clippy::large_enum_variant)] // one per agent session or user: size is irrelevant
pub enum Link {
    Legacy(LegacyLink),
    Modern(ModernLink),
}

impl Link {
    /// Connects in the era the registry chose for the server.
    ///
    /// `Auto` opens a 2025-11-25 session whenever the server offers one: it
    /// carries every kind of question (pushed `elicitation/create`, which
    /// tools written with `ctx.elicit`-style helpers can only send in that
    /// era, and resolver-style ones). Only a server that refuses `initialize`
    /// is asked `server/discover` and spoken to in 2026-07-28.
    pub async fn connect(endpoint: Endpoint, options: LinkOptions) -> Result<Arc<Link>, TransportError> {
        let link = match options.protocol {
            ServerProtocol::Legacy => Link::Legacy(LegacyLink::initialize(endpoint, options).await?),
            ServerProtocol::Modern => match ModernLink::discover(&endpoint, &options).await? {
                Ok(discovered) => Link::Modern(ModernLink::new(endpoint, options.url_mode, discovered)),
                Err(why) => {
                    return Err(TransportError::Protocol(format!(
                        "it is set to speak 2026-07-28, but server/discover {why}"
                    )));
                }
            },
            ServerProtocol::Auto => match LegacyLink::initialize(endpoint.clone(), options.clone()).await {
                Ok(legacy) => Link::Legacy(legacy),
                // Unreachable is unreachable in either era: no second probe.
                Err(e @ (TransportError::Connect(_) | TransportError::Timeout(_))) => return Err(e),
                Err(legacy) => match ModernLink::discover(&endpoint, &options).await? {
                    Ok(discovered) => Link::Modern(ModernLink::new(endpoint, options.url_mode, discovered)),
                    Err(modern) => {
                        return Err(TransportError::Protocol(format!(
                            "it speaks neither MCP era: initialize (2025-11-25): {legacy}; \
                             server/discover (2026-07-28) {modern}"
                        )));
                    }
                },
            },
        };
        Ok(Arc::new(link))
    }

    /// Asks the server in both eras at once (a connection test): what each
    /// probe found, so an admin sees which eras the server offers.
    pub async fn probe(endpoint: Endpoint, options: LinkOptions) -> Probes {
        let (legacy, modern) = tokio::join!(
            LegacyLink::initialize(endpoint.clone(), options.clone()),
            ModernLink::discover(&endpoint, &options),
        );
        let modern = match modern {
            Ok(Ok(discovered)) => Ok(ModernLink::new(endpoint, options.url_mode, discovered)),
            Ok(Err(why)) => Err(ModernMiss::NotModern(why)),
            Err(e) => Err(ModernMiss::Transport(e)),
        };
        Probes { legacy, modern }
    }

    /// Keeps the standalone GET stream open (legacy servers): notifications
    /// are relayed to agents that listen, and questions a server asks there,
    /// outside any call, are shown to the link's user like any other.
    pub fn listen(self: &Arc<Link>, ctx: StreamContext) {
        let Link::Legacy(link) = self.as_ref() else { return };
        let mut slot = link.listening.lock().expect("listen lock");
        if slot.is_some() {
            return;
        }
        let weak = Arc::downgrade(self);
        *slot = Some(tokio::spawn(async move {
            use futures_util::StreamExt;
            // The server's request id → the record it opened, for withdrawals.
            let open: Arc<std::sync::Mutex<HashMap<RequestId, uuid::Uuid>>> = Arc::default();
            // A stream that keeps failing is reopened ever more slowly: after one that delivered
            // something, in `LISTEN_RETRY_FIRST`; after one that delivered nothing, in twice the
            // pause before (twice `LISTEN_RETRY_FIRST` when there was none). So the first pause
            // is only ever taken after a reset.
            let mut pauses = Backoff::new(LISTEN_RETRY_FIRST, LISTEN_RETRY_MAX);
            pauses.next();
            loop {
                let Some(strong) = weak.upgrade() else { return };
                let Link::Legacy(link) = strong.as_ref() else { return };
                let (session, version) = {
                    let s = link.state.read().await;
                    (s.session_id.clone(), s.version.clone())
                };
                let Some(session) = session else { return };
                let mut stream = match link.endpoint.open_stream(&session, &version).await {
                    Ok(Some(stream)) => stream,
                    Ok(None) => return, // the server offers no GET stream
                    Err(e) if is_passing(&e) => {
                        // A server restarting or overloaded: its questions outside calls would be
                        // lost for the link's lifetime if it were not asked again.
                        drop(strong);
                        let pause = pauses.next();
                        tracing::debug!(error = %e, retry_in = ?pause, "upstream GET stream unavailable for now");
                        tokio::time::sleep(pause).await;
                        continue;
                    }
                    Err(e) => {
                        tracing::debug!(error = %e, "upstream GET stream unavailable");
                        return;
                    }
                };
                drop(strong);
                let mut delivered = false;
                loop {
                    match stream.next().await {
                        Some(Ok(message)) => {
                            let Some(strong) = weak.upgrade() else { return };
                            delivered = true;
                            on_stream_message(&ctx, &strong, &open, message).await;
                        }
                        Some(Err(e)) => {
                            tracing::info!(server = %ctx.origin.server.slug, error = %e, "upstream GET stream broke");
                            break;
                        }
                        None => break,
                    }
                }
                // The stream ended: reopen unless the link is gone.
                if weak.strong_count() == 0 {
                    return;
                }
                if delivered {
                    pauses.reset();
                }
                tokio::time::sleep(pauses.next()).await;
            }
        }));
    }

    pub fn generation(&self) -> ProtocolGeneration {
        match self {
            Link::Legacy(_) => ProtocolGeneration::Legacy,
            Link::Modern(_) => ProtocolGeneration::Modern,
        }
    }

    /// The person's bearer token the link sends (for a server that acts as each person).
    pub fn bearer(&self) -> Option<&str> {
        let endpoint = match self {
            Link::Legacy(l) => &l.endpoint,
            Link::Modern(m) => &m.endpoint,
        };
        endpoint.header(&reqwest::header::AUTHORIZATION)?.to_str().ok()?.strip_prefix("Bearer ")
    }

    /// The server's capabilities, serverInfo and instructions, as it stated them.
    pub async fn server_description(&self) -> (Value, Value, Option<Value>) {
        match self {
            Link::Modern(m) => {
                let d = &m.discovered;
                let info = d.pointer("/_meta/io.modelcontextprotocol~1serverInfo").cloned();
                (
                    d.get("capabilities").cloned().unwrap_or_else(|| json!({})),
                    info.unwrap_or_else(|| json!({ "name": "unknown", "version": "0" })),
                    d.get("instructions").cloned(),
                )
            }
            Link::Legacy(l) => {
                let state = l.state.read().await;
                (state.capabilities.clone(), state.server_info.clone(), state.instructions.clone())
            }
        }
    }
}

/// How long a server's request outside any call waits for the agent to open
/// its standalone stream.
const LISTENER_GRACE: Duration = Duration::from_secs(10);

/// How soon a legacy link reopens its standalone stream after it ended, at first
/// and at most (doubling while the stream delivers nothing).
/// Whether a failure to open the GET stream may pass (worth asking again later): the server
/// unreachable, slow, or answering 408, 429 or 5xx. Anything else (the session gone, the request
/// refused) will not change by asking again.
fn is_passing(error: &TransportError) -> bool {
    match error {
        TransportError::Connect(_) | TransportError::Timeout(_) | TransportError::Lost(_) => true,
        TransportError::Status { status, .. } => matches!(status, 408 | 429 | 500..=599),
        TransportError::SessionExpired | TransportError::Protocol(_) => false,
    }
}

const LISTEN_RETRY_FIRST: Duration = Duration::from_secs(1);
const LISTEN_RETRY_MAX: Duration = Duration::from_secs(60);

/// What [`Link::probe`] found in each era.
pub struct Probes {
    pub legacy: Result<LegacyLink, TransportError>,
    pub modern: Result<ModernLink, ModernMiss>,
}

/// Why a server is not spoken to in 2026-07-28.
pub enum ModernMiss {
    /// `server/discover` did not get through.
    Transport(TransportError),
    /// It answered, but not as a 2026-07-28 server does (Herald's words on why).
    NotModern(String),
}

/// Why no link was chosen: Herald's words, and the failure behind them if
/// the server could not be reached at all.
pub struct Unchosen {
    pub why: String,
    pub cause: Option<TransportError>,
}

impl Probes {
    /// The link Herald would use under `protocol`, ending the other probe's session.
    pub async fn choose(self, protocol: ServerProtocol) -> Result<Arc<Link>, Unchosen> {
        let Probes { legacy, modern } = self;
        let unchosen = |why: &str, cause: Option<TransportError>| Unchosen { why: why.to_owned(), cause };
        let chosen = match (protocol, legacy, modern) {
            (ServerProtocol::Auto | ServerProtocol::Legacy, Ok(legacy), _) => Ok(Link::Legacy(legacy)),
            (ServerProtocol::Legacy, Err(e), _) => {
                Err(unchosen("it is set to speak 2025-11-25, but it does not offer that era", Some(e)))
            }
            (ServerProtocol::Modern, legacy, modern) => {
                if let Ok(legacy) = legacy {
                    legacy.close().await;
                }
                match modern {
                    Ok(modern) => Ok(Link::Modern(modern)),
                    Err(miss) => Err(unchosen(
                        "it is set to speak 2026-07-28, but it does not offer that era",
                        match miss {
                            ModernMiss::Transport(e) => Some(e),
                            ModernMiss::NotModern(_) => None,
                        },
                    )),
                }
            }
            (ServerProtocol::Auto, Err(_), Ok(modern)) => Ok(Link::Modern(modern)),
            (ServerProtocol::Auto, Err(legacy), Err(_)) => {
                Err(unchosen("it offers neither MCP era", Some(legacy)))
            }
        };
        chosen.map(Arc::new)
    }
}

/// What a legacy link's standalone stream needs to know of the call that opened it: whose
/// questions it carries, and how long an agent has to answer what it relays. Not the app's
/// whole state: the stream may outlive the call, and each question is judged as things are when
/// it arrives (`Broker::ask`).
#[derive(Clone)]
pub struct StreamContext {
    pub broker: Arc<crate::broker::Broker>,
    pub origin: crate::broker::question::Origin,
    /// How long an agent has to answer a request relayed to it: a person's time.
    pub relay_limit: std::time::Duration,
}

impl StreamContext {
    pub fn of(ctx: &super::CallContext) -> Self {
        StreamContext {
            broker: ctx.state.broker.clone(),
            origin: ctx.origin(),
            relay_limit: std::time::Duration::from_secs(u64::from(ctx.policy.elicitation.timeout_secs)),
        }
    }
}

/// One message from a legacy server's standalone stream.
async fn on_stream_message(
    ctx: &StreamContext,
    link: &Arc<Link>,
    open: &Arc<std::sync::Mutex<HashMap<RequestId, uuid::Uuid>>>,
    message: Message,
) {
    use super::inbound::{FromServer, classify};
    use crate::broker::question::Question;
    use crate::domain::outcome::{DecidedBy, Reason};
    let Link::Legacy(legacy) = link.as_ref() else { return };
    match classify(message) {
        FromServer::Withdrawn { request_id } => {
            let withdrawn = request_id.and_then(|rid| open.lock().expect("open lock").remove(&rid));
            if let Some(id) = withdrawn {
                ctx.broker.end_all([id], DecidedBy::Server, Reason::ServerCancelled).await;
            }
        }
        FromServer::Notification(message) | FromServer::UrlComplete { message, .. } => {
            let _ = legacy.notifications.send(message);
        }
        FromServer::Ping { id } => {
            let _ = legacy.respond(id, raw(&json!({}))).await;
        }
        FromServer::Question { id, params } => {
            // Judged by the org's rules as they are now: the stream outlives the call that opened it.
            let question = Question::from_server(ProtocolGeneration::Legacy, params.as_deref());
            match ctx.broker.ask(&ctx.origin, question).await {
                Err(refused) => {
                    let code = match refused {
                        crate::broker::question::Refused::Unrecorded => herald_mcp::jsonrpc::INTERNAL_ERROR,
                        crate::broker::question::Refused::Invalid(_) => herald_mcp::jsonrpc::INVALID_PARAMS,
                    };
                    let _ = legacy.respond_error(id, code, refused.reason()).await;
                }
                Ok(waiter) => {
                    open.lock().expect("open lock").insert(id.clone(), waiter.id);
                    let (link, open) = (link.clone(), open.clone());
                    tokio::spawn(async move {
                        let ended = waiter.ended().await;
                        open.lock().expect("open lock").remove(&id);
                        let outcome = ended.outcome.expect("an ended elicitation has an outcome");
                        if let Some(answer) = outcome.server_answer()
                            && let Link::Legacy(legacy) = link.as_ref()
                            && let Err(e) = legacy.respond(id, raw(&answer)).await
                        {
                            tracing::warn!(error = %e, "could not send the answer upstream");
                        }
                    });
                }
            }
        }
        FromServer::Request { id, method, params } if super::relay::capability_for(&method).is_some() => {
            let limit = ctx.relay_limit;
            let link = link.clone();
            // Beside the stream: waiting for the agent must not hold up the server's other messages.
            tokio::spawn(async move {
                let Link::Legacy(legacy) = link.as_ref() else { return };
                let why = if legacy.options.shared {
                    Some(format!(
                        "{method} cannot be relayed outside a call: the agents behind this connection speak \
                         MCP 2026-07-28 and answer only within their calls"
                    ))
                } else {
                    let listening = legacy.agent_listening(&method).await;
                    super::relay::refusal_outside_calls(&method, legacy.relayed(), listening)
                };
                if let Some(why) = why {
                    let _ = legacy.reply(super::relay::refused(id, &why)).await;
                    return;
                }
                // To the agent's standalone stream; its answer comes back by POST.
                let (herald_id, answer) = legacy.answers.expect();
                let _ = legacy.notifications.send(Message::Request { id: herald_id.clone(), method, params });
                let answer = match tokio::time::timeout(limit, answer).await {
                    Ok(Ok(answer)) => Ok(answer),
                    Ok(Err(_)) => Err("the agent's session ended before it answered".to_owned()),
                    Err(_) => {
                        legacy.answers.forget(&herald_id);
                        Err(format!("the agent did not answer within {} seconds", limit.as_secs()))
                    }
                };
                if let Err(e) = legacy.reply(super::relay::to_server(id, answer)).await {
                    tracing::warn!(error = %e, "could not send the agent's answer upstream");
                }
            });
        }
        FromServer::Request { id, method, .. } => {
            let refusal = format!("{method} is not supported by this client");
            let _ = legacy.respond_error(id, herald_mcp::jsonrpc::METHOD_NOT_FOUND, &refusal).await;
        }
        FromServer::Reply(_) => {}
    }
}

// --- modern ---------------------------------------------------------------------------

#[cfg(test)]
impl Link {
    /// A 2026-07-28 link that has talked to nothing, for tests that only hold links.
    pub(super) fn unconnected(endpoint: Endpoint) -> Arc<Link> {
        Arc::new(Link::Modern(ModernLink::new(endpoint, false, Value::Null)))
    }
}

pub struct ModernLink {
    endpoint: Endpoint,
    url_mode: bool,
    discovered: Value,
    next_id: AtomicI64,
}

impl ModernLink {
    fn new(endpoint: Endpoint, url_mode: bool, discovered: Value) -> Self {
        ModernLink { endpoint, url_mode, discovered, next_id: AtomicI64::new(1) }
    }

    /// `Ok(result)` when the server speaks 2026-07-28; `Err(why not)` when
    /// it answered, but not as a 2026-07-28 server does. A transport failure
    /// is the outer error. Bounded by [`LinkOptions::handshake`].
    async fn discover(
        endpoint: &Endpoint,
        options: &LinkOptions,
    ) -> Result<Result<Value, String>, TransportError> {
        tokio::time::timeout(options.handshake, Self::discover_unbounded(endpoint, options.url_mode))
            .await
            .unwrap_or(Err(TransportError::Timeout(options.handshake)))
    }

    async fn discover_unbounded(
        endpoint: &Endpoint,
        url_mode: bool,
    ) -> Result<Result<Value, String>, TransportError> {
        let mut params = RawObject::default();
        params.set("_meta", raw(&Value::Object(meta(None, url_mode))));
        let request = Message::request(
            RequestId::String("herald-discover".into()),
            "server/discover",
            Some(params.to_raw()),
        );
        let headers = modern_headers("server/discover", None);
        match endpoint.post(request.to_json(), &headers).await {
            Ok((Reply::Message(Message::Response { result, .. }), _)) => Ok(discovered(&result)),
            Ok((Reply::Message(Message::Error { error, .. }), _)) => {
                Ok(Err(format!("answered with error {}: {}", error.code, error.message)))
            }
            Ok((Reply::Stream(mut stream), _)) => {
                use futures_util::StreamExt;
                while let Some(message) = stream.next().await {
                    match message? {
                        Message::Response { result, .. } => return Ok(discovered(&result)),
                        Message::Error { error, .. } => {
                            return Ok(Err(format!("answered with error {}: {}", error.code, error.message)));
                        }
                        _ => {}
                    }
                }
                Ok(Err("closed its stream without answering".into()))
            }
            Ok(_) => Ok(Err("accepted the request without answering it".into())),
            Err(TransportError::Status { status: 400..=499, error: Some(e), .. })
                if [HEADER_MISMATCH, MISSING_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION]
                    .contains(&e.code) =>
            {
                Err(TransportError::Protocol(format!(
                    "the server speaks a modern MCP revision Herald cannot use: {} ({})",
                    e.message, e.code
                )))
            }
            // Not a recognised modern error: the server is not a 2026-07-28 one.
            Err(e @ TransportError::Status { status: 400..=499, .. }) => Ok(Err(format!("got {e}"))),
            Err(e) => Err(e),
        }
    }

    pub fn next_id(&self) -> RequestId {
        RequestId::Integer(self.next_id.fetch_add(1, Ordering::Relaxed))
    }

    /// POSTs `method` with `params`, carrying the request metadata of
    /// 2026-07-28 (Herald's capabilities, the agent's `clientInfo` when known)
    /// in `_meta` and mirrored in the headers.
    /// `can_answer` is what the agent behind this request answers itself
    /// (declared to the server with Herald's own capabilities).
    pub async fn post(
        &self,
        id: RequestId,
        method: &str,
        mut params: RawObject,
        agent_info: Option<&Value>,
        can_answer: super::relay::CanAnswer,
        extra: &HeaderMap,
    ) -> Result<Reply, TransportError> {
        let mut m = params.meta();
        for (k, v) in meta(agent_info, self.url_mode) {
            m.insert(k, v);
        }
        if let Some(Value::Object(capabilities)) = m.get_mut(META_CLIENT_CAPABILITIES) {
            for name in RELAYED_CAPABILITIES.into_iter().filter(|name| can_answer.has(name)) {
                capabilities.insert(name.to_owned(), json!({}));
            }
        }
        // The MCP-level trace context: the agent call's span (the HTTP header names the request's).
        crate::telemetry::propagation::inject_meta(
            &tracing::Span::current(),
            crate::telemetry::mcp::carried_for_meta().as_ref(),
            &mut m,
        );
        params.set("_meta", raw(&Value::Object(m)));
        let name = name_param(method).and_then(|key| params.string(key));
        let mut headers = modern_headers(method, name.as_deref());
        for (k, v) in extra {
            headers.extra.insert(k.clone(), v.clone());
        }
        let request = Message::request(id, method, Some(params.to_raw()));
        self.endpoint.post(request.to_json(), &headers).await.map(|(reply, _)| reply)
    }
}

/// A `DiscoverResult` that lists 2026-07-28, or why the answer is not one.
fn discovered(result: &RawValue) -> Result<Value, String> {
    let value: Value =
        serde_json::from_str(result.get()).map_err(|_| "answered with invalid JSON".to_owned())?;
    let Some(versions) = value.get("supportedVersions").and_then(Value::as_array) else {
        return Err("answered without supportedVersions (not a DiscoverResult)".into());
    };
    if !versions.iter().any(|s| s.as_str() == Some(PROTOCOL_VERSION_2026_07_28)) {
        return Err(format!("lists supportedVersions {versions:?} without {PROTOCOL_VERSION_2026_07_28}")
            .chars()
            .take(300)
            .collect());
    }
    if !value.get("capabilities").is_none_or(Value::is_object) {
        return Err("answered with capabilities that are not an object".into());
    }
    Ok(value)
}

fn meta(agent_info: Option<&Value>, url_mode: bool) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(META_PROTOCOL_VERSION.into(), json!(PROTOCOL_VERSION_2026_07_28));
    m.insert(META_CLIENT_CAPABILITIES.into(), elicitation_capability(PROTOCOL_VERSION_2026_07_28, url_mode));
    m.insert(META_CLIENT_INFO.into(), agent_info.cloned().unwrap_or_else(client_info));
    m
}

fn modern_headers(method: &str, name: Option<&str>) -> PostHeaders {
    let mut extra = HeaderMap::new();
    if let Ok(v) = HeaderValue::from_str(method) {
        extra.insert(HeaderName::from_static(MCP_METHOD), v);
    }
    if let Some(v) = name.and_then(|n| HeaderValue::from_str(&encode_header_value(n)).ok()) {
        extra.insert(HeaderName::from_static(MCP_NAME), v);
    }
    PostHeaders { protocol_version: Some(PROTOCOL_VERSION_2026_07_28.into()), session_id: None, extra }
}

// --- legacy ---------------------------------------------------------------------------

pub struct LegacyLink {
    endpoint: Endpoint,
    options: LinkOptions,
    state: RwLock<LegacyState>,
    /// One re-initialisation at a time.
    reinit: Mutex<()>,
    next_id: AtomicI64,
    /// Notifications from the standalone GET stream, for agents that listen
    /// (and the server's requests relayed to the agent there).
    pub notifications: broadcast::Sender<Message>,
    /// Answers awaited from the agent to the server's relayed requests.
    pub answers: super::relay::AgentAnswers,
    /// Woken when the agent opens its standalone stream.
    pub agent_listens: tokio::sync::Notify,
    listening: std::sync::Mutex<Option<tokio::task::JoinHandle<()>>>,
}

struct LegacyState {
    session_id: Option<String>,
    version: String,
    capabilities: Value,
    server_info: Value,
    instructions: Option<Value>,
    /// Bumped on every (re)initialisation, so concurrent 404s re-init once.
    epoch: u64,
}

static EPOCHS: AtomicU64 = AtomicU64::new(1);

impl LegacyLink {
    async fn initialize(endpoint: Endpoint, options: LinkOptions) -> Result<LegacyLink, TransportError> {
        let state = handshake(&endpoint, &options).await?;
        let (notifications, _) = broadcast::channel(64);
        Ok(LegacyLink {
            endpoint,
            options,
            state: RwLock::new(state),
            reinit: Mutex::new(()),
            next_id: AtomicI64::new(1),
            notifications,
            answers: Default::default(),
            agent_listens: tokio::sync::Notify::new(),
            listening: std::sync::Mutex::new(None),
        })
    }

    pub fn next_id(&self) -> RequestId {
        RequestId::Integer(self.next_id.fetch_add(1, Ordering::Relaxed))
    }

    pub async fn protocol_version(&self) -> String {
        self.state.read().await.version.clone()
    }

    /// POSTs one message in the session, re-initialising once if the server
    /// has forgotten the session.
    pub async fn post(&self, message: &Message) -> Result<Reply, TransportError> {
        let body = message.to_json();
        let (headers, epoch) = self.headers().await;
        match self.endpoint.post(body.clone(), &headers).await {
            Err(TransportError::SessionExpired) => {
                self.reinitialize(epoch).await?;
                let (headers, _) = self.headers().await;
                self.endpoint.post(body, &headers).await.map(|(reply, _)| reply)
            }
            other => other.map(|(reply, _)| reply),
        }
    }

    /// Sends the JSON-RPC response to a server's request (an elicitation answer).
    pub async fn respond(&self, id: RequestId, result: Box<RawValue>) -> Result<(), TransportError> {
        let (headers, _) = self.headers().await;
        self.endpoint.post(Message::response(id, result).to_json(), &headers).await.map(|_| ())
    }

    /// POSTs any message in the session (a relayed answer, with its error data intact).
    pub async fn reply(&self, message: Message) -> Result<(), TransportError> {
        let (headers, _) = self.headers().await;
        self.endpoint.post(message.to_json(), &headers).await.map(|_| ())
    }

    /// The client capabilities Herald declared for the agent behind this link.
    pub fn relayed(&self) -> &Map<String, Value> {
        &self.options.relayed
    }

    /// Whether the agent has its standalone stream open to receive `method`.
    /// A legacy agent opens it just after its `initialize`, and a server may
    /// ask right after that: an agent that can answer gets a short grace.
    async fn agent_listening(&self, method: &str) -> bool {
        let able = super::relay::capability_for(method).is_some_and(|c| self.options.relayed.contains_key(c));
        if able && self.notifications.receiver_count() == 0 {
            let _ = tokio::time::timeout(LISTENER_GRACE, async {
                loop {
                    let joined = self.agent_listens.notified();
                    if self.notifications.receiver_count() > 0 {
                        return;
                    }
                    joined.await;
                }
            })
            .await;
        }
        self.notifications.receiver_count() > 0
    }

    pub async fn respond_error(&self, id: RequestId, code: i64, message: &str) -> Result<(), TransportError> {
        let (headers, _) = self.headers().await;
        self.endpoint.post(Message::error(Some(id), code, message).to_json(), &headers).await.map(|_| ())
    }

    pub async fn notify(&self, method: &str, params: Value) -> Result<(), TransportError> {
        let (headers, _) = self.headers().await;
        let message = Message::notification(method, Some(raw(&params)));
        self.endpoint.post(message.to_json(), &headers).await.map(|_| ())
    }

    async fn headers(&self) -> (PostHeaders, u64) {
        let state = self.state.read().await;
        let headers = PostHeaders {
            protocol_version: Some(state.version.clone()),
            session_id: state.session_id.clone(),
            extra: HeaderMap::new(),
        };
        (headers, state.epoch)
    }

    async fn reinitialize(&self, seen_epoch: u64) -> Result<(), TransportError> {
        let _one_at_a_time = self.reinit.lock().await;
        if self.state.read().await.epoch != seen_epoch {
            return Ok(()); // someone else already did
        }
        tracing::info!(server = %self.endpoint.url().host_str().unwrap_or("-"), "upstream session expired; re-initialising");
        let fresh = handshake(&self.endpoint, &self.options).await?;
        *self.state.write().await = fresh;
        Ok(())
    }

    /// Ends the upstream session (best effort).
    pub async fn close(&self) {
        if let Some(task) = self.listening.lock().expect("listen lock").take() {
            task.abort();
        }
        let state = self.state.read().await;
        if let Some(session) = &state.session_id {
            let _ = self.endpoint.delete_session(session, &state.version).await;
        }
    }
}

impl Drop for LegacyLink {
    fn drop(&mut self) {
        if let Some(task) = self.listening.get_mut().ok().and_then(Option::take) {
            task.abort();
        }
    }
}

/// `initialize` and `notifications/initialized`, bounded by [`LinkOptions::handshake`].
async fn handshake(endpoint: &Endpoint, options: &LinkOptions) -> Result<LegacyState, TransportError> {
    tokio::time::timeout(options.handshake, handshake_unbounded(endpoint, options))
        .await
        .unwrap_or(Err(TransportError::Timeout(options.handshake)))
}

async fn handshake_unbounded(
    endpoint: &Endpoint,
    options: &LinkOptions,
) -> Result<LegacyState, TransportError> {
    let params = json!({
        "protocolVersion": PROTOCOL_VERSION_2025_11_25,
        "capabilities": legacy_capabilities(options),
        "clientInfo": client_info(),
    });
    let request = Message::request(RequestId::Integer(0), "initialize", Some(raw(&params)));
    let headers = PostHeaders::default();
    let (reply, head) = endpoint.post(request.to_json(), &headers).await?;
    let result = match reply {
        Reply::Message(Message::Response { result, .. }) => result,
        Reply::Message(Message::Error { error, .. }) => {
            return Err(TransportError::Protocol(format!(
                "initialize failed: {} ({})",
                error.message, error.code
            )));
        }
        Reply::Stream(mut stream) => {
            use futures_util::StreamExt;
            let mut found = None;
            while let Some(message) = stream.next().await {
                match message? {
                    Message::Response { result, .. } => {
                        found = Some(result);
                        break;
                    }
                    Message::Error { error, .. } => {
                        return Err(TransportError::Protocol(format!(
                            "initialize failed: {} ({})",
                            error.message, error.code
                        )));
                    }
                    _ => {}
                }
            }
            found.ok_or_else(|| TransportError::Protocol("initialize got no result".into()))?
        }
        _ => return Err(TransportError::Protocol("initialize got no result".into())),
    };
    let result: Value =
        serde_json::from_str(result.get()).map_err(|e| TransportError::Protocol(e.to_string()))?;
    if !result.is_object() {
        return Err(TransportError::Protocol(
            "initialize answered with something other than an object".into(),
        ));
    }
    let version =
        result.get("protocolVersion").and_then(Value::as_str).unwrap_or(PROTOCOL_VERSION_2025_06_18);
    if ![PROTOCOL_VERSION_2025_06_18, PROTOCOL_VERSION_2025_11_25, "2025-03-26"].contains(&version) {
        let version: String = version.chars().take(40).collect();
        return Err(TransportError::Protocol(format!(
            "initialize answered protocol version {version:?}, not a 2025 revision"
        )));
    }
    let state = LegacyState {
        session_id: head.session_id,
        version: version.to_owned(),
        capabilities: result.get("capabilities").cloned().unwrap_or_else(|| json!({})),
        server_info: result
            .get("serverInfo")
            .cloned()
            .unwrap_or_else(|| json!({ "name": "unknown", "version": "0" })),
        instructions: result.get("instructions").cloned(),
        epoch: EPOCHS.fetch_add(1, Ordering::Relaxed),
    };
    let initialized = Message::notification("notifications/initialized", None);
    let headers = PostHeaders {
        protocol_version: Some(state.version.clone()),
        session_id: state.session_id.clone(),
        extra: HeaderMap::new(),
    };
    endpoint.post(initialized.to_json(), &headers).await?;
    Ok(state)
}
