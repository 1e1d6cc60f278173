//! Herald as an OAuth client of one authorization server: which client
//! identity it uses there (the admin's pre-registered client, else a Client ID
//! Metadata Document, else dynamic registration, RFC 7591), and the requests
//! it makes with it (authorization with PKCE and `resource`, RFC 8707; code
//! exchange, refresh and revocation, RFC 7009), through the `oauth2` crate over
//! Herald's bounded, egress-checked HTTP client.

use oauth2::basic::{BasicClient, BasicTokenResponse};
use oauth2::{
    AuthType, AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, PkceCodeChallenge,
    PkceCodeVerifier, RedirectUrl, RefreshToken, RequestTokenError, Scope, StandardRevocableToken, TokenUrl,
};
use openidconnect::AsyncHttpClient;
use time::OffsetDateTime;

use super::ConnectError;
use super::discovery::AuthServer;
use crate::sso::http::IdpClient;
use crate::storage::Server;
use crate::storage::connections::UpstreamClient;

/// A client identity, with its secret opened.
#[derive(Clone)]
pub struct ClientIdentity {
    pub client_id: String,
    pub secret: Option<String>,
    /// `client_secret_basic`, `client_secret_post` or `none`.
    pub auth_method: String,
}

/// How Herald describes itself to authorization servers.
pub struct Herald<'a> {
    pub public_url: &'a url::Url,
    pub redirect_uri: &'a str,
    /// Where Herald's Client ID Metadata Document is, when it can offer one (an https URL).
    pub metadata_document: Option<&'a str>,
    pub development: bool,
}

/// The token endpoint authentication for a client holding `secret`: the first of the secret
/// methods the server lists (its preference), `client_secret_basic` when it lists none (the
/// RFC 8414 default).
fn auth_method_for(secret: bool, supported: &[String]) -> String {
    if !secret {
        return "none".into();
    }
    supported
        .iter()
        .find(|m| *m == "client_secret_basic" || *m == "client_secret_post")
        .cloned()
        .unwrap_or_else(|| "client_secret_basic".into())
}

/// The admin's client for this authorization server, if there is one and it is for it.
pub fn preregistered(
    server: &Server,
    meta: &AuthServer,
    secret: Option<String>,
) -> Result<Option<ClientIdentity>, ConnectError> {
    let Some(client) = &server.oauth_client else { return Ok(None) };
    if let Some(issuer) = &client.issuer
        && super::discovery::trim_slash(issuer) != super::discovery::trim_slash(&meta.issuer)
    {
        return Err(ConnectError::Misconfigured(format!(
            "the client credentials an admin entered are for {issuer}, but the server now names {} as its \
             authorization server: an admin must enter credentials for it",
            meta.issuer
        )));
    }
    Ok(Some(ClientIdentity {
        client_id: client.client_id.clone(),
        auth_method: auth_method_for(secret.is_some(), &meta.token_endpoint_auth_methods_supported),
        secret,
    }))
}

/// Registers Herald with the authorization server: by its metadata document where the server
/// takes one, else dynamically (RFC 7591). The result is for the caller to store.
pub async fn register(
    http: &IdpClient,
    herald: &Herald<'_>,
    server_id: uuid::Uuid,
    meta: &AuthServer,
    seal: impl Fn(&str) -> Vec<u8>,
) -> Result<(UpstreamClient, ClientIdentity), ConnectError> {
    let now = OffsetDateTime::now_utc();
    if meta.client_id_metadata_document_supported
        && let Some(document) = herald.metadata_document
    {
        let identity =
            ClientIdentity { client_id: document.to_owned(), secret: None, auth_method: "none".into() };
        let row = UpstreamClient {
            server_id,
            issuer: meta.issuer.clone(),
            client_id: document.to_owned(),
            client_secret_sealed: None,
            registration: "metadata_document".into(),
            auth_method: "none".into(),
            created_at: now,
        };
        return Ok((row, identity));
    }
    let Some(endpoint) = &meta.registration_endpoint else {
        return Err(ConnectError::NoClient(format!(
            "{} takes neither a client metadata document nor dynamic registration: an admin must register \
             Herald there (redirect URI {}) and enter the client id and secret in the server's settings",
            meta.issuer, herald.redirect_uri
        )));
    };
    let wanted_auth = auth_method_for(true, &meta.token_endpoint_auth_methods_supported);
    let host = herald.public_url.host_str().unwrap_or("herald");
    let body = serde_json::json!({
        "client_name": format!("Herald ({host})"),
        "client_uri": herald.public_url.as_str(),
        "redirect_uris": [herald.redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": wanted_auth,
        // A Herald on this machine is a locally hosted web application (MCP, client registration).
        "application_type": if herald.development { "native" } else { "web" },
    });
    let mut body = body;
    // Some servers grant later only what was registered: ask for every scope they list.
    if !meta.scopes_supported.is_empty() {
        body["scope"] = serde_json::Value::String(meta.scopes_supported.join(" "));
    }
    let request = openidconnect::http::Request::builder()
        .method("POST")
        .uri(endpoint)
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .body(serde_json::to_vec(&body).expect("JSON"))
        .map_err(|e| ConnectError::Misconfigured(format!("the registration endpoint is unusable: {e}")))?;
    let response = http.call(request).await.map_err(|e| ConnectError::Unreachable(e.to_string()))?;
    let status = response.status().as_u16();
    let answer: serde_json::Value = serde_json::from_slice(response.body()).unwrap_or_default();
    if !(200..300).contains(&status) {
        let error = answer.get("error").and_then(|e| e.as_str()).unwrap_or("registration refused");
        let description = answer.get("error_description").and_then(|e| e.as_str());
        return Err(ConnectError::Refused {
            error: format!("{error} (registering Herald at {}, HTTP {status})", meta.issuer),
            description: description.map(str::to_owned),
        });
    }
    let client_id = answer
        .get("client_id")
        .and_then(|v| v.as_str())
        .filter(|id| !id.is_empty() && id.len() <= 512)
        .ok_or_else(|| ConnectError::Misconfigured("the registration answer carries no client_id".into()))?
        .to_owned();
    let secret =
        answer.get("client_secret").and_then(|v| v.as_str()).filter(|s| s.len() <= 1024).map(str::to_owned);
    let auth_method = answer
        .get("token_endpoint_auth_method")
        .and_then(|v| v.as_str())
        .filter(|m| ["client_secret_basic", "client_secret_post", "none"].contains(m))
        .map(str::to_owned)
        .unwrap_or_else(|| auth_method_for(secret.is_some(), &meta.token_endpoint_auth_methods_supported));
    let row = UpstreamClient {
        server_id,
        issuer: meta.issuer.clone(),
        client_id: client_id.clone(),
        client_secret_sealed: secret.as_deref().map(&seal),
        registration: "dynamic".into(),
        auth_method: auth_method.clone(),
        created_at: now,
    };
    Ok((row, ClientIdentity { client_id, secret, auth_method }))
}

fn oauth_client(
    identity: &ClientIdentity,
    meta: &AuthServer,
    redirect_uri: &str,
) -> Result<
    BasicClient<
        oauth2::EndpointSet,
        oauth2::EndpointNotSet,
        oauth2::EndpointNotSet,
        oauth2::EndpointNotSet,
        oauth2::EndpointSet,
    >,
    ConnectError,
> {
    let bad =
        |what: &str| ConnectError::Misconfigured(format!("the authorization server's {what} is not a URL"));
    let mut client = BasicClient::new(ClientId::new(identity.client_id.clone()))
        .set_auth_uri(
            AuthUrl::new(meta.authorization_endpoint.clone()).map_err(|_| bad("authorization endpoint"))?,
        )
        .set_token_uri(TokenUrl::new(meta.token_endpoint.clone()).map_err(|_| bad("token endpoint"))?)
        .set_redirect_uri(RedirectUrl::new(redirect_uri.to_owned()).map_err(|_| bad("redirect URI"))?)
        .set_auth_type(if identity.auth_method == "client_secret_basic" {
            AuthType::BasicAuth
        } else {
            AuthType::RequestBody
        });
    if let Some(secret) = &identity.secret
        && identity.auth_method != "none"
    {
        client = client.set_client_secret(ClientSecret::new(secret.clone()));
    }
    Ok(client)
}

/// Where to send the person, and the PKCE verifier and state to keep.
pub struct Authorization {
    pub url: url::Url,
    pub state: String,
    pub pkce_verifier: String,
}

/// The OpenID scope that asks for a refresh token.
pub const OFFLINE_ACCESS: &str = "offline_access";

pub fn authorize(
    identity: &ClientIdentity,
    meta: &AuthServer,
    redirect_uri: &str,
    resource: &str,
    scopes: &[String],
) -> Result<Authorization, ConnectError> {
    let client = oauth_client(identity, meta, redirect_uri)?;
    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    let mut request = client
        .authorize_url(CsrfToken::new_random)
        .set_pkce_challenge(challenge)
        .add_extra_param("resource", resource);
    for scope in scopes {
        request = request.add_scope(Scope::new(scope.clone()));
    }
    // OpenID Connect Core section 11: `offline_access` (a refresh token) is granted only on a
    // request that also asks for consent.
    if scopes.iter().any(|s| s == OFFLINE_ACCESS) {
        request = request.add_extra_param("prompt", "consent");
    }
    let (url, state) = request.url();
    Ok(Authorization { url, state: state.secret().clone(), pkce_verifier: verifier.secret().clone() })
}

/// What a token endpoint gave.
pub struct Tokens {
    pub access_token: String,
    pub refresh_token: Option<String>,
    pub expires_at: Option<OffsetDateTime>,
    /// As granted, or as asked for when the server did not say.
    pub scopes: Vec<String>,
}

fn tokens_of(response: BasicTokenResponse, asked: &[String]) -> Result<Tokens, ConnectError> {
    use oauth2::TokenResponse;
    if !matches!(response.token_type(), oauth2::basic::BasicTokenType::Bearer) {
        return Err(ConnectError::TokenRejected("the token is not a bearer token".into()));
    }
    let access_token = response.access_token().secret().clone();
    if access_token.is_empty() || access_token.len() > 8192 {
        return Err(ConnectError::TokenRejected("the access token is empty or too long".into()));
    }
    Ok(Tokens {
        access_token,
        refresh_token: response.refresh_token().map(|t| t.secret().clone()).filter(|t| t.len() <= 8192),
        expires_at: response.expires_in().map(|d| {
            OffsetDateTime::now_utc() + time::Duration::seconds(d.as_secs().min(10 * 365 * 86_400) as i64)
        }),
        scopes: response
            .scopes()
            .map(|s| s.iter().map(|s| s.to_string()).collect())
            .unwrap_or_else(|| asked.to_vec()),
    })
}

fn token_error<E: std::error::Error + 'static>(
    e: RequestTokenError<E, oauth2::StandardErrorResponse<oauth2::basic::BasicErrorResponseType>>,
) -> ConnectError {
    match e {
        RequestTokenError::ServerResponse(refusal) => ConnectError::Refused {
            error: refusal.error().as_ref().to_owned(),
            description: refusal.error_description().cloned(),
        },
        RequestTokenError::Request(e) => ConnectError::Unreachable(e.to_string()),
        RequestTokenError::Parse(e, _) => {
            ConnectError::TokenRejected(format!("the token response is not usable ({e})"))
        }
        RequestTokenError::Other(e) => ConnectError::TokenRejected(e),
    }
}

#[allow(clippy::too_many_arguments)]
pub async fn exchange(
    http: &IdpClient,
    identity: &ClientIdentity,
    meta: &AuthServer,
    redirect_uri: &str,
    resource: &str,
    code: String,
    pkce_verifier: String,
    asked: &[String],
) -> Result<Tokens, ConnectError> {
    let client = oauth_client(identity, meta, redirect_uri)?;
    let response = client
        .exchange_code(AuthorizationCode::new(code))
        .set_pkce_verifier(PkceCodeVerifier::new(pkce_verifier))
        .add_extra_param("resource", resource)
        .request_async(http)
        .await
        .map_err(token_error)?;
    tokens_of(response, asked)
}

pub async fn refresh(
    http: &IdpClient,
    identity: &ClientIdentity,
    meta: &AuthServer,
    redirect_uri: &str,
    resource: &str,
    refresh_token: &str,
    granted: &[String],
) -> Result<Tokens, ConnectError> {
    let client = oauth_client(identity, meta, redirect_uri)?;
    let token = RefreshToken::new(refresh_token.to_owned());
    let response = client
        .exchange_refresh_token(&token)
        .add_extra_param("resource", resource)
        .request_async(http)
        .await
        .map_err(token_error)?;
    let mut tokens = tokens_of(response, granted)?;
    // A server that does not rotate refresh tokens keeps the one it gave.
    if tokens.refresh_token.is_none() {
        tokens.refresh_token = Some(refresh_token.to_owned());
    }
    Ok(tokens)
}

/// Revokes a token where the authorization server offers revocation (RFC 7009); `Ok(false)`
/// when it does not. Written here rather than through `oauth2`, which refuses any revocation
/// endpoint that is not https, and so every development server on loopback; the endpoint was
/// checked like every other URL the server named (`UpstreamAuth::check_url`).
pub async fn revoke(
    http: &IdpClient,
    identity: &ClientIdentity,
    meta: &AuthServer,
    token: StandardRevocableToken,
) -> Result<bool, ConnectError> {
    use base64::Engine;
    let Some(endpoint) = &meta.revocation_endpoint else { return Ok(false) };
    let (value, hint) = match &token {
        StandardRevocableToken::RefreshToken(t) => (t.secret().as_str(), "refresh_token"),
        StandardRevocableToken::AccessToken(t) => (t.secret().as_str(), "access_token"),
        _ => return Ok(false),
    };
    // Built in a block: the form serializer is not `Send`, and must not live across the await.
    let request = {
        let mut form = url::form_urlencoded::Serializer::new(String::new());
        form.append_pair("token", value).append_pair("token_type_hint", hint);
        // The client id goes in the body with every method: some servers want it there even
        // with Basic authentication.
        form.append_pair("client_id", &identity.client_id);
        let mut request = openidconnect::http::Request::builder()
            .method("POST")
            .uri(endpoint)
            .header("content-type", "application/x-www-form-urlencoded")
            .header("accept", "application/json");
        match (identity.auth_method.as_str(), &identity.secret) {
            ("client_secret_basic", Some(secret)) => {
                let encode = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
                let pair = format!("{}:{}", encode(&identity.client_id), encode(secret));
                request = request.header(
                    "authorization",
                    format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(pair)),
                );
            }
            ("client_secret_post", Some(secret)) => {
                form.append_pair("client_secret", secret);
            }
            _ => {}
        }
        request
            .body(form.finish().into_bytes())
            .map_err(|e| ConnectError::Misconfigured(format!("the revocation endpoint is unusable: {e}")))?
    };
    let response = http.call(request).await.map_err(|e| ConnectError::Unreachable(e.to_string()))?;
    match response.status().as_u16() {
        200 => Ok(true),
        status => {
            let answer: serde_json::Value = serde_json::from_slice(response.body()).unwrap_or_default();
            Err(ConnectError::Refused {
                error: format!(
                    "{} (revocation, HTTP {status})",
                    answer.get("error").and_then(|e| e.as_str()).unwrap_or("refused")
                ),
                description: answer.get("error_description").and_then(|e| e.as_str()).map(str::to_owned),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::auth_method_for;

    #[test]
    fn the_servers_preferred_secret_method_else_basic() {
        assert_eq!(auth_method_for(true, &[]), "client_secret_basic");
        assert_eq!(auth_method_for(true, &["client_secret_post".into()]), "client_secret_post");
        assert_eq!(
            auth_method_for(
                true,
                &["private_key_jwt".into(), "client_secret_post".into(), "client_secret_basic".into()]
            ),
            "client_secret_post"
        );
        assert_eq!(auth_method_for(false, &["client_secret_basic".into()]), "none");
    }
}
