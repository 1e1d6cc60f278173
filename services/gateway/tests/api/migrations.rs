//! The two schemas are one schema: the PostgreSQL and SQLite migrations must
//! define the same tables, the same columns in each, and the same indexes on
//! the same columns, or the two stores drift apart. Runs where a PostgreSQL
//! server is given (`HERALD_TEST_DATABASE_URL`, as in CI's second pass).

use std::collections::BTreeSet;

use herald_gateway::config::DatabaseUrl;
use herald_gateway::storage;
use sqlx::Row;

use crate::support::TestDb;

/// Tables, `table.column`, and `table: index(columns)`, as one sorted list each.
#[derive(Debug, PartialEq, Eq)]
struct Schema {
    tables: BTreeSet<String>,
    columns: BTreeSet<String>,
    indexes: BTreeSet<String>,
}

async fn sqlite_schema(path: &std::path::Path) -> Schema {
    let pool = sqlx::SqlitePool::connect(&format!("sqlite://{}", path.display())).await.unwrap();
    let rows = sqlx::query(
        "SELECT m.name AS t, p.name AS c FROM sqlite_master m JOIN pragma_table_info(m.name) p \
         WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND m.name NOT LIKE '_sqlx%'",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    let columns: BTreeSet<String> =
        rows.iter().map(|r| format!("{}.{}", r.get::<String, _>("t"), r.get::<String, _>("c"))).collect();
    let tables = rows.iter().map(|r| r.get::<String, _>("t")).collect();
    // Indexes written in the migrations (not those SQLite makes for keys and UNIQUE).
    let rows = sqlx::query(
        "SELECT m.tbl_name AS t, m.name AS i, group_concat(p.name, ',') AS c \
         FROM sqlite_master m JOIN pragma_index_info(m.name) p \
         WHERE m.type = 'index' AND m.sql IS NOT NULL GROUP BY m.name ORDER BY m.name",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    let indexes = rows
        .iter()
        .map(|r| {
            format!("{}: {}({})", r.get::<String, _>("t"), r.get::<String, _>("i"), r.get::<String, _>("c"))
        })
        .collect();
    pool.close().await;
    Schema { tables, columns, indexes }
}

async fn postgres_schema(url: &str) -> Schema {
    let pool = sqlx::PgPool::connect(url).await.unwrap();
    let rows = sqlx::query(
        "SELECT table_name::text AS t, column_name::text AS c FROM information_schema.columns \
         WHERE table_schema = 'public' AND table_name NOT LIKE '_sqlx%'",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    let columns: BTreeSet<String> =
        rows.iter().map(|r| format!("{}.{}", r.get::<String, _>("t"), r.get::<String, _>("c"))).collect();
    let tables = rows.iter().map(|r| r.get::<String, _>("t")).collect();
    // Indexes written in the migrations (not those behind primary keys and UNIQUE constraints).
    let rows = sqlx::query(
        "SELECT t.relname::text AS t, i.relname::text AS i, \
                string_agg(a.attname::text, ',' ORDER BY k.ord) AS c \
         FROM pg_index x \
         JOIN pg_class i ON i.oid = x.indexrelid \
         JOIN pg_class t ON t.oid = x.indrelid \
         JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = 'public' \
         CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, ord) \
         JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum \
         WHERE NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid) \
         GROUP BY t.relname, i.relname",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    let indexes = rows
        .iter()
        .map(|r| {
            format!("{}: {}({})", r.get::<String, _>("t"), r.get::<String, _>("i"), r.get::<String, _>("c"))
        })
        .collect();
    pool.close().await;
    Schema { tables, columns, indexes }
}

#[tokio::test]
async fn postgres_and_sqlite_migrations_define_the_same_tables_columns_and_indexes() {
    let postgres = TestDb::create().await;
    if !matches!(postgres, TestDb::Postgres { .. }) {
        eprintln!("skipped: comparing the schemas needs HERALD_TEST_DATABASE_URL (PostgreSQL)");
        return;
    }
    let dir = std::env::temp_dir().join(format!("herald-schema-{}", uuid::Uuid::new_v4().simple()));
    let path = dir.join("herald.db");
    storage::open(&DatabaseUrl::Sqlite { path: path.clone() }).await.expect("SQLite migrates");
    storage::open(&DatabaseUrl::Postgres { url: postgres.url() }).await.expect("PostgreSQL migrates");
    let (sqlite, pg) = (sqlite_schema(&path).await, postgres_schema(&postgres.url()).await);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!sqlite.tables.is_empty() && !sqlite.indexes.is_empty(), "the schema was read: {sqlite:?}");
    let only = |a: &BTreeSet<String>, b: &BTreeSet<String>| a.difference(b).cloned().collect::<Vec<_>>();
    assert_eq!(
        (only(&pg.tables, &sqlite.tables), only(&sqlite.tables, &pg.tables)),
        (vec![], vec![]),
        "tables only in PostgreSQL, only in SQLite"
    );
    assert_eq!(
        (only(&pg.columns, &sqlite.columns), only(&sqlite.columns, &pg.columns)),
        (vec![], vec![]),
        "columns only in PostgreSQL, only in SQLite"
    );
    assert_eq!(
        (only(&pg.indexes, &sqlite.indexes), only(&sqlite.indexes, &pg.indexes)),
        (vec![], vec![]),
        "indexes only in PostgreSQL, only in SQLite"
    );
}
