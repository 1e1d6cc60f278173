//! The one error type of the HTTP API, rendered as `application/problem+json`
//! (RFC 9457). Each kind has a stable `type` URI clients may branch on; the
//! list is in docs/api.md.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::storage::{Conflict, StoreError};

/// A problem with one field of a request body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InvalidField {
    pub field: String,
    pub message: String,
}

impl InvalidField {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self { field: field.into(), message: message.into() }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("the request body is not valid JSON for this endpoint")]
    MalformedBody { detail: String, errors: Vec<InvalidField> },
    #[error("some fields are invalid")]
    Validation(Vec<InvalidField>),
    #[error("the request body must be application/json")]
    UnsupportedMediaType,
    #[error("the request body is too large")]
    PayloadTooLarge,
    #[error("sign in or present an API token")]
    Unauthenticated,
    #[error("the email or password is wrong")]
    InvalidCredentials,
    #[error("{0}")]
    Forbidden(&'static str),
    /// Password sign-in is off for this instance, or for an organisation of the person's.
    #[error("{0}")]
    PasswordSignInOff(String),
    #[error("cross-site requests are not allowed")]
    CrossSite,
    #[error("not found")]
    NotFound,
    #[error("method not allowed")]
    MethodNotAllowed,
    #[error("{1}")]
    Conflict(&'static str, String),
    #[error("{1}")]
    Gone(&'static str, String),
    #[error("the service is temporarily unavailable")]
    Unavailable,
    /// Sign-ins refused for a while: too many failed for the account or from the address.
    #[error("too many failed sign-ins; try again in {}", wait_words(*.retry_after))]
    TooManyAttempts { retry_after: u64 },
    /// The same thing was asked for a moment ago (a test notification); the text says what.
    #[error("{detail}")]
    TooSoon { retry_after: u64, detail: &'static str },
    /// Every password hashing slot is busy (see `crate::passwords`).
    #[error("Herald is busy checking other sign-ins; try again in a moment")]
    Busy { retry_after: u64 },
    /// The upstream MCP server failed or refused; the text names it and says why.
    #[error("{0}")]
    Upstream(String),
    #[error("{0}")]
    UpstreamTimeout(String),
    #[error("internal error")]
    Internal(#[source] anyhow::Error),
}

impl ApiError {
    pub fn field(field: &str, message: impl Into<String>) -> Self {
        Self::Validation(vec![InvalidField::new(field, message)])
    }

    fn parts(&self) -> (StatusCode, &'static str, &'static str) {
        use ApiError::*;
        match self {
            MalformedBody { .. } => (StatusCode::BAD_REQUEST, "malformed-body", "Malformed request body"),
            Validation(_) => (StatusCode::UNPROCESSABLE_ENTITY, "validation-failed", "Invalid fields"),
            UnsupportedMediaType => {
                (StatusCode::UNSUPPORTED_MEDIA_TYPE, "unsupported-media-type", "Unsupported media type")
            }
            PayloadTooLarge => (StatusCode::PAYLOAD_TOO_LARGE, "payload-too-large", "Request body too large"),
            Unauthenticated => (StatusCode::UNAUTHORIZED, "unauthenticated", "Authentication required"),
            InvalidCredentials => {
                (StatusCode::UNAUTHORIZED, "invalid-credentials", "Wrong email or password")
            }
            Forbidden(_) => (StatusCode::FORBIDDEN, "forbidden", "Not allowed"),
            PasswordSignInOff(_) => {
                (StatusCode::FORBIDDEN, "password-sign-in-off", "Sign in through your identity provider")
            }
            CrossSite => (StatusCode::FORBIDDEN, "cross-site-request", "Cross-site request refused"),
            NotFound => (StatusCode::NOT_FOUND, "not-found", "Not found"),
            MethodNotAllowed => (StatusCode::METHOD_NOT_ALLOWED, "method-not-allowed", "Method not allowed"),
            Conflict(code, _) => (StatusCode::CONFLICT, code, "Conflict"),
            Gone(code, _) => (StatusCode::GONE, code, "No longer available"),
            Unavailable => (StatusCode::SERVICE_UNAVAILABLE, "unavailable", "Service unavailable"),
            TooManyAttempts { .. } => {
                (StatusCode::TOO_MANY_REQUESTS, "too-many-attempts", "Too many failed sign-ins")
            }
            Busy { .. } => (StatusCode::SERVICE_UNAVAILABLE, "busy", "Busy"),
            TooSoon { .. } => (StatusCode::TOO_MANY_REQUESTS, "too-soon", "Asked for a moment ago"),
            Upstream(_) => (StatusCode::BAD_GATEWAY, "upstream-error", "The upstream server failed"),
            UpstreamTimeout(_) => (
                StatusCode::GATEWAY_TIMEOUT,
                "upstream-timeout",
                "The upstream server did not answer in time",
            ),
            Internal(_) => (StatusCode::INTERNAL_SERVER_ERROR, "internal", "Internal error"),
        }
    }
}

pub const PROBLEM_TYPE_PREFIX: &str = "urn:herald:problem:";

#[derive(Serialize)]
struct Problem<'a> {
    #[serde(rename = "type")]
    kind: String,
    title: &'a str,
    status: u16,
    detail: String,
    #[serde(skip_serializing_if = "<[InvalidField]>::is_empty")]
    errors: &'a [InvalidField],
    /// Seconds to wait before trying again (the `Retry-After` header, for scripts and pages).
    #[serde(skip_serializing_if = "Option::is_none")]
    retry_after: Option<u64>,
}

/// "42 seconds", "1 minute", "15 minutes": how long to wait, for people.
pub fn wait_words(seconds: u64) -> String {
    match seconds {
        0 | 1 => "1 second".into(),
        2..=59 => format!("{seconds} seconds"),
        _ => match seconds.div_ceil(60) {
            1 => "1 minute".into(),
            minutes => format!("{minutes} minutes"),
        },
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, code, title) = self.parts();
        let (detail, errors): (String, &[InvalidField]) = match &self {
            ApiError::MalformedBody { detail, errors } => (detail.clone(), errors),
            ApiError::Validation(errors) => (self.to_string(), errors),
            ApiError::Internal(e) => {
                tracing::error!(error = ?e, "internal error");
                (self.to_string(), &[])
            }
            other => (other.to_string(), &[]),
        };
        let retry_after = match self {
            ApiError::TooManyAttempts { retry_after }
            | ApiError::Busy { retry_after }
            | ApiError::TooSoon { retry_after, .. } => Some(retry_after.max(1)),
            _ => None,
        };
        let mut response = problem_document(status, code, title, detail, errors, retry_after);
        if let Some(seconds) = retry_after {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}

pub fn problem_response(
    status: StatusCode,
    code: &str,
    title: &str,
    detail: String,
    errors: &[InvalidField],
) -> Response {
    problem_document(status, code, title, detail, errors, None)
}

fn problem_document(
    status: StatusCode,
    code: &str,
    title: &str,
    detail: String,
    errors: &[InvalidField],
    retry_after: Option<u64>,
) -> Response {
    let body = Problem {
        kind: format!("{PROBLEM_TYPE_PREFIX}{code}"),
        title,
        status: status.as_u16(),
        detail,
        errors,
        retry_after,
    };
    let mut response = (status, axum::Json(body)).into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/problem+json"));
    response
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::NotFound => ApiError::NotFound,
            StoreError::Conflict(c) => conflict(c),
            StoreError::Database(
                sqlx::Error::PoolTimedOut | sqlx::Error::Io(_) | sqlx::Error::PoolClosed,
            ) => {
                tracing::warn!(error = %e, "database unavailable");
                ApiError::Unavailable
            }
            other => ApiError::Internal(other.into()),
        }
    }
}

fn conflict(c: Conflict) -> ApiError {
    let (code, detail) = match c {
        Conflict::OrgSlugTaken => ("org-slug-taken", "an organisation with this slug already exists"),
        Conflict::EmailTaken => ("email-taken", "an account with this email already exists"),
        Conflict::ServerSlugTaken => {
            ("server-slug-taken", "a server with this slug is already registered in the organisation")
        }
        Conflict::TokenNameTaken => ("token-name-taken", "you already have a token with this name"),
        Conflict::LastOwner => ("last-owner", "an organisation must keep at least one owner"),
        Conflict::AlreadyMember => ("already-member", "this account is already a member of the organisation"),
        Conflict::AlreadyMuted => ("already-muted", "you have already muted this server"),
        Conflict::TooManyWebhooks => {
            ("too-many-webhooks", "this organisation has as many webhooks as it may (10); delete one first")
        }
        Conflict::TooManyDomains => (
            "too-many-domains",
            "this organisation has claimed as many e-mail domains as it may (20); drop one first",
        ),
        Conflict::DomainTaken => ("domain-taken", "this e-mail domain is confirmed for another organisation"),
        Conflict::TooManyDevices => (
            "too-many-devices",
            "you receive notifications in as many browsers as you may (10); remove one first",
        ),
        Conflict::OwnersOnly => {
            return ApiError::Forbidden("only owners may grant, change or remove the owner role");
        }
        Conflict::SetupUnavailable => {
            return ApiError::Gone(
                "setup-unavailable",
                "this setup link is no longer valid; setup may already be done".into(),
            );
        }
        Conflict::InviteUnavailable => {
            return ApiError::Gone(
                "invite-unavailable",
                "this invite link was used, revoked, or has expired".into(),
            );
        }
    };
    ApiError::Conflict(code, detail.into())
}

impl From<crate::passwords::HashError> for ApiError {
    fn from(e: crate::passwords::HashError) -> Self {
        match e {
            crate::passwords::HashError::Busy => {
                crate::telemetry::metrics::metrics().limit_refusal("password_hashing");
                ApiError::Busy { retry_after: 1 }
            }
            crate::passwords::HashError::Failed(e) => ApiError::Internal(e.into()),
        }
    }
}

impl From<anyhow::Error> for ApiError {
    fn from(e: anyhow::Error) -> Self {
        ApiError::Internal(e)
    }
}

pub type ApiResult<T> = Result<T, ApiError>;
