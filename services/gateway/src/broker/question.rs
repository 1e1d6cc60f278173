//! A question on its way in: who it is for and on whose call (`Origin`), what
//! is asked and by whom (`Question`, `Source`), and why Herald may refuse to
//! take it (`Refused`).
//!
//! `Source` is the seam for new kinds of questions: a server's
//! `elicitation/create`, or a question Herald itself asks (the sign-in a call
//! needs, `Source::Connect`). Each is turned into a record by `intake` and has
//! the same wait and the same endings; only a server's question passes the
//! policy gate (the policy is about what servers propose). Answers reach a
//! question the same way whatever carries them (`respond`, through a
//! `Channel`), so a new channel needs no change here either.

use herald_mcp::{ElicitationMode, ProtocolGeneration};
use herald_policy::OrgPolicy;
use serde_json::value::RawValue;
use uuid::Uuid;

use crate::storage::Server;

/// Whose question it is: the person asked, their organisation, and the server
/// and call it arrives through, as they were when the call began. Everything
/// that may have changed since (membership, registration, policy) is read again
/// when the question arrives.
#[derive(Debug, Clone)]
pub struct Origin {
    pub org_id: Uuid,
    pub org_slug: String,
    /// The member the question is for.
    pub user_id: Uuid,
    /// The server the call goes to, as registered when the call began.
    pub server: Server,
    /// The tool (prompt, resource) the call names, for attribution.
    pub tool: Option<String>,
}

/// A question for a person.
#[derive(Debug)]
pub struct Question {
    pub source: Source,
    /// Only questions of this mode may be asked (a -32042 error names URL elicitations).
    pub only: Option<ElicitationMode>,
}

/// Who asks, and in what words.
#[derive(Debug)]
pub enum Source {
    /// A server's `elicitation/create`: its params as sent, in the era it was asked in.
    Server { era: ProtocolGeneration, params: Option<Box<RawValue>> },
    /// Herald's own question: the call waits until the person connects their account to the
    /// origin's server, which acts as each person (`auth_mode` `oauth`). `connect` is Herald's
    /// connect page for that server; `why` says what is missing ("you have not connected…").
    Connect { era: ProtocolGeneration, connect: String, why: String },
}

impl Question {
    /// A server's `elicitation/create`.
    pub fn from_server(era: ProtocolGeneration, params: Option<&RawValue>) -> Self {
        Question { source: Source::Server { era, params: params.map(ToOwned::to_owned) }, only: None }
    }

    /// Herald asking the person to connect their account to the call's server.
    pub fn connect(era: ProtocolGeneration, connect: String, why: String) -> Self {
        Question { source: Source::Connect { era, connect, why }, only: None }
    }

    /// Whether Herald asks it (no server's policy applies).
    pub fn asked_by_herald(&self) -> bool {
        matches!(self.source, Source::Connect { .. })
    }

    /// The same question, which must be of `mode`.
    pub fn only(mut self, mode: ElicitationMode) -> Self {
        self.only = Some(mode);
        self
    }
}

/// Why a question was not taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// It breaks the protocol or the org's rules for questions, or it cannot be
    /// asked now (the person left, the server is gone, it floods): the asker hears why.
    Invalid(String),
    /// Herald could not record it (the database failed); logged where it happened.
    Unrecorded,
}

impl Refused {
    /// What the asker is told.
    pub fn reason(&self) -> &str {
        match self {
            Refused::Invalid(why) => why,
            Refused::Unrecorded => "the host could not record the request",
        }
    }
}

/// How an answer reached Herald. Every channel answers through `respond`, and the
/// first answer wins whatever carried it; e-mail, push or chat become variants here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    /// The dashboard's inbox (websocket) or the REST API.
    Web,
    /// A one-click answer link in a notification e-mail, confirmed on its page.
    Email,
    /// The dashboard, opened from a browser push notification about the question.
    Push,
}

impl Channel {
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Web => "web",
            Channel::Email => "email",
            Channel::Push => "push",
        }
    }
}

/// The circumstances in which a question arrives: its origin, with the server's
/// registration and the org's policy as they are now.
#[derive(Debug, Clone)]
pub struct Circumstances {
    pub org_id: Uuid,
    pub org_slug: String,
    pub user_id: Uuid,
    pub tool: Option<String>,
    /// The registration now (the origin's server, perhaps edited or cut off since).
    pub server: std::sync::Arc<Server>,
    pub policy: OrgPolicy,
}
