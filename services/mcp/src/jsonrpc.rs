//! JSON-RPC 2.0 envelopes, as a proxy needs them.
//!
//! [`Message::parse`] classifies one incoming message (bytes) into a request,
//! notification, response or error response. Everything Herald does not own
//! (`params`, `result`, `error.data`) stays a [`RawValue`]: the exact bytes
//! received, so it can be passed on untouched (a modern `requestState` inside
//! them survives byte for byte). Unknown top-level members are ignored.
//!
//! Classification, and what is rejected ([`MessageError`]):
//!
//! - not JSON → [`MessageError::Parse`] (code [`PARSE_ERROR`]);
//! - a JSON array → [`MessageError::Batch`]: batching was removed in MCP
//!   2025-06-18, one message per POST;
//! - anything else that is not an object, a missing or wrong `"jsonrpc": "2.0"`,
//!   a duplicated member, a non-string `method`, `method` together with
//!   `result`/`error`, both `result` and `error`, neither `method`, `result`
//!   nor `error`, an `id` that is not a string or an integer (MCP forbids a
//!   `null` id on requests and responses), scalar `params`, or a malformed
//!   `error` object → [`MessageError::Invalid`] (code [`INVALID_REQUEST`]),
//!   carrying the `id` when one could be read so the caller can answer it.
//!
//! `"params": null` is read as absent (some clients send it). An error
//! response may have a `null` (or no) id, as JSON-RPC prescribes when the id
//! of the failed request could not be determined.

use std::fmt;

use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

/// The `jsonrpc` member every message carries.
pub const JSONRPC_VERSION: &str = "2.0";

/// Invalid JSON.
pub const PARSE_ERROR: i64 = -32700;
/// Not a valid JSON-RPC message.
pub const INVALID_REQUEST: i64 = -32600;
/// Unknown method.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// Invalid params (also: an elicitation mode the client did not declare).
pub const INVALID_PARAMS: i64 = -32602;
/// Internal error.
pub const INTERNAL_ERROR: i64 = -32603;
/// URL elicitation required before a retry (2025-11-25 only).
pub const URL_ELICITATION_REQUIRED: i64 = -32042;
/// HTTP headers disagree with the body (2026-07-28).
pub const HEADER_MISMATCH: i64 = -32020;
/// A required client capability was not declared (2026-07-28).
pub const MISSING_CLIENT_CAPABILITY: i64 = -32021;
/// Unsupported protocol version (2026-07-28).
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// MCP 2025-06-18: elicitation introduced (legacy generation).
pub const PROTOCOL_VERSION_2025_06_18: &str = "2025-06-18";
/// MCP 2025-11-25: URL mode, richer enums, defaults (legacy generation).
pub const PROTOCOL_VERSION_2025_11_25: &str = "2025-11-25";
/// MCP 2026-07-28: stateless, elicitation by retry (modern generation).
pub const PROTOCOL_VERSION_2026_07_28: &str = "2026-07-28";
/// The newest revision Herald speaks.
pub const LATEST_PROTOCOL_VERSION: &str = PROTOCOL_VERSION_2026_07_28;
/// Every revision Herald speaks, newest first.
pub const SUPPORTED_PROTOCOL_VERSIONS: [&str; 3] =
    [PROTOCOL_VERSION_2026_07_28, PROTOCOL_VERSION_2025_11_25, PROTOCOL_VERSION_2025_06_18];

/// The two generations of the protocol (see `mcp-notes.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProtocolGeneration {
    /// 2025-06-18 and 2025-11-25: `initialize`, sessions, pushed elicitation.
    Legacy,
    /// 2026-07-28: stateless, `_meta` on every request, `input_required` results.
    Modern,
}

impl ProtocolGeneration {
    /// The generation of one of [`SUPPORTED_PROTOCOL_VERSIONS`]; `None` for
    /// any other string (older revisions have no elicitation at all).
    pub fn of(version: &str) -> Option<ProtocolGeneration> {
        match version {
            PROTOCOL_VERSION_2025_06_18 | PROTOCOL_VERSION_2025_11_25 => Some(ProtocolGeneration::Legacy),
            PROTOCOL_VERSION_2026_07_28 => Some(ProtocolGeneration::Modern),
            _ => None,
        }
    }

    /// Its name: `legacy` or `modern`.
    pub fn as_str(self) -> &'static str {
        match self {
            ProtocolGeneration::Legacy => "legacy",
            ProtocolGeneration::Modern => "modern",
        }
    }

    /// The generation `s` names (`legacy` or `modern`), if any.
    pub fn parse(s: &str) -> Option<ProtocolGeneration> {
        [ProtocolGeneration::Legacy, ProtocolGeneration::Modern].into_iter().find(|g| g.as_str() == s)
    }
}

impl std::fmt::Display for ProtocolGeneration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A request id: a string or an integer, kept as sent (`1` and `"1"` differ).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    /// A JSON integer.
    Integer(i64),
    /// A JSON string.
    String(String),
}

impl RequestId {
    /// Reads an id from JSON; `None` unless it is a string or an integer that
    /// fits `i64`.
    pub fn from_value(v: &Value) -> Option<RequestId> {
        match v {
            Value::String(s) => Some(RequestId::String(s.clone())),
            Value::Number(n) => n.as_i64().map(RequestId::Integer),
            _ => None,
        }
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId::Integer(n)
    }
}

impl From<String> for RequestId {
    fn from(s: String) -> Self {
        RequestId::String(s)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::String(s.to_owned())
    }
}

/// Displays the id as JSON: `7` or `"seven"`, so the two kinds stay distinct.
impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Integer(n) => write!(f, "{n}"),
            RequestId::String(s) => {
                write!(f, "{}", Value::String(s.clone()))
            }
        }
    }
}

/// The `error` member of an error response.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ErrorObject {
    /// The error code (see the consts in this module).
    pub code: i64,
    /// A short description.
    pub message: String,
    /// Extra data, passed through as received.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Box<RawValue>>,
}

impl ErrorObject {
    /// An error without data.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        Self { code, message: message.into(), data: None }
    }

    /// The same error with `data`.
    pub fn with_data(mut self, data: Box<RawValue>) -> Self {
        self.data = Some(data);
        self
    }
}

/// One JSON-RPC message.
///
/// Serializes back to a complete message with `"jsonrpc": "2.0"`; raw parts
/// are written exactly as held.
#[derive(Debug, Clone)]
pub enum Message {
    /// A request: has `method` and `id`.
    Request {
        /// The request id.
        id: RequestId,
        /// The method name.
        method: String,
        /// The params, as received (an object or array), if any.
        params: Option<Box<RawValue>>,
    },
    /// A notification: has `method`, no `id`.
    Notification {
        /// The method name.
        method: String,
        /// The params, as received (an object or array), if any.
        params: Option<Box<RawValue>>,
    },
    /// A success response.
    Response {
        /// The id of the request answered.
        id: RequestId,
        /// The result, as received.
        result: Box<RawValue>,
    },
    /// An error response.
    Error {
        /// The id of the request answered; `None` when it was `null` or absent.
        id: Option<RequestId>,
        /// The error.
        error: ErrorObject,
    },
}

/// Why an incoming message was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MessageError {
    /// Not JSON at all.
    #[error("parse error: {0}")]
    Parse(String),
    /// A JSON array (a batch).
    #[error(
        "batch messages are not supported: JSON-RPC batching was removed in MCP 2025-06-18, send one message per request"
    )]
    Batch,
    /// JSON, but not a valid JSON-RPC 2.0 message.
    #[error("invalid JSON-RPC message: {reason}")]
    Invalid {
        /// The message's id, when it could be read.
        id: Option<RequestId>,
        /// What is wrong.
        reason: String,
    },
}

impl MessageError {
    /// The JSON-RPC error code to answer with.
    pub fn code(&self) -> i64 {
        match self {
            MessageError::Parse(_) => PARSE_ERROR,
            MessageError::Batch | MessageError::Invalid { .. } => INVALID_REQUEST,
        }
    }

    /// The id to answer with (JSON-RPC says `null` when unknown).
    pub fn id(&self) -> Option<&RequestId> {
        match self {
            MessageError::Invalid { id, .. } => id.as_ref(),
            _ => None,
        }
    }

    /// The error response to send back for this error.
    pub fn to_response(&self) -> Message {
        Message::Error { id: self.id().cloned(), error: ErrorObject::new(self.code(), self.to_string()) }
    }
}

impl Message {
    /// Parses and classifies one message from its bytes.
    pub fn parse(bytes: &[u8]) -> Result<Message, MessageError> {
        let raw: &RawValue = serde_json::from_slice(bytes).map_err(|e| MessageError::Parse(e.to_string()))?;
        let text = raw.get();
        match text.as_bytes().first() {
            Some(b'[') => return Err(MessageError::Batch),
            Some(b'{') => {}
            _ => {
                return Err(MessageError::Invalid {
                    id: None,
                    reason: "a message must be a JSON object".to_owned(),
                });
            }
        }
        let env: Envelope = serde_json::from_str(text)
            .map_err(|e| MessageError::Invalid { id: None, reason: e.to_string() })?;
        env.classify()
    }

    /// Parses and classifies a message already held as a `Value`.
    pub fn from_value(v: &Value) -> Result<Message, MessageError> {
        let bytes = serde_json::to_vec(v).map_err(|e| MessageError::Parse(e.to_string()))?;
        Message::parse(&bytes)
    }

    /// A request.
    pub fn request(id: RequestId, method: impl Into<String>, params: Option<Box<RawValue>>) -> Self {
        Message::Request { id, method: method.into(), params }
    }

    /// A notification.
    pub fn notification(method: impl Into<String>, params: Option<Box<RawValue>>) -> Self {
        Message::Notification { method: method.into(), params }
    }

    /// A success response.
    pub fn response(id: RequestId, result: Box<RawValue>) -> Self {
        Message::Response { id, result }
    }

    /// An error response.
    pub fn error(id: Option<RequestId>, code: i64, message: impl Into<String>) -> Self {
        Message::Error { id, error: ErrorObject::new(code, message) }
    }

    /// The id of a request or response.
    pub fn id(&self) -> Option<&RequestId> {
        match self {
            Message::Request { id, .. } | Message::Response { id, .. } => Some(id),
            Message::Error { id, .. } => id.as_ref(),
            Message::Notification { .. } => None,
        }
    }

    /// The method of a request or notification.
    pub fn method(&self) -> Option<&str> {
        match self {
            Message::Request { method, .. } | Message::Notification { method, .. } => Some(method),
            _ => None,
        }
    }

    /// The params of a request or notification.
    pub fn params(&self) -> Option<&RawValue> {
        match self {
            Message::Request { params, .. } | Message::Notification { params, .. } => params.as_deref(),
            _ => None,
        }
    }

    /// The message as compact JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a Message always serializes")
    }
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("jsonrpc", JSONRPC_VERSION)?;
        match self {
            Message::Request { id, method, params } => {
                m.serialize_entry("id", id)?;
                m.serialize_entry("method", method)?;
                if let Some(p) = params {
                    m.serialize_entry("params", p)?;
                }
            }
            Message::Notification { method, params } => {
                m.serialize_entry("method", method)?;
                if let Some(p) = params {
                    m.serialize_entry("params", p)?;
                }
            }
            Message::Response { id, result } => {
                m.serialize_entry("id", id)?;
                m.serialize_entry("result", result)?;
            }
            Message::Error { id, error } => {
                m.serialize_entry("id", id)?;
                m.serialize_entry("error", error)?;
            }
        }
        m.end()
    }
}

/// The top-level members, each kept raw; `Some` means "present" (even when
/// the value is `null`).
#[derive(Default)]
struct Envelope {
    jsonrpc: Option<Box<RawValue>>,
    id: Option<Box<RawValue>>,
    method: Option<Box<RawValue>>,
    params: Option<Box<RawValue>>,
    result: Option<Box<RawValue>>,
    error: Option<Box<RawValue>>,
}

impl<'de> Deserialize<'de> for Envelope {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Envelope;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON-RPC message object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Envelope, A::Error> {
                let mut env = Envelope::default();
                while let Some(key) = map.next_key::<String>()? {
                    let slot = match key.as_str() {
                        "jsonrpc" => &mut env.jsonrpc,
                        "id" => &mut env.id,
                        "method" => &mut env.method,
                        "params" => &mut env.params,
                        "result" => &mut env.result,
                        "error" => &mut env.error,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                            continue;
                        }
                    };
                    if slot.is_some() {
                        return Err(de::Error::custom(format!("the member {key:?} appears more than once")));
                    }
                    *slot = Some(map.next_value::<Box<RawValue>>()?);
                }
                Ok(env)
            }
        }
        d.deserialize_map(V)
    }
}

fn to_value(raw: &RawValue) -> Value {
    serde_json::from_str(raw.get()).unwrap_or(Value::Null)
}

impl Envelope {
    fn classify(self) -> Result<Message, MessageError> {
        let id_value = self.id.as_deref().map(to_value);
        let id = id_value.as_ref().and_then(RequestId::from_value);
        let invalid = |reason: &str| MessageError::Invalid { id: id.clone(), reason: reason.to_owned() };

        match self.jsonrpc.as_deref().map(to_value) {
            None => return Err(invalid("the member \"jsonrpc\": \"2.0\" is missing")),
            Some(Value::String(v)) if v == JSONRPC_VERSION => {}
            Some(_) => return Err(invalid("\"jsonrpc\" must be \"2.0\"")),
        }

        // The id, when present, must be usable (except `null` on errors).
        let checked_id = |allow_null: bool| -> Result<Option<RequestId>, MessageError> {
            match &id_value {
                None => Ok(None),
                Some(Value::Null) if allow_null => Ok(None),
                Some(v) => match RequestId::from_value(v) {
                    Some(id) => Ok(Some(id)),
                    None => Err(invalid(&format!(
                        "\"id\" must be a string or an integer, found {}",
                        crate::elicitation::schema::describe(v)
                    ))),
                },
            }
        };

        if let Some(method) = self.method {
            let Value::String(method) = to_value(&method) else {
                return Err(invalid("\"method\" must be a string"));
            };
            if self.result.is_some() || self.error.is_some() {
                return Err(invalid("a message with \"method\" must not also carry \"result\" or \"error\""));
            }
            let params = match self.params {
                None => None,
                Some(p) => match p.get().as_bytes().first() {
                    Some(b'{') | Some(b'[') => Some(p),
                    Some(b'n') => None,
                    _ => {
                        return Err(invalid("\"params\" must be an object or an array"));
                    }
                },
            };
            return Ok(match checked_id(false)? {
                Some(id) => Message::Request { id, method, params },
                None => Message::Notification { method, params },
            });
        }

        match (self.result, self.error) {
            (Some(_), Some(_)) => {
                Err(invalid("a response must carry either \"result\" or \"error\", not both"))
            }
            (None, None) => Err(invalid(
                "a message must carry \"method\" (request or notification), \"result\" or \"error\" (response)",
            )),
            (Some(result), None) => match checked_id(false)? {
                Some(id) => Ok(Message::Response { id, result }),
                None => Err(invalid("a response must carry the \"id\" of its request")),
            },
            (None, Some(error)) => {
                let id = checked_id(true)?;
                let error: ErrorObject = serde_json::from_str(error.get()).map_err(|e| {
                    MessageError::Invalid {
                        id: id.clone(),
                        reason: format!(
                            "\"error\" must be an object with an integer \"code\" and a string \"message\": {e}"
                        ),
                    }
                })?;
                Ok(Message::Error { id, error })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(s: &str) -> Result<Message, MessageError> {
        Message::parse(s.as_bytes())
    }

    #[track_caller]
    fn invalid(s: &str, part: &str) -> MessageError {
        let e = parse(s).expect_err("should be rejected");
        match &e {
            MessageError::Invalid { reason, .. } => {
                assert!(reason.contains(part), "{reason:?} lacks {part:?}")
            }
            other => panic!("expected Invalid, got {other:?}"),
        }
        assert_eq!(e.code(), INVALID_REQUEST);
        e
    }

    #[test]
    fn codes_and_versions() {
        assert_eq!(PARSE_ERROR, -32700);
        assert_eq!(INVALID_REQUEST, -32600);
        assert_eq!(METHOD_NOT_FOUND, -32601);
        assert_eq!(INVALID_PARAMS, -32602);
        assert_eq!(INTERNAL_ERROR, -32603);
        assert_eq!(URL_ELICITATION_REQUIRED, -32042);
        assert_eq!(HEADER_MISMATCH, -32020);
        assert_eq!(MISSING_CLIENT_CAPABILITY, -32021);
        assert_eq!(UNSUPPORTED_PROTOCOL_VERSION, -32022);
        assert_eq!(ProtocolGeneration::of("2025-06-18"), Some(ProtocolGeneration::Legacy));
        assert_eq!(ProtocolGeneration::of("2025-11-25"), Some(ProtocolGeneration::Legacy));
        assert_eq!(ProtocolGeneration::of("2026-07-28"), Some(ProtocolGeneration::Modern));
        assert_eq!(ProtocolGeneration::of("2025-03-26"), None);
        assert_eq!(ProtocolGeneration::of(""), None);
        assert_eq!(ProtocolGeneration::of(" 2026-07-28"), None);
        assert_eq!(LATEST_PROTOCOL_VERSION, "2026-07-28");
        assert!(SUPPORTED_PROTOCOL_VERSIONS.iter().all(|v| ProtocolGeneration::of(v).is_some()));
    }

    #[test]
    fn request_ids_keep_their_kind() {
        let a = parse(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).unwrap();
        let b = parse(r#"{"jsonrpc":"2.0","id":"1","method":"ping"}"#).unwrap();
        assert_eq!(a.id(), Some(&RequestId::Integer(1)));
        assert_eq!(b.id(), Some(&RequestId::String("1".into())));
        assert_ne!(a.id(), b.id());
        assert_eq!(RequestId::Integer(1).to_string(), "1");
        assert_eq!(RequestId::from("1").to_string(), "\"1\"");
        assert_eq!(serde_json::to_value(RequestId::from(-3)).unwrap(), json!(-3));
        assert_eq!(serde_json::from_value::<RequestId>(json!("x")).unwrap(), RequestId::from("x"));
        assert!(serde_json::from_value::<RequestId>(json!(1.5)).is_err());
        assert!(serde_json::from_value::<RequestId>(json!(null)).is_err());
        // 0 is a real id (the TypeScript SDK starts there).
        assert_eq!(
            parse(r#"{"jsonrpc":"2.0","id":0,"method":"elicitation/create","params":{}}"#).unwrap().id(),
            Some(&RequestId::Integer(0))
        );
    }

    #[test]
    fn classifies_a_request_and_keeps_params_raw() {
        let text = r#"{"jsonrpc":"2.0","id":"a-1","method":"tools/call","params":{ "name" : "x",  "arguments":{"z":1,"a":[1.50, 2e3]}}, "extra": true}"#;
        let m = parse(text).unwrap();
        match &m {
            Message::Request { id, method, params } => {
                assert_eq!(id, &RequestId::from("a-1"));
                assert_eq!(method, "tools/call");
                assert_eq!(
                    params.as_ref().unwrap().get(),
                    r#"{ "name" : "x",  "arguments":{"z":1,"a":[1.50, 2e3]}}"#
                );
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(m.method(), Some("tools/call"));
        assert!(m.params().is_some());
        // Re-serialized, the params bytes are untouched.
        assert_eq!(
            m.to_json(),
            r#"{"jsonrpc":"2.0","id":"a-1","method":"tools/call","params":{ "name" : "x",  "arguments":{"z":1,"a":[1.50, 2e3]}}}"#
        );
    }

    #[test]
    fn classifies_notifications() {
        let m = parse(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap();
        assert!(
            matches!(&m, Message::Notification { method, params: None } if method == "notifications/initialized")
        );
        assert_eq!(m.id(), None);
        let m = parse(
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"timeout"}}"#,
        )
        .unwrap();
        assert_eq!(m.params().unwrap().get(), r#"{"requestId":3,"reason":"timeout"}"#);
        // params: null is read as absent; array params are allowed.
        let m = parse(r#"{"jsonrpc":"2.0","method":"x","params":null}"#).unwrap();
        assert!(m.params().is_none());
        let m = parse(r#"{"jsonrpc":"2.0","method":"x","params":[1]}"#).unwrap();
        assert_eq!(m.params().unwrap().get(), "[1]");
    }

    #[test]
    fn classifies_responses() {
        let m = parse(
            r#"{"jsonrpc":"2.0","id":7,"result":{"resultType":"input_required","requestState":"q w=="}}"#,
        )
        .unwrap();
        match &m {
            Message::Response { id, result } => {
                assert_eq!(id, &RequestId::Integer(7));
                assert_eq!(result.get(), r#"{"resultType":"input_required","requestState":"q w=="}"#);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(m.method(), None);
        // A null result is still a result.
        assert!(matches!(
            parse(r#"{"jsonrpc":"2.0","id":7,"result":null}"#).unwrap(),
            Message::Response { .. }
        ));
        let round = Message::response(RequestId::from("r"), RawValue::from_string("{}".into()).unwrap());
        assert_eq!(round.to_json(), r#"{"jsonrpc":"2.0","id":"r","result":{}}"#);
    }

    #[test]
    fn classifies_errors() {
        let m = parse(
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32042,"message":"URL elicitation required","data":{"elicitations":[{"mode":"url"}]}}}"#,
        )
        .unwrap();
        match &m {
            Message::Error { id, error } => {
                assert_eq!(id, &Some(RequestId::Integer(3)));
                assert_eq!(error.code, URL_ELICITATION_REQUIRED);
                assert_eq!(error.message, "URL elicitation required");
                assert_eq!(error.data.as_ref().unwrap().get(), r#"{"elicitations":[{"mode":"url"}]}"#);
            }
            other => panic!("{other:?}"),
        }
        let m = parse(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}}"#).unwrap();
        assert!(matches!(m, Message::Error { id: None, .. }));
        let m = parse(r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"bad"}}"#).unwrap();
        assert!(matches!(m, Message::Error { id: None, .. }));
        assert_eq!(
            Message::error(Some(RequestId::Integer(1)), METHOD_NOT_FOUND, "nope").to_json(),
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"nope"}}"#
        );
        assert_eq!(
            Message::error(None, PARSE_ERROR, "bad").to_json(),
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}}"#
        );
        let with_data = Message::Error {
            id: None,
            error: ErrorObject::new(INTERNAL_ERROR, "x")
                .with_data(RawValue::from_string("[1, 2]".into()).unwrap()),
        };
        assert_eq!(
            with_data.to_json(),
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"x","data":[1, 2]}}"#
        );
    }

    #[test]
    fn round_trips_notifications_and_requests() {
        let n = Message::notification(
            "notifications/progress",
            Some(RawValue::from_string(r#"{"progress":1}"#.into()).unwrap()),
        );
        assert_eq!(
            n.to_json(),
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}"#
        );
        let r = Message::request(RequestId::Integer(5), "ping", None);
        let back = Message::parse(r.to_json().as_bytes()).unwrap();
        assert_eq!(back.id(), Some(&RequestId::Integer(5)));
        assert_eq!(back.method(), Some("ping"));
    }

    #[test]
    fn from_value_classifies_too() {
        let m = Message::from_value(&json!({"jsonrpc": "2.0", "id": 2, "method": "x", "params": {"a": 1}}))
            .unwrap();
        assert_eq!(m.params().unwrap().get(), r#"{"a":1}"#);
        assert!(matches!(
            Message::from_value(&json!([{"jsonrpc": "2.0", "method": "x"}])),
            Err(MessageError::Batch)
        ));
    }

    #[test]
    fn rejects_malformed_json() {
        for bad in ["", "{", "{\"jsonrpc\":\"2.0\",}", "nul", "[1,"] {
            let e = parse(bad).unwrap_err();
            assert!(matches!(e, MessageError::Parse(_)), "{bad}: {e:?}");
            assert_eq!(e.code(), PARSE_ERROR);
            assert!(e.to_string().starts_with("parse error"));
            assert!(e.id().is_none());
        }
    }

    #[test]
    fn rejects_batches() {
        for batch in [
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#,
            "[]",
            "  [ ]",
        ] {
            let e = parse(batch).unwrap_err();
            assert_eq!(e, MessageError::Batch);
            assert_eq!(e.code(), INVALID_REQUEST);
            assert!(e.to_string().contains("batch"));
            assert!(e.to_string().contains("2025-06-18"));
        }
    }

    #[test]
    fn rejects_invalid_envelopes() {
        invalid("5", "must be a JSON object");
        invalid("\"x\"", "must be a JSON object");
        let e = invalid(r#"{"id":1,"method":"ping"}"#, "\"jsonrpc\": \"2.0\" is missing");
        assert_eq!(e.id(), Some(&RequestId::Integer(1)));
        invalid(r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#, "must be \"2.0\"");
        invalid(r#"{"jsonrpc":2.0,"id":1,"method":"ping"}"#, "must be \"2.0\"");
        let e =
            invalid(r#"{"jsonrpc":"2.0","id":"r","result":{},"error":{"code":1,"message":"m"}}"#, "not both");
        assert_eq!(e.id(), Some(&RequestId::from("r")));
        invalid(r#"{"jsonrpc":"2.0","id":1}"#, "must carry \"method\"");
        invalid(r#"{"jsonrpc":"2.0"}"#, "must carry \"method\"");
        invalid(r#"{"jsonrpc":"2.0","id":1,"method":7}"#, "\"method\" must be a string");
        invalid(r#"{"jsonrpc":"2.0","id":1,"method":"x","result":{}}"#, "must not also carry");
        invalid(r#"{"jsonrpc":"2.0","id":null,"method":"x"}"#, "found null");
        invalid(r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#, "found a number");
        invalid(r#"{"jsonrpc":"2.0","id":{"a":1},"method":"x"}"#, "found an object");
        invalid(r#"{"jsonrpc":"2.0","id":true,"result":{}}"#, "found a boolean");
        invalid(r#"{"jsonrpc":"2.0","result":{}}"#, "must carry the \"id\"");
        invalid(r#"{"jsonrpc":"2.0","id":null,"result":{}}"#, "found null");
        invalid(r#"{"jsonrpc":"2.0","id":1,"method":"x","params":5}"#, "object or an array");
        invalid(r#"{"jsonrpc":"2.0","id":1,"method":"x","params":"s"}"#, "object or an array");
        let e = invalid(r#"{"jsonrpc":"2.0","id":4,"error":{"message":"m"}}"#, "integer \"code\"");
        assert_eq!(e.id(), Some(&RequestId::Integer(4)));
        invalid(r#"{"jsonrpc":"2.0","id":4,"error":{"code":"1","message":"m"}}"#, "\"code\"");
        invalid(r#"{"jsonrpc":"2.0","id":4,"error":{"code":1}}"#, "\"message\"");
        invalid(r#"{"jsonrpc":"2.0","id":4,"error":"boom"}"#, "\"error\" must be an object");
        invalid(r#"{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}"#, "appears more than once");
        invalid(r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"a"}"#, "appears more than once");
    }

    #[test]
    fn invalid_errors_become_responses() {
        let e = parse(r#"{"jsonrpc":"1.0","id":9,"method":"ping"}"#).unwrap_err();
        let r = e.to_response();
        let v: Value = serde_json::from_str(&r.to_json()).unwrap();
        assert_eq!(v["id"], json!(9));
        assert_eq!(v["error"]["code"], json!(INVALID_REQUEST));
        let v: Value = serde_json::from_str(&MessageError::Batch.to_response().to_json()).unwrap();
        assert_eq!(v["id"], Value::Null);
    }
}
