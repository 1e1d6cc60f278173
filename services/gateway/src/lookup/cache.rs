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
use crate::storage::connections::Connection;
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
    /// A person's connection to a server that acts as each person (tokens still sealed), by
    /// server and user; `None` remembers that there is none.
    connections: Shelf<(Uuid, Uuid), Option<Arc<Connection>>>,
}

impl Default for Caches {
    fn default() -> Self {
        Self {
            tokens: Shelf::new(),
            servers: Shelf::new(),
            policies: Shelf::new(),
            members: Shelf::new(),
            connections: Shelf::new(),
        }
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
        // Leaving takes their connections there with it.
        self.connections
            .retain(|(_, user), c| !(*user == user_id && c.as_ref().is_none_or(|c| c.org_id == org_id)));
    }

    pub fn connection(&self, server_id: Uuid, user_id: Uuid) -> Option<Option<Arc<Connection>>> {
        self.connections.get(&(server_id, user_id))
    }

    pub fn put_connection(&self, server_id: Uuid, user_id: Uuid, connection: Option<Arc<Connection>>) {
        self.connections.put((server_id, user_id), connection);
    }

    /// A person connected, was refreshed, refused or disconnected.
    pub fn forget_connection(&self, server_id: Uuid, user_id: Uuid) {
        self.connections.retain(|key, _| *key != (server_id, user_id));
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
    pub fn forget_server(&self, org_id: Uuid, slug: &str, server_id: Option<Uuid>) {
        self.servers.retain(|(org, s), _| !(*org == org_id && s == slug));
        // Its address, mode or client may have changed: everyone's connection goes.
        match server_id {
            Some(id) => self.connections.retain(|(server, _), _| *server != id),
            None => self.connections.retain(|_, _| false),
        }
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
            Forget::CachedServer { org_id, slug, server_id } => self.forget_server(*org_id, slug, *server_id),
            Forget::CachedConnection { server_id, user_id, .. } => {
                self.forget_connection(*server_id, *user_id)
            }
            Forget::CachedPolicy { org_id } => self.forget_policy(*org_id),
            // Nothing cached rests on a sign-in: each request checks its session row.
            Forget::SessionEnded { .. } | Forget::SessionsEnded { .. } => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn connection(org_id: Uuid, user_id: Uuid, server_id: Uuid) -> Option<Arc<Connection>> {
        let now = time::OffsetDateTime::now_utc();
        Some(Arc::new(Connection {
            org_id,
            user_id,
            server_id,
            issuer: "https://as.example".into(),
            resource: "https://mcp.example/mcp".into(),
            access_token_sealed: vec![1],
            refresh_token_sealed: None,
            scopes: "mcp:tools".into(),
            expires_at: None,
            connected_at: now,
            refreshed_at: now,
            wanted_scopes: String::new(),
        }))
    }

    #[test]
    fn a_connection_is_forgotten_with_its_change_its_server_or_its_person_leaving() {
        let caches = Caches::default();
        let (org, other_org, ada, bob, notes, mail) =
            (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
        let fill = || {
            caches.put_connection(notes, ada, connection(org, ada, notes));
            caches.put_connection(mail, ada, connection(other_org, ada, mail));
            caches.put_connection(notes, bob, None);
        };
        fill();
        caches.apply(&Forget::CachedConnection { server_id: notes, user_id: ada, ended: false });
        assert!(caches.connection(notes, ada).is_none(), "the changed one goes");
        assert!(caches.connection(mail, ada).is_some() && caches.connection(notes, bob).is_some());

        fill();
        caches.apply(&Forget::CachedServer { org_id: org, slug: "notes".into(), server_id: Some(notes) });
        assert!(caches.connection(notes, ada).is_none() && caches.connection(notes, bob).is_none());
        assert!(caches.connection(mail, ada).is_some(), "another server's stays");

        fill();
        caches.apply(&Forget::CachedMember { org_id: org, user_id: ada, left: true });
        assert!(caches.connection(notes, ada).is_none(), "leaving the org takes its connections");
        assert!(caches.connection(mail, ada).is_some(), "not those of another org");
        assert_eq!(caches.connection(notes, bob), Some(None), "nor anyone else's");
    }
}
