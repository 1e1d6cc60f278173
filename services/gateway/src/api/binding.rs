//! What the two browser round trips through a third party share (signing in at an identity
//! provider, `api::sso`; connecting an account at a server's authorization server,
//! `api::connections`): a cookie that binds an attempt to the browser that started it, so an
//! answer brought back by another browser is refused, and the `303` that moves the browser on.

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine;

use crate::app::AppState;
use crate::crypto;

/// A browser-binding cookie: its name (a `__Secure-` one when Herald is on https) and the paths
/// it is sent to. `SameSite=Lax`: it must come back on the third party's top-level redirect,
/// which a `Strict` cookie would not.
pub struct Binding {
    pub name: &'static str,
    pub secure_name: &'static str,
    pub path: &'static str,
}

/// 32 random bytes in base64url: 43 characters.
const SECRET_LEN: usize = 43;

impl Binding {
    fn name(&self, state: &AppState) -> &'static str {
        if state.config.cookies_secure() { self.secure_name } else { self.name }
    }

    /// `Set-Cookie` for `value` (empty with `max_age` 0: the cookie goes).
    pub fn cookie(&self, state: &AppState, value: &str, max_age: u64) -> HeaderValue {
        let secure = if state.config.cookies_secure() { "; Secure" } else { "" };
        HeaderValue::from_str(&format!(
            "{}={value}; Path={}; HttpOnly; SameSite=Lax; Max-Age={max_age}{secure}",
            self.name(state),
            self.path
        ))
        .expect("base64url is a valid header value")
    }

    pub fn clear(&self, state: &AppState) -> HeaderValue {
        self.cookie(state, "", 0)
    }

    /// The browser's secret, if it sent one of the right shape.
    pub fn secret(&self, state: &AppState, headers: &HeaderMap) -> Option<String> {
        crate::api::session::cookie(headers, self.name(state))
            .filter(|v| {
                v.len() == SECRET_LEN
                    && v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            })
            .map(str::to_owned)
    }

    /// The browser's secret, or a new one: one browser, one binding, so a second tab's attempt
    /// does not orphan the first tab's.
    pub fn secret_or_new(&self, state: &AppState, headers: &HeaderMap) -> String {
        self.secret(state, headers).unwrap_or_else(|| {
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(crypto::random_bytes::<32>())
        })
    }

    /// Whether the browser's cookie is the one whose SHA-256 the attempt kept.
    pub fn matches(&self, state: &AppState, headers: &HeaderMap, kept_hash: &[u8]) -> bool {
        self.secret(state, headers).is_some_and(|secret| crypto::sha256(secret.as_bytes()) == kept_hash)
    }
}

/// `303 See Other` to `location`, setting `cookies`.
pub fn see_other(location: &str, cookies: &[HeaderValue]) -> Response {
    let mut response = (StatusCode::SEE_OTHER, [(header::LOCATION, location.to_owned())]).into_response();
    for cookie in cookies {
        response.headers_mut().append(header::SET_COOKIE, cookie.clone());
    }
    response
}
