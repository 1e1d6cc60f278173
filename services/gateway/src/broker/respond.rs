//! A person's answer, from the REST API or a websocket: checked against the
//! record and its schema, then applied by the broker's compare-and-set.

use herald_mcp::{ElicitAction, ElicitationMode, FieldError, validate_content};
use serde::Deserialize;
use uuid::Uuid;

use super::Broker;
use super::question::Channel;
use crate::domain::outcome::{DecidedBy, Reason, outcome};
use crate::storage::{DeclineRecord, Elicitation, StoreError};

/// `respond {action, content?}` as dashboards send it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Answer {
    pub action: ElicitAction,
    #[serde(default)]
    pub content: Option<serde_json::Value>,
}

#[derive(Debug, thiserror::Error)]
pub enum RespondError {
    #[error("no such elicitation")]
    NotFound,
    #[error("this elicitation has already ended ({0})")]
    Ended(String),
    #[error("the answer does not fit the form")]
    Invalid(Vec<FieldError>),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Applies `answer` to elicitation `id` of `user_id`; `org_id`, when given,
/// must be the elicitation's org. The first answer wins; later ones get `Ended`.
pub async fn respond(
    broker: &Broker,
    user_id: Uuid,
    org_id: Option<Uuid>,
    id: Uuid,
    answer: Answer,
    via: Channel,
) -> Result<Elicitation, RespondError> {
    let record = broker
        .store()
        .elicitation_of_user(user_id, id)
        .await?
        .filter(|e| org_id.is_none_or(|org| org == e.org_id))
        .ok_or(RespondError::NotFound)?;
    if let Some(ended) = &record.outcome {
        return Err(RespondError::Ended(ended.action.as_str().to_owned()));
    }
    let (content, why) = match answer.action {
        ElicitAction::Accept if record.mode == ElicitationMode::Form => {
            let schema = record.form.as_ref().ok_or_else(|| {
                RespondError::Invalid(vec![FieldError {
                    field: String::new(),
                    message: "the form cannot be answered".into(),
                }])
            })?;
            let content = validate_content(schema, answer.content.as_ref()).map_err(RespondError::Invalid)?;
            (Some(serde_json::Value::Object(content)), Reason::Answered)
        }
        _ if answer.content.as_ref().is_some_and(|c| !c.is_null()) => {
            return Err(RespondError::Invalid(vec![FieldError {
                field: "content".into(),
                message: "content goes only with accepting a form".into(),
            }]));
        }
        ElicitAction::Accept => (None, Reason::Answered),
        ElicitAction::Decline => (None, Reason::Declined),
        ElicitAction::Cancel => (None, Reason::Dismissed),
    };
    let action = answer.action;
    let ending = outcome(action, content, DecidedBy::User, why);
    match broker.resolve(id, &ending).await? {
        Some(mut resolved) => {
            tracing::debug!(elicitation_id = %id, via = via.as_str(), "answered by its person");
            // For the history; the answer itself is already decided, so a failure here only loses the label.
            match broker.store().set_answered_via(id, via.as_str()).await {
                Ok(()) => resolved.answered_via = Some(via.as_str().to_owned()),
                Err(e) => {
                    tracing::warn!(elicitation_id = %id, error = %e, "could not record the answer's channel")
                }
            }
            if action == ElicitAction::Decline {
                remember_decline(broker, &resolved).await;
            }
            Ok(resolved)
        }
        None => {
            let now = broker.store().elicitation_of_user(user_id, id).await?;
            Err(RespondError::Ended(
                now.and_then(|e| e.outcome).map(|o| o.action.as_str().to_owned()).unwrap_or_default(),
            ))
        }
    }
}

/// A person's decline, kept for decline memory (even after content is purged).
async fn remember_decline(broker: &Broker, e: &Elicitation) {
    let Some(fingerprint) = e.fingerprint.clone() else { return };
    let record = DeclineRecord {
        org_id: e.org_id,
        user_id: e.user_id,
        server_slug: e.server.slug.clone(),
        tool: e.tool.clone(),
        fingerprint,
        elicitation_id: e.id,
        declined_at: e.outcome.as_ref().map_or_else(time::OffsetDateTime::now_utc, |o| o.resolved_at),
    };
    if let Err(err) = broker.store().record_decline(&record).await {
        tracing::error!(error = %err, elicitation_id = %e.id, "could not record a decline");
    }
}
