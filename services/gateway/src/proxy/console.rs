//! Requests Herald makes itself for a signed-in member, through the same
//! path an agent's take: the dashboard's "try a tool" console (the member's
//! own link, so the server's questions reach the member's inbox and the
//! org's policy applies), and an admin's connection test (a fresh link,
//! closed afterwards).

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use herald_mcp::transport::{Reply, TransportError};
use herald_mcp::{Message, RequestId};
use reqwest::header::HeaderMap;
use serde::Serialize;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use super::CallContext;
use super::call::{self, Down};
use super::diagnosis::Diagnosis;
use super::meta::{RawObject, raw};
use super::upstream::{Link, LinkOptions, ModernMiss, Unchosen};
use crate::app::AppState;
use crate::storage::Server;

/// The longest a console call may run: long enough for a person to answer
/// every question the server asks, short enough not to hold a socket forever.
pub const CONSOLE_CALL_LIMIT: Duration = Duration::from_secs(15 * 60);

/// Ids of the console's own requests; unique per process, which is all the
/// relay needs (they never reach an agent).
static NEXT_ID: AtomicI64 = AtomicI64::new(1);

/// Who is asking, in which org.
pub struct ConsoleCaller {
    pub org_id: Uuid,
    pub org_slug: String,
    pub user_id: Uuid,
}

/// How a console request ended, when it did not end with a result.
#[derive(Debug)]
pub enum ConsoleError {
    /// The server (or Herald on its behalf) answered with a JSON-RPC error.
    Rpc { code: i64, message: String },
    /// Nothing came back in time.
    TimedOut,
}

/// Sends `method` with `params` to `server` as `member`, and waits for the
/// final response. Dropping the future (the browser went away) ends the call
/// and withdraws whatever it was asking, as an agent's disconnect does.
pub async fn request(
    state: &AppState,
    member: &ConsoleCaller,
    server: Server,
    method: &str,
    params: Value,
) -> Result<Value, ConsoleError> {
    let mut ctx = CallContext::new(state, member.org_id, &member.org_slug, member.user_id, server).await;
    let link = state.proxy.shared_link(&ctx).await.map_err(rpc_error)?;
    let params = RawObject::parse(Some(&raw(&params)))
        .map_err(|e| ConsoleError::Rpc { code: herald_mcp::jsonrpc::INVALID_PARAMS, message: e })?;
    ctx.tool = herald_mcp::headers::name_param(method).and_then(|key| params.string(key));
    let request = call::Request {
        id: RequestId::Integer(NEXT_ID.fetch_add(1, Ordering::Relaxed)),
        method: method.to_owned(),
        params,
        agent_info: Some(console_info()),
        headers: HeaderMap::new(),
        agent: super::era::AgentEra::Console,
    };
    let (tx, mut rx) = mpsc::channel::<Down>(32);
    let cancel = CancellationToken::new();
    // Cancelled when this future is dropped, so the relay ends its questions.
    let _cancel_on_drop = cancel.clone().drop_guard();
    tokio::spawn(async move { call::run(&ctx, link, &request, &tx, &cancel, false).await });
    let wait = async {
        while let Some(item) = rx.recv().await {
            match item {
                Down::Message(Message::Response { result, .. }) => {
                    return Ok(serde_json::from_str(result.get()).unwrap_or(Value::Null));
                }
                Down::Message(message @ Message::Error { .. }) => return Err(rpc_error(message)),
                // The console asks no agent anything: it is never parked.
                Down::Park(_) => {
                    return Err(ConsoleError::Rpc {
                        code: herald_mcp::jsonrpc::INTERNAL_ERROR,
                        message: "the call needs an agent's answer, which the console cannot give".into(),
                    });
                }
                // Progress, log notifications and keep-alives: the console only shows the result.
                Down::Message(_) | Down::KeepAlive | Down::Commit => {}
            }
        }
        Err(ConsoleError::Rpc {
            code: herald_mcp::jsonrpc::INTERNAL_ERROR,
            message: "the call ended without a response".into(),
        })
    };
    tokio::time::timeout(CONSOLE_CALL_LIMIT, wait).await.unwrap_or(Err(ConsoleError::TimedOut))
}

/// What Herald tells a server about the console, in place of an agent's clientInfo.
fn console_info() -> Value {
    json!({ "name": "herald-console", "title": "Herald dashboard console", "version": env!("CARGO_PKG_VERSION") })
}

fn rpc_error(message: Message) -> ConsoleError {
    match message {
        Message::Error { error, .. } => ConsoleError::Rpc { code: error.code, message: error.message },
        _ => ConsoleError::Rpc {
            code: herald_mcp::jsonrpc::INTERNAL_ERROR,
            message: "unexpected reply from the upstream server".into(),
        },
    }
}

/// What a connection test found.
#[derive(Debug, Serialize)]
pub struct ConnectionReport {
    pub ok: bool,
    /// The registry's era setting for the server (`auto`, `2025-11-25`, `2026-07-28`).
    pub protocol_setting: crate::domain::ServerProtocol,
    /// What the server answered in each era, whatever the setting.
    pub eras: Vec<EraReport>,
    /// The era Herald speaks to it under the setting:
    /// `modern` (2026-07-28) or `legacy` (2025-11-25 and earlier).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generation: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    /// The server's self-description, as data (never rendered as markup).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_info: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_count: Option<usize>,
    pub elapsed_ms: u64,
    /// Why the test failed, as a stable category (`refused`, `timeout`, `tls`, …: see `diagnosis`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<&'static str>,
    /// A fixed sentence for people; never the OS's or TLS library's words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One era of the protocol, as a connection test found the server in it.
#[derive(Debug, Clone, Serialize)]
pub struct EraReport {
    /// `2025-11-25` (an `initialize` handshake) or `2026-07-28` (`server/discover`).
    pub era: &'static str,
    pub offered: bool,
    /// The revision the server agreed to, when offered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    /// Why not, when not offered: a category (as the report's) and a fixed sentence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl EraReport {
    fn offered(era: &'static str, protocol_version: String) -> Self {
        EraReport {
            era,
            offered: true,
            protocol_version: Some(protocol_version),
            category: None,
            detail: None,
        }
    }

    fn missing(era: &'static str, why: Diagnosis) -> Self {
        EraReport {
            era,
            offered: false,
            protocol_version: None,
            category: Some(why.category),
            detail: Some(why.message),
        }
    }
}

/// Connects to `server` afresh (its registered URL and headers) in both eras,
/// lists its tools in the era its setting picks, and closes the connections.
/// For a server that acts as each person, the test uses the tester's own connection when they
/// have one (`person_token`), and shows the server's refusal when they have not.
pub async fn test_connection(
    state: &AppState,
    org_slug: &str,
    server: &Server,
    person_token: Option<&str>,
) -> ConnectionReport {
    let started = Instant::now();
    let failed = |eras: Vec<EraReport>, why: Diagnosis| ConnectionReport {
        ok: false,
        protocol_setting: server.protocol,
        eras,
        generation: None,
        protocol_version: None,
        server_info: None,
        tool_count: None,
        elapsed_ms: elapsed_ms(started),
        category: Some(why.category),
        error: Some(why.message),
    };
    let endpoint = match state.proxy.endpoint(state, org_slug, server, person_token) {
        Ok(endpoint) => endpoint,
        Err(message) => return failed(Vec::new(), Diagnosis::of_refusal(&message)),
    };
    // URL mode is irrelevant to a test: declare the most a server could want.
    let options = LinkOptions {
        url_mode: true,
        protocol: server.protocol,
        handshake: state.config.upstream.handshake,
        ..LinkOptions::default()
    };
    let probes = match tokio::time::timeout(TEST_LIMIT, Link::probe(endpoint, options)).await {
        Ok(probes) => probes,
        Err(_) => return failed(Vec::new(), Diagnosis::timed_out(TEST_LIMIT)),
    };
    // What each era answered, in Herald's fixed words (never the server's or the system's).
    let (legacy_era, modern_era) =
        (herald_mcp::jsonrpc::PROTOCOL_VERSION_2025_11_25, herald_mcp::jsonrpc::PROTOCOL_VERSION_2026_07_28);
    let eras = vec![
        match &probes.legacy {
            Ok(legacy) => EraReport::offered(legacy_era, legacy.protocol_version().await),
            Err(e) => EraReport::missing(legacy_era, Diagnosis::of_transport(e)),
        },
        match &probes.modern {
            Ok(_) => EraReport::offered(modern_era, modern_era.to_owned()),
            Err(ModernMiss::Transport(e)) => EraReport::missing(modern_era, Diagnosis::of_transport(e)),
            Err(ModernMiss::NotModern(_)) => EraReport::missing(modern_era, Diagnosis::not_modern()),
        },
    ];
    let link = match probes.choose(server.protocol).await {
        Ok(link) => link,
        // Unreachable is said as such; a server that answered, but in no era it is
        // set to, gets Herald's words on that.
        Err(Unchosen {
            cause: Some(e @ (TransportError::Connect(_) | TransportError::Timeout(_))), ..
        }) => {
            return failed(eras, Diagnosis::of_transport(&e));
        }
        Err(Unchosen { why, cause }) => {
            let category = cause.as_ref().map_or("not_mcp", |e| Diagnosis::of_transport(e).category);
            return failed(eras, Diagnosis::unchosen(category, why));
        }
    };
    let (_, server_info, _) = link.server_description().await;
    let (generation, protocol_version) = match link.as_ref() {
        Link::Modern(_) => ("modern", herald_mcp::jsonrpc::PROTOCOL_VERSION_2026_07_28.to_owned()),
        Link::Legacy(l) => ("legacy", l.protocol_version().await),
    };
    let tools = tokio::time::timeout(TEST_LIMIT, list_tools_once(&link)).await;
    if let Link::Legacy(l) = link.as_ref() {
        l.close().await;
    }
    let base = |tool_count: Option<usize>, error: Option<Diagnosis>| ConnectionReport {
        ok: error.is_none(),
        protocol_setting: server.protocol,
        eras: eras.clone(),
        generation: Some(generation),
        protocol_version: Some(protocol_version.clone()),
        server_info: Some(server_info.clone()),
        tool_count,
        elapsed_ms: elapsed_ms(started),
        category: error.as_ref().map(|e| e.category),
        error: error.map(|e| e.message),
    };
    match tools {
        Ok(Ok(count)) => base(Some(count), None),
        Ok(Err(e)) => base(None, Some(Diagnosis::tools_list(&e))),
        Err(_) => base(
            None,
            Some(Diagnosis::tools_list(&format!("no answer within {} seconds", TEST_LIMIT.as_secs()))),
        ),
    }
}

/// How long each step of a connection test may take.
const TEST_LIMIT: Duration = Duration::from_secs(10);

fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// One page of tools/list on a bare link (no person, no policy: a test
/// asks nothing of anyone).
async fn list_tools_once(link: &Arc<Link>) -> Result<usize, String> {
    let reply = match link.as_ref() {
        Link::Modern(m) => {
            m.post(
                m.next_id(),
                "tools/list",
                RawObject::default(),
                None,
                Default::default(),
                &HeaderMap::new(),
            )
            .await
        }
        Link::Legacy(l) => l.post(&Message::request(l.next_id(), "tools/list", Some(raw(&json!({}))))).await,
    }
    .map_err(|e| e.to_string())?;
    let message = match reply {
        Reply::Message(message) => message,
        Reply::Stream(mut stream) => loop {
            match stream.next().await {
                Some(Ok(message @ (Message::Response { .. } | Message::Error { .. }))) => break message,
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(e.to_string()),
                None => return Err("the server closed the stream without answering".into()),
            }
        },
        Reply::Accepted => return Err("the server accepted the request but never answered it".into()),
    };
    match message {
        Message::Response { result, .. } => {
            let result: Value = serde_json::from_str(result.get()).map_err(|e| e.to_string())?;
            Ok(result.get("tools").and_then(Value::as_array).map_or(0, Vec::len))
        }
        Message::Error { error, .. } => Err(error.message),
        _ => Err("unexpected reply".into()),
    }
}
