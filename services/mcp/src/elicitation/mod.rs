//! Elicitation: the `elicitation/create` request and its answer.
//!
//! - [`parse_elicit_params`] turns the `params` of an `elicitation/create`
//!   (a legacy push, or one entry of a modern `inputRequests`) into an
//!   [`ElicitRequest`], checking mode, message and, for forms, the schema
//!   subset ([`schema`]).
//! - [`validate_content`] checks an accepted form answer against the schema
//!   and fills in defaults ([`content`]).
//! - [`ElicitResult`] is the answer sent upstream.
//!
//! Nothing here decides policy (allowed modes, URL rules, credential asks):
//! the gateway does that with the typed values this module produces.

pub mod content;
pub mod schema;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub use content::{FieldError, validate_content};
pub use schema::{
    EnumOption, Field, FieldKind, MAX_ENUM_OPTIONS, MAX_PROPERTIES, MAX_PROPERTY_NAME_CHARS,
    MAX_SCHEMA_BYTES, RequestedSchema, SchemaError, TOLERATED_KEYWORDS, TextFormat, parse_requested_schema,
};

/// Longest accepted `message`, in Unicode scalar values.
pub const MAX_MESSAGE_CHARS: usize = 4000;
/// Longest accepted `url` of a URL-mode elicitation, in Unicode scalar values.
pub const MAX_URL_CHARS: usize = 2048;

/// The user's (or policy's) answer to an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// The user submitted the form / agreed to open the URL.
    Accept,
    /// The user explicitly said no.
    Decline,
    /// Dismissed without a choice (also timeouts and withdrawals).
    Cancel,
}

impl ElicitAction {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ElicitAction::Accept => "accept",
            ElicitAction::Decline => "decline",
            ElicitAction::Cancel => "cancel",
        }
    }

    /// The action `s` spells, if any.
    pub fn parse(s: &str) -> Option<ElicitAction> {
        [ElicitAction::Accept, ElicitAction::Decline, ElicitAction::Cancel]
            .into_iter()
            .find(|a| a.as_str() == s)
    }
}

impl std::fmt::Display for ElicitAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Form (in-band answer) or URL (out-of-band, the user opens a link).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitationMode {
    /// `"form"` (also when `mode` is absent).
    Form,
    /// `"url"` (2025-11-25 and later).
    Url,
}

impl ElicitationMode {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ElicitationMode::Form => "form",
            ElicitationMode::Url => "url",
        }
    }

    /// The mode `s` spells, if any.
    pub fn parse(s: &str) -> Option<ElicitationMode> {
        [ElicitationMode::Form, ElicitationMode::Url].into_iter().find(|m| m.as_str() == s)
    }
}

impl std::fmt::Display for ElicitationMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A validated `elicitation/create` request.
///
/// Serializes with a `mode` tag, snake_case keys:
/// `{"mode":"form","message":…,"requested_schema":{…}}` or
/// `{"mode":"url","message":…,"url":…,"elicitation_id":…|null}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "mode", rename_all = "lowercase")]
pub enum ElicitRequest {
    /// Form mode: show `schema` as a form.
    Form {
        /// What the server says to the user.
        message: String,
        /// The form.
        #[serde(rename = "requested_schema")]
        schema: RequestedSchema,
    },
    /// URL mode: offer to open `url`.
    Url {
        /// What the server says to the user.
        message: String,
        /// The URL to offer (only roughly checked here; policy decides).
        url: String,
        /// `elicitationId` (2025-11-25), for `notifications/elicitation/complete`.
        elicitation_id: Option<String>,
    },
}

impl ElicitRequest {
    /// Which mode this request uses.
    pub fn mode(&self) -> ElicitationMode {
        match self {
            ElicitRequest::Form { .. } => ElicitationMode::Form,
            ElicitRequest::Url { .. } => ElicitationMode::Url,
        }
    }

    /// The server's message.
    pub fn message(&self) -> &str {
        match self {
            ElicitRequest::Form { message, .. } | ElicitRequest::Url { message, .. } => message,
        }
    }
}

/// The result of an `elicitation/create`: `{"action": …, "content": {…}}`.
///
/// `content` belongs only to an accepted form; it is omitted when `None`.
/// Unknown keys (such as `_meta`) are ignored when deserializing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    /// What was decided.
    pub action: ElicitAction,
    /// The (validated, default-filled) answer of an accepted form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
}

impl ElicitResult {
    /// An accepted form with its content (from [`validate_content`]).
    pub fn accept_form(content: Map<String, Value>) -> Self {
        Self { action: ElicitAction::Accept, content: Some(content) }
    }

    /// An accepted URL elicitation (no content).
    pub fn accept_url() -> Self {
        Self { action: ElicitAction::Accept, content: None }
    }

    /// A decline.
    pub fn decline() -> Self {
        Self { action: ElicitAction::Decline, content: None }
    }

    /// A cancel.
    pub fn cancel() -> Self {
        Self { action: ElicitAction::Cancel, content: None }
    }
}

/// Parses the `params` of an `elicitation/create` request.
///
/// - `mode` absent (or `null`) means form; otherwise `"form"` or `"url"`.
/// - `message` is a required string of at most [`MAX_MESSAGE_CHARS`].
/// - Form: `requestedSchema` is required and parsed with
///   [`parse_requested_schema`]; its error paths are prefixed with
///   `requestedSchema.`.
/// - URL: `url` is required, at most [`MAX_URL_CHARS`], and must look like an
///   absolute `scheme://host…` URL (no whitespace or control characters); real
///   URL policy is the gateway's. `elicitationId` is optional and must be a
///   string when present.
/// - `_meta` and any other keys are ignored.
pub fn parse_elicit_params(params: &Value) -> Result<ElicitRequest, SchemaError> {
    let p = params
        .as_object()
        .ok_or_else(|| SchemaError::new("", "elicitation/create params must be a JSON object"))?;

    let mode = match p.get("mode") {
        None | Some(Value::Null) => ElicitationMode::Form,
        Some(Value::String(m)) if m == "form" => ElicitationMode::Form,
        Some(Value::String(m)) if m == "url" => ElicitationMode::Url,
        Some(Value::String(m)) => {
            return Err(SchemaError::new(
                "mode",
                format!("unsupported elicitation mode {m:?} (expected \"form\" or \"url\")"),
            ));
        }
        Some(other) => {
            return Err(SchemaError::new(
                "mode",
                format!("must be \"form\" or \"url\", found {}", schema::describe(other)),
            ));
        }
    };

    let message = match p.get("message") {
        None => return Err(SchemaError::new("message", "is required")),
        Some(Value::String(m)) => m,
        Some(other) => {
            return Err(SchemaError::new(
                "message",
                format!("must be a string, found {}", schema::describe(other)),
            ));
        }
    };
    let chars = message.chars().count();
    if chars > MAX_MESSAGE_CHARS {
        return Err(SchemaError::new(
            "message",
            format!("has {chars} characters; at most {MAX_MESSAGE_CHARS} are allowed"),
        ));
    }
    let message = message.clone();

    match mode {
        ElicitationMode::Form => {
            let raw = p
                .get("requestedSchema")
                .ok_or_else(|| SchemaError::new("requestedSchema", "is required in form mode"))?;
            let schema = parse_requested_schema(raw).map_err(|e| e.prefixed("requestedSchema"))?;
            Ok(ElicitRequest::Form { message, schema })
        }
        ElicitationMode::Url => {
            let url = match p.get("url") {
                None => return Err(SchemaError::new("url", "is required in url mode")),
                Some(Value::String(u)) => u,
                Some(other) => {
                    return Err(SchemaError::new(
                        "url",
                        format!("must be a string, found {}", schema::describe(other)),
                    ));
                }
            };
            let chars = url.chars().count();
            if chars > MAX_URL_CHARS {
                return Err(SchemaError::new(
                    "url",
                    format!("has {chars} characters; at most {MAX_URL_CHARS} are allowed"),
                ));
            }
            if let Err(reason) = check_absolute_url(url) {
                return Err(SchemaError::new("url", reason));
            }
            let elicitation_id = match p.get("elicitationId") {
                None | Some(Value::Null) => None,
                Some(Value::String(id)) => Some(id.clone()),
                Some(other) => {
                    return Err(SchemaError::new(
                        "elicitationId",
                        format!("must be a string, found {}", schema::describe(other)),
                    ));
                }
            };
            Ok(ElicitRequest::Url { message, url: url.clone(), elicitation_id })
        }
    }
}

/// A rough shape check: `scheme://authority…` with a non-empty host and no
/// whitespace or control characters.
fn check_absolute_url(url: &str) -> Result<(), &'static str> {
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err("must not contain whitespace or control characters");
    }
    let Some((scheme, rest)) = url.split_once("://") else {
        return Err("must be an absolute URL (scheme://host/…)");
    };
    let mut sc = scheme.chars();
    let scheme_ok = sc.next().is_some_and(|c| c.is_ascii_alphabetic())
        && sc.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    if !scheme_ok {
        return Err("must be an absolute URL (scheme://host/…): the scheme is malformed");
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if host_port.starts_with('[') {
        host_port.split_once(']').map_or("", |(h, _)| h.trim_start_matches('['))
    } else {
        host_port.split(':').next().unwrap_or("")
    };
    if host.is_empty() {
        return Err("must be an absolute URL (scheme://host/…): the host is missing");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[track_caller]
    fn rejects(params: Value, path: &str, part: &str) {
        let e = parse_elicit_params(&params).expect_err("should be rejected");
        assert_eq!(e.path, path, "{e}");
        assert!(e.reason.contains(part), "{:?} lacks {part:?}", e.reason);
    }

    #[test]
    fn actions_and_modes_serialize_lowercase() {
        assert_eq!(serde_json::to_value(ElicitAction::Accept).unwrap(), "accept");
        assert_eq!(serde_json::to_value(ElicitAction::Decline).unwrap(), "decline");
        assert_eq!(serde_json::to_value(ElicitAction::Cancel).unwrap(), "cancel");
        assert_eq!(serde_json::from_value::<ElicitAction>(json!("cancel")).unwrap(), ElicitAction::Cancel);
        assert!(serde_json::from_value::<ElicitAction>(json!("Accept")).is_err());
        assert_eq!(serde_json::to_value(ElicitationMode::Url).unwrap(), "url");
        assert_eq!(serde_json::from_value::<ElicitationMode>(json!("form")).unwrap(), ElicitationMode::Form);
        for a in [ElicitAction::Accept, ElicitAction::Decline, ElicitAction::Cancel] {
            assert_eq!(serde_json::to_value(a).unwrap(), a.as_str());
        }
        for m in [ElicitationMode::Form, ElicitationMode::Url] {
            assert_eq!(serde_json::to_value(m).unwrap(), m.as_str());
        }
    }

    #[test]
    fn elicit_result_wire_shape() {
        let mut c = Map::new();
        c.insert("a".into(), json!(1));
        assert_eq!(
            serde_json::to_value(ElicitResult::accept_form(c)).unwrap(),
            json!({"action": "accept", "content": {"a": 1}})
        );
        assert_eq!(serde_json::to_value(ElicitResult::decline()).unwrap(), json!({"action": "decline"}));
        assert_eq!(serde_json::to_value(ElicitResult::cancel()).unwrap(), json!({"action": "cancel"}));
        assert_eq!(serde_json::to_value(ElicitResult::accept_url()).unwrap(), json!({"action": "accept"}));
        let r: ElicitResult =
            serde_json::from_value(json!({"action": "accept", "content": {"x": true}, "_meta": {}})).unwrap();
        assert_eq!(r.content.unwrap()["x"], json!(true));
    }

    #[test]
    fn form_mode_with_and_without_mode() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        for params in [
            json!({"message": "Hi", "requestedSchema": schema}),
            json!({"mode": "form", "message": "Hi", "requestedSchema": schema,
                   "_meta": {"x": 1}, "somethingNew": true}),
        ] {
            let r = parse_elicit_params(&params).unwrap();
            assert_eq!(r.mode(), ElicitationMode::Form);
            assert_eq!(r.message(), "Hi");
            match r {
                ElicitRequest::Form { schema, .. } => assert_eq!(schema.fields[0].name, "a"),
                other => panic!("{other:?}"),
            }
        }
        let v = serde_json::to_value(
            parse_elicit_params(&json!({"message": "Hi", "requestedSchema": schema})).unwrap(),
        )
        .unwrap();
        assert_eq!(v["mode"], "form");
        assert_eq!(v["message"], "Hi");
        assert_eq!(v["requested_schema"]["fields"][0]["name"], "a");
    }

    #[test]
    fn url_mode() {
        let r = parse_elicit_params(&json!({"mode": "url", "message": "Sign in",
            "url": "https://auth.example.com/connect?x=1", "elicitationId": "e-1"}))
        .unwrap();
        assert_eq!(
            r,
            ElicitRequest::Url {
                message: "Sign in".into(),
                url: "https://auth.example.com/connect?x=1".into(),
                elicitation_id: Some("e-1".into())
            }
        );
        assert_eq!(r.mode(), ElicitationMode::Url);
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"mode": "url", "message": "Sign in",
                   "url": "https://auth.example.com/connect?x=1", "elicitation_id": "e-1"})
        );
        // 2026-07-28 has no elicitationId.
        let r =
            parse_elicit_params(&json!({"mode": "url", "message": "m", "url": "http://127.0.0.1:3000/cb"}))
                .unwrap();
        assert!(matches!(r, ElicitRequest::Url { elicitation_id: None, .. }));
        for ok in [
            "https://user@host.example/",
            "http://[::1]:8080/x",
            "https://example.com",
            "https://example.com#frag",
        ] {
            parse_elicit_params(&json!({"mode": "url", "message": "m", "url": ok}))
                .unwrap_or_else(|e| panic!("{ok}: {e}"));
        }
    }

    #[test]
    fn rejects_bad_params() {
        rejects(json!("x"), "", "must be a JSON object");
        rejects(json!({"mode": "sms", "message": "m"}), "mode", "unsupported elicitation mode \"sms\"");
        rejects(json!({"mode": 1, "message": "m"}), "mode", "must be \"form\" or \"url\"");
        rejects(json!({"requestedSchema": {}}), "message", "is required");
        rejects(json!({"message": 5}), "message", "must be a string");
        rejects(
            json!({"message": "x".repeat(MAX_MESSAGE_CHARS + 1),
                   "requestedSchema": {"type": "object", "properties": {}}}),
            "message",
            "has 4001 characters; at most 4000",
        );
        // 4000 multi-byte characters are fine.
        parse_elicit_params(&json!({"message": "é".repeat(MAX_MESSAGE_CHARS),
            "requestedSchema": {"type": "object", "properties": {}}}))
        .unwrap();
        rejects(json!({"message": "m"}), "requestedSchema", "is required in form mode");
        rejects(
            json!({"message": "m", "requestedSchema": {"type": "object",
                   "properties": {"a": {"type": "object"}}}}),
            "requestedSchema.properties.a.type",
            "nested objects",
        );
        rejects(json!({"message": "m", "requestedSchema": []}), "requestedSchema", "must be a JSON object");
    }

    #[test]
    fn rejects_bad_urls() {
        let url = |u: Value| json!({"mode": "url", "message": "m", "url": u});
        rejects(json!({"mode": "url", "message": "m"}), "url", "is required in url mode");
        rejects(url(json!(1)), "url", "must be a string");
        rejects(url(json!("example.com/path")), "url", "absolute URL");
        rejects(url(json!("/relative")), "url", "absolute URL");
        rejects(url(json!("mailto:a@b.co")), "url", "absolute URL");
        rejects(url(json!("https:///path")), "url", "host is missing");
        rejects(url(json!("https://user@/x")), "url", "host is missing");
        rejects(url(json!("https://:443/x")), "url", "host is missing");
        rejects(url(json!("1ttp://host")), "url", "scheme is malformed");
        rejects(url(json!("://host")), "url", "scheme is malformed");
        rejects(url(json!("https://exa mple.com")), "url", "whitespace");
        rejects(url(json!("https://example.com/\u{0007}")), "url", "control");
        let long = format!("https://example.com/{}", "a".repeat(MAX_URL_CHARS));
        rejects(url(json!(long)), "url", "at most 2048");
        let fits = format!("https://example.com/{}", "a".repeat(MAX_URL_CHARS - 20));
        assert_eq!(fits.chars().count(), MAX_URL_CHARS);
        parse_elicit_params(&url(json!(fits))).unwrap();
        rejects(
            json!({"mode": "url", "message": "m", "url": "https://x.y", "elicitationId": 3}),
            "elicitationId",
            "must be a string",
        );
    }
}
