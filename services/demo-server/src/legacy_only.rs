//! [`Options::legacy_only`](crate::Options::legacy_only): the endpoint behaves like a server that
//! speaks only 2025-11-25 and 2025-06-18, as most servers in the wild still do.
//!
//! rmcp 3.11 has no switch for that (its Streamable HTTP service always routes 2026-07-28 requests
//! to its stateless path), so this middleware sits in front of it and refuses every request that
//! carries a 2026-07-28 signal, the way the TypeScript SDK's servers refuse what they do not know:
//! HTTP 400 with JSON-RPC error -32000, none of the modern codes (-32020, -32021, -32022). A
//! dual-generation client reads that as "legacy" and falls back to `initialize`, which passes
//! through untouched, as does everything in a legacy session.
//!
//! A 2026-07-28 signal is any of: the method `server/discover`; an `MCP-Protocol-Version` header
//! naming a revision after 2025-11-25; `params._meta["io.modelcontextprotocol/protocolVersion"]`.

use axum::{
    body::{Body, Bytes},
    extract::Request,
    http::{HeaderMap, Method, StatusCode, header},
    middleware::Next,
    response::{IntoResponse, Response},
};
use serde_json::{Value, json};

/// The revisions a legacy-only server answers to, newest first (as the TypeScript SDK lists them).
pub const LEGACY_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The JSON-RPC error code the TypeScript SDK's servers use for these refusals.
pub const REFUSAL_CODE: i64 = -32000;

/// The refusal of a request without a session that is not `initialize`, word for word what the
/// TypeScript SDK's example servers (and `server-everything`) answer.
pub const NO_SESSION_MESSAGE: &str = "Bad Request: No valid session ID provided";

const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const MCP_PROTOCOL_VERSION: &str = "mcp-protocol-version";
const MCP_SESSION_ID: &str = "mcp-session-id";
/// As rmcp's own limit: larger bodies are refused before they are read.
const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

fn refusal(id: Value, message: String) -> Response {
    let body = json!({ "jsonrpc": "2.0", "error": { "code": REFUSAL_CODE, "message": message }, "id": id });
    (StatusCode::BAD_REQUEST, [(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

fn unsupported_version(version: &str) -> String {
    format!(
        "Bad Request: Unsupported protocol version: {version} (supported versions: {})",
        LEGACY_VERSIONS.join(", ")
    )
}

/// The refusal for a request in a legacy session that speaks 2026-07-28 anyway, or for one without
/// a session.
fn refuse(headers: &HeaderMap, id: Value, why: String) -> Response {
    if headers.contains_key(MCP_SESSION_ID) {
        refusal(id, why)
    } else {
        refusal(Value::Null, NO_SESSION_MESSAGE.into())
    }
}

/// The axum middleware. Install it only when the option is set.
pub async fn refuse_modern(request: Request, next: Next) -> Response {
    let version =
        request.headers().get(MCP_PROTOCOL_VERSION).map(|v| v.to_str().unwrap_or("(not UTF-8)").to_owned());
    if let Some(version) = version.as_deref()
        && !LEGACY_VERSIONS.contains(&version)
    {
        return refuse(request.headers(), Value::Null, unsupported_version(version));
    }
    if request.method() != Method::POST {
        return next.run(request).await;
    }

    let (parts, body) = request.into_parts();
    let bytes: Bytes = match axum::body::to_bytes(body, MAX_BODY_BYTES).await {
        Ok(bytes) => bytes,
        Err(_) => return (StatusCode::PAYLOAD_TOO_LARGE, "Payload Too Large").into_response(),
    };
    // What does not parse is rmcp's to refuse.
    if let Ok(message) = serde_json::from_slice::<Value>(&bytes) {
        let method = message.get("method").and_then(Value::as_str);
        let id = message.get("id").cloned().unwrap_or(Value::Null);
        let meta_version = message.pointer("/params/_meta").and_then(|meta| meta.get(META_PROTOCOL_VERSION));
        if method == Some("server/discover") {
            let why = format!(
                "Bad Request: server/discover is not supported (supported versions: {})",
                LEGACY_VERSIONS.join(", ")
            );
            return refuse(&parts.headers, id, why);
        }
        if method != Some("initialize")
            && let Some(meta_version) = meta_version
        {
            let version = meta_version.as_str().unwrap_or("(not a string)");
            return refuse(&parts.headers, id, unsupported_version(version));
        }
    }
    next.run(Request::from_parts(parts, Body::from(bytes))).await
}
