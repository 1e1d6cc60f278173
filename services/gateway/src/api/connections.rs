//! A person connecting their own account at an OAuth-protected server, in the
//! browser:
//!
//! 1. `GET /connect/{org}/{server}/start` (signed in to the dashboard): Herald
//!    asks the server what it wants (its `401` challenge), finds its
//!    authorization server and gets a client identity there. Herald's client
//!    identity at that server serves everyone, so the person agrees first, on
//!    Herald's own page (`/connections?review=…`): which server, which
//!    authorization server, which scopes. That page's Continue comes back here
//!    with the sealed consent ticket; then Herald records the attempt (state
//!    hashed, PKCE verifier sealed, the issuer expected back, bound to this
//!    browser by a cookie) and sends the browser to authorize, with the
//!    `resource` (RFC 8707) and the scopes agreed to.
//! 2. `GET /connect/callback?code&state&iss`: the attempt is taken once, the
//!    browser and the issuer (RFC 9207) checked, the code exchanged (with the
//!    `resource` again), and the tokens sealed for (org, person, server).
//!
//! Failures end on the Connections page with a code it says in words. The
//! person's list and disconnecting are `GET/DELETE /api/v1/me/connections…`;
//! Herald's Client ID Metadata Document is served at
//! `upstream_auth::METADATA_DOCUMENT_PATH`.

use std::time::Duration;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::auth::SessionUser;
use super::binding::{Binding, see_other};
use crate::app::AppState;
use crate::audit::{self, Actor, Subject};
use crate::crypto;
use crate::problem::{ApiError, ApiResult};
use crate::storage::Server;
use crate::storage::connections::{ConnectAttempt, Connection};
use crate::upstream_auth::{self as ua, ConnectError, client, discovery};

const ATTEMPT_LIFETIME: Duration = Duration::from_secs(600);
const SEAL_CONTEXT: &[u8] = b"upstream connect pkce verifier";
const CONSENT_CONTEXT: &[u8] = b"upstream connect consent ticket";
/// How long the review page's Continue stays good.
const CONSENT_LIFETIME: Duration = Duration::from_secs(600);

/// What a person agrees to on Herald's review page before Herald sends them to an
/// authorization server where its one client identity serves many people (the MCP security
/// best practices' consent per client, against a confused deputy): sealed, so nobody can make
/// or change one, and bound to the person, the server, the issuer, the client and the scopes.
/// Anything different by the time they continue is reviewed anew.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct ConsentTicket {
    user_id: uuid::Uuid,
    org: String,
    server: String,
    server_id: uuid::Uuid,
    issuer: String,
    client_id: String,
    scopes: Vec<String>,
    expires_at: i64,
}

impl ConsentTicket {
    fn seal(&self, state: &AppState) -> String {
        use base64::Engine;
        let plain = serde_json::to_vec(self).expect("a ticket serialises");
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(state.keys.seal(CONSENT_CONTEXT, &plain))
    }

    /// The ticket `text` seals, unless it is not one of Herald's or has expired.
    fn open(state: &AppState, text: &str) -> Option<Self> {
        use base64::Engine;
        if text.len() > 4096 {
            return None;
        }
        let sealed = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(text).ok()?;
        let plain = state.keys.open(CONSENT_CONTEXT, &sealed).ok()?;
        let ticket: Self = serde_json::from_slice(&plain).ok()?;
        (ticket.expires_at > OffsetDateTime::now_utc().unix_timestamp()).then_some(ticket)
    }

    /// The same agreement, whenever it was sealed.
    fn agrees_with(&self, other: &Self) -> bool {
        Self { expires_at: 0, ..self.clone() } == Self { expires_at: 0, ..other.clone() }
    }
}

/// Binds an attempt to the browser that started it.
const BROWSER: Binding =
    Binding { name: "herald_connect", secure_name: "__Secure-herald_connect", path: "/connect" };

/// Back to the Connections page, saying why.
fn failed(state: &AppState, target: Option<&str>, error: &ConnectError) -> Response {
    tracing::info!(code = error.code(), reason = %error, "connecting to a server failed");
    let mut query = url::form_urlencoded::Serializer::new(String::new());
    query.append_pair("connect_error", error.code());
    if let Some(target) = target {
        query.append_pair("server", target);
    }
    if let Some(detail) = error.detail() {
        query.append_pair("detail", &detail);
    }
    see_other(&format!("/connections?{}", query.finish()), &[BROWSER.clear(state)])
}

async fn member_server(
    state: &AppState,
    user_id: uuid::Uuid,
    org: &str,
    slug: &str,
) -> Result<Server, ConnectError> {
    let membership = state.store.membership(org, user_id).await?.ok_or(ConnectError::NoServer)?;
    let server = state.store.server(membership.org.id, slug).await?.ok_or(ConnectError::NoServer)?;
    if !ua::per_person(&server) {
        return Err(ConnectError::NotOAuth);
    }
    if server.cut_off.is_some() {
        return Err(ConnectError::Misconfigured("an admin cut this server off".into()));
    }
    Ok(server)
}

#[derive(Deserialize)]
pub struct StartQuery {
    /// The review page's sealed consent ticket.
    consent: Option<String>,
}

/// Where `begin` sends the browser.
enum Begun {
    /// To Herald's review page, to agree first.
    Review(String),
    /// To the authorization server, with the attempt's cookie secret.
    Authorize(String, String),
}

/// `GET /connect/{org}/{server}/start[?consent=ticket]`
pub async fn start(
    State(state): State<AppState>,
    caller: Result<SessionUser, ApiError>,
    Path((org, slug)): Path<(String, String)>,
    Query(query): Query<StartQuery>,
    headers: HeaderMap,
) -> Response {
    let target = format!("{org}/{slug}");
    let Ok(caller) = caller else {
        let back = format!("/connections?connect={target}");
        let query =
            url::form_urlencoded::Serializer::new(String::new()).append_pair("return_to", &back).finish();
        return see_other(&format!("/login?{query}"), &[]);
    };
    match begin(&state, &caller, &org, &slug, query.consent.as_deref(), &headers).await {
        Ok(Begun::Review(location)) => see_other(&location, &[]),
        Ok(Begun::Authorize(location, secret)) => {
            see_other(&location, &[BROWSER.cookie(&state, &secret, ATTEMPT_LIFETIME.as_secs())])
        }
        Err(e) => failed(&state, Some(&target), &e),
    }
}

async fn begin(
    state: &AppState,
    caller: &SessionUser,
    org: &str,
    slug: &str,
    consent: Option<&str>,
    headers: &HeaderMap,
) -> Result<Begun, ConnectError> {
    let server = member_server(state, caller.user.id, org, slug).await?;
    let http = state.upstream_auth.http();
    let check = |u: &str| state.upstream_auth.check_url(u);
    let challenge = discovery::probe(http, &check, &server.url).await?;
    let resource = discovery::resource_metadata(http, &check, &server.url, challenge.as_ref()).await?;
    let meta = state.upstream_auth.auth_server(&resource.authorization_server).await?;
    let identity = ua::client_identity(state, &server, &meta).await?;
    // The challenge's scopes are what this server wants now; else all it lists; kept with what
    // the person granted before (a step-up keeps earlier permissions).
    let mut scopes: Vec<String> = match challenge.as_ref().and_then(|c| c.scope.as_deref()) {
        Some(scope) => scope.split_whitespace().map(str::to_owned).collect(),
        None => resource.scopes_supported.clone(),
    };
    if let Some(existing) = state.store.connection(server.id, caller.user.id).await? {
        // What the server asked for since (a step-up), and what the person granted before.
        for granted in existing.wanted_scopes.split_whitespace().chain(existing.scopes.split_whitespace()) {
            if !scopes.iter().any(|s| s == granted) {
                scopes.push(granted.to_owned());
            }
        }
    }
    scopes.truncate(50);
    // A refresh token, where the authorization server says it gives one only for
    // `offline_access` (an OpenID provider); without it the person would connect again whenever
    // the access token ends (SEP-2207).
    if meta.scopes_supported.iter().any(|s| s == client::OFFLINE_ACCESS)
        && !scopes.iter().any(|s| s == client::OFFLINE_ACCESS)
    {
        scopes.push(client::OFFLINE_ACCESS.to_owned());
    }
    let asked = ConsentTicket {
        user_id: caller.user.id,
        org: org.to_owned(),
        server: slug.to_owned(),
        server_id: server.id,
        issuer: meta.issuer.clone(),
        client_id: identity.client_id.clone(),
        scopes: scopes.clone(),
        expires_at: (OffsetDateTime::now_utc() + CONSENT_LIFETIME).unix_timestamp(),
    };
    let agreed = consent.and_then(|t| ConsentTicket::open(state, t)).is_some_and(|t| t.agrees_with(&asked));
    if !agreed {
        let query = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("review", &format!("{org}/{slug}"))
            .append_pair("ticket", &asked.seal(state))
            .finish();
        return Ok(Begun::Review(format!("/connections?{query}")));
    }
    let authorization =
        client::authorize(&identity, &meta, &ua::redirect_uri(state), &resource.resource, &scopes)?;
    let secret = BROWSER.secret_or_new(state, headers);
    let now = OffsetDateTime::now_utc();
    state
        .store
        .put_connect_attempt(&ConnectAttempt {
            state_hash: crypto::sha256(authorization.state.as_bytes()),
            org_id: server.org_id,
            user_id: caller.user.id,
            server_id: server.id,
            issuer: meta.issuer.clone(),
            resource: resource.resource.clone(),
            browser_hash: crypto::sha256(secret.as_bytes()),
            pkce_verifier_sealed: state.keys.seal(SEAL_CONTEXT, authorization.pkce_verifier.as_bytes()),
            scopes: scopes.join(" "),
            return_to: format!("/connections?connected={org}/{slug}"),
            created_at: now,
            expires_at: now + ATTEMPT_LIFETIME,
        })
        .await?;
    Ok(Begun::Authorize(authorization.url.to_string(), secret))
}

#[derive(Deserialize)]
pub struct ReviewQuery {
    ticket: String,
}

#[derive(Serialize)]
pub struct ReviewView {
    org: ReviewOrg,
    server: ReviewServer,
    /// The authorization server the person is sent to.
    issuer: String,
    scopes: Vec<String>,
    /// Where the review page's Continue goes.
    continue_to: String,
    /// Whether the person is connected already (this connects them again).
    connected: bool,
}

#[derive(Serialize)]
pub struct ReviewOrg {
    slug: String,
    name: String,
}

#[derive(Serialize)]
pub struct ReviewServer {
    slug: String,
    name: String,
    url: String,
}

/// `GET /api/v1/me/connections/review?ticket=…`: what the review page shows, from the ticket
/// `start` sealed (only to the person it was sealed for; `410 consent-expired` once it ended).
pub async fn review(
    State(state): State<AppState>,
    caller: SessionUser,
    Query(query): Query<ReviewQuery>,
) -> ApiResult<Json<ReviewView>> {
    let ticket = ConsentTicket::open(&state, &query.ticket)
        .filter(|t| t.user_id == caller.user.id)
        .ok_or_else(|| {
            ApiError::Gone(
                "consent-expired",
                "this review has expired or is not yours: start connecting again".into(),
            )
        })?;
    let membership = state.store.membership(&ticket.org, caller.user.id).await?.ok_or(ApiError::NotFound)?;
    let server = state.store.server(membership.org.id, &ticket.server).await?.ok_or(ApiError::NotFound)?;
    if server.id != ticket.server_id {
        return Err(ApiError::NotFound);
    }
    let connected = state.store.connection(server.id, caller.user.id).await?.is_some();
    let continue_to = format!(
        "/connect/{}/{}/start?{}",
        ticket.org,
        ticket.server,
        url::form_urlencoded::Serializer::new(String::new()).append_pair("consent", &query.ticket).finish()
    );
    Ok(Json(ReviewView {
        org: ReviewOrg { slug: membership.org.slug.clone(), name: membership.org.name.clone() },
        server: ReviewServer {
            slug: server.slug.clone(),
            name: server.name.clone(),
            url: server.url.clone(),
        },
        issuer: ticket.issuer,
        scopes: ticket.scopes,
        continue_to,
        connected,
    }))
}

#[derive(Deserialize)]
pub struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
    iss: Option<String>,
    error: Option<String>,
    error_description: Option<String>,
}

/// `GET /connect/callback`
pub async fn callback(
    State(state): State<AppState>,
    Query(query): Query<CallbackQuery>,
    headers: HeaderMap,
) -> Response {
    match finish(&state, query, &headers).await {
        Ok(return_to) => see_other(&return_to, &[BROWSER.clear(&state)]),
        Err((target, e)) => failed(&state, target.as_deref(), &e),
    }
}

async fn finish(
    state: &AppState,
    query: CallbackQuery,
    headers: &HeaderMap,
) -> Result<String, (Option<String>, ConnectError)> {
    let none = |e: ConnectError| (None, e);
    let given =
        query.state.as_deref().filter(|s| s.len() <= 512).ok_or(none(ConnectError::AttemptUnknown))?;
    let now = OffsetDateTime::now_utc();
    let attempt = state
        .store
        .take_connect_attempt(&crypto::sha256(given.as_bytes()), now)
        .await
        .map_err(|e| none(e.into()))?
        .ok_or(none(ConnectError::AttemptUnknown))?;
    let target = attempt.return_to.split_once("connected=").map(|(_, t)| t.to_owned());
    let fail = |e: ConnectError| (target.clone(), e);
    if !BROWSER.matches(state, headers, &attempt.browser_hash) {
        return Err(fail(ConnectError::OtherBrowser));
    }
    let meta = state.upstream_auth.auth_server(&attempt.issuer).await.map_err(&fail)?;
    // RFC 9207 as the MCP authorization specification words it: a present `iss` must be the
    // recorded issuer, compared as a plain string; an absent one only where the server says it
    // sends it. On a mismatch nothing in the answer is acted on or shown.
    match query.iss.as_deref() {
        Some(iss) if iss != attempt.issuer => {
            return Err(fail(ConnectError::WrongIssuer(format!(
                "the answer does not name {:?}, the authorization server Herald sent you to",
                attempt.issuer
            ))));
        }
        None if meta.authorization_response_iss_parameter_supported => {
            return Err(fail(ConnectError::WrongIssuer(
                "the answer does not say which server sent it".into(),
            )));
        }
        _ => {}
    }
    if let Some(error) = query.error {
        return Err(fail(ConnectError::Refused {
            error: error.chars().take(100).collect(),
            description: query.error_description.map(|d| d.chars().take(300).collect()),
        }));
    }
    let code = query.code.filter(|c| !c.is_empty() && c.len() <= 4096).ok_or_else(|| {
        fail(ConnectError::Refused {
            error: "invalid_request".into(),
            description: Some("no authorization code".into()),
        })
    })?;
    // The person must still be a member, and the server still the one the attempt was for.
    let server = state
        .store
        .servers(attempt.org_id)
        .await
        .map_err(|e| fail(e.into()))?
        .into_iter()
        .find(|s| s.id == attempt.server_id && ua::per_person(s))
        .ok_or_else(|| fail(ConnectError::NoServer))?;
    let member = state.store.memberships(attempt.user_id).await.map_err(|e| fail(e.into()))?;
    if !member.iter().any(|m| m.org.id == attempt.org_id) {
        return Err(fail(ConnectError::NoServer));
    }
    let verifier = state
        .keys
        .open(SEAL_CONTEXT, &attempt.pkce_verifier_sealed)
        .ok()
        .and_then(|v| String::from_utf8(v).ok())
        .ok_or_else(|| fail(ConnectError::AttemptUnknown))?;
    let identity = ua::client_identity(state, &server, &meta).await.map_err(&fail)?;
    let asked: Vec<String> = attempt.scopes.split_whitespace().map(str::to_owned).collect();
    let tokens = client::exchange(
        state.upstream_auth.http(),
        &identity,
        &meta,
        &ua::redirect_uri(state),
        &attempt.resource,
        code,
        verifier,
        &asked,
    )
    .await
    .map_err(&fail)?;
    let mut connection = Connection {
        org_id: attempt.org_id,
        user_id: attempt.user_id,
        server_id: server.id,
        issuer: attempt.issuer.clone(),
        resource: attempt.resource.clone(),
        access_token_sealed: Vec::new(),
        refresh_token_sealed: None,
        scopes: tokens.scopes.join(" "),
        expires_at: tokens.expires_at,
        connected_at: now,
        refreshed_at: now,
        wanted_scopes: String::new(),
    };
    connection.access_token_sealed = ua::seal_access(&state.keys, &connection, &tokens.access_token);
    connection.refresh_token_sealed =
        tokens.refresh_token.as_deref().map(|t| ua::seal_refresh(&state.keys, &connection, t));
    // Tokens from another authorization server (the server moved to a new one since) are
    // revoked where they came from before the new ones replace them.
    let replaced = state.store.connection(server.id, attempt.user_id).await.map_err(|e| fail(e.into()))?;
    let moved = replaced.as_ref().is_some_and(|old| old.issuer != connection.issuer);
    state.store.put_connection(&connection).await.map_err(|e| fail(e.into()))?;
    if let Some(old) = replaced.filter(|_| moved) {
        ua::revoke(state, &server, &old).await;
    }
    ua::changed(state, server.id, attempt.user_id, moved).await;
    audit::record(
        state.store.as_ref(),
        attempt.org_id,
        Actor::User(attempt.user_id),
        "connection.created",
        Subject {
            user_id: Some(attempt.user_id),
            server_slug: Some(server.slug.clone()),
            details: Some(serde_json::json!({ "issuer": attempt.issuer, "scopes": connection.scopes })),
            ..Default::default()
        },
    )
    .await;
    tracing::info!(server = %server.slug, user_id = %attempt.user_id, "a person connected to a server");
    // Calls waiting for this connection go on.
    state.broker.connected(attempt.user_id, server.id).await;
    Ok(attempt.return_to)
}

// ---- the person's list ----

#[derive(Serialize)]
pub struct ConnectionList {
    connections: Vec<ConnectionView>,
}

#[derive(Serialize)]
pub struct ConnectionView {
    org: String,
    server: String,
    server_name: String,
    connected: bool,
    /// Where the dashboard sends the browser to connect (or connect again).
    connect: String,
    issuer: Option<String>,
    scopes: Vec<String>,
    #[serde(with = "time::serde::rfc3339::option")]
    expires_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    connected_at: Option<OffsetDateTime>,
    renewable: bool,
}

/// `GET /api/v1/me/connections`: every per-person server in the caller's organisations, connected
/// or not.
pub async fn list(State(state): State<AppState>, caller: SessionUser) -> ApiResult<Json<ConnectionList>> {
    let connected = state.store.connections_of(caller.user.id).await?;
    let mut out = Vec::new();
    for membership in state.store.memberships(caller.user.id).await? {
        for server in state.store.servers(membership.org.id).await?.into_iter().filter(ua::per_person) {
            let found = connected.iter().find(|c| c.server_id == server.id);
            out.push(ConnectionView {
                org: membership.org.slug.clone(),
                server: server.slug.clone(),
                server_name: server.name.clone(),
                connected: found.is_some(),
                connect: format!("/connect/{}/{}/start", membership.org.slug, server.slug),
                issuer: found.map(|c| c.issuer.clone()),
                scopes: found
                    .map(|c| c.scopes.split_whitespace().map(str::to_owned).collect())
                    .unwrap_or_default(),
                expires_at: found.and_then(|c| c.expires_at),
                connected_at: found.map(|c| c.connected_at),
                renewable: found.is_some_and(|c| c.refresh_token_sealed.is_some()),
            });
        }
    }
    Ok(Json(ConnectionList { connections: out }))
}

/// `DELETE /api/v1/me/connections/{org}/{server}`: revoked at the authorization server where it
/// offers revocation, and forgotten.
pub async fn disconnect(
    State(state): State<AppState>,
    caller: SessionUser,
    Path((org, slug)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    let membership = state.store.membership(&org, caller.user.id).await?.ok_or(ApiError::NotFound)?;
    let server = state.store.server(membership.org.id, &slug).await?.ok_or(ApiError::NotFound)?;
    let removed = ua::disconnect(&state, &server, caller.user.id)
        .await
        .map_err(|e| ApiError::Upstream(e.to_string()))?;
    if !removed {
        return Err(ApiError::NotFound);
    }
    audit::record(
        state.store.as_ref(),
        membership.org.id,
        Actor::User(caller.user.id),
        "connection.removed",
        Subject { user_id: Some(caller.user.id), server_slug: Some(slug), ..Default::default() },
    )
    .await;
    Ok(StatusCode::NO_CONTENT)
}

/// Herald's Client ID Metadata Document (draft-ietf-oauth-client-id-metadata-document): its URL
/// is Herald's client id at authorization servers that take one.
pub async fn metadata_document(State(state): State<AppState>) -> ApiResult<Response> {
    let Some(client_id) = ua::metadata_document_url(&state) else { return Err(ApiError::NotFound) };
    let host = state.config.public_url.host_str().unwrap_or("herald").to_owned();
    let document = serde_json::json!({
        "client_id": client_id,
        "client_name": format!("Herald ({host})"),
        "client_uri": state.config.public_url.as_str(),
        "redirect_uris": [ua::redirect_uri(&state)],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    });
    Ok(([(header::CACHE_CONTROL, "public, max-age=3600")], Json(document)).into_response())
}
