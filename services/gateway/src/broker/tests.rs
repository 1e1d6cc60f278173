//! The question lifecycle without a socket: a broker on a SQLite file, its
//! hub's queue standing in for a dashboard, and a waiter awaited in place of a
//! call. Each test takes one question in through `Broker::ask` and ends it one way.

use std::sync::Arc;

use herald_mcp::{ElicitAction, ProtocolGeneration};
use serde_json::{Value, json};
use time::OffsetDateTime;
use uuid::Uuid;

use super::question::{Channel, Origin, Question, Refused};
use super::respond::{Answer, respond};
use super::{Broker, hub::Scope};
use crate::config::DatabaseUrl;
use crate::domain::ServerProtocol;
use crate::domain::outcome::{DecidedBy, Reason};
use crate::lookup::Lookups;
use crate::storage::{self, Joiner, NewOrg, NewServer, NewUser, Store};

struct World {
    broker: Arc<Broker>,
    store: Arc<dyn Store>,
    origin: Origin,
    dir: std::path::PathBuf,
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// An org with its owner and one registered server, on a fresh SQLite file.
async fn world() -> World {
    let dir = std::env::temp_dir().join(format!("herald-broker-{}", Uuid::new_v4().simple()));
    let store = storage::open(&DatabaseUrl::Sqlite { path: dir.join("herald.db") }).await.expect("store");
    let now = OffsetDateTime::now_utc();
    let (org, owner) = store
        .create_org(
            NewOrg { slug: "acme".into(), name: "Acme".into() },
            Joiner::New(NewUser {
                email: "owner@acme.test".into(),
                name: "Owner".into(),
                password_hash: "not a real hash".into(),
            }),
            now,
        )
        .await
        .expect("org");
    let server = store
        .create_server(
            org.id,
            NewServer {
                id: Uuid::now_v7(),
                slug: "docs".into(),
                name: "Docs".into(),
                url: "https://docs.example/mcp".into(),
                header_names: vec![],
                headers_sealed: vec![],
                protocol: ServerProtocol::Auto,
                auth_mode: Default::default(),
                oauth_client: None,
            },
            now,
        )
        .await
        .expect("server");
    let lookups = Arc::new(Lookups::new(store.clone()));
    let broker = Broker::new(store.clone(), lookups, false);
    let origin =
        Origin { org_id: org.id, org_slug: org.slug, user_id: owner.id, server, tool: Some("search".into()) };
    World { broker, store, origin, dir }
}

fn form(message: &str) -> Question {
    let params = json!({
        "message": message,
        "requestedSchema": { "type": "object", "properties": { "q": { "type": "string" } }, "required": ["q"] },
    });
    let raw = serde_json::value::to_raw_value(&params).unwrap();
    Question::from_server(ProtocolGeneration::Legacy, Some(&raw))
}

/// The next event the person's dashboard receives.
async fn next_event(events: &mut tokio::sync::mpsc::Receiver<axum::extract::ws::Utf8Bytes>) -> Value {
    let frame = events.recv().await.expect("an event");
    serde_json::from_str(frame.as_str()).unwrap()
}

#[tokio::test]
async fn a_question_reaches_its_person_and_their_answer_reaches_the_waiting_call() {
    let w = world().await;
    let (_seat, mut events) =
        w.broker.hub.join(w.origin.user_id, Scope::Session { session_id: Uuid::new_v4() });
    let waiter = w.broker.ask(&w.origin, form("Which query?")).await.expect("taken in");
    let shown = next_event(&mut events).await;
    assert_eq!(shown["type"], "elicitation.created");
    assert_eq!(shown["server"]["name"], "Docs", "attributed to the server as registered");
    assert_eq!(shown["form"]["fields"][0]["name"], "q", "the form, parsed once at intake");
    let answer = Answer { action: ElicitAction::Accept, content: Some(json!({ "q": "rust" })) };
    respond(&w.broker, w.origin.user_id, Some(w.origin.org_id), waiter.id, answer, Channel::Web)
        .await
        .expect("answered");
    let ended = waiter.ended().await.outcome.expect("ended");
    assert_eq!(
        (ended.action, ended.decided_by, ended.reason),
        (ElicitAction::Accept, DecidedBy::User, Some(Reason::Answered))
    );
    assert_eq!(ended.server_answer(), Some(json!({ "action": "accept", "content": { "q": "rust" } })));
    assert_eq!(next_event(&mut events).await["type"], "elicitation.resolved");
}

#[tokio::test]
async fn a_question_that_breaks_the_schema_subset_is_refused_and_nothing_is_stored() {
    let w = world().await;
    let params = json!({ "message": "nested", "requestedSchema": { "type": "object", "properties": {
        "address": { "type": "object", "properties": {} } } } });
    let raw = serde_json::value::to_raw_value(&params).unwrap();
    let refused =
        w.broker.ask(&w.origin, Question::from_server(ProtocolGeneration::Modern, Some(&raw))).await;
    assert!(matches!(refused, Err(Refused::Invalid(ref why)) if why.contains("address")), "{refused:?}");
    let stored = w.store.pending_count(w.origin.org_id, w.origin.user_id).await.unwrap();
    assert_eq!(stored, 0);
}

#[tokio::test]
async fn a_question_for_someone_who_left_or_from_a_server_that_is_gone_is_refused_with_the_reason() {
    let w = world().await;
    let mut stranger = w.origin.clone();
    stranger.user_id = Uuid::now_v7();
    let refused = w.broker.ask(&stranger, form("Anyone?")).await.unwrap_err();
    assert_eq!(
        refused,
        Refused::Invalid("the person it would ask is no longer a member of this organisation".into())
    );
    let mut gone = w.origin.clone();
    gone.server.id = Uuid::now_v7(); // the slug was registered again since the call began
    let refused = w.broker.ask(&gone, form("Anyone?")).await.unwrap_err();
    assert_eq!(refused, Refused::Invalid("the server is no longer registered".into()));
}

#[tokio::test]
async fn a_muted_server_is_answered_by_the_policy_without_asking_anyone() {
    let w = world().await;
    let (org, user, server) = (w.origin.org_id, w.origin.user_id, w.origin.server.id);
    w.store.mute(org, user, server, "user", "", OffsetDateTime::now_utc()).await.unwrap();
    let (_seat, mut events) = w.broker.hub.join(user, Scope::Session { session_id: Uuid::new_v4() });
    let waiter = w.broker.ask(&w.origin, form("Again?")).await.expect("taken in");
    let ended = waiter.ended().await.outcome.expect("answered at once");
    assert_eq!((ended.action, ended.decided_by), (ElicitAction::Decline, DecidedBy::Policy));
    assert_eq!(ended.reason, Some(Reason::Rule(herald_policy::decision::Rule::Muted)));
    // Nobody was shown the question: the person only gets the note explaining the answer.
    let told: serde_json::Value = serde_json::from_str(&events.try_recv().expect("the note")).unwrap();
    assert_eq!(told["type"], "elicitation.explained");
    assert_eq!(told["policy"]["because"]["rule"], "muted");
    assert!(events.try_recv().is_err(), "nothing else: {told}");
}

#[tokio::test]
async fn a_call_that_ends_ends_its_questions_and_the_server_hears_nothing_for_a_withdrawal() {
    let w = world().await;
    let first = w.broker.ask(&w.origin, form("One?")).await.unwrap();
    let second = w.broker.ask(&w.origin, form("Two?")).await.unwrap();
    w.broker.end_all([first.id], DecidedBy::Caller, Reason::CallerCancelled).await;
    w.broker.end_all([second.id], DecidedBy::Server, Reason::ServerCancelled).await;
    let first = first.ended().await.outcome.unwrap();
    assert_eq!((first.action, first.reason), (ElicitAction::Cancel, Some(Reason::CallerCancelled)));
    assert_eq!(first.server_answer(), Some(json!({ "action": "cancel" })));
    let second = second.ended().await.outcome.unwrap();
    assert_eq!(second.server_answer(), None, "a server that withdrew its question gets no answer");
}

#[tokio::test]
async fn the_first_answer_wins_and_a_later_one_is_told_how_it_ended() {
    let w = world().await;
    let waiter = w.broker.ask(&w.origin, form("Which?")).await.unwrap();
    let id = waiter.id;
    let decline = Answer { action: ElicitAction::Decline, content: None };
    respond(&w.broker, w.origin.user_id, None, id, decline, Channel::Web).await.unwrap();
    let late = Answer { action: ElicitAction::Accept, content: Some(json!({ "q": "late" })) };
    let refused = respond(&w.broker, w.origin.user_id, None, id, late, Channel::Web).await.unwrap_err();
    assert!(matches!(refused, super::respond::RespondError::Ended(action) if action == "decline"));
    assert_eq!(waiter.ended().await.outcome.unwrap().action, ElicitAction::Decline);
}

#[tokio::test]
async fn a_question_that_must_be_a_url_elicitation_and_is_a_form_is_refused() {
    let w = world().await;
    let refused = w.broker.ask(&w.origin, form("Sign in?").only(herald_mcp::ElicitationMode::Url)).await;
    assert_eq!(refused.unwrap_err(), Refused::Invalid("only a url elicitation can be asked here".into()));
}
