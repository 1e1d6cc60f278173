//! The caller's own mutes: servers whose questions are declined on their
//! behalf without being shown.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::auth::OrgAccess;
use super::json::ValidJson;
use crate::app::AppState;
use crate::audit::Subject;
use crate::problem::{ApiError, ApiResult};
use crate::storage::Mute;

#[derive(Serialize)]
pub struct MuteView {
    server: MutedServer,
    /// `user`, or `pestering` when Herald muted it after repeated re-asks.
    reason: String,
    note: String,
    #[serde(with = "time::serde::rfc3339")]
    created_at: OffsetDateTime,
}

#[derive(Serialize)]
struct MutedServer {
    slug: String,
    name: String,
}

impl From<&Mute> for MuteView {
    fn from(m: &Mute) -> Self {
        Self {
            server: MutedServer { slug: m.server_slug.clone(), name: m.server_name.clone() },
            reason: m.reason.clone(),
            note: m.note.clone(),
            created_at: m.created_at,
        }
    }
}

#[derive(Serialize)]
pub struct MuteList {
    mutes: Vec<MuteView>,
}

pub async fn list(State(state): State<AppState>, access: OrgAccess) -> ApiResult<Json<MuteList>> {
    let mutes = state.store.mutes(access.org_id(), access.user().id).await?;
    Ok(Json(MuteList { mutes: mutes.iter().map(Into::into).collect() }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewMute {
    /// The slug of a server registered in this org.
    server: String,
    #[serde(default)]
    note: String,
}

pub async fn add(
    State(state): State<AppState>,
    access: OrgAccess,
    ValidJson(body): ValidJson<NewMute>,
) -> ApiResult<(StatusCode, Json<MuteView>)> {
    let note = body.note.trim().to_owned();
    if note.chars().count() > 500 {
        return Err(ApiError::field("note", "must be at most 500 characters"));
    }
    let server = state.store.server(access.org_id(), &body.server).await?.ok_or_else(|| {
        ApiError::field("server", "no server with this slug is registered in this organisation")
    })?;
    let now = OffsetDateTime::now_utc();
    state.store.mute(access.org_id(), access.user().id, server.id, "user", &note, now).await?;
    access
        .audit(
            state.store.as_ref(),
            "mute.added",
            Subject {
                user_id: Some(access.user().id),
                server_slug: Some(server.slug.clone()),
                reason: Some("user".into()),
                ..Default::default()
            },
        )
        .await;
    let view = MuteView {
        server: MutedServer { slug: server.slug, name: server.name },
        reason: "user".into(),
        note,
        created_at: now,
    };
    Ok((StatusCode::CREATED, Json(view)))
}

pub async fn remove(
    State(state): State<AppState>,
    access: OrgAccess,
    Path((_, slug)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    let server = state.store.server(access.org_id(), &slug).await?.ok_or(ApiError::NotFound)?;
    state.store.unmute(access.org_id(), access.user().id, server.id).await?;
    access
        .audit(
            state.store.as_ref(),
            "mute.removed",
            Subject { user_id: Some(access.user().id), server_slug: Some(slug), ..Default::default() },
        )
        .await;
    Ok(StatusCode::NO_CONTENT)
}
