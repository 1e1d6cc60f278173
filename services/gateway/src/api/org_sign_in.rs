//! An organisation's sign-in rules, as its admins set them:
//!
//! - `GET/PUT /api/v1/orgs/{org}/sign-in`: what people sign in with, and whether
//!   members may use a password (admins turn it off once a provider works);
//! - `PUT/DELETE /api/v1/orgs/{org}/sign-in/provider`: the organisation's own
//!   identity provider (owners; where the operator allows them). Its metadata is
//!   fetched before anything is stored, through the egress policy;
//! - `POST /api/v1/orgs/{org}/sign-in/domains`, `DELETE …/domains/{domain}`: the
//!   e-mail domains the organisation says are its own. Only domains the operator
//!   has confirmed (`herald domains confirm`) let its provider sign people in.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::auth::OrgAccess;
use super::json::ValidJson;
use crate::app::AppState;
use crate::audit::Subject;
use crate::domain::Role;
use crate::problem::{ApiError, ApiResult, InvalidField};
use crate::sso::settings::{ProviderSettings, parse_email_domain, parse_issuer, parse_role_map};
use crate::sso::{SignInError, org_secret_context};
use crate::storage::org_providers::{OrgDomain, OrgProvider};

#[derive(Serialize)]
pub struct OrgSignInView {
    password_sign_in: bool,
    /// Every provider the organisation's people sign in with.
    providers: Vec<ProviderView>,
    /// Whether this Herald lets organisations have a provider of their own.
    own_provider_allowed: bool,
    /// The organisation's own provider, as set (never its secret).
    own_provider: Option<OwnProviderView>,
    domains: Vec<DomainView>,
    /// The redirect URI to register at the provider.
    redirect_uri: String,
}

#[derive(Serialize)]
pub struct ProviderView {
    key: String,
    name: String,
    issuer: String,
    /// Whether the caller has signed in through it (password sign-in can be turned off only then).
    you_signed_in_with_it: bool,
    /// Where a sign-in through it starts.
    start: String,
}

#[derive(Serialize)]
pub struct OwnProviderView {
    issuer: String,
    client_id: String,
    client_secret_set: bool,
    name: String,
    default_role: &'static str,
    groups_claim: Option<String>,
    role_map: Vec<RoleMapping>,
    updated_at: String,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoleMapping {
    group: String,
    role: String,
}

#[derive(Serialize)]
pub struct DomainView {
    domain: String,
    /// `confirmed` (the provider may sign its people in) or `awaiting_operator`.
    status: &'static str,
    claimed_at: String,
    confirmed_at: Option<String>,
}

fn rfc3339(t: OffsetDateTime) -> String {
    t.format(&Rfc3339).unwrap_or_default()
}

impl From<OrgDomain> for DomainView {
    fn from(d: OrgDomain) -> Self {
        DomainView {
            domain: d.domain,
            status: if d.confirmed_at.is_some() { "confirmed" } else { "awaiting_operator" },
            claimed_at: rfc3339(d.claimed_at),
            confirmed_at: d.confirmed_at.map(rfc3339),
        }
    }
}

fn own_view(p: &OrgProvider) -> OwnProviderView {
    OwnProviderView {
        // As people write it: a bare origin without the slash a URL parser adds.
        issuer: p.issuer.trim_end_matches('/').to_owned(),
        client_id: p.client_id.clone(),
        client_secret_set: !p.client_secret_sealed.is_empty(),
        name: p.display_name.clone(),
        default_role: p.default_role.as_str(),
        groups_claim: p.groups_claim.clone(),
        role_map: p
            .role_map
            .iter()
            .map(|(group, role)| RoleMapping { group: group.clone(), role: role.as_str().to_owned() })
            .collect(),
        updated_at: rfc3339(p.updated_at),
    }
}

async fn view(state: &AppState, access: &OrgAccess) -> ApiResult<OrgSignInView> {
    let org = &access.membership.org;
    let mut providers = Vec::new();
    for p in state.sign_in.providers_of(state.store.as_ref(), &state.keys, org).await? {
        providers.push(ProviderView {
            name: p.display_name.clone(),
            issuer: p.issuer.as_str().trim_end_matches('/').to_owned(),
            you_signed_in_with_it: state.store.has_identity(access.user().id, &p.key).await?,
            start: format!("/auth/sso/{}/start", p.key),
            key: p.key,
        });
    }
    let own_provider_allowed = state.sign_in.settings.org_providers;
    let own_provider = if own_provider_allowed { state.store.org_provider(org.id).await? } else { None };
    let base = state.config.public_url.as_str().trim_end_matches('/');
    Ok(OrgSignInView {
        password_sign_in: state.store.password_sign_in(org.id).await?,
        providers,
        own_provider_allowed,
        own_provider: own_provider.as_ref().map(own_view),
        domains: state.store.org_domains(org.id).await?.into_iter().map(DomainView::from).collect(),
        redirect_uri: format!("{base}/auth/sso/callback"),
    })
}

/// `GET /api/v1/orgs/{org}/sign-in`
pub async fn settings(State(state): State<AppState>, access: OrgAccess) -> ApiResult<Json<OrgSignInView>> {
    Ok(Json(view(&state, &access).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignInBody {
    password_sign_in: bool,
}

/// `PUT /api/v1/orgs/{org}/sign-in`: admins turn password sign-in off (or back on). Off needs
/// a provider for the organisation that the admin has signed in through themselves, so that
/// nobody turns off the only way in they know works.
pub async fn set_settings(
    State(state): State<AppState>,
    access: OrgAccess,
    ValidJson(body): ValidJson<SignInBody>,
) -> ApiResult<Json<OrgSignInView>> {
    access.require_admin()?;
    let before = state.store.password_sign_in(access.org_id()).await?;
    if !body.password_sign_in && before {
        let view = view(&state, &access).await?;
        if view.providers.is_empty() {
            return Err(ApiError::Conflict(
                "no-identity-provider",
                "this organisation has no identity provider to sign in with instead".into(),
            ));
        }
        if !view.providers.iter().any(|p| p.you_signed_in_with_it) {
            return Err(ApiError::Conflict(
                "identity-provider-untried",
                "sign in through the identity provider yourself first, so you know it works".into(),
            ));
        }
    }
    if before != body.password_sign_in {
        state.store.set_password_sign_in(access.org_id(), body.password_sign_in).await?;
        access
            .audit(
                state.store.as_ref(),
                "org.sign_in_changed",
                Subject {
                    details: Some(serde_json::json!({
                        "changes": [{ "path": "password_sign_in", "before": before, "after": body.password_sign_in }],
                    })),
                    ..Default::default()
                },
            )
            .await;
    }
    Ok(Json(view(&state, &access).await?))
}

// ---- the organisation's own provider ----

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderBody {
    issuer: String,
    client_id: String,
    /// Required when setting a provider; left out on a change, the stored one is kept.
    client_secret: Option<String>,
    name: String,
    #[serde(default)]
    default_role: Option<String>,
    #[serde(default)]
    groups_claim: Option<String>,
    #[serde(default)]
    role_map: Vec<RoleMapping>,
}

fn require_owner(access: &OrgAccess) -> ApiResult<()> {
    if access.role() == Role::Owner {
        Ok(())
    } else {
        Err(ApiError::Forbidden("only the organisation's owners may change its identity provider"))
    }
}

fn own_provider_allowed(state: &AppState) -> ApiResult<()> {
    if state.sign_in.settings.org_providers {
        Ok(())
    } else {
        Err(ApiError::Conflict(
            "org-identity-providers-off",
            "this Herald's operator has not let organisations set up identity providers of their own \
             (HERALD_ORG_IDENTITY_PROVIDERS)"
                .into(),
        ))
    }
}

fn text(field: &str, given: &str, max: usize, errors: &mut Vec<InvalidField>) -> String {
    let value = given.trim();
    if value.is_empty() || value.len() > max || value.chars().any(char::is_control) {
        errors.push(InvalidField::new(
            field,
            format!("must be 1 to {max} characters, without control characters"),
        ));
    }
    value.to_owned()
}

/// `PUT /api/v1/orgs/{org}/sign-in/provider`: owners set the organisation's provider. Its
/// discovery document and keys are fetched first (through the egress policy): a provider that
/// cannot be reached, names another issuer or serves unusable metadata is refused with what
/// was wrong, and nothing is stored. A new issuer forgets the old one's links to accounts.
pub async fn set_provider(
    State(state): State<AppState>,
    access: OrgAccess,
    ValidJson(body): ValidJson<ProviderBody>,
) -> ApiResult<Json<OrgSignInView>> {
    require_owner(&access)?;
    own_provider_allowed(&state)?;
    let org = access.membership.org.clone();
    let mut errors = Vec::new();
    let issuer = match parse_issuer(body.issuer.trim(), state.config.is_development()) {
        Ok(url) => match state.config.egress.check_url(&url) {
            Ok(()) => Some(url),
            Err(refused) => {
                errors.push(InvalidField::new("issuer", refused));
                None
            }
        },
        Err(problem) => {
            errors.push(InvalidField::new("issuer", problem));
            None
        }
    };
    let client_id = text("client_id", &body.client_id, 256, &mut errors);
    let name = text("name", &body.name, 60, &mut errors);
    let default_role = match body.default_role.as_deref().map(str::trim) {
        None | Some("") | Some("member") => Role::Member,
        Some("admin") => Role::Admin,
        Some(_) => {
            errors.push(InvalidField::new("default_role", "must be member or admin"));
            Role::Member
        }
    };
    let groups_claim =
        body.groups_claim.as_deref().map(str::trim).filter(|c| !c.is_empty()).map(str::to_owned);
    if groups_claim.as_ref().is_some_and(|c| c.len() > 100 || !c.bytes().all(|b| b.is_ascii_graphic())) {
        errors.push(InvalidField::new(
            "groups_claim",
            "must be a claim name (up to 100 visible ASCII characters)",
        ));
    }
    let role_map = match parse_role_map(
        body.role_map.into_iter().map(|m| (m.group.trim().to_owned(), m.role.trim().to_owned())).collect(),
    ) {
        Ok(map) => map,
        Err(problem) => {
            errors.push(InvalidField::new("role_map", problem));
            Vec::new()
        }
    };
    if !role_map.is_empty() && groups_claim.is_none() {
        errors.push(InvalidField::new("role_map", "needs groups_claim: the claim the groups are read from"));
    }
    let before = state.store.org_provider(org.id).await?;
    let secret_sealed = match body.client_secret.as_deref().map(str::trim) {
        Some(secret) if !secret.is_empty() && secret.len() <= 1024 => {
            Some(state.keys.seal(&org_secret_context(org.id), secret.as_bytes()))
        }
        Some(_) => {
            errors.push(InvalidField::new("client_secret", "must be 1 to 1024 characters"));
            None
        }
        None => match &before {
            Some(kept) => Some(kept.client_secret_sealed.clone()),
            None => {
                errors.push(InvalidField::new("client_secret", "is needed to set up a provider"));
                None
            }
        },
    };
    let (Some(issuer), Some(client_secret_sealed), true) = (issuer, secret_sealed, errors.is_empty()) else {
        return Err(ApiError::Validation(errors));
    };
    let now = OffsetDateTime::now_utc();
    let stored = OrgProvider {
        org_id: org.id,
        issuer: issuer.as_str().to_owned(),
        client_id,
        client_secret_sealed,
        display_name: name,
        default_role,
        groups_claim,
        role_map,
        created_at: before.as_ref().map_or(now, |b| b.created_at),
        updated_at: now,
    };
    // The provider must answer as one before it is kept.
    let settings = ProviderSettings::of_org(&org, &stored, String::new(), Vec::new())
        .map_err(|p| ApiError::Validation(vec![InvalidField::new("issuer", p)]))?;
    if let Err(e) = state.sign_in.org_directory.get(&settings).await {
        let problem = match &e {
            SignInError::Unreachable(why) => format!("could not be reached: {why}"),
            other => other.detail().unwrap_or_else(|| other.to_string()),
        };
        return Err(ApiError::Validation(vec![InvalidField::new("issuer", problem)]));
    }
    let saved = state.store.put_org_provider(&stored, &settings.key).await?;
    let changes = provider_changes(before.as_ref(), &stored);
    access
        .audit(
            state.store.as_ref(),
            if saved.replaced { "org.identity_provider_changed" } else { "org.identity_provider_set" },
            Subject {
                details: Some(serde_json::json!({
                    "changes": changes,
                    "links_dropped": saved.identities_dropped,
                })),
                ..Default::default()
            },
        )
        .await;
    Ok(Json(view(&state, &access).await?))
}

/// What changed, as the audit log shows it (the secret only as "changed").
fn provider_changes(before: Option<&OrgProvider>, after: &OrgProvider) -> Vec<serde_json::Value> {
    let shown = |p: &OrgProvider| {
        serde_json::json!({
            "issuer": p.issuer,
            "client_id": p.client_id,
            "name": p.display_name,
            "default_role": p.default_role.as_str(),
            "groups_claim": p.groups_claim,
            "role_map": p.role_map.iter().map(|(g, r)| format!("{g}={}", r.as_str())).collect::<Vec<_>>(),
        })
    };
    let mut changes =
        crate::audit::changes(&before.map(shown).unwrap_or_else(|| serde_json::json!({})), &shown(after));
    if before.is_none_or(|b| b.client_secret_sealed != after.client_secret_sealed) {
        changes.push(crate::audit::change("client_secret", "(sealed)", "(changed)"));
    }
    changes
}

/// `DELETE /api/v1/orgs/{org}/sign-in/provider`: the provider and its links to accounts go.
/// Refused while password sign-in is off and no other provider remains: nobody could sign in.
pub async fn delete_provider(State(state): State<AppState>, access: OrgAccess) -> ApiResult<StatusCode> {
    require_owner(&access)?;
    let org = &access.membership.org;
    let others = state.sign_in.settings.instance_provider.iter().any(|p| p.org_slug == org.slug);
    if !others
        && !state.store.password_sign_in(org.id).await?
        && state.store.org_provider(org.id).await?.is_some()
    {
        return Err(ApiError::Conflict(
            "last-way-in",
            "password sign-in is off and this is the organisation's only identity provider: turn password \
             sign-in on first"
                .into(),
        ));
    }
    if !state.store.delete_org_provider(org.id, &ProviderSettings::org_key(org.id)).await? {
        return Err(ApiError::NotFound);
    }
    access.audit(state.store.as_ref(), "org.identity_provider_removed", Subject::default()).await;
    Ok(StatusCode::NO_CONTENT)
}

// ---- e-mail domains ----

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DomainBody {
    domain: String,
}

/// `POST /api/v1/orgs/{org}/sign-in/domains`: admins claim a domain; it waits for the operator.
pub async fn claim_domain(
    State(state): State<AppState>,
    access: OrgAccess,
    ValidJson(body): ValidJson<DomainBody>,
) -> ApiResult<(StatusCode, Json<DomainView>)> {
    access.require_admin()?;
    own_provider_allowed(&state)?;
    let domain = parse_email_domain(&body.domain)
        .map_err(|p| ApiError::Validation(vec![InvalidField::new("domain", p)]))?;
    let known = state.store.org_domains(access.org_id()).await?.into_iter().any(|d| d.domain == domain);
    let claimed = state.store.claim_domain(access.org_id(), &domain, OffsetDateTime::now_utc()).await?;
    if known {
        return Ok((StatusCode::OK, Json(claimed.into())));
    }
    access
        .audit(
            state.store.as_ref(),
            "org.domain_claimed",
            Subject { details: Some(serde_json::json!({ "domain": domain })), ..Default::default() },
        )
        .await;
    Ok((StatusCode::CREATED, Json(claimed.into())))
}

/// `DELETE /api/v1/orgs/{org}/sign-in/domains/{domain}`: admins drop a claim, confirmed or not.
pub async fn drop_domain(
    State(state): State<AppState>,
    access: OrgAccess,
    Path((_, domain)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    access.require_admin()?;
    let domain = parse_email_domain(&domain).map_err(|_| ApiError::NotFound)?;
    if !state.store.drop_domain(access.org_id(), &domain).await? {
        return Err(ApiError::NotFound);
    }
    access
        .audit(
            state.store.as_ref(),
            "org.domain_dropped",
            Subject { details: Some(serde_json::json!({ "domain": domain })), ..Default::default() },
        )
        .await;
    Ok(StatusCode::NO_CONTENT)
}
