//! MCP wire types for Herald.
//!
//! This crate holds what Herald needs to read and write the Model Context
//! Protocol correctly, and to speak Streamable HTTP to a server. It knows no
//! database and no tenant: the gateway decides what to send and to whom.
//!
//! - [`jsonrpc`]: JSON-RPC 2.0 envelopes for a proxy (unknown content kept as
//!   raw JSON, byte for byte), the standard and MCP error codes, the protocol
//!   revisions Herald speaks and their [`ProtocolGeneration`].
//! - [`elicitation`]: the `elicitation/create` request ([`parse_elicit_params`]),
//!   the flat form-schema subset as a typed model ([`parse_requested_schema`],
//!   [`RequestedSchema`]), validation of accepted answers with defaults filled
//!   in ([`validate_content`]), and the answer sent upstream ([`ElicitResult`]).
//! - [`headers`]: the transport's HTTP headers and `_meta` keys, and the
//!   base64 sentinel encoding of header values.
//! - [`transport`]: the Streamable HTTP client (POST, the legacy GET stream,
//!   DELETE), with SSE parsing and size limits.
//! - [`connect_failure`]: why a request failed before the server answered,
//!   as a category and a fixed sentence (never the OS's or TLS library's words).
//!
//! ```
//! use herald_mcp::{ElicitRequest, parse_elicit_params, validate_content};
//! use serde_json::json;
//!
//! let params = json!({
//!     "message": "Which plan?",
//!     "requestedSchema": {
//!         "type": "object",
//!         "properties": {
//!             "plan": {"type": "string", "enum": ["free", "pro"], "default": "free"},
//!             "seats": {"type": "integer", "minimum": 1}
//!         },
//!         "required": ["seats"]
//!     }
//! });
//! let ElicitRequest::Form { schema, .. } = parse_elicit_params(&params).unwrap() else {
//!     unreachable!()
//! };
//! let content = validate_content(&schema, Some(&json!({"seats": 3}))).unwrap();
//! assert_eq!(serde_json::Value::Object(content), json!({"plan": "free", "seats": 3}));
//!
//! let errors = validate_content(&schema, Some(&json!({"seats": 0, "x": 1}))).unwrap_err();
//! assert_eq!(errors.len(), 2);
//! ```

pub mod connect_failure;
pub mod elicitation;
pub mod headers;
pub mod jsonrpc;
pub mod transport;

pub use elicitation::{
    ElicitAction, ElicitRequest, ElicitResult, ElicitationMode, EnumOption, Field, FieldError, FieldKind,
    MAX_ENUM_OPTIONS, MAX_MESSAGE_CHARS, MAX_PROPERTIES, MAX_PROPERTY_NAME_CHARS, MAX_SCHEMA_BYTES,
    MAX_URL_CHARS, RequestedSchema, SchemaError, TOLERATED_KEYWORDS, TextFormat, parse_elicit_params,
    parse_requested_schema, validate_content,
};
pub use jsonrpc::{ErrorObject, Message, MessageError, ProtocolGeneration, RequestId};
