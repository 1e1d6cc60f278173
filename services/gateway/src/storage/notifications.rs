//! What reaching people who are not looking reads and writes: presence (who
//! has a visible dashboard, per replica), people's notification preferences
//! and their organisations' defaults, organisations' webhooks, and the
//! deliveries outbox every replica sends from.
//!
//! The trait, and its SQL for both databases (`impl_notifications!`,
//! instantiated in `postgres.rs` and `sqlite.rs`).

use super::*;

/// How many webhooks one organisation may register.
pub const MAX_WEBHOOKS_PER_ORG: i64 = 10;
/// How long finished deliveries stay in the log (the janitor forgets older ones).
pub const DELIVERY_LOG_DAYS: i64 = 30;

/// A webhook as stored: the secret only sealed.
#[derive(Debug, Clone, PartialEq)]
pub struct Webhook {
    pub id: Uuid,
    pub org_id: Uuid,
    pub url: String,
    pub description: String,
    pub events: Vec<String>,
    pub secret_sealed: Vec<u8>,
    pub created_by: Option<Uuid>,
    pub created_at: OffsetDateTime,
    /// The newest delivery's status and time, when listed.
    pub last_delivery: Option<(String, OffsetDateTime)>,
}

/// One message to send, as it is queued.
#[derive(Debug, Clone, PartialEq)]
pub struct NewDelivery {
    pub id: Uuid,
    pub org_id: Uuid,
    pub channel: crate::domain::notification::NotifyChannel,
    pub webhook_id: Option<Uuid>,
    pub user_id: Option<Uuid>,
    /// The browser, for a push.
    pub push_device_id: Option<Uuid>,
    pub elicitation_id: Option<Uuid>,
    pub event: crate::domain::notification::NotifyEvent,
    pub payload: serde_json::Value,
    pub created_at: OffsetDateTime,
}

/// One delivery and how it went so far.
#[derive(Debug, Clone, PartialEq)]
pub struct Delivery {
    pub id: Uuid,
    pub org_id: Uuid,
    pub channel: String,
    pub webhook_id: Option<Uuid>,
    pub user_id: Option<Uuid>,
    pub push_device_id: Option<Uuid>,
    pub elicitation_id: Option<Uuid>,
    pub event: String,
    pub payload: serde_json::Value,
    pub status: String,
    pub attempts: i64,
    pub last_status: Option<i64>,
    pub last_error: Option<String>,
    pub next_attempt_at: Option<OffsetDateTime>,
    pub created_at: OffsetDateTime,
    pub delivered_at: Option<OffsetDateTime>,
}

/// How one attempt at a delivery ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Attempted {
    Delivered {
        status: Option<i64>,
        at: OffsetDateTime,
    },
    /// Not sent: what it was about is over (the question ended meanwhile).
    Withdrawn,
    /// Failed; tried again at `retry_at`, or given up on when `None`.
    Failed {
        status: Option<i64>,
        error: String,
        retry_at: Option<OffsetDateTime>,
    },
}

#[derive(sqlx::FromRow)]
pub(crate) struct WebhookRow {
    id: Uuid,
    org_id: Uuid,
    url: String,
    description: String,
    events: sqlx::types::Json<Vec<String>>,
    secret_sealed: Vec<u8>,
    created_by: Option<Uuid>,
    created_at: DbTime,
    last_status: Option<String>,
    last_at: Option<DbTime>,
}

impl From<WebhookRow> for Webhook {
    fn from(r: WebhookRow) -> Self {
        Webhook {
            id: r.id,
            org_id: r.org_id,
            url: r.url,
            description: r.description,
            events: r.events.0,
            secret_sealed: r.secret_sealed,
            created_by: r.created_by,
            created_at: r.created_at.0,
            last_delivery: r.last_status.zip(r.last_at.map(|t| t.0)),
        }
    }
}

#[derive(sqlx::FromRow)]
pub(crate) struct DeliveryRow {
    id: Uuid,
    org_id: Uuid,
    channel: String,
    webhook_id: Option<Uuid>,
    user_id: Option<Uuid>,
    push_device_id: Option<Uuid>,
    elicitation_id: Option<Uuid>,
    event: String,
    payload: sqlx::types::Json<serde_json::Value>,
    status: String,
    attempts: i64,
    last_status: Option<i64>,
    last_error: Option<String>,
    next_attempt_at: Option<DbTime>,
    created_at: DbTime,
    delivered_at: Option<DbTime>,
}

impl From<DeliveryRow> for Delivery {
    fn from(r: DeliveryRow) -> Self {
        Delivery {
            id: r.id,
            org_id: r.org_id,
            channel: r.channel,
            webhook_id: r.webhook_id,
            user_id: r.user_id,
            push_device_id: r.push_device_id,
            elicitation_id: r.elicitation_id,
            event: r.event,
            payload: r.payload.0,
            status: r.status,
            attempts: r.attempts,
            last_status: r.last_status,
            last_error: r.last_error,
            next_attempt_at: r.next_attempt_at.map(|t| t.0),
            created_at: r.created_at.0,
            delivered_at: r.delivered_at.map(|t| t.0),
        }
    }
}

#[async_trait::async_trait]
pub trait Notifications: Send + Sync {
    /// Records whether `user_id` has a visible dashboard on `replica_id`.
    async fn set_presence(
        &self,
        user_id: Uuid,
        replica_id: Uuid,
        looking: bool,
        now: OffsetDateTime,
    ) -> Result<()>;
    /// Whether `user_id` has a visible dashboard on a replica other than
    /// `besides` that has beaten since `alive_since`.
    async fn looking_elsewhere(
        &self,
        user_id: Uuid,
        besides: Uuid,
        alive_since: OffsetDateTime,
    ) -> Result<bool>;
    /// Forgets a replica's presence rows (it is stopping, or dead).
    async fn clear_presence(&self, replica_id: Uuid) -> Result<()>;

    async fn notification_prefs(&self, user_id: Uuid) -> Result<Option<serde_json::Value>>;
    async fn put_notification_prefs(
        &self,
        user_id: Uuid,
        document: &serde_json::Value,
        now: OffsetDateTime,
    ) -> Result<()>;
    async fn org_notification_defaults(&self, org_id: Uuid) -> Result<Option<StoredPolicy>>;
    /// Stores the org's defaults and returns the document they replaced.
    async fn put_org_notification_defaults(
        &self,
        org_id: Uuid,
        document: &serde_json::Value,
        by: Uuid,
        now: OffsetDateTime,
    ) -> Result<Option<serde_json::Value>>;

    /// The org's webhooks, oldest first, each with its newest delivery.
    async fn webhooks(&self, org_id: Uuid) -> Result<Vec<Webhook>>;
    async fn webhook(&self, org_id: Uuid, id: Uuid) -> Result<Option<Webhook>>;
    /// Adds a webhook; `Conflict::TooManyWebhooks` when the org has its maximum.
    async fn create_webhook(&self, webhook: &Webhook) -> Result<()>;
    async fn delete_webhook(&self, org_id: Uuid, id: Uuid) -> Result<bool>;
    async fn set_webhook_secret(&self, org_id: Uuid, id: Uuid, sealed: &[u8]) -> Result<bool>;

    /// Queues deliveries, due at once.
    async fn enqueue_deliveries(&self, deliveries: &[NewDelivery]) -> Result<()>;
    /// Claims up to `limit` due deliveries for `replica_id` until `until`:
    /// one replica sends each, and a replica that dies with a claim lets it lapse.
    async fn claim_deliveries(
        &self,
        replica_id: Uuid,
        now: OffsetDateTime,
        until: OffsetDateTime,
        limit: i64,
    ) -> Result<Vec<Delivery>>;
    /// Records how an attempt went and gives up the claim.
    async fn finish_delivery(&self, id: Uuid, attempted: &Attempted) -> Result<()>;
    /// The question ended: its e-mails and pushes not yet sent are not sent.
    async fn withdraw_deliveries(&self, elicitation_id: Uuid) -> Result<u64>;
    /// The org's deliveries, newest first (of one webhook, when given).
    async fn deliveries(&self, org_id: Uuid, webhook_id: Option<Uuid>, limit: i64) -> Result<Vec<Delivery>>;
    /// Records through which channel a person's answer to `elicitation_id` came.
    async fn set_answered_via(&self, elicitation_id: Uuid, via: &str) -> Result<()>;
    /// One of the org's deliveries.
    async fn delivery(&self, org_id: Uuid, id: Uuid) -> Result<Option<Delivery>>;
    /// The latest delivery to `user_id` through `channel` that was tried at least once.
    async fn latest_to_person(&self, user_id: Uuid, channel: &str) -> Result<Option<Delivery>>;
    /// Forgets finished deliveries (delivered, failed, withdrawn) made before `before`.
    async fn purge_deliveries(&self, before: OffsetDateTime) -> Result<u64>;
    /// Queues a delivery that failed (or was delivered) again, due at once.
    async fn redeliver(&self, org_id: Uuid, id: Uuid, now: OffsetDateTime) -> Result<Option<Delivery>>;
}

macro_rules! delivery_cols {
    () => {
        "id, org_id, channel, webhook_id, user_id, push_device_id, elicitation_id, event, payload, status, \
         attempts, last_status, last_error, next_attempt_at, created_at, delivered_at"
    };
}
pub(crate) use delivery_cols;

macro_rules! webhook_select {
    () => {
        "SELECT w.id, w.org_id, w.url, w.description, w.events, w.secret_sealed, w.created_by, w.created_at, \
         (SELECT d.status FROM notification_deliveries d WHERE d.webhook_id = w.id \
          ORDER BY d.created_at DESC LIMIT 1) AS last_status, \
         (SELECT d.created_at FROM notification_deliveries d WHERE d.webhook_id = w.id \
          ORDER BY d.created_at DESC LIMIT 1) AS last_at \
         FROM webhooks w "
    };
}
pub(crate) use webhook_select;

macro_rules! impl_notifications {
    ($store:ty, $db:ty) => {
        #[async_trait::async_trait]
        impl $crate::storage::notifications::Notifications for $store {
            async fn set_presence(
                &self,
                user_id: uuid::Uuid,
                replica_id: uuid::Uuid,
                looking: bool,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<()> {
                if looking {
                    sqlx::query(
                        "INSERT INTO presence (user_id, replica_id, updated_at) VALUES ($1, $2, $3) \
                         ON CONFLICT (user_id, replica_id) DO UPDATE SET updated_at = excluded.updated_at",
                    )
                    .bind(user_id)
                    .bind(replica_id)
                    .bind($crate::storage::DbTime(now))
                    .execute(&self.pool)
                    .await?;
                } else {
                    sqlx::query("DELETE FROM presence WHERE user_id = $1 AND replica_id = $2")
                        .bind(user_id)
                        .bind(replica_id)
                        .execute(&self.pool)
                        .await?;
                }
                Ok(())
            }

            async fn looking_elsewhere(
                &self,
                user_id: uuid::Uuid,
                besides: uuid::Uuid,
                alive_since: time::OffsetDateTime,
            ) -> $crate::storage::Result<bool> {
                let found: Option<uuid::Uuid> = sqlx::query_scalar(
                    "SELECT p.replica_id FROM presence p JOIN replicas r ON r.id = p.replica_id \
                     WHERE p.user_id = $1 AND p.replica_id <> $2 AND r.heartbeat_at >= $3 LIMIT 1",
                )
                .bind(user_id)
                .bind(besides)
                .bind($crate::storage::DbTime(alive_since))
                .fetch_optional(&self.pool)
                .await?;
                Ok(found.is_some())
            }

            async fn clear_presence(&self, replica_id: uuid::Uuid) -> $crate::storage::Result<()> {
                sqlx::query("DELETE FROM presence WHERE replica_id = $1").bind(replica_id).execute(&self.pool).await?;
                Ok(())
            }

            async fn notification_prefs(
                &self,
                user_id: uuid::Uuid,
            ) -> $crate::storage::Result<Option<serde_json::Value>> {
                let doc: Option<sqlx::types::Json<serde_json::Value>> =
                    sqlx::query_scalar("SELECT document FROM notification_prefs WHERE user_id = $1")
                        .bind(user_id)
                        .fetch_optional(&self.pool)
                        .await?;
                Ok(doc.map(|d| d.0))
            }

            async fn put_notification_prefs(
                &self,
                user_id: uuid::Uuid,
                document: &serde_json::Value,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<()> {
                sqlx::query(
                    "INSERT INTO notification_prefs (user_id, document, updated_at) VALUES ($1, $2, $3) \
                     ON CONFLICT (user_id) DO UPDATE SET document = excluded.document, updated_at = excluded.updated_at",
                )
                .bind(user_id)
                .bind(sqlx::types::Json(document))
                .bind($crate::storage::DbTime(now))
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn org_notification_defaults(
                &self,
                org_id: uuid::Uuid,
            ) -> $crate::storage::Result<Option<$crate::storage::StoredPolicy>> {
                let row: Option<$crate::storage::rows::PolicyRow> = sqlx::query_as(
                    "SELECT document, updated_at, updated_by FROM org_notification_defaults WHERE org_id = $1",
                )
                .bind(org_id)
                .fetch_optional(&self.pool)
                .await?;
                Ok(row.map(Into::into))
            }

            async fn put_org_notification_defaults(
                &self,
                org_id: uuid::Uuid,
                document: &serde_json::Value,
                by: uuid::Uuid,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<Option<serde_json::Value>> {
                let mut tx = self.begin_write().await?;
                sqlx::query(Self::LOCK_ORG).bind(org_id).execute(&mut *tx).await?;
                let previous: Option<sqlx::types::Json<serde_json::Value>> =
                    sqlx::query_scalar("SELECT document FROM org_notification_defaults WHERE org_id = $1")
                        .bind(org_id)
                        .fetch_optional(&mut *tx)
                        .await?;
                sqlx::query(
                    "INSERT INTO org_notification_defaults (org_id, document, updated_at, updated_by) \
                     VALUES ($1, $2, $3, $4) ON CONFLICT (org_id) DO UPDATE SET document = excluded.document, \
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

            async fn webhooks(
                &self,
                org_id: uuid::Uuid,
            ) -> $crate::storage::Result<Vec<$crate::storage::notifications::Webhook>> {
                let rows: Vec<$crate::storage::notifications::WebhookRow> = sqlx::query_as(concat!(
                    $crate::storage::notifications::webhook_select!(),
                    "WHERE w.org_id = $1 ORDER BY w.created_at, w.id"
                ))
                .bind(org_id)
                .fetch_all(&self.pool)
                .await?;
                Ok(rows.into_iter().map(Into::into).collect())
            }

            async fn webhook(
                &self,
                org_id: uuid::Uuid,
                id: uuid::Uuid,
            ) -> $crate::storage::Result<Option<$crate::storage::notifications::Webhook>> {
                let row: Option<$crate::storage::notifications::WebhookRow> = sqlx::query_as(concat!(
                    $crate::storage::notifications::webhook_select!(),
                    "WHERE w.org_id = $1 AND w.id = $2"
                ))
                .bind(org_id)
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
                Ok(row.map(Into::into))
            }

            async fn create_webhook(
                &self,
                webhook: &$crate::storage::notifications::Webhook,
            ) -> $crate::storage::Result<()> {
                let mut tx = self.begin_write().await?;
                // Counted with the org locked, so two admins adding at once cannot pass the cap.
                sqlx::query(Self::LOCK_ORG).bind(webhook.org_id).execute(&mut *tx).await?;
                let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM webhooks WHERE org_id = $1")
                    .bind(webhook.org_id)
                    .fetch_one(&mut *tx)
                    .await?;
                if count >= $crate::storage::notifications::MAX_WEBHOOKS_PER_ORG {
                    return Err($crate::storage::StoreError::Conflict($crate::storage::Conflict::TooManyWebhooks));
                }
                sqlx::query(
                    "INSERT INTO webhooks (id, org_id, url, description, events, secret_sealed, created_by, created_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                )
                .bind(webhook.id)
                .bind(webhook.org_id)
                .bind(&webhook.url)
                .bind(&webhook.description)
                .bind(sqlx::types::Json(&webhook.events))
                .bind(&webhook.secret_sealed)
                .bind(webhook.created_by)
                .bind($crate::storage::DbTime(webhook.created_at))
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
                Ok(())
            }

            async fn delete_webhook(&self, org_id: uuid::Uuid, id: uuid::Uuid) -> $crate::storage::Result<bool> {
                let done = sqlx::query("DELETE FROM webhooks WHERE org_id = $1 AND id = $2")
                    .bind(org_id)
                    .bind(id)
                    .execute(&self.pool)
                    .await?;
                Ok(done.rows_affected() > 0)
            }

            async fn set_webhook_secret(
                &self,
                org_id: uuid::Uuid,
                id: uuid::Uuid,
                sealed: &[u8],
            ) -> $crate::storage::Result<bool> {
                let done = sqlx::query("UPDATE webhooks SET secret_sealed = $3 WHERE org_id = $1 AND id = $2")
                    .bind(org_id)
                    .bind(id)
                    .bind(sealed)
                    .execute(&self.pool)
                    .await?;
                Ok(done.rows_affected() > 0)
            }

            async fn enqueue_deliveries(
                &self,
                deliveries: &[$crate::storage::notifications::NewDelivery],
            ) -> $crate::storage::Result<()> {
                if deliveries.is_empty() {
                    return Ok(());
                }
                let mut tx = self.begin_write().await?;
                for d in deliveries {
                    sqlx::query(
                        "INSERT INTO notification_deliveries (id, org_id, channel, webhook_id, user_id, \
                         push_device_id, elicitation_id, event, payload, status, attempts, next_attempt_at, \
                         created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'pending', 0, $10, $10)",
                    )
                    .bind(d.id)
                    .bind(d.org_id)
                    .bind(d.channel.as_str())
                    .bind(d.webhook_id)
                    .bind(d.user_id)
                    .bind(d.push_device_id)
                    .bind(d.elicitation_id)
                    .bind(d.event.as_str())
                    .bind(sqlx::types::Json(&d.payload))
                    .bind($crate::storage::DbTime(d.created_at))
                    .execute(&mut *tx)
                    .await?;
                }
                tx.commit().await?;
                Ok(())
            }

            async fn claim_deliveries(
                &self,
                replica_id: uuid::Uuid,
                now: time::OffsetDateTime,
                until: time::OffsetDateTime,
                limit: i64,
            ) -> $crate::storage::Result<Vec<$crate::storage::notifications::Delivery>> {
                // The condition is repeated outside the sub-select: on PostgreSQL a row another
                // replica claimed meanwhile is re-checked after its lock and skipped.
                let rows: Vec<$crate::storage::notifications::DeliveryRow> = sqlx::query_as(concat!(
                    "UPDATE notification_deliveries SET claimed_by = $1, claimed_until = $3 \
                     WHERE id IN (SELECT id FROM notification_deliveries WHERE status = 'pending' \
                       AND next_attempt_at <= $2 AND (claimed_until IS NULL OR claimed_until < $2) \
                       ORDER BY next_attempt_at LIMIT $4) \
                     AND status = 'pending' AND (claimed_until IS NULL OR claimed_until < $2) \
                     RETURNING ",
                    $crate::storage::notifications::delivery_cols!()
                ))
                .bind(replica_id)
                .bind($crate::storage::DbTime(now))
                .bind($crate::storage::DbTime(until))
                .bind(limit)
                .fetch_all(&self.pool)
                .await?;
                Ok(rows.into_iter().map(Into::into).collect())
            }

            async fn finish_delivery(
                &self,
                id: uuid::Uuid,
                attempted: &$crate::storage::notifications::Attempted,
            ) -> $crate::storage::Result<()> {
                use $crate::storage::notifications::Attempted;
                let (status, last_status, last_error, next, delivered) = match attempted {
                    // Not an attempt: the last one's status and error stay.
                    Attempted::Withdrawn => {
                        sqlx::query(
                            "UPDATE notification_deliveries SET status = 'withdrawn', next_attempt_at = NULL, \
                             claimed_by = NULL, claimed_until = NULL WHERE id = $1 AND status = 'pending'",
                        )
                        .bind(id)
                        .execute(&self.pool)
                        .await?;
                        return Ok(());
                    }
                    Attempted::Delivered { status, at } => ("delivered", *status, None, None, Some(*at)),
                    Attempted::Failed { status, error, retry_at: Some(at) } => {
                        ("pending", *status, Some(error.as_str()), Some(*at), None)
                    }
                    Attempted::Failed { status, error, retry_at: None } => {
                        ("failed", *status, Some(error.as_str()), None, None)
                    }
                };
                // A withdrawn delivery stays withdrawn.
                sqlx::query(
                    "UPDATE notification_deliveries SET status = $2, attempts = attempts + 1, last_status = $3, \
                     last_error = $4, next_attempt_at = $5, delivered_at = $6, claimed_by = NULL, claimed_until = NULL \
                     WHERE id = $1 AND status = 'pending'",
                )
                .bind(id)
                .bind(status)
                .bind(last_status)
                .bind(last_error)
                .bind(next.map($crate::storage::DbTime))
                .bind(delivered.map($crate::storage::DbTime))
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn withdraw_deliveries(&self, elicitation_id: uuid::Uuid) -> $crate::storage::Result<u64> {
                let done = sqlx::query(
                    "UPDATE notification_deliveries SET status = 'withdrawn', next_attempt_at = NULL \
                     WHERE elicitation_id = $1 AND channel IN ('email', 'push') AND status = 'pending' \
                     AND claimed_by IS NULL",
                )
                .bind(elicitation_id)
                .execute(&self.pool)
                .await?;
                Ok(done.rows_affected())
            }

            async fn deliveries(
                &self,
                org_id: uuid::Uuid,
                webhook_id: Option<uuid::Uuid>,
                limit: i64,
            ) -> $crate::storage::Result<Vec<$crate::storage::notifications::Delivery>> {
                let rows: Vec<$crate::storage::notifications::DeliveryRow> = sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::notifications::delivery_cols!(),
                    " FROM notification_deliveries WHERE org_id = $1 AND channel = 'webhook' \
                     AND ($2 IS NULL OR webhook_id = $2) ORDER BY created_at DESC, id DESC LIMIT $3"
                ))
                .bind(org_id)
                .bind(webhook_id)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?;
                Ok(rows.into_iter().map(Into::into).collect())
            }

            async fn delivery(
                &self,
                org_id: uuid::Uuid,
                id: uuid::Uuid,
            ) -> $crate::storage::Result<Option<$crate::storage::notifications::Delivery>> {
                let row: Option<$crate::storage::notifications::DeliveryRow> = sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::notifications::delivery_cols!(),
                    " FROM notification_deliveries WHERE org_id = $1 AND id = $2"
                ))
                .bind(org_id)
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
                Ok(row.map(Into::into))
            }

            async fn latest_to_person(
                &self,
                user_id: uuid::Uuid,
                channel: &str,
            ) -> $crate::storage::Result<Option<$crate::storage::notifications::Delivery>> {
                let row: Option<$crate::storage::notifications::DeliveryRow> = sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::notifications::delivery_cols!(),
                    " FROM notification_deliveries WHERE user_id = $1 AND channel = $2 AND attempts > 0 \
                     ORDER BY created_at DESC, id DESC LIMIT 1"
                ))
                .bind(user_id)
                .bind(channel)
                .fetch_optional(&self.pool)
                .await?;
                Ok(row.map(Into::into))
            }

            async fn purge_deliveries(&self, before: time::OffsetDateTime) -> $crate::storage::Result<u64> {
                let done = sqlx::query(
                    "DELETE FROM notification_deliveries WHERE status <> 'pending' AND created_at < $1",
                )
                .bind($crate::storage::DbTime(before))
                .execute(&self.pool)
                .await?;
                Ok(done.rows_affected())
            }

            async fn set_answered_via(&self, elicitation_id: uuid::Uuid, via: &str) -> $crate::storage::Result<()> {
                sqlx::query("UPDATE elicitations SET answered_via = $2 WHERE id = $1")
                    .bind(elicitation_id)
                    .bind(via)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn redeliver(
                &self,
                org_id: uuid::Uuid,
                id: uuid::Uuid,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<Option<$crate::storage::notifications::Delivery>> {
                let row: Option<$crate::storage::notifications::DeliveryRow> = sqlx::query_as(concat!(
                    "UPDATE notification_deliveries SET status = 'pending', next_attempt_at = $3, \
                     claimed_by = NULL, claimed_until = NULL, delivered_at = NULL \
                     WHERE org_id = $1 AND id = $2 AND channel = 'webhook' AND status IN ('failed', 'delivered') \
                     RETURNING ",
                    $crate::storage::notifications::delivery_cols!()
                ))
                .bind(org_id)
                .bind(id)
                .bind($crate::storage::DbTime(now))
                .fetch_optional(&self.pool)
                .await?;
                Ok(row.map(Into::into))
            }
        }
    };
}
pub(crate) use impl_notifications;
