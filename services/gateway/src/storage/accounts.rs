//! People's accounts: users, passwords, dashboard sign-ins, and the sign-in
//! throttle's counts.
//!
//! The trait, and its SQL for both databases (`impl_accounts!`, instantiated in
//! `postgres.rs` and `sqlite.rs`; see `sql.rs` for what the two share).

use super::*;

#[async_trait::async_trait]
pub trait Accounts: Send + Sync {
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

macro_rules! impl_accounts {
    ($store:ty, $db:ty) => {
        #[async_trait::async_trait]
        impl $crate::storage::accounts::Accounts for $store {
            async fn user_by_email(
                &self,
                email: &str,
            ) -> $crate::storage::Result<Option<$crate::storage::UserCredentials>> {
                let row: Option<$crate::storage::rows::UserRow> = sqlx::query_as(
                    "SELECT id, email, name, password_hash, created_at FROM users WHERE email = $1",
                )
                .bind(email)
                .fetch_optional(&self.pool)
                .await?;
                Ok(row.map(|r| r.credentials()))
            }

            async fn user_by_id(
                &self,
                id: uuid::Uuid,
            ) -> $crate::storage::Result<Option<$crate::storage::UserCredentials>> {
                let row: Option<$crate::storage::rows::UserRow> = sqlx::query_as(
                    "SELECT id, email, name, password_hash, created_at FROM users WHERE id = $1",
                )
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
                Ok(row.map(|r| r.credentials()))
            }

            async fn set_password(
                &self,
                user_id: uuid::Uuid,
                password_hash: &str,
                keep: Option<uuid::Uuid>,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<()> {
                use $crate::storage::DbTime;
                let mut tx = self.begin_write().await?;
                sqlx::query("UPDATE users SET password_hash = $2, password_changed_at = $3 WHERE id = $1")
                    .bind(user_id)
                    .bind(password_hash)
                    .bind(DbTime(now))
                    .execute(&mut *tx)
                    .await?;
                sqlx::query(
                    "UPDATE sessions SET ended_at = $3 \
                     WHERE user_id = $1 AND ended_at IS NULL AND ($2 IS NULL OR id <> $2)",
                )
                .bind(user_id)
                .bind(keep)
                .bind(DbTime(now))
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
                Ok(())
            }

            async fn create_session(
                &self,
                user_id: uuid::Uuid,
                now: time::OffsetDateTime,
                expires_at: time::OffsetDateTime,
            ) -> $crate::storage::Result<uuid::Uuid> {
                use $crate::storage::DbTime;
                let id = uuid::Uuid::new_v4();
                sqlx::query(
                    "INSERT INTO sessions (id, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)",
                )
                .bind(id)
                .bind(user_id)
                .bind(DbTime(now))
                .bind(DbTime(expires_at))
                .execute(&self.pool)
                .await?;
                Ok(id)
            }

            async fn session_user(
                &self,
                session_id: uuid::Uuid,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<Option<$crate::storage::User>> {
                let row: Option<$crate::storage::rows::UserRow> = sqlx::query_as(
                    "SELECT u.id, u.email, u.name, u.password_hash, u.created_at \
                     FROM sessions s JOIN users u ON u.id = s.user_id \
                     WHERE s.id = $1 AND s.ended_at IS NULL AND s.expires_at > $2",
                )
                .bind(session_id)
                .bind($crate::storage::DbTime(now))
                .fetch_optional(&self.pool)
                .await?;
                Ok(row.map(|r| r.user()))
            }

            async fn end_session(
                &self,
                session_id: uuid::Uuid,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<()> {
                sqlx::query("UPDATE sessions SET ended_at = $2 WHERE id = $1 AND ended_at IS NULL")
                    .bind(session_id)
                    .bind($crate::storage::DbTime(now))
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn login_blocked_until(
                &self,
                keys: [&[u8]; 2],
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<Option<time::OffsetDateTime>> {
                use $crate::storage::DbTime;
                let until: Vec<DbTime> = sqlx::query_scalar(
                    "SELECT blocked_until FROM login_failures WHERE key IN ($1, $2) AND blocked_until > $3",
                )
                .bind(keys[0])
                .bind(keys[1])
                .bind(DbTime(now))
                .fetch_all(&self.pool)
                .await?;
                Ok(until.into_iter().max().map(|t| t.0))
            }

            async fn record_login_failures(
                &self,
                keys: [&[u8]; 2],
                now: time::OffsetDateTime,
                forget_before: time::OffsetDateTime,
            ) -> $crate::storage::Result<[i64; 2]> {
                use $crate::storage::DbTime;
                // One statement: concurrent failures under one key each count.
                // A key quiet since `forget_before` starts over.
                let rows: Vec<(Vec<u8>, i64)> = sqlx::query_as(
                    "INSERT INTO login_failures (key, failures, last_failure_at, blocked_until) \
                     VALUES ($1, 1, $3, NULL), ($2, 1, $3, NULL) \
                     ON CONFLICT (key) DO UPDATE SET \
                     failures = CASE WHEN login_failures.last_failure_at < $4 THEN 1 \
                                     ELSE login_failures.failures + 1 END, \
                     blocked_until = CASE WHEN login_failures.last_failure_at < $4 THEN NULL \
                                          ELSE login_failures.blocked_until END, \
                     last_failure_at = $3 \
                     RETURNING key, failures",
                )
                .bind(keys[0])
                .bind(keys[1])
                .bind(DbTime(now))
                .bind(DbTime(forget_before))
                .fetch_all(&self.pool)
                .await?;
                let count = |key: &[u8]| {
                    rows.iter()
                        .find(|(k, _)| k.as_slice() == key)
                        .map(|(_, c)| *c)
                        .ok_or($crate::storage::StoreError::NotFound)
                };
                Ok([count(keys[0])?, count(keys[1])?])
            }

            async fn block_login(
                &self,
                key: &[u8],
                until: time::OffsetDateTime,
            ) -> $crate::storage::Result<()> {
                use $crate::storage::DbTime;
                sqlx::query(
                    "UPDATE login_failures SET blocked_until = $2 \
                     WHERE key = $1 AND (blocked_until IS NULL OR blocked_until < $2)",
                )
                .bind(key)
                .bind(DbTime(until))
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn clear_login_failures(&self, key: &[u8]) -> $crate::storage::Result<()> {
                sqlx::query("DELETE FROM login_failures WHERE key = $1")
                    .bind(key)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn purge_login_failures(
                &self,
                before: time::OffsetDateTime,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<u64> {
                use $crate::storage::DbTime;
                Ok(sqlx::query(
                    "DELETE FROM login_failures WHERE last_failure_at < $1 \
                     AND (blocked_until IS NULL OR blocked_until < $2)",
                )
                .bind(DbTime(before))
                .bind(DbTime(now))
                .execute(&self.pool)
                .await?
                .rows_affected())
            }
        }
    };
}

pub(super) use impl_accounts;
