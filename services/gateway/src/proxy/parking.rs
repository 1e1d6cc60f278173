//! Calls waiting for their 2026-07-28 agent to come back.
//!
//! A server may need something only the agent can give (a sampling answer,
//! its roots) in the middle of a call. A 2025-11-25 agent is asked on the
//! call's stream; a 2026-07-28 agent has no such channel: it is asked the
//! 2026-07-28 way, with an `input_required` result for its call, and answers
//! by retrying the call with `inputResponses` and the `requestState` it was
//! given. Meanwhile the call itself waits here, parked under a ticket (that
//! `requestState`), until the retry picks it up, on this replica, for the
//! person and the server it belongs to.

use std::collections::HashMap;
use std::sync::Mutex;

use base64::Engine;
use herald_mcp::RequestId;
use serde_json::{Map, Value};
use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

use super::call::Down;

/// What a ticket looks like in `requestState`.
const PREFIX: &str = "herald-park.";
/// Calls parked at once on one replica (each also holds its token's call slot).
const MAX_PARKED: usize = 10_000;

/// The agent's retry, taking its parked call back.
pub struct Resume {
    /// The retry's JSON-RPC id: the call's final answer carries it.
    pub id: RequestId,
    /// The retry's `inputResponses`.
    pub responses: Map<String, Value>,
    /// Where the rest of the call goes: the retry's response.
    pub down: mpsc::Sender<Down>,
    /// The retry's progress token, if it asked for progress.
    pub progress_token: Option<Value>,
}

struct Parked {
    user_id: Uuid,
    server_id: Uuid,
    resume: oneshot::Sender<Resume>,
}

#[derive(Default)]
pub struct Parking(Mutex<HashMap<String, Parked>>);

/// Why a retry cannot take a call back.
#[derive(Debug, PartialEq, Eq)]
pub enum Unparked {
    /// No such call waits here: it ended, it timed out, or another replica holds it.
    NotHere,
    /// Too many calls already wait on this replica.
    Full,
}

impl Parking {
    /// Whether `request_state` is one of Herald's tickets (and not the server's own state).
    pub fn is_ticket(request_state: &str) -> bool {
        request_state.starts_with(PREFIX)
    }

    /// Parks a call of `user_id` to `server_id`: its ticket, and the retry to come.
    pub fn park(
        &self,
        user_id: Uuid,
        server_id: Uuid,
    ) -> Result<(String, oneshot::Receiver<Resume>), Unparked> {
        let mut parked = self.0.lock().expect("parking lock");
        if parked.len() >= MAX_PARKED {
            return Err(Unparked::Full);
        }
        let ticket = format!(
            "{PREFIX}{}",
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(crate::crypto::random_bytes::<24>())
        );
        let (resume, rx) = oneshot::channel();
        parked.insert(ticket.clone(), Parked { user_id, server_id, resume });
        Ok((ticket, rx))
    }

    /// The call gave up waiting.
    pub fn forget(&self, ticket: &str) {
        self.0.lock().expect("parking lock").remove(ticket);
    }

    /// Hands the retry to the parked call, if it waits here for this person and server.
    pub fn resume(
        &self,
        ticket: &str,
        user_id: Uuid,
        server_id: Uuid,
        retry: Resume,
    ) -> Result<(), Unparked> {
        let mut parked = self.0.lock().expect("parking lock");
        // Someone else's ticket is no ticket: it is neither taken nor told apart from a missing one.
        if !parked.get(ticket).is_some_and(|p| p.user_id == user_id && p.server_id == server_id) {
            return Err(Unparked::NotHere);
        }
        let waiting = parked.remove(ticket).expect("checked above");
        waiting.resume.send(retry).map_err(|_| Unparked::NotHere)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn retry() -> (Resume, mpsc::Receiver<Down>) {
        let (down, rx) = mpsc::channel(1);
        (Resume { id: RequestId::Integer(2), responses: Map::new(), down, progress_token: None }, rx)
    }

    #[test]
    fn only_its_person_and_server_take_a_parked_call_back_and_only_once() {
        let parking = Parking::default();
        let (user, server) = (Uuid::new_v4(), Uuid::new_v4());
        let (ticket, mut rx) = parking.park(user, server).unwrap();
        assert!(Parking::is_ticket(&ticket));
        assert!(!Parking::is_ticket("v1.server-state"));
        assert_eq!(parking.resume(&ticket, Uuid::new_v4(), server, retry().0), Err(Unparked::NotHere));
        assert_eq!(parking.resume(&ticket, user, Uuid::new_v4(), retry().0), Err(Unparked::NotHere));
        assert_eq!(parking.resume(&ticket, user, server, retry().0), Ok(()));
        assert!(rx.try_recv().is_ok());
        assert_eq!(parking.resume(&ticket, user, server, retry().0), Err(Unparked::NotHere), "once");
    }
}
