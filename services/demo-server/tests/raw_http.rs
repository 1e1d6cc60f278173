//! The wire, byte by byte: plain HTTP against the endpoint, both generations.

mod common;

use common::{start_server, start_server_with};
use herald_demo_server::{Options, REJECTED_STATE_MESSAGE, legacy_only};
use reqwest::{StatusCode, header::CONTENT_TYPE};
use serde_json::{Value, json};

const MODERN: &str = "2026-07-28";

fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": { "name": "raw-test", "version": "0.0.0" },
        "io.modelcontextprotocol/clientCapabilities": { "elicitation": { "form": {}, "url": {} } }
    })
}

/// One reply: status, content type, and the JSON-RPC messages in the body (JSON or SSE).
struct Reply {
    status: StatusCode,
    content_type: String,
    session: Option<String>,
    messages: Vec<Value>,
}

impl Reply {
    fn only(&self) -> &Value {
        assert_eq!(self.messages.len(), 1, "one JSON-RPC message in {:?}", self.messages);
        &self.messages[0]
    }
}

fn sse_messages(body: &str) -> Vec<Value> {
    body.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(str::trim)
        .filter(|data| !data.is_empty())
        .map(|data| serde_json::from_str(data).expect("SSE data is JSON"))
        .collect()
}

async fn read(response: reqwest::Response) -> Reply {
    let status = response.status();
    let content_type =
        response.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    let session = response.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_owned);
    let body = response.text().await.expect("body");
    let messages = if content_type.starts_with("text/event-stream") {
        sse_messages(&body)
    } else if content_type.starts_with("application/json") {
        vec![serde_json::from_str(&body).expect("JSON body")]
    } else {
        Vec::new()
    };
    Reply { status, content_type, session, messages }
}

fn post(http: &reqwest::Client, url: &str, body: &Value) -> reqwest::RequestBuilder {
    http.post(url)
        .header(CONTENT_TYPE, "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string())
}

/// A 2026-07-28 request with its standard headers and `_meta`.
async fn modern(http: &reqwest::Client, url: &str, id: u64, method: &str, mut params: Value) -> Reply {
    params["_meta"] = modern_meta();
    let body = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
    let mut request =
        post(http, url, &body).header("mcp-protocol-version", MODERN).header("mcp-method", method);
    if let Some(name) = params.get("name").and_then(Value::as_str) {
        request = request.header("mcp-name", name);
    }
    read(request.send().await.expect("POST")).await
}

fn tamper(state: &str) -> String {
    // rs1.<payload>.<tag>: change a payload character so the tag no longer matches.
    let at = state.find('.').expect("sealed state has sections") + 3;
    let mut bytes = state.as_bytes().to_vec();
    bytes[at] = if bytes[at] == b'A' { b'B' } else { b'A' };
    String::from_utf8(bytes).unwrap()
}

#[tokio::test]
async fn modern_input_required_shape_retry_and_tampered_state() {
    let server = start_server().await;
    let url = server.url();
    let http = reqwest::Client::new();

    let discover = modern(&http, &url, 1, "server/discover", json!({})).await;
    assert_eq!(discover.status, StatusCode::OK);
    assert!(discover.only()["result"]["supportedVersions"].as_array().unwrap().contains(&json!(MODERN)));
    assert_eq!(discover.session, None, "2026-07-28 has no sessions");

    let arguments = json!({ "restaurant": "Chez Ferris" });
    let first =
        modern(&http, &url, 2, "tools/call", json!({ "name": "book_table", "arguments": arguments })).await;
    assert_eq!(first.status, StatusCode::OK);
    assert!(
        first.content_type.starts_with("text/event-stream"),
        "default reply is SSE: {}",
        first.content_type
    );
    assert_eq!(first.session, None);
    let message = first.only();
    assert_eq!(message["id"], 2);
    let result = &message["result"];
    assert_eq!(result["resultType"], "input_required");
    let requests = result["inputRequests"].as_object().expect("inputRequests object");
    assert_eq!(requests.len(), 1);
    let booking = &requests["booking"];
    assert_eq!(booking["method"], "elicitation/create");
    assert_eq!(booking["params"]["mode"], "form");
    assert_eq!(booking["params"]["message"], "Book a table at Chez Ferris");
    let schema = &booking["params"]["requestedSchema"];
    assert_eq!(schema["type"], "object");
    assert_eq!(
        schema["properties"]["date"],
        json!({"type":"string","title":"Date","description":"Day of the reservation","format":"date"})
    );
    assert_eq!(
        schema["properties"]["dietary"]["items"]["enum"],
        json!(["vegetarian", "vegan", "gluten-free", "none"])
    );
    assert_eq!(schema["required"], json!(["date", "name"]));
    let state = result["requestState"].as_str().expect("requestState is a string").to_owned();
    assert!(!state.is_empty());

    // The retry: a new JSON-RPC id, the same name and arguments, plus inputResponses and the echoed state.
    let answer =
        json!({ "booking": { "action": "accept", "content": { "date": "2027-01-02", "name": "Ada" } } });
    let retry = |id: u64, arguments: Value, state: Value, responses: Value| {
        let http = http.clone();
        let url = url.clone();
        async move {
            let mut params = json!({ "name": "book_table", "arguments": arguments, "requestState": state });
            if !responses.is_null() {
                params["inputResponses"] = responses;
            }
            modern(&http, &url, id, "tools/call", params).await
        }
    };

    let done = retry(3, arguments.clone(), json!(state), answer.clone()).await;
    assert_eq!(done.status, StatusCode::OK);
    let result = &done.only()["result"];
    assert_eq!(done.only()["id"], 3);
    assert_eq!(result["resultType"], "complete");
    assert_eq!(
        result["structuredContent"],
        json!({"restaurant":"Chez Ferris","date":"2027-01-02","time":"19:00","party_size":2,"name":"Ada","dietary":[]})
    );
    assert_eq!(result["content"][0]["type"], "text");

    // A tampered state is rejected: a JSON-RPC error, nothing booked.
    let tampered = retry(4, arguments.clone(), json!(tamper(&state)), answer.clone()).await;
    assert_eq!(tampered.status, StatusCode::OK, "an in-band JSON-RPC error");
    let error = &tampered.only()["error"];
    assert_eq!(error["code"], -32602);
    assert_eq!(error["message"], REJECTED_STATE_MESSAGE);
    assert!(tampered.only().get("result").is_none());

    // So is a genuine state replayed against other arguments.
    let replayed = retry(5, json!({ "restaurant": "Elsewhere" }), json!(state), answer.clone()).await;
    assert_eq!(replayed.only()["error"]["code"], -32602);

    // A retry without the answer is asked again, with a fresh state.
    let again = retry(6, arguments.clone(), json!(state), Value::Null).await;
    let result = &again.only()["result"];
    assert_eq!(result["resultType"], "input_required");
    assert!(result["inputRequests"]["booking"].is_object());
    assert!(result["requestState"].is_string());

    // Decline and cancel come back as normal results.
    let declined =
        retry(7, arguments.clone(), json!(state), json!({ "booking": { "action": "decline" } })).await;
    assert_eq!(declined.only()["result"]["content"][0]["text"], "Booking declined by the user");
    assert_eq!(declined.only()["result"]["isError"], false);

    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn modern_header_mismatch_is_a_400() {
    let server = start_server().await;
    let http = reqwest::Client::new();
    let mut params = json!({ "name": "echo", "arguments": { "text": "x" } });
    params["_meta"] = modern_meta();
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params });
    let reply = read(
        post(&http, &server.url(), &body)
            .header("mcp-protocol-version", MODERN)
            .header("mcp-method", "tools/call")
            .header("mcp-name", "deploy")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.only()["error"]["code"], -32020);
}

#[tokio::test]
async fn json_response_option_answers_modern_calls_with_one_json_body() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server =
        herald_demo_server::spawn(listener, Options { json_response: true, ..Options::default() }).unwrap();
    let http = reqwest::Client::new();
    let reply =
        modern(&http, &server.url(), 1, "tools/call", json!({ "name": "choose_region", "arguments": {} }))
            .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert!(reply.content_type.starts_with("application/json"), "{}", reply.content_type);
    assert_eq!(reply.only()["result"]["resultType"], "input_required");
    assert_eq!(
        reply.only()["result"]["inputRequests"]["region"]["params"]["requestedSchema"]["properties"]["region"]
            ["oneOf"][0],
        json!({ "const": "us-east", "title": "US East (N. Virginia)" })
    );
}

/// Reads SSE events off a streaming response until `stop` says so.
async fn next_message(response: &mut reqwest::Response, buffer: &mut String) -> Value {
    loop {
        if let Some(end) = buffer.find("\n\n") {
            let event: String = buffer.drain(..end + 2).collect();
            if let Some(message) = sse_messages(&event).into_iter().next() {
                return message;
            }
            continue;
        }
        let chunk = response.chunk().await.expect("stream read").expect("stream still open");
        buffer.push_str(std::str::from_utf8(&chunk).expect("UTF-8"));
    }
}

#[tokio::test]
async fn legacy_session_pushes_elicitation_on_the_call_stream() {
    let server = start_server().await;
    let url = server.url();
    let http = reqwest::Client::new();

    let init = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": { "elicitation": { "form": {} } },
            "clientInfo": { "name": "raw-test", "version": "0.0.0" }
        }
    });
    let reply = read(post(&http, &url, &init).send().await.unwrap()).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.only()["result"]["protocolVersion"], "2025-11-25");
    let session = reply.session.clone().expect("initialize mints Mcp-Session-Id");

    let legacy = |body: Value| {
        post(&http, &url, &body)
            .header("mcp-session-id", session.as_str())
            .header("mcp-protocol-version", "2025-11-25")
    };
    let initialized =
        legacy(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })).send().await.unwrap();
    assert_eq!(initialized.status(), StatusCode::ACCEPTED);

    let call = json!({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": { "name": "deploy", "arguments": { "service": "api", "environment": "production" } }
    });
    let mut stream = legacy(call).send().await.unwrap();
    assert_eq!(stream.status(), StatusCode::OK);
    assert!(stream.headers()[CONTENT_TYPE].to_str().unwrap().starts_with("text/event-stream"));
    let mut buffer = String::new();
    let ask = next_message(&mut stream, &mut buffer).await;
    assert_eq!(ask["method"], "elicitation/create", "the question arrives on the tools/call stream: {ask}");
    assert_eq!(ask["params"]["message"], "Deploy api to production?");
    assert_eq!(ask["params"]["requestedSchema"]["properties"]["confirm"]["type"], "boolean");
    let ask_id = ask["id"].clone();

    // The answer is a separate POST carrying the JSON-RPC response; the server acknowledges it with 202.
    let answer = json!({ "jsonrpc": "2.0", "id": ask_id, "result": { "action": "accept", "content": { "confirm": true } } });
    let acknowledged = legacy(answer).send().await.unwrap();
    assert_eq!(acknowledged.status(), StatusCode::ACCEPTED);

    let done = next_message(&mut stream, &mut buffer).await;
    assert_eq!(done["id"], 2);
    assert_eq!(done["result"]["content"][0]["text"], "Deployed api to production");
    assert!(done["result"].get("resultType").is_none(), "legacy results carry no resultType");

    // An unknown session is a 404, the client's cue to initialize again.
    let stale = post(&http, &url, &json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/list" }))
        .header("mcp-session-id", "no-such-session")
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(stale.status(), StatusCode::NOT_FOUND);

    drop(stream);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn modern_url_mode_request_shape() {
    let server = start_server().await;
    let http = reqwest::Client::new();
    let reply = modern(
        &http,
        &server.url(),
        1,
        "tools/call",
        json!({ "name": "connect_account", "arguments": { "provider": "github" } }),
    )
    .await;
    let request = &reply.only()["result"]["inputRequests"]["connect"];
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["mode"], "url");
    assert_eq!(request["params"]["url"], "https://auth.example.com/connect?provider=github");
    // rmcp 3.11 models the URL request with a required elicitationId and writes "" when there is none;
    // 2026-07-28 removed the field, so a modern peer sees an empty one. Pinned here so a change shows.
    assert_eq!(request["params"]["elicitationId"], "");
}

/// `initialize` and `notifications/initialized` over plain HTTP; returns the session id.
async fn legacy_session(http: &reqwest::Client, url: &str) -> String {
    let init = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": { "elicitation": { "form": {} } },
            "clientInfo": { "name": "raw-test", "version": "0.0.0" }
        }
    });
    let reply = read(post(http, url, &init).send().await.unwrap()).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.only()["result"]["protocolVersion"], "2025-11-25");
    let session = reply.session.clone().expect("initialize mints Mcp-Session-Id");
    let initialized = post(http, url, &json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))
        .header("mcp-session-id", session.as_str())
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(initialized.status(), StatusCode::ACCEPTED);
    session
}

#[tokio::test]
async fn legacy_only_refuses_modern_requests_with_a_400_that_is_no_modern_error() {
    let server = start_server_with(Options { legacy_only: true, ..Options::default() }).await;
    let url = server.url();
    let http = reqwest::Client::new();
    let modern_codes = [-32020, -32021, -32022];

    let requests = [
        ("server/discover", json!({})),
        ("tools/list", json!({})),
        ("tools/call", json!({ "name": "echo", "arguments": { "text": "x" } })),
    ];
    for (id, (method, params)) in (1..).zip(requests) {
        let reply = modern(&http, &url, id, method, params).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{method}");
        assert!(reply.content_type.starts_with("application/json"), "{}", reply.content_type);
        let error = &reply.only()["error"];
        let code = error["code"].as_i64().expect("a JSON-RPC error code");
        assert!(!modern_codes.contains(&code), "{method}: {code} must not read as a modern refusal");
        assert_eq!(code, legacy_only::REFUSAL_CODE);
        assert_eq!(error["message"], legacy_only::NO_SESSION_MESSAGE);
        assert!(reply.only().get("result").is_none());
    }
    // Just the method, without any 2026-07-28 header or _meta, is refused the same way.
    let bare = json!({ "jsonrpc": "2.0", "id": 9, "method": "server/discover", "params": {} });
    let reply = read(post(&http, &url, &bare).send().await.unwrap()).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.only()["error"]["code"], legacy_only::REFUSAL_CODE);

    // `initialize` passes, and the session works.
    let session = legacy_session(&http, &url).await;
    let echo = json!({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": { "name": "echo", "arguments": { "text": "still here" } }
    });
    let in_session = |body: &Value, version: &str| {
        post(&http, &url, body)
            .header("mcp-session-id", session.as_str())
            .header("mcp-protocol-version", version)
    };
    let reply = read(in_session(&echo, "2025-11-25").send().await.unwrap()).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.only()["result"]["content"][0]["text"], "still here");

    // In a session, a request that claims 2026-07-28 after all is refused as an unknown version.
    let reply = read(in_session(&echo, MODERN).send().await.unwrap()).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    let error = &reply.only()["error"];
    assert_eq!(error["code"], legacy_only::REFUSAL_CODE);
    assert!(
        error["message"].as_str().unwrap().contains("Unsupported protocol version: 2026-07-28"),
        "{error}"
    );

    // The same server without the option answers server/discover.
    let dual = start_server().await;
    let reply = modern(&http, &dual.url(), 1, "server/discover", json!({})).await;
    assert_eq!(reply.status, StatusCode::OK);
    server.shutdown().await.unwrap();
}

/// Like the TypeScript SDK on its own timeout, the server withdraws the question with
/// `notifications/cancelled` on the stream of the `tools/call` that asked it, then the call ends.
#[tokio::test]
async fn a_withdrawn_question_is_cancelled_on_the_stream_of_the_call_that_asked_it() {
    for options in [Options::default(), Options { legacy_only: true, ..Options::default() }] {
        let server = start_server_with(options).await;
        let url = server.url();
        let http = reqwest::Client::new();
        let session = legacy_session(&http, &url).await;
        let call = json!({
            "jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": { "name": "ask_then_withdraw", "arguments": { "seconds": 1 } }
        });
        let mut stream = post(&http, &url, &call)
            .header("mcp-session-id", session.as_str())
            .header("mcp-protocol-version", "2025-11-25")
            .send()
            .await
            .unwrap();
        assert_eq!(stream.status(), StatusCode::OK);
        let mut buffer = String::new();
        let ask = next_message(&mut stream, &mut buffer).await;
        assert_eq!(ask["method"], "elicitation/create", "{ask}");
        assert!(ask["params"]["message"].as_str().unwrap().contains("1 s"), "{ask}");

        // Nobody answers.
        let withdrawn = next_message(&mut stream, &mut buffer).await;
        assert_eq!(withdrawn["method"], "notifications/cancelled", "{withdrawn}");
        assert_eq!(withdrawn["params"]["requestId"], ask["id"], "it names the question's request id");
        assert!(withdrawn.get("id").is_none(), "a notification");

        let done = next_message(&mut stream, &mut buffer).await;
        assert_eq!(done["id"], 2);
        assert_eq!(done["result"]["content"][0]["text"], herald_demo_server::forms::WITHDRAWN_TEXT);
        assert_ne!(done["result"]["isError"], true);
        drop(stream);
        server.shutdown().await.unwrap();
    }
}
