//! A fast upstream MCP server, in the driver's own process so that its clock
//! is the driver's: `/legacy` speaks 2025-11-25 only (sessions, elicitation
//! pushed on the call's SSE stream, answered by a POST), `/modern` speaks
//! 2026-07-28 only (stateless, elicitation as an `input_required` result,
//! answered by a retry). Two paths rather than one endpoint for both: Herald
//! picks the modern generation whenever `server/discover` works, so a server
//! that spoke both would never exercise Herald's legacy upstream side.
//!
//! Tools: `echo` answers at once; `ask {key}` asks one question (message
//! `Bench question {key}`) and answers `answered {key}: {answer}`. The probe
//! records when each question left and when each answer arrived.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use futures_util::{StreamExt, stream};
use serde_json::{Value, json};
use tokio::sync::oneshot;

pub const ASK_PREFIX: &str = "Bench question ";

/// What the upstream saw, keyed by the `ask` call's key.
#[derive(Default)]
pub struct Probe {
    pub asked: Mutex<HashMap<String, Instant>>,
    pub answered: Mutex<HashMap<String, Instant>>,
    /// Open legacy questions: the elicitation's request id → (key, where the answer goes).
    waiting: Mutex<HashMap<i64, (String, oneshot::Sender<Value>)>>,
    next_request: AtomicI64,
    next_session: AtomicU64,
}

impl Probe {
    pub fn asked_count(&self) -> usize {
        self.asked.lock().expect("probe lock").len()
    }

    pub fn clear(&self) {
        self.asked.lock().expect("probe lock").clear();
        self.answered.lock().expect("probe lock").clear();
    }
}

pub struct Upstream {
    pub addr: SocketAddr,
    pub probe: Arc<Probe>,
}

impl Upstream {
    pub async fn start() -> anyhow::Result<Self> {
        let probe = Arc::new(Probe::default());
        let app = Router::new()
            .route("/legacy", post(legacy).get(no_stream).delete(end_session))
            .route("/modern", post(modern).get(no_stream))
            .with_state(probe.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        tokio::spawn(async move {
            let _ = axum::serve(listener, app.into_make_service()).await;
        });
        Ok(Self { addr, probe })
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}/{path}", self.addr)
    }
}

async fn no_stream() -> StatusCode {
    StatusCode::METHOD_NOT_ALLOWED
}

async fn end_session() -> StatusCode {
    StatusCode::OK
}

fn json_reply(body: Value) -> Response {
    ([(axum::http::header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

fn result(id: &Value, result: Value) -> Response {
    json_reply(json!({ "jsonrpc": "2.0", "id": id, "result": result }))
}

fn rpc_error(status: StatusCode, id: &Value, code: i64, message: &str) -> Response {
    let body = json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } });
    (status, [(axum::http::header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

fn tools() -> Value {
    json!({ "tools": [
        { "name": "echo", "inputSchema": { "type": "object" } },
        { "name": "ask", "inputSchema": { "type": "object", "properties": { "key": { "type": "string" } } } },
    ] })
}

fn question(key: &str) -> Value {
    json!({
        "mode": "form",
        "message": format!("{ASK_PREFIX}{key}"),
        "requestedSchema": {
            "type": "object",
            "properties": { "answer": { "type": "string", "title": "Your answer" } },
            "required": ["answer"],
        },
    })
}

fn text(t: String) -> Value {
    json!([{ "type": "text", "text": t }])
}

/// The tool's final text for an elicitation result.
fn outcome_text(key: &str, answer: &Value) -> String {
    match answer.pointer("/content/answer").and_then(Value::as_str) {
        Some(a) if answer["action"] == "accept" => format!("answered {key}: {a}"),
        _ => format!("{} {key}", answer["action"].as_str().unwrap_or("broken")),
    }
}

fn call_key(body: &Value) -> String {
    body.pointer("/params/arguments/key").and_then(Value::as_str).unwrap_or_default().to_owned()
}

async fn legacy(State(probe): State<Arc<Probe>>, headers: HeaderMap, body: Bytes) -> Response {
    let Ok(body) = serde_json::from_slice::<Value>(&body) else {
        return rpc_error(StatusCode::BAD_REQUEST, &Value::Null, -32700, "parse error");
    };
    let id = body.get("id").cloned().unwrap_or(Value::Null);
    let method = body.get("method").and_then(Value::as_str);
    if method == Some("initialize") {
        let session = format!("s{}", probe.next_session.fetch_add(1, Ordering::Relaxed));
        let mut response = result(
            &id,
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": { "tools": {} },
                "serverInfo": { "name": "herald-bench-upstream", "version": "1" },
            }),
        );
        response.headers_mut().insert("mcp-session-id", HeaderValue::from_str(&session).expect("ascii"));
        return response;
    }
    // As the TypeScript SDK does: no session, no service (this is also how
    // Herald learns that `server/discover` is not spoken here).
    if !headers.contains_key("mcp-session-id") {
        return rpc_error(StatusCode::BAD_REQUEST, &id, -32000, "Bad Request: No valid session ID provided");
    }
    let Some(method) = method else {
        // A response: the answer to one of our questions.
        if let Some(rid) = id.as_i64()
            && let Some((key, tx)) = probe.waiting.lock().expect("probe lock").remove(&rid)
        {
            probe.answered.lock().expect("probe lock").insert(key, Instant::now());
            let _ = tx.send(body.get("result").cloned().unwrap_or(Value::Null));
        }
        return StatusCode::ACCEPTED.into_response();
    };
    if id.is_null() {
        return StatusCode::ACCEPTED.into_response(); // a notification
    }
    match (method, body.pointer("/params/name").and_then(Value::as_str)) {
        ("ping", _) => result(&id, json!({})),
        ("tools/list", _) => result(&id, tools()),
        ("tools/call", Some("echo")) => result(&id, json!({ "content": text("echo".into()) })),
        ("tools/call", Some("ask")) => {
            let key = call_key(&body);
            let rid = probe.next_request.fetch_add(1, Ordering::Relaxed);
            let (tx, rx) = oneshot::channel();
            probe.waiting.lock().expect("probe lock").insert(rid, (key.clone(), tx));
            let ask = json!({ "jsonrpc": "2.0", "id": rid, "method": "elicitation/create", "params": question(&key) });
            let (asked_probe, asked_key) = (probe.clone(), key.clone());
            // Stamped when the event is handed to the connection, not when it was built.
            let first = stream::once(async move {
                asked_probe.asked.lock().expect("probe lock").insert(asked_key, Instant::now());
                Ok::<_, Infallible>(Event::default().data(ask.to_string()))
            });
            let last = stream::once(async move {
                let answer = rx.await.unwrap_or(Value::Null);
                let done = json!({ "jsonrpc": "2.0", "id": id,
                    "result": { "content": text(outcome_text(&key, &answer)) } });
                Ok(Event::default().data(done.to_string()))
            });
            Sse::new(first.chain(last)).into_response()
        }
        _ => rpc_error(StatusCode::OK, &id, -32601, "method not found"),
    }
}

async fn modern(State(probe): State<Arc<Probe>>, body: Bytes) -> Response {
    let Ok(body) = serde_json::from_slice::<Value>(&body) else {
        return rpc_error(StatusCode::BAD_REQUEST, &Value::Null, -32700, "parse error");
    };
    let id = body.get("id").cloned().unwrap_or(Value::Null);
    let method = body.get("method").and_then(Value::as_str).unwrap_or_default();
    if body.pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion").and_then(Value::as_str)
        != Some("2026-07-28")
    {
        return rpc_error(StatusCode::BAD_REQUEST, &id, -32022, "only 2026-07-28 is spoken here");
    }
    match (method, body.pointer("/params/name").and_then(Value::as_str)) {
        ("server/discover", _) => result(
            &id,
            json!({
                "resultType": "complete",
                "supportedVersions": ["2026-07-28"],
                "capabilities": { "tools": {} },
                "_meta": { "io.modelcontextprotocol/serverInfo": { "name": "herald-bench-upstream", "version": "1" } },
            }),
        ),
        ("tools/list", _) => {
            let mut tools = tools();
            tools["resultType"] = json!("complete");
            result(&id, tools)
        }
        ("tools/call", Some("echo")) => {
            result(&id, json!({ "resultType": "complete", "content": text("echo".into()) }))
        }
        ("tools/call", Some("ask")) => match body.pointer("/params/inputResponses/q") {
            None => {
                let key = call_key(&body);
                let reply = result(
                    &id,
                    json!({
                        "resultType": "input_required",
                        "inputRequests": { "q": { "method": "elicitation/create", "params": question(&key) } },
                        "requestState": key,
                    }),
                );
                probe.asked.lock().expect("probe lock").insert(key, Instant::now());
                reply
            }
            Some(answer) => {
                let key = body.pointer("/params/requestState").and_then(Value::as_str).unwrap_or_default();
                probe.answered.lock().expect("probe lock").insert(key.to_owned(), Instant::now());
                let t = outcome_text(key, answer);
                result(&id, json!({ "resultType": "complete", "content": text(t) }))
            }
        },
        _ => rpc_error(StatusCode::OK, &id, -32601, "method not found"),
    }
}
