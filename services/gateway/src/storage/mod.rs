//! Durable state. One [`Store`] trait, two implementations: PostgreSQL for
//! production and replicas, SQLite as the embedded default. Both run the same
//! SQL (written once in `sql.rs`) against their own migrations, and the same
//! test suite runs on both.
//!
//! Tenant isolation lives here: every org-scoped method takes the org's id and
//! every org-scoped query is keyed by it, so a handler cannot reach another
//! organisation's rows even by mistake.

mod postgres;
mod rows;
mod sql;
mod sqlite;
mod time;

use std::sync::Arc;

use ::time::OffsetDateTime;
use uuid::Uuid;

use herald_mcp::{ElicitationMode, ProtocolGeneration};

use crate::config::DatabaseUrl;
use crate::domain::{Role, ServerProtocol};

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
}

/// A partial update; `None` leaves a field as it is.
#[derive(Default)]
pub struct ServerChanges {
    pub name: Option<String>,
    pub url: Option<String>,
    pub headers: Option<(Vec<String>, Vec<u8>)>,
    pub protocol: Option<ServerProtocol>,
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
    /// The asking server as registered at the time (never what it calls itself).
    pub server: ServerSnapshot,
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
    /// What the policy noticed and shows with the form (warnings, URL flags).
    pub policy_flags: Option<serde_json::Value>,
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

#[async_trait::async_trait]
pub trait Store: Send + Sync + 'static {
    /// A trivial query, for readiness.
    async fn ping(&self) -> Result<()>;

    // --- the instance ---------------------------------------------------------

    /// The instance secret: `candidate` is stored if none is, and whichever is
    /// stored is returned, so concurrent first starts agree on one key.
    async fn instance_secret(&self, candidate: &str) -> Result<String>;
    async fn has_users(&self) -> Result<bool>;
    /// Adds a one-time setup link; all are valid until one completes setup.
    async fn put_setup_token(&self, token_hash: &[u8], expires_at: OffsetDateTime) -> Result<()>;
    /// Consumes the setup link and creates the first organisation and owner.
    async fn complete_setup(
        &self,
        token_hash: &[u8],
        now: OffsetDateTime,
        org: NewOrg,
        owner: NewUser,
    ) -> Result<(Org, User)>;

    // --- accounts and sessions --------------------------------------------------

    /// Creates an organisation with `owner` as its first owner.
    async fn create_org(&self, org: NewOrg, owner: Joiner, now: OffsetDateTime) -> Result<(Org, User)>;
    async fn user_by_email(&self, email: &str) -> Result<Option<UserCredentials>>;
    async fn user_by_id(&self, id: Uuid) -> Result<Option<UserCredentials>>;
    /// Sets a new password hash and ends every session of the user but `keep`.
    async fn set_password(
        &self,
        user_id: Uuid,
        password_hash: &str,
        keep: Option<Uuid>,
        now: OffsetDateTime,
    ) -> Result<()>;
    async fn create_session(
        &self,
        user_id: Uuid,
        now: OffsetDateTime,
        expires_at: OffsetDateTime,
    ) -> Result<Uuid>;
    /// The user of a session that has neither ended nor expired.
    async fn session_user(&self, session_id: Uuid, now: OffsetDateTime) -> Result<Option<User>>;
    async fn end_session(&self, session_id: Uuid, now: OffsetDateTime) -> Result<()>;

    // --- organisations and members ----------------------------------------------

    async fn memberships(&self, user_id: Uuid) -> Result<Vec<Membership>>;
    /// The user's membership in the org with this slug; `None` for non-members,
    /// which callers must treat exactly like a missing org.
    async fn membership(&self, org_slug: &str, user_id: Uuid) -> Result<Option<Membership>>;
    async fn members(&self, org_id: Uuid) -> Result<Vec<Member>>;
    /// Changes a role, as a member whose role is `actor`: refuses to demote
    /// the last owner, and lets only owners touch the owner role.
    async fn set_role(&self, org_id: Uuid, user_id: Uuid, role: Role, actor: Role) -> Result<Member>;
    /// Removes a member (and their API tokens for the org), as a member whose
    /// role is `actor`: refuses for the last owner; only owners remove owners.
    async fn remove_member(&self, org_id: Uuid, user_id: Uuid, actor: Role) -> Result<()>;

    // --- invites ----------------------------------------------------------------

    async fn create_invite(&self, org_id: Uuid, invite: NewInvite, now: OffsetDateTime) -> Result<Invite>;
    async fn pending_invites(&self, org_id: Uuid, now: OffsetDateTime) -> Result<Vec<Invite>>;
    async fn revoke_invite(&self, org_id: Uuid, invite_id: Uuid, now: OffsetDateTime) -> Result<()>;
    /// A usable (pending, unexpired) invite and its org.
    async fn usable_invite(&self, token_hash: &[u8], now: OffsetDateTime) -> Result<Option<(Invite, Org)>>;
    /// Consumes the invite (first use wins) and adds the member.
    async fn accept_invite(
        &self,
        token_hash: &[u8],
        joiner: Joiner,
        now: OffsetDateTime,
    ) -> Result<(Membership, User)>;

    // --- API tokens ---------------------------------------------------------------

    async fn create_api_token(
        &self,
        org_id: Uuid,
        user_id: Uuid,
        token: NewApiToken,
        now: OffsetDateTime,
    ) -> Result<ApiToken>;
    /// The user's live (unrevoked) tokens in the org.
    async fn api_tokens(&self, org_id: Uuid, user_id: Uuid) -> Result<Vec<ApiToken>>;
    async fn revoke_api_token(
        &self,
        org_id: Uuid,
        user_id: Uuid,
        token_id: Uuid,
        now: OffsetDateTime,
    ) -> Result<()>;
    /// The principal of a live, unexpired token whose user is still a member.
    async fn authenticate_api_token(
        &self,
        secret_hash: &[u8],
        now: OffsetDateTime,
    ) -> Result<Option<TokenPrincipal>>;
    async fn touch_api_token(&self, token_id: Uuid, now: OffsetDateTime) -> Result<()>;

    // --- the server registry --------------------------------------------------------

    async fn create_server(&self, org_id: Uuid, server: NewServer, now: OffsetDateTime) -> Result<Server>;
    async fn servers(&self, org_id: Uuid) -> Result<Vec<Server>>;
    async fn server(&self, org_id: Uuid, slug: &str) -> Result<Option<Server>>;
    async fn update_server(
        &self,
        org_id: Uuid,
        slug: &str,
        changes: ServerChanges,
        now: OffsetDateTime,
    ) -> Result<Server>;
    /// Cuts a server off for the whole org (`Some`) or restores it (`None`).
    async fn set_cut_off(
        &self,
        org_id: Uuid,
        slug: &str,
        cut_off: Option<CutOff>,
        now: OffsetDateTime,
    ) -> Result<Server>;
    async fn delete_server(&self, org_id: Uuid, slug: &str) -> Result<()>;

    // --- policy -----------------------------------------------------------------------

    async fn policy(&self, org_id: Uuid) -> Result<Option<StoredPolicy>>;
    async fn put_policy(
        &self,
        org_id: Uuid,
        document: &serde_json::Value,
        by: Uuid,
        now: OffsetDateTime,
    ) -> Result<()>;

    // --- elicitations -------------------------------------------------------------------

    /// Whether at most one process can use this database (SQLite).
    fn single_process(&self) -> bool;
    /// Wakes every replica listening (PostgreSQL `NOTIFY`); nothing to do
    /// where there is only one process.
    async fn publish_event(&self, payload: &str) -> Result<()>;
    /// Other replicas' events, or `None` where there is only one process.
    async fn subscribe_events(&self) -> Result<Option<Box<dyn EventFeed>>>;
    /// Records a replica's heartbeat (inserting it on the first beat).
    async fn heartbeat(&self, replica_id: Uuid, now: OffsetDateTime) -> Result<()>;
    async fn create_elicitation(&self, elicitation: &Elicitation) -> Result<()>;
    /// The compare-and-set every ending goes through: resolves a pending
    /// elicitation and returns it, or `None` when it had already ended.
    async fn resolve_elicitation(&self, id: Uuid, outcome: &Outcome) -> Result<Option<Elicitation>>;
    /// One of the user's elicitations (callers check the org).
    async fn elicitation_of_user(&self, user_id: Uuid, id: Uuid) -> Result<Option<Elicitation>>;
    async fn elicitations(
        &self,
        org_id: Uuid,
        user_id: Uuid,
        query: &ElicitationQuery,
    ) -> Result<Vec<Elicitation>>;
    /// Everything pending for a user, in every org, oldest first (for a dashboard's resync).
    async fn pending_elicitations_of_user(&self, user_id: Uuid) -> Result<Vec<Elicitation>>;
    /// Resolves, with `outcome`, every pending elicitation held by a replica
    /// other than `alive` whose last heartbeat is older than `stale_before`
    /// (or that never beat); returns what it resolved.
    async fn resolve_abandoned(
        &self,
        alive: Uuid,
        stale_before: OffsetDateTime,
        outcome: &Outcome,
    ) -> Result<Vec<Elicitation>>;
    /// Resolves, with `outcome`, pending elicitations whose deadline passed
    /// before `before`; returns what it resolved.
    async fn resolve_expired(&self, before: OffsetDateTime, outcome: &Outcome) -> Result<Vec<Elicitation>>;

    /// Ends every pending elicitation of a server in an org (it was cut off).
    async fn resolve_pending_of_server(
        &self,
        org_id: Uuid,
        server_id: Uuid,
        outcome: &Outcome,
    ) -> Result<Vec<Elicitation>>;
    /// Ends every pending elicitation this replica holds (it is shutting down).
    async fn resolve_pending_of_replica(
        &self,
        replica_id: Uuid,
        outcome: &Outcome,
    ) -> Result<Vec<Elicitation>>;
    /// How many elicitations are pending for the user, in every org.
    /// The user's pending elicitations in one org.
    async fn pending_count(&self, org_id: Uuid, user_id: Uuid) -> Result<i64>;
    /// What is pending across an org, per server, oldest group first (the admins' live view).
    async fn pending_by_server(&self, org_id: Uuid) -> Result<Vec<PendingGroup>>;

    // --- legacy agent sessions ---------------------------------------------------------------

    async fn create_agent_session(&self, session: &AgentSessionRecord) -> Result<()>;
    async fn agent_session(&self, id_hash: &[u8]) -> Result<Option<AgentSessionRecord>>;
    /// Records that the session was used; `false` when it no longer exists.
    async fn touch_agent_session(&self, id_hash: &[u8], now: OffsetDateTime) -> Result<bool>;
    /// Ends a session; `false` when it did not exist.
    async fn delete_agent_session(&self, id_hash: &[u8]) -> Result<bool>;
    /// Sessions of `token_id` used since `since` (the ones that still count).
    async fn count_agent_sessions_of_token(&self, token_id: Uuid, since: OffsetDateTime) -> Result<u64>;
    /// Deletes every session of `token_id`; returns their id hashes.
    async fn delete_agent_sessions_of_token(&self, token_id: Uuid) -> Result<Vec<Vec<u8>>>;
    /// Forgets sessions unused since `before`.
    async fn purge_idle_agent_sessions(&self, before: OffsetDateTime) -> Result<u64>;
    /// Forgets the content of accepted answers resolved before `before` (retention).
    async fn purge_accepted_content(&self, org_id: Uuid, before: OffsetDateTime) -> Result<u64>;
    async fn org_ids(&self) -> Result<Vec<Uuid>>;

    // --- policy --------------------------------------------------------------------------

    async fn mutes(&self, org_id: Uuid, user_id: Uuid) -> Result<Vec<Mute>>;
    /// Mutes a server for a member; `Conflict::AlreadyMuted` if it is.
    async fn mute(
        &self,
        org_id: Uuid,
        user_id: Uuid,
        server_id: Uuid,
        reason: &str,
        note: &str,
        now: OffsetDateTime,
    ) -> Result<()>;
    async fn unmute(&self, org_id: Uuid, user_id: Uuid, server_id: Uuid) -> Result<()>;
    async fn is_muted(&self, org_id: Uuid, user_id: Uuid, server_id: Uuid) -> Result<bool>;
    async fn record_decline(&self, decline: &DeclineRecord) -> Result<()>;
    /// How many of the user's elicitations with this fingerprint, created
    /// since `since`, ended with `reason` (e.g. re-asks declined by memory).
    async fn count_fingerprint(
        &self,
        org_id: Uuid,
        user_id: Uuid,
        fingerprint: &[u8],
        since: OffsetDateTime,
        reason: &str,
    ) -> Result<i64>;
    /// How often the user declined this fingerprint since `since`.
    async fn declines_since(
        &self,
        org_id: Uuid,
        user_id: Uuid,
        fingerprint: &[u8],
        since: OffsetDateTime,
    ) -> Result<i64>;
    /// Adds one to each of three counters (`key`, and the window starting at
    /// the time) and returns their new counts in the same order: one atomic
    /// upsert, so every replica counts alike, and one commit for the three.
    /// The keys must differ.
    async fn bump_counters(&self, counters: [(&str, OffsetDateTime); 3]) -> Result<[i64; 3]>;
    /// Takes back a bump of the same three counters (a question the policy refused after all).
    async fn unbump_counters(&self, counters: [(&str, OffsetDateTime); 3]) -> Result<()>;
    /// Drops counters of windows that started before `before`.
    async fn purge_counters(&self, before: OffsetDateTime) -> Result<u64>;
    async fn audit(&self, entry: &AuditEntry) -> Result<()>;
    async fn audit_entries(&self, org_id: Uuid, query: &AuditQuery) -> Result<Vec<AuditEntry>>;

    // --- abuse resistance: setup checks and the sign-in throttle ---------------------------

    /// Whether this setup link would complete setup now (checked before any password is hashed;
    /// `complete_setup` remains the compare-and-set).
    async fn setup_token_usable(&self, token_hash: &[u8], now: OffsetDateTime) -> Result<bool>;
    /// The latest time until which sign-ins under either key are refused, if later than `now`.
    async fn login_blocked_until(
        &self,
        keys: [&[u8]; 2],
        now: OffsetDateTime,
    ) -> Result<Option<OffsetDateTime>>;
    /// Counts one failed sign-in under each key and returns the new counts, in order. A key whose
    /// last failure was before `forget_before` starts over (and loses its block).
    async fn record_login_failures(
        &self,
        keys: [&[u8]; 2],
        now: OffsetDateTime,
        forget_before: OffsetDateTime,
    ) -> Result<[i64; 2]>;
    /// Refuses sign-ins under `key` until `until`; a longer block already there stays.
    async fn block_login(&self, key: &[u8], until: OffsetDateTime) -> Result<()>;
    /// Forgets the failures under `key` (its account signed in).
    async fn clear_login_failures(&self, key: &[u8]) -> Result<()>;
    /// Drops keys quiet since `before` whose block (if any) ended before `now`.
    async fn purge_login_failures(&self, before: OffsetDateTime, now: OffsetDateTime) -> Result<u64>;
}

/// Opens the configured database and applies its migrations.
pub async fn open(database: &DatabaseUrl) -> Result<Arc<dyn Store>> {
    Ok(match database {
        DatabaseUrl::Sqlite { path } => Arc::new(SqliteStore::open(path).await?),
        DatabaseUrl::Postgres { url } => Arc::new(PostgresStore::open(url).await?),
    })
}
