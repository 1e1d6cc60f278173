//! What Herald knows of each identity provider: its discovery document and
//! signing keys, fetched on first use and kept for an hour. A token signed with
//! a key Herald has not seen yet (the provider rotated its keys) makes it fetch
//! them again, at most once per [`REFETCH_AT_MOST_EVERY`], so a flood of bad
//! tokens cannot turn Herald into a load on the provider.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use openidconnect::core::CoreProviderMetadata;
use openidconnect::{AsyncHttpClient, JsonWebKeySet};

use super::SignInError;
use super::http::IdpClient;
use super::settings::ProviderSettings;

const KEEP_FOR: Duration = Duration::from_secs(3600);
pub const REFETCH_AT_MOST_EVERY: Duration = Duration::from_secs(10);

/// A provider's metadata with its key set.
pub struct Discovered {
    pub metadata: CoreProviderMetadata,
    /// The provider says it sends `iss` with every authorization response (RFC 9207).
    pub sends_iss: bool,
    /// The issuer exactly as the provider spells it (and as its tokens must).
    pub issuer: String,
    /// The issuer URL it was fetched for (a provider whose issuer changed is fetched anew).
    fetched_for: url::Url,
    fetched_at: Instant,
    /// Fetched because a token named a key Herald did not know (such fetches are rationed).
    for_unknown_key: bool,
}

pub struct Directory {
    http: IdpClient,
    known: Mutex<HashMap<String, Arc<Discovered>>>,
}

impl Directory {
    pub fn new(http: IdpClient) -> Self {
        Directory { http, known: Mutex::new(HashMap::new()) }
    }

    pub fn http(&self) -> &IdpClient {
        &self.http
    }

    /// The provider's metadata, fetched when not known or older than an hour.
    pub async fn get(&self, provider: &ProviderSettings) -> Result<Arc<Discovered>, SignInError> {
        if let Some(known) = self.cached(provider).filter(|d| d.fetched_at.elapsed() < KEEP_FOR) {
            return Ok(known);
        }
        self.fetch(provider, false).await
    }

    /// Fetches the metadata and keys again (a token named a key not in `seen`), unless `seen`
    /// is no longer the latest (someone else already did) or the latest such fetch was
    /// moments ago; returns what is known then.
    pub async fn refresh(
        &self,
        provider: &ProviderSettings,
        seen: &Arc<Discovered>,
    ) -> Result<Arc<Discovered>, SignInError> {
        match self.cached(provider) {
            Some(latest) if !Arc::ptr_eq(&latest, seen) => Ok(latest),
            Some(latest) if latest.for_unknown_key && latest.fetched_at.elapsed() < REFETCH_AT_MOST_EVERY => {
                Ok(latest)
            }
            _ => self.fetch(provider, true).await,
        }
    }

    // One entry per provider (an organisation that changes its issuer replaces its entry).
    fn cached(&self, provider: &ProviderSettings) -> Option<Arc<Discovered>> {
        self.known
            .lock()
            .expect("not poisoned")
            .get(&provider.key)
            .filter(|d| d.fetched_for == provider.issuer)
            .cloned()
    }

    async fn fetch(
        &self,
        provider: &ProviderSettings,
        for_unknown_key: bool,
    ) -> Result<Arc<Discovered>, SignInError> {
        let mut discovered = discover(&self.http, &provider.issuer).await?;
        discovered.for_unknown_key = for_unknown_key;
        let discovered = Arc::new(discovered);
        self.known.lock().expect("not poisoned").insert(provider.key.clone(), discovered.clone());
        Ok(discovered)
    }
}

/// The issuer without a trailing slash: how issuers are compared (OpenID Connect Discovery
/// wants them identical; a URL parser adds a slash to a bare origin).
pub fn normalised_issuer(issuer: &str) -> &str {
    issuer.strip_suffix('/').unwrap_or(issuer)
}

async fn discover(http: &IdpClient, issuer: &url::Url) -> Result<Discovered, SignInError> {
    let wanted = normalised_issuer(issuer.as_str());
    let document_url = format!("{wanted}/.well-known/openid-configuration");
    let request = openidconnect::http::Request::builder()
        .method("GET")
        .uri(&document_url)
        .header("accept", "application/json")
        .body(Vec::new())
        .map_err(|e| {
            SignInError::Misconfigured(format!("the discovery URL {document_url} is unusable: {e}"))
        })?;
    let response = http.call(request).await.map_err(|e| SignInError::Unreachable(e.to_string()))?;
    if response.status() != 200 {
        return Err(SignInError::Misconfigured(format!(
            "{document_url} answered HTTP {} instead of its discovery document",
            response.status().as_u16()
        )));
    }
    let document: serde_json::Value = serde_json::from_slice(response.body()).map_err(|e| {
        SignInError::Misconfigured(format!("the discovery document at {document_url} is not JSON ({e})"))
    })?;
    // The issuer's metadata must name the issuer it was fetched for: anything else is a
    // document Herald was not meant to trust (OpenID Connect Discovery 1.0, section 4.3).
    let stated = document.get("issuer").and_then(serde_json::Value::as_str).unwrap_or_default().to_owned();
    if normalised_issuer(&stated) != wanted {
        return Err(SignInError::Misconfigured(format!(
            "the discovery document at {document_url} names the issuer {stated:?}, not {wanted:?}"
        )));
    }
    let sends_iss = document
        .get("authorization_response_iss_parameter_supported")
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(false);
    let metadata: CoreProviderMetadata = serde_json::from_value(document).map_err(|e| {
        SignInError::Misconfigured(format!("the discovery document at {document_url} is not usable ({e})"))
    })?;
    let keys = JsonWebKeySet::fetch_async(metadata.jwks_uri(), http).await.map_err(|e| {
        SignInError::Misconfigured(format!(
            "the signing keys at {} could not be read ({e})",
            metadata.jwks_uri().as_str()
        ))
    })?;
    let metadata = metadata.set_jwks(keys);
    Ok(Discovered {
        metadata,
        sends_iss,
        issuer: stated,
        fetched_for: issuer.clone(),
        fetched_at: Instant::now(),
        for_unknown_key: false,
    })
}
