//! The `herald` binary as an operator meets it: defaults, bad settings, the
//! SQLite single-process rule, and `herald bootstrap`.

use std::process::Stdio;

use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};

use crate::support::{PASSWORD, TestApp, TestDb, body};

pub(crate) fn herald(cwd: &std::path::Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_herald"));
    command
        .current_dir(cwd)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HERALD_LOG_FORMAT", "json")
        .env("HERALD_LISTEN", "127.0.0.1:0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    command
}

/// Reads the JSON log until the server says it is serving; returns its address.
pub(crate) async fn serving(child: &mut Child) -> (String, Vec<Value>) {
    let stderr = child.stderr.take().unwrap();
    let mut lines = BufReader::new(stderr).lines();
    let mut seen = Vec::new();
    // A guard against a hang (a log that stops), not a timing assertion.
    let patience = std::time::Duration::from_secs(60);
    while let Some(line) = tokio::time::timeout(patience, lines.next_line())
        .await
        .expect("herald logs that it is serving")
        .unwrap()
    {
        let entry: Value =
            serde_json::from_str(&line).unwrap_or_else(|_| panic!("log line is not JSON: {line}"));
        seen.push(entry.clone());
        if entry["message"] == "herald is serving" {
            // Keep draining so the child never blocks on a full pipe.
            tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
            return (entry["listen"].as_str().unwrap().to_owned(), seen);
        }
    }
    panic!("herald exited before serving: {seen:?}");
}

pub(crate) fn temp_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("herald-cli-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[tokio::test]
async fn with_no_settings_it_serves_sqlite_under_data_and_announces_setup() {
    let cwd = temp_dir();
    let mut child = herald(&cwd).spawn().unwrap();
    let (listen, log) = serving(&mut child).await;
    assert!(cwd.join("data/herald.db").exists(), "the database file is created under ./data");
    assert!(
        log.iter()
            .any(|e| { e["message"].as_str().unwrap_or_default().contains("HERALD_SECRET_KEY is not set") })
    );
    assert!(log.iter().any(|e| { e["setup_link"].as_str().is_some_and(|l| l.contains("/setup#token=")) }));
    let ready = reqwest::get(format!("http://{listen}/readyz")).await.unwrap();
    assert_eq!(ready.status(), StatusCode::OK);
    child.kill().await.unwrap();
    let _ = std::fs::remove_dir_all(cwd);
}

/// `herald healthcheck`, the container image's probe: 0 when ready, 1 when
/// not reachable, 2 for a URL it cannot use.
#[tokio::test]
async fn healthcheck_exits_zero_only_when_herald_is_ready() {
    let cwd = temp_dir();
    let mut child = herald(&cwd).spawn().unwrap();
    let (listen, _) = serving(&mut child).await;
    let port = listen.rsplit(':').next().unwrap().to_owned();
    // The default URL: the listen address's own /readyz, over loopback for 0.0.0.0.
    let ready = herald(&cwd).env("HERALD_LISTEN", format!("0.0.0.0:{port}")).arg("healthcheck").output();
    let ready = ready.await.unwrap();
    assert!(ready.status.success(), "{}", String::from_utf8_lossy(&ready.stderr));
    assert!(String::from_utf8_lossy(&ready.stdout).contains(&format!("127.0.0.1:{port}/readyz: ready")));
    child.kill().await.unwrap();
    child.wait().await.unwrap();

    let url = format!("http://{listen}/readyz");
    let gone = herald(&cwd).args(["healthcheck", "--url", &url]).output().await.unwrap();
    assert_eq!(gone.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&gone.stderr);
    assert!(stderr.starts_with(&format!("herald: {url}: unreachable")), "{stderr}");
    let bad = herald(&cwd).args(["healthcheck", "--url", "ftp://x"]).output().await.unwrap();
    assert_eq!(bad.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(cwd);
}

#[tokio::test]
async fn a_second_process_on_the_same_sqlite_file_refuses_to_start() {
    let cwd = temp_dir();
    let mut first = herald(&cwd).spawn().unwrap();
    serving(&mut first).await;
    let second = herald(&cwd).output().await.unwrap();
    assert!(!second.status.success());
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(stderr.contains("in use by another herald process"), "{stderr}");
    first.kill().await.unwrap();
    let _ = std::fs::remove_dir_all(cwd);
}

#[tokio::test]
async fn a_bad_setting_stops_it_with_one_line_naming_the_setting() {
    let cwd = temp_dir();
    for (name, value, named) in [
        ("HERALD_LISTEN", "localhost", "HERALD_LISTEN"),
        ("HERALD_PUBLIC_URL", "ftp://x", "HERALD_PUBLIC_URL"),
        ("HERALD_DATABASE_URL", "mysql://x", "HERALD_DATABASE_URL"),
        ("HERALD_SECRET_KEY", "too-short", "HERALD_SECRET_KEY"),
        ("HERALD_LOG_FORMAT", "xml", "HERALD_LOG_FORMAT"),
        ("HERALD_LOG_LEVEL", "[", "HERALD_LOG_LEVEL"),
        ("HERALD_SESSION_HOURS", "forever", "HERALD_SESSION_HOURS"),
        ("HERALD_UPSTREAM_ALLOW", "private", "HERALD_UPSTREAM_ALLOW"),
        ("HERALD_UPSTREAM_ALLOW_CIDRS", "10.0.0.0/8,intranet", "HERALD_UPSTREAM_ALLOW_CIDRS"),
    ] {
        let output = herald(&cwd).env(name, value).output().await.unwrap();
        assert_eq!(output.status.code(), Some(2), "{name}={value}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        assert!(stderr.starts_with("herald: invalid setting ") && stderr.contains(named), "{stderr}");
    }
    assert!(!cwd.join("data").exists(), "nothing was created");
    let _ = std::fs::remove_dir_all(cwd);
}

pub(crate) async fn bootstrap(db: &TestDb, org: &str, email: &str, password: &str) -> std::process::Output {
    let cwd = temp_dir();
    let mut child = herald(&cwd)
        .env("HERALD_DATABASE_URL", db.url())
        .args(["bootstrap", "--org", org, "--org-name", "Acme Inc", "--email", email, "--password-stdin"])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(format!("{password}\n").as_bytes()).await.unwrap();
    drop(stdin);
    let output = child.wait_with_output().await.unwrap();
    let _ = std::fs::remove_dir_all(cwd);
    output
}

#[tokio::test]
async fn bootstrap_creates_the_org_once_and_refuses_to_repeat() {
    let db = TestDb::create().await;
    let weak = bootstrap(&db, "acme", "boss@example.com", "123").await;
    assert!(!weak.status.success());
    assert!(String::from_utf8_lossy(&weak.stderr).contains("password"));

    let first = bootstrap(&db, "acme", "boss@example.com", PASSWORD).await;
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    assert!(String::from_utf8_lossy(&first.stdout).contains("created organisation acme"));

    let again = bootstrap(&db, "acme", "other@example.com", PASSWORD).await;
    assert!(!again.status.success());
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(stderr.contains("organisation acme already exists; nothing was changed"), "{stderr}");

    let bad = bootstrap(&db, "Not A Slug", "boss@example.com", PASSWORD).await;
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--org"));

    let app = TestApp::spawn_on(db).await;
    assert!(app.setup_link.is_none(), "no setup link once an owner exists");
    let boss = app.browser();
    let login =
        boss.post("/api/v1/auth/login", &json!({ "email": "boss@example.com", "password": PASSWORD })).await;
    assert_eq!(login.status(), StatusCode::OK);
    let account = body(login).await;
    assert_eq!(account["memberships"][0]["org"]["slug"], "acme");
    assert_eq!(account["memberships"][0]["role"], "owner");
    let stranger = app.browser();
    let login = stranger
        .post("/api/v1/auth/login", &json!({ "email": "other@example.com", "password": PASSWORD }))
        .await;
    assert_eq!(login.status(), StatusCode::UNAUTHORIZED);
}

/// The README's promise: `herald serve --demo` prints how to call the demo
/// server, and a call through Herald is answered from the dashboard.
#[tokio::test]
async fn serve_demo_prints_how_to_call_it_and_the_whole_flow_works() {
    let cwd = temp_dir();
    let mut child = herald(&cwd).args(["serve", "--demo"]).spawn().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    let (listen, _) = serving(&mut child).await;
    let base = format!("http://{listen}");
    let (mut token, mut sign_in) = (None, None);
    while token.is_none() {
        let line = stdout.next_line().await.unwrap().expect("the demo prints its instructions");
        if let Some(rest) = line.trim().strip_prefix("Agent token: ") {
            token = Some(rest.trim().to_owned());
        }
        if let Some(rest) = line.trim().strip_prefix("MCP URL:") {
            assert_eq!(rest.trim(), format!("{base}/mcp/demo/demo"), "the printed URL names the real port");
        }
        if let Some(rest) = line.trim().strip_prefix("Dashboard:") {
            sign_in = rest.split_whitespace().next().map(str::to_owned);
        }
        assert!(
            !line.contains("/api/v1/auth/login"),
            "a person is sent to the dashboard, not the API: {line}"
        );
    }
    let token = token.unwrap();
    // Where a person signs in: the dashboard's page, served as HTML.
    assert_eq!(
        sign_in.as_deref(),
        Some(format!("{base}/login").as_str()),
        "the demo prints the dashboard's sign-in page"
    );
    let page = reqwest::get(format!("{base}/login")).await.unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    assert!(page.headers()[reqwest::header::CONTENT_TYPE].to_str().unwrap().starts_with("text/html"));
    let mut dashboard = crate::mcp_support::Dashboard::open_at(&base, &token).await;
    let agent = crate::mcp_support::Agent::modern_at(&base, "demo", &token, "demo");
    let call = tokio::spawn(async move {
        agent.call(1, "deploy", json!({ "service": "api", "environment": "staging" })).await
    });
    let question = dashboard.next_of("elicitation.created").await;
    assert_eq!(question["server"]["name"], "Demo Server");
    assert_eq!(question["tool"], "deploy");
    let ack = dashboard.respond(&question["id"], "accept", Some(json!({ "confirm": true }))).await;
    assert_eq!(ack["type"], "ack");
    let done = call.await.unwrap();
    assert_eq!(crate::mcp_support::text(&done), "Deployed api to staging");
    child.kill().await.unwrap();
    let _ = std::fs::remove_dir_all(cwd);
}

/// Rate caps hold across replicas: two `herald` processes on one PostgreSQL
/// count into the same windows. (SQLite allows one process per file; there
/// the second replica refuses to start, which the test above checks.)
#[tokio::test]
async fn two_replicas_on_postgresql_enforce_one_org_cap() {
    let Some(mut r) = two_replicas("two_replicas_on_postgresql_enforce_one_org_cap", 0).await else { return };
    let (owner, token) = (r.owner.clone(), r.token.clone());
    let capped =
        owner.put("/api/v1/orgs/acme/policy", &json!({ "rate_caps": { "per_org_per_hour": 3 } })).await;
    assert_eq!(capped.status(), StatusCode::OK);

    // One dashboard is enough: questions reach it from either replica.
    let mut dashboard = crate::mcp_support::Dashboard::open_at(&r.bases[0], &token).await;
    let (mut shown, mut refused) = (0, 0);
    let mut waiting = Vec::new();
    for i in 0..8 {
        let replica = i % 2;
        let agent = crate::mcp_support::Agent::modern_at(&r.bases[replica], "acme", &token, "demo");
        let service = format!("svc-{i}");
        let mut call = tokio::spawn({
            let service = service.clone();
            async move {
                let arguments = json!({ "service": service, "environment": "staging" });
                crate::mcp_support::text(&agent.call(1, "deploy", arguments).await)
            }
        });
        let this_question = async {
            loop {
                let created = dashboard.next_of("elicitation.created").await;
                if created["message"].as_str().is_some_and(|m| m.contains(&format!("{service} "))) {
                    return created;
                }
            }
        };
        tokio::select! {
            created = this_question => {
                assert_eq!(created["tool"], "deploy");
                shown += 1;
                waiting.push(call);
            }
            result = &mut call => {
                assert_eq!(result.unwrap(), "Deployment cancelled by the user");
                refused += 1;
            }
        }
    }
    assert_eq!((shown, refused), (3, 5), "one cap of 3 across both replicas");
    let log = body(owner.get("/api/v1/orgs/acme/audit?reason=rate_capped").await).await;
    assert_eq!(log["entries"].as_array().unwrap().len(), 5);
    for call in waiting {
        call.abort();
    }
    for child in &mut r.children {
        child.kill().await.unwrap();
    }
}

/// SIGTERM: Herald ends the questions it holds (the server gets a cancel,
/// the agent its result, the dashboards are told) and exits 0.
#[tokio::test]
async fn sigterm_ends_pending_questions_cleanly_and_exits_zero() {
    let cwd = temp_dir();
    let mut child = herald(&cwd).args(["serve", "--demo"]).spawn().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    let (listen, _) = serving(&mut child).await;
    let base = format!("http://{listen}");
    let token = loop {
        let line = stdout.next_line().await.unwrap().expect("the demo prints its instructions");
        if let Some(rest) = line.trim().strip_prefix("Agent token: ") {
            break rest.trim().to_owned();
        }
    };
    let mut dashboard = crate::mcp_support::Dashboard::open_at(&base, &token).await;
    let agent = crate::mcp_support::Agent::modern_at(&base, "demo", &token, "demo");
    let call = tokio::spawn(async move {
        agent.call(1, "deploy", json!({ "service": "api", "environment": "staging" })).await
    });
    dashboard.next_of("elicitation.created").await;
    let pid = child.id().expect("running").to_string();
    let sent = std::process::Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(sent.success());
    let resolved = dashboard.next_of("elicitation.resolved").await;
    assert_eq!(
        (resolved["decided_by"].clone(), resolved["reason"].clone()),
        (json!("system"), json!("interrupted"))
    );
    assert_eq!(crate::mcp_support::text(&call.await.unwrap()), "Deployment cancelled by the user");
    let status = tokio::time::timeout(crate::mcp_support::PATIENCE, child.wait())
        .await
        .expect("herald exits")
        .unwrap();
    assert!(status.success(), "{status:?}");
    let _ = std::fs::remove_dir_all(cwd);
}

/// No sticky sessions: a question asked through one replica appears on the
/// dashboards connected to another, and an answer given there reaches the
/// call suspended on the first (PostgreSQL LISTEN/NOTIFY; the rows stay the truth).
#[tokio::test]
async fn an_answer_on_one_replica_completes_a_call_suspended_on_another() {
    let Some(mut r) = two_replicas("an_answer_on_one_replica_completes_a_call_suspended_on_another", 0).await
    else {
        return;
    };
    let token = r.token.clone();

    // The dashboard is on replica B; the agent's call goes through replica A.
    let mut on_b = crate::mcp_support::Dashboard::open_at(&r.bases[1], &token).await;
    let agent = crate::mcp_support::Agent::modern_at(&r.bases[0], "acme", &token, "demo");
    let call = tokio::spawn(async move {
        agent.call(1, "deploy", json!({ "service": "api", "environment": "staging" })).await
    });
    let created = on_b.next_of("elicitation.created").await;
    assert_eq!(created["server"]["name"], "Demo Server");
    assert_eq!(on_b.respond(&created["id"], "accept", Some(json!({ "confirm": true }))).await["type"], "ack");
    assert_eq!(crate::mcp_support::text(&call.await.unwrap()), "Deployed api to staging");
    for child in &mut r.children {
        child.kill().await.unwrap();
    }
}

/// Presence holds across replicas: a dashboard visible on replica B means
/// no push for a question asked through replica A; once it is hidden there,
/// the next question is pushed. (The presence rows are awaited in the database.)
#[tokio::test]
#[ignore = "needs the push service's packages: run tests/peers/install.sh, then cargo test -- --include-ignored"]
async fn a_dashboard_visible_on_one_replica_keeps_another_from_pushing() {
    let Some(mut r) = two_replicas("a_dashboard_visible_on_one_replica_keeps_another_from_pushing", 0).await
    else {
        return;
    };
    let push = crate::push::PushService::start().await;
    let (owner, token) = (r.owner.clone(), r.token.clone());
    owner.put("/api/v1/me/notifications", &json!({ "delay_secs": 0, "reminder_percent": 0 })).await;
    let (sub, _) = crate::push::subscribed(&owner, &push, &[]).await;
    let db = sqlx::PgPool::connect(&r._db.url()).await.unwrap();
    let presence_rows =
        async || -> i64 { sqlx::query_scalar("SELECT COUNT(*) FROM presence").fetch_one(&db).await.unwrap() };
    let deploy = |service| {
        let agent = crate::mcp_support::Agent::modern_at(&r.bases[0], "acme", &token, "demo");
        crate::mcp_support::deploy_in_background(agent, service, "staging")
    };

    let mut on_b = crate::mcp_support::Dashboard::open_at(&r.bases[1], &token).await;
    crate::notifications::eventually("replica B's presence row", async || {
        (presence_rows().await == 1).then_some(())
    })
    .await;
    let watched = deploy("api");
    let first = on_b.next_of("elicitation.created").await;
    on_b.respond(&first["id"], "decline", None).await;
    assert_eq!(watched.await.unwrap(), "Deployment declined by the user");

    on_b.send(json!({ "type": "presence", "visible": false })).await;
    crate::notifications::eventually("replica B's presence row gone", async || {
        (presence_rows().await == 0).then_some(())
    })
    .await;
    let unwatched = deploy("web");
    let second = on_b.next_of("elicitation.created").await;
    let messages = push.await_messages(&sub, 1).await;
    assert_eq!(messages[0]["message"]["question"], second["id"], "only the unwatched question: {messages:?}");
    on_b.respond(&second["id"], "decline", None).await;
    assert_eq!(unwatched.await.unwrap(), "Deployment declined by the user");
    for child in &mut r.children {
        child.kill().await.unwrap();
    }
}

/// A legacy agent's session minted by replica A is served by replica B (no
/// sticky sessions): calls, a cancellation of a call running on A sent to B,
/// and a DELETE on B that ends the session on A too.
#[tokio::test]
async fn a_legacy_session_minted_on_one_replica_is_served_by_another() {
    let Some(mut r) = two_replicas("a_legacy_session_minted_on_one_replica_is_served_by_another", 0).await
    else {
        return;
    };
    let token = r.token.clone();
    let mut dashboard = crate::mcp_support::Dashboard::open_at(&r.bases[0], &token).await;
    let on_a = crate::mcp_support::Agent::legacy_at(&r.bases[0], "acme", &token, "demo").await;
    let on_b = on_a.at(&r.bases[1], &token);

    // A call through B, answered on a dashboard of A.
    let call = tokio::spawn({
        let on_b = on_b.clone();
        async move { on_b.call(1, "deploy", json!({ "service": "api", "environment": "staging" })).await }
    });
    let created = dashboard.next_of("elicitation.created").await;
    assert_eq!(
        dashboard.respond(&created["id"], "accept", Some(json!({ "confirm": true }))).await["type"],
        "ack"
    );
    assert_eq!(crate::mcp_support::text(&call.await.unwrap()), "Deployed api to staging");

    // A call running on A, cancelled by a notification sent to B.
    let running = tokio::spawn({
        let on_a = on_a.clone();
        async move {
            on_a.try_request(
                7,
                "tools/call",
                json!({ "name": "deploy", "arguments": { "service": "db", "environment": "production" } }),
            )
            .await
        }
    });
    let created = dashboard.next_of("elicitation.created").await;
    on_b.notify("notifications/cancelled", json!({ "requestId": 7, "reason": "changed my mind" })).await;
    let ended = dashboard.next_of("elicitation.resolved").await;
    assert_eq!(ended["id"], created["id"]);
    assert_eq!(ended["decided_by"], "caller", "{ended}");
    running.abort();

    // DELETE on B ends the session on A as well: B tells A before answering,
    // and replicas hear each other's events in order, so once a question
    // asked through B has reached the dashboard on A, so has the ending.
    assert!(on_b.end_session().await);
    let modern_on_b = crate::mcp_support::Agent::modern_at(&r.bases[1], "acme", &token, "demo");
    let asking = tokio::spawn(async move {
        modern_on_b.call(9, "deploy", json!({ "service": "later", "environment": "staging" })).await
    });
    dashboard.next_of("elicitation.created").await;
    let after =
        on_a.try_request(8, "tools/call", json!({ "name": "echo", "arguments": { "text": "x" } })).await;
    assert!(matches!(after, Err(herald_mcp::transport::TransportError::SessionExpired)), "{after:?}");
    asking.abort();
    for child in &mut r.children {
        child.kill().await.unwrap();
    }
}

/// A token revoked through replica A is refused by replica B on the next
/// request, although B had just cached it (its cache would keep it for 5 s):
/// A tells B before answering the revocation.
#[tokio::test]
async fn a_token_revoked_on_one_replica_is_refused_by_another_at_once() {
    let Some(mut r) = two_replicas("a_token_revoked_on_one_replica_is_refused_by_another_at_once", 0).await
    else {
        return;
    };
    let created = r.owner.post("/api/v1/orgs/acme/tokens", &json!({ "name": "doomed" })).await;
    let created = body(created).await;
    let doomed = created["secret"].as_str().unwrap().to_owned();
    let through_b = crate::mcp_support::Agent::modern_at(&r.bases[1], "acme", &doomed, "demo");
    let echoed = through_b.call(1, "echo", json!({ "text": "cached on B" })).await;
    assert_eq!(crate::mcp_support::text(&echoed), "cached on B");

    let revoked =
        r.owner.delete(&format!("/api/v1/orgs/acme/tokens/{}", created["id"].as_str().unwrap())).await;
    assert_eq!(revoked.status(), StatusCode::NO_CONTENT);

    // Replicas hear each other's events in order: once a question asked
    // through A has reached a dashboard on B, so has the revocation.
    let mut on_b = crate::mcp_support::Dashboard::open_at(&r.bases[1], &r.token).await;
    let through_a = crate::mcp_support::Agent::modern_at(&r.bases[0], "acme", &r.token, "demo");
    let asking = tokio::spawn(async move {
        through_a.call(2, "deploy", json!({ "service": "later", "environment": "staging" })).await
    });
    on_b.next_of("elicitation.created").await;
    let refused =
        through_b.try_request(3, "tools/call", json!({ "name": "echo", "arguments": { "text": "x" } })).await;
    assert!(
        matches!(refused, Err(herald_mcp::transport::TransportError::Status { status: 401, .. })),
        "{refused:?}"
    );
    asking.abort();
    for child in &mut r.children {
        child.kill().await.unwrap();
    }
}

/// A database that is not up yet is waited for, with a clear log line.
#[tokio::test]
async fn an_unreachable_database_at_start_is_retried() {
    let cwd = temp_dir();
    let mut child =
        herald(&cwd).env("HERALD_DATABASE_URL", "postgres://postgres@127.0.0.1:1/herald").spawn().unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let retrying = tokio::time::timeout(crate::mcp_support::PATIENCE, async {
        while let Some(line) = lines.next_line().await.unwrap() {
            let entry: Value = serde_json::from_str(&line).unwrap();
            if entry["message"] == "the database is unreachable; retrying" {
                return entry;
            }
        }
        panic!("herald exited instead of retrying");
    })
    .await
    .expect("a retry is logged");
    assert_eq!(retrying["level"], "WARN");
    assert!(child.try_wait().unwrap().is_none(), "still waiting for the database");
    child.kill().await.unwrap();
    let _ = std::fs::remove_dir_all(cwd);
}

/// kill -9 of the replica holding a suspended call: another replica ends its
/// question (`interrupted`) within seconds and every dashboard and webhook is told.
#[tokio::test]
async fn a_dead_replicas_questions_are_ended_by_another() {
    let Some(mut r) = two_replicas("a_dead_replicas_questions_are_ended_by_another", 1).await else { return };
    let token = r.token.clone();
    let mut receiver = crate::notifications::Receiver::start().await;
    let (_, secret) = crate::notifications::add_webhook(&r.owner, &receiver.url).await;
    let mut on_b = crate::mcp_support::Dashboard::open_at(&r.bases[1], &token).await;
    let agent = crate::mcp_support::Agent::modern_at(&r.bases[0], "acme", &token, "demo");
    let _call = tokio::spawn(async move {
        agent.call(1, "deploy", json!({ "service": "api", "environment": "staging" })).await
    });
    let created = on_b.next_of("elicitation.created").await;
    r.children[0].start_kill().unwrap(); // SIGKILL: no chance to clean up
    r.children[0].wait().await.unwrap();
    // Heartbeats stop; within the replica timeout (15 s) plus a sweep, B ends it.
    let resolved = on_b.next_within(std::time::Duration::from_secs(45)).await;
    assert_eq!(resolved["type"], "elicitation.resolved", "another replica ends the dead one's question");
    assert_eq!(resolved["id"], created["id"]);
    assert_eq!(
        (resolved["decided_by"].clone(), resolved["reason"].clone()),
        (json!("system"), json!("interrupted"))
    );
    // Nobody follows the question any more, yet the webhooks hear how it ended, from B.
    let ended = receiver.next_of(&secret, "question.ended").await;
    assert_eq!(ended["question"]["id"], created["id"]);
    assert_eq!(ended["ending"]["decided_by"], "system");
    assert_eq!(ended["ending"]["reason"], "interrupted");
    for child in &mut r.children {
        let _ = child.kill().await;
    }
}

/// Two `herald` processes on one fresh PostgreSQL database (sharing one
/// instance key), the demo server registered as `demo` in org acme through
/// replica `setup_on`, its owner signed in there, and an agent token.
/// `None` on SQLite, where a second process cannot start (tested above).
struct Replicas {
    bases: Vec<String>,
    owner: crate::support::Session,
    token: String,
    children: Vec<Child>,
    _demo: herald_demo_server::DemoServerHandle,
    _db: TestDb,
}

/// The owner `bootstrap` created, signed in at the Herald at `base`, with
/// `upstream` registered as `demo` and a new agent token.
pub(crate) async fn bootstrapped_owner(base: &str, upstream: &str) -> (crate::support::Session, String) {
    let owner = crate::support::Session {
        base: base.to_owned(),
        http: reqwest::Client::builder().cookie_store(true).build().unwrap(),
        bearer: None,
    };
    let login = owner
        .post("/api/v1/auth/login", &json!({ "email": "owner@example.com", "password": PASSWORD }))
        .await;
    assert_eq!(login.status(), StatusCode::OK);
    crate::mcp_support::register(&owner, "demo", "Demo Server", upstream).await;
    let token =
        body(owner.post("/api/v1/orgs/acme/tokens", &json!({ "name": "agent" })).await).await["secret"]
            .as_str()
            .unwrap()
            .to_owned();
    (owner, token)
}

async fn two_replicas(test: &str, setup_on: usize) -> Option<Replicas> {
    let db = TestDb::create().await;
    if !matches!(db, TestDb::Postgres { .. }) {
        eprintln!("{test}: needs HERALD_TEST_DATABASE_URL (PostgreSQL)");
        return None;
    }
    let created = bootstrap(&db, "acme", "owner@example.com", PASSWORD).await;
    assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
    let (mut bases, mut children) = (Vec::new(), Vec::new());
    for _ in 0..2 {
        let mut child = herald(&temp_dir())
            .env("HERALD_DATABASE_URL", db.url())
            .env("HERALD_SECRET_KEY", "two-replicas-share-this-secret-key-0123456789")
            .spawn()
            .unwrap();
        let (listen, _) = serving(&mut child).await;
        bases.push(format!("http://{listen}"));
        children.push(child);
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let demo = herald_demo_server::spawn(listener, herald_demo_server::Options::default()).unwrap();
    let (owner, token) = bootstrapped_owner(&bases[setup_on], &demo.url()).await;
    Some(Replicas { bases, owner, token, children, _demo: demo, _db: db })
}
