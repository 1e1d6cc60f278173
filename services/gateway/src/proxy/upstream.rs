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

use herald_mcp::headers::{
    MCP_METHOD, MCP_NAME, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION,
    encode_header_value, name_param,
};
use herald_mcp::jsonrpc::{
    HEADER_MISMATCH, MISSING_CLIENT_CAPABILITY, PROTOCOL_VERSION_2025_06_18, PROTOCOL_VERSION_2025_11_25,
    PROTOCOL_VERSION_2026_07_28, UNSUPPORTED_PROTOCOL_VERSION,
};
use herald_mcp::transport::{Endpoint, PostHeaders, Reply, TransportError};
use herald_mcp::{Message, RequestId};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use tokio::sync::{Mutex, RwLock, broadcast};

use super::meta::{RawObject, raw};

/// Which generation of the protocol a server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Generation {
    Legacy,
    Modern,
}

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

#[allow(clippy::large_enum_variant)] // one per agent session or user: size is irrelevant
pub enum Link {
    Legacy(LegacyLink),
    Modern(ModernLink),
}

impl Link {
    /// Connects: `server/discover` first, `initialize` when the server turns
    /// out to be legacy (a 4xx without a recognised modern error).
    pub async fn connect(endpoint: Endpoint, url_mode: bool) -> Result<Arc<Link>, TransportError> {
        match ModernLink::discover(&endpoint, url_mode).await? {
            Some(discovered) => Ok(Arc::new(Link::Modern(ModernLink {
                endpoint,
                url_mode,
                discovered,
                next_id: AtomicI64::new(1),
            }))),
            None => {
                let link = LegacyLink::initialize(endpoint, url_mode).await?;
                Ok(Arc::new(Link::Legacy(link)))
            }
        }
    }

    /// Keeps the standalone GET stream open (legacy servers): notifications
    /// are relayed to agents that listen, and questions a server asks there,
    /// outside any call, are shown to the link's user like any other.
    pub fn listen(self: &Arc<Link>, ctx: super::CallContext) {
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
                    Err(e) => {
                        tracing::debug!(error = %e, "upstream GET stream unavailable");
                        return;
                    }
                };
                drop(strong);
                while let Some(Ok(message)) = stream.next().await {
                    let Some(strong) = weak.upgrade() else { return };
                    on_stream_message(&ctx, &strong, &open, message).await;
                }
                // The stream ended: reopen unless the link is gone.
                if weak.strong_count() == 0 {
                    return;
                }
                tokio::time::sleep(std::time::Duration::from_secs(1)).await;
            }
        }));
    }

    pub fn generation(&self) -> Generation {
        match self {
            Link::Legacy(_) => Generation::Legacy,
            Link::Modern(_) => Generation::Modern,
        }
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

/// One message from a legacy server's standalone stream.
async fn on_stream_message(
    ctx: &super::CallContext,
    link: &Arc<Link>,
    open: &Arc<std::sync::Mutex<HashMap<RequestId, uuid::Uuid>>>,
    message: Message,
) {
    use crate::broker::outcome::{DecidedBy, cancelled, reason};
    let Link::Legacy(legacy) = link.as_ref() else { return };
    match message {
        Message::Notification { method, params } if method == "notifications/cancelled" => {
            let withdrawn = params
                .and_then(|p| serde_json::from_str::<Value>(p.get()).ok())
                .and_then(|p| p.get("requestId").and_then(RequestId::from_value))
                .and_then(|rid| open.lock().expect("open lock").remove(&rid));
            if let Some(id) = withdrawn {
                let _ = ctx
                    .state
                    .broker
                    .resolve(id, &cancelled(DecidedBy::Server, reason::SERVER_CANCELLED))
                    .await;
            }
        }
        Message::Notification { .. } => {
            let _ = legacy.notifications.send(message);
        }
        Message::Request { id, method, .. } if method == "ping" => {
            let _ = legacy.respond(id, raw(&json!({}))).await;
        }
        Message::Request { id, method, params } if method == "elicitation/create" => {
            match super::elicit::intake(ctx, params.as_deref(), "legacy") {
                super::elicit::Intake::Refuse(why) => {
                    let _ = legacy.respond_error(id, herald_mcp::jsonrpc::INVALID_PARAMS, &why).await;
                }
                super::elicit::Intake::Open(record) => match crate::broker::gate::admit(ctx, *record).await {
                    Ok(waiter) => {
                        open.lock().expect("open lock").insert(id.clone(), waiter.id);
                        let (link, open) = (link.clone(), open.clone());
                        tokio::spawn(async move {
                            let ended = waiter.ended().await;
                            open.lock().expect("open lock").remove(&id);
                            let outcome = ended.outcome.expect("an ended elicitation has an outcome");
                            if outcome.decided_by != DecidedBy::Server.as_str()
                                && let Link::Legacy(legacy) = link.as_ref()
                            {
                                let answer = raw(&super::elicit::elicit_result(&outcome));
                                if let Err(e) = legacy.respond(id, answer).await {
                                    tracing::warn!(error = %e, "could not send the answer upstream");
                                }
                            }
                        });
                    }
                    Err(e) => {
                        tracing::error!(error = %e, "could not store an elicitation");
                        let _ = legacy
                            .respond_error(
                                id,
                                herald_mcp::jsonrpc::INTERNAL_ERROR,
                                "the host could not record the request",
                            )
                            .await;
                    }
                },
            }
        }
        Message::Request { id, method, .. } => {
            let refusal = format!("{method} is not supported by this client");
            let _ = legacy.respond_error(id, herald_mcp::jsonrpc::METHOD_NOT_FOUND, &refusal).await;
        }
        _ => {}
    }
}

// --- modern ---------------------------------------------------------------------------

pub struct ModernLink {
    endpoint: Endpoint,
    url_mode: bool,
    discovered: Value,
    next_id: AtomicI64,
}

impl ModernLink {
    /// `Some(result)` when the server speaks 2026-07-28; `None` when it is legacy.
    async fn discover(endpoint: &Endpoint, url_mode: bool) -> Result<Option<Value>, TransportError> {
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
            Ok((Reply::Stream(mut stream), _)) => {
                use futures_util::StreamExt;
                while let Some(message) = stream.next().await {
                    if let Message::Response { result, .. } = message? {
                        return Ok(discovered(&result));
                    }
                }
                Ok(None)
            }
            Ok(_) => Ok(None),
            Err(TransportError::Status { status: 400..=499, error: Some(e), .. })
                if [HEADER_MISMATCH, MISSING_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION]
                    .contains(&e.code) =>
            {
                Err(TransportError::Protocol(format!(
                    "the server speaks a modern MCP revision Herald cannot use: {} ({})",
                    e.message, e.code
                )))
            }
            Err(TransportError::Status { status: 400..=499, .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    pub fn next_id(&self) -> RequestId {
        RequestId::Integer(self.next_id.fetch_add(1, Ordering::Relaxed))
    }

    /// POSTs `method` with `params`, carrying the request metadata of
    /// 2026-07-28 (Herald's capabilities, the agent's `clientInfo` when known)
    /// in `_meta` and mirrored in the headers.
    pub async fn post(
        &self,
        id: RequestId,
        method: &str,
        mut params: RawObject,
        agent_info: Option<&Value>,
        extra: &HeaderMap,
    ) -> Result<Reply, TransportError> {
        let mut m = params.meta();
        for (k, v) in meta(agent_info, self.url_mode) {
            m.insert(k, v);
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

fn discovered(result: &RawValue) -> Option<Value> {
    let value: Value = serde_json::from_str(result.get()).ok()?;
    let speaks = value
        .get("supportedVersions")
        .and_then(Value::as_array)
        .is_some_and(|v| v.iter().any(|s| s.as_str() == Some(PROTOCOL_VERSION_2026_07_28)));
    speaks.then_some(value)
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
    url_mode: bool,
    state: RwLock<LegacyState>,
    /// One re-initialisation at a time.
    reinit: Mutex<()>,
    next_id: AtomicI64,
    /// Notifications from the standalone GET stream, for agents that listen.
    pub notifications: broadcast::Sender<Message>,
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
    async fn initialize(endpoint: Endpoint, url_mode: bool) -> Result<LegacyLink, TransportError> {
        let state = handshake(&endpoint, url_mode).await?;
        let (notifications, _) = broadcast::channel(64);
        Ok(LegacyLink {
            endpoint,
            url_mode,
            state: RwLock::new(state),
            reinit: Mutex::new(()),
            next_id: AtomicI64::new(1),
            notifications,
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
        let fresh = handshake(&self.endpoint, self.url_mode).await?;
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

/// `initialize` and `notifications/initialized`.
async fn handshake(endpoint: &Endpoint, url_mode: bool) -> Result<LegacyState, TransportError> {
    let params = json!({
        "protocolVersion": PROTOCOL_VERSION_2025_11_25,
        "capabilities": elicitation_capability(PROTOCOL_VERSION_2025_11_25, url_mode),
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
                if let Message::Response { result, .. } = message? {
                    found = Some(result);
                    break;
                }
            }
            found.ok_or_else(|| TransportError::Protocol("initialize got no result".into()))?
        }
        _ => return Err(TransportError::Protocol("initialize got no result".into())),
    };
    let result: Value =
        serde_json::from_str(result.get()).map_err(|e| TransportError::Protocol(e.to_string()))?;
    let version =
        result.get("protocolVersion").and_then(Value::as_str).unwrap_or(PROTOCOL_VERSION_2025_06_18);
    if ![PROTOCOL_VERSION_2025_06_18, PROTOCOL_VERSION_2025_11_25, "2025-03-26"].contains(&version) {
        return Err(TransportError::Protocol(format!("the server answered protocol version {version:?}")));
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
