//! Browser push (issue 16): the browsers a person turned push on in, checked
//! and bounded, and messages that a real push service on loopback
//! (tests/peers/python/push_service.py) accepts only when their VAPID
//! signature verifies with py_vapid and decrypts with http_ece, neither of
//! which shares code with Herald. A question nobody is looking at is pushed
//! after the person's delay, its ending replaces the notification, an expired
//! subscription is forgotten, and a failing push service is tried again.

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use p256::elliptic_curve::sec1::ToEncodedPoint;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::mcp_support::{Agent, Dashboard, deploy_in_background, with_demo};
use crate::notifications::eventually;
use crate::support::{Session, TestApp, body, fields, problem};

/// A subscription as a browser would send it, with a real P-256 key, to `endpoint`.
fn browser_subscription(endpoint: &str) -> Value {
    let mut seed = [0u8; 32];
    seed[..16].copy_from_slice(uuid::Uuid::new_v4().as_bytes());
    seed[16..].copy_from_slice(uuid::Uuid::new_v4().as_bytes());
    seed[0] &= 0x7f; // below the group order
    let secret = p256::SecretKey::from_bytes(&seed.into()).expect("a valid scalar");
    let public = secret.public_key().to_encoded_point(false);
    json!({
        "endpoint": endpoint,
        "expirationTime": null,
        "keys": {
            "p256dh": URL_SAFE_NO_PAD.encode(public.as_bytes()),
            "auth": URL_SAFE_NO_PAD.encode(uuid::Uuid::new_v4().as_bytes()),
        }
    })
}

async fn add_device(person: &Session, subscription: &Value, name: &str) -> reqwest::Response {
    person.post("/api/v1/me/push/devices", &json!({ "subscription": subscription, "name": name })).await
}

#[tokio::test]
async fn a_browsers_subscription_is_checked_field_by_field_and_changes_nothing_when_bad() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let shown = body(owner.get("/api/v1/me/push").await).await;
    let key = URL_SAFE_NO_PAD.decode(shown["public_key"].as_str().unwrap()).unwrap();
    assert_eq!((key.len(), key[0]), (65, 4), "an uncompressed P-256 point: {shown}");
    assert_eq!(shown["devices"], json!([]));

    let bad = json!({
        "subscription": {
            "endpoint": "ftp://push.example.com/x",
            "keys": { "p256dh": "BAAA", "auth": "not base64 at all!" }
        },
        "name": "two\nlines"
    });
    let refused = problem(
        owner.post("/api/v1/me/push/devices", &bad).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "validation-failed",
    )
    .await;
    assert_eq!(
        fields(&refused),
        ["subscription.endpoint", "subscription.keys.p256dh", "subscription.keys.auth", "name"]
    );
    // Plain http is for this machine only; credentials in the endpoint are refused.
    for endpoint in ["http://push.example.com/x", "https://user:pw@push.example.com/x"] {
        let refused = problem(
            add_device(&owner, &browser_subscription(endpoint), "Chrome").await,
            StatusCode::UNPROCESSABLE_ENTITY,
            "validation-failed",
        )
        .await;
        assert_eq!(fields(&refused), ["subscription.endpoint"], "{endpoint}");
    }
    // A point that is not on the curve.
    let mut off_curve = browser_subscription("https://push.example.com/x");
    let mut point = vec![4u8];
    point.extend([1u8; 64]);
    off_curve["keys"]["p256dh"] = json!(URL_SAFE_NO_PAD.encode(point));
    let refused = problem(
        add_device(&owner, &off_curve, "x").await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "validation-failed",
    )
    .await;
    assert_eq!(fields(&refused), ["subscription.keys.p256dh"]);
    let unknown = owner.post("/api/v1/me/push/devices", &json!({ "subscription": {}, "sms": 1 })).await;
    assert_eq!(unknown.status(), 400);
    assert_eq!(body(owner.get("/api/v1/me/push").await).await["devices"], json!([]), "nothing was stored");
}

#[tokio::test]
async fn a_browser_is_one_row_belongs_to_whoever_turned_push_on_last_and_each_person_has_at_most_ten() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let member = app.join(&owner, "acme", "member@example.com", "member").await;
    let subscription = browser_subscription("https://fcm.googleapis.com/fcm/send/abc123");

    let first = add_device(&owner, &subscription, "Chrome on Linux").await;
    assert_eq!(first.status(), StatusCode::CREATED);
    let device = body(first).await;
    assert_eq!(device["push_service"], "fcm.googleapis.com");
    assert_eq!(device["name"], "Chrome on Linux");
    // Neither the endpoint (a capability) nor the browser's keys are ever shown back.
    let listed = body(owner.get("/api/v1/me/push").await).await;
    let text = listed.to_string();
    assert!(
        !text.contains("abc123") && !text.contains(subscription["keys"]["auth"].as_str().unwrap()),
        "{listed}"
    );

    // The same browser again (new keys after a re-subscribe): the same row, updated.
    let again = add_device(&owner, &subscription, "Chromium").await;
    assert_eq!(again.status(), StatusCode::OK);
    let devices = body(owner.get("/api/v1/me/push").await).await["devices"].clone();
    assert_eq!(devices.as_array().unwrap().len(), 1);
    assert_eq!(
        (devices[0]["id"].clone(), devices[0]["name"].clone()),
        (device["id"].clone(), json!("Chromium"))
    );

    // Another person signs in on that browser and turns push on: it is theirs now.
    assert_eq!(add_device(&member, &subscription, "Shared laptop").await.status(), StatusCode::CREATED);
    assert_eq!(body(owner.get("/api/v1/me/push").await).await["devices"], json!([]));
    let theirs =
        body(member.get("/api/v1/me/push").await).await["devices"][0]["id"].as_str().unwrap().to_owned();
    // Nobody removes or tests another person's device.
    assert_eq!(owner.delete(&format!("/api/v1/me/push/devices/{theirs}")).await.status(), 404);
    assert_eq!(owner.post(&format!("/api/v1/me/push/devices/{theirs}/test"), &json!({})).await.status(), 404);

    for n in 0..10 {
        let added =
            add_device(&owner, &browser_subscription(&format!("https://push.example.com/{n}")), "Browser")
                .await;
        assert_eq!(added.status(), StatusCode::CREATED);
    }
    problem(
        add_device(&owner, &browser_subscription("https://push.example.com/eleventh"), "Browser").await,
        StatusCode::CONFLICT,
        "too-many-devices",
    )
    .await;
    let listed = body(owner.get("/api/v1/me/push").await).await["devices"].clone();
    let one = listed[0]["id"].as_str().unwrap();
    assert_eq!(owner.delete(&format!("/api/v1/me/push/devices/{one}")).await.status(), 204);
    assert_eq!(owner.delete(&format!("/api/v1/me/push/devices/{one}")).await.status(), 404);
    assert_eq!(body(owner.get("/api/v1/me/push").await).await["devices"].as_array().unwrap().len(), 9);
}

#[tokio::test]
async fn an_agents_token_cannot_add_a_browser_to_its_persons_notifications() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let token = app.token(&owner, "acme", "agent").await;
    let agent = app.agent(&token);
    let tried =
        add_device(&agent, &browser_subscription("https://push.example.com/stolen"), "Attacker").await;
    assert_eq!(tried.status(), 403);
    assert_eq!(agent.get("/api/v1/me/push").await.status(), 403);
    assert_eq!(body(owner.get("/api/v1/me/push").await).await["devices"], json!([]));
}

#[tokio::test]
async fn the_service_worker_is_served_from_the_root_under_the_dashboards_policy() {
    let app = TestApp::spawn().await;
    let response = reqwest::get(app.url("/sw.js")).await.unwrap();
    assert_eq!(response.status(), 200);
    assert!(response.headers()["content-type"].to_str().unwrap().starts_with("text/javascript"));
    assert!(response.headers()["content-security-policy"].to_str().unwrap().contains("script-src 'self'"));
    let script = response.text().await.unwrap();
    assert!(script.contains("addEventListener(\"push\"") || script.contains("addEventListener('push'"));
}

// ---- through a real push service ----

/// tests/peers/python/push_service.py on a free port.
pub(crate) struct PushService {
    base: String,
    child: tokio::process::Child,
}

impl PushService {
    pub(crate) async fn start() -> Self {
        use tokio::io::AsyncBufReadExt;
        let python = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/peers/.venv/bin/python");
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/peers/python/push_service.py");
        assert!(std::path::Path::new(python).exists(), "run tests/peers/install.sh first");
        let mut child = tokio::process::Command::new(python)
            .arg(script)
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the push service starts");
        let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .expect("the push service says where it listens")
            .unwrap()
            .unwrap();
        let port = line.strip_prefix("listening ").expect("listening <port>");
        PushService { base: format!("http://127.0.0.1:{port}"), child }
    }

    /// A subscription made for `server_key`, answering `respond` first.
    async fn subscribe(&self, server_key: &str, respond: &[u16]) -> (String, Value) {
        let made: Value = reqwest::Client::new()
            .post(format!("{}/subscriptions", self.base))
            .json(&json!({ "application_server_key": server_key, "respond": respond }))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let id = made["id"].as_str().unwrap().to_owned();
        (id, json!({ "endpoint": made["endpoint"], "expirationTime": null, "keys": made["keys"] }))
    }

    pub(crate) async fn messages(&self, id: &str) -> Vec<Value> {
        let url = format!("{}/subscriptions/{id}/messages", self.base);
        reqwest::get(url).await.unwrap().json().await.unwrap()
    }

    /// Waits for the `count`th message; each must have verified and decrypted.
    pub(crate) async fn await_messages(&self, id: &str, count: usize) -> Vec<Value> {
        let messages = eventually(&format!("{count} push message(s) arriving"), async || {
            let messages = self.messages(id).await;
            (messages.len() >= count).then_some(messages)
        })
        .await;
        for m in &messages {
            assert!(m.get("error").is_none(), "the push service refused Herald's message: {m}");
        }
        messages
    }
}

impl Drop for PushService {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}

/// Signs up the owner's browser at `push` and returns (push service id, device id).
pub(crate) async fn subscribed(owner: &Session, push: &PushService, respond: &[u16]) -> (String, String) {
    let key = body(owner.get("/api/v1/me/push").await).await["public_key"].as_str().unwrap().to_owned();
    let (id, subscription) = push.subscribe(&key, respond).await;
    let added = add_device(owner, &subscription, "Test browser").await;
    assert_eq!(added.status(), StatusCode::CREATED);
    (id, body(added).await["id"].as_str().unwrap().to_owned())
}

#[tokio::test]
#[ignore = "needs the push service's packages: run tests/peers/install.sh, then cargo test -- --include-ignored"]
async fn a_question_nobody_is_looking_at_is_pushed_encrypted_and_signed_and_its_ending_replaces_it() {
    let push = PushService::start().await;
    let app = TestApp::spawn().await;
    let (owner, token, _demo) = with_demo(&app, herald_demo_server::Options::default()).await;
    owner.put("/api/v1/me/notifications", &json!({ "delay_secs": 0, "reminder_percent": 0 })).await;
    let (sub, device) = subscribed(&owner, &push, &[]).await;

    // The person's test reaches the browser, and says so while they wait.
    let tested = body(owner.post(&format!("/api/v1/me/push/devices/{device}/test"), &json!({})).await).await;
    assert_eq!(tested, json!({ "sent": true, "error": null, "removed": false }));
    let test = &push.await_messages(&sub, 1).await[0];
    assert_eq!(test["message"]["kind"], "test");
    assert!(test["claims"]["sub"].as_str().unwrap().starts_with("mailto:"), "{test}");

    let deploy = |service, environment| {
        deploy_in_background(Agent::modern(&app, &token, "demo"), service, environment)
    };
    // Looking (a visible dashboard): answered there, nothing pushed.
    let mut dashboard = Dashboard::open(&app, &token).await;
    let watched = deploy("api", "staging");
    let shown = dashboard.next_of("elicitation.created").await;
    dashboard.respond(&shown["id"], "decline", None).await;
    watched.await.unwrap();

    // Hidden: the next question is pushed.
    dashboard.send(json!({ "type": "presence", "visible": false })).await;
    let unwatched = deploy("api", "production");
    let asked = dashboard.next_of("elicitation.created").await;
    let id = asked["id"].as_str().unwrap();
    let messages = push.await_messages(&sub, 2).await;
    let question = &messages[1];
    assert_eq!(question["message"]["kind"], "question", "the first question was not pushed: {messages:?}");
    assert_eq!(question["message"]["question"], id);
    assert_eq!(question["message"]["org"], "acme");
    assert_eq!(question["message"]["title"], "Demo Server is asking you something");
    assert!(question["message"]["body"].as_str().unwrap().starts_with("deploy: "), "{question}");
    assert_eq!(question["message"]["url"], format!("/?question={id}&via=push"));
    assert_eq!(question["message"]["tag"], format!("herald-question-{id}"));
    // Only words for a notification: no form, no field, nothing the person would answer.
    let text = question["message"].to_string();
    assert!(!text.contains("properties") && !text.contains("requestedSchema"), "{text}");
    assert_eq!(question["headers"]["urgency"], "high");
    assert_eq!(question["headers"]["topic"], id.replace('-', ""));
    let ttl: u64 = question["headers"]["ttl"].as_str().unwrap().parse().unwrap();
    assert!(ttl > 0 && ttl <= 600, "kept no longer than the question waits: {ttl}");

    // Answered in the dashboard the notification opened (it says so): the browser's
    // notification is replaced by how it ended, and the history says it came through push.
    dashboard.send(json!({ "type": "respond", "id": id, "action": "decline", "via": "push" })).await;
    assert_eq!(unwatched.await.unwrap(), "Deployment declined by the user");
    let record = crate::mcp_support::latest(&owner).await;
    assert_eq!(
        (record["id"].as_str(), record["answered_via"].as_str()),
        (Some(id), Some("push")),
        "{record}"
    );
    let ended = &push.await_messages(&sub, 3).await[2];
    assert_eq!(ended["message"]["kind"], "ended");
    assert_eq!(ended["message"]["ended"], "declined");
    assert_eq!(ended["message"]["tag"], question["message"]["tag"], "the same tag replaces the notification");
    assert_eq!(ended["headers"]["topic"], question["headers"]["topic"]);

    // The devices list says when the browser was last reached.
    let listed = body(owner.get("/api/v1/me/push").await).await;
    assert!(listed["devices"][0]["last_sent_at"].is_string(), "{listed}");
    assert_eq!(listed["devices"][0]["last_error"], Value::Null);

    // Push turned off in the preferences: the next question reaches no browser.
    owner
        .put("/api/v1/me/notifications", &json!({ "push": false, "delay_secs": 0, "reminder_percent": 0 }))
        .await;
    let quiet = deploy("web", "production");
    let pending = dashboard.next_of("elicitation.created").await;
    dashboard.respond(&pending["id"], "cancel", None).await;
    quiet.await.unwrap();
    let shown = body(owner.get("/api/v1/me/notifications").await).await;
    assert_eq!(shown["effective"]["push"], false);
    // A test still goes (it is the person's own request): it arrives right after the ending above.
    owner.post(&format!("/api/v1/me/push/devices/{device}/test"), &json!({})).await;
    let messages = push.await_messages(&sub, 4).await;
    assert_eq!(messages[3]["message"]["kind"], "test", "nothing was pushed in between: {messages:?}");
    // Tests are bounded: a third this minute goes, a fourth is refused and sends nothing.
    owner.post(&format!("/api/v1/me/push/devices/{device}/test"), &json!({})).await;
    let refused = owner.post(&format!("/api/v1/me/push/devices/{device}/test"), &json!({})).await;
    assert_eq!(refused.status(), 429);
    assert!(refused.headers().contains_key("retry-after"));
    assert_eq!(push.messages(&sub).await.len(), 5);
}

#[tokio::test]
#[ignore = "needs the push service's packages: run tests/peers/install.sh, then cargo test -- --include-ignored"]
async fn a_failing_push_service_is_tried_again_and_an_expired_subscription_is_forgotten() {
    let push = PushService::start().await;
    let app = TestApp::spawn_with(|s| s.notify.delivery_retry_secs = Some("1".into())).await;
    let (owner, token, _demo) = with_demo(&app, herald_demo_server::Options::default()).await;
    owner.put("/api/v1/me/notifications", &json!({ "delay_secs": 0, "reminder_percent": 0 })).await;
    // One browser's push service fails twice, then takes it; the other's subscription has expired.
    let (flaky, _) = subscribed(&owner, &push, &[503, 500]).await;
    let (expired, expired_device) = subscribed(&owner, &push, &[410]).await;

    let call = deploy_in_background(Agent::modern(&app, &token, "demo"), "api", "production");
    let attempts = push.await_messages(&flaky, 3).await;
    assert_eq!(attempts.iter().map(|m| m["status"].as_u64().unwrap()).collect::<Vec<_>>(), [503, 500, 201]);
    assert!(attempts.iter().all(|m| m["message"]["kind"] == "question"));
    push.await_messages(&expired, 1).await;
    let listed = eventually("the expired browser forgotten", async || {
        let listed = body(owner.get("/api/v1/me/push").await).await;
        (listed["devices"].as_array().unwrap().len() == 1).then_some(listed)
    })
    .await;
    assert_ne!(listed["devices"][0]["id"], expired_device);

    // All the while the question stayed answerable.
    let pending = body(owner.get("/api/v1/orgs/acme/elicitations?status=pending").await).await;
    let id = pending["elicitations"][0]["id"].as_str().unwrap().to_owned();
    let answered = owner
        .post(&format!("/api/v1/orgs/acme/elicitations/{id}/respond"), &json!({ "action": "decline" }))
        .await;
    assert_eq!(answered.status(), 200);
    assert_eq!(call.await.unwrap(), "Deployment declined by the user");
    // Only the browser that got the question hears how it ended.
    let flaky_messages = push.await_messages(&flaky, 4).await;
    assert_eq!(flaky_messages[3]["message"]["kind"], "ended");
    assert_eq!(push.messages(&expired).await.len(), 1);

    // A test to a subscription that expired says so, and the row goes.
    let (gone, gone_device) = subscribed(&owner, &push, &[404]).await;
    let tested =
        body(owner.post(&format!("/api/v1/me/push/devices/{gone_device}/test"), &json!({})).await).await;
    assert_eq!(tested["sent"], false);
    assert_eq!(tested["removed"], true);
    assert!(tested["error"].as_str().unwrap().contains("expired"), "{tested}");
    assert_eq!(push.messages(&gone).await.len(), 1);
    assert_eq!(owner.delete(&format!("/api/v1/me/push/devices/{gone_device}")).await.status(), 404);
}
