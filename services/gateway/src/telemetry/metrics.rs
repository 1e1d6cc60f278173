//! Herald's metrics: OpenTelemetry instruments (atomic and cheap), read by two readers: the
//! Prometheus exporter behind `GET /metrics` and, when configured, an OTLP periodic reader.
//!
//! Instruments carry OpenTelemetry names (`herald.agent.calls`); the Prometheus exposition
//! turns them into Prometheus names (`herald_agent_calls_total`, units as suffixes). Every label
//! has a bounded set of values: routes are route templates, methods a fixed list, servers the
//! registry's `org/slug`, reasons and outcomes the contract's vocabulary.

use std::sync::OnceLock;
use std::time::Duration;

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use herald_mcp::{ElicitAction, ElicitationMode};
use opentelemetry::KeyValue;
use opentelemetry::metrics::{Counter, Histogram, Meter, MeterProvider as _, UpDownCounter};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::SdkMeterProvider;

use crate::domain::outcome::Reason;

/// Latencies of requests, in seconds.
const REQUEST_BUCKETS: [f64; 14] =
    [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0];
/// How long people take to answer, in seconds.
const ANSWER_BUCKETS: [f64; 12] = [0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0];

pub struct Metrics {
    provider: SdkMeterProvider,
    /// Where `GET /metrics` reads from; `None` when it is turned off.
    registry: Option<prometheus::Registry>,
    agent_calls: Counter<u64>,
    upstream_duration: Histogram<f64>,
    upstream_errors: Counter<u64>,
    elicitations: Counter<u64>,
    elicitations_pending: UpDownCounter<i64>,
    answer_duration: Histogram<f64>,
    policy_decisions: Counter<u64>,
    unrecorded_answers: Counter<u64>,
    websocket_connections: UpDownCounter<i64>,
    http_requests: Counter<u64>,
    http_duration: Histogram<f64>,
    limit_refusals: Counter<u64>,
    signin_blocks: Counter<u64>,
    connections_open: UpDownCounter<i64>,
    connections_closed: Counter<u64>,
}

static METRICS: OnceLock<Metrics> = OnceLock::new();

/// The process's instruments (with only the Prometheus reader when `install` was never called,
/// as in tests that embed the app).
pub fn metrics() -> &'static Metrics {
    METRICS.get_or_init(|| Metrics::build(true, None).expect("metrics without OTLP always build"))
}

/// Sets the instruments up once, with an OTLP reader when `otlp` holds the resource to export.
pub fn install(endpoint: bool, otlp: Option<Resource>) -> Result<(), String> {
    let _ = METRICS.set(Metrics::build(endpoint, otlp)?);
    Ok(())
}

pub fn shutdown() {
    if let Some(m) = METRICS.get()
        && let Err(e) = m.provider.shutdown()
    {
        eprintln!("herald: exporting the last metrics failed: {e}");
    }
}

impl Metrics {
    fn build(endpoint: bool, otlp: Option<Resource>) -> Result<Self, String> {
        let mut builder = SdkMeterProvider::builder();
        let registry = endpoint.then(prometheus::Registry::new);
        if let Some(registry) = &registry {
            let exporter = opentelemetry_prometheus::exporter()
                .with_registry(registry.clone())
                .without_target_info()
                .scope_info_enabled(false)
                .build()
                .expect("the Prometheus exporter builds with a fresh registry");
            builder = builder.with_reader(exporter);
        }
        if let Some(resource) = otlp {
            let exporter = opentelemetry_otlp::MetricExporter::builder()
                .with_http()
                .build()
                .map_err(|e| format!("cannot export metrics over OTLP: {e}"))?;
            builder = builder.with_periodic_exporter(exporter).with_resource(resource);
        }
        let provider = builder.build();
        let meter = provider.meter("herald");
        let metrics = Self::instruments(provider.clone(), registry, &meter);
        // Gauges without labels are shown from the start, at zero.
        metrics.elicitations_pending.add(0, &[]);
        metrics.websocket_connections.add(0, &[]);
        metrics.connections_open.add(0, &[]);
        Ok(metrics)
    }

    fn instruments(
        provider: SdkMeterProvider,
        registry: Option<prometheus::Registry>,
        meter: &Meter,
    ) -> Self {
        let seconds = |name: &'static str, description: &'static str, buckets: &[f64]| {
            meter
                .f64_histogram(name)
                .with_unit("s")
                .with_description(description)
                .with_boundaries(buckets.to_vec())
                .build()
        };
        Self {
            provider,
            registry,
            agent_calls: meter
                .u64_counter("herald.agent.calls")
                .with_description("MCP requests from agents, by protocol generation, method and status")
                .build(),
            upstream_duration: seconds(
                "herald.upstream.request.duration",
                "HTTP requests to upstream servers, until the reply started",
                &REQUEST_BUCKETS,
            ),
            upstream_errors: meter
                .u64_counter("herald.upstream.errors")
                .with_description("Failed HTTP requests to upstream servers, by kind of failure")
                .build(),
            elicitations: meter
                .u64_counter("herald.elicitations")
                .with_description("Elicitations that ended, by outcome, reason and mode")
                .build(),
            elicitations_pending: meter
                .i64_up_down_counter("herald.elicitations.pending")
                .with_description("Elicitations waiting for an answer on this replica")
                .build(),
            answer_duration: seconds(
                "herald.elicitation.answer.duration",
                "From an elicitation's creation to its ending",
                &ANSWER_BUCKETS,
            ),
            policy_decisions: meter
                .u64_counter("herald.policy.decisions")
                .with_description(
                    "Policy decisions on elicitations, by the rule that decided (shown: none did)",
                )
                .build(),
            unrecorded_answers: meter
                .u64_counter("herald.policy.unrecorded")
                .with_description(
                    "Automatic answers given without a record of each (a server asking too often), by rule",
                )
                .build(),
            websocket_connections: meter
                .i64_up_down_counter("herald.websocket.connections")
                .with_description("Open dashboard websockets on this replica")
                .build(),
            http_requests: meter
                .u64_counter("herald.http.requests")
                .with_description("HTTP requests served, by route template and status")
                .build(),
            http_duration: seconds(
                "herald.http.request.duration",
                "HTTP requests served, until the response started",
                &REQUEST_BUCKETS,
            ),
            limit_refusals: meter
                .u64_counter("herald.limit.refusals")
                .with_description(
                    "Requests refused by an abuse limit, by limit (sign-in throttle, password hashing, \
                     websockets per user)",
                )
                .build(),
            signin_blocks: meter
                .u64_counter("herald.signin.blocks")
                .with_description("Sign-in back-offs started, by scope (account or client address)")
                .build(),
            connections_open: meter
                .i64_up_down_counter("herald.connections.open")
                .with_description("Open client connections on the main listener (websockets included)")
                .build(),
            connections_closed: meter
                .u64_counter("herald.connections.closed")
                .with_description(
                    "Client connections Herald closed itself, by reason (header timeout, idle timeout, \
                     displaced at the cap, refused at the cap)",
                )
                .build(),
        }
    }

    pub fn agent_call(&self, generation: &'static str, method: &'static str, ok: bool) {
        let status = if ok { "ok" } else { "error" };
        self.agent_calls.add(
            1,
            &[
                KeyValue::new("generation", generation),
                KeyValue::new("method", method),
                KeyValue::new("status", status),
            ],
        );
    }

    pub fn upstream_request(&self, server: &str, took: Duration, error: Option<&'static str>) {
        let server = KeyValue::new("server", server.to_owned());
        self.upstream_duration.record(took.as_secs_f64(), std::slice::from_ref(&server));
        if let Some(kind) = error {
            self.upstream_errors.add(1, &[server, KeyValue::new("kind", kind)]);
        }
    }

    pub fn elicitation_opened(&self) {
        self.elicitations_pending.add(1, &[]);
    }

    /// A pending elicitation this replica no longer follows.
    pub fn elicitation_forgotten(&self) {
        self.elicitations_pending.add(-1, &[]);
    }

    /// An ending; `was_pending` when it had been counted as pending here. The labels come from
    /// the typed vocabulary, so their values are bounded by construction.
    pub fn elicitation_ended(
        &self,
        action: ElicitAction,
        reason: Option<Reason>,
        mode: ElicitationMode,
        took: Duration,
        was_pending: bool,
    ) {
        if was_pending {
            self.elicitations_pending.add(-1, &[]);
        }
        let outcome = KeyValue::new("outcome", action.as_str());
        self.elicitations.add(
            1,
            &[
                outcome.clone(),
                KeyValue::new("reason", reason.map_or("other", Reason::as_str)),
                KeyValue::new("mode", mode.as_str()),
            ],
        );
        self.answer_duration.record(took.as_secs_f64(), &[outcome]);
    }

    /// What the policy did with a question: `shown`, or the rule or reason that answered it (a
    /// `Reason`'s spelling, so the label's values are bounded).
    pub fn policy_decision(&self, rule: &'static str) {
        self.policy_decisions.add(1, &[KeyValue::new("rule", rule)]);
    }

    pub fn policy_decision_unrecorded(&self, rule: &'static str) {
        self.unrecorded_answers.add(1, &[KeyValue::new("rule", rule)]);
    }

    pub fn websocket(&self, opened: bool) {
        self.websocket_connections.add(if opened { 1 } else { -1 }, &[]);
    }

    pub fn http_request(&self, route: &str, status: StatusCode, took: Duration) {
        let route = KeyValue::new("route", route.to_owned());
        self.http_requests.add(1, &[route.clone(), KeyValue::new("status", i64::from(status.as_u16()))]);
        self.http_duration.record(took.as_secs_f64(), &[route]);
    }

    /// A request refused by an abuse limit: `signin_throttled`, `password_hashing`, `websockets_per_user`.
    pub fn limit_refusal(&self, limit: &'static str) {
        self.limit_refusals.add(1, &[KeyValue::new("limit", limit)]);
    }

    /// A sign-in back-off started: `account` or `address`.
    pub fn signin_block(&self, scope: &'static str) {
        self.signin_blocks.add(1, &[KeyValue::new("scope", scope)]);
    }

    pub fn connection(&self, opened: bool) {
        self.connections_open.add(if opened { 1 } else { -1 }, &[]);
    }

    /// A connection Herald closed: `header_timeout`, `idle_timeout`, `displaced`, `refused`.
    pub fn connection_closed(&self, reason: &'static str) {
        self.connections_closed.add(1, &[KeyValue::new("reason", reason)]);
    }

    /// The Prometheus text exposition (format 0.0.4), or `None` when turned off.
    pub fn render(&self) -> Option<String> {
        let registry = self.registry.as_ref()?;
        match prometheus::TextEncoder::new().encode_to_string(&registry.gather()) {
            Ok(text) => Some(text),
            Err(e) => {
                tracing::error!(error = %e, "cannot render the metrics");
                Some(String::new())
            }
        }
    }
}

/// `GET /metrics` on the main listener. It names every tenant's organisations and servers, so
/// strangers never see it: it is served there only with `HERALD_METRICS_TOKEN` set and no
/// separate listener (`HERALD_METRICS_LISTEN`), and then only to that bearer token; otherwise
/// it is `404`, like any path that does not exist.
pub async fn public_handler(
    axum::extract::State(state): axum::extract::State<crate::app::AppState>,
    headers: axum::http::HeaderMap,
) -> Response {
    let hardening = &state.config.hardening;
    match (&hardening.metrics_listen, &hardening.metrics_token) {
        (None, Some(token)) => scrape(Some(token), &headers),
        _ => crate::problem::ApiError::NotFound.into_response(),
    }
}

/// The metrics listener's routes: `GET /metrics` (with the bearer token when one is set), and
/// nothing else.
pub fn router(token: Option<crate::config::MetricsToken>) -> axum::Router {
    let token = std::sync::Arc::new(token);
    axum::Router::new()
        .route(
            "/metrics",
            axum::routing::get(move |headers: axum::http::HeaderMap| {
                let token = token.clone();
                async move { scrape(token.as_ref().as_ref(), &headers) }
            }),
        )
        .fallback(|| async { crate::problem::ApiError::NotFound })
}

fn scrape(token: Option<&crate::config::MetricsToken>, headers: &axum::http::HeaderMap) -> Response {
    if let Some(token) = token
        && !token.admits(headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()))
    {
        let mut refused = crate::problem::ApiError::Unauthenticated.into_response();
        refused
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, axum::http::HeaderValue::from_static("Bearer"));
        return refused;
    }
    match metrics().render() {
        Some(text) => {
            ([(header::CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")], text).into_response()
        }
        None => crate::problem::ApiError::NotFound.into_response(),
    }
}
