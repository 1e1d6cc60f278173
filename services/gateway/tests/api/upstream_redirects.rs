//! A registered server that answers with a redirect. Herald sends the
//! server's stored headers (an API key, say) with every request; following a
//! redirect would hand them to whatever host it names. The registered URL is
//! the one an admin approved, so a redirect is an error, and nothing reaches
//! the other host.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::any;
use herald_mcp::Message;
use serde_json::json;

use crate::mcp_support::Agent;
use crate::support::TestApp;

const STORED_KEY: &str = "sk-registry-secret-0000";

async fn listen(app: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    base
}

#[tokio::test]
async fn a_redirecting_server_is_an_error_and_its_target_never_sees_the_stored_headers() {
    // Where the redirect points: records whatever reaches it.
    let reached: Arc<Mutex<Vec<HeaderMap>>> = Arc::default();
    let elsewhere = listen(Router::new().route(
        "/mcp",
        any({
            let reached = reached.clone();
            move |headers: HeaderMap| async move {
                reached.lock().unwrap().push(headers);
                StatusCode::OK
            }
        }),
    ))
    .await;
    let target = format!("{elsewhere}/mcp");
    let redirecting =
        listen(Router::new().route(
            "/mcp",
            any(move || async move {
                (StatusCode::TEMPORARY_REDIRECT, [(header::LOCATION, target)]).into_response()
            }),
        ))
        .await;

    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let token = app.token(&owner, "acme", "agent").await;
    let server = json!({
        "slug": "moved", "name": "Moved Server", "url": format!("{redirecting}/mcp"),
        "headers": { "X-Api-Key": STORED_KEY },
    });
    assert_eq!(owner.post("/api/v1/orgs/acme/servers", &server).await.status(), 201);

    let agent = Agent::modern(&app, &token, "moved");
    let (_, answer) = agent.request(1, "tools/list", json!({})).await;
    let Message::Error { error, .. } = answer else { panic!("a redirect is an error: {answer:?}") };
    assert!(error.message.contains("upstream server moved"), "{}", error.message);
    assert!(error.message.contains("307"), "the error names the redirect: {}", error.message);
    assert!(reached.lock().unwrap().is_empty(), "nothing reached the redirect's target");
}
