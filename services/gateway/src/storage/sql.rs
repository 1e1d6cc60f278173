//! The SQL both databases share, written once. PostgreSQL and SQLite both
//! accept `$N` placeholders, `RETURNING` and `ON CONFLICT`, and both stores bind
//! the same Rust types (see `time.rs` for timestamps), so one body serves both;
//! [`impl_store!`] instantiates it for each. What genuinely differs (opening
//! the pool, taking the write lock) lives in `postgres.rs` and `sqlite.rs`.

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
         created_at, expires_at, resolved_at, fingerprint, policy_flags"
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
         updated_at, cut_off_at, cut_off_by, cut_off_reason, protocol"
    };
}

/// Implements `Store` for `$store`, whose pool is `self.pool` of database
/// `$db`, and which provides `begin_write()`, the `LOCK_ORG` statement and
/// `counters_pool()` (where the rate counters are bumped).
macro_rules! impl_store {
    ($store:ty, $db:ty) => {
        impl $store {
            async fn insert_org(
                tx: &mut sqlx::Transaction<'static, $db>,
                org: $crate::storage::NewOrg,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<$crate::storage::Org> {
                use $crate::storage::{rows::OrgRow, sql::unique_means, Conflict, DbTime};
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
                use $crate::storage::{rows::UserRow, sql::unique_means, Conflict, DbTime};
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
                use $crate::storage::{rows::UserRow, Joiner, StoreError};
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
                use $crate::storage::{sql::unique_means, Conflict, DbTime};
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
                let role = role
                    .and_then(|r| $crate::domain::Role::parse(&r))
                    .ok_or(StoreError::NotFound)?;
                let owners: i64 = sqlx::query_scalar(
                    "SELECT COUNT(*) FROM memberships WHERE org_id = $1 AND role = 'owner'",
                )
                .bind(org_id)
                .fetch_one(&mut **tx)
                .await?;
                Ok((role, owners))
            }
        }

        #[async_trait::async_trait]
        impl $crate::storage::Store for $store {
            async fn ping(&self) -> $crate::storage::Result<()> {
                sqlx::query("SELECT 1").execute(&self.pool).await?;
                Ok(())
            }

            async fn instance_secret(&self, candidate: &str) -> $crate::storage::Result<String> {
                sqlx::query(
                    "INSERT INTO instance_settings (key, value) VALUES ('secret_key', $1) \
                     ON CONFLICT (key) DO NOTHING",
                )
                .bind(candidate)
                .execute(&self.pool)
                .await?;
                Ok(sqlx::query_scalar("SELECT value FROM instance_settings WHERE key = 'secret_key'")
                    .fetch_one(&self.pool)
                    .await?)
            }

            async fn has_users(&self) -> $crate::storage::Result<bool> {
                let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM (SELECT 1 FROM users LIMIT 1) AS any_user")
                    .fetch_one(&self.pool)
                    .await?;
                Ok(count > 0)
            }

            async fn put_setup_token(&self, token_hash: &[u8], expires_at: time::OffsetDateTime) -> $crate::storage::Result<()> {
                sqlx::query(
                    "INSERT INTO setup_tokens (token_hash, expires_at) VALUES ($1, $2)",
                )
                .bind(token_hash)
                .bind($crate::storage::DbTime(expires_at))
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn complete_setup(
                &self,
                token_hash: &[u8],
                now: time::OffsetDateTime,
                org: $crate::storage::NewOrg,
                owner: $crate::storage::NewUser,
            ) -> $crate::storage::Result<($crate::storage::Org, $crate::storage::User)> {
                use $crate::storage::{Conflict, DbTime, StoreError};
                let mut tx = self.begin_write().await?;
                let consumed = sqlx::query("DELETE FROM setup_tokens WHERE token_hash = $1 AND expires_at > $2")
                    .bind(token_hash)
                    .bind(DbTime(now))
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                // Setup happens once: every other link dies with this one.
                sqlx::query("DELETE FROM setup_tokens").execute(&mut *tx).await?;
                let users: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM users").fetch_one(&mut *tx).await?;
                if consumed != 1 || users > 0 {
                    return Err(StoreError::Conflict(Conflict::SetupUnavailable));
                }
                let org = Self::insert_org(&mut tx, org, now).await?;
                let user = Self::insert_user(&mut tx, owner, now).await?;
                Self::insert_membership(&mut tx, org.id, user.id, $crate::domain::Role::Owner, now).await?;
                tx.commit().await?;
                Ok((org, user))
            }

            async fn create_org(
                &self,
                org: $crate::storage::NewOrg,
                owner: $crate::storage::Joiner,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<($crate::storage::Org, $crate::storage::User)> {
                let mut tx = self.begin_write().await?;
                let org = Self::insert_org(&mut tx, org, now).await?;
                let user = Self::joiner_user(&mut tx, owner, now).await?;
                Self::insert_membership(&mut tx, org.id, user.id, $crate::domain::Role::Owner, now).await?;
                tx.commit().await?;
                Ok((org, user))
            }

            async fn user_by_email(&self, email: &str) -> $crate::storage::Result<Option<$crate::storage::UserCredentials>> {
                let row: Option<$crate::storage::rows::UserRow> = sqlx::query_as(
                    "SELECT id, email, name, password_hash, created_at FROM users WHERE email = $1",
                )
                .bind(email)
                .fetch_optional(&self.pool)
                .await?;
                Ok(row.map(|r| r.credentials()))
            }

            async fn user_by_id(&self, id: uuid::Uuid) -> $crate::storage::Result<Option<$crate::storage::UserCredentials>> {
                let row: Option<$crate::storage::rows::UserRow> = sqlx::query_as(
                    "SELECT id, email, name, password_hash, created_at FROM users WHERE id = $1",
                )
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
                Ok(row.map(|r| r.credentials()))
            }

            async fn set_password(
                &self,
                user_id: uuid::Uuid,
                password_hash: &str,
                keep: Option<uuid::Uuid>,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<()> {
                use $crate::storage::DbTime;
                let mut tx = self.begin_write().await?;
                sqlx::query("UPDATE users SET password_hash = $2, password_changed_at = $3 WHERE id = $1")
                    .bind(user_id)
                    .bind(password_hash)
                    .bind(DbTime(now))
                    .execute(&mut *tx)
                    .await?;
                sqlx::query(
                    "UPDATE sessions SET ended_at = $3 \
                     WHERE user_id = $1 AND ended_at IS NULL AND ($2 IS NULL OR id <> $2)",
                )
                .bind(user_id)
                .bind(keep)
                .bind(DbTime(now))
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
                Ok(())
            }

            async fn create_session(
                &self,
                user_id: uuid::Uuid,
                now: time::OffsetDateTime,
                expires_at: time::OffsetDateTime,
            ) -> $crate::storage::Result<uuid::Uuid> {
                use $crate::storage::DbTime;
                let id = uuid::Uuid::new_v4();
                sqlx::query("INSERT INTO sessions (id, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)")
                    .bind(id)
                    .bind(user_id)
                    .bind(DbTime(now))
                    .bind(DbTime(expires_at))
                    .execute(&self.pool)
                    .await?;
                Ok(id)
            }

            async fn session_user(
                &self,
                session_id: uuid::Uuid,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<Option<$crate::storage::User>> {
                let row: Option<$crate::storage::rows::UserRow> = sqlx::query_as(
                    "SELECT u.id, u.email, u.name, u.password_hash, u.created_at \
                     FROM sessions s JOIN users u ON u.id = s.user_id \
                     WHERE s.id = $1 AND s.ended_at IS NULL AND s.expires_at > $2",
                )
                .bind(session_id)
                .bind($crate::storage::DbTime(now))
                .fetch_optional(&self.pool)
                .await?;
                Ok(row.map(|r| r.user()))
            }

            async fn end_session(&self, session_id: uuid::Uuid, now: time::OffsetDateTime) -> $crate::storage::Result<()> {
                sqlx::query("UPDATE sessions SET ended_at = $2 WHERE id = $1 AND ended_at IS NULL")
                    .bind(session_id)
                    .bind($crate::storage::DbTime(now))
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn memberships(&self, user_id: uuid::Uuid) -> $crate::storage::Result<Vec<$crate::storage::Membership>> {
                let rows: Vec<$crate::storage::rows::MembershipRow> =
                    sqlx::query_as(concat!($crate::storage::sql::membership_select!(), "WHERE m.user_id = $1 ORDER BY o.slug"))
                        .bind(user_id)
                        .fetch_all(&self.pool)
                        .await?;
                Ok(rows.into_iter().map(|r| r.membership()).collect::<Result<_, _>>()?)
            }

            async fn membership(
                &self,
                org_slug: &str,
                user_id: uuid::Uuid,
            ) -> $crate::storage::Result<Option<$crate::storage::Membership>> {
                let row: Option<$crate::storage::rows::MembershipRow> =
                    sqlx::query_as(concat!($crate::storage::sql::membership_select!(), "WHERE o.slug = $1 AND m.user_id = $2"))
                        .bind(org_slug)
                        .bind(user_id)
                        .fetch_optional(&self.pool)
                        .await?;
                Ok(row.map(|r| r.membership()).transpose()?)
            }

            async fn members(&self, org_id: uuid::Uuid) -> $crate::storage::Result<Vec<$crate::storage::Member>> {
                let rows: Vec<$crate::storage::rows::MemberRow> =
                    sqlx::query_as(concat!($crate::storage::sql::member_select!(), "WHERE m.org_id = $1 ORDER BY m.created_at, u.email"))
                        .bind(org_id)
                        .fetch_all(&self.pool)
                        .await?;
                Ok(rows.into_iter().map(|r| r.member()).collect::<Result<_, _>>()?)
            }

            async fn set_role(
                &self,
                org_id: uuid::Uuid,
                user_id: uuid::Uuid,
                role: $crate::domain::Role,
                actor: $crate::domain::Role,
            ) -> $crate::storage::Result<$crate::storage::Member> {
                use $crate::domain::Role;
                use $crate::storage::{Conflict, StoreError};
                let mut tx = self.begin_write().await?;
                let (current, owners) = Self::locked_role(&mut tx, org_id, user_id).await?;
                if (current == Role::Owner || role == Role::Owner) && actor != Role::Owner {
                    return Err(StoreError::Conflict(Conflict::OwnersOnly));
                }
                if current == Role::Owner && role != Role::Owner && owners <= 1 {
                    return Err(StoreError::Conflict(Conflict::LastOwner));
                }
                sqlx::query("UPDATE memberships SET role = $3 WHERE org_id = $1 AND user_id = $2")
                    .bind(org_id)
                    .bind(user_id)
                    .bind(role.as_str())
                    .execute(&mut *tx)
                    .await?;
                let row: $crate::storage::rows::MemberRow =
                    sqlx::query_as(concat!($crate::storage::sql::member_select!(), "WHERE m.org_id = $1 AND m.user_id = $2"))
                        .bind(org_id)
                        .bind(user_id)
                        .fetch_one(&mut *tx)
                        .await?;
                tx.commit().await?;
                Ok(row.member()?)
            }

            async fn remove_member(
                &self,
                org_id: uuid::Uuid,
                user_id: uuid::Uuid,
                actor: $crate::domain::Role,
            ) -> $crate::storage::Result<()> {
                use $crate::domain::Role;
                use $crate::storage::{Conflict, StoreError};
                let mut tx = self.begin_write().await?;
                let (current, owners) = Self::locked_role(&mut tx, org_id, user_id).await?;
                if current == Role::Owner && actor != Role::Owner {
                    return Err(StoreError::Conflict(Conflict::OwnersOnly));
                }
                if current == Role::Owner && owners <= 1 {
                    return Err(StoreError::Conflict(Conflict::LastOwner));
                }
                // The member's API tokens for this org go with the membership (ON DELETE CASCADE).
                sqlx::query("DELETE FROM memberships WHERE org_id = $1 AND user_id = $2")
                    .bind(org_id)
                    .bind(user_id)
                    .execute(&mut *tx)
                    .await?;
                tx.commit().await?;
                Ok(())
            }

            async fn create_invite(
                &self,
                org_id: uuid::Uuid,
                invite: $crate::storage::NewInvite,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<$crate::storage::Invite> {
                use $crate::storage::DbTime;
                let row: $crate::storage::rows::InviteRow = sqlx::query_as(concat!(
                    "INSERT INTO invites (id, org_id, email, role, token_hash, created_by, created_at, expires_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ",
                    $crate::storage::sql::invite_cols!()
                ))
                .bind(uuid::Uuid::now_v7())
                .bind(org_id)
                .bind(&invite.email)
                .bind(invite.role.as_str())
                .bind(&invite.token_hash)
                .bind(invite.created_by)
                .bind(DbTime(now))
                .bind(DbTime(invite.expires_at))
                .fetch_one(&self.pool)
                .await?;
                Ok(row.invite()?)
            }

            async fn pending_invites(
                &self,
                org_id: uuid::Uuid,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<Vec<$crate::storage::Invite>> {
                let rows: Vec<$crate::storage::rows::InviteRow> = sqlx::query_as(concat!(
                    "SELECT ", $crate::storage::sql::invite_cols!(), " FROM invites \
                     WHERE org_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $2 \
                     ORDER BY created_at DESC"
                ))
                .bind(org_id)
                .bind($crate::storage::DbTime(now))
                .fetch_all(&self.pool)
                .await?;
                Ok(rows.into_iter().map(|r| r.invite()).collect::<Result<_, _>>()?)
            }

            async fn revoke_invite(
                &self,
                org_id: uuid::Uuid,
                invite_id: uuid::Uuid,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<()> {
                let revoked = sqlx::query(
                    "UPDATE invites SET revoked_at = $3 \
                     WHERE org_id = $1 AND id = $2 AND accepted_at IS NULL AND revoked_at IS NULL",
                )
                .bind(org_id)
                .bind(invite_id)
                .bind($crate::storage::DbTime(now))
                .execute(&self.pool)
                .await?
                .rows_affected();
                if revoked == 0 {
                    return Err($crate::storage::StoreError::NotFound);
                }
                Ok(())
            }

            async fn usable_invite(
                &self,
                token_hash: &[u8],
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<Option<($crate::storage::Invite, $crate::storage::Org)>> {
                use $crate::storage::rows::{InviteRow, OrgRow};
                let row: Option<InviteRow> = sqlx::query_as(concat!(
                    "SELECT ", $crate::storage::sql::invite_cols!(), " FROM invites \
                     WHERE token_hash = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $2"
                ))
                .bind(token_hash)
                .bind($crate::storage::DbTime(now))
                .fetch_optional(&self.pool)
                .await?;
                let Some(row) = row else { return Ok(None) };
                let org: OrgRow = sqlx::query_as("SELECT id, slug, name, created_at FROM orgs WHERE id = $1")
                    .bind(row.org_id)
                    .fetch_one(&self.pool)
                    .await?;
                Ok(Some((row.invite()?, org.into())))
            }

            async fn accept_invite(
                &self,
                token_hash: &[u8],
                joiner: $crate::storage::Joiner,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<($crate::storage::Membership, $crate::storage::User)> {
                use $crate::storage::{rows::{InviteRow, MembershipRow}, Conflict, DbTime, StoreError};
                let mut tx = self.begin_write().await?;
                // The compare-and-set that makes an invite link single-use.
                let invite: Option<InviteRow> = sqlx::query_as(concat!(
                    "UPDATE invites SET accepted_at = $2 \
                     WHERE token_hash = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $2 \
                     RETURNING ", $crate::storage::sql::invite_cols!()
                ))
                .bind(token_hash)
                .bind(DbTime(now))
                .fetch_optional(&mut *tx)
                .await?;
                let invite = invite
                    .ok_or(StoreError::Conflict(Conflict::InviteUnavailable))?
                    .invite()?;
                let user = Self::joiner_user(&mut tx, joiner, now).await?;
                Self::insert_membership(&mut tx, invite.org_id, user.id, invite.role, now).await?;
                sqlx::query("UPDATE invites SET accepted_by = $2 WHERE id = $1")
                    .bind(invite.id)
                    .bind(user.id)
                    .execute(&mut *tx)
                    .await?;
                let membership: MembershipRow =
                    sqlx::query_as(concat!($crate::storage::sql::membership_select!(), "WHERE m.org_id = $1 AND m.user_id = $2"))
                        .bind(invite.org_id)
                        .bind(user.id)
                        .fetch_one(&mut *tx)
                        .await?;
                tx.commit().await?;
                Ok((membership.membership()?, user))
            }

            async fn create_api_token(
                &self,
                org_id: uuid::Uuid,
                user_id: uuid::Uuid,
                token: $crate::storage::NewApiToken,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<$crate::storage::ApiToken> {
                use $crate::storage::{rows::ApiTokenRow, sql::unique_means, Conflict, DbTime};
                let row: ApiTokenRow = sqlx::query_as(concat!(
                    "INSERT INTO api_tokens (id, org_id, user_id, name, prefix, secret_hash, created_at, expires_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ",
                    $crate::storage::sql::token_cols!()
                ))
                .bind(uuid::Uuid::now_v7())
                .bind(org_id)
                .bind(user_id)
                .bind(&token.name)
                .bind(&token.prefix)
                .bind(&token.secret_hash)
                .bind(DbTime(now))
                .bind(token.expires_at.map(DbTime))
                .fetch_one(&self.pool)
                .await
                .map_err(unique_means(Conflict::TokenNameTaken))?;
                Ok(row.into())
            }

            async fn api_tokens(
                &self,
                org_id: uuid::Uuid,
                user_id: uuid::Uuid,
            ) -> $crate::storage::Result<Vec<$crate::storage::ApiToken>> {
                let rows: Vec<$crate::storage::rows::ApiTokenRow> = sqlx::query_as(concat!(
                    "SELECT ", $crate::storage::sql::token_cols!(), " FROM api_tokens \
                     WHERE org_id = $1 AND user_id = $2 AND revoked_at IS NULL ORDER BY created_at DESC, id DESC"
                ))
                .bind(org_id)
                .bind(user_id)
                .fetch_all(&self.pool)
                .await?;
                Ok(rows.into_iter().map(Into::into).collect())
            }

            async fn revoke_api_token(
                &self,
                org_id: uuid::Uuid,
                user_id: uuid::Uuid,
                token_id: uuid::Uuid,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<()> {
                let revoked = sqlx::query(
                    "UPDATE api_tokens SET revoked_at = $4 \
                     WHERE org_id = $1 AND user_id = $2 AND id = $3 AND revoked_at IS NULL",
                )
                .bind(org_id)
                .bind(user_id)
                .bind(token_id)
                .bind($crate::storage::DbTime(now))
                .execute(&self.pool)
                .await?
                .rows_affected();
                if revoked == 0 {
                    return Err($crate::storage::StoreError::NotFound);
                }
                Ok(())
            }

            async fn authenticate_api_token(
                &self,
                secret_hash: &[u8],
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<Option<$crate::storage::TokenPrincipal>> {
                let row: Option<$crate::storage::rows::TokenPrincipalRow> = sqlx::query_as(
                    "SELECT t.id AS token_id, t.last_used_at, t.expires_at, \
                     u.id, u.email, u.name, u.password_hash, u.created_at, \
                     o.id AS org_id, o.slug AS org_slug, o.name AS org_name, o.created_at AS org_created_at, m.role \
                     FROM api_tokens t \
                     JOIN memberships m ON m.org_id = t.org_id AND m.user_id = t.user_id \
                     JOIN users u ON u.id = t.user_id \
                     JOIN orgs o ON o.id = t.org_id \
                     WHERE t.secret_hash = $1 AND t.revoked_at IS NULL \
                     AND (t.expires_at IS NULL OR t.expires_at > $2)",
                )
                .bind(secret_hash)
                .bind($crate::storage::DbTime(now))
                .fetch_optional(&self.pool)
                .await?;
                Ok(row.map(|r| r.principal()).transpose()?)
            }

            async fn touch_api_token(&self, token_id: uuid::Uuid, now: time::OffsetDateTime) -> $crate::storage::Result<()> {
                sqlx::query("UPDATE api_tokens SET last_used_at = $2 WHERE id = $1")
                    .bind(token_id)
                    .bind($crate::storage::DbTime(now))
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn create_server(
                &self,
                org_id: uuid::Uuid,
                server: $crate::storage::NewServer,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<$crate::storage::Server> {
                use $crate::storage::{rows::ServerRow, sql::unique_means, Conflict, DbTime};
                let row: ServerRow = sqlx::query_as(concat!(
                    "INSERT INTO servers (id, org_id, slug, name, url, header_names, headers_sealed, created_at, updated_at, \
                     protocol) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9) RETURNING ",
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
                     protocol = COALESCE($8, protocol), updated_at = $7 WHERE org_id = $1 AND slug = $2 RETURNING ",
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

            async fn policy(&self, org_id: uuid::Uuid) -> $crate::storage::Result<Option<$crate::storage::StoredPolicy>> {
                let row: Option<$crate::storage::rows::PolicyRow> =
                    sqlx::query_as("SELECT document, updated_at, updated_by FROM org_policies WHERE org_id = $1")
                        .bind(org_id)
                        .fetch_optional(&self.pool)
                        .await?;
                Ok(row.map(Into::into))
            }

            async fn put_policy(
                &self,
                org_id: uuid::Uuid,
                document: &serde_json::Value,
                by: uuid::Uuid,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<()> {
                sqlx::query(
                    "INSERT INTO org_policies (org_id, document, updated_at, updated_by) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (org_id) DO UPDATE SET document = excluded.document, \
                     updated_at = excluded.updated_at, updated_by = excluded.updated_by",
                )
                .bind(org_id)
                .bind(sqlx::types::Json(document))
                .bind($crate::storage::DbTime(now))
                .bind(by)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            fn single_process(&self) -> bool {
                Self::SINGLE_PROCESS
            }

            async fn publish_event(&self, payload: &str) -> $crate::storage::Result<()> {
                self.publish(payload).await
            }

            async fn subscribe_events(
                &self,
            ) -> $crate::storage::Result<Option<Box<dyn $crate::storage::EventFeed>>> {
                self.subscribe().await
            }

            async fn heartbeat(&self, replica_id: uuid::Uuid, now: time::OffsetDateTime) -> $crate::storage::Result<()> {
                sqlx::query(
                    "INSERT INTO replicas (id, started_at, heartbeat_at) VALUES ($1, $2, $2) \
                     ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at",
                )
                .bind(replica_id)
                .bind($crate::storage::DbTime(now))
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn create_elicitation(&self, e: &$crate::storage::Elicitation) -> $crate::storage::Result<()> {
                use $crate::storage::DbTime;
                sqlx::query(
                    "INSERT INTO elicitations (id, org_id, org_slug, user_id, server_id, server_slug, server_name, \
                     server_url, tool, protocol, mode, message, requested_schema, url, status, replica_id, \
                     created_at, expires_at, fingerprint, policy_flags, action, content, decided_by, reason, \
                     resolved_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $20, $15, $16, $17, \
                     $18, $19, $21, $22, $23, $24, $25)",
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

            async fn resolve_abandoned(
                &self,
                alive: uuid::Uuid,
                stale_before: time::OffsetDateTime,
                outcome: &$crate::storage::Outcome,
            ) -> $crate::storage::Result<Vec<$crate::storage::Elicitation>> {
                use $crate::storage::{rows::ElicitationRow, DbTime};
                let rows: Vec<ElicitationRow> = sqlx::query_as(concat!(
                    $crate::storage::sql::end_pending_where!(),
                    "replica_id <> $5 AND replica_id NOT IN \
                     (SELECT id FROM replicas WHERE heartbeat_at >= $6) RETURNING ",
                    $crate::storage::sql::elicitation_cols!()
                ))
                .bind(outcome.action.as_str())
                .bind(outcome.decided_by.as_str())
                .bind(outcome.reason.map(|r| r.as_str()))
                .bind(DbTime(outcome.resolved_at))
                .bind(alive)
                .bind(DbTime(stale_before))
                .fetch_all(&self.pool)
                .await?;
                rows.into_iter().map(TryInto::try_into).collect()
            }

            async fn resolve_expired(
                &self,
                before: time::OffsetDateTime,
                outcome: &$crate::storage::Outcome,
            ) -> $crate::storage::Result<Vec<$crate::storage::Elicitation>> {
                use $crate::storage::{rows::ElicitationRow, DbTime};
                let rows: Vec<ElicitationRow> = sqlx::query_as(concat!(
                    $crate::storage::sql::end_pending_where!(),
                    "expires_at < $5 RETURNING ",
                    $crate::storage::sql::elicitation_cols!()
                ))
                .bind(outcome.action.as_str())
                .bind(outcome.decided_by.as_str())
                .bind(outcome.reason.map(|r| r.as_str()))
                .bind(DbTime(outcome.resolved_at))
                .bind(DbTime(before))
                .fetch_all(&self.pool)
                .await?;
                rows.into_iter().map(TryInto::try_into).collect()
            }

            async fn resolve_pending_of_server(
                &self,
                org_id: uuid::Uuid,
                server_id: uuid::Uuid,
                outcome: &$crate::storage::Outcome,
            ) -> $crate::storage::Result<Vec<$crate::storage::Elicitation>> {
                use $crate::storage::{rows::ElicitationRow, DbTime};
                let rows: Vec<ElicitationRow> = sqlx::query_as(concat!(
                    $crate::storage::sql::end_pending_where!(),
                    "org_id = $5 AND server_id = $6 RETURNING ",
                    $crate::storage::sql::elicitation_cols!()
                ))
                .bind(outcome.action.as_str())
                .bind(outcome.decided_by.as_str())
                .bind(outcome.reason.map(|r| r.as_str()))
                .bind(DbTime(outcome.resolved_at))
                .bind(org_id)
                .bind(server_id)
                .fetch_all(&self.pool)
                .await?;
                rows.into_iter().map(TryInto::try_into).collect()
            }

            async fn resolve_pending_of_replica(
                &self,
                replica_id: uuid::Uuid,
                outcome: &$crate::storage::Outcome,
            ) -> $crate::storage::Result<Vec<$crate::storage::Elicitation>> {
                use $crate::storage::{rows::ElicitationRow, DbTime};
                let rows: Vec<ElicitationRow> = sqlx::query_as(concat!(
                    $crate::storage::sql::end_pending_where!(),
                    "replica_id = $5 RETURNING ",
                    $crate::storage::sql::elicitation_cols!()
                ))
                .bind(outcome.action.as_str())
                .bind(outcome.decided_by.as_str())
                .bind(outcome.reason.map(|r| r.as_str()))
                .bind(DbTime(outcome.resolved_at))
                .bind(replica_id)
                .fetch_all(&self.pool)
                .await?;
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

            async fn create_agent_session(
                &self,
                s: &$crate::storage::AgentSessionRecord,
            ) -> $crate::storage::Result<()> {
                use $crate::storage::DbTime;
                sqlx::query(
                    "INSERT INTO agent_sessions (id_hash, org_id, user_id, server_id, protocol_version, \
                     agent_info, created_at, last_seen_at, agent_capabilities, token_id) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                )
                .bind(&s.id_hash)
                .bind(s.org_id)
                .bind(s.user_id)
                .bind(s.server_id)
                .bind(&s.protocol_version)
                .bind(s.agent_info.as_ref().map(sqlx::types::Json))
                .bind(DbTime(s.created_at))
                .bind(DbTime(s.last_seen_at))
                .bind(s.agent_capabilities.as_ref().map(sqlx::types::Json))
                .bind(s.token_id)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn agent_session(
                &self,
                id_hash: &[u8],
            ) -> $crate::storage::Result<Option<$crate::storage::AgentSessionRecord>> {
                let row: Option<$crate::storage::rows::AgentSessionRow> = sqlx::query_as(
                    "SELECT id_hash, org_id, user_id, server_id, protocol_version, agent_info, agent_capabilities, \
                     token_id, created_at, last_seen_at FROM agent_sessions WHERE id_hash = $1",
                )
                .bind(id_hash)
                .fetch_optional(&self.pool)
                .await?;
                Ok(row.map(Into::into))
            }

            async fn touch_agent_session(
                &self,
                id_hash: &[u8],
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<bool> {
                let done = sqlx::query("UPDATE agent_sessions SET last_seen_at = $2 WHERE id_hash = $1")
                    .bind(id_hash)
                    .bind($crate::storage::DbTime(now))
                    .execute(&self.pool)
                    .await?;
                Ok(done.rows_affected() > 0)
            }

            async fn delete_agent_session(&self, id_hash: &[u8]) -> $crate::storage::Result<bool> {
                let done = sqlx::query("DELETE FROM agent_sessions WHERE id_hash = $1")
                    .bind(id_hash)
                    .execute(&self.pool)
                    .await?;
                Ok(done.rows_affected() > 0)
            }

            async fn count_agent_sessions_of_token(
                &self,
                token_id: uuid::Uuid,
                since: time::OffsetDateTime,
            ) -> $crate::storage::Result<u64> {
                let (count,): (i64,) = sqlx::query_as(
                    "SELECT COUNT(*) FROM agent_sessions WHERE token_id = $1 AND last_seen_at >= $2",
                )
                .bind(token_id)
                .bind($crate::storage::DbTime(since))
                .fetch_one(&self.pool)
                .await?;
                Ok(u64::try_from(count).unwrap_or(0))
            }

            async fn delete_agent_sessions_of_token(
                &self,
                token_id: uuid::Uuid,
            ) -> $crate::storage::Result<Vec<Vec<u8>>> {
                let gone: Vec<(Vec<u8>,)> =
                    sqlx::query_as("DELETE FROM agent_sessions WHERE token_id = $1 RETURNING id_hash")
                        .bind(token_id)
                        .fetch_all(&self.pool)
                        .await?;
                Ok(gone.into_iter().map(|(hash,)| hash).collect())
            }

            async fn purge_idle_agent_sessions(
                &self,
                before: time::OffsetDateTime,
            ) -> $crate::storage::Result<u64> {
                let done = sqlx::query("DELETE FROM agent_sessions WHERE last_seen_at < $1")
                    .bind($crate::storage::DbTime(before))
                    .execute(&self.pool)
                    .await?;
                Ok(done.rows_affected())
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

            async fn org_ids(&self) -> $crate::storage::Result<Vec<uuid::Uuid>> {
                Ok(sqlx::query_scalar("SELECT id FROM orgs").fetch_all(&self.pool).await?)
            }

            async fn mutes(
                &self,
                org_id: uuid::Uuid,
                user_id: uuid::Uuid,
            ) -> $crate::storage::Result<Vec<$crate::storage::Mute>> {
                let rows: Vec<$crate::storage::rows::MuteRow> = sqlx::query_as(
                    "SELECT m.server_id, s.slug AS server_slug, s.name AS server_name, m.reason, m.note, m.created_at \
                     FROM mutes m JOIN servers s ON s.id = m.server_id AND s.org_id = m.org_id \
                     WHERE m.org_id = $1 AND m.user_id = $2 ORDER BY s.slug",
                )
                .bind(org_id)
                .bind(user_id)
                .fetch_all(&self.pool)
                .await?;
                Ok(rows.into_iter().map(Into::into).collect())
            }

            async fn mute(
                &self,
                org_id: uuid::Uuid,
                user_id: uuid::Uuid,
                server_id: uuid::Uuid,
                reason: &str,
                note: &str,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<()> {
                use $crate::storage::{sql::unique_means, Conflict, DbTime};
                sqlx::query(
                    "INSERT INTO mutes (org_id, user_id, server_id, reason, note, created_at) \
                     VALUES ($1, $2, $3, $4, $5, $6)",
                )
                .bind(org_id)
                .bind(user_id)
                .bind(server_id)
                .bind(reason)
                .bind(note)
                .bind(DbTime(now))
                .execute(&self.pool)
                .await
                .map_err(unique_means(Conflict::AlreadyMuted))?;
                Ok(())
            }

            async fn unmute(
                &self,
                org_id: uuid::Uuid,
                user_id: uuid::Uuid,
                server_id: uuid::Uuid,
            ) -> $crate::storage::Result<()> {
                let removed = sqlx::query("DELETE FROM mutes WHERE org_id = $1 AND user_id = $2 AND server_id = $3")
                    .bind(org_id)
                    .bind(user_id)
                    .bind(server_id)
                    .execute(&self.pool)
                    .await?
                    .rows_affected();
                if removed == 0 {
                    return Err($crate::storage::StoreError::NotFound);
                }
                Ok(())
            }

            async fn is_muted(
                &self,
                org_id: uuid::Uuid,
                user_id: uuid::Uuid,
                server_id: uuid::Uuid,
            ) -> $crate::storage::Result<bool> {
                let found: i64 = sqlx::query_scalar(
                    "SELECT COUNT(*) FROM mutes WHERE org_id = $1 AND user_id = $2 AND server_id = $3",
                )
                .bind(org_id)
                .bind(user_id)
                .bind(server_id)
                .fetch_one(&self.pool)
                .await?;
                Ok(found > 0)
            }

            async fn record_decline(&self, d: &$crate::storage::DeclineRecord) -> $crate::storage::Result<()> {
                sqlx::query(
                    "INSERT INTO decline_records (id, org_id, user_id, server_slug, tool, fingerprint, elicitation_id, \
                     declined_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                )
                .bind(uuid::Uuid::now_v7())
                .bind(d.org_id)
                .bind(d.user_id)
                .bind(&d.server_slug)
                .bind(&d.tool)
                .bind(&d.fingerprint)
                .bind(d.elicitation_id)
                .bind($crate::storage::DbTime(d.declined_at))
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn declines_since(
                &self,
                org_id: uuid::Uuid,
                user_id: uuid::Uuid,
                fingerprint: &[u8],
                since: time::OffsetDateTime,
            ) -> $crate::storage::Result<i64> {
                Ok(sqlx::query_scalar(
                    "SELECT COUNT(*) FROM decline_records \
                     WHERE org_id = $1 AND user_id = $2 AND fingerprint = $3 AND declined_at >= $4",
                )
                .bind(org_id)
                .bind(user_id)
                .bind(fingerprint)
                .bind($crate::storage::DbTime(since))
                .fetch_one(&self.pool)
                .await?)
            }

            async fn count_fingerprint(
                &self,
                org_id: uuid::Uuid,
                user_id: uuid::Uuid,
                fingerprint: &[u8],
                since: time::OffsetDateTime,
                reason: &str,
            ) -> $crate::storage::Result<i64> {
                Ok(sqlx::query_scalar(
                    "SELECT COUNT(*) FROM elicitations \
                     WHERE org_id = $1 AND user_id = $2 AND fingerprint = $3 AND created_at >= $4 AND reason = $5",
                )
                .bind(org_id)
                .bind(user_id)
                .bind(fingerprint)
                .bind($crate::storage::DbTime(since))
                .bind(reason)
                .fetch_one(&self.pool)
                .await?)
            }

            async fn bump_counters(
                &self,
                counters: [(&str, time::OffsetDateTime); 3],
            ) -> $crate::storage::Result<[i64; 3]> {
                use $crate::storage::DbTime;
                // RETURNING promises no order: the rows are matched by key.
                let query = sqlx::query_as(
                    "INSERT INTO rate_counters (key, window_start, count) VALUES ($1, $2, 1), ($3, $4, 1), ($5, $6, 1) \
                     ON CONFLICT (key, window_start) DO UPDATE SET count = rate_counters.count + 1 \
                     RETURNING key, count",
                )
                .bind(counters[0].0)
                .bind(DbTime(counters[0].1))
                .bind(counters[1].0)
                .bind(DbTime(counters[1].1))
                .bind(counters[2].0)
                .bind(DbTime(counters[2].1));
                // One statement: the hot rows' locks are held only while it runs.
                let rows: Vec<(String, i64)> = query.fetch_all(self.counters_pool()).await?;
                let count = |key: &str| {
                    rows.iter().find(|(k, _)| k == key).map(|(_, c)| *c).ok_or($crate::storage::StoreError::NotFound)
                };
                Ok([count(counters[0].0)?, count(counters[1].0)?, count(counters[2].0)?])
            }

            async fn unbump_counters(
                &self,
                counters: [(&str, time::OffsetDateTime); 3],
            ) -> $crate::storage::Result<()> {
                use $crate::storage::DbTime;
                sqlx::query(
                    "UPDATE rate_counters SET count = count - 1 WHERE count > 0 AND \
                     ((key = $1 AND window_start = $2) OR (key = $3 AND window_start = $4) OR (key = $5 AND window_start = $6))",
                )
                .bind(counters[0].0)
                .bind(DbTime(counters[0].1))
                .bind(counters[1].0)
                .bind(DbTime(counters[1].1))
                .bind(counters[2].0)
                .bind(DbTime(counters[2].1))
                .execute(self.counters_pool())
                .await?;
                Ok(())
            }

            async fn purge_counters(&self, before: time::OffsetDateTime) -> $crate::storage::Result<u64> {
                Ok(sqlx::query("DELETE FROM rate_counters WHERE window_start < $1")
                    .bind($crate::storage::DbTime(before))
                    .execute(&self.pool)
                    .await?
                    .rows_affected())
            }

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
            ) -> $crate::storage::Result<Vec<$crate::storage::AuditEntry>> {
                use $crate::storage::DbTime;
                let rows: Vec<$crate::storage::rows::AuditRow> = sqlx::query_as(
                    "SELECT id, org_id, at, actor, actor_id, action, user_id, server_slug, reason, details \
                     FROM audit_log WHERE org_id = $1 \
                     AND ($2 IS NULL OR at >= $2) AND ($3 IS NULL OR at < $3) \
                     AND ($4 IS NULL OR user_id = $4 OR actor_id = $4) AND ($5 IS NULL OR server_slug = $5) \
                     AND ($6 IS NULL OR action = $6) AND ($7 IS NULL OR reason = $7) AND ($8 IS NULL OR id < $8) \
                     ORDER BY id DESC LIMIT $9",
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

            async fn setup_token_usable(
                &self,
                token_hash: &[u8],
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<bool> {
                let (tokens, users): (i64, i64) = sqlx::query_as(
                    "SELECT (SELECT COUNT(*) FROM setup_tokens WHERE token_hash = $1 AND expires_at > $2), \
                     (SELECT COUNT(*) FROM (SELECT 1 FROM users LIMIT 1) AS any_user)",
                )
                .bind(token_hash)
                .bind($crate::storage::DbTime(now))
                .fetch_one(&self.pool)
                .await?;
                Ok(tokens == 1 && users == 0)
            }

            async fn login_blocked_until(
                &self,
                keys: [&[u8]; 2],
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<Option<time::OffsetDateTime>> {
                use $crate::storage::DbTime;
                let until: Vec<DbTime> = sqlx::query_scalar(
                    "SELECT blocked_until FROM login_failures WHERE key IN ($1, $2) AND blocked_until > $3",
                )
                .bind(keys[0])
                .bind(keys[1])
                .bind(DbTime(now))
                .fetch_all(&self.pool)
                .await?;
                Ok(until.into_iter().max().map(|t| t.0))
            }

            async fn record_login_failures(
                &self,
                keys: [&[u8]; 2],
                now: time::OffsetDateTime,
                forget_before: time::OffsetDateTime,
            ) -> $crate::storage::Result<[i64; 2]> {
                use $crate::storage::DbTime;
                // One statement: concurrent failures under one key each count.
                // A key quiet since `forget_before` starts over.
                let rows: Vec<(Vec<u8>, i64)> = sqlx::query_as(
                    "INSERT INTO login_failures (key, failures, last_failure_at, blocked_until) \
                     VALUES ($1, 1, $3, NULL), ($2, 1, $3, NULL) \
                     ON CONFLICT (key) DO UPDATE SET \
                     failures = CASE WHEN login_failures.last_failure_at < $4 THEN 1 \
                                     ELSE login_failures.failures + 1 END, \
                     blocked_until = CASE WHEN login_failures.last_failure_at < $4 THEN NULL \
                                          ELSE login_failures.blocked_until END, \
                     last_failure_at = $3 \
                     RETURNING key, failures",
                )
                .bind(keys[0])
                .bind(keys[1])
                .bind(DbTime(now))
                .bind(DbTime(forget_before))
                .fetch_all(&self.pool)
                .await?;
                let count = |key: &[u8]| {
                    rows.iter()
                        .find(|(k, _)| k.as_slice() == key)
                        .map(|(_, c)| *c)
                        .ok_or($crate::storage::StoreError::NotFound)
                };
                Ok([count(keys[0])?, count(keys[1])?])
            }

            async fn block_login(
                &self,
                key: &[u8],
                until: time::OffsetDateTime,
            ) -> $crate::storage::Result<()> {
                use $crate::storage::DbTime;
                sqlx::query(
                    "UPDATE login_failures SET blocked_until = $2 \
                     WHERE key = $1 AND (blocked_until IS NULL OR blocked_until < $2)",
                )
                .bind(key)
                .bind(DbTime(until))
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn clear_login_failures(&self, key: &[u8]) -> $crate::storage::Result<()> {
                sqlx::query("DELETE FROM login_failures WHERE key = $1").bind(key).execute(&self.pool).await?;
                Ok(())
            }

            async fn purge_login_failures(
                &self,
                before: time::OffsetDateTime,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<u64> {
                use $crate::storage::DbTime;
                Ok(sqlx::query(
                    "DELETE FROM login_failures WHERE last_failure_at < $1 \
                     AND (blocked_until IS NULL OR blocked_until < $2)",
                )
                .bind(DbTime(before))
                .bind(DbTime(now))
                .execute(&self.pool)
                .await?
                .rows_affected())
            }
        }
    };
}

pub(super) use {
    elicitation_cols, end_pending_where, impl_store, invite_cols, member_select, membership_select,
    server_cols, token_cols,
};
