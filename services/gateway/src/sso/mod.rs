//! Signing in to the dashboard through an identity provider (OpenID Connect).
//!
//! - `settings`: the operator's provider and whether passwords may be used; an
//!   organisation's own provider (stored, `storage::org_providers`) as used;
//! - `directory`: each provider's discovery document and keys, cached, with
//!   key rotation followed;
//! - `flow`: the authorization code flow with PKCE and the ID token's checks;
//! - `http`: the bounded HTTP client the library talks through.
//!
//! The browser's side (the redirects, the cookie that binds an attempt to the
//! browser that started it, who the person becomes) is in `api::sso`.

pub mod directory;
pub mod flow;
pub mod http;
pub mod settings;

use self::directory::Directory;
use self::http::IdpClient;
use self::settings::{ProviderSettings, SignInSettings};
use crate::crypto::Keys;
use crate::storage::{Org, Store, StoreError};

/// Why a sign-in through a provider did not happen. `code` goes to the sign-in page,
/// which says it in words; `detail` (never a secret) goes with it and to the log.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignInError {
    #[error("there is no such identity provider")]
    NoProvider,
    #[error("this sign-in was already used, or it expired")]
    AttemptUnknown,
    #[error("this sign-in was started in another browser")]
    OtherBrowser,
    #[error("the answer came from another issuer: {0}")]
    WrongIssuer(String),
    #[error("the provider refused: {error}")]
    Refused { error: String, description: Option<String> },
    #[error("the provider could not be reached: {0}")]
    Unreachable(String),
    #[error("the provider is misconfigured: {0}")]
    Misconfigured(String),
    #[error("the provider's answer was rejected: {0}")]
    TokenRejected(String),
    #[error("the provider's ID token has expired")]
    TokenExpired,
    #[error("the provider did not say who you are by e-mail")]
    NoEmail,
    #[error("the provider has not verified your e-mail address")]
    EmailUnverified,
    #[error("{0} is not among the e-mail domains that may sign in here")]
    DomainNotAllowed(String),
    #[error("{domain} is not an e-mail domain confirmed for {org}")]
    DomainNotConfirmed { domain: String, org: String },
    #[error("an account with this e-mail exists and is not linked to this provider")]
    NotLinked,
    #[error("{0} removed you")]
    Removed(String),
    #[error("the organisation {0} does not exist")]
    NoOrganisation(String),
}

impl SignInError {
    /// The word the sign-in page knows the failure by.
    pub fn code(&self) -> &'static str {
        match self {
            SignInError::NoProvider => "no_provider",
            SignInError::AttemptUnknown => "attempt_unknown",
            SignInError::OtherBrowser => "other_browser",
            SignInError::WrongIssuer(_) => "wrong_issuer",
            SignInError::Refused { .. } => "refused",
            SignInError::Unreachable(_) => "unreachable",
            SignInError::Misconfigured(_) => "misconfigured",
            SignInError::TokenRejected(_) => "token_rejected",
            SignInError::TokenExpired => "token_expired",
            SignInError::NoEmail => "no_email",
            SignInError::EmailUnverified => "email_unverified",
            SignInError::DomainNotAllowed(_) => "domain_not_allowed",
            SignInError::DomainNotConfirmed { .. } => "domain_not_confirmed",
            SignInError::NotLinked => "not_linked",
            SignInError::Removed(_) => "removed",
            SignInError::NoOrganisation(_) => "misconfigured",
        }
    }

    /// What the page shows besides its sentence for the code (bounded: it may quote the provider).
    pub fn detail(&self) -> Option<String> {
        let text = match self {
            SignInError::WrongIssuer(s)
            | SignInError::Unreachable(s)
            | SignInError::Misconfigured(s)
            | SignInError::TokenRejected(s)
            | SignInError::DomainNotAllowed(s)
            | SignInError::Removed(s) => s.clone(),
            SignInError::NoOrganisation(slug) => format!("the organisation {slug} does not exist"),
            SignInError::DomainNotConfirmed { domain, org } => {
                format!(
                    "{org}'s identity provider may sign in people of {domain} once this Herald's operator has confirmed the domain is {org}'s"
                )
            }
            SignInError::Refused { error, description } => match description {
                Some(d) => format!("{error}: {d}"),
                None => error.clone(),
            },
            _ => return None,
        };
        Some(text.chars().filter(|c| !c.is_control()).take(300).collect())
    }
}

/// The sign-in settings, and what is known of their providers.
pub struct SignIn {
    pub settings: SignInSettings,
    /// The operator's provider's metadata: reached where the operator said, no egress filter.
    pub directory: Directory,
    /// Organisations' providers' metadata: URLs of a tenant's choosing, held to the egress
    /// policy like upstream servers.
    pub org_directory: Directory,
}

/// The context an organisation provider's client secret is sealed in.
pub fn org_secret_context(org_id: uuid::Uuid) -> Vec<u8> {
    format!("org {org_id} identity provider client secret").into_bytes()
}

impl SignIn {
    pub fn new(settings: SignInSettings, egress: &crate::egress::EgressPolicy) -> Self {
        SignIn {
            settings,
            directory: Directory::new(IdpClient::new(None)),
            org_directory: Directory::new(IdpClient::new(Some(egress.resolver()))),
        }
    }

    /// Where `provider`'s metadata is kept.
    pub fn directory_for(&self, provider: &ProviderSettings) -> &Directory {
        if provider.is_org_provider() { &self.org_directory } else { &self.directory }
    }

    /// The provider `key` names: the operator's, or an organisation's own (read from the
    /// database each time, so a change or a removal holds at once on every replica).
    pub async fn provider(
        &self,
        store: &dyn Store,
        keys: &Keys,
        key: &str,
    ) -> Result<Option<ProviderSettings>, StoreError> {
        if let Some(instance) = self.settings.instance_provider.as_ref().filter(|p| p.key == key) {
            return Ok(Some(instance.clone()));
        }
        let Some(org_id) = ProviderSettings::org_of_key(key) else { return Ok(None) };
        let Some(org) = store.org_by_id(org_id).await? else { return Ok(None) };
        self.org_provider(store, keys, &org).await
    }

    /// The organisation's own provider, when the operator allows them and it has one.
    pub async fn org_provider(
        &self,
        store: &dyn Store,
        keys: &Keys,
        org: &Org,
    ) -> Result<Option<ProviderSettings>, StoreError> {
        if !self.settings.org_providers {
            return Ok(None);
        }
        let Some(stored) = store.org_provider(org.id).await? else { return Ok(None) };
        let secret = keys
            .open(&org_secret_context(org.id), &stored.client_secret_sealed)
            .ok()
            .and_then(|s| String::from_utf8(s).ok())
            .ok_or_else(|| StoreError::Unreadable("an identity provider's client secret".into()))?;
        let confirmed = store
            .org_domains(org.id)
            .await?
            .into_iter()
            .filter(|d| d.confirmed_at.is_some())
            .map(|d| d.domain)
            .collect();
        ProviderSettings::of_org(org, &stored, secret, confirmed)
            .map(Some)
            .map_err(|e| StoreError::Unreadable(format!("an identity provider: {e}")))
    }

    /// The providers people of `org` sign in with: the operator's when it is for `org`, and
    /// the organisation's own.
    pub async fn providers_of(
        &self,
        store: &dyn Store,
        keys: &Keys,
        org: &Org,
    ) -> Result<Vec<ProviderSettings>, StoreError> {
        let mut providers: Vec<ProviderSettings> =
            self.settings.instance_provider.iter().filter(|p| p.org_slug == org.slug).cloned().collect();
        providers.extend(self.org_provider(store, keys, org).await?);
        Ok(providers)
    }
}
