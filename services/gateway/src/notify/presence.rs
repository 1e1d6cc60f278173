//! Presence across replicas: whether a person has a visible dashboard
//! anywhere. Each replica keeps its own sockets' visibility in the hub and
//! writes one row per person who is looking at it. Changes are coalesced per
//! person: a dashboard that toggles its visibility a thousand times queues
//! one entry, and the one writer task writes only what differs from the row.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};

use time::OffsetDateTime;
use tokio::sync::Notify;
use uuid::Uuid;

use crate::broker::Broker;

pub struct Presence {
    changes: Arc<Changes>,
}

/// The people whose dashboards changed since the writer last looked; at most
/// one entry each, so the set is bounded by the people with open sockets.
#[derive(Default)]
struct Changes {
    dirty: Mutex<HashSet<Uuid>>,
    wake: Notify,
    /// Set when the `Presence` goes: the writer stops.
    closed: AtomicBool,
}

impl Presence {
    /// The writer holds the broker weakly (and the store through it), so a
    /// stopped Herald lets go of its database at once.
    pub fn new(broker: Weak<Broker>) -> Self {
        let changes = Arc::new(Changes::default());
        tokio::spawn(write_rows(broker, changes.clone()));
        Self { changes }
    }

    /// Something about `user_id`'s dashboards changed here: their row is brought up to date.
    pub fn changed(&self, user_id: Uuid) {
        self.changes.dirty.lock().expect("presence lock").insert(user_id);
        self.changes.wake.notify_one();
    }
}

impl Drop for Presence {
    fn drop(&mut self) {
        self.changes.closed.store(true, Ordering::Release);
        self.changes.wake.notify_one();
    }
}

async fn write_rows(broker: Weak<Broker>, changes: Arc<Changes>) {
    // Who has a row from this replica (what was last written).
    let mut written: HashSet<Uuid> = HashSet::new();
    while !changes.closed.load(Ordering::Acquire) {
        let dirty = std::mem::take(&mut *changes.dirty.lock().expect("presence lock"));
        for user_id in dirty {
            let Some(broker) = broker.upgrade() else { return };
            let looking = broker.hub.is_looking(user_id);
            if looking == written.contains(&user_id) {
                continue;
            }
            match broker
                .store()
                .set_presence(user_id, broker.replica_id, looking, OffsetDateTime::now_utc())
                .await
            {
                Ok(()) if looking => {
                    written.insert(user_id);
                }
                Ok(()) => {
                    written.remove(&user_id);
                }
                // The next change writes the state again; the person counts as not looking meanwhile.
                Err(e) => tracing::warn!(error = %e, "could not record a dashboard's presence"),
            }
        }
        changes.wake.notified().await;
    }
}
