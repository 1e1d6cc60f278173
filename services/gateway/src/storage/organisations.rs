//! Organisations and who belongs to them: memberships and roles, invites, and
//! members' API tokens.
//!
//! The trait, and its SQL for both databases (`impl_organisations!`, instantiated in
//! `postgres.rs` and `sqlite.rs`; see `sql.rs` for what the two share).

use super::*;

#[async_trait::async_trait]
pub trait Organisations: Send + Sync {
    /// Creates an organisation with `owner` as its first owner.
    async fn create_org(&self, org: NewOrg, owner: Joiner, now: OffsetDateTime) -> Result<(Org, User)>;
    async fn memberships(&self, user_id: Uuid) -> Result<Vec<Membership>>;
    /// The user's membership in the org with this slug; `None` for non-members,
    /// which callers must treat exactly like a missing org.
    async fn membership(&self, org_slug: &str, user_id: Uuid) -> Result<Option<Membership>>;
    async fn members(&self, org_id: Uuid) -> Result<Vec<Member>>;
    /// Changes a role, as a member whose role is `actor`: refuses to demote
    /// the last owner, and lets only owners touch the owner role.
    /// Changes a member's role; returns the member as they are now and the
    /// role they had (read with the org locked, as the rules are checked).
    async fn set_role(&self, org_id: Uuid, user_id: Uuid, role: Role, actor: Role) -> Result<(Member, Role)>;
    /// Removes a member (and their API tokens for the org), as a member whose
    /// role is `actor`: refuses for the last owner; only owners remove owners.
    async fn remove_member(&self, org_id: Uuid, user_id: Uuid, actor: Role) -> Result<()>;
    async fn create_invite(&self, org_id: Uuid, invite: NewInvite, now: OffsetDateTime) -> Result<Invite>;
    async fn pending_invites(&self, org_id: Uuid, now: OffsetDateTime) -> Result<Vec<Invite>>;
    async fn revoke_invite(&self, org_id: Uuid, invite_id: Uuid, now: OffsetDateTime) -> Result<()>;
    /// A usable (pending, unexpired) invite and its org.
    async fn usable_invite(&self, token_hash: &[u8], now: OffsetDateTime) -> Result<Option<(Invite, Org)>>;
    /// Consumes the invite (first use wins) and adds the member.
    async fn accept_invite(
        &self,
        token_hash: &[u8],
        joiner: Joiner,
        now: OffsetDateTime,
    ) -> Result<(Membership, User)>;
    async fn create_api_token(
        &self,
        org_id: Uuid,
        user_id: Uuid,
        token: NewApiToken,
        now: OffsetDateTime,
    ) -> Result<ApiToken>;
    /// The user's live (unrevoked) tokens in the org.
    async fn api_tokens(&self, org_id: Uuid, user_id: Uuid) -> Result<Vec<ApiToken>>;
    async fn revoke_api_token(
        &self,
        org_id: Uuid,
        user_id: Uuid,
        token_id: Uuid,
        now: OffsetDateTime,
    ) -> Result<()>;
    /// The principal of a live, unexpired token whose user is still a member.
    async fn authenticate_api_token(
        &self,
        secret_hash: &[u8],
        now: OffsetDateTime,
    ) -> Result<Option<TokenPrincipal>>;
    async fn touch_api_token(&self, token_id: Uuid, now: OffsetDateTime) -> Result<()>;
    async fn org_ids(&self) -> Result<Vec<Uuid>>;
}

macro_rules! impl_organisations {
    ($store:ty, $db:ty) => {
        #[async_trait::async_trait]
        impl $crate::storage::organisations::Organisations for $store {
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
            ) -> $crate::storage::Result<($crate::storage::Member, $crate::domain::Role)> {
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
                Ok((row.member()?, current))
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
                // Signing in through the organisation's identity provider does not bring them back.
                sqlx::query(
                    "INSERT INTO membership_blocks (org_id, user_id, blocked_at) VALUES ($1, $2, $3) \
                     ON CONFLICT (org_id, user_id) DO NOTHING",
                )
                .bind(org_id)
                .bind(user_id)
                .bind($crate::storage::DbTime(time::OffsetDateTime::now_utc()))
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
                // An invite is how someone the organisation removed comes back.
                sqlx::query("DELETE FROM membership_blocks WHERE org_id = $1 AND user_id = $2")
                    .bind(invite.org_id)
                    .bind(user.id)
                    .execute(&mut *tx)
                    .await?;
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

            async fn org_ids(&self) -> $crate::storage::Result<Vec<uuid::Uuid>> {
                Ok(sqlx::query_scalar("SELECT id FROM orgs").fetch_all(&self.pool).await?)
            }
        }
    };
}

pub(super) use impl_organisations;
