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
//!   displaces another: the oldest that has not sent a whole request head yet (whether it
//!   has sent nothing or trickled part of one: age decides, so half a head buys a flood no
//!   better place than silence), else the one idle longest. Only when every connection is
//!   busy with a request is the new one closed at once. A flood of idle connections can
//!   therefore neither take the process's file descriptors nor keep `/healthz`, `/readyz` or
//!   anyone else out: a newcomer has until a cap's worth of newer connections has come in
//!   to send its request, and a client that sends it as it connects (as probes and browsers
//!   do) is heard long before that; the flood is what gives way.
//! - **Paced displacement.** However fast a flood reconnects, at most a cap's worth of
//!   connections are displaced per `NEWCOMER_GRACE` (100 ms), so every connection has at
//!   least about that long to send its request; newcomers wait their turn in the listen
//!   queue, where their requests arrive meanwhile. (Unpaced, the grace is whatever the
//!   machine takes to accept and close a cap's worth: 30-50 ms for a cap of 1,000 here.)
//! - **A last read before a displacement.** The runtime learns what sockets hold in
//!   batches, so under a flood a request may have arrived that its connection's task has not
//!   been told of. A displaced connection first reads what the kernel holds: if that starts
//!   a request, the connection keeps its place and is served. (A new connection's first read
//!   goes to the kernel at once, for the same reason: its request usually came with it.)
//!
//! Each request also carries `ConnectInfo<SocketAddr>` (the peer), for `api::client`.

use std::collections::{BTreeMap, HashMap};
use std::convert::Infallible;
use std::io;
use std::io::Read as _;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::ConnectInfo;
use axum::http::{Request, StatusCode};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use socket2::SockRef;
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
    let mut pacer = Pacer::new(registry.limits.max_connections);
    loop {
        // Displaced connections are closed by their own tasks, a moment later; under a flood
        // the loop would otherwise accept faster than they close, past the cap.
        let at_cap = tokio::select! {
            at_cap = registry.room() => at_cap,
            () = stop.cancelled() => break,
        };
        if at_cap {
            // The next connection displaces one: not before its turn.
            tokio::select! {
                () = pacer.turn() => {}
                () = stop.cancelled() => break,
            }
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
        let Some(conn) = Registry::admit(&registry) else {
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

/// The least time a connection at the cap has to send its request head before it can be
/// displaced, however fast a flood reconnects: displacements take the oldest first, and no
/// more than a cap's worth are made in this time. (Without the pace, that time is what the
/// machine takes to accept and close a cap's worth of connections: tens of milliseconds.)
const NEWCOMER_GRACE: Duration = Duration::from_millis(100);

/// Spaces displacements `NEWCOMER_GRACE / cap` apart; turns not taken are saved up to a
/// tenth of the grace, for a burst after a lull. Newcomers wait their turn in the kernel's
/// listen queue, where their requests come in meanwhile.
struct Pacer {
    interval: Duration,
    saved: Duration,
    next: Instant,
}

impl Pacer {
    fn new(max_connections: usize) -> Self {
        let per_grace = u32::try_from(max_connections.max(1)).unwrap_or(u32::MAX);
        Self { interval: NEWCOMER_GRACE / per_grace, saved: NEWCOMER_GRACE / 10, next: Instant::now() }
    }

    async fn turn(&mut self) {
        let now = Instant::now();
        let at = self.schedule(now);
        if at > now {
            tokio::time::sleep_until(at).await;
        }
    }

    /// When the turn asked for at `now` comes.
    fn schedule(&mut self, now: Instant) -> Instant {
        let earliest = now.checked_sub(self.saved).unwrap_or(now);
        let at = self.next.max(earliest);
        self.next = at + self.interval;
        at
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
    let ask_kernel = Arc::new(AtomicBool::new(true));
    let io = TokioIo::new(Tracked { io: tcp, _conn: conn, ask_kernel: ask_kernel.clone() });
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
                // Chosen while unserved or idle. What the kernel holds is read first (the
                // runtime may not have told this task of a request that has come in): one
                // that starts a request is served, and the cap is exceeded by one until it
                // ends (bounded by `Registry::room`).
                let started = registry.requests_started(id);
                ask_kernel.store(true, Ordering::Relaxed);
                let polled = std::future::poll_fn(|cx| Poll::Ready(connection.as_mut().poll(cx))).await;
                if let Poll::Ready(finished) = polled {
                    if let Err(e) = finished {
                        tracing::trace!(error = %e, "connection ended with an error");
                    }
                    return;
                }
                match registry.reprieve(id, started) {
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
    /// Connections that have not sent a whole request head yet, oldest first (ids are
    /// given in the order of acceptance).
    unserved: BTreeMap<u64, CancellationToken>,
    /// Keep-alive connections with nothing in flight, longest idle first (keyed by when they
    /// became idle), and the connection each is.
    idle: BTreeMap<u64, (u64, CancellationToken)>,
    conns: HashMap<u64, State>,
}

struct State {
    accepted: Instant,
    /// Requests whose responses have not finished.
    in_flight: u32,
    /// Requests started on the connection so far.
    started: u64,
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

    /// Returns once connections still being closed leave room for another, and whether the
    /// next connection displaces one (the cap is reached).
    async fn room(&self) -> bool {
        loop {
            let closing = self.closed.notified();
            let open = self.lock().open;
            if open < self.limits.max_connections + self.overshoot() {
                return open >= self.limits.max_connections;
            }
            closing.await;
        }
    }

    /// A place for a new connection, displacing another at the cap; `None` when every
    /// connection is busy.
    fn admit(this: &Arc<Self>) -> Option<Conn> {
        let mut inner = this.lock();
        if inner.open >= this.limits.max_connections {
            // The displaced connection keeps its count until its task has closed it, a moment
            // later; `open` may exceed the cap by the few being closed.
            let victim = match inner.unserved.pop_first() {
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
        inner.unserved.insert(id, displaced.clone());
        inner.conns.insert(
            id,
            State {
                accepted: now,
                in_flight: 0,
                started: 0,
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
        state.started += 1;
        let first = state.started == 1;
        let idle_key = state.idle_key.take();
        if first {
            inner.unserved.remove(&id);
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

    fn requests_started(&self, id: u64) -> u64 {
        self.lock().conns.get(&id).map_or(0, |state| state.started)
    }

    /// A displaced connection with a request in flight, or that has started one since
    /// `started` were counted, keeps its place, displaceable again (by a fresh token) once
    /// idle; `None` when it is to close.
    fn reprieve(&self, id: u64, started: u64) -> Option<CancellationToken> {
        let mut guard = self.lock();
        let inner = &mut *guard;
        let state = inner.conns.get_mut(&id)?;
        if state.in_flight == 0 && !state.upgraded && state.started == started {
            return None;
        }
        let token = CancellationToken::new();
        state.displaced = token.clone();
        // Served and idle again already: its place among the idle holds the spent token.
        if let Some((_, idle_token)) = state.idle_key.and_then(|key| inner.idle.get_mut(&key)) {
            *idle_token = token.clone();
        }
        Some(token)
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
        if state.started == 0 {
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
            if state.started == 0 {
                inner.unserved.remove(&id);
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
    _conn: Conn,
    /// Set when what the runtime knows of the socket may lag what the kernel holds (a new
    /// connection, one about to be displaced): the next read that the runtime would leave
    /// waiting asks the kernel itself, once.
    ask_kernel: Arc<AtomicBool>,
}

impl AsyncRead for Tracked {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let read = Pin::new(&mut self.io).poll_read(cx, buf);
        if read.is_pending() && buf.remaining() > 0 && self.ask_kernel.swap(false, Ordering::Relaxed) {
            // The runtime's readiness is what its last look at the kernel's events showed;
            // its `poll_read` has arranged the wake-up, so a read that finds nothing waits
            // as it would have.
            return match (&*SockRef::from(&self.io)).read(buf.initialize_unfilled()) {
                Ok(n) => {
                    buf.advance(n);
                    Poll::Ready(Ok(()))
                }
                Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted) => {
                    Poll::Pending
                }
                Err(e) => Poll::Ready(Err(e)),
            };
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
        let router = Router::new().route("/", get(|| async { "ok" }));
        tokio::spawn(serve(listener, router, limits(max_connections), false, std::future::pending()));
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

    fn limits(max_connections: usize) -> ListenerLimits {
        ListenerLimits {
            header_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(30),
            max_connections,
        }
    }

    /// Displacements are spaced a cap's worth per grace: after a lull a tenth of the grace's
    /// turns come at once, then one per interval, however many are asked for at once.
    #[test]
    fn displacements_are_paced_a_cap_per_grace() {
        let mut pacer = Pacer::new(100);
        let lull_ended = Instant::now() + NEWCOMER_GRACE;
        let turns: Vec<Instant> = (0..110).map(|_| pacer.schedule(lull_ended)).collect();
        assert!(turns[..10].iter().all(|&at| at <= lull_ended), "the saved turns are taken at once");
        let last = turns[109] - lull_ended;
        assert!(
            last >= NEWCOMER_GRACE * 9 / 10 && last <= NEWCOMER_GRACE,
            "a cap's worth more took {last:?}"
        );
        assert!(turns.windows(2).all(|pair| pair[1] - pair[0] == NEWCOMER_GRACE / 100));
    }

    /// Half a request head buys no better place than silence: at the cap the oldest
    /// connection without a whole head goes first, whatever it has sent, and an idle one only
    /// when none is left.
    #[test]
    fn at_the_cap_the_oldest_unserved_connection_goes_first_then_the_longest_idle() {
        let registry = Arc::new(Registry::new(limits(3), false));
        let first = Registry::admit(&registry).unwrap();
        let served = Registry::admit(&registry).unwrap();
        let third = Registry::admit(&registry).unwrap();
        registry.request_started(served.id);
        registry.request_ended(served.id);

        let fourth = Registry::admit(&registry).unwrap();
        assert!(first.displaced.is_cancelled(), "the oldest unserved goes first");
        assert!(!served.displaced.is_cancelled() && !third.displaced.is_cancelled());
        drop(first);

        let fifth = Registry::admit(&registry).unwrap();
        assert!(third.displaced.is_cancelled(), "an unserved one goes before the idle one");
        assert!(!served.displaced.is_cancelled());
        drop(third);

        // The two unserved left become busy: the idle one is all that can give way.
        for busy in [&fourth, &fifth] {
            registry.request_started(busy.id);
        }
        let sixth = Registry::admit(&registry).unwrap();
        assert!(served.displaced.is_cancelled(), "the idle one goes when no unserved is left");
        assert!(!fourth.displaced.is_cancelled() && !fifth.displaced.is_cancelled());

        // Every one busy: the newcomer is refused.
        drop(served);
        registry.request_started(sixth.id);
        assert!(Registry::admit(&registry).is_none(), "nobody to displace");
    }

    /// A displaced idle connection whose last read served a whole request keeps its place,
    /// and its place among the idle holds the fresh token: a later newcomer can displace it.
    #[test]
    fn a_connection_reprieved_after_serving_a_request_can_be_displaced_again() {
        let registry = Arc::new(Registry::new(limits(1), false));
        let kept = Registry::admit(&registry).unwrap();
        registry.request_started(kept.id);
        registry.request_ended(kept.id);
        let newcomer = Registry::admit(&registry).unwrap();
        assert!(kept.displaced.is_cancelled());
        let started = registry.requests_started(kept.id);
        assert_eq!(registry.reprieve(kept.id, started), None, "nothing started: it closes");

        // Its last read found a request, answered within the same poll.
        registry.request_started(kept.id);
        registry.request_ended(kept.id);
        let token = registry.reprieve(kept.id, started).expect("it served a request: it stays");
        registry.request_started(newcomer.id);
        let _later = Registry::admit(&registry).unwrap();
        assert!(token.is_cancelled(), "the reprieved connection, idle again, is displaceable");
    }

    /// The runtime's readiness for a socket is what its last look at the kernel's events
    /// showed; a read asked of the kernel finds a request the runtime has not been told of.
    #[tokio::test(flavor = "current_thread")]
    async fn a_read_asked_of_the_kernel_finds_what_the_runtime_has_not_been_told_of() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        server.set_nonblocking(true).unwrap();
        // Registered with the runtime, which does not look at its events before this test yields.
        let server = TcpStream::from_std(server).unwrap();
        std::io::Write::write_all(&mut client, REQUEST).unwrap();
        let registry = Arc::new(Registry::new(limits(1), false));
        let ask_kernel = Arc::new(AtomicBool::new(false));
        let mut tracked = Tracked {
            io: server,
            _conn: Registry::admit(&registry).unwrap(),
            ask_kernel: ask_kernel.clone(),
        };

        let mut read_once = || {
            let mut bytes = [0u8; 1024];
            let mut buf = ReadBuf::new(&mut bytes);
            let mut cx = Context::from_waker(std::task::Waker::noop());
            match Pin::new(&mut tracked).poll_read(&mut cx, &mut buf) {
                Poll::Ready(read) => Some(read.map(|()| buf.filled().to_vec()).unwrap()),
                Poll::Pending => None,
            }
        };
        let unasked = read_once();
        assert_eq!(unasked, None, "the runtime knew of the request already: this test proves nothing");
        ask_kernel.store(true, Ordering::Relaxed);
        assert_eq!(read_once().as_deref(), Some(REQUEST));
        assert!(!ask_kernel.load(Ordering::Relaxed), "the kernel is asked once");
    }

    /// Connections that trickle half a request head do not outlast a newcomer that has not
    /// sent its request yet: the oldest of them gives way, and the newcomer is served.
    #[tokio::test(flavor = "current_thread")]
    async fn a_trickled_half_head_gives_way_before_a_newer_silent_connection() {
        let addr = start(3).await;
        let mut trickling = Vec::new();
        for _ in 0..2 {
            let mut stream = TcpStream::connect(addr).await.unwrap();
            stream.write_all(b"GET / HTTP/1.1\r\n").await.unwrap();
            trickling.push(stream);
        }
        let mut newcomer = TcpStream::connect(addr).await.unwrap();
        let _flood = TcpStream::connect(addr).await.unwrap();
        assert_eq!(response(&mut trickling[0]).await, "", "the oldest trickler is closed");
        newcomer.write_all(REQUEST).await.unwrap();
        let answer = response(&mut newcomer).await;
        assert!(answer.starts_with("HTTP/1.1 200"), "the newcomer got {answer:?}");
    }
}
