//! The vocabulary of endings every surface agrees on: the action the server
//! receives, who decided it, and why.

use herald_mcp::ElicitAction;
use time::OffsetDateTime;

use crate::storage::Outcome;

/// Who ended an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
}

/// Why it ended, in the words of the contract.
pub mod reason {
    pub const ANSWERED: &str = "answered";
    pub const DECLINED: &str = "declined";
    pub const DISMISSED: &str = "dismissed";
    pub const EXPIRED: &str = "expired";
    pub const SERVER_CANCELLED: &str = "server_cancelled";
    pub const CALLER_CANCELLED: &str = "caller_cancelled";
    pub const UPSTREAM_LOST: &str = "upstream_lost";
    pub const INTERRUPTED: &str = "interrupted";
    // The policy's own reasons, as the pure decision names them.
    pub use herald_policy::decision::reason::{
        CREDENTIAL_ASK, CUT_OFF, MUTED, PESTERING, PREVIOUSLY_DECLINED, RATE_CAPPED, TOO_MANY_PENDING,
        URL_REFUSED,
    };
}

pub fn outcome(
    action: ElicitAction,
    content: Option<serde_json::Value>,
    decided_by: DecidedBy,
    reason: &str,
) -> Outcome {
    Outcome {
        action: action.as_str().to_owned(),
        content,
        decided_by: decided_by.as_str().to_owned(),
        reason: Some(reason.to_owned()),
        resolved_at: OffsetDateTime::now_utc(),
    }
}

/// A cancel decided by someone other than the person (deadline, server, caller, system).
pub fn cancelled(decided_by: DecidedBy, reason: &str) -> Outcome {
    outcome(ElicitAction::Cancel, None, decided_by, reason)
}
