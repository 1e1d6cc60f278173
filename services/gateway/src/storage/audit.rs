//! The audit log: written after each change, read by admins.
//!
//! The trait, and its SQL for both databases (`impl_audit!`, instantiated in
//! `postgres.rs` and `sqlite.rs`; see `sql.rs` for what the two share).
//! Entries are read with the names their ids and slug stand for now: people
//! from the users table (so former members keep their names), a server by the
//! registration its slug has in the org.

use super::*;

/// A person the users table knows: a member, or someone who was one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Person {
    pub id: Uuid,
    pub name: String,
    pub email: String,
}

/// An entry, with the names of who acted, whom it concerned and the server.
#[derive(Debug, Clone)]
pub struct NamedEntry {
    pub entry: AuditEntry,
    pub actor: Option<Person>,
    pub user: Option<Person>,
    /// The name of the server registered under the entry's slug now, if any.
    pub server_name: Option<String>,
}

/// A server the org's log names that is no longer registered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoneServer {
    pub slug: String,
    /// The name its deletion recorded (entries from before names were recorded have none).
    pub name: Option<String>,
}

#[async_trait::async_trait]
pub trait Audit: Send + Sync {
    async fn audit(&self, entry: &AuditEntry) -> Result<()>;
    /// Newest first; `query.before` pages on (ids are time-ordered).
    async fn audit_entries(&self, org_id: Uuid, query: &AuditQuery) -> Result<Vec<NamedEntry>>;
    /// People the org's log says were removed or left, and who are not members now; by name.
    async fn audit_former_members(&self, org_id: Uuid) -> Result<Vec<Person>>;
    /// Servers deleted from the org and not registered again under their slug; newest deletion first.
    async fn audit_deleted_servers(&self, org_id: Uuid) -> Result<Vec<GoneServer>>;
}

#[derive(sqlx::FromRow)]
pub(super) struct NamedAuditRow {
    #[sqlx(flatten)]
    entry: rows::AuditRow,
    actor_name: Option<String>,
    actor_email: Option<String>,
    user_name: Option<String>,
    user_email: Option<String>,
    server_name: Option<String>,
}

impl From<NamedAuditRow> for NamedEntry {
    fn from(r: NamedAuditRow) -> Self {
        let entry: AuditEntry = r.entry.into();
        let person = |id: Option<Uuid>, name: Option<String>, email: Option<String>| match (id, name, email) {
            (Some(id), Some(name), Some(email)) => Some(Person { id, name, email }),
            _ => None,
        };
        NamedEntry {
            actor: person(entry.actor_id, r.actor_name, r.actor_email),
            user: person(entry.user_id, r.user_name, r.user_email),
            server_name: r.server_name,
            entry,
        }
    }
}

#[derive(sqlx::FromRow)]
pub(super) struct PersonRow {
    id: Uuid,
    name: String,
    email: String,
}

#[derive(sqlx::FromRow)]
pub(super) struct GoneServerRow {
    server_slug: String,
    details: sqlx::types::Json<serde_json::Value>,
}

/// The deleted servers, one per slug, with the name of its newest deletion (rows come newest first).
pub(super) fn gone_servers(rows: Vec<GoneServerRow>) -> Vec<GoneServer> {
    let mut seen = std::collections::HashSet::new();
    rows.into_iter()
        .filter(|r| seen.insert(r.server_slug.clone()))
        .map(|r| GoneServer {
            name: r.details.0.get("name").and_then(serde_json::Value::as_str).map(str::to_owned),
            slug: r.server_slug,
        })
        .collect()
}

pub(super) fn people(rows: Vec<PersonRow>) -> Vec<Person> {
    rows.into_iter().map(|r| Person { id: r.id, name: r.name, email: r.email }).collect()
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
            ) -> $crate::storage::Result<Vec<$crate::storage::audit::NamedEntry>> {
                use $crate::storage::DbTime;
                let rows: Vec<$crate::storage::audit::NamedAuditRow> = sqlx::query_as(
                    "SELECT a.id, a.org_id, a.at, a.actor, a.actor_id, a.action, a.user_id, a.server_slug, a.reason, a.details, \
                     au.name AS actor_name, au.email AS actor_email, uu.name AS user_name, uu.email AS user_email, \
                     s.name AS server_name \
                     FROM audit_log a \
                     LEFT JOIN users au ON au.id = a.actor_id \
                     LEFT JOIN users uu ON uu.id = a.user_id \
                     LEFT JOIN servers s ON s.org_id = a.org_id AND s.slug = a.server_slug \
                     WHERE a.org_id = $1 \
                     AND ($2 IS NULL OR a.at >= $2) AND ($3 IS NULL OR a.at < $3) \
                     AND ($4 IS NULL OR a.user_id = $4 OR a.actor_id = $4) AND ($5 IS NULL OR a.server_slug = $5) \
                     AND ($6 IS NULL OR a.action = $6) AND ($7 IS NULL OR a.reason = $7) AND ($8 IS NULL OR a.id < $8) \
                     ORDER BY a.id DESC LIMIT $9",
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

            async fn audit_former_members(
                &self,
                org_id: uuid::Uuid,
            ) -> $crate::storage::Result<Vec<$crate::storage::audit::Person>> {
                let rows: Vec<$crate::storage::audit::PersonRow> = sqlx::query_as(
                    "SELECT u.id, u.name, u.email FROM users u \
                     WHERE u.id IN (SELECT a.user_id FROM audit_log a \
                                    WHERE a.org_id = $1 AND a.action = 'member.removed' AND a.user_id IS NOT NULL) \
                     AND NOT EXISTS (SELECT 1 FROM memberships m WHERE m.org_id = $1 AND m.user_id = u.id) \
                     ORDER BY u.name, u.email",
                )
                .bind(org_id)
                .fetch_all(&self.pool)
                .await?;
                Ok($crate::storage::audit::people(rows))
            }

            async fn audit_deleted_servers(
                &self,
                org_id: uuid::Uuid,
            ) -> $crate::storage::Result<Vec<$crate::storage::audit::GoneServer>> {
                let rows: Vec<$crate::storage::audit::GoneServerRow> = sqlx::query_as(
                    "SELECT a.server_slug, a.details FROM audit_log a \
                     WHERE a.org_id = $1 AND a.action = 'server.deleted' AND a.server_slug IS NOT NULL \
                     AND NOT EXISTS (SELECT 1 FROM servers s WHERE s.org_id = a.org_id AND s.slug = a.server_slug) \
                     ORDER BY a.id DESC",
                )
                .bind(org_id)
                .fetch_all(&self.pool)
                .await?;
                Ok($crate::storage::audit::gone_servers(rows))
            }
        }
    };
}

pub(super) use impl_audit;
