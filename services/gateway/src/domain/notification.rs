//! The vocabulary of notifications: the channels a question can reach a
//! person through besides an open dashboard, and the question events they carry.

use serde::Serialize;

/// Where a delivery goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NotifyChannel {
    /// An organisation's signed webhook (every pending question of the org).
    Webhook,
    /// One person's e-mail address (their questions, when they are not looking).
    Email,
    /// One of a person's browsers, through its Web Push service (likewise).
    Push,
}

impl NotifyChannel {
    pub fn as_str(self) -> &'static str {
        match self {
            NotifyChannel::Webhook => "webhook",
            NotifyChannel::Email => "email",
            NotifyChannel::Push => "push",
        }
    }
}

/// What a delivery tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum NotifyEvent {
    /// A question is waiting for a person.
    #[serde(rename = "question.created")]
    Created,
    /// A question is still waiting and its deadline is near.
    #[serde(rename = "question.reminded")]
    Reminded,
    /// A question ended (answered, declined, cancelled, expired, withdrawn).
    #[serde(rename = "question.ended")]
    Ended,
    /// An admin's test of a webhook.
    #[serde(rename = "ping")]
    Ping,
}

impl NotifyEvent {
    /// The events a webhook may subscribe to.
    pub const SUBSCRIBABLE: [NotifyEvent; 3] =
        [NotifyEvent::Created, NotifyEvent::Reminded, NotifyEvent::Ended];

    pub fn as_str(self) -> &'static str {
        match self {
            NotifyEvent::Created => "question.created",
            NotifyEvent::Reminded => "question.reminded",
            NotifyEvent::Ended => "question.ended",
            NotifyEvent::Ping => "ping",
        }
    }

    pub fn parse(given: &str) -> Option<Self> {
        [NotifyEvent::Created, NotifyEvent::Reminded, NotifyEvent::Ended, NotifyEvent::Ping]
            .into_iter()
            .find(|e| e.as_str() == given)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_names_parse_back() {
        for e in [NotifyEvent::Created, NotifyEvent::Reminded, NotifyEvent::Ended, NotifyEvent::Ping] {
            assert_eq!(NotifyEvent::parse(e.as_str()), Some(e));
            assert_eq!(serde_json::to_value(e).unwrap(), serde_json::json!(e.as_str()));
        }
        assert_eq!(NotifyEvent::parse("question.answered"), None);
    }
}
