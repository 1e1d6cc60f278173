//! The organisation's policy: one typed document (see `herald_policy`),
//! readable by members and replaced whole by admins.

use axum::Json;
use axum::extract::State;
use herald_policy::OrgPolicy;
use time::OffsetDateTime;

use super::auth::OrgAccess;
use super::json::ValidJson;
use crate::app::AppState;
use crate::audit::{self, Subject};
use crate::problem::{ApiError, ApiResult, InvalidField};
use crate::replicas::Forget;

/// The org's policy; fields it never set read as their defaults.
pub async fn show(State(state): State<AppState>, access: OrgAccess) -> ApiResult<Json<OrgPolicy>> {
    Ok(Json(state.lookups.policy(access.org_id()).await?))
}

/// Replaces the policy. Omitted fields take their defaults; every invalid
/// field is reported and nothing is stored unless all are valid.
pub async fn replace(
    State(state): State<AppState>,
    access: OrgAccess,
    ValidJson(policy): ValidJson<OrgPolicy>,
) -> ApiResult<Json<OrgPolicy>> {
    access.require_admin()?;
    let policy = policy.normalized();
    policy.validate().map_err(|violations| {
        ApiError::Validation(violations.into_iter().map(|v| InvalidField::new(v.field, v.message)).collect())
    })?;
    let document = serde_json::to_value(&policy).map_err(anyhow::Error::from)?;
    // What it replaced, as the store had it (not a cache), for the audit's changes: read in
    // the write's own transaction, so concurrent saves each diff against their predecessor.
    let replaced = state
        .store
        .put_policy(access.org_id(), &document, access.user().id, OffsetDateTime::now_utc())
        .await?;
    // Stored before a field was added (or never stored): as it read, with the defaults filled in.
    let previous = match replaced {
        Some(stored) => serde_json::from_value::<OrgPolicy>(stored.clone())
            .ok()
            .and_then(|p| serde_json::to_value(p).ok())
            .unwrap_or(stored),
        None => serde_json::to_value(OrgPolicy::default()).map_err(anyhow::Error::from)?,
    };
    state.forget(Forget::CachedPolicy { org_id: access.org_id() }).await;
    tracing::info!(org = %access.membership.org.slug, user_id = %access.user().id, "policy replaced");
    access
        .audit(
            state.store.as_ref(),
            "policy.updated",
            Subject {
                details: Some(serde_json::json!({ "changes": audit::changes(&previous, &document) })),
                ..Default::default()
            },
        )
        .await;
    Ok(Json(policy))
}

/// The documented defaults, for the dashboard's policy editor.
pub async fn defaults() -> Json<OrgPolicy> {
    Json(OrgPolicy::default())
}
