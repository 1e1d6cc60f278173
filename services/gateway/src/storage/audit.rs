//! The audit log: written after each change, read by admins.
//!
//! The trait, and its SQL for both databases (`impl_audit!`, instantiated in
//! `postgres.rs` and `sqlite.rs`; see `sql.rs` for what the two share).

use super::*;

#[async_trait::async_trait]
pub trait Audit: Send + Sync {
    async fn audit(&self, entry: &AuditEntry) -> Result<()>;
    async fn audit_entries(&self, org_id: Uuid, query: &AuditQuery) -> Result<Vec<AuditEntry>>;
}

macro_rules! impl_audit {
    ($store:ty, $db:ty) => {
        #[async_trait::async_trait]
        impl $crate::storage::audit::Audit for $store {
            async fn audit(&self, e: &$crate::storage::AuditEntry) -> $crate::storage::Result<()> {
                sqlx::query(
                    "INSERT INTO audit_log (id, org_id, at, actor, actor_id, action, user_id, server_slug, reason, details) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                )
                .bind(e.id)
                .bind(e.org_id)
                .bind($crate::storage::DbTime(e.at))
                .bind(&e.actor)
                .bind(e.actor_id)
                .bind(&e.action)
                .bind(e.user_id)
                .bind(&e.server_slug)
                .bind(&e.reason)
                .bind(sqlx::types::Json(&e.details))
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn audit_entries(
                &self,
                org_id: uuid::Uuid,
                q: &$crate::storage::AuditQuery,
            ) -> $crate::storage::Result<Vec<$crate::storage::AuditEntry>> {
                use $crate::storage::DbTime;
                let rows: Vec<$crate::storage::rows::AuditRow> = sqlx::query_as(
                    "SELECT id, org_id, at, actor, actor_id, action, user_id, server_slug, reason, details \
                     FROM audit_log WHERE org_id = $1 \
                     AND ($2 IS NULL OR at >= $2) AND ($3 IS NULL OR at < $3) \
                     AND ($4 IS NULL OR user_id = $4 OR actor_id = $4) AND ($5 IS NULL OR server_slug = $5) \
                     AND ($6 IS NULL OR action = $6) AND ($7 IS NULL OR reason = $7) AND ($8 IS NULL OR id < $8) \
                     ORDER BY id DESC LIMIT $9",
                )
                .bind(org_id)
                .bind(q.since.map(DbTime))
                .bind(q.until.map(DbTime))
                .bind(q.user_id)
                .bind(&q.server_slug)
                .bind(&q.action)
                .bind(&q.reason)
                .bind(q.before)
                .bind(i64::from(q.limit))
                .fetch_all(&self.pool)
                .await?;
                Ok(rows.into_iter().map(Into::into).collect())
            }
        }
    };
}

pub(super) use impl_audit;
