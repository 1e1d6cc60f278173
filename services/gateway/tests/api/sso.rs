//! Signing in to the dashboard through an identity provider, against a real
//! OpenID Provider nobody here wrote: `oidc-provider` from npm (certified), run
//! by tests/peers/oidc/provider.mjs. The browser is a cookie-keeping client that
//! follows each redirect by hand, so every hop can be looked at or tampered with.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{PASSWORD, Session, TestApp, TestDb, body, problem};

const IGNORE: &str = "needs oidc-provider: run tests/peers/install.sh, then cargo test -- --include-ignored";
const CLIENT_ID: &str = "herald-dashboard";
const CLIENT_SECRET: &str = "a-client-secret-for-the-tests-only";

/// tests/peers/oidc/provider.mjs on a free port.
pub(crate) struct Idp {
    pub issuer: String,
    _child: tokio::process::Child,
}

impl Idp {
    pub(crate) async fn start(config: Value) -> Self {
        Self::start_with_env(config, &[]).await
    }

    /// With environment variables for the provider's process (`NODE_EXTRA_CA_CERTS`).
    pub(crate) async fn start_with_env(config: Value, env: &[(&str, String)]) -> Self {
        use tokio::io::AsyncBufReadExt;
        let node = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/peers/node/node_modules/.bin/node");
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/peers/oidc/provider.mjs");
        assert!(std::path::Path::new(node).exists(), "{IGNORE}");
        let mut child = tokio::process::Command::new(node)
            .arg(script)
            .env("OIDC_CONFIG", config.to_string())
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the provider starts");
        let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
        let line = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
            .await
            .expect("the provider says where it listens")
            .unwrap()
            .expect("a line");
        let port = line.strip_prefix("listening ").expect("listening <port>").trim().to_owned();
        // The rest of its output is not read; keep the pipe drained so it never blocks.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        Idp { issuer: format!("http://127.0.0.1:{port}"), _child: child }
    }

    pub(crate) async fn control(&self, path: &str, body: Value) -> Value {
        let response =
            reqwest::Client::new().post(format!("{}{path}", self.issuer)).json(&body).send().await.unwrap();
        assert!(response.status().is_success(), "{path}: {}", response.status());
        response.json().await.unwrap_or(Value::Null)
    }
}

fn account(sub: &str, email: &str, groups: &[&str]) -> Value {
    json!({ "sub": sub, "email": email, "email_verified": true, "name": format!("{sub} Example"), "groups": groups })
}

/// Herald with the instance provider set, on `acme` (whose owner is `owner@example.com`), and
/// the provider knowing Herald's redirect URI and these `accounts`.
async fn herald_with_idp(
    accounts: Vec<Value>,
    adjust: impl FnOnce(&mut herald_gateway::config::RawSettings),
) -> (TestApp, Idp, Session) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let idp = Idp::start(json!({
        "clients": [{
            "client_id": CLIENT_ID,
            "client_secret": CLIENT_SECRET,
            "redirect_uris": [format!("{base}/auth/sso/callback")],
        }],
        "accounts": accounts,
    }))
    .await;
    let issuer = idp.issuer.clone();
    let app = TestApp::spawn_listening(
        listener,
        TestDb::create().await,
        |s| {
            s.sign_in.oidc_issuer = Some(issuer);
            s.sign_in.oidc_client_id = Some(CLIENT_ID.into());
            s.sign_in.oidc_client_secret = Some(CLIENT_SECRET.into());
            s.sign_in.oidc_name = Some("Acme ID".into());
            s.sign_in.oidc_org = Some("acme".into());
            s.sign_in.oidc_domains = Some("example.com".into());
            adjust(s);
        },
        |_| {},
    )
    .await;
    let owner = app.owner().await;
    (app, idp, owner)
}

/// A browser that keeps cookies and follows nothing by itself.
pub(crate) fn browser(app: &TestApp) -> Session {
    Session {
        base: app.base.clone(),
        http: reqwest::Client::builder()
            .cookie_store(true)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap(),
        bearer: None,
    }
}

pub(crate) fn location(response: &reqwest::Response) -> String {
    assert_eq!(response.status(), StatusCode::SEE_OTHER, "a redirect from {}", response.url());
    response.headers()["location"].to_str().unwrap().to_owned()
}

fn absolute(base: &reqwest::Url, location: &str) -> String {
    base.join(location).unwrap().to_string()
}

/// Starts a sign-in: the provider's authorization URL Herald sends the browser to.
async fn start(browser: &Session) -> String {
    let response = browser.get("/auth/sso/instance/start?return_to=/history").await;
    location(&response)
}

/// At the provider, as `sub`: follows its redirects to its sign-in form, fills it (its action,
/// its hidden fields, `login=sub`, plus `extra`), and follows on until the browser is sent back
/// to Herald. Returns Herald's URL (not yet opened).
pub(crate) async fn at_the_provider_with(
    app: &TestApp,
    browser: &Session,
    authorize_url: &str,
    sub: &str,
    extra: &[(&str, &str)],
) -> String {
    at_the_provider_until(&app.base, browser, authorize_url, sub, extra).await
}

/// As [`at_the_provider_with`], until the browser is sent to `home` (Herald as the browser
/// reaches it: its listener, or a front on https).
pub(crate) async fn at_the_provider_until(
    home: &str,
    browser: &Session,
    authorize_url: &str,
    sub: &str,
    extra: &[(&str, &str)],
) -> String {
    let mut url = authorize_url.to_owned();
    let mut signed_in = false;
    for _ in 0..10 {
        if url.starts_with(home) {
            return url;
        }
        let response = browser.http.get(&url).send().await.unwrap();
        let here = response.url().clone();
        if response.status().is_redirection() {
            url = absolute(&here, response.headers()["location"].to_str().unwrap());
            continue;
        }
        assert_eq!(response.status(), StatusCode::OK, "at {url}");
        let page = response.text().await.unwrap();
        assert!(!signed_in, "the provider showed its form twice: {page}");
        let attribute = |tag: &str, name: &str| -> Option<String> {
            let start = tag.find(&format!("{name}=\""))? + name.len() + 2;
            Some(tag[start..].split('"').next()?.to_owned())
        };
        let form_tag = page.split("<form").nth(1).expect("a sign-in form");
        let action =
            attribute(form_tag.split('>').next().unwrap(), "action").unwrap_or_else(|| here.to_string());
        let mut fields = url::form_urlencoded::Serializer::new(String::new());
        for input in page.split("<input").skip(1).map(|t| t.split('>').next().unwrap()) {
            if input.contains("type=\"hidden\"")
                && let (Some(name), Some(value)) = (attribute(input, "name"), attribute(input, "value"))
            {
                fields.append_pair(&name, &value);
            }
        }
        fields.append_pair("login", sub);
        for (k, v) in extra {
            fields.append_pair(k, v);
        }
        let form = absolute(&here, &action);
        let posted = browser
            .http
            .post(&form)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(fields.finish())
            .send()
            .await
            .unwrap();
        assert!(posted.status().is_redirection(), "login at {form}: {}", posted.status());
        url = absolute(&posted.url().clone(), posted.headers()["location"].to_str().unwrap());
        signed_in = true;
    }
    panic!("the provider never sent the browser back to Herald");
}

async fn at_the_provider(app: &TestApp, browser: &Session, authorize_url: &str, sub: &str) -> String {
    at_the_provider_with(app, browser, authorize_url, sub, &[]).await
}

/// The whole dance; returns where Herald sent the browser in the end.
async fn sign_in_as(app: &TestApp, browser: &Session, sub: &str) -> String {
    let authorize = start(browser).await;
    let callback = at_the_provider(app, browser, &authorize, sub).await;
    location(&browser.http.get(&callback).send().await.unwrap())
}

pub(crate) fn sso_error(location: &str) -> (String, String) {
    let url = reqwest::Url::parse("http://x").unwrap().join(location).unwrap();
    assert_eq!(url.path(), "/login", "a failed sign-in lands on the sign-in page: {location}");
    let get = |k: &str| {
        url.query_pairs().find(|(key, _)| key == k).map(|(_, v)| v.into_owned()).unwrap_or_default()
    };
    (get("sso_error"), get("sso_detail"))
}

pub(crate) async fn me(browser: &Session) -> Value {
    let response = browser.get("/api/v1/me").await;
    assert_eq!(response.status(), StatusCode::OK);
    body(response).await
}

pub(crate) async fn audit_actions(owner: &Session) -> Vec<String> {
    let log = body(owner.get("/api/v1/orgs/acme/audit").await).await;
    log["entries"].as_array().unwrap().iter().map(|e| e["action"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
#[ignore = "needs oidc-provider: run tests/peers/install.sh, then cargo test -- --include-ignored"]
async fn a_person_signs_in_through_the_provider_joins_the_organisation_and_is_the_same_person_next_time() {
    let (app, _idp, owner) = herald_with_idp(vec![account("ada", "Ada@Example.com", &[])], |_| {}).await;
    let options = body(app.browser().get("/api/v1/auth/sign-in-options").await).await;
    assert_eq!(options["password"], true);
    assert_eq!(options["providers"][0]["name"], "Acme ID");
    assert_eq!(options["providers"][0]["start"], "/auth/sso/instance/start");

    let ada = browser(&app);
    assert_eq!(sign_in_as(&app, &ada, "ada").await, "/history", "back where the sign-in started");
    let account = me(&ada).await;
    assert_eq!(account["user"]["email"], "ada@example.com");
    assert_eq!(account["user"]["name"], "ada Example");
    assert_eq!(account["memberships"][0]["org"]["slug"], "acme");
    assert_eq!(account["memberships"][0]["role"], "member");
    assert!(audit_actions(&owner).await.contains(&"member.joined".to_owned()));

    // Again, in another browser: the same account, still one membership.
    let again = browser(&app);
    sign_in_as(&app, &again, "ada").await;
    assert_eq!(me(&again).await["user"]["id"], account["user"]["id"]);
    let members = body(owner.get("/api/v1/orgs/acme/members").await).await;
    assert_eq!(members["members"].as_array().unwrap().len(), 2, "{members}");
    // The account has no password to guess.
    let login = app
        .browser()
        .post("/api/v1/auth/login", &json!({ "email": "ada@example.com", "password": "" }))
        .await;
    assert_eq!(login.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
#[ignore = "needs oidc-provider: run tests/peers/install.sh, then cargo test -- --include-ignored"]
async fn the_groups_claim_decides_the_role_at_every_sign_in() {
    let (app, idp, owner) =
        herald_with_idp(vec![account("grace", "grace@example.com", &["herald-admins"])], |s| {
            s.sign_in.oidc_groups_claim = Some("groups".into());
            s.sign_in.oidc_role_map = Some("herald-admins=admin".into());
        })
        .await;
    let grace = browser(&app);
    sign_in_as(&app, &grace, "grace").await;
    assert_eq!(me(&grace).await["memberships"][0]["role"], "admin");

    idp.control("/_test/accounts", account("grace", "grace@example.com", &["engineering"])).await;
    let later = browser(&app);
    sign_in_as(&app, &later, "grace").await;
    assert_eq!(me(&later).await["memberships"][0]["role"], "member", "no mapped group: the default role");
    let log = body(owner.get("/api/v1/orgs/acme/audit?action=member.role_changed").await).await;
    let entry = &log["entries"][0];
    assert_eq!(entry["changes"][0]["before"], "admin", "{log}");
    assert_eq!(entry["changes"][0]["after"], "member");
}

#[tokio::test]
#[ignore = "needs oidc-provider: run tests/peers/install.sh, then cargo test -- --include-ignored"]
async fn people_outside_the_domains_or_without_a_verified_email_are_not_let_in() {
    let mut unverified = account("eve", "eve@example.com", &[]);
    unverified["email_verified"] = json!(false);
    let (app, _idp, owner) =
        herald_with_idp(vec![account("mallory", "mallory@elsewhere.test", &[]), unverified], |_| {}).await;
    let (code, detail) = sso_error(&sign_in_as(&app, &browser(&app), "mallory").await);
    assert_eq!(code, "domain_not_allowed");
    assert!(detail.contains("elsewhere.test"), "{detail}");
    let (code, _) = sso_error(&sign_in_as(&app, &browser(&app), "eve").await);
    assert_eq!(code, "email_unverified");
    let members = body(owner.get("/api/v1/orgs/acme/members").await).await;
    assert_eq!(members["members"].as_array().unwrap().len(), 1, "nobody joined: {members}");
}

#[tokio::test]
#[ignore = "needs oidc-provider: run tests/peers/install.sh, then cargo test -- --include-ignored"]
async fn a_state_is_good_once_and_only_in_the_browser_that_started_it() {
    let (app, _idp, _owner) = herald_with_idp(vec![account("ada", "ada@example.com", &[])], |_| {}).await;
    // Stolen: another browser brings back the answer meant for the first.
    let victim = browser(&app);
    let callback = at_the_provider(&app, &victim, &start(&victim).await, "ada").await;
    let thief = browser(&app);
    let (code, _) = sso_error(&location(&thief.http.get(&callback).send().await.unwrap()));
    assert_eq!(code, "other_browser");
    assert_eq!(thief.get("/api/v1/me").await.status(), StatusCode::UNAUTHORIZED);
    // …and the attempt is spent: the victim starts again rather than being signed in by it.
    let (code, _) = sso_error(&location(&victim.http.get(&callback).send().await.unwrap()));
    assert_eq!(code, "attempt_unknown");

    // Replayed: a good answer, brought back twice.
    let ada = browser(&app);
    let callback = at_the_provider(&app, &ada, &start(&ada).await, "ada").await;
    assert_eq!(location(&ada.http.get(&callback).send().await.unwrap()), "/history");
    let (code, _) = sso_error(&location(&ada.http.get(&callback).send().await.unwrap()));
    assert_eq!(code, "attempt_unknown");

    // Made up.
    let (code, _) = sso_error(&location(&ada.get("/auth/sso/callback?code=x&state=guessed").await));
    assert_eq!(code, "attempt_unknown");
}

#[tokio::test]
#[ignore = "needs oidc-provider: run tests/peers/install.sh, then cargo test -- --include-ignored"]
async fn an_answer_from_another_issuer_or_a_refusal_is_reported_and_signs_nobody_in() {
    let (app, idp, _owner) = herald_with_idp(vec![account("ada", "ada@example.com", &[])], |_| {}).await;
    let ada = browser(&app);
    let callback = at_the_provider(&app, &ada, &start(&ada).await, "ada").await;
    let mut tampered = reqwest::Url::parse(&callback).unwrap();
    let pairs: Vec<(String, String)> = tampered
        .query_pairs()
        .map(|(k, v)| {
            if k == "iss" {
                (k.into_owned(), "https://idp.evil.test".into())
            } else {
                (k.into_owned(), v.into_owned())
            }
        })
        .collect();
    assert!(pairs.iter().any(|(k, _)| k == "iss"), "the provider sends iss (RFC 9207): {callback}");
    tampered.query_pairs_mut().clear().extend_pairs(pairs);
    let (code, detail) = sso_error(&location(&ada.http.get(tampered.as_str()).send().await.unwrap()));
    assert_eq!(code, "wrong_issuer");
    assert!(detail.contains(&idp.issuer), "names the provider Herald trusts: {detail}");
    assert!(!detail.contains("evil"), "shows nothing of the answer: {detail}");
    assert_eq!(ada.get("/api/v1/me").await.status(), StatusCode::UNAUTHORIZED);

    // The person said no at the provider: its reason, in its words, on Herald's page.
    let authorize = reqwest::Url::parse(&start(&ada).await).unwrap();
    let state = authorize.query_pairs().find(|(k, _)| k == "state").unwrap().1.into_owned();
    let refused = format!(
        "/auth/sso/callback?error=access_denied&error_description=End-User+aborted+interaction&state={state}&iss={}",
        idp.issuer
    );
    let (code, detail) = sso_error(&location(&ada.get(&refused).await));
    assert_eq!(code, "refused");
    assert_eq!(detail, "access_denied: End-User aborted interaction");
}

#[tokio::test]
#[ignore = "needs oidc-provider: run tests/peers/install.sh, then cargo test -- --include-ignored"]
async fn an_expired_id_token_is_refused() {
    let (app, idp, owner) = herald_with_idp(vec![account("ada", "ada@example.com", &[])], |_| {}).await;
    // The provider's clock is two hours behind: the ID tokens it issues expired an hour ago.
    idp.control("/_test/clock", json!({ "offset_seconds": -7200 })).await;
    let (code, _) = sso_error(&sign_in_as(&app, &browser(&app), "ada").await);
    assert_eq!(code, "token_expired");
    let members = body(owner.get("/api/v1/orgs/acme/members").await).await;
    assert_eq!(members["members"].as_array().unwrap().len(), 1, "{members}");
}

#[tokio::test]
#[ignore = "needs oidc-provider: run tests/peers/install.sh, then cargo test -- --include-ignored"]
async fn rotated_signing_keys_are_fetched_again() {
    let (app, idp, _owner) = herald_with_idp(vec![account("ada", "ada@example.com", &[])], |_| {}).await;
    sign_in_as(&app, &browser(&app), "ada").await;
    idp.control("/_test/rotate-keys", json!({ "drop_old": true })).await;
    let ada = browser(&app);
    assert_eq!(sign_in_as(&app, &ada, "ada").await, "/history");
    assert_eq!(me(&ada).await["user"]["email"], "ada@example.com");
}

#[tokio::test]
#[ignore = "needs oidc-provider: run tests/peers/install.sh, then cargo test -- --include-ignored"]
async fn a_member_removed_mid_session_loses_the_organisation_and_signing_in_does_not_bring_them_back() {
    let (app, _idp, owner) = herald_with_idp(vec![account("ada", "ada@example.com", &[])], |_| {}).await;
    let ada = browser(&app);
    sign_in_as(&app, &ada, "ada").await;
    let id = me(&ada).await["user"]["id"].as_str().unwrap().to_owned();
    assert_eq!(ada.get("/api/v1/orgs/acme").await.status(), StatusCode::OK);

    assert_eq!(
        owner.delete(&format!("/api/v1/orgs/acme/members/{id}")).await.status(),
        StatusCode::NO_CONTENT
    );
    assert_eq!(ada.get("/api/v1/orgs/acme").await.status(), StatusCode::NOT_FOUND, "at once, mid-session");
    let (code, detail) = sso_error(&sign_in_as(&app, &browser(&app), "ada").await);
    assert_eq!(code, "removed");
    assert!(detail.contains("Acme"), "{detail}");
    let members = body(owner.get("/api/v1/orgs/acme/members").await).await;
    assert_eq!(members["members"].as_array().unwrap().len(), 1, "{members}");
}

#[tokio::test]
#[ignore = "needs oidc-provider: run tests/peers/install.sh, then cargo test -- --include-ignored"]
async fn an_admin_who_signed_in_through_the_provider_can_turn_password_sign_in_off() {
    let (app, _idp, owner) = herald_with_idp(vec![account("olive", "owner@example.com", &[])], |_| {}).await;
    let settings = body(owner.get("/api/v1/orgs/acme/sign-in").await).await;
    assert_eq!(settings["password_sign_in"], true);
    assert_eq!(settings["providers"][0]["name"], "Acme ID");
    assert_eq!(settings["providers"][0]["you_signed_in_with_it"], false);
    let refused = owner.put("/api/v1/orgs/acme/sign-in", &json!({ "password_sign_in": false })).await;
    problem(refused, StatusCode::CONFLICT, "identity-provider-untried").await;

    // The owner signs in through the provider: their password account is linked by its e-mail.
    let through_idp = browser(&app);
    sign_in_as(&app, &through_idp, "olive").await;
    let account = me(&through_idp).await;
    assert_eq!(account["user"]["email"], "owner@example.com");
    assert_eq!(account["memberships"][0]["role"], "owner", "an owner stays an owner");
    let changed = through_idp.put("/api/v1/orgs/acme/sign-in", &json!({ "password_sign_in": false })).await;
    assert_eq!(changed.status(), StatusCode::OK);
    assert_eq!(body(changed).await["password_sign_in"], false);

    let login = app
        .browser()
        .post("/api/v1/auth/login", &json!({ "email": "owner@example.com", "password": PASSWORD }))
        .await;
    let refusal = problem(login, StatusCode::FORBIDDEN, "password-sign-in-off").await;
    assert!(refusal["detail"].as_str().unwrap().contains("Acme"), "{refusal}");
    // A wrong password learns nothing about the organisation.
    let wrong = app
        .browser()
        .post("/api/v1/auth/login", &json!({ "email": "owner@example.com", "password": "wrong" }))
        .await;
    assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
    assert!(audit_actions(&owner).await.contains(&"org.sign_in_changed".to_owned()));
}

#[tokio::test]
async fn a_provider_whose_metadata_names_another_issuer_or_that_never_answers_is_reported() {
    // A discovery document that names someone else as its issuer.
    let liar = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let liar_url = format!("http://{}", liar.local_addr().unwrap());
    let doc = json!({
        "issuer": "https://accounts.example.com",
        "authorization_endpoint": "https://accounts.example.com/auth",
        "token_endpoint": "https://accounts.example.com/token",
        "jwks_uri": "https://accounts.example.com/jwks",
        "response_types_supported": ["code"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
    });
    let router = axum::Router::new().route(
        "/.well-known/openid-configuration",
        axum::routing::get(move || async move { axum::Json(doc) }),
    );
    tokio::spawn(async move { axum::serve(liar, router).await.unwrap() });
    let issuer = liar_url.clone();
    let app = TestApp::spawn_with(|s| {
        s.sign_in.oidc_issuer = Some(issuer);
        s.sign_in.oidc_client_id = Some("c".into());
        s.sign_in.oidc_client_secret = Some("s".into());
        s.sign_in.oidc_org = Some("acme".into());
        s.sign_in.oidc_domains = Some("*".into());
    })
    .await;
    let (code, detail) = sso_error(&location(&browser(&app).get("/auth/sso/instance/start").await));
    assert_eq!(code, "misconfigured");
    assert!(detail.contains("accounts.example.com"), "{detail}");

    // One that accepts the connection and never says a word.
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let silent_url = format!("http://{}", silent.local_addr().unwrap());
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = silent.accept().await {
            held.push(socket);
        }
    });
    let app = TestApp::spawn_with(|s| {
        s.sign_in.oidc_issuer = Some(silent_url);
        s.sign_in.oidc_client_id = Some("c".into());
        s.sign_in.oidc_client_secret = Some("s".into());
        s.sign_in.oidc_org = Some("acme".into());
        s.sign_in.oidc_domains = Some("*".into());
    })
    .await;
    let (code, _) = sso_error(&location(&browser(&app).get("/auth/sso/instance/start").await));
    assert_eq!(code, "unreachable");
    assert_eq!(
        browser(&app).get("/auth/sso/nobody/start").await.headers()["location"],
        "/login?sso_error=no_provider"
    );
}
