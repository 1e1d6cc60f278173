//! The policy document's types, their defaults and normalisation.
//!
//! Valid ranges are stated on each field; [`OrgPolicy::validate`] enforces
//! them.

use serde::{Deserialize, Serialize};

use crate::domain;

/// An organisation's whole policy, as stored and as exchanged over the API.
///
/// Every field may be left out of a JSON body and then takes its default;
/// unknown fields are rejected. `OrgPolicy::default()` is the policy of a new
/// organisation.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OrgPolicy {
    /// How long a shown elicitation waits for the user.
    pub elicitation: ElicitationPolicy,
    /// Whether and how requests that fish for credentials are stopped.
    pub credential_ask: CredentialAskPolicy,
    /// Auto-declining questions the user already declined, and pestering.
    pub decline_memory: DeclineMemoryPolicy,
    /// Caps on how many elicitations may be asked, across all replicas.
    pub rate_caps: RateCapsPolicy,
    /// URL-mode elicitations and the domains they may point at.
    pub url_mode: UrlModePolicy,
    /// How long answer content is kept.
    pub retention: RetentionPolicy,
}

impl OrgPolicy {
    /// Returns the document in normal form, ready for [`OrgPolicy::validate`].
    ///
    /// Credential-ask terms are trimmed of surrounding whitespace. Domains are
    /// trimmed, lose one trailing dot (`"example.com."` is the same name as
    /// `"example.com"`) and are lower-cased (ASCII only; domains must be
    /// ASCII anyway). Nothing is removed or reordered, so violations still
    /// point at the index the admin sent. Normalising twice changes nothing.
    #[must_use]
    pub fn normalized(mut self) -> Self {
        normalize_each(&mut self.credential_ask.extra_terms, |t| t.trim().to_owned());
        normalize_each(&mut self.credential_ask.allow_terms, |t| t.trim().to_owned());
        normalize_each(&mut self.url_mode.allow_domains, domain::canonical);
        normalize_each(&mut self.url_mode.deny_domains, domain::canonical);
        self
    }
}

fn normalize_each(items: &mut [String], normalize: impl Fn(&str) -> String) {
    for item in items {
        *item = normalize(item);
    }
}

/// The deadline for a shown elicitation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ElicitationPolicy {
    /// Seconds a shown elicitation waits for the user's answer before it is
    /// cancelled. Default `600` (10 minutes); valid `10..=86400` (one day).
    pub timeout_secs: u32,
}

impl Default for ElicitationPolicy {
    fn default() -> Self {
        Self { timeout_secs: 600 }
    }
}

/// What happens when a request fishes for credentials.
///
/// Serialized in lower case: `"block"`, `"warn"` or `"off"`. Any other value
/// fails deserialization.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CredentialAskMode {
    /// Auto-decline, tell the user what was blocked (offering a one-click
    /// cut-off of the server) and flag it to admins. The default.
    #[default]
    Block,
    /// Show the request, behind a loud warning.
    Warn,
    /// Do not look for credential asks at all.
    Off,
}

/// The credential-ask ban and the organisation's own terms for it.
///
/// Terms are matched case-insensitively by the detector. Each term must be
/// non-empty, without surrounding whitespace, at most 64 characters long and
/// free of control characters; a list holds at most 200 terms, none twice
/// (ignoring case), and no term may be in both lists.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CredentialAskPolicy {
    /// What to do with a detected credential ask. Default `"block"`.
    pub mode: CredentialAskMode,
    /// Extra terms that count as a credential ask, on top of the built-in
    /// rules. Default `[]`.
    pub extra_terms: Vec<String>,
    /// Terms that never count as a credential ask, to silence false
    /// positives of the built-in rules. Default `[]`.
    pub allow_terms: Vec<String>,
}

/// Remembering declined questions, and muting servers that keep asking.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DeclineMemoryPolicy {
    /// Seconds a decline is remembered: the same question from the same
    /// server within this window is auto-declined. Default `86400` (one day);
    /// valid `60..=7776000` (one minute to 90 days).
    pub window_secs: u32,
    /// Number of re-asks after a decline, within the window, at which the
    /// server is auto-muted for that user (who is told). Default `3`; valid
    /// `1..=100`.
    pub pestering_threshold: u32,
}

impl Default for DeclineMemoryPolicy {
    fn default() -> Self {
        Self { window_secs: 86_400, pestering_threshold: 3 }
    }
}

/// Caps on elicitations; a request over any cap is auto-cancelled. The caps
/// hold across all gateway replicas. Zero is not a valid cap.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RateCapsPolicy {
    /// Elicitations per minute from one server to one user. Default `6`;
    /// valid `1..=1000000`.
    pub per_user_server_per_minute: u32,
    /// Elicitations per hour from one server, across the whole organisation.
    /// Default `600`; valid `1..=1000000`.
    pub per_server_per_hour: u32,
    /// Elicitations per hour across the whole organisation. Default `5000`;
    /// valid `1..=1000000`.
    pub per_org_per_hour: u32,
    /// Elicitations one user may have pending (shown, not yet answered) at
    /// once. Default `20`; valid `1..=10000`.
    pub max_pending_per_user: u32,
}

impl Default for RateCapsPolicy {
    fn default() -> Self {
        Self {
            per_user_server_per_minute: 6,
            per_server_per_hour: 600,
            per_org_per_hour: 5_000,
            max_pending_per_user: 20,
        }
    }
}

/// URL-mode elicitations and the domains they may send users to.
///
/// Domains are lower-case ASCII DNS names such as `"example.com"`: letters,
/// digits, hyphens and dots; at least two labels; labels of 1 to 63
/// characters that neither start nor end with a hyphen; at most 253
/// characters in all. Internationalised names go in their punycode (`xn--`)
/// form. A listed domain also covers all of its subdomains, so
/// `"example.com"` covers `"login.example.com"`; a `"*."` wildcard prefix is
/// therefore not accepted. A list holds at most 500 domains, none twice, and
/// no domain may be in both lists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct UrlModePolicy {
    /// Whether servers may use URL-mode elicitations at all. Default `true`.
    pub enabled: bool,
    /// If non-empty, URLs may only point at these domains (and their
    /// subdomains). Default `[]`: any domain that is not denied.
    pub allow_domains: Vec<String>,
    /// URLs may never point at these domains (or their subdomains); this
    /// wins over `allow_domains`. Default `[]`.
    pub deny_domains: Vec<String>,
}

impl Default for UrlModePolicy {
    fn default() -> Self {
        Self { enabled: true, allow_domains: Vec::new(), deny_domains: Vec::new() }
    }
}

impl UrlModePolicy {
    /// Whether a URL pointing at `host` passes the domain lists.
    ///
    /// `host` is a bare host name (no scheme, port or path), compared
    /// case-insensitively; one trailing dot is ignored. It matches a listed
    /// domain if it equals it or is a subdomain of it, so `"example.com"`
    /// matches `"a.example.com"` but not `"evilexample.com"`. A denied host
    /// is never allowed; otherwise an empty allow list allows every host and
    /// a non-empty one only the hosts it matches. An empty host is never
    /// allowed.
    ///
    /// This only looks at the lists: callers check [`UrlModePolicy::enabled`]
    /// (and the URL's scheme) themselves.
    #[must_use]
    pub fn domain_allowed(&self, host: &str) -> bool {
        let host = domain::canonical(host);
        if host.is_empty() {
            return false;
        }
        if domain::any_covers(&self.deny_domains, &host) {
            return false;
        }
        self.allow_domains.is_empty() || domain::any_covers(&self.allow_domains, &host)
    }
}

/// How long elicitation answers are kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RetentionPolicy {
    /// Days the content the user submitted with an accepted answer is kept.
    /// Default `30`; valid `1..=3650` (about ten years).
    pub accepted_content_days: u32,
}

impl Default for RetentionPolicy {
    fn default() -> Self {
        Self { accepted_content_days: 30 }
    }
}
