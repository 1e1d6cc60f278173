//! What the aggregates' SQL shares. PostgreSQL and SQLite both accept `$N`
//! placeholders, `RETURNING` and `ON CONFLICT`, and both stores bind the same
//! Rust types (see `time.rs` for timestamps), so each aggregate's SQL is written
//! once, in its file's `impl_<aggregate>!` macro, and instantiated for both
//! stores. Here: the models' column lists, the write-transaction helpers
//! (`impl_helpers!`) and `unique_means`. What genuinely differs (opening the
//! pool, taking the write lock) lives in `postgres.rs` and `sqlite.rs`.

use super::{Conflict, StoreError};

/// Maps a unique-constraint violation to the conflict it means for this write.
pub(super) fn unique_means(conflict: Conflict) -> impl FnOnce(sqlx::Error) -> StoreError {
    move |e| match e.as_database_error() {
        Some(db) if db.is_unique_violation() => StoreError::Conflict(conflict),
        _ => StoreError::Database(e),
    }
}

macro_rules! membership_select {
    () => {
        "SELECT o.id AS org_id, o.slug AS org_slug, o.name AS org_name, \
         o.created_at AS org_created_at, m.role \
         FROM memberships m JOIN orgs o ON o.id = m.org_id "
    };
}

macro_rules! member_select {
    () => {
        "SELECT u.id AS user_id, u.email, u.name, u.created_at AS user_created_at, \
         m.role, m.created_at AS joined_at \
         FROM memberships m JOIN users u ON u.id = m.user_id "
    };
}

macro_rules! invite_cols {
    () => {
        "id, org_id, email, role, created_by, created_at, expires_at"
    };
}

macro_rules! token_cols {
    () => {
        "id, org_id, user_id, name, prefix, created_at, last_used_at, expires_at"
    };
}

macro_rules! elicitation_cols {
    () => {
        "id, org_id, org_slug, user_id, server_id, server_slug, server_name, server_url, tool, protocol, \
         mode, message, requested_schema, url, action, content, decided_by, reason, replica_id, \
         created_at, expires_at, resolved_at, fingerprint, policy_flags, note_dismissed_at, answered_via, asked_by"
    };
}

/// The start of every bulk ending: `$1`–`$4` are the outcome's action,
/// decided_by, reason and time; the caller's filter follows from `$5`.
macro_rules! end_pending_where {
    () => {
        "UPDATE elicitations SET status = 'resolved', action = $1, content = NULL, decided_by = $2, \
         reason = $3, resolved_at = $4 WHERE status = 'pending' AND "
    };
}

macro_rules! server_cols {
    () => {
        "id, org_id, slug, name, url, header_names, headers_sealed, created_at, \
         updated_at, cut_off_at, cut_off_by, cut_off_reason, protocol, auth_mode, oauth_client_id, \
         oauth_client_secret_sealed, oauth_client_issuer"
    };
}

/// The helpers several aggregates' SQL shares (inserting an org or a user inside a
/// transaction, locking an org), for `$store` of database `$db`.
macro_rules! impl_helpers {
    ($store:ty, $db:ty) => {
        impl $store {
            async fn insert_org(
                tx: &mut sqlx::Transaction<'static, $db>,
                org: $crate::storage::NewOrg,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<$crate::storage::Org> {
                use $crate::storage::{Conflict, DbTime, rows::OrgRow, sql::unique_means};
                let row: OrgRow = sqlx::query_as(
                    "INSERT INTO orgs (id, slug, name, created_at) VALUES ($1, $2, $3, $4) \
                     RETURNING id, slug, name, created_at",
                )
                .bind(uuid::Uuid::now_v7())
                .bind(&org.slug)
                .bind(&org.name)
                .bind(DbTime(now))
                .fetch_one(&mut **tx)
                .await
                .map_err(unique_means(Conflict::OrgSlugTaken))?;
                Ok(row.into())
            }

            async fn insert_user(
                tx: &mut sqlx::Transaction<'static, $db>,
                user: $crate::storage::NewUser,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<$crate::storage::User> {
                use $crate::storage::{Conflict, DbTime, rows::UserRow, sql::unique_means};
                let row: UserRow = sqlx::query_as(
                    "INSERT INTO users (id, email, name, password_hash, created_at, password_changed_at) \
                     VALUES ($1, $2, $3, $4, $5, $5) \
                     RETURNING id, email, name, password_hash, created_at",
                )
                .bind(uuid::Uuid::now_v7())
                .bind(&user.email)
                .bind(&user.name)
                .bind(&user.password_hash)
                .bind(DbTime(now))
                .fetch_one(&mut **tx)
                .await
                .map_err(unique_means(Conflict::EmailTaken))?;
                Ok(row.user())
            }

            /// The joining user: fetched when they exist, created when new.
            async fn joiner_user(
                tx: &mut sqlx::Transaction<'static, $db>,
                joiner: $crate::storage::Joiner,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<$crate::storage::User> {
                use $crate::storage::{Joiner, StoreError, rows::UserRow};
                match joiner {
                    Joiner::New(user) => Self::insert_user(tx, user, now).await,
                    Joiner::Existing(id) => {
                        let row: Option<UserRow> = sqlx::query_as(
                            "SELECT id, email, name, password_hash, created_at FROM users WHERE id = $1",
                        )
                        .bind(id)
                        .fetch_optional(&mut **tx)
                        .await?;
                        row.map(UserRow::user).ok_or(StoreError::NotFound)
                    }
                }
            }

            async fn insert_membership(
                tx: &mut sqlx::Transaction<'static, $db>,
                org_id: uuid::Uuid,
                user_id: uuid::Uuid,
                role: $crate::domain::Role,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<()> {
                use $crate::storage::{Conflict, DbTime, sql::unique_means};
                sqlx::query(
                    "INSERT INTO memberships (org_id, user_id, role, created_at) VALUES ($1, $2, $3, $4)",
                )
                .bind(org_id)
                .bind(user_id)
                .bind(role.as_str())
                .bind(DbTime(now))
                .execute(&mut **tx)
                .await
                .map_err(unique_means(Conflict::AlreadyMember))?;
                Ok(())
            }

            /// The member's current role, with the org locked against
            /// concurrent role changes (so the last-owner rule holds).
            async fn locked_role(
                tx: &mut sqlx::Transaction<'static, $db>,
                org_id: uuid::Uuid,
                user_id: uuid::Uuid,
            ) -> $crate::storage::Result<($crate::domain::Role, i64)> {
                use $crate::storage::StoreError;
                sqlx::query(Self::LOCK_ORG).bind(org_id).execute(&mut **tx).await?;
                let role: Option<String> =
                    sqlx::query_scalar("SELECT role FROM memberships WHERE org_id = $1 AND user_id = $2")
                        .bind(org_id)
                        .bind(user_id)
                        .fetch_optional(&mut **tx)
                        .await?;
                let role = role.and_then(|r| $crate::domain::Role::parse(&r)).ok_or(StoreError::NotFound)?;
                let owners: i64 = sqlx::query_scalar(
                    "SELECT COUNT(*) FROM memberships WHERE org_id = $1 AND role = 'owner'",
                )
                .bind(org_id)
                .fetch_one(&mut **tx)
                .await?;
                Ok((role, owners))
            }
        }
    };
}

pub(super) use {
    elicitation_cols, end_pending_where, impl_helpers, invite_cols, member_select, membership_select,
    server_cols, token_cols,
};
