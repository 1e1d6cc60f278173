//! Reaching people who are not looking (issue 16): preferences and their
//! validation, organisation defaults, signed webhooks with retries and a
//! delivery log (a real HTTP receiver that checks every signature), and
//! e-mail to a real SMTP server (aiosmtpd from PyPI) only while no
//! dashboard of the person's is visible.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::mcp_support::{Agent, Dashboard, deploy_in_background, text, with_demo};
use crate::support::{Session, TestApp, body, fields, problem};

/// How long a test waits for something Herald sends on its own.
const PATIENCE: Duration = Duration::from_secs(30);

/// What `probe` finds once it finds something: asked again every 20 ms, for at most `PATIENCE`
/// (for what Herald does on its own time and the test can only look at).
pub(crate) async fn eventually<T>(what: &str, mut probe: impl AsyncFnMut() -> Option<T>) -> T {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        if let Some(found) = probe().await {
            return found;
        }
        assert!(tokio::time::Instant::now() < deadline, "{what} did not happen in time");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Herald sending mail to the SMTP server on `port` (in the clear: it is on loopback).
async fn mailing_app(port: u16, adjust: impl FnOnce(&mut herald_gateway::config::RawSettings)) -> TestApp {
    TestApp::spawn_with(|s| {
        s.notify.smtp_host = Some("127.0.0.1".into());
        s.notify.smtp_port = Some(port.to_string());
        s.notify.smtp_tls = Some("none".into());
        adjust(s);
    })
    .await
}

#[tokio::test]
async fn preferences_start_at_the_documented_defaults_and_keep_what_is_saved() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let shown = body(owner.get("/api/v1/me/notifications").await).await;
    assert_eq!(
        shown["effective"],
        json!({ "email": true, "push": true, "delay_secs": 20, "reminder_percent": 80, "quiet_hours": null })
    );
    assert_eq!(shown["email_available"], false, "no SMTP server is configured");
    assert_eq!(shown["by_org"][0]["org"], "acme");

    let mine = json!({
        "email": true, "push": false, "delay_secs": 45, "reminder_percent": 70,
        "quiet_hours": { "start": "22:00", "end": "07:00", "time_zone": "Europe/Berlin" }
    });
    let saved = body(owner.put("/api/v1/me/notifications", &mine).await).await;
    assert_eq!(saved["own"], mine);
    let again = body(owner.get("/api/v1/me/notifications").await).await;
    assert_eq!(again["effective"]["delay_secs"], 45);
    assert_eq!(again["effective"]["quiet_hours"]["time_zone"], "Europe/Berlin");
}

#[tokio::test]
async fn bad_preferences_are_refused_by_field_and_change_nothing() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let bad = json!({
        "delay_secs": 99999, "reminder_percent": 5,
        "quiet_hours": { "start": "25:00", "end": "7", "time_zone": "Mars/Olympus_Mons" }
    });
    let refused = problem(
        owner.put("/api/v1/me/notifications", &bad).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "validation-failed",
    )
    .await;
    assert_eq!(
        fields(&refused),
        ["delay_secs", "reminder_percent", "quiet_hours.start", "quiet_hours.end", "quiet_hours.time_zone"]
    );
    let unknown = owner.put("/api/v1/me/notifications", &json!({ "sms": true })).await;
    assert_eq!(unknown.status(), 400);
    let shown = body(owner.get("/api/v1/me/notifications").await).await;
    assert_eq!(
        shown["own"],
        json!({ "email": null, "push": null, "delay_secs": null, "reminder_percent": null, "quiet_hours": null })
    );
}

#[tokio::test]
async fn admins_set_the_organisations_defaults_members_inherit_them_and_the_audit_says_so() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let member = app.join(&owner, "acme", "member@example.com", "member").await;
    let defaults = json!({ "delay_secs": 120, "reminder_percent": 0 });
    let refused = member.put("/api/v1/orgs/acme/notifications/defaults", &defaults).await;
    assert_eq!(refused.status(), 403);
    let saved = body(owner.put("/api/v1/orgs/acme/notifications/defaults", &defaults).await).await;
    assert_eq!(saved["defaults"]["delay_secs"], 120);
    assert_eq!(saved["updated_by"]["email"], "owner@example.com");

    let theirs = body(member.get("/api/v1/me/notifications").await).await;
    assert_eq!(theirs["by_org"][0]["effective"]["delay_secs"], 120);
    assert_eq!(theirs["by_org"][0]["effective"]["reminder_percent"], 0);
    // Their own choice wins over the organisation's.
    member.put("/api/v1/me/notifications", &json!({ "delay_secs": 5 })).await;
    let theirs = body(member.get("/api/v1/me/notifications").await).await;
    assert_eq!(theirs["by_org"][0]["effective"]["delay_secs"], 5);

    let audit = body(owner.get("/api/v1/orgs/acme/audit?action=notifications.defaults_changed").await).await;
    let entry = &audit["entries"][0];
    assert_eq!(entry["title"], "Notification defaults changed", "{audit}");
    let changed: Vec<&str> =
        entry["changes"].as_array().unwrap().iter().map(|c| c["path"].as_str().unwrap()).collect();
    assert!(changed.contains(&"delay_secs") && changed.contains(&"reminder_percent"), "{entry}");
}

/// An HTTP endpoint that records every request and answers with the statuses
/// it is given, in order (then 200).
pub(crate) struct Receiver {
    pub(crate) url: String,
    requests: mpsc::UnboundedReceiver<(HeaderMap, Bytes)>,
    statuses: Arc<Mutex<VecDeque<u16>>>,
}

impl Receiver {
    pub(crate) async fn start() -> Self {
        let (tx, requests) = mpsc::unbounded_channel();
        let statuses: Arc<Mutex<VecDeque<u16>>> = Arc::default();
        let answers = statuses.clone();
        let app = axum::Router::new().route(
            "/hook",
            axum::routing::post(move |headers: HeaderMap, body: Bytes| {
                let tx = tx.clone();
                let status = answers.lock().unwrap().pop_front().unwrap_or(200);
                async move {
                    let _ = tx.send((headers, body));
                    StatusCode::from_u16(status).unwrap()
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Receiver { url, requests, statuses }
    }

    /// The next request, its signature checked with `secret`; its JSON body.
    async fn next(&mut self, secret: &str) -> (HeaderMap, Value) {
        let (headers, raw) = tokio::time::timeout(PATIENCE, self.requests.recv())
            .await
            .expect("a webhook request arrives")
            .unwrap();
        verify(secret, &headers, &raw);
        (headers, serde_json::from_slice(&raw).expect("the body is JSON"))
    }

    /// The next request of type `kind` (others skipped).
    pub(crate) async fn next_of(&mut self, secret: &str, kind: &str) -> Value {
        loop {
            let (_, event) = self.next(secret).await;
            if event["type"] == kind {
                return event;
            }
        }
    }
}

/// Checks `Herald-Signature: t=…,v1=…` as a receiver would, following docs/api.md:
/// HMAC-SHA256 with the secret over "<t>.<raw body>", and a fresh timestamp.
fn verify(secret: &str, headers: &HeaderMap, raw: &[u8]) {
    let header = headers.get("herald-signature").expect("signed").to_str().unwrap();
    let mut t = None;
    let mut v1 = None;
    for part in header.split(',') {
        match part.split_once('=') {
            Some(("t", value)) => t = Some(value.to_owned()),
            Some(("v1", value)) => v1 = Some(value.to_owned()),
            _ => {}
        }
    }
    let (t, v1) = (t.expect("a timestamp"), v1.expect("a v1 signature"));
    let age = time::OffsetDateTime::now_utc().unix_timestamp() - t.parse::<i64>().unwrap();
    assert!((-5..300).contains(&age), "the signature's timestamp is {age} s old");
    let key = aws_lc_rs::hmac::Key::new(aws_lc_rs::hmac::HMAC_SHA256, secret.as_bytes());
    let mut message = format!("{t}.").into_bytes();
    message.extend_from_slice(raw);
    let expected: String =
        aws_lc_rs::hmac::sign(&key, &message).as_ref().iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(v1, expected, "the signature verifies with the webhook's secret");
}

pub(crate) async fn add_webhook(owner: &Session, url: &str) -> (String, String) {
    let response =
        owner.post("/api/v1/orgs/acme/webhooks", &json!({ "url": url, "description": "team pager" })).await;
    assert_eq!(response.status(), 201);
    let created = body(response).await;
    assert_eq!(
        created["webhook"]["events"],
        json!(["question.created", "question.reminded", "question.ended"])
    );
    (created["webhook"]["id"].as_str().unwrap().to_owned(), created["secret"].as_str().unwrap().to_owned())
}

/// Herald with deliveries retried after a second, so a retry can be awaited.
async fn quick_retries() -> TestApp {
    TestApp::spawn_with(|s| s.notify.delivery_retry_secs = Some("1".into())).await
}

#[tokio::test]
async fn a_webhook_gets_a_signed_ping_retried_until_it_answers_and_the_log_shows_each_attempt() {
    let app = quick_retries().await;
    let owner = app.owner().await;
    let mut receiver = Receiver::start().await;
    receiver.statuses.lock().unwrap().extend([500, 503]);
    let (id, secret) = add_webhook(&owner, &receiver.url).await;
    // The secret is shown once: never in the list.
    let listed = body(owner.get("/api/v1/orgs/acme/webhooks").await).await;
    assert!(!listed.to_string().contains(&secret), "{listed}");

    let queued = owner.post(&format!("/api/v1/orgs/acme/webhooks/{id}/test"), &json!({})).await;
    assert_eq!(queued.status(), 202);
    let delivery_id = body(queued).await["delivery"]["id"].as_str().unwrap().to_owned();
    for attempt in 1..=3 {
        let (headers, event) = receiver.next(&secret).await;
        assert_eq!(event["type"], "ping", "attempt {attempt}");
        assert_eq!(headers["herald-event"], "ping");
        assert_eq!(
            headers["herald-delivery"].to_str().unwrap(),
            delivery_id,
            "the same delivery each attempt"
        );
        assert_eq!(event["organisation"]["slug"], "acme");
    }
    // The third attempt was answered 200; the log says so once it is recorded.
    let log = format!("/api/v1/orgs/acme/webhooks/deliveries?webhook={id}");
    let delivery = eventually("the delivery recorded as delivered", async || {
        let d = body(owner.get(&log).await).await["deliveries"][0].clone();
        assert_ne!(d["status"], "failed", "{d}");
        (d["status"] == "delivered").then_some(d)
    })
    .await;
    assert_eq!(delivery["attempts"], 3);
    assert_eq!(delivery["last_status"], 200);
    assert!(delivery["delivered_at"].is_string());

    // Redelivered on request: the same delivery, sent again.
    let again = owner
        .post(&format!("/api/v1/orgs/acme/webhooks/deliveries/{delivery_id}/redeliver"), &json!({}))
        .await;
    assert_eq!(again.status(), 202);
    let (headers, _) = receiver.next(&secret).await;
    assert_eq!(headers["herald-delivery"].to_str().unwrap(), delivery_id);
}

#[tokio::test]
async fn a_question_reaches_the_webhook_when_asked_and_when_it_ends_without_its_form() {
    let app = quick_retries().await;
    let (owner, token, _demo) = with_demo(&app, herald_demo_server::Options::default()).await;
    let mut receiver = Receiver::start().await;
    let (_, secret) = add_webhook(&owner, &receiver.url).await;
    let mut dashboard = Dashboard::open(&app, &token).await;
    let agent = Agent::modern(&app, &token, "demo");
    let call = tokio::spawn(async move {
        text(&agent.call(1, "deploy", json!({ "service": "api", "environment": "production" })).await)
    });
    let shown = dashboard.next_of("elicitation.created").await;

    let created = receiver.next_of(&secret, "question.created").await;
    let question = &created["question"];
    assert_eq!(question["id"], shown["id"]);
    assert_eq!(question["server"], json!({ "slug": "demo", "name": "Demo Server" }));
    assert_eq!(question["tool"], "deploy");
    assert_eq!(question["person"]["email"], "owner@example.com");
    assert_eq!(question["url"], format!("{}/?question={}", app.base, shown["id"].as_str().unwrap()));
    assert!(question["first_words"].as_str().unwrap().len() <= 130, "{question}");
    assert!(question.get("requested_schema").is_none() && created.get("content").is_none(), "{created}");

    dashboard.respond(&shown["id"], "decline", None).await;
    assert_eq!(call.await.unwrap(), "Deployment declined by the user");
    let ended = receiver.next_of(&secret, "question.ended").await;
    assert_eq!(ended["question"]["id"], shown["id"]);
    assert_eq!(ended["ending"]["action"], "decline");
    assert_eq!(ended["ending"]["decided_by"], "user");
}

#[tokio::test]
async fn webhooks_are_for_admins_bounded_and_kept_to_allowed_addresses() {
    let app = TestApp::spawn_hosted().await;
    let owner = app.owner().await;
    let member = app.join(&owner, "acme", "member@example.com", "member").await;
    assert_eq!(member.get("/api/v1/orgs/acme/webhooks").await.status(), 403);
    assert_eq!(
        member.post("/api/v1/orgs/acme/webhooks", &json!({ "url": "https://example.com/h" })).await.status(),
        403
    );

    for url in [
        "https://127.0.0.1/hook",
        "https://169.254.169.254/latest",
        "https://[::1]/hook",
        "http://example.com/plain",
        "https://user:pass@example.com/hook",
    ] {
        let refused = owner.post("/api/v1/orgs/acme/webhooks", &json!({ "url": url })).await;
        let p = problem(refused, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
        assert_eq!(fields(&p), ["url"], "{url}: {p}");
    }
    let bad_events = owner
        .post(
            "/api/v1/orgs/acme/webhooks",
            &json!({ "url": "https://example.com/h", "events": ["question.answered"] }),
        )
        .await;
    assert_eq!(
        fields(&problem(bad_events, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await),
        ["events"]
    );

    for n in 0..10 {
        let made = owner
            .post("/api/v1/orgs/acme/webhooks", &json!({ "url": format!("https://example.com/{n}") }))
            .await;
        assert_eq!(made.status(), 201);
    }
    let eleventh =
        owner.post("/api/v1/orgs/acme/webhooks", &json!({ "url": "https://example.com/11" })).await;
    problem(eleventh, StatusCode::CONFLICT, "too-many-webhooks").await;
    let listed = body(owner.get("/api/v1/orgs/acme/webhooks").await).await;
    assert_eq!(listed["webhooks"].as_array().unwrap().len(), 10);
}

#[tokio::test]
async fn deleting_or_rotating_a_webhook_is_audited_and_another_org_cannot_touch_it() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let receiver = Receiver::start().await;
    let (id, old) = add_webhook(&owner, &receiver.url).await;
    let rotated =
        body(owner.post(&format!("/api/v1/orgs/acme/webhooks/{id}/rotate-secret"), &json!({})).await).await;
    assert_ne!(rotated["secret"].as_str().unwrap(), old);

    // A member of acme who owns an organisation of their own: as owner there, acme's webhook is not theirs.
    let member = app.join(&owner, "acme", "member@example.com", "member").await;
    assert_eq!(member.post("/api/v1/orgs", &json!({ "slug": "beta", "name": "Beta" })).await.status(), 201);
    assert_eq!(member.delete(&format!("/api/v1/orgs/beta/webhooks/{id}")).await.status(), 404);
    assert_eq!(
        member.post(&format!("/api/v1/orgs/beta/webhooks/{id}/rotate-secret"), &json!({})).await.status(),
        404
    );
    assert_eq!(member.delete(&format!("/api/v1/orgs/acme/webhooks/{id}")).await.status(), 403);
    assert_eq!(owner.delete("/api/v1/orgs/acme/webhooks/not-a-uuid").await.status(), 404);
    assert_eq!(owner.delete(&format!("/api/v1/orgs/acme/webhooks/{id}")).await.status(), 204);
    assert_eq!(owner.delete(&format!("/api/v1/orgs/acme/webhooks/{id}")).await.status(), 404);
    let audit = body(owner.get("/api/v1/orgs/acme/audit").await).await;
    let actions: Vec<&str> =
        audit["entries"].as_array().unwrap().iter().map(|e| e["action"].as_str().unwrap()).collect();
    for action in ["webhook.created", "webhook.secret_rotated", "webhook.deleted"] {
        assert!(actions.contains(&action), "{action} in {actions:?}");
    }
    assert!(!audit.to_string().contains(&old), "no secret in the audit log");
}

// ---- e-mail, through a real SMTP server ----

/// aiosmtpd (tests/peers/install.sh) on a free port, keeping each mail in a maildir.
struct MailServer {
    port: u16,
    maildir: tempfile_dir::Dir,
    child: tokio::process::Child,
}

mod tempfile_dir {
    /// A directory removed when dropped.
    pub struct Dir(pub std::path::PathBuf);
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

impl MailServer {
    async fn start() -> Self {
        let python = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/peers/.venv/bin/python");
        assert!(std::path::Path::new(python).exists(), "run tests/peers/install.sh first");
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let dir = std::env::temp_dir().join(format!("herald-mail-{}", uuid::Uuid::new_v4()));
        let child = tokio::process::Command::new(python)
            .args([
                "-m",
                "aiosmtpd",
                "-n",
                "-l",
                &format!("127.0.0.1:{port}"),
                "-c",
                "aiosmtpd.handlers.Mailbox",
            ])
            .arg(&dir)
            .kill_on_drop(true)
            .spawn()
            .expect("aiosmtpd starts");
        // Ready once it accepts connections.
        eventually("aiosmtpd listening", async || {
            tokio::net::TcpStream::connect(("127.0.0.1", port)).await.ok()
        })
        .await;
        MailServer { port, maildir: tempfile_dir::Dir(dir), child }
    }

    /// Every mail received so far, as text.
    fn mails(&self) -> Vec<String> {
        let new = self.maildir.0.join("new");
        let mut mails: Vec<(std::time::SystemTime, String)> = std::fs::read_dir(&new)
            .map(|entries| {
                entries
                    .filter_map(Result::ok)
                    .map(|e| {
                        (
                            e.metadata().unwrap().modified().unwrap(),
                            std::fs::read_to_string(e.path()).unwrap(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        mails.sort();
        mails.into_iter().map(|(_, m)| m).collect()
    }

    /// Waits until `count` mails have arrived.
    async fn await_mails(&self, count: usize) -> Vec<String> {
        eventually(&format!("{count} mail(s) arriving"), async || {
            let mails = self.mails();
            (mails.len() >= count).then_some(mails)
        })
        .await
    }
}

impl Drop for MailServer {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}

/// Decodes a mail's body (lettre may send it quoted-printable or base64).
fn mail_text(mail: &str) -> String {
    let (headers, body) =
        mail.split_once("\n\n").or_else(|| mail.split_once("\r\n\r\n")).unwrap_or((mail, ""));
    let headers = headers.to_ascii_lowercase();
    if headers.contains("content-transfer-encoding: base64") {
        use base64::Engine;
        let joined: String = body.split_whitespace().collect();
        String::from_utf8(base64::engine::general_purpose::STANDARD.decode(joined).unwrap()).unwrap()
    } else if headers.contains("content-transfer-encoding: quoted-printable") {
        body.replace("=\r\n", "").replace("=\n", "").replace("=3D", "=")
    } else {
        body.to_owned()
    }
}

#[tokio::test]
#[ignore = "needs aiosmtpd: run tests/peers/install.sh, then cargo test -- --include-ignored"]
async fn a_person_who_is_not_looking_gets_an_email_after_their_delay_and_one_who_is_gets_none() {
    let smtp = MailServer::start().await;
    let app = mailing_app(smtp.port, |_| {}).await;
    let (owner, token, _demo) = with_demo(&app, herald_demo_server::Options::default()).await;
    assert_eq!(body(owner.get("/api/v1/me/notifications").await).await["email_available"], true);
    owner.put("/api/v1/me/notifications", &json!({ "delay_secs": 0, "reminder_percent": 0 })).await;
    let deploy = |service, environment| {
        deploy_in_background(Agent::modern(&app, &token, "demo"), service, environment)
    };

    // Looking (a visible dashboard): answered there, and no mail about it.
    let mut dashboard = Dashboard::open(&app, &token).await;
    let watched = deploy("api", "staging");
    let shown = dashboard.next_of("elicitation.created").await;
    dashboard.respond(&shown["id"], "decline", None).await;
    watched.await.unwrap();

    // The page is hidden: the next question is mailed.
    dashboard.send(json!({ "type": "presence", "visible": false })).await;
    let unwatched = deploy("api", "production");
    let asked = dashboard.next_of("elicitation.created").await;
    let mails = smtp.await_mails(1).await;
    assert_eq!(mails.len(), 1, "one mail, for the question nobody was looking at");
    let mail = &mails[0];
    assert!(mail.contains("To: ") && mail.contains("owner@example.com"), "{mail}");
    assert!(mail.contains("Subject: Demo Server is asking you something"), "{mail}");
    let text = mail_text(mail);
    assert!(text.contains("Tool: deploy"), "{text}");
    assert!(text.contains(&format!("/?question={}", asked["id"].as_str().unwrap())), "{text}");
    assert!(!text.contains('<'), "plain text only: {text}");

    // Still answerable in the dashboard; the agent's call completes.
    dashboard.respond(&asked["id"], "decline", None).await;
    assert_eq!(unwatched.await.unwrap(), "Deployment declined by the user");
    let last = eventually("the mail recorded as delivered", async || {
        let shown = body(owner.get("/api/v1/me/notifications").await).await;
        (shown["last_email"]["status"] == "delivered").then(|| shown["last_email"].clone())
    })
    .await;
    assert_eq!(last["error"], serde_json::Value::Null);

    // A dashboard closed altogether counts as not looking either.
    drop(dashboard);
    let closed = deploy("web", "staging");
    let mails = smtp.await_mails(2).await;
    assert!(mails[1].contains("Subject: Demo Server is asking you something"));
    let mut dashboard = Dashboard::open(&app, &token).await;
    let pending = dashboard.next_of("elicitation.created").await;
    dashboard.respond(&pending["id"], "cancel", None).await;
    closed.await.unwrap();
}

#[tokio::test]
async fn an_smtp_server_that_is_down_delays_nothing_and_the_question_stays_answerable() {
    // Nothing listens on this port: every delivery fails and is retried, the call is unaffected.
    let port = crate::recorder::closed_port();
    let app = mailing_app(port, |s| s.notify.delivery_retry_secs = Some("1".into())).await;
    let (owner, token, _demo) = with_demo(&app, herald_demo_server::Options::default()).await;
    owner.put("/api/v1/me/notifications", &json!({ "delay_secs": 0 })).await;
    let agent = Agent::modern(&app, &token, "demo");
    let call = tokio::spawn(async move {
        text(&agent.call(1, "deploy", json!({ "service": "api", "environment": "production" })).await)
    });
    // No dashboard was open when it was asked; the person answers it over REST.
    let question = eventually("the question pending", async || {
        let pending = body(owner.get("/api/v1/orgs/acme/elicitations?status=pending").await).await;
        pending["elicitations"].as_array().and_then(|l| l.first()).cloned()
    })
    .await;
    // The mail is tried and fails (and will be retried), while the question waits.
    eventually("the first failed attempt recorded", async || {
        let shown = body(owner.get("/api/v1/me/notifications").await).await;
        (shown["last_email"]["status"] == "retrying").then_some(())
    })
    .await;
    let answer = owner
        .post(
            &format!("/api/v1/orgs/acme/elicitations/{}/respond", question["id"].as_str().unwrap()),
            &json!({ "action": "decline" }),
        )
        .await;
    assert_eq!(answer.status(), 200, "{}", answer.text().await.unwrap());
    assert_eq!(call.await.unwrap(), "Deployment declined by the user");
    // The person's notifications page says the mail did not get through, and why.
    // (Tried and failed, then withdrawn when the question ended, not sent about what is over.)
    let last = eventually("the failed mail shown to the person", async || {
        let shown = body(owner.get("/api/v1/me/notifications").await).await;
        (shown["last_email"]["status"] == "failed").then(|| shown["last_email"].clone())
    })
    .await;
    assert!(last["error"].as_str().is_some_and(|e| !e.is_empty()), "{last}");
}

/// The one-click links of a mail's text, as (label, address).
fn answer_links(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|line| {
            let (label, url) = line.trim().split_once(": ")?;
            url.contains("/answer/").then(|| (label.to_owned(), url.trim().to_owned()))
        })
        .collect()
}

#[tokio::test]
#[ignore = "needs aiosmtpd: run tests/peers/install.sh, then cargo test -- --include-ignored"]
async fn a_yes_no_question_is_answered_from_the_mail_after_one_confirmation_and_never_twice() {
    let smtp = MailServer::start().await;
    let app = mailing_app(smtp.port, |_| {}).await;
    let (owner, token, _demo) = with_demo(&app, herald_demo_server::Options::default()).await;
    owner.put("/api/v1/me/notifications", &json!({ "delay_secs": 0, "reminder_percent": 0 })).await;
    let agent = Agent::modern(&app, &token, "demo");
    let call = tokio::spawn(async move {
        text(&agent.call(1, "deploy", json!({ "service": "api", "environment": "production" })).await)
    });
    let mail = mail_text(&smtp.await_mails(1).await[0]);
    let links = answer_links(&mail);
    let labels: Vec<&str> = links.iter().map(|(l, _)| l.as_str()).collect();
    assert_eq!(labels, ["Yes", "No", "Decline to answer"], "{mail}");
    let yes = links[0].1.clone();
    assert!(yes.starts_with(&format!("{}/answer/", app.base)), "{yes}");
    let pending = || async {
        body(owner.get("/api/v1/orgs/acme/elicitations?status=pending").await).await["elicitations"]
            .as_array()
            .unwrap()
            .len()
    };
    let http = reqwest::Client::new();

    // A mail scanner fetching the link answers nothing: it gets the confirmation page.
    let page = http.get(&yes).send().await.unwrap();
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(html.contains("Confirm: Yes") && html.contains("Demo Server"), "{html}");
    assert_eq!(pending().await, 1, "following the link answers nothing");

    // Forged (the signature no longer matches) and cross-site posts change nothing.
    let mut forged = yes.clone();
    let flipped = if forged.ends_with('A') { 'B' } else { 'A' };
    forged.pop();
    forged.push(flipped);
    assert_eq!(http.get(&forged).send().await.unwrap().status(), 400);
    assert_eq!(http.post(&forged).header("origin", app.base.as_str()).send().await.unwrap().status(), 400);
    let cross = http.post(&yes).header("origin", "https://evil.example").send().await.unwrap();
    assert_eq!(cross.status(), 403);
    assert_eq!(pending().await, 1);

    // Confirmed on the page: the answer reaches the server and the agent's call completes.
    let confirmed = http.post(&yes).header("origin", app.base.as_str()).send().await.unwrap();
    assert_eq!(confirmed.status(), 200);
    assert!(confirmed.text().await.unwrap().contains("You answered: <strong>Yes</strong>"));
    assert_eq!(call.await.unwrap(), "Deployed api to production");
    let record = crate::mcp_support::latest(&owner).await;
    assert_eq!(record["answered_via"], "email", "{record}");
    assert_eq!(record["action"], "accept");

    // Spent: the same link, or another of the mail's, answers nothing more.
    let again = http.post(&yes).header("origin", app.base.as_str()).send().await.unwrap();
    assert_eq!(again.status(), 410);
    let no = http.post(&links[1].1).header("origin", app.base.as_str()).send().await.unwrap();
    assert_eq!(no.status(), 410);
    assert_eq!(crate::mcp_support::latest(&owner).await["action"], "accept");
}
