//! Cross-site request refusal for cookie sessions. Browsers attach the
//! SameSite=Strict cookie only to same-site requests already; this adds a
//! second, independent check on every state-changing request: the request
//! must not come from another origin than the public URL's.

use axum::extract::{Request, State};
use axum::http::{Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::app::AppState;
use crate::problem::ApiError;

pub async fn refuse_cross_site(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if is_cross_site(&state, &request) {
        return ApiError::CrossSite.into_response();
    }
    next.run(request).await
}

fn is_cross_site(state: &AppState, request: &Request) -> bool {
    let safe = matches!(*request.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    // A bearer token is not ambient authority: a foreign page cannot attach it.
    if safe || request.headers().contains_key(header::AUTHORIZATION) {
        return false;
    }
    let headers = request.headers();
    if let Some(origin) = headers.get(header::ORIGIN) {
        return origin.to_str().map_or(true, |o| o != state.config.public_origin());
    }
    // No Origin: old browsers or non-browser clients. Trust Fetch Metadata if sent.
    headers
        .get("sec-fetch-site")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|site| !matches!(site, "same-origin" | "none"))
}
