//! An agent's MCP request on `/mcp/{org}/{server}`: a span after the OpenTelemetry MCP
//! conventions (`mcp.method.name`, `mcp.protocol.version`, `mcp.session.id`, `jsonrpc.request.id`,
//! `gen_ai.tool.name`), counted once in `herald_agent_calls_total` when its answer is known.
//!
//! The span's parent is the trace context in the request's `params._meta` when there is one (as
//! the MCP conventions ask), otherwise the HTTP request's span (itself a child of the
//! `traceparent` header). Neither arguments nor results are recorded.
//!
//! A call is answered either by the endpoint itself (refusals, `initialize`, `ping`, discovery),
//! or by the call task that relays it upstream (`proxy::call::run`); whichever answers counts it.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::http::HeaderMap;
use axum::response::Response;
use futures_util::FutureExt;
use futures_util::future::Either;
use herald_mcp::Message;
use herald_mcp::headers::{MCP_PROTOCOL_VERSION, MCP_SESSION_ID};
use herald_mcp::jsonrpc::PROTOCOL_VERSION_2026_07_28;
use serde_json::{Map, Value};
use tracing::field::Empty;
use tracing::{Instrument, Span};

use super::metrics::metrics;
use super::propagation::{Carried, adopt};

tokio::task_local! {
    /// The call being handled, in the endpoint's task.
    static CALL: Arc<AgentCall>;
    /// The agent's trace context, in the call task (passed upstream when spans carry none).
    static CARRIED: Incoming;
}

/// Methods named as themselves in the metrics; any other is `other`.
const METHODS: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "completion/complete",
    "logging/setLevel",
];

/// Identifiers are recorded, but not at any length.
const MAX_ID_CHARS: usize = 128;

pub struct AgentCall {
    generation: &'static str,
    method: &'static str,
    /// Only requests are counted; notifications are not calls.
    is_request: bool,
    span: Span,
    carried: Incoming,
    counted: AtomicBool,
    relayed: AtomicBool,
}

/// The trace context an agent sent: in the HTTP header, in `params._meta`.
#[derive(Clone, Default)]
struct Incoming {
    header: Option<Carried>,
    meta: Option<Carried>,
}

/// The parts of `params` the span needs; everything else is skipped unread.
#[derive(serde::Deserialize, Default)]
struct Peek {
    name: Option<String>,
    #[serde(rename = "_meta")]
    meta: Option<Map<String, Value>>,
}

impl AgentCall {
    pub fn begin(org: &str, server: &str, headers: &HeaderMap, message: Option<&Message>) -> Arc<Self> {
        let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        let session = header(MCP_SESSION_ID);
        let method = message.and_then(Message::method).unwrap_or("");
        let generation = match header(MCP_PROTOCOL_VERSION) {
            _ if session.is_some() || method == "initialize" => "legacy",
            Some(PROTOCOL_VERSION_2026_07_28) => "modern",
            _ => "legacy",
        };
        let (id, peek) = match message {
            Some(Message::Request { id, params, .. }) => (
                Some(truncated(&id.to_string())),
                params.as_ref().and_then(|p| serde_json::from_str::<Peek>(p.get()).ok()).unwrap_or_default(),
            ),
            Some(Message::Notification { params, .. }) => (
                None,
                params.as_ref().and_then(|p| serde_json::from_str::<Peek>(p.get()).ok()).unwrap_or_default(),
            ),
            _ => (None, Peek::default()),
        };
        let tool = (method == "tools/call").then(|| peek.name.as_deref().map(truncated)).flatten();
        let prompt = (method == "prompts/get").then(|| peek.name.as_deref().map(truncated)).flatten();
        let target = tool.as_deref().or(prompt.as_deref());
        let name = match target {
            Some(target) => format!("{method} {target}"),
            None if method.is_empty() => "mcp".to_owned(),
            None => method.to_owned(),
        };
        let span = tracing::info_span!(
            "mcp",
            otel.name = %name,
            otel.kind = "server",
            otel.status_code = Empty,
            mcp.method.name = method,
            mcp.protocol.version = header(MCP_PROTOCOL_VERSION),
            mcp.session.id = session,
            jsonrpc.request.id = id.as_deref(),
            gen_ai.tool.name = tool.as_deref(),
            gen_ai.prompt.name = prompt.as_deref(),
            gen_ai.operation.name = tool.as_ref().map(|_| "execute_tool"),
            herald.org = org,
            herald.server = server,
            herald.generation = generation,
            error.type = Empty,
            rpc.response.status_code = Empty,
        );
        let from_meta = peek.meta.as_ref().and_then(Carried::from_meta);
        // The MCP context, when the request carries one, is the parent; the HTTP one otherwise.
        adopt(&span, from_meta.as_ref());
        let carried = Incoming { header: Carried::from_headers(headers), meta: from_meta };
        Arc::new(Self {
            generation,
            method: METHODS.iter().find(|m| **m == method).copied().unwrap_or("other"),
            is_request: matches!(message, Some(Message::Request { .. })),
            span,
            carried,
            counted: AtomicBool::new(false),
            relayed: AtomicBool::new(false),
        })
    }

    /// Handles the request inside the call's span; counts it if the endpoint answered it with
    /// something other than a JSON-RPC message (an HTTP error, say). (Not an `async fn`: one
    /// would hold `handle` twice, and the call's future would be twice its size.)
    pub fn run(self: Arc<Self>, handle: impl Future<Output = Response>) -> impl Future<Output = Response> {
        CALL.scope(self.clone(), handle.instrument(self.span.clone())).map(move |response| {
            if !self.relayed.load(Ordering::Relaxed) {
                self.count(response.status().is_success());
            }
            response
        })
    }

    fn count(&self, ok: bool) {
        if !self.is_request || self.counted.swap(true, Ordering::Relaxed) {
            return;
        }
        if !ok {
            self.span.record("otel.status_code", "ERROR");
        }
        metrics().agent_call(self.generation, self.method, ok);
    }

    /// The JSON-RPC answer the agent receives.
    pub fn answered(&self, message: &Message) {
        match message {
            Message::Error { error, .. } => {
                let code = error.code.to_string();
                self.span.record("error.type", code.as_str());
                self.span.record("rpc.response.status_code", code.as_str());
                self.count(false);
            }
            Message::Response { .. } => self.count(true),
            _ => {}
        }
    }

    /// The agent went away before an answer.
    pub fn abandoned(&self) {
        self.span.record("error.type", "cancelled");
        self.count(false);
    }

    /// The call task answers the agent from now on.
    pub fn relayed(&self) {
        self.relayed.store(true, Ordering::Relaxed);
    }
}

/// The call being handled in this task, if any.
pub fn current() -> Option<Arc<AgentCall>> {
    CALL.try_with(Arc::clone).ok()
}

/// The endpoint answers with `message` (counted once per call).
pub fn answered(message: &Message) {
    let _ = CALL.try_with(|call| call.answered(message));
}

/// Runs the call task inside the call's span, with the agent's trace context at hand. (Not an
/// `async fn`, which would hold `task` twice.)
pub fn relay<T>(call: Option<Arc<AgentCall>>, task: impl Future<Output = T>) -> impl Future<Output = T> {
    match call {
        Some(call) => {
            call.relayed();
            Either::Left(CARRIED.scope(call.carried.clone(), task.instrument(call.span.clone())))
        }
        None => Either::Right(task),
    }
}

/// The agent's trace context for an upstream request's header (in the call task): the one it
/// sent in its header, else the one in `_meta`.
pub fn carried_for_header() -> Option<Carried> {
    CARRIED.try_with(|c| c.header.clone().or_else(|| c.meta.clone())).ok().flatten()
}

/// The agent's trace context for an upstream request's `_meta`: the one in its `_meta`, else
/// the one in its header.
pub fn carried_for_meta() -> Option<Carried> {
    CARRIED.try_with(|c| c.meta.clone().or_else(|| c.header.clone())).ok().flatten()
}

fn truncated(text: &str) -> String {
    text.chars().take(MAX_ID_CHARS).collect()
}
