//! W3C trace context (`traceparent`, `tracestate`) in and out: HTTP headers, and the `_meta` of
//! an MCP request, where the OpenTelemetry MCP conventions put the same two keys.

use axum::http::{HeaderMap, HeaderName, HeaderValue};
use opentelemetry::Context;
use opentelemetry::propagation::{Extractor, Injector, TextMapPropagator};
use opentelemetry::trace::TraceContextExt;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use serde_json::{Map, Value};
use tracing_opentelemetry::OpenTelemetrySpanExt;

pub const TRACEPARENT: &str = "traceparent";
pub const TRACESTATE: &str = "tracestate";

/// A caller's trace context as it was sent, kept to pass on unchanged when Herald's own spans
/// carry no context (no OpenTelemetry layer).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Carried {
    pub traceparent: String,
    pub tracestate: Option<String>,
}

impl Carried {
    /// Only a well-formed `traceparent` is carried.
    fn checked(traceparent: Option<&str>, tracestate: Option<&str>) -> Option<Self> {
        let traceparent = traceparent?.trim();
        let pairs = [(TRACEPARENT, traceparent), (TRACESTATE, tracestate.unwrap_or_default())];
        let cx = TraceContextPropagator::new().extract(&Pairs(&pairs));
        cx.span().span_context().is_valid().then(|| Self {
            traceparent: traceparent.to_owned(),
            tracestate: tracestate
                .map(str::trim)
                .filter(|s| !s.is_empty() && s.len() <= 512)
                .map(str::to_owned),
        })
    }

    pub fn from_headers(headers: &HeaderMap) -> Option<Self> {
        let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        Self::checked(get(TRACEPARENT), get(TRACESTATE))
    }

    pub fn from_meta(meta: &Map<String, Value>) -> Option<Self> {
        let get = |name: &str| meta.get(name).and_then(Value::as_str);
        Self::checked(get(TRACEPARENT), get(TRACESTATE))
    }

    /// As the remote parent of a span.
    pub fn context(&self) -> Context {
        let pairs = [
            (TRACEPARENT, self.traceparent.as_str()),
            (TRACESTATE, self.tracestate.as_deref().unwrap_or("")),
        ];
        TraceContextPropagator::new().extract(&Pairs(&pairs))
    }

    fn put_headers(&self, headers: &mut HeaderMap) {
        if let Ok(v) = HeaderValue::from_str(&self.traceparent) {
            headers.insert(HeaderName::from_static(TRACEPARENT), v);
        }
        if let Some(v) = self.tracestate.as_deref().and_then(|s| HeaderValue::from_str(s).ok()) {
            headers.insert(HeaderName::from_static(TRACESTATE), v);
        }
    }
}

/// The trace context to send along with a request made inside `span`: the span's own, when
/// spans carry contexts; otherwise what the caller sent (`carried`), unchanged.
pub fn outgoing(span: &tracing::Span, carried: Option<&Carried>) -> Option<Carried> {
    if super::tracing_enabled() {
        let cx = span.context();
        if !cx.span().span_context().is_valid() {
            return None;
        }
        let mut pairs = Vec::new();
        TraceContextPropagator::new().inject_context(&cx, &mut PairsOut(&mut pairs));
        let get = |name: &str| pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
        Some(Carried {
            traceparent: get(TRACEPARENT)?.to_owned(),
            tracestate: get(TRACESTATE).filter(|s| !s.is_empty()).map(str::to_owned),
        })
    } else {
        carried.cloned()
    }
}

/// Adds the trace context for a request made inside `span` to its headers.
pub fn inject_headers(span: &tracing::Span, carried: Option<&Carried>, headers: &mut HeaderMap) {
    if let Some(out) = outgoing(span, carried) {
        out.put_headers(headers);
    }
}

/// Sets `traceparent` (and `tracestate`) in a request's `_meta`.
pub fn inject_meta(span: &tracing::Span, carried: Option<&Carried>, meta: &mut Map<String, Value>) {
    if let Some(out) = outgoing(span, carried) {
        meta.insert(TRACEPARENT.into(), Value::String(out.traceparent));
        match out.tracestate {
            Some(state) => meta.insert(TRACESTATE.into(), Value::String(state)),
            None => meta.remove(TRACESTATE),
        };
    }
}

/// Makes `span` a child of the caller's context (before the span starts).
pub fn adopt(span: &tracing::Span, carried: Option<&Carried>) {
    if let Some(carried) = carried
        && super::tracing_enabled()
    {
        let _ = span.set_parent(carried.context());
    }
}

struct Pairs<'a>(&'a [(&'a str, &'a str)]);

impl Extractor for Pairs<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.iter().find(|(k, _)| *k == key).map(|(_, v)| *v).filter(|v| !v.is_empty())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.iter().map(|(k, _)| *k).collect()
    }
}

struct PairsOut<'a>(&'a mut Vec<(String, String)>);

impl Injector for PairsOut<'_> {
    fn set(&mut self, key: &str, value: String) {
        self.0.push((key.to_owned(), value));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn only_well_formed_contexts_are_carried() {
        let mut headers = HeaderMap::new();
        headers.insert(TRACEPARENT, HeaderValue::from_static(PARENT));
        headers.insert(TRACESTATE, HeaderValue::from_static("rojo=00f067aa0ba902b7"));
        let carried = Carried::from_headers(&headers).unwrap();
        assert_eq!(carried.traceparent, PARENT);
        assert_eq!(carried.tracestate.as_deref(), Some("rojo=00f067aa0ba902b7"));
        let cx = carried.context();
        assert_eq!(cx.span().span_context().trace_id().to_string(), "4bf92f3577b34da6a3ce929d0e0e4736");

        for bad in ["", "garbage", "00-00000000000000000000000000000000-00f067aa0ba902b7-01"] {
            let meta: Map<String, Value> =
                serde_json::from_value(serde_json::json!({ "traceparent": bad })).unwrap();
            assert_eq!(Carried::from_meta(&meta), None, "{bad:?}");
        }
    }

    #[test]
    fn without_a_layer_the_callers_context_passes_unchanged() {
        let carried = Carried { traceparent: PARENT.into(), tracestate: None };
        let mut meta = Map::new();
        meta.insert(TRACESTATE.into(), Value::String("stale".into()));
        inject_meta(&tracing::Span::none(), Some(&carried), &mut meta);
        assert_eq!(meta[TRACEPARENT], PARENT);
        assert!(!meta.contains_key(TRACESTATE));
        let mut headers = HeaderMap::new();
        inject_headers(&tracing::Span::none(), Some(&carried), &mut headers);
        assert_eq!(headers[TRACEPARENT], PARENT);
    }
}
