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
/// What an event may hold before it counts against a read budget.
const UNCOUNTED_EVENT_BYTES: usize = 64 * 1024;
/// What an SSE event may add to its message on the wire (field names, `id`,
/// `event`, line ends): the raw event is bounded by the message limit plus this.
const MAX_EVENT_OVERHEAD: usize = 64 * 1024;
/// How long to wait for response headers (not for a stream's events), unless
/// the endpoint is given another bound.
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
    Status {
        status: u16,
        error: Option<ErrorObject>,
        body: String,
        /// The reply's `WWW-Authenticate` header (a 401 or 403's challenge: what the server wants
        /// to be authorized), at most `MAX_CHALLENGE` bytes of it.
        challenge: Option<String>,
    },
    #[error("the server broke the protocol: {0}")]
    Protocol(String),
    #[error("the connection to the server was lost: {0}")]
    Lost(String),
}

impl TransportError {
    fn mentions_session(&self) -> bool {
        match self {
            TransportError::Status { status: 400 | 404, error, body, .. } => {
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
    response_timeout: Duration,
    budget: Option<Arc<ReadBudget>>,
}

/// How much memory the buffers of upstream messages not yet whole may take
/// at once, across the streams sharing it (a process's every upstream
/// connection, say): the per-message limit bounds one stream, this bounds them
/// all. A buffer counts at its capacity (the next power of two of its size).
#[derive(Debug)]
pub struct ReadBudget {
    used: std::sync::atomic::AtomicUsize,
    limit: usize,
}

impl ReadBudget {
    pub fn new(limit: usize) -> Arc<Self> {
        Arc::new(ReadBudget { used: Default::default(), limit })
    }

    /// Bytes held now.
    pub fn used(&self) -> usize {
        self.used.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn take(&self, bytes: usize) -> Result<(), StreamReadError> {
        use std::sync::atomic::Ordering;
        if self.used.fetch_add(bytes, Ordering::Relaxed) + bytes > self.limit {
            self.used.fetch_sub(bytes, Ordering::Relaxed);
            return Err(StreamReadError(format!(
                "Herald is reading {} MiB of large messages from upstream servers at once, the most it holds; try again",
                self.limit / (1024 * 1024)
            )));
        }
        Ok(())
    }

    fn give_back(&self, bytes: usize) {
        self.used.fetch_sub(bytes, std::sync::atomic::Ordering::Relaxed);
    }
}

impl Endpoint {
    pub fn new(http: reqwest::Client, url: reqwest::Url, headers: HeaderMap) -> Self {
        Self { http, url, headers, observer: None, response_timeout: RESPONSE_HEADERS_TIMEOUT, budget: None }
    }

    /// Counts what this endpoint's streams hold of messages not yet whole against `budget`.
    pub fn read_budget(mut self, budget: Arc<ReadBudget>) -> Self {
        self.budget = Some(budget);
        self
    }

    /// Waits at most `limit` for the response headers of each request.
    pub fn response_timeout(mut self, limit: Duration) -> Self {
        self.response_timeout = limit;
        self
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

    /// A header every request carries (e.g. the `Authorization` the caller set).
    pub fn header(&self, name: &reqwest::header::HeaderName) -> Option<&reqwest::header::HeaderValue> {
        self.headers.get(name)
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
        let response = send(request, self.response_timeout).await?;
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
            let error = status_error(response, self.response_timeout).await;
            // Some servers (the TypeScript SDK's) answer a forgotten session
            // with 400 and a message about it rather than 404.
            if headers.session_id.is_some() && error.mentions_session() {
                return Err(TransportError::SessionExpired);
            }
            return Err(error);
        }
        let reply = match content_type(&response).as_deref() {
            Some("text/event-stream") => Reply::Stream(MessageStream::new(response, self.budget.clone())),
            Some("application/json") => {
                // The body of one JSON reply follows its headers at once; one that trickles is cut off.
                let bytes = tokio::time::timeout(self.response_timeout, read_limited(response))
                    .await
                    .map_err(|_| TransportError::Timeout(self.response_timeout))??;
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
                    let response = send(request, self.response_timeout).await?;
                    Ok((response.status().as_u16(), self.stream_of(response).await))
                },
            )
            .await?;
        found.1
    }

    async fn stream_of(&self, response: reqwest::Response) -> Result<Option<MessageStream>, TransportError> {
        match response.status() {
            StatusCode::METHOD_NOT_ALLOWED => Ok(None),
            StatusCode::NOT_FOUND => Err(TransportError::SessionExpired),
            s if s.is_success() && content_type(&response).as_deref() == Some("text/event-stream") => {
                Ok(Some(MessageStream::new(response, self.budget.clone())))
            }
            s if s.is_success() => {
                Err(TransportError::Protocol("the GET stream is not text/event-stream".into()))
            }
            _ => Err(status_error(response, self.response_timeout).await),
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
                send(request, self.response_timeout).await.map(|r| r.status().as_u16())
            },
        )
        .await
        .map(|_| ())
    }
}

async fn send(
    request: reqwest::RequestBuilder,
    limit: Duration,
) -> Result<reqwest::Response, TransportError> {
    match tokio::time::timeout(limit, request.send()).await {
        Err(_) => Err(TransportError::Timeout(limit)),
        Ok(Err(e)) if e.is_timeout() => Err(TransportError::Timeout(limit)),
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

/// The longest `WWW-Authenticate` header kept with an error (a longer one is dropped).
pub const MAX_CHALLENGE: usize = 2048;

/// The error an unsuccessful reply stands for; its body is read as far as
/// [`MAX_ERROR_BODY`], for at most `limit`.
async fn status_error(response: reqwest::Response, limit: Duration) -> TransportError {
    let status = response.status().as_u16();
    let challenge = response
        .headers()
        .get(reqwest::header::WWW_AUTHENTICATE)
        .and_then(|v| v.to_str().ok())
        .filter(|v| v.len() <= MAX_CHALLENGE)
        .map(str::to_owned);
    let mut body = Vec::new();
    let mut chunks = response.bytes_stream();
    let read = async {
        while let Some(Ok(chunk)) = chunks.next().await {
            body.extend_from_slice(&chunk);
            if body.len() >= MAX_ERROR_BODY {
                body.truncate(MAX_ERROR_BODY);
                break;
            }
        }
    };
    // What arrived in time is what the error says.
    let _ = tokio::time::timeout(limit, read).await;
    let error = match Message::parse(&body) {
        Ok(Message::Error { error, .. }) => Some(error),
        _ => None,
    };
    TransportError::Status { status, error, body: String::from_utf8_lossy(&body).into_owned(), challenge }
}

/// The JSON-RPC messages of an SSE response, in order. Events without data
/// (comments, keep-alives, retry hints) are skipped.
pub struct MessageStream {
    inner: Pin<Box<dyn Stream<Item = Result<Message, TransportError>> + Send>>,
}

impl MessageStream {
    fn new(response: reqwest::Response, budget: Option<Arc<ReadBudget>>) -> Self {
        let mut remaining = MAX_STREAM_BYTES;
        // The parser keeps an event until it ends: a server that never ends one
        // must be stopped while it sends it, not once it is done.
        let mut event = EventBound { budget, ..EventBound::default() };
        let bytes = response.bytes_stream().map(move |chunk| {
            let chunk: Bytes = chunk.map_err(|e| StreamReadError(without_url(&e)))?;
            remaining = remaining
                .checked_sub(chunk.len() as u64)
                .ok_or_else(|| StreamReadError(format!("the stream exceeded {MAX_STREAM_BYTES} bytes")))?;
            event.read(&chunk)?;
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

/// Counts the bytes of the SSE event being read, across chunks: an event
/// ends at a blank line (two line ends, each CRLF, LF or CR).
#[derive(Default)]
struct EventBound {
    /// Bytes since the last blank line.
    size: usize,
    /// The last byte ended a line (the next line end makes a blank line).
    line_ended: bool,
    /// The last byte was CR (an LF right after it belongs to the same line end).
    after_cr: bool,
    /// What the event being read holds is counted here, if anywhere.
    budget: Option<Arc<ReadBudget>>,
    /// Bytes of the current event counted in the budget.
    charged: usize,
}

impl Drop for EventBound {
    fn drop(&mut self) {
        if let Some(budget) = &self.budget {
            budget.give_back(self.charged);
        }
    }
}

impl EventBound {
    const LIMIT: usize = MAX_MESSAGE_BYTES + MAX_EVENT_OVERHEAD;

    fn read(&mut self, chunk: &[u8]) -> Result<(), StreamReadError> {
        for &byte in chunk {
            match byte {
                b'\n' if self.after_cr => self.after_cr = false,
                b'\n' | b'\r' => {
                    self.after_cr = byte == b'\r';
                    if self.line_ended {
                        self.size = 0; // a blank line: the event ended
                    }
                    self.line_ended = true;
                }
                _ => {
                    self.after_cr = false;
                    self.line_ended = false;
                }
            }
            self.size += 1;
        }
        if self.size > Self::LIMIT {
            return Err(StreamReadError(format!(
                "an SSE event exceeds {} MiB (the most a message may weigh)",
                MAX_MESSAGE_BYTES / (1024 * 1024)
            )));
        }
        // Only events past a small start are counted (most events are small), and
        // at the memory their buffer takes: it grows by doubling.
        let held = if self.size > UNCOUNTED_EVENT_BYTES { self.size.next_power_of_two() } else { 0 };
        if let Some(budget) = &self.budget {
            if held > self.charged {
                budget.take(held - self.charged)?;
            } else {
                budget.give_back(self.charged - held);
            }
            self.charged = held;
        }
        Ok(())
    }
}

/// A header for `PostHeaders::extra`; `None` if the value cannot be a header.
pub fn header(name: &'static str, value: &str) -> Option<(HeaderName, HeaderValue)> {
    Some((HeaderName::from_static(name), HeaderValue::from_str(value).ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_sharing_a_budget_hold_no_more_than_it_together() {
        let budget = ReadBudget::new(1024 * 1024);
        let mut one = EventBound { budget: Some(budget.clone()), ..EventBound::default() };
        let mut two = EventBound { budget: Some(budget.clone()), ..EventBound::default() };
        let chunk = vec![b'x'; 600 * 1024];
        one.read(&chunk).expect("within the budget");
        assert_eq!(budget.used(), 1024 * 1024, "counted at what its doubling buffer takes");
        assert!(two.read(&chunk).is_err(), "together over the budget");
        drop(two); // a stream whose read failed ends
        one.read(b"\n\n").unwrap(); // the first event ends: what it held is given back
        let mut three = EventBound { budget: Some(budget.clone()), ..EventBound::default() };
        three.read(&chunk).expect("room again");
        drop(three);
        drop(one);
        assert_eq!(budget.used(), 0, "everything is given back");
    }

    #[test]
    fn an_event_is_bounded_while_it_is_read_whatever_its_line_ends() {
        for end in ["\n\n", "\r\n\r\n", "\r\r", "\n\r\n"] {
            let mut bound = EventBound::default();
            let event = format!("event: message\ndata: {}{end}", "x".repeat(EventBound::LIMIT / 2));
            for _ in 0..8 {
                bound.read(event.as_bytes()).expect("whole events reset the count");
            }
        }
        let mut endless = EventBound::default();
        let chunk = vec![b'x'; 1024 * 1024];
        let failed = (0..64).map(|_| endless.read(&chunk)).find(Result::is_err);
        assert!(failed.is_some(), "one endless event is stopped");
        let mut lines = EventBound::default();
        let line = b"data: yyyyyyyyyyyyyyyy\n".repeat(64 * 1024);
        assert!((0..64).map(|_| lines.read(&line)).any(|r| r.is_err()), "many lines, no blank one");
        // A chunk boundary between the CR and LF of one line end is still one line end.
        let mut split = EventBound::default();
        split.read(b"data: a\r").unwrap();
        split.read(b"\ndata: b\r").unwrap();
        split.read(b"\n").unwrap();
        assert_eq!(split.size, 18, "no blank line yet");
        split.read(b"\r\n").unwrap();
        assert_eq!(split.size, 2, "the blank line ended the event");
    }
}
