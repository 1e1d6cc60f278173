//! What dashboards are told, over the websocket and the REST API alike.

use serde::Serialize;
use time::OffsetDateTime;
use uuid::Uuid;

use herald_mcp::{ElicitAction, ElicitationMode};

use crate::domain::outcome::{DecidedBy, Reason};
use crate::storage::Elicitation;

/// An elicitation as a person sees it. The server is the one registered in
/// the org (never a name the server chose for itself).
#[derive(Debug, Serialize)]
pub struct ElicitationView {
    pub id: Uuid,
    pub org: String,
    pub server: AskingServer,
    /// `server`, or `herald` for a question Herald asks on the call's behalf (a
    /// sign-in the server needs), for the server named.
    pub asked_by: crate::domain::AskedBy,
    pub tool: Option<String>,
    pub mode: ElicitationMode,
    pub message: String,
    /// The schema as the server sent it (already checked against the subset).
    pub requested_schema: Option<serde_json::Value>,
    /// The same form, normalised: one entry per field, in order.
    pub form: Option<herald_mcp::RequestedSchema>,
    pub url: Option<String>,
    /// What the org's policy noticed and wants shown with the question:
    /// `credential_warning` (the detector's hits, in `warn` mode) and
    /// `url_flags` (punycode, look-alike hosts, …); `null` when nothing.
    pub policy: Option<serde_json::Value>,
    pub status: &'static str,
    /// For a question the policy answered: when the person dismissed the
    /// inbox's note about it (`null` while the note stands).
    #[serde(with = "time::serde::rfc3339::option")]
    pub note_dismissed_at: Option<OffsetDateTime>,
    /// Through which channel the person answered: `web` or `email`.
    pub answered_via: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub expires_at: OffsetDateTime,
    pub action: Option<ElicitAction>,
    pub content: Option<serde_json::Value>,
    pub decided_by: Option<DecidedBy>,
    pub reason: Option<Reason>,
    #[serde(with = "time::serde::rfc3339::option")]
    pub resolved_at: Option<OffsetDateTime>,
}

#[derive(Debug, Serialize)]
pub struct AskingServer {
    pub slug: String,
    pub name: String,
    pub url: String,
}

impl From<&Elicitation> for ElicitationView {
    fn from(e: &Elicitation) -> Self {
        let outcome = e.outcome.as_ref();
        Self {
            id: e.id,
            org: e.org_slug.clone(),
            server: AskingServer {
                slug: e.server.slug.clone(),
                name: e.server.name.clone(),
                url: crate::domain::ServerUrl::display_form(&e.server.url),
            },
            asked_by: e.asked_by,
            tool: e.tool.clone(),
            mode: e.mode,
            message: e.message.clone(),
            requested_schema: e.requested_schema.clone(),
            form: e.form.clone(),
            url: e.url.clone(),
            policy: e.policy_flags.clone(),
            status: if outcome.is_some() { "resolved" } else { "pending" },
            note_dismissed_at: e.note_dismissed_at,
            answered_via: e.answered_via.clone(),
            created_at: e.created_at,
            expires_at: e.expires_at,
            action: outcome.map(|o| o.action),
            content: outcome.and_then(|o| o.content.clone()),
            decided_by: outcome.map(|o| o.decided_by),
            reason: outcome.and_then(|o| o.reason),
            resolved_at: outcome.map(|o| o.resolved_at),
        }
    }
}

/// Server-to-browser websocket messages.
#[derive(Debug, Serialize)]
#[serde(tag = "type")]
pub enum ServerEvent {
    #[serde(rename = "elicitation.created")]
    Created(Box<ElicitationView>),
    /// A question the policy answered for the person (or ended while it was
    /// shown), with what it went by (`policy.because`): the inbox's note.
    #[serde(rename = "elicitation.explained")]
    Explained(Box<ElicitationView>),
    /// The person dismissed these notes (in another tab, or on another device).
    #[serde(rename = "note.dismissed")]
    NoteDismissed { ids: Vec<Uuid> },
    #[serde(rename = "elicitation.resolved")]
    Resolved { id: Uuid, action: Option<ElicitAction>, decided_by: Option<DecidedBy>, reason: Option<Reason> },
    /// Something the user should know that is not a question, e.g. that a
    /// server reports the out-of-band step of a URL elicitation complete.
    #[serde(rename = "notice")]
    Notice {
        kind: &'static str,
        message: String,
        /// The organisation it concerns (its slug).
        org: String,
        server: Option<AskingServer>,
        elicitation_id: Option<Uuid>,
    },
    #[serde(rename = "ack")]
    Ack { id: Uuid },
    #[serde(rename = "error")]
    Error { id: Option<Uuid>, code: &'static str, detail: String, errors: Vec<herald_mcp::FieldError> },
}

impl ServerEvent {
    pub fn created(e: &Elicitation) -> Self {
        ServerEvent::Created(Box::new(e.into()))
    }

    pub fn explained(e: &Elicitation) -> Self {
        ServerEvent::Explained(Box::new(e.into()))
    }

    /// An ended elicitation's ending (`e.outcome` is always set by then).
    pub fn resolved(e: &Elicitation) -> Self {
        let outcome = e.outcome.as_ref();
        ServerEvent::Resolved {
            id: e.id,
            action: outcome.map(|o| o.action),
            decided_by: outcome.map(|o| o.decided_by),
            reason: outcome.and_then(|o| o.reason),
        }
    }
}
