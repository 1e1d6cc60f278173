//! PostgreSQL: the production store, and the only one several replicas share.

use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgListener, PgPoolOptions};
use sqlx::{PgPool, Postgres, Transaction};

pub struct PostgresStore {
    pub(crate) pool: PgPool,
    /// Connections whose commits do not wait for an fsync
    /// (`synchronous_commit = off`), for the writes whose loss in a crash
    /// costs nothing: the rate counters and the replicas' wake-ups.
    relaxed: PgPool,
}

impl PostgresStore {
    const SINGLE_PROCESS: bool = false;

    /// Serialises concurrent changes to one org's memberships.
    const LOCK_ORG: &'static str = "SELECT id FROM orgs WHERE id = $1 FOR UPDATE";

    pub async fn open(url: &str) -> super::Result<Self> {
        let options: PgConnectOptions = url.parse()?;
        let options = options.application_name("herald");
        let pool = PgPoolOptions::new()
            .max_connections(16)
            .acquire_timeout(Duration::from_secs(5))
            .connect_with(options.clone())
            .await?;
        sqlx::migrate!("../../migrations/postgres").run(&pool).await?;
        let relaxed = PgPoolOptions::new()
            .max_connections(4)
            .acquire_timeout(Duration::from_secs(5))
            .connect_lazy_with(options.options([("synchronous_commit", "off")]));
        Ok(Self { pool, relaxed })
    }

    /// Rate counters are hot rows (every question in an org bumps the org's
    /// and the server's). Bumped in one statement on a relaxed connection, a
    /// row's lock is held only while the server runs it: neither for an fsync
    /// nor across round trips to a busy Herald (a `BEGIN; SET LOCAL …;
    /// INSERT; COMMIT` held it for three, and under load the questions queued
    /// behind it for seconds). A crash may lose the last fraction of a second
    /// of counts; caps are approximate by nature, and every other write stays
    /// durable.
    fn counters_pool(&self) -> &PgPool {
        &self.relaxed
    }

    /// The channel replicas wake each other on.
    const CHANNEL: &'static str = "herald_events";

    async fn publish(&self, payload: &str) -> super::Result<()> {
        // Every NOTIFY commit takes one database-wide lock: with a durable
        // commit each held it for an fsync, the wake-ups queued behind one
        // another holding pool connections, and at a few hundred questions a
        // second the pool ran dry. A wake-up lost in a crash costs nothing:
        // the rows are the truth and replicas resync from them.
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(Self::CHANNEL)
            .bind(payload)
            .execute(&self.relaxed)
            .await?;
        Ok(())
    }

    async fn subscribe(&self) -> super::Result<Option<Box<dyn super::EventFeed>>> {
        let mut listener = PgListener::connect_with(&self.pool).await?;
        listener.listen(Self::CHANNEL).await?;
        Ok(Some(Box::new(Feed(listener))))
    }

    async fn begin_write(&self) -> sqlx::Result<Transaction<'static, Postgres>> {
        self.pool.begin().await
    }
}

super::sql::impl_helpers!(PostgresStore, Postgres);
super::instance::impl_instance!(PostgresStore, Postgres);
super::accounts::impl_accounts!(PostgresStore, Postgres);
super::organisations::impl_organisations!(PostgresStore, Postgres);
super::servers::impl_servers!(PostgresStore, Postgres);
super::questions::impl_questions!(PostgresStore, Postgres);
super::policy::impl_policy!(PostgresStore, Postgres);
super::sessions::impl_sessions!(PostgresStore, Postgres);
super::audit::impl_audit!(PostgresStore, Postgres);
super::notifications::impl_notifications!(PostgresStore, Postgres);
super::push::impl_push_devices!(PostgresStore, Postgres);
super::sign_in::impl_sign_ins!(PostgresStore, Postgres);
super::org_providers::impl_org_providers!(PostgresStore, Postgres);
super::connections::impl_connections!(PostgresStore, Postgres);

struct Feed(PgListener);

#[async_trait::async_trait]
impl super::EventFeed for Feed {
    async fn next(&mut self) -> super::Result<Option<String>> {
        // `try_recv` reconnects by itself, answering `None` once when it had to.
        Ok(self.0.try_recv().await?.map(|n| n.payload().to_owned()))
    }
}
