//! Herald's demo MCP server: a remote server whose tools elicit the way real servers do, serving
//! both protocol generations on one Streamable HTTP endpoint, [`MCP_PATH`].
//!
//! * Legacy (2025-06-18, 2025-11-25): `initialize` opens a session (`Mcp-Session-Id`), and a tool
//!   that needs the user pushes `elicitation/create` on the SSE stream of its `tools/call`.
//! * 2026-07-28: stateless; `server/discover` answers, and a tool that needs the user returns
//!   `{"resultType":"input_required","inputRequests":{…},"requestState":"…"}`; the client retries
//!   with `inputResponses` and the echoed, HMAC-sealed `requestState`.
//!
//! Both are rmcp 3.11's own machinery ([`StreamableHttpService`] with its default legacy session
//! mode routes `initialize` to a session and requests carrying 2026-07-28 `_meta` to the stateless
//! path); this crate adds the tools and one elicitation helper that picks the right delivery per call.
//! With [`Options::legacy_only`] the endpoint plays a server that predates 2026-07-28: every modern
//! request, `server/discover` included, is refused with HTTP 400, so dual-generation clients fall
//! back to `initialize`.
//!
//! In legacy sessions a question the server withdraws (`notifications/cancelled`, see the
//! `ask_then_withdraw` tool) is sent on the SSE stream of the call that asked it, as the TypeScript
//! SDK does.
//!
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! let server = herald_demo_server::spawn(listener, herald_demo_server::Options::default())?;
//! println!("MCP endpoint: {}", server.url());
//! server.shutdown().await
//! # }
//! ```

mod call_streams;
mod elicit;
pub mod forms;
pub mod legacy_only;
mod server;

use std::{io, net::SocketAddr, time::Duration};

use rmcp::{
    model::RequestStateCodec,
    transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    },
};
use tokio::{net::TcpListener, task::JoinHandle};
pub use tokio_util::sync::CancellationToken;

pub use elicit::{ELICITATION_TIMEOUT, LEGACY_ONLY_TOOL_MESSAGE, REJECTED_STATE_MESSAGE, REQUEST_STATE_TTL};
pub use server::DemoServer;

/// The path of the MCP endpoint.
pub const MCP_PATH: &str = "/mcp";

/// The demo server's tools, in the order `tools/list` returns them (by name).
pub const TOOL_NAMES: [&str; 7] = [
    "ask_then_withdraw",
    "book_table",
    "choose_region",
    "connect_account",
    "deploy",
    "echo",
    "fish_for_password",
];

/// How long a legacy session may sit idle before it is dropped; longer than the longest question.
const SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(20 * 60);

/// How the server is set up. The default suits local use and tests.
#[derive(Clone, Default)]
pub struct Options {
    /// `Host` header values accepted (DNS-rebinding protection). `None`: loopback only (`localhost`,
    /// `127.0.0.1`, `::1`, any port). `Some(vec![])`: any host.
    pub allowed_hosts: Option<Vec<String>>,
    /// Answer 2026-07-28 requests with one `application/json` body instead of an SSE stream.
    /// Legacy `tools/call` responses are SSE either way (elicitation needs the stream).
    pub json_response: bool,
    /// The key that seals `requestState`, at least 32 bytes. `None`: a random key per server, so
    /// states only verify on the process that issued them.
    pub request_state_key: Option<Vec<u8>>,
    /// Speak only 2025-11-25 and 2025-06-18, like a server that predates 2026-07-28: any request
    /// carrying a 2026-07-28 signal (`server/discover`, `MCP-Protocol-Version: 2026-07-28`,
    /// `params._meta["io.modelcontextprotocol/protocolVersion"]`) gets HTTP 400 with JSON-RPC error
    /// -32000, never one of the modern errors, so a dual-generation client falls back to
    /// `initialize`. See [`legacy_only`].
    pub legacy_only: bool,
}

impl std::fmt::Debug for Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("allowed_hosts", &self.allowed_hosts)
            .field("json_response", &self.json_response)
            .field("request_state_key", &self.request_state_key.as_ref().map(|_| "<redacted>"))
            .field("legacy_only", &self.legacy_only)
            .finish()
    }
}

fn random_key() -> Vec<u8> {
    // Two v4 UUIDs: 244 random bits from the OS generator.
    [uuid::Uuid::new_v4(), uuid::Uuid::new_v4()].iter().flat_map(|id| id.into_bytes()).collect()
}

/// The [`DemoServer`] handler for `options`, for use with any rmcp transport.
pub fn handler(options: &Options) -> io::Result<DemoServer> {
    let key = options.request_state_key.clone().unwrap_or_else(random_key);
    let codec =
        RequestStateCodec::try_new(key).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    Ok(DemoServer::new(codec))
}

/// The MCP endpoint as an axum router (route [`MCP_PATH`]), with default [`Options`]. Its legacy
/// sessions live until they are deleted or idle; use [`router_with`] to end them on shutdown.
pub fn router() -> axum::Router {
    router_with(&Options::default(), CancellationToken::new()).expect("default options are valid")
}

/// The MCP endpoint as an axum router. Cancelling `shutdown` ends every legacy session and open
/// stream, so a graceful HTTP shutdown does not wait on them.
pub fn router_with(options: &Options, shutdown: CancellationToken) -> io::Result<axum::Router> {
    let handler = handler(options)?;
    let mut config = StreamableHttpServerConfig::default()
        .with_json_response(options.json_response)
        .with_cancellation_token(shutdown);
    if let Some(hosts) = &options.allowed_hosts {
        config = if hosts.is_empty() {
            config.disable_allowed_hosts()
        } else {
            config.with_allowed_hosts(hosts.iter().cloned())
        };
    }
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(SESSION_IDLE_TIMEOUT);
    let sessions = call_streams::DemoSessions::new(sessions);
    let service = StreamableHttpService::new(move || Ok(handler.clone()), sessions.into(), config);
    let router = axum::Router::new().nest_service(MCP_PATH, service);
    Ok(if options.legacy_only {
        router.layer(axum::middleware::from_fn(legacy_only::refuse_modern))
    } else {
        router
    })
}

/// Serves the MCP endpoint on `listener` with default [`Options`] until the returned future is
/// dropped (which also ends the sessions) or fails.
pub async fn serve(listener: TcpListener) -> io::Result<()> {
    serve_with(listener, Options::default(), CancellationToken::new()).await
}

/// Serves the MCP endpoint on `listener` until `shutdown` is cancelled (then shuts down
/// gracefully: sessions and streams are ended, in-flight responses finish) or the future is dropped.
pub async fn serve_with(
    listener: TcpListener,
    options: Options,
    shutdown: CancellationToken,
) -> io::Result<()> {
    let stop = shutdown.child_token();
    // Dropping this future (or returning) ends the sessions too.
    let _stop_on_drop = stop.clone().drop_guard();
    let router = router_with(&options, stop.clone())?;
    axum::serve(listener, router.into_make_service()).with_graceful_shutdown(stop.cancelled_owned()).await
}

/// Starts serving on `listener` in a background task. Must be called inside a Tokio runtime.
pub fn spawn(listener: TcpListener, options: Options) -> io::Result<DemoServerHandle> {
    let addr = listener.local_addr()?;
    // Fail early on bad options rather than in the task.
    handler(&options)?;
    let shutdown = CancellationToken::new();
    let task = tokio::spawn(serve_with(listener, options, shutdown.clone()));
    Ok(DemoServerHandle { addr, shutdown, task: Some(task) })
}

/// A server started by [`spawn`]. Dropping it stops the server without waiting.
#[derive(Debug)]
pub struct DemoServerHandle {
    addr: SocketAddr,
    shutdown: CancellationToken,
    task: Option<JoinHandle<io::Result<()>>>,
}

impl DemoServerHandle {
    /// The address the server listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The MCP endpoint's URL, e.g. `http://127.0.0.1:3901/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}{MCP_PATH}", self.addr)
    }

    /// A token that stops the server when cancelled.
    pub fn shutdown_token(&self) -> CancellationToken {
        self.shutdown.clone()
    }

    /// Stops the server gracefully and waits until it has.
    pub async fn shutdown(mut self) -> io::Result<()> {
        self.shutdown.cancel();
        match self.task.take() {
            Some(task) => task.await.map_err(io::Error::other)?,
            None => Ok(()),
        }
    }
}

impl Drop for DemoServerHandle {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}
