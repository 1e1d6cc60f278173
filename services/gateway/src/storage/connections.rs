//! People's connections to OAuth-protected upstream servers: Herald's client at
//! each server's authorization server, each person's tokens (sealed), and the
//! connections under way.
//!
//! The trait, and its SQL for both databases (`impl_connections!`, instantiated
//! in `postgres.rs` and `sqlite.rs`).

use super::*;

/// Herald's client at an authorization server, for one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpstreamClient {
    pub server_id: Uuid,
    pub issuer: String,
    pub client_id: String,
    pub client_secret_sealed: Option<Vec<u8>>,
    /// `preregistered`, `metadata_document` or `dynamic`.
    pub registration: String,
    /// `client_secret_basic`, `client_secret_post` or `none`.
    pub auth_method: String,
    pub created_at: OffsetDateTime,
}

/// A person's tokens for a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Connection {
    pub org_id: Uuid,
    pub user_id: Uuid,
    pub server_id: Uuid,
    pub issuer: String,
    /// The resource indicator the tokens were issued for (RFC 8707).
    pub resource: String,
    pub access_token_sealed: Vec<u8>,
    pub refresh_token_sealed: Option<Vec<u8>>,
    /// Space-separated, as granted.
    pub scopes: String,
    pub expires_at: Option<OffsetDateTime>,
    pub connected_at: OffsetDateTime,
    pub refreshed_at: OffsetDateTime,
    /// Scopes the server asked for since (a `403 insufficient_scope`), space-separated: the
    /// person connects again to grant them. Empty when nothing more is wanted; a new
    /// connection clears it.
    pub wanted_scopes: String,
}

/// A connection under way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectAttempt {
    pub state_hash: Vec<u8>,
    pub org_id: Uuid,
    pub user_id: Uuid,
    pub server_id: Uuid,
    pub issuer: String,
    pub resource: String,
    pub browser_hash: Vec<u8>,
    pub pkce_verifier_sealed: Vec<u8>,
    pub scopes: String,
    pub return_to: String,
    pub created_at: OffsetDateTime,
    pub expires_at: OffsetDateTime,
}

#[async_trait::async_trait]
pub trait Connections: Send + Sync {
    async fn upstream_client(&self, server_id: Uuid, issuer: &str) -> Result<Option<UpstreamClient>>;
    /// Stores Herald's client at `issuer` for the server (replacing an earlier one).
    async fn put_upstream_client(&self, client: &UpstreamClient) -> Result<()>;
    /// Forgets every client and connection of a server (its address or mode changed).
    async fn forget_server_auth(&self, server_id: Uuid) -> Result<()>;
    async fn connection(&self, server_id: Uuid, user_id: Uuid) -> Result<Option<Connection>>;
    /// Stores a person's tokens for a server (replacing earlier ones).
    async fn put_connection(&self, connection: &Connection) -> Result<()>;
    /// Replaces the tokens of a connection refreshed from `refreshed_from` (its `refreshed_at`
    /// as read); `false` when another replica refreshed it first.
    async fn refresh_connection(
        &self,
        connection: &Connection,
        refreshed_from: OffsetDateTime,
    ) -> Result<bool>;
    async fn delete_connection(&self, server_id: Uuid, user_id: Uuid) -> Result<bool>;
    /// The server refused the person's access token: it is treated as expired from `at` (the
    /// next call refreshes it, or asks the person to connect again).
    async fn expire_connection(&self, server_id: Uuid, user_id: Uuid, at: OffsetDateTime) -> Result<bool>;
    /// The server wants `scopes` (space-separated) the person has not granted.
    async fn want_scopes(&self, server_id: Uuid, user_id: Uuid, scopes: &str) -> Result<bool>;
    /// A person's connections, in every organisation, newest first.
    async fn connections_of(&self, user_id: Uuid) -> Result<Vec<Connection>>;
    /// The connections of a person in an organisation, or of everyone to a server.
    async fn connections_in(
        &self,
        org_id: Uuid,
        user_id: Option<Uuid>,
        server_id: Option<Uuid>,
    ) -> Result<Vec<Connection>>;
    async fn put_connect_attempt(&self, attempt: &ConnectAttempt) -> Result<()>;
    /// Takes the attempt (gone afterwards whatever happens), `None` when unknown or expired.
    async fn take_connect_attempt(
        &self,
        state_hash: &[u8],
        now: OffsetDateTime,
    ) -> Result<Option<ConnectAttempt>>;
}

#[derive(sqlx::FromRow)]
pub(crate) struct UpstreamClientRow {
    server_id: Uuid,
    issuer: String,
    client_id: String,
    client_secret_sealed: Option<Vec<u8>>,
    registration: String,
    auth_method: String,
    created_at: DbTime,
}

impl From<UpstreamClientRow> for UpstreamClient {
    fn from(r: UpstreamClientRow) -> Self {
        UpstreamClient {
            server_id: r.server_id,
            issuer: r.issuer,
            client_id: r.client_id,
            client_secret_sealed: r.client_secret_sealed,
            registration: r.registration,
            auth_method: r.auth_method,
            created_at: r.created_at.0,
        }
    }
}

#[derive(sqlx::FromRow)]
pub(crate) struct ConnectionRow {
    org_id: Uuid,
    user_id: Uuid,
    server_id: Uuid,
    issuer: String,
    resource: String,
    access_token_sealed: Vec<u8>,
    refresh_token_sealed: Option<Vec<u8>>,
    scopes: String,
    expires_at: Option<DbTime>,
    connected_at: DbTime,
    refreshed_at: DbTime,
    wanted_scopes: String,
}

impl From<ConnectionRow> for Connection {
    fn from(r: ConnectionRow) -> Self {
        Connection {
            org_id: r.org_id,
            user_id: r.user_id,
            server_id: r.server_id,
            issuer: r.issuer,
            resource: r.resource,
            access_token_sealed: r.access_token_sealed,
            refresh_token_sealed: r.refresh_token_sealed,
            scopes: r.scopes,
            expires_at: r.expires_at.map(|t| t.0),
            connected_at: r.connected_at.0,
            refreshed_at: r.refreshed_at.0,
            wanted_scopes: r.wanted_scopes,
        }
    }
}

#[derive(sqlx::FromRow)]
pub(crate) struct ConnectAttemptRow {
    state_hash: Vec<u8>,
    org_id: Uuid,
    user_id: Uuid,
    server_id: Uuid,
    issuer: String,
    resource: String,
    browser_hash: Vec<u8>,
    pkce_verifier_sealed: Vec<u8>,
    scopes: String,
    return_to: String,
    created_at: DbTime,
    expires_at: DbTime,
}

impl From<ConnectAttemptRow> for ConnectAttempt {
    fn from(r: ConnectAttemptRow) -> Self {
        ConnectAttempt {
            state_hash: r.state_hash,
            org_id: r.org_id,
            user_id: r.user_id,
            server_id: r.server_id,
            issuer: r.issuer,
            resource: r.resource,
            browser_hash: r.browser_hash,
            pkce_verifier_sealed: r.pkce_verifier_sealed,
            scopes: r.scopes,
            return_to: r.return_to,
            created_at: r.created_at.0,
            expires_at: r.expires_at.0,
        }
    }
}

macro_rules! connection_cols {
    () => {
        "c.org_id, c.user_id, c.server_id, c.issuer, c.resource, c.access_token_sealed, c.refresh_token_sealed, c.scopes, \
         c.expires_at, c.connected_at, c.refreshed_at, c.wanted_scopes"
    };
}
pub(crate) use connection_cols;

macro_rules! impl_connections {
    ($store:ty, $db:ty) => {
        #[async_trait::async_trait]
        impl $crate::storage::connections::Connections for $store {
            async fn upstream_client(
                &self,
                server_id: uuid::Uuid,
                issuer: &str,
            ) -> $crate::storage::Result<Option<$crate::storage::connections::UpstreamClient>> {
                let row: Option<$crate::storage::connections::UpstreamClientRow> = sqlx::query_as(
                    "SELECT server_id, issuer, client_id, client_secret_sealed, registration, auth_method, created_at \
                     FROM upstream_clients WHERE server_id = $1 AND issuer = $2",
                )
                .bind(server_id)
                .bind(issuer)
                .fetch_optional(&self.pool)
                .await?;
                Ok(row.map(Into::into))
            }

            async fn put_upstream_client(
                &self,
                c: &$crate::storage::connections::UpstreamClient,
            ) -> $crate::storage::Result<()> {
                sqlx::query(
                    "INSERT INTO upstream_clients (server_id, issuer, client_id, client_secret_sealed, registration, \
                     auth_method, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) \
                     ON CONFLICT (server_id, issuer) DO UPDATE SET client_id = $3, client_secret_sealed = $4, \
                     registration = $5, auth_method = $6, created_at = $7",
                )
                .bind(c.server_id)
                .bind(&c.issuer)
                .bind(&c.client_id)
                .bind(&c.client_secret_sealed)
                .bind(&c.registration)
                .bind(&c.auth_method)
                .bind($crate::storage::DbTime(c.created_at))
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn forget_server_auth(&self, server_id: uuid::Uuid) -> $crate::storage::Result<()> {
                let mut tx = self.begin_write().await?;
                for statement in [
                    "DELETE FROM upstream_connections WHERE server_id = $1",
                    "DELETE FROM upstream_clients WHERE server_id = $1",
                    "DELETE FROM upstream_connect_attempts WHERE server_id = $1",
                ] {
                    sqlx::query(statement).bind(server_id).execute(&mut *tx).await?;
                }
                tx.commit().await?;
                Ok(())
            }

            async fn connection(
                &self,
                server_id: uuid::Uuid,
                user_id: uuid::Uuid,
            ) -> $crate::storage::Result<Option<$crate::storage::connections::Connection>> {
                let row: Option<$crate::storage::connections::ConnectionRow> = sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::connections::connection_cols!(),
                    " FROM upstream_connections c WHERE c.server_id = $1 AND c.user_id = $2"
                ))
                .bind(server_id)
                .bind(user_id)
                .fetch_optional(&self.pool)
                .await?;
                Ok(row.map(Into::into))
            }

            async fn put_connection(
                &self,
                c: &$crate::storage::connections::Connection,
            ) -> $crate::storage::Result<()> {
                use $crate::storage::DbTime;
                sqlx::query(
                    "INSERT INTO upstream_connections (org_id, user_id, server_id, issuer, access_token_sealed, \
                     refresh_token_sealed, scopes, expires_at, connected_at, refreshed_at, resource) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) \
                     ON CONFLICT (server_id, user_id) DO UPDATE SET issuer = $4, access_token_sealed = $5, \
                     refresh_token_sealed = $6, scopes = $7, expires_at = $8, connected_at = $9, refreshed_at = $10, \
                     resource = $11, wanted_scopes = ''",
                )
                .bind(c.org_id)
                .bind(c.user_id)
                .bind(c.server_id)
                .bind(&c.issuer)
                .bind(&c.access_token_sealed)
                .bind(&c.refresh_token_sealed)
                .bind(&c.scopes)
                .bind(c.expires_at.map(DbTime))
                .bind(DbTime(c.connected_at))
                .bind(DbTime(c.refreshed_at))
                .bind(&c.resource)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn refresh_connection(
                &self,
                c: &$crate::storage::connections::Connection,
                refreshed_from: time::OffsetDateTime,
            ) -> $crate::storage::Result<bool> {
                use $crate::storage::DbTime;
                let done = sqlx::query(
                    "UPDATE upstream_connections SET access_token_sealed = $3, refresh_token_sealed = $4, scopes = $5, \
                     expires_at = $6, refreshed_at = $7 WHERE server_id = $1 AND user_id = $2 AND refreshed_at = $8",
                )
                .bind(c.server_id)
                .bind(c.user_id)
                .bind(&c.access_token_sealed)
                .bind(&c.refresh_token_sealed)
                .bind(&c.scopes)
                .bind(c.expires_at.map(DbTime))
                .bind(DbTime(c.refreshed_at))
                .bind(DbTime(refreshed_from))
                .execute(&self.pool)
                .await?;
                Ok(done.rows_affected() > 0)
            }

            async fn expire_connection(
                &self,
                server_id: uuid::Uuid,
                user_id: uuid::Uuid,
                at: time::OffsetDateTime,
            ) -> $crate::storage::Result<bool> {
                let done = sqlx::query(
                    "UPDATE upstream_connections SET expires_at = $3 WHERE server_id = $1 AND user_id = $2",
                )
                .bind(server_id)
                .bind(user_id)
                .bind($crate::storage::DbTime(at))
                .execute(&self.pool)
                .await?;
                Ok(done.rows_affected() > 0)
            }

            async fn want_scopes(
                &self,
                server_id: uuid::Uuid,
                user_id: uuid::Uuid,
                scopes: &str,
            ) -> $crate::storage::Result<bool> {
                let done = sqlx::query(
                    "UPDATE upstream_connections SET wanted_scopes = $3 WHERE server_id = $1 AND user_id = $2",
                )
                .bind(server_id)
                .bind(user_id)
                .bind(scopes)
                .execute(&self.pool)
                .await?;
                Ok(done.rows_affected() > 0)
            }

            async fn delete_connection(&self, server_id: uuid::Uuid, user_id: uuid::Uuid) -> $crate::storage::Result<bool> {
                let done = sqlx::query("DELETE FROM upstream_connections WHERE server_id = $1 AND user_id = $2")
                    .bind(server_id)
                    .bind(user_id)
                    .execute(&self.pool)
                    .await?;
                Ok(done.rows_affected() > 0)
            }

            async fn connections_of(
                &self,
                user_id: uuid::Uuid,
            ) -> $crate::storage::Result<Vec<$crate::storage::connections::Connection>> {
                let rows: Vec<$crate::storage::connections::ConnectionRow> = sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::connections::connection_cols!(),
                    " FROM upstream_connections c WHERE c.user_id = $1 ORDER BY c.connected_at DESC"
                ))
                .bind(user_id)
                .fetch_all(&self.pool)
                .await?;
                Ok(rows.into_iter().map(Into::into).collect())
            }

            async fn connections_in(
                &self,
                org_id: uuid::Uuid,
                user_id: Option<uuid::Uuid>,
                server_id: Option<uuid::Uuid>,
            ) -> $crate::storage::Result<Vec<$crate::storage::connections::Connection>> {
                let rows: Vec<$crate::storage::connections::ConnectionRow> = sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::connections::connection_cols!(),
                    " FROM upstream_connections c WHERE c.org_id = $1 \
                     AND ($2 IS NULL OR c.user_id = $2) AND ($3 IS NULL OR c.server_id = $3)"
                ))
                .bind(org_id)
                .bind(user_id)
                .bind(server_id)
                .fetch_all(&self.pool)
                .await?;
                Ok(rows.into_iter().map(Into::into).collect())
            }

            async fn put_connect_attempt(
                &self,
                a: &$crate::storage::connections::ConnectAttempt,
            ) -> $crate::storage::Result<()> {
                use $crate::storage::DbTime;
                sqlx::query(
                    "INSERT INTO upstream_connect_attempts (state_hash, org_id, user_id, server_id, issuer, browser_hash, \
                     pkce_verifier_sealed, scopes, return_to, created_at, expires_at, resource) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
                )
                .bind(&a.state_hash)
                .bind(a.org_id)
                .bind(a.user_id)
                .bind(a.server_id)
                .bind(&a.issuer)
                .bind(&a.browser_hash)
                .bind(&a.pkce_verifier_sealed)
                .bind(&a.scopes)
                .bind(&a.return_to)
                .bind(DbTime(a.created_at))
                .bind(DbTime(a.expires_at))
                .bind(&a.resource)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn take_connect_attempt(
                &self,
                state_hash: &[u8],
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<Option<$crate::storage::connections::ConnectAttempt>> {
                use $crate::storage::DbTime;
                let row: Option<$crate::storage::connections::ConnectAttemptRow> = sqlx::query_as(
                    "DELETE FROM upstream_connect_attempts WHERE state_hash = $1 RETURNING state_hash, org_id, user_id, \
                     server_id, issuer, resource, browser_hash, pkce_verifier_sealed, scopes, return_to, created_at, expires_at",
                )
                .bind(state_hash)
                .fetch_optional(&self.pool)
                .await?;
                sqlx::query("DELETE FROM upstream_connect_attempts WHERE expires_at <= $1")
                    .bind(DbTime(now))
                    .execute(&self.pool)
                    .await?;
                Ok(row.map($crate::storage::connections::ConnectAttempt::from).filter(|a| a.expires_at > now))
            }
        }
    };
}
pub(crate) use impl_connections;
