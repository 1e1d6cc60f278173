//! Invites, roles, removal, and the last-owner rule.

use herald_gateway::crypto;
use herald_gateway::domain::Role;
use herald_gateway::storage::NewInvite;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::{PASSWORD, Session, TestApp, body, fields, problem};

async fn member_id(session: &Session) -> String {
    body(session.get("/api/v1/me").await).await["user"]["id"].as_str().unwrap().to_owned()
}

async fn roles(session: &Session) -> Vec<(String, String)> {
    let list = body(session.get("/api/v1/orgs/acme/members").await).await;
    list["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["user"]["email"].as_str().unwrap().to_owned(), m["role"].as_str().unwrap().to_owned()))
        .collect()
}

#[tokio::test]
async fn an_invite_link_adds_a_member_once() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let created = owner
        .post("/api/v1/orgs/acme/invites", &json!({ "email": "Mia@Example.com", "role": "member" }))
        .await;
    assert_eq!(created.status(), StatusCode::CREATED);
    let invite = body(created).await;
    assert_eq!(invite["email"], "mia@example.com");
    assert_eq!(invite["role"], "member");
    let link = invite["link"].as_str().unwrap();
    assert!(link.starts_with(&format!("{}/invite#token=", app.base)), "{link}");
    let token = link.split_once("#token=").unwrap().1;

    let listed = body(owner.get("/api/v1/orgs/acme/invites").await).await;
    assert_eq!(listed["invites"][0]["id"], invite["id"]);
    assert!(listed["invites"][0].get("link").is_none(), "the link is shown only at creation");

    let anon = app.browser();
    let preview = body(anon.post("/api/v1/invites/preview", &json!({ "token": token })).await).await;
    assert_eq!(preview["org"], json!({ "slug": "acme", "name": "Acme" }));
    assert_eq!(preview["email"], "mia@example.com");

    let weak =
        anon.post("/api/v1/invites/accept", &json!({ "token": token, "name": "Mia", "password": "" })).await;
    assert_eq!(
        fields(&problem(weak, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await),
        ["password"]
    );

    let mia = app.browser();
    let accepted = mia
        .post("/api/v1/invites/accept", &json!({ "token": token, "name": "Mia", "password": PASSWORD }))
        .await;
    assert_eq!(accepted.status(), StatusCode::CREATED);
    let accepted = body(accepted).await;
    assert_eq!(accepted["membership"]["role"], "member");
    assert_eq!(body(mia.get("/api/v1/me").await).await["user"]["name"], "Mia");

    // Replaying the link does nothing.
    let replay = app.browser();
    let again = replay
        .post("/api/v1/invites/accept", &json!({ "token": token, "name": "Eve", "password": PASSWORD }))
        .await;
    problem(again, StatusCode::GONE, "invite-unavailable").await;
    problem(
        replay.post("/api/v1/invites/preview", &json!({ "token": token })).await,
        StatusCode::GONE,
        "invite-unavailable",
    )
    .await;
    assert_eq!(body(owner.get("/api/v1/orgs/acme/invites").await).await["invites"], json!([]));
    assert_eq!(roles(&owner).await.len(), 2);
}

#[tokio::test]
async fn existing_accounts_accept_while_signed_in_as_themselves_or_with_their_password() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let created = owner.post("/api/v1/orgs", &json!({ "slug": "beta", "name": "Beta" })).await;
    assert_eq!(created.status(), StatusCode::CREATED);
    let sam = app.join(&owner, "beta", "sam@example.com", "member").await;

    let invite = body(
        owner
            .post("/api/v1/orgs/acme/invites", &json!({ "email": "sam@example.com", "role": "admin" }))
            .await,
    )
    .await;
    let token = invite["link"].as_str().unwrap().split_once("#token=").unwrap().1.to_owned();
    let stranger = app.browser();
    let refused = stranger
        .post(
            "/api/v1/invites/accept",
            &json!({ "token": token, "name": "X", "password": "a wrong passphrase" }),
        )
        .await;
    problem(refused, StatusCode::UNAUTHORIZED, "invalid-credentials").await;
    // Signed in as someone else, the link asks for a name and password like it does of anyone.
    let as_owner = owner.post("/api/v1/invites/accept", &json!({ "token": token })).await;
    let p = problem(as_owner, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    assert_eq!(fields(&p), ["name", "password"]);

    let accepted = sam.post("/api/v1/invites/accept", &json!({ "token": token })).await;
    assert_eq!(accepted.status(), StatusCode::OK);
    let slugs: Vec<Value> = body(sam.get("/api/v1/me").await).await["memberships"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| json!([m["org"]["slug"], m["role"]]))
        .collect();
    assert_eq!(slugs, [json!(["acme", "admin"]), json!(["beta", "member"])]);
}

#[tokio::test]
async fn expired_and_revoked_invites_are_refused() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let me = body(owner.get("/api/v1/me").await).await;
    let owner_id = me["user"]["id"].as_str().unwrap().parse().unwrap();
    let org = app.state.store.membership("acme", owner_id).await.unwrap().unwrap().org;
    let now = time::OffsetDateTime::now_utc();
    let secret = "an-expired-invite-secret";
    app.state
        .store
        .create_invite(
            org.id,
            NewInvite {
                email: "late@example.com".into(),
                role: Role::Member,
                token_hash: crypto::token_hash(secret),
                created_by: owner_id,
                expires_at: now - time::Duration::seconds(1),
            },
            now - time::Duration::days(8),
        )
        .await
        .unwrap();
    let anon = app.browser();
    let late = anon
        .post("/api/v1/invites/accept", &json!({ "token": secret, "name": "Late", "password": PASSWORD }))
        .await;
    problem(late, StatusCode::GONE, "invite-unavailable").await;

    let invite = body(
        owner
            .post("/api/v1/orgs/acme/invites", &json!({ "email": "rev@example.com", "role": "member" }))
            .await,
    )
    .await;
    let token = invite["link"].as_str().unwrap().split_once("#token=").unwrap().1.to_owned();
    let id = invite["id"].as_str().unwrap();
    assert_eq!(
        owner.delete(&format!("/api/v1/orgs/acme/invites/{id}")).await.status(),
        StatusCode::NO_CONTENT
    );
    problem(
        owner.delete(&format!("/api/v1/orgs/acme/invites/{id}")).await,
        StatusCode::NOT_FOUND,
        "not-found",
    )
    .await;
    let revoked = anon
        .post("/api/v1/invites/accept", &json!({ "token": token, "name": "Rev", "password": PASSWORD }))
        .await;
    problem(revoked, StatusCode::GONE, "invite-unavailable").await;
    assert_eq!(roles(&owner).await.len(), 1);
}

#[tokio::test]
async fn invites_refuse_bad_input() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let bad_email =
        owner.post("/api/v1/orgs/acme/invites", &json!({ "email": "nope", "role": "member" })).await;
    assert_eq!(
        fields(&problem(bad_email, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await),
        ["email"]
    );
    let bad_role =
        owner.post("/api/v1/orgs/acme/invites", &json!({ "email": "a@example.com", "role": "god" })).await;
    assert_eq!(fields(&problem(bad_role, StatusCode::BAD_REQUEST, "malformed-body").await), ["role"]);
    let member = owner
        .post("/api/v1/orgs/acme/invites", &json!({ "email": "owner@example.com", "role": "member" }))
        .await;
    problem(member, StatusCode::CONFLICT, "already-member").await;
    assert_eq!(body(owner.get("/api/v1/orgs/acme/invites").await).await["invites"], json!([]));
}

#[tokio::test]
async fn roles_change_within_the_rules_and_the_last_owner_stays() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let owner_id = member_id(&owner).await;
    let admin = app.join(&owner, "acme", "admin@example.com", "admin").await;
    let member = app.join(&owner, "acme", "member@example.com", "member").await;
    let member_id = member_id(&member).await;

    // The only owner can be neither demoted nor removed, not even by themself.
    let demote =
        owner.patch(&format!("/api/v1/orgs/acme/members/{owner_id}"), &json!({ "role": "admin" })).await;
    problem(demote, StatusCode::CONFLICT, "last-owner").await;
    let leave = owner.delete(&format!("/api/v1/orgs/acme/members/{owner_id}")).await;
    problem(leave, StatusCode::CONFLICT, "last-owner").await;

    // Admins manage members but not ownership.
    let promote =
        admin.patch(&format!("/api/v1/orgs/acme/members/{member_id}"), &json!({ "role": "admin" })).await;
    assert_eq!(body(promote).await["role"], "admin");
    let crown =
        admin.patch(&format!("/api/v1/orgs/acme/members/{member_id}"), &json!({ "role": "owner" })).await;
    problem(crown, StatusCode::FORBIDDEN, "forbidden").await;
    let depose =
        admin.patch(&format!("/api/v1/orgs/acme/members/{owner_id}"), &json!({ "role": "member" })).await;
    problem(depose, StatusCode::FORBIDDEN, "forbidden").await;
    let remove_owner = admin.delete(&format!("/api/v1/orgs/acme/members/{owner_id}")).await;
    problem(remove_owner, StatusCode::FORBIDDEN, "forbidden").await;

    // With a second owner, the first may step down.
    let crown =
        owner.patch(&format!("/api/v1/orgs/acme/members/{member_id}"), &json!({ "role": "owner" })).await;
    assert_eq!(body(crown).await["role"], "owner");
    let step_down =
        owner.patch(&format!("/api/v1/orgs/acme/members/{owner_id}"), &json!({ "role": "member" })).await;
    assert_eq!(body(step_down).await["role"], "member");
    assert_eq!(
        roles(&admin).await,
        [
            ("owner@example.com".to_owned(), "member".to_owned()),
            ("admin@example.com".to_owned(), "admin".to_owned()),
            ("member@example.com".to_owned(), "owner".to_owned()),
        ]
    );
    let unknown = member.patch("/api/v1/orgs/acme/members/not-a-uuid", &json!({ "role": "admin" })).await;
    problem(unknown, StatusCode::NOT_FOUND, "not-found").await;
    let nobody = member
        .patch(&format!("/api/v1/orgs/acme/members/{}", uuid::Uuid::new_v4()), &json!({ "role": "admin" }))
        .await;
    problem(nobody, StatusCode::NOT_FOUND, "not-found").await;
}

#[tokio::test]
async fn removal_takes_effect_on_the_next_request_and_revokes_tokens() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let member = app.join(&owner, "acme", "member@example.com", "member").await;
    let token = app.token(&member, "acme", "laptop").await;
    let agent = app.agent(&token);
    assert_eq!(agent.get("/api/v1/orgs/acme/servers").await.status(), StatusCode::OK);
    assert_eq!(member.get("/api/v1/orgs/acme").await.status(), StatusCode::OK);

    let id = member_id(&member).await;
    assert_eq!(
        owner.delete(&format!("/api/v1/orgs/acme/members/{id}")).await.status(),
        StatusCode::NO_CONTENT
    );
    problem(member.get("/api/v1/orgs/acme").await, StatusCode::NOT_FOUND, "not-found").await;
    problem(agent.get("/api/v1/orgs/acme/servers").await, StatusCode::UNAUTHORIZED, "unauthenticated").await;
    assert_eq!(body(member.get("/api/v1/me").await).await["memberships"], json!([]));

    // Leaving is always allowed for a non-last owner.
    let other = app.join(&owner, "acme", "other@example.com", "member").await;
    let other_id = member_id(&other).await;
    assert_eq!(
        other.delete(&format!("/api/v1/orgs/acme/members/{other_id}")).await.status(),
        StatusCode::NO_CONTENT
    );
    assert_eq!(roles(&owner).await.len(), 1);
}

#[tokio::test]
async fn a_role_change_reaches_the_members_tokens_on_the_next_request() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let member = app.join(&owner, "acme", "member@example.com", "member").await;
    let agent = app.agent(&app.token(&member, "acme", "laptop").await);
    problem(agent.get("/api/v1/orgs/acme/audit").await, StatusCode::FORBIDDEN, "forbidden").await;
    let id = member_id(&member).await;
    let promoted = owner.patch(&format!("/api/v1/orgs/acme/members/{id}"), &json!({ "role": "admin" })).await;
    assert_eq!(promoted.status(), StatusCode::OK);
    assert_eq!(agent.get("/api/v1/orgs/acme/audit").await.status(), StatusCode::OK);
    let demoted = owner.patch(&format!("/api/v1/orgs/acme/members/{id}"), &json!({ "role": "member" })).await;
    assert_eq!(demoted.status(), StatusCode::OK);
    problem(agent.get("/api/v1/orgs/acme/audit").await, StatusCode::FORBIDDEN, "forbidden").await;
}
