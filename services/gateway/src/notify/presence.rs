//! Presence across replicas: whether a person has a visible dashboard
//! anywhere. Each replica keeps its own sockets' visibility in the hub and
//! writes one row per person who is looking at it; a single task writes the
//! rows in order, so a quick hide-show-hide never lands out of order.

use std::collections::HashSet;
use std::sync::Weak;

use time::OffsetDateTime;
use tokio::sync::mpsc;
use uuid::Uuid;

use crate::broker::Broker;

pub struct Presence {
    changes: mpsc::UnboundedSender<Uuid>,
}

impl Presence {
    /// The writer holds the broker weakly (and the store through it), so a
    /// stopped Herald lets go of its database at once.
    pub fn new(broker: Weak<Broker>) -> Self {
        let (changes, rx) = mpsc::unbounded_channel();
        tokio::spawn(write_rows(broker, rx));
        Self { changes }
    }

    /// Something about `user_id`'s dashboards changed here: their row is brought up to date.
    pub fn changed(&self, user_id: Uuid) {
        let _ = self.changes.send(user_id);
    }
}

async fn write_rows(broker: Weak<Broker>, mut changes: mpsc::UnboundedReceiver<Uuid>) {
    // Who has a row from this replica (what was last written).
    let mut written: HashSet<Uuid> = HashSet::new();
    while let Some(user_id) = changes.recv().await {
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
}
