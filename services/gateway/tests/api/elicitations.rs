//! The elicitation records, their endings and the dashboards' view of them,
//! driven through the broker in-process (the peers suite drives real servers).

use herald_gateway::broker::janitor;
use herald_gateway::storage::{Elicitation, ServerSnapshot};
use reqwest::StatusCode;
use serde_json::json;
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

use crate::mcp_support::Dashboard;
use crate::support::{Session, TestApp, body, problem};

async fn user_id(session: &Session) -> Uuid {
    let me = body(session.get("/api/v1/me").await).await;
    me["user"]["id"].as_str().unwrap().parse().unwrap()
}

fn record(app: &TestApp, org_id: Uuid, user_id: Uuid, message: &str, expires_in: Duration) -> Elicitation {
    let now = OffsetDateTime::now_utc();
    let schema = json!({
        "type": "object",
        "properties": { "q": { "type": "string", "minLength": 2 }, "n": { "type": "integer", "default": 5 } },
        "required": ["q"],
    });
    Elicitation {
        id: Uuid::now_v7(),
        org_id,
        org_slug: "acme".into(),
        user_id,
        server: ServerSnapshot {
            id: None,
            slug: "docs".into(),
            name: "Docs".into(),
            url: "https://docs.example/mcp".into(),
        },
        tool: Some("search".into()),
        protocol: herald_mcp::ProtocolGeneration::Legacy,
        mode: herald_mcp::ElicitationMode::Form,
        message: message.into(),
        form: Some(herald_mcp::parse_requested_schema(&schema).unwrap()),
        requested_schema: Some(schema),
        url: None,
        replica_id: app.state.broker.replica_id,
        created_at: now,
        expires_at: now + expires_in,
        fingerprint: None,
        policy_flags: None,
        note_dismissed_at: None,
        asked_by: Default::default(),
        answered_via: None,
        outcome: None,
    }
}

async fn org_id(app: &TestApp, user: Uuid) -> Uuid {
    app.state.store.membership("acme", user).await.unwrap().unwrap().org.id
}

#[tokio::test]
async fn records_are_listed_newest_first_in_pages_and_only_to_their_user() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let user = user_id(&owner).await;
    let org = org_id(&app, user).await;
    let mut waiters = Vec::new();
    for i in 0..5 {
        waiters.push(
            app.state
                .broker
                .open(record(&app, org, user, &format!("question {i}"), Duration::minutes(10)))
                .await
                .unwrap(),
        );
    }
    let first = body(owner.get("/api/v1/orgs/acme/elicitations?status=pending&limit=2").await).await;
    let messages: Vec<_> =
        first["elicitations"].as_array().unwrap().iter().map(|e| e["message"].clone()).collect();
    assert_eq!(messages, [json!("question 4"), json!("question 3")]);
    let next = first["next"].as_str().unwrap();
    let second = body(
        owner.get(&format!("/api/v1/orgs/acme/elicitations?status=pending&limit=2&before={next}")).await,
    )
    .await;
    let messages: Vec<_> =
        second["elicitations"].as_array().unwrap().iter().map(|e| e["message"].clone()).collect();
    assert_eq!(messages, [json!("question 2"), json!("question 1")]);
    let last = body(
        owner
            .get(&format!(
                "/api/v1/orgs/acme/elicitations?limit=2&before={}",
                second["next"].as_str().unwrap()
            ))
            .await,
    )
    .await;
    assert_eq!(last["elicitations"].as_array().unwrap().len(), 1);
    assert_eq!(last["next"], json!(null));
    assert_eq!(
        body(owner.get("/api/v1/orgs/acme/elicitations?status=resolved").await).await["elicitations"],
        json!([])
    );

    for bad in ["status=open", "limit=0", "limit=1000", "before=xyz", "colour=red"] {
        let response = owner.get(&format!("/api/v1/orgs/acme/elicitations?{bad}")).await;
        problem(response, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    }

    // Another member sees none of them, and cannot read or answer one.
    let other = app.join(&owner, "acme", "other@example.com", "admin").await;
    assert_eq!(body(other.get("/api/v1/orgs/acme/elicitations").await).await["elicitations"], json!([]));
    let id = waiters[0].id;
    problem(
        other.get(&format!("/api/v1/orgs/acme/elicitations/{id}")).await,
        StatusCode::NOT_FOUND,
        "not-found",
    )
    .await;
    let stolen = other
        .post(&format!("/api/v1/orgs/acme/elicitations/{id}/respond"), &json!({ "action": "decline" }))
        .await;
    problem(stolen, StatusCode::NOT_FOUND, "not-found").await;
    assert_eq!(
        body(owner.get(&format!("/api/v1/orgs/acme/elicitations/{id}")).await).await["status"],
        "pending"
    );
}

#[tokio::test]
async fn answers_are_validated_and_the_first_one_wins() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let user = user_id(&owner).await;
    let org = org_id(&app, user).await;
    let waiter =
        app.state.broker.open(record(&app, org, user, "search what?", Duration::minutes(10))).await.unwrap();
    let id = waiter.id;
    let path = format!("/api/v1/orgs/acme/elicitations/{id}/respond");
    for (answer, field) in [
        (json!({ "action": "accept", "content": { "q": "x" } }), "q"),
        (json!({ "action": "accept", "content": { "q": "ok", "n": "five" } }), "n"),
        (json!({ "action": "accept", "content": { "q": "ok", "extra": 1 } }), "extra"),
        (json!({ "action": "accept" }), "q"),
        (json!({ "action": "decline", "content": { "q": "ok" } }), "content"),
    ] {
        let p =
            problem(owner.post(&path, &answer).await, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed")
                .await;
        assert_eq!(p["errors"][0]["field"], field, "{p}");
    }
    problem(
        owner.post(&path, &json!({ "action": "maybe" })).await,
        StatusCode::BAD_REQUEST,
        "malformed-body",
    )
    .await;
    let waiting = tokio::spawn(waiter.ended());
    let accepted =
        body(owner.post(&path, &json!({ "action": "accept", "content": { "q": "rust" } })).await).await;
    assert_eq!(accepted["content"], json!({ "q": "rust", "n": 5 }), "defaults are filled in");
    let ended = waiting.await.unwrap();
    let outcome = ended.outcome.unwrap();
    assert_eq!((outcome.action.as_str(), outcome.decided_by.as_str()), ("accept", "user"));
    assert_eq!(outcome.content, Some(json!({ "q": "rust", "n": 5 })));
    problem(
        owner.post(&path, &json!({ "action": "decline" })).await,
        StatusCode::CONFLICT,
        "elicitation-ended",
    )
    .await;
}

#[tokio::test]
async fn dashboards_get_pending_on_connect_and_every_ending_live() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let token = app.token(&owner, "acme", "dash").await;
    let user = user_id(&owner).await;
    let org = org_id(&app, user).await;
    let early = app
        .state
        .broker
        .open(record(&app, org, user, "asked before you looked", Duration::minutes(10)))
        .await
        .unwrap();
    let mut dashboard = Dashboard::open(&app, &token).await;
    let synced = dashboard.next_of("elicitation.created").await;
    assert_eq!(synced["id"], early.id.to_string());
    assert_eq!(
        synced["server"],
        json!({ "slug": "docs", "name": "Docs", "url": "https://docs.example/mcp" })
    );
    assert_eq!(synced["form"]["fields"][0]["name"], "q");

    let live = app
        .state
        .broker
        .open(record(&app, org, user, "asked while you look", Duration::minutes(10)))
        .await
        .unwrap();
    assert_eq!(dashboard.next_of("elicitation.created").await["id"], live.id.to_string());
    let declined = owner
        .post(&format!("/api/v1/orgs/acme/elicitations/{}/respond", live.id), &json!({ "action": "decline" }))
        .await;
    assert_eq!(declined.status(), StatusCode::OK);
    let resolved = dashboard.next_of("elicitation.resolved").await;
    assert_eq!(
        resolved,
        json!({ "type": "elicitation.resolved", "id": live.id, "action": "decline", "decided_by": "user", "reason": "declined" })
    );

    // Nonsense from the browser gets an error frame and the socket stays usable.
    dashboard.send(json!({ "type": "shout" })).await;
    assert_eq!(dashboard.next_of("error").await["code"], "bad_message");
    let unknown = dashboard.respond(&json!(Uuid::now_v7()), "decline", None).await;
    assert_eq!(unknown["code"], "not_found");
    assert_eq!(dashboard.respond(&json!(early.id), "decline", None).await["type"], "ack");
}

#[tokio::test]
async fn the_websocket_refuses_foreign_origins_and_strangers() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let token = app.token(&owner, "acme", "dash").await;
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let url = app.url("/api/v1/ws").replace("http://", "ws://");
    let mut foreign = url.clone().into_client_request().unwrap();
    foreign.headers_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
    foreign.headers_mut().insert("origin", "https://evil.example".parse().unwrap());
    assert!(tokio_tungstenite::connect_async(foreign).await.is_err());
    let anonymous = url.clone().into_client_request().unwrap();
    assert!(tokio_tungstenite::connect_async(anonymous).await.is_err());
    let mut own = url.into_client_request().unwrap();
    own.headers_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
    own.headers_mut().insert("origin", app.base.parse().unwrap());
    assert!(tokio_tungstenite::connect_async(own).await.is_ok());
}

#[tokio::test]
async fn deadlines_end_questions_nobody_answers() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let token = app.token(&owner, "acme", "dash").await;
    let user = user_id(&owner).await;
    let org = org_id(&app, user).await;
    let mut dashboard = Dashboard::open(&app, &token).await;
    let waiter =
        app.state.broker.open(record(&app, org, user, "quick!", Duration::milliseconds(300))).await.unwrap();
    dashboard.next_of("elicitation.created").await;
    let ended = waiter.ended().await;
    let outcome = ended.outcome.unwrap();
    assert_eq!((outcome.action.as_str(), outcome.decided_by.as_str()), ("cancel", "timeout"));
    assert_eq!(outcome.reason.map(|r| r.as_str()), Some("expired"));
    let resolved = dashboard.next_of("elicitation.resolved").await;
    assert_eq!(resolved["reason"], "expired");
}

#[tokio::test]
async fn what_a_dead_process_left_pending_is_ended_on_start() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let user = user_id(&owner).await;
    let org = org_id(&app, user).await;
    let mut orphan = record(&app, org, user, "asked by a process that died", Duration::minutes(10));
    orphan.replica_id = Uuid::new_v4(); // a replica that never beats again
    app.state.store.create_elicitation(&orphan).await.unwrap();
    let mut lapsed = record(&app, org, user, "outlived its deadline", Duration::minutes(-1));
    lapsed.replica_id = app.state.broker.replica_id;
    app.state.store.create_elicitation(&lapsed).await.unwrap();
    let mut ours = record(&app, org, user, "still being asked", Duration::minutes(10));
    ours.replica_id = app.state.broker.replica_id;
    app.state.store.create_elicitation(&ours).await.unwrap();

    // The start-up sweep: a replica that never beat is dead already.
    janitor::sweep(&app.state.broker).await;
    let read = |id: Uuid| {
        let owner = owner.clone();
        async move { body(owner.get(&format!("/api/v1/orgs/acme/elicitations/{id}")).await).await }
    };
    let orphan = read(orphan.id).await;
    assert_eq!(
        (orphan["action"].clone(), orphan["decided_by"].clone(), orphan["reason"].clone()),
        (json!("cancel"), json!("system"), json!("interrupted"))
    );
    let lapsed = read(lapsed.id).await;
    assert_eq!(
        (lapsed["decided_by"].clone(), lapsed["reason"].clone()),
        (json!("timeout"), json!("expired"))
    );
    assert_eq!(read(ours.id).await["status"], "pending", "this replica's live question stays");
}
