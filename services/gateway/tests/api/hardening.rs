//! Issue 13, as an attacker would probe it: sign-in abuse, what strangers may see, and the
//! listener's connection hygiene. Each test here failed before its fix.

use std::time::Duration;

use herald_gateway::app;
use herald_gateway::config::Cidr;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::support::{PASSWORD, Session, TestApp, TestDb, body, fields, problem};

/// Bounds a wait for something that must happen, so a regression fails instead of hanging.
/// Not a timing assertion: every wait here ends long before it on a working Herald.
const HANG_GUARD: Duration = Duration::from_secs(30);
const WRONG: &str = "not the password at all";

async fn sign_in(app: &TestApp, email: &str, password: &str) -> reqwest::Response {
    app.browser().post("/api/v1/auth/login", &json!({ "email": email, "password": password })).await
}

/// A sign-in that a trusted proxy forwarded for `client`.
async fn sign_in_from(app: &TestApp, client: &str, email: &str, password: &str) -> reqwest::Response {
    reqwest::Client::new()
        .post(app.url("/api/v1/auth/login"))
        .header("x-forwarded-for", client)
        .json(&json!({ "email": email, "password": password }))
        .send()
        .await
        .unwrap()
}

/// The 429's wait, checked to agree between header and body.
async fn throttled(response: reqwest::Response) -> u64 {
    let header: u64 = response.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    let p = problem(response, StatusCode::TOO_MANY_REQUESTS, "too-many-attempts").await;
    assert_eq!(p["retry_after"], header, "{p}");
    assert!(p["detail"].as_str().unwrap().contains("try again in"), "{p}");
    header
}

/// The first wait is a minute, so no block lapses while a test runs.
fn slow_back_off(config: &mut herald_gateway::config::Config) {
    config.hardening.login.backoff_base = Duration::from_secs(60);
}

async fn audit_actions(session: &Session, org: &str) -> Vec<Value> {
    let log =
        body(session.get(&format!("/api/v1/orgs/{org}/audit?action=auth.sign_in_throttled")).await).await;
    log["entries"].as_array().unwrap().clone()
}

// --- sign-in throttle ------------------------------------------------------------------------

#[tokio::test]
async fn failed_sign_ins_to_an_account_back_off_with_429_and_retry_after() {
    let app = TestApp::spawn_with_config(slow_back_off).await;
    let owner = app.owner().await;
    for _ in 0..5 {
        problem(
            sign_in(&app, "owner@example.com", WRONG).await,
            StatusCode::UNAUTHORIZED,
            "invalid-credentials",
        )
        .await;
    }
    // The fifth failure started the back-off: now even the right password waits, unhashed.
    let hashed = app.state.passwords.work_started();
    let wait = throttled(sign_in(&app, "owner@example.com", PASSWORD).await).await;
    assert!((1..=60).contains(&wait), "{wait}");
    assert_eq!(app.state.passwords.work_started(), hashed, "a throttled attempt hashes nothing");
    // It is per account: another account signs in.
    app.join(&owner, "acme", "mia@example.com", "member").await;
    assert_eq!(sign_in(&app, "mia@example.com", PASSWORD).await.status(), StatusCode::OK);

    // The organisation sees who is being guessed at, once per back-off started.
    let entries = audit_actions(&owner, "acme").await;
    assert_eq!(entries.len(), 1, "{entries:?}");
    let me = body(owner.get("/api/v1/me").await).await;
    assert_eq!(entries[0]["user_id"], me["user"]["id"]);
    assert_eq!(entries[0]["actor"], "system");
    assert_eq!(entries[0]["details"]["scope"], "account");
    assert_eq!(entries[0]["details"]["failures"], 5);
}

#[tokio::test]
async fn emails_without_an_account_are_throttled_exactly_like_accounts() {
    let app = TestApp::spawn_with_config(slow_back_off).await;
    let owner = app.owner().await;
    for email in ["owner@example.com", "nobody@example.com"] {
        for _ in 0..5 {
            let p =
                problem(sign_in(&app, email, WRONG).await, StatusCode::UNAUTHORIZED, "invalid-credentials")
                    .await;
            assert_eq!(p["detail"], "the email or password is wrong");
        }
        throttled(sign_in(&app, email, WRONG).await).await;
    }
    // Only the real account's organisations hear of it; nobody's back-off is in no log.
    assert_eq!(audit_actions(&owner, "acme").await.len(), 1);
}

#[tokio::test]
async fn a_successful_sign_in_forgets_the_accounts_failures() {
    let app = TestApp::spawn_with_config(slow_back_off).await;
    app.owner().await;
    for round in 0..2 {
        for _ in 0..4 {
            assert_eq!(sign_in(&app, "owner@example.com", WRONG).await.status(), StatusCode::UNAUTHORIZED);
        }
        assert_eq!(
            sign_in(&app, "owner@example.com", PASSWORD).await.status(),
            StatusCode::OK,
            "round {round}"
        );
    }
}

#[tokio::test]
async fn failures_from_one_address_back_off_across_accounts() {
    let app = TestApp::spawn_with_config(|c| {
        slow_back_off(c);
        c.hardening.trusted_proxies = vec![Cidr::parse("127.0.0.1").unwrap()];
        c.hardening.login.failures_per_address = 3;
        c.hardening.login.failures_per_account = 100;
    })
    .await;
    app.owner().await;
    // A password spray: one guess each at many accounts, from one address behind the proxy.
    for n in 0..3 {
        let response = sign_in_from(&app, "203.0.113.7", &format!("user{n}@example.com"), WRONG).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    }
    throttled(sign_in_from(&app, "203.0.113.7", "owner@example.com", PASSWORD).await).await;
    // The proxy appends what it saw; a forged left-hand entry changes nothing.
    throttled(sign_in_from(&app, "198.51.100.1, 203.0.113.7", "owner@example.com", PASSWORD).await).await;
    // Another client behind the same proxy is not blocked.
    assert_eq!(
        sign_in_from(&app, "203.0.113.8", "owner@example.com", PASSWORD).await.status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn forwarded_for_from_an_untrusted_peer_is_not_believed() {
    let app = TestApp::spawn_with_config(|c| {
        slow_back_off(c);
        c.hardening.login.failures_per_address = 3;
        c.hardening.login.failures_per_account = 100;
    })
    .await;
    app.owner().await;
    for n in 0..3 {
        let forged = format!("203.0.113.{n}");
        let response = sign_in_from(&app, &forged, &format!("user{n}@example.com"), WRONG).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    }
    // No trusted proxies: every attempt came from the socket's peer, whatever it claimed.
    throttled(sign_in_from(&app, "198.51.100.99", "owner@example.com", PASSWORD).await).await;
}

#[tokio::test]
async fn guessing_the_current_password_from_a_session_is_throttled() {
    let app = TestApp::spawn_with_config(slow_back_off).await;
    let owner = app.owner().await;
    let change = |current: &'static str| {
        let owner = owner.clone();
        async move {
            owner
                .post(
                    "/api/v1/auth/password",
                    &json!({ "current_password": current, "new_password": "a brand new passphrase" }),
                )
                .await
        }
    };
    for _ in 0..5 {
        let p = problem(change(WRONG).await, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
        assert_eq!(fields(&p), ["current_password"]);
    }
    throttled(change(PASSWORD).await).await;
}

#[tokio::test]
async fn the_throttle_holds_across_replicas() {
    let app = TestApp::spawn_with_config(slow_back_off).await;
    if !matches!(app.db, TestDb::Postgres { .. }) {
        eprintln!("the_throttle_holds_across_replicas: needs HERALD_TEST_DATABASE_URL (PostgreSQL)");
        return;
    }
    app.owner().await;
    // A second replica on the same database, sharing nothing else.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let mut config = app.state.config.clone();
    config.public_url = base.parse().unwrap();
    let other = app::prepare(config).await.unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(app::serve(listener, other, async {
        let _ = stopped.await;
    }));
    for n in 0..5 {
        // Alternate replicas, as a round-robin load balancer would.
        let url =
            if n % 2 == 0 { app.url("/api/v1/auth/login") } else { format!("{base}/api/v1/auth/login") };
        let response = reqwest::Client::new()
            .post(url)
            .json(&json!({ "email": "owner@example.com", "password": WRONG }))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    }
    for url in [app.url("/api/v1/auth/login"), format!("{base}/api/v1/auth/login")] {
        let response = reqwest::Client::new()
            .post(url)
            .json(&json!({ "email": "owner@example.com", "password": PASSWORD }))
            .send()
            .await
            .unwrap();
        throttled(response).await;
    }
    let _ = stop.send(());
    served.await.unwrap().unwrap();
}

// --- bounded password hashing ------------------------------------------------------------------

#[tokio::test]
async fn saturated_password_hashing_answers_503_with_retry_after_and_counts_nothing() {
    let app = TestApp::spawn_with_config(|c| c.hardening.hashing_queue = 0).await;
    app.owner().await;
    let hashed = app.state.passwords.work_started();
    let held = app.state.passwords.occupy_all();
    for password in [WRONG, PASSWORD] {
        let response = sign_in(&app, "owner@example.com", password).await;
        assert_eq!(response.headers()["retry-after"], "1");
        let p = problem(response, StatusCode::SERVICE_UNAVAILABLE, "busy").await;
        assert_eq!(p["retry_after"], 1);
    }
    assert_eq!(app.state.passwords.work_started(), hashed);
    drop(held);
    // Nothing was counted against the account while Herald was busy.
    for _ in 0..4 {
        assert_eq!(sign_in(&app, "owner@example.com", WRONG).await.status(), StatusCode::UNAUTHORIZED);
    }
    assert_eq!(sign_in(&app, "owner@example.com", PASSWORD).await.status(), StatusCode::OK);
}

#[tokio::test]
async fn setup_checks_its_token_before_hashing_anything() {
    let app = TestApp::spawn().await;
    let wrong = app
        .browser()
        .post(
            "/api/v1/setup",
            &json!({ "token": "not-the-token", "org_slug": "acme", "org_name": "Acme",
                     "email": "owner@example.com", "name": "Olive", "password": PASSWORD }),
        )
        .await;
    problem(wrong, StatusCode::GONE, "setup-unavailable").await;
    assert_eq!(app.state.passwords.work_started(), 0, "a wrong setup token costs no hash");
    app.owner().await;
    assert_eq!(app.state.passwords.work_started(), 1);
}

// --- invites: nothing about other people's accounts ----------------------------------------

/// An invite link for `email` in acme, by `owner`; returns its secret.
async fn invite(owner: &Session, email: &str) -> String {
    let created = owner.post("/api/v1/orgs/acme/invites", &json!({ "email": email, "role": "member" })).await;
    assert_eq!(created.status(), StatusCode::CREATED);
    body(created).await["link"].as_str().unwrap().split_once("#token=").unwrap().1.to_owned()
}

#[tokio::test]
async fn the_invite_preview_does_not_say_whether_the_email_has_an_account() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    owner.post("/api/v1/orgs", &json!({ "slug": "beta", "name": "Beta" })).await;
    app.join(&owner, "beta", "sam@example.com", "member").await;
    let mut previews = Vec::new();
    for email in ["sam@example.com", "newcomer@example.com"] {
        let token = invite(&owner, email).await;
        // The admin who made the link is the one who must learn nothing from it.
        let mut preview = body(owner.post("/api/v1/invites/preview", &json!({ "token": token })).await).await;
        assert_eq!(preview["email"], email);
        preview["email"] = json!("");
        preview["expires_at"] = json!("");
        previews.push(preview);
    }
    assert_eq!(previews[0], previews[1], "the previews differ only in the email and expiry");
    let mut keys: Vec<&String> = previews[0].as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["email", "expires_at", "org", "role"]);
}

#[tokio::test]
async fn accepting_without_a_session_asks_the_same_of_new_and_existing_accounts() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    owner.post("/api/v1/orgs", &json!({ "slug": "beta", "name": "Beta" })).await;
    app.join(&owner, "beta", "sam@example.com", "member").await;
    let mut answers = Vec::new();
    for email in ["sam@example.com", "newcomer@example.com"] {
        let token = invite(&owner, email).await;
        for attempt in
            [json!({ "token": token }), json!({ "token": token, "name": "X", "password": "short" })]
        {
            // Neither the anonymous holder of the link nor the admin (signed in as someone else).
            for who in [app.browser(), owner.clone()] {
                let response = who.post("/api/v1/invites/accept", &attempt).await;
                let p = problem(response, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
                answers.push((email, fields(&p)));
            }
        }
    }
    let (sam, newcomer): (Vec<_>, Vec<_>) =
        answers.into_iter().partition(|(email, _)| *email == "sam@example.com");
    let fields_of = |list: Vec<(&str, Vec<String>)>| list.into_iter().map(|(_, f)| f).collect::<Vec<_>>();
    assert_eq!(fields_of(sam), fields_of(newcomer));
}

#[tokio::test]
async fn an_existing_account_accepts_an_invite_with_its_password() {
    let app = TestApp::spawn_with_config(slow_back_off).await;
    let owner = app.owner().await;
    owner.post("/api/v1/orgs", &json!({ "slug": "beta", "name": "Beta" })).await;
    app.join(&owner, "beta", "sam@example.com", "member").await;
    let token = invite(&owner, "sam@example.com").await;

    let guesser = app.browser();
    let wrong = guesser
        .post("/api/v1/invites/accept", &json!({ "token": token, "name": "Sam", "password": WRONG }))
        .await;
    problem(wrong, StatusCode::UNAUTHORIZED, "invalid-credentials").await;

    // The invite still works, for whoever has the account's password; they are signed in.
    let sam = app.browser();
    let accepted = sam
        .post("/api/v1/invites/accept", &json!({ "token": token, "name": "Ignored", "password": PASSWORD }))
        .await;
    assert_eq!(accepted.status(), StatusCode::OK);
    assert!(accepted.headers().contains_key("set-cookie"));
    let me = body(sam.get("/api/v1/me").await).await;
    assert_eq!(me["user"]["email"], "sam@example.com");
    assert_eq!(me["user"]["name"], "sam@example.com", "an existing account keeps its name");
    assert_eq!(me["memberships"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn guessing_a_password_through_an_invite_is_throttled_like_signing_in() {
    let app = TestApp::spawn_with_config(slow_back_off).await;
    let owner = app.owner().await;
    owner.post("/api/v1/orgs", &json!({ "slug": "beta", "name": "Beta" })).await;
    app.join(&owner, "beta", "sam@example.com", "member").await;
    let token = invite(&owner, "sam@example.com").await;
    for _ in 0..5 {
        let guess = app
            .browser()
            .post("/api/v1/invites/accept", &json!({ "token": token, "name": "Sam", "password": WRONG }))
            .await;
        assert_eq!(guess.status(), StatusCode::UNAUTHORIZED);
    }
    throttled(sign_in(&app, "sam@example.com", PASSWORD).await).await;
}

// --- metrics: not for strangers ------------------------------------------------------------------

#[tokio::test]
async fn metrics_are_not_served_to_strangers_on_the_public_listener() {
    let app = TestApp::spawn().await;
    app.owner().await;
    let scrape = reqwest::get(app.url("/metrics")).await.unwrap();
    let p = problem(scrape, StatusCode::NOT_FOUND, "not-found").await;
    assert!(!p.to_string().contains("herald_"), "{p}");
}

#[tokio::test]
async fn metrics_on_the_public_listener_want_their_bearer_token() {
    let token = "metrics-token-0123456789abcdef";
    let app = TestApp::spawn_with_config(|c| {
        let raw =
            herald_gateway::config::RawHardening { metrics_token: Some(token.into()), ..Default::default() };
        c.hardening.metrics_token = herald_gateway::config::Hardening::from_raw(&raw).unwrap().metrics_token;
    })
    .await;
    app.owner().await;
    let client = reqwest::Client::new();
    for presented in [None, Some("Bearer wrong-token-0123456789abcdef"), Some(token)] {
        let mut request = client.get(app.url("/metrics"));
        if let Some(value) = presented {
            request = request.header("authorization", value);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.headers()["www-authenticate"], "Bearer");
        problem(response, StatusCode::UNAUTHORIZED, "unauthenticated").await;
    }
    let scrape = client.get(app.url("/metrics")).bearer_auth(token).send().await.unwrap();
    assert_eq!(scrape.status(), StatusCode::OK);
    assert!(scrape.text().await.unwrap().contains("herald_http_requests_total"));
}

#[tokio::test]
async fn metrics_on_their_own_listener_are_not_on_the_public_one() {
    let cwd = crate::cli::temp_dir();
    let mut child = crate::cli::herald(&cwd).env("HERALD_METRICS_LISTEN", "127.0.0.1:0").spawn().unwrap();
    let (listen, log) = crate::cli::serving(&mut child).await;
    let serving = log.iter().find(|e| e["message"] == "herald is serving").unwrap();
    let metrics = serving["metrics_listen"].as_str().unwrap().to_owned();
    assert_ne!(metrics, listen);
    let private = reqwest::get(format!("http://{metrics}/metrics")).await.unwrap();
    assert_eq!(private.status(), StatusCode::OK);
    assert!(private.text().await.unwrap().contains("herald_elicitations_pending"));
    // The metrics listener serves nothing else, and the public one no metrics.
    problem(
        reqwest::get(format!("http://{metrics}/healthz")).await.unwrap(),
        StatusCode::NOT_FOUND,
        "not-found",
    )
    .await;
    problem(
        reqwest::get(format!("http://{listen}/metrics")).await.unwrap(),
        StatusCode::NOT_FOUND,
        "not-found",
    )
    .await;
    child.kill().await.unwrap();
    let _ = std::fs::remove_dir_all(cwd);
}

// --- the listener ------------------------------------------------------------------------------

/// Reads until the server closes the connection; what it sent before.
async fn until_closed(stream: &mut TcpStream) -> String {
    let mut seen = Vec::new();
    let read = tokio::time::timeout(HANG_GUARD, stream.read_to_end(&mut seen)).await;
    match read.expect("Herald closes the connection") {
        // A socket closed with unread bytes in it is reset: closed all the same.
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {}
        Err(e) => panic!("the read failed: {e}"),
    }
    String::from_utf8_lossy(&seen).into_owned()
}

async fn connect(app: &TestApp) -> TcpStream {
    TcpStream::connect(app.base.trim_start_matches("http://")).await.unwrap()
}

#[tokio::test]
async fn a_connection_that_sends_no_request_is_closed_after_the_header_timeout() {
    let app =
        TestApp::spawn_with_config(|c| c.hardening.listener.header_timeout = Duration::from_secs(1)).await;
    let mut silent = connect(&app).await;
    let mut trickling = connect(&app).await;
    trickling.write_all(b"GET /healthz HTTP/1.1\r\nHost: herald\r\n").await.unwrap();
    assert_eq!(until_closed(&mut silent).await, "");
    assert_eq!(until_closed(&mut trickling).await, "");
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed_after_the_idle_timeout() {
    let app =
        TestApp::spawn_with_config(|c| c.hardening.listener.idle_timeout = Duration::from_secs(1)).await;
    let mut stream = connect(&app).await;
    stream.write_all(b"GET /healthz HTTP/1.1\r\nHost: herald\r\n\r\n").await.unwrap();
    // The answer comes, then (keep-alive, nothing more asked) the close.
    let seen = until_closed(&mut stream).await;
    assert!(seen.starts_with("HTTP/1.1 200 OK"), "{seen}");
}

#[tokio::test]
async fn at_the_cap_new_connections_displace_silent_ones_and_health_answers() {
    let app = TestApp::spawn_with_config(|c| {
        c.hardening.listener.max_connections = 8;
        c.hardening.listener.header_timeout = Duration::from_secs(3600);
    })
    .await;
    let mut flood = Vec::new();
    for _ in 0..8 {
        flood.push(connect(&app).await);
    }
    for _ in 0..3 {
        let health = reqwest::Client::new().get(app.url("/readyz")).send().await.unwrap();
        assert_eq!(health.status(), StatusCode::OK);
    }
    // The oldest silent connection gave way (not a timeout: that is an hour here).
    assert_eq!(until_closed(&mut flood[0]).await, "");
}

#[tokio::test]
async fn when_every_connection_is_busy_a_new_one_is_closed_unread() {
    let app = TestApp::spawn_with_config(|c| c.hardening.listener.max_connections = 2).await;
    let owner = app.owner().await;
    let token = app.token(&owner, "acme", "sockets").await;
    drop(owner); // its keep-alive connection would count
    let mut sockets = Vec::new();
    for _ in 0..2 {
        sockets.push(open_socket(&app, &token).await.expect("under the cap a socket opens"));
    }
    let mut third = connect(&app).await;
    third.write_all(b"GET /healthz HTTP/1.1\r\nHost: herald\r\n\r\n").await.unwrap();
    assert_eq!(until_closed(&mut third).await, "", "closed without an answer");
}

// --- websockets per person ------------------------------------------------------------------------

type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>;

async fn open_socket(app: &TestApp, token: &str) -> Result<Socket, tokio_tungstenite::tungstenite::Error> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut request = app.url("/api/v1/ws").replace("http://", "ws://").into_client_request().unwrap();
    request.headers_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
    tokio_tungstenite::connect_async(request).await.map(|(socket, _)| socket)
}

#[tokio::test]
async fn a_person_over_the_websocket_cap_gets_a_close_code_and_reason() {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    let app = TestApp::spawn_with_config(|c| c.hardening.max_websockets_per_user = 2).await;
    let owner = app.owner().await;
    let token = app.token(&owner, "acme", "sockets").await;
    let mut open = Vec::new();
    for _ in 0..2 {
        open.push(open_socket(&app, &token).await.unwrap());
    }
    let mut over = open_socket(&app, &token).await.unwrap();
    let frame = tokio::time::timeout(HANG_GUARD, over.next()).await.expect("a frame comes").unwrap().unwrap();
    let Message::Close(Some(close)) = frame else { panic!("not a close frame: {frame:?}") };
    assert_eq!(u16::from(close.code), 4429);
    assert!(close.reason.contains("at most 2 per person"), "{}", close.reason);

    // Another person is not affected, and a closed socket gives its place back.
    let member = app.join(&owner, "acme", "mia@example.com", "member").await;
    let mia = app.token(&member, "acme", "sockets").await;
    open_socket(&app, &mia).await.unwrap();
    let mut first = open.remove(0);
    first.send(Message::Close(None)).await.unwrap();
    while first.next().await.is_some() {}
    let user_id = body(owner.get("/api/v1/me").await).await["user"]["id"].as_str().unwrap().parse().unwrap();
    let deadline = tokio::time::Instant::now() + HANG_GUARD;
    while app.state.sockets.open(user_id) > 1 {
        assert!(tokio::time::Instant::now() < deadline, "the closed socket's place was not given back");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let mut again = open_socket(&app, &token).await.unwrap();
    // A working socket: it answers a malformed message with an error, not a close.
    again.send(Message::Text("{}".into())).await.unwrap();
    let reply = tokio::time::timeout(HANG_GUARD, again.next()).await.unwrap().unwrap().unwrap();
    assert!(matches!(reply, Message::Text(_)), "{reply:?}");
}
