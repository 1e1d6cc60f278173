//! Mutes, cut-offs and the audit log through the API.

use herald_gateway::storage::{Elicitation, ServerSnapshot};
use reqwest::StatusCode;
use serde_json::{Value, json};
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

use crate::mcp_support::Dashboard;
use crate::support::{TestApp, body, fields, problem};

async fn with_server(slug: &str) -> (TestApp, crate::support::Session) {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let new = json!({ "slug": slug, "name": "Docs", "url": "https://docs.example/mcp" });
    assert_eq!(owner.post("/api/v1/orgs/acme/servers", &new).await.status(), StatusCode::CREATED);
    (app, owner)
}

#[tokio::test]
async fn members_mute_and_unmute_servers_for_themselves() {
    let (app, owner) = with_server("docs").await;
    let member = app.join(&owner, "acme", "member@example.com", "member").await;
    let muted =
        member.post("/api/v1/orgs/acme/mutes", &json!({ "server": "docs", "note": "too chatty" })).await;
    assert_eq!(muted.status(), StatusCode::CREATED);
    let listed = body(member.get("/api/v1/orgs/acme/mutes").await).await;
    assert_eq!(listed["mutes"][0]["server"], json!({ "slug": "docs", "name": "Docs" }));
    assert_eq!(listed["mutes"][0]["reason"], "user");
    assert_eq!(listed["mutes"][0]["note"], "too chatty");
    // Only their own: the owner has none.
    assert_eq!(body(owner.get("/api/v1/orgs/acme/mutes").await).await["mutes"], json!([]));

    let twice = member.post("/api/v1/orgs/acme/mutes", &json!({ "server": "docs" })).await;
    problem(twice, StatusCode::CONFLICT, "already-muted").await;
    let unknown = member.post("/api/v1/orgs/acme/mutes", &json!({ "server": "nope" })).await;
    assert_eq!(
        fields(&problem(unknown, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await),
        ["server"]
    );
    // A server of another org is simply not there.
    assert_eq!(
        owner.post("/api/v1/orgs", &json!({ "slug": "beta", "name": "Beta" })).await.status(),
        StatusCode::CREATED
    );
    let other = json!({ "slug": "secret", "name": "Secret", "url": "https://secret.example/mcp" });
    assert_eq!(owner.post("/api/v1/orgs/beta/servers", &other).await.status(), StatusCode::CREATED);
    let foreign = member.post("/api/v1/orgs/acme/mutes", &json!({ "server": "secret" })).await;
    problem(foreign, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;

    assert_eq!(member.delete("/api/v1/orgs/acme/mutes/docs").await.status(), StatusCode::NO_CONTENT);
    problem(member.delete("/api/v1/orgs/acme/mutes/docs").await, StatusCode::NOT_FOUND, "not-found").await;
    assert_eq!(body(member.get("/api/v1/orgs/acme/mutes").await).await["mutes"], json!([]));
}

#[tokio::test]
async fn a_cut_off_ends_what_the_server_is_asking_right_now() {
    let (app, owner) = with_server("docs").await;
    let token = app.token(&owner, "acme", "dash").await;
    let me = body(owner.get("/api/v1/me").await).await;
    let user_id: Uuid = me["user"]["id"].as_str().unwrap().parse().unwrap();
    let membership = app.state.store.membership("acme", user_id).await.unwrap().unwrap();
    let server = app.state.store.server(membership.org.id, "docs").await.unwrap().unwrap();
    let now = OffsetDateTime::now_utc();
    let asked = Elicitation {
        id: Uuid::now_v7(),
        org_id: membership.org.id,
        org_slug: "acme".into(),
        user_id,
        server: ServerSnapshot {
            id: Some(server.id),
            slug: "docs".into(),
            name: "Docs".into(),
            url: server.url.clone(),
        },
        tool: None,
        protocol: herald_mcp::ProtocolGeneration::Legacy,
        mode: herald_mcp::ElicitationMode::Url,
        message: "open this".into(),
        requested_schema: None,
        form: None,
        url: Some("https://docs.example/login".into()),
        replica_id: app.state.broker.replica_id,
        created_at: now,
        expires_at: now + Duration::minutes(10),
        fingerprint: None,
        policy_flags: None,
        note_dismissed_at: None,
        asked_by: Default::default(),
        answered_via: None,
        outcome: None,
    };
    let mut dashboard = Dashboard::open(&app, &token).await;
    let waiter = app.state.broker.open(asked).await.unwrap();
    dashboard.next_of("elicitation.created").await;
    let cut = owner.post("/api/v1/orgs/acme/servers/docs/cut-off", &json!({ "reason": "phishing" })).await;
    assert_eq!(cut.status(), StatusCode::OK);
    let ended = waiter.ended().await.outcome.unwrap();
    assert_eq!(
        (ended.action.as_str(), ended.decided_by.as_str(), ended.reason.map(|r| r.as_str())),
        ("cancel", "policy", Some("cut_off"))
    );
    let resolved = dashboard.next_of("elicitation.resolved").await;
    assert_eq!(resolved["reason"], "cut_off");
}

#[tokio::test]
async fn admin_changes_land_in_the_audit_log_which_only_admins_read() {
    let (app, owner) = with_server("docs").await;
    let member = app.join(&owner, "acme", "member@example.com", "member").await;
    let member_id = body(member.get("/api/v1/me").await).await["user"]["id"].as_str().unwrap().to_owned();
    assert_eq!(
        owner
            .put("/api/v1/orgs/acme/policy", &json!({ "credential_ask": { "mode": "warn" } }))
            .await
            .status(),
        200
    );
    assert_eq!(
        owner.post("/api/v1/orgs/acme/servers/docs/cut-off", &json!({ "reason": "noisy" })).await.status(),
        200
    );
    assert_eq!(owner.post("/api/v1/orgs/acme/servers/docs/restore", &json!({})).await.status(), 200);
    assert_eq!(
        owner
            .patch(&format!("/api/v1/orgs/acme/members/{member_id}"), &json!({ "role": "admin" }))
            .await
            .status(),
        200
    );
    assert_eq!(member.post("/api/v1/orgs/acme/mutes", &json!({ "server": "docs" })).await.status(), 201);

    let log = body(owner.get("/api/v1/orgs/acme/audit").await).await;
    let actions: Vec<&str> =
        log["entries"].as_array().unwrap().iter().map(|e| e["action"].as_str().unwrap()).collect();
    for expected in [
        "mute.added",
        "member.role_changed",
        "server.restored",
        "server.cut_off",
        "policy.updated",
        "server.registered",
        "invite.accepted",
        "invite.created",
    ] {
        assert!(actions.contains(&expected), "{expected} missing from {actions:?}");
    }
    assert_eq!(actions[0], "mute.added", "newest first");
    let cut: Vec<&Value> =
        log["entries"].as_array().unwrap().iter().filter(|e| e["action"] == "server.cut_off").collect();
    assert_eq!(cut[0]["reason"], "noisy");
    assert_eq!(cut[0]["server"], "docs");
    assert_eq!(cut[0]["actor"], "user");

    let filtered = body(owner.get("/api/v1/orgs/acme/audit?server=docs&action=server.cut_off").await).await;
    assert_eq!(filtered["entries"].as_array().unwrap().len(), 1);
    let about_member = body(owner.get(&format!("/api/v1/orgs/acme/audit?user={member_id}")).await).await;
    assert!(
        about_member["entries"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["user_id"] == json!(member_id) || e["actor_id"] == json!(member_id))
    );
    let page = body(owner.get("/api/v1/orgs/acme/audit?limit=2").await).await;
    assert_eq!(page["entries"].as_array().unwrap().len(), 2);
    let next = page["next"].as_str().unwrap();
    let rest = body(owner.get(&format!("/api/v1/orgs/acme/audit?before={next}")).await).await;
    assert_eq!(rest["entries"].as_array().unwrap().len(), actions.len() - 2);
    let future = body(owner.get("/api/v1/orgs/acme/audit?since=2999-01-01T00:00:00Z").await).await;
    assert_eq!(future["entries"], json!([]));
    for bad in ["since=yesterday", "user=bob", "limit=0", "colour=red"] {
        problem(
            owner.get(&format!("/api/v1/orgs/acme/audit?{bad}")).await,
            StatusCode::UNPROCESSABLE_ENTITY,
            "validation-failed",
        )
        .await;
    }
    let plain = app.join(&owner, "acme", "plain@example.com", "member").await;
    problem(plain.get("/api/v1/orgs/acme/audit").await, StatusCode::FORBIDDEN, "forbidden").await;
}
