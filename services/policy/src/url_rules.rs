//! URL-mode rules: which URLs a server may ask a user to open, and what about
//! a URL the dashboard should warn of.
//!
//! [`check_url`] applies the organisation's [`UrlModePolicy`] to the URL of a
//! URL-mode elicitation. The result is a [`UrlVerdict`]: a refusal (the
//! elicitation is auto-cancelled) or none, flags to show next to the URL, and
//! the host in both its ASCII (punycode) and Unicode forms, so the dashboard
//! can highlight the domain honestly.
//!
//! Refusals, checked in this order (the first one wins):
//!
//! 1. [`UrlRule::Disabled`]: the organisation turned URL mode off.
//! 2. [`UrlRule::Unparseable`]: not an absolute URL, or it contains
//!    whitespace or control characters (which a URL parser would silently
//!    drop, so what the user reads would differ from what opens).
//! 3. [`UrlRule::NotHttps`]: only `https`; plain `http` only to a loopback
//!    host (`localhost`, `127.0.0.0/8`, `::1`) and only in development.
//! 4. [`UrlRule::Unparseable`]: no host.
//! 5. [`UrlRule::Credentials`]: a user name or password in the URL.
//! 6. [`UrlRule::SecretInQuery`]: the query or fragment carries something that
//!    looks like a secret, by parameter name or by value (see below).
//! 7. [`UrlRule::Denied`] / [`UrlRule::NotAllowed`]: the domain lists, through
//!    [`UrlModePolicy::domain_allowed`]; the deny list wins.
//!
//! Secrets. A parameter (in the query, the fragment, or the query of a URL
//! nested in a parameter value) is refused when its name, ignoring case and
//! punctuation, is a credential name (`password`, `passwd`, `pwd`,
//! `passphrase`, `secret`, `client_secret`, `token`, `access_token`,
//! `refresh_token`, `id_token`, `api_key`, `apikey`, `session`, `sessionid`,
//! `sid`, `auth`, `authorization`, `private_key`, and names containing
//! `password`, `secret`, `apikey`, `privatekey`, `accesstoken`, …) and its
//! value is not empty; when it is called `key` and its value is long and
//! random-looking; or when a name or value contains a known secret format
//! (`sk_live_…`, `sk_test_…`, `rk_live_…`, `ghp_…`, `gho_…`, `ghu_…`, `ghs_…`,
//! `ghr_…`, `github_pat_…`, `xoxa-`/`xoxb-`/`xoxp-…`, `AKIA…`/`ASIA…` access
//! key ids, JWTs `eyJ….….…`, PEM private keys). OAuth authorization-request
//! parameters (`client_id`, `redirect_uri`, `response_type`, `scope`, `state`,
//! `nonce`, `code_challenge`, …) are not credential names, so a consent URL
//! passes; a JWT is tolerated in `state` and `request` (signed state and
//! signed request objects are meant to travel in the front channel), while
//! the vendor formats are refused everywhere. `oauth_token` (OAuth 1.0
//! request tokens) and page tokens are deliberately not credential names. A
//! refusal names the parameter, never its value.
//!
//! Flags, for `http` and `https` URLs with a host, whether or not the URL is
//! refused:
//!
//! - [`UrlFlag::Punycode`]: a label of the ASCII host starts with `xn--`.
//! - [`UrlFlag::MixedScript`]: a label of the Unicode host mixes letters of
//!   different scripts (say Latin and Cyrillic). Latin with Han and Kana, or
//!   with Han and Hangul, is ordinary in Japanese and Korean names and is not
//!   flagged.
//! - [`UrlFlag::Confusable`]: after folding look-alike characters (Cyrillic
//!   and Greek letters that look Latin, accented letters, `0` for `o`, `1`
//!   and `i` for `l`, `rn` for `m`, `vv` for `w`), a label or a hyphenated
//!   part of one spells a well-known brand that it does not literally spell,
//!   and the host is not under that brand's real domains. So `goog1e.com` and
//!   `аpple.com` (Cyrillic `а`) are flagged; `google.de`, `paypal-help.com`
//!   and `google.example.com` are not: spelling a brand correctly is not a
//!   look-alike, and domain lists are the tool for those.
//! - [`UrlFlag::IpAddress`]: the host is an IPv4 or IPv6 address.
//! - [`UrlFlag::NonDefaultPort`]: the URL names a port other than the scheme's
//!   default.

use serde::{Deserialize, Serialize};
use url::{Host, Url, form_urlencoded};

use crate::UrlModePolicy;
use crate::domain;

/// What [`check_url`] found.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct UrlVerdict {
    /// Why the URL may not be offered to the user, if it may not.
    pub refusal: Option<UrlRefusal>,
    /// Warnings to show next to the URL, in [`UrlFlag`] declaration order.
    pub flags: Vec<UrlFlag>,
    /// The host as the URL parser sees it: lower-case ASCII with punycode
    /// (`xn--`) labels, an IPv4 address, or an IPv6 address in brackets.
    /// `None` when the URL did not parse or has no host.
    pub host: Option<String>,
    /// The host for display: punycode labels decoded to Unicode. Equal to
    /// `host` for ASCII names and IP addresses.
    pub display_host: Option<String>,
}

impl UrlVerdict {
    /// Whether the URL is refused.
    #[must_use]
    pub fn is_refused(&self) -> bool {
        self.refusal.is_some()
    }

    /// The verdict as the decision step takes it: the refusal, or the flags.
    pub fn into_result(self) -> Result<Vec<UrlFlag>, UrlRefusal> {
        match self.refusal {
            Some(refusal) => Err(refusal),
            None => Ok(self.flags),
        }
    }
}

/// Why a URL is refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UrlRefusal {
    /// The rule that refused it.
    pub rule: UrlRule,
    /// A sentence for the user and the audit log. It may name a host or a
    /// parameter, never a secret value.
    pub reason: String,
}

/// The rules a URL can be refused by. Serialized in snake case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UrlRule {
    /// The organisation turned URL mode off.
    Disabled,
    /// Not `https` (and not `http` to loopback in development).
    NotHttps,
    /// Not an absolute URL with a host, or it contains whitespace or control
    /// characters.
    Unparseable,
    /// A user name or password in the URL.
    Credentials,
    /// A secret in the query or fragment.
    SecretInQuery,
    /// The host is on the deny list.
    Denied,
    /// The allow list is not empty and the host is not on it.
    NotAllowed,
}

/// Something about a URL the user should notice. Serialized as an object
/// tagged by `type` in snake case: `{"type":"punycode"}`,
/// `{"type":"confusable","looks_like":"google"}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum UrlFlag {
    /// The host has a punycode (`xn--`) label: it is displayed in Unicode.
    Punycode,
    /// A label of the host mixes letters of different scripts.
    MixedScript,
    /// The host looks like a well-known brand's domain and is not.
    Confusable {
        /// The brand it looks like, in lower case: `"google"`.
        looks_like: String,
    },
    /// The host is an IP address, not a name.
    IpAddress,
    /// The URL names a port other than the scheme's default.
    NonDefaultPort,
}

/// Applies the URL-mode rules of `policy` to `raw`.
///
/// `dev_mode` allows plain `http` to loopback hosts. See the
/// [module documentation](self) for the rules, their order and the flags.
#[must_use]
pub fn check_url(raw: &str, policy: &UrlModePolicy, dev_mode: bool) -> UrlVerdict {
    let parsed = parse(raw);
    let mut verdict = UrlVerdict::default();
    if let Ok(url) = &parsed
        && let Some(host) = url.host()
    {
        let ascii = url.host_str().unwrap_or_default().to_owned();
        let display = match host {
            Host::Domain(domain) => unicode_host(domain),
            Host::Ipv4(_) | Host::Ipv6(_) => ascii.clone(),
        };
        if matches!(url.scheme(), "http" | "https") {
            verdict.flags = flags(url, &host, &display);
        }
        verdict.host = Some(ascii);
        verdict.display_host = Some(display);
    }
    verdict.refusal = refusal(parsed.as_ref(), policy, dev_mode).err();
    verdict
}

fn refuse(rule: UrlRule, reason: impl Into<String>) -> UrlRefusal {
    UrlRefusal { rule, reason: reason.into() }
}

fn parse(raw: &str) -> Result<Url, UrlRefusal> {
    if raw.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(refuse(UrlRule::Unparseable, "the URL contains whitespace or control characters"));
    }
    Url::parse(raw).map_err(|e| refuse(UrlRule::Unparseable, format!("the URL does not parse: {e}")))
}

fn refusal(
    parsed: Result<&Url, &UrlRefusal>,
    policy: &UrlModePolicy,
    dev_mode: bool,
) -> Result<(), UrlRefusal> {
    if !policy.enabled {
        return Err(refuse(UrlRule::Disabled, "URL-mode elicitations are turned off for this organisation"));
    }
    let url = parsed.map_err(Clone::clone)?;
    let host = url.host();
    match url.scheme() {
        "https" => {}
        "http" if dev_mode && host.as_ref().is_some_and(is_loopback) => {}
        "http" if dev_mode => {
            return Err(refuse(UrlRule::NotHttps, "plain http is allowed only to loopback hosts"));
        }
        "http" => return Err(refuse(UrlRule::NotHttps, "only https URLs are allowed")),
        scheme => {
            let scheme: String = scheme.chars().take(MAX_QUOTED_CHARS).collect();
            return Err(refuse(UrlRule::NotHttps, format!("only https URLs are allowed, not {scheme}:")));
        }
    }
    let Some(host) = host else {
        return Err(refuse(UrlRule::Unparseable, "the URL has no host"));
    };
    if !url.username().is_empty() || url.password().is_some() {
        return Err(refuse(UrlRule::Credentials, "the URL carries a user name or password"));
    }
    if let Some(reason) = secret_in(url, MAX_NESTING) {
        return Err(refuse(UrlRule::SecretInQuery, reason));
    }
    let host_name = match host {
        Host::Domain(domain) => domain.to_owned(),
        Host::Ipv4(ip) => ip.to_string(),
        Host::Ipv6(ip) => ip.to_string(),
    };
    if !policy.domain_allowed(&host_name) {
        let denied = domain::any_covers(&policy.deny_domains, &domain::canonical(&host_name));
        return Err(if denied {
            refuse(UrlRule::Denied, format!("{host_name} is on the organisation's deny list"))
        } else {
            refuse(UrlRule::NotAllowed, format!("{host_name} is not on the organisation's allow list"))
        });
    }
    Ok(())
}

fn is_loopback(host: &Host<&str>) -> bool {
    match host {
        Host::Domain(domain) => matches!(*domain, "localhost" | "localhost."),
        Host::Ipv4(ip) => ip.is_loopback(),
        Host::Ipv6(ip) => ip.is_loopback(),
    }
}

fn unicode_host(ascii: &str) -> String {
    let unicode = url::quirks::domain_to_unicode(ascii);
    if unicode.is_empty() { ascii.to_owned() } else { unicode }
}

// --- secrets -------------------------------------------------------------------

/// How deep to follow URLs nested in parameter values (`redirect_uri=…`).
const MAX_NESTING: u8 = 2;

/// Longest excerpt of a server-chosen name quoted in a reason, in characters.
const MAX_QUOTED_CHARS: usize = 40;

/// Parameter names (lower-case, letters and digits only) that carry a
/// credential.
const SECRET_NAMES: &[&str] = &[
    "password",
    "passwd",
    "pwd",
    "passphrase",
    "secret",
    "clientsecret",
    "token",
    "accesstoken",
    "refreshtoken",
    "idtoken",
    "apikey",
    "apisecret",
    "apitoken",
    "authtoken",
    "sessiontoken",
    "session",
    "sessionid",
    "sid",
    "auth",
    "authorization",
    "bearer",
    "privatekey",
];

/// Parts of parameter names that mark a credential wherever they appear
/// (`db_password`, `x-api-key`, `client_secret_basic`).
const SECRET_NAME_PARTS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "secret",
    "privatekey",
    "apikey",
    "accesstoken",
    "refreshtoken",
    "sessionid",
    "sessiontoken",
    "authtoken",
    "apitoken",
];

/// Names that contain a credential name part but are not credentials:
/// OAuth 1.0 request tokens travel in the authorization URL by design.
const NOT_SECRET_NAMES: &[&str] = &["oauthtoken"];

/// Parameters in which a JWT is expected and not a credential: signed OAuth
/// `state` and signed request objects (RFC 9101).
const JWT_TOLERATED: &[&str] = &["state", "request"];

fn secret_in(url: &Url, depth: u8) -> Option<String> {
    let mut places: Vec<(&str, &str)> = Vec::new();
    if let Some(query) = url.query() {
        places.push(("query", query));
    }
    if let Some(fragment) = url.fragment() {
        places.push(("fragment", fragment));
        // Single-page apps put a query after a route: `#/callback?token=…`.
        if let Some((_, after)) = fragment.split_once('?') {
            places.push(("fragment", after));
        }
    }
    for (place, text) in places {
        for (name, value) in form_urlencoded::parse(text.as_bytes()) {
            if let Some(what) = secret_param(&name, &value) {
                let name: String = name.chars().take(MAX_QUOTED_CHARS).collect();
                return Some(format!("the {place} parameter \"{name}\" {what}"));
            }
            if depth > 0
                && (value.starts_with("https://") || value.starts_with("http://"))
                && let Ok(nested) = Url::parse(&value)
                && let Some(reason) = secret_in(&nested, depth - 1)
            {
                return Some(reason);
            }
        }
    }
    None
}

/// Why a parameter looks like a secret, completing a sentence that starts
/// with the parameter.
fn secret_param(name: &str, value: &str) -> Option<&'static str> {
    let key: String =
        name.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect();
    let tolerate_jwt = JWT_TOLERATED.contains(&key.as_str());
    if let Some(format) = secret_format(name, false).or_else(|| secret_format(value, tolerate_jwt)) {
        return Some(format);
    }
    if value.trim().is_empty() {
        return None;
    }
    let secret_name = SECRET_NAMES.contains(&key.as_str())
        || (SECRET_NAME_PARTS.iter().any(|part| key.contains(part))
            && !NOT_SECRET_NAMES.contains(&key.as_str()));
    if secret_name {
        return Some("carries a credential");
    }
    if key == "key" && looks_random(value) {
        return Some("looks like an API key");
    }
    None
}

/// Whether `value` looks like a random key: at least 16 characters from the
/// usual key alphabets, with letters and digits, and either mixed case or at
/// least a quarter digits (so hex and base62 keys count, `2024-annual-report`
/// does not).
fn looks_random(value: &str) -> bool {
    let len = value.len();
    let alphabet = value.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_+/=.~".contains(&b));
    let digits = value.bytes().filter(u8::is_ascii_digit).count();
    let upper = value.bytes().any(|b| b.is_ascii_uppercase());
    let lower = value.bytes().any(|b| b.is_ascii_lowercase());
    len >= 16 && alphabet && digits > 0 && (upper || lower) && ((upper && lower) || digits * 4 >= len)
}

/// A vendor prefix of secrets, the characters their body is made of, the
/// shortest body, and what to call them.
type SecretPrefix = (&'static str, fn(u8) -> bool, usize, &'static str);

const SECRET_PREFIXES: &[SecretPrefix] = &[
    ("sk_live_", is_alnum, 10, "looks like a Stripe secret key"),
    ("sk_test_", is_alnum, 10, "looks like a Stripe secret key"),
    ("rk_live_", is_alnum, 10, "looks like a Stripe restricted key"),
    ("rk_test_", is_alnum, 10, "looks like a Stripe restricted key"),
    ("github_pat_", is_alnum_underscore, 20, "looks like a GitHub token"),
    ("ghp_", is_alnum, 20, "looks like a GitHub token"),
    ("gho_", is_alnum, 20, "looks like a GitHub token"),
    ("ghu_", is_alnum, 20, "looks like a GitHub token"),
    ("ghs_", is_alnum, 20, "looks like a GitHub token"),
    ("ghr_", is_alnum, 20, "looks like a GitHub token"),
    ("xoxa-", is_alnum_hyphen, 10, "looks like a Slack token"),
    ("xoxb-", is_alnum_hyphen, 10, "looks like a Slack token"),
    ("xoxp-", is_alnum_hyphen, 10, "looks like a Slack token"),
];

fn is_alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

fn is_alnum_underscore(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn is_alnum_hyphen(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-'
}

fn is_base64url(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
}

fn run_len(bytes: &[u8], from: usize, class: impl Fn(u8) -> bool) -> usize {
    bytes.get(from..).map_or(0, |rest| rest.iter().take_while(|&&b| class(b)).count())
}

/// The known secret format found in `text`, if any. Formats are only
/// recognised at the start of a token (not after a letter or digit).
fn secret_format(text: &str, tolerate_jwt: bool) -> Option<&'static str> {
    if text.contains("-----BEGIN") && text.contains("PRIVATE KEY") {
        return Some("contains a private key");
    }
    let bytes = text.as_bytes();
    for start in 0..bytes.len() {
        if start > 0 && bytes[start - 1].is_ascii_alphanumeric() {
            continue;
        }
        let rest = &bytes[start..];
        for &(prefix, class, min_body, what) in SECRET_PREFIXES {
            if rest.starts_with(prefix.as_bytes()) && run_len(rest, prefix.len(), class) >= min_body {
                return Some(what);
            }
        }
        if (rest.starts_with(b"AKIA") || rest.starts_with(b"ASIA"))
            && run_len(rest, 4, |b| b.is_ascii_uppercase() || b.is_ascii_digit()) == 16
            && rest.get(20).is_none_or(|b| !b.is_ascii_alphanumeric())
        {
            return Some("looks like an AWS access key id");
        }
        if !tolerate_jwt && rest.starts_with(b"eyJ") && is_jwt(rest) {
            return Some("looks like a JSON Web Token");
        }
    }
    None
}

/// `header.payload.signature` in base64url, the header starting `eyJ`.
fn is_jwt(bytes: &[u8]) -> bool {
    let header = run_len(bytes, 0, is_base64url);
    if header < 10 || bytes.get(header) != Some(&b'.') {
        return false;
    }
    let payload = run_len(bytes, header + 1, is_base64url);
    payload >= 2 && bytes.get(header + 1 + payload) == Some(&b'.')
}

// --- flags ---------------------------------------------------------------------

fn flags(url: &Url, host: &Host<&str>, display: &str) -> Vec<UrlFlag> {
    let mut flags = Vec::new();
    match host {
        Host::Domain(ascii) => {
            if ascii.split('.').any(|label| label.starts_with("xn--")) {
                flags.push(UrlFlag::Punycode);
            }
            if display.split('.').any(mixes_scripts) {
                flags.push(UrlFlag::MixedScript);
            }
            if let Some(brand) = confusable_brand(ascii, display) {
                flags.push(UrlFlag::Confusable { looks_like: brand.to_owned() });
            }
        }
        Host::Ipv4(_) | Host::Ipv6(_) => flags.push(UrlFlag::IpAddress),
    }
    if url.port().is_some() {
        flags.push(UrlFlag::NonDefaultPort);
    }
    flags
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Script {
    Latin,
    Greek,
    Cyrillic,
    Armenian,
    Hebrew,
    Arabic,
    Devanagari,
    Thai,
    Georgian,
    Cherokee,
    Hangul,
    Kana,
    Han,
    Other,
}

/// The script of a letter; `None` for digits, hyphens, combining marks and
/// other characters that belong to no script in particular.
fn script_of(c: char) -> Option<Script> {
    let script = match c {
        'a'..='z'
        | 'A'..='Z'
        | 'ª'
        | 'º'
        | '\u{00C0}'..='\u{024F}'
        | '\u{0250}'..='\u{02AF}'
        | '\u{1E00}'..='\u{1EFF}'
        | '\u{2C60}'..='\u{2C7F}'
        | '\u{A720}'..='\u{A7FF}'
        | '\u{FF21}'..='\u{FF3A}'
        | '\u{FF41}'..='\u{FF5A}' => Script::Latin,
        '\u{0370}'..='\u{03FF}' | '\u{1F00}'..='\u{1FFF}' => Script::Greek,
        '\u{0400}'..='\u{052F}'
        | '\u{1C80}'..='\u{1C8F}'
        | '\u{2DE0}'..='\u{2DFF}'
        | '\u{A640}'..='\u{A69F}' => Script::Cyrillic,
        '\u{0530}'..='\u{058F}' => Script::Armenian,
        '\u{0590}'..='\u{05FF}' => Script::Hebrew,
        '\u{0600}'..='\u{06FF}' | '\u{0750}'..='\u{077F}' | '\u{08A0}'..='\u{08FF}' => Script::Arabic,
        '\u{0900}'..='\u{097F}' => Script::Devanagari,
        '\u{0E00}'..='\u{0E7F}' => Script::Thai,
        '\u{10A0}'..='\u{10FF}' => Script::Georgian,
        '\u{13A0}'..='\u{13FF}' | '\u{AB70}'..='\u{ABBF}' => Script::Cherokee,
        '\u{1100}'..='\u{11FF}' | '\u{3130}'..='\u{318F}' | '\u{AC00}'..='\u{D7AF}' => Script::Hangul,
        '\u{3040}'..='\u{30FF}' | '\u{31F0}'..='\u{31FF}' => Script::Kana,
        '\u{3400}'..='\u{4DBF}'
        | '\u{4E00}'..='\u{9FFF}'
        | '\u{F900}'..='\u{FAFF}'
        | '\u{20000}'..='\u{2FA1F}' => Script::Han,
        c if c.is_alphabetic() => Script::Other,
        _ => return None,
    };
    // Combining marks sit inside some of the ranges above; they inherit the
    // script of their base letter.
    if !c.is_alphabetic() && script != Script::Other {
        return None;
    }
    Some(script)
}

/// Whether a label mixes scripts in a way that is not ordinary CJK writing.
fn mixes_scripts(label: &str) -> bool {
    let mut scripts: Vec<Script> = Vec::new();
    for script in label.chars().filter_map(script_of) {
        if !scripts.contains(&script) {
            scripts.push(script);
        }
    }
    if scripts.len() < 2 {
        return false;
    }
    let within = |allowed: &[Script]| scripts.iter().all(|s| allowed.contains(s));
    !(within(&[Script::Latin, Script::Han, Script::Kana])
        || within(&[Script::Latin, Script::Han, Script::Hangul]))
}

/// A brand users are phished with, and the domains it really uses.
struct Brand {
    name: &'static str,
    domains: &'static [&'static str],
}

const BRANDS: &[Brand] = &[
    Brand { name: "google", domains: &["google.com", "googleapis.com", "googleusercontent.com"] },
    Brand { name: "gmail", domains: &["gmail.com", "google.com"] },
    Brand { name: "youtube", domains: &["youtube.com", "youtu.be"] },
    Brand { name: "microsoft", domains: &["microsoft.com", "microsoftonline.com", "live.com", "office.com"] },
    Brand { name: "outlook", domains: &["outlook.com", "office.com", "live.com"] },
    Brand { name: "azure", domains: &["azure.com", "microsoft.com", "windows.net"] },
    Brand { name: "apple", domains: &["apple.com", "icloud.com"] },
    Brand { name: "icloud", domains: &["icloud.com", "apple.com"] },
    Brand { name: "github", domains: &["github.com", "github.io", "githubusercontent.com", "ghe.com"] },
    Brand { name: "gitlab", domains: &["gitlab.com", "gitlab.io"] },
    Brand { name: "bitbucket", domains: &["bitbucket.org", "atlassian.com"] },
    Brand { name: "atlassian", domains: &["atlassian.com", "atlassian.net"] },
    Brand { name: "amazon", domains: &["amazon.com", "amazonaws.com"] },
    Brand { name: "paypal", domains: &["paypal.com", "paypal.me"] },
    Brand { name: "okta", domains: &["okta.com", "oktapreview.com", "okta-emea.com"] },
    Brand { name: "slack", domains: &["slack.com"] },
    Brand { name: "stripe", domains: &["stripe.com"] },
    Brand { name: "dropbox", domains: &["dropbox.com"] },
    Brand { name: "linkedin", domains: &["linkedin.com"] },
    Brand { name: "facebook", domains: &["facebook.com", "fb.com"] },
    Brand { name: "instagram", domains: &["instagram.com"] },
    Brand { name: "twitter", domains: &["twitter.com", "x.com"] },
    Brand { name: "netflix", domains: &["netflix.com"] },
    Brand { name: "cloudflare", domains: &["cloudflare.com"] },
    Brand { name: "salesforce", domains: &["salesforce.com", "force.com"] },
    Brand { name: "docusign", domains: &["docusign.com", "docusign.net"] },
    Brand { name: "zoom", domains: &["zoom.us", "zoom.com"] },
    Brand { name: "openai", domains: &["openai.com", "chatgpt.com"] },
    Brand { name: "anthropic", domains: &["anthropic.com", "claude.ai"] },
    Brand { name: "coinbase", domains: &["coinbase.com"] },
    Brand { name: "binance", domains: &["binance.com"] },
    Brand { name: "adobe", domains: &["adobe.com"] },
    Brand { name: "yahoo", domains: &["yahoo.com"] },
    Brand { name: "auth0", domains: &["auth0.com"] },
    Brand { name: "onelogin", domains: &["onelogin.com"] },
    Brand { name: "heroku", domains: &["heroku.com", "herokuapp.com"] },
    Brand { name: "vercel", domains: &["vercel.com", "vercel.app"] },
];

/// The character a look-alike character is read as. `i`, `l` and `1` all
/// become `l`, as do their look-alikes, since fonts confuse all three.
fn fold(c: char) -> char {
    match c {
        '0' | 'о' | 'ο' | 'ö' | 'ò' | 'ó' | 'ô' | 'õ' | 'ø' | 'ō' | 'ơ' | 'σ' => 'o',
        '1' | 'i' | 'l' | 'ı' | 'і' | 'ї' | 'ӏ' | 'ι' | 'í' | 'ì' | 'î' | 'ï' | 'ł' | 'ĺ' | 'ļ' | 'ľ'
        | 'ǀ' | '|' => 'l',
        'а' | 'α' | 'ɑ' | 'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ą' => 'a',
        'е' | 'ё' | 'ε' | 'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ę' | 'ė' => 'e',
        'р' | 'ρ' => 'p',
        'с' | 'ç' | 'ć' | 'č' | 'ϲ' => 'c',
        'у' | 'ү' | 'γ' | 'ý' | 'ÿ' => 'y',
        'х' | 'χ' => 'x',
        'ј' => 'j',
        'ѕ' | 'ś' | 'š' => 's',
        'ԁ' => 'd',
        'һ' => 'h',
        'ԛ' => 'q',
        'ԝ' | 'ω' => 'w',
        'ɡ' | 'ğ' => 'g',
        'ν' => 'v',
        'κ' | 'к' => 'k',
        'τ' | 'т' => 't',
        'υ' | 'ù' | 'ú' | 'û' | 'ü' | 'ū' => 'u',
        'η' | 'п' | 'ñ' | 'ń' => 'n',
        'м' => 'm',
        'ь' => 'b',
        other => other,
    }
}

/// The shape of a label as a reader might misread it.
fn skeleton(label: &str) -> String {
    let folded: String = label.chars().filter(|c| !('\u{0300}'..='\u{036F}').contains(c)).map(fold).collect();
    folded.replace("rn", "m").replace("vv", "w")
}

fn under(host: &str, domain: &str) -> bool {
    host.strip_suffix(domain).is_some_and(|rest| rest.is_empty() || rest.ends_with('.'))
}

/// The brand a host imitates with look-alike characters, if any.
fn confusable_brand(ascii_host: &str, display_host: &str) -> Option<&'static str> {
    let ascii_host = ascii_host.trim_end_matches('.');
    let labels: Vec<&str> = display_host.trim_end_matches('.').split('.').collect();
    // The top-level domain is not where brands are imitated.
    let candidates = if labels.len() > 1 { &labels[..labels.len() - 1] } else { &labels[..] };
    for label in candidates {
        for part in std::iter::once(*label).chain(label.split('-')) {
            if part.is_empty() {
                continue;
            }
            let shape = skeleton(part);
            for brand in BRANDS {
                if part != brand.name
                    && shape == skeleton(brand.name)
                    && !brand.domains.iter().any(|domain| under(ascii_host, domain))
                {
                    return Some(brand.name);
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skeletons_fold_look_alikes() {
        assert_eq!(skeleton("goog1e"), skeleton("google"));
        assert_eq!(skeleton("раураl"), "paypal");
        assert_eq!(skeleton("rnicrosoft"), skeleton("microsoft"));
        assert_eq!(skeleton("g1thub"), skeleton("github"));
        assert_ne!(skeleton("gooogle"), skeleton("google"));
    }

    #[test]
    fn scripts_mix_only_across_alphabets() {
        assert!(mixes_scripts("раураl"));
        assert!(mixes_scripts("аpple"));
        assert!(mixes_scripts("gοogle"));
        assert!(!mixes_scripts("bücher"));
        assert!(!mixes_scripts("пример"));
        assert!(!mixes_scripts("ソニーabc"));
        assert!(!mixes_scripts("서울abc"));
        assert!(!mixes_scripts("a1-b2"));
    }

    #[test]
    fn known_formats_are_found_at_token_starts_only() {
        assert!(secret_format("sk_live_4eC39HqLyjWDarjtT1zdp7dc", false).is_some());
        assert!(secret_format("task_live_4eC39HqLyjWDarjtT1zdp7dc", false).is_none());
        assert!(secret_format("Bearer ghp_16C7e42F292c6912E7710c838347Ae178B4a", false).is_some());
        assert!(secret_format("AKIAIOSFODNN7EXAMPLE", false).is_some());
        assert!(secret_format("AKIAIOSFODNN7EXAMPLEX", false).is_none());
        assert!(secret_format("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", false).is_some());
        assert!(secret_format("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", true).is_none());
        assert!(secret_format("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", false).is_none());
    }

    #[test]
    fn random_looking_values() {
        assert!(looks_random("AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"));
        assert!(looks_random("0123456789abcdef0123456789abcdef"));
        assert!(!looks_random("2024-annual-report-v2"));
        assert!(!looks_random("short1"));
        assert!(!looks_random("1234567890123456"));
    }
}
