//! Servers that break the protocol's eras: each call ends with an error that
//! names the server and the reason, at once, and nothing is left pending.

use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use herald_mcp::Message;
use herald_mcp::transport::{Endpoint, PostHeaders, Reply};
use reqwest::header::HeaderValue;
use serde_json::{Value, json};

use crate::mcp_support::{Agent, raw, register};
use crate::support::{Session, TestApp, body};

/// How a hostile server misbehaves.
#[derive(Clone, Copy)]
enum Hostile {
    /// Opens a 2025-11-25 session, then answers a call with a 2026-07-28 `input_required`.
    InputRequiredInALegacySession,
    /// Refuses `initialize`, answers `server/discover`, then pushes `elicitation/create` on a
    /// 2026-07-28 response stream and waits for an answer.
    PushOnAModernStream,
    /// Refuses `initialize` and answers `server/discover` with something that is not a
    /// `DiscoverResult`.
    GarbageDiscover,
    /// Accepts `initialize` and never finishes answering it.
    NeverFinishesInitialize,
    /// Opens a 2025-11-25 session, then answers a call with one SSE event that never ends.
    EndlessEvent,
    /// Opens a 2025-11-25 session, asks a question on the call's stream, and never takes the
    /// answer's POST (no response at all).
    StallsAnswers,
    /// Like `StallsAnswers`, but asks thousands of questions at once.
    FloodsAndStalls,
}

/// The methods of the messages a hostile server was sent, in order (`(answer)` for responses).
type Seen = tokio::sync::watch::Sender<Vec<String>>;

async fn serve(hostile: Hostile) -> (String, Seen) {
    let seen = Seen::new(Vec::new());
    let recorded = seen.clone();
    let app = Router::new().route(
        "/mcp",
        post(move |headers: HeaderMap, body: Bytes| {
            let method = serde_json::from_slice::<Value>(&body)
                .ok()
                .and_then(|m| m["method"].as_str().map(str::to_owned))
                .unwrap_or_else(|| "(answer)".into());
            recorded.send_modify(|seen| seen.push(method));
            answer(hostile, headers, body)
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, seen)
}

/// Waits (at most PATIENCE) until the server was sent a message of `method`.
async fn until_sent(seen: &Seen, method: &str) {
    let mut watching = seen.subscribe();
    tokio::time::timeout(crate::mcp_support::PATIENCE, watching.wait_for(|s| s.iter().any(|m| m == method)))
        .await
        .unwrap_or_else(|_| panic!("the server was never sent {method}"))
        .unwrap();
}

fn json_reply(value: Value) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], value.to_string()).into_response()
}

fn refuse_initialize() -> Response {
    let error = json!({ "jsonrpc": "2.0", "id": null, "error": { "code": -32600, "message": "Bad Request: this server speaks 2026-07-28 only" } });
    (StatusCode::BAD_REQUEST, [(header::CONTENT_TYPE, "application/json")], error.to_string()).into_response()
}

async fn answer(hostile: Hostile, _headers: HeaderMap, body: Bytes) -> Response {
    let message: Value = serde_json::from_slice(&body).unwrap_or_default();
    let id = message["id"].clone();
    let method = message["method"].as_str().unwrap_or_default();
    if matches!(hostile, Hostile::StallsAnswers | Hostile::FloodsAndStalls)
        && (message.get("result").is_some() || message.get("error").is_some())
    {
        std::future::pending::<()>().await; // the answer's POST is never taken
    }
    if message.get("method").is_none() || id.is_null() {
        return StatusCode::ACCEPTED.into_response(); // notifications and answers
    }
    match (hostile, method) {
        (
            Hostile::InputRequiredInALegacySession
            | Hostile::EndlessEvent
            | Hostile::StallsAnswers
            | Hostile::FloodsAndStalls,
            "initialize",
        ) => {
            let result = json!({ "protocolVersion": "2025-11-25", "capabilities": { "tools": {} }, "serverInfo": { "name": "hostile", "version": "1" } });
            let mut response = json_reply(json!({ "jsonrpc": "2.0", "id": id, "result": result }));
            response.headers_mut().insert("mcp-session-id", HeaderValue::from_static("s-1"));
            response
        }
        (Hostile::InputRequiredInALegacySession, "tools/call") => json_reply(json!({
            "jsonrpc": "2.0", "id": id,
            "result": {
                "resultType": "input_required",
                "inputRequests": { "q": { "method": "elicitation/create", "params": {
                    "message": "Which database?",
                    "requestedSchema": { "type": "object", "properties": { "db": { "type": "string" } } },
                } } },
                "requestState": "opaque",
            },
        })),
        (Hostile::EndlessEvent, "tools/call") => {
            let start = futures_util::stream::once(async {
                Ok::<_, std::io::Error>(Bytes::from_static(b"event: message\ndata: "))
            });
            let chunk = Bytes::from(vec![b'x'; 64 * 1024]);
            let endless = futures_util::stream::repeat_with(move || Ok(chunk.clone()));
            let body = futures_util::StreamExt::chain(start, endless);
            ([(header::CONTENT_TYPE, "text/event-stream")], Body::from_stream(body)).into_response()
        }
        (Hostile::StallsAnswers, "tools/call") => {
            let ask = json!({ "jsonrpc": "2.0", "id": 5, "method": "elicitation/create", "params": {
                "message": "Proceed?", "requestedSchema": { "type": "object", "properties": { "ok": { "type": "boolean" } } },
            } });
            let first = futures_util::stream::once(async move {
                Ok::<_, std::io::Error>(Bytes::from(format!("event: message\ndata: {ask}\n\n")))
            });
            let then_silence = futures_util::StreamExt::chain(first, futures_util::stream::pending());
            ([(header::CONTENT_TYPE, "text/event-stream")], Body::from_stream(then_silence)).into_response()
        }
        (Hostile::FloodsAndStalls, "tools/call") => {
            let asks: String = (0..5000)
                .map(|n| {
                    let ask = json!({ "jsonrpc": "2.0", "id": n, "method": "elicitation/create", "params": {
                        "message": format!("Question {n}"),
                        "requestedSchema": { "type": "object", "properties": { "x": { "type": "string" } } },
                    } });
                    format!("event: message\ndata: {ask}\n\n")
                })
                .collect();
            let first = futures_util::stream::once(async move { Ok::<_, std::io::Error>(Bytes::from(asks)) });
            let then_silence = futures_util::StreamExt::chain(first, futures_util::stream::pending());
            ([(header::CONTENT_TYPE, "text/event-stream")], Body::from_stream(then_silence)).into_response()
        }
        (_, "initialize") if !matches!(hostile, Hostile::NeverFinishesInitialize) => refuse_initialize(),
        (Hostile::NeverFinishesInitialize, "initialize") => {
            // The headers of a stream, and then nothing at all.
            let silence = futures_util::stream::pending::<Result<Bytes, std::io::Error>>();
            ([(header::CONTENT_TYPE, "text/event-stream")], Body::from_stream(silence)).into_response()
        }
        (Hostile::PushOnAModernStream, "server/discover") => json_reply(json!({
            "jsonrpc": "2.0", "id": id,
            "result": { "resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": { "tools": {} } },
        })),
        (Hostile::PushOnAModernStream, "tools/call") => {
            let push = json!({ "jsonrpc": "2.0", "id": 99, "method": "elicitation/create", "params": {
                "message": "Confirm?", "requestedSchema": { "type": "object", "properties": { "ok": { "type": "boolean" } } },
            } });
            let first = futures_util::stream::once(async move {
                Ok::<_, std::io::Error>(Bytes::from(format!("event: message\ndata: {push}\n\n")))
            });
            let then_silence = futures_util::StreamExt::chain(first, futures_util::stream::pending());
            ([(header::CONTENT_TYPE, "text/event-stream")], Body::from_stream(then_silence)).into_response()
        }
        (Hostile::GarbageDiscover, "server/discover") => json_reply(json!({
            "jsonrpc": "2.0", "id": id, "result": { "hello": "¯\\_(ツ)_/¯" },
        })),
        _ => json_reply(json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32601, "message": "no" } })),
    }
}

struct World {
    app: TestApp,
    owner: Session,
    token: String,
    seen: Seen,
}

async fn world(hostile: Hostile) -> World {
    // A short handshake bound, so a server that never finishes one fails the call quickly; a
    // response bound longer than the tests' patience, so that a stalled POST shows.
    let app = TestApp::spawn_with(|s| {
        s.upstream.handshake_timeout = "500ms".into();
        s.upstream.response_timeout = "120s".into();
    })
    .await;
    let owner = app.owner().await;
    let token = app.token(&owner, "acme", "agent").await;
    let (url, seen) = serve(hostile).await;
    register(&owner, "hostile", "Hostile Server", &url).await;
    World { app, owner, token, seen }
}

/// The JSON-RPC error message of `message`.
fn error_text(message: &Message) -> String {
    match message {
        Message::Error { error, .. } => error.message.clone(),
        other => panic!("expected an error, got {}", other.to_json()),
    }
}

/// A legacy agent's `initialize` through Herald: the reply as sent.
async fn legacy_initialize(w: &World) -> Message {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert("authorization", HeaderValue::from_str(&format!("Bearer {}", w.token)).unwrap());
    let url = reqwest::Url::parse(&w.app.url("/mcp/acme/hostile")).unwrap();
    let endpoint = Endpoint::new(reqwest::Client::new(), url, headers);
    let init = Message::request(
        herald_mcp::RequestId::Integer(0),
        "initialize",
        Some(raw(
            &json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "t", "version": "1" } }),
        )),
    );
    match endpoint.post(init.to_json(), &PostHeaders::default()).await.unwrap().0 {
        Reply::Message(message) => message,
        _ => panic!("initialize is answered with one message"),
    }
}

async fn nothing_pending(w: &World) {
    let page = body(w.owner.get("/api/v1/orgs/acme/elicitations?status=pending").await).await;
    assert_eq!(page["elicitations"], json!([]), "no question is left pending");
}

fn names_the_server_and(why: &str, text: &str) {
    assert!(text.starts_with("upstream server hostile (Hostile Server): "), "{text}");
    assert!(text.contains(why), "{text:?} should say {why:?}");
}

#[tokio::test]
async fn an_input_required_result_in_a_legacy_session_ends_the_call() {
    let w = world(Hostile::InputRequiredInALegacySession).await;
    for agent in
        [Agent::legacy(&w.app, &w.token, "hostile").await, Agent::modern(&w.app, &w.token, "hostile")]
    {
        let done = agent.call(1, "anything", json!({})).await;
        names_the_server_and(
            "answered input_required (a 2026-07-28 result) in a 2025-11-25 session",
            &error_text(&done),
        );
    }
    nothing_pending(&w).await;
}

#[tokio::test]
async fn a_request_pushed_on_a_modern_stream_ends_the_call_at_once() {
    let w = world(Hostile::PushOnAModernStream).await;
    let done = Agent::modern(&w.app, &w.token, "hostile").call(1, "anything", json!({})).await;
    names_the_server_and(
        "sent a request (elicitation/create) on a 2026-07-28 response stream, which that era does not allow",
        &error_text(&done),
    );
    nothing_pending(&w).await;
}

#[tokio::test]
async fn a_garbage_discover_answer_is_named_for_what_it_is() {
    let w = world(Hostile::GarbageDiscover).await;
    let done = Agent::modern(&w.app, &w.token, "hostile").call(1, "anything", json!({})).await;
    let text = error_text(&done);
    names_the_server_and("it speaks neither MCP era", &text);
    assert!(text.contains("server/discover (2026-07-28) answered without supportedVersions"), "{text}");
    names_the_server_and("answered without supportedVersions", &error_text(&legacy_initialize(&w).await));
    nothing_pending(&w).await;
}

#[tokio::test]
async fn a_handshake_that_never_finishes_fails_within_its_bound() {
    let w = world(Hostile::NeverFinishesInitialize).await;
    let done = Agent::modern(&w.app, &w.token, "hostile").call(1, "anything", json!({})).await;
    names_the_server_and("the server did not answer within 500ms", &error_text(&done));
    names_the_server_and("the server did not answer within 500ms", &error_text(&legacy_initialize(&w).await));
    nothing_pending(&w).await;
}

/// A server that streams one event without end is stopped once the event passes the message
/// limit (16 MiB), not at the stream's 256 MiB: the call fails naming the server.
#[tokio::test]
async fn an_event_that_never_ends_is_cut_off_at_the_message_limit() {
    let w = world(Hostile::EndlessEvent).await;
    for agent in
        [Agent::legacy(&w.app, &w.token, "hostile").await, Agent::modern(&w.app, &w.token, "hostile")]
    {
        let done = agent.call(1, "anything", json!({})).await;
        names_the_server_and("an SSE event exceeds 16 MiB", &error_text(&done));
    }
    nothing_pending(&w).await;
}

/// An agent's message over the endpoint's limit is refused with a problem document.
#[tokio::test]
async fn an_oversized_agent_message_gets_a_problem_document() {
    let w = world(Hostile::EndlessEvent).await;
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"x","arguments":{{"blob":"{}"}}}}}}"#,
        "y".repeat(5 * 1024 * 1024)
    );
    let response = reqwest::Client::new()
        .post(w.app.url("/mcp/acme/hostile"))
        .bearer_auth(&w.token)
        .header("content-type", "application/json")
        .body(huge)
        .send()
        .await
        .unwrap();
    let doc =
        crate::support::problem(response, reqwest::StatusCode::PAYLOAD_TOO_LARGE, "payload-too-large").await;
    assert_eq!(doc["detail"], "a message may be at most 4 MiB");
}

/// A server that never takes the answer's POST does not stop the call from noticing that its
/// agent left: the server is told the call was cancelled.
#[tokio::test]
async fn a_stalled_answer_does_not_keep_the_call_from_seeing_its_agent_leave() {
    let w = world(Hostile::StallsAnswers).await;
    let mut dashboard = crate::mcp_support::Dashboard::open(&w.app, &w.token).await;
    let agent = Agent::legacy(&w.app, &w.token, "hostile").await;
    let call = tokio::spawn(async move { agent.call(1, "anything", json!({})).await });
    let question = dashboard.next_of("elicitation.created").await;
    let ack = dashboard.respond(&question["id"], "accept", Some(json!({ "ok": true }))).await;
    assert_eq!(ack["type"], "ack", "{ack}");
    until_sent(&w.seen, "(answer)").await;
    call.abort(); // the agent hangs up while the server sits on the answer
    until_sent(&w.seen, "notifications/cancelled").await;
}

/// A server that asks thousands of questions and takes none of the answers is not answered
/// without bound: past a queue of answers, the call ends naming the server, and nothing is
/// left pending.
#[tokio::test]
async fn a_server_asking_far_more_than_it_takes_answers_for_ends_its_call() {
    let w = world(Hostile::FloodsAndStalls).await;
    let done = Agent::legacy(&w.app, &w.token, "hostile").await.call(1, "anything", json!({})).await;
    names_the_server_and("asked for more than 4096 answers faster than it took them", &error_text(&done));
    nothing_pending(&w).await;
}
