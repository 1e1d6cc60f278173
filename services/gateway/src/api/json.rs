//! Request bodies: JSON only, size-limited, unknown fields refused, and every
//! problem reported against the field it concerns.

use axum::body::Bytes;
use axum::extract::{FromRequest, OptionalFromRequest, Request};
use axum::http::{StatusCode, header};
use serde::de::DeserializeOwned;

use crate::domain::Invalid;
use crate::problem::{ApiError, InvalidField};

/// Like `axum::Json`, with Herald's error shape. Body types must use
/// `#[serde(deny_unknown_fields)]`.
pub struct ValidJson<T>(pub T);

/// An optional body: none at all (no content type, no bytes) is `None`;
/// anything else must be valid JSON for `T`.
impl<T: DeserializeOwned, S: Send + Sync> OptionalFromRequest<S> for ValidJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Option<Self>, ApiError> {
        let headers = req.headers();
        let empty = !headers.contains_key(header::CONTENT_TYPE)
            && headers.get(header::CONTENT_LENGTH).is_none_or(|len| len.as_bytes() == b"0");
        if empty {
            return Ok(None);
        }
        <Self as FromRequest<S>>::from_request(req, state).await.map(Some)
    }
}

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for ValidJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let is_json = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .map(|mime| {
                let mime = mime.trim().to_ascii_lowercase();
                mime == "application/json" || (mime.starts_with("application/") && mime.ends_with("+json"))
            })
            .unwrap_or(false);
        if !is_json {
            return Err(ApiError::UnsupportedMediaType);
        }
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::PayloadTooLarge
            } else {
                ApiError::MalformedBody { detail: rejection.body_text(), errors: vec![] }
            }
        })?;
        parse(&bytes).map(ValidJson)
    }
}

pub fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let message = strip_position(&inner.to_string());
        let errors = if inner.is_data() {
            vec![InvalidField::new(if path == "." { String::new() } else { path }, message.clone())]
        } else {
            vec![]
        };
        ApiError::MalformedBody { detail: message, errors }
    })?;
    // Trailing bytes after the document make the whole body malformed.
    de.end().map_err(|e| ApiError::MalformedBody { detail: e.to_string(), errors: vec![] })?;
    Ok(value)
}

/// serde_json appends " at line L column C"; keep it only for syntax errors,
/// where the position is what the reader needs.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) if !message.starts_with("expected") && !message.contains("EOF") => message[..at].to_owned(),
        _ => message.to_owned(),
    }
}

/// Collects field validation errors so a response reports all of them at once.
#[derive(Default)]
pub struct Checks {
    errors: Vec<InvalidField>,
}

impl Checks {
    pub fn field<T>(&mut self, name: &str, parsed: Result<T, Invalid>) -> Option<T> {
        match parsed {
            Ok(value) => Some(value),
            Err(Invalid(message)) => {
                self.errors.push(InvalidField::new(name, message));
                None
            }
        }
    }

    pub fn push(&mut self, name: impl Into<String>, message: impl Into<String>) {
        self.errors.push(InvalidField::new(name, message));
    }

    /// Fails with every collected error, or succeeds when there were none.
    pub fn finish(self) -> Result<(), ApiError> {
        if self.errors.is_empty() { Ok(()) } else { Err(ApiError::Validation(self.errors)) }
    }
}

/// Unwraps the values `Checks::field` produced once `finish` has succeeded.
pub fn checked<T>(value: Option<T>) -> T {
    value.expect("Checks::finish returned Ok, so every field parsed")
}
