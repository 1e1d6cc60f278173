//! An elicitation as a span, from its creation to its ending, on the replica that opened it.
//! The span names the server, tool, mode and, at the end, the action, who decided and why;
//! never the message, the schema, the URL or the answer.

use std::time::{Duration, Instant};

use herald_mcp::ElicitationMode;
use tracing::Span;
use tracing::field::Empty;

use super::metrics::metrics;

use crate::domain::outcome::Reason;
use crate::storage::{Elicitation, Outcome};

/// A pending elicitation's span and clock.
pub struct Tracked {
    span: Span,
    mode: ElicitationMode,
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
    Tracked { span: span_of(e), mode: e.mode, since: Instant::now(), pending: true }
}

/// A question the policy answered at once: a span that starts and ends here.
pub fn answered_at_once(e: &Elicitation) {
    if let Some(outcome) = &e.outcome {
        let tracked = Tracked { span: span_of(e), mode: e.mode, since: Instant::now(), pending: false };
        tracked.ended(outcome);
    }
}

impl Tracked {
    pub fn ended(mut self, outcome: &Outcome) {
        let why = outcome.reason.map_or("-", Reason::as_str);
        self.span.record("herald.elicitation.outcome", outcome.action.as_str());
        self.span.record("herald.elicitation.decided_by", outcome.decided_by.as_str());
        self.span.record("herald.elicitation.reason", why);
        let took: Duration = self.since.elapsed();
        metrics().elicitation_ended(outcome.action, outcome.reason, self.mode, took, self.pending);
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
