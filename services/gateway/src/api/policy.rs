//! The organisation's policy: one typed document (see `herald_policy`),
//! readable by members and replaced whole by admins.

use axum::Json;
use axum::extract::State;
use herald_policy::OrgPolicy;
use time::OffsetDateTime;

use super::auth::OrgAccess;
use super::json::ValidJson;
use crate::app::AppState;
use crate::audit::Subject;
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
    state.store.put_policy(access.org_id(), &document, access.user().id, OffsetDateTime::now_utc()).await?;
    state.forget(Forget::CachedPolicy { org_id: access.org_id() }).await;
    tracing::info!(org = %access.membership.org.slug, user_id = %access.user().id, "policy replaced");
    access
        .audit(
            state.store.as_ref(),
            "policy.updated",
            Subject { details: Some(document), ..Default::default() },
        )
        .await;
    Ok(Json(policy))
}

/// The documented defaults, for the dashboard's policy editor.
pub async fn defaults() -> Json<OrgPolicy> {
    Json(OrgPolicy::default())
}
