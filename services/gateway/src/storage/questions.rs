//! Questions (elicitations): their records, how each ends (one compare-and-set,
//! or one bulk ending by `PendingOf`), and what is pending.
//!
//! The trait, and its SQL for both databases (`impl_questions!`, instantiated in
//! `postgres.rs` and `sqlite.rs`; see `sql.rs` for what the two share).

use super::*;

/// Which pending questions a bulk ending ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PendingOf {
    /// Those held by replicas other than `alive` whose last heartbeat is older than
    /// `stale_before` (or that never beat).
    DeadReplicas { alive: Uuid, stale_before: OffsetDateTime },
    /// Those whose deadline passed before this time.
    ExpiredBefore(OffsetDateTime),
    /// Those of a server in an org (it was cut off).
    Server { org_id: Uuid, server_id: Uuid },
    /// Those this replica holds (it is shutting down).
    Replica(Uuid),
}

#[async_trait::async_trait]
pub trait Questions: Send + Sync {
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
    /// The user's questions the policy answered (or ended) since `since` whose note
    /// they have not dismissed, in every org, newest first, at most `limit`.
    async fn notes_of_user(
        &self,
        user_id: Uuid,
        since: OffsetDateTime,
        limit: u32,
    ) -> Result<Vec<Elicitation>>;
    /// Marks the note on one of the user's policy-answered questions dismissed;
    /// `false` when there is no such note (not theirs, not the policy's, already dismissed).
    async fn dismiss_note(&self, user_id: Uuid, id: Uuid, at: OffsetDateTime) -> Result<bool>;
    /// Ends, with `outcome`, every pending elicitation `which` names, at once; returns what
    /// it ended (each to be announced like any other ending).
    async fn end_pending(&self, which: PendingOf, outcome: &Outcome) -> Result<Vec<Elicitation>>;
    /// How many of the user's elicitations are pending in one org.
    async fn pending_count(&self, org_id: Uuid, user_id: Uuid) -> Result<i64>;
    /// What is pending across an org, per server, oldest group first (the admins' live view).
    async fn pending_by_server(&self, org_id: Uuid) -> Result<Vec<PendingGroup>>;
    /// Forgets the content of accepted answers resolved before `before` (retention).
    async fn purge_accepted_content(&self, org_id: Uuid, before: OffsetDateTime) -> Result<u64>;
}

macro_rules! impl_questions {
    ($store:ty, $db:ty) => {
        #[async_trait::async_trait]
        impl $crate::storage::questions::Questions for $store {
            async fn create_elicitation(&self, e: &$crate::storage::Elicitation) -> $crate::storage::Result<()> {
                use $crate::storage::DbTime;
                sqlx::query(
                    "INSERT INTO elicitations (id, org_id, org_slug, user_id, server_id, server_slug, server_name, \
                     server_url, tool, protocol, mode, message, requested_schema, url, status, replica_id, \
                     created_at, expires_at, fingerprint, policy_flags, action, content, decided_by, reason, \
                     resolved_at, asked_by) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $20, $15, $16, $17, \
                     $18, $19, $21, $22, $23, $24, $25, $26)",
                )
                .bind(e.id)
                .bind(e.org_id)
                .bind(&e.org_slug)
                .bind(e.user_id)
                .bind(e.server.id)
                .bind(&e.server.slug)
                .bind(&e.server.name)
                .bind(&e.server.url)
                .bind(&e.tool)
                .bind(e.protocol.as_str())
                .bind(e.mode.as_str())
                .bind(&e.message)
                .bind(e.requested_schema.as_ref().map(|schema| schema.to_string()))
                .bind(&e.url)
                .bind(e.replica_id)
                .bind(DbTime(e.created_at))
                .bind(DbTime(e.expires_at))
                .bind(&e.fingerprint)
                .bind(e.policy_flags.as_ref().map(sqlx::types::Json))
                .bind(if e.outcome.is_some() { "resolved" } else { "pending" })
                .bind(e.outcome.as_ref().map(|o| o.action.as_str()))
                .bind(e.outcome.as_ref().and_then(|o| o.content.as_ref()).map(sqlx::types::Json))
                .bind(e.outcome.as_ref().map(|o| o.decided_by.as_str()))
                .bind(e.outcome.as_ref().and_then(|o| o.reason).map(|r| r.as_str()))
                .bind(e.outcome.as_ref().map(|o| DbTime(o.resolved_at)))
                .bind(e.asked_by.as_str())
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn resolve_elicitation(
                &self,
                id: uuid::Uuid,
                outcome: &$crate::storage::Outcome,
            ) -> $crate::storage::Result<Option<$crate::storage::Elicitation>> {
                use $crate::storage::{rows::ElicitationRow, DbTime};
                let row: Option<ElicitationRow> = sqlx::query_as(concat!(
                    "UPDATE elicitations SET status = 'resolved', action = $2, content = $3, decided_by = $4, \
                     reason = $5, resolved_at = $6 WHERE id = $1 AND status = 'pending' RETURNING ",
                    $crate::storage::sql::elicitation_cols!()
                ))
                .bind(id)
                .bind(outcome.action.as_str())
                .bind(outcome.content.as_ref().map(sqlx::types::Json))
                .bind(outcome.decided_by.as_str())
                .bind(outcome.reason.map(|r| r.as_str()))
                .bind(DbTime(outcome.resolved_at))
                .fetch_optional(&self.pool)
                .await?;
                row.map(TryInto::try_into).transpose()
            }

            async fn elicitation_of_user(
                &self,
                user_id: uuid::Uuid,
                id: uuid::Uuid,
            ) -> $crate::storage::Result<Option<$crate::storage::Elicitation>> {
                let row: Option<$crate::storage::rows::ElicitationRow> = sqlx::query_as(concat!(
                    "SELECT ", $crate::storage::sql::elicitation_cols!(),
                    " FROM elicitations WHERE user_id = $1 AND id = $2"
                ))
                .bind(user_id)
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
                row.map(TryInto::try_into).transpose()
            }

            async fn elicitations(
                &self,
                org_id: uuid::Uuid,
                user_id: uuid::Uuid,
                query: &$crate::storage::ElicitationQuery,
            ) -> $crate::storage::Result<Vec<$crate::storage::Elicitation>> {
                let status = query.pending.map(|pending| if pending { "pending" } else { "resolved" });
                let rows: Vec<$crate::storage::rows::ElicitationRow> = sqlx::query_as(concat!(
                    "SELECT ", $crate::storage::sql::elicitation_cols!(),
                    " FROM elicitations WHERE org_id = $1 AND user_id = $2 \
                     AND ($3 IS NULL OR status = $3) AND ($4 IS NULL OR id < $4) \
                     ORDER BY id DESC LIMIT $5"
                ))
                .bind(org_id)
                .bind(user_id)
                .bind(status)
                .bind(query.before)
                .bind(i64::from(query.limit))
                .fetch_all(&self.pool)
                .await?;
                rows.into_iter().map(TryInto::try_into).collect()
            }

            async fn pending_elicitations_of_user(
                &self,
                user_id: uuid::Uuid,
            ) -> $crate::storage::Result<Vec<$crate::storage::Elicitation>> {
                let rows: Vec<$crate::storage::rows::ElicitationRow> = sqlx::query_as(concat!(
                    "SELECT ", $crate::storage::sql::elicitation_cols!(),
                    " FROM elicitations WHERE user_id = $1 AND status = 'pending' ORDER BY id"
                ))
                .bind(user_id)
                .fetch_all(&self.pool)
                .await?;
                rows.into_iter().map(TryInto::try_into).collect()
            }

            async fn notes_of_user(
                &self,
                user_id: uuid::Uuid,
                since: time::OffsetDateTime,
                limit: u32,
            ) -> $crate::storage::Result<Vec<$crate::storage::Elicitation>> {
                let rows: Vec<$crate::storage::rows::ElicitationRow> = sqlx::query_as(concat!(
                    "SELECT ", $crate::storage::sql::elicitation_cols!(),
                    " FROM elicitations WHERE user_id = $1 AND decided_by = 'policy' \
                     AND note_dismissed_at IS NULL AND resolved_at >= $2 \
                     ORDER BY resolved_at DESC, id DESC LIMIT $3"
                ))
                .bind(user_id)
                .bind($crate::storage::DbTime(since))
                .bind(i64::from(limit))
                .fetch_all(&self.pool)
                .await?;
                rows.into_iter().map(TryInto::try_into).collect()
            }

            async fn dismiss_note(
                &self,
                user_id: uuid::Uuid,
                id: uuid::Uuid,
                at: time::OffsetDateTime,
            ) -> $crate::storage::Result<bool> {
                let done = sqlx::query(
                    "UPDATE elicitations SET note_dismissed_at = $3 \
                     WHERE user_id = $1 AND id = $2 AND decided_by = 'policy' AND note_dismissed_at IS NULL",
                )
                .bind(user_id)
                .bind(id)
                .bind($crate::storage::DbTime(at))
                .execute(&self.pool)
                .await?;
                Ok(done.rows_affected() == 1)
            }

            async fn end_pending(
                &self,
                which: $crate::storage::questions::PendingOf,
                outcome: &$crate::storage::Outcome,
            ) -> $crate::storage::Result<Vec<$crate::storage::Elicitation>> {
                use $crate::storage::questions::PendingOf;
                use $crate::storage::sql::{elicitation_cols, end_pending_where};
                use $crate::storage::{rows::ElicitationRow, DbTime};
                // One UPDATE; only its filter (from `$5`) differs.
                let sql: &'static str = match which {
                    PendingOf::DeadReplicas { .. } => concat!(
                        end_pending_where!(),
                        "replica_id <> $5 AND replica_id NOT IN (SELECT id FROM replicas WHERE heartbeat_at >= $6) \
                         RETURNING ",
                        elicitation_cols!()
                    ),
                    PendingOf::ExpiredBefore(_) => {
                        concat!(end_pending_where!(), "expires_at < $5 RETURNING ", elicitation_cols!())
                    }
                    PendingOf::Server { .. } => {
                        concat!(end_pending_where!(), "org_id = $5 AND server_id = $6 RETURNING ", elicitation_cols!())
                    }
                    PendingOf::Replica(_) => concat!(end_pending_where!(), "replica_id = $5 RETURNING ", elicitation_cols!()),
                };
                let query = sqlx::query_as::<_, ElicitationRow>(sql)
                    .bind(outcome.action.as_str())
                    .bind(outcome.decided_by.as_str())
                    .bind(outcome.reason.map(|r| r.as_str()))
                    .bind(DbTime(outcome.resolved_at));
                let query = match which {
                    PendingOf::DeadReplicas { alive, stale_before } => query.bind(alive).bind(DbTime(stale_before)),
                    PendingOf::ExpiredBefore(before) => query.bind(DbTime(before)),
                    PendingOf::Server { org_id, server_id } => query.bind(org_id).bind(server_id),
                    PendingOf::Replica(replica_id) => query.bind(replica_id),
                };
                let rows = query.fetch_all(&self.pool).await?;
                rows.into_iter().map(TryInto::try_into).collect()
            }

            async fn pending_count(&self, org_id: uuid::Uuid, user_id: uuid::Uuid) -> $crate::storage::Result<i64> {
                Ok(sqlx::query_scalar(
                    "SELECT COUNT(*) FROM elicitations WHERE user_id = $1 AND org_id = $2 AND status = 'pending'",
                )
                .bind(user_id)
                .bind(org_id)
                .fetch_one(&self.pool)
                .await?)
            }

            async fn pending_by_server(
                &self,
                org_id: uuid::Uuid,
            ) -> $crate::storage::Result<Vec<$crate::storage::PendingGroup>> {
                // The registry name may have changed while questions were open: show the latest.
                let rows: Vec<$crate::storage::rows::PendingGroupRow> = sqlx::query_as(
                    "SELECT server_slug, MAX(server_name) AS server_name, COUNT(*) AS count, \
                            COUNT(DISTINCT user_id) AS people, MIN(created_at) AS oldest \
                     FROM elicitations WHERE org_id = $1 AND status = 'pending' \
                     GROUP BY server_slug ORDER BY MIN(created_at), server_slug",
                )
                .bind(org_id)
                .fetch_all(&self.pool)
                .await?;
                Ok(rows.into_iter().map(Into::into).collect())
            }

            async fn purge_accepted_content(
                &self,
                org_id: uuid::Uuid,
                before: time::OffsetDateTime,
            ) -> $crate::storage::Result<u64> {
                Ok(sqlx::query(
                    "UPDATE elicitations SET content = NULL \
                     WHERE org_id = $1 AND action = 'accept' AND content IS NOT NULL AND resolved_at < $2",
                )
                .bind(org_id)
                .bind($crate::storage::DbTime(before))
                .execute(&self.pool)
                .await?
                .rows_affected())
            }
        }
    };
}

pub(super) use impl_questions;
