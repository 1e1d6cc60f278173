//! The vocabulary of endings every surface agrees on: the action the server
//! receives, who decided it, and why. Each is an enum, parsed once where a row
//! is read (`storage/rows.rs`) and spelled by its `as_str` on every wire.

use herald_mcp::ElicitAction;
use herald_policy::decision::Rule;
use serde::{Serialize, Serializer};
use time::OffsetDateTime;

/// How an elicitation ended: the action the server receives, who decided it, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub action: ElicitAction,
    pub content: Option<serde_json::Value>,
    pub decided_by: DecidedBy,
    pub reason: Option<Reason>,
    pub resolved_at: OffsetDateTime,
}

impl Outcome {
    /// What the server that asked receives, as an `ElicitResult` (`content` only for an
    /// accepted form); `None` when the server itself withdrew the question.
    pub fn server_answer(&self) -> Option<serde_json::Value> {
        if self.decided_by == DecidedBy::Server {
            return None;
        }
        Some(self.elicit_result())
    }

    /// The ending as an `ElicitResult`: a policy's answer has exactly the shape of a person's.
    pub fn elicit_result(&self) -> serde_json::Value {
        match (self.action, &self.content) {
            (ElicitAction::Accept, Some(content)) => {
                serde_json::json!({ "action": "accept", "content": content })
            }
            (action, _) => serde_json::json!({ "action": action.as_str() }),
        }
    }
}

/// Who ended an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DecidedBy {
    /// The person it was shown to.
    User,
    /// Herald's policy, on the person's behalf.
    Policy,
    /// Its deadline.
    Timeout,
    /// The server withdrew it.
    Server,
    /// The agent that made the call went away or cancelled.
    Caller,
    /// Herald itself (lost connection, restart).
    System,
}

impl DecidedBy {
    pub const ALL: [DecidedBy; 6] = [
        DecidedBy::User,
        DecidedBy::Policy,
        DecidedBy::Timeout,
        DecidedBy::Server,
        DecidedBy::Caller,
        DecidedBy::System,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            DecidedBy::User => "user",
            DecidedBy::Policy => "policy",
            DecidedBy::Timeout => "timeout",
            DecidedBy::Server => "server",
            DecidedBy::Caller => "caller",
            DecidedBy::System => "system",
        }
    }

    pub fn parse(s: &str) -> Option<DecidedBy> {
        DecidedBy::ALL.into_iter().find(|d| d.as_str() == s)
    }
}

/// Why an elicitation ended, in the words of the contract: how a person or
/// the call ended it, or the policy's rule that answered for the person.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reason {
    /// The person submitted the form (or agreed to open the URL).
    Answered,
    /// The person said no.
    Declined,
    /// The person closed it without a choice.
    Dismissed,
    /// Its deadline passed.
    Expired,
    /// The server withdrew it.
    ServerCancelled,
    /// The agent cancelled its call or went away.
    CallerCancelled,
    /// The connection to the server was lost.
    UpstreamLost,
    /// Herald stopped, or could not carry the question on.
    Interrupted,
    /// The person connected their account to the server Herald asked them to
    /// sign in to (Herald's own question).
    Connected,
    /// A rule of the org's policy answered for the person.
    Rule(Rule),
}

impl Reason {
    /// The reasons that are not a policy rule (those are `Rule::ALL`).
    const OWN: [Reason; 9] = [
        Reason::Answered,
        Reason::Declined,
        Reason::Dismissed,
        Reason::Expired,
        Reason::ServerCancelled,
        Reason::CallerCancelled,
        Reason::UpstreamLost,
        Reason::Interrupted,
        Reason::Connected,
    ];

    /// Every reason an ending may carry.
    pub fn all() -> impl Iterator<Item = Reason> {
        Reason::OWN.into_iter().chain(Rule::ALL.into_iter().map(Reason::Rule))
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Answered => "answered",
            Reason::Declined => "declined",
            Reason::Dismissed => "dismissed",
            Reason::Expired => "expired",
            Reason::ServerCancelled => "server_cancelled",
            Reason::CallerCancelled => "caller_cancelled",
            Reason::UpstreamLost => "upstream_lost",
            Reason::Interrupted => "interrupted",
            Reason::Connected => "connected",
            Reason::Rule(rule) => rule.as_str(),
        }
    }

    pub fn parse(s: &str) -> Option<Reason> {
        Reason::all().find(|r| r.as_str() == s)
    }
}

impl From<Rule> for Reason {
    fn from(rule: Rule) -> Self {
        Reason::Rule(rule)
    }
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Display for DecidedBy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Reason {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl Serialize for DecidedBy {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

pub fn outcome(
    action: ElicitAction,
    content: Option<serde_json::Value>,
    decided_by: DecidedBy,
    reason: impl Into<Reason>,
) -> Outcome {
    Outcome {
        action,
        content,
        decided_by,
        reason: Some(reason.into()),
        resolved_at: OffsetDateTime::now_utc(),
    }
}

/// A cancel decided by someone other than the person (deadline, server, caller, system).
pub fn cancelled(decided_by: DecidedBy, reason: impl Into<Reason>) -> Outcome {
    outcome(ElicitAction::Cancel, None, decided_by, reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reason_and_decider_has_one_spelling_that_parses_back() {
        let reasons: Vec<Reason> = Reason::all().collect();
        let names: std::collections::HashSet<&str> = reasons.iter().map(|r| r.as_str()).collect();
        assert_eq!(names.len(), reasons.len(), "no two reasons share a spelling");
        assert_eq!(reasons.len(), 17);
        for r in reasons {
            assert_eq!(Reason::parse(r.as_str()), Some(r));
            assert_eq!(serde_json::to_value(r).unwrap(), r.as_str());
        }
        for d in DecidedBy::ALL {
            assert_eq!(DecidedBy::parse(d.as_str()), Some(d));
        }
        assert_eq!(Reason::parse("Expired"), None);
        assert_eq!(DecidedBy::parse(""), None);
    }
}
