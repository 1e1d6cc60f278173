//! The dashboard's static files (`web-ui/`), embedded in the binary at
//! compile time so `cargo run` alone serves a working dashboard. Pages get a
//! strict Content-Security-Policy: scripts and styles only from this origin,
//! no inline code, no framing.

use axum::extract::Path;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::problem::ApiError;

#[derive(rust_embed::Embed)]
#[folder = "../../web-ui/"]
struct Assets;

const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                   connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/// Every dashboard page is the same shell; the script draws the page.
pub async fn page() -> Response {
    file("index.html")
}

pub async fn asset(Path(name): Path<String>) -> Response {
    file(&name)
}

fn file(name: &str) -> Response {
    let Some(found) = Assets::get(name) else {
        return ApiError::NotFound.into_response();
    };
    let kind = match name.rsplit_once('.').map(|(_, ext)| ext) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        _ => "application/octet-stream",
    };
    let mut response = (StatusCode::OK, found.data.into_owned()).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}
