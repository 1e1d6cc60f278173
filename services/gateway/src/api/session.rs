//! Dashboard sessions: a JWT in an HttpOnly cookie, naming a session row that
//! the server can end at any time (logout, password change). The JWT alone
//! never suffices: every request also checks that its session is still live.

use axum::http::{HeaderMap, HeaderValue, header};
use jsonwebtoken::{Algorithm, Header, Validation};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::app::AppState;

#[derive(Debug, Serialize, Deserialize)]
pub struct Claims {
    /// The user.
    pub sub: Uuid,
    /// The session row.
    pub sid: Uuid,
    pub iat: i64,
    pub exp: i64,
}

pub fn issue(
    state: &AppState,
    user_id: Uuid,
    session_id: Uuid,
    now: OffsetDateTime,
    expires_at: OffsetDateTime,
) -> String {
    let claims =
        Claims { sub: user_id, sid: session_id, iat: now.unix_timestamp(), exp: expires_at.unix_timestamp() };
    jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &state.keys.session_encoding)
        .expect("HS256 signing of fixed claims cannot fail")
}

pub fn verify(state: &AppState, token: &str) -> Option<Claims> {
    let mut validation = Validation::new(Algorithm::HS256);
    validation.leeway = 0;
    validation.set_required_spec_claims(&["exp", "sub"]);
    jsonwebtoken::decode::<Claims>(token, &state.keys.session_decoding, &validation)
        .ok()
        .map(|data| data.claims)
}

/// `__Host-` pins the cookie to this exact origin when it can be Secure.
pub fn cookie_name(state: &AppState) -> &'static str {
    if state.config.cookies_secure() { "__Host-herald_session" } else { "herald_session" }
}

pub fn set_cookie(state: &AppState, jwt: &str, max_age_secs: i64) -> HeaderValue {
    let secure = if state.config.cookies_secure() { "; Secure" } else { "" };
    HeaderValue::from_str(&format!(
        "{}={jwt}; Path=/; HttpOnly; SameSite=Strict; Max-Age={max_age_secs}{secure}",
        cookie_name(state)
    ))
    .expect("a JWT is a valid header value")
}

pub fn clear_cookie(state: &AppState) -> HeaderValue {
    set_cookie(state, "", 0)
}

pub fn from_headers<'a>(state: &AppState, headers: &'a HeaderMap) -> Option<&'a str> {
    cookie(headers, cookie_name(state))
}

/// The value of the cookie `name` the request carries.
pub fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

/// Opens a session for `user_id` and returns the `Set-Cookie` value for it.
pub async fn start(state: &AppState, user_id: Uuid) -> Result<HeaderValue, crate::problem::ApiError> {
    let now = OffsetDateTime::now_utc();
    let ttl = state.config.session_ttl;
    let expires_at = now + ttl;
    let session_id = state.store.create_session(user_id, now, expires_at).await?;
    let jwt = issue(state, user_id, session_id, now, expires_at);
    Ok(set_cookie(state, &jwt, i64::try_from(ttl.as_secs()).unwrap_or(i64::MAX)))
}
