//! What the org's policy reads and writes: the policy document, members' mutes,
//! decline memory, and the shared rate counters.
//!
//! The trait, and its SQL for both databases (`impl_policy!`, instantiated in
//! `postgres.rs` and `sqlite.rs`; see `sql.rs` for what the two share).

use super::*;

#[async_trait::async_trait]
pub trait Policies: Send + Sync {
    async fn policy(&self, org_id: Uuid) -> Result<Option<StoredPolicy>>;
    /// Stores the org's policy document and returns the one it replaced (`None`
    /// if it had none), read in the same transaction with the org locked, so
    /// two admins saving at once each get the document their change replaced.
    async fn put_policy(
        &self,
        org_id: Uuid,
        document: &serde_json::Value,
        by: Uuid,
        now: OffsetDateTime,
    ) -> Result<Option<serde_json::Value>>;
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
    /// When the user last declined this fingerprint, if they did since `since`.
    async fn last_decline_since(
        &self,
        org_id: Uuid,
        user_id: Uuid,
        fingerprint: &[u8],
        since: OffsetDateTime,
    ) -> Result<Option<OffsetDateTime>>;
    /// Forgets the user's declines of this fingerprint ("ask me again"); returns how many.
    async fn forget_declines(&self, org_id: Uuid, user_id: Uuid, fingerprint: &[u8]) -> Result<u64>;
    /// Adds one to each of three counters (`key`, and the window starting at
    /// the time) and returns their new counts in the same order: one atomic
    /// upsert, so every replica counts alike, and one commit for the three.
    /// The keys must differ.
    async fn bump_counters(&self, counters: [(&str, OffsetDateTime); 3]) -> Result<[i64; 3]>;
    /// Takes back a bump of the same three counters (a question the policy refused after all).
    async fn unbump_counters(&self, counters: [(&str, OffsetDateTime); 3]) -> Result<()>;
    /// Drops counters of windows that started before `before`.
    async fn purge_counters(&self, before: OffsetDateTime) -> Result<u64>;
}

macro_rules! impl_policy {
    ($store:ty, $db:ty) => {
        #[async_trait::async_trait]
        impl $crate::storage::policy::Policies for $store {
            async fn policy(&self, org_id: uuid::Uuid) -> $crate::storage::Result<Option<$crate::storage::StoredPolicy>> {
                let row: Option<$crate::storage::rows::PolicyRow> =
                    sqlx::query_as("SELECT document, updated_at, updated_by FROM org_policies WHERE org_id = $1")
                        .bind(org_id)
                        .fetch_optional(&self.pool)
                        .await?;
                Ok(row.map(Into::into))
            }

            async fn put_policy(
                &self,
                org_id: uuid::Uuid,
                document: &serde_json::Value,
                by: uuid::Uuid,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<Option<serde_json::Value>> {
                let mut tx = self.begin_write().await?;
                sqlx::query(Self::LOCK_ORG).bind(org_id).execute(&mut *tx).await?;
                let previous: Option<sqlx::types::Json<serde_json::Value>> =
                    sqlx::query_scalar("SELECT document FROM org_policies WHERE org_id = $1")
                        .bind(org_id)
                        .fetch_optional(&mut *tx)
                        .await?;
                sqlx::query(
                    "INSERT INTO org_policies (org_id, document, updated_at, updated_by) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (org_id) DO UPDATE SET document = excluded.document, \
                     updated_at = excluded.updated_at, updated_by = excluded.updated_by",
                )
                .bind(org_id)
                .bind(sqlx::types::Json(document))
                .bind($crate::storage::DbTime(now))
                .bind(by)
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
                Ok(previous.map(|d| d.0))
            }

            async fn mutes(
                &self,
                org_id: uuid::Uuid,
                user_id: uuid::Uuid,
            ) -> $crate::storage::Result<Vec<$crate::storage::Mute>> {
                let rows: Vec<$crate::storage::rows::MuteRow> = sqlx::query_as(
                    "SELECT m.server_id, s.slug AS server_slug, s.name AS server_name, m.reason, m.note, m.created_at \
                     FROM mutes m JOIN servers s ON s.id = m.server_id AND s.org_id = m.org_id \
                     WHERE m.org_id = $1 AND m.user_id = $2 ORDER BY s.slug",
                )
                .bind(org_id)
                .bind(user_id)
                .fetch_all(&self.pool)
                .await?;
                Ok(rows.into_iter().map(Into::into).collect())
            }

            async fn mute(
                &self,
                org_id: uuid::Uuid,
                user_id: uuid::Uuid,
                server_id: uuid::Uuid,
                reason: &str,
                note: &str,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<()> {
                use $crate::storage::{sql::unique_means, Conflict, DbTime};
                sqlx::query(
                    "INSERT INTO mutes (org_id, user_id, server_id, reason, note, created_at) \
                     VALUES ($1, $2, $3, $4, $5, $6)",
                )
                .bind(org_id)
                .bind(user_id)
                .bind(server_id)
                .bind(reason)
                .bind(note)
                .bind(DbTime(now))
                .execute(&self.pool)
                .await
                .map_err(unique_means(Conflict::AlreadyMuted))?;
                Ok(())
            }

            async fn unmute(
                &self,
                org_id: uuid::Uuid,
                user_id: uuid::Uuid,
                server_id: uuid::Uuid,
            ) -> $crate::storage::Result<()> {
                let removed = sqlx::query("DELETE FROM mutes WHERE org_id = $1 AND user_id = $2 AND server_id = $3")
                    .bind(org_id)
                    .bind(user_id)
                    .bind(server_id)
                    .execute(&self.pool)
                    .await?
                    .rows_affected();
                if removed == 0 {
                    return Err($crate::storage::StoreError::NotFound);
                }
                Ok(())
            }

            async fn is_muted(
                &self,
                org_id: uuid::Uuid,
                user_id: uuid::Uuid,
                server_id: uuid::Uuid,
            ) -> $crate::storage::Result<bool> {
                let found: i64 = sqlx::query_scalar(
                    "SELECT COUNT(*) FROM mutes WHERE org_id = $1 AND user_id = $2 AND server_id = $3",
                )
                .bind(org_id)
                .bind(user_id)
                .bind(server_id)
                .fetch_one(&self.pool)
                .await?;
                Ok(found > 0)
            }

            async fn record_decline(&self, d: &$crate::storage::DeclineRecord) -> $crate::storage::Result<()> {
                sqlx::query(
                    "INSERT INTO decline_records (id, org_id, user_id, server_slug, tool, fingerprint, elicitation_id, \
                     declined_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                )
                .bind(uuid::Uuid::now_v7())
                .bind(d.org_id)
                .bind(d.user_id)
                .bind(&d.server_slug)
                .bind(&d.tool)
                .bind(&d.fingerprint)
                .bind(d.elicitation_id)
                .bind($crate::storage::DbTime(d.declined_at))
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn count_fingerprint(
                &self,
                org_id: uuid::Uuid,
                user_id: uuid::Uuid,
                fingerprint: &[u8],
                since: time::OffsetDateTime,
                reason: &str,
            ) -> $crate::storage::Result<i64> {
                Ok(sqlx::query_scalar(
                    "SELECT COUNT(*) FROM elicitations \
                     WHERE org_id = $1 AND user_id = $2 AND fingerprint = $3 AND created_at >= $4 AND reason = $5",
                )
                .bind(org_id)
                .bind(user_id)
                .bind(fingerprint)
                .bind($crate::storage::DbTime(since))
                .bind(reason)
                .fetch_one(&self.pool)
                .await?)
            }

            async fn last_decline_since(
                &self,
                org_id: uuid::Uuid,
                user_id: uuid::Uuid,
                fingerprint: &[u8],
                since: time::OffsetDateTime,
            ) -> $crate::storage::Result<Option<time::OffsetDateTime>> {
                let last: Option<$crate::storage::DbTime> = sqlx::query_scalar(
                    "SELECT MAX(declined_at) FROM decline_records \
                     WHERE org_id = $1 AND user_id = $2 AND fingerprint = $3 AND declined_at >= $4",
                )
                .bind(org_id)
                .bind(user_id)
                .bind(fingerprint)
                .bind($crate::storage::DbTime(since))
                .fetch_one(&self.pool)
                .await?;
                Ok(last.map(|t| t.0))
            }

            async fn forget_declines(
                &self,
                org_id: uuid::Uuid,
                user_id: uuid::Uuid,
                fingerprint: &[u8],
            ) -> $crate::storage::Result<u64> {
                let done = sqlx::query(
                    "DELETE FROM decline_records WHERE org_id = $1 AND user_id = $2 AND fingerprint = $3",
                )
                .bind(org_id)
                .bind(user_id)
                .bind(fingerprint)
                .execute(&self.pool)
                .await?;
                Ok(done.rows_affected())
            }

            async fn bump_counters(
                &self,
                counters: [(&str, time::OffsetDateTime); 3],
            ) -> $crate::storage::Result<[i64; 3]> {
                use $crate::storage::DbTime;
                // RETURNING promises no order: the rows are matched by key.
                let query = sqlx::query_as(
                    "INSERT INTO rate_counters (key, window_start, count) VALUES ($1, $2, 1), ($3, $4, 1), ($5, $6, 1) \
                     ON CONFLICT (key, window_start) DO UPDATE SET count = rate_counters.count + 1 \
                     RETURNING key, count",
                )
                .bind(counters[0].0)
                .bind(DbTime(counters[0].1))
                .bind(counters[1].0)
                .bind(DbTime(counters[1].1))
                .bind(counters[2].0)
                .bind(DbTime(counters[2].1));
                // One statement: the hot rows' locks are held only while it runs.
                let rows: Vec<(String, i64)> = query.fetch_all(self.counters_pool()).await?;
                let count = |key: &str| {
                    rows.iter().find(|(k, _)| k == key).map(|(_, c)| *c).ok_or($crate::storage::StoreError::NotFound)
                };
                Ok([count(counters[0].0)?, count(counters[1].0)?, count(counters[2].0)?])
            }

            async fn unbump_counters(
                &self,
                counters: [(&str, time::OffsetDateTime); 3],
            ) -> $crate::storage::Result<()> {
                use $crate::storage::DbTime;
                sqlx::query(
                    "UPDATE rate_counters SET count = count - 1 WHERE count > 0 AND \
                     ((key = $1 AND window_start = $2) OR (key = $3 AND window_start = $4) OR (key = $5 AND window_start = $6))",
                )
                .bind(counters[0].0)
                .bind(DbTime(counters[0].1))
                .bind(counters[1].0)
                .bind(DbTime(counters[1].1))
                .bind(counters[2].0)
                .bind(DbTime(counters[2].1))
                .execute(self.counters_pool())
                .await?;
                Ok(())
            }

            async fn purge_counters(&self, before: time::OffsetDateTime) -> $crate::storage::Result<u64> {
                Ok(sqlx::query("DELETE FROM rate_counters WHERE window_start < $1")
                    .bind($crate::storage::DbTime(before))
                    .execute(&self.pool)
                    .await?
                    .rows_affected())
            }
        }
    };
}

pub(super) use impl_policy;
