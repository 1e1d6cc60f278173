//! The caller's own elicitations in an org: list, read, and answer.

use axum::Json;
use axum::extract::{Path, Query, State};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::auth::OrgAccess;
use super::json::ValidJson;
use super::orgs::parse_id;
use crate::app::AppState;
use crate::broker::events::ElicitationView;
use crate::broker::notes::NoteError;
use crate::broker::question::Channel;
use crate::broker::respond::{Answer, RespondError, respond};
use crate::problem::{ApiError, ApiResult, InvalidField};
use crate::storage::ElicitationQuery;

const DEFAULT_PAGE: u32 = 50;
const MAX_PAGE: u32 = 200;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListParams {
    status: Option<String>,
    limit: Option<u32>,
    /// The `next` cursor of the previous page.
    before: Option<String>,
}

#[derive(Serialize)]
pub struct ElicitationPage {
    elicitations: Vec<ElicitationView>,
    /// Pass as `before` for the next (older) page; `null` on the last page.
    next: Option<Uuid>,
}

pub async fn list(
    State(state): State<AppState>,
    access: OrgAccess,
    params: Result<Query<ListParams>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Json<ElicitationPage>> {
    let Query(params) =
        params.map_err(|e| ApiError::Validation(vec![InvalidField::new("query", e.body_text())]))?;
    let pending = match params.status.as_deref() {
        None => None,
        Some("pending") => Some(true),
        Some("resolved") => Some(false),
        Some(_) => return Err(ApiError::field("status", "must be pending or resolved")),
    };
    let limit = params.limit.unwrap_or(DEFAULT_PAGE);
    if !(1..=MAX_PAGE).contains(&limit) {
        return Err(ApiError::field("limit", format!("must be between 1 and {MAX_PAGE}")));
    }
    let before = match params.before.as_deref() {
        None => None,
        Some(raw) => {
            Some(Uuid::parse_str(raw).map_err(|_| ApiError::field("before", "is not a cursor from `next`"))?)
        }
    };
    let query = ElicitationQuery { pending, before, limit: limit + 1 };
    let mut found = state.store.elicitations(access.org_id(), access.user().id, &query).await?;
    let next = if found.len() > limit as usize {
        found.truncate(limit as usize);
        found.last().map(|e| e.id)
    } else {
        None
    };
    Ok(Json(ElicitationPage { elicitations: found.iter().map(Into::into).collect(), next }))
}

pub async fn show(
    State(state): State<AppState>,
    access: OrgAccess,
    Path((_, id)): Path<(String, String)>,
) -> ApiResult<Json<ElicitationView>> {
    let id = parse_id(&id)?;
    let found = state
        .store
        .elicitation_of_user(access.user().id, id)
        .await?
        .filter(|e| e.org_id == access.org_id())
        .ok_or(ApiError::NotFound)?;
    Ok(Json((&found).into()))
}

/// Answers an elicitation: accept (with content for a form), decline, or
/// cancel. The first answer from any tab or replica wins.
pub async fn answer(
    State(state): State<AppState>,
    access: OrgAccess,
    Path((_, id)): Path<(String, String)>,
    ValidJson(answer): ValidJson<Answer>,
) -> ApiResult<Json<ElicitationView>> {
    let id = parse_id(&id)?;
    match respond(&state.broker, access.user().id, Some(access.org_id()), id, answer, Channel::Web).await {
        Ok(resolved) => Ok(Json((&resolved).into())),
        Err(e) => Err(e.into()),
    }
}

#[derive(Serialize)]
pub struct PendingSummary {
    total: i64,
    #[serde(with = "time::serde::rfc3339::option")]
    oldest: Option<time::OffsetDateTime>,
    servers: Vec<PendingServer>,
}

#[derive(Serialize)]
pub struct PendingServer {
    server: String,
    server_name: String,
    count: i64,
    people: i64,
    #[serde(with = "time::serde::rfc3339")]
    oldest: time::OffsetDateTime,
}

/// `GET /api/v1/orgs/{org}/elicitations/pending` (admins): what the org's
/// members are being asked right now, per server, without the questions.
pub async fn pending_summary(
    State(state): State<AppState>,
    access: OrgAccess,
) -> ApiResult<Json<PendingSummary>> {
    access.require_admin()?;
    let groups = state.store.pending_by_server(access.org_id()).await?;
    Ok(Json(PendingSummary {
        total: groups.iter().map(|g| g.count).sum(),
        oldest: groups.iter().map(|g| g.oldest).min(),
        servers: groups
            .into_iter()
            .map(|g| PendingServer {
                server: g.server_slug,
                server_name: g.server_name,
                count: g.count,
                people: g.people,
                oldest: g.oldest,
            })
            .collect(),
    }))
}

/// `POST …/elicitations/{id}/dismiss-note`: the person has read the note
/// explaining the policy's answer; it leaves every tab.
pub async fn dismiss_note(
    State(state): State<AppState>,
    access: OrgAccess,
    Path((_, id)): Path<(String, String)>,
) -> ApiResult<axum::http::StatusCode> {
    let id = parse_id(&id)?;
    state.broker.dismiss_note(access.user().id, access.org_id(), id).await?;
    Ok(axum::http::StatusCode::NO_CONTENT)
}

#[derive(Serialize)]
pub struct AskedAgain {
    /// How many of the person's declines of this question were forgotten.
    declines_forgotten: u64,
}

/// `POST …/elicitations/{id}/ask-again`: forget the person's declines of this
/// question, so the server's next asking of it is shown to them.
pub async fn ask_again(
    State(state): State<AppState>,
    access: OrgAccess,
    Path((_, id)): Path<(String, String)>,
) -> ApiResult<Json<AskedAgain>> {
    let id = parse_id(&id)?;
    let declines_forgotten = state.broker.ask_again(access.user().id, access.org_id(), id).await?;
    Ok(Json(AskedAgain { declines_forgotten }))
}

impl From<NoteError> for ApiError {
    fn from(e: NoteError) -> Self {
        match e {
            NoteError::NotFound => ApiError::NotFound,
            NoteError::NotApplicable(why) => ApiError::Conflict("not-applicable", why.to_owned()),
            NoteError::Store(e) => e.into(),
        }
    }
}

impl From<RespondError> for ApiError {
    fn from(e: RespondError) -> Self {
        match e {
            RespondError::NotFound => ApiError::NotFound,
            RespondError::Ended(action) => ApiError::Conflict(
                "elicitation-ended",
                format!("this elicitation has already ended ({action})"),
            ),
            RespondError::Invalid(errors) => ApiError::Validation(
                errors.into_iter().map(|e| InvalidField::new(e.field, e.message)).collect(),
            ),
            RespondError::Store(e) => e.into(),
        }
    }
}
