//! Organisations and their members.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use uuid::Uuid;

use super::auth::{OrgAccess, SessionUser};
use super::json::{Checks, ValidJson, checked};
use super::views::{MemberView, MembershipView};
use crate::app::AppState;
use crate::audit::{self, Subject};
use crate::domain::{DisplayName, Role, Slug};
use crate::problem::{ApiError, ApiResult};
use crate::replicas::Forget;
use crate::storage::{Joiner, Membership, NewOrg};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewOrgBody {
    slug: String,
    name: String,
}

/// Any signed-in person may start an organisation, and owns it.
pub async fn create(
    State(state): State<AppState>,
    caller: SessionUser,
    ValidJson(body): ValidJson<NewOrgBody>,
) -> ApiResult<(StatusCode, Json<MembershipView>)> {
    let mut checks = Checks::default();
    let slug = checks.field("slug", Slug::parse(&body.slug));
    let name = checks.field("name", DisplayName::parse(&body.name));
    checks.finish()?;
    let (org, _) = state
        .store
        .create_org(
            NewOrg { slug: checked(slug).to_string(), name: checked(name).as_str().to_owned() },
            Joiner::Existing(caller.user.id),
            OffsetDateTime::now_utc(),
        )
        .await?;
    tracing::info!(org = %org.slug, user_id = %caller.user.id, "organisation created");
    Ok((StatusCode::CREATED, Json((&Membership { org, role: Role::Owner }).into())))
}

pub async fn show(access: OrgAccess) -> Json<MembershipView> {
    Json((&access.membership).into())
}

#[derive(Serialize)]
pub struct MemberList {
    members: Vec<MemberView>,
}

pub async fn members(State(state): State<AppState>, access: OrgAccess) -> ApiResult<Json<MemberList>> {
    let members = state.store.members(access.org_id()).await?;
    Ok(Json(MemberList { members: members.iter().map(Into::into).collect() }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoleBody {
    role: Role,
}

/// Admins manage members and admins; only owners grant or take away ownership.
pub async fn set_role(
    State(state): State<AppState>,
    access: OrgAccess,
    Path((_, user_id)): Path<(String, String)>,
    ValidJson(body): ValidJson<RoleBody>,
) -> ApiResult<Json<MemberView>> {
    access.require_admin()?;
    let user_id = parse_id(&user_id)?;
    // The store decides whether the change is allowed, and says what the role was (for the audit).
    let (member, previous) = state.store.set_role(access.org_id(), user_id, body.role, access.role()).await?;
    state.forget(Forget::CachedMember { org_id: access.org_id(), user_id, left: false }).await;
    tracing::info!(org = %access.membership.org.slug, %user_id, role = body.role.as_str(), "role changed");
    access
        .audit(
            state.store.as_ref(),
            "member.role_changed",
            Subject {
                user_id: Some(user_id),
                details: Some(serde_json::json!({
                    "role": body.role,
                    "changes": audit::changes(&serde_json::json!({ "role": previous }), &serde_json::json!({ "role": body.role })),
                })),
                ..Default::default()
            },
        )
        .await;
    Ok(Json((&member).into()))
}

/// Admins remove members (owners only by owners); anyone may leave.
pub async fn remove(
    State(state): State<AppState>,
    access: OrgAccess,
    Path((_, user_id)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    let user_id = parse_id(&user_id)?;
    if user_id != access.user().id {
        access.require_admin()?;
    }
    // Their upstream connections go with the membership; the tokens are revoked upstream too.
    let held = crate::upstream_auth::held_by(&state, access.org_id(), user_id).await;
    state.store.remove_member(access.org_id(), user_id, access.role()).await?;
    crate::upstream_auth::revoke_all(&state, access.org_id(), held).await;
    // Their calls, sessions and links in the org end on every replica.
    state.forget(Forget::CachedMember { org_id: access.org_id(), user_id, left: true }).await;
    tracing::info!(org = %access.membership.org.slug, %user_id, "member removed");
    access
        .audit(
            state.store.as_ref(),
            "member.removed",
            Subject { user_id: Some(user_id), ..Default::default() },
        )
        .await;
    Ok(StatusCode::NO_CONTENT)
}

/// Ids in paths that do not parse name nothing that exists.
pub fn parse_id(raw: &str) -> ApiResult<Uuid> {
    Uuid::parse_str(raw).map_err(|_| ApiError::NotFound)
}
