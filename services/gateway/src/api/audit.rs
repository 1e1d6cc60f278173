//! `GET /orgs/{org}/audit`: the org's audit log, for admins.

use axum::Json;
use axum::extract::{Query, State};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use uuid::Uuid;

use super::auth::OrgAccess;
use crate::app::AppState;
use crate::problem::{ApiError, ApiResult, InvalidField};
use crate::storage::{AuditEntry, AuditQuery};

const DEFAULT_PAGE: u32 = 50;
const MAX_PAGE: u32 = 500;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditParams {
    /// RFC 3339; entries at or after.
    since: Option<String>,
    /// RFC 3339; entries before.
    until: Option<String>,
    /// A user id: entries about or by them.
    user: Option<String>,
    server: Option<String>,
    action: Option<String>,
    reason: Option<String>,
    limit: Option<u32>,
    before: Option<String>,
}

#[derive(Serialize)]
pub struct AuditView {
    id: Uuid,
    #[serde(with = "time::serde::rfc3339")]
    at: OffsetDateTime,
    actor: String,
    actor_id: Option<Uuid>,
    action: String,
    user_id: Option<Uuid>,
    server: Option<String>,
    reason: Option<String>,
    details: serde_json::Value,
}

impl From<&AuditEntry> for AuditView {
    fn from(e: &AuditEntry) -> Self {
        Self {
            id: e.id,
            at: e.at,
            actor: e.actor.clone(),
            actor_id: e.actor_id,
            action: e.action.clone(),
            user_id: e.user_id,
            server: e.server_slug.clone(),
            reason: e.reason.clone(),
            details: e.details.clone(),
        }
    }
}

#[derive(Serialize)]
pub struct AuditPage {
    entries: Vec<AuditView>,
    next: Option<Uuid>,
}

pub async fn list(
    State(state): State<AppState>,
    access: OrgAccess,
    params: Result<Query<AuditParams>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Json<AuditPage>> {
    access.require_admin()?;
    let Query(p) =
        params.map_err(|e| ApiError::Validation(vec![InvalidField::new("query", e.body_text())]))?;
    let mut errors = Vec::new();
    let mut time = |field: &str, raw: &Option<String>| {
        raw.as_deref().and_then(|t| {
            match OffsetDateTime::parse(t, &time::format_description::well_known::Rfc3339) {
                Ok(t) => Some(t),
                Err(_) => {
                    errors.push(InvalidField::new(field, "must be an RFC 3339 timestamp"));
                    None
                }
            }
        })
    };
    let since = time("since", &p.since);
    let until = time("until", &p.until);
    let mut id = |field: &str, raw: &Option<String>| {
        raw.as_deref().and_then(|v| match Uuid::parse_str(v) {
            Ok(id) => Some(id),
            Err(_) => {
                errors.push(InvalidField::new(field, "is not an id"));
                None
            }
        })
    };
    let user_id = id("user", &p.user);
    let before = id("before", &p.before);
    let limit = p.limit.unwrap_or(DEFAULT_PAGE);
    if !(1..=MAX_PAGE).contains(&limit) {
        errors.push(InvalidField::new("limit", format!("must be between 1 and {MAX_PAGE}")));
    }
    if !errors.is_empty() {
        return Err(ApiError::Validation(errors));
    }
    let query = AuditQuery {
        since,
        until,
        user_id,
        server_slug: p.server,
        action: p.action,
        reason: p.reason,
        before,
        limit: limit + 1,
    };
    let mut entries = state.store.audit_entries(access.org_id(), &query).await?;
    let next = if entries.len() > limit as usize {
        entries.truncate(limit as usize);
        entries.last().map(|e| e.id)
    } else {
        None
    };
    Ok(Json(AuditPage { entries: entries.iter().map(Into::into).collect(), next }))
}
