//! The instance itself: readiness, its key, the first setup, and the replicas
//! sharing one database (heartbeats, and the events they tell each other).
//!
//! The trait, and its SQL for both databases (`impl_instance!`, instantiated in
//! `postgres.rs` and `sqlite.rs`; see `sql.rs` for what the two share).

use super::*;

#[async_trait::async_trait]
pub trait Instance: Send + Sync {
    /// A trivial query, for readiness.
    async fn ping(&self) -> Result<()>;
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
    /// Whether at most one process can use this database (SQLite).
    fn single_process(&self) -> bool;
    /// Wakes every replica listening (PostgreSQL `NOTIFY`); nothing to do
    /// where there is only one process.
    async fn publish_event(&self, payload: &str) -> Result<()>;
    /// Other replicas' events, or `None` where there is only one process.
    async fn subscribe_events(&self) -> Result<Option<Box<dyn EventFeed>>>;
    /// Records a replica's heartbeat (inserting it on the first beat).
    async fn heartbeat(&self, replica_id: Uuid, now: OffsetDateTime) -> Result<()>;
    /// Whether this setup link would complete setup now (checked before any password is hashed;
    /// `complete_setup` remains the compare-and-set).
    async fn setup_token_usable(&self, token_hash: &[u8], now: OffsetDateTime) -> Result<bool>;
}

macro_rules! impl_instance {
    ($store:ty, $db:ty) => {
        #[async_trait::async_trait]
        impl $crate::storage::instance::Instance for $store {
            async fn ping(&self) -> $crate::storage::Result<()> {
                sqlx::query("SELECT 1").execute(&self.pool).await?;
                Ok(())
            }

            async fn instance_secret(&self, candidate: &str) -> $crate::storage::Result<String> {
                sqlx::query(
                    "INSERT INTO instance_settings (key, value) VALUES ('secret_key', $1) \
                     ON CONFLICT (key) DO NOTHING",
                )
                .bind(candidate)
                .execute(&self.pool)
                .await?;
                Ok(sqlx::query_scalar("SELECT value FROM instance_settings WHERE key = 'secret_key'")
                    .fetch_one(&self.pool)
                    .await?)
            }

            async fn has_users(&self) -> $crate::storage::Result<bool> {
                let count: i64 =
                    sqlx::query_scalar("SELECT COUNT(*) FROM (SELECT 1 FROM users LIMIT 1) AS any_user")
                        .fetch_one(&self.pool)
                        .await?;
                Ok(count > 0)
            }

            async fn put_setup_token(
                &self,
                token_hash: &[u8],
                expires_at: time::OffsetDateTime,
            ) -> $crate::storage::Result<()> {
                sqlx::query("INSERT INTO setup_tokens (token_hash, expires_at) VALUES ($1, $2)")
                    .bind(token_hash)
                    .bind($crate::storage::DbTime(expires_at))
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn complete_setup(
                &self,
                token_hash: &[u8],
                now: time::OffsetDateTime,
                org: $crate::storage::NewOrg,
                owner: $crate::storage::NewUser,
            ) -> $crate::storage::Result<($crate::storage::Org, $crate::storage::User)> {
                use $crate::storage::{Conflict, DbTime, StoreError};
                let mut tx = self.begin_write().await?;
                let consumed =
                    sqlx::query("DELETE FROM setup_tokens WHERE token_hash = $1 AND expires_at > $2")
                        .bind(token_hash)
                        .bind(DbTime(now))
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                // Setup happens once: every other link dies with this one.
                sqlx::query("DELETE FROM setup_tokens").execute(&mut *tx).await?;
                let users: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM users").fetch_one(&mut *tx).await?;
                if consumed != 1 || users > 0 {
                    return Err(StoreError::Conflict(Conflict::SetupUnavailable));
                }
                let org = Self::insert_org(&mut tx, org, now).await?;
                let user = Self::insert_user(&mut tx, owner, now).await?;
                Self::insert_membership(&mut tx, org.id, user.id, $crate::domain::Role::Owner, now).await?;
                tx.commit().await?;
                Ok((org, user))
            }

            fn single_process(&self) -> bool {
                Self::SINGLE_PROCESS
            }

            async fn publish_event(&self, payload: &str) -> $crate::storage::Result<()> {
                self.publish(payload).await
            }

            async fn subscribe_events(
                &self,
            ) -> $crate::storage::Result<Option<Box<dyn $crate::storage::EventFeed>>> {
                self.subscribe().await
            }

            async fn heartbeat(
                &self,
                replica_id: uuid::Uuid,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<()> {
                sqlx::query(
                    "INSERT INTO replicas (id, started_at, heartbeat_at) VALUES ($1, $2, $2) \
                     ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at",
                )
                .bind(replica_id)
                .bind($crate::storage::DbTime(now))
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn setup_token_usable(
                &self,
                token_hash: &[u8],
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<bool> {
                let (tokens, users): (i64, i64) = sqlx::query_as(
                    "SELECT (SELECT COUNT(*) FROM setup_tokens WHERE token_hash = $1 AND expires_at > $2), \
                     (SELECT COUNT(*) FROM (SELECT 1 FROM users LIMIT 1) AS any_user)",
                )
                .bind(token_hash)
                .bind($crate::storage::DbTime(now))
                .fetch_one(&self.pool)
                .await?;
                Ok(tokens == 1 && users == 0)
            }
        }
    };
}

pub(super) use impl_instance;
