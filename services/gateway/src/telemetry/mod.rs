//! Logs, traces and metrics.
//!
//! - Logs: pretty for people, or one JSON object per line (`HERALD_LOG_FORMAT=json`) that carries
//!   the `trace_id` and `span_id` of the span it was logged in.
//! - Traces: OpenTelemetry spans for API requests, agent calls, upstream requests and
//!   elicitations, exported over OTLP/HTTP (protobuf) when `OTEL_EXPORTER_OTLP_ENDPOINT` (or
//!   `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set. Without an endpoint and with JSON logs, spans
//!   still get ids (for the logs and for W3C propagation upstream) but nothing is recorded or
//!   exported; with pretty logs and no endpoint there is no OpenTelemetry layer at all.
//! - Metrics: always on, exposed on `GET /metrics` (`metrics.rs`) and over OTLP when configured.
//!
//! Nothing a person or a server wrote (messages, schemas, answers, arguments, results) is ever put
//! on a span, a metric or a log line.

pub mod elicitation;
pub mod http;
pub mod mcp;
pub mod metrics;
pub mod propagation;
pub mod upstream;

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use opentelemetry::trace::{TraceContextExt, TracerProvider as _};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing::{Event, Subscriber};
use tracing_subscriber::EnvFilter;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::fmt::FmtContext;
use tracing_subscriber::fmt::format::{FormatEvent, FormatFields, Writer};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{Layer, Registry};

use crate::config::LogFormat;

/// What the `OTEL_*` environment asks for, checked before anything starts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    /// Export spans over OTLP.
    pub export_traces: bool,
    /// Export metrics over OTLP.
    pub export_metrics: bool,
}

impl Settings {
    /// Reads the standard variables. Only OTLP over HTTP with protobuf is built in; another
    /// protocol is refused with the variable's name, rather than silently not exporting.
    pub fn from_env() -> Result<Self, String> {
        Self::from_lookup(|name| std::env::var(name).ok().filter(|v| !v.trim().is_empty()))
    }

    pub fn from_lookup(var: impl Fn(&str) -> Option<String>) -> Result<Self, String> {
        if var("OTEL_SDK_DISABLED").is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) {
            return Ok(Self::default());
        }
        for name in [
            "OTEL_EXPORTER_OTLP_PROTOCOL",
            "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
            "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL",
        ] {
            if let Some(protocol) = var(name)
                && protocol.trim() != "http/protobuf"
            {
                return Err(format!(
                    "invalid setting {name}: {:?} is not supported; Herald exports OTLP over http/protobuf",
                    protocol.trim()
                ));
            }
        }
        let endpoint = var("OTEL_EXPORTER_OTLP_ENDPOINT").is_some();
        let wanted = |signal: &str| {
            let exporter = var(&format!("OTEL_{signal}_EXPORTER"));
            match exporter.as_deref().map(str::trim) {
                None | Some("otlp") => Ok(true),
                Some("none") => Ok(false),
                Some(other) => Err(format!(
                    "invalid setting OTEL_{signal}_EXPORTER: {other:?} is not one of: otlp, none"
                )),
            }
        };
        Ok(Self {
            export_traces: wanted("TRACES")?
                && (endpoint || var("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT").is_some()),
            export_metrics: wanted("METRICS")?
                && (endpoint || var("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT").is_some()),
        })
    }
}

/// Whether spans carry OpenTelemetry contexts in this process (an OpenTelemetry layer is
/// installed). When not, the agent's trace context is passed upstream unchanged.
static TRACING: AtomicBool = AtomicBool::new(false);

/// The providers to flush at exit.
static PROVIDERS: OnceLock<Option<SdkTracerProvider>> = OnceLock::new();

pub fn tracing_enabled() -> bool {
    TRACING.load(Ordering::Relaxed)
}

/// Installs the log subscriber, and the OpenTelemetry pipeline the settings ask for. Metrics
/// are set up here too (`metrics_endpoint`: whether `GET /metrics` is served). Fails, with a
/// line for the operator, when an exporter cannot be built from the `OTEL_*` settings.
pub fn init(
    filter: &str,
    format: LogFormat,
    settings: &Settings,
    metrics_endpoint: bool,
) -> Result<(), String> {
    let filter = EnvFilter::try_new(filter).unwrap_or_else(|_| EnvFilter::new("info"));
    let resource = resource();
    metrics::install(metrics_endpoint, settings.export_metrics.then(|| resource.clone()))?;

    // Spans need ids when they are exported, and when JSON logs show them.
    let provider = if settings.export_traces || format == LogFormat::Json {
        let mut builder = SdkTracerProvider::builder().with_resource(resource);
        if settings.export_traces {
            let exporter = opentelemetry_otlp::SpanExporter::builder()
                .with_http()
                .build()
                .map_err(|e| format!("cannot export traces over OTLP: {e}"))?;
            builder = builder.with_batch_exporter(exporter);
        }
        Some(builder.build())
    } else {
        None
    };
    // Herald's own spans, at info, whatever the log level says.
    let otel_layer = provider.as_ref().map(|p| {
        tracing_opentelemetry::layer()
            .with_tracer(p.tracer("herald"))
            .with_location(false)
            .with_threads(false)
            .with_target(false)
            // Neither busy/idle times nor an active OpenTelemetry context per poll: Herald
            // reads span contexts from the spans themselves, and both cost on every poll.
            .with_tracked_inactivity(false)
            .with_context_activation(false)
            .with_filter(Targets::new().with_target("herald_gateway", tracing::Level::INFO))
    });
    let fmt_layer = tracing_subscriber::fmt::layer().with_writer(std::io::stderr);
    // The log lines see the request's span (its id, route and method) but not the spans made
    // for OpenTelemetry inside it: formatting their many attributes for every call cost more
    // than the rest of the logging. A line still names its innermost span by id. (Directives
    // of the filter itself: an `And` of an EnvFilter and a filter_fn lost every line after the
    // first from another crate.)
    let filter = TRACE_ONLY.iter().fold(filter, |filter, target| {
        filter.add_directive(format!("{target}=off").parse().expect("a valid directive"))
    });
    let fmt_layer = match format {
        LogFormat::Pretty => fmt_layer.with_filter(filter).boxed(),
        LogFormat::Json => fmt_layer
            .json()
            .with_current_span(true)
            .with_span_list(false)
            .flatten_event(true)
            .map_event_format(WithTraceIds)
            .with_filter(filter)
            .boxed(),
    };
    let installed = Registry::default().with(otel_layer).with(fmt_layer).try_init().is_ok();
    // A second init (tests embedding the app) keeps the first subscriber.
    if installed {
        TRACING.store(provider.is_some(), Ordering::Relaxed);
        let _ = PROVIDERS.set(provider);
    }
    Ok(())
}

/// Flushes and stops the exporters (on the way out; blocks while they send).
pub fn shutdown() {
    if let Some(Some(provider)) = PROVIDERS.get()
        && let Err(e) = provider.shutdown()
    {
        eprintln!("herald: exporting the last spans failed: {e}");
    }
    metrics::shutdown();
}

/// `service.name` is `herald` unless `OTEL_SERVICE_NAME` (or `OTEL_RESOURCE_ATTRIBUTES`) says
/// otherwise; the SDK reads those.
fn resource() -> Resource {
    let mut builder = Resource::builder();
    let named = std::env::var_os("OTEL_SERVICE_NAME").is_some()
        || std::env::var("OTEL_RESOURCE_ATTRIBUTES").is_ok_and(|a| a.contains("service.name="));
    if !named {
        builder = builder.with_service_name("herald");
    }
    builder.with_attribute(opentelemetry::KeyValue::new("service.version", env!("CARGO_PKG_VERSION"))).build()
}

/// The modules of the spans made for OpenTelemetry only (agent calls, upstream requests,
/// elicitations), which log lines do not show. They log no events of their own.
const TRACE_ONLY: [&str; 3] = [
    "herald_gateway::telemetry::mcp",
    "herald_gateway::telemetry::upstream",
    "herald_gateway::telemetry::elicitation",
];

/// JSON lines with the current span's `trace_id` and `span_id` first.
struct WithTraceIds<F>(F);

impl<S, N, F> FormatEvent<S, N> for WithTraceIds<F>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
    F: FormatEvent<S, N>,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> std::fmt::Result {
        let mut line = String::new();
        self.0.format_event(ctx, Writer::new(&mut line), event)?;
        // The nearest span with an OpenTelemetry context (spans of other crates have none),
        // looked up in the registry: this layer's own view hides the trace-only spans.
        let ids = tracing::dispatcher::get_default(|d| {
            let registry = d.downcast_ref::<Registry>()?;
            let current = d.current_span().id()?.clone();
            let mut scope = registry.span(&current)?.scope();
            scope.find_map(|span| {
                let cx = tracing_opentelemetry::get_otel_context(&span.id(), d)?;
                let sc = cx.span().span_context().clone();
                sc.is_valid().then(|| (sc.trace_id(), sc.span_id()))
            })
        });
        match (ids, line.strip_prefix('{')) {
            (Some((trace, span)), Some(rest)) => {
                write!(writer, "{{\"trace_id\":\"{trace}\",\"span_id\":\"{span}\",{rest}")
            }
            _ => writer.write_str(&line),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(vars: &[(&str, &str)]) -> Result<Settings, String> {
        let vars: Vec<(String, String)> = vars.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect();
        Settings::from_lookup(|name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
    }

    #[test]
    fn export_follows_the_standard_variables() {
        assert_eq!(settings(&[]).unwrap(), Settings::default());
        let both = settings(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318")]).unwrap();
        assert!(both.export_traces && both.export_metrics);
        let traces = settings(&[("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://c:4318/v1/traces")]).unwrap();
        assert!(traces.export_traces && !traces.export_metrics);
        let no_metrics =
            settings(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318"), ("OTEL_METRICS_EXPORTER", "none")])
                .unwrap();
        assert!(no_metrics.export_traces && !no_metrics.export_metrics);
        let disabled =
            settings(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318"), ("OTEL_SDK_DISABLED", "true")])
                .unwrap();
        assert_eq!(disabled, Settings::default());
    }

    #[test]
    fn unsupported_protocols_are_named() {
        let err = settings(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4317"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
        ])
        .unwrap_err();
        assert!(err.contains("OTEL_EXPORTER_OTLP_PROTOCOL") && err.contains("grpc"), "{err}");
        let err = settings(&[("OTEL_TRACES_EXPORTER", "zipkin")]).unwrap_err();
        assert!(err.contains("OTEL_TRACES_EXPORTER"), "{err}");
        assert!(settings(&[("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")]).is_ok());
    }
}
