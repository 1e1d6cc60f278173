//! Every HTTP request Herald makes to an upstream server: a client span after the HTTP client
//! conventions (the server's host and port only, never the URL's path or query, which may hold
//! secrets), the `traceparent` header, and the latency and error metrics by server.

use std::sync::Arc;
use std::time::Instant;

use herald_mcp::transport::{Observation, Observer, TransportError};
use reqwest::Method;
use reqwest::header::HeaderMap;
use tracing::Span;
use tracing::field::Empty;

use super::metrics::metrics;
use super::propagation::inject_headers;

/// Watches the requests to one registered server.
pub struct Upstream {
    /// `org/slug`: the metrics' `server` label and the span's `herald.server`.
    server: String,
    host: String,
    port: Option<u16>,
}

/// The observer for `org`'s server `slug` at `url`.
pub fn observer(org: &str, slug: &str, url: &reqwest::Url) -> Arc<dyn Observer> {
    Arc::new(Upstream {
        server: format!("{org}/{slug}"),
        host: url.host_str().unwrap_or_default().to_owned(),
        port: url.port_or_known_default(),
    })
}

impl Observer for Upstream {
    fn start(&self, method: &Method, headers: &mut HeaderMap) -> Box<dyn Observation> {
        let span = tracing::info_span!(
            "upstream",
            otel.name = method.as_str(),
            otel.kind = "client",
            otel.status_code = Empty,
            http.request.method = method.as_str(),
            server.address = %self.host,
            server.port = self.port,
            herald.server = %self.server,
            http.response.status_code = Empty,
            error.type = Empty,
        );
        inject_headers(&span, super::mcp::carried_for_header().as_ref(), headers);
        Box::new(Watch { span, started: Instant::now(), server: self.server.clone() })
    }
}

struct Watch {
    span: Span,
    started: Instant,
    server: String,
}

impl Observation for Watch {
    fn finish(self: Box<Self>, outcome: Result<u16, &TransportError>) {
        let kind = match outcome {
            Ok(status) => {
                self.span.record("http.response.status_code", status);
                (status >= 400).then_some("status")
            }
            Err(e) => {
                if let TransportError::Status { status, .. } = e {
                    self.span.record("http.response.status_code", *status);
                }
                Some(error_kind(e))
            }
        };
        if let Some(kind) = kind {
            self.span.record("otel.status_code", "ERROR");
            self.span.record("error.type", kind);
        }
        metrics().upstream_request(&self.server, self.started.elapsed(), kind);
    }
}

fn error_kind(e: &TransportError) -> &'static str {
    match e {
        TransportError::Connect(_) => "connect",
        TransportError::Timeout(_) => "timeout",
        TransportError::SessionExpired => "session_expired",
        TransportError::Status { .. } => "status",
        TransportError::Protocol(_) => "protocol",
        TransportError::Lost(_) => "lost",
    }
}
