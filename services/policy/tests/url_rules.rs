//! URL-mode rules through the public API: each refusal rule, each flag, and
//! realistic URLs that must pass.

use herald_policy::UrlModePolicy;
use herald_policy::url_rules::{UrlFlag, UrlRule, UrlVerdict, check_url};

fn open() -> UrlModePolicy {
    UrlModePolicy::default()
}

fn lists(allow: &[&str], deny: &[&str]) -> UrlModePolicy {
    UrlModePolicy {
        enabled: true,
        allow_domains: allow.iter().map(|d| (*d).to_owned()).collect(),
        deny_domains: deny.iter().map(|d| (*d).to_owned()).collect(),
    }
}

fn check(raw: &str) -> UrlVerdict {
    check_url(raw, &open(), false)
}

fn refused_by(raw: &str, policy: &UrlModePolicy, dev_mode: bool) -> UrlRule {
    match check_url(raw, policy, dev_mode).refusal {
        Some(refusal) => refusal.rule,
        None => panic!("{raw} should be refused"),
    }
}

fn passes(raw: &str, policy: &UrlModePolicy, dev_mode: bool) -> Vec<UrlFlag> {
    match check_url(raw, policy, dev_mode).into_result() {
        Ok(flags) => flags,
        Err(refusal) => panic!("{raw} should pass, refused: {refusal:?}"),
    }
}

fn confusable(brand: &str) -> UrlFlag {
    UrlFlag::Confusable { looks_like: brand.to_owned() }
}

// --- passing URLs --------------------------------------------------------------

#[test]
fn an_ordinary_https_url_passes_without_flags() {
    let verdict = check("https://docs.example.com/setup?step=2#billing");
    assert_eq!(
        verdict,
        UrlVerdict {
            refusal: None,
            flags: vec![],
            host: Some("docs.example.com".to_owned()),
            display_host: Some("docs.example.com".to_owned()),
        }
    );
}

#[test]
fn an_oauth_consent_url_passes() {
    let consent = "https://accounts.google.com/o/oauth2/v2/auth\
        ?client_id=1234567890-abcdefghijklmnop.apps.googleusercontent.com\
        &redirect_uri=https%3A%2F%2Fmcp.example.com%2Foauth%2Fcallback\
        &response_type=code\
        &scope=openid%20email%20https%3A%2F%2Fwww.googleapis.com%2Fauth%2Fdrive.readonly\
        &state=af0ifjsldkj8s7d6f5g4h3j2k1\
        &code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM\
        &code_challenge_method=S256\
        &nonce=n-0S6_WzA2Mj\
        &access_type=offline\
        &prompt=consent\
        &login_hint=alice%40example.com";
    assert_eq!(passes(consent, &open(), false), []);
    let github = "https://github.com/login/oauth/authorize?client_id=Iv1.8a61f9b3a7aba766\
        &redirect_uri=https://mcp.example.com/cb&scope=repo%20read:org&state=3f9a2c1d7e8b";
    assert_eq!(passes(github, &open(), false), []);
    // Signed state and request objects are JWTs by design.
    let signed = "https://login.example.com/authorize?client_id=app&response_type=code\
        &state=eyJhbGciOiJIUzI1NiJ9.eyJub25jZSI6IjEyMyJ9.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk\
        &request=eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJhcHAifQ.c2lnbmF0dXJl";
    assert_eq!(passes(signed, &open(), false), []);
    // OAuth 1.0 request tokens and page tokens are not credentials.
    assert_eq!(
        passes(
            "https://api.example.com/oauth/authorize?oauth_token=Z6eEdO8MOmk394WozF5oKyuAv855l4Mlqo7hhlSLik",
            &open(),
            false
        ),
        []
    );
}

#[test]
fn the_verdict_serializes_with_snake_case_tags() {
    let verdict = check("http://accounts.goog1e.com:8443/");
    let json = serde_json::to_value(&verdict).expect("serializes");
    assert_eq!(
        json,
        serde_json::json!({
            "refusal": { "rule": "not_https", "reason": "only https URLs are allowed" },
            "flags": [ { "type": "confusable", "looks_like": "google" }, { "type": "non_default_port" } ],
            "host": "accounts.goog1e.com",
            "display_host": "accounts.goog1e.com"
        })
    );
}

// --- refusals ------------------------------------------------------------------

#[test]
fn disabled_url_mode_refuses_everything() {
    let policy = UrlModePolicy { enabled: false, ..UrlModePolicy::default() };
    let verdict = check_url("https://example.com/", &policy, false);
    assert_eq!(verdict.refusal.map(|r| r.rule), Some(UrlRule::Disabled));
    assert_eq!(verdict.host.as_deref(), Some("example.com"));
}

#[test]
fn only_https_except_loopback_http_in_development() {
    assert_eq!(refused_by("http://example.com/", &open(), false), UrlRule::NotHttps);
    assert_eq!(refused_by("http://example.com/", &open(), true), UrlRule::NotHttps);
    assert_eq!(refused_by("http://localhost:3000/cb", &open(), false), UrlRule::NotHttps);
    assert_eq!(refused_by("http://192.168.1.10/", &open(), true), UrlRule::NotHttps);
    assert_eq!(refused_by("http://localhost.example.com/", &open(), true), UrlRule::NotHttps);
    for raw in
        ["javascript:alert(1)", "data:text/html,<b>hi</b>", "file:///etc/passwd", "ftp://example.com/x"]
    {
        assert_eq!(refused_by(raw, &open(), true), UrlRule::NotHttps, "{raw}");
    }
    assert_eq!(passes("http://localhost:3000/cb", &open(), true), [UrlFlag::NonDefaultPort]);
    assert_eq!(passes("http://127.0.0.1/", &open(), true), [UrlFlag::IpAddress]);
    assert_eq!(passes("http://127.8.9.10/", &open(), true), [UrlFlag::IpAddress]);
    assert_eq!(passes("http://[::1]:8080/", &open(), true), [UrlFlag::IpAddress, UrlFlag::NonDefaultPort]);
}

#[test]
fn unparseable_urls_are_refused() {
    for raw in [
        "",
        "example.com/path",
        "/relative/path",
        "https://",
        "https://exa mple.com/",
        "https://example.com/\n",
        "https://exa\tmple.com/",
        " https://example.com/",
        "https://[::1/",
        "mailto:alice@example.com",
    ] {
        let expected = if raw.starts_with("mailto:") { UrlRule::NotHttps } else { UrlRule::Unparseable };
        assert_eq!(refused_by(raw, &open(), false), expected, "{raw:?}");
    }
}

#[test]
fn userinfo_is_refused() {
    for raw in ["https://user:pw@example.com/", "https://user@example.com/", "https://:pw@example.com/"] {
        assert_eq!(refused_by(raw, &open(), false), UrlRule::Credentials, "{raw}");
    }
}

#[test]
fn secrets_in_the_query_or_fragment_are_refused() {
    for raw in [
        "https://example.com/login?password=hunter2",
        "https://example.com/?PassWord=x",
        "https://example.com/?db_password=x",
        "https://example.com/?pwd=x",
        "https://example.com/?passwd=x",
        "https://example.com/?secret=x",
        "https://example.com/token?client_secret=abc",
        "https://example.com/?token=abc",
        "https://example.com/?access_token=abc",
        "https://example.com/?refresh-token=abc",
        "https://example.com/?id_token=abc",
        "https://example.com/?api_key=abc",
        "https://example.com/?apiKey=abc",
        "https://example.com/?X-Api-Key=abc",
        "https://example.com/?session=abc",
        "https://example.com/?sessionid=abc",
        "https://example.com/?sid=abc",
        "https://example.com/?auth=abc",
        "https://example.com/?authorization=Bearer%20abc",
        "https://example.com/?private_key=abc",
        "https://example.com/cb#access_token=abc&token_type=bearer",
        "https://example.com/#/callback?token=abc",
        "https://example.com/?key=AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
        "https://example.com/?key=0123456789abcdef0123456789abcdef",
        "https://example.com/?note=sk_live_4eC39HqLyjWDarjtT1zdp7dc",
        "https://example.com/?q=sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        "https://example.com/?x=ghp_16C7e42F292c6912E7710c838347Ae178B4a",
        "https://example.com/?x=gho_16C7e42F292c6912E7710c838347Ae178B4a",
        "https://example.com/?x=github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
        "https://example.com/?x=xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
        "https://example.com/?x=xoxp-123456789012-1234567890123",
        "https://example.com/?x=AKIAIOSFODNN7EXAMPLE",
        "https://example.com/?jwt=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",
        "https://example.com/#eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig",
        "https://example.com/?id_token_hint=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig",
        "https://example.com/?sk_live_4eC39HqLyjWDarjtT1zdp7dc",
        "https://example.com/?next=https%3A%2F%2Fother.example%2F%3Faccess_token%3Dabc",
        "https://example.com/?state=sk_live_4eC39HqLyjWDarjtT1zdp7dc",
        "https://example.com/?oauth_token=ghp_16C7e42F292c6912E7710c838347Ae178B4a",
    ] {
        assert_eq!(refused_by(raw, &open(), false), UrlRule::SecretInQuery, "{raw}");
    }
}

#[test]
fn secret_refusals_name_the_parameter_not_the_value() {
    let verdict = check("https://example.com/?note=ok&client_secret=s3cr3t-v4lue");
    let refusal = verdict.refusal.expect("refused");
    assert_eq!(refusal.reason, "the query parameter \"client_secret\" carries a credential");
    assert!(!refusal.reason.contains("s3cr3t"));
}

#[test]
fn harmless_parameters_pass() {
    for raw in [
        "https://example.com/?password=",
        "https://example.com/?key=en-US",
        "https://example.com/?key=2024-annual-report-v2",
        "https://example.com/?tokens_remaining=5",
        "https://example.com/?pageToken=CAoQAA",
        "https://example.com/?csrf_token=abc",
        "https://example.com/?task_live_thing=1",
        "https://example.com/?ref=github&utm_source=mcp",
        "https://example.com/#section-2",
        "https://example.com/docs/sk_live_keys_explained",
    ] {
        assert_eq!(passes(raw, &open(), false), [], "{raw}");
    }
}

#[test]
fn deny_wins_over_allow() {
    let policy = lists(&["example.com"], &["evil.example.com"]);
    assert_eq!(passes("https://login.example.com/", &policy, false), []);
    assert_eq!(refused_by("https://evil.example.com/", &policy, false), UrlRule::Denied);
    assert_eq!(refused_by("https://a.evil.example.com/", &policy, false), UrlRule::Denied);
    assert_eq!(refused_by("https://other.org/", &policy, false), UrlRule::NotAllowed);
    assert_eq!(refused_by("https://EXAMPLE.com.evil.net/", &policy, false), UrlRule::NotAllowed);
    assert_eq!(refused_by("https://93.184.216.34/", &policy, false), UrlRule::NotAllowed);
    let deny_only = lists(&[], &["evil.net"]);
    assert_eq!(refused_by("https://www.evil.net./x", &deny_only, false), UrlRule::Denied);
    assert_eq!(passes("https://good.net/", &deny_only, false), []);
    let verdict = check_url("https://evil.example.com/", &policy, false);
    assert_eq!(
        verdict.refusal.expect("refused").reason,
        "evil.example.com is on the organisation's deny list"
    );
}

#[test]
fn internationalised_domains_match_lists_in_punycode() {
    let policy = lists(&[], &["xn--bcher-kva.de"]);
    assert_eq!(refused_by("https://bücher.de/", &policy, false), UrlRule::Denied);
    assert_eq!(refused_by("https://shop.xn--bcher-kva.de/", &policy, false), UrlRule::Denied);
}

#[test]
fn the_first_failing_rule_wins() {
    // Disabled before anything else; unparseable before scheme.
    let disabled = UrlModePolicy { enabled: false, ..UrlModePolicy::default() };
    assert_eq!(refused_by("http://user:pw@x.com/?token=1", &disabled, false), UrlRule::Disabled);
    assert_eq!(refused_by("http://x .com", &open(), false), UrlRule::Unparseable);
    // Scheme before credentials, credentials before secrets, secrets before lists.
    assert_eq!(refused_by("http://user:pw@x.com/?token=1", &open(), false), UrlRule::NotHttps);
    assert_eq!(refused_by("https://user:pw@x.com/?token=1", &open(), false), UrlRule::Credentials);
    let policy = lists(&[], &["x.com"]);
    assert_eq!(refused_by("https://x.com/?token=1", &policy, false), UrlRule::SecretInQuery);
    assert_eq!(refused_by("https://x.com/", &policy, false), UrlRule::Denied);
}

// --- flags ---------------------------------------------------------------------

#[test]
fn digit_look_alikes_are_confusable() {
    let verdict = check("https://accounts.goog1e.com/o/oauth2/auth?client_id=x");
    assert_eq!(verdict.refusal, None);
    assert_eq!(verdict.flags, [confusable("google")]);
    assert_eq!(check("https://g00gle.com/").flags, [confusable("google")]);
    assert_eq!(check("https://rnicrosoft.com/").flags, [confusable("microsoft")]);
    assert_eq!(check("https://s1ack.com/").flags, [confusable("slack")]);
    assert_eq!(check("https://paypa1-login.com/").flags, [confusable("paypal")]);
    assert_eq!(check("https://login.micros0ft.example.net/").flags, [confusable("microsoft")]);
}

#[test]
fn punycode_cyrillic_apple_is_flagged_three_ways() {
    let verdict = check("https://xn--pple-43d.com");
    assert_eq!(verdict.refusal, None);
    assert_eq!(verdict.host.as_deref(), Some("xn--pple-43d.com"));
    assert_eq!(verdict.display_host.as_deref(), Some("\u{0430}pple.com"));
    assert_eq!(verdict.flags, [UrlFlag::Punycode, UrlFlag::MixedScript, confusable("apple")]);
}

#[test]
fn cyrillic_paypal_is_flagged() {
    // р, а, у are Cyrillic; the final l is Latin.
    let verdict = check("https://раураl.com");
    assert_eq!(verdict.refusal, None);
    let host = verdict.host.clone().expect("host");
    assert!(host.starts_with("xn--"), "{host}");
    assert_eq!(verdict.display_host.as_deref(), Some("раураl.com"));
    assert_eq!(verdict.flags, [UrlFlag::Punycode, UrlFlag::MixedScript, confusable("paypal")]);
}

#[test]
fn whole_script_look_alikes_are_confusable_without_mixing() {
    // Every letter Cyrillic: not mixed, but it reads "apple".
    let verdict = check("https://аррӏе.com/");
    assert_eq!(verdict.flags, [UrlFlag::Punycode, confusable("apple")]);
    // Greek omicrons in a Latin word.
    let verdict = check("https://gοοgle.com/");
    assert_eq!(verdict.flags, [UrlFlag::Punycode, UrlFlag::MixedScript, confusable("google")]);
}

#[test]
fn ordinary_international_names_are_only_punycode() {
    assert_eq!(check("https://bücher.de/").flags, [UrlFlag::Punycode]);
    assert_eq!(check("https://bücher.de/").display_host.as_deref(), Some("bücher.de"));
    assert_eq!(check("https://пример.рф/").flags, [UrlFlag::Punycode]);
    assert_eq!(check("https://例え.jp/").flags, [UrlFlag::Punycode]);
}

#[test]
fn real_brand_domains_and_correct_spellings_are_not_flagged() {
    for raw in [
        "https://accounts.google.com/",
        "https://google.de/",
        "https://github.com/login",
        "https://myorg.okta.com/",
        "https://google.example.com/",
        "https://paypal-help.example.com/",
        "https://openid.example.com/",
        "https://1password.com/",
        "https://applied.example.com/",
    ] {
        assert_eq!(check(raw).flags, [], "{raw}");
    }
}

#[test]
fn ip_addresses_and_ports_are_flagged() {
    assert_eq!(check("https://93.184.216.34/").flags, [UrlFlag::IpAddress]);
    assert_eq!(check("https://[2001:db8::1]/").flags, [UrlFlag::IpAddress]);
    assert_eq!(check("https://[2001:db8::1]/").host.as_deref(), Some("[2001:db8::1]"));
    // The URL parser reads odd IPv4 spellings as what the browser opens.
    assert_eq!(check("https://0x5d.184.216.34/").host.as_deref(), Some("93.184.216.34"));
    assert_eq!(check("https://example.com:8443/").flags, [UrlFlag::NonDefaultPort]);
    assert_eq!(check("https://example.com:443/").flags, []);
}
