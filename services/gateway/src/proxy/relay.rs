//! A server's own requests to its client other than elicitation
//! (`sampling/createMessage`, `roots/list`) in a 2025-11-25 session.
//!
//! Herald is the server's client, but it has no model and no file system of
//! its own: only the agent behind the link can answer these. Herald relays
//! such a request to a legacy agent that declared the capability (on the SSE
//! stream of the call it belongs to, or on the agent's standalone stream),
//! under an id of Herald's own, and carries the agent's answer (a POST in the
//! agent's session, on whichever replica it lands) back under the server's
//! id. Every other case gets a JSON-RPC error that says why, at once, so the
//! server never waits for an answer that cannot come. `ping` Herald answers
//! itself.

use std::collections::HashMap;
use std::sync::Mutex;

use herald_mcp::jsonrpc::{INTERNAL_ERROR, METHOD_NOT_FOUND};
use herald_mcp::{Message, RequestId};
use serde_json::{Map, Value};
use tokio::sync::oneshot;

use super::era::AgentEra;

/// The client capability a server's request needs, for the requests Herald can relay.
pub fn capability_for(method: &str) -> Option<&'static str> {
    match method {
        "sampling/createMessage" => Some("sampling"),
        "roots/list" => Some("roots"),
        _ => None,
    }
}

/// What a 2026-07-28 agent says it can answer: the `sampling` and `roots`
/// of the `clientCapabilities` in its request's `_meta`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CanAnswer {
    pub sampling: bool,
    pub roots: bool,
}

impl CanAnswer {
    pub const NOTHING: CanAnswer = CanAnswer { sampling: false, roots: false };

    pub fn of(capabilities: Option<&Value>) -> Self {
        let has = |name: &str| capabilities.and_then(|c| c.get(name)).is_some_and(Value::is_object);
        CanAnswer { sampling: has("sampling"), roots: has("roots") }
    }

    pub fn has(&self, capability: &str) -> bool {
        match capability {
            "sampling" => self.sampling,
            "roots" => self.roots,
            _ => false,
        }
    }
}

/// Why `method` cannot reach the agent of this call; `None` when it can.
/// `relayed` is what the link declared upstream on a legacy agent's behalf.
pub fn refusal(method: &str, agent: &AgentEra, relayed: &Map<String, Value>) -> Option<String> {
    let Some(capability) = capability_for(method) else {
        return Some(format!("{method} is not supported by this client"));
    };
    match agent {
        AgentEra::Console => Some(format!(
            "{method} cannot be relayed: the call comes from Herald's dashboard console, which has no {capability}"
        )),
        // Asked by an input_required result for its call, answered by its retry.
        AgentEra::Modern { can_answer, .. } if can_answer.has(capability) => None,
        AgentEra::Modern { .. } => {
            Some(format!("{method} cannot be relayed: the agent did not declare the {capability} capability"))
        }
        AgentEra::Legacy if !relayed.contains_key(capability) => {
            Some(format!("{method} cannot be relayed: the agent did not declare the {capability} capability"))
        }
        AgentEra::Legacy => None,
    }
}

/// The same, for a request on a link's standalone stream (no call): only a
/// legacy agent's own link, with the capability declared, and a stream open.
pub fn refusal_outside_calls(method: &str, relayed: &Map<String, Value>, listening: bool) -> Option<String> {
    let capability = capability_for(method)?;
    if !relayed.contains_key(capability) {
        return Some(format!(
            "{method} cannot be relayed: no agent behind this connection declared the {capability} capability"
        ));
    }
    (!listening).then(|| format!("{method} cannot be relayed: the agent has no stream open to receive it"))
}

/// Answers awaited from the agent behind one link, by the id Herald gave
/// each relayed request (unique, so that it never meets the agent's own ids).
#[derive(Default)]
pub struct AgentAnswers(Mutex<HashMap<RequestId, oneshot::Sender<Message>>>);

impl AgentAnswers {
    /// Registers a relayed request: its id for the agent, and the answer to come.
    pub fn expect(&self) -> (RequestId, oneshot::Receiver<Message>) {
        let id = RequestId::String(format!("herald-{}", uuid::Uuid::new_v4().simple()));
        let (tx, rx) = oneshot::channel();
        self.0.lock().expect("answers lock").insert(id.clone(), tx);
        (id, rx)
    }

    /// Gives up waiting for `id` (the call ended first).
    pub fn forget(&self, id: &RequestId) {
        self.0.lock().expect("answers lock").remove(id);
    }

    /// The agent answered; `Err` gives the answer back when nothing here waits for it.
    pub fn deliver(&self, answer: Message) -> Result<(), Message> {
        let Some(id) = answer.id().cloned() else { return Err(answer) };
        let waiter = self.0.lock().expect("answers lock").remove(&id);
        match waiter {
            // A waiter that has just given up drops the answer: nothing else can use it.
            Some(waiter) => {
                let _ = waiter.send(answer);
                Ok(())
            }
            None => Err(answer),
        }
    }
}

/// What the server receives for its request `server_id`: the agent's answer
/// under the server's id, or an error saying why there is none.
pub fn to_server(server_id: RequestId, answer: Result<Message, String>) -> Message {
    match answer {
        Ok(Message::Response { result, .. }) => Message::Response { id: server_id, result },
        Ok(Message::Error { error, .. }) => Message::Error { id: Some(server_id), error },
        Ok(_) => Message::error(
            Some(server_id),
            INTERNAL_ERROR,
            "the agent answered with something other than a response",
        ),
        Err(why) => Message::error(Some(server_id), INTERNAL_ERROR, why),
    }
}

/// The error for a request Herald will not relay.
pub fn refused(server_id: RequestId, why: &str) -> Message {
    Message::error(Some(server_id), METHOD_NOT_FOUND, why)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn declared(caps: Value) -> Map<String, Value> {
        caps.as_object().cloned().unwrap()
    }

    #[test]
    fn only_a_legacy_agent_that_declared_the_capability_is_asked() {
        let sampling = declared(json!({ "sampling": {} }));
        assert_eq!(refusal("sampling/createMessage", &AgentEra::Legacy, &sampling), None);
        let why = refusal("roots/list", &AgentEra::Legacy, &sampling).unwrap();
        assert!(why.contains("did not declare the roots capability"), "{why}");
        let modern = |can_answer| AgentEra::Modern { log_level: None, can_answer };
        let why = refusal("sampling/createMessage", &modern(CanAnswer::NOTHING), &sampling).unwrap();
        assert!(why.contains("did not declare the sampling capability"), "{why}");
        let able = CanAnswer::of(Some(&json!({ "sampling": {} })));
        assert_eq!(
            refusal("sampling/createMessage", &modern(able), &Map::new()),
            None,
            "asked by input_required"
        );
        assert!(refusal("roots/list", &modern(able), &Map::new()).is_some());
        let why = refusal("sampling/createMessage", &AgentEra::Console, &sampling).unwrap();
        assert!(why.contains("console"), "{why}");
        let why = refusal("tasks/get", &AgentEra::Legacy, &sampling).unwrap();
        assert_eq!(why, "tasks/get is not supported by this client");
    }

    #[test]
    fn answers_reach_their_waiter_once_and_others_come_back() {
        let answers = AgentAnswers::default();
        let (id, mut rx) = answers.expect();
        let answer =
            Message::response(id.clone(), serde_json::value::RawValue::from_string("{}".into()).unwrap());
        assert!(answers.deliver(answer.clone()).is_ok());
        assert!(matches!(rx.try_recv(), Ok(Message::Response { .. })));
        assert!(answers.deliver(answer).is_err(), "a second answer finds nobody");
        let stranger = Message::response(
            RequestId::Integer(7),
            serde_json::value::RawValue::from_string("{}".into()).unwrap(),
        );
        assert!(answers.deliver(stranger).is_err());
    }
}
