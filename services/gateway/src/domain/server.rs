use std::collections::BTreeMap;
use std::net::IpAddr;

use axum::http::{HeaderName, HeaderValue};

use super::{Invalid, invalid};

/// The Streamable HTTP endpoint of a remote MCP server. `https` is required;
/// plain `http` is allowed only to loopback, because the registry's headers
/// usually carry credentials. Credentials in the URL itself (user and
/// password, or a query parameter named like one: `api_key`, `token`, `sig`…)
/// are refused: every member sees the URL, and credentials belong in the
/// (encrypted, write-only) headers.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(transparent)]
pub struct ServerUrl(url::Url);

impl ServerUrl {
    pub const MAX_LEN: usize = 2048;

    pub fn parse(raw: &str) -> Result<Self, Invalid> {
        if raw.len() > Self::MAX_LEN {
            return invalid(format!("must be at most {} characters", Self::MAX_LEN));
        }
        let url = match url::Url::parse(raw.trim()) {
            Ok(url) => url,
            Err(e) => return invalid(format!("is not a valid URL ({e})")),
        };
        let Some(host) = url.host_str() else {
            return invalid("must include a host");
        };
        match url.scheme() {
            "https" => {}
            "http" if is_loopback(host) => {}
            "http" => return invalid("must use https (plain http is allowed only to loopback)"),
            other => return invalid(format!("must be an https URL, not {other}:")),
        }
        if !url.username().is_empty() || url.password().is_some() {
            return invalid("may not contain credentials; put them in headers");
        }
        if url.fragment().is_some() {
            return invalid("may not contain a #fragment");
        }
        if let Some((name, _)) = url.query_pairs().find(|(name, _)| looks_like_credential(name)) {
            return invalid(format!(
                "may not carry a credential in its query ({name}=…): every member sees the URL; \
                 send it as a header instead, where it is encrypted and never shown again"
            ));
        }
        Ok(Self(url))
    }

    /// When this URL's origin (scheme, host, port) differs from the stored
    /// URL's, the problem with keeping the stored header values: they were
    /// entered for that origin only, and must not follow a URL elsewhere.
    pub fn moves_headers_from(&self, stored: &str) -> Option<String> {
        let before = url::Url::parse(stored).ok().map(|u| u.origin());
        if before.as_ref() == Some(&self.0.origin()) {
            return None;
        }
        let was = before.map(|o| o.ascii_serialization()).unwrap_or_else(|| "the old URL".into());
        Some(format!(
            "must be given again when the URL's scheme, host or port changes: the stored values were \
             entered for {was} and are never sent elsewhere; re-enter them, or send {{}} to remove them"
        ))
    }

    /// A stored URL as members may see it: the values of query parameters
    /// named like credentials (registered before they were refused) hidden.
    pub fn display_form(stored: &str) -> String {
        let Ok(mut url) = url::Url::parse(stored) else { return stored.to_owned() };
        if !url.query_pairs().any(|(name, _)| looks_like_credential(&name)) {
            return stored.to_owned();
        }
        let pairs: Vec<(String, String)> = url
            .query_pairs()
            .map(|(name, value)| {
                let value = if looks_like_credential(&name) { "redacted".into() } else { value.into_owned() };
                (name.into_owned(), value)
            })
            .collect();
        url.query_pairs_mut().clear().extend_pairs(pairs);
        url.into()
    }

    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    pub fn url(&self) -> &url::Url {
        &self.0
    }
}

/// Whether a query parameter's name says it carries a credential: one of its
/// words (split at punctuation and camelCase) is a credential word, or ends
/// like one (`accesstoken`, `apikey`).
fn looks_like_credential(name: &str) -> bool {
    const WORDS: &[&str] = &[
        "auth",
        "authorization",
        "bearer",
        "credential",
        "credentials",
        "hmac",
        "jwt",
        "key",
        "otp",
        "pass",
        "passphrase",
        "passwd",
        "password",
        "pwd",
        "secret",
        "session",
        "sessionid",
        "sig",
        "signature",
        "token",
    ];
    const ENDINGS: &[&str] = &["key", "passwd", "password", "secret", "signature", "token"];
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut after_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() || (c.is_uppercase() && after_lower) {
            words.push(std::mem::take(&mut word));
        }
        if c.is_alphanumeric() {
            word.extend(c.to_lowercase());
        }
        after_lower = c.is_lowercase() || c.is_numeric();
    }
    words.push(word);
    words
        .iter()
        .filter(|w| !w.is_empty())
        .any(|w| WORDS.contains(&w.as_str()) || ENDINGS.iter().any(|e| w.len() > e.len() && w.ends_with(e)))
}

fn is_loopback(host: &str) -> bool {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || bare.parse::<IpAddr>().is_ok_and(|ip| ip.to_canonical().is_loopback())
}

/// Headers Herald sends to an upstream server on the organisation's behalf,
/// typically `Authorization`. Their values are secrets: encrypted at rest and
/// never returned. Names that Herald itself manages on the wire are refused.
#[derive(Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct HeaderSet(BTreeMap<String, String>);

impl HeaderSet {
    pub const MAX_HEADERS: usize = 32;
    pub const MAX_VALUE_BYTES: usize = 8192;

    /// Parses `{name: value}`; errors are per header name.
    pub fn parse(raw: &BTreeMap<String, String>) -> Result<Self, Vec<(String, Invalid)>> {
        let mut errors = Vec::new();
        let mut parsed = BTreeMap::new();
        if raw.len() > Self::MAX_HEADERS {
            errors.push((String::new(), Invalid(format!("at most {} headers", Self::MAX_HEADERS))));
        }
        for (name, value) in raw {
            match Self::parse_one(name, value) {
                Ok(canonical) => {
                    if parsed.insert(canonical, value.clone()).is_some() {
                        errors.push((name.clone(), Invalid("is given twice".into())));
                    }
                }
                Err(e) => errors.push((name.clone(), e)),
            }
        }
        if errors.is_empty() { Ok(Self(parsed)) } else { Err(errors) }
    }

    fn parse_one(name: &str, value: &str) -> Result<String, Invalid> {
        let Ok(header) = HeaderName::from_bytes(name.as_bytes()) else {
            return invalid("is not a valid HTTP header name");
        };
        let canonical = header.as_str().to_owned();
        if RESERVED.contains(&canonical.as_str()) || canonical.starts_with("sec-") {
            return invalid("is managed by Herald and cannot be set");
        }
        if value.len() > Self::MAX_VALUE_BYTES {
            return invalid(format!("value must be at most {} bytes", Self::MAX_VALUE_BYTES));
        }
        if HeaderValue::from_str(value).is_err() {
            return invalid("value contains characters not allowed in an HTTP header");
        }
        Ok(canonical)
    }

    pub fn names(&self) -> Vec<String> {
        self.0.keys().cloned().collect()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Never print header values, not even in debug output.
impl std::fmt::Debug for HeaderSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.0.keys()).finish()
    }
}

/// Header names that carry the MCP transport itself or hop-by-hop semantics.
const RESERVED: &[&str] = &[
    "accept",
    "connection",
    "content-length",
    "content-type",
    "cookie",
    "host",
    "keep-alive",
    "last-event-id",
    "mcp-method",
    "mcp-name",
    "mcp-protocol-version",
    "mcp-session-id",
    "origin",
    "proxy-authorization",
    "te",
    "trailer",
    "traceparent",
    "tracestate",
    "transfer-encoding",
    "upgrade",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        assert!(ServerUrl::parse("https://mcp.example.com/mcp").is_ok());
        assert!(ServerUrl::parse("http://127.0.0.1:3901/mcp").is_ok());
        assert!(ServerUrl::parse("http://localhost:3901/mcp").is_ok());
        assert!(ServerUrl::parse("http://[::1]:3901/mcp").is_ok());
        for bad in [
            "mcp.example.com",
            "http://mcp.example.com/",
            "ftp://example.com",
            "https://user:pw@example.com/",
            "https://example.com/#x",
            "javascript:alert(1)",
        ] {
            assert!(ServerUrl::parse(bad).is_err(), "{bad:?} should be refused");
        }
    }

    #[test]
    fn credentials_in_the_query_are_refused_and_hidden() {
        for bad in [
            "https://mcp.example.com/mcp?api_key=sk-1",
            "https://mcp.example.com/mcp?apiKey=sk-1",
            "https://mcp.example.com/mcp?APIKEY=sk-1",
            "https://mcp.example.com/mcp?x-api-key=sk-1",
            "https://mcp.example.com/mcp?profile=p&token=t",
            "https://mcp.example.com/mcp?access_token=t",
            "https://mcp.example.com/mcp?accessToken=t",
            "https://mcp.example.com/mcp?client_secret=s",
            "https://mcp.example.com/mcp?password=p",
            "https://mcp.example.com/mcp?sig=abc&sv=2024",
            "https://mcp.example.com/mcp?X-Amz-Signature=abc",
            "https://mcp.example.com/mcp?X-Amz-Credential=abc",
            "https://mcp.example.com/mcp?auth=abc",
            "https://mcp.example.com/mcp?key=abc",
            "https://mcp.example.com/mcp?%6Bey=abc",
        ] {
            let err = ServerUrl::parse(bad).unwrap_err();
            assert!(err.0.contains("send it as a header"), "{bad}: {err}");
        }
        for fine in [
            "https://mcp.example.com/mcp?profile=work",
            "https://mcp.example.com/mcp?keyword=x&author=y&tokenizer=z&passage=1",
            "https://mcp.example.com/mcp?region=eu&v=2",
        ] {
            assert!(ServerUrl::parse(fine).is_ok(), "{fine}");
        }
        assert_eq!(
            ServerUrl::display_form("https://old.example/mcp?profile=a&api_key=sk-live-1"),
            "https://old.example/mcp?profile=a&api_key=redacted"
        );
        assert_eq!(ServerUrl::display_form("https://a.example/mcp?x=%20y"), "https://a.example/mcp?x=%20y");
    }

    #[test]
    fn the_headers_stay_with_their_origin() {
        let moved = |from: &str, to: &str| ServerUrl::parse(to).unwrap().moves_headers_from(from);
        assert_eq!(moved("https://a.example/mcp", "https://a.example/v2/mcp?x=1"), None);
        assert_eq!(moved("https://a.example/mcp", "https://A.EXAMPLE:443/mcp"), None);
        let problem = moved("https://a.example/mcp", "https://b.example/mcp").unwrap();
        assert!(problem.contains("entered for https://a.example and"), "{problem}");
        assert!(moved("https://a.example/mcp", "https://a.example:8443/mcp").is_some());
        assert!(moved("http://127.0.0.1:3000/mcp", "https://127.0.0.1:3000/mcp").is_some());
        assert!(moved("http://127.0.0.1:3000/mcp", "http://localhost:3000/mcp").is_some());
    }

    #[test]
    fn headers() {
        let ok: BTreeMap<_, _> = [("Authorization".to_string(), "Bearer abc".to_string())].into();
        let set = HeaderSet::parse(&ok).unwrap();
        assert_eq!(set.names(), vec!["authorization"]);
        assert_eq!(format!("{set:?}"), "[\"authorization\"]");
        for (name, value) in [("Host", "x"), ("bad name", "x"), ("x-key", "a\nb"), ("Mcp-Session-Id", "1")] {
            let raw: BTreeMap<_, _> = [(name.to_string(), value.to_string())].into();
            assert!(HeaderSet::parse(&raw).is_err(), "{name:?} should be refused");
        }
        let dup: BTreeMap<_, _> =
            [("X-Key".to_string(), "a".to_string()), ("x-key".to_string(), "b".to_string())].into();
        assert!(HeaderSet::parse(&dup).is_err());
    }
}
