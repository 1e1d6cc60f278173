//! Invitations: one-time links with an expiry that add a member to an org.
//! The secret travels in the link's fragment and in request bodies, never in
//! a URL path, so it cannot end up in access logs.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use time::{Duration, OffsetDateTime};

use super::account::hash_password;
use super::auth::{OrgAccess, Principal};
use super::error::{ApiError, ApiResult};
use super::json::{Checks, ValidJson, checked};
use super::orgs::parse_id;
use super::session;
use super::views::{InviteView, MembershipView, UserView};
use crate::app::AppState;
use crate::audit::{self, Subject};
use crate::crypto;
use crate::domain::{DisplayName, Email, Password, Role};
use crate::storage::{Joiner, NewInvite, NewUser};

pub const INVITE_LIFETIME: Duration = Duration::days(7);

#[derive(Serialize)]
pub struct InviteList {
    invites: Vec<InviteView>,
}

pub async fn list(State(state): State<AppState>, access: OrgAccess) -> ApiResult<Json<InviteList>> {
    access.require_admin()?;
    let invites = state.store.pending_invites(access.org_id(), OffsetDateTime::now_utc()).await?;
    Ok(Json(InviteList { invites: invites.iter().map(Into::into).collect() }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewInviteBody {
    email: String,
    role: Role,
}

#[derive(Serialize)]
pub struct CreatedInvite {
    #[serde(flatten)]
    invite: InviteView,
    /// The one-time link to hand to the invitee; shown only now.
    link: String,
}

pub async fn create(
    State(state): State<AppState>,
    access: OrgAccess,
    ValidJson(body): ValidJson<NewInviteBody>,
) -> ApiResult<(StatusCode, Json<CreatedInvite>)> {
    access.require_admin()?;
    if body.role == Role::Owner && access.role() != Role::Owner {
        return Err(ApiError::Forbidden("only owners may invite owners"));
    }
    let email = Email::parse(&body.email).map_err(|e| ApiError::field("email", e.0))?;
    let members = state.store.members(access.org_id()).await?;
    if members.iter().any(|m| m.user.email == email.as_str()) {
        return Err(ApiError::Conflict("already-member", "this person is already a member".into()));
    }
    let secret = crypto::link_secret();
    let now = OffsetDateTime::now_utc();
    let invite = state
        .store
        .create_invite(
            access.org_id(),
            NewInvite {
                email: email.as_str().to_owned(),
                role: body.role,
                token_hash: crypto::token_hash(&secret),
                created_by: access.user().id,
                expires_at: now + INVITE_LIFETIME,
            },
            now,
        )
        .await?;
    tracing::info!(org = %access.membership.org.slug, invite_id = %invite.id, "invite created");
    audit::by(
        &access,
        state.store.as_ref(),
        "invite.created",
        Subject {
            details: Some(
                serde_json::json!({ "invite_id": invite.id, "email": invite.email, "role": invite.role }),
            ),
            ..Default::default()
        },
    )
    .await;
    let link = state.config.dashboard_link("invite", &secret);
    Ok((StatusCode::CREATED, Json(CreatedInvite { invite: (&invite).into(), link })))
}

pub async fn revoke(
    State(state): State<AppState>,
    access: OrgAccess,
    Path((_, id)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    access.require_admin()?;
    let id = parse_id(&id)?;
    state.store.revoke_invite(access.org_id(), id, OffsetDateTime::now_utc()).await?;
    audit::by(
        &access,
        state.store.as_ref(),
        "invite.revoked",
        Subject { details: Some(serde_json::json!({ "invite_id": id })), ..Default::default() },
    )
    .await;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PreviewBody {
    token: String,
}

#[derive(Serialize)]
pub struct InvitePreview {
    org: PreviewOrg,
    email: String,
    role: Role,
    #[serde(with = "time::serde::rfc3339")]
    expires_at: OffsetDateTime,
    /// Whether the invitee signs in (true) or creates an account (false).
    account_exists: bool,
}

#[derive(Serialize)]
struct PreviewOrg {
    slug: String,
    name: String,
}

/// What an invite link offers, so the dashboard can ask the right questions.
pub async fn preview(
    State(state): State<AppState>,
    ValidJson(body): ValidJson<PreviewBody>,
) -> ApiResult<Json<InvitePreview>> {
    let (invite, org) = state
        .store
        .usable_invite(&crypto::token_hash(&body.token), OffsetDateTime::now_utc())
        .await?
        .ok_or_else(invite_unavailable)?;
    let account_exists = state.store.user_by_email(&invite.email).await?.is_some();
    Ok(Json(InvitePreview {
        org: PreviewOrg { slug: org.slug, name: org.name },
        email: invite.email,
        role: invite.role,
        expires_at: invite.expires_at,
        account_exists,
    }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AcceptBody {
    token: String,
    /// For a new account: the invitee's name and password.
    name: Option<String>,
    password: Option<String>,
}

#[derive(Serialize)]
pub struct Accepted {
    user: UserView,
    membership: MembershipView,
}

/// Accepts an invite. An invitee who already has an account must be signed
/// in as that account; anyone else creates an account with the invite's email
/// and is signed in.
pub async fn accept(
    State(state): State<AppState>,
    principal: Option<Principal>,
    ValidJson(body): ValidJson<AcceptBody>,
) -> ApiResult<Response> {
    let token_hash = crypto::token_hash(&body.token);
    let now = OffsetDateTime::now_utc();
    let (invite, _) = state.store.usable_invite(&token_hash, now).await?.ok_or_else(invite_unavailable)?;
    let existing = state.store.user_by_email(&invite.email).await?;
    let (joiner, new_account) = match existing {
        Some(account) => match &principal {
            Some(Principal::Session { user, .. }) if user.id == account.user.id => {
                (Joiner::Existing(user.id), false)
            }
            _ => {
                return Err(ApiError::Forbidden(
                    "this invite is for an existing account: sign in as that account to accept it",
                ));
            }
        },
        None => {
            let mut checks = Checks::default();
            let name = checks.field("name", DisplayName::parse(body.name.as_deref().unwrap_or_default()));
            let password = checks.field(
                "password",
                Password::parse(body.password.as_deref().unwrap_or_default(), Some(&invite.email)),
            );
            checks.finish()?;
            let password_hash = hash_password(&checked(password)).await?;
            let user = NewUser {
                email: invite.email.clone(),
                name: checked(name).as_str().to_owned(),
                password_hash,
            };
            (Joiner::New(user), true)
        }
    };
    let (membership, user) = state.store.accept_invite(&token_hash, joiner, now).await?;
    tracing::info!(org = %membership.org.slug, user_id = %user.id, "invite accepted");
    audit::record(
        state.store.as_ref(),
        membership.org.id,
        audit::Actor::User(user.id),
        "invite.accepted",
        Subject {
            user_id: Some(user.id),
            details: Some(serde_json::json!({ "role": membership.role })),
            ..Default::default()
        },
    )
    .await;
    let body = Json(Accepted { user: (&user).into(), membership: (&membership).into() });
    if new_account {
        let cookie = session::start(&state, user.id).await?;
        return Ok((StatusCode::CREATED, [(header::SET_COOKIE, cookie)], body).into_response());
    }
    Ok((StatusCode::OK, body).into_response())
}

fn invite_unavailable() -> ApiError {
    ApiError::Gone("invite-unavailable", "this invite link was used, revoked, or has expired".into())
}
