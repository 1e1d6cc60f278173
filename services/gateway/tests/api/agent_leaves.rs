//! An agent that hangs up before the upstream has said anything. Herald runs
//! such a call on the request's own task until its first word (the fast path
//! for plain calls); when the agent leaves earlier, the call must still end
//! the way a call that had started streaming ends: the server is told.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::mcp_support::{Agent, register};
use crate::support::TestApp;

/// What the slow server saw: the id of each `tools/call`, and each cancellation's `requestId`.
#[derive(Debug, PartialEq)]
enum Seen {
    Call(Value),
    Cancelled(Value),
}

/// A 2025-11-25 server whose tools never answer, reporting what it receives.
async fn slow_legacy_server() -> (String, mpsc::UnboundedReceiver<Seen>) {
    let (tx, rx) = mpsc::unbounded_channel();
    async fn handle(
        State(tx): State<Arc<mpsc::UnboundedSender<Seen>>>,
        headers: HeaderMap,
        body: Bytes,
    ) -> Response {
        let message: Value = serde_json::from_slice(&body).unwrap_or_default();
        let method = message["method"].as_str().unwrap_or_default();
        let session = headers.get("mcp-session-id").is_some();
        match method {
            "initialize" => {
                let result = json!({
                    "protocolVersion": "2025-11-25",
                    "capabilities": { "tools": {} },
                    "serverInfo": { "name": "slow", "version": "1" },
                });
                let reply = json!({ "jsonrpc": "2.0", "id": message["id"], "result": result });
                ([("mcp-session-id", "slow-session")], axum::Json(reply)).into_response()
            }
            // Not a 2026-07-28 server: Herald falls back to initialize.
            _ if !session => StatusCode::BAD_REQUEST.into_response(),
            "tools/call" => {
                let _ = tx.send(Seen::Call(message["id"].clone()));
                Sse::new(futures_util::stream::pending::<Result<Event, std::convert::Infallible>>())
                    .into_response()
            }
            "notifications/cancelled" => {
                let _ = tx.send(Seen::Cancelled(message["params"]["requestId"].clone()));
                StatusCode::ACCEPTED.into_response()
            }
            _ => StatusCode::ACCEPTED.into_response(),
        }
    }
    let app = Router::new()
        .route("/mcp", post(handle).get(|| async { StatusCode::METHOD_NOT_ALLOWED }))
        .with_state(Arc::new(tx));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, rx)
}

#[tokio::test]
async fn an_agent_leaving_before_the_server_says_anything_cancels_the_call_upstream() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let token = app.token(&owner, "acme", "agent").await;
    let (url, mut seen) = slow_legacy_server().await;
    register(&owner, "slow", "Slow Server", &url).await;
    let agent = Agent::legacy(&app, &token, "slow").await;

    // The call is sent on its own connection, which is dropped once the server has it.
    let call = tokio::spawn(async move { agent.call(7, "wait", json!({})).await });
    let Some(Seen::Call(upstream_id)) = seen.recv().await else { panic!("the server gets the call") };
    call.abort();
    assert!(call.await.unwrap_err().is_cancelled());

    // A guard against a hang, not a timing assertion: the cancellation follows the hang-up at once.
    let next = tokio::time::timeout(std::time::Duration::from_secs(30), seen.recv()).await;
    assert_eq!(
        next.ok().flatten(),
        Some(Seen::Cancelled(upstream_id)),
        "the server hears the call was cancelled"
    );
}
