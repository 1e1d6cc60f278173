//! Signing in to the dashboard through an identity provider (OpenID Connect).
//!
//! - `settings`: the operator's provider and whether passwords may be used;
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
    pub directory: Directory,
}

impl SignIn {
    pub fn new(settings: SignInSettings) -> Self {
        // The operator's provider is where the operator said: no egress filter.
        SignIn { settings, directory: Directory::new(IdpClient::new(None)) }
    }

    /// The provider `key` names.
    pub fn provider(&self, key: &str) -> Option<&ProviderSettings> {
        self.settings.instance_provider.as_ref().filter(|p| p.key == key)
    }

    /// The providers people of `org_slug` sign in with.
    pub fn providers_of(&self, org_slug: &str) -> impl Iterator<Item = &ProviderSettings> {
        self.settings.instance_provider.iter().filter(move |p| p.org_slug == org_slug)
    }
}
