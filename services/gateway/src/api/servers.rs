//! The org's registry of remote MCP servers. Header values (credentials the
//! host holds for the upstream) are sealed with the instance key, bound to
//! their org and server, and never returned: responses list their names only.

use herald_policy::decision::Rule;
use std::collections::BTreeMap;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use uuid::Uuid;

use super::auth::OrgAccess;
use super::json::{Checks, ValidJson, checked};
use super::views::ServerView;
use crate::app::AppState;
use crate::audit::{self, Subject};
use crate::domain::{AuthMode, DisplayName, HeaderSet, ServerProtocol, ServerUrl, Slug};
use crate::lookup::headers;
use crate::problem::{ApiError, ApiResult};
use crate::replicas::Forget;
use crate::storage::{CutOff, NewServer, Server, ServerChanges};

#[derive(Serialize)]
pub struct ServerList {
    servers: Vec<ServerView>,
}

pub async fn list(State(state): State<AppState>, access: OrgAccess) -> ApiResult<Json<ServerList>> {
    let servers = state.store.servers(access.org_id()).await?;
    Ok(Json(ServerList { servers: servers.iter().map(Into::into).collect() }))
}

pub async fn show(
    State(state): State<AppState>,
    access: OrgAccess,
    Path((_, slug)): Path<(String, String)>,
) -> ApiResult<Json<ServerView>> {
    let server = state.store.server(access.org_id(), &slug).await?.ok_or(ApiError::NotFound)?;
    Ok(Json((&server).into()))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewServerBody {
    slug: String,
    name: String,
    url: String,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    /// `auto` (the default), `2025-11-25` or `2026-07-28`: the era Herald speaks to the server.
    protocol: Option<String>,
    /// `headers` (the default), `none` or `oauth`.
    auth_mode: Option<String>,
    /// Client credentials registered at the server's authorization server by an admin.
    oauth_client: Option<OAuthClientBody>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OAuthClientBody {
    client_id: String,
    client_secret: Option<String>,
    /// The authorization server (its issuer URL) the client is registered at.
    issuer: Option<String>,
}

/// `Some(None)` for an explicit `null`, `None` when the field is absent.
fn nullable<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// The admin's client credentials, checked and sealed for `server_id`.
fn check_oauth_client(
    state: &AppState,
    checks: &mut Checks,
    org_id: Uuid,
    server_id: Uuid,
    body: &OAuthClientBody,
) -> Option<crate::storage::PreregisteredClient> {
    let client_id = body.client_id.trim();
    if client_id.is_empty() || client_id.len() > 512 || client_id.chars().any(char::is_control) {
        checks.push("oauth_client.client_id", "must be 1 to 512 characters, without control characters");
        return None;
    }
    if let Some(secret) = &body.client_secret
        && (secret.is_empty() || secret.len() > 1024)
    {
        checks.push("oauth_client.client_secret", "must be 1 to 1024 characters");
        return None;
    }
    let issuer = match body.issuer.as_deref().map(str::trim).filter(|i| !i.is_empty()) {
        Some(given) => match crate::sso::settings::parse_issuer(given, state.config.is_development()) {
            Ok(_) => Some(given.to_owned()),
            Err(problem) => {
                checks.push("oauth_client.issuer", problem);
                return None;
            }
        },
        None => None,
    };
    Some(crate::storage::PreregisteredClient {
        client_id: client_id.to_owned(),
        secret_sealed: body
            .client_secret
            .as_ref()
            .map(|secret| crate::upstream_auth::seal_client_secret(&state.keys, org_id, server_id, secret)),
        issuer,
    })
}

pub async fn create(
    State(state): State<AppState>,
    access: OrgAccess,
    ValidJson(body): ValidJson<NewServerBody>,
) -> ApiResult<(StatusCode, Json<ServerView>)> {
    access.require_admin()?;
    let mut checks = Checks::default();
    let slug = checks.field("slug", Slug::parse(&body.slug));
    let name = checks.field("name", DisplayName::parse(&body.name));
    let url = checks.field("url", state.config.egress.server_url(&body.url));
    let headers = check_headers(&mut checks, &body.headers);
    let protocol = body.protocol.as_deref().map(|p| checks.field("protocol", ServerProtocol::parse(p)));
    let auth_mode = body.auth_mode.as_deref().map(|m| checks.field("auth_mode", AuthMode::parse(m)));
    let id = Uuid::now_v7();
    let oauth_client = body
        .oauth_client
        .as_ref()
        .and_then(|c| check_oauth_client(&state, &mut checks, access.org_id(), id, c));
    checks.finish()?;
    let headers = checked(headers);
    let server = state
        .store
        .create_server(
            access.org_id(),
            NewServer {
                id,
                slug: checked(slug).to_string(),
                name: checked(name).as_str().to_owned(),
                url: checked(url).as_str().to_owned(),
                header_names: headers.names(),
                headers_sealed: headers::seal(&state.keys, access.org_id(), id, &headers),
                protocol: protocol.map(checked).unwrap_or_default(),
                auth_mode: auth_mode.map(checked).unwrap_or_default(),
                oauth_client,
            },
            OffsetDateTime::now_utc(),
        )
        .await?;
    state.forget(changed(&server)).await;
    tracing::info!(org = %access.membership.org.slug, server = %server.slug, "server registered");
    access
        .audit(
            state.store.as_ref(),
            "server.registered",
            Subject {
                server_slug: Some(server.slug.clone()),
                details: Some(serde_json::json!({
                    "name": server.name,
                    "url": ServerUrl::display_form(&server.url),
                    "header_names": server.header_names,
                    "protocol": server.protocol,
                    "auth_mode": server.auth_mode,
                })),
                ..Default::default()
            },
        )
        .await;
    Ok((StatusCode::CREATED, Json((&server).into())))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpdateServerBody {
    name: Option<String>,
    url: Option<String>,
    /// Replaces the whole header set when present (`{}` removes every header).
    headers: Option<BTreeMap<String, String>>,
    /// `auto`, `2025-11-25` or `2026-07-28`.
    protocol: Option<String>,
    /// `none`, `headers` or `oauth`.
    auth_mode: Option<String>,
    /// Replaces the admin's client credentials; `null` removes them.
    #[serde(default, deserialize_with = "nullable")]
    oauth_client: Option<Option<OAuthClientBody>>,
}

pub async fn update(
    State(state): State<AppState>,
    access: OrgAccess,
    Path((_, slug)): Path<(String, String)>,
    ValidJson(body): ValidJson<UpdateServerBody>,
) -> ApiResult<Json<ServerView>> {
    access.require_admin()?;
    let existing = state.store.server(access.org_id(), &slug).await?.ok_or(ApiError::NotFound)?;
    let mut checks = Checks::default();
    let name = body.name.as_deref().map(|n| checks.field("name", DisplayName::parse(n)));
    let url = body.url.as_deref().map(|u| checks.field("url", state.config.egress.server_url(u)));
    let headers = body.headers.as_ref().map(|h| check_headers(&mut checks, h));
    // Stored header values never follow the URL to another origin.
    if let (Some(Some(new_url)), None) = (&url, &body.headers)
        && let Some(problem) =
            new_url.moves_headers_from(&existing.url).filter(|_| !existing.header_names.is_empty())
    {
        checks.push("headers", problem);
    }
    let protocol = body.protocol.as_deref().map(|p| checks.field("protocol", ServerProtocol::parse(p)));
    let auth_mode = body.auth_mode.as_deref().map(|m| checks.field("auth_mode", AuthMode::parse(m)));
    let oauth_client = body.oauth_client.as_ref().map(|c| {
        c.as_ref().and_then(|c| check_oauth_client(&state, &mut checks, access.org_id(), existing.id, c))
    });
    checks.finish()?;
    let headers_replaced = headers.is_some();
    let changes = ServerChanges {
        name: name.map(|n| checked(n).as_str().to_owned()),
        url: url.map(|u| checked(u).as_str().to_owned()),
        headers: headers.map(|h| {
            let h = checked(h);
            (h.names(), headers::seal(&state.keys, access.org_id(), existing.id, &h))
        }),
        protocol: protocol.map(checked),
        auth_mode: auth_mode.map(checked),
        oauth_client,
    };
    let server =
        state.store.update_server(access.org_id(), &slug, changes, OffsetDateTime::now_utc()).await?;
    // People's tokens and Herald's registrations were for the old address or mode: they go
    // (revoked where the authorization server offers it).
    if existing.url != server.url
        || existing.auth_mode != server.auth_mode
        || existing.oauth_client != server.oauth_client
    {
        crate::upstream_auth::forget_server(&state, &existing).await;
    }
    // Links made with the old URL, headers or era are retired on every replica.
    state.forget(changed(&server)).await;
    tracing::info!(org = %access.membership.org.slug, server = %server.slug, "server updated");
    access
        .audit(
            state.store.as_ref(),
            "server.updated",
            Subject {
                server_slug: Some(server.slug.clone()),
                details: Some(
                    serde_json::json!({ "changes": server_changes(&existing, &server, headers_replaced) }),
                ),
                ..Default::default()
            },
        )
        .await;
    Ok(Json((&server).into()))
}

pub async fn delete(
    State(state): State<AppState>,
    access: OrgAccess,
    Path((_, slug)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    access.require_admin()?;
    let existing = state.store.server(access.org_id(), &slug).await?.ok_or(ApiError::NotFound)?;
    // People's tokens for it are revoked before their rows go with the server.
    crate::upstream_auth::forget_server(&state, &existing).await;
    state.store.delete_server(access.org_id(), &slug).await?;
    state.forget(changed(&existing)).await;
    tracing::info!(org = %access.membership.org.slug, server = %slug, "server deleted");
    access
        .audit(
            state.store.as_ref(),
            "server.deleted",
            Subject {
                server_slug: Some(slug.clone()),
                details: Some(serde_json::json!({ "name": existing.name })),
                ..Default::default()
            },
        )
        .await;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct CutOffBody {
    #[serde(default)]
    reason: String,
}

/// Cuts a server off for the whole organisation: it takes no calls until restored.
pub async fn cut_off(
    State(state): State<AppState>,
    access: OrgAccess,
    Path((_, slug)): Path<(String, String)>,
    body: Option<ValidJson<CutOffBody>>,
) -> ApiResult<Json<ServerView>> {
    access.require_admin()?;
    // The body is optional: none means "no reason given".
    let reason = body.map(|ValidJson(b)| b.reason).unwrap_or_default().trim().to_owned();
    if reason.chars().count() > 500 {
        return Err(ApiError::field("reason", "must be at most 500 characters"));
    }
    let now = OffsetDateTime::now_utc();
    let cut_off = CutOff { at: now, by: Some(access.user().id), reason };
    let server = state.store.set_cut_off(access.org_id(), &slug, Some(cut_off), now).await?;
    state.forget(changed(&server)).await;
    tracing::info!(org = %access.membership.org.slug, server = %slug, "server cut off");
    access
        .audit(
            state.store.as_ref(),
            "server.cut_off",
            Subject {
                server_slug: Some(slug.clone()),
                reason: server.cut_off.as_ref().map(|c| c.reason.clone()),
                ..Default::default()
            },
        )
        .await;
    // A cut-off server takes no calls: what it is asking right now ends at once.
    end_pending(&state, access.org_id(), server.id).await;
    Ok(Json((&server).into()))
}

pub async fn restore(
    State(state): State<AppState>,
    access: OrgAccess,
    Path((_, slug)): Path<(String, String)>,
) -> ApiResult<Json<ServerView>> {
    access.require_admin()?;
    let server = state.store.set_cut_off(access.org_id(), &slug, None, OffsetDateTime::now_utc()).await?;
    state.forget(changed(&server)).await;
    tracing::info!(org = %access.membership.org.slug, server = %slug, "server restored");
    access
        .audit(
            state.store.as_ref(),
            "server.restored",
            Subject { server_slug: Some(slug.clone()), ..Default::default() },
        )
        .await;
    Ok(Json((&server).into()))
}

/// What an update changed, for the audit: the name, the URL (as views show
/// it), the protocol, and the header names when the headers were replaced
/// (header values are never recorded).
fn server_changes(before: &Server, after: &Server, headers_replaced: bool) -> Vec<serde_json::Value> {
    let mut changes = Vec::new();
    if before.name != after.name {
        changes.push(audit::change("name", before.name.as_str(), after.name.as_str()));
    }
    let (old_url, new_url) = (ServerUrl::display_form(&before.url), ServerUrl::display_form(&after.url));
    if old_url != new_url {
        changes.push(audit::change("url", old_url, new_url));
    }
    if before.protocol != after.protocol {
        changes.push(audit::change(
            "protocol",
            serde_json::json!(before.protocol),
            serde_json::json!(after.protocol),
        ));
    }
    if headers_replaced {
        changes.push(audit::change("headers", before.header_names.clone(), after.header_names.clone()));
    }
    if before.auth_mode != after.auth_mode {
        changes.push(audit::change(
            "auth_mode",
            serde_json::json!(before.auth_mode),
            serde_json::json!(after.auth_mode),
        ));
    }
    if before.oauth_client != after.oauth_client {
        let id = |s: &Server| s.oauth_client.as_ref().map(|c| c.client_id.clone());
        changes.push(audit::change("oauth_client", id(before), id(after)));
    }
    changes
}

fn check_headers(checks: &mut Checks, raw: &BTreeMap<String, String>) -> Option<HeaderSet> {
    match HeaderSet::parse(raw) {
        Ok(set) => Some(set),
        Err(errors) => {
            for (name, problem) in errors {
                let field = if name.is_empty() { "headers".to_owned() } else { format!("headers.{name}") };
                checks.push(field, problem.0);
            }
            None
        }
    }
}

/// What every replica must forget (and which links it must retire) when `server` changes.
fn changed(server: &Server) -> Forget {
    Forget::CachedServer { org_id: server.org_id, slug: server.slug.clone(), server_id: Some(server.id) }
}

/// Ends every pending elicitation of a server, on behalf of the org's policy.
async fn end_pending(state: &AppState, org_id: Uuid, server_id: Uuid) {
    use crate::domain::outcome::{DecidedBy, cancelled};
    use crate::storage::questions::PendingOf;
    match state
        .store
        .end_pending(PendingOf::Server { org_id, server_id }, &cancelled(DecidedBy::Policy, Rule::CutOff))
        .await
    {
        Ok(ended) => ended.iter().for_each(|e| state.broker.announce(e)),
        Err(e) => tracing::error!(error = %e, "could not end the pending elicitations of a cut-off server"),
    }
}
