//! What replicas tell each other, and the one channel they tell it on.
//!
//! Replicas sharing a PostgreSQL database wake each other with NOTIFY on one
//! channel; a single-process database (SQLite) has no one to tell. The rows
//! stay the truth: an event only says "look again", so a lost one costs a
//! delay, never a wrong answer (a listener that reconnects hears `Heard::Gap`
//! and catches up from the rows).
//!
//! Every event is a JSON object whose `kind` names it; `ReplicaEvent::parse`
//! reads the kind once and hands the event to the one vocabulary it belongs
//! to: a question's change (the broker), a change that makes cached reads or
//! live channels wrong (`Forget`), or a legacy agent session's news (the proxy).
//! The wire format is shared with older replicas: kinds and fields only grow.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use herald_mcp::RequestId;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::backoff::Backoff;
use crate::storage::Store;

/// One event from another replica, by vocabulary.
#[derive(Debug, Clone, PartialEq)]
pub enum ReplicaEvent {
    Question(QuestionEvent),
    Forget(Forget),
    Session(SessionEvent),
}

/// A question was stored or ended on `replica`; the record is read from its row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuestionEvent {
    pub replica: Uuid,
    pub kind: QuestionChange,
    pub id: Uuid,
    /// The person it is for.
    pub user: Uuid,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum QuestionChange {
    Created,
    Resolved,
    /// The person dismissed the note explaining the policy's answer.
    #[serde(rename = "note_dismissed")]
    NoteDismissed,
}

/// A change that makes cached entries, calls, sessions, links or sockets wrong.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Forget {
    /// A token was revoked.
    CachedToken { token_id: Uuid },
    /// A member's role changed or they left.
    CachedMember {
        org_id: Uuid,
        user_id: Uuid,
        /// They left the org: whatever they had open there ends.
        #[serde(default)]
        left: bool,
    },
    /// A server was registered, edited, cut off, restored or deleted.
    CachedServer {
        org_id: Uuid,
        slug: String,
        /// Its id (absent in events of older replicas).
        #[serde(default)]
        server_id: Option<Uuid>,
    },
    /// The org's policy was replaced.
    CachedPolicy { org_id: Uuid },
    /// A person's connection to a server that acts as each person was made, renewed, refused or
    /// ended.
    CachedConnection {
        server_id: Uuid,
        user_id: Uuid,
        /// It ended (disconnected, or its refresh refused): links made with its token go too.
        #[serde(default)]
        ended: bool,
    },
    /// A dashboard sign-in ended (sign-out): its sockets close.
    SessionEnded { user_id: Uuid, session_id: Uuid },
    /// Every dashboard sign-in of a person ended (a password change): their sockets close.
    SessionsEnded { user_id: Uuid },
}

/// News of a legacy agent's session (by the base64url SHA-256 of its id), for
/// the replica that serves it.
#[allow(clippy::enum_variant_names)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SessionEvent {
    AgentSessionEnded {
        session: String,
    },
    AgentRequestCancelled {
        session: String,
        request: RequestId,
    },
    /// The agent answered a request Herald relayed from the server (its JSON).
    AgentAnswered {
        session: String,
        answer: String,
    },
}

impl ReplicaEvent {
    /// The event `payload` carries, or why it carries none (malformed, or a
    /// kind this replica does not know: a newer replica's).
    pub fn parse(payload: &str) -> Result<Self, String> {
        let value: serde_json::Value = serde_json::from_str(payload).map_err(|e| e.to_string())?;
        let kind = value.get("kind").and_then(|k| k.as_str()).ok_or("no kind")?.to_owned();
        let event = match kind.as_str() {
            "created" | "resolved" | "note_dismissed" => serde_json::from_value(value).map(Self::Question),
            "cached_token" | "cached_member" | "cached_server" | "cached_policy" | "session_ended"
            | "sessions_ended" => serde_json::from_value(value).map(Self::Forget),
            "agent_session_ended" | "agent_request_cancelled" | "agent_answered" => {
                serde_json::from_value(value).map(Self::Session)
            }
            other => return Err(format!("unknown kind {other:?}")),
        };
        event.map_err(|e| format!("{kind}: {e}"))
    }

    pub fn to_payload(&self) -> String {
        let json = match self {
            Self::Question(e) => serde_json::to_string(e),
            Self::Forget(e) => serde_json::to_string(e),
            Self::Session(e) => serde_json::to_string(e),
        };
        json.expect("replica events serialize")
    }
}

impl From<QuestionEvent> for ReplicaEvent {
    fn from(e: QuestionEvent) -> Self {
        Self::Question(e)
    }
}

impl From<Forget> for ReplicaEvent {
    fn from(e: Forget) -> Self {
        Self::Forget(e)
    }
}

impl From<SessionEvent> for ReplicaEvent {
    fn from(e: SessionEvent) -> Self {
        Self::Session(e)
    }
}

/// Tells the other replicas, before returning (so a revocation answered to
/// its caller is already on its way everywhere). A failure is logged, not
/// returned: the rows let every replica catch up.
pub async fn tell(store: &dyn Store, event: impl Into<ReplicaEvent>) {
    if store.single_process() {
        return;
    }
    let event = event.into();
    if let Err(e) = store.publish_event(&event.to_payload()).await {
        tracing::warn!(error = %e, "could not tell the other replicas");
    }
}

/// `tell`, without waiting for it.
pub fn tell_soon(store: &Arc<dyn Store>, event: impl Into<ReplicaEvent>) {
    if store.single_process() {
        return;
    }
    let store = store.clone();
    let event = event.into();
    tokio::spawn(async move { tell(store.as_ref(), event).await });
}

/// What the listener hands on.
pub enum Heard {
    Event(ReplicaEvent),
    /// The feed was (re)connected: events may have been missed; catch up from the rows.
    Gap,
}

/// Listens for the other replicas' events (PostgreSQL only) and hands each to
/// `on`, in order; re-subscribes with back-off when the connection drops.
pub fn spawn_listener<F, Fut>(store: Arc<dyn Store>, on: F) -> Option<tokio::task::JoinHandle<()>>
where
    F: Fn(Heard) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send,
{
    if store.single_process() {
        return None;
    }
    Some(tokio::spawn(async move {
        let mut delays = Backoff::new(Duration::from_millis(250), Duration::from_secs(10));
        loop {
            let mut feed = match store.subscribe_events().await {
                Ok(Some(feed)) => feed,
                Ok(None) => return,
                Err(e) => {
                    let delay = delays.next();
                    tracing::warn!(error = %e, retry_in = ?delay, "cannot listen for other replicas' events");
                    tokio::time::sleep(delay).await;
                    continue;
                }
            };
            delays.reset();
            // Anything that happened before we were listening.
            on(Heard::Gap).await;
            loop {
                match feed.next().await {
                    Ok(Some(payload)) => match ReplicaEvent::parse(&payload) {
                        Ok(event) => on(Heard::Event(event)).await,
                        Err(why) => tracing::warn!(%why, "ignoring a replica event"),
                    },
                    Ok(None) => {
                        tracing::info!("replica event feed reconnected; resyncing");
                        on(Heard::Gap).await;
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "replica event feed lost");
                        break;
                    }
                }
            }
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_kind() -> Vec<ReplicaEvent> {
        let id = Uuid::now_v7();
        let session = "c2Vzc2lvbg".to_owned();
        vec![
            QuestionEvent { replica: id, kind: QuestionChange::Created, id, user: id }.into(),
            QuestionEvent { replica: id, kind: QuestionChange::Resolved, id, user: id }.into(),
            QuestionEvent { replica: id, kind: QuestionChange::NoteDismissed, id, user: id }.into(),
            Forget::CachedToken { token_id: id }.into(),
            Forget::CachedMember { org_id: id, user_id: id, left: true }.into(),
            Forget::CachedServer { org_id: id, slug: "demo".into(), server_id: Some(id) }.into(),
            Forget::CachedPolicy { org_id: id }.into(),
            Forget::SessionEnded { user_id: id, session_id: id }.into(),
            Forget::SessionsEnded { user_id: id }.into(),
            SessionEvent::AgentSessionEnded { session: session.clone() }.into(),
            SessionEvent::AgentRequestCancelled { session: session.clone(), request: RequestId::Integer(7) }
                .into(),
            SessionEvent::AgentAnswered { session, answer: r#"{"jsonrpc":"2.0","id":1,"result":{}}"#.into() }
                .into(),
        ]
    }

    #[test]
    fn every_event_round_trips_through_its_kind() {
        for event in every_kind() {
            let payload = event.to_payload();
            assert_eq!(ReplicaEvent::parse(&payload), Ok(event), "{payload}");
        }
    }

    #[test]
    fn the_wire_format_is_the_one_older_replicas_speak() {
        let id = Uuid::nil();
        let question = QuestionEvent { replica: id, kind: QuestionChange::Created, id, user: id };
        let nil = "00000000-0000-0000-0000-000000000000";
        assert_eq!(
            ReplicaEvent::from(question).to_payload(),
            format!(r#"{{"replica":"{nil}","kind":"created","id":"{nil}","user":"{nil}"}}"#)
        );
        assert_eq!(
            ReplicaEvent::from(Forget::CachedPolicy { org_id: id }).to_payload(),
            format!(r#"{{"kind":"cached_policy","org_id":"{nil}"}}"#)
        );
        // An older replica's server event, without the server's id.
        let old = format!(r#"{{"kind":"cached_server","org_id":"{nil}","slug":"demo"}}"#);
        assert_eq!(
            ReplicaEvent::parse(&old),
            Ok(Forget::CachedServer { org_id: id, slug: "demo".into(), server_id: None }.into())
        );
    }

    #[test]
    fn anything_else_is_refused_with_a_reason() {
        assert!(ReplicaEvent::parse("not json").is_err());
        assert_eq!(ReplicaEvent::parse(r#"{"id":"x"}"#), Err("no kind".into()));
        assert_eq!(
            ReplicaEvent::parse(r#"{"kind":"from_the_future"}"#),
            Err(r#"unknown kind "from_the_future""#.into())
        );
        assert!(ReplicaEvent::parse(r#"{"kind":"created","id":"x"}"#).unwrap_err().starts_with("created: "));
    }
}
