//! PostgreSQL: the production store, and the only one several replicas share.

use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{PgPool, Postgres, Transaction};

use super::sql::impl_store;

pub struct PostgresStore {
    pub(crate) pool: PgPool,
}

impl PostgresStore {
    const SINGLE_PROCESS: bool = false;

    /// Serialises concurrent changes to one org's memberships.
    const LOCK_ORG: &'static str = "SELECT id FROM orgs WHERE id = $1 FOR UPDATE";

    pub async fn open(url: &str) -> super::Result<Self> {
        let options: PgConnectOptions = url.parse()?;
        let pool = PgPoolOptions::new()
            .max_connections(16)
            .acquire_timeout(Duration::from_secs(5))
            .connect_with(options.application_name("herald"))
            .await?;
        sqlx::migrate!("../../migrations/postgres").run(&pool).await?;
        Ok(Self { pool })
    }

    async fn begin_write(&self) -> sqlx::Result<Transaction<'static, Postgres>> {
        self.pool.begin().await
    }
}

impl_store!(PostgresStore, Postgres);
