//! The registry of remote MCP servers, per organisation.
//!
//! The trait, and its SQL for both databases (`impl_servers!`, instantiated in
//! `postgres.rs` and `sqlite.rs`; see `sql.rs` for what the two share).

use super::*;

#[async_trait::async_trait]
pub trait Servers: Send + Sync {
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
}

macro_rules! impl_servers {
    ($store:ty, $db:ty) => {
        #[async_trait::async_trait]
        impl $crate::storage::servers::Servers for $store {
            async fn create_server(
                &self,
                org_id: uuid::Uuid,
                server: $crate::storage::NewServer,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<$crate::storage::Server> {
                use $crate::storage::{rows::ServerRow, sql::unique_means, Conflict, DbTime};
                let row: ServerRow = sqlx::query_as(concat!(
                    "INSERT INTO servers (id, org_id, slug, name, url, header_names, headers_sealed, created_at, updated_at, \
                     protocol, auth_mode, oauth_client_id, oauth_client_secret_sealed, oauth_client_issuer) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9, $10, $11, $12, $13) RETURNING ",
                    $crate::storage::sql::server_cols!()
                ))
                .bind(server.id)
                .bind(org_id)
                .bind(&server.slug)
                .bind(&server.name)
                .bind(&server.url)
                .bind(sqlx::types::Json(&server.header_names))
                .bind(&server.headers_sealed)
                .bind(DbTime(now))
                .bind(server.protocol.as_str())
                .bind(server.auth_mode.as_str())
                .bind(server.oauth_client.as_ref().map(|c| c.client_id.clone()))
                .bind(server.oauth_client.as_ref().and_then(|c| c.secret_sealed.clone()))
                .bind(server.oauth_client.as_ref().and_then(|c| c.issuer.clone()))
                .fetch_one(&self.pool)
                .await
                .map_err(unique_means(Conflict::ServerSlugTaken))?;
                Ok(row.into())
            }

            async fn servers(&self, org_id: uuid::Uuid) -> $crate::storage::Result<Vec<$crate::storage::Server>> {
                let rows: Vec<$crate::storage::rows::ServerRow> =
                    sqlx::query_as(concat!("SELECT ", $crate::storage::sql::server_cols!(), " FROM servers WHERE org_id = $1 ORDER BY slug"))
                        .bind(org_id)
                        .fetch_all(&self.pool)
                        .await?;
                Ok(rows.into_iter().map(Into::into).collect())
            }

            async fn server(&self, org_id: uuid::Uuid, slug: &str) -> $crate::storage::Result<Option<$crate::storage::Server>> {
                let row: Option<$crate::storage::rows::ServerRow> =
                    sqlx::query_as(concat!("SELECT ", $crate::storage::sql::server_cols!(), " FROM servers WHERE org_id = $1 AND slug = $2"))
                        .bind(org_id)
                        .bind(slug)
                        .fetch_optional(&self.pool)
                        .await?;
                Ok(row.map(Into::into))
            }

            async fn update_server(
                &self,
                org_id: uuid::Uuid,
                slug: &str,
                changes: $crate::storage::ServerChanges,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<$crate::storage::Server> {
                use $crate::storage::{rows::ServerRow, DbTime, StoreError};
                let (names, sealed) = changes.headers.unzip();
                let row: Option<ServerRow> = sqlx::query_as(concat!(
                    "UPDATE servers SET name = COALESCE($3, name), url = COALESCE($4, url), \
                     header_names = COALESCE($5, header_names), headers_sealed = COALESCE($6, headers_sealed), \
                     protocol = COALESCE($8, protocol), auth_mode = COALESCE($9, auth_mode), \
                     oauth_client_id = CASE WHEN $10 THEN $11 ELSE oauth_client_id END, \
                     oauth_client_secret_sealed = CASE WHEN $10 THEN $12 ELSE oauth_client_secret_sealed END, \
                     oauth_client_issuer = CASE WHEN $10 THEN $13 ELSE oauth_client_issuer END, \
                     updated_at = $7 WHERE org_id = $1 AND slug = $2 RETURNING ",
                    $crate::storage::sql::server_cols!()
                ))
                .bind(org_id)
                .bind(slug)
                .bind(changes.name)
                .bind(changes.url)
                .bind(names.map(sqlx::types::Json))
                .bind(sealed)
                .bind(DbTime(now))
                .bind(changes.protocol.map(|p| p.as_str()))
                .bind(changes.auth_mode.map(|m| m.as_str()))
                .bind(changes.oauth_client.is_some())
                .bind(changes.oauth_client.as_ref().and_then(|c| c.as_ref().map(|c| c.client_id.clone())))
                .bind(changes.oauth_client.as_ref().and_then(|c| c.as_ref().and_then(|c| c.secret_sealed.clone())))
                .bind(changes.oauth_client.as_ref().and_then(|c| c.as_ref().and_then(|c| c.issuer.clone())))
                .fetch_optional(&self.pool)
                .await?;
                row.map(Into::into).ok_or(StoreError::NotFound)
            }

            async fn set_cut_off(
                &self,
                org_id: uuid::Uuid,
                slug: &str,
                cut_off: Option<$crate::storage::CutOff>,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<$crate::storage::Server> {
                use $crate::storage::{rows::ServerRow, DbTime, StoreError};
                let row: Option<ServerRow> = sqlx::query_as(concat!(
                    "UPDATE servers SET cut_off_at = $3, cut_off_by = $4, cut_off_reason = $5, updated_at = $6 \
                     WHERE org_id = $1 AND slug = $2 RETURNING ",
                    $crate::storage::sql::server_cols!()
                ))
                .bind(org_id)
                .bind(slug)
                .bind(cut_off.as_ref().map(|c| DbTime(c.at)))
                .bind(cut_off.as_ref().and_then(|c| c.by))
                .bind(cut_off.as_ref().map(|c| c.reason.clone()))
                .bind(DbTime(now))
                .fetch_optional(&self.pool)
                .await?;
                row.map(Into::into).ok_or(StoreError::NotFound)
            }

            async fn delete_server(&self, org_id: uuid::Uuid, slug: &str) -> $crate::storage::Result<()> {
                let deleted = sqlx::query("DELETE FROM servers WHERE org_id = $1 AND slug = $2")
                    .bind(org_id)
                    .bind(slug)
                    .execute(&self.pool)
                    .await?
                    .rows_affected();
                if deleted == 0 {
                    return Err($crate::storage::StoreError::NotFound);
                }
                Ok(())
            }
        }
    };
}

pub(super) use impl_servers;
