//! Signing in and out, the caller's own account, and password changes.

use axum::Json;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use time::OffsetDateTime;

use super::auth::{Principal, SessionUser};
use super::error::{ApiError, ApiResult};
use super::json::{Checks, ValidJson, checked};
use super::session;
use super::views::AccountView;
use crate::app::AppState;
use crate::crypto::password;
use crate::domain::{Email, Password};

/// argon2id is deliberately slow; keep it off the async workers.
pub async fn hash_password(plain: &Password) -> ApiResult<String> {
    let plain = plain.expose().to_owned();
    Ok(tokio::task::spawn_blocking(move || password::hash(&plain)).await.map_err(anyhow::Error::from)?)
}

pub async fn verify_password(plain: &str, stored: Option<String>) -> ApiResult<bool> {
    let plain = plain.to_owned();
    Ok(tokio::task::spawn_blocking(move || match stored {
        Some(stored) => password::verify(&plain, &stored),
        None => {
            password::verify_against_nothing(&plain);
            false
        }
    })
    .await
    .map_err(anyhow::Error::from)?)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoginBody {
    email: String,
    password: String,
}

pub async fn login(
    State(state): State<AppState>,
    ValidJson(body): ValidJson<LoginBody>,
) -> ApiResult<Response> {
    let Ok(email) = Email::parse(&body.email) else {
        return Err(ApiError::InvalidCredentials);
    };
    if body.password.len() > Password::MAX_BYTES {
        return Err(ApiError::InvalidCredentials);
    }
    let account = state.store.user_by_email(email.as_str()).await?;
    let stored = account.as_ref().map(|a| a.password_hash.clone());
    if !verify_password(&body.password, stored).await? {
        return Err(ApiError::InvalidCredentials);
    }
    let user = account.expect("a verified password belongs to an account").user;
    let cookie = session::start(&state, user.id).await?;
    let memberships = state.store.memberships(user.id).await?;
    tracing::info!(user_id = %user.id, "signed in");
    Ok(([(header::SET_COOKIE, cookie)], Json(AccountView::new(&user, &memberships))).into_response())
}

pub async fn logout(State(state): State<AppState>, caller: SessionUser) -> ApiResult<Response> {
    state.store.end_session(caller.session_id, OffsetDateTime::now_utc()).await?;
    Ok((StatusCode::NO_CONTENT, [(header::SET_COOKIE, session::clear_cookie(&state))]).into_response())
}

pub async fn me(State(state): State<AppState>, principal: Principal) -> ApiResult<Json<AccountView>> {
    let memberships = match &principal {
        Principal::Session { user, .. } => state.store.memberships(user.id).await?,
        // A token sees only the organisation it is bound to.
        Principal::Token(token) => vec![token.membership.clone()],
    };
    Ok(Json(AccountView::new(principal.user(), &memberships)))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PasswordBody {
    current_password: String,
    new_password: String,
}

/// Changes the password and ends every other session of the user; this one
/// is replaced by a fresh session, so the caller stays signed in.
pub async fn change_password(
    State(state): State<AppState>,
    caller: SessionUser,
    ValidJson(body): ValidJson<PasswordBody>,
) -> ApiResult<Response> {
    let mut checks = Checks::default();
    let new_password =
        checks.field("new_password", Password::parse(&body.new_password, Some(&caller.user.email)));
    if body.new_password == body.current_password {
        checks.push("new_password", "must differ from the current password");
    }
    checks.finish()?;
    let stored = state.store.user_by_id(caller.user.id).await?.map(|c| c.password_hash);
    if !verify_password(&body.current_password, stored).await? {
        return Err(ApiError::field("current_password", "is not your current password"));
    }
    let hash = hash_password(&checked(new_password)).await?;
    state.store.set_password(caller.user.id, &hash, None, OffsetDateTime::now_utc()).await?;
    let cookie = session::start(&state, caller.user.id).await?;
    tracing::info!(user_id = %caller.user.id, "password changed; other sessions ended");
    Ok((StatusCode::NO_CONTENT, [(header::SET_COOKIE, cookie)]).into_response())
}
