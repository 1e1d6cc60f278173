//! Herald's organisation policy document.
//!
//! Every organisation has exactly one [`OrgPolicy`]: a typed document with
//! documented defaults that the gateway stores as JSON, returns from
//! `GET /api/v1/orgs/{org}/policy` and accepts on `PUT`. This crate holds the
//! document and the pure logic around it; it does no I/O.
//!
//! The sections follow the order in which policy is applied to an elicitation
//! (see the design document): credential-ask ban, decline memory, rate caps,
//! URL mode, the deadline for a shown elicitation, and finally how long an
//! accepted answer is kept.
//!
//! # Accepting a document
//!
//! Deserialization is strict about shape and lenient about completeness: a
//! body may leave out any field (it takes its default), but an unknown field or
//! an unknown enum value is a deserialization error. Once deserialized, the
//! gateway calls [`OrgPolicy::normalized`] (trims terms, trims and lower-cases
//! domains) and then [`OrgPolicy::validate`], which reports every
//! [`PolicyViolation`] at once, each with the dotted path of the offending
//! field.
//!
//! ```
//! use herald_policy::OrgPolicy;
//!
//! let body = r#"{ "rate_caps": { "per_org_per_hour": 0 },
//!                 "url_mode": { "deny_domains": ["Example.COM "] } }"#;
//! let policy: OrgPolicy = serde_json::from_str(body).expect("well-formed document");
//! let policy = policy.normalized();
//! assert_eq!(policy.url_mode.deny_domains, ["example.com"]);
//!
//! let violations = policy.validate().unwrap_err();
//! assert_eq!(violations[0].field, "rate_caps.per_org_per_hour");
//! assert_eq!(violations[0].message, "must be at least 1");
//!
//! assert!(!policy.url_mode.domain_allowed("login.example.com"));
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod document;
mod domain;
mod validate;

pub mod credential;
pub mod decision;
pub mod fingerprint;
pub mod url_rules;

pub use credential::{
    AskText, Category, CredentialDetector, CredentialHit, FieldKind, FieldPart, FieldText, HitLocation,
};
pub use decision::{Decision, Facts, RateCounts, Warning, decide};
pub use document::{
    CredentialAskMode, CredentialAskPolicy, DeclineMemoryPolicy, ElicitationPolicy, OrgPolicy,
    RateCapsPolicy, RetentionPolicy, UrlModePolicy,
};
pub use fingerprint::{canonical_schema, fingerprint_text, normalize_message};
pub use url_rules::{UrlFlag, UrlRefusal, UrlRule, UrlVerdict, check_url};
pub use validate::PolicyViolation;
