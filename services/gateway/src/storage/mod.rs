//! Durable state, one trait per aggregate — `instance`, `accounts`,
//! `organisations`, `servers`, `questions`, `policy`, `sessions`, `audit`,
//! `notifications`, `push`, `sign_in` —
//! each in its own file with its SQL beside it; [`Store`] is all of them. Two
//! implementations: PostgreSQL for production and replicas, SQLite as the
//! embedded default. Both run the same SQL against their own migrations (a test
//! checks the two define the same schema), and the same test suite runs on both.
//!
//! Tenant isolation lives here: every org-scoped method takes the org's id and
//! every org-scoped query is keyed by it, so a handler cannot reach another
//! organisation's rows even by mistake.

pub mod accounts;
pub mod audit;
pub mod connections;
pub mod instance;
pub mod notifications;
pub mod org_providers;
pub mod organisations;
pub mod policy;
mod postgres;
pub mod push;
pub mod questions;
mod rows;
pub mod servers;
pub mod sessions;
pub mod sign_in;
mod sql;
mod sqlite;
mod time;

use std::sync::Arc;

use ::time::OffsetDateTime;
use uuid::Uuid;

use herald_mcp::{ElicitationMode, ProtocolGeneration};

use crate::config::DatabaseUrl;
use crate::domain::{AuthMode, Role, ServerProtocol};

pub use self::postgres::PostgresStore;
pub use self::sqlite::SqliteStore;
pub use self::time::DbTime;

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("not found")]
    NotFound,
    #[error("conflict: {0:?}")]
    Conflict(Conflict),
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    #[error("database migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("{0}")]
    Startup(String),
    /// A stored value that no longer parses (a document written by hand, say).
    #[error("a stored value is unreadable: {0}")]
    Unreadable(String),
}

/// A write refused because of what is already stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conflict {
    OrgSlugTaken,
    EmailTaken,
    ServerSlugTaken,
    TokenNameTaken,
    /// The change would leave the organisation without an owner.
    LastOwner,
    /// Only an owner may grant, change or remove the owner role.
    OwnersOnly,
    AlreadyMember,
    /// The one-time setup link was used, expired, or setup already happened.
    SetupUnavailable,
    /// The invite link was used, revoked or has expired.
    InviteUnavailable,
    /// The member has already muted this server.
    AlreadyMuted,
    /// The organisation has as many webhooks as it may.
    TooManyWebhooks,
    /// The person receives push notifications in as many browsers as they may.
    TooManyDevices,
    /// The organisation has claimed as many e-mail domains as it may.
    TooManyDomains,
    /// Another organisation has this e-mail domain confirmed.
    DomainTaken,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    pub id: Uuid,
    pub email: String,
    pub name: String,
    pub created_at: OffsetDateTime,
}

#[derive(Debug, Clone)]
pub struct UserCredentials {
    pub user: User,
    pub password_hash: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Org {
    pub id: Uuid,
    pub slug: String,
    pub name: String,
    pub created_at: OffsetDateTime,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Membership {
    pub org: Org,
    pub role: Role,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub user: User,
    pub role: Role,
    pub joined_at: OffsetDateTime,
}

pub struct NewOrg {
    pub slug: String,
    pub name: String,
}

pub struct NewUser {
    pub email: String,
    pub name: String,
    pub password_hash: String,
}

/// Who becomes a member: an account that exists, or one created on the spot.
pub enum Joiner {
    Existing(Uuid),
    New(NewUser),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invite {
    pub id: Uuid,
    pub org_id: Uuid,
    pub email: String,
    pub role: Role,
    pub created_by: Uuid,
    pub created_at: OffsetDateTime,
    pub expires_at: OffsetDateTime,
}

pub struct NewInvite {
    pub email: String,
    pub role: Role,
    pub token_hash: Vec<u8>,
    pub created_by: Uuid,
    pub expires_at: OffsetDateTime,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiToken {
    pub id: Uuid,
    pub org_id: Uuid,
    pub user_id: Uuid,
    pub name: String,
    pub prefix: String,
    pub created_at: OffsetDateTime,
    pub last_used_at: Option<OffsetDateTime>,
    pub expires_at: Option<OffsetDateTime>,
}

pub struct NewApiToken {
    pub name: String,
    pub prefix: String,
    pub secret_hash: Vec<u8>,
    pub expires_at: Option<OffsetDateTime>,
}

/// What an API token stands for: one user acting in one organisation.
#[derive(Debug, Clone)]
pub struct TokenPrincipal {
    pub token_id: Uuid,
    pub last_used_at: Option<OffsetDateTime>,
    pub expires_at: Option<OffsetDateTime>,
    pub user: User,
    pub membership: Membership,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Server {
    pub id: Uuid,
    pub org_id: Uuid,
    pub slug: String,
    pub name: String,
    pub url: String,
    pub header_names: Vec<String>,
    /// The header values, sealed with the instance key; see `crypto::Keys::seal`.
    pub headers_sealed: Vec<u8>,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
    pub cut_off: Option<CutOff>,
    pub protocol: ServerProtocol,
    pub auth_mode: AuthMode,
    /// Client credentials an admin registered at the server's authorization server.
    pub oauth_client: Option<PreregisteredClient>,
}

/// A client an admin registered at an upstream authorization server themselves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreregisteredClient {
    pub client_id: String,
    /// Sealed with the instance key (`upstream_auth::seal`); `None` for a public client.
    pub secret_sealed: Option<Vec<u8>>,
    /// The authorization server it was registered at (its issuer), when the admin said.
    pub issuer: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CutOff {
    pub at: OffsetDateTime,
    pub by: Option<Uuid>,
    pub reason: String,
}

pub struct NewServer {
    pub id: Uuid,
    pub slug: String,
    pub name: String,
    pub url: String,
    pub header_names: Vec<String>,
    pub headers_sealed: Vec<u8>,
    pub protocol: ServerProtocol,
    pub auth_mode: AuthMode,
    pub oauth_client: Option<PreregisteredClient>,
}

/// A partial update; `None` leaves a field as it is.
#[derive(Default)]
pub struct ServerChanges {
    pub name: Option<String>,
    pub url: Option<String>,
    pub headers: Option<(Vec<String>, Vec<u8>)>,
    pub protocol: Option<ServerProtocol>,
    pub auth_mode: Option<AuthMode>,
    /// `Some(None)` removes the admin's client credentials.
    pub oauth_client: Option<Option<PreregisteredClient>>,
}

#[derive(Debug, Clone)]
pub struct StoredPolicy {
    pub document: serde_json::Value,
    pub updated_at: OffsetDateTime,
    pub updated_by: Option<Uuid>,
}

/// One elicitation, from the moment a server asked until it ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Elicitation {
    pub id: Uuid,
    pub org_id: Uuid,
    pub org_slug: String,
    pub user_id: Uuid,
    /// The asking server as registered at the time (never what it calls itself); for a
    /// question Herald asks (`asked_by`), the server it is asked for.
    pub server: ServerSnapshot,
    pub asked_by: crate::domain::AskedBy,
    pub tool: Option<String>,
    /// `legacy` (pushed on a session) or `modern` (an `input_required` result).
    pub protocol: ProtocolGeneration,
    pub mode: ElicitationMode,
    pub message: String,
    pub requested_schema: Option<serde_json::Value>,
    /// The same form, parsed (once: where the question is taken in, or its row read).
    pub form: Option<herald_mcp::RequestedSchema>,
    pub url: Option<String>,
    pub replica_id: Uuid,
    pub created_at: OffsetDateTime,
    pub expires_at: OffsetDateTime,
    /// What decline memory recognises a re-ask by (SHA-256 of the fingerprint text).
    pub fingerprint: Option<Vec<u8>>,
    /// What the policy noticed and shows with the form (warnings, URL flags, how
    /// long a decline is remembered), or, for a question it answered itself, what
    /// it went by (`because`).
    pub policy_flags: Option<serde_json::Value>,
    /// When the person dismissed the inbox's note explaining the policy's
    /// answer (for questions the policy answered).
    pub note_dismissed_at: Option<OffsetDateTime>,
    /// Through which channel the person answered (`web`, `email`), when they did.
    pub answered_via: Option<String>,
    /// `None` while pending.
    pub outcome: Option<Outcome>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerSnapshot {
    pub id: Option<Uuid>,
    pub slug: String,
    pub name: String,
    pub url: String,
}

/// How an elicitation ended (the vocabulary lives in `domain::outcome`).
pub use crate::domain::outcome::Outcome;

/// A member's mute of one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mute {
    pub server_id: Uuid,
    pub server_slug: String,
    pub server_name: String,
    /// `user` (they muted it) or `pestering` (Herald did, after repeated re-asks).
    pub reason: String,
    pub note: String,
    pub created_at: OffsetDateTime,
}

/// One person's decline, remembered for decline memory.
pub struct DeclineRecord {
    pub org_id: Uuid,
    pub user_id: Uuid,
    pub server_slug: String,
    pub tool: Option<String>,
    pub fingerprint: Vec<u8>,
    pub elicitation_id: Uuid,
    pub declined_at: OffsetDateTime,
}

/// One line of an org's audit log.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditEntry {
    pub id: Uuid,
    pub org_id: Uuid,
    pub at: OffsetDateTime,
    /// `user`, `policy` or `system`.
    pub actor: String,
    pub actor_id: Option<Uuid>,
    pub action: String,
    pub user_id: Option<Uuid>,
    pub server_slug: Option<String>,
    pub reason: Option<String>,
    pub details: serde_json::Value,
}

/// Which audit entries to list, newest first.
#[derive(Debug, Clone, Default)]
pub struct AuditQuery {
    pub since: Option<OffsetDateTime>,
    pub until: Option<OffsetDateTime>,
    pub user_id: Option<Uuid>,
    pub server_slug: Option<String>,
    pub action: Option<String>,
    pub reason: Option<String>,
    pub before: Option<Uuid>,
    pub limit: u32,
}

/// A legacy agent's session, as every replica reads it. The session id
/// itself is a secret the agent holds; only its SHA-256 is stored.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentSessionRecord {
    pub id_hash: Vec<u8>,
    pub org_id: Uuid,
    pub user_id: Uuid,
    pub server_id: Uuid,
    pub protocol_version: String,
    pub agent_info: Option<serde_json::Value>,
    /// The capabilities the agent declared in `initialize`.
    pub agent_capabilities: Option<serde_json::Value>,
    /// The API token the session was opened with.
    pub token_id: Option<Uuid>,
    pub created_at: OffsetDateTime,
    pub last_seen_at: OffsetDateTime,
}

/// Pending elicitations of one server in an org.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingGroup {
    pub server_slug: String,
    pub server_name: String,
    pub count: i64,
    /// How many different people are being asked.
    pub people: i64,
    pub oldest: OffsetDateTime,
}

/// Which of a user's elicitations to list, newest first.
#[derive(Debug, Clone, Default)]
pub struct ElicitationQuery {
    /// `Some(true)`: pending only; `Some(false)`: resolved only.
    pub pending: Option<bool>,
    /// Only those older than this id (ids are time-ordered UUIDv7).
    pub before: Option<Uuid>,
    pub limit: u32,
}

/// Other replicas' events, as they come (PostgreSQL `LISTEN`).
#[async_trait::async_trait]
pub trait EventFeed: Send {
    /// The next event's payload; `None` when the connection was lost and is
    /// being re-established, so events may have been missed: resync.
    async fn next(&mut self) -> Result<Option<String>>;
}

/// Everything Herald stores, one trait per aggregate (each with its SQL beside it);
/// `Store` is all of them, and every store implements all.
pub trait Store:
    instance::Instance
    + accounts::Accounts
    + organisations::Organisations
    + servers::Servers
    + questions::Questions
    + policy::Policies
    + sessions::AgentSessions
    + audit::Audit
    + notifications::Notifications
    + push::PushDevices
    + sign_in::SignIns
    + org_providers::OrgProviders
    + connections::Connections
    + Send
    + Sync
    + 'static
{
}

impl<T> Store for T where
    T: instance::Instance
        + accounts::Accounts
        + organisations::Organisations
        + servers::Servers
        + questions::Questions
        + policy::Policies
        + sessions::AgentSessions
        + audit::Audit
        + notifications::Notifications
        + push::PushDevices
        + sign_in::SignIns
        + org_providers::OrgProviders
        + connections::Connections
        + Send
        + Sync
        + 'static
{
}

/// Opens the configured database and applies its migrations.
pub async fn open(database: &DatabaseUrl) -> Result<Arc<dyn Store>> {
    Ok(match database {
        DatabaseUrl::Sqlite { path } => Arc::new(SqliteStore::open(path).await?),
        DatabaseUrl::Postgres { url } => Arc::new(PostgresStore::open(url).await?),
    })
}

/// The store for an operator's command that may run while Herald serves and changes nothing
/// a serving process caches (see `SqliteStore::open_beside_server`).
pub async fn open_beside_server(database: &DatabaseUrl) -> Result<Arc<dyn Store>> {
    Ok(match database {
        DatabaseUrl::Sqlite { path } => Arc::new(SqliteStore::open_beside_server(path).await?),
        DatabaseUrl::Postgres { url } => Arc::new(PostgresStore::open(url).await?),
    })
}
