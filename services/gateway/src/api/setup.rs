//! First run: the one-time setup link creates the first organisation and owner.

use axum::Json;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use time::{Duration, OffsetDateTime};

use super::json::{Checks, ValidJson, checked};
use super::session;
use super::views::AccountView;
use crate::app::AppState;
use crate::crypto;
use crate::domain::{DisplayName, Email, Password, Slug};
use crate::problem::ApiResult;
use crate::storage::{Conflict, NewOrg, NewUser, StoreError};

pub const SETUP_LINK_LIFETIME: Duration = Duration::hours(24);

#[derive(Serialize)]
pub struct SetupStatus {
    required: bool,
}

/// Whether this instance still waits for its first owner (for the dashboard).
pub async fn status(State(state): State<AppState>) -> ApiResult<Json<SetupStatus>> {
    Ok(Json(SetupStatus { required: !state.store.has_users().await? }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetupBody {
    token: String,
    org_slug: String,
    org_name: String,
    email: String,
    name: String,
    password: String,
}

pub async fn complete(
    State(state): State<AppState>,
    ValidJson(body): ValidJson<SetupBody>,
) -> ApiResult<Response> {
    let mut checks = Checks::default();
    let slug = checks.field("org_slug", Slug::parse(&body.org_slug));
    let org_name = checks.field("org_name", DisplayName::parse(&body.org_name));
    let email = checks.field("email", Email::parse(&body.email));
    let name = checks.field("name", DisplayName::parse(&body.name));
    let password = checks.field("password", Password::parse(&body.password, Some(&body.email)));
    if body.token.is_empty() {
        checks.push("token", "is required");
    }
    checks.finish()?;
    // The token first: a stranger without it gets nothing hashed (19 MiB and a core's
    // tens of milliseconds each). `complete_setup` still consumes it as a compare-and-set.
    let token_hash = crypto::token_hash(&body.token);
    if !state.store.setup_token_usable(&token_hash, OffsetDateTime::now_utc()).await? {
        return Err(StoreError::Conflict(Conflict::SetupUnavailable).into());
    }
    let password_hash = state.passwords.hash(&checked(password)).await?;
    let (org, user) = state
        .store
        .complete_setup(
            &token_hash,
            OffsetDateTime::now_utc(),
            NewOrg { slug: checked(slug).to_string(), name: checked(org_name).as_str().to_owned() },
            NewUser {
                email: checked(email).as_str().to_owned(),
                name: checked(name).as_str().to_owned(),
                password_hash,
            },
        )
        .await?;
    tracing::info!(org = %org.slug, user_id = %user.id, "setup complete: first organisation and owner created");
    let cookie = session::start(&state, user.id).await?;
    let memberships = state.store.memberships(user.id).await?;
    Ok((StatusCode::CREATED, [(header::SET_COOKIE, cookie)], Json(AccountView::new(&user, &memberships)))
        .into_response())
}
