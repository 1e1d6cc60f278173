//! Each person's own OAuth tokens for upstream servers whose registry entry
//! says `oauth` (issue 17), with Herald as the OAuth client the MCP
//! authorization specification describes:
//!
//! - `challenge`: the server's `WWW-Authenticate: Bearer` challenge;
//! - `discovery`: protected resource metadata (RFC 9728), then the
//!   authorization server's metadata (RFC 8414, OpenID Connect discovery);
//! - `client`: Herald's client identity there (pre-registered, metadata
//!   document, dynamic registration) and the token requests.
//!
//! Tokens are sealed at rest, bound to (organisation, person, server), kept
//! per authorization server (issuer), refreshed shortly before they expire,
//! and revoked when the person disconnects or leaves, or the server goes or
//! changes address. The browser's side is `api::connections`.

pub mod challenge;
pub mod client;
pub mod discovery;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use oauth2::{AccessToken, RefreshToken, StandardRevocableToken};
use time::OffsetDateTime;
use uuid::Uuid;

use self::client::{ClientIdentity, Herald};
use self::discovery::AuthServer;
use crate::app::AppState;
use crate::crypto::Keys;
use crate::domain::AuthMode;
use crate::sso::http::IdpClient;
use crate::storage::Server;
use crate::storage::connections::{Connection, UpstreamClient};

/// A token that expires sooner than this is refreshed before it is used.
const REFRESH_AHEAD: time::Duration = time::Duration::seconds(60);
/// How long an authorization server's metadata is kept.
const METADATA_KEPT: Duration = Duration::from_secs(600);
pub const CALLBACK_PATH: &str = "/connect/callback";
pub const METADATA_DOCUMENT_PATH: &str = "/oauth/client-metadata.json";

/// Why connecting to a server (or using the connection) did not work. `code` goes to the
/// Connections page, which says it in words; `detail` (never a secret) goes with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConnectError {
    #[error("this connection attempt was already used, or it expired")]
    AttemptUnknown,
    #[error("this connection was started in another browser")]
    OtherBrowser,
    #[error("the answer came from another authorization server")]
    WrongIssuer(String),
    #[error("the authorization server refused: {error}")]
    Refused { error: String, description: Option<String> },
    #[error("could not reach it: {0}")]
    Unreachable(String),
    #[error("it is misconfigured: {0}")]
    Misconfigured(String),
    #[error("the server does not say how to authorize: {0}")]
    NotProtected(String),
    #[error("Herald has no client there: {0}")]
    NoClient(String),
    #[error("the token was not usable: {0}")]
    TokenRejected(String),
    #[error("this server does not use per-person sign-in")]
    NotOAuth,
    #[error("that server does not exist")]
    NoServer,
}

impl ConnectError {
    pub fn code(&self) -> &'static str {
        match self {
            ConnectError::AttemptUnknown => "attempt_unknown",
            ConnectError::OtherBrowser => "other_browser",
            ConnectError::WrongIssuer(_) => "wrong_issuer",
            ConnectError::Refused { .. } => "refused",
            ConnectError::Unreachable(_) => "unreachable",
            ConnectError::Misconfigured(_) => "misconfigured",
            ConnectError::NotProtected(_) => "not_protected",
            ConnectError::NoClient(_) => "no_client",
            ConnectError::TokenRejected(_) => "token_rejected",
            ConnectError::NotOAuth => "not_oauth",
            ConnectError::NoServer => "no_server",
        }
    }

    pub fn detail(&self) -> Option<String> {
        let text = match self {
            ConnectError::WrongIssuer(s)
            | ConnectError::Unreachable(s)
            | ConnectError::Misconfigured(s)
            | ConnectError::NotProtected(s)
            | ConnectError::NoClient(s)
            | ConnectError::TokenRejected(s) => s.clone(),
            ConnectError::Refused { error, description } => match description {
                Some(d) => format!("{error}: {d}"),
                None => error.clone(),
            },
            _ => return None,
        };
        Some(text.chars().filter(|c| !c.is_control()).take(400).collect())
    }
}

impl From<crate::storage::StoreError> for ConnectError {
    fn from(e: crate::storage::StoreError) -> Self {
        tracing::error!(error = %e, "storage failed while connecting a person to a server");
        ConnectError::Unreachable("Herald's database is unavailable; try again".into())
    }
}

/// The HTTP client for tenants' servers and authorization servers, and what is known of the
/// authorization servers.
pub struct UpstreamAuth {
    http: IdpClient,
    egress: crate::egress::EgressPolicy,
    development: bool,
    known: Mutex<HashMap<String, (Instant, Arc<AuthServer>)>>,
}

impl UpstreamAuth {
    pub fn new(egress: &crate::egress::EgressPolicy, development: bool) -> Self {
        UpstreamAuth {
            http: IdpClient::new(Some(egress.resolver())),
            egress: egress.clone(),
            development,
            known: Mutex::new(HashMap::new()),
        }
    }

    pub fn http(&self) -> &IdpClient {
        &self.http
    }

    /// A URL a tenant's server handed Herald, checked before anything is sent to it.
    pub fn check_url(&self, given: &str) -> Result<url::Url, ConnectError> {
        let url = url::Url::parse(given)
            .map_err(|_| ConnectError::Misconfigured(format!("{given:?} is not a URL")))?;
        let loopback = matches!(url.host(), Some(url::Host::Ipv4(ip)) if ip.is_loopback())
            || matches!(url.host(), Some(url::Host::Ipv6(ip)) if ip.is_loopback())
            || matches!(url.host(), Some(url::Host::Domain("localhost")));
        match url.scheme() {
            "https" => {}
            "http" if loopback && self.development => {}
            _ => return Err(ConnectError::Misconfigured(format!("{given} is not an https URL"))),
        }
        if self.egress.refuses_host(&url) {
            return Err(ConnectError::Misconfigured(format!(
                "{given} is an address Herald may not connect to"
            )));
        }
        Ok(url)
    }

    /// The authorization server's metadata, kept for ten minutes.
    pub async fn auth_server(&self, issuer: &str) -> Result<Arc<AuthServer>, ConnectError> {
        if let Some((at, meta)) = self.known.lock().expect("not poisoned").get(issuer).cloned()
            && at.elapsed() < METADATA_KEPT
        {
            return Ok(meta);
        }
        let check = |u: &str| self.check_url(u);
        let meta = Arc::new(discovery::auth_server(&self.http, &check, issuer).await?);
        let mut known = self.known.lock().expect("not poisoned");
        if known.len() > 1000 {
            known.clear();
        }
        known.insert(issuer.to_owned(), (Instant::now(), meta.clone()));
        Ok(meta)
    }
}

// ---- sealing ----

fn client_context(org_id: Uuid, server_id: Uuid) -> Vec<u8> {
    [b"upstream oauth client".as_slice(), org_id.as_bytes(), server_id.as_bytes()].concat()
}

fn token_context(org_id: Uuid, user_id: Uuid, server_id: Uuid, kind: &[u8]) -> Vec<u8> {
    [kind, org_id.as_bytes(), user_id.as_bytes(), server_id.as_bytes()].concat()
}

pub fn seal_client_secret(keys: &Keys, org_id: Uuid, server_id: Uuid, secret: &str) -> Vec<u8> {
    keys.seal(&client_context(org_id, server_id), secret.as_bytes())
}

fn open_text(keys: &Keys, context: &[u8], sealed: &[u8]) -> Option<String> {
    keys.open(context, sealed).ok().and_then(|v| String::from_utf8(v).ok())
}

pub fn seal_access(keys: &Keys, c: &Connection, token: &str) -> Vec<u8> {
    keys.seal(&token_context(c.org_id, c.user_id, c.server_id, b"upstream access token"), token.as_bytes())
}

pub fn seal_refresh(keys: &Keys, c: &Connection, token: &str) -> Vec<u8> {
    keys.seal(&token_context(c.org_id, c.user_id, c.server_id, b"upstream refresh token"), token.as_bytes())
}

fn open_access(keys: &Keys, c: &Connection) -> Option<String> {
    open_text(
        keys,
        &token_context(c.org_id, c.user_id, c.server_id, b"upstream access token"),
        &c.access_token_sealed,
    )
}

fn open_refresh(keys: &Keys, c: &Connection) -> Option<String> {
    let sealed = c.refresh_token_sealed.as_ref()?;
    open_text(keys, &token_context(c.org_id, c.user_id, c.server_id, b"upstream refresh token"), sealed)
}

// ---- Herald as a client ----

pub fn redirect_uri(state: &AppState) -> String {
    format!("{}{CALLBACK_PATH}", state.config.public_url.as_str().trim_end_matches('/'))
}

/// Herald's Client ID Metadata Document URL: only where Herald is on https (the document's
/// URL is the client id, and it must be https).
pub fn metadata_document_url(state: &AppState) -> Option<String> {
    (state.config.public_url.scheme() == "https").then(|| {
        format!("{}{METADATA_DOCUMENT_PATH}", state.config.public_url.as_str().trim_end_matches('/'))
    })
}

/// The client identity for `server` at `meta`'s authorization server: the admin's, else the
/// stored registration, else a new registration (stored).
pub async fn client_identity(
    state: &AppState,
    server: &Server,
    meta: &AuthServer,
) -> Result<ClientIdentity, ConnectError> {
    let secret = server
        .oauth_client
        .as_ref()
        .and_then(|c| c.secret_sealed.as_ref())
        .and_then(|sealed| open_text(&state.keys, &client_context(server.org_id, server.id), sealed));
    if let Some(identity) = client::preregistered(server, meta, secret)? {
        return Ok(identity);
    }
    if let Some(stored) = state.store.upstream_client(server.id, &meta.issuer).await? {
        return Ok(identity_of(state, server, &stored));
    }
    let redirect = redirect_uri(state);
    let document = metadata_document_url(state);
    let herald = Herald {
        public_url: &state.config.public_url,
        redirect_uri: &redirect,
        metadata_document: document.as_deref(),
        development: state.config.is_development(),
    };
    let keys = state.keys.clone();
    let (row, identity) = client::register(state.upstream_auth.http(), &herald, server.id, meta, |secret| {
        seal_client_secret(&keys, server.org_id, server.id, secret)
    })
    .await?;
    state.store.put_upstream_client(&row).await?;
    tracing::info!(server = %server.slug, issuer = %meta.issuer, registration = %row.registration, "registered Herald at an authorization server");
    Ok(identity)
}

fn identity_of(state: &AppState, server: &Server, stored: &UpstreamClient) -> ClientIdentity {
    ClientIdentity {
        client_id: stored.client_id.clone(),
        secret: stored
            .client_secret_sealed
            .as_ref()
            .and_then(|sealed| open_text(&state.keys, &client_context(server.org_id, server.id), sealed)),
        auth_method: stored.auth_method.clone(),
    }
}

/// What a call to an `oauth` server is sent with.
pub enum Credential {
    /// The person's access token.
    Bearer(String),
    /// The person has not connected (or their connection no longer works): the text says
    /// why, `connect` is where to do it.
    NeedsConnect { why: String, connect: String },
}

/// Where a person connects to a server.
pub fn connect_link(state: &AppState, org_slug: &str, server_slug: &str) -> String {
    format!(
        "{}/connections?connect={org_slug}/{server_slug}",
        state.config.public_url.as_str().trim_end_matches('/')
    )
}

/// Tells every replica (this one first) that a person's connection to a server changed.
pub async fn changed(state: &AppState, server_id: Uuid, user_id: Uuid, ended: bool) {
    state.forget(crate::replicas::Forget::CachedConnection { server_id, user_id, ended }).await;
}

/// Why a server that acts as each person refused the person's token on a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenRefused {
    /// `401`: not (or no longer) a token it accepts.
    Invalid,
    /// `403` with `error="insufficient_scope"`: the scopes it names for the request
    /// (space-separated; empty when it names none).
    NeedsScopes(String),
}

impl TokenRefused {
    /// What `e` says of the person's token, for a server that acts as each person.
    pub fn of(server: &Server, e: &herald_mcp::transport::TransportError) -> Option<TokenRefused> {
        let herald_mcp::transport::TransportError::Status { status, challenge, .. } = e else {
            return None;
        };
        if !per_person(server) {
            return None;
        }
        let challenge = challenge.as_deref().and_then(|c| challenge::Challenge::parse([c]));
        match status {
            401 => Some(TokenRefused::Invalid),
            403 if challenge.as_ref().and_then(|c| c.error.as_deref()) == Some("insufficient_scope") => {
                // The server's words: only scope-like tokens, and a bounded number of them.
                let wanted: Vec<&str> = challenge
                    .as_ref()
                    .and_then(|c| c.scope.as_deref())
                    .unwrap_or_default()
                    .split_whitespace()
                    .filter(|s| {
                        s.len() <= 200 && s.chars().all(|c| c.is_ascii_graphic() && c != '"' && c != '\\')
                    })
                    .take(50)
                    .collect();
                Some(TokenRefused::NeedsScopes(wanted.join(" ")))
            }
            _ => None,
        }
    }
}

/// Records what the server said of the person's token: a refused token is treated as expired
/// (the next use refreshes it, or asks the person to connect again); scopes it wants are kept,
/// so that the person is asked to connect again and the connect page asks for them.
///
/// `used` is the token the server refused: a connection renewed since (by another call that met
/// the same refusal) is left as it is.
pub async fn token_refused(
    state: &AppState,
    server: &Server,
    user_id: Uuid,
    refused: &TokenRefused,
    used: Option<&str>,
) {
    let done = match refused {
        TokenRefused::Invalid => {
            let current = match state.store.connection(server.id, user_id).await {
                Ok(Some(c)) => c,
                Ok(None) => return,
                Err(e) => {
                    tracing::warn!(error = %e, "cannot read a connection whose token was refused");
                    return;
                }
            };
            if used.is_some() && open_access(&state.keys, &current).as_deref() != used {
                return; // renewed since
            }
            tracing::info!(server = %server.slug, %user_id, "the server refused a person's token; renewing it");
            state.store.expire_connection(server.id, user_id, OffsetDateTime::now_utc()).await
        }
        TokenRefused::NeedsScopes(scopes) => {
            tracing::info!(server = %server.slug, %user_id, scopes = %scopes, "the server wants more scopes of a person");
            state.store.want_scopes(server.id, user_id, scopes).await
        }
    };
    match done {
        Ok(_) => changed(state, server.id, user_id, false).await,
        Err(e) => tracing::warn!(error = %e, "cannot record a refused token"),
    }
}

/// The person's access token for `server`, refreshed first when it is about to expire.
pub async fn credential(state: &AppState, org_slug: &str, server: &Server, user_id: Uuid) -> Credential {
    let needs = |why: &str| Credential::NeedsConnect {
        why: why.to_owned(),
        connect: connect_link(state, org_slug, &server.slug),
    };
    let connection = match state.lookups.connection(server.id, user_id).await {
        Ok(Some(c)) => c,
        Ok(None) => return needs("you have not connected your account to it yet"),
        Err(e) => {
            tracing::error!(error = %e, "cannot read a person's connection");
            return needs("Herald could not read your connection; try again");
        }
    };
    let missing: Vec<&str> = connection
        .wanted_scopes
        .split_whitespace()
        .filter(|wanted| !connection.scopes.split_whitespace().any(|granted| granted == *wanted))
        .collect();
    if !missing.is_empty() {
        return needs(&format!(
            "it now needs permission you have not given it ({}), so connect again to grant it",
            missing.join(" ")
        ));
    }
    let now = OffsetDateTime::now_utc();
    if connection.expires_at.is_none_or(|at| at - REFRESH_AHEAD > now) {
        return match open_access(&state.keys, &connection) {
            Some(token) => Credential::Bearer(token),
            None => needs("your stored connection cannot be read; connect again"),
        };
    }
    match refreshed(state, server, &connection).await {
        Ok(token) => Credential::Bearer(token),
        Err(e) => {
            tracing::info!(server = %server.slug, %user_id, error = %e, "a connection could not be refreshed");
            needs(&format!("your connection expired and could not be renewed ({e}); connect again"))
        }
    }
}

/// Refreshes a connection (once across replicas: a replica that finds it refreshed by
/// another meanwhile uses that one's token).
async fn refreshed(
    state: &AppState,
    server: &Server,
    connection: &Connection,
) -> Result<String, ConnectError> {
    let refresh_token = open_refresh(&state.keys, connection)
        .ok_or_else(|| ConnectError::TokenRejected("no refresh token was given".into()))?;
    let meta = state.upstream_auth.auth_server(&connection.issuer).await?;
    let identity = client_identity(state, server, &meta).await?;
    let granted: Vec<String> = connection.scopes.split_whitespace().map(str::to_owned).collect();
    let tokens = client::refresh(
        state.upstream_auth.http(),
        &identity,
        &meta,
        &redirect_uri(state),
        &connection.resource,
        &refresh_token,
        &granted,
    )
    .await;
    let tokens = match tokens {
        Ok(t) => t,
        Err(e) => {
            // Someone else may have rotated it a moment ago.
            if let Ok(Some(latest)) = state.store.connection(server.id, connection.user_id).await
                && latest.refreshed_at != connection.refreshed_at
                && let Some(token) = open_access(&state.keys, &latest)
            {
                return Ok(token);
            }
            if matches!(e, ConnectError::Refused { .. }) {
                let _ = state.store.delete_connection(server.id, connection.user_id).await;
                changed(state, server.id, connection.user_id, true).await;
            }
            return Err(e);
        }
    };
    let mut updated = connection.clone();
    updated.access_token_sealed = seal_access(&state.keys, connection, &tokens.access_token);
    updated.refresh_token_sealed =
        tokens.refresh_token.as_deref().map(|t| seal_refresh(&state.keys, connection, t));
    updated.scopes = tokens.scopes.join(" ");
    updated.expires_at = tokens.expires_at;
    updated.refreshed_at = OffsetDateTime::now_utc();
    let refreshed_here = state.store.refresh_connection(&updated, connection.refreshed_at).await?;
    changed(state, server.id, connection.user_id, false).await;
    if !refreshed_here
        && let Ok(Some(latest)) = state.store.connection(server.id, connection.user_id).await
        && let Some(token) = open_access(&state.keys, &latest)
    {
        return Ok(token);
    }
    Ok(tokens.access_token)
}

/// Revokes a connection's tokens at its authorization server, where it offers revocation: on
/// disconnect, and when a connection from another authorization server replaces it. Best effort:
/// the row goes whatever the server says.
pub async fn revoke(state: &AppState, server: &Server, connection: &Connection) {
    let Ok(meta) = state.upstream_auth.auth_server(&connection.issuer).await else { return };
    let Ok(identity) = client_identity(state, server, &meta).await else { return };
    let http = state.upstream_auth.http();
    let token = match open_refresh(&state.keys, connection) {
        Some(refresh) => StandardRevocableToken::RefreshToken(RefreshToken::new(refresh)),
        None => match open_access(&state.keys, connection) {
            Some(access) => StandardRevocableToken::AccessToken(AccessToken::new(access)),
            None => return,
        },
    };
    if let Err(e) = client::revoke(http, &identity, &meta, token).await {
        tracing::warn!(server = %server.slug, error = %e, "revoking a person's upstream token failed");
    }
}

/// Disconnects a person from a server: revoked, then forgotten.
pub async fn disconnect(state: &AppState, server: &Server, user_id: Uuid) -> Result<bool, ConnectError> {
    let Some(connection) = state.store.connection(server.id, user_id).await? else { return Ok(false) };
    revoke(state, server, &connection).await;
    let deleted = state.store.delete_connection(server.id, user_id).await?;
    changed(state, server.id, user_id, true).await;
    Ok(deleted)
}

/// A person's connections in an organisation, read before they leave it (the rows go with the
/// membership), for [`revoke_all`] afterwards.
pub async fn held_by(state: &AppState, org_id: Uuid, user_id: Uuid) -> Vec<Connection> {
    state.store.connections_in(org_id, Some(user_id), None).await.unwrap_or_default()
}

/// Revokes `connections` at their authorization servers.
pub async fn revoke_all(state: &AppState, org_id: Uuid, connections: Vec<Connection>) {
    if connections.is_empty() {
        return;
    }
    let Ok(servers) = state.store.servers(org_id).await else { return };
    for connection in connections {
        if let Some(server) = servers.iter().find(|s| s.id == connection.server_id) {
            revoke(state, server, &connection).await;
        }
    }
}

/// A server is being deleted or changed address, mode or client: everyone's connections to it
/// are revoked and forgotten, with Herald's registrations there.
pub async fn forget_server(state: &AppState, server: &Server) {
    if let Ok(connections) = state.store.connections_in(server.org_id, None, Some(server.id)).await {
        for connection in &connections {
            revoke(state, server, connection).await;
        }
    }
    if let Err(e) = state.store.forget_server_auth(server.id).await {
        tracing::error!(error = %e, "could not forget a server's connections");
    }
}

/// Whether `server` wants each person's own token.
pub fn per_person(server: &Server) -> bool {
    server.auth_mode == AuthMode::OAuth
}
