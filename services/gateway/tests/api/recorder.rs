//! Upstream stand-ins that record what reaches them: every connection and
//! every request with its headers. For the tests of what Herald must never
//! send (stored credentials to a new host) or never connect to (addresses the
//! egress policy refuses).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::any;
use axum::serve::ListenerExt;

/// One request as the recorder saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub headers: HeaderMap,
}

/// An HTTP server on loopback that answers every request alike and keeps
/// what it saw.
pub struct Recorder {
    /// `http://127.0.0.1:<port>`
    pub base: String,
    pub port: u16,
    connections: Arc<AtomicUsize>,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Recorder {
    /// Answers `status` with `content_type` and `body`.
    pub async fn start(status: StatusCode, content_type: &'static str, body: &'static str) -> Self {
        let connections = Arc::new(AtomicUsize::new(0));
        let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
        let app = Router::new().fallback(any({
            let seen = seen.clone();
            move |headers: HeaderMap| async move {
                seen.lock().unwrap().push(Seen { headers });
                (status, [(header::CONTENT_TYPE, content_type)], body).into_response()
            }
        }));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let counted = connections.clone();
        let listener = listener.tap_io(move |_| {
            counted.fetch_add(1, Ordering::SeqCst);
        });
        tokio::spawn(async move { axum::serve(listener, app).await });
        Recorder { base: format!("http://127.0.0.1:{port}"), port, connections, seen }
    }

    /// Not an MCP server: every path is 404.
    pub async fn not_found() -> Self {
        Self::start(StatusCode::NOT_FOUND, "text/plain", "not found").await
    }

    /// A web page where an MCP endpoint was expected.
    pub async fn web_page() -> Self {
        Self::start(StatusCode::OK, "text/html", "<html><body>nginx welcome page</body></html>").await
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// TCP connections accepted so far.
    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    pub fn requests(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    /// Whether any request carried a header whose value contains `needle`.
    pub fn received(&self, needle: &str) -> bool {
        self.requests()
            .iter()
            .any(|r| r.headers.values().any(|v| v.to_str().is_ok_and(|v| v.contains(needle))))
    }
}

/// A port on loopback where nothing listens: bound, never listened on, and kept bound for
/// the rest of the test run (a port let go could be handed to a test running beside this one,
/// which would then answer).
pub fn closed_port() -> u16 {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let port = socket.local_addr().unwrap().port();
    std::mem::forget(socket);
    port
}

/// A server that accepts connections and never says a word.
pub async fn silent_server() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    port
}
