//! What every agent call would otherwise read from the database — the
//! caller's token, the server it names, the org's policy — kept per replica
//! for a few seconds. A change (revoking a token, removing a member, editing
//! a server or the policy) drops the affected entries on the replica that
//! made it at once, and on every other replica as soon as its NOTIFY arrives
//! (`crate::replicas::Forget`); `TTL` bounds what a missed notification could leave behind.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use herald_policy::OrgPolicy;
use uuid::Uuid;

use crate::replicas::Forget;
use crate::storage::{Server, TokenPrincipal};

pub const TTL: Duration = Duration::from_secs(5);
/// Entries beyond this are dropped wholesale rather than grown without bound.
const MAX_ENTRIES: usize = 100_000;

struct Shelf<K, V> {
    entries: Mutex<HashMap<K, (V, Instant)>>,
}

impl<K: Eq + Hash, V: Clone> Shelf<K, V> {
    fn new() -> Self {
        Self { entries: Mutex::new(HashMap::new()) }
    }

    fn get(&self, key: &K) -> Option<V> {
        let entries = self.entries.lock().expect("cache lock");
        entries.get(key).filter(|(_, at)| at.elapsed() < TTL).map(|(v, _)| v.clone())
    }

    fn put(&self, key: K, value: V) {
        let mut entries = self.entries.lock().expect("cache lock");
        if entries.len() >= MAX_ENTRIES {
            entries.clear();
        }
        entries.insert(key, (value, Instant::now()));
    }

    fn retain(&self, keep: impl Fn(&K, &V) -> bool) {
        self.entries.lock().expect("cache lock").retain(|k, (v, _)| keep(k, v));
    }
}

pub struct Caches {
    /// By the SHA-256 of the token's secret.
    tokens: Shelf<Vec<u8>, Arc<TokenPrincipal>>,
    /// By org and server slug; `None` remembers that there is no such server.
    servers: Shelf<(Uuid, String), Option<Arc<Server>>>,
    policies: Shelf<Uuid, Arc<OrgPolicy>>,
    /// Whether a user is (still) a member of an org, by org and user.
    members: Shelf<(Uuid, Uuid), bool>,
}

impl Default for Caches {
    fn default() -> Self {
        Self { tokens: Shelf::new(), servers: Shelf::new(), policies: Shelf::new(), members: Shelf::new() }
    }
}

impl Caches {
    pub fn token(&self, hash: &[u8]) -> Option<Arc<TokenPrincipal>> {
        self.tokens.get(&hash.to_vec())
    }

    pub fn put_token(&self, hash: Vec<u8>, principal: Arc<TokenPrincipal>) {
        self.tokens.put(hash, principal);
    }

    /// A token was revoked.
    pub fn forget_token(&self, token_id: Uuid) {
        self.tokens.retain(|_, p| p.token_id != token_id);
    }

    /// A member's role changed or they left: their tokens in the org must be re-read.
    pub fn forget_member(&self, org_id: Uuid, user_id: Uuid) {
        self.tokens.retain(|_, p| !(p.membership.org.id == org_id && p.user.id == user_id));
        self.members.retain(|key, _| *key != (org_id, user_id));
    }

    pub fn is_member(&self, org_id: Uuid, user_id: Uuid) -> Option<bool> {
        self.members.get(&(org_id, user_id))
    }

    pub fn put_member(&self, org_id: Uuid, user_id: Uuid, member: bool) {
        self.members.put((org_id, user_id), member);
    }

    pub fn server(&self, org_id: Uuid, slug: &str) -> Option<Option<Arc<Server>>> {
        self.servers.get(&(org_id, slug.to_owned()))
    }

    pub fn put_server(&self, org_id: Uuid, slug: &str, server: Option<Arc<Server>>) {
        self.servers.put((org_id, slug.to_owned()), server);
    }

    /// A server was registered, edited, cut off, restored or deleted.
    pub fn forget_server(&self, org_id: Uuid, slug: &str) {
        self.servers.retain(|(org, s), _| !(*org == org_id && s == slug));
    }

    pub fn policy(&self, org_id: Uuid) -> Option<Arc<OrgPolicy>> {
        self.policies.get(&org_id)
    }

    pub fn put_policy(&self, org_id: Uuid, policy: Arc<OrgPolicy>) {
        self.policies.put(org_id, policy);
    }

    pub fn forget_policy(&self, org_id: Uuid) {
        self.policies.retain(|org, _| *org != org_id);
    }
}

impl Caches {
    pub fn apply(&self, change: &Forget) {
        match change {
            Forget::CachedToken { token_id } => self.forget_token(*token_id),
            Forget::CachedMember { org_id, user_id, .. } => self.forget_member(*org_id, *user_id),
            Forget::CachedServer { org_id, slug, .. } => self.forget_server(*org_id, slug),
            Forget::CachedPolicy { org_id } => self.forget_policy(*org_id),
            // Nothing cached rests on a sign-in: each request checks its session row.
            Forget::SessionEnded { .. } | Forget::SessionsEnded { .. } => {}
        }
    }
}
