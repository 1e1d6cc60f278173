//! Dashboard sockets follow their credential: an API token's socket sees its
//! own organisation only, and a socket closes when its sign-in or token ends.

use futures_util::StreamExt;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use crate::mcp_support::{Agent, Dashboard, PATIENCE, register};
use crate::puppet::{Puppet, ask};
use crate::support::{PASSWORD, Session, TestApp, body};

type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Signs in without a cookie jar: the session cookie, as a `Cookie` header value.
async fn sign_in_cookie(app: &TestApp, email: &str) -> String {
    let response = reqwest::Client::new()
        .post(app.url("/api/v1/auth/login"))
        .json(&json!({ "email": email, "password": PASSWORD }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let set = response.headers().get("set-cookie").unwrap().to_str().unwrap();
    set.split(';').next().unwrap().to_owned()
}

async fn socket_with(app: &TestApp, header: &'static str, value: &str) -> Socket {
    let url = format!("{}/api/v1/ws", app.base).replace("http://", "ws://");
    let mut request = url.into_client_request().unwrap();
    request.headers_mut().insert(header, value.parse().unwrap());
    tokio_tungstenite::connect_async(request).await.expect("the websocket opens").0
}

/// Waits until the server closes the socket (a close frame or the end of the stream).
async fn closed(socket: &mut Socket, why: &str) {
    let ended = tokio::time::timeout(PATIENCE, async {
        while let Some(frame) = socket.next().await {
            match frame {
                Ok(tokio_tungstenite::tungstenite::Message::Close(_)) | Err(_) => return,
                Ok(_) => continue,
            }
        }
    })
    .await;
    assert!(ended.is_ok(), "the socket should close when {why}");
}

/// Owner of acme and beta, with a puppet server registered in both, and an agent token for each.
struct TwoOrgs {
    app: TestApp,
    owner: Session,
    puppet: Puppet,
    acme_token: String,
    beta_token: String,
}

async fn two_orgs() -> TwoOrgs {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    assert_eq!(owner.post("/api/v1/orgs", &json!({ "slug": "beta", "name": "Beta" })).await.status(), 201);
    let puppet = Puppet::start().await;
    register(&owner, "puppet", "Puppet", &puppet.url).await;
    let beta = owner
        .post("/api/v1/orgs/beta/servers", &json!({ "slug": "puppet", "name": "Puppet", "url": puppet.url }))
        .await;
    assert_eq!(beta.status(), 201);
    let acme_token = app.token(&owner, "acme", "acme agent").await;
    let beta_token = app.token(&owner, "beta", "beta agent").await;
    TwoOrgs { app, owner, puppet, acme_token, beta_token }
}

/// A question from beta's puppet to the owner, left pending.
async fn ask_in_beta(w: &TwoOrgs) -> tokio::task::JoinHandle<herald_mcp::Message> {
    let agent = Agent::legacy_at(&w.app.base, "beta", &w.beta_token, "puppet").await;
    let call = tokio::spawn(async move { agent.call(1, "work", json!({})).await });
    w.puppet.sent("beta's call", |m, v| m == "POST" && v["method"] == "tools/call").await;
    w.puppet.push_on_call(ask(1, "A question from beta", json!({ "x": { "type": "string" } })));
    call
}

/// An API token belongs to one organisation: on the websocket it neither sees nor answers the
/// same person's questions from their other organisations; a dashboard sign-in sees them all.
#[tokio::test]
async fn a_token_socket_sees_and_answers_its_own_organisation_only() {
    let w = two_orgs().await;
    let mut acme = Dashboard::open(&w.app, &w.acme_token).await;
    let cookie = sign_in_cookie(&w.app, "owner@example.com").await;
    let mut signed_in = socket_with(&w.app, "cookie", &cookie).await;
    let call = ask_in_beta(&w).await;

    let shown = loop {
        let frame = signed_in.next().await.unwrap().unwrap();
        if let tokio_tungstenite::tungstenite::Message::Text(text) = frame {
            let event: Value = serde_json::from_str(&text).unwrap();
            if event["type"] == "elicitation.created" {
                break event;
            }
        }
    };
    assert_eq!(shown["org"], "beta");
    let id = shown["id"].clone();
    // The acme token's socket was sent nothing about it; answering it there is refused.
    let refused = acme.respond(&id, "decline", None).await;
    assert_eq!(refused["type"], "error", "{refused}");
    assert_eq!(refused["code"], "not_found");
    // Reconnecting with the acme token resyncs acme's pending questions only.
    let mut again = Dashboard::open(&w.app, &w.acme_token).await;
    again.send(json!({ "type": "respond", "id": id, "action": "decline" })).await;
    let reply = again.next().await;
    assert_eq!(
        reply["type"], "error",
        "the first frame is the refusal, not a resynced beta question: {reply}"
    );

    let pending = body(w.owner.get("/api/v1/orgs/beta/elicitations?status=pending").await).await;
    assert_eq!(pending["elicitations"][0]["id"], id, "still pending, unanswered");
    w.puppet.push_on_call(json!({ "end": { "content": [] } }));
    let _ = call.await;
}

/// Signing out closes that sign-in's sockets; a password change closes all of the person's.
#[tokio::test]
async fn sign_in_sockets_close_when_the_sign_in_ends() {
    let app = TestApp::spawn().await;
    let _owner = app.owner().await;
    let first = sign_in_cookie(&app, "owner@example.com").await;
    let second = sign_in_cookie(&app, "owner@example.com").await;
    let (mut one, mut two) =
        (socket_with(&app, "cookie", &first).await, socket_with(&app, "cookie", &second).await);

    let origin = app.base.clone();
    let logout = reqwest::Client::new()
        .post(app.url("/api/v1/auth/logout"))
        .header("cookie", &first)
        .header("origin", &origin)
        .send()
        .await
        .unwrap();
    assert_eq!(logout.status(), 204);
    closed(&mut one, "its sign-in ends").await;

    let change = reqwest::Client::new()
        .post(app.url("/api/v1/auth/password"))
        .header("cookie", &second)
        .header("origin", &origin)
        .json(&json!({ "current_password": PASSWORD, "new_password": "a whole new passphrase 42" }))
        .send()
        .await
        .unwrap();
    assert_eq!(change.status(), 204, "{}", change.text().await.unwrap());
    closed(&mut two, "the password changes").await;
}

/// Revoking a token closes its sockets; a member who leaves an organisation loses the sockets
/// of their tokens there.
#[tokio::test]
async fn token_sockets_close_when_the_token_or_the_membership_ends() {
    let w = two_orgs().await;
    let mut revoked = socket_with(&w.app, "authorization", &format!("Bearer {}", w.acme_token)).await;
    let tokens = body(w.owner.get("/api/v1/orgs/acme/tokens").await).await;
    let id = tokens["tokens"].as_array().unwrap().iter().find(|t| t["name"] == "acme agent").unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(w.owner.delete(&format!("/api/v1/orgs/acme/tokens/{id}")).await.status(), 204);
    closed(&mut revoked, "its token is revoked").await;

    let member = w.app.join(&w.owner, "beta", "mia@example.com", "member").await;
    let token = w.app.token(&member, "beta", "mia's agent").await;
    let mut theirs = socket_with(&w.app, "authorization", &format!("Bearer {token}")).await;
    let me = body(member.get("/api/v1/me").await).await;
    let user_id = me["user"]["id"].as_str().unwrap();
    assert_eq!(w.owner.delete(&format!("/api/v1/orgs/beta/members/{user_id}")).await.status(), 204);
    closed(&mut theirs, "its member leaves the organisation").await;
}
