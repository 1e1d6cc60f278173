//! SQLite: the embedded default. One process owns the file at a time; the
//! lock file next to it makes a second `herald` refuse to start rather than
//! share the database behind the first one's back.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Sqlite, SqlitePool, Transaction};

use super::StoreError;

pub struct SqliteStore {
    pub(crate) pool: SqlitePool,
    /// Held (and so locked) for as long as the store lives.
    /// Held while serving: one process per file (`None` for an operator's brief command).
    _lock: Option<File>,
}

impl SqliteStore {
    const SINGLE_PROCESS: bool = true;

    /// `BEGIN IMMEDIATE` already holds the database's single write lock.
    const LOCK_ORG: &'static str = "SELECT id FROM orgs WHERE id = $1";

    /// WAL with `synchronous = NORMAL` already commits without an fsync.
    fn counters_pool(&self) -> &SqlitePool {
        &self.pool
    }

    pub async fn open(path: &Path) -> super::Result<Self> {
        Self::open_with(path, true).await
    }

    /// For an operator's command that changes rows nothing caches (`herald domains`), run
    /// beside a serving Herald: SQLite's own locking keeps the writes whole; the process lock
    /// is what keeps a second *serving* process out.
    pub async fn open_beside_server(path: &Path) -> super::Result<Self> {
        Self::open_with(path, false).await
    }

    async fn open_with(path: &Path, exclusive: bool) -> super::Result<Self> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| {
                StoreError::Startup(format!("cannot create the database directory {}: {e}", dir.display()))
            })?;
        }
        let lock = if exclusive { Some(Self::lock(path)?) } else { None };
        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(10));
        let pool = SqlitePoolOptions::new().max_connections(8).connect_with(options).await?;
        sqlx::migrate!("../../migrations/sqlite").run(&pool).await?;
        Ok(Self { pool, _lock: lock })
    }

    fn lock(path: &Path) -> super::Result<File> {
        let mut lock_path = PathBuf::from(path);
        lock_path.as_mut_os_string().push(".lock");
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| StoreError::Startup(format!("cannot open {}: {e}", lock_path.display())))?;
        match file.try_lock() {
            Ok(()) => Ok(file),
            Err(TryLockError::WouldBlock) => Err(StoreError::Startup(format!(
                "the SQLite database {} is in use by another herald process; \
                 SQLite allows one process per file (use PostgreSQL to run several replicas)",
                path.display()
            ))),
            Err(TryLockError::Error(e)) => {
                Err(StoreError::Startup(format!("cannot lock {}: {e}", lock_path.display())))
            }
        }
    }

    /// One process, so nobody else to wake.
    async fn publish(&self, _payload: &str) -> super::Result<()> {
        Ok(())
    }

    async fn subscribe(&self) -> super::Result<Option<Box<dyn super::EventFeed>>> {
        Ok(None)
    }

    async fn begin_write(&self) -> sqlx::Result<Transaction<'static, Sqlite>> {
        self.pool.begin_with("BEGIN IMMEDIATE").await
    }
}

super::sql::impl_helpers!(SqliteStore, Sqlite);
super::instance::impl_instance!(SqliteStore, Sqlite);
super::accounts::impl_accounts!(SqliteStore, Sqlite);
super::organisations::impl_organisations!(SqliteStore, Sqlite);
super::servers::impl_servers!(SqliteStore, Sqlite);
super::questions::impl_questions!(SqliteStore, Sqlite);
super::policy::impl_policy!(SqliteStore, Sqlite);
super::sessions::impl_sessions!(SqliteStore, Sqlite);
super::audit::impl_audit!(SqliteStore, Sqlite);
super::notifications::impl_notifications!(SqliteStore, Sqlite);
super::push::impl_push_devices!(SqliteStore, Sqlite);
super::sign_in::impl_sign_ins!(SqliteStore, Sqlite);
super::org_providers::impl_org_providers!(SqliteStore, Sqlite);
super::connections::impl_connections!(SqliteStore, Sqlite);
