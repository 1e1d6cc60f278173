//! Legacy agents' sessions live in rows: they survive a restart of Herald,
//! expire after a day unused, end everywhere on DELETE, and are never usable
//! by another user or for another server. (Across replicas: tests/api/cli.rs.)

use std::sync::Arc;

use herald_gateway::storage::{AgentSessionRecord, Store};
use herald_mcp::Message;
use herald_mcp::transport::TransportError;
use serde_json::json;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::mcp_support::{Agent, register, text};
use crate::support::TestApp;

async fn with_demo(app: &TestApp) -> (crate::support::Session, String, herald_demo_server::DemoServerHandle) {
    crate::mcp_support::with_demo(app, herald_demo_server::Options::default()).await
}

async fn echo(agent: &Agent, id: i64, said: &str) -> Message {
    agent.call(id, "echo", json!({ "text": said })).await
}

/// Whether Herald answers `agent` with 404 for its session (MCP's "initialize again").
async fn refused(agent: &Agent) -> bool {
    let sent =
        agent.try_request(99, "tools/call", json!({ "name": "echo", "arguments": { "text": "x" } })).await;
    matches!(sent, Err(TransportError::SessionExpired))
}

#[tokio::test]
async fn a_legacy_session_survives_a_restart_of_herald_and_ends_on_delete() {
    let app = TestApp::spawn().await;
    let (_owner, token, _demo) = with_demo(&app).await;
    let agent = Agent::legacy(&app, &token, "demo").await;
    assert_eq!(text(&echo(&agent, 1, "before").await), "before");

    let db = app.stop().await;
    let app = TestApp::spawn_on(db).await;
    let agent = agent.at(&app.base, &token);
    assert_eq!(text(&echo(&agent, 2, "after a restart").await), "after a restart");

    assert!(agent.end_session().await, "DELETE is taken");
    assert!(refused(&agent).await, "the ended session is unknown");
    assert!(!agent.end_session().await, "a second DELETE finds nothing");
}

/// A session id the test chose, stored as Herald stores the ones it mints.
async fn planted(store: &Arc<dyn Store>, app: &TestApp, token: &str, last_seen: OffsetDateTime) -> Agent {
    let principal = app.state.lookups.token(token).await.unwrap().unwrap();
    let server = store.server(principal.membership.org.id, "demo").await.unwrap().unwrap();
    let session_id = format!("planted-{}", Uuid::new_v4());
    let record = AgentSessionRecord {
        id_hash: herald_gateway::crypto::sha256(session_id.as_bytes()),
        org_id: principal.membership.org.id,
        user_id: principal.user.id,
        server_id: server.id,
        protocol_version: "2025-11-25".into(),
        agent_info: Some(json!({ "name": "planted", "version": "1" })),
        agent_capabilities: None,
        token_id: None,
        created_at: last_seen,
        last_seen_at: last_seen,
    };
    store.create_agent_session(&record).await.unwrap();
    Agent::with_session(&app.base, "acme", token, "demo", &session_id, "2025-11-25")
}

#[tokio::test]
async fn a_session_read_from_its_row_is_served_and_one_idle_for_a_day_is_gone() {
    let app = TestApp::spawn().await;
    let (_owner, token, _demo) = with_demo(&app).await;
    let store = app.state.store.clone();
    let now = OffsetDateTime::now_utc();

    let fresh = planted(&store, &app, &token, now - time::Duration::hours(23)).await;
    assert_eq!(text(&echo(&fresh, 1, "from the row").await), "from the row");

    let idle = planted(&store, &app, &token, now - time::Duration::hours(25)).await;
    assert!(refused(&idle).await);

    // The hourly purge forgets it; the fresh one stays.
    let purged = store.purge_idle_agent_sessions(now - time::Duration::hours(24)).await.unwrap();
    assert_eq!(purged, 1);
    assert_eq!(text(&echo(&fresh, 2, "still here").await), "still here");
}

#[tokio::test]
async fn a_session_is_not_usable_by_another_member_or_for_another_server() {
    let app = TestApp::spawn().await;
    let (owner, token, demo) = with_demo(&app).await;
    register(&owner, "other", "Other Server", &demo.url()).await;
    let member = app.join(&owner, "acme", "member@example.com", "member").await;
    let member_token = app.token(&member, "acme", "agent").await;
    let agent = Agent::legacy(&app, &token, "demo").await;

    let stolen = agent.at(&app.base, &member_token);
    assert!(refused(&stolen).await);
    let session = agent.session().unwrap().to_owned();
    let elsewhere = Agent::with_session(&app.base, "acme", &token, "other", &session, "2025-11-25");
    assert!(refused(&elsewhere).await);
    // Nor can another member end it.
    assert!(!stolen.end_session().await);
    assert_eq!(text(&echo(&agent, 2, "mine").await), "mine");
}

#[tokio::test]
async fn session_rows_are_created_read_touched_and_deleted_alike_on_both_databases() {
    let app = TestApp::spawn().await;
    let (_owner, token, _demo) = with_demo(&app).await;
    let store = app.state.store.clone();
    let then = OffsetDateTime::now_utc().replace_nanosecond(0).unwrap() - time::Duration::minutes(10);
    let agent = planted(&store, &app, &token, then).await;
    let hash = herald_gateway::crypto::sha256(agent.session().unwrap().as_bytes());

    let read = store.agent_session(&hash).await.unwrap().expect("the row");
    assert_eq!(read.protocol_version, "2025-11-25");
    assert_eq!(read.agent_info, Some(json!({ "name": "planted", "version": "1" })));
    assert_eq!(read.last_seen_at, then);
    let later = then + time::Duration::minutes(5);
    assert!(store.touch_agent_session(&hash, later).await.unwrap());
    assert_eq!(store.agent_session(&hash).await.unwrap().unwrap().last_seen_at, later);
    assert!(store.delete_agent_session(&hash).await.unwrap());
    assert!(!store.delete_agent_session(&hash).await.unwrap());
    assert!(!store.touch_agent_session(&hash, later).await.unwrap());
    assert_eq!(store.agent_session(&hash).await.unwrap(), None);
}
