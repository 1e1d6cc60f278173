//! Domain names: normal form, syntax check and subdomain matching.

use thiserror::Error;

/// Longest domain name, in characters (RFC 1035, without the trailing dot).
const MAX_DOMAIN_LEN: usize = 253;
/// Longest label, in characters (RFC 1035).
const MAX_LABEL_LEN: usize = 63;

/// Why a list entry is not an acceptable domain. Each message completes a
/// sentence that starts with the quoted entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub(crate) enum DomainProblem {
    #[error("has leading or trailing whitespace")]
    Whitespace,
    #[error("must be lower-case")]
    Uppercase,
    #[error("is not allowed: leave out \"*.\", a domain already covers its subdomains")]
    Wildcard,
    #[error("is not a domain name: use the ASCII (punycode, \"xn--\") form")]
    NonAscii,
    #[error("is not a domain name: it is longer than {MAX_DOMAIN_LEN} characters")]
    TooLong,
    #[error("is not a domain name: only letters, digits, hyphens and dots are allowed")]
    BadCharacter,
    #[error("is not a domain name: it has an empty label")]
    EmptyLabel,
    #[error("is not a domain name: it needs at least two labels, like example.com")]
    SingleLabel,
    #[error("is not a domain name: a label is longer than {MAX_LABEL_LEN} characters")]
    LongLabel,
    #[error("is not a domain name: a label starts or ends with a hyphen")]
    HyphenAtEdge,
    #[error("is not a domain name: it ends in a number (IP addresses are not allowed)")]
    NumericTld,
}

/// The normal form of a domain or host: trimmed, one trailing dot removed,
/// ASCII lower-cased.
pub(crate) fn canonical(name: &str) -> String {
    let name = name.trim();
    name.strip_suffix('.').unwrap_or(name).to_ascii_lowercase()
}

/// Checks that a non-empty list entry is a domain in normal form.
pub(crate) fn check(name: &str) -> Result<(), DomainProblem> {
    if name.trim() != name {
        return Err(DomainProblem::Whitespace);
    }
    if name.starts_with("*.") {
        return Err(DomainProblem::Wildcard);
    }
    if !name.is_ascii() {
        return Err(DomainProblem::NonAscii);
    }
    if name.bytes().any(|b| b.is_ascii_uppercase()) {
        return Err(DomainProblem::Uppercase);
    }
    if name.len() > MAX_DOMAIN_LEN {
        return Err(DomainProblem::TooLong);
    }
    if !name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.') {
        return Err(DomainProblem::BadCharacter);
    }
    check_labels(name)
}

fn check_labels(name: &str) -> Result<(), DomainProblem> {
    let labels: Vec<&str> = name.split('.').collect();
    if labels.iter().any(|label| label.is_empty()) {
        return Err(DomainProblem::EmptyLabel);
    }
    if labels.len() < 2 {
        return Err(DomainProblem::SingleLabel);
    }
    if labels.iter().any(|label| label.len() > MAX_LABEL_LEN) {
        return Err(DomainProblem::LongLabel);
    }
    if labels.iter().any(|label| label.starts_with('-') || label.ends_with('-')) {
        return Err(DomainProblem::HyphenAtEdge);
    }
    let tld_is_numeric = labels.last().is_some_and(|tld| tld.bytes().all(|b| b.is_ascii_digit()));
    if tld_is_numeric {
        return Err(DomainProblem::NumericTld);
    }
    Ok(())
}

/// Whether `host` (already in normal form) equals or is a subdomain of any of
/// `domains`. Entries are compared in normal form; empty entries match
/// nothing.
pub(crate) fn any_covers(domains: &[String], host: &str) -> bool {
    domains.iter().map(|domain| canonical(domain)).any(|domain| covers(&domain, host))
}

fn covers(domain: &str, host: &str) -> bool {
    if domain.is_empty() {
        return false;
    }
    host.strip_suffix(domain).is_some_and(|rest| rest.is_empty() || rest.ends_with('.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_ordinary_names() {
        for name in [
            "example.com",
            "a.b",
            "xn--bcher-kva.de",
            "login.corp-1.example.co.uk",
            "1password.com",
            &format!("{}.com", "a".repeat(63)),
        ] {
            assert_eq!(check(name), Ok(()), "{name}");
        }
    }

    #[test]
    fn names_the_problem() {
        let long_label = format!("{}.com", "a".repeat(64));
        let too_long = format!("{}.com", vec!["a".repeat(60); 5].join("."));
        let cases = [
            (" example.com", DomainProblem::Whitespace),
            ("*.example.com", DomainProblem::Wildcard),
            ("bücher.de", DomainProblem::NonAscii),
            ("Example.com", DomainProblem::Uppercase),
            (too_long.as_str(), DomainProblem::TooLong),
            ("exa mple.com", DomainProblem::BadCharacter),
            ("example.com/path", DomainProblem::BadCharacter),
            ("a_b.com", DomainProblem::BadCharacter),
            ("a..b", DomainProblem::EmptyLabel),
            (".example.com", DomainProblem::EmptyLabel),
            ("example.com.", DomainProblem::EmptyLabel),
            ("com", DomainProblem::SingleLabel),
            (long_label.as_str(), DomainProblem::LongLabel),
            ("-a.com", DomainProblem::HyphenAtEdge),
            ("a-.com", DomainProblem::HyphenAtEdge),
            ("10.0.0.1", DomainProblem::NumericTld),
        ];
        for (name, problem) in cases {
            assert_eq!(check(name), Err(problem), "{name}");
        }
    }

    #[test]
    fn canonical_trims_strips_one_dot_and_lowercases() {
        assert_eq!(canonical("  Example.COM. "), "example.com");
        assert_eq!(canonical("a.b.."), "a.b.");
        assert_eq!(canonical("BÜCHER.de"), "bÜcher.de");
    }

    #[test]
    fn covers_equal_and_subdomains_only() {
        assert!(covers("example.com", "example.com"));
        assert!(covers("example.com", "a.b.example.com"));
        assert!(!covers("example.com", "evilexample.com"));
        assert!(!covers("example.com", "example.com.evil.net"));
        assert!(!covers("", "example.com"));
    }
}
