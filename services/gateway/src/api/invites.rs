//! Invitations: one-time links with an expiry that add a member to an org.
//! The secret travels in the link's fragment and in request bodies, never in
//! a URL path, so it cannot end up in access logs.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use time::{Duration, OffsetDateTime};

use super::account::check_password;
use super::auth::{OrgAccess, Principal};
use super::client::ClientAddr;
use super::json::{Checks, ValidJson, checked};
use super::orgs::parse_id;
use super::session;
use super::views::{InviteView, MembershipView, UserView};
use crate::app::AppState;
use crate::audit::{self, Subject};
use crate::crypto;
use crate::domain::{DisplayName, Email, Password, Role};
use crate::problem::{ApiError, ApiResult};
use crate::storage::{Joiner, NewInvite, NewUser};
use crate::throttle::Attempt;

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
    access
        .audit(
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
    access
        .audit(
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

/// What the link offers. Deliberately not whether the email has an account: whoever holds
/// the link (its admin, to begin with) would learn that of any email they care to invite.
#[derive(Serialize)]
pub struct InvitePreview {
    org: PreviewOrg,
    email: String,
    role: Role,
    #[serde(with = "time::serde::rfc3339")]
    expires_at: OffsetDateTime,
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
    Ok(Json(InvitePreview {
        org: PreviewOrg { slug: org.slug, name: org.name },
        email: invite.email,
        role: invite.role,
        expires_at: invite.expires_at,
    }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AcceptBody {
    token: String,
    /// Unless signed in as the invitee: a name and password for a new account, or the
    /// password of the invitee's existing account (the name is then left as it is).
    name: Option<String>,
    password: Option<String>,
}

#[derive(Serialize)]
pub struct Accepted {
    user: UserView,
    membership: MembershipView,
}

/// Accepts an invite. Signed in as the invite's email: joins. Otherwise the body's name and
/// password are checked first, the same way whether or not the email has an account (so the
/// answer to a half-filled form tells nobody which it is); then an existing account must be
/// proven with its password (under the sign-in throttle; the invitee is then signed in), and
/// a new one is created. What remains observable, inherently, is the outcome: an account is
/// created (201) or the password is refused (401); learning "no account" this way creates
/// that account and uses the invite, which its organisation's audit log shows.
pub async fn accept(
    State(state): State<AppState>,
    principal: Option<Principal>,
    ClientAddr(client): ClientAddr,
    ValidJson(body): ValidJson<AcceptBody>,
) -> ApiResult<Response> {
    let token_hash = crypto::token_hash(&body.token);
    let now = OffsetDateTime::now_utc();
    let (invite, _) = state.store.usable_invite(&token_hash, now).await?.ok_or_else(invite_unavailable)?;
    let (joiner, new_session, status) = match &principal {
        Some(Principal::Session { user, .. }) if user.email == invite.email => {
            (Joiner::Existing(user.id), false, StatusCode::OK)
        }
        _ => {
            let mut checks = Checks::default();
            let name = checks.field("name", DisplayName::parse(body.name.as_deref().unwrap_or_default()));
            let password_text = body.password.as_deref().unwrap_or_default();
            let password = checks.field("password", Password::parse(password_text, Some(&invite.email)));
            checks.finish()?;
            let attempt = Attempt::new(&state, &invite.email, client);
            match state.store.user_by_email(&invite.email).await? {
                Some(account) => {
                    attempt.check(&state).await?;
                    let Some(account) =
                        check_password(&state, &attempt, Some(account), password_text).await?
                    else {
                        return Err(ApiError::InvalidCredentials);
                    };
                    (Joiner::Existing(account.user.id), true, StatusCode::OK)
                }
                None => {
                    let password_hash = state.passwords.hash(&checked(password)).await?;
                    let user = NewUser {
                        email: invite.email.clone(),
                        name: checked(name).as_str().to_owned(),
                        password_hash,
                    };
                    (Joiner::New(user), true, StatusCode::CREATED)
                }
            }
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
    if new_session {
        let cookie = session::start(&state, user.id).await?;
        return Ok((status, [(header::SET_COOKIE, cookie)], body).into_response());
    }
    Ok((status, body).into_response())
}

fn invite_unavailable() -> ApiError {
    ApiError::Gone("invite-unavailable", "this invite link was used, revoked, or has expired".into())
}
