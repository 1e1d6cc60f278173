//! An organisation's own identity provider, and the e-mail domains it may
//! assert: claimed by the organisation, confirmed by the operator (`herald
//! domains confirm`). A provider of an organisation's choosing can assert any
//! e-mail address, so only a confirmed domain lets it sign people in, make
//! accounts or link existing ones.
//!
//! The trait, and its SQL for both databases (`impl_org_providers!`,
//! instantiated in `postgres.rs` and `sqlite.rs`).

use super::*;

/// How many domains one organisation may claim.
pub const MAX_DOMAINS_PER_ORG: i64 = 20;

/// An organisation's identity provider, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrgProvider {
    pub org_id: Uuid,
    pub issuer: String,
    pub client_id: String,
    pub client_secret_sealed: Vec<u8>,
    pub display_name: String,
    pub default_role: Role,
    pub groups_claim: Option<String>,
    /// Group names to roles, highest role first.
    pub role_map: Vec<(String, Role)>,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

/// A domain an organisation claimed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrgDomain {
    pub org_id: Uuid,
    pub domain: String,
    pub claimed_at: OffsetDateTime,
    /// When the operator confirmed it; `None` while it waits.
    pub confirmed_at: Option<OffsetDateTime>,
}

/// What setting a provider did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProviderSaved {
    /// There was one before.
    pub replaced: bool,
    /// Its issuer changed, so the links of its old subjects to accounts were dropped.
    pub identities_dropped: u64,
}

#[async_trait::async_trait]
pub trait OrgProviders: Send + Sync {
    async fn org_provider(&self, org_id: Uuid) -> Result<Option<OrgProvider>>;
    /// Sets (or replaces) the organisation's provider; when the issuer changes, the identities
    /// of `identity_key` (its subjects' links to accounts) are dropped in the same transaction.
    async fn put_org_provider(&self, provider: &OrgProvider, identity_key: &str) -> Result<ProviderSaved>;
    /// Removes the provider and its identities; `false` when there was none.
    async fn delete_org_provider(&self, org_id: Uuid, identity_key: &str) -> Result<bool>;
    async fn org_domains(&self, org_id: Uuid) -> Result<Vec<OrgDomain>>;
    /// Every claim on every organisation, with the organisation (for the operator).
    async fn all_org_domains(&self) -> Result<Vec<(Org, OrgDomain)>>;
    /// Claims `domain` (lowercase) for the organisation; nothing changes when it already has.
    /// `Conflict::TooManyDomains` past [`MAX_DOMAINS_PER_ORG`].
    async fn claim_domain(&self, org_id: Uuid, domain: &str, now: OffsetDateTime) -> Result<OrgDomain>;
    /// Drops a claim (confirmed or not); `false` when there was none.
    async fn drop_domain(&self, org_id: Uuid, domain: &str) -> Result<bool>;
    /// The operator confirms `domain` is the organisation's (claiming it when it was not);
    /// `Conflict::DomainTaken` when another organisation has it confirmed.
    async fn confirm_domain(&self, org_id: Uuid, domain: &str, now: OffsetDateTime) -> Result<OrgDomain>;
    /// The organisation `domain` is confirmed for, if it has its own provider.
    async fn org_signing_in_domain(&self, domain: &str) -> Result<Option<Org>>;
}

#[derive(sqlx::FromRow)]
pub(crate) struct ProviderRow {
    org_id: Uuid,
    issuer: String,
    client_id: String,
    client_secret_sealed: Vec<u8>,
    display_name: String,
    default_role: String,
    groups_claim: Option<String>,
    role_map: String,
    created_at: DbTime,
    updated_at: DbTime,
}

impl ProviderRow {
    pub(crate) fn provider(self) -> Result<OrgProvider> {
        let default_role = Role::parse(&self.default_role)
            .ok_or_else(|| StoreError::Unreadable("an identity provider's default role".into()))?;
        let pairs: Vec<(String, String)> = serde_json::from_str(&self.role_map)
            .map_err(|_| StoreError::Unreadable("an identity provider's role map".into()))?;
        let role_map = pairs
            .into_iter()
            .map(|(group, role)| Role::parse(&role).map(|r| (group, r)))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| StoreError::Unreadable("an identity provider's role map".into()))?;
        Ok(OrgProvider {
            org_id: self.org_id,
            issuer: self.issuer,
            client_id: self.client_id,
            client_secret_sealed: self.client_secret_sealed,
            display_name: self.display_name,
            default_role,
            groups_claim: self.groups_claim,
            role_map,
            created_at: self.created_at.0,
            updated_at: self.updated_at.0,
        })
    }
}

pub(crate) fn role_map_json(map: &[(String, Role)]) -> String {
    let pairs: Vec<(&str, &str)> = map.iter().map(|(g, r)| (g.as_str(), r.as_str())).collect();
    serde_json::to_string(&pairs).expect("pairs of strings serialise")
}

#[derive(sqlx::FromRow)]
pub(crate) struct DomainRow {
    org_id: Uuid,
    domain: String,
    claimed_at: DbTime,
    confirmed_at: Option<DbTime>,
}

impl From<DomainRow> for OrgDomain {
    fn from(r: DomainRow) -> Self {
        OrgDomain {
            org_id: r.org_id,
            domain: r.domain,
            claimed_at: r.claimed_at.0,
            confirmed_at: r.confirmed_at.map(|t| t.0),
        }
    }
}

#[derive(sqlx::FromRow)]
pub(crate) struct OrgDomainRow {
    id: Uuid,
    slug: String,
    name: String,
    created_at: DbTime,
    domain: String,
    claimed_at: DbTime,
    confirmed_at: Option<DbTime>,
}

impl From<OrgDomainRow> for (Org, OrgDomain) {
    fn from(r: OrgDomainRow) -> Self {
        (
            Org { id: r.id, slug: r.slug, name: r.name, created_at: r.created_at.0 },
            OrgDomain {
                org_id: r.id,
                domain: r.domain,
                claimed_at: r.claimed_at.0,
                confirmed_at: r.confirmed_at.map(|t| t.0),
            },
        )
    }
}

macro_rules! impl_org_providers {
    ($store:ty, $db:ty) => {
        #[async_trait::async_trait]
        impl $crate::storage::org_providers::OrgProviders for $store {
            async fn org_provider(
                &self,
                org_id: uuid::Uuid,
            ) -> $crate::storage::Result<Option<$crate::storage::org_providers::OrgProvider>> {
                let row: Option<$crate::storage::org_providers::ProviderRow> = sqlx::query_as(
                    "SELECT org_id, issuer, client_id, client_secret_sealed, display_name, default_role, \
                     groups_claim, role_map, created_at, updated_at FROM org_identity_providers WHERE org_id = $1",
                )
                .bind(org_id)
                .fetch_optional(&self.pool)
                .await?;
                row.map(|r| r.provider()).transpose()
            }

            async fn put_org_provider(
                &self,
                p: &$crate::storage::org_providers::OrgProvider,
                identity_key: &str,
            ) -> $crate::storage::Result<$crate::storage::org_providers::ProviderSaved> {
                use $crate::storage::DbTime;
                let mut tx = self.begin_write().await?;
                let before: Option<String> =
                    sqlx::query_scalar("SELECT issuer FROM org_identity_providers WHERE org_id = $1")
                        .bind(p.org_id)
                        .fetch_optional(&mut *tx)
                        .await?;
                let mut identities_dropped = 0;
                if before.as_deref().is_some_and(|issuer| issuer != p.issuer) {
                    identities_dropped = sqlx::query("DELETE FROM identities WHERE provider = $1")
                        .bind(identity_key)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                }
                sqlx::query(
                    "INSERT INTO org_identity_providers (org_id, issuer, client_id, client_secret_sealed, \
                     display_name, default_role, groups_claim, role_map, created_at, updated_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (org_id) DO UPDATE SET \
                     issuer = excluded.issuer, client_id = excluded.client_id, \
                     client_secret_sealed = excluded.client_secret_sealed, display_name = excluded.display_name, \
                     default_role = excluded.default_role, groups_claim = excluded.groups_claim, \
                     role_map = excluded.role_map, updated_at = excluded.updated_at",
                )
                .bind(p.org_id)
                .bind(&p.issuer)
                .bind(&p.client_id)
                .bind(&p.client_secret_sealed)
                .bind(&p.display_name)
                .bind(p.default_role.as_str())
                .bind(&p.groups_claim)
                .bind($crate::storage::org_providers::role_map_json(&p.role_map))
                .bind(DbTime(p.created_at))
                .bind(DbTime(p.updated_at))
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
                Ok($crate::storage::org_providers::ProviderSaved {
                    replaced: before.is_some(),
                    identities_dropped,
                })
            }

            async fn delete_org_provider(
                &self,
                org_id: uuid::Uuid,
                identity_key: &str,
            ) -> $crate::storage::Result<bool> {
                let mut tx = self.begin_write().await?;
                let gone = sqlx::query("DELETE FROM org_identity_providers WHERE org_id = $1")
                    .bind(org_id)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                sqlx::query("DELETE FROM identities WHERE provider = $1")
                    .bind(identity_key)
                    .execute(&mut *tx)
                    .await?;
                tx.commit().await?;
                Ok(gone > 0)
            }

            async fn org_domains(
                &self,
                org_id: uuid::Uuid,
            ) -> $crate::storage::Result<Vec<$crate::storage::org_providers::OrgDomain>> {
                let rows: Vec<$crate::storage::org_providers::DomainRow> = sqlx::query_as(
                    "SELECT org_id, domain, claimed_at, confirmed_at FROM org_domains WHERE org_id = $1 \
                     ORDER BY domain",
                )
                .bind(org_id)
                .fetch_all(&self.pool)
                .await?;
                Ok(rows.into_iter().map(Into::into).collect())
            }

            async fn all_org_domains(
                &self,
            ) -> $crate::storage::Result<
                Vec<($crate::storage::Org, $crate::storage::org_providers::OrgDomain)>,
            > {
                let rows: Vec<$crate::storage::org_providers::OrgDomainRow> = sqlx::query_as(
                    "SELECT o.id, o.slug, o.name, o.created_at, d.domain, d.claimed_at, d.confirmed_at \
                     FROM org_domains d JOIN orgs o ON o.id = d.org_id ORDER BY d.domain, o.slug",
                )
                .fetch_all(&self.pool)
                .await?;
                Ok(rows.into_iter().map(Into::into).collect())
            }

            async fn claim_domain(
                &self,
                org_id: uuid::Uuid,
                domain: &str,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<$crate::storage::org_providers::OrgDomain> {
                use $crate::storage::{Conflict, DbTime, StoreError};
                use $crate::storage::org_providers::{DomainRow, MAX_DOMAINS_PER_ORG};
                let mut tx = self.begin_write().await?;
                let existing: Option<DomainRow> = sqlx::query_as(
                    "SELECT org_id, domain, claimed_at, confirmed_at FROM org_domains \
                     WHERE org_id = $1 AND domain = $2",
                )
                .bind(org_id)
                .bind(domain)
                .fetch_optional(&mut *tx)
                .await?;
                if let Some(row) = existing {
                    return Ok(row.into());
                }
                let claimed: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM org_domains WHERE org_id = $1")
                    .bind(org_id)
                    .fetch_one(&mut *tx)
                    .await?;
                if claimed >= MAX_DOMAINS_PER_ORG {
                    return Err(StoreError::Conflict(Conflict::TooManyDomains));
                }
                sqlx::query("INSERT INTO org_domains (org_id, domain, claimed_at) VALUES ($1, $2, $3)")
                    .bind(org_id)
                    .bind(domain)
                    .bind(DbTime(now))
                    .execute(&mut *tx)
                    .await?;
                tx.commit().await?;
                Ok($crate::storage::org_providers::OrgDomain {
                    org_id,
                    domain: domain.to_owned(),
                    claimed_at: now,
                    confirmed_at: None,
                })
            }

            async fn drop_domain(&self, org_id: uuid::Uuid, domain: &str) -> $crate::storage::Result<bool> {
                let gone = sqlx::query("DELETE FROM org_domains WHERE org_id = $1 AND domain = $2")
                    .bind(org_id)
                    .bind(domain)
                    .execute(&self.pool)
                    .await?
                    .rows_affected();
                Ok(gone > 0)
            }

            async fn confirm_domain(
                &self,
                org_id: uuid::Uuid,
                domain: &str,
                now: time::OffsetDateTime,
            ) -> $crate::storage::Result<$crate::storage::org_providers::OrgDomain> {
                use $crate::storage::{Conflict, DbTime, StoreError};
                let mut tx = self.begin_write().await?;
                let elsewhere: i64 = sqlx::query_scalar(
                    "SELECT COUNT(*) FROM org_domains WHERE domain = $1 AND org_id <> $2 \
                     AND confirmed_at IS NOT NULL",
                )
                .bind(domain)
                .bind(org_id)
                .fetch_one(&mut *tx)
                .await?;
                if elsewhere > 0 {
                    return Err(StoreError::Conflict(Conflict::DomainTaken));
                }
                let row: $crate::storage::org_providers::DomainRow = sqlx::query_as(
                    "INSERT INTO org_domains (org_id, domain, claimed_at, confirmed_at) VALUES ($1, $2, $3, $3) \
                     ON CONFLICT (org_id, domain) DO UPDATE SET \
                     confirmed_at = COALESCE(org_domains.confirmed_at, excluded.confirmed_at) \
                     RETURNING org_id, domain, claimed_at, confirmed_at",
                )
                .bind(org_id)
                .bind(domain)
                .bind(DbTime(now))
                .fetch_one(&mut *tx)
                .await?;
                tx.commit().await?;
                Ok(row.into())
            }

            async fn org_signing_in_domain(
                &self,
                domain: &str,
            ) -> $crate::storage::Result<Option<$crate::storage::Org>> {
                let row: Option<$crate::storage::rows::OrgRow> = sqlx::query_as(
                    "SELECT o.id, o.slug, o.name, o.created_at FROM org_domains d \
                     JOIN orgs o ON o.id = d.org_id JOIN org_identity_providers p ON p.org_id = d.org_id \
                     WHERE d.domain = $1 AND d.confirmed_at IS NOT NULL",
                )
                .bind(domain)
                .fetch_optional(&self.pool)
                .await?;
                Ok(row.map(Into::into))
            }
        }
    };
}
pub(crate) use impl_org_providers;
