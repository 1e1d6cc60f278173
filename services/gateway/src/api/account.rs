//! Signing in and out, the caller's own account, and password changes.

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use time::OffsetDateTime;

use super::auth::{Principal, SessionUser};
use super::client::ClientAddr;
use super::json::{Checks, ValidJson, checked};
use super::session;
use super::views::AccountView;
use crate::app::AppState;
use crate::domain::{Email, Password};
use crate::problem::{ApiError, ApiResult};
use crate::replicas::Forget;
use crate::storage::UserCredentials;
use crate::throttle::Attempt;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoginBody {
    email: String,
    password: String,
}

/// Signs in. In order, so that no refused attempt costs a password hash: the throttle (429
/// while the account or the client's address waits), a hashing slot (503 when every slot is
/// busy), the throttle again (failures may have come in meanwhile), then the password.
pub async fn login(
    State(state): State<AppState>,
    ClientAddr(client): ClientAddr,
    ValidJson(body): ValidJson<LoginBody>,
) -> ApiResult<Response> {
    if !state.sign_in.settings.password_sign_in {
        return Err(ApiError::PasswordSignInOff(
            "this Herald signs in through its identity provider only".into(),
        ));
    }
    let Ok(email) = Email::parse(&body.email) else {
        return Err(ApiError::InvalidCredentials);
    };
    if body.password.len() > Password::MAX_BYTES {
        return Err(ApiError::InvalidCredentials);
    }
    let attempt = Attempt::new(&state, email.as_str(), client);
    attempt.check(&state).await?;
    let account = state.store.user_by_email(email.as_str()).await?;
    let Some(account) = check_password(&state, &attempt, account, &body.password).await? else {
        return Err(ApiError::InvalidCredentials);
    };
    let user = account.user;
    // Told only to someone who knows the password: which organisations a person is in is theirs.
    if let Some(org) = state.store.password_refused_by(user.id).await? {
        return Err(ApiError::PasswordSignInOff(format!(
            "{} signs its members in through its identity provider: use its button instead",
            org.name
        )));
    }
    let cookie = session::start(&state, user.id).await?;
    let memberships = state.store.memberships(user.id).await?;
    tracing::info!(user_id = %user.id, "signed in");
    Ok(([(header::SET_COOKIE, cookie)], Json(AccountView::new(&user, &memberships))).into_response())
}

/// A password check under the sign-in throttle (see [`login`]; the caller has checked the
/// throttle once already): the account when `password` is its password; `None` (counted as a
/// failure) when it is not, or there is no account.
pub async fn check_password(
    state: &AppState,
    attempt: &Attempt,
    account: Option<UserCredentials>,
    password: &str,
) -> ApiResult<Option<UserCredentials>> {
    let slot = state.passwords.slot().await?;
    attempt.check(state).await?;
    let stored = account.as_ref().map(|a| a.password_hash.clone());
    if slot.verify(password, stored).await? {
        attempt.succeeded(state).await?;
        Ok(account)
    } else {
        attempt.failed(state, account.as_ref().map(|a| &a.user)).await?;
        Ok(None)
    }
}

pub async fn logout(State(state): State<AppState>, caller: SessionUser) -> ApiResult<Response> {
    state.store.end_session(caller.session_id, OffsetDateTime::now_utc()).await?;
    // Its dashboards' sockets close on every replica.
    state.forget(Forget::SessionEnded { user_id: caller.user.id, session_id: caller.session_id }).await;
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

/// Whether the request carries a live dashboard sign-in.
#[derive(serde::Serialize)]
pub struct SessionProbe {
    signed_in: bool,
}

/// `GET /api/v1/session`: whether the caller is signed in to the dashboard, answered `200`
/// either way, so the dashboard learns it without a failed request. The session is checked as
/// every signed-in request checks it (signature, expiry, the session row); an `Authorization`
/// header is ignored, since a token is not a sign-in.
pub async fn probe(State(state): State<AppState>, headers: HeaderMap) -> ApiResult<Json<SessionProbe>> {
    let Some(claims) = session::from_headers(&state, &headers).and_then(|jwt| session::verify(&state, jwt))
    else {
        return Ok(Json(SessionProbe { signed_in: false }));
    };
    let user = state.store.session_user(claims.sid, OffsetDateTime::now_utc()).await?;
    Ok(Json(SessionProbe { signed_in: user.is_some_and(|user| user.id == claims.sub) }))
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
    ClientAddr(client): ClientAddr,
    ValidJson(body): ValidJson<PasswordBody>,
) -> ApiResult<Response> {
    let mut checks = Checks::default();
    let new_password =
        checks.field("new_password", Password::parse(&body.new_password, Some(&caller.user.email)));
    if body.new_password == body.current_password {
        checks.push("new_password", "must differ from the current password");
    }
    checks.finish()?;
    // Guessing the current password from a stolen session is throttled like signing in.
    let attempt = Attempt::new(&state, &caller.user.email, client);
    attempt.check(&state).await?;
    let account = state.store.user_by_id(caller.user.id).await?;
    if check_password(&state, &attempt, account, &body.current_password).await?.is_none() {
        return Err(ApiError::field("current_password", "is not your current password"));
    }
    let hash = state.passwords.hash(&checked(new_password)).await?;
    state.store.set_password(caller.user.id, &hash, None, OffsetDateTime::now_utc()).await?;
    // Every sign-in's sockets close on every replica, this one's too: its page reconnects
    // with the new sign-in.
    state.forget(Forget::SessionsEnded { user_id: caller.user.id }).await;
    let cookie = session::start(&state, caller.user.id).await?;
    tracing::info!(user_id = %caller.user.id, "password changed; other sessions ended");
    Ok((StatusCode::NO_CONTENT, [(header::SET_COOKIE, cookie)]).into_response())
}
