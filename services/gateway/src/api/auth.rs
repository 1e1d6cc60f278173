//! Who is calling, and what they may do in the organisation they named.
//!
//! Two kinds of caller: a person signed in to the dashboard (session cookie),
//! and an agent presenting an API token (`Authorization: Bearer hrl_…`), which
//! acts as its user inside its one organisation only.

use std::collections::HashMap;

use axum::extract::{FromRequestParts, Path};
use axum::http::header;
use axum::http::request::Parts;
use time::OffsetDateTime;
use uuid::Uuid;

use super::session;
use crate::app::AppState;
use crate::audit::{self, Actor, Subject};
use crate::crypto;
use crate::domain::Role;
use crate::problem::ApiError;
use crate::storage::{Membership, Store, TokenPrincipal, User};

#[derive(Debug, Clone)]
pub enum Principal {
    Session { user: User, session_id: Uuid },
    Token(Box<TokenPrincipal>),
}

impl Principal {
    pub fn user(&self) -> &User {
        match self {
            Principal::Session { user, .. } => user,
            Principal::Token(token) => &token.user,
        }
    }
}

impl FromRequestParts<AppState> for Principal {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        if let Some(value) = parts.headers.get(header::AUTHORIZATION) {
            let token = value
                .to_str()
                .ok()
                .and_then(|v| v.strip_prefix("Bearer "))
                .map(str::trim)
                .filter(|t| crypto::looks_like_api_token(t))
                .ok_or(ApiError::Unauthenticated)?;
            let principal = state.lookups.token(token).await?.ok_or(ApiError::Unauthenticated)?;
            return Ok(Principal::Token(Box::new(principal)));
        }
        let jwt = session::from_headers(state, &parts.headers).ok_or(ApiError::Unauthenticated)?;
        let claims = session::verify(state, jwt).ok_or(ApiError::Unauthenticated)?;
        let user = state
            .store
            .session_user(claims.sid, OffsetDateTime::now_utc())
            .await?
            .filter(|user| user.id == claims.sub)
            .ok_or(ApiError::Unauthenticated)?;
        Ok(Principal::Session { user, session_id: claims.sid })
    }
}

/// A person signed in to the dashboard; API tokens are refused. For account
/// actions an agent has no business taking (sign-out, password, new orgs).
pub struct SessionUser {
    pub user: User,
    pub session_id: Uuid,
}

impl FromRequestParts<AppState> for SessionUser {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        match Principal::from_request_parts(parts, state).await? {
            Principal::Session { user, session_id } => Ok(SessionUser { user, session_id }),
            Principal::Token(_) => {
                Err(ApiError::Forbidden("this action needs a dashboard sign-in, not an API token"))
            }
        }
    }
}

/// A caller acting in the organisation named by the `{org}` path segment.
/// Anyone who is not a member gets 404, exactly as if the org did not exist.
pub struct OrgAccess {
    pub principal: Principal,
    pub membership: Membership,
}

impl OrgAccess {
    pub fn org_id(&self) -> Uuid {
        self.membership.org.id
    }

    pub fn user(&self) -> &User {
        self.principal.user()
    }

    pub fn role(&self) -> Role {
        self.membership.role
    }

    /// Records an action the caller took in the org (see `crate::audit`).
    pub async fn audit(&self, store: &dyn Store, action: &str, subject: Subject) {
        audit::record(store, self.org_id(), Actor::User(self.user().id), action, subject).await;
    }

    pub fn require_admin(&self) -> Result<(), ApiError> {
        if self.role().is_admin() {
            Ok(())
        } else {
            Err(ApiError::Forbidden("only the organisation's admins and owners may do this"))
        }
    }
}

impl FromRequestParts<AppState> for OrgAccess {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let Path(params) = Path::<HashMap<String, String>>::from_request_parts(parts, state)
            .await
            .map_err(|_| ApiError::NotFound)?;
        let slug = params.get("org").ok_or(ApiError::NotFound)?;
        let principal = Principal::from_request_parts(parts, state).await?;
        let membership = match &principal {
            Principal::Token(token) if token.membership.org.slug == *slug => token.membership.clone(),
            Principal::Token(_) => return Err(ApiError::NotFound),
            Principal::Session { user, .. } => {
                state.store.membership(slug, user.id).await?.ok_or(ApiError::NotFound)?
            }
        };
        Ok(OrgAccess { principal, membership })
    }
}

/// For endpoints open to anyone that behave differently for a signed-in
/// caller: missing or unusable credentials simply mean "anonymous".
impl axum::extract::OptionalFromRequestParts<AppState> for Principal {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Option<Self>, ApiError> {
        match <Principal as FromRequestParts<AppState>>::from_request_parts(parts, state).await {
            Ok(principal) => Ok(Some(principal)),
            Err(ApiError::Unauthenticated) => Ok(None),
            Err(other) => Err(other),
        }
    }
}
