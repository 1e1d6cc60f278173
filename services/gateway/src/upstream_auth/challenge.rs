//! A `WWW-Authenticate: Bearer …` challenge (RFC 6750 section 3, RFC 9728
//! section 5.1): where the server's protected resource metadata is, the scopes
//! it wants, and why it refused. Read leniently (servers write it many ways)
//! and boundedly (it is the server's text).

/// What a `Bearer` challenge says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Challenge {
    pub resource_metadata: Option<String>,
    pub scope: Option<String>,
    pub error: Option<String>,
}

/// Longer challenges are not read.
const MAX_LEN: usize = 4096;

impl Challenge {
    /// The `Bearer` challenge among `values` (each a `WWW-Authenticate` header's value).
    pub fn parse<'a>(values: impl IntoIterator<Item = &'a str>) -> Option<Challenge> {
        values.into_iter().filter(|v| v.len() <= MAX_LEN).find_map(parse_one)
    }
}

fn parse_one(value: &str) -> Option<Challenge> {
    let rest = value.trim_start();
    let (scheme, params) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return None;
    }
    let mut challenge = Challenge::default();
    for (name, value) in params_of(params) {
        let slot = match name.to_ascii_lowercase().as_str() {
            "resource_metadata" => &mut challenge.resource_metadata,
            "scope" => &mut challenge.scope,
            "error" => &mut challenge.error,
            _ => continue,
        };
        if slot.is_none() && !value.chars().any(char::is_control) {
            *slot = Some(value);
        }
    }
    Some(challenge)
}

/// `name=value` or `name="quoted \"value\""`, separated by commas.
fn params_of(input: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut chars = input.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace() || *c == ',') {
            chars.next();
        }
        let name: String = std::iter::from_fn(|| chars.next_if(|c| *c != '=' && *c != ',')).collect();
        if name.trim().is_empty() {
            break;
        }
        if chars.next() != Some('=') {
            continue;
        }
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        let mut value = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            while let Some(c) = chars.next() {
                match c {
                    '\\' => value.extend(chars.next()),
                    '"' => break,
                    c => value.push(c),
                }
            }
        } else {
            value = std::iter::from_fn(|| chars.next_if(|c| *c != ',')).collect::<String>().trim().to_owned();
        }
        out.push((name.trim().to_owned(), value));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bearer_challenge_gives_its_metadata_url_scope_and_error() {
        let c = Challenge::parse([
            r#"Basic realm="x""#,
            r#"Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", error_description="needs \"write\"""#,
        ])
        .unwrap();
        assert_eq!(
            c.resource_metadata.as_deref(),
            Some("https://mcp.example.com/.well-known/oauth-protected-resource")
        );
        assert_eq!(c.scope.as_deref(), Some("files:read files:write"));
        assert_eq!(c.error.as_deref(), Some("insufficient_scope"));
        let bare = Challenge::parse(["bearer resource_metadata=https://a.example/prm,scope=x"]).unwrap();
        assert_eq!(bare.resource_metadata.as_deref(), Some("https://a.example/prm"));
        assert_eq!(bare.scope.as_deref(), Some("x"));
        assert_eq!(Challenge::parse(["Bearer"]), Some(Challenge::default()));
        assert_eq!(Challenge::parse([r#"Basic realm="x""#]), None);
    }
}
