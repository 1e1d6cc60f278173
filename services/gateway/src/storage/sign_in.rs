//! Signing in through an identity provider: the attempts under way, who each
//! provider's subjects are here, and each organisation's sign-in rules
//! (password allowed or not, people it removed).
//!
//! The trait, and its SQL for both databases (`impl_sign_ins!`, instantiated
//! in `postgres.rs` and `sqlite.rs`).

use super::*;

/// A sign-in under way, as stored until the browser comes back.
#[derive(Debug, Clone, PartialEq)]
pub struct SignInAttempt {
    /// SHA-256 of the `state` sent to the provider.
    pub state_hash: Vec<u8>,
    pub provider: String,
    /// SHA-256 of the cookie that binds the attempt to the browser that started it.
    pub browser_hash: Vec<u8>,
    pub nonce: String,
    pub pkce_verifier_sealed: Vec<u8>,
    /// Where the dashboard goes afterwards (a path on Herald).
    pub return_to: String,
    pub created_at: OffsetDateTime,
    pub expires_at: OffsetDateTime,
}

/// Who the provider said signed in.
#[derive(Debug, Clone)]
pub struct ProviderIdentity<'a> {
    /// `instance` or `org:<uuid>`.
    pub provider: &'a str,
    pub subject: &'a str,
    pub email: &'a str,
    pub name: &'a str,
}

/// Membership that comes with a sign-in ("just in time").
#[derive(Debug, Clone, Copy)]
pub struct JoinRule {
    pub org_id: Uuid,
    /// The role a newcomer gets (the default, or what the groups claim maps to).
    pub role: Role,
    /// Whether the provider decides the role of existing members too (a groups mapping is
    /// configured); an owner's role is never changed this way.
    pub provider_decides_role: bool,
}

/// What a sign-in through a provider did.
#[derive(Debug, Clone, PartialEq)]
pub struct SsoSignedIn {
    pub user: User,
    /// The account was created for this sign-in.
    pub created: bool,
    /// The provider's subject was linked to the account now (an existing account, by e-mail).
    pub linked: bool,
    /// The person became a member with this role.
    pub joined: Option<Role>,
    /// Their role was changed from the first to the second (the groups mapping).
    pub role_changed: Option<(Role, Role)>,
    /// The organisation removed them: they were not made a member again.
    pub blocked: bool,
}

#[async_trait::async_trait]
pub trait SignIns: Send + Sync {
    async fn put_sign_in_attempt(&self, attempt: &SignInAttempt) -> Result<()>;
    /// Takes the attempt `state_hash` names (it is gone afterwards, whatever the caller
    /// decides), or `None` when there is none or it expired. Expired attempts are forgotten.
    async fn take_sign_in_attempt(
        &self,
        state_hash: &[u8],
        now: OffsetDateTime,
    ) -> Result<Option<SignInAttempt>>;
    /// Finds or makes the account `identity` names, in one transaction: a subject seen before
    /// names its account; else, when `link_by_email`, an account with the e-mail is linked;
    /// else a new account without a password is made (`Conflict::EmailTaken` when the e-mail
    /// belongs to an account the provider may not link). Then `join`, unless the organisation
    /// removed the person.
    async fn sso_sign_in(
        &self,
        identity: ProviderIdentity<'_>,
        link_by_email: bool,
        join: Option<JoinRule>,
        now: OffsetDateTime,
    ) -> Result<SsoSignedIn>;
    /// Whether `user_id` has signed in through `provider`.
    async fn has_identity(&self, user_id: Uuid, provider: &str) -> Result<bool>;
    /// Whether the organisation's members may sign in with a password.
    async fn password_sign_in(&self, org_id: Uuid) -> Result<bool>;
    async fn set_password_sign_in(&self, org_id: Uuid, allowed: bool) -> Result<()>;
    /// The first organisation of `user_id`'s that has turned password sign-in off.
    async fn password_refused_by(&self, user_id: Uuid) -> Result<Option<Org>>;
    /// The organisation a provider signs people in to.
    async fn org_by_slug(&self, slug: &str) -> Result<Option<Org>>;
    async fn org_by_id(&self, org_id: Uuid) -> Result<Option<Org>>;
}

#[derive(sqlx::FromRow)]
pub(crate) struct AttemptRow {
    state_hash: Vec<u8>,
    provider: String,
    browser_hash: Vec<u8>,
    nonce: String,
    pkce_verifier_sealed: Vec<u8>,
    return_to: String,
    created_at: DbTime,
    expires_at: DbTime,
}

impl From<AttemptRow> for SignInAttempt {
    fn from(r: AttemptRow) -> Self {
        SignInAttempt {
            state_hash: r.state_hash,
            provider: r.provider,
            browser_hash: r.browser_hash,
            nonce: r.nonce,
            pkce_verifier_sealed: r.pkce_verifier_sealed,
            return_to: r.return_to,
            created_at: r.created_at.0,
            expires_at: r.expires_at.0,
        }
    }
}

macro_rules! impl_sign_ins {
    ($store:ty, $db:ty) => {
        #[async_trait::async_trait]
        impl $crate::storage::sign_in::SignIns for $store {
            async fn put_sign_in_attempt(
                &self,
                a: &$crate::storage::sign_in::SignInAttempt,
            ) -> $crate::storage::Result<()> {
                use $crate::storage::DbTime;
                sqlx::query(
                    "INSERT INTO sign_in_attempts (state_hash, provider, browser_hash, nonce, \
                     pkce_verifier_sealed, return_to, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                )
                .bind(&a.state_hash)
                .bind(&a.provider)
                .bind(&a.browser_hash)
                .bind(&a.nonce)
                .bind(&a.pkce_verifier_sealed)
                .bind(&a.return_to)
                .bind(DbTime(a.created_at))
                .bind(DbTime(a.expires_at))
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn take_sign_in_attempt(
                &self,
                state_hash: &[u8],
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<Option<$crate::storage::sign_in::SignInAttempt>> {
                use $crate::storage::DbTime;
                // The delete is the compare-and-set that makes a state good once, on every replica.
                let row: Option<$crate::storage::sign_in::AttemptRow> = sqlx::query_as(
                    "DELETE FROM sign_in_attempts WHERE state_hash = $1 RETURNING state_hash, provider, \
                     browser_hash, nonce, pkce_verifier_sealed, return_to, created_at, expires_at",
                )
                .bind(state_hash)
                .fetch_optional(&self.pool)
                .await?;
                sqlx::query("DELETE FROM sign_in_attempts WHERE expires_at <= $1")
                    .bind(DbTime(now))
                    .execute(&self.pool)
                    .await?;
                Ok(row.map($crate::storage::sign_in::SignInAttempt::from).filter(|a| a.expires_at > now))
            }

            async fn sso_sign_in(
                &self,
                identity: $crate::storage::sign_in::ProviderIdentity<'_>,
                link_by_email: bool,
                join: Option<$crate::storage::sign_in::JoinRule>,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<$crate::storage::sign_in::SsoSignedIn> {
                use $crate::storage::{Conflict, DbTime, NewUser, StoreError, rows::UserRow};
                let mut tx = self.begin_write().await?;
                let known: Option<UserRow> = sqlx::query_as(
                    "SELECT u.id, u.email, u.name, u.password_hash, u.created_at FROM identities i \
                     JOIN users u ON u.id = i.user_id WHERE i.provider = $1 AND i.subject = $2",
                )
                .bind(identity.provider)
                .bind(identity.subject)
                .fetch_optional(&mut *tx)
                .await?;
                let (mut created, mut linked) = (false, false);
                let user = match known {
                    Some(row) => {
                        sqlx::query(
                            "UPDATE identities SET email = $3, last_seen_at = $4 WHERE provider = $1 AND subject = $2",
                        )
                        .bind(identity.provider)
                        .bind(identity.subject)
                        .bind(identity.email)
                        .bind(DbTime(now))
                        .execute(&mut *tx)
                        .await?;
                        row.user()
                    }
                    None => {
                        let existing: Option<UserRow> = sqlx::query_as(
                            "SELECT id, email, name, password_hash, created_at FROM users WHERE email = $1",
                        )
                        .bind(identity.email)
                        .fetch_optional(&mut *tx)
                        .await?;
                        let user = match existing {
                            Some(row) if link_by_email => {
                                linked = true;
                                row.user()
                            }
                            Some(_) => return Err(StoreError::Conflict(Conflict::EmailTaken)),
                            None => {
                                created = true;
                                // No password: this account signs in through its provider.
                                let new = NewUser {
                                    email: identity.email.to_owned(),
                                    name: identity.name.to_owned(),
                                    password_hash: String::new(),
                                };
                                Self::insert_user(&mut tx, new, now).await?
                            }
                        };
                        sqlx::query(
                            "INSERT INTO identities (provider, subject, user_id, email, created_at, last_seen_at) \
                             VALUES ($1, $2, $3, $4, $5, $5)",
                        )
                        .bind(identity.provider)
                        .bind(identity.subject)
                        .bind(user.id)
                        .bind(identity.email)
                        .bind(DbTime(now))
                        .execute(&mut *tx)
                        .await?;
                        user
                    }
                };
                let (mut joined, mut role_changed, mut blocked) = (None, None, false);
                if let Some(rule) = join {
                    let current: Option<String> =
                        sqlx::query_scalar("SELECT role FROM memberships WHERE org_id = $1 AND user_id = $2")
                            .bind(rule.org_id)
                            .bind(user.id)
                            .fetch_optional(&mut *tx)
                            .await?;
                    match current.as_deref().map($crate::domain::Role::parse) {
                        Some(Some(role)) => {
                            if rule.provider_decides_role && role != $crate::domain::Role::Owner && role != rule.role {
                                sqlx::query("UPDATE memberships SET role = $3 WHERE org_id = $1 AND user_id = $2")
                                    .bind(rule.org_id)
                                    .bind(user.id)
                                    .bind(rule.role.as_str())
                                    .execute(&mut *tx)
                                    .await?;
                                role_changed = Some((role, rule.role));
                            }
                        }
                        Some(None) => return Err(StoreError::Unreadable("a membership's role".into())),
                        None => {
                            // COUNT: a bigint on PostgreSQL and an integer on SQLite, an i64 on both.
                            let removed: i64 = sqlx::query_scalar(
                                "SELECT COUNT(*) FROM membership_blocks WHERE org_id = $1 AND user_id = $2",
                            )
                            .bind(rule.org_id)
                            .bind(user.id)
                            .fetch_one(&mut *tx)
                            .await?;
                            if removed > 0 {
                                blocked = true;
                            } else {
                                Self::insert_membership(&mut tx, rule.org_id, user.id, rule.role, now).await?;
                                joined = Some(rule.role);
                            }
                        }
                    }
                }
                tx.commit().await?;
                Ok($crate::storage::sign_in::SsoSignedIn { user, created, linked, joined, role_changed, blocked })
            }

            async fn has_identity(&self, user_id: uuid::Uuid, provider: &str) -> $crate::storage::Result<bool> {
                let found: i64 =
                    sqlx::query_scalar("SELECT COUNT(*) FROM identities WHERE user_id = $1 AND provider = $2")
                        .bind(user_id)
                        .bind(provider)
                        .fetch_one(&self.pool)
                        .await?;
                Ok(found > 0)
            }

            async fn password_sign_in(&self, org_id: uuid::Uuid) -> $crate::storage::Result<bool> {
                let allowed: Option<bool> = sqlx::query_scalar("SELECT password_sign_in FROM orgs WHERE id = $1")
                    .bind(org_id)
                    .fetch_optional(&self.pool)
                    .await?;
                allowed.ok_or($crate::storage::StoreError::NotFound)
            }

            async fn set_password_sign_in(&self, org_id: uuid::Uuid, allowed: bool) -> $crate::storage::Result<()> {
                let done = sqlx::query("UPDATE orgs SET password_sign_in = $2 WHERE id = $1")
                    .bind(org_id)
                    .bind(allowed)
                    .execute(&self.pool)
                    .await?;
                if done.rows_affected() == 0 {
                    return Err($crate::storage::StoreError::NotFound);
                }
                Ok(())
            }

            async fn password_refused_by(
                &self,
                user_id: uuid::Uuid,
            ) -> $crate::storage::Result<Option<$crate::storage::Org>> {
                let row: Option<$crate::storage::rows::OrgRow> = sqlx::query_as(
                    "SELECT o.id, o.slug, o.name, o.created_at FROM memberships m JOIN orgs o ON o.id = m.org_id \
                     WHERE m.user_id = $1 AND o.password_sign_in = $2 ORDER BY o.created_at LIMIT 1",
                )
                .bind(user_id)
                .bind(false)
                .fetch_optional(&self.pool)
                .await?;
                Ok(row.map(Into::into))
            }

            async fn org_by_slug(&self, slug: &str) -> $crate::storage::Result<Option<$crate::storage::Org>> {
                let row: Option<$crate::storage::rows::OrgRow> =
                    sqlx::query_as("SELECT id, slug, name, created_at FROM orgs WHERE slug = $1")
                        .bind(slug)
                        .fetch_optional(&self.pool)
                        .await?;
                Ok(row.map(Into::into))
            }

            async fn org_by_id(&self, org_id: uuid::Uuid) -> $crate::storage::Result<Option<$crate::storage::Org>> {
                let row: Option<$crate::storage::rows::OrgRow> =
                    sqlx::query_as("SELECT id, slug, name, created_at FROM orgs WHERE id = $1")
                        .bind(org_id)
                        .fetch_optional(&self.pool)
                        .await?;
                Ok(row.map(Into::into))
            }
        }
    };
}
pub(crate) use impl_sign_ins;
