//! Serving HTTP/1.1 on a socket, with connection hygiene: Herald's own accept loop over
//! hyper's connection builder (what `axum::serve` does, plus what it cannot be configured to
//! do). Every connection is tracked from accept to close:
//!
//! - **Header timeout** (`HERALD_HEADER_TIMEOUT_SECS`): a new connection that has not sent a
//!   whole request head within it is closed. A stranger cannot hold a socket by saying
//!   nothing, or by trickling header bytes.
//! - **Idle timeout** (`HERALD_IDLE_TIMEOUT_SECS`): a keep-alive connection with no request in
//!   flight for that long is closed (also when it has started, but not finished, its next
//!   request's head). A response still streaming (SSE, a suspended tool call) is in flight;
//!   an upgraded websocket is never idle by this rule (its own protocol governs it).
//! - **Cap** (`HERALD_MAX_CONNECTIONS`, websockets included): at the cap, a new connection
//!   displaces another: the oldest that has sent nothing at all, else the oldest that has
//!   sent part of a request but not all of its head, else the one idle longest. Only when
//!   every connection is busy with a request is the new one closed at once. A flood of idle
//!   connections can therefore neither take the process's file descriptors nor keep
//!   `/healthz`, `/readyz` or anyone else out: a client that sends its request as it
//!   connects (as probes and browsers do) gets in and is heard, and the flood is what gives
//!   way. (What a new connection has sent is peeked at as it is accepted: one whose whole
//!   request head is already there is not displaced before it is served. A connection
//!   chosen while silent or idle whose request has come in by the time its task hears of it
//!   is served too: under a flood, admissions can outrun the tasks they spawn.)
//!
//! Each request also carries `ConnectInfo<SocketAddr>` (the peer), for `api::client`.

use std::collections::{BTreeMap, HashMap};
use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::ConnectInfo;
use axum::http::{Request, StatusCode};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

use crate::config::ListenerLimits;
use crate::telemetry::metrics::metrics;

/// Serves `router` on `listener` until `shutdown` resolves, then lets open requests finish
/// (the caller bounds how long) and returns once every connection task has ended.
/// `counted`: whether the connections show in Herald's metrics (the main listener's do).
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ListenerLimits,
    counted: bool,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let registry = Arc::new(Registry::new(limits, counted));
    let stop = CancellationToken::new();
    tokio::spawn({
        let stop = stop.clone();
        async move {
            shutdown.await;
            stop.cancel();
        }
    });
    // Every connection task holds a sender; `recv` answers `None` once the last has ended.
    let (running, mut all_ended) = tokio::sync::mpsc::channel::<Infallible>(1);
    loop {
        // Displaced connections are closed by their own tasks, a moment later; under a flood
        // the loop would otherwise accept faster than they close, past the cap.
        tokio::select! {
            () = registry.room() => {}
            () = stop.cancelled() => break,
        }
        let (tcp, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    accept_failed(e).await;
                    continue;
                }
            },
            () = stop.cancelled() => break,
        };
        // Small replies must not wait for Nagle's algorithm.
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!(error = %e, "could not set TCP_NODELAY");
        }
        let arrived = arrived(&tcp);
        let Some(conn) = Registry::admit(&registry, arrived) else {
            // Every connection is busy with a request: this one is closed unread.
            registry.closed_by_herald("refused");
            drop(tcp);
            continue;
        };
        let (router, stop, running) = (router.clone(), stop.clone(), running.clone());
        tokio::spawn(async move {
            serve_connection(tcp, peer, router, conn, stop).await;
            drop(running);
        });
    }
    drop(listener);
    drop(running);
    let _ = all_ended.recv().await;
    Ok(())
}

/// What a new connection has sent so far, peeked at without reading it or waiting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arrived {
    Nothing,
    /// Part of a request head.
    Part,
    /// A whole request head (as a probe or a browser sends it on connecting): it is about to
    /// be served, and no newcomer displaces it before then. Under a flood of reconnecting idle
    /// sockets, the admissions behind it could otherwise cycle through to it before its task
    /// has read a byte.
    WholeHead,
}

fn arrived(tcp: &TcpStream) -> Arrived {
    let mut bytes = [0u8; 4096];
    let mut buf = ReadBuf::new(&mut bytes);
    let mut cx = Context::from_waker(std::task::Waker::noop());
    match tcp.poll_peek(&mut cx, &mut buf) {
        Poll::Ready(Ok(n)) if n > 0 => {
            if buf.filled().windows(4).any(|w| w == b"\r\n\r\n") {
                Arrived::WholeHead
            } else {
                Arrived::Part
            }
        }
        _ => Arrived::Nothing,
    }
}

async fn accept_failed(e: io::Error) {
    if matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused | io::ErrorKind::ConnectionAborted | io::ErrorKind::ConnectionReset
    ) {
        return;
    }
    // Out of file descriptors (the cap leaves room, but not for what else the process opens
    // beyond its share) or of memory: wait a moment rather than spin.
    tracing::error!(error = %e, "cannot accept a connection");
    tokio::time::sleep(Duration::from_millis(50)).await;
}

async fn serve_connection(
    tcp: TcpStream,
    peer: SocketAddr,
    router: Router,
    conn: Conn,
    stop: CancellationToken,
) {
    let registry = conn.registry.clone();
    let id = conn.id;
    let mut displaced = conn.displaced.clone();
    let service = {
        let registry = registry.clone();
        hyper::service::service_fn(move |mut request: Request<Incoming>| {
            request.extensions_mut().insert(ConnectInfo(peer));
            let in_flight = InFlight::start(&registry, id);
            let router = router.clone();
            async move {
                let response = router.oneshot(request).await.unwrap_or_else(|never| match never {});
                if response.status() == StatusCode::SWITCHING_PROTOCOLS {
                    in_flight.upgraded();
                }
                Ok::<_, Infallible>(response.map(|body| TrackedBody { body, _in_flight: in_flight }))
            }
        })
    };
    // The socket carries the connection's place under the cap; an upgraded websocket takes
    // it along, so the place is given back when the socket really closes.
    let io = TokioIo::new(Tracked { io: tcp, conn, heard: false });
    let connection = hyper::server::conn::http1::Builder::new().serve_connection(io, service).with_upgrades();
    tokio::pin!(connection);
    let mut draining = false;
    loop {
        // Re-read each round: requests start and end while this task sleeps.
        let deadline = registry.deadline(id);
        let wake = deadline.map_or_else(|| Instant::now() + registry.limits.idle_timeout, |(at, _)| at);
        let mut reprieve = None;
        tokio::select! {
            // The connection first: a request that has come in by the time this task runs
            // (a newcomer may have displaced the connection before its task was first polled,
            // or while it sat idle) is read, and so started, before the displacement is heard.
            biased;
            finished = connection.as_mut() => {
                if let Err(e) = finished {
                    tracing::trace!(error = %e, "connection ended with an error");
                }
                return;
            }
            () = displaced.cancelled() => {
                // Chosen while silent or idle, but busy with a request now: it is served, and
                // the cap is exceeded by one until it ends (bounded by `Registry::room`).
                match registry.reprieve(id) {
                    Some(token) => reprieve = Some(token),
                    None => {
                        registry.closed_by_herald("displaced");
                        return;
                    }
                }
            }
            () = stop.cancelled(), if !draining => {
                // Finish what is in flight, take no more requests.
                connection.as_mut().graceful_shutdown();
                draining = true;
            }
            () = tokio::time::sleep_until(wake) => {
                if let Some((at, reason)) = registry.deadline(id)
                    && at <= Instant::now()
                {
                    registry.closed_by_herald(reason);
                    return;
                }
            }
        }
        if let Some(token) = reprieve {
            displaced = token;
        }
    }
}

/// Every connection's state, and the cap.
struct Registry {
    limits: ListenerLimits,
    counted: bool,
    inner: Mutex<Inner>,
    /// Woken as connections close, for an accept loop waiting for room.
    closed: tokio::sync::Notify,
}

#[derive(Default)]
struct Inner {
    next_id: u64,
    next_idle: u64,
    open: usize,
    /// Connections that have sent nothing yet, oldest first.
    silent: BTreeMap<u64, CancellationToken>,
    /// Connections that have sent something, but not a whole request head yet, oldest first.
    talking: BTreeMap<u64, CancellationToken>,
    /// Keep-alive connections with nothing in flight, longest idle first (keyed by when they
    /// became idle), and the connection each is.
    idle: BTreeMap<u64, (u64, CancellationToken)>,
    conns: HashMap<u64, State>,
}

struct State {
    accepted: Instant,
    /// Requests whose responses have not finished.
    in_flight: u32,
    served: bool,
    upgraded: bool,
    idle_since: Instant,
    idle_key: Option<u64>,
    displaced: CancellationToken,
}

/// A connection's place under the cap; given back on drop.
struct Conn {
    registry: Arc<Registry>,
    id: u64,
    /// Cancelled when a newer connection takes this one's place.
    displaced: CancellationToken,
}

impl Registry {
    fn new(limits: ListenerLimits, counted: bool) -> Self {
        Self { limits, counted, inner: Mutex::default(), closed: tokio::sync::Notify::new() }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Open connections (displaced ones still closing included) may exceed the cap by this many.
    fn overshoot(&self) -> usize {
        (self.limits.max_connections / 16).max(16)
    }

    /// Returns once connections still being closed leave room for another.
    async fn room(&self) {
        loop {
            let closing = self.closed.notified();
            if self.lock().open < self.limits.max_connections + self.overshoot() {
                return;
            }
            closing.await;
        }
    }

    /// A place for a new connection, displacing another at the cap; `None` when every
    /// connection is busy.
    fn admit(this: &Arc<Self>, arrived: Arrived) -> Option<Conn> {
        let mut inner = this.lock();
        if inner.open >= this.limits.max_connections {
            // The displaced connection keeps its count until its task has closed it, a moment
            // later; `open` may exceed the cap by the few being closed.
            let victim = match inner.silent.pop_first().or_else(|| inner.talking.pop_first()) {
                Some((_, token)) => token,
                None => {
                    let (_, (victim, token)) = inner.idle.pop_first()?;
                    if let Some(state) = inner.conns.get_mut(&victim) {
                        state.idle_key = None;
                    }
                    token
                }
            };
            victim.cancel();
        }
        let id = inner.next_id;
        inner.next_id += 1;
        inner.open += 1;
        let displaced = CancellationToken::new();
        let now = Instant::now();
        match arrived {
            Arrived::Nothing => {
                inner.silent.insert(id, displaced.clone());
            }
            Arrived::Part => {
                inner.talking.insert(id, displaced.clone());
            }
            // Displaceable again once served and idle.
            Arrived::WholeHead => {}
        }
        inner.conns.insert(
            id,
            State {
                accepted: now,
                in_flight: 0,
                served: false,
                upgraded: false,
                idle_since: now,
                idle_key: None,
                displaced: displaced.clone(),
            },
        );
        drop(inner);
        if this.counted {
            metrics().connection(true);
        }
        Some(Conn { registry: this.clone(), id, displaced })
    }

    fn request_started(&self, id: u64) {
        let mut inner = self.lock();
        let Some(state) = inner.conns.get_mut(&id) else { return };
        state.in_flight += 1;
        let first = !std::mem::replace(&mut state.served, true);
        let idle_key = state.idle_key.take();
        if first {
            inner.silent.remove(&id);
            inner.talking.remove(&id);
        }
        if let Some(key) = idle_key {
            inner.idle.remove(&key);
        }
    }

    fn request_ended(&self, id: u64) {
        let mut inner = self.lock();
        let key = inner.next_idle;
        let Some(state) = inner.conns.get_mut(&id) else { return };
        state.in_flight = state.in_flight.saturating_sub(1);
        if state.in_flight > 0 || state.upgraded {
            return;
        }
        state.idle_since = Instant::now();
        state.idle_key = Some(key);
        let displaced = state.displaced.clone();
        inner.next_idle += 1;
        inner.idle.insert(key, (id, displaced));
    }

    /// The connection sent its first bytes: it moves from the silent to the talking.
    fn heard_from(&self, id: u64) {
        let mut inner = self.lock();
        if let Some(token) = inner.silent.remove(&id) {
            inner.talking.insert(id, token);
        }
    }

    /// A displaced connection that has started a request since it was chosen keeps its
    /// place, displaceable again (by a fresh token) once idle; `None` when it is to close.
    fn reprieve(&self, id: u64) -> Option<CancellationToken> {
        let mut inner = self.lock();
        let state = inner.conns.get_mut(&id)?;
        if state.in_flight == 0 && !state.upgraded {
            return None;
        }
        state.displaced = CancellationToken::new();
        Some(state.displaced.clone())
    }

    fn upgraded(&self, id: u64) {
        if let Some(state) = self.lock().conns.get_mut(&id) {
            state.upgraded = true;
        }
    }

    /// When the connection is due to be closed, and why; `None` while it is busy.
    fn deadline(&self, id: u64) -> Option<(Instant, &'static str)> {
        let inner = self.lock();
        let state = inner.conns.get(&id)?;
        if !state.served {
            Some((state.accepted + self.limits.header_timeout, "header_timeout"))
        } else if state.in_flight == 0 && !state.upgraded {
            Some((state.idle_since + self.limits.idle_timeout, "idle_timeout"))
        } else {
            None
        }
    }

    fn closed(&self, id: u64) {
        let mut inner = self.lock();
        if let Some(state) = inner.conns.remove(&id) {
            inner.open -= 1;
            if !state.served {
                inner.silent.remove(&id);
                inner.talking.remove(&id);
            }
            if let Some(key) = state.idle_key {
                inner.idle.remove(&key);
            }
        }
        drop(inner);
        self.closed.notify_waiters();
        if self.counted {
            metrics().connection(false);
        }
    }

    fn closed_by_herald(&self, reason: &'static str) {
        if self.counted {
            metrics().connection_closed(reason);
        }
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        self.registry.closed(self.id);
    }
}

/// One request, from the call of the service until its response body is done (or dropped).
struct InFlight {
    registry: Arc<Registry>,
    id: u64,
}

impl InFlight {
    fn start(registry: &Arc<Registry>, id: u64) -> Self {
        registry.request_started(id);
        Self { registry: registry.clone(), id }
    }

    fn upgraded(&self) {
        self.registry.upgraded(self.id);
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.registry.request_ended(self.id);
    }
}

/// A response body that keeps its request in flight until it has been sent.
struct TrackedBody<B> {
    body: B,
    _in_flight: InFlight,
}

impl<B> http_body::Body for TrackedBody<B>
where
    B: http_body::Body<Data = Bytes> + Unpin,
{
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, B::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// The socket, holding its connection's place under the cap.
struct Tracked {
    io: TcpStream,
    conn: Conn,
    heard: bool,
}

impl AsyncRead for Tracked {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let read = Pin::new(&mut self.io).poll_read(cx, buf);
        if !self.heard && buf.filled().len() > before {
            self.heard = true;
            self.conn.registry.heard_from(self.conn.id);
        }
        read
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use axum::routing::get;
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    use super::*;

    const REQUEST: &[u8] = b"GET / HTTP/1.1\r\nHost: herald\r\n\r\n";

    async fn start(max_connections: usize) -> SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let limits = ListenerLimits {
            header_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(30),
            max_connections,
        };
        let router = Router::new().route("/", get(|| async { "ok" }));
        tokio::spawn(serve(listener, router, limits, false, std::future::pending()));
        addr
    }

    /// Reads one response to `GET /` (its body is the two bytes "ok"), or what came before
    /// the connection closed.
    async fn response(stream: &mut TcpStream) -> String {
        let mut got = Vec::new();
        let mut chunk = [0u8; 1024];
        while !got.ends_with(b"\r\n\r\nok") {
            let n = stream.read(&mut chunk).await.unwrap_or(0);
            if n == 0 {
                break;
            }
            got.extend_from_slice(&chunk[..n]);
        }
        String::from_utf8_lossy(&got).into_owned()
    }

    /// At the cap, an idle keep-alive connection is the one a newcomer displaces; when its
    /// next request has come in by the time its task hears of it, it is answered, not cut off.
    /// On one thread, the newcomer's accept runs before the idle connection's task reads its
    /// request: the order in which a loaded server meets them.
    #[tokio::test(flavor = "current_thread")]
    async fn a_request_that_came_in_before_the_displacement_is_heard_is_answered() {
        for round in 0..20 {
            let addr = start(1).await;
            let mut kept = TcpStream::connect(addr).await.unwrap();
            kept.write_all(REQUEST).await.unwrap();
            assert!(response(&mut kept).await.starts_with("HTTP/1.1 200"), "round {round}: first request");
            // Without yielding to the server: a newcomer connects (the kernel completes the
            // handshake), then the kept connection sends its next request.
            let newcomer = std::net::TcpStream::connect(addr).unwrap();
            assert_eq!(kept.try_write(REQUEST).unwrap(), REQUEST.len());
            let answer = response(&mut kept).await;
            assert!(answer.starts_with("HTTP/1.1 200"), "round {round}: the second request got {answer:?}");
            // The newcomer took a place too, and is served.
            newcomer.set_nonblocking(true).unwrap();
            let mut newcomer = TcpStream::from_std(newcomer).unwrap();
            newcomer.write_all(REQUEST).await.unwrap();
            let answer = response(&mut newcomer).await;
            assert!(answer.starts_with("HTTP/1.1 200"), "round {round}: the newcomer got {answer:?}");
        }
    }
}
