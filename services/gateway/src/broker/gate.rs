//! The policy, applied to each question before anyone sees it, in the order
//! `docs/policy.md` gives: the server's cut-off, the person's mutes, the
//! credential-ask ban, decline memory, rate caps, URL rules. The decision
//! itself is pure (`herald_policy::decide`); this module gathers its facts
//! (from the registry, the mutes, the decline records and the shared
//! counters) and carries it out. An automatic answer is recorded, audited,
//! and sent to the server exactly as a person's would be.

use herald_policy::decision::Rule;
use std::sync::Arc;

use herald_mcp::{ElicitAction, FieldKind};
use herald_policy::credential::{
    AskText, Category, CredentialDetector, CredentialHit, FieldKind as AskKind, FieldText, HitLocation,
};
use herald_policy::{Decision, Facts, RateCounts, Warning, check_url, decide, fingerprint_text};
use serde_json::{Value, json};
use time::format_description::well_known::Rfc3339;
use time::{Duration, OffsetDateTime};

use super::events::{AskingServer, ServerEvent};
use super::floods::{FloodKey, Summary};
use super::question::Circumstances;
use super::{Broker, Waiter};
use crate::audit::{self, Actor, Subject};
use crate::crypto;
use crate::domain::outcome::{DecidedBy, Reason, outcome};
use crate::storage::{Conflict, Elicitation, StoreError};

/// Applies the org's policy to a question a server asked: the returned
/// waiter either waits for the person, or already holds the policy's answer.
pub async fn judge(
    broker: &Arc<Broker>,
    ctx: &Circumstances,
    mut record: Elicitation,
) -> Result<Waiter, StoreError> {
    let store = broker.store.as_ref();
    let policy = &ctx.policy;
    let now = OffsetDateTime::now_utc();

    let hits = credential_hits(policy, &record);
    let fingerprint = crypto::sha256(
        fingerprint_text(
            &ctx.server.slug,
            record.tool.as_deref(),
            &record.message,
            record.requested_schema.as_ref(),
        )
        .as_bytes(),
    );
    record.fingerprint = Some(fingerprint.clone());
    let memory_since = now - Duration::seconds(i64::from(policy.decline_memory.window_secs));
    // Independent reads, in parallel: each is a database round trip, but for the registry's
    // entry when this replica has it cached.
    let (muted, last_decline) = tokio::try_join!(
        store.is_muted(ctx.org_id, ctx.user_id, ctx.server.id),
        store.last_decline_since(ctx.org_id, ctx.user_id, &fingerprint, memory_since),
    )?;
    // The registry as it is now (`ctx.server`): an in-flight call may outlive a cut-off.
    let cut_off = ctx.server.cut_off.is_some();
    let declined = last_decline.is_some();
    let reasks = if let Some(declined_at) = last_decline {
        // Re-asks since the latest decline: after "ask me again" and a new
        // decline, the server starts from nothing again.
        let earlier = store
            .count_fingerprint(
                ctx.org_id,
                ctx.user_id,
                &fingerprint,
                declined_at,
                Rule::PreviouslyDeclined.as_str(),
            )
            .await?;
        u32::try_from(earlier).unwrap_or(u32::MAX).saturating_add(1)
    } else {
        0
    };
    let mut facts = Facts {
        protocol_ok: Ok(()),
        server_cut_off: cut_off,
        muted,
        credential_hits: hits.len(),
        credential_mode: policy.credential_ask.mode,
        previously_declined: declined,
        reasks_after_decline: reasks,
        rate: RateCounts::default(),
        url: None,
    };
    let mut decision = decide(&facts, policy);
    if matches!(decision, Decision::Show { .. }) {
        // Only questions that got this far count against the caps, and only
        // those shown stay counted: a server whose questions are refused must
        // not use up the budget of the org's well-behaved servers.
        let (rate, counted) = rate_counts(broker, ctx, now).await?;
        facts.rate = rate;
        facts.url = record
            .url
            .as_deref()
            .map(|url| check_url(url, &policy.url_mode, broker.development).into_result());
        decision = decide(&facts, policy);
        if !matches!(decision, Decision::Show { .. }) {
            let keys = counted.each_ref().map(|(key, at)| (key.as_str(), *at));
            store.unbump_counters(keys).await?;
        }
    }
    crate::telemetry::metrics::metrics().policy_decision(match &decision {
        Decision::Show { .. } => "shown",
        Decision::AutoDecline { reason: why, .. }
        | Decision::AutoCancel { reason: why }
        | Decision::CancelCall { reason: why } => why.as_str(),
        Decision::Refuse { .. } => Reason::Interrupted.as_str(),
    });
    if !matches!(decision, Decision::Show { .. }) {
        let went_by = Because { facts: &facts, policy, hits: &hits, last_decline };
        record.policy_flags = Some(json!({ "because": went_by.of(&decision) }));
    }
    match decision {
        Decision::Show { warnings } => {
            record.policy_flags = Some(flags(&warnings, &hits, policy));
            broker.open(record).await
        }
        Decision::AutoDecline { reason: why, mute_for_pestering } => {
            if mute_for_pestering {
                mute_for_pestering_now(broker, ctx).await?;
            }
            if why == Rule::CredentialAsk {
                tell_admins_about_blocked_credential_ask(broker, ctx, &hits).await;
            }
            answer(broker, ctx, record, ElicitAction::Decline, why.into(), &hits).await
        }
        Decision::AutoCancel { reason: why } | Decision::CancelCall { reason: why } => {
            answer(broker, ctx, record, ElicitAction::Cancel, why.into(), &hits).await
        }
        // The protocol check happened before the policy was consulted.
        Decision::Refuse { .. } => {
            answer(broker, ctx, record, ElicitAction::Cancel, Reason::Interrupted, &hits).await
        }
    }
}

/// Records the policy's answer (never shown) and audits it with its reason;
/// beyond the first few of a minute for this person, server and reason, the
/// answer is given unrecorded and counted in the minute's summary.
async fn answer(
    broker: &Arc<Broker>,
    ctx: &Circumstances,
    mut record: Elicitation,
    action: ElicitAction,
    why: Reason,
    hits: &[CredentialHit],
) -> Result<Waiter, StoreError> {
    record.outcome = Some(outcome(action, None, DecidedBy::Policy, why));
    let key = FloodKey {
        org_id: ctx.org_id,
        user_id: ctx.user_id,
        server_slug: ctx.server.slug.clone(),
        reason: why.as_str(),
    };
    let (individually, ended) = broker.floods.record_individually(key, std::time::Instant::now());
    audit_floods(broker.store.as_ref(), ended).await;
    if !individually {
        crate::telemetry::metrics::metrics().policy_decision_unrecorded(why.as_str());
        return Ok(broker.answered_unrecorded(record));
    }
    let details = json!({
        "elicitation_id": record.id,
        "action": action.as_str(),
        "tool": record.tool,
        "mode": record.mode,
        "credential_hits": hits,
    });
    let subject = Subject {
        user_id: Some(ctx.user_id),
        server_slug: Some(ctx.server.slug.clone()),
        reason: Some(why.as_str().to_owned()),
        details: Some(details),
    };
    let waiter = broker.record_answered(record).await?;
    audit::record(broker.store.as_ref(), ctx.org_id, Actor::Policy, "elicitation.auto_answered", subject)
        .await;
    Ok(waiter)
}

/// One audit entry per window that answered more than it recorded.
pub async fn audit_floods(store: &dyn crate::storage::Store, ended: Vec<Summary>) {
    for Summary { key, unrecorded } in ended {
        let subject = Subject {
            user_id: Some(key.user_id),
            server_slug: Some(key.server_slug.clone()),
            reason: Some(key.reason.to_owned()),
            details: Some(json!({
                "aggregated": true,
                "count": unrecorded,
                "window_secs": super::floods::WINDOW.as_secs(),
                "note": "answered by the policy without a record of each: the server asked too often",
            })),
        };
        audit::record(store, key.org_id, Actor::Policy, "elicitation.auto_answered", subject).await;
    }
}

/// A server that keeps re-asking a declined question is muted for the person.
async fn mute_for_pestering_now(broker: &Broker, ctx: &Circumstances) -> Result<(), StoreError> {
    let store = broker.store.as_ref();
    let note = "muted automatically: it kept asking a question you had declined";
    match store
        .mute(
            ctx.org_id,
            ctx.user_id,
            ctx.server.id,
            Rule::Pestering.as_str(),
            note,
            OffsetDateTime::now_utc(),
        )
        .await
    {
        Ok(()) | Err(StoreError::Conflict(Conflict::AlreadyMuted)) => {}
        Err(e) => return Err(e),
    }
    let subject = Subject {
        user_id: Some(ctx.user_id),
        server_slug: Some(ctx.server.slug.clone()),
        reason: Some(Rule::Pestering.as_str().to_owned()),
        details: None,
    };
    // The person is told by the note on the question that tipped it
    // (`because.muted_for_pestering`), with a way to unmute.
    audit::record(store, ctx.org_id, Actor::Policy, "mute.added", subject).await;
    Ok(())
}

/// The organisation's admins hear that a server asked someone for a
/// credential (with the server, for a one-click cut-off). The person asked is
/// told by the note on the question itself.
async fn tell_admins_about_blocked_credential_ask(
    broker: &Broker,
    ctx: &Circumstances,
    hits: &[CredentialHit],
) {
    let asked: Vec<String> = hits.iter().map(|h| h.explanation.clone()).collect();
    let notice = ServerEvent::Notice {
        org: ctx.org_slug.clone(),
        kind: "credential_ask_blocked",
        message: format!(
            "{} asked a member of your organisation for a credential, and Herald declined for them: {}",
            ctx.server.name,
            asked.join("; ")
        ),
        server: Some(server_view(ctx)),
        elicitation_id: None,
    };
    if let Ok(members) = broker.store.members(ctx.org_id).await {
        for admin in members.iter().filter(|m| m.role.is_admin() && m.user.id != ctx.user_id) {
            broker.hub.publish(admin.user.id, ctx.org_id, &notice);
        }
    }
}

fn server_view(ctx: &Circumstances) -> AskingServer {
    let url = crate::domain::ServerUrl::display_form(&ctx.server.url);
    AskingServer { slug: ctx.server.slug.clone(), name: ctx.server.name.clone(), url }
}

/// Counts this question in the shared windows; each count excludes it. Also
/// returns the counters bumped, to take the question back out of them.
async fn rate_counts(
    broker: &Broker,
    ctx: &Circumstances,
    now: OffsetDateTime,
) -> Result<(RateCounts, [(String, OffsetDateTime); 3]), StoreError> {
    let store = broker.store.as_ref();
    let (org, user, server) = (ctx.org_id, ctx.user_id, ctx.server.id);
    let minute = window_start(now, 60);
    let hour = window_start(now, 3600);
    let before = |count: i64| u32::try_from(count.saturating_sub(1)).unwrap_or(u32::MAX);
    let keys = [
        format!("user-server:{org}:{user}:{server}"),
        format!("server:{org}:{server}"),
        format!("org:{org}"),
    ];
    // One statement for the three counters (one commit, not three), in
    // parallel with the read.
    let ([user_server, server_hour, org_hour], pending) = tokio::try_join!(
        store.bump_counters([(&keys[0], minute), (&keys[1], hour), (&keys[2], hour)]),
        store.pending_count(org, user),
    )?;
    let counts = RateCounts {
        user_server_last_minute: before(user_server),
        server_last_hour: before(server_hour),
        org_last_hour: before(org_hour),
        pending_for_user: u32::try_from(pending).unwrap_or(u32::MAX),
    };
    let [a, b, c] = keys;
    Ok((counts, [(a, minute), (b, hour), (c, hour)]))
}

fn window_start(now: OffsetDateTime, seconds: i64) -> OffsetDateTime {
    let t = now.unix_timestamp();
    OffsetDateTime::from_unix_timestamp(t - t.rem_euclid(seconds))
        .expect("a past window start is a valid time")
}

/// What the policy went by when it answered for the person: kept with the
/// record (`policy.because`) so that the inbox, the history and the API can
/// explain the answer, and offer the way back, long after it was given.
struct Because<'a> {
    facts: &'a Facts,
    policy: &'a herald_policy::OrgPolicy,
    hits: &'a [CredentialHit],
    last_decline: Option<OffsetDateTime>,
}

impl Because<'_> {
    fn of(&self, decision: &Decision) -> Value {
        let rule = match decision {
            Decision::AutoDecline { reason, .. }
            | Decision::AutoCancel { reason }
            | Decision::CancelCall { reason } => *reason,
            Decision::Refuse { .. } | Decision::Show { .. } => return json!({}),
        };
        let caps = &self.policy.rate_caps;
        let rate = &self.facts.rate;
        match rule {
            Rule::CredentialAsk => json!({ "rule": rule.as_str(), "credential_hits": self.hits }),
            Rule::PreviouslyDeclined => json!({
                "rule": rule.as_str(),
                "declined_at": self.last_decline.and_then(|t| t.format(&Rfc3339).ok()),
                "remembered_secs": self.policy.decline_memory.window_secs,
                "muted_for_pestering":
                    matches!(decision, Decision::AutoDecline { mute_for_pestering: true, .. }),
                "pestering_threshold": self.policy.decline_memory.pestering_threshold,
            }),
            Rule::RateCapped => {
                // The first cap reached, in the order `decide` checks them.
                let (cap, limit) = if rate.user_server_last_minute >= caps.per_user_server_per_minute {
                    ("per_user_server_per_minute", caps.per_user_server_per_minute)
                } else if rate.server_last_hour >= caps.per_server_per_hour {
                    ("per_server_per_hour", caps.per_server_per_hour)
                } else {
                    ("per_org_per_hour", caps.per_org_per_hour)
                };
                json!({ "rule": rule.as_str(), "cap": cap, "limit": limit })
            }
            Rule::TooManyPending => json!({
                "rule": rule.as_str(), "cap": "max_pending_per_user", "limit": caps.max_pending_per_user,
            }),
            Rule::UrlRefused => {
                let refusal = match &self.facts.url {
                    Some(Err(refusal)) => Some(refusal),
                    _ => None,
                };
                json!({ "rule": rule.as_str(), "url_refusal": refusal })
            }
            Rule::CutOff | Rule::Muted | Rule::Pestering => json!({ "rule": rule.as_str() }),
        }
    }
}

/// What the dashboard shows with a form the policy let through: how long a
/// decline is remembered (so the card can say what Decline means before a
/// click), and the warnings.
fn flags(warnings: &[Warning], hits: &[CredentialHit], policy: &herald_policy::OrgPolicy) -> Value {
    let remembered = policy.decline_memory.window_secs;
    if warnings.is_empty() {
        return json!({ "decline_remembered_secs": remembered });
    }
    let credential = warnings.iter().any(|w| matches!(w, Warning::CredentialAsk));
    let url_flags: Vec<&herald_policy::UrlFlag> = warnings
        .iter()
        .filter_map(|w| match w {
            Warning::UrlFlags(flags) => Some(flags.iter()),
            _ => None,
        })
        .flatten()
        .collect();
    json!({
        "decline_remembered_secs": remembered,
        "credential_warning": credential.then_some(hits),
        "url_flags": url_flags,
    })
}

/// Runs the credential detector over the message and every field.
fn credential_hits(policy: &herald_policy::OrgPolicy, record: &Elicitation) -> Vec<CredentialHit> {
    if policy.credential_ask.mode == herald_policy::CredentialAskMode::Off {
        return Vec::new();
    }
    // The detector reads text a remote server wrote. Should it ever fail on
    // one, the question is held as a credential ask (said so, and logged
    // without its text), not let through unread.
    let detect = || {
        let detector = CredentialDetector::new(&policy.credential_ask);
        match &record.form {
            Some(form) => {
                let fields = form.fields.iter().map(field_text).collect();
                detector.detect(&AskText { message: &record.message, fields })
            }
            // URL mode: a page to open, no form to send anything back in.
            None => detector.detect_url_request(&record.message),
        }
    };
    std::panic::catch_unwind(detect).unwrap_or_else(|_| {
        tracing::error!(elicitation = %record.id, "the credential-ask detector failed on a question; it is treated as a credential ask");
        vec![CredentialHit {
            location: HitLocation::Message,
            category: Category::Secret,
            matched: String::new(),
            explanation: "Herald could not check this question for credential requests (an internal error, \
                          logged), so it is treated as one"
                .to_owned(),
        }]
    })
}

fn field_text(field: &herald_mcp::Field) -> FieldText<'_> {
    let (kind, format, default, options) = match &field.kind {
        FieldKind::Text { format, default, .. } => {
            (AskKind::Text, format.map(|f| f.as_str()), default.clone(), None)
        }
        FieldKind::Number { default, .. } => (AskKind::Number, None, default.map(|d| d.to_string()), None),
        FieldKind::Boolean { default } => (AskKind::Boolean, None, default.map(|d| d.to_string()), None),
        FieldKind::SingleSelect { options, default } => {
            (AskKind::Choice, None, default.clone(), Some(options))
        }
        FieldKind::MultiSelect { options, default, .. } => {
            (AskKind::Choice, None, default.as_ref().map(|d| d.join(", ")), Some(options))
        }
    };
    FieldText {
        name: &field.name,
        title: field.title.as_deref(),
        description: field.description.as_deref(),
        format,
        default,
        enum_values: options.map(|o| o.iter().map(|o| o.value.as_str()).collect()).unwrap_or_default(),
        enum_labels: options
            .map(|o| o.iter().filter_map(|o| o.title.as_deref()).collect())
            .unwrap_or_default(),
        kind,
    }
}
