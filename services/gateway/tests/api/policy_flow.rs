//! The policy through the real flow: agent → Herald → the demo server →
//! a question → the org's policy → the person, or an answer on their behalf
//! that the server cannot tell from a person's.

use herald_demo_server::Options;
use serde_json::{Value, json};

use crate::mcp_support::{Agent, Dashboard, latest, register, text};
use crate::support::{Session, TestApp, body};

struct World {
    app: TestApp,
    owner: Session,
    token: String,
    _demo: herald_demo_server::DemoServerHandle,
}

async fn world() -> World {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let token = app.token(&owner, "acme", "agent").await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let demo = herald_demo_server::spawn(listener, Options::default()).expect("the demo server starts");
    register(&owner, "demo", "Demo Server", &demo.url()).await;
    World { app, owner, token, _demo: demo }
}

async fn set_policy(owner: &Session, policy: Value) {
    let response = owner.put("/api/v1/orgs/acme/policy", &policy).await;
    assert_eq!(response.status(), 200, "{}", response.text().await.unwrap());
}

fn deploy(environment: &str) -> Value {
    json!({ "service": "api", "environment": environment })
}

/// Calls `tool` in the background; the handle yields the tool result's text.
fn call(w: &World, tool: &'static str, arguments: Value) -> tokio::task::JoinHandle<String> {
    let agent = Agent::modern(&w.app, &w.token, "demo");
    tokio::spawn(async move { text(&agent.call(1, tool, arguments).await) })
}

async fn audit_reasons(owner: &Session) -> Vec<(String, String)> {
    let log = body(owner.get("/api/v1/orgs/acme/audit?action=elicitation.auto_answered").await).await;
    log["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (e["reason"].as_str().unwrap().to_owned(), e["details"]["action"].as_str().unwrap().to_owned())
        })
        .collect()
}

#[tokio::test]
async fn a_credential_ask_is_declined_unseen_and_the_person_and_admins_are_told() {
    let w = world().await;
    let mut dashboard = Dashboard::open(&w.app, &w.token).await;
    let result = call(&w, "fish_for_password", json!({})).await.unwrap();
    // Exactly what a person's decline produces at the server.
    assert_eq!(result, "Password request declined by the user");
    // The person's note names the server (for a one-click cut-off) and what was found
    // (tests/api/explanations.rs has the admins' side).
    let note = dashboard.next_of("elicitation.explained").await;
    assert_eq!(note["server"]["slug"], "demo");
    assert_eq!(note["policy"]["because"]["credential_hits"][0]["category"], "password", "{note}");
    let record = latest(&w.owner).await;
    assert_eq!(
        (record["action"].clone(), record["decided_by"].clone(), record["reason"].clone()),
        (json!("decline"), json!("policy"), json!("credential_ask"))
    );
    let log = body(w.owner.get("/api/v1/orgs/acme/audit?reason=credential_ask").await).await;
    let hits = &log["entries"][0]["details"]["credential_hits"];
    assert!(hits.as_array().is_some_and(|h| !h.is_empty()), "the audit explains the hit: {log}");
    assert_eq!(hits[0]["category"], "password");
}

#[tokio::test]
async fn in_warn_mode_a_credential_ask_is_shown_with_a_warning() {
    let w = world().await;
    set_policy(&w.owner, json!({ "credential_ask": { "mode": "warn" } })).await;
    let mut dashboard = Dashboard::open(&w.app, &w.token).await;
    let pending = call(&w, "fish_for_password", json!({}));
    let shown = dashboard.next_of("elicitation.created").await;
    let warning = &shown["policy"]["credential_warning"];
    assert!(warning.as_array().is_some_and(|w| !w.is_empty()), "{shown}");
    assert_eq!(dashboard.respond(&shown["id"], "decline", None).await["type"], "ack");
    assert_eq!(pending.await.unwrap(), "Password request declined by the user");
}

#[tokio::test]
async fn a_muted_server_is_declined_for_the_person_without_being_shown() {
    let w = world().await;
    let member_mute = w.owner.post("/api/v1/orgs/acme/mutes", &json!({ "server": "demo" })).await;
    assert_eq!(member_mute.status(), 201);
    let mut dashboard = Dashboard::open(&w.app, &w.token).await;
    assert_eq!(call(&w, "deploy", deploy("staging")).await.unwrap(), "Deployment declined by the user");
    let muted = latest(&w.owner).await;
    assert_eq!((muted["decided_by"].clone(), muted["reason"].clone()), (json!("policy"), json!("muted")));
    // Unmuted, the next question is the first one the dashboard sees.
    assert_eq!(w.owner.delete("/api/v1/orgs/acme/mutes/demo").await.status(), 204);
    let pending = call(&w, "deploy", deploy("staging"));
    let shown = dashboard.next_of("elicitation.created").await;
    assert_ne!(shown["id"], muted["id"], "the muted question was never shown");
    dashboard.respond(&shown["id"], "cancel", None).await;
    assert_eq!(pending.await.unwrap(), "Deployment cancelled by the user");
    assert_eq!(audit_reasons(&w.owner).await, [("muted".to_owned(), "decline".to_owned())]);
}

#[tokio::test]
async fn a_declined_question_is_remembered_and_pestering_mutes_the_server() {
    let w = world().await;
    set_policy(&w.owner, json!({ "decline_memory": { "pestering_threshold": 2 } })).await;
    let mut dashboard = Dashboard::open(&w.app, &w.token).await;
    let first = call(&w, "deploy", deploy("staging"));
    let shown = dashboard.next_of("elicitation.created").await;
    dashboard.respond(&shown["id"], "decline", None).await;
    assert_eq!(first.await.unwrap(), "Deployment declined by the user");

    // The same question again: declined from memory, never shown.
    assert_eq!(call(&w, "deploy", deploy("staging")).await.unwrap(), "Deployment declined by the user");
    assert_eq!(latest(&w.owner).await["reason"], "previously_declined");
    let note = dashboard.next_of("elicitation.explained").await;
    assert_eq!(note["policy"]["because"]["muted_for_pestering"], false, "{note}");
    // A different question still gets through.
    let other = call(&w, "deploy", deploy("production"));
    let shown = dashboard.next_of("elicitation.created").await;
    assert!(shown["message"].as_str().unwrap().contains("production"));
    dashboard.respond(&shown["id"], "cancel", None).await;
    other.await.unwrap();

    // The second re-ask reaches the threshold: the server is muted for the person, who is told.
    assert_eq!(call(&w, "deploy", deploy("staging")).await.unwrap(), "Deployment declined by the user");
    let note = dashboard.next_of("elicitation.explained").await;
    assert_eq!(note["policy"]["because"]["muted_for_pestering"], true, "{note}");
    let mutes = body(w.owner.get("/api/v1/orgs/acme/mutes").await).await;
    assert_eq!(mutes["mutes"][0]["reason"], "pestering");
}

#[tokio::test]
async fn over_the_pending_cap_questions_are_cancelled_for_the_person() {
    let w = world().await;
    set_policy(&w.owner, json!({ "rate_caps": { "max_pending_per_user": 1 } })).await;
    let mut dashboard = Dashboard::open(&w.app, &w.token).await;
    let waiting = call(&w, "deploy", deploy("staging"));
    let shown = dashboard.next_of("elicitation.created").await;
    // One question is waiting: a second one is cancelled unseen.
    assert_eq!(call(&w, "deploy", deploy("production")).await.unwrap(), "Deployment cancelled by the user");
    assert_eq!(latest(&w.owner).await["reason"], "too_many_pending");
    dashboard.respond(&shown["id"], "accept", Some(json!({ "confirm": true }))).await;
    assert_eq!(waiting.await.unwrap(), "Deployed api to staging");
}

#[tokio::test]
async fn over_a_rate_cap_questions_are_cancelled_for_the_person() {
    let w = world().await;
    set_policy(&w.owner, json!({ "rate_caps": { "per_server_per_hour": 1 } })).await;
    let mut dashboard = Dashboard::open(&w.app, &w.token).await;
    let first = call(&w, "deploy", deploy("staging"));
    let shown = dashboard.next_of("elicitation.created").await;
    dashboard.respond(&shown["id"], "accept", Some(json!({ "confirm": true }))).await;
    first.await.unwrap();
    assert_eq!(call(&w, "deploy", deploy("production")).await.unwrap(), "Deployment cancelled by the user");
    let capped = latest(&w.owner).await;
    assert_eq!(
        (capped["decided_by"].clone(), capped["reason"].clone()),
        (json!("policy"), json!("rate_capped"))
    );
}

#[tokio::test]
async fn url_rules_refuse_denied_domains() {
    let w = world().await;
    set_policy(&w.owner, json!({ "url_mode": { "deny_domains": ["example.com"] } })).await;
    let result = call(&w, "connect_account", json!({ "provider": "github" })).await.unwrap();
    assert!(result.to_lowercase().contains("cancel"), "{result}");
    assert_eq!(latest(&w.owner).await["reason"], "url_refused");
}

#[tokio::test]
async fn cutting_a_server_off_ends_its_question_at_once_and_refuses_further_calls() {
    let w = world().await;
    let mut dashboard = Dashboard::open(&w.app, &w.token).await;
    let pending = call(&w, "deploy", deploy("staging"));
    dashboard.next_of("elicitation.created").await;
    let cut =
        w.owner.post("/api/v1/orgs/acme/servers/demo/cut-off", &json!({ "reason": "compromised" })).await;
    assert_eq!(cut.status(), 200);
    let resolved = dashboard.next_of("elicitation.resolved").await;
    assert_eq!(
        (resolved["decided_by"].clone(), resolved["reason"].clone()),
        (json!("policy"), json!("cut_off"))
    );
    assert_eq!(pending.await.unwrap(), "Deployment cancelled by the user");
    let refused = reqwest::Client::new()
        .post(w.app.url("/mcp/acme/demo"))
        .bearer_auth(&w.token)
        .header("content-type", "application/json")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 403);
}

#[tokio::test]
async fn accepted_content_is_erased_after_the_retention_period_and_the_record_stays() {
    let w = world().await;
    set_policy(&w.owner, json!({ "retention": { "accepted_content_days": 1 } })).await;
    let mut dashboard = Dashboard::open(&w.app, &w.token).await;
    let pending = call(&w, "deploy", deploy("staging"));
    let shown = dashboard.next_of("elicitation.created").await;
    dashboard.respond(&shown["id"], "accept", Some(json!({ "confirm": true, "note": "ship it" }))).await;
    pending.await.unwrap();
    // Nothing is old enough yet: the sweep keeps it.
    herald_gateway::broker::janitor::purge(&w.app.state.broker).await;
    assert_eq!(latest(&w.owner).await["content"]["note"], "ship it");
    // Two days later (as far as the records are concerned), it goes; the record stays.
    let id: uuid::Uuid = shown["id"].as_str().unwrap().parse().unwrap();
    let org = w
        .app
        .state
        .store
        .membership(
            "acme",
            w.app.state.store.user_by_email("owner@example.com").await.unwrap().unwrap().user.id,
        )
        .await
        .unwrap()
        .unwrap()
        .org
        .id;
    let erased = w
        .app
        .state
        .store
        .purge_accepted_content(org, time::OffsetDateTime::now_utc() + time::Duration::days(2))
        .await
        .unwrap();
    assert_eq!(erased, 1);
    let record = body(w.owner.get(&format!("/api/v1/orgs/acme/elicitations/{id}")).await).await;
    assert_eq!(record["content"], json!(null));
    assert_eq!((record["action"].clone(), record["decided_by"].clone()), (json!("accept"), json!("user")));
}
