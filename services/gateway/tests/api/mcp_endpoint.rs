//! The agent-facing endpoint refuses what it must before anything goes
//! upstream: missing or foreign credentials, unknown servers and sessions,
//! malformed JSON-RPC, and 2026-07-28 requests whose headers lie.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{TestApp, body};

struct Setup {
    app: TestApp,
    token: String,
}

async fn setup() -> Setup {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let token = app.token(&owner, "acme", "agent").await;
    // Nothing listens here: every test below must be refused before Herald would connect.
    let server = json!({ "slug": "far", "name": "Far Away", "url": "http://127.0.0.1:9/mcp" });
    assert_eq!(owner.post("/api/v1/orgs/acme/servers", &server).await.status(), StatusCode::CREATED);
    Setup { app, token }
}

fn post(s: &Setup, path: &str, body: &str) -> reqwest::RequestBuilder {
    reqwest::Client::new()
        .post(s.app.url(path))
        .bearer_auth(&s.token)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_owned())
}

async fn rpc_error(response: reqwest::Response, status: StatusCode, code: i64) -> Value {
    assert_eq!(response.status(), status);
    let value = body(response).await;
    assert_eq!(value["jsonrpc"], "2.0");
    assert_eq!(value["error"]["code"], code, "{value}");
    value
}

const MODERN_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

#[tokio::test]
async fn credentials_are_required_and_scoped() {
    let s = setup().await;
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#;
    let anonymous = reqwest::Client::new().post(s.app.url("/mcp/acme/far")).body(init).send().await.unwrap();
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(anonymous.headers()["www-authenticate"], "Bearer");
    let wrong = reqwest::Client::new()
        .post(s.app.url("/mcp/acme/far"))
        .bearer_auth("hrl_nope")
        .body(init)
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(post(&s, "/mcp/other-org/far", init).send().await.unwrap().status(), StatusCode::NOT_FOUND);
    assert_eq!(post(&s, "/mcp/acme/nowhere", init).send().await.unwrap().status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_cut_off_server_takes_no_calls() {
    let s = setup().await;
    let owner = s.app.browser();
    let login = owner
        .post(
            "/api/v1/auth/login",
            &json!({ "email": "owner@example.com", "password": crate::support::PASSWORD }),
        )
        .await;
    assert_eq!(login.status(), StatusCode::OK);
    let cut = owner.post("/api/v1/orgs/acme/servers/far/cut-off", &json!({ "reason": "phishing" })).await;
    assert_eq!(cut.status(), StatusCode::OK);
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#;
    let refused =
        rpc_error(post(&s, "/mcp/acme/far", init).send().await.unwrap(), StatusCode::FORBIDDEN, -32600).await;
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("far") && message.contains("cut off") && message.contains("phishing"),
        "{message}"
    );
}

#[tokio::test]
async fn malformed_json_rpc_is_refused_precisely() {
    let s = setup().await;
    rpc_error(post(&s, "/mcp/acme/far", "{not json").send().await.unwrap(), StatusCode::BAD_REQUEST, -32700)
        .await;
    let batch =
        rpc_error(post(&s, "/mcp/acme/far", "[]").send().await.unwrap(), StatusCode::BAD_REQUEST, -32600)
            .await;
    assert!(batch["error"]["message"].as_str().unwrap().contains("batch"));
    rpc_error(
        post(&s, "/mcp/acme/far", r#"{"id":1,"method":"x"}"#).send().await.unwrap(),
        StatusCode::BAD_REQUEST,
        -32600,
    )
    .await;
    // Neither a session, nor initialize, nor the 2026-07-28 headers.
    let lost = rpc_error(
        post(&s, "/mcp/acme/far", r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#).send().await.unwrap(),
        StatusCode::BAD_REQUEST,
        -32600,
    )
    .await;
    assert!(lost["error"]["message"].as_str().unwrap().contains("initialize"));
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":"{}"}}}}"#,
        "a".repeat(5 * 1024 * 1024)
    );
    assert_eq!(
        post(&s, "/mcp/acme/far", &huge).send().await.unwrap().status(),
        StatusCode::PAYLOAD_TOO_LARGE
    );
}

#[tokio::test]
async fn unknown_or_foreign_sessions_get_404() {
    let s = setup().await;
    let request = post(&s, "/mcp/acme/far", r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
        .header("mcp-session-id", "made-up")
        .header("mcp-protocol-version", "2025-11-25");
    rpc_error(request.send().await.unwrap(), StatusCode::NOT_FOUND, -32600).await;
    let get = reqwest::Client::new()
        .get(s.app.url("/mcp/acme/far"))
        .bearer_auth(&s.token)
        .header("mcp-session-id", "made-up")
        .send()
        .await
        .unwrap();
    assert_eq!(get.status(), StatusCode::NOT_FOUND);
    let delete = reqwest::Client::new()
        .delete(s.app.url("/mcp/acme/far"))
        .bearer_auth(&s.token)
        .header("mcp-session-id", "made-up")
        .send()
        .await
        .unwrap();
    assert_eq!(delete.status(), StatusCode::NOT_FOUND);
    let no_session =
        reqwest::Client::new().get(s.app.url("/mcp/acme/far")).bearer_auth(&s.token).send().await.unwrap();
    assert_eq!(no_session.status(), StatusCode::METHOD_NOT_ALLOWED);
}

#[tokio::test]
async fn modern_requests_whose_headers_disagree_with_the_body_are_refused() {
    let s = setup().await;
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","arguments":{{}},{MODERN_META}}}}}"#
    );
    let modern = |method: Option<&str>, name: Option<&str>| {
        let mut request = post(&s, "/mcp/acme/far", &call).header("mcp-protocol-version", "2026-07-28");
        if let Some(m) = method {
            request = request.header("mcp-method", m);
        }
        if let Some(n) = name {
            request = request.header("mcp-name", n);
        }
        request.send()
    };
    for (method, name) in [
        (None, Some("echo")),
        (Some("tools/list"), Some("echo")),
        (Some("tools/call"), None),
        (Some("tools/call"), Some("other")),
        (Some("tools/call"), Some("=?base64?!!?=")),
    ] {
        rpc_error(modern(method, name).await.unwrap(), StatusCode::BAD_REQUEST, -32020).await;
    }
    // The sentinel form that decodes to the right name passes the checks
    // (and then fails to reach the server, which is the point: it got that far).
    let encoded = modern(Some("tools/call"), Some("=?base64?ZWNobw==?=")).await.unwrap();
    assert_eq!(encoded.status(), StatusCode::OK);
    let reached = body(encoded).await;
    assert!(reached["error"]["message"].as_str().unwrap().contains("far"), "{reached}");

    let wrong_meta = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let request = post(&s, "/mcp/acme/far", wrong_meta)
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/list");
    rpc_error(request.send().await.unwrap(), StatusCode::BAD_REQUEST, -32020).await;
    let no_caps = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    let request = post(&s, "/mcp/acme/far", no_caps)
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/list");
    rpc_error(request.send().await.unwrap(), StatusCode::BAD_REQUEST, -32602).await;
    let future = post(&s, "/mcp/acme/far", r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
        .header("mcp-protocol-version", "2099-01-01");
    let unsupported = rpc_error(future.send().await.unwrap(), StatusCode::BAD_REQUEST, -32022).await;
    assert_eq!(unsupported["error"]["data"]["requested"], "2099-01-01");
    assert!(unsupported["error"]["data"]["supported"].as_array().unwrap().contains(&json!("2026-07-28")));
}

#[tokio::test]
async fn an_unreachable_server_is_named_in_a_json_rpc_error() {
    let s = setup().await;
    let init = r#"{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let response = post(&s, "/mcp/acme/far", init).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let value = body(response).await;
    assert_eq!(value["id"], "a");
    let message = value["error"]["message"].as_str().unwrap();
    assert!(message.contains("far") && message.contains("Far Away"), "{message}");
}
