//! Long-lived channels follow the current truth: a question is judged by the
//! policy and membership in force when it arrives, links are retired when
//! their server, member or token changes, and a credential's calls and
//! sessions end with it. And what one credential may hold open is capped.

use serde_json::{Value, json};

use crate::mcp_support::{Agent, Dashboard, register};
use crate::puppet::{Puppet, ask, ask_url};
use crate::support::{Session, TestApp, body};

struct World {
    app: TestApp,
    owner: Session,
    token: String,
    puppet: Puppet,
}

async fn world() -> World {
    world_with(|_| {}).await
}

async fn world_with(adjust: impl FnOnce(&mut herald_gateway::config::RawSettings)) -> World {
    let app = TestApp::spawn_with(adjust).await;
    let owner = app.owner().await;
    let token = app.token(&owner, "acme", "agent").await;
    let puppet = Puppet::start().await;
    register(&owner, "puppet", "Puppet", &puppet.url).await;
    World { app, owner, token, puppet }
}

async fn pending(session: &Session) -> Vec<Value> {
    body(session.get("/api/v1/orgs/acme/elicitations?status=pending").await).await["elicitations"]
        .as_array()
        .unwrap()
        .clone()
}

/// The server's answer to its request `id` (as Herald sent it).
async fn answer_to(puppet: &Puppet, id: i64) -> Value {
    puppet
        .sent(&format!("the answer to request {id}"), |m, v| {
            m == "POST" && v["id"] == id && v.get("method").is_none()
        })
        .await
}

async fn set_policy(owner: &Session, policy: Value) {
    let put = owner.put("/api/v1/orgs/acme/policy", &policy).await;
    assert_eq!(put.status(), 200, "{}", put.text().await.unwrap());
}

/// A policy change reaches the next question of a call that started under the old policy.
#[tokio::test]
async fn a_policy_change_applies_to_the_next_question_of_a_running_call() {
    let w = world().await;
    let mut dashboard = Dashboard::open(&w.app, &w.token).await;
    let agent = Agent::legacy(&w.app, &w.token, "puppet").await;
    let call = tokio::spawn(async move { agent.call(1, "work", json!({})).await });
    w.puppet.sent("the call", |m, v| m == "POST" && v["method"] == "tools/call").await;

    w.puppet.push_on_call(ask_url(1, "https://login.example.com/start"));
    let first = dashboard.next_of("elicitation.created").await;
    assert_eq!(first["mode"], "url", "URL mode is on by default");
    dashboard.respond(&first["id"], "accept", None).await;
    assert_eq!(answer_to(&w.puppet, 1).await["result"]["action"], "accept");

    set_policy(&w.owner, json!({ "url_mode": { "enabled": false } })).await;
    w.puppet.push_on_call(ask_url(2, "https://login.example.com/again"));
    let refused = answer_to(&w.puppet, 2).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("turned off"), "{refused}");
    assert!(pending(&w.owner).await.is_empty());

    w.puppet.push_on_call(json!({ "end": { "content": [{ "type": "text", "text": "done" }] } }));
    call.await.unwrap();
}

/// A question on a link's standalone stream is judged by the policy in force when it arrives,
/// and a policy change retires the links made under the old one (their streams close).
#[tokio::test]
async fn the_standalone_stream_follows_policy_changes() {
    let w = world().await;
    set_policy(&w.owner, json!({ "credential_ask": { "mode": "warn" } })).await;
    let mut dashboard = Dashboard::open(&w.app, &w.token).await;
    let agent = Agent::legacy(&w.app, &w.token, "puppet").await;
    w.puppet.streams_open(1).await;
    let password = || ask(7, "Your password, please", json!({ "password": { "type": "string" } }));
    w.puppet.push_on_stream(password());
    let warned = dashboard.next_of("elicitation.created").await;
    assert!(warned["policy"]["credential_warning"].is_array(), "shown behind a warning: {warned}");
    dashboard.respond(&warned["id"], "decline", None).await;

    set_policy(&w.owner, json!({ "credential_ask": { "mode": "block" } })).await;
    w.puppet.streams_open(0).await; // the link made under the old policy is gone
    let (_, listed) = agent.request(2, "tools/list", json!({})).await; // a fresh link
    assert!(matches!(listed, herald_mcp::Message::Response { .. }));
    w.puppet.streams_open(1).await;
    w.puppet.push_on_stream(ask(8, "Your password, please", json!({ "password": { "type": "string" } })));
    let declined = answer_to(&w.puppet, 8).await;
    assert_eq!(declined["result"]["action"], "decline", "blocked for the person: {declined}");
    assert!(pending(&w.owner).await.is_empty());
}

/// A server that refuses its standalone stream for a moment (restarting, overloaded: 503) is
/// asked again, with back-off, and what it asks there still reaches the person.
#[tokio::test]
async fn a_standalone_stream_refused_for_a_moment_is_opened_again() {
    let w = world().await;
    let mut dashboard = Dashboard::open(&w.app, &w.token).await;
    w.puppet.refuse_gets(2);
    let _agent = Agent::legacy(&w.app, &w.token, "puppet").await;
    w.puppet.sent_times("a refused GET", 2, |m, _| m == "GET refused").await;
    w.puppet.streams_open(1).await;
    w.puppet.push_on_stream(ask(9, "Which region?", json!({ "region": { "type": "string" } })));
    let question = dashboard.next_of("elicitation.created").await;
    assert_eq!(question["message"], "Which region?");
}

/// Editing a server retires the links made with its old registration: edits do not pile up
/// open upstream streams.
#[tokio::test]
async fn server_edits_do_not_pile_up_links() {
    let w = world().await;
    let agent = Agent::legacy(&w.app, &w.token, "puppet").await;
    let modern = Agent::modern(&w.app, &w.token, "puppet");
    for n in 0..5 {
        for (who, agent) in [("modern", &modern), ("legacy", &agent)] {
            let (_, reply) = agent.request(n, "tools/list", json!({})).await;
            assert!(
                matches!(reply, herald_mcp::Message::Response { .. }),
                "round {n}: the {who} agent's call failed: {}",
                reply.to_json()
            );
        }
        w.puppet.streams_open(2).await;
        let edit = w
            .owner
            .patch("/api/v1/orgs/acme/servers/puppet", &json!({ "name": format!("Puppet {n}") }))
            .await;
        assert_eq!(edit.status(), 200);
        w.puppet.streams_open(0).await;
    }
}

/// A member who leaves the org leaves with everything they had open there: their session's
/// upstream session is ended, their question withdrawn, and no new question reaches them.
#[tokio::test]
async fn a_removed_member_receives_no_more_questions() {
    let w = world().await;
    let member = w.app.join(&w.owner, "acme", "mia@example.com", "member").await;
    let token = w.app.token(&member, "acme", "mia's agent").await;
    let me = body(member.get("/api/v1/me").await).await;
    let mut dashboard = Dashboard::open(&w.app, &token).await;
    let agent = Agent::legacy(&w.app, &token, "puppet").await;
    let call = tokio::spawn(async move { agent.call(1, "work", json!({})).await });
    w.puppet.sent("the call", |m, v| m == "POST" && v["method"] == "tools/call").await;
    w.puppet.push_on_call(ask(1, "Which region?", json!({ "region": { "type": "string" } })));
    let question = dashboard.next_of("elicitation.created").await;

    let user_id = me["user"]["id"].as_str().unwrap();
    let removed = w.owner.delete(&format!("/api/v1/orgs/acme/members/{user_id}")).await;
    assert_eq!(removed.status(), 204);
    drop(dashboard); // its socket closes with the token it was opened with (tests/api/live_sockets.rs)
    w.puppet.sent("the end of the member's session", |m, _| m == "DELETE").await;
    w.puppet.streams_open(0).await;
    let _ = call.await;
    let user: uuid::Uuid = user_id.parse().unwrap();
    let id: uuid::Uuid = question["id"].as_str().unwrap().parse().unwrap();
    let withdrawn = w.app.state.store.elicitation_of_user(user, id).await.unwrap().unwrap();
    assert_eq!(
        withdrawn.outcome.unwrap().reason.map(|r| r.as_str()),
        Some("caller_cancelled"),
        "their question was withdrawn"
    );
    let owner: uuid::Uuid =
        body(w.owner.get("/api/v1/me").await).await["user"]["id"].as_str().unwrap().parse().unwrap();
    let org = w.app.state.store.membership("acme", owner).await.unwrap().unwrap().org.id;
    assert_eq!(w.app.state.store.pending_count(org, user).await.unwrap(), 0);
}

/// Revoking a token ends its calls and its sessions at once.
#[tokio::test]
async fn revoking_a_token_ends_its_calls_and_sessions() {
    let w = world().await;
    // Watched with another token: the revoked one's own sockets close.
    let watcher = w.app.token(&w.owner, "acme", "watcher").await;
    let mut dashboard = Dashboard::open(&w.app, &watcher).await;
    let agent = Agent::legacy(&w.app, &w.token, "puppet").await;
    let call = tokio::spawn({
        let agent = agent.clone();
        async move { agent.call(1, "work", json!({})).await }
    });
    w.puppet.sent("the call", |m, v| m == "POST" && v["method"] == "tools/call").await;
    w.puppet.push_on_call(ask(1, "Which region?", json!({ "region": { "type": "string" } })));
    let question = dashboard.next_of("elicitation.created").await;

    let tokens = body(w.owner.get("/api/v1/orgs/acme/tokens").await).await;
    let id = tokens["tokens"].as_array().unwrap().iter().find(|t| t["name"] == "agent").unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(w.owner.delete(&format!("/api/v1/orgs/acme/tokens/{id}")).await.status(), 204);

    let ended = dashboard.next_of("elicitation.resolved").await;
    assert_eq!(ended["id"], question["id"]);
    assert_eq!(ended["reason"], "caller_cancelled");
    w.puppet
        .sent("the call's cancellation", |m, v| m == "POST" && v["method"] == "notifications/cancelled")
        .await;
    w.puppet.sent("the end of the token's session", |m, _| m == "DELETE").await;
    let _ = call.await;
}

/// One token may keep only so many calls in flight; over the cap, a precise refusal.
#[tokio::test]
async fn calls_in_flight_per_token_are_capped() {
    let w = world_with(|s| s.limits.calls_per_token = "2".into()).await;
    let agent = Agent::modern(&w.app, &w.token, "puppet");
    let calls: Vec<_> = (1..=2)
        .map(|n| {
            let agent = agent.clone();
            tokio::spawn(async move { agent.call(n, "work", json!({})).await })
        })
        .collect();
    // Both calls reach the server (and wait there) before the third is sent.
    w.puppet.sent_times("a call", 2, |_, v| v["method"] == "tools/call").await;
    let refused = agent.try_request(3, "tools/call", json!({ "name": "work", "arguments": {} })).await;
    let message = match refused {
        Err(herald_mcp::transport::TransportError::Status { status: 429, error: Some(e), .. }) => e.message,
        other => panic!("expected a 429, got {:?}", other.map(|(_, m)| m.to_json())),
    };
    assert!(message.contains("already has 2 calls in flight"), "{message}");
    assert!(message.contains("HERALD_MAX_CALLS_PER_TOKEN"), "{message}");
    w.puppet.push_on_call(json!({ "end": { "content": [] } }));
    for call in calls {
        call.await.unwrap();
    }
    let (_, done) = agent.request(4, "tools/list", json!({})).await;
    assert!(matches!(done, herald_mcp::Message::Response { .. }), "a slot is free again");
}

/// One token may keep only so many legacy sessions open; ending one makes room.
#[tokio::test]
async fn legacy_sessions_per_token_are_capped() {
    let w = world_with(|s| s.limits.sessions_per_token = "2".into()).await;
    let first = Agent::legacy(&w.app, &w.token, "puppet").await;
    let _second = Agent::legacy(&w.app, &w.token, "puppet").await;
    let third = initialize(&w).await;
    assert_eq!(third.0, 429);
    assert!(third.1.contains("already has 2 sessions open"), "{}", third.1);
    assert!(first.end_session().await);
    assert_eq!(initialize(&w).await.0, 200);
}

/// A raw `initialize`: its HTTP status and its error message, if any.
async fn initialize(w: &World) -> (u16, String) {
    let response = reqwest::Client::new()
        .post(w.app.url("/mcp/acme/puppet"))
        .bearer_auth(&w.token)
        .header("accept", "application/json, text/event-stream")
        .json(&json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "t", "version": "1" } } }))
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let reply: Value = response.json().await.unwrap();
    (status, reply["error"]["message"].as_str().unwrap_or_default().to_owned())
}
