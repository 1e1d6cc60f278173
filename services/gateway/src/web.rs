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

/// A page drawn on the server (the e-mail answer links' pages), under the
/// same policy; `body` must already be escaped (see [`escape`]).
pub fn server_page(status: StatusCode, title: &str, body: &str) -> Response {
    let html = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{} · Herald</title><link rel=\"stylesheet\" href=\"/assets/styles.css\"></head>\
         <body><main class=\"answer-page\"><h1>{}</h1>{body}</main></body></html>",
        escape(title),
        escape(title)
    );
    let mut response = (status, html).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// Text made safe to put inside HTML.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Every dashboard page is the same shell; the script draws the page.
pub async fn page() -> Response {
    file("index.html")
}

/// The service worker that shows push notifications (`web-ui/sw.js`). It is
/// served from the root so that its scope is the whole dashboard.
pub async fn service_worker() -> Response {
    file("sw.js")
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
