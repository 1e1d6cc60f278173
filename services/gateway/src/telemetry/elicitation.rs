//! An elicitation as a span, from its creation to its ending, on the replica that opened it.
//! The span names the server, tool, mode and, at the end, the action, who decided and why;
//! never the message, the schema, the URL or the answer.

use std::time::{Duration, Instant};

use tracing::Span;
use tracing::field::Empty;

use super::metrics::metrics;
use crate::broker::outcome::reason;
use crate::storage::{Elicitation, Outcome};

/// Every `reason` an ending may carry (the metric's label values).
pub const REASONS: &[&str] = &[
    reason::ANSWERED,
    reason::DECLINED,
    reason::DISMISSED,
    reason::EXPIRED,
    reason::SERVER_CANCELLED,
    reason::CALLER_CANCELLED,
    reason::UPSTREAM_LOST,
    reason::INTERRUPTED,
    reason::CREDENTIAL_ASK,
    reason::CUT_OFF,
    reason::MUTED,
    reason::PESTERING,
    reason::PREVIOUSLY_DECLINED,
    reason::RATE_CAPPED,
    reason::TOO_MANY_PENDING,
    reason::URL_REFUSED,
];

/// The policy's rules, as `herald_policy_decisions_total{rule}` names them: `shown` when no rule
/// answered for the person.
pub const RULES: &[&str] = &[
    "shown",
    reason::CUT_OFF,
    reason::MUTED,
    reason::CREDENTIAL_ASK,
    reason::PREVIOUSLY_DECLINED,
    reason::PESTERING,
    reason::RATE_CAPPED,
    reason::TOO_MANY_PENDING,
    reason::URL_REFUSED,
    reason::INTERRUPTED,
];

/// A pending elicitation's span and clock.
pub struct Tracked {
    span: Span,
    mode: String,
    since: Instant,
    pending: bool,
}

fn span_of(e: &Elicitation) -> Span {
    tracing::info_span!(
        "elicitation",
        otel.name = "elicitation",
        herald.org = %e.org_slug,
        herald.server = %e.server.slug,
        herald.elicitation.id = %e.id,
        herald.elicitation.mode = %e.mode,
        herald.elicitation.protocol = %e.protocol,
        gen_ai.tool.name = e.tool.as_deref(),
        herald.elicitation.outcome = Empty,
        herald.elicitation.decided_by = Empty,
        herald.elicitation.reason = Empty,
    )
}

/// A question shown to a person: its span starts now, as a child of the current one (the
/// agent call that met it).
pub fn opened(e: &Elicitation) -> Tracked {
    metrics().elicitation_opened();
    Tracked { span: span_of(e), mode: e.mode.clone(), since: Instant::now(), pending: true }
}

/// A question the policy answered at once: a span that starts and ends here.
pub fn answered_at_once(e: &Elicitation) {
    if let Some(outcome) = &e.outcome {
        let tracked =
            Tracked { span: span_of(e), mode: e.mode.clone(), since: Instant::now(), pending: false };
        tracked.ended(outcome);
    }
}

impl Tracked {
    pub fn ended(mut self, outcome: &Outcome) {
        let why = outcome.reason.as_deref().unwrap_or("-");
        self.span.record("herald.elicitation.outcome", outcome.action.as_str());
        self.span.record("herald.elicitation.decided_by", outcome.decided_by.as_str());
        self.span.record("herald.elicitation.reason", why);
        let took: Duration = self.since.elapsed();
        metrics().elicitation_ended(&outcome.action, why, &self.mode, took, self.pending);
        self.pending = false;
        // Dropping the last handle ends the span.
    }
}

impl Drop for Tracked {
    /// Forgotten without an ending seen here (the record lives on in the database).
    fn drop(&mut self) {
        if self.pending {
            metrics().elicitation_forgotten();
        }
    }
}
