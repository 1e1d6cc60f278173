//! The client side of Streamable HTTP, as Herald uses it towards upstream
//! servers: POST one message and get back `202`, one JSON message, or an SSE
//! stream of messages; GET the legacy standalone stream; DELETE a session.
//!
//! Timeouts here bound connecting and waiting for response headers. How long
//! a stream may stay quiet is the caller's decision, because only the caller
//! knows when a person is busy answering a question the stream asked.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use reqwest::{Method, StatusCode};
use sse_stream::SseByteStream;

use crate::connect_failure::ConnectFailure;
use crate::headers::{ACCEPT_BOTH, MCP_PROTOCOL_VERSION, MCP_SESSION_ID};
use crate::jsonrpc::{ErrorObject, Message};

/// The most a single JSON reply or SSE event may weigh.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;
/// The most one SSE response may carry in total before Herald stops reading.
pub const MAX_STREAM_BYTES: u64 = 256 * 1024 * 1024;
/// How long to wait for response headers (not for a stream's events).
pub const RESPONSE_HEADERS_TIMEOUT: Duration = Duration::from_secs(30);
/// Error bodies are read only this far, for the message.
const MAX_ERROR_BODY: usize = 4096;

#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    #[error("cannot reach the server: {0}")]
    Connect(String),
    #[error("the server did not answer within {0:?}")]
    Timeout(Duration),
    /// The session the request named is gone (HTTP 404 on a request with a session id).
    #[error("the server no longer knows this session")]
    SessionExpired,
    #[error("the server answered HTTP {status}{}", error.as_ref().map(|e| format!(": {} ({})", e.message, e.code)).unwrap_or_default())]
    Status { status: u16, error: Option<ErrorObject>, body: String },
    #[error("the server broke the protocol: {0}")]
    Protocol(String),
    #[error("the connection to the server was lost: {0}")]
    Lost(String),
}

impl TransportError {
    fn mentions_session(&self) -> bool {
        match self {
            TransportError::Status { status: 400 | 404, error, body } => {
                let text = error.as_ref().map_or(body.as_str(), |e| e.message.as_str());
                text.to_ascii_lowercase().contains("session")
            }
            _ => false,
        }
    }
}

/// What a POST came back with.
pub enum Reply {
    /// `202 Accepted`: a notification or a response was taken.
    Accepted,
    /// One JSON message.
    Message(Message),
    /// An SSE stream of messages (notifications, server requests, the response).
    Stream(MessageStream),
}

/// What else a reply said in its headers.
#[derive(Debug, Default, Clone)]
pub struct ReplyHead {
    pub session_id: Option<String>,
    /// The HTTP status.
    pub status: u16,
}

/// Watches every HTTP request an `Endpoint` makes (for tracing and metrics)
/// and may add headers to it (trace context). herald-mcp knows no telemetry;
/// the gateway implements this.
pub trait Observer: Send + Sync {
    /// A request is about to be sent; `headers` are added to it.
    fn start(&self, method: &Method, headers: &mut HeaderMap) -> Box<dyn Observation>;
}

/// One observed request.
pub trait Observation: Send {
    /// Its HTTP status, or the error that ended it. For a stream this is
    /// when the response headers arrived, not when the stream ended.
    fn finish(self: Box<Self>, outcome: Result<u16, &TransportError>);
}

/// Headers of one POST beyond the ones every POST has.
#[derive(Default, Clone)]
pub struct PostHeaders {
    pub protocol_version: Option<String>,
    pub session_id: Option<String>,
    /// Further headers, e.g. `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`, `traceparent`.
    pub extra: HeaderMap,
}

/// One upstream MCP endpoint with the headers the registry holds for it.
#[derive(Clone)]
pub struct Endpoint {
    http: reqwest::Client,
    url: reqwest::Url,
    headers: HeaderMap,
    observer: Option<Arc<dyn Observer>>,
}

impl Endpoint {
    pub fn new(http: reqwest::Client, url: reqwest::Url, headers: HeaderMap) -> Self {
        Self { http, url, headers, observer: None }
    }

    /// Every request of this endpoint is shown to `observer`.
    pub fn observed(mut self, observer: Arc<dyn Observer>) -> Self {
        self.observer = Some(observer);
        self
    }

    /// Runs one request under the observer, if there is one.
    async fn watched<T, F>(
        &self,
        method: Method,
        status: impl Fn(&T) -> u16,
        request: impl FnOnce(HeaderMap) -> F,
    ) -> Result<T, TransportError>
    where
        F: Future<Output = Result<T, TransportError>>,
    {
        let mut added = HeaderMap::new();
        let observation = self.observer.as_ref().map(|o| o.start(&method, &mut added));
        let result = request(added).await;
        if let Some(observation) = observation {
            observation.finish(result.as_ref().map(&status));
        }
        result
    }

    pub fn url(&self) -> &reqwest::Url {
        &self.url
    }

    /// POSTs one JSON-RPC message.
    pub async fn post(
        &self,
        body: String,
        headers: &PostHeaders,
    ) -> Result<(Reply, ReplyHead), TransportError> {
        self.watched(
            Method::POST,
            |(_, head): &(Reply, ReplyHead)| head.status,
            |added| self.post_unwatched(body, headers, added),
        )
        .await
    }

    async fn post_unwatched(
        &self,
        body: String,
        headers: &PostHeaders,
        added: HeaderMap,
    ) -> Result<(Reply, ReplyHead), TransportError> {
        let mut request = self
            .http
            .request(Method::POST, self.url.clone())
            .headers(self.headers.clone())
            .header(ACCEPT, ACCEPT_BOTH)
            .header(CONTENT_TYPE, "application/json")
            .headers(headers.extra.clone())
            .headers(added)
            .body(body);
        if let Some(version) = &headers.protocol_version {
            request = request.header(MCP_PROTOCOL_VERSION, version);
        }
        if let Some(session) = &headers.session_id {
            request = request.header(MCP_SESSION_ID, session);
        }
        let response = send(request).await?;
        let head = ReplyHead {
            session_id: response
                .headers()
                .get(MCP_SESSION_ID)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned),
            status: response.status().as_u16(),
        };
        let status = response.status();
        if status == StatusCode::NOT_FOUND && headers.session_id.is_some() {
            return Err(TransportError::SessionExpired);
        }
        if status == StatusCode::ACCEPTED {
            return Ok((Reply::Accepted, head));
        }
        if !status.is_success() {
            let error = status_error(response).await;
            // Some servers (the TypeScript SDK's) answer a forgotten session
            // with 400 and a message about it rather than 404.
            if headers.session_id.is_some() && error.mentions_session() {
                return Err(TransportError::SessionExpired);
            }
            return Err(error);
        }
        let reply = match content_type(&response).as_deref() {
            Some("text/event-stream") => Reply::Stream(MessageStream::new(response)),
            Some("application/json") => {
                let bytes = read_limited(response).await?;
                Reply::Message(
                    Message::parse(&bytes)
                        .map_err(|e| TransportError::Protocol(format!("bad JSON reply: {e}")))?,
                )
            }
            other => {
                return Err(TransportError::Protocol(format!(
                    "a reply must be application/json or text/event-stream, not {}",
                    other.unwrap_or("nothing")
                )));
            }
        };
        Ok((reply, head))
    }

    /// Opens the legacy standalone SSE stream of a session (`None` if the
    /// server offers none: 405).
    pub async fn open_stream(
        &self,
        session_id: &str,
        protocol_version: &str,
    ) -> Result<Option<MessageStream>, TransportError> {
        let found = self
            .watched(
                Method::GET,
                |(status, _): &(u16, _)| *status,
                |added| async move {
                    let request = self
                        .http
                        .request(Method::GET, self.url.clone())
                        .headers(self.headers.clone())
                        .header(ACCEPT, "text/event-stream")
                        .header(MCP_SESSION_ID, session_id)
                        .header(MCP_PROTOCOL_VERSION, protocol_version)
                        .headers(added);
                    let response = send(request).await?;
                    Ok((response.status().as_u16(), Self::stream_of(response).await))
                },
            )
            .await?;
        found.1
    }

    async fn stream_of(response: reqwest::Response) -> Result<Option<MessageStream>, TransportError> {
        match response.status() {
            StatusCode::METHOD_NOT_ALLOWED => Ok(None),
            StatusCode::NOT_FOUND => Err(TransportError::SessionExpired),
            s if s.is_success() && content_type(&response).as_deref() == Some("text/event-stream") => {
                Ok(Some(MessageStream::new(response)))
            }
            s if s.is_success() => {
                Err(TransportError::Protocol("the GET stream is not text/event-stream".into()))
            }
            _ => Err(status_error(response).await),
        }
    }

    /// Ends a legacy session (servers may refuse with 405; that is fine).
    pub async fn delete_session(
        &self,
        session_id: &str,
        protocol_version: &str,
    ) -> Result<(), TransportError> {
        self.watched(
            Method::DELETE,
            |status: &u16| *status,
            |added| async move {
                let request = self
                    .http
                    .request(Method::DELETE, self.url.clone())
                    .headers(self.headers.clone())
                    .header(MCP_SESSION_ID, session_id)
                    .header(MCP_PROTOCOL_VERSION, protocol_version)
                    .headers(added);
                send(request).await.map(|r| r.status().as_u16())
            },
        )
        .await
        .map(|_| ())
    }
}

async fn send(request: reqwest::RequestBuilder) -> Result<reqwest::Response, TransportError> {
    match tokio::time::timeout(RESPONSE_HEADERS_TIMEOUT, request.send()).await {
        Err(_) => Err(TransportError::Timeout(RESPONSE_HEADERS_TIMEOUT)),
        Ok(Err(e)) if e.is_timeout() => Err(TransportError::Timeout(RESPONSE_HEADERS_TIMEOUT)),
        // The caller gets a category, not the OS's or TLS library's words (see
        // connect_failure); the words go to the operator's log, at debug.
        Ok(Err(e)) => {
            tracing::debug!(error = %without_url(&e), "upstream request failed");
            Err(TransportError::Connect(ConnectFailure::of(&e).sentence().to_owned()))
        }
        Ok(Ok(response)) => Ok(response),
    }
}

/// reqwest's errors embed the URL, whose query may hold a secret.
fn without_url(e: &reqwest::Error) -> String {
    let mut message = e.to_string();
    if let Some(url) = e.url() {
        message = message.replace(url.as_str(), "<server>");
    }
    let mut source = std::error::Error::source(e);
    while let Some(inner) = source {
        message = format!("{message}: {inner}");
        source = inner.source();
    }
    message
}

fn content_type(response: &reqwest::Response) -> Option<String> {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase())
}

async fn read_limited(response: reqwest::Response) -> Result<Vec<u8>, TransportError> {
    let mut body = Vec::new();
    let mut chunks = response.bytes_stream();
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(|e| TransportError::Lost(without_url(&e)))?;
        if body.len() + chunk.len() > MAX_MESSAGE_BYTES {
            return Err(TransportError::Protocol(format!("a reply exceeds {MAX_MESSAGE_BYTES} bytes")));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

async fn status_error(response: reqwest::Response) -> TransportError {
    let status = response.status().as_u16();
    let mut body = Vec::new();
    let mut chunks = response.bytes_stream();
    while let Some(Ok(chunk)) = chunks.next().await {
        body.extend_from_slice(&chunk);
        if body.len() >= MAX_ERROR_BODY {
            body.truncate(MAX_ERROR_BODY);
            break;
        }
    }
    let error = match Message::parse(&body) {
        Ok(Message::Error { error, .. }) => Some(error),
        _ => None,
    };
    TransportError::Status { status, error, body: String::from_utf8_lossy(&body).into_owned() }
}

/// The JSON-RPC messages of an SSE response, in order. Events without data
/// (comments, keep-alives, retry hints) are skipped.
pub struct MessageStream {
    inner: Pin<Box<dyn Stream<Item = Result<Message, TransportError>> + Send>>,
}

impl MessageStream {
    fn new(response: reqwest::Response) -> Self {
        let mut remaining = MAX_STREAM_BYTES;
        let bytes = response.bytes_stream().map(move |chunk| {
            let chunk: Bytes = chunk.map_err(|e| StreamReadError(without_url(&e)))?;
            remaining = remaining
                .checked_sub(chunk.len() as u64)
                .ok_or_else(|| StreamReadError(format!("the stream exceeded {MAX_STREAM_BYTES} bytes")))?;
            Ok::<_, StreamReadError>(chunk)
        });
        let events = SseByteStream::new(bytes);
        let messages = events.filter_map(|event| async move {
            match event {
                Err(e) => Some(Err(TransportError::Lost(e.to_string()))),
                Ok(event) => {
                    let data = event.data.filter(|d| !d.is_empty())?;
                    if data.len() > MAX_MESSAGE_BYTES {
                        return Some(Err(TransportError::Protocol("an SSE event is too large".into())));
                    }
                    Some(
                        Message::parse(data.as_bytes())
                            .map_err(|e| TransportError::Protocol(format!("bad message on the stream: {e}"))),
                    )
                }
            }
        });
        Self { inner: Box::pin(messages) }
    }

    /// A stream of already-parsed messages (for tests and adapters).
    pub fn from_messages(
        messages: impl Stream<Item = Result<Message, TransportError>> + Send + 'static,
    ) -> Self {
        Self { inner: Box::pin(messages) }
    }
}

impl Stream for MessageStream {
    type Item = Result<Message, TransportError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.as_mut().poll_next(cx)
    }
}

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct StreamReadError(String);

/// A header for `PostHeaders::extra`; `None` if the value cannot be a header.
pub fn header(name: &'static str, value: &str) -> Option<(HeaderName, HeaderValue)> {
    Some((HeaderName::from_static(name), HeaderValue::from_str(value).ok()?))
}
