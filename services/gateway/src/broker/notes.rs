//! The inbox's notes: every answer the policy gave for a person (and every
//! question it ended while shown) is explained to them until they dismiss it,
//! with the way back where there is one ("ask me again" forgets a decline).
//!
//! A note is the question's own record (`decided_by: policy`, with what the
//! policy went by in `policy.because`), so it survives reloads and reaches a
//! person who was not looking when it happened; dismissing it is a column.

use time::{Duration, OffsetDateTime};
use uuid::Uuid;

use super::Broker;
use super::events::ServerEvent;
use super::hub::Scope;
use crate::audit::{self, Actor, Subject};
use crate::domain::outcome::{DecidedBy, Reason};
use crate::replicas::QuestionChange;
use crate::storage::{Elicitation, StoreError};
use herald_mcp::ElicitAction;
use herald_policy::decision::Rule;

/// How far back a dashboard's resync looks for notes not yet dismissed.
pub const NOTES_SINCE: Duration = Duration::days(7);
/// At most this many notes are resent on (re)connect, newest first.
pub const NOTES_AT_MOST: u32 = 50;

#[derive(Debug, thiserror::Error)]
pub enum NoteError {
    #[error("no such elicitation")]
    NotFound,
    #[error("{0}")]
    NotApplicable(&'static str),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl Broker {
    /// The notes a dashboard is sent when it connects: recent policy answers
    /// in the orgs `scope` sees, not dismissed, newest first.
    pub async fn open_notes(&self, user_id: Uuid, scope: Scope) -> Result<Vec<Elicitation>, StoreError> {
        let since = OffsetDateTime::now_utc() - NOTES_SINCE;
        let notes = self.store.notes_of_user(user_id, since, NOTES_AT_MOST).await?;
        Ok(notes.into_iter().filter(|e| scope.sees(e.org_id)).collect())
    }

    /// The person dismissed the note about one of their questions in `org_id`:
    /// gone from every tab, on every replica.
    pub async fn dismiss_note(&self, user_id: Uuid, org_id: Uuid, id: Uuid) -> Result<(), NoteError> {
        let record = self.record_in(user_id, org_id, id).await?;
        if record.outcome.as_ref().is_none_or(|o| o.decided_by != DecidedBy::Policy) {
            return Err(NoteError::NotApplicable(
                "the policy did not answer this question, so it has no note",
            ));
        }
        // Dismissing twice is no error: the note is gone either way.
        if self.store.dismiss_note(user_id, id, OffsetDateTime::now_utc()).await? {
            self.hub.publish(user_id, org_id, &ServerEvent::NoteDismissed { ids: vec![id] });
            self.tell_replicas(QuestionChange::NoteDismissed, id, user_id);
        }
        Ok(())
    }

    /// "Ask me again": forgets the person's declines of this question (its
    /// fingerprint), so the server's next asking of it is shown to them; the
    /// note about it, if any, is dismissed. Returns how many declines were forgotten.
    pub async fn ask_again(&self, user_id: Uuid, org_id: Uuid, id: Uuid) -> Result<u64, NoteError> {
        let record = self.record_in(user_id, org_id, id).await?;
        let declined = record.outcome.as_ref().is_some_and(|o| {
            o.action == ElicitAction::Decline
                && (o.decided_by == DecidedBy::User
                    || o.reason == Some(Reason::Rule(Rule::PreviouslyDeclined)))
        });
        let Some(fingerprint) = record.fingerprint.as_deref().filter(|_| declined) else {
            return Err(NoteError::NotApplicable(
                "this question was not declined by you or from your declines, so there is nothing to forget",
            ));
        };
        let forgotten = self.store.forget_declines(org_id, user_id, fingerprint).await?;
        let subject = Subject {
            user_id: Some(user_id),
            server_slug: Some(record.server.slug.clone()),
            reason: None,
            details: Some(serde_json::json!({
                "elicitation_id": record.id,
                "tool": record.tool,
                "declines_forgotten": forgotten,
            })),
        };
        audit::record(self.store.as_ref(), org_id, Actor::User(user_id), "decline.forgotten", subject).await;
        if record.outcome.as_ref().is_some_and(|o| o.decided_by == DecidedBy::Policy) {
            self.dismiss_note(user_id, org_id, id).await?;
        }
        Ok(forgotten)
    }

    async fn record_in(&self, user_id: Uuid, org_id: Uuid, id: Uuid) -> Result<Elicitation, NoteError> {
        self.store
            .elicitation_of_user(user_id, id)
            .await?
            .filter(|e| e.org_id == org_id)
            .ok_or(NoteError::NotFound)
    }
}
