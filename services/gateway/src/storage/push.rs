//! The browsers people turned push notifications on in: one Web Push
//! subscription each, sealed (whoever holds it can notify the person).
//!
//! The trait, and its SQL for both databases (`impl_push_devices!`,
//! instantiated in `postgres.rs` and `sqlite.rs`).

use super::*;

/// How many browsers one person may receive push notifications in.
pub const MAX_PUSH_DEVICES_PER_PERSON: i64 = 10;

/// A browser subscription as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct PushDevice {
    pub id: Uuid,
    pub user_id: Uuid,
    /// SHA-256 of the endpoint.
    pub endpoint_hash: Vec<u8>,
    /// The push service's host.
    pub push_service: String,
    pub name: String,
    /// The endpoint and the browser's keys, sealed (see `notify::push`).
    pub subscription_sealed: Vec<u8>,
    pub created_at: OffsetDateTime,
    pub last_sent_at: Option<OffsetDateTime>,
    pub last_error: Option<String>,
}

/// Whether a stored subscription was new, and the row as it is now.
#[derive(Debug, Clone, PartialEq)]
pub struct PutDevice {
    pub created: bool,
    pub device: PushDevice,
}

#[derive(sqlx::FromRow)]
pub(crate) struct PushDeviceRow {
    id: Uuid,
    user_id: Uuid,
    endpoint_hash: Vec<u8>,
    push_service: String,
    name: String,
    subscription_sealed: Vec<u8>,
    created_at: DbTime,
    last_sent_at: Option<DbTime>,
    last_error: Option<String>,
}

impl From<PushDeviceRow> for PushDevice {
    fn from(r: PushDeviceRow) -> Self {
        PushDevice {
            id: r.id,
            user_id: r.user_id,
            endpoint_hash: r.endpoint_hash,
            push_service: r.push_service,
            name: r.name,
            subscription_sealed: r.subscription_sealed,
            created_at: r.created_at.0,
            last_sent_at: r.last_sent_at.map(|t| t.0),
            last_error: r.last_error,
        }
    }
}

#[async_trait::async_trait]
pub trait PushDevices: Send + Sync {
    /// Stores a subscription for `device.user_id`. The same endpoint again
    /// updates that row (new keys, new name); an endpoint another person
    /// registered moves to this one, leaving nothing of theirs behind.
    /// `Conflict::TooManyDevices` past the per-person maximum.
    async fn put_push_device(&self, device: &PushDevice) -> Result<PutDevice>;
    /// A person's devices, oldest first.
    async fn push_devices(&self, user_id: Uuid) -> Result<Vec<PushDevice>>;
    async fn push_device(&self, id: Uuid) -> Result<Option<PushDevice>>;
    /// Removes one of `user_id`'s devices (and its unsent messages).
    async fn delete_push_device(&self, user_id: Uuid, id: Uuid) -> Result<bool>;
    /// Forgets a device the push service no longer knows (404 or 410).
    async fn drop_push_device(&self, id: Uuid) -> Result<()>;
    /// Records how the latest message to a device went (`error: None`: it was accepted).
    async fn record_push(&self, id: Uuid, at: OffsetDateTime, error: Option<&str>) -> Result<()>;
    /// The devices a question was pushed to, or is being pushed to (so its
    /// ending can replace the notification).
    async fn pushed_devices(&self, elicitation_id: Uuid) -> Result<Vec<Uuid>>;
}

macro_rules! push_device_cols {
    () => {
        "id, user_id, endpoint_hash, push_service, name, subscription_sealed, created_at, last_sent_at, last_error"
    };
}
pub(crate) use push_device_cols;

macro_rules! impl_push_devices {
    ($store:ty, $db:ty) => {
        #[async_trait::async_trait]
        impl $crate::storage::push::PushDevices for $store {
            async fn put_push_device(
                &self,
                device: &$crate::storage::push::PushDevice,
            ) -> $crate::storage::Result<$crate::storage::push::PutDevice> {
                let mut tx = self.begin_write().await?;
                // Someone else's row for this browser goes, with whatever it still had queued.
                sqlx::query("DELETE FROM push_devices WHERE endpoint_hash = $1 AND user_id <> $2")
                    .bind(&device.endpoint_hash)
                    .bind(device.user_id)
                    .execute(&mut *tx)
                    .await?;
                let existing: Option<uuid::Uuid> =
                    sqlx::query_scalar("SELECT id FROM push_devices WHERE endpoint_hash = $1")
                        .bind(&device.endpoint_hash)
                        .fetch_optional(&mut *tx)
                        .await?;
                let row: $crate::storage::push::PushDeviceRow = match existing {
                    Some(id) => {
                        sqlx::query_as(concat!(
                            "UPDATE push_devices SET name = $2, subscription_sealed = $3, last_error = NULL \
                             WHERE id = $1 RETURNING ",
                            $crate::storage::push::push_device_cols!()
                        ))
                        .bind(id)
                        .bind(&device.name)
                        .bind(&device.subscription_sealed)
                        .fetch_one(&mut *tx)
                        .await?
                    }
                    None => {
                        let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM push_devices WHERE user_id = $1")
                            .bind(device.user_id)
                            .fetch_one(&mut *tx)
                            .await?;
                        if count >= $crate::storage::push::MAX_PUSH_DEVICES_PER_PERSON {
                            return Err($crate::storage::StoreError::Conflict(
                                $crate::storage::Conflict::TooManyDevices,
                            ));
                        }
                        sqlx::query_as(concat!(
                            "INSERT INTO push_devices (id, user_id, endpoint_hash, push_service, name, \
                             subscription_sealed, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ",
                            $crate::storage::push::push_device_cols!()
                        ))
                        .bind(device.id)
                        .bind(device.user_id)
                        .bind(&device.endpoint_hash)
                        .bind(&device.push_service)
                        .bind(&device.name)
                        .bind(&device.subscription_sealed)
                        .bind($crate::storage::DbTime(device.created_at))
                        .fetch_one(&mut *tx)
                        .await?
                    }
                };
                tx.commit().await?;
                Ok($crate::storage::push::PutDevice { created: existing.is_none(), device: row.into() })
            }

            async fn push_devices(
                &self,
                user_id: uuid::Uuid,
            ) -> $crate::storage::Result<Vec<$crate::storage::push::PushDevice>> {
                let rows: Vec<$crate::storage::push::PushDeviceRow> = sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::push::push_device_cols!(),
                    " FROM push_devices WHERE user_id = $1 ORDER BY created_at, id"
                ))
                .bind(user_id)
                .fetch_all(&self.pool)
                .await?;
                Ok(rows.into_iter().map(Into::into).collect())
            }

            async fn push_device(
                &self,
                id: uuid::Uuid,
            ) -> $crate::storage::Result<Option<$crate::storage::push::PushDevice>> {
                let row: Option<$crate::storage::push::PushDeviceRow> = sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::push::push_device_cols!(),
                    " FROM push_devices WHERE id = $1"
                ))
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
                Ok(row.map(Into::into))
            }

            async fn delete_push_device(&self, user_id: uuid::Uuid, id: uuid::Uuid) -> $crate::storage::Result<bool> {
                let done = sqlx::query("DELETE FROM push_devices WHERE user_id = $1 AND id = $2")
                    .bind(user_id)
                    .bind(id)
                    .execute(&self.pool)
                    .await?;
                Ok(done.rows_affected() > 0)
            }

            async fn drop_push_device(&self, id: uuid::Uuid) -> $crate::storage::Result<()> {
                sqlx::query("DELETE FROM push_devices WHERE id = $1").bind(id).execute(&self.pool).await?;
                Ok(())
            }

            async fn record_push(
                &self,
                id: uuid::Uuid,
                at: time::OffsetDateTime,
                error: Option<&str>,
            ) -> $crate::storage::Result<()> {
                // An accepted message clears the last error; a failure keeps the last success's time.
                sqlx::query(
                    "UPDATE push_devices SET last_error = $3, \
                     last_sent_at = CASE WHEN $3 IS NULL THEN $2 ELSE last_sent_at END WHERE id = $1",
                )
                .bind(id)
                .bind($crate::storage::DbTime(at))
                .bind(error)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn pushed_devices(&self, elicitation_id: uuid::Uuid) -> $crate::storage::Result<Vec<uuid::Uuid>> {
                let ids: Vec<uuid::Uuid> = sqlx::query_scalar(
                    "SELECT DISTINCT push_device_id FROM notification_deliveries \
                     WHERE elicitation_id = $1 AND channel = 'push' AND push_device_id IS NOT NULL \
                     AND (status = 'delivered' OR (status = 'pending' AND claimed_by IS NOT NULL))",
                )
                .bind(elicitation_id)
                .fetch_all(&self.pool)
                .await?;
                Ok(ids)
            }
        }
    };
}
pub(crate) use impl_push_devices;
