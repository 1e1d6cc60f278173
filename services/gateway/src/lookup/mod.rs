//! The reads every request path shares, cached: who an API token belongs to,
//! a registered server, an organisation's policy, whether someone is still a
//! member, and the sealed header values a server is called with.
//!
//! Handlers (`api`) and the MCP endpoint (`proxy`, `broker`) both read through
//! here, so a cached entry is dropped in one place when something changes
//! (`Lookups::forget`), and no lower layer needs an HTTP handler's module.

pub mod cache;
pub mod headers;

use std::sync::Arc;

use herald_policy::OrgPolicy;
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

use cache::Caches;

use crate::crypto;
use crate::replicas::Forget;
use crate::storage::{Server, Store, StoreError, TokenPrincipal};

/// How often `last_used_at` is written for a busy token.
const TOKEN_TOUCH_INTERVAL: Duration = Duration::minutes(1);

pub struct Lookups {
    store: Arc<dyn Store>,
    caches: Caches,
}

impl Lookups {
    pub fn new(store: Arc<dyn Store>) -> Self {
        Self { store, caches: Caches::default() }
    }

    /// Drops what `change` made wrong (made here or on another replica).
    pub fn forget(&self, change: &Forget) {
        self.caches.apply(change);
    }

    /// The member and organisation an API token acts for; `None` for a token
    /// that is unknown, revoked or expired. Records its use (at most once a
    /// minute, off the request path).
    pub async fn token(&self, secret: &str) -> Result<Option<TokenPrincipal>, StoreError> {
        let now = OffsetDateTime::now_utc();
        let hash = crypto::token_hash(secret);
        let cached = self.caches.token(&hash).filter(|p| p.expires_at.is_none_or(|at| at > now));
        let principal = match cached {
            Some(principal) => principal,
            None => {
                let Some(found) = self.store.authenticate_api_token(&hash, now).await? else {
                    return Ok(None);
                };
                let found = Arc::new(found);
                self.caches.put_token(hash.clone(), found.clone());
                found
            }
        };
        if principal.last_used_at.is_none_or(|at| now - at >= TOKEN_TOUCH_INTERVAL) {
            // A missed write only makes `last_used_at` coarser.
            let mut touched = (*principal).clone();
            touched.last_used_at = Some(now);
            self.caches.put_token(hash, Arc::new(touched));
            let store = self.store.clone();
            let token_id = principal.token_id;
            tokio::spawn(async move {
                if let Err(e) = store.touch_api_token(token_id, now).await {
                    tracing::debug!(error = %e, "could not record token use");
                }
            });
        }
        Ok(Some((*principal).clone()))
    }

    /// The org's server `slug` as the registry has it now: every replica drops its
    /// entry before an edit, cut-off or deletion is answered.
    pub async fn server(&self, org_id: Uuid, slug: &str) -> Result<Option<Arc<Server>>, StoreError> {
        if let Some(cached) = self.caches.server(org_id, slug) {
            return Ok(cached);
        }
        let read = self.store.server(org_id, slug).await?.map(Arc::new);
        self.caches.put_server(org_id, slug, read.clone());
        Ok(read)
    }

    /// The org's policy; fields it never set read as their defaults.
    pub async fn policy(&self, org_id: Uuid) -> Result<OrgPolicy, StoreError> {
        if let Some(cached) = self.caches.policy(org_id) {
            return Ok((*cached).clone());
        }
        let policy = match self.store.policy(org_id).await? {
            None => OrgPolicy::default(),
            Some(stored) => serde_json::from_value(stored.document)
                .map_err(|e| StoreError::Unreadable(format!("the policy of org {org_id}: {e}")))?,
        };
        self.caches.put_policy(org_id, Arc::new(policy.clone()));
        Ok(policy)
    }

    /// Whether `user_id` is (still) a member of the org.
    /// A person's connection to a server that acts as each person: every replica drops its
    /// entry when the connection is made, renewed, refused or ended (`Forget::CachedConnection`).
    pub async fn connection(
        &self,
        server_id: Uuid,
        user_id: Uuid,
    ) -> Result<Option<Arc<crate::storage::connections::Connection>>, StoreError> {
        if let Some(cached) = self.caches.connection(server_id, user_id) {
            return Ok(cached);
        }
        let found = self.store.connection(server_id, user_id).await?.map(Arc::new);
        self.caches.put_connection(server_id, user_id, found.clone());
        Ok(found)
    }

    pub async fn is_member(&self, org_id: Uuid, org_slug: &str, user_id: Uuid) -> Result<bool, StoreError> {
        if let Some(known) = self.caches.is_member(org_id, user_id) {
            return Ok(known);
        }
        let found = self.store.membership(org_slug, user_id).await?;
        let member = found.is_some_and(|m| m.org.id == org_id);
        self.caches.put_member(org_id, user_id, member);
        Ok(member)
    }
}
