//! An organisation's own identity provider, against `oidc-provider` (as in
//! sso.rs): set up by the organisation's owner, its metadata checked before it
//! is kept, and signing people in only for e-mail domains the operator has
//! confirmed with `herald domains confirm` (the real binary, on the test's
//! database): a provider of a tenant's choosing can assert any address.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::cli::herald as herald_binary;
use crate::sso::{Idp, at_the_provider_with, audit_actions, browser, location, me, sso_error};
use crate::support::{Session, TestApp, TestDb, body, fields, problem};

const CLIENT_ID: &str = "acme-herald";
const CLIENT_SECRET: &str = "acme-client-secret-for-the-tests-only";

fn account(sub: &str, email: &str) -> Value {
    json!({ "sub": sub, "email": email, "email_verified": true, "name": format!("{sub} Example"), "groups": [] })
}

/// A provider that knows Herald's redirect URI at `base`.
async fn idp_for(base: &str, accounts: Vec<Value>) -> Idp {
    Idp::start(json!({
        "clients": [{
            "client_id": CLIENT_ID,
            "client_secret": CLIENT_SECRET,
            "redirect_uris": [format!("{base}/auth/sso/callback")],
        }],
        "accounts": accounts,
    }))
    .await
}

/// Herald letting organisations have their own provider, with `acme` set up (owner
/// owner@example.com, by password), and a provider for acme knowing `accounts`.
async fn herald_for_acme(accounts: Vec<Value>) -> (TestApp, Idp, Session) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let idp = idp_for(&base, accounts).await;
    let app = TestApp::spawn_listening(
        listener,
        TestDb::create().await,
        |s| s.sign_in.org_identity_providers = Some("on".into()),
        |_| {},
    )
    .await;
    let owner = app.owner().await;
    (app, idp, owner)
}

fn provider_body(issuer: &str) -> Value {
    json!({ "issuer": issuer, "client_id": CLIENT_ID, "client_secret": CLIENT_SECRET, "name": "Acme Okta" })
}

/// `herald domains …` on the app's database, as an operator runs it.
async fn operator(app: &TestApp, args: &[&str]) -> std::process::Output {
    let cwd = crate::cli::temp_dir();
    let output = herald_binary(&cwd)
        .env("HERALD_DATABASE_URL", app.db.url())
        .arg("domains")
        .args(args)
        .output()
        .await
        .unwrap();
    let _ = std::fs::remove_dir_all(cwd);
    output
}

/// Signs in through acme's provider as `sub`; where Herald sends the browser in the end.
async fn sign_in_as(app: &TestApp, browser: &Session, start: &str, sub: &str) -> String {
    let authorize = location(&browser.get(&format!("{start}?return_to=/history")).await);
    let callback = at_the_provider_with(app, browser, &authorize, sub, &[]).await;
    location(&browser.http.get(&callback).send().await.unwrap())
}

async fn sign_in_settings(owner: &Session) -> Value {
    let response = owner.get("/api/v1/orgs/acme/sign-in").await;
    assert_eq!(response.status(), StatusCode::OK);
    body(response).await
}

async fn offered_for(app: &TestApp, query: &str) -> Vec<String> {
    let options = body(app.browser().get(&format!("/api/v1/auth/sign-in-options?{query}")).await).await;
    options["providers"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
#[ignore = "needs oidc-provider: run tests/peers/install.sh, then cargo test -- --include-ignored"]
async fn an_organisation_signs_its_people_in_through_its_own_provider_once_the_operator_confirmed_their_domain()
 {
    let (app, idp, owner) = herald_for_acme(vec![
        account("ada", "ada@example.com"),
        account("olive", "owner@example.com"),
        account("mallory", "victim@elsewhere.test"),
    ])
    .await;

    // The owner sets the provider up; its secret never comes back.
    let set = owner.put("/api/v1/orgs/acme/sign-in/provider", &provider_body(&idp.issuer)).await;
    assert_eq!(set.status(), StatusCode::OK);
    let text = set.text().await.unwrap();
    assert!(!text.contains(CLIENT_SECRET), "the secret is not shown: {text}");
    let view: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(view["own_provider"]["client_secret_set"], true);
    assert_eq!(view["own_provider"]["name"], "Acme Okta");
    assert!(view["redirect_uri"].as_str().unwrap().ends_with("/auth/sso/callback"));
    let start = view["providers"][0]["start"].as_str().unwrap().to_owned();
    assert!(start.starts_with("/auth/sso/org:"), "{start}");

    // Claimed, not yet confirmed: the provider asserts nothing.
    let claimed = owner.post("/api/v1/orgs/acme/sign-in/domains", &json!({ "domain": "@Example.COM" })).await;
    assert_eq!(claimed.status(), StatusCode::CREATED);
    assert_eq!(body(claimed).await["status"], "awaiting_operator");
    assert_eq!(offered_for(&app, "org=acme").await, vec!["Acme Okta"], "offered by the organisation's slug");
    assert!(offered_for(&app, "email=ada@example.com").await.is_empty(), "not for an unconfirmed domain");
    assert!(offered_for(&app, "").await.is_empty(), "the sign-in page does not list tenants' providers");
    let ada = browser(&app);
    let (code, detail) = sso_error(&sign_in_as(&app, &ada, &start, "ada").await);
    assert_eq!(code, "domain_not_confirmed");
    assert!(detail.contains("example.com") && detail.contains("operator"), "{detail}");
    let members = body(owner.get("/api/v1/orgs/acme/members").await).await;
    assert_eq!(members["members"].as_array().unwrap().len(), 1, "nobody joined: {members}");

    // The operator confirms it.
    let listed = operator(&app, &["list"]).await;
    assert!(String::from_utf8_lossy(&listed.stdout).contains("example.com\tacme\tawaiting"), "{listed:?}");
    let confirmed = operator(&app, &["confirm", "--org", "acme", "example.com"]).await;
    assert!(confirmed.status.success(), "{confirmed:?}");
    assert_eq!(sign_in_settings(&owner).await["domains"][0]["status"], "confirmed");
    assert_eq!(offered_for(&app, "email=Ada@Example.com").await, vec!["Acme Okta"]);

    // Now a newcomer of the domain joins, and the owner's own account is linked by e-mail.
    assert_eq!(sign_in_as(&app, &ada, &start, "ada").await, "/history");
    let account = me(&ada).await;
    assert_eq!(account["user"]["email"], "ada@example.com");
    assert_eq!(account["memberships"][0]["org"]["slug"], "acme");
    assert_eq!(account["memberships"][0]["role"], "member");
    let olive = browser(&app);
    sign_in_as(&app, &olive, &start, "olive").await;
    assert_eq!(me(&olive).await["user"]["email"], "owner@example.com");
    assert_eq!(sign_in_settings(&olive).await["providers"][0]["you_signed_in_with_it"], true);

    // An address outside the confirmed domains is asserted for nothing.
    let mallory = browser(&app);
    let (code, _) = sso_error(&sign_in_as(&app, &mallory, &start, "mallory").await);
    assert_eq!(code, "domain_not_confirmed");

    // With a provider that works for them, the owner may turn passwords off.
    let off = olive.put("/api/v1/orgs/acme/sign-in", &json!({ "password_sign_in": false })).await;
    assert_eq!(off.status(), StatusCode::OK);
    // … and then the provider stays: removing it would leave no way in.
    problem(olive.delete("/api/v1/orgs/acme/sign-in/provider").await, StatusCode::CONFLICT, "last-way-in")
        .await;

    let actions = audit_actions(&owner).await;
    for action in ["org.identity_provider_set", "org.domain_claimed", "org.domain_confirmed", "member.joined"]
    {
        assert!(actions.contains(&action.to_owned()), "{action} in {actions:?}");
    }
}

#[tokio::test]
#[ignore = "needs oidc-provider: run tests/peers/install.sh, then cargo test -- --include-ignored"]
async fn a_new_issuer_forgets_the_old_links_and_a_removed_provider_signs_nobody_in() {
    let (app, idp, owner) = herald_for_acme(vec![account("ada", "ada@example.com")]).await;
    owner.put("/api/v1/orgs/acme/sign-in/provider", &provider_body(&idp.issuer)).await;
    owner.post("/api/v1/orgs/acme/sign-in/domains", &json!({ "domain": "example.com" })).await;
    assert!(operator(&app, &["confirm", "--org", "acme", "example.com"]).await.status.success());
    let start = sign_in_settings(&owner).await["providers"][0]["start"].as_str().unwrap().to_owned();
    let ada = browser(&app);
    assert_eq!(sign_in_as(&app, &ada, &start, "ada").await, "/history");
    assert_eq!(sign_in_settings(&ada).await["providers"][0]["you_signed_in_with_it"], true);

    // Another issuer (same client): the old provider's subjects no longer name accounts.
    let other = idp_for(app.base.trim_end_matches('/'), vec![account("ada", "ada@example.com")]).await;
    let changed = owner
        .put(
            "/api/v1/orgs/acme/sign-in/provider",
            &json!({ "issuer": other.issuer, "client_id": CLIENT_ID, "name": "Acme Entra" }),
        )
        .await;
    assert_eq!(changed.status(), StatusCode::OK, "the stored secret is kept when none is given");
    assert_eq!(sign_in_settings(&ada).await["providers"][0]["you_signed_in_with_it"], false);
    let log = body(owner.get("/api/v1/orgs/acme/audit").await).await;
    let entry = log["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["action"] == "org.identity_provider_changed")
        .expect("the change is audited")
        .clone();
    assert_eq!(entry["details"]["links_dropped"], 1);
    let paths: Vec<&str> =
        entry["details"]["changes"].as_array().unwrap().iter().map(|c| c["path"].as_str().unwrap()).collect();
    assert_eq!(paths, vec!["issuer", "name"], "{entry}");

    // Removed: a sign-in through it is no sign-in at all.
    let removed = owner.delete("/api/v1/orgs/acme/sign-in/provider").await;
    assert_eq!(removed.status(), StatusCode::NO_CONTENT);
    let (code, _) = sso_error(&location(&browser(&app).get(&start).await));
    assert_eq!(code, "no_provider");
    assert!(sign_in_settings(&owner).await["own_provider"].is_null());
}

#[tokio::test]
async fn a_provider_that_cannot_be_used_is_refused_and_nothing_is_stored() {
    let app = TestApp::spawn_with(|s| s.sign_in.org_identity_providers = Some("on".into())).await;
    let owner = app.owner().await;
    let refused = |response| async move {
        fields(&problem(response, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await)
    };

    // Nothing listens there.
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let nobody = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let response = owner.put("/api/v1/orgs/acme/sign-in/provider", &provider_body(&nobody)).await;
    assert_eq!(refused(response).await, vec!["issuer"]);

    // A discovery document naming another issuer.
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
    let response = owner.put("/api/v1/orgs/acme/sign-in/provider", &provider_body(&liar_url)).await;
    let problem_body = problem(response, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    assert!(problem_body.to_string().contains("accounts.example.com"), "{problem_body}");

    // Not a URL, plain http elsewhere, no secret, a role map without a claim, owner roles.
    let response = owner
        .put(
            "/api/v1/orgs/acme/sign-in/provider",
            &json!({ "issuer": "http://idp.example.com", "client_id": "", "name": "x",
                     "role_map": [{ "group": "g", "role": "owner" }] }),
        )
        .await;
    let mut named = refused(response).await;
    named.sort();
    assert_eq!(named, vec!["client_id", "client_secret", "issuer", "role_map"]);
    assert!(
        body(owner.get("/api/v1/orgs/acme/sign-in").await).await["own_provider"].is_null(),
        "nothing stored"
    );

    // Only owners; admins may claim domains but not choose the provider.
    let admin = app.join(&owner, "acme", "admin@example.com", "admin").await;
    let member = app.join(&owner, "acme", "member@example.com", "member").await;
    let response = admin.put("/api/v1/orgs/acme/sign-in/provider", &provider_body(&liar_url)).await;
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    let response =
        member.post("/api/v1/orgs/acme/sign-in/domains", &json!({ "domain": "example.com" })).await;
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    let response =
        admin.post("/api/v1/orgs/acme/sign-in/domains", &json!({ "domain": "not a domain" })).await;
    assert_eq!(refused(response).await, vec!["domain"]);
    let claimed = admin.post("/api/v1/orgs/acme/sign-in/domains", &json!({ "domain": "example.com" })).await;
    assert_eq!(claimed.status(), StatusCode::CREATED);
    let again = admin.post("/api/v1/orgs/acme/sign-in/domains", &json!({ "domain": "example.com" })).await;
    assert_eq!(again.status(), StatusCode::OK, "claiming twice changes nothing");
    assert_eq!(
        admin.delete("/api/v1/orgs/acme/sign-in/domains/example.com").await.status(),
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        admin.delete("/api/v1/orgs/acme/sign-in/domains/example.com").await.status(),
        StatusCode::NOT_FOUND
    );

    // A bounded number of claims.
    for n in 0..20 {
        let claimed = admin
            .post("/api/v1/orgs/acme/sign-in/domains", &json!({ "domain": format!("d{n}.example") }))
            .await;
        assert_eq!(claimed.status(), StatusCode::CREATED);
    }
    let one_more = admin.post("/api/v1/orgs/acme/sign-in/domains", &json!({ "domain": "d20.example" })).await;
    problem(one_more, StatusCode::CONFLICT, "too-many-domains").await;
    assert_eq!(
        body(admin.get("/api/v1/orgs/acme/sign-in").await).await["domains"].as_array().unwrap().len(),
        20
    );
}

#[tokio::test]
async fn the_egress_policy_and_the_operator_bound_organisations_providers() {
    // An instance that reaches public addresses only: a provider on loopback is refused.
    let app = TestApp::spawn_with(|s| {
        s.sign_in.org_identity_providers = Some("on".into());
        s.upstream_allow = Some("public".into());
    })
    .await;
    let owner = app.owner().await;
    let response =
        owner.put("/api/v1/orgs/acme/sign-in/provider", &provider_body("http://127.0.0.1:9")).await;
    let refused = problem(response, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    assert!(refused.to_string().contains("loopback"), "{refused}");

    // A domain is confirmed for one organisation at most.
    let other = body(owner.post("/api/v1/orgs", &json!({ "slug": "globex", "name": "Globex" })).await).await;
    assert_eq!(other["org"]["slug"], "globex", "{other}");
    assert!(operator(&app, &["confirm", "--org", "acme", "example.com"]).await.status.success());
    let twice = operator(&app, &["confirm", "--org", "globex", "example.com"]).await;
    assert!(!twice.status.success());
    assert!(String::from_utf8_lossy(&twice.stderr).contains("another organisation"), "{twice:?}");
    let unknown = operator(&app, &["confirm", "--org", "nobody", "example.com"]).await;
    assert!(!unknown.status.success());
    assert!(operator(&app, &["revoke", "--org", "acme", "example.com"]).await.status.success());
    assert!(operator(&app, &["confirm", "--org", "globex", "example.com"]).await.status.success());

    // Where the operator did not allow them, there are none.
    let plain = TestApp::spawn().await;
    let owner = plain.owner().await;
    let response =
        owner.put("/api/v1/orgs/acme/sign-in/provider", &provider_body("https://idp.example.com")).await;
    problem(response, StatusCode::CONFLICT, "org-identity-providers-off").await;
    assert_eq!(body(owner.get("/api/v1/orgs/acme/sign-in").await).await["own_provider_allowed"], false);
}
