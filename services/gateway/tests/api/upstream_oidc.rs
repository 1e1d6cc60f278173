//! Each person connecting to an OAuth-protected MCP server whose authorization
//! server nobody here wrote: `oidc-provider` from npm (a certified OpenID
//! Provider, run by tests/peers/oidc/provider.mjs with dynamic registration,
//! resource indicators, introspection and revocation on), in front of a plain
//! MCP server on the official Python SDK that checks every bearer token by
//! introspection there (tests/peers/python/oidc_protected_server.py). Herald is
//! the OAuth client: discovery from the 401 and RFC 9728 to OpenID discovery,
//! dynamic registration, PKCE and `resource`, `iss`, refresh, revocation.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::mcp_support::{Agent, text};
use crate::sso::{Idp, at_the_provider_until, at_the_provider_with, browser, location};
use crate::support::{PASSWORD, Session, TestApp, body};

const IGNORE: &str = "needs the peers: run tests/peers/install.sh, then cargo test -- --include-ignored";
/// The MCP server's own client at oidc-provider, for introspection only.
const RS_CLIENT: &str = "notes-rs";
const RS_SECRET: &str = "a-resource-server-secret-for-the-tests-only";

/// oidc-provider, and the SDK server it issues tokens for.
struct Upstream {
    idp: Idp,
    mcp_url: String,
    _server: tokio::process::Child,
}

impl Upstream {
    /// `access_ttl_secs`: the lifetime of the access tokens for the MCP server (default 3600).
    async fn start(access_ttl_secs: Option<u64>) -> Self {
        Self::start_with(access_ttl_secs, "always").await
    }

    /// `refresh_tokens`: `always` (the peer's choice: a refresh token with every code a client
    /// with the refresh_token grant exchanges), or `offline_access` (oidc-provider's own default:
    /// only when the grant has the `offline_access` scope).
    async fn start_with(access_ttl_secs: Option<u64>, refresh_tokens: &str) -> Self {
        Self::start_configured(access_ttl_secs, json!({ "refreshTokens": refresh_tokens }), &[]).await
    }

    /// `config`: settings of the provider's besides its clients and accounts (dynamic
    /// registration is on unless `config` says otherwise); `env`: its process's environment.
    async fn start_configured(access_ttl_secs: Option<u64>, config: Value, env: &[(&str, String)]) -> Self {
        use tokio::io::AsyncBufReadExt;
        let mut provider = json!({
            "registration": true,
            "refreshTokens": "always",
            "clients": [{
                "client_id": RS_CLIENT,
                "client_secret": RS_SECRET,
                "grant_types": [],
                "response_types": [],
                "redirect_uris": [],
            }],
            "accounts": [{ "sub": "olive" }, { "sub": "grace" }],
        });
        for (key, value) in config.as_object().expect("an object") {
            provider[key] = value.clone();
        }
        let idp = Idp::start_with_env(provider, env).await;
        let python = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/peers/.venv/bin/python");
        let script =
            concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/peers/python/oidc_protected_server.py");
        assert!(std::path::Path::new(python).exists(), "{IGNORE}");
        let mut child = tokio::process::Command::new(python)
            .arg(script)
            .args(["--issuer", &idp.issuer, "--client-id", RS_CLIENT, "--client-secret", RS_SECRET])
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the MCP server starts");
        let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
        let line = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
            .await
            .expect("it says where it listens")
            .unwrap()
            .expect("a line");
        let port = line.strip_prefix("listening ").expect("listening <port>").trim().to_owned();
        let mcp_url = format!("http://127.0.0.1:{port}/mcp");
        // The MCP server is a resource server of the provider's (RFC 8707): its URL is the
        // resource indicator, `mcp:tools` its scope, its access tokens opaque (introspected).
        let mut server = json!({ "scope": "mcp:tools" });
        if let Some(ttl) = access_ttl_secs {
            server["accessTokenTTL"] = json!(ttl);
        }
        idp.control("/_test/resource-servers", json!({ mcp_url.clone(): server })).await;
        Upstream { idp, mcp_url, _server: child }
    }

    async fn look(&self, path: &str) -> Value {
        reqwest::get(format!("{}{path}", self.idp.issuer)).await.unwrap().json().await.unwrap()
    }

    /// What the provider says of `token` to the MCP server (RFC 7662).
    async fn introspect(&self, token: &str) -> Value {
        let response = reqwest::Client::new()
            .post(format!("{}/token/introspection", self.idp.issuer))
            .basic_auth(RS_CLIENT, Some(RS_SECRET))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(url::form_urlencoded::Serializer::new(String::new()).append_pair("token", token).finish())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        response.json().await.unwrap()
    }

    /// The live access tokens the provider issued to `account` for the MCP server.
    async fn access_tokens_of(&self, account: &str) -> Vec<String> {
        let tokens = self.look("/_test/tokens").await;
        tokens
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["kind"] == "AccessToken" && t["account_id"] == account && t["aud"] == self.mcp_url)
            .map(|t| t["jti"].as_str().unwrap().to_owned())
            .collect()
    }

    /// The provider's log of requests to one of its endpoints (`authorization`, `token`,
    /// `registration`, `introspection`, `revocation`).
    async fn requests_to(&self, route: &str) -> Vec<Value> {
        let log = self.look("/_test/requests").await;
        log.as_array().unwrap().iter().filter(|r| r["route"] == route).cloned().collect()
    }
}

/// A person signed in with their password, in a browser that follows no redirect by itself.
async fn signed_in(app: &TestApp, email: &str) -> Session {
    let person = browser(app);
    let response = person.post("/api/v1/auth/login", &json!({ "email": email, "password": PASSWORD })).await;
    assert_eq!(response.status(), StatusCode::OK);
    person
}

/// Where Herald sends `person` to connect to `acme/notes`: the provider's authorization URL.
async fn authorize_url(person: &Session) -> reqwest::Url {
    reqwest::Url::parse(&crate::connections::agreed_start(person, "/connect/acme/notes/start").await).unwrap()
}

fn param(url: &reqwest::Url, key: &str) -> Option<String> {
    url.query_pairs().find(|(k, _)| k == key).map(|(_, v)| v.into_owned())
}

/// At the provider as `account`, and back to Herald: where Herald sent the browser in the end.
async fn sign_in_there(app: &TestApp, person: &Session, authorize: &reqwest::Url, account: &str) -> String {
    let back = at_the_provider_with(app, person, authorize.as_str(), account, &[]).await;
    location(&person.http.get(&back).send().await.unwrap())
}

async fn connect(app: &TestApp, person: &Session, account: &str) -> String {
    let authorize = authorize_url(person).await;
    sign_in_there(app, person, &authorize, account).await
}

async fn register_notes(owner: &Session, url: &str) {
    let created = owner
        .post(
            "/api/v1/orgs/acme/servers",
            &json!({ "slug": "notes", "name": "Notes", "url": url, "auth_mode": "oauth" }),
        )
        .await;
    assert_eq!(created.status(), StatusCode::CREATED);
}

/// The text of a call's outcome: the tool's text, or the error's message.
fn outcome(message: &herald_mcp::jsonrpc::Message) -> String {
    match message {
        herald_mcp::jsonrpc::Message::Error { error, .. } => error.message.clone(),
        other => text(other),
    }
}

#[tokio::test]
#[ignore = "needs the peers: run tests/peers/install.sh, then cargo test -- --include-ignored"]
async fn each_person_connects_through_oidc_provider_and_disconnecting_revokes_there() {
    let upstream = Upstream::start(None).await;
    let app = TestApp::spawn().await;
    let owner_session = app.owner().await;
    register_notes(&owner_session, &upstream.mcp_url).await;
    app.join(&owner_session, "acme", "grace@example.com", "member").await;
    let olive_token = app.token(&owner_session, "acme", "olive's agent").await;
    let grace_token = app.token(&app.sign_in("grace@example.com").await, "acme", "grace's agent").await;

    // Olive connects. Herald found the provider from the server's 401 and its RFC 9728
    // metadata, read the provider's metadata, registered itself there (RFC 7591), and sends
    // her to the authorization endpoint with PKCE (S256) and the resource (RFC 8707).
    let olive = signed_in(&app, "owner@example.com").await;
    let authorize = authorize_url(&olive).await;
    assert!(authorize.as_str().starts_with(&format!("{}/auth?", upstream.idp.issuer)), "{authorize}");
    assert_eq!(param(&authorize, "resource").as_deref(), Some(upstream.mcp_url.as_str()));
    assert_eq!(param(&authorize, "code_challenge_method").as_deref(), Some("S256"));
    assert!(param(&authorize, "code_challenge").is_some_and(|c| c.len() >= 43));
    assert_eq!(
        param(&authorize, "scope").as_deref(),
        Some("mcp:tools offline_access"),
        "the resource metadata's scopes, and offline_access, which the provider lists"
    );
    assert_eq!(param(&authorize, "prompt").as_deref(), Some("consent"));
    let clients = upstream.look("/_test/clients").await;
    let clients = clients.as_array().unwrap();
    assert_eq!(clients.len(), 1, "one registration: {clients:?}");
    assert_eq!(param(&authorize, "client_id").as_deref(), clients[0]["client_id"].as_str());
    assert_eq!(clients[0]["redirect_uris"], json!([format!("{}/connect/callback", app.base)]));
    assert_eq!(clients[0]["grant_types"], json!(["authorization_code", "refresh_token"]));
    assert_eq!(clients[0]["has_secret"], true);
    let registrations = upstream.requests_to("registration").await;
    assert_eq!(registrations.len(), 1, "{registrations:?}");
    assert_eq!(registrations[0]["status"], 201);

    // The provider answers with `iss` (RFC 9207), which Herald checks, and the code exchange
    // names the resource too.
    let back = at_the_provider_with(&app, &olive, authorize.as_str(), "olive", &[]).await;
    let back_url = reqwest::Url::parse(&back).unwrap();
    assert_eq!(param(&back_url, "iss").as_deref(), Some(upstream.idp.issuer.as_str()), "{back}");
    assert_eq!(location(&olive.http.get(&back).send().await.unwrap()), "/connections?connected=acme/notes");
    let exchanges = upstream.requests_to("token").await;
    assert_eq!(exchanges.len(), 1, "{exchanges:?}");
    let exchange = &exchanges[0];
    assert_eq!(exchange["params"]["grant_type"], "authorization_code", "{exchange}");
    assert_eq!(exchange["params"]["resource"], upstream.mcp_url, "{exchange}");
    assert_eq!(exchange["params"]["code_verifier"], "***", "PKCE verifier sent: {exchange}");
    assert_eq!(exchange["basic_auth_client_id"], clients[0]["client_id"], "{exchange}");
    assert_eq!(exchange["status"], 200, "{exchange}");

    // Her agents act as her: the SDK server introspected the token at the provider and found it
    // for itself, with mcp:tools, and her subject.
    let olive_agent = Agent::modern(&app, &olive_token, "notes");
    assert_eq!(outcome(&olive_agent.call(1, "whoami", json!({})).await), "you are olive");
    let legacy = Agent::legacy(&app, &olive_token, "notes").await;
    assert_eq!(outcome(&legacy.call(2, "whoami", json!({})).await), "you are olive");
    let olive_tokens = upstream.access_tokens_of("olive").await;
    assert_eq!(olive_tokens.len(), 1, "{olive_tokens:?}");
    let seen = upstream.introspect(&olive_tokens[0]).await;
    assert_eq!((&seen["active"], &seen["sub"]), (&json!(true), &json!("olive")), "{seen}");
    assert_eq!((&seen["aud"], &seen["scope"]), (&json!(upstream.mcp_url), &json!("mcp:tools")), "{seen}");

    // Grace connects as herself, with the same registration.
    let grace = signed_in(&app, "grace@example.com").await;
    assert_eq!(connect(&app, &grace, "grace").await, "/connections?connected=acme/notes");
    let grace_agent = Agent::modern(&app, &grace_token, "notes");
    assert_eq!(outcome(&grace_agent.call(3, "whoami", json!({})).await), "you are grace");
    assert_eq!(outcome(&olive_agent.call(4, "whoami", json!({})).await), "you are olive");
    assert_eq!(upstream.look("/_test/clients").await.as_array().unwrap().len(), 1);
    let list = body(grace.get("/api/v1/me/connections").await).await;
    let notes = &list["connections"][0];
    assert_eq!(
        (&notes["connected"], &notes["issuer"]),
        (&json!(true), &json!(upstream.idp.issuer)),
        "{list}"
    );
    assert_eq!((&notes["scopes"], &notes["renewable"]), (&json!(["mcp:tools"]), &json!(true)), "{list}");

    // Olive disconnects: Herald revokes at the provider (RFC 7009), which ends her grant, so
    // the access token her agent held is no longer active. Grace's stays.
    assert_eq!(olive.delete("/api/v1/me/connections/acme/notes").await.status(), StatusCode::NO_CONTENT);
    let revocations = upstream.requests_to("revocation").await;
    assert_eq!(revocations.len(), 1, "{revocations:?}");
    assert_eq!(revocations[0]["status"], 200, "{revocations:?}");
    let revoked = upstream.look("/_test/revoked").await;
    let revoked = revoked.as_array().unwrap();
    assert!(
        revoked.iter().any(|r| r["account_id"] == "olive" && r["client_id"] == clients[0]["client_id"]),
        "{revoked:?}"
    );
    assert!(revoked.iter().all(|r| r["account_id"] == "olive"), "{revoked:?}");
    assert_eq!(upstream.introspect(&olive_tokens[0]).await, json!({ "active": false }));
    assert!(upstream.access_tokens_of("olive").await.is_empty());
    assert_eq!(body(olive.get("/api/v1/me/connections").await).await["connections"][0]["connected"], false);
    let grace_tokens = upstream.access_tokens_of("grace").await;
    assert_eq!(grace_tokens.len(), 1, "{grace_tokens:?}");
    assert_eq!(upstream.introspect(&grace_tokens[0]).await["active"], true);
    assert_eq!(outcome(&grace_agent.call(5, "whoami", json!({})).await), "you are grace");

    // Olive connects again: the same registration, a new grant.
    assert_eq!(connect(&app, &olive, "olive").await, "/connections?connected=acme/notes");
    assert_eq!(outcome(&olive_agent.call(6, "whoami", json!({})).await), "you are olive");
    assert_eq!(upstream.look("/_test/clients").await.as_array().unwrap().len(), 1);
    let log = body(owner_session.get("/api/v1/orgs/acme/audit?action=connection.created").await).await;
    assert_eq!(log["entries"].as_array().unwrap().len(), 3, "{log}");
}

#[tokio::test]
#[ignore = "needs the peers: run tests/peers/install.sh, then cargo test -- --include-ignored"]
async fn a_short_lived_token_from_oidc_provider_is_refreshed_before_each_call() {
    // The provider's access tokens for the server live 30 s: shorter than the minute Herald
    // renews ahead, so every call renews first.
    let upstream = Upstream::start(Some(30)).await;
    let app = TestApp::spawn().await;
    let owner_session = app.owner().await;
    register_notes(&owner_session, &upstream.mcp_url).await;
    let token = app.token(&owner_session, "acme", "agent").await;
    let olive = signed_in(&app, "owner@example.com").await;
    assert_eq!(connect(&app, &olive, "olive").await, "/connections?connected=acme/notes");
    let first = upstream.access_tokens_of("olive").await;
    assert_eq!(first.len(), 1);

    let agent = Agent::modern(&app, &token, "notes");
    assert_eq!(outcome(&agent.call(1, "whoami", json!({})).await), "you are olive");
    assert_eq!(outcome(&agent.call(2, "whoami", json!({})).await), "you are olive", "after another refresh");
    let legacy = Agent::legacy(&app, &token, "notes").await;
    assert_eq!(outcome(&legacy.call(3, "whoami", json!({})).await), "you are olive");

    let refreshes: Vec<Value> = upstream
        .requests_to("token")
        .await
        .into_iter()
        .filter(|r| r["params"]["grant_type"] == "refresh_token")
        .collect();
    assert!(refreshes.len() >= 2, "{refreshes:?}");
    for r in &refreshes {
        assert_eq!(r["params"]["resource"], upstream.mcp_url, "{r}");
        assert_eq!(r["params"]["refresh_token"], "***", "{r}");
        assert_eq!(r["status"], 200, "{r}");
    }
    // Each refresh gave an access token for the server (the first is still live: nothing
    // revokes it; it lapses in 30 s).
    let now = upstream.access_tokens_of("olive").await;
    assert!(now.len() > refreshes.len(), "{now:?}");
    let latest = upstream.introspect(now.last().unwrap()).await;
    assert_eq!((&latest["active"], &latest["aud"]), (&json!(true), &json!(upstream.mcp_url)), "{latest}");
    let list = body(olive.get("/api/v1/me/connections").await).await;
    assert_eq!(list["connections"][0]["renewable"], true, "{list}");

    // Disconnecting revokes the refresh token, and with it every access token of the grant.
    assert_eq!(olive.delete("/api/v1/me/connections/acme/notes").await.status(), StatusCode::NO_CONTENT);
    for token in &now {
        assert_eq!(upstream.introspect(token).await["active"], false);
    }
    let revoked = upstream.look("/_test/revoked").await;
    assert!(revoked.as_array().unwrap().iter().any(|r| r["kind"] == "RefreshToken"), "{revoked}");
}

#[tokio::test]
#[ignore = "needs the peers: run tests/peers/install.sh, then cargo test -- --include-ignored"]
async fn with_oidc_providers_default_refresh_policy_herald_asks_for_offline_access_and_gets_a_refresh_token()
{
    // oidc-provider as it ships issues a refresh token only for a grant with `offline_access`
    // (OpenID Connect Core section 11), kept only on a request with `prompt=consent`; it lists
    // `offline_access` in its metadata's `scopes_supported`. Herald asks for it there (SEP-2207,
    // OIDC-flavored refresh token guidance), so the connection renews itself.
    let upstream = Upstream::start_with(None, "offline_access").await;
    let app = TestApp::spawn().await;
    let owner_session = app.owner().await;
    register_notes(&owner_session, &upstream.mcp_url).await;
    let token = app.token(&owner_session, "acme", "agent").await;
    let metadata = upstream.look("/.well-known/oauth-authorization-server").await;
    assert!(
        metadata["scopes_supported"].as_array().unwrap().contains(&json!("offline_access")),
        "{metadata}"
    );

    let olive = signed_in(&app, "owner@example.com").await;
    let authorize = authorize_url(&olive).await;
    assert_eq!(param(&authorize, "scope").as_deref(), Some("mcp:tools offline_access"));
    assert_eq!(param(&authorize, "prompt").as_deref(), Some("consent"));
    assert_eq!(sign_in_there(&app, &olive, &authorize, "olive").await, "/connections?connected=acme/notes");
    let agent = Agent::modern(&app, &token, "notes");
    assert_eq!(outcome(&agent.call(1, "whoami", json!({})).await), "you are olive");

    let tokens = upstream.look("/_test/tokens").await;
    let kinds: Vec<&Value> = tokens.as_array().unwrap().iter().map(|t| &t["kind"]).collect();
    assert!(kinds.contains(&&json!("RefreshToken")), "a refresh token was issued: {tokens}");
    let list = body(olive.get("/api/v1/me/connections").await).await;
    assert_eq!(list["connections"][0]["renewable"], true, "{list}");
}

/// A certificate for `localhost` and 127.0.0.1 and the authority that signed it, made now with
/// openssl (a self-signed certificate is no end-entity certificate to rustls): the authority's
/// PEM, and the directory with ca.pem, cert.pem and key.pem.
fn test_certificate() -> (Vec<u8>, std::path::PathBuf) {
    let dir = crate::cli::temp_dir();
    let openssl = |args: &[&str]| {
        let made = std::process::Command::new("openssl")
            .current_dir(&dir)
            .args(args)
            .output()
            .expect("openssl runs");
        assert!(made.status.success(), "openssl {args:?}: {}", String::from_utf8_lossy(&made.stderr));
    };
    let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
    openssl(
        &[
            &["req", "-x509"],
            &ec[..],
            &["-days", "1", "-subj", "/CN=Herald test authority", "-keyout", "ca.key", "-out", "ca.pem"],
        ]
        .concat(),
    );
    openssl(
        &[&["req"], &ec[..], &["-subj", "/CN=localhost", "-keyout", "key.pem", "-out", "leaf.csr"]].concat(),
    );
    std::fs::write(
        dir.join("leaf.ext"),
        "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n",
    )
    .unwrap();
    openssl(&[
        "x509",
        "-req",
        "-in",
        "leaf.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        "1",
        "-extfile",
        "leaf.ext",
        "-out",
        "cert.pem",
    ]);
    (std::fs::read(dir.join("ca.pem")).unwrap(), dir)
}

/// tests/peers/tls/front.mjs: https on a free port, passing everything to `target`.
async fn https_front(dir: &std::path::Path, target: &str) -> (u16, tokio::process::Child) {
    use tokio::io::AsyncBufReadExt;
    let node = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/peers/node/node_modules/.bin/node");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/peers/tls/front.mjs");
    assert!(std::path::Path::new(node).exists(), "{IGNORE}");
    let mut child = tokio::process::Command::new(node)
        .arg(script)
        .arg(dir.join("cert.pem"))
        .arg(dir.join("key.pem"))
        .arg(target)
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the front starts");
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let line = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
        .await
        .expect("the front says where it listens")
        .unwrap()
        .expect("a line");
    let port = line.strip_prefix("listening ").expect("listening <port>").trim().parse().unwrap();
    (port, child)
}

#[tokio::test]
#[ignore = "needs the peers: run tests/peers/install.sh, then cargo test -- --include-ignored"]
async fn on_https_herald_is_its_own_client_id_where_the_authorization_server_takes_metadata_documents() {
    // Herald on https (a front with a certificate made now), so its Client ID Metadata
    // Document has an https URL; oidc-provider with the feature on and dynamic registration
    // off, trusting the certificate.
    let (certificate, dir) = test_certificate();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (front_port, _front) = https_front(&dir, &format!("http://{}", listener.local_addr().unwrap())).await;
    let public = format!("https://localhost:{front_port}");
    let upstream = Upstream::start_configured(
        None,
        json!({ "registration": false, "clientIdMetadataDocument": true }),
        &[("NODE_EXTRA_CA_CERTS", dir.join("ca.pem").display().to_string())],
    )
    .await;
    let public_url = public.clone();
    let app = crate::support::TestApp::spawn_listening(
        listener,
        crate::support::TestDb::create().await,
        |s| s.public_url = Some(public_url),
        |_| {},
    )
    .await;

    // The browser reaches Herald through the front (its cookies are Secure now).
    let person = Session {
        base: public.clone(),
        http: reqwest::Client::builder()
            .cookie_store(true)
            .redirect(reqwest::redirect::Policy::none())
            .add_root_certificate(reqwest::Certificate::from_pem(&certificate).unwrap())
            .build()
            .unwrap(),
        bearer: None,
    };
    let setup = person
        .post(
            "/api/v1/setup",
            &json!({ "token": app.setup_token(), "org_slug": "acme", "org_name": "Acme",
                     "email": "owner@example.com", "name": "Olive", "password": PASSWORD }),
        )
        .await;
    assert_eq!(setup.status(), StatusCode::CREATED);
    register_notes(&person, &upstream.mcp_url).await;
    let token = app.token(&person, "acme", "olive's agent").await;

    // The document, as the authorization server reads it.
    let document = body(person.get("/oauth/client-metadata.json").await).await;
    let client_id = format!("{public}/oauth/client-metadata.json");
    assert_eq!(document["client_id"], client_id);
    assert_eq!(document["redirect_uris"], json!([format!("{public}/connect/callback")]));
    assert_eq!(document["token_endpoint_auth_method"], "none");

    // Connecting: Herald's client id is the document's URL; nothing was registered.
    let authorize =
        reqwest::Url::parse(&crate::connections::agreed_start(&person, "/connect/acme/notes/start").await)
            .unwrap();
    assert_eq!(param(&authorize, "client_id").as_deref(), Some(client_id.as_str()));
    assert!(upstream.requests_to("registration").await.is_empty());
    let back = at_the_provider_until(&public, &person, authorize.as_str(), "olive", &[]).await;
    assert_eq!(location(&person.http.get(&back).send().await.unwrap()), "/connections?connected=acme/notes");
    let exchanges = upstream.requests_to("token").await;
    assert_eq!(exchanges.len(), 1, "{exchanges:?}");
    assert_eq!(exchanges[0]["params"]["client_id"], client_id, "a public client: {:?}", exchanges[0]);
    assert_eq!(exchanges[0]["basic_auth_client_id"], Value::Null);
    assert_eq!(exchanges[0]["status"], 200, "{:?}", exchanges[0]);

    // And the agent's call goes on as her.
    let agent = Agent::modern(&app, &token, "notes");
    assert_eq!(outcome(&agent.call(1, "whoami", json!({})).await), "you are olive");
    let _ = std::fs::remove_dir_all(dir);
}
