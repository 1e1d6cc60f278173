//! The policy document through its public API: JSON shape, defaults,
//! normalisation, validation and domain matching.

use herald_policy::{CredentialAskMode, OrgPolicy, PolicyViolation, UrlModePolicy};

const DEFAULT_JSON: &str = r#"{
  "elicitation": {
    "timeout_secs": 600
  },
  "credential_ask": {
    "mode": "block",
    "extra_terms": [],
    "allow_terms": []
  },
  "decline_memory": {
    "window_secs": 86400,
    "pestering_threshold": 3
  },
  "rate_caps": {
    "per_user_server_per_minute": 6,
    "per_server_per_hour": 600,
    "per_org_per_hour": 5000,
    "max_pending_per_user": 20
  },
  "url_mode": {
    "enabled": true,
    "allow_domains": [],
    "deny_domains": []
  },
  "retention": {
    "accepted_content_days": 30
  }
}"#;

fn parse(json: &str) -> OrgPolicy {
    match serde_json::from_str(json) {
        Ok(policy) => policy,
        Err(e) => panic!("{json} should parse: {e}"),
    }
}

fn parse_err(json: &str) -> String {
    match serde_json::from_str::<OrgPolicy>(json) {
        Ok(policy) => panic!("{json} should be rejected, got {policy:?}"),
        Err(e) => e.to_string(),
    }
}

fn violations(policy: &OrgPolicy) -> Vec<PolicyViolation> {
    match policy.validate() {
        Ok(()) => panic!("{policy:?} should be invalid"),
        Err(violations) => violations,
    }
}

fn fields(policy: &OrgPolicy) -> Vec<String> {
    violations(policy).into_iter().map(|v| v.field).collect()
}

fn violation(field: &str, message: &str) -> PolicyViolation {
    PolicyViolation { field: field.to_owned(), message: message.to_owned() }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

// --- JSON shape and defaults -------------------------------------------------

#[test]
fn defaults_serialize_to_the_documented_json() {
    let json = serde_json::to_string_pretty(&OrgPolicy::default()).expect("serializes");
    assert_eq!(json, DEFAULT_JSON);
}

#[test]
fn documented_json_parses_to_the_defaults() {
    assert_eq!(parse(DEFAULT_JSON), OrgPolicy::default());
}

#[test]
fn defaults_are_valid() {
    assert_eq!(OrgPolicy::default().validate(), Ok(()));
}

#[test]
fn empty_document_takes_every_default() {
    assert_eq!(parse("{}"), OrgPolicy::default());
}

#[test]
fn partial_document_fills_in_defaults() {
    let policy = parse(
        r#"{ "rate_caps": { "per_org_per_hour": 100 },
             "credential_ask": { "mode": "warn" },
             "url_mode": { "deny_domains": ["evil.example"] } }"#,
    );
    let mut expected = OrgPolicy::default();
    expected.rate_caps.per_org_per_hour = 100;
    expected.credential_ask.mode = CredentialAskMode::Warn;
    expected.url_mode.deny_domains = strings(&["evil.example"]);
    assert_eq!(policy, expected);
}

#[test]
fn mode_values_are_lowercase() {
    for (text, mode) in [
        ("block", CredentialAskMode::Block),
        ("warn", CredentialAskMode::Warn),
        ("off", CredentialAskMode::Off),
    ] {
        let policy = parse(&format!(r#"{{"credential_ask": {{"mode": "{text}"}}}}"#));
        assert_eq!(policy.credential_ask.mode, mode);
        let json = serde_json::to_value(mode).expect("serializes");
        assert_eq!(json, serde_json::Value::String(text.to_owned()));
    }
}

#[test]
fn unknown_top_level_field_is_rejected() {
    let err = parse_err(r#"{ "elicitation": {}, "surprise": 1 }"#);
    assert!(err.contains("unknown field `surprise`"), "{err}");
}

#[test]
fn unknown_nested_fields_are_rejected() {
    for section in ["elicitation", "credential_ask", "decline_memory", "rate_caps", "url_mode", "retention"] {
        let err = parse_err(&format!(r#"{{ "{section}": {{ "surprise": 1 }} }}"#));
        assert!(err.contains("unknown field `surprise`"), "{section}: {err}");
    }
}

#[test]
fn unknown_mode_is_rejected() {
    for mode in ["\"allow\"", "\"Block\"", "\"\"", "1", "null"] {
        parse_err(&format!(r#"{{ "credential_ask": {{ "mode": {mode} }} }}"#));
    }
}

#[test]
fn wrong_types_are_rejected() {
    parse_err(r#"{ "rate_caps": { "per_org_per_hour": -1 } }"#);
    parse_err(r#"{ "rate_caps": { "per_org_per_hour": 4294967296 } }"#);
    parse_err(r#"{ "elicitation": { "timeout_secs": "600" } }"#);
    parse_err(r#"{ "url_mode": { "enabled": "yes" } }"#);
    parse_err(r#"{ "url_mode": { "allow_domains": "example.com" } }"#);
}

// --- Ranges ------------------------------------------------------------------

type Setter = fn(&mut OrgPolicy, u32);

/// Every numeric field: its path, a setter, and its valid range.
fn numeric_fields() -> Vec<(&'static str, Setter, u32, u32)> {
    vec![
        ("elicitation.timeout_secs", |p, n| p.elicitation.timeout_secs = n, 10, 86_400),
        ("decline_memory.window_secs", |p, n| p.decline_memory.window_secs = n, 60, 7_776_000),
        ("decline_memory.pestering_threshold", |p, n| p.decline_memory.pestering_threshold = n, 1, 100),
        (
            "rate_caps.per_user_server_per_minute",
            |p, n| p.rate_caps.per_user_server_per_minute = n,
            1,
            1_000_000,
        ),
        ("rate_caps.per_server_per_hour", |p, n| p.rate_caps.per_server_per_hour = n, 1, 1_000_000),
        ("rate_caps.per_org_per_hour", |p, n| p.rate_caps.per_org_per_hour = n, 1, 1_000_000),
        ("rate_caps.max_pending_per_user", |p, n| p.rate_caps.max_pending_per_user = n, 1, 10_000),
        ("retention.accepted_content_days", |p, n| p.retention.accepted_content_days = n, 1, 3_650),
    ]
}

#[test]
fn range_bounds_are_inclusive() {
    for (field, set, min, max) in numeric_fields() {
        for value in [min, max] {
            let mut policy = OrgPolicy::default();
            set(&mut policy, value);
            assert_eq!(policy.validate(), Ok(()), "{field} = {value}");
        }
    }
}

#[test]
fn each_range_violation_names_its_field() {
    for (field, set, min, max) in numeric_fields() {
        let expected = format!("must be between {min} and {max}");
        for value in [min - 1, max + 1, u32::MAX] {
            let mut policy = OrgPolicy::default();
            set(&mut policy, value);
            let message = if value == 0 && min == 1 { "must be at least 1" } else { expected.as_str() };
            assert_eq!(violations(&policy), [violation(field, message)], "{field} = {value}");
        }
    }
}

#[test]
fn zero_rate_cap_must_be_at_least_one() {
    let mut policy = OrgPolicy::default();
    policy.rate_caps.per_user_server_per_minute = 0;
    assert_eq!(
        violations(&policy),
        [violation("rate_caps.per_user_server_per_minute", "must be at least 1")]
    );
}

#[test]
fn every_violation_is_reported_in_document_order() {
    let policy = parse(
        r#"{ "elicitation": { "timeout_secs": 5 },
             "credential_ask": { "extra_terms": [""] },
             "decline_memory": { "window_secs": 0, "pestering_threshold": 101 },
             "rate_caps": { "per_user_server_per_minute": 0, "per_server_per_hour": 0,
                            "per_org_per_hour": 0, "max_pending_per_user": 10001 },
             "url_mode": { "allow_domains": ["com"] },
             "retention": { "accepted_content_days": 0 } }"#,
    );
    assert_eq!(
        violations(&policy),
        [
            violation("elicitation.timeout_secs", "must be between 10 and 86400"),
            violation("credential_ask.extra_terms[0]", "must not be empty"),
            violation("decline_memory.window_secs", "must be between 60 and 7776000"),
            violation("decline_memory.pestering_threshold", "must be between 1 and 100"),
            violation("rate_caps.per_user_server_per_minute", "must be at least 1"),
            violation("rate_caps.per_server_per_hour", "must be at least 1"),
            violation("rate_caps.per_org_per_hour", "must be at least 1"),
            violation("rate_caps.max_pending_per_user", "must be between 1 and 10000"),
            violation(
                "url_mode.allow_domains[0]",
                "\"com\" is not a domain name: it needs at least two labels, like example.com"
            ),
            violation("retention.accepted_content_days", "must be at least 1"),
        ]
    );
}

#[test]
fn violation_displays_field_and_message() {
    let v = violation("rate_caps.per_org_per_hour", "must be at least 1");
    assert_eq!(v.to_string(), "rate_caps.per_org_per_hour: must be at least 1");
    assert_eq!(
        serde_json::to_value(&v).expect("serializes"),
        serde_json::json!({ "field": "rate_caps.per_org_per_hour", "message": "must be at least 1" })
    );
}

// --- Credential-ask terms ----------------------------------------------------

fn with_terms(extra: &[&str], allow: &[&str]) -> OrgPolicy {
    let mut policy = OrgPolicy::default();
    policy.credential_ask.extra_terms = strings(extra);
    policy.credential_ask.allow_terms = strings(allow);
    policy
}

#[test]
fn reasonable_terms_are_valid() {
    let policy = with_terms(&["mot de passe", "Kennwort", "账户密码"], &["token bucket"]);
    assert_eq!(policy.validate(), Ok(()));
}

#[test]
fn bad_terms_are_reported_with_their_index() {
    let long = "x".repeat(65);
    let policy = with_terms(&["ok", "   ", " padded", long.as_str(), "tab\there"], &[""]);
    assert_eq!(
        violations(&policy),
        [
            violation("credential_ask.extra_terms[1]", "must not be empty"),
            violation("credential_ask.extra_terms[2]", "\" padded\" has leading or trailing whitespace"),
            violation(
                "credential_ask.extra_terms[3]",
                &format!("\"{}…\" is longer than 64 characters", "x".repeat(40))
            ),
            violation("credential_ask.extra_terms[4]", "\"tab\\there\" contains a control character"),
            violation("credential_ask.allow_terms[0]", "must not be empty"),
        ]
    );
}

#[test]
fn term_length_counts_characters_not_bytes() {
    let ok = "é".repeat(64);
    assert_eq!(with_terms(&[ok.as_str()], &[]).validate(), Ok(()));
    let too_long = "é".repeat(65);
    assert_eq!(fields(&with_terms(&[too_long.as_str()], &[])), ["credential_ask.extra_terms[0]"]);
}

#[test]
fn duplicate_terms_are_rejected_ignoring_case() {
    let policy = with_terms(&["Token", "pin", "TOKEN", "token"], &["a", "b", "A"]);
    assert_eq!(
        violations(&policy),
        [
            violation("credential_ask.extra_terms[2]", "\"TOKEN\" is already listed at [0]"),
            violation("credential_ask.extra_terms[3]", "\"token\" is already listed at [0]"),
            violation("credential_ask.allow_terms[2]", "\"A\" is already listed at [0]"),
        ]
    );
}

#[test]
fn term_in_both_lists_is_rejected() {
    let policy = with_terms(&["secret", "pin"], &["other", "PIN"]);
    assert_eq!(
        violations(&policy),
        [violation("credential_ask.allow_terms[1]", "\"PIN\" is also in credential_ask.extra_terms")]
    );
}

#[test]
fn too_many_terms_are_rejected() {
    let terms: Vec<String> = (0..201).map(|i| format!("term {i}")).collect();
    let mut policy = OrgPolicy::default();
    policy.credential_ask.allow_terms = terms[..200].to_vec();
    assert_eq!(policy.validate(), Ok(()));
    policy.credential_ask.allow_terms = terms;
    assert_eq!(
        violations(&policy),
        [violation("credential_ask.allow_terms", "must have at most 200 entries, not 201")]
    );
}

// --- Domains -----------------------------------------------------------------

fn with_domains(allow: &[&str], deny: &[&str]) -> OrgPolicy {
    let mut policy = OrgPolicy::default();
    policy.url_mode.allow_domains = strings(allow);
    policy.url_mode.deny_domains = strings(deny);
    policy
}

#[test]
fn good_domains_are_valid() {
    let policy = with_domains(&["example.com", "xn--bcher-kva.de", "a-b.c0.io"], &["evil.example.net"]);
    assert_eq!(policy.validate(), Ok(()));
}

#[test]
fn bad_domains_are_reported_with_their_index() {
    let long = format!("{}.com", vec!["a".repeat(62); 5].join("."));
    assert!(long.len() > 300);
    let policy = with_domains(
        &["example.com", "exa mple.com", "-a.com", "com", "a..b", "*.example.com", long.as_str()],
        &["ok.example", ""],
    );
    assert_eq!(
        violations(&policy),
        [
            violation(
                "url_mode.allow_domains[1]",
                "\"exa mple.com\" is not a domain name: only letters, digits, hyphens and dots are allowed"
            ),
            violation(
                "url_mode.allow_domains[2]",
                "\"-a.com\" is not a domain name: a label starts or ends with a hyphen"
            ),
            violation(
                "url_mode.allow_domains[3]",
                "\"com\" is not a domain name: it needs at least two labels, like example.com"
            ),
            violation("url_mode.allow_domains[4]", "\"a..b\" is not a domain name: it has an empty label"),
            violation(
                "url_mode.allow_domains[5]",
                "\"*.example.com\" is not allowed: leave out \"*.\", a domain already covers its subdomains"
            ),
            violation(
                "url_mode.allow_domains[6]",
                &format!("\"{}…\" is not a domain name: it is longer than 253 characters", &long[..40])
            ),
            violation("url_mode.deny_domains[1]", "must not be empty"),
        ]
    );
}

#[test]
fn unnormalized_domains_are_reported() {
    let policy = with_domains(&["Example.com", " example.org", "bücher.de"], &[]);
    assert_eq!(
        fields(&policy),
        ["url_mode.allow_domains[0]", "url_mode.allow_domains[1]", "url_mode.allow_domains[2]",]
    );
}

#[test]
fn duplicate_domains_are_rejected() {
    let policy = with_domains(&[], &["a.example", "b.example", "a.example"]);
    assert_eq!(
        violations(&policy),
        [violation("url_mode.deny_domains[2]", "\"a.example\" is already listed at [0]")]
    );
}

#[test]
fn domain_in_both_lists_is_rejected() {
    let policy = with_domains(&["ok.example", "example.com"], &["example.com"]);
    assert_eq!(
        violations(&policy),
        [violation("url_mode.allow_domains[1]", "\"example.com\" is also in url_mode.deny_domains")]
    );
}

#[test]
fn too_many_domains_are_rejected() {
    let domains: Vec<String> = (0..501).map(|i| format!("d{i}.example")).collect();
    let mut policy = OrgPolicy::default();
    policy.url_mode.deny_domains = domains[..500].to_vec();
    assert_eq!(policy.validate(), Ok(()));
    policy.url_mode.deny_domains = domains;
    assert_eq!(
        violations(&policy),
        [violation("url_mode.deny_domains", "must have at most 500 entries, not 501")]
    );
}

// --- normalized() ------------------------------------------------------------

#[test]
fn normalized_trims_terms_and_canonicalises_domains() {
    let mut policy = with_domains(&["  Example.COM ", "Login.Example.org."], &["\tEVIL.net\n"]);
    policy.credential_ask.extra_terms = strings(&["  Mot de Passe ", "pin"]);
    policy.credential_ask.allow_terms = strings(&["\tToken Bucket"]);
    let policy = policy.normalized();

    assert_eq!(policy.url_mode.allow_domains, ["example.com", "login.example.org"]);
    assert_eq!(policy.url_mode.deny_domains, ["evil.net"]);
    // Terms keep their case: only surrounding whitespace goes.
    assert_eq!(policy.credential_ask.extra_terms, ["Mot de Passe", "pin"]);
    assert_eq!(policy.credential_ask.allow_terms, ["Token Bucket"]);
    assert_eq!(policy.validate(), Ok(()));
}

#[test]
fn normalized_keeps_indices_and_everything_else() {
    let mut policy = with_domains(&["A.com", "a.com", "  "], &[]);
    policy.rate_caps.per_org_per_hour = 0;
    policy.credential_ask.mode = CredentialAskMode::Off;
    let normalized = policy.clone().normalized();

    assert_eq!(normalized.url_mode.allow_domains, ["a.com", "a.com", ""]);
    assert_eq!(normalized.rate_caps, policy.rate_caps);
    assert_eq!(normalized.credential_ask.mode, CredentialAskMode::Off);
    assert_eq!(
        fields(&normalized),
        ["rate_caps.per_org_per_hour", "url_mode.allow_domains[2]", "url_mode.allow_domains[1]",]
    );
}

#[test]
fn normalized_is_idempotent_and_leaves_defaults_alone() {
    assert_eq!(OrgPolicy::default().normalized(), OrgPolicy::default());
    let policy = with_domains(&[" X.example. "], &[]).normalized();
    assert_eq!(policy.clone().normalized(), policy);
}

#[test]
fn normalized_does_not_make_bad_domains_good() {
    let policy = with_domains(&["*.Example.com", "exa mple.com", "example.com.."], &[]);
    assert_eq!(
        fields(&policy.normalized()),
        ["url_mode.allow_domains[0]", "url_mode.allow_domains[1]", "url_mode.allow_domains[2]",]
    );
}

// --- domain_allowed() --------------------------------------------------------

fn url_mode(allow: &[&str], deny: &[&str]) -> UrlModePolicy {
    UrlModePolicy { enabled: true, allow_domains: strings(allow), deny_domains: strings(deny) }
}

#[test]
fn empty_lists_allow_every_host() {
    let policy = url_mode(&[], &[]);
    assert!(policy.domain_allowed("example.com"));
    assert!(policy.domain_allowed("anything.at.all"));
    assert!(!policy.domain_allowed(""));
}

#[test]
fn allow_list_covers_the_domain_and_its_subdomains() {
    let policy = url_mode(&["example.com"], &[]);
    assert!(policy.domain_allowed("example.com"));
    assert!(policy.domain_allowed("login.example.com"));
    assert!(policy.domain_allowed("a.b.example.com"));
    assert!(!policy.domain_allowed("example.org"));
}

#[test]
fn a_suffix_that_is_not_a_label_boundary_does_not_match() {
    let policy = url_mode(&["example.com"], &[]);
    assert!(!policy.domain_allowed("evilexample.com"));
    assert!(!policy.domain_allowed("example.com.evil.net"));
    assert!(!policy.domain_allowed("com"));

    let policy = url_mode(&[], &["example.com"]);
    assert!(policy.domain_allowed("evilexample.com"));
    assert!(!policy.domain_allowed("www.example.com"));
}

#[test]
fn deny_wins_over_allow() {
    let policy = url_mode(&["example.com"], &["admin.example.com"]);
    assert!(policy.domain_allowed("www.example.com"));
    assert!(!policy.domain_allowed("admin.example.com"));
    assert!(!policy.domain_allowed("x.admin.example.com"));

    let policy = url_mode(&["example.com"], &["example.com"]);
    assert!(!policy.domain_allowed("example.com"));
}

#[test]
fn hosts_compare_case_insensitively() {
    let policy = url_mode(&["example.com"], &["bad.example.com"]);
    assert!(policy.domain_allowed("WWW.Example.COM"));
    assert!(!policy.domain_allowed("BAD.example.com"));
    assert!(policy.domain_allowed("www.example.com."));

    // Entries that were never normalised still match.
    let policy = url_mode(&[" Example.COM "], &[]);
    assert!(policy.domain_allowed("www.example.com"));
}
