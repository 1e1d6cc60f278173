//! Every HTTP request Herald serves: a span after the HTTP server conventions (a child of the
//! caller's `traceparent`), and the request metrics by route template.
//!
//! The span has the method, the route template, the path and the request id. It never has the
//! query string or the body, since either may carry secrets. Every log line of the request
//! inherits the span.

use std::time::Instant;

use axum::extract::{MatchedPath, Request};
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument;
use tracing::field::Empty;

use super::metrics::metrics;
use super::propagation::{Carried, adopt};

/// The route label of requests no route matched.
const UNMATCHED: &str = "unmatched";

pub async fn observe(request: Request, next: Next) -> Response {
    let route = request.extensions().get::<MatchedPath>().map(|p| p.as_str().to_owned());
    let route = route.as_deref().unwrap_or(UNMATCHED).to_owned();
    let request_id = request.headers().get("x-request-id").and_then(|v| v.to_str().ok()).unwrap_or("-");
    let method = request.method().as_str().to_owned();
    let span = tracing::info_span!(
        "request",
        otel.name = %format!("{method} {route}"),
        otel.kind = "server",
        otel.status_code = Empty,
        http.request.method = %method,
        http.route = %route,
        url.path = %request.uri().path(),
        request_id = %request_id,
        http.response.status_code = Empty,
        error.type = Empty,
    );
    adopt(&span, Carried::from_headers(request.headers()).as_ref());
    let started = Instant::now();
    let response = next.run(request).instrument(span.clone()).await;
    let status = response.status();
    span.record("http.response.status_code", status.as_u16());
    if status.is_server_error() {
        span.record("otel.status_code", "ERROR");
        span.record("error.type", status.as_str());
    }
    metrics().http_request(&route, status, started.elapsed());
    response
}
