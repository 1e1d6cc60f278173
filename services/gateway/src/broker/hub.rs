//! Fan-out to dashboards: every open websocket of a user, on this replica.
//! Events are serialised once and shared; a socket that cannot keep up is
//! dropped (its dashboard reconnects and resyncs), so one slow browser never
//! holds up the others or grows memory without bound.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::extract::ws::Utf8Bytes;
use serde::Serialize;
use tokio::sync::mpsc;
use uuid::Uuid;

/// Events queued for one socket before it counts as too slow.
const SOCKET_QUEUE: usize = 256;

/// A socket's id in the hub, and its queue.
type Socket = (u64, mpsc::Sender<Utf8Bytes>);

#[derive(Default)]
pub struct Hub {
    sockets: Mutex<HashMap<Uuid, Vec<Socket>>>,
    next_id: AtomicU64,
}

/// One socket's place in the hub; pass it back to `leave`.
pub struct Seat {
    pub user_id: Uuid,
    id: u64,
}

impl Hub {
    pub fn join(&self, user_id: Uuid) -> (Seat, mpsc::Receiver<Utf8Bytes>) {
        let (tx, rx) = mpsc::channel(SOCKET_QUEUE);
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.sockets.lock().expect("hub lock").entry(user_id).or_default().push((id, tx));
        (Seat { user_id, id }, rx)
    }

    pub fn leave(&self, seat: &Seat) {
        let mut sockets = self.sockets.lock().expect("hub lock");
        if let Some(list) = sockets.get_mut(&seat.user_id) {
            list.retain(|(id, _)| *id != seat.id);
            if list.is_empty() {
                sockets.remove(&seat.user_id);
            }
        }
    }

    /// Sends `event` to every socket of `user_id` on this replica.
    pub fn publish(&self, user_id: Uuid, event: &impl Serialize) {
        let mut sockets = self.sockets.lock().expect("hub lock");
        let Some(list) = sockets.get_mut(&user_id) else { return };
        let text = Utf8Bytes::from(serde_json::to_string(event).expect("events serialize"));
        list.retain(|(_, tx)| match tx.try_send(text.clone()) {
            Ok(()) => true,
            Err(mpsc::error::TrySendError::Full(_)) => {
                tracing::warn!(%user_id, "dropping a dashboard socket that cannot keep up");
                false
            }
            Err(mpsc::error::TrySendError::Closed(_)) => false,
        });
        if list.is_empty() {
            sockets.remove(&user_id);
        }
    }

    /// Open sockets on this replica.
    pub fn connections(&self) -> usize {
        self.sockets.lock().expect("hub lock").values().map(Vec::len).sum()
    }
}
