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

/// What a socket may see, by the credential that opened it: a dashboard
/// sign-in sees the person's every organisation; an API token, its own
/// organisation only. The socket lives as long as its credential does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Session { session_id: Uuid },
    Token { token_id: Uuid, org_id: Uuid },
}

impl Scope {
    /// Whether an event of `org_id` is for this socket.
    pub fn sees(&self, org_id: Uuid) -> bool {
        match self {
            Scope::Session { .. } => true,
            Scope::Token { org_id: own, .. } => *own == org_id,
        }
    }
}

/// One socket in the hub: its id, what it may see, its queue, and whether its
/// page is visible (the dashboard reports it; a socket counts as visible until it says otherwise).
struct Socket {
    id: u64,
    scope: Scope,
    tx: mpsc::Sender<Utf8Bytes>,
    visible: bool,
}

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
    pub fn join(&self, user_id: Uuid, scope: Scope) -> (Seat, mpsc::Receiver<Utf8Bytes>) {
        let (tx, rx) = mpsc::channel(SOCKET_QUEUE);
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.sockets.lock().expect("hub lock").entry(user_id).or_default().push(Socket {
            id,
            scope,
            tx,
            visible: true,
        });
        (Seat { user_id, id }, rx)
    }

    pub fn leave(&self, seat: &Seat) {
        let mut sockets = self.sockets.lock().expect("hub lock");
        if let Some(list) = sockets.get_mut(&seat.user_id) {
            list.retain(|s| s.id != seat.id);
            if list.is_empty() {
                sockets.remove(&seat.user_id);
            }
        }
    }

    /// The socket's page became visible or hidden.
    pub fn set_visible(&self, seat: &Seat, visible: bool) {
        let mut sockets = self.sockets.lock().expect("hub lock");
        if let Some(socket) =
            sockets.get_mut(&seat.user_id).and_then(|l| l.iter_mut().find(|s| s.id == seat.id))
        {
            socket.visible = visible;
        }
    }

    /// Whether `user_id` has a visible dashboard on this replica.
    pub fn is_looking(&self, user_id: Uuid) -> bool {
        looking(self.sockets.lock().expect("hub lock").get(&user_id))
    }

    /// Closes the sockets `which` picks (their credential ended): their queue
    /// ends, and so does the socket.
    pub fn close_where(&self, which: impl Fn(Uuid, &Scope) -> bool) {
        let mut sockets = self.sockets.lock().expect("hub lock");
        for (user_id, list) in sockets.iter_mut() {
            list.retain(|s| !which(*user_id, &s.scope));
        }
        sockets.retain(|_, list| !list.is_empty());
    }

    /// Sends `event`, about organisation `org_id`, to every socket of
    /// `user_id` on this replica that may see that organisation.
    pub fn publish(&self, user_id: Uuid, org_id: Uuid, event: &impl Serialize) {
        let mut sockets = self.sockets.lock().expect("hub lock");
        let Some(list) = sockets.get_mut(&user_id) else { return };
        let text = Utf8Bytes::from(serde_json::to_string(event).expect("events serialize"));
        list.retain(|socket| {
            !socket.scope.sees(org_id)
                || match socket.tx.try_send(text.clone()) {
                    Ok(()) => true,
                    Err(mpsc::error::TrySendError::Full(_)) => {
                        tracing::warn!(%user_id, "dropping a dashboard socket that cannot keep up");
                        false
                    }
                    Err(mpsc::error::TrySendError::Closed(_)) => false,
                }
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

fn looking(list: Option<&Vec<Socket>>) -> bool {
    list.is_some_and(|l| l.iter().any(|s| s.visible))
}
