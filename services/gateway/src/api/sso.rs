//! Signing in through an identity provider, as the browser lives it:
//!
//! 1. `GET /auth/sso/{provider}/start?return_to=/path`: Herald records the
//!    attempt (a hash of its `state`, the nonce, the PKCE verifier sealed, and
//!    a hash of a cookie it sets on this browser) and sends the browser to the
//!    provider.
//! 2. `GET /auth/sso/callback?code&state&iss`: the attempt is taken (so a state
//!    is good once, on every replica), its cookie must be this browser's, the
//!    `iss` must be the provider's (RFC 9207), the code is exchanged and the ID
//!    token checked; then the person is found or made, joins the provider's
//!    organisation unless it removed them, and gets a dashboard session.
//!
//! Every failure ends on the sign-in page with a code it says in words
//! (`/login?sso_error=…&sso_detail=…`); nothing is stored for a failed sign-in.
//! The organisation's own rules (may its members use a password? its own
//! provider and e-mail domains) are in `api::org_sign_in`.

use std::time::Duration;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use openidconnect::RedirectUrl;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::binding::{Binding, see_other};
use crate::app::AppState;
use crate::audit::{self, Actor, Subject};
use crate::crypto;
use crate::domain::Email;
use crate::problem::{ApiError, ApiResult};
use crate::sso::settings::ProviderSettings;
use crate::sso::{SignInError, flow};
use crate::storage::sign_in::{JoinRule, ProviderIdentity, SignInAttempt};
use crate::storage::{Conflict, StoreError};

/// How long a person may take at their provider.
pub const ATTEMPT_LIFETIME: Duration = Duration::from_secs(600);
const CALLBACK_PATH: &str = "/auth/sso/callback";
const SEAL_CONTEXT: &[u8] = b"sign-in pkce verifier";

/// The cookie that binds an attempt to the browser that started it.
const BROWSER: Binding =
    Binding { name: "herald_sign_in", secure_name: "__Secure-herald_sign_in", path: "/auth/sso" };

fn redirect_uri(state: &AppState) -> RedirectUrl {
    let base = state.config.public_url.as_str().trim_end_matches('/');
    RedirectUrl::new(format!("{base}{CALLBACK_PATH}")).expect("the public URL with a path is a URL")
}

/// A path on Herald to go to after signing in; anything else (another site, `//host`) is `/`.
fn safe_return_to(given: Option<&str>) -> String {
    match given {
        Some(path)
            if path.starts_with('/')
                && !path.starts_with("//")
                && !path.starts_with("/\\")
                && path.len() <= 512
                && !path.chars().any(|c| c.is_control() || c == '\\') =>
        {
            path.to_owned()
        }
        _ => "/".to_owned(),
    }
}

/// Back to the sign-in page, saying why.
fn failed(state: &AppState, error: &SignInError) -> Response {
    tracing::info!(code = error.code(), reason = %error, "a sign-in through an identity provider failed");
    let mut query = url::form_urlencoded::Serializer::new(String::new());
    query.append_pair("sso_error", error.code());
    if let Some(detail) = error.detail() {
        query.append_pair("sso_detail", &detail);
    }
    see_other(&format!("/login?{}", query.finish()), &[BROWSER.clear(state)])
}

#[derive(Deserialize)]
pub struct StartQuery {
    return_to: Option<String>,
}

/// `GET /auth/sso/{provider}/start`: off to the provider.
pub async fn start(
    State(state): State<AppState>,
    Path(provider): Path<String>,
    Query(query): Query<StartQuery>,
    headers: HeaderMap,
) -> Response {
    let settings = match state.sign_in.provider(state.store.as_ref(), &state.keys, &provider).await {
        Ok(Some(settings)) => settings,
        Ok(None) => return failed(&state, &SignInError::NoProvider),
        Err(e) => return ApiError::from(e).into_response(),
    };
    let discovered = match state.sign_in.directory_for(&settings).get(&settings).await {
        Ok(d) => d,
        Err(e) => return failed(&state, &e),
    };
    let started = flow::start(&settings, &discovered, &redirect_uri(&state));
    let secret = BROWSER.secret_or_new(&state, &headers);
    let now = OffsetDateTime::now_utc();
    let attempt = SignInAttempt {
        state_hash: crypto::sha256(started.state.as_bytes()),
        provider: settings.key.clone(),
        browser_hash: crypto::sha256(secret.as_bytes()),
        nonce: started.nonce,
        pkce_verifier_sealed: state.keys.seal(SEAL_CONTEXT, started.pkce_verifier.as_bytes()),
        return_to: safe_return_to(query.return_to.as_deref()),
        created_at: now,
        expires_at: now + ATTEMPT_LIFETIME,
    };
    if let Err(e) = state.store.put_sign_in_attempt(&attempt).await {
        tracing::error!(error = %e, "could not record a sign-in attempt");
        return ApiError::Unavailable.into_response();
    }
    see_other(started.authorize_url.as_str(), &[BROWSER.cookie(&state, &secret, ATTEMPT_LIFETIME.as_secs())])
}

#[derive(Deserialize)]
pub struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
    iss: Option<String>,
    error: Option<String>,
    error_description: Option<String>,
}

/// `GET /auth/sso/callback`: the provider's answer.
pub async fn callback(
    State(state): State<AppState>,
    Query(query): Query<CallbackQuery>,
    headers: HeaderMap,
) -> Response {
    match signed_in(&state, query, &headers).await {
        Ok((session_cookie, return_to)) => see_other(&return_to, &[session_cookie, BROWSER.clear(&state)]),
        Err(Failure::SignIn(e)) => failed(&state, &e),
        Err(Failure::Api(e)) => e.into_response(),
    }
}

enum Failure {
    SignIn(SignInError),
    Api(ApiError),
}

impl From<SignInError> for Failure {
    fn from(e: SignInError) -> Self {
        Failure::SignIn(e)
    }
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Self {
        Failure::Api(e.into())
    }
}

async fn signed_in(
    state: &AppState,
    query: CallbackQuery,
    headers: &HeaderMap,
) -> Result<(HeaderValue, String), Failure> {
    let now = OffsetDateTime::now_utc();
    let given_state = query.state.as_deref().filter(|s| s.len() <= 512).ok_or(SignInError::AttemptUnknown)?;
    // Taken whatever happens next: a state is good for one answer.
    let attempt = state
        .store
        .take_sign_in_attempt(&crypto::sha256(given_state.as_bytes()), now)
        .await?
        .ok_or(SignInError::AttemptUnknown)?;
    if !BROWSER.matches(state, headers, &attempt.browser_hash) {
        return Err(SignInError::OtherBrowser.into());
    }
    let provider = state
        .sign_in
        .provider(state.store.as_ref(), &state.keys, &attempt.provider)
        .await?
        .ok_or(SignInError::NoProvider)?;
    let provider = &provider;
    let directory = state.sign_in.directory_for(provider);
    let discovered = directory.get(provider).await?;
    // RFC 9207: the answer names who sent it, and it must be the provider the browser was sent
    // to, compared as strings with no normalisation. On a mismatch nothing in the answer (its
    // error, its description, the issuer it names) is acted on or shown.
    match query.iss.as_deref() {
        Some(iss) if iss != discovered.issuer => {
            return Err(SignInError::WrongIssuer(format!(
                "the answer does not name {:?}, the provider Herald sent you to",
                discovered.issuer
            ))
            .into());
        }
        None if discovered.sends_iss => {
            return Err(
                SignInError::WrongIssuer("the answer does not say which issuer sent it".into()).into()
            );
        }
        _ => {}
    }
    if let Some(error) = query.error {
        return Err(SignInError::Refused {
            error: error.chars().take(100).collect(),
            description: query.error_description.map(|d| d.chars().take(300).collect()),
        }
        .into());
    }
    let code = query.code.filter(|c| !c.is_empty() && c.len() <= 4096).ok_or(SignInError::Refused {
        error: "invalid_request".into(),
        description: Some("the answer carries no authorization code".into()),
    })?;
    let verifier = state
        .keys
        .open(SEAL_CONTEXT, &attempt.pkce_verifier_sealed)
        .ok()
        .and_then(|v| String::from_utf8(v).ok())
        .ok_or(SignInError::AttemptUnknown)?;
    let asserted =
        flow::finish(directory, provider, discovered, &redirect_uri(state), code, verifier, &attempt.nonce)
            .await?;
    let session = become_member(state, provider, &asserted, now).await?;
    Ok((session, attempt.return_to))
}

/// Finds or makes the account, lets it join the provider's organisation, and opens a session.
async fn become_member(
    state: &AppState,
    provider: &ProviderSettings,
    asserted: &flow::Asserted,
    now: OffsetDateTime,
) -> Result<HeaderValue, Failure> {
    let email = asserted.email.as_deref().ok_or(SignInError::NoEmail)?;
    if asserted.email_verified == Some(false) {
        return Err(SignInError::EmailUnverified.into());
    }
    let email = Email::parse(email).map_err(|_| SignInError::NoEmail)?;
    let org = state
        .store
        .org_by_slug(&provider.org_slug)
        .await?
        .ok_or_else(|| SignInError::NoOrganisation(provider.org_slug.clone()))?;
    if !provider.domains.allows(email.as_str()) {
        let domain = email.as_str().rsplit_once('@').map(|(_, d)| d).unwrap_or_default().to_owned();
        return Err(if provider.is_org_provider() {
            SignInError::DomainNotConfirmed { domain, org: org.name.clone() }
        } else {
            SignInError::DomainNotAllowed(domain)
        }
        .into());
    }
    let role = provider.mapped_role(&asserted.groups).unwrap_or(provider.default_role);
    let name: String = asserted
        .name
        .as_deref()
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| email.as_str().split('@').next().unwrap_or_default())
        .chars()
        .filter(|c| !c.is_control())
        .take(100)
        .collect();
    let identity = ProviderIdentity {
        provider: &provider.key,
        subject: &asserted.subject,
        email: email.as_str(),
        name: &name,
    };
    let join = JoinRule { org_id: org.id, role, provider_decides_role: !provider.role_map.is_empty() };
    let outcome = match state.store.sso_sign_in(identity, provider.links_by_email, Some(join), now).await {
        Err(StoreError::Conflict(Conflict::EmailTaken)) => return Err(SignInError::NotLinked.into()),
        other => other?,
    };
    let user = &outcome.user;
    if outcome.blocked && state.store.memberships(user.id).await?.is_empty() {
        return Err(SignInError::Removed(format!(
            "{} removed you; an admin there can invite you again",
            org.name
        ))
        .into());
    }
    if let Some(role) = outcome.joined {
        audit::record(
            state.store.as_ref(),
            org.id,
            Actor::System,
            "member.joined",
            Subject {
                user_id: Some(user.id),
                details: Some(serde_json::json!({ "role": role.as_str(), "via": provider.display_name })),
                ..Default::default()
            },
        )
        .await;
    }
    if let Some((before, after)) = outcome.role_changed {
        audit::record(
            state.store.as_ref(),
            org.id,
            Actor::System,
            "member.role_changed",
            Subject {
                user_id: Some(user.id),
                details: Some(serde_json::json!({
                    "changes": [{ "path": "role", "before": before.as_str(), "after": after.as_str() }],
                    "via": provider.display_name,
                })),
                ..Default::default()
            },
        )
        .await;
        state
            .forget(crate::replicas::Forget::CachedMember { org_id: org.id, user_id: user.id, left: false })
            .await;
    }
    tracing::info!(user_id = %user.id, provider = %provider.key, created = outcome.created, "signed in through an identity provider");
    super::session::start(state, user.id).await.map_err(Failure::Api)
}

// ---- what the sign-in page offers ----

#[derive(Serialize)]
pub struct SignInOptions {
    /// Whether the password form is offered.
    password: bool,
    providers: Vec<ProviderOption>,
    /// Whether organisations may have providers of their own (the page then offers to find
    /// one by e-mail).
    org_providers: bool,
}

#[derive(Serialize)]
pub struct ProviderOption {
    key: String,
    name: String,
    /// Where the button goes (add `?return_to=/path`).
    start: String,
}

#[derive(Deserialize)]
pub struct OptionsQuery {
    /// An organisation's slug: its own provider is offered too.
    org: Option<String>,
    /// A person's e-mail: the provider of the organisation its domain is confirmed for.
    email: Option<String>,
}

fn option_of(p: &ProviderSettings) -> ProviderOption {
    ProviderOption {
        key: p.key.clone(),
        name: p.display_name.clone(),
        start: format!("/auth/sso/{}/start", p.key),
    }
}

/// `GET /api/v1/auth/sign-in-options[?org=slug|?email=address]`: open to anyone. The operator's
/// provider always; an organisation's own only when asked for by its slug or by an e-mail of a
/// domain confirmed for it (a shared Herald's sign-in page does not list every tenant's).
pub async fn options(
    State(state): State<AppState>,
    Query(query): Query<OptionsQuery>,
) -> ApiResult<Json<SignInOptions>> {
    let mut providers: Vec<ProviderOption> =
        state.sign_in.settings.instance_provider.iter().map(option_of).collect();
    if state.sign_in.settings.org_providers {
        let org = match (query.org.as_deref(), query.email.as_deref()) {
            (Some(slug), _) if slug.len() <= 64 => state.store.org_by_slug(slug).await?,
            (None, Some(email)) => match Email::parse(email) {
                Ok(email) => {
                    let domain = email.as_str().rsplit_once('@').map(|(_, d)| d).unwrap_or_default();
                    match crate::sso::settings::parse_email_domain(domain) {
                        Ok(domain) => state.store.org_signing_in_domain(&domain).await?,
                        Err(_) => None,
                    }
                }
                Err(_) => None,
            },
            _ => None,
        };
        if let Some(org) = org
            && let Some(own) = state.sign_in.org_provider(state.store.as_ref(), &state.keys, &org).await?
        {
            providers.push(option_of(&own));
        }
    }
    Ok(Json(SignInOptions {
        password: state.sign_in.settings.password_sign_in,
        providers,
        org_providers: state.sign_in.settings.org_providers,
    }))
}

#[cfg(test)]
mod tests {
    use super::safe_return_to;

    #[test]
    fn only_paths_on_herald_are_returned_to() {
        assert_eq!(safe_return_to(Some("/history?x=1")), "/history?x=1");
        for bad in ["https://evil.test/", "//evil.test", "/\\evil.test", "history", "/a\nb"] {
            assert_eq!(safe_return_to(Some(bad)), "/", "{bad:?}");
        }
        assert_eq!(safe_return_to(None), "/");
    }
}
