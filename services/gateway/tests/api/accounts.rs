//! First-run setup, sign-in and sign-out, sessions and password changes.

use herald_gateway::api::session;
use reqwest::StatusCode;
use serde_json::json;

use crate::support::{PASSWORD, TestApp, body, fields, problem};

#[tokio::test]
async fn setup_creates_the_first_org_and_owner_once() {
    let app = TestApp::spawn().await;
    let anon = app.browser();
    assert_eq!(body(anon.get("/api/v1/setup").await).await, json!({ "required": true }));

    let owner = app.owner().await;
    let me = body(owner.get("/api/v1/me").await).await;
    assert_eq!(me["user"]["email"], "owner@example.com");
    assert_eq!(
        me["memberships"],
        json!([{ "org": { "slug": "acme", "name": "Acme", "created_at": me["memberships"][0]["org"]["created_at"] }, "role": "owner" }])
    );
    assert_eq!(body(anon.get("/api/v1/setup").await).await, json!({ "required": false }));

    // The link is single-use.
    let again = anon
        .post(
            "/api/v1/setup",
            &json!({ "token": app.setup_token(), "org_slug": "other", "org_name": "Other",
                     "email": "eve@example.com", "name": "Eve", "password": PASSWORD }),
        )
        .await;
    problem(again, StatusCode::GONE, "setup-unavailable").await;
    let login =
        anon.post("/api/v1/auth/login", &json!({ "email": "eve@example.com", "password": PASSWORD })).await;
    problem(login, StatusCode::UNAUTHORIZED, "invalid-credentials").await;
}

#[tokio::test]
async fn setup_with_a_wrong_token_or_bad_fields_changes_nothing() {
    let app = TestApp::spawn().await;
    let anon = app.browser();
    let wrong = anon
        .post(
            "/api/v1/setup",
            &json!({ "token": "not-the-token", "org_slug": "acme", "org_name": "Acme",
                     "email": "owner@example.com", "name": "Olive", "password": PASSWORD }),
        )
        .await;
    problem(wrong, StatusCode::GONE, "setup-unavailable").await;

    let invalid = anon
        .post(
            "/api/v1/setup",
            &json!({ "token": app.setup_token(), "org_slug": "Acme Corp", "org_name": "",
                     "email": "owner", "name": "Olive", "password": "short" }),
        )
        .await;
    let p = problem(invalid, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    assert_eq!(fields(&p), ["org_slug", "org_name", "email", "password"]);
    assert_eq!(body(anon.get("/api/v1/setup").await).await, json!({ "required": true }));
    // The real token still works afterwards.
    app.owner().await;
}

#[tokio::test]
async fn login_sets_a_strict_http_only_cookie_and_logout_ends_the_session() {
    let app = TestApp::spawn().await;
    app.owner().await;
    let browser = app.browser();
    let response = browser
        .post("/api/v1/auth/login", &json!({ "email": "OWNER@example.com ", "password": PASSWORD }))
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let cookie = response.headers()["set-cookie"].to_str().unwrap().to_owned();
    assert!(cookie.starts_with("herald_session="), "{cookie}");
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(cookie.contains(attribute), "{cookie} lacks {attribute}");
    }
    assert!(!cookie.contains("Secure"), "http public URL: no Secure flag");
    let account = body(response).await;
    assert_eq!(account["memberships"][0]["role"], "owner");

    // Keep the raw cookie to replay it after logout.
    let jwt = cookie.split(';').next().unwrap().to_owned();
    assert_eq!(browser.get("/api/v1/me").await.status(), StatusCode::OK);
    assert_eq!(browser.post("/api/v1/auth/logout", &json!({})).await.status(), StatusCode::NO_CONTENT);
    problem(browser.get("/api/v1/me").await, StatusCode::UNAUTHORIZED, "unauthenticated").await;
    let replay =
        reqwest::Client::new().get(app.url("/api/v1/me")).header("cookie", jwt).send().await.unwrap();
    problem(replay, StatusCode::UNAUTHORIZED, "unauthenticated").await;
}

#[tokio::test]
async fn wrong_passwords_and_unknown_emails_get_the_same_answer() {
    let app = TestApp::spawn().await;
    app.owner().await;
    let anon = app.browser();
    for (email, password) in [
        ("owner@example.com", "wrong password here"),
        ("nobody@example.com", PASSWORD),
        ("not-an-email", PASSWORD),
        ("owner@example.com", ""),
    ] {
        let response =
            anon.post("/api/v1/auth/login", &json!({ "email": email, "password": password })).await;
        let p = problem(response, StatusCode::UNAUTHORIZED, "invalid-credentials").await;
        assert_eq!(p["detail"], "the email or password is wrong");
    }
}

#[tokio::test]
async fn password_change_ends_other_sessions_and_keeps_this_one() {
    let app = TestApp::spawn().await;
    let first = app.owner().await;
    let second = app.browser();
    let login = second
        .post("/api/v1/auth/login", &json!({ "email": "owner@example.com", "password": PASSWORD }))
        .await;
    assert_eq!(login.status(), StatusCode::OK);

    let weak = first
        .post(
            "/api/v1/auth/password",
            &json!({ "current_password": PASSWORD, "new_password": "password123" }),
        )
        .await;
    assert_eq!(
        fields(&problem(weak, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await),
        ["new_password"]
    );
    let wrong = first
        .post(
            "/api/v1/auth/password",
            &json!({ "current_password": "not it at all", "new_password": "a new long passphrase" }),
        )
        .await;
    assert_eq!(
        fields(&problem(wrong, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await),
        ["current_password"]
    );
    assert_eq!(second.get("/api/v1/me").await.status(), StatusCode::OK, "failed attempts change nothing");

    let changed = first
        .post(
            "/api/v1/auth/password",
            &json!({ "current_password": PASSWORD, "new_password": "a new long passphrase" }),
        )
        .await;
    assert_eq!(changed.status(), StatusCode::NO_CONTENT);
    assert_eq!(first.get("/api/v1/me").await.status(), StatusCode::OK);
    problem(second.get("/api/v1/me").await, StatusCode::UNAUTHORIZED, "unauthenticated").await;

    let anon = app.browser();
    let old =
        anon.post("/api/v1/auth/login", &json!({ "email": "owner@example.com", "password": PASSWORD })).await;
    problem(old, StatusCode::UNAUTHORIZED, "invalid-credentials").await;
    let new = anon
        .post(
            "/api/v1/auth/login",
            &json!({ "email": "owner@example.com", "password": "a new long passphrase" }),
        )
        .await;
    assert_eq!(new.status(), StatusCode::OK);
}

#[tokio::test]
async fn expired_or_forged_session_cookies_are_refused() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let me = body(owner.get("/api/v1/me").await).await;
    let user_id = me["user"]["id"].as_str().unwrap().parse().unwrap();
    let now = time::OffsetDateTime::now_utc();
    let session_id =
        app.state.store.create_session(user_id, now, now + time::Duration::hours(1)).await.unwrap();

    let valid = session::issue(&app.state, user_id, session_id, now, now + time::Duration::hours(1));
    let expired = session::issue(
        &app.state,
        user_id,
        session_id,
        now - time::Duration::hours(2),
        now - time::Duration::hours(1),
    );
    let client = reqwest::Client::new();
    let with =
        |jwt: &str| client.get(app.url("/api/v1/me")).header("cookie", format!("herald_session={jwt}"));
    assert_eq!(with(&valid).send().await.unwrap().status(), StatusCode::OK);
    problem(with(&expired).send().await.unwrap(), StatusCode::UNAUTHORIZED, "unauthenticated").await;
    let mut tampered = valid.clone();
    tampered.pop();
    tampered.push(if valid.ends_with('A') { 'B' } else { 'A' });
    problem(with(&tampered).send().await.unwrap(), StatusCode::UNAUTHORIZED, "unauthenticated").await;

    // A session row past its own expiry is refused even with a fresh JWT.
    let short = app
        .state
        .store
        .create_session(user_id, now - time::Duration::hours(2), now - time::Duration::seconds(1))
        .await
        .unwrap();
    let fresh_jwt = session::issue(&app.state, user_id, short, now, now + time::Duration::hours(1));
    problem(with(&fresh_jwt).send().await.unwrap(), StatusCode::UNAUTHORIZED, "unauthenticated").await;
}

#[tokio::test]
async fn signed_in_people_can_start_organisations() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let created = owner.post("/api/v1/orgs", &json!({ "slug": "skunkworks", "name": "Skunk Works" })).await;
    assert_eq!(created.status(), StatusCode::CREATED);
    assert_eq!(body(created).await["role"], "owner");
    let taken = owner.post("/api/v1/orgs", &json!({ "slug": "acme", "name": "Another Acme" })).await;
    problem(taken, StatusCode::CONFLICT, "org-slug-taken").await;
    let odd = owner.post("/api/v1/orgs", &json!({ "slug": "../x", "name": "x" })).await;
    assert_eq!(fields(&problem(odd, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await), ["slug"]);
    let slugs: Vec<_> = body(owner.get("/api/v1/me").await).await["memberships"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["org"]["slug"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(slugs, ["acme", "skunkworks"]);
}

#[tokio::test]
async fn cross_site_writes_are_refused_and_same_origin_ones_pass() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let create = |origin: Option<&str>, site: Option<&str>| {
        let mut request = owner
            .request(reqwest::Method::POST, "/api/v1/orgs/acme/tokens")
            .json(&json!({ "name": format!("t-{origin:?}-{site:?}") }));
        if let Some(origin) = origin {
            request = request.header("origin", origin);
        }
        if let Some(site) = site {
            request = request.header("sec-fetch-site", site);
        }
        request.send()
    };
    for (origin, site) in [
        (Some("https://evil.example"), None),
        (Some("null"), None),
        (Some("http://127.0.0.1:1"), Some("same-site")),
        (None, Some("cross-site")),
        (None, Some("same-site")),
    ] {
        let response = create(origin, site).await.unwrap();
        problem(response, StatusCode::FORBIDDEN, "cross-site-request").await;
    }
    assert_eq!(
        body(owner.get("/api/v1/orgs/acme/tokens").await).await["tokens"],
        json!([]),
        "nothing was created"
    );
    assert_eq!(create(Some(&app.base), Some("same-origin")).await.unwrap().status(), StatusCode::CREATED);
    assert_eq!(create(None, None).await.unwrap().status(), StatusCode::CREATED);
    // Reads are never refused, and neither are bearer-token writes.
    let read = owner.request(reqwest::Method::GET, "/api/v1/me").header("origin", "https://evil.example");
    assert_eq!(read.send().await.unwrap().status(), StatusCode::OK);
    let token = app.token(&owner, "acme", "agent").await;
    let agent = app.agent(&token);
    let write = agent
        .request(reqwest::Method::POST, "/api/v1/orgs/acme/servers")
        .header("origin", "https://evil.example")
        .json(&json!({ "slug": "from-agent", "name": "A", "url": "https://a.example/mcp" }));
    assert_eq!(write.send().await.unwrap().status(), StatusCode::CREATED);
}

#[tokio::test]
async fn every_announced_setup_link_works_until_one_completes_setup() {
    let app = TestApp::spawn().await;
    // A second replica (or a restart) announces a link of its own.
    let second = herald_gateway::app::announce_setup_link(&app.state).await.unwrap().unwrap();
    let second = second.split_once("#token=").unwrap().1.to_owned();
    assert_ne!(second, app.setup_token());
    let owner = app.browser();
    let done = owner
        .post(
            "/api/v1/setup",
            &json!({ "token": second, "org_slug": "acme", "org_name": "Acme",
                     "email": "owner@example.com", "name": "Olive", "password": PASSWORD }),
        )
        .await;
    assert_eq!(done.status(), StatusCode::CREATED);
    let first = app
        .browser()
        .post(
            "/api/v1/setup",
            &json!({ "token": app.setup_token(), "org_slug": "other", "org_name": "Other",
                     "email": "eve@example.com", "name": "Eve", "password": PASSWORD }),
        )
        .await;
    problem(first, StatusCode::GONE, "setup-unavailable").await;
    assert!(herald_gateway::app::announce_setup_link(&app.state).await.unwrap().is_none());
}

/// `GET /api/v1/session` answers 200 whether or not the caller is signed in (the dashboard asks
/// it first, so a signed-out visit logs no failed request), and follows the session's life.
#[tokio::test]
async fn the_session_probe_says_whether_a_sign_in_is_live_without_an_error_status() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let anon = app.browser();
    let signed_out = anon.get("/api/v1/session").await;
    assert_eq!(signed_out.status(), StatusCode::OK);
    assert_eq!(signed_out.headers()["cache-control"], "no-store");
    assert_eq!(body(signed_out).await, json!({ "signed_in": false }));
    // A cookie that does not verify is no sign-in either.
    let forged = reqwest::Client::new()
        .get(app.url("/api/v1/session"))
        .header("cookie", "herald_session=not.a.jwt")
        .send()
        .await
        .unwrap();
    assert_eq!(body(forged).await, json!({ "signed_in": false }));
    // A token is not a dashboard sign-in.
    let token = app.token(&owner, "acme", "probe").await;
    assert_eq!(body(app.agent(&token).get("/api/v1/session").await).await, json!({ "signed_in": false }));

    let browser = app.sign_in("owner@example.com").await;
    assert_eq!(body(browser.get("/api/v1/session").await).await, json!({ "signed_in": true }));
    assert_eq!(browser.post("/api/v1/auth/logout", &json!({})).await.status(), StatusCode::NO_CONTENT);
    assert_eq!(body(browser.get("/api/v1/session").await).await, json!({ "signed_in": false }));
    // The owner's other session is untouched.
    assert_eq!(body(owner.get("/api/v1/session").await).await, json!({ "signed_in": true }));
}
