//! Validation of a policy document against the documented ranges and rules.

use std::collections::HashMap;
use std::ops::RangeInclusive;

use serde::Serialize;
use thiserror::Error;

use crate::OrgPolicy;
use crate::domain;

/// Most entries in a credential-ask term list.
const MAX_TERMS: usize = 200;
/// Longest credential-ask term, in characters.
const MAX_TERM_CHARS: usize = 64;
/// Most entries in a domain list.
const MAX_DOMAINS: usize = 500;
/// Longest excerpt of an offending value quoted in a message, in characters.
const MAX_QUOTE_CHARS: usize = 40;

/// One rule a policy document breaks.
///
/// Displays as `"{field}: {message}"`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Error)]
#[error("{field}: {message}")]
pub struct PolicyViolation {
    /// Dotted path of the offending field, with an index for list items:
    /// `"rate_caps.per_user_server_per_minute"`, `"url_mode.allow_domains[2]"`.
    pub field: String,
    /// What is wrong, for a human: `"must be between 10 and 86400"`.
    pub message: String,
}

impl OrgPolicy {
    /// Checks every documented range and rule.
    ///
    /// # Errors
    ///
    /// Every violation found, in document order; never an empty list.
    ///
    /// Expects a document in normal form: call [`OrgPolicy::normalized`]
    /// first, otherwise untrimmed terms and domains, or domains that are not
    /// lower-case, are reported as violations.
    ///
    /// A number out of range gets `"must be between {min} and {max}"`, except
    /// zero where at least 1 is required, which gets `"must be at least 1"`.
    pub fn validate(&self) -> Result<(), Vec<PolicyViolation>> {
        let mut v = Violations::default();
        v.range("elicitation.timeout_secs", self.elicitation.timeout_secs, 10..=86_400);
        v.terms(self);
        v.range("decline_memory.window_secs", self.decline_memory.window_secs, 60..=7_776_000);
        v.range("decline_memory.pestering_threshold", self.decline_memory.pestering_threshold, 1..=100);
        v.rate_caps(self);
        v.domains(self);
        v.range("retention.accepted_content_days", self.retention.accepted_content_days, 1..=3_650);
        v.into_result()
    }
}

/// Collects violations in the order they are found.
#[derive(Default)]
struct Violations(Vec<PolicyViolation>);

impl Violations {
    fn push(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.0.push(PolicyViolation { field: field.into(), message: message.into() });
    }

    fn into_result(self) -> Result<(), Vec<PolicyViolation>> {
        if self.0.is_empty() { Ok(()) } else { Err(self.0) }
    }

    fn range(&mut self, field: &str, value: u32, allowed: RangeInclusive<u32>) {
        if allowed.contains(&value) {
            return;
        }
        let (min, max) = (*allowed.start(), *allowed.end());
        if value == 0 && min == 1 {
            self.push(field, "must be at least 1");
        } else {
            self.push(field, format!("must be between {min} and {max}"));
        }
    }

    fn rate_caps(&mut self, policy: &OrgPolicy) {
        const MAX_RATE: u32 = 1_000_000;
        let caps = &policy.rate_caps;
        self.range("rate_caps.per_user_server_per_minute", caps.per_user_server_per_minute, 1..=MAX_RATE);
        self.range("rate_caps.per_server_per_hour", caps.per_server_per_hour, 1..=MAX_RATE);
        self.range("rate_caps.per_org_per_hour", caps.per_org_per_hour, 1..=MAX_RATE);
        self.range("rate_caps.max_pending_per_user", caps.max_pending_per_user, 1..=10_000);
    }

    fn terms(&mut self, policy: &OrgPolicy) {
        const EXTRA: &str = "credential_ask.extra_terms";
        const ALLOW: &str = "credential_ask.allow_terms";
        let ask = &policy.credential_ask;
        for (field, terms) in [(EXTRA, &ask.extra_terms), (ALLOW, &ask.allow_terms)] {
            self.list_len(field, terms.len(), MAX_TERMS);
            for (i, term) in terms.iter().enumerate() {
                self.term(&item(field, i), term);
            }
            self.duplicates(field, terms, term_key);
        }
        self.overlap(ALLOW, &ask.allow_terms, EXTRA, &ask.extra_terms, term_key);
    }

    fn term(&mut self, field: &str, term: &str) {
        if term.trim().is_empty() {
            self.push(field, "must not be empty");
            return;
        }
        let quoted = quote(term);
        if term.trim() != term {
            self.push(field, format!("{quoted} has leading or trailing whitespace"));
        }
        if term.chars().count() > MAX_TERM_CHARS {
            self.push(field, format!("{quoted} is longer than {MAX_TERM_CHARS} characters"));
        }
        if term.chars().any(char::is_control) {
            self.push(field, format!("{quoted} contains a control character"));
        }
    }

    fn domains(&mut self, policy: &OrgPolicy) {
        const ALLOW: &str = "url_mode.allow_domains";
        const DENY: &str = "url_mode.deny_domains";
        let url = &policy.url_mode;
        for (field, domains) in [(ALLOW, &url.allow_domains), (DENY, &url.deny_domains)] {
            self.list_len(field, domains.len(), MAX_DOMAINS);
            for (i, name) in domains.iter().enumerate() {
                self.domain(&item(field, i), name);
            }
            self.duplicates(field, domains, domain_key);
        }
        self.overlap(ALLOW, &url.allow_domains, DENY, &url.deny_domains, domain_key);
    }

    fn domain(&mut self, field: &str, name: &str) {
        if name.trim().is_empty() {
            self.push(field, "must not be empty");
        } else if let Err(problem) = domain::check(name) {
            self.push(field, format!("{} {problem}", quote(name)));
        }
    }

    fn list_len(&mut self, field: &str, len: usize, max: usize) {
        if len > max {
            self.push(field, format!("must have at most {max} entries, not {len}"));
        }
    }

    /// Reports every entry whose key an earlier entry of the same list
    /// already had. Empty keys are left to the per-entry checks.
    fn duplicates(&mut self, field: &str, items: &[String], key: fn(&str) -> String) {
        let mut first_seen: HashMap<String, usize> = HashMap::new();
        for (i, value) in items.iter().enumerate() {
            let k = key(value);
            if k.is_empty() {
                continue;
            }
            match first_seen.get(&k) {
                Some(first) => {
                    self.push(item(field, i), format!("{} is already listed at [{first}]", quote(value)))
                }
                None => {
                    first_seen.insert(k, i);
                }
            }
        }
    }

    /// Reports every entry of `items` whose key is also in `other`.
    fn overlap(
        &mut self,
        field: &str,
        items: &[String],
        other_field: &str,
        other: &[String],
        key: fn(&str) -> String,
    ) {
        let other_keys: Vec<String> = other.iter().map(|value| key(value)).collect();
        for (i, value) in items.iter().enumerate() {
            let k = key(value);
            if !k.is_empty() && other_keys.contains(&k) {
                self.push(item(field, i), format!("{} is also in {other_field}", quote(value)));
            }
        }
    }
}

/// Terms are compared trimmed and ignoring case.
fn term_key(term: &str) -> String {
    term.trim().to_lowercase()
}

/// Domains are compared in normal form.
fn domain_key(name: &str) -> String {
    domain::canonical(name)
}

fn item(field: &str, index: usize) -> String {
    format!("{field}[{index}]")
}

/// The value as a JSON string literal, cut short if long, for a message.
fn quote(value: &str) -> String {
    let excerpt: String = if value.chars().count() > MAX_QUOTE_CHARS {
        value.chars().take(MAX_QUOTE_CHARS).chain(['…']).collect()
    } else {
        value.to_owned()
    };
    serde_json::Value::String(excerpt).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quote_escapes_and_shortens() {
        assert_eq!(quote("a\"b\u{7}"), r#""a\"b\u0007""#);
        assert_eq!(quote(&"x".repeat(41)), format!("\"{}…\"", "x".repeat(40)));
        assert_eq!(quote(&"x".repeat(40)), format!("\"{}\"", "x".repeat(40)));
    }

    #[test]
    fn range_messages() {
        let mut v = Violations::default();
        v.range("a", 0, 1..=5);
        v.range("b", 6, 1..=5);
        v.range("c", 5, 10..=20);
        v.range("d", 1, 1..=5);
        let messages: Vec<_> = v.0.iter().map(|x| (x.field.as_str(), x.message.as_str())).collect();
        assert_eq!(
            messages,
            [
                ("a", "must be at least 1"),
                ("b", "must be between 1 and 5"),
                ("c", "must be between 10 and 20"),
            ]
        );
    }
}
