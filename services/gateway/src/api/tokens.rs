//! The caller's own API tokens for agents. The secret is returned once, at
//! creation; only its SHA-256 is stored.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use time::{Duration, OffsetDateTime};

use super::auth::{OrgAccess, Principal};
use super::json::{Checks, ValidJson, checked};
use super::orgs::parse_id;
use super::views::TokenView;
use crate::app::AppState;
use crate::audit::Subject;
use crate::crypto;
use crate::domain::DisplayName;
use crate::problem::{ApiError, ApiResult};
use crate::replicas::Forget;
use crate::storage::NewApiToken;

const MAX_LIFETIME_DAYS: u32 = 3650;

#[derive(Serialize)]
pub struct TokenList {
    tokens: Vec<TokenView>,
}

pub async fn list(State(state): State<AppState>, access: OrgAccess) -> ApiResult<Json<TokenList>> {
    let tokens = state.store.api_tokens(access.org_id(), access.user().id).await?;
    Ok(Json(TokenList { tokens: tokens.iter().map(Into::into).collect() }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewTokenBody {
    name: String,
    /// Optional lifetime; tokens without one last until revoked.
    expires_in_days: Option<u32>,
}

#[derive(Serialize)]
pub struct CreatedToken {
    #[serde(flatten)]
    token: TokenView,
    /// The secret, shown this once: `Authorization: Bearer <secret>`.
    secret: String,
}

pub async fn create(
    State(state): State<AppState>,
    access: OrgAccess,
    ValidJson(body): ValidJson<NewTokenBody>,
) -> ApiResult<(StatusCode, Json<CreatedToken>)> {
    // A leaked token must not be able to mint successors that outlive it.
    if matches!(access.principal, Principal::Token(_)) {
        return Err(ApiError::Forbidden(
            "API tokens cannot create tokens; sign in to the dashboard to make one",
        ));
    }
    let mut checks = Checks::default();
    let name = checks.field("name", DisplayName::parse(&body.name));
    let now = OffsetDateTime::now_utc();
    let expires_at = match body.expires_in_days {
        None => None,
        Some(days @ 1..=MAX_LIFETIME_DAYS) => Some(now + Duration::days(i64::from(days))),
        Some(_) => {
            checks.push("expires_in_days", format!("must be between 1 and {MAX_LIFETIME_DAYS}"));
            None
        }
    };
    checks.finish()?;
    let secret = crypto::new_api_token();
    let token = state
        .store
        .create_api_token(
            access.org_id(),
            access.user().id,
            NewApiToken {
                name: checked(name).as_str().to_owned(),
                prefix: secret.display_prefix,
                secret_hash: crypto::token_hash(&secret.secret),
                expires_at,
            },
            now,
        )
        .await?;
    tracing::info!(org = %access.membership.org.slug, token_id = %token.id, "API token created");
    access
        .audit(
            state.store.as_ref(),
            "token.created",
            Subject {
                user_id: Some(access.user().id),
                details: Some(
                    serde_json::json!({ "token_id": token.id, "name": token.name, "prefix": token.prefix }),
                ),
                ..Default::default()
            },
        )
        .await;
    Ok((StatusCode::CREATED, Json(CreatedToken { token: (&token).into(), secret: secret.secret })))
}

pub async fn revoke(
    State(state): State<AppState>,
    access: OrgAccess,
    Path((_, id)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    let id = parse_id(&id)?;
    state.store.revoke_api_token(access.org_id(), access.user().id, id, OffsetDateTime::now_utc()).await?;
    state.proxy.sessions.end_of_token(&state, id).await?;
    // Its calls and sessions end on every replica.
    state.forget(Forget::CachedToken { token_id: id }).await;
    tracing::info!(org = %access.membership.org.slug, token_id = %id, "API token revoked");
    access
        .audit(
            state.store.as_ref(),
            "token.revoked",
            Subject {
                user_id: Some(access.user().id),
                details: Some(serde_json::json!({ "token_id": id })),
                ..Default::default()
            },
        )
        .await;
    Ok(StatusCode::NO_CONTENT)
}
