//! A legacy (2025-11-25) MCP server the test drives by hand: what it sends on
//! a call's stream or on its standalone stream is whatever the test pushes,
//! when the test pushes it; everything it is sent is recorded.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use futures_util::StreamExt;
use serde_json::{Value, json};
use tokio::sync::{broadcast, watch};

use crate::mcp_support::PATIENCE;

#[derive(Clone)]
pub struct Puppet {
    pub url: String,
    /// Every message the server was sent, in order, with the HTTP method (`DELETE` as `{}`).
    received: watch::Sender<Vec<(String, Value)>>,
    /// Pushes onto every open `tools/call` stream.
    calls: broadcast::Sender<Value>,
    /// Pushes onto every open standalone (GET) stream.
    streams: broadcast::Sender<Value>,
    open_streams: watch::Sender<usize>,
    sessions: Arc<AtomicUsize>,
    /// How many of the next standalone streams are refused with 503.
    refused_gets: Arc<AtomicUsize>,
}

impl Puppet {
    pub async fn start() -> Self {
        let puppet = Puppet {
            url: String::new(),
            received: watch::Sender::new(Vec::new()),
            calls: broadcast::channel(4096).0,
            streams: broadcast::channel(64).0,
            open_streams: watch::Sender::new(0),
            sessions: Arc::default(),
            refused_gets: Arc::default(),
        };
        let (on_post, on_get, on_delete) = (puppet.clone(), puppet.clone(), puppet.clone());
        let app = Router::new().route(
            "/mcp",
            post(move |body: Bytes| {
                let puppet = on_post.clone();
                async move { puppet.on_post(body) }
            })
            .get(move |headers: HeaderMap| {
                let puppet = on_get.clone();
                async move { puppet.on_get(&headers) }
            })
            .delete(move || {
                let puppet = on_delete.clone();
                async move {
                    puppet.received.send_modify(|r| r.push(("DELETE".into(), json!({}))));
                    StatusCode::OK
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        Puppet { url, ..puppet }
    }

    fn on_post(&self, body: Bytes) -> Response {
        let message: Value = serde_json::from_slice(&body).unwrap_or_default();
        // Listening before the call is recorded, so that nothing pushed once the test saw it is lost.
        let pushed = (message["method"] == "tools/call").then(|| self.calls.subscribe());
        self.received.send_modify(|r| r.push(("POST".into(), message.clone())));
        match message["method"].as_str() {
            Some("initialize") => {
                let n = self.sessions.fetch_add(1, Ordering::Relaxed);
                let result = json!({
                    "protocolVersion": "2025-11-25",
                    "capabilities": { "tools": {} },
                    "serverInfo": { "name": "puppet", "version": "1" },
                });
                let reply = json!({ "jsonrpc": "2.0", "id": message["id"], "result": result });
                let mut response =
                    ([(header::CONTENT_TYPE, "application/json")], reply.to_string()).into_response();
                response
                    .headers_mut()
                    .insert("mcp-session-id", HeaderValue::from_str(&format!("puppet-{n}")).unwrap());
                response
            }
            Some("tools/call") => {
                // The call's stream carries what the test pushes, until it pushes `{"end": RESULT}`.
                let call_id = message["id"].clone();
                let pushed = pushed.expect("subscribed above");
                let events = futures_util::stream::unfold((pushed, false), move |(mut rx, ended)| {
                    let call_id = call_id.clone();
                    async move {
                        if ended {
                            return None;
                        }
                        let v = loop {
                            match rx.recv().await {
                                Ok(v) => break v,
                                Err(broadcast::error::RecvError::Lagged(_)) => {}
                                Err(broadcast::error::RecvError::Closed) => return None,
                            }
                        };
                        let (v, ended) = match v.get("end") {
                            Some(result) => {
                                (json!({ "jsonrpc": "2.0", "id": call_id, "result": result }), true)
                            }
                            None => (v, false),
                        };
                        Some((
                            Ok::<_, std::io::Error>(Bytes::from(format!("event: message\ndata: {v}\n\n"))),
                            (rx, ended),
                        ))
                    }
                });
                ([(header::CONTENT_TYPE, "text/event-stream")], Body::from_stream(events)).into_response()
            }
            Some("tools/list") => {
                let reply = json!({ "jsonrpc": "2.0", "id": message["id"], "result": { "tools": [] } });
                ([(header::CONTENT_TYPE, "application/json")], reply.to_string()).into_response()
            }
            _ => StatusCode::ACCEPTED.into_response(),
        }
    }

    fn on_get(&self, _headers: &HeaderMap) -> Response {
        if self.refused_gets.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1)).is_ok()
        {
            self.received.send_modify(|r| r.push(("GET refused".into(), json!({}))));
            return StatusCode::SERVICE_UNAVAILABLE.into_response();
        }
        let pushed = self.streams.subscribe();
        self.open_streams.send_modify(|n| *n += 1);
        let closed = StreamClosed(self.open_streams.clone());
        self.received.send_modify(|r| r.push(("GET".into(), json!({}))));
        let events = tokio_stream_of(pushed).map(move |v| {
            let _still_open = &closed;
            Ok::<_, std::io::Error>(Bytes::from(format!("event: message\ndata: {v}\n\n")))
        });
        ([(header::CONTENT_TYPE, "text/event-stream")], Body::from_stream(events)).into_response()
    }

    /// Refuses the next `n` standalone streams with 503 (a server restarting, say).
    pub fn refuse_gets(&self, n: usize) {
        self.refused_gets.store(n, Ordering::Relaxed);
    }

    /// Sends `message` on every open call stream (`{"end": RESULT}` answers the call).
    pub fn push_on_call(&self, message: Value) {
        let _ = self.calls.send(message);
    }

    /// Sends `message` on every open standalone stream.
    pub fn push_on_stream(&self, message: Value) {
        let _ = self.streams.send(message);
    }

    /// Waits until the server was sent a message that `matches`; returns it.
    pub async fn sent(&self, what: &str, matches: impl Fn(&str, &Value) -> bool) -> Value {
        let mut watching = self.received.subscribe();
        let found =
            tokio::time::timeout(PATIENCE, watching.wait_for(|r| r.iter().any(|(m, v)| matches(m, v))))
                .await
                .unwrap_or_else(|_| panic!("the server was never sent {what}"))
                .unwrap();
        found.iter().find(|(m, v)| matches(m, v)).unwrap().1.clone()
    }

    /// Waits until the server was sent `n` messages that `match`.
    pub async fn sent_times(&self, what: &str, n: usize, matches: impl Fn(&str, &Value) -> bool) {
        let mut watching = self.received.subscribe();
        tokio::time::timeout(
            PATIENCE,
            watching.wait_for(|r| r.iter().filter(|(m, v)| matches(m, v)).count() >= n),
        )
        .await
        .unwrap_or_else(|_| panic!("the server was not sent {what} {n} times"))
        .unwrap();
    }

    /// Waits until exactly `n` standalone streams are open.
    pub async fn streams_open(&self, n: usize) {
        let mut watching = self.open_streams.subscribe();
        tokio::time::timeout(PATIENCE, watching.wait_for(|open| *open == n))
            .await
            .unwrap_or_else(|_| {
                panic!("{} standalone streams are open, not {n}", *self.open_streams.borrow())
            })
            .unwrap();
    }
}

/// Counts a standalone stream as closed when its body is dropped.
struct StreamClosed(watch::Sender<usize>);

impl Drop for StreamClosed {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n -= 1);
    }
}

fn tokio_stream_of(rx: broadcast::Receiver<Value>) -> impl futures_util::Stream<Item = Value> + Send {
    futures_util::stream::unfold(rx, |mut rx| async move {
        loop {
            match rx.recv().await {
                Ok(v) => return Some((v, rx)),
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    })
}

/// A form question as a legacy server pushes it.
pub fn ask(id: i64, message: &str, properties: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "elicitation/create", "params": {
        "mode": "form", "message": message,
        "requestedSchema": { "type": "object", "properties": properties },
    } })
}

/// A URL question as a 2025-11-25 server pushes it.
pub fn ask_url(id: i64, url: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "elicitation/create", "params": {
        "mode": "url", "message": "Sign in to continue", "url": url, "elicitationId": format!("e-{id}"),
    } })
}
