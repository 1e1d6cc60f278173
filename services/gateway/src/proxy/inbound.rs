//! What a server sends its client, told apart once: a question for a person,
//! a ping, another request (for the agent, or for nobody), a withdrawal, the
//! completion of a URL elicitation's step, another notification, or the final
//! reply. Every relay site matches on `FromServer` instead of comparing method
//! names, and the modern era's input requests are sorted by the same words.

use herald_mcp::{Message, RequestId};
use serde_json::Value;
use serde_json::value::RawValue;

/// One message from a server.
pub enum FromServer {
    /// `elicitation/create`: a question for a person (Herald's to ask).
    Question { id: RequestId, params: Option<Box<RawValue>> },
    /// `ping`: answered at once.
    Ping { id: RequestId },
    /// Any other request: for the agent (sampling, roots), or refused.
    Request { id: RequestId, method: String, params: Option<Box<RawValue>> },
    /// `notifications/cancelled`: the server withdraws its request `request_id`.
    Withdrawn { request_id: Option<RequestId> },
    /// `notifications/elicitation/complete`: the out-of-band step of the URL
    /// elicitation `elicitation_id` (the server's id) is done.
    UrlComplete { elicitation_id: Option<String>, message: Message },
    /// Any other notification (progress, logging, list changes): for the agent.
    Notification(Message),
    /// A response or an error: the end of a request.
    Reply(Message),
}

/// What a request asks of its client, by its method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asks {
    /// A person's answer (`elicitation/create`).
    Person,
    /// Proof of life (`ping`).
    Ping,
    /// Something else (sampling, roots, or unknown).
    Other,
}

/// The one place a request's method is read.
pub fn asks(method: &str) -> Asks {
    match method {
        "elicitation/create" => Asks::Person,
        "ping" => Asks::Ping,
        _ => Asks::Other,
    }
}

pub fn classify(message: Message) -> FromServer {
    match message {
        Message::Request { id, method, params } => match asks(&method) {
            Asks::Person => FromServer::Question { id, params },
            Asks::Ping => FromServer::Ping { id },
            Asks::Other => FromServer::Request { id, method, params },
        },
        Message::Notification { ref method, ref params } => match method.as_str() {
            "notifications/cancelled" => FromServer::Withdrawn {
                request_id: field(params.as_deref(), "requestId").and_then(|v| RequestId::from_value(&v)),
            },
            "notifications/elicitation/complete" => {
                FromServer::UrlComplete { elicitation_id: url_elicitation_id(params.as_deref()), message }
            }
            _ => FromServer::Notification(message),
        },
        reply => FromServer::Reply(reply),
    }
}

/// `elicitationId` of a URL elicitation (2025-11-25) or of its completion notice.
pub fn url_elicitation_id(params: Option<&RawValue>) -> Option<String> {
    field(params, "elicitationId")?.as_str().filter(|id| !id.is_empty()).map(str::to_owned)
}

fn field(params: Option<&RawValue>, name: &str) -> Option<Value> {
    let mut value: Value = serde_json::from_str(params?.get()).ok()?;
    value.get_mut(name).map(Value::take)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Message {
        Message::parse(json.as_bytes()).unwrap()
    }

    #[test]
    fn each_kind_of_message_is_told_apart() {
        let question =
            parse(r#"{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"hi"}}"#);
        assert!(matches!(
            classify(question),
            FromServer::Question { id: RequestId::Integer(1), params: Some(_) }
        ));
        assert!(matches!(
            classify(parse(r#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#)),
            FromServer::Ping { .. }
        ));
        let sampling = parse(r#"{"jsonrpc":"2.0","id":2,"method":"sampling/createMessage","params":{}}"#);
        assert!(
            matches!(classify(sampling), FromServer::Request { method, .. } if method == "sampling/createMessage")
        );
        let withdrawn =
            parse(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#);
        assert!(matches!(
            classify(withdrawn),
            FromServer::Withdrawn { request_id: Some(RequestId::Integer(7)) }
        ));
        let bare = parse(r#"{"jsonrpc":"2.0","method":"notifications/cancelled"}"#);
        assert!(matches!(classify(bare), FromServer::Withdrawn { request_id: None }));
        let done = parse(
            r#"{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"e1"}}"#,
        );
        assert!(
            matches!(classify(done), FromServer::UrlComplete { elicitation_id: Some(id), .. } if id == "e1")
        );
        let progress =
            parse(r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}"#);
        assert!(matches!(classify(progress), FromServer::Notification(_)));
        assert!(matches!(classify(parse(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#)), FromServer::Reply(_)));
    }

    #[test]
    fn only_elicitation_asks_a_person() {
        assert_eq!(asks("elicitation/create"), Asks::Person);
        assert_eq!(asks("Elicitation/Create"), Asks::Other);
        assert_eq!(asks("roots/list"), Asks::Other);
    }
}
