//! Legacy agents' sessions (`Mcp-Session-Id`), kept in rows so that any replica
//! serves them.
//!
//! The trait, and its SQL for both databases (`impl_sessions!`, instantiated in
//! `postgres.rs` and `sqlite.rs`; see `sql.rs` for what the two share).

use super::*;

/// A session nobody used for this long is gone (the janitor purges its row; a replica that
/// still holds it lets it go).
pub const SESSION_IDLE: std::time::Duration = std::time::Duration::from_secs(24 * 3600);

#[async_trait::async_trait]
pub trait AgentSessions: Send + Sync {
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
}

macro_rules! impl_sessions {
    ($store:ty, $db:ty) => {
        #[async_trait::async_trait]
        impl $crate::storage::sessions::AgentSessions for $store {
            async fn create_agent_session(
                &self,
                s: &$crate::storage::AgentSessionRecord,
            ) -> $crate::storage::Result<()> {
                use $crate::storage::DbTime;
                sqlx::query(
                    "INSERT INTO agent_sessions (id_hash, org_id, user_id, server_id, protocol_version, \
                     agent_info, created_at, last_seen_at, agent_capabilities, token_id) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                )
                .bind(&s.id_hash)
                .bind(s.org_id)
                .bind(s.user_id)
                .bind(s.server_id)
                .bind(&s.protocol_version)
                .bind(s.agent_info.as_ref().map(sqlx::types::Json))
                .bind(DbTime(s.created_at))
                .bind(DbTime(s.last_seen_at))
                .bind(s.agent_capabilities.as_ref().map(sqlx::types::Json))
                .bind(s.token_id)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn agent_session(
                &self,
                id_hash: &[u8],
            ) -> $crate::storage::Result<Option<$crate::storage::AgentSessionRecord>> {
                let row: Option<$crate::storage::rows::AgentSessionRow> = sqlx::query_as(
                    "SELECT id_hash, org_id, user_id, server_id, protocol_version, agent_info, agent_capabilities, \
                     token_id, created_at, last_seen_at FROM agent_sessions WHERE id_hash = $1",
                )
                .bind(id_hash)
                .fetch_optional(&self.pool)
                .await?;
                Ok(row.map(Into::into))
            }

            async fn touch_agent_session(
                &self,
                id_hash: &[u8],
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<bool> {
                let done = sqlx::query("UPDATE agent_sessions SET last_seen_at = $2 WHERE id_hash = $1")
                    .bind(id_hash)
                    .bind($crate::storage::DbTime(now))
                    .execute(&self.pool)
                    .await?;
                Ok(done.rows_affected() > 0)
            }

            async fn delete_agent_session(&self, id_hash: &[u8]) -> $crate::storage::Result<bool> {
                let done = sqlx::query("DELETE FROM agent_sessions WHERE id_hash = $1")
                    .bind(id_hash)
                    .execute(&self.pool)
                    .await?;
                Ok(done.rows_affected() > 0)
            }

            async fn count_agent_sessions_of_token(
                &self,
                token_id: uuid::Uuid,
                since: time::OffsetDateTime,
            ) -> $crate::storage::Result<u64> {
                let (count,): (i64,) = sqlx::query_as(
                    "SELECT COUNT(*) FROM agent_sessions WHERE token_id = $1 AND last_seen_at >= $2",
                )
                .bind(token_id)
                .bind($crate::storage::DbTime(since))
                .fetch_one(&self.pool)
                .await?;
                Ok(u64::try_from(count).unwrap_or(0))
            }

            async fn delete_agent_sessions_of_token(
                &self,
                token_id: uuid::Uuid,
            ) -> $crate::storage::Result<Vec<Vec<u8>>> {
                let gone: Vec<(Vec<u8>,)> =
                    sqlx::query_as("DELETE FROM agent_sessions WHERE token_id = $1 RETURNING id_hash")
                        .bind(token_id)
                        .fetch_all(&self.pool)
                        .await?;
                Ok(gone.into_iter().map(|(hash,)| hash).collect())
            }

            async fn purge_idle_agent_sessions(
                &self,
                before: time::OffsetDateTime,
            ) -> $crate::storage::Result<u64> {
                let done = sqlx::query("DELETE FROM agent_sessions WHERE last_seen_at < $1")
                    .bind($crate::storage::DbTime(before))
                    .execute(&self.pool)
                    .await?;
                Ok(done.rows_affected())
            }
        }
    };
}

pub(super) use impl_sessions;
