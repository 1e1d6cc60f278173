//! HTTP headers of the Streamable HTTP transport, and the `_meta` keys that
//! 2026-07-28 requests carry instead of an `initialize` handshake.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

pub const MCP_PROTOCOL_VERSION: &str = "mcp-protocol-version";
pub const MCP_SESSION_ID: &str = "mcp-session-id";
pub const MCP_METHOD: &str = "mcp-method";
pub const MCP_NAME: &str = "mcp-name";
/// Prefix of headers mirrored from tool parameters marked `x-mcp-header`.
pub const MCP_PARAM_PREFIX: &str = "mcp-param-";
pub const ACCEPT_BOTH: &str = "application/json, text/event-stream";

pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

const SENTINEL_START: &str = "=?base64?";
const SENTINEL_END: &str = "?=";

/// The value for `Mcp-Name` or `Mcp-Param-*`: as is when it is plain,
/// header-safe ASCII, otherwise in the `=?base64?…?=` sentinel form.
pub fn encode_header_value(value: &str) -> String {
    let plain = !value.is_empty()
        && value.bytes().all(|b| b == b' ' || b == b'\t' || (0x21..=0x7e).contains(&b))
        && value.trim() == value
        && !(value.starts_with(SENTINEL_START) && value.ends_with(SENTINEL_END));
    if plain { value.to_owned() } else { format!("{SENTINEL_START}{}{SENTINEL_END}", STANDARD.encode(value)) }
}

/// Reads a header value that may be in the sentinel form; `None` when the
/// sentinel's content is not valid base64 of UTF-8.
pub fn decode_header_value(raw: &str) -> Option<String> {
    match raw.strip_prefix(SENTINEL_START).and_then(|r| r.strip_suffix(SENTINEL_END)) {
        Some(encoded) => String::from_utf8(STANDARD.decode(encoded).ok()?).ok(),
        None => Some(raw.to_owned()),
    }
}

/// The request methods whose `Mcp-Name` header is required, and the param it mirrors.
pub fn name_param(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_values_stay_plain_and_others_use_the_sentinel() {
        assert_eq!(encode_header_value("get_weather"), "get_weather");
        assert_eq!(encode_header_value("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
        assert_eq!(encode_header_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(encode_header_value("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
        assert_eq!(encode_header_value("=?base64?literal?="), "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
        for value in ["get_weather", "Hello, 世界", " padded ", "=?base64?literal?="] {
            assert_eq!(decode_header_value(&encode_header_value(value)).unwrap(), value);
        }
        assert_eq!(decode_header_value("=?base64?not base64!?="), None);
    }
}
