//! Every automatic answer explained where the person looks (issue 15.3): a
//! question the policy answered reaches the person's dashboards as a note
//! (`elicitation.explained`, with what the policy went by in
//! `policy.because`), is resent on reconnect until dismissed, and offers the
//! way back ("ask me again" forgets a decline).

use serde_json::{Value, json};

use crate::mcp_support::{Agent, Dashboard, DemoWorld, latest, text};
use crate::support::{Session, body};

async fn world() -> DemoWorld {
    DemoWorld::start(herald_demo_server::Options::default()).await
}

async fn set_policy(owner: &Session, policy: Value) {
    let response = owner.put("/api/v1/orgs/acme/policy", &policy).await;
    assert_eq!(response.status(), 200, "{}", response.text().await.unwrap());
}

fn deploy(environment: &str) -> Value {
    json!({ "service": "api", "environment": environment })
}

/// Calls `tool` in the background; the handle yields the tool result's text.
fn call(w: &DemoWorld, tool: &'static str, arguments: Value) -> tokio::task::JoinHandle<String> {
    let agent = Agent::modern(&w.app, &w.token, "demo");
    tokio::spawn(async move { text(&agent.call(1, tool, arguments).await) })
}

/// Declines one `deploy` to `environment` in the dashboard, as the person.
async fn decline_once(w: &DemoWorld, dashboard: &mut Dashboard, environment: &str) -> Value {
    let pending = call(w, "deploy", deploy(environment));
    let shown = dashboard.next_of("elicitation.created").await;
    assert_eq!(dashboard.respond(&shown["id"], "decline", None).await["type"], "ack");
    assert_eq!(pending.await.unwrap(), "Deployment declined by the user");
    shown
}

#[tokio::test]
async fn a_shown_question_says_how_long_a_decline_is_remembered() {
    let w = world().await;
    set_policy(&w.owner, json!({ "decline_memory": { "window_secs": 3600 } })).await;
    let mut dashboard = Dashboard::open(&w.app, &w.token).await;
    let pending = call(&w, "deploy", deploy("staging"));
    let shown = dashboard.next_of("elicitation.created").await;
    assert_eq!(shown["policy"]["decline_remembered_secs"], 3600, "{shown}");
    dashboard.respond(&shown["id"], "cancel", None).await;
    pending.await.unwrap();
}

#[tokio::test]
async fn a_remembered_decline_is_explained_and_ask_me_again_shows_the_next_asking() {
    let w = world().await;
    let mut dashboard = Dashboard::open(&w.app, &w.token).await;
    let declined = decline_once(&w, &mut dashboard, "production").await;

    // Asked again: declined from memory, and the person gets a note saying so.
    assert_eq!(call(&w, "deploy", deploy("production")).await.unwrap(), "Deployment declined by the user");
    let note = dashboard.next_of("elicitation.explained").await;
    assert_eq!(
        (note["decided_by"].clone(), note["reason"].clone()),
        (json!("policy"), json!("previously_declined"))
    );
    assert_eq!(note["server"]["name"], "Demo Server");
    assert_eq!(note["tool"], "deploy");
    let because = &note["policy"]["because"];
    assert_eq!(because["rule"], "previously_declined");
    assert_eq!(because["remembered_secs"], 86400);
    assert_eq!(because["muted_for_pestering"], false);
    let declined_at = time::OffsetDateTime::parse(
        because["declined_at"].as_str().expect("when the person declined"),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap();
    let resolved_before = time::OffsetDateTime::now_utc();
    assert!(declined_at <= resolved_before, "{because}");
    assert!(note["note_dismissed_at"].is_null());

    // "Ask me again": the decline is forgotten and the note leaves every tab.
    let asked = w
        .owner
        .post(
            &format!("/api/v1/orgs/acme/elicitations/{}/ask-again", note["id"].as_str().unwrap()),
            &json!({}),
        )
        .await;
    assert_eq!(asked.status(), 200);
    assert_eq!(body(asked).await["declines_forgotten"], 1);
    let dismissed = dashboard.next_of("note.dismissed").await;
    assert_eq!(dismissed["ids"], json!([note["id"]]));

    // The next asking is shown to the person again.
    let pending = call(&w, "deploy", deploy("production"));
    let shown = dashboard.next_of("elicitation.created").await;
    assert_ne!(shown["id"], declined["id"]);
    dashboard.respond(&shown["id"], "cancel", None).await;
    assert_eq!(pending.await.unwrap(), "Deployment cancelled by the user");
    // The person's own decline can be forgotten from the history too.
    let again = w
        .owner
        .post(
            &format!("/api/v1/orgs/acme/elicitations/{}/ask-again", declined["id"].as_str().unwrap()),
            &json!({}),
        )
        .await;
    assert_eq!(again.status(), 200);
    assert_eq!(body(again).await["declines_forgotten"], 0, "already forgotten");
    // The audit log says who asked to be asked again.
    let log = body(w.owner.get("/api/v1/orgs/acme/audit?action=decline.forgotten").await).await;
    assert_eq!(log["entries"].as_array().unwrap().len(), 2, "{log}");
}

#[tokio::test]
async fn after_ask_me_again_and_a_new_decline_pestering_counts_from_the_new_decline() {
    let w = world().await;
    set_policy(&w.owner, json!({ "decline_memory": { "pestering_threshold": 2 } })).await;
    let mut dashboard = Dashboard::open(&w.app, &w.token).await;
    decline_once(&w, &mut dashboard, "staging").await;
    // One re-ask: below the threshold of two.
    call(&w, "deploy", deploy("staging")).await.unwrap();
    let note = dashboard.next_of("elicitation.explained").await;
    assert_eq!(note["policy"]["because"]["muted_for_pestering"], false);
    let asked = w
        .owner
        .post(
            &format!("/api/v1/orgs/acme/elicitations/{}/ask-again", note["id"].as_str().unwrap()),
            &json!({}),
        )
        .await;
    assert_eq!(asked.status(), 200);
    // Declined anew, then asked once more: one re-ask since the new decline, still no mute.
    decline_once(&w, &mut dashboard, "staging").await;
    call(&w, "deploy", deploy("staging")).await.unwrap();
    let note = dashboard.next_of("elicitation.explained").await;
    assert_eq!(note["policy"]["because"]["muted_for_pestering"], false, "{note}");
    let mutes = body(w.owner.get("/api/v1/orgs/acme/mutes").await).await;
    assert_eq!(mutes["mutes"], json!([]));
    // The second re-ask since the new decline mutes the server, and the note says so.
    call(&w, "deploy", deploy("staging")).await.unwrap();
    let note = dashboard.next_of("elicitation.explained").await;
    assert_eq!(note["policy"]["because"]["muted_for_pestering"], true, "{note}");
    assert_eq!(note["policy"]["because"]["pestering_threshold"], 2);
    let mutes = body(w.owner.get("/api/v1/orgs/acme/mutes").await).await;
    assert_eq!(mutes["mutes"][0]["reason"], "pestering");
}

#[tokio::test]
async fn a_blocked_credential_ask_is_explained_to_the_person_and_flagged_to_other_admins() {
    let w = world().await;
    let admin = w.app.join(&w.owner, "acme", "admin@example.com", "admin").await;
    let admin_token = w.app.token(&admin, "acme", "admin-dash").await;
    let mut person = Dashboard::open(&w.app, &w.token).await;
    let mut other_admin = Dashboard::open(&w.app, &admin_token).await;
    assert_eq!(
        call(&w, "fish_for_password", json!({})).await.unwrap(),
        "Password request declined by the user"
    );

    let note = person.next_of("elicitation.explained").await;
    assert_eq!(note["reason"], "credential_ask");
    let hits =
        note["policy"]["because"]["credential_hits"].as_array().expect("what the detector found").clone();
    assert!(!hits.is_empty());
    assert!(hits.iter().any(|h| h["category"] == "password"), "{hits:?}");
    assert!(hits.iter().all(|h| h["explanation"].as_str().is_some_and(|e| !e.is_empty())));

    let notice = other_admin.next_of("notice").await;
    assert_eq!(notice["kind"], "credential_ask_blocked");
    assert_eq!(notice["server"]["slug"], "demo", "for a one-click cut-off");
    assert!(notice["elicitation_id"].is_null(), "another person's question is not the admin's to open");
}

#[tokio::test]
async fn rate_caps_and_url_rules_say_which_limit_or_rule_answered() {
    let w = world().await;
    set_policy(
        &w.owner,
        json!({ "rate_caps": { "per_server_per_hour": 1 }, "url_mode": { "deny_domains": ["example.com"] } }),
    )
    .await;
    let mut dashboard = Dashboard::open(&w.app, &w.token).await;
    // The URL question is refused before it counts against the hourly cap.
    let refused = call(&w, "connect_account", json!({ "provider": "github" })).await.unwrap();
    assert!(refused.to_lowercase().contains("cancel"), "{refused}");
    let note = dashboard.next_of("elicitation.explained").await;
    assert_eq!(note["reason"], "url_refused");
    assert_eq!(note["policy"]["because"]["url_refusal"]["rule"], "denied", "{note}");
    assert!(
        note["policy"]["because"]["url_refusal"]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("example.com"))
    );

    let first = call(&w, "deploy", deploy("staging"));
    let shown = dashboard.next_of("elicitation.created").await;
    dashboard.respond(&shown["id"], "cancel", None).await;
    first.await.unwrap();
    assert_eq!(call(&w, "deploy", deploy("production")).await.unwrap(), "Deployment cancelled by the user");
    let note = dashboard.next_of("elicitation.explained").await;
    assert_eq!(note["reason"], "rate_capped");
    assert_eq!(
        note["policy"]["because"],
        json!({ "rule": "rate_capped", "cap": "per_server_per_hour", "limit": 1 })
    );
}

#[tokio::test]
async fn notes_are_resent_on_reconnect_until_dismissed_and_a_dismissal_reaches_every_tab() {
    let w = world().await;
    w.owner.post("/api/v1/orgs/acme/mutes", &json!({ "server": "demo" })).await;
    assert_eq!(call(&w, "deploy", deploy("staging")).await.unwrap(), "Deployment declined by the user");
    assert_eq!(call(&w, "deploy", deploy("production")).await.unwrap(), "Deployment declined by the user");

    // Opened afterwards: both notes arrive, oldest first.
    let mut first_tab = Dashboard::open(&w.app, &w.token).await;
    let older = first_tab.next_of("elicitation.explained").await;
    let newer = first_tab.next_of("elicitation.explained").await;
    assert!(older["message"].as_str().unwrap().contains("staging"), "{older}");
    assert!(newer["message"].as_str().unwrap().contains("production"), "{newer}");
    assert_eq!(newer["reason"], "muted");
    let mut second_tab = Dashboard::open(&w.app, &w.token).await;
    second_tab.next_of("elicitation.explained").await;
    second_tab.next_of("elicitation.explained").await;

    let path = format!("/api/v1/orgs/acme/elicitations/{}/dismiss-note", older["id"].as_str().unwrap());
    assert_eq!(w.owner.post(&path, &json!({})).await.status(), 204);
    assert_eq!(first_tab.next_of("note.dismissed").await["ids"], json!([older["id"]]));
    assert_eq!(second_tab.next_of("note.dismissed").await["ids"], json!([older["id"]]));
    // Dismissing again changes nothing and is no error.
    assert_eq!(w.owner.post(&path, &json!({})).await.status(), 204);
    let record =
        body(w.owner.get(&format!("/api/v1/orgs/acme/elicitations/{}", older["id"].as_str().unwrap())).await)
            .await;
    assert!(record["note_dismissed_at"].is_string(), "{record}");

    // A new tab gets only the note still standing; the unmuted server's next
    // question follows it, so nothing else came in between.
    assert_eq!(w.owner.delete("/api/v1/orgs/acme/mutes/demo").await.status(), 204);
    let mut third_tab = Dashboard::open(&w.app, &w.token).await;
    let pending = call(&w, "deploy", json!({ "service": "web", "environment": "staging" }));
    let mut notes = Vec::new();
    let shown = loop {
        let frame = third_tab.next().await;
        match frame["type"].as_str() {
            Some("elicitation.explained") => notes.push(frame["id"].clone()),
            Some("elicitation.created") => break frame,
            _ => {}
        }
    };
    assert_eq!(notes, [newer["id"].clone()]);
    third_tab.respond(&shown["id"], "cancel", None).await;
    pending.await.unwrap();
}

#[tokio::test]
async fn notes_and_ask_again_refuse_what_they_do_not_apply_to() {
    let w = world().await;
    let mut dashboard = Dashboard::open(&w.app, &w.token).await;
    let pending = call(&w, "deploy", deploy("staging"));
    let shown = dashboard.next_of("elicitation.created").await;
    dashboard.respond(&shown["id"], "accept", Some(json!({ "confirm": true }))).await;
    pending.await.unwrap();
    let id = shown["id"].as_str().unwrap();

    // Answered by the person: no note to dismiss, no decline to forget.
    let dismiss =
        w.owner.post(&format!("/api/v1/orgs/acme/elicitations/{id}/dismiss-note"), &json!({})).await;
    assert_eq!(dismiss.status(), 409);
    assert_eq!(body(dismiss).await["type"].as_str().unwrap().rsplit(':').next(), Some("not-applicable"));
    let again = w.owner.post(&format!("/api/v1/orgs/acme/elicitations/{id}/ask-again"), &json!({})).await;
    assert_eq!(again.status(), 409);

    // Someone else's question, and a malformed id: not found, not touched.
    let member = w.app.join(&w.owner, "acme", "member@example.com", "member").await;
    for path in [
        format!("/api/v1/orgs/acme/elicitations/{id}/dismiss-note"),
        format!("/api/v1/orgs/acme/elicitations/{id}/ask-again"),
    ] {
        assert_eq!(member.post(&path, &json!({})).await.status(), 404, "{path}");
    }
    assert_eq!(
        w.owner.post("/api/v1/orgs/acme/elicitations/not-an-id/ask-again", &json!({})).await.status(),
        404
    );
    assert_eq!(latest(&w.owner).await["action"], "accept");
}
