//! Finding a server's authorization server, as the MCP authorization
//! specification asks of a client: the server's `401` challenge names its
//! protected resource metadata (RFC 9728), else the well-known URLs are tried;
//! that names the authorization server, whose metadata comes from RFC 8414 or
//! OpenID Connect discovery. Every document must name what it was fetched for
//! (the resource, the issuer); every URL is one the egress policy allows.

use openidconnect::AsyncHttpClient;
use serde::Deserialize;

use super::ConnectError;
use super::challenge::Challenge;
use crate::sso::http::IdpClient;

/// What the server says about itself (RFC 9728).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceMetadata {
    pub resource: String,
    pub authorization_server: String,
    pub scopes_supported: Vec<String>,
}

/// What Herald needs of an authorization server (RFC 8414).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct AuthServer {
    pub issuer: String,
    pub authorization_endpoint: String,
    pub token_endpoint: String,
    pub registration_endpoint: Option<String>,
    pub revocation_endpoint: Option<String>,
    #[serde(default)]
    pub scopes_supported: Vec<String>,
    #[serde(default)]
    pub token_endpoint_auth_methods_supported: Vec<String>,
    #[serde(default)]
    pub code_challenge_methods_supported: Vec<String>,
    #[serde(default)]
    pub client_id_metadata_document_supported: bool,
    #[serde(default)]
    pub authorization_response_iss_parameter_supported: bool,
}

/// Checks a URL a tenant's server handed Herald before it is fetched: https (http only to
/// loopback on a development instance), and an address the egress policy allows.
pub type UrlCheck<'a> = &'a (dyn Fn(&str) -> Result<url::Url, ConnectError> + Sync);

/// Asks the server, without a token, what it wants: its `Bearer` challenge, if it refuses.
pub async fn probe(
    http: &IdpClient,
    check: UrlCheck<'_>,
    server_url: &str,
) -> Result<Option<Challenge>, ConnectError> {
    let url = check(server_url)?;
    let body = serde_json::json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": { "name": "herald", "version": env!("CARGO_PKG_VERSION") }
        }
    });
    let request = openidconnect::http::Request::builder()
        .method("POST")
        .uri(url.as_str())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(serde_json::to_vec(&body).expect("JSON"))
        .map_err(|e| ConnectError::Misconfigured(format!("the server URL is unusable: {e}")))?;
    let response = http.call(request).await.map_err(|e| ConnectError::Unreachable(e.to_string()))?;
    if response.status() != 401 && response.status() != 403 {
        return Ok(None);
    }
    let values: Vec<&str> =
        response.headers().get_all("www-authenticate").iter().filter_map(|v| v.to_str().ok()).collect();
    Ok(Some(Challenge::parse(values).unwrap_or_default()))
}

/// The server's protected resource metadata: where the challenge says, else the well-known
/// URLs for its address (with its path, then without).
pub async fn resource_metadata(
    http: &IdpClient,
    check: UrlCheck<'_>,
    server_url: &str,
    challenge: Option<&Challenge>,
) -> Result<ResourceMetadata, ConnectError> {
    let server = check(server_url)?;
    let mut candidates = Vec::new();
    if let Some(given) = challenge.and_then(|c| c.resource_metadata.clone()) {
        candidates.push(given);
    } else {
        let origin = server.origin().ascii_serialization();
        let path = server.path().trim_end_matches('/');
        if !path.is_empty() {
            candidates.push(format!("{origin}/.well-known/oauth-protected-resource{path}"));
        }
        candidates.push(format!("{origin}/.well-known/oauth-protected-resource"));
    }
    let mut last = None;
    for candidate in candidates {
        match fetch_json(http, check, &candidate).await {
            Ok(Some(document)) => return read_resource_metadata(&document, server_url, &candidate),
            Ok(None) => last = Some(candidate),
            Err(e) => return Err(e),
        }
    }
    Err(ConnectError::NotProtected(format!(
        "the server publishes no protected resource metadata (tried {})",
        last.unwrap_or_default()
    )))
}

fn read_resource_metadata(
    document: &serde_json::Value,
    server_url: &str,
    fetched_from: &str,
) -> Result<ResourceMetadata, ConnectError> {
    let resource = document.get("resource").and_then(serde_json::Value::as_str).unwrap_or_default();
    // RFC 9728 section 3.3: metadata for another resource is not this server's.
    if trim_slash(resource) != trim_slash(server_url) {
        return Err(ConnectError::Misconfigured(format!(
            "the metadata at {fetched_from} is for the resource {resource:?}, not this server ({server_url})"
        )));
    }
    let authorization_server = document
        .get("authorization_servers")
        .and_then(serde_json::Value::as_array)
        .and_then(|list| list.iter().find_map(serde_json::Value::as_str))
        .ok_or_else(|| {
            ConnectError::Misconfigured(format!(
                "the metadata at {fetched_from} names no authorization server"
            ))
        })?
        .to_owned();
    let scopes_supported = document
        .get("scopes_supported")
        .and_then(serde_json::Value::as_array)
        .map(|list| list.iter().filter_map(serde_json::Value::as_str).take(100).map(str::to_owned).collect())
        .unwrap_or_default();
    Ok(ResourceMetadata { resource: resource.to_owned(), authorization_server, scopes_supported })
}

/// The authorization server's metadata: RFC 8414 first, then OpenID Connect discovery, each
/// with the issuer's path where the standards put it.
pub async fn auth_server(
    http: &IdpClient,
    check: UrlCheck<'_>,
    issuer: &str,
) -> Result<AuthServer, ConnectError> {
    let url = check(issuer)?;
    let origin = url.origin().ascii_serialization();
    let path = url.path().trim_end_matches('/');
    let candidates = if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ]
    };
    for candidate in &candidates {
        let Some(document) = fetch_json(http, check, candidate).await? else { continue };
        let metadata: AuthServer = serde_json::from_value(document).map_err(|e| {
            ConnectError::Misconfigured(format!(
                "the authorization server metadata at {candidate} is not usable ({e})"
            ))
        })?;
        if trim_slash(&metadata.issuer) != trim_slash(issuer) {
            return Err(ConnectError::Misconfigured(format!(
                "the authorization server metadata at {candidate} names the issuer {:?}, not {issuer:?}",
                metadata.issuer
            )));
        }
        // PKCE with S256 is required; a server that does not say it supports it is not used.
        if !metadata.code_challenge_methods_supported.iter().any(|m| m == "S256") {
            return Err(ConnectError::Misconfigured(format!(
                "the authorization server {issuer} does not say it supports PKCE with S256"
            )));
        }
        for endpoint in [Some(&metadata.authorization_endpoint), Some(&metadata.token_endpoint)]
            .into_iter()
            .chain([metadata.registration_endpoint.as_ref(), metadata.revocation_endpoint.as_ref()])
            .flatten()
        {
            check(endpoint)?;
        }
        return Ok(metadata);
    }
    Err(ConnectError::Misconfigured(format!("the authorization server {issuer} publishes no metadata")))
}

/// A JSON document, or `None` when there is none at `url` (404).
async fn fetch_json(
    http: &IdpClient,
    check: UrlCheck<'_>,
    url: &str,
) -> Result<Option<serde_json::Value>, ConnectError> {
    let checked = check(url)?;
    let request = openidconnect::http::Request::builder()
        .method("GET")
        .uri(checked.as_str())
        .header("accept", "application/json")
        .body(Vec::new())
        .map_err(|e| ConnectError::Misconfigured(format!("{url} is unusable: {e}")))?;
    let response = http.call(request).await.map_err(|e| ConnectError::Unreachable(e.to_string()))?;
    match response.status().as_u16() {
        200 => serde_json::from_slice(response.body())
            .map(Some)
            .map_err(|e| ConnectError::Misconfigured(format!("{url} is not JSON ({e})"))),
        404 => Ok(None),
        status => Err(ConnectError::Misconfigured(format!("{url} answered HTTP {status}"))),
    }
}

pub fn trim_slash(s: &str) -> &str {
    s.strip_suffix('/').unwrap_or(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_for_another_resource_or_without_an_authorization_server_is_refused() {
        let doc = serde_json::json!({ "resource": "https://mcp.example.com/mcp", "authorization_servers": ["https://as.example.com"], "scopes_supported": ["a"] });
        let ok = read_resource_metadata(&doc, "https://mcp.example.com/mcp/", "u").unwrap();
        assert_eq!(ok.authorization_server, "https://as.example.com");
        assert_eq!(ok.scopes_supported, vec!["a"]);
        assert!(read_resource_metadata(&doc, "https://evil.example.com/mcp", "u").is_err());
        let none =
            serde_json::json!({ "resource": "https://mcp.example.com/mcp", "authorization_servers": [] });
        assert!(read_resource_metadata(&none, "https://mcp.example.com/mcp", "u").is_err());
    }
}
