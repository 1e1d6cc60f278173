//! Telemetry as an operator meets it: a real `herald` process exporting OTLP/HTTP to a receiver
//! written for the test, `GET /metrics`, and JSON logs that carry trace ids. The upstream is the
//! demo server behind a layer that records the trace context each request carried.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::Response;
use futures_util::StreamExt;
use herald_mcp::transport::{Endpoint, PostHeaders, Reply};
use herald_mcp::{Message, RequestId};
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message as _;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Child;

use crate::cli::{bootstrap, herald, temp_dir};
use crate::mcp_support::{Dashboard, PATIENCE, raw, text};
use crate::support::{PASSWORD, Session, TestDb};

/// The agent's own trace: Herald's spans must join it.
const AGENT_TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const AGENT_SPAN: &str = "00f067aa0ba902b7";
/// What the person types: it must appear in no export.
const ANSWER_NOTE: &str = "note-only-the-server-may-see-7c1f";
/// The server's question (`Deploy api to staging?`): it must appear in no export either.
const QUESTION: &str = "Deploy api to staging";

/// What the OTLP receiver got: raw bodies (to search for leaks) and decoded requests.
#[derive(Default)]
struct Received {
    raw: Vec<Bytes>,
    traces: Vec<ExportTraceServiceRequest>,
    metrics: Vec<ExportMetricsServiceRequest>,
}

type Shared<T> = Arc<Mutex<T>>;

async fn otlp_receiver() -> (String, Shared<Received>) {
    let received: Shared<Received> = Arc::default();
    async fn traces(State(r): State<Shared<Received>>, bytes: Bytes) -> StatusCode {
        let decoded = ExportTraceServiceRequest::decode(bytes.clone()).expect("OTLP traces are protobuf");
        let mut r = r.lock().unwrap();
        r.raw.push(bytes);
        r.traces.push(decoded);
        StatusCode::OK
    }
    async fn metrics(State(r): State<Shared<Received>>, bytes: Bytes) -> StatusCode {
        let decoded = ExportMetricsServiceRequest::decode(bytes.clone()).expect("OTLP metrics are protobuf");
        let mut r = r.lock().unwrap();
        r.raw.push(bytes);
        r.metrics.push(decoded);
        StatusCode::OK
    }
    let app = axum::Router::new()
        .route("/v1/traces", axum::routing::post(traces))
        .route("/v1/metrics", axum::routing::post(metrics))
        .with_state(received.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, received)
}

/// The trace context of one upstream request: its header, and its body's `_meta`.
#[derive(Debug, Clone)]
struct Seen {
    header: Option<String>,
    meta: Option<String>,
    method: Option<String>,
}

/// The demo server, recording the trace context of every request it gets.
async fn recorded_upstream() -> (String, Shared<Vec<Seen>>) {
    let seen: Shared<Vec<Seen>> = Arc::default();
    async fn record(State(seen): State<Shared<Vec<Seen>>>, request: Request, next: Next) -> Response {
        let (parts, body) = request.into_parts();
        let bytes = axum::body::to_bytes(body, 1 << 20).await.unwrap();
        let parsed: Value = serde_json::from_slice(&bytes).unwrap_or_default();
        seen.lock().unwrap().push(Seen {
            header: parts.headers.get("traceparent").map(|v| v.to_str().unwrap().to_owned()),
            meta: parsed.pointer("/params/_meta/traceparent").and_then(Value::as_str).map(str::to_owned),
            method: parsed["method"].as_str().map(str::to_owned),
        });
        next.run(Request::from_parts(parts, Body::from(bytes))).await
    }
    let options = herald_demo_server::Options::default();
    let router = herald_demo_server::router_with(&options, tokio_util::sync::CancellationToken::new())
        .unwrap()
        .layer(axum::middleware::from_fn_with_state(seen.clone(), record));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });
    (url, seen)
}

/// A running `herald` whose JSON log lines are collected.
struct Herald {
    child: Child,
    base: String,
    /// Where `GET /metrics` is: a listener of its own (`HERALD_METRICS_LISTEN`).
    metrics: String,
    log: Shared<Vec<Value>>,
    _db: TestDb,
}

async fn start_herald(db: TestDb, otlp: Option<&str>) -> Herald {
    let created = bootstrap(&db, "acme", "owner@example.com", PASSWORD).await;
    assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
    let mut command = herald(&temp_dir());
    command.env("HERALD_DATABASE_URL", db.url()).env("HERALD_METRICS_LISTEN", "127.0.0.1:0");
    if let Some(endpoint) = otlp {
        command
            .env("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
            .env("OTEL_BSP_SCHEDULE_DELAY", "100")
            .env("OTEL_METRIC_EXPORT_INTERVAL", "300");
    }
    let mut child = command.spawn().unwrap();
    let log: Shared<Vec<Value>> = Arc::default();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let (tx, rx) = tokio::sync::oneshot::channel();
    let collected = log.clone();
    tokio::spawn(async move {
        let mut tx = Some(tx);
        while let Ok(Some(line)) = lines.next_line().await {
            let entry: Value =
                serde_json::from_str(&line).unwrap_or_else(|_| panic!("log line is not JSON: {line}"));
            if entry["message"] == "herald is serving"
                && let Some(tx) = tx.take()
            {
                let _ = tx.send((
                    entry["listen"].as_str().unwrap().to_owned(),
                    entry["metrics_listen"].as_str().unwrap().to_owned(),
                ));
            }
            collected.lock().unwrap().push(entry);
        }
    });
    let (listen, metrics) =
        tokio::time::timeout(PATIENCE, rx).await.expect("herald serves in time").expect("herald serves");
    Herald {
        child,
        base: format!("http://{listen}"),
        metrics: format!("http://{metrics}/metrics"),
        log,
        _db: db,
    }
}

/// The first log line with `message` (the log is read as Herald writes it).
async fn logged(herald: &Herald, message: &str) -> Value {
    eventually(message, || herald.log.lock().unwrap().iter().find(|e| e["message"] == message).cloned()).await
}

/// The owner signed in, the upstream registered as `demo`, and an agent token.
/// The owner and an agent token; the upstream is spoken to in 2026-07-28 (so a question is a
/// call and its retry).
async fn prepare(herald: &Herald, upstream: &str) -> (Session, String) {
    let (owner, token) = crate::cli::bootstrapped_owner(&herald.base, upstream).await;
    crate::mcp_support::pin_protocol(&owner, "demo", "2026-07-28").await;
    (owner, token)
}

/// A modern `tools/call` of `deploy` that carries the agent's `traceparent` header.
async fn traced_call(base: &str, token: &str) -> Message {
    let arguments = json!({ "service": "api", "environment": "staging" });
    traced_tool_call(base, "acme", token, "deploy", arguments, None).await
}

/// A modern `tools/call` with the agent's `traceparent` header (and `_meta.traceparent` if given).
async fn traced_tool_call(
    base: &str,
    org: &str,
    token: &str,
    tool: &str,
    arguments: Value,
    meta_traceparent: Option<&str>,
) -> Message {
    let mut headers = HeaderMap::new();
    headers.insert("authorization", HeaderValue::from_str(&format!("Bearer {token}")).unwrap());
    let endpoint = Endpoint::new(
        reqwest::Client::new(),
        reqwest::Url::parse(&format!("{base}/mcp/{org}/demo")).unwrap(),
        headers,
    );
    let mut params = json!({
        "name": tool,
        "arguments": arguments,
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": { "name": "herald-test-agent", "version": "1" },
        },
    });
    if let Some(traceparent) = meta_traceparent {
        params["_meta"]["traceparent"] = json!(traceparent);
    }
    let message = Message::request(RequestId::Integer(7), "tools/call", Some(raw(&params)));
    let mut extra = HeaderMap::new();
    for (name, value) in [
        ("mcp-method", "tools/call".to_owned()),
        ("mcp-name", tool.to_owned()),
        ("traceparent", format!("00-{AGENT_TRACE}-{AGENT_SPAN}-01")),
    ] {
        extra.insert(HeaderName::from_static(name), HeaderValue::from_str(&value).unwrap());
    }
    let headers = PostHeaders { protocol_version: Some("2026-07-28".into()), session_id: None, extra };
    match endpoint.post(message.to_json(), &headers).await.expect("Herald answers").0 {
        Reply::Message(m) => m,
        Reply::Stream(mut stream) => loop {
            match stream.next().await.expect("a response comes").expect("the stream is well-formed") {
                Message::Notification { .. } => {}
                m => break m,
            }
        },
        Reply::Accepted => panic!("a request got 202"),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn attr(span: &Span, key: &str) -> Option<String> {
    span.attributes.iter().find(|a| a.key == key).and_then(|a| match a.value.as_ref()?.value.as_ref()? {
        AnyValue::StringValue(s) => Some(s.clone()),
        AnyValue::IntValue(i) => Some(i.to_string()),
        AnyValue::BoolValue(b) => Some(b.to_string()),
        _ => None,
    })
}

fn spans(received: &Shared<Received>) -> Vec<Span> {
    let r = received.lock().unwrap();
    r.traces
        .iter()
        .flat_map(|t| &t.resource_spans)
        .flat_map(|rs| &rs.scope_spans)
        .flat_map(|ss| ss.spans.clone())
        .collect()
}

/// Polls `check` until it is `Some`, for at most PATIENCE.
async fn eventually<T>(what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        if let Some(found) = check() {
            return found;
        }
        assert!(tokio::time::Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `name{labels} value` lines of a Prometheus exposition.
fn samples(text: &str) -> Vec<(String, BTreeMap<String, String>, f64)> {
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let (series, value) = line.rsplit_once(' ').expect("a sample has a value");
        let (name, labels) = match series.split_once('{') {
            Some((name, rest)) => {
                let labels = rest.trim_end_matches('}');
                let map = labels
                    .split(',')
                    .filter(|p| !p.is_empty())
                    .map(|pair| {
                        let (k, v) = pair.split_once('=').unwrap();
                        (k.to_owned(), v.trim_matches('"').to_owned())
                    })
                    .collect();
                (name.to_owned(), map)
            }
            None => (series.to_owned(), BTreeMap::new()),
        };
        out.push((name, labels, value.parse().expect("a sample's value is a number")));
    }
    out
}

fn sample(
    all: &[(String, BTreeMap<String, String>, f64)],
    name: &str,
    labels: &[(&str, &str)],
) -> Option<f64> {
    all.iter()
        .find(|(n, l, _)| n == name && labels.iter().all(|(k, v)| l.get(*k).map(String::as_str) == Some(*v)))
        .map(|(_, _, v)| *v)
}

/// The whole flow with OTLP on: the agent's trace id runs through Herald's spans and reaches
/// the upstream (header and `_meta`), the elicitation is a span with its ending and none of the
/// person's words, the metrics count the flow (on `/metrics` and over OTLP), and every JSON log
/// line of the call carries the trace id.
#[tokio::test]
async fn a_call_is_traced_counted_and_logged_without_user_content() {
    let (otlp, received) = otlp_receiver().await;
    let (upstream, seen) = recorded_upstream().await;
    let mut herald = start_herald(TestDb::create().await, Some(&otlp)).await;
    let (_owner, token) = prepare(&herald, &upstream).await;

    let mut dashboard = Dashboard::open_at(&herald.base, &token).await;
    let call = tokio::spawn({
        let (base, token) = (herald.base.clone(), token.clone());
        async move { traced_call(&base, &token).await }
    });
    let question = dashboard.next_of("elicitation.created").await;
    assert!(question["message"].as_str().unwrap().starts_with(QUESTION));
    let ack = dashboard
        .respond(&question["id"], "accept", Some(json!({ "confirm": true, "note": ANSWER_NOTE })))
        .await;
    assert_eq!(ack["type"], "ack");
    assert_eq!(text(&call.await.unwrap()), "Deployed api to staging");

    // Spans: request → agent call → upstream requests and the elicitation, in the agent's trace.
    // A span is exported when it ends, and a parent ends after its children: the HTTP
    // request's span comes last.
    let all = eventually("the spans of the call", || {
        let all = spans(&received);
        let done = |route: &str| {
            all.iter()
                .any(|s| hex(&s.trace_id) == AGENT_TRACE && attr(s, "http.route").as_deref() == Some(route))
        };
        (done("/mcp/{org}/{server}") && all.iter().any(|s| s.name == "elicitation")).then_some(all)
    })
    .await;
    let ours: Vec<&Span> = all.iter().filter(|s| hex(&s.trace_id) == AGENT_TRACE).collect();
    let http = ours
        .iter()
        .find(|s| attr(s, "http.route").as_deref() == Some("/mcp/{org}/{server}"))
        .expect("the HTTP request's span is in the agent's trace");
    assert_eq!(hex(&http.parent_span_id), AGENT_SPAN, "a child of the agent's span");
    assert_eq!(http.name, "POST /mcp/{org}/{server}");
    assert_eq!(attr(http, "http.request.method").as_deref(), Some("POST"));
    assert_eq!(attr(http, "url.path").as_deref(), Some("/mcp/acme/demo"));
    assert_eq!(attr(http, "http.response.status_code").as_deref(), Some("200"));

    let mcp = ours.iter().find(|s| attr(s, "mcp.method.name").is_some()).expect("the agent call's span");
    assert_eq!(mcp.parent_span_id, http.span_id);
    assert_eq!(mcp.name, "tools/call deploy");
    assert_eq!(attr(mcp, "gen_ai.tool.name").as_deref(), Some("deploy"));
    assert_eq!(attr(mcp, "mcp.protocol.version").as_deref(), Some("2026-07-28"));
    assert_eq!(attr(mcp, "jsonrpc.request.id").as_deref(), Some("7"));
    assert_eq!(attr(mcp, "herald.server").as_deref(), Some("demo"));

    let upstream_spans: Vec<&&Span> =
        ours.iter().filter(|s| attr(s, "herald.server").as_deref() == Some("acme/demo")).collect();
    assert!(upstream_spans.len() >= 2, "the call and its retry: {upstream_spans:?}");
    for span in &upstream_spans {
        assert_eq!(span.parent_span_id, mcp.span_id, "upstream requests are children of the agent call");
        assert_eq!(span.name, "POST");
        assert_eq!(attr(span, "server.address").as_deref(), Some("127.0.0.1"));
        assert_eq!(attr(span, "http.response.status_code").as_deref(), Some("200"));
    }

    let elicitation = ours.iter().find(|s| s.name == "elicitation").expect("the elicitation's span");
    assert_eq!(elicitation.parent_span_id, mcp.span_id);
    for (key, value) in [
        ("herald.elicitation.outcome", "accept"),
        ("herald.elicitation.decided_by", "user"),
        ("herald.elicitation.reason", "answered"),
        ("herald.elicitation.mode", "form"),
        ("herald.server", "demo"),
        ("gen_ai.tool.name", "deploy"),
    ] {
        assert_eq!(attr(elicitation, key).as_deref(), Some(value), "{key}");
    }
    assert!(elicitation.end_time_unix_nano > elicitation.start_time_unix_nano);

    // The upstream heard the agent's trace, with Herald's spans as parents.
    let calls: Vec<Seen> =
        seen.lock().unwrap().iter().filter(|s| s.method.as_deref() == Some("tools/call")).cloned().collect();
    assert_eq!(calls.len(), 2, "the call and its retry with the answer");
    let upstream_ids: Vec<String> = upstream_spans.iter().map(|s| hex(&s.span_id)).collect();
    for call in &calls {
        let header = call.header.as_deref().expect("a traceparent header upstream");
        let parts: Vec<&str> = header.split('-').collect();
        assert_eq!(parts[1], AGENT_TRACE);
        assert!(upstream_ids.contains(&parts[2].to_owned()), "the header names Herald's upstream span");
        let meta = call.meta.as_deref().expect("a traceparent in _meta upstream");
        let parts: Vec<&str> = meta.split('-').collect();
        assert_eq!(parts[1], AGENT_TRACE);
        assert_eq!(parts[2], hex(&mcp.span_id), "_meta names Herald's agent-call span");
    }

    // Metrics on /metrics.
    let scrape = reqwest::get(&herald.metrics).await.unwrap();
    assert_eq!(scrape.status(), StatusCode::OK);
    assert!(scrape.headers()["content-type"].to_str().unwrap().starts_with("text/plain; version=0.0.4"));
    let m = samples(&scrape.text().await.unwrap());
    let calls_ok = [("generation", "modern"), ("method", "tools/call"), ("status", "ok")];
    assert_eq!(sample(&m, "herald_agent_calls_total", &calls_ok), Some(1.0));
    assert_eq!(
        sample(
            &m,
            "herald_elicitations_total",
            &[("outcome", "accept"), ("reason", "answered"), ("mode", "form")]
        ),
        Some(1.0)
    );
    assert_eq!(sample(&m, "herald_elicitations_pending", &[]), Some(0.0));
    assert_eq!(
        sample(&m, "herald_elicitation_answer_duration_seconds_count", &[("outcome", "accept")]),
        Some(1.0)
    );
    assert_eq!(sample(&m, "herald_policy_decisions_total", &[("rule", "shown")]), Some(1.0));
    assert_eq!(sample(&m, "herald_websocket_connections", &[]), Some(1.0));
    let upstream_count =
        sample(&m, "herald_upstream_request_duration_seconds_count", &[("server", "acme/demo")]).unwrap();
    assert!(upstream_count >= 3.0, "discover, the call, the retry: {upstream_count}");
    assert_eq!(sample(&m, "herald_upstream_errors_total", &[("server", "acme/demo")]), None);
    let route = [("route", "/mcp/{org}/{server}"), ("status", "200")];
    assert_eq!(sample(&m, "herald_http_requests_total", &route), Some(1.0));
    assert!(
        sample(&m, "herald_http_request_duration_seconds_count", &[("route", "/mcp/{org}/{server}")])
            .is_some()
    );

    // The same metrics over OTLP.
    eventually("the metrics over OTLP", || {
        let r = received.lock().unwrap();
        let names: Vec<&str> = r
            .metrics
            .iter()
            .flat_map(|m| &m.resource_metrics)
            .flat_map(|rm| &rm.scope_metrics)
            .flat_map(|sm| &sm.metrics)
            .map(|m| m.name.as_str())
            .collect();
        (names.contains(&"herald.agent.calls") && names.contains(&"herald.elicitations")).then_some(())
    })
    .await;

    // None of the person's or the server's words left Herald.
    for export in &received.lock().unwrap().raw {
        let text = String::from_utf8_lossy(export);
        assert!(!text.contains(ANSWER_NOTE), "the answer is not exported");
        assert!(!text.contains(QUESTION), "the question is not exported");
    }

    // JSON logs: the call's lines carry its trace id.
    let pending = logged(&herald, "elicitation pending").await;
    assert_eq!(pending["trace_id"], AGENT_TRACE);
    assert_eq!(pending["span_id"].as_str().map(str::len), Some(16));
    let log = herald.log.lock().unwrap().clone();
    assert!(log.iter().all(|e| !e.to_string().contains(ANSWER_NOTE)));

    herald.child.kill().await.unwrap();
}

/// Without OTLP, JSON log lines still carry a trace id (spans get ids, nothing is exported),
/// the agent's trace id when it sent one; and `GET /metrics` is there from the start.
#[tokio::test]
async fn without_otlp_json_logs_still_carry_the_callers_trace_id() {
    let (upstream, seen) = recorded_upstream().await;
    let mut herald = start_herald(TestDb::create().await, None).await;
    let (_owner, token) = prepare(&herald, &upstream).await;

    let before = samples(&reqwest::get(&herald.metrics).await.unwrap().text().await.unwrap());
    assert_eq!(sample(&before, "herald_elicitations_pending", &[]), Some(0.0));
    assert_eq!(sample(&before, "herald_websocket_connections", &[]), Some(0.0));

    let mut dashboard = Dashboard::open_at(&herald.base, &token).await;
    let call = tokio::spawn({
        let (base, token) = (herald.base.clone(), token.clone());
        async move { traced_call(&base, &token).await }
    });
    let question = dashboard.next_of("elicitation.created").await;
    assert_eq!(dashboard.respond(&question["id"], "decline", None).await["type"], "ack");
    assert_eq!(text(&call.await.unwrap()), "Deployment declined by the user");

    let pending = logged(&herald, "elicitation pending").await;
    assert_eq!(pending["trace_id"], AGENT_TRACE);
    let upstream_header =
        seen.lock().unwrap().iter().find_map(|s| s.header.clone()).expect("a traceparent upstream");
    assert!(upstream_header.contains(AGENT_TRACE), "{upstream_header}");

    // A refused call counts as an error.
    let refused = reqwest::Client::new()
        .post(format!("{}/mcp/acme/demo", herald.base))
        .bearer_auth("hrl_0000000000000000000000000000000000000000000")
        .header("content-type", "application/json")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);

    let after = samples(&reqwest::get(&herald.metrics).await.unwrap().text().await.unwrap());
    assert_eq!(
        sample(&after, "herald_elicitations_total", &[("outcome", "decline"), ("reason", "declined")]),
        Some(1.0)
    );
    let declined = [("generation", "modern"), ("method", "tools/call"), ("status", "ok")];
    assert_eq!(sample(&after, "herald_agent_calls_total", &declined), Some(1.0), "a decline is no error");
    let refused = [("generation", "legacy"), ("method", "tools/list"), ("status", "error")];
    assert_eq!(sample(&after, "herald_agent_calls_total", &refused), Some(1.0));
    let unauthorized = [("route", "/mcp/{org}/{server}"), ("status", "401")];
    assert_eq!(sample(&after, "herald_http_requests_total", &unauthorized), Some(1.0));
    herald.child.kill().await.unwrap();
}

/// With no OpenTelemetry layer at all (pretty logs, no endpoint: here, an app embedded in the
/// test process), Herald's spans have no context, so the agent's own trace context goes upstream
/// unchanged: the header as the header, `_meta` as `_meta`.
#[tokio::test]
async fn without_any_tracing_the_agents_context_passes_upstream_unchanged() {
    let app = crate::support::TestApp::spawn().await;
    let owner = app.owner().await;
    let (upstream, seen) = recorded_upstream().await;
    crate::mcp_support::register(&owner, "demo", "Demo Server", &upstream).await;
    let token = app.token(&owner, "acme", "agent").await;
    let in_meta = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    let done =
        traced_tool_call(&app.base, "acme", &token, "echo", json!({ "text": "hello" }), Some(in_meta)).await;
    assert_eq!(text(&done), "hello");
    let call = seen
        .lock()
        .unwrap()
        .iter()
        .find(|s| s.method.as_deref() == Some("tools/call"))
        .cloned()
        .expect("the call reached the upstream");
    assert_eq!(call.header.as_deref(), Some(format!("00-{AGENT_TRACE}-{AGENT_SPAN}-01").as_str()));
    assert_eq!(call.meta.as_deref(), Some(in_meta));
}

/// An OTLP setting Herald cannot honour stops it at start with one line naming the variable.
#[tokio::test]
async fn an_unusable_otlp_setting_stops_it_naming_the_variable() {
    for (name, value) in
        [("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"), ("OTEL_EXPORTER_OTLP_ENDPOINT", "::not a url")]
    {
        let cwd = temp_dir();
        let output = herald(&cwd)
            .env("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
            .env(name, value)
            .output()
            .await
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{name}={value}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(name) && stderr.trim().lines().count() == 1, "{stderr}");
        assert!(!cwd.join("data").exists(), "nothing was created");
        let _ = std::fs::remove_dir_all(cwd);
    }
}
