//! Each person connecting to an OAuth-protected server as themselves, against a
//! server nobody here wrote the protocol of: the official Python SDK's
//! authorization support (`mcp.server.auth`, with a provider written for the
//! test, as the SDK's examples do), run by tests/peers/python/oauth_server.py.
//! Herald is the OAuth client: discovery from the 401, dynamic registration,
//! PKCE and `resource`, `iss`, refresh, revocation.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::mcp_support::{Agent, Dashboard, text};
use crate::sso::{at_the_provider_with, browser, location};
use crate::support::{PASSWORD, Session, TestApp, body};

/// tests/peers/python/oauth_server.py: an authorization server and the MCP server it protects.
pub(crate) struct OAuthServer {
    pub mcp_url: String,
    pub issuer: String,
    /// The second authorization server, where started with one (`SECOND_AS=1`).
    pub second_issuer: Option<String>,
    _child: tokio::process::Child,
}

impl OAuthServer {
    pub(crate) async fn start(access_ttl_secs: u64) -> Self {
        Self::start_with(access_ttl_secs, false).await
    }

    /// `as_published`: without the peer's additions to the SDK (`iss` on the redirects, `scope`
    /// in the 401's challenge): the SDK exactly as it ships.
    pub(crate) async fn start_with(access_ttl_secs: u64, as_published: bool) -> Self {
        Self::spawn(access_ttl_secs, as_published, false).await
    }

    /// With a second authorization server the resource can move to (`/_test/move-to-second-as`).
    pub(crate) async fn start_with_second_as() -> Self {
        Self::spawn(3600, false, true).await
    }

    async fn spawn(access_ttl_secs: u64, as_published: bool, second_as: bool) -> Self {
        use tokio::io::AsyncBufReadExt;
        let python = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/peers/.venv/bin/python");
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/peers/python/oauth_server.py");
        assert!(std::path::Path::new(python).exists(), "run tests/peers/install.sh first");
        let mut child = tokio::process::Command::new(python)
            .arg(script)
            .env("ACCESS_TTL", access_ttl_secs.to_string())
            .env("SDK_AS_PUBLISHED", if as_published { "1" } else { "0" })
            .env("SECOND_AS", if second_as { "1" } else { "0" })
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the OAuth server starts");
        let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
        let line = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
            .await
            .expect("it says where it listens")
            .unwrap()
            .unwrap();
        let ports: Vec<&str> =
            line.strip_prefix("listening ").expect("listening <rs> <as> [<as2>]").split(' ').collect();
        OAuthServer {
            mcp_url: format!("http://127.0.0.1:{}/mcp", ports[0]),
            issuer: format!("http://127.0.0.1:{}", ports[1]),
            second_issuer: ports.get(2).map(|port| format!("http://127.0.0.1:{port}")),
            _child: child,
        }
    }

    /// POSTs to one of the peer's control endpoints (`/_test/…`), which must take it.
    pub(crate) async fn control(&self, path: &str, body: Value) {
        let response =
            reqwest::Client::new().post(format!("{}{path}", self.issuer)).json(&body).send().await.unwrap();
        assert!(response.status().is_success(), "{path}: {}", response.status());
    }

    pub(crate) async fn look(&self, path: &str) -> Value {
        reqwest::get(format!("{}{path}", self.issuer)).await.unwrap().json().await.unwrap()
    }
}

const IGNORE: &str = "needs the Python SDK: run tests/peers/install.sh, then cargo test -- --include-ignored";

/// A person signed in with their password, in a browser that follows no redirect by itself.
async fn signed_in(app: &TestApp, email: &str) -> Session {
    let person = browser(app);
    let response = person.post("/api/v1/auth/login", &json!({ "email": email, "password": PASSWORD })).await;
    assert_eq!(response.status(), StatusCode::OK, "{IGNORE}");
    person
}

/// Starts connecting `person` at `start` (`/connect/{org}/{server}/start`): Herald's review
/// page comes first, then its Continue goes on to the authorization server, whose URL this
/// returns.
pub(crate) async fn agreed_start(person: &Session, start: &str) -> String {
    let review = location(&person.get(start).await);
    let ticket = review_ticket(&review);
    let shown = body(person.get(&review_path(&ticket)).await).await;
    location(&person.get(shown["continue_to"].as_str().expect("a way on")).await)
}

/// The consent ticket of a redirect to the review page.
pub(crate) fn review_ticket(location: &str) -> String {
    let url = reqwest::Url::parse("http://x").unwrap().join(location).unwrap();
    assert_eq!(url.path(), "/connections", "Herald's review page first: {location}");
    url.query_pairs().find(|(k, _)| k == "ticket").map(|(_, v)| v.into_owned()).expect("a ticket")
}

fn review_path(ticket: &str) -> String {
    let query = url::form_urlencoded::Serializer::new(String::new()).append_pair("ticket", ticket).finish();
    format!("/api/v1/me/connections/review?{query}")
}

/// Connects `person` to `acme/notes`, signing in at the authorization server as `account`;
/// returns where Herald sent the browser in the end.
async fn connect(app: &TestApp, person: &Session, account: &str, extra: &[(&str, &str)]) -> String {
    let authorize = agreed_start(person, "/connect/acme/notes/start").await;
    let back = at_the_provider_with(app, person, &authorize, account, extra).await;
    location(&person.http.get(&back).send().await.unwrap())
}

fn query_of(location: &str) -> std::collections::HashMap<String, String> {
    reqwest::Url::parse("http://x").unwrap().join(location).unwrap().query_pairs().into_owned().collect()
}

async fn register_notes(owner: &Session, url: &str) {
    let created = owner
        .post(
            "/api/v1/orgs/acme/servers",
            &json!({ "slug": "notes", "name": "Notes", "url": url, "auth_mode": "oauth" }),
        )
        .await;
    assert_eq!(created.status(), StatusCode::CREATED);
    assert_eq!(body(created).await["auth_mode"], "oauth");
}

/// The text of a call's outcome: the tool's text, or the error's message.
fn outcome(message: &herald_mcp::jsonrpc::Message) -> String {
    match message {
        herald_mcp::jsonrpc::Message::Error { error, .. } => error.message.clone(),
        other => text(other),
    }
}

#[tokio::test]
#[ignore = "needs the Python SDK: run tests/peers/install.sh, then cargo test -- --include-ignored"]
async fn each_person_connects_as_themselves_and_their_calls_carry_their_own_token() {
    let upstream = OAuthServer::start(3600).await;
    let app = TestApp::spawn().await;
    let owner_session = app.owner().await;
    register_notes(&owner_session, &upstream.mcp_url).await;
    app.join(&owner_session, "acme", "grace@example.com", "member").await;
    let olive_token = app.token(&owner_session, "acme", "olive's agent").await;
    let grace_token = app.token(&app.sign_in("grace@example.com").await, "acme", "grace's agent").await;

    // Not connected yet: the call waits while Herald asks Olive, in her inbox, to connect.
    let olive_agent = Agent::modern(&app, &olive_token, "notes");
    let mut inbox = Dashboard::open(&app, &olive_token).await;
    let olive = signed_in(&app, "owner@example.com").await;
    let (first, ()) = tokio::join!(olive_agent.call(1, "whoami", json!({})), async {
        let asked = inbox.next_of("elicitation.created").await;
        assert_eq!(asked["asked_by"], "herald", "{asked}");
        assert_eq!(
            (&asked["server"]["slug"], &asked["tool"], &asked["mode"]),
            (&json!("notes"), &json!("whoami"), &json!("url"))
        );
        let page = asked["url"].as_str().unwrap();
        assert_eq!(page, format!("{}/connect/acme/notes/start", app.base), "Herald's own connect page");
        assert!(asked["message"].as_str().unwrap().contains("Notes acts as each person"), "{asked}");
        // Olive opens it: Herald found the authorization server from the 401 and registered
        // itself; its one client there serves everyone, so she reviews on Herald's page what
        // she agrees to (per-client consent) before Herald sends her anywhere.
        let start = olive.get(page.strip_prefix(app.base.as_str()).unwrap()).await;
        let ticket = review_ticket(&location(&start));
        let review = body(olive.get(&review_path(&ticket)).await).await;
        assert_eq!((&review["server"]["name"], &review["org"]["name"]), (&json!("Notes"), &json!("Acme")));
        assert_eq!((&review["issuer"], &review["scopes"]), (&json!(upstream.issuer), &json!(["mcp:tools"])));
        assert_eq!(review["connected"], false);
        // The ticket is hers alone, and cannot be made up or changed.
        let grace = signed_in(&app, "grace@example.com").await;
        assert_eq!(grace.get(&review_path(&ticket)).await.status(), StatusCode::GONE);
        let stolen = location(&grace.get(review["continue_to"].as_str().unwrap()).await);
        assert_ne!(review_ticket(&stolen), ticket, "someone else's ticket is reviewed anew, as theirs");
        let mut forged = ticket.clone();
        forged.replace_range(10..11, if &forged[10..11] == "A" { "B" } else { "A" });
        let forged = olive.get(&format!("/connect/acme/notes/start?consent={forged}")).await;
        review_ticket(&location(&forged));
        assert_eq!(olive.get(&review_path("not-a-ticket")).await.status(), StatusCode::GONE);
        // Continue, then: off to the authorization server with PKCE and the resource.
        let start = olive.get(review["continue_to"].as_str().unwrap()).await;
        let authorize = reqwest::Url::parse(&location(&start)).unwrap();
        assert!(authorize.as_str().starts_with(&upstream.issuer), "{authorize}");
        let param = |k: &str| authorize.query_pairs().find(|(key, _)| key == k).map(|(_, v)| v.into_owned());
        assert_eq!(param("resource").as_deref(), Some(upstream.mcp_url.as_str()));
        assert_eq!(param("code_challenge_method").as_deref(), Some("S256"));
        assert_eq!(param("scope").as_deref(), Some("mcp:tools"), "the challenge's scope");
        let back = at_the_provider_with(&app, &olive, authorize.as_str(), "olive", &[]).await;
        assert_eq!(
            location(&olive.http.get(&back).send().await.unwrap()),
            "/connections?connected=acme/notes"
        );
        // Connected: the question ends by itself.
        let ended = inbox.next_of("elicitation.resolved").await;
        assert_eq!(
            (&ended["id"], &ended["reason"], &ended["action"]),
            (&asked["id"], &json!("connected"), &json!("accept"))
        );
    });
    // …and the call that waited goes on as her.
    assert_eq!(outcome(&first), "you are olive");
    assert_eq!(outcome(&olive_agent.call(2, "whoami", json!({})).await), "you are olive");
    // A legacy agent of hers too.
    let legacy = Agent::legacy(&app, &olive_token, "notes").await;
    assert_eq!(outcome(&legacy.call(3, "whoami", json!({})).await), "you are olive");

    // Grace connects as herself; each agent acts as its own person.
    let grace = signed_in(&app, "grace@example.com").await;
    assert_eq!(connect(&app, &grace, "grace", &[]).await, "/connections?connected=acme/notes");
    let grace_agent = Agent::modern(&app, &grace_token, "notes");
    assert_eq!(outcome(&grace_agent.call(4, "whoami", json!({})).await), "you are grace");
    assert_eq!(outcome(&olive_agent.call(5, "whoami", json!({})).await), "you are olive");

    // One registration for the server, at Herald's callback; the token requests named the resource.
    let clients = upstream.look("/_test/clients").await;
    let clients = clients.as_array().unwrap();
    assert_eq!(clients.len(), 1, "{clients:?}");
    assert_eq!(clients[0]["redirect_uris"][0], format!("{}/connect/callback", app.base));
    let requests = upstream.look("/_test/requests").await;
    let token_requests: Vec<&Value> =
        requests.as_array().unwrap().iter().filter(|r| r["path"] == "/token").collect();
    assert!(!token_requests.is_empty());
    for r in &token_requests {
        assert_eq!(r["params"]["resource"], upstream.mcp_url, "{r}");
        assert_eq!(r["params"]["code_verifier"], "***", "PKCE verifier sent: {r}");
    }

    // Grace's own list.
    let list = body(grace.get("/api/v1/me/connections").await).await;
    let notes = &list["connections"][0];
    assert_eq!(notes["server"], "notes");
    assert_eq!(notes["connected"], true);
    assert_eq!(notes["issuer"], upstream.issuer);
    assert_eq!(notes["scopes"], json!(["mcp:tools"]));
    assert_eq!(notes["renewable"], true);

    // Removed from the organisation: her tokens are revoked upstream, and gone here.
    let members = body(owner_session.get("/api/v1/orgs/acme/members").await).await;
    let grace_id = members["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["user"]["email"] == "grace@example.com")
        .unwrap()["user"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let removed = owner_session.delete(&format!("/api/v1/orgs/acme/members/{grace_id}")).await;
    assert_eq!(removed.status(), StatusCode::NO_CONTENT);
    let revoked = upstream.look("/_test/revoked").await;
    assert!(
        revoked.as_array().unwrap().iter().any(|r| r["subject"] == "grace"),
        "{revoked} {}",
        upstream.look("/_test/requests").await
    );
    assert_eq!(body(grace.get("/api/v1/me/connections").await).await["connections"], json!([]));
    assert_eq!(outcome(&olive_agent.call(6, "whoami", json!({})).await), "you are olive", "Olive untouched");

    // Olive disconnects: revoked, and her agent is told to connect again.
    assert_eq!(olive.delete("/api/v1/me/connections/acme/notes").await.status(), StatusCode::NO_CONTENT);
    let revoked = upstream.look("/_test/revoked").await;
    assert!(revoked.as_array().unwrap().iter().any(|r| r["subject"] == "olive"), "{revoked}");
    let (again, ()) = tokio::join!(olive_agent.call(7, "whoami", json!({})), async {
        let asked = inbox.next_of("elicitation.created").await;
        assert_eq!(asked["asked_by"], "herald");
        assert_eq!(inbox.respond(&asked["id"], "decline", None).await["type"], "ack");
    });
    let again = outcome(&again);
    assert!(
        again.contains("/connections?connect=acme/notes") && again.contains("you said not now"),
        "{again}"
    );
    let log = body(owner_session.get("/api/v1/orgs/acme/audit?action=connection.created").await).await;
    assert_eq!(log["entries"].as_array().unwrap().len(), 2, "{log}");
}

#[tokio::test]
#[ignore = "needs the Python SDK: run tests/peers/install.sh, then cargo test -- --include-ignored"]
async fn a_server_that_moves_to_another_authorization_server_gets_the_old_tokens_revoked_on_reconnect() {
    let upstream = OAuthServer::start_with_second_as().await;
    let second = upstream.second_issuer.clone().expect("a second authorization server");
    let app = TestApp::spawn().await;
    let owner_session = app.owner().await;
    register_notes(&owner_session, &upstream.mcp_url).await;
    let olive_token = app.token(&owner_session, "acme", "olive's agent").await;
    let olive = signed_in(&app, "owner@example.com").await;
    assert_eq!(connect(&app, &olive, "olive", &[]).await, "/connections?connected=acme/notes");
    let agent = Agent::modern(&app, &olive_token, "notes");
    assert_eq!(outcome(&agent.call(1, "whoami", json!({})).await), "you are olive");
    let listed = body(olive.get("/api/v1/me/connections").await).await;
    assert_eq!(listed["connections"][0]["issuer"], upstream.issuer);

    // The server now names another authorization server; Olive connects again, there.
    upstream.control("/_test/move-to-second-as", json!({})).await;
    let authorize = agreed_start(&olive, "/connect/acme/notes/start").await;
    assert!(authorize.starts_with(&second), "to the new authorization server: {authorize}");
    let back = at_the_provider_with(&app, &olive, &authorize, "olive", &[]).await;
    assert_eq!(location(&olive.http.get(&back).send().await.unwrap()), "/connections?connected=acme/notes");

    // The first server's tokens were revoked where they came from; the new ones are used.
    let revoked = upstream.look("/_test/revoked").await;
    assert!(
        revoked.as_array().unwrap().iter().any(|r| r["subject"] == "olive"),
        "the old tokens revoked at {}: {revoked}",
        upstream.issuer
    );
    let listed = body(olive.get("/api/v1/me/connections").await).await;
    assert_eq!(listed["connections"].as_array().unwrap().len(), 1, "{listed}");
    assert_eq!(listed["connections"][0]["issuer"], second);
    assert_eq!(outcome(&agent.call(2, "whoami", json!({})).await), "you are olive");
}

#[tokio::test]
#[ignore = "needs the Python SDK: run tests/peers/install.sh, then cargo test -- --include-ignored"]
async fn a_legacy_agent_waits_at_initialize_and_not_now_ends_it_with_where_to_connect() {
    let upstream = OAuthServer::start(3600).await;
    let app = TestApp::spawn().await;
    let owner_session = app.owner().await;
    register_notes(&owner_session, &upstream.mcp_url).await;
    let token = app.token(&owner_session, "acme", "agent").await;
    let mut inbox = Dashboard::open(&app, &token).await;

    // "Not now": the agent's initialize ends with an error that says where to connect; nothing
    // is remembered, so the next attempt asks again.
    let (refused, ()) = tokio::join!(Agent::try_legacy(&app, &token, "notes"), async {
        let asked = inbox.next_of("elicitation.created").await;
        assert_eq!((&asked["asked_by"], &asked["tool"]), (&json!("herald"), &Value::Null), "{asked}");
        assert_eq!(inbox.respond(&asked["id"], "decline", None).await["type"], "ack");
    });
    let Err(refused) = refused else { panic!("initialize is refused") };
    assert!(refused.contains("/connections?connect=acme/notes"), "{refused}");
    let pending = body(owner_session.get("/api/v1/orgs/acme/elicitations?status=pending").await).await;
    assert_eq!(pending["elicitations"], json!([]), "{pending}");

    // Asked again, Olive connects from the question: the same initialize goes on, and the
    // session it opened acts as her.
    let olive = signed_in(&app, "owner@example.com").await;
    let (agent, ()) = tokio::join!(Agent::legacy(&app, &token, "notes"), async {
        let asked = inbox.next_of("elicitation.created").await;
        assert_eq!(asked["asked_by"], "herald");
        let page = asked["url"].as_str().unwrap().strip_prefix(app.base.as_str()).unwrap().to_owned();
        let authorize = agreed_start(&olive, &page).await;
        let back = at_the_provider_with(&app, &olive, &authorize, "olive", &[]).await;
        location(&olive.http.get(&back).send().await.unwrap());
    });
    assert_eq!(outcome(&agent.call(1, "whoami", json!({})).await), "you are olive");
    // Herald's question is in the history as Herald's, answered by connecting.
    let history = body(owner_session.get("/api/v1/orgs/acme/elicitations?status=resolved").await).await;
    let reasons: Vec<(&Value, &Value)> =
        history["elicitations"].as_array().unwrap().iter().map(|e| (&e["asked_by"], &e["reason"])).collect();
    assert_eq!(reasons, [(&json!("herald"), &json!("connected")), (&json!("herald"), &json!("declined"))]);
}

#[tokio::test]
#[ignore = "needs the Python SDK: run tests/peers/install.sh, then cargo test -- --include-ignored"]
async fn a_refused_token_is_renewed_mid_link_and_a_step_up_asks_the_person_for_the_scope() {
    let upstream = OAuthServer::start(3600).await;
    let app = TestApp::spawn().await;
    let owner_session = app.owner().await;
    register_notes(&owner_session, &upstream.mcp_url).await;
    let token = app.token(&owner_session, "acme", "agent").await;
    let olive = signed_in(&app, "owner@example.com").await;
    connect(&app, &olive, "olive", &[]).await;
    let modern = Agent::modern(&app, &token, "notes");
    let legacy = Agent::legacy(&app, &token, "notes").await;
    assert_eq!(outcome(&modern.call(1, "whoami", json!({})).await), "you are olive");
    assert_eq!(outcome(&legacy.call(2, "whoami", json!({})).await), "you are olive");

    // The server stops taking the tokens Herald still thinks good: each link's next request gets
    // a 401, and the call is made again with a refreshed token, unseen by the agent.
    upstream.control("/_test/expire-access-tokens", json!({})).await;
    assert_eq!(outcome(&modern.call(3, "whoami", json!({})).await), "you are olive");
    assert_eq!(outcome(&legacy.call(4, "whoami", json!({})).await), "you are olive");
    let requests = upstream.look("/_test/requests").await;
    let refreshes =
        requests.as_array().unwrap().iter().filter(|r| r["params"]["grant_type"] == "refresh_token").count();
    assert_eq!(refreshes, 1, "one refresh serves both links: {requests}");

    // A tool that needs more than Olive granted: the 403's scopes make Herald ask her, in the
    // inbox, to connect again; the connect page asks for them; the call then goes on.
    let mut inbox = Dashboard::open(&app, &token).await;
    let (written, ()) = tokio::join!(modern.call(5, "write_note", json!({ "text": "hello" })), async {
        let asked = inbox.next_of("elicitation.created").await;
        assert_eq!((&asked["asked_by"], &asked["tool"]), (&json!("herald"), &json!("write_note")), "{asked}");
        assert!(asked["message"].as_str().unwrap().contains("notes:write"), "{asked}");
        let page = asked["url"].as_str().unwrap().strip_prefix(app.base.as_str()).unwrap().to_owned();
        let authorize = reqwest::Url::parse(&agreed_start(&olive, &page).await).unwrap();
        let scope = authorize.query_pairs().find(|(k, _)| k == "scope").map(|(_, v)| v.into_owned()).unwrap();
        let mut scopes: Vec<&str> = scope.split(' ').collect();
        scopes.sort_unstable();
        assert_eq!(scopes, ["mcp:tools", "notes:write"], "what the server wants, and what she granted");
        let back = at_the_provider_with(&app, &olive, authorize.as_str(), "olive", &[]).await;
        location(&olive.http.get(&back).send().await.unwrap());
    });
    assert_eq!(outcome(&written), "note 1 saved for olive: hello");
    let list = body(olive.get("/api/v1/me/connections").await).await;
    let mut granted: Vec<String> = serde_json::from_value(list["connections"][0]["scopes"].clone()).unwrap();
    granted.sort_unstable();
    assert_eq!(granted, ["mcp:tools", "notes:write"]);
    // The legacy session takes the new token too (its link is renewed after its 401).
    assert_eq!(
        outcome(&legacy.call(6, "write_note", json!({ "text": "again" })).await),
        "note 2 saved for olive: again"
    );

    // Revoked at the authorization server, refresh token and all: the next call asks her to
    // connect again rather than failing.
    upstream.control("/_test/revoke-subject", json!({ "subject": "olive" })).await;
    let (again, ()) = tokio::join!(modern.call(7, "whoami", json!({})), async {
        let asked = inbox.next_of("elicitation.created").await;
        assert_eq!(asked["asked_by"], "herald", "{asked}");
        assert_eq!(inbox.respond(&asked["id"], "cancel", None).await["type"], "ack");
    });
    let again = outcome(&again);
    assert!(again.contains("/connections?connect=acme/notes"), "{again}");
}

#[tokio::test]
#[ignore = "needs the Python SDK: run tests/peers/install.sh, then cargo test -- --include-ignored"]
async fn the_sdk_as_it_ships_without_iss_or_a_challenge_scope_is_connected_to() {
    let upstream = OAuthServer::start_with(3600, true).await;
    let app = TestApp::spawn().await;
    let owner_session = app.owner().await;
    register_notes(&owner_session, &upstream.mcp_url).await;
    let token = app.token(&owner_session, "acme", "agent").await;
    let olive = signed_in(&app, "owner@example.com").await;
    let authorize = reqwest::Url::parse(&agreed_start(&olive, "/connect/acme/notes/start").await).unwrap();
    // No scope in the challenge: the metadata's scopes_supported.
    let scope = authorize.query_pairs().find(|(k, _)| k == "scope").map(|(_, v)| v.into_owned());
    assert_eq!(scope.as_deref(), Some("mcp:tools"));
    let back = at_the_provider_with(&app, &olive, authorize.as_str(), "olive", &[]).await;
    assert!(!back.contains("iss="), "the SDK sends no iss: {back}");
    // Not advertised, not sent: accepted (RFC 9207 section 2.4).
    assert_eq!(location(&olive.http.get(&back).send().await.unwrap()), "/connections?connected=acme/notes");
    let agent = Agent::modern(&app, &token, "notes");
    assert_eq!(outcome(&agent.call(1, "whoami", json!({})).await), "you are olive");
}

#[tokio::test]
#[ignore = "needs the Python SDK: run tests/peers/install.sh, then cargo test -- --include-ignored"]
async fn a_token_about_to_expire_is_refreshed_before_the_call() {
    // Tokens live 30 s: shorter than the minute Herald renews ahead, so every call renews.
    let upstream = OAuthServer::start(30).await;
    let app = TestApp::spawn().await;
    let owner_session = app.owner().await;
    register_notes(&owner_session, &upstream.mcp_url).await;
    let token = app.token(&owner_session, "acme", "agent").await;
    let olive = signed_in(&app, "owner@example.com").await;
    connect(&app, &olive, "olive", &[]).await;
    let agent = Agent::modern(&app, &token, "notes");
    assert_eq!(outcome(&agent.call(1, "whoami", json!({})).await), "you are olive");
    assert_eq!(outcome(&agent.call(2, "whoami", json!({})).await), "you are olive", "after a rotation");
    let requests = upstream.look("/_test/requests").await;
    let refreshes: Vec<&Value> = requests
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["params"]["grant_type"] == "refresh_token")
        .collect();
    assert!(refreshes.len() >= 2, "{requests}");
    assert!(refreshes.iter().all(|r| r["params"]["resource"] == upstream.mcp_url && r["status"] == 200));
}

#[tokio::test]
#[ignore = "needs the Python SDK: run tests/peers/install.sh, then cargo test -- --include-ignored"]
async fn a_refused_replayed_or_misattributed_answer_connects_nobody() {
    let upstream = OAuthServer::start(3600).await;
    let app = TestApp::spawn().await;
    let owner_session = app.owner().await;
    register_notes(&owner_session, &upstream.mcp_url).await;
    let olive = signed_in(&app, "owner@example.com").await;

    // The person says no.
    let denied = query_of(&connect(&app, &olive, "olive", &[("deny", "1")]).await);
    assert_eq!(denied["connect_error"], "refused");
    assert!(denied["detail"].starts_with("access_denied"), "{denied:?}");

    // An answer naming another issuer.
    let authorize = agreed_start(&olive, "/connect/acme/notes/start").await;
    let back = at_the_provider_with(&app, &olive, &authorize, "olive", &[]).await;
    let mut tampered = reqwest::Url::parse(&back).unwrap();
    let pairs: Vec<(String, String)> = tampered
        .query_pairs()
        .map(|(k, v)| (k.to_string(), if k == "iss" { "http://127.0.0.1:1".into() } else { v.to_string() }))
        .collect();
    tampered.query_pairs_mut().clear().extend_pairs(pairs);
    let wrong = query_of(&location(&olive.http.get(tampered.as_str()).send().await.unwrap()));
    assert_eq!(wrong["connect_error"], "wrong_issuer");
    // …and the real answer, brought back after it, finds its attempt spent.
    let replay = query_of(&location(&olive.http.get(&back).send().await.unwrap()));
    assert_eq!(replay["connect_error"], "attempt_unknown");

    // Another browser bringing back a good answer.
    let authorize = agreed_start(&olive, "/connect/acme/notes/start").await;
    let back = at_the_provider_with(&app, &olive, &authorize, "olive", &[]).await;
    let thief = signed_in(&app, "owner@example.com").await;
    let stolen = query_of(&location(&thief.http.get(&back).send().await.unwrap()));
    assert_eq!(stolen["connect_error"], "other_browser");
    assert_eq!(body(olive.get("/api/v1/me/connections").await).await["connections"][0]["connected"], false);
}

#[tokio::test]
async fn a_server_whose_metadata_is_for_another_resource_is_not_connected_to() {
    // A server that refuses with a challenge whose metadata claims to be someone else's.
    let liar = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", liar.local_addr().unwrap());
    let prm = format!("{base}/.well-known/oauth-protected-resource/mcp");
    let challenge = format!("Bearer resource_metadata=\"{prm}\", scope=\"all\"");
    let router = axum::Router::new()
        .route(
            "/mcp",
            axum::routing::post(move || {
                let challenge = challenge.clone();
                async move { (StatusCode::UNAUTHORIZED, [("www-authenticate", challenge)]) }
            }),
        )
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            axum::routing::get(|| async {
                axum::Json(json!({
                    "resource": "https://mail.example.com/mcp",
                    "authorization_servers": ["https://accounts.example.com"],
                }))
            }),
        );
    tokio::spawn(async move { axum::serve(liar, router).await.unwrap() });
    let app = TestApp::spawn().await;
    let owner_session = app.owner().await;
    register_notes(&owner_session, &format!("{base}/mcp")).await;
    let olive = signed_in(&app, "owner@example.com").await;
    let failed = query_of(&location(&olive.get("/connect/acme/notes/start").await));
    assert_eq!(failed["connect_error"], "misconfigured");
    assert!(failed["detail"].contains("mail.example.com"), "{failed:?}");
    assert_eq!(failed["server"], "acme/notes");

    // A server with the shared-headers mode is not one to connect to; nor is one in another org.
    let plain = owner_session
        .post(
            "/api/v1/orgs/acme/servers",
            &json!({ "slug": "plain", "name": "Plain", "url": format!("{base}/mcp") }),
        )
        .await;
    assert_eq!(plain.status(), StatusCode::CREATED);
    assert_eq!(
        query_of(&location(&olive.get("/connect/acme/plain/start").await))["connect_error"],
        "not_oauth"
    );
    assert_eq!(
        query_of(&location(&olive.get("/connect/other/notes/start").await))["connect_error"],
        "no_server"
    );
    // Signed out: to the sign-in page, and back here afterwards.
    let stranger = browser(&app);
    let to_login = location(&stranger.get("/connect/acme/notes/start").await);
    assert!(to_login.starts_with("/login?return_to="), "{to_login}");
}
