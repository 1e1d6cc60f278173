//! The policy decision for one elicitation: the steps of the design's "Policy,
//! in the order it is applied" as one pure function.
//!
//! The gateway gathers the [`Facts`] about an elicitation (protocol check,
//! cut-off, mute, credential detector hits, decline memory, rate counters, URL
//! verdict) and calls [`decide`] with the organisation's [`OrgPolicy`]. The
//! first step that answers ends the decision; warnings from earlier steps are
//! carried into [`Decision::Show`].
//!
//! # The order, and why
//!
//! 1. **Protocol check** → [`Decision::Refuse`]. Everything after this step
//!    reasons about the request's content, which is meaningless if the request
//!    is malformed. A protocol violation is an error, not a person's answer:
//!    it must not look like a decline, nor be remembered or counted as one.
//! 2. **Org cut-off** → [`Decision::CancelCall`]. An admin's decision for the
//!    whole organisation outranks anything a single user set up. It ends the
//!    whole call, not only the elicitation, because a cut-off server takes no
//!    calls at all. It comes after the protocol check only because a malformed
//!    request deserves its precise error whichever server sent it.
//! 3. **User mute** → [`Decision::AutoDecline`] `muted`. The user asked not
//!    to hear from this server; that includes not hearing about its credential
//!    asks, so the mute comes before the credential ban (whose block mode
//!    raises a notice to the user). It is also the cheapest answer.
//! 4. **Credential-ask ban**: mode `block` → [`Decision::AutoDecline`]
//!    `credential_ask`; `warn` → continue, with [`Warning::CredentialAsk`];
//!    `off` → ignored. It comes before decline memory so that every credential
//!    ask is reported as what it is (to the user, with a one-click cut-off,
//!    and to admins), even a re-ask of a question the user once declined. In
//!    warn mode the later steps still apply: a credential ask the user
//!    declined before is still auto-declined.
//! 5. **Decline memory** → [`Decision::AutoDecline`] `previously_declined`,
//!    with `mute_for_pestering` once the re-asks reach the threshold. It comes
//!    before the rate caps because the user already gave this answer: replying
//!    with it is truthful, whereas a cap would only cancel. And every re-ask
//!    must reach this step to be counted towards pestering, which a cap
//!    answering first would hide.
//! 6. **Rate caps** → [`Decision::AutoCancel`] `rate_capped` or
//!    `too_many_pending`. The caps protect the user's attention, so they apply
//!    only to what would otherwise reach the user, after every automatic
//!    answer above. They limit volume whatever the content, so they come
//!    before the URL rules, which judge content.
//! 7. **URL rules** → [`Decision::AutoCancel`] `url_refused`, or
//!    [`Warning::UrlFlags`]. Last before showing because they are about how
//!    the URL is presented (refused, or shown with flags) and only matter for
//!    an elicitation that is otherwise going to be shown.
//! 8. **Show** → [`Decision::Show`] with the accumulated warnings, under the
//!    organisation's deadline.
//!
//! The rules that answer for a person are listed once, as [`Rule`].

use serde::{Deserialize, Serialize};

use crate::url_rules::{UrlFlag, UrlRefusal};
use crate::{CredentialAskMode, OrgPolicy};

/// The policy's rules, as the reasons recorded when one answers for a person
/// (the design's vocabulary; `as_str` is the one spelling everywhere).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rule {
    /// The server is cut off for the organisation.
    CutOff,
    /// The user muted the server.
    Muted,
    /// The request fishes for credentials and the organisation blocks that.
    CredentialAsk,
    /// The user declined the same question within the memory window.
    PreviouslyDeclined,
    /// The reason to record for the mute that
    /// [`Decision::AutoDecline::mute_for_pestering`](Decision::AutoDecline)
    /// asks for.
    Pestering,
    /// A rate cap is reached.
    RateCapped,
    /// The user has as many pending elicitations as allowed.
    TooManyPending,
    /// The URL of a URL-mode elicitation is refused by the URL rules.
    UrlRefused,
}

impl Rule {
    /// Every rule, in the policy's order.
    pub const ALL: [Rule; 8] = [
        Rule::CutOff,
        Rule::Muted,
        Rule::CredentialAsk,
        Rule::PreviouslyDeclined,
        Rule::Pestering,
        Rule::RateCapped,
        Rule::TooManyPending,
        Rule::UrlRefused,
    ];

    /// The wire and storage spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Rule::CutOff => "cut_off",
            Rule::Muted => "muted",
            Rule::CredentialAsk => "credential_ask",
            Rule::PreviouslyDeclined => "previously_declined",
            Rule::Pestering => "pestering",
            Rule::RateCapped => "rate_capped",
            Rule::TooManyPending => "too_many_pending",
            Rule::UrlRefused => "url_refused",
        }
    }

    /// The rule `s` spells, if any.
    pub fn parse(s: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.as_str() == s)
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the gateway knows about an elicitation when it decides.
///
/// `Facts::default()` describes a well-formed form elicitation that nothing
/// objects to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Facts {
    /// The protocol check: `Err` with the reason sent back to the server
    /// (schema outside the subset, undeclared mode, oversized message or
    /// schema).
    pub protocol_ok: Result<(), String>,
    /// An admin cut the server off for the organisation.
    pub server_cut_off: bool,
    /// The user muted the server.
    pub muted: bool,
    /// Hits of the credential-ask detector, after the organisation's
    /// allow-list.
    pub credential_hits: usize,
    /// The organisation's credential-ask mode (normally
    /// `policy.credential_ask.mode`).
    pub credential_mode: CredentialAskMode,
    /// The user declined the same fingerprint from this server within the
    /// decline-memory window.
    pub previously_declined: bool,
    /// Re-asks of that fingerprint since the decline, within the window,
    /// counting this one.
    pub reasks_after_decline: u32,
    /// The rate counters, not counting this elicitation.
    pub rate: RateCounts,
    /// The URL verdict of a URL-mode elicitation
    /// ([`UrlVerdict::into_result`](crate::url_rules::UrlVerdict::into_result));
    /// `None` in form mode.
    pub url: Option<Result<Vec<UrlFlag>, UrlRefusal>>,
}

impl Default for Facts {
    fn default() -> Self {
        Self {
            protocol_ok: Ok(()),
            server_cut_off: false,
            muted: false,
            credential_hits: 0,
            credential_mode: CredentialAskMode::default(),
            previously_declined: false,
            reasks_after_decline: 0,
            rate: RateCounts::default(),
            url: None,
        }
    }
}

/// Elicitations already counted against the caps, across all replicas, not
/// counting the one being decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RateCounts {
    /// From this server to this user in the last minute.
    pub user_server_last_minute: u32,
    /// From this server across the organisation in the last hour.
    pub server_last_hour: u32,
    /// Across the organisation in the last hour.
    pub org_last_hour: u32,
    /// Pending (shown, unanswered) for this user now.
    pub pending_for_user: u32,
}

/// What to do with an elicitation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// A protocol violation. Legacy: answer the `elicitation/create` with
    /// JSON-RPC error -32602 and this reason; modern: fail the call with an
    /// error result. Nothing is shown or recorded as an answer.
    Refuse {
        /// What is wrong with the request.
        reason: String,
    },
    /// The server is cut off: cancel the whole tool call (and any pending
    /// elicitations of the server).
    CancelCall {
        /// [`Rule::CutOff`].
        reason: Rule,
    },
    /// Answer `decline` on the user's behalf (`decided_by: policy`).
    AutoDecline {
        /// [`Rule::Muted`], [`Rule::CredentialAsk`] or [`Rule::PreviouslyDeclined`].
        reason: Rule,
        /// The re-asks reached the pestering threshold: also mute the server
        /// for this user (recorded with [`Rule::Pestering`]) and tell them.
        mute_for_pestering: bool,
    },
    /// Answer `cancel` on the user's behalf (`decided_by: policy`).
    AutoCancel {
        /// [`Rule::RateCapped`], [`Rule::TooManyPending`] or [`Rule::UrlRefused`].
        reason: Rule,
    },
    /// Show the elicitation to the user, with these warnings.
    Show {
        /// Warnings in the order the steps raised them; empty for most.
        warnings: Vec<Warning>,
    },
}

/// A warning to show with an elicitation. Serialized tagged by `type` in
/// snake case: `{"type":"credential_ask"}`,
/// `{"type":"url_flags","flags":[{"type":"punycode"}]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", content = "flags", rename_all = "snake_case")]
pub enum Warning {
    /// The request looks like it fishes for credentials and the organisation
    /// is in warn mode.
    CredentialAsk,
    /// The URL of a URL-mode elicitation has these flags (never empty).
    UrlFlags(Vec<UrlFlag>),
}

/// Applies the organisation's policy to the facts about one elicitation, in
/// the design's order. See the [module documentation](self) for the steps.
#[must_use]
pub fn decide(facts: &Facts, policy: &OrgPolicy) -> Decision {
    // 1. Protocol check.
    if let Err(reason) = &facts.protocol_ok {
        return Decision::Refuse { reason: reason.clone() };
    }
    // 2. Org cut-off.
    if facts.server_cut_off {
        return Decision::CancelCall { reason: Rule::CutOff };
    }
    // 3. User mute.
    if facts.muted {
        return Decision::AutoDecline { reason: Rule::Muted, mute_for_pestering: false };
    }
    let mut warnings = Vec::new();
    // 4. Credential-ask ban.
    if facts.credential_hits > 0 {
        match facts.credential_mode {
            CredentialAskMode::Block => {
                return Decision::AutoDecline { reason: Rule::CredentialAsk, mute_for_pestering: false };
            }
            CredentialAskMode::Warn => warnings.push(Warning::CredentialAsk),
            CredentialAskMode::Off => {}
        }
    }
    // 5. Decline memory.
    if facts.previously_declined {
        let pestering = facts.reasks_after_decline >= policy.decline_memory.pestering_threshold;
        return Decision::AutoDecline { reason: Rule::PreviouslyDeclined, mute_for_pestering: pestering };
    }
    // 6. Rate caps.
    let caps = &policy.rate_caps;
    let rate = &facts.rate;
    if rate.user_server_last_minute >= caps.per_user_server_per_minute
        || rate.server_last_hour >= caps.per_server_per_hour
        || rate.org_last_hour >= caps.per_org_per_hour
    {
        return Decision::AutoCancel { reason: Rule::RateCapped };
    }
    if rate.pending_for_user >= caps.max_pending_per_user {
        return Decision::AutoCancel { reason: Rule::TooManyPending };
    }
    // 7. URL rules.
    match &facts.url {
        Some(Err(_)) => return Decision::AutoCancel { reason: Rule::UrlRefused },
        Some(Ok(flags)) if !flags.is_empty() => warnings.push(Warning::UrlFlags(flags.clone())),
        Some(Ok(_)) | None => {}
    }
    // 8. Show.
    Decision::Show { warnings }
}
