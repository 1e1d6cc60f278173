//! The floor under any proxy built like Herald: an axum server that relays
//! each MCP request's bytes to one upstream with reqwest and streams the reply
//! back, with nothing else (no auth, no JSON, no policy, no telemetry). The
//! benchmark measures it beside Herald so that the overhead figures show how
//! much is the second HTTP hop itself and how much is Herald's own work.
//!
//!   bench-relay LISTEN_ADDR UPSTREAM_BASE_URL     (prints "ready" once listening)

use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::serve::ListenerExt;

/// The request headers an MCP exchange needs end to end; the rest stay behind.
const PASSED: [&str; 6] =
    ["accept", "content-type", "mcp-session-id", "mcp-protocol-version", "mcp-method", "mcp-name"];

#[derive(Clone)]
struct Relay {
    http: reqwest::Client,
    upstream: String,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let (Some(listen), Some(upstream)) = (args.next(), args.next()) else {
        anyhow::bail!("usage: bench-relay LISTEN_ADDR UPSTREAM_BASE_URL");
    };
    let http = reqwest::Client::builder()
        .tcp_nodelay(true)
        .pool_idle_timeout(Duration::from_secs(90))
        .redirect(reqwest::redirect::Policy::none())
        .build()?;
    let relay = Relay { http, upstream: upstream.trim_end_matches('/').to_owned() };
    let app = Router::new().route("/{*path}", post(forward).delete(forward)).with_state(relay);
    let listener = tokio::net::TcpListener::bind(&listen).await?.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    println!("ready");
    axum::serve(listener, app.into_make_service()).await?;
    Ok(())
}

async fn forward(
    State(relay): State<Relay>,
    Path(path): Path<String>,
    method: axum::http::Method,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let mut request = relay.http.request(method, format!("{}/{path}", relay.upstream)).body(body);
    for name in PASSED {
        if let Some(value) = headers.get(name) {
            request = request.header(name, value);
        }
    }
    let reply = match request.send().await {
        Ok(reply) => reply,
        Err(e) => return (StatusCode::BAD_GATEWAY, e.to_string()).into_response(),
    };
    let mut response = Response::builder().status(reply.status());
    for name in ["content-type", "mcp-session-id"] {
        if let Some(value) = reply.headers().get(name) {
            response = response.header(name, value);
        }
    }
    response.body(Body::from_stream(reply.bytes_stream())).expect("a relayed response builds")
}
