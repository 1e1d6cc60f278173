//! The authorization code flow with PKCE against one provider: the request
//! that sends the browser there, and what its answer is worth once the code
//! has been exchanged and the ID token checked (signature with the provider's
//! current keys, issuer, audience, expiry, nonce).

use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use openidconnect::core::{CoreAuthenticationFlow, CoreClient, CoreClientAuthMethod};
use openidconnect::{
    AuthType, AuthorizationCode, ClaimsVerificationError, ClientId, ClientSecret, CsrfToken, Nonce,
    PkceCodeChallenge, PkceCodeVerifier, RedirectUrl, RequestTokenError, Scope, SignatureVerificationError,
    TokenResponse,
};

use super::SignInError;
use super::directory::{Directory, Discovered};
use super::settings::ProviderSettings;

/// At most this many groups are read from a groups claim, each at most this long.
const MAX_GROUPS: usize = 500;
const MAX_GROUP_LEN: usize = 256;

/// Where to send the browser, and what must be kept until it comes back.
pub struct Started {
    pub authorize_url: url::Url,
    pub state: String,
    pub nonce: String,
    pub pkce_verifier: String,
}

/// Who the provider says signed in, from a verified ID token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asserted {
    pub subject: String,
    pub email: Option<String>,
    pub email_verified: Option<bool>,
    pub name: Option<String>,
    pub groups: Vec<String>,
}

pub fn start(provider: &ProviderSettings, discovered: &Discovered, redirect: &RedirectUrl) -> Started {
    let client = client(provider, discovered, redirect);
    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    let mut request = client
        .authorize_url(CoreAuthenticationFlow::AuthorizationCode, CsrfToken::new_random, Nonce::new_random)
        .set_pkce_challenge(challenge);
    for scope in &provider.scopes {
        request = request.add_scope(Scope::new(scope.clone()));
    }
    let (authorize_url, state, nonce) = request.url();
    Started {
        authorize_url,
        state: state.secret().clone(),
        nonce: nonce.secret().clone(),
        pkce_verifier: verifier.secret().clone(),
    }
}

/// Exchanges `code` and verifies the ID token that comes with it. A token signed with a key
/// not in the known key set has the keys fetched again once (the provider rotated them).
pub async fn finish(
    directory: &Directory,
    provider: &ProviderSettings,
    mut discovered: Arc<Discovered>,
    redirect: &RedirectUrl,
    code: String,
    pkce_verifier: String,
    nonce: &str,
) -> Result<Asserted, SignInError> {
    let client = client(provider, &discovered, redirect);
    let exchange = client
        .exchange_code(AuthorizationCode::new(code))
        .map_err(|_| SignInError::Misconfigured("the provider's metadata names no token endpoint".into()))?
        .set_pkce_verifier(PkceCodeVerifier::new(pkce_verifier));
    let response = exchange.request_async(directory.http()).await.map_err(|e| match e {
        RequestTokenError::ServerResponse(refusal) => SignInError::Refused {
            error: refusal.error().as_ref().to_owned(),
            description: refusal.error_description().cloned(),
        },
        RequestTokenError::Request(e) => SignInError::Unreachable(e.to_string()),
        RequestTokenError::Parse(e, _) => {
            SignInError::TokenRejected(format!("the token response is not usable ({e})"))
        }
        RequestTokenError::Other(e) => SignInError::TokenRejected(e),
    })?;
    let id_token = response
        .id_token()
        .ok_or_else(|| SignInError::TokenRejected("the token response carries no ID token".into()))?;
    let nonce = Nonce::new(nonce.to_owned());
    let mut refetched = false;
    let claims = loop {
        let client = self::client(provider, &discovered, redirect);
        match id_token.claims(&client.id_token_verifier(), &nonce) {
            Ok(claims) => break claims.clone(),
            Err(ClaimsVerificationError::SignatureVerification(
                SignatureVerificationError::NoMatchingKey,
            )) if !refetched => {
                refetched = true;
                discovered = directory.refresh(provider, &discovered).await?;
            }
            Err(ClaimsVerificationError::Expired(_)) => return Err(SignInError::TokenExpired),
            Err(e) => return Err(SignInError::TokenRejected(verification_failure(&e))),
        }
    };
    Ok(Asserted {
        subject: claims.subject().as_str().to_owned(),
        email: claims.email().map(|e| e.as_str().to_owned()),
        email_verified: claims.email_verified(),
        name: claims.name().and_then(|n| n.get(None)).map(|n| n.as_str().to_owned()),
        groups: provider
            .groups_claim
            .as_deref()
            .map(|claim| groups(&id_token.to_string(), claim))
            .unwrap_or_default(),
    })
}

fn client(
    provider: &ProviderSettings,
    discovered: &Discovered,
    redirect: &RedirectUrl,
) -> CoreClient<
    openidconnect::EndpointSet,
    openidconnect::EndpointNotSet,
    openidconnect::EndpointNotSet,
    openidconnect::EndpointNotSet,
    openidconnect::EndpointMaybeSet,
    openidconnect::EndpointMaybeSet,
> {
    // client_secret_basic unless the provider only takes the secret in the body.
    let methods = discovered.metadata.token_endpoint_auth_methods_supported();
    let post_only = methods.is_some_and(|m| {
        m.contains(&CoreClientAuthMethod::ClientSecretPost)
            && !m.contains(&CoreClientAuthMethod::ClientSecretBasic)
    });
    CoreClient::from_provider_metadata(
        discovered.metadata.clone(),
        ClientId::new(provider.client_id.clone()),
        Some(ClientSecret::new(provider.client_secret.clone())),
    )
    .set_redirect_uri(redirect.clone())
    .set_auth_type(if post_only { AuthType::RequestBody } else { AuthType::BasicAuth })
}

/// The groups claim, read from the (already verified) token's payload: the library's typed
/// claims know only the standard ones. Strings only, bounded in number and length.
fn groups(jwt: &str, claim: &str) -> Vec<String> {
    let Some(payload) = jwt.split('.').nth(1) else { return Vec::new() };
    let Ok(bytes) = URL_SAFE_NO_PAD.decode(payload.trim_end_matches('=')) else { return Vec::new() };
    let Ok(claims) = serde_json::from_slice::<serde_json::Value>(&bytes) else { return Vec::new() };
    match claims.get(claim) {
        Some(serde_json::Value::Array(items)) => items
            .iter()
            .filter_map(serde_json::Value::as_str)
            .filter(|g| g.len() <= MAX_GROUP_LEN)
            .take(MAX_GROUPS)
            .map(str::to_owned)
            .collect(),
        Some(serde_json::Value::String(one)) if one.len() <= MAX_GROUP_LEN => vec![one.clone()],
        _ => Vec::new(),
    }
}

fn verification_failure(e: &ClaimsVerificationError) -> String {
    match e {
        ClaimsVerificationError::InvalidAudience(_) => "the ID token was issued to another client".into(),
        ClaimsVerificationError::InvalidIssuer(_) => "the ID token names another issuer".into(),
        ClaimsVerificationError::InvalidNonce(_) => {
            "the ID token answers another sign-in (its nonce does not match)".into()
        }
        ClaimsVerificationError::SignatureVerification(_) => {
            "the ID token's signature does not verify with the provider's keys".into()
        }
        other => format!("the ID token is not acceptable ({other})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_are_read_as_strings_and_bounded() {
        let payload = URL_SAFE_NO_PAD.encode(
            serde_json::json!({ "groups": ["a", 7, "b", "x".repeat(300)], "one": "solo" }).to_string(),
        );
        let jwt = format!("h.{payload}.s");
        assert_eq!(groups(&jwt, "groups"), vec!["a", "b"]);
        assert_eq!(groups(&jwt, "one"), vec!["solo"]);
        assert!(groups(&jwt, "missing").is_empty());
        assert!(groups("not a jwt", "groups").is_empty());
    }
}
