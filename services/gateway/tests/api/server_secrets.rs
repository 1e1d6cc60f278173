//! Secrets stay secret (issue 13, finding 5). A server's header values are
//! documented as never shown again, to anyone: so they must not follow its
//! URL to an endpoint an admin chose (where "test" would hand them over), and
//! a credential must not sit in the URL itself, which every member sees.

use herald_demo_server::Options;
use herald_gateway::storage::ServerChanges;
use reqwest::StatusCode;
use serde_json::json;

use crate::mcp_support::{Agent, Dashboard, PATIENCE, with_demo};
use crate::recorder::Recorder;
use crate::support::{Session, TestApp, body, fields, problem};

const STORED: &str = "Bearer sk-stored-credential-0123456789";

async fn test_connection(owner: &Session, slug: &str) {
    let response = owner.post(&format!("/api/v1/orgs/acme/servers/{slug}/test"), &json!({})).await;
    assert_eq!(response.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_url_moved_to_another_origin_needs_its_headers_again_and_the_new_host_never_gets_the_stored_ones() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    // The server the credential was entered for, and an endpoint of the admin's own.
    let home = Recorder::not_found().await;
    let elsewhere = Recorder::not_found().await;
    let created = owner
        .post(
            "/api/v1/orgs/acme/servers",
            &json!({ "slug": "docs", "name": "Docs", "url": home.url("/mcp"), "headers": { "Authorization": STORED } }),
        )
        .await;
    assert_eq!(created.status(), StatusCode::CREATED);

    // Only the URL, to another origin: refused, and nothing changes.
    let moved = owner.patch("/api/v1/orgs/acme/servers/docs", &json!({ "url": elsewhere.url("/mcp") })).await;
    let moved = problem(moved, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    assert_eq!(fields(&moved), ["headers"], "{moved}");
    let message = moved["errors"][0]["message"].as_str().unwrap();
    assert!(message.contains(&format!("entered for {}", home.base)), "{message}");
    assert!(message.contains("re-enter them, or send {} to remove them"), "{message}");
    let unchanged = body(owner.get("/api/v1/orgs/acme/servers/docs").await).await;
    assert_eq!(unchanged["url"], home.url("/mcp"));
    assert_eq!(unchanged["header_names"], json!(["authorization"]));
    test_connection(&owner, "docs").await;
    assert!(home.received(STORED), "the test still goes to the registered server");

    // Another path on the same origin keeps them.
    let same_origin =
        owner.patch("/api/v1/orgs/acme/servers/docs", &json!({ "url": home.url("/v2/mcp") })).await;
    assert_eq!(same_origin.status(), StatusCode::OK);
    assert_eq!(body(same_origin).await["header_names"], json!(["authorization"]));

    // Moved with the headers removed, or re-entered: the new host gets only what was sent with the move.
    let cleared = owner
        .patch("/api/v1/orgs/acme/servers/docs", &json!({ "url": elsewhere.url("/mcp"), "headers": {} }))
        .await;
    assert_eq!(cleared.status(), StatusCode::OK);
    assert_eq!(body(cleared).await["header_names"], json!([]));
    test_connection(&owner, "docs").await;
    let reentered = owner
        .patch(
            "/api/v1/orgs/acme/servers/docs",
            &json!({ "url": elsewhere.url("/other"), "headers": { "Authorization": "Bearer for-elsewhere" } }),
        )
        .await;
    assert_eq!(reentered.status(), StatusCode::OK);
    test_connection(&owner, "docs").await;

    assert!(!elsewhere.requests().is_empty(), "the moved server was tested");
    assert!(elsewhere.received("Bearer for-elsewhere"));
    assert!(!elsewhere.received("sk-stored-credential"), "the stored credential never left for the new host");
}

#[tokio::test]
async fn a_server_without_headers_may_move_freely() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let new = json!({ "slug": "open", "name": "Open", "url": "https://a.example/mcp" });
    assert_eq!(owner.post("/api/v1/orgs/acme/servers", &new).await.status(), StatusCode::CREATED);
    let moved =
        owner.patch("/api/v1/orgs/acme/servers/open", &json!({ "url": "https://b.example/mcp" })).await;
    assert_eq!(moved.status(), StatusCode::OK);
    assert_eq!(body(moved).await["url"], "https://b.example/mcp");
}

#[tokio::test]
async fn a_credential_in_a_server_urls_query_is_refused_with_a_pointer_to_headers() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    for url in [
        "https://mcp.example.com/mcp?api_key=sk-live-123",
        "https://mcp.example.com/mcp?profile=work&accessToken=abc",
        "https://mcp.example.com/mcp?sig=abc&sv=2024-01-01",
    ] {
        let refused = owner
            .post("/api/v1/orgs/acme/servers", &json!({ "slug": "query", "name": "Q", "url": url }))
            .await;
        let refused = problem(refused, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
        assert_eq!(fields(&refused), ["url"]);
        let message = refused["errors"][0]["message"].as_str().unwrap();
        assert!(message.contains("send it as a header"), "{message}");
        assert!(
            !message.contains("sk-live-123") && !message.contains("abc"),
            "the value is not echoed: {message}"
        );
    }
    assert_eq!(body(owner.get("/api/v1/orgs/acme/servers").await).await["servers"], json!([]));

    let fine = json!({ "slug": "query", "name": "Q", "url": "https://mcp.example.com/mcp?profile=work" });
    assert_eq!(owner.post("/api/v1/orgs/acme/servers", &fine).await.status(), StatusCode::CREATED);
    let patched = owner
        .patch(
            "/api/v1/orgs/acme/servers/query",
            &json!({ "url": "https://mcp.example.com/mcp?token=t0k3n" }),
        )
        .await;
    problem(patched, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    let kept = body(owner.get("/api/v1/orgs/acme/servers/query").await).await;
    assert_eq!(kept["url"], "https://mcp.example.com/mcp?profile=work");
}

/// A server registered before such URLs were refused: calls still use the
/// URL as stored, but no view shows the credential (the server list, its
/// questions in the inbox).
#[tokio::test]
async fn a_credential_stored_in_a_query_before_the_rule_is_hidden_from_every_view_and_calls_still_work() {
    let app = TestApp::spawn().await;
    let (owner, token, demo) = with_demo(&app, Options::default()).await;
    let user = app.state.store.user_by_email("owner@example.com").await.unwrap().unwrap().user;
    let org_id = app.state.store.membership("acme", user.id).await.unwrap().unwrap().org.id;
    let legacy_url = format!("{}?api_key=sk-legacy-query-secret", demo.url());
    let changes = ServerChanges { url: Some(legacy_url), ..Default::default() };
    app.state.store.update_server(org_id, "demo", changes, time::OffsetDateTime::now_utc()).await.unwrap();

    let member = app.join(&owner, "acme", "member@example.com", "member").await;
    for viewer in [&owner, &member] {
        let shown = body(viewer.get("/api/v1/orgs/acme/servers/demo").await).await;
        assert_eq!(shown["url"], format!("{}?api_key=redacted", demo.url()), "{shown}");
        let listed = viewer.get("/api/v1/orgs/acme/servers").await.text().await.unwrap();
        assert!(!listed.contains("sk-legacy"), "{listed}");
    }

    let mut inbox = Dashboard::open(&app, &token).await;
    let agent = Agent::modern(&app, &token, "demo");
    let booking =
        tokio::spawn(
            async move { agent.call(1, "book_table", json!({ "restaurant": "Chez Herald" })).await },
        );
    let created = inbox.next_of("elicitation.created").await;
    assert!(!created.to_string().contains("sk-legacy"), "{created}");
    assert_eq!(created["server"]["url"], format!("{}?api_key=redacted", demo.url()));
    let history = owner.get("/api/v1/orgs/acme/elicitations?status=pending").await.text().await.unwrap();
    assert!(!history.contains("sk-legacy"), "{history}");
    let ack = inbox.respond(&created["id"], "decline", None).await;
    assert_eq!(ack["type"], "ack", "{ack}");
    let answer = tokio::time::timeout(PATIENCE, booking).await.expect("the call ends").unwrap();
    assert!(matches!(answer, herald_mcp::Message::Response { .. }), "the call went through: {answer:?}");
}
