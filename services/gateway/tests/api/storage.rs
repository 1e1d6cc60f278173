//! The store itself: tenant isolation in the data layer, and the
//! compare-and-set rules under concurrency, on whichever database is under test.

use std::sync::Arc;

use herald_gateway::crypto;
use herald_gateway::domain::Role;
use herald_gateway::storage::{
    Conflict, Joiner, NewApiToken, NewInvite, NewOrg, NewServer, NewUser, ServerChanges, Store, StoreError,
};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::support::TestApp;

fn now() -> OffsetDateTime {
    OffsetDateTime::now_utc()
}

fn user(email: &str) -> NewUser {
    NewUser { email: email.into(), name: email.into(), password_hash: "not-a-real-hash".into() }
}

async fn org_with_owner(store: &Arc<dyn Store>, slug: &str, email: &str) -> (Uuid, Uuid) {
    let (org, owner) = store
        .create_org(NewOrg { slug: slug.into(), name: slug.into() }, Joiner::New(user(email)), now())
        .await
        .unwrap();
    (org.id, owner.id)
}

fn server(slug: &str) -> NewServer {
    NewServer {
        id: Uuid::now_v7(),
        slug: slug.into(),
        name: slug.into(),
        url: "https://x.example/mcp".into(),
        header_names: vec![],
        headers_sealed: vec![],
        protocol: Default::default(),
        auth_mode: Default::default(),
        oauth_client: None,
    }
}

fn is_not_found<T: std::fmt::Debug>(result: Result<T, StoreError>) -> bool {
    matches!(result, Err(StoreError::NotFound))
}

#[tokio::test]
async fn org_scoped_queries_never_cross_tenants() {
    let app = TestApp::spawn().await;
    let store = app.state.store.clone();
    let (acme, acme_owner) = org_with_owner(&store, "acme", "a@example.com").await;
    let (beta, beta_owner) = org_with_owner(&store, "beta", "b@example.com").await;
    store.create_server(acme, server("shared-slug"), now()).await.unwrap();

    assert!(store.server(beta, "shared-slug").await.unwrap().is_none());
    assert!(store.servers(beta).await.unwrap().is_empty());
    assert!(is_not_found(store.update_server(beta, "shared-slug", ServerChanges::default(), now()).await));
    assert!(is_not_found(store.set_cut_off(beta, "shared-slug", None, now()).await));
    assert!(is_not_found(store.delete_server(beta, "shared-slug").await));
    assert!(store.server(acme, "shared-slug").await.unwrap().is_some(), "acme's server is untouched");

    let token = store
        .create_api_token(
            acme,
            acme_owner,
            NewApiToken {
                name: "t".into(),
                prefix: "hrl_x".into(),
                secret_hash: vec![1; 32],
                expires_at: None,
            },
            now(),
        )
        .await
        .unwrap();
    assert!(store.api_tokens(beta, acme_owner).await.unwrap().is_empty());
    assert!(is_not_found(store.revoke_api_token(beta, acme_owner, token.id, now()).await));
    assert!(is_not_found(store.revoke_api_token(acme, beta_owner, token.id, now()).await));
    assert_eq!(store.api_tokens(acme, acme_owner).await.unwrap().len(), 1);

    assert!(is_not_found(store.set_role(beta, acme_owner, Role::Member, Role::Owner).await));
    assert!(is_not_found(store.remove_member(beta, acme_owner, Role::Owner).await));
    assert!(store.membership("beta", acme_owner).await.unwrap().is_none());
    let members: Vec<_> = store.members(beta).await.unwrap().into_iter().map(|m| m.user.id).collect();
    assert_eq!(members, [beta_owner]);

    let invite = store
        .create_invite(
            acme,
            NewInvite {
                email: "c@example.com".into(),
                role: Role::Member,
                token_hash: vec![2; 32],
                created_by: acme_owner,
                expires_at: now() + time::Duration::days(1),
            },
            now(),
        )
        .await
        .unwrap();
    assert!(store.pending_invites(beta, now()).await.unwrap().is_empty());
    assert!(is_not_found(store.revoke_invite(beta, invite.id, now()).await));
    assert_eq!(store.pending_invites(acme, now()).await.unwrap().len(), 1);
    assert!(store.policy(beta).await.unwrap().is_none());
}

#[tokio::test]
async fn two_owners_demoting_each_other_at_once_leave_one_owner() {
    let app = TestApp::spawn().await;
    let store = app.state.store.clone();
    for round in 0..8 {
        let (org, first) =
            org_with_owner(&store, &format!("race-{round}"), &format!("first{round}@example.com")).await;
        let second = store
            .create_org(
                NewOrg { slug: format!("side-{round}"), name: "side".into() },
                Joiner::New(user(&format!("second{round}@example.com"))),
                now(),
            )
            .await
            .unwrap()
            .1
            .id;
        let hash = crypto::token_hash(&format!("race-invite-{round}"));
        store
            .create_invite(
                org,
                NewInvite {
                    email: "x".into(),
                    role: Role::Owner,
                    token_hash: hash.clone(),
                    created_by: first,
                    expires_at: now() + time::Duration::days(1),
                },
                now(),
            )
            .await
            .unwrap();
        store.accept_invite(&hash, Joiner::Existing(second), now()).await.unwrap();

        let (a, b) = tokio::join!(
            store.set_role(org, first, Role::Member, Role::Owner),
            store.set_role(org, second, Role::Member, Role::Owner)
        );
        let outcomes = [a.is_ok(), b.is_ok()];
        assert_eq!(outcomes.iter().filter(|ok| **ok).count(), 1, "round {round}: exactly one demotion wins");
        let refused = a.err().or(b.err()).expect("one demotion was refused");
        assert!(matches!(refused, StoreError::Conflict(Conflict::LastOwner)), "{refused:?}");
        let owners = store.members(org).await.unwrap().into_iter().filter(|m| m.role == Role::Owner).count();
        assert_eq!(owners, 1);
    }
}

#[tokio::test]
async fn an_invite_accepted_twice_at_once_is_used_once() {
    let app = TestApp::spawn().await;
    let store = app.state.store.clone();
    let (org, owner) = org_with_owner(&store, "acme", "a@example.com").await;
    let hash = crypto::token_hash("one-invite");
    store
        .create_invite(
            org,
            NewInvite {
                email: "n@example.com".into(),
                role: Role::Member,
                token_hash: hash.clone(),
                created_by: owner,
                expires_at: now() + time::Duration::days(1),
            },
            now(),
        )
        .await
        .unwrap();
    let (a, b) = tokio::join!(
        store.accept_invite(&hash, Joiner::New(user("n@example.com")), now()),
        store.accept_invite(&hash, Joiner::New(user("n2@example.com")), now()),
    );
    assert_eq!([a.is_ok(), b.is_ok()].iter().filter(|ok| **ok).count(), 1);
    assert_eq!(store.members(org).await.unwrap().len(), 2);
    // The loser's account was not created either.
    let loser = if a.is_ok() { "n2@example.com" } else { "n@example.com" };
    assert!(store.user_by_email(loser).await.unwrap().is_none());
}

#[tokio::test]
async fn concurrent_first_starts_agree_on_one_instance_key() {
    let app = TestApp::spawn().await;
    let store = app.state.store.clone();
    // TestApp configured a key, so none is stored yet.
    let (a, b) = tokio::join!(store.instance_secret("candidate-a"), store.instance_secret("candidate-b"));
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!(a, b);
    assert_eq!(store.instance_secret("candidate-c").await.unwrap(), a);
}

#[tokio::test]
async fn only_owners_touch_the_owner_role() {
    let app = TestApp::spawn().await;
    let store = app.state.store.clone();
    let (org, owner) = org_with_owner(&store, "acme", "a@example.com").await;
    let (_, other) = org_with_owner(&store, "side", "b@example.com").await;
    let hash = crypto::token_hash("member-invite");
    store
        .create_invite(
            org,
            NewInvite {
                email: "b@example.com".into(),
                role: Role::Member,
                token_hash: hash.clone(),
                created_by: owner,
                expires_at: now() + time::Duration::days(1),
            },
            now(),
        )
        .await
        .unwrap();
    store.accept_invite(&hash, Joiner::Existing(other), now()).await.unwrap();
    let owners_only = |r: Result<_, StoreError>| matches!(r, Err(StoreError::Conflict(Conflict::OwnersOnly)));
    assert!(owners_only(store.set_role(org, other, Role::Owner, Role::Admin).await.map(|_| ())));
    assert!(owners_only(store.set_role(org, owner, Role::Member, Role::Admin).await.map(|_| ())));
    assert!(owners_only(store.remove_member(org, owner, Role::Admin).await));
    // Each change says what the role was, read as the rules were checked.
    let (now_admin, was) = store.set_role(org, other, Role::Admin, Role::Admin).await.unwrap();
    assert_eq!((now_admin.role, was), (Role::Admin, Role::Member));
    let (now_owner, was) = store.set_role(org, other, Role::Owner, Role::Owner).await.unwrap();
    assert_eq!((now_owner.role, was), (Role::Owner, Role::Admin));
}

#[tokio::test]
async fn saving_a_policy_returns_the_document_it_replaced_even_when_two_saves_race() {
    let app = TestApp::spawn().await;
    let store = app.state.store.clone();
    let (org, owner) = org_with_owner(&store, "racing", "racing@example.com").await;
    let doc = |n: u32| serde_json::json!({ "rate_caps": { "per_org_per_hour": n } });
    assert_eq!(store.put_policy(org, &doc(1), owner, now()).await.unwrap(), None, "nothing stored before");
    assert_eq!(store.put_policy(org, &doc(2), owner, now()).await.unwrap(), Some(doc(1)));
    // Two saves at once: each replaced a different document, and one of them replaced the other.
    let (third, fourth) = (doc(3), doc(4));
    let (a, b) = tokio::join!(
        store.put_policy(org, &third, owner, now()),
        store.put_policy(org, &fourth, owner, now())
    );
    let (a, b) = (a.unwrap().unwrap(), b.unwrap().unwrap());
    assert_ne!(a, b, "both diffed against the same document");
    assert!([a.clone(), b.clone()].contains(&doc(2)), "{a} {b}");
    assert!([a, b].iter().any(|d| *d == third || *d == fourth), "the later save replaced the earlier one");
}
