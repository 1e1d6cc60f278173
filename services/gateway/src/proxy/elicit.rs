//! From a server's `elicitation/create` to a pending record, and from an
//! ending back to the `ElicitResult` the server receives. A policy decision
//! has exactly the shape of a person's answer.

use herald_mcp::{ElicitAction, ElicitRequest, ElicitationMode, ProtocolGeneration, parse_elicit_params};
use herald_policy::decision::Rule;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

use super::CallContext;
use crate::storage::{Elicitation, Outcome, ServerSnapshot};

/// A server's question as the org's rules stand when it arrives: the call as
/// it is now ([`CallContext::current`]) and the question's record, or why it
/// is refused.
pub async fn prepare(
    ctx: &CallContext,
    params: Option<&RawValue>,
    protocol: ProtocolGeneration,
) -> Result<(CallContext, Box<Elicitation>), String> {
    // A server asking far more often than the org's rate cap is refused before the question
    // costs anything more: no record, no database round trip.
    let limit = ctx.policy.rate_caps.per_user_server_per_minute.saturating_mul(10).max(MIN_FLOOD_LIMIT);
    if !ctx.state.broker.floods.ask(
        ctx.org_id,
        ctx.user_id,
        &ctx.server.slug,
        limit,
        std::time::Instant::now(),
    ) {
        let key = crate::broker::floods::FloodKey {
            org_id: ctx.org_id,
            user_id: ctx.user_id,
            server_slug: ctx.server.slug.clone(),
            reason: Rule::RateCapped.as_str(),
        };
        let ended = ctx.state.broker.floods.count_unrecorded(key, std::time::Instant::now());
        crate::broker::gate::audit_floods(ctx.state.store.as_ref(), ended).await;
        return Err(format!(
            "the server asked more than {limit} questions in a minute; Herald refuses more until the minute is over"
        ));
    }
    let now = ctx.current().await?;
    match intake(&now, params, protocol) {
        Intake::Open(record) => Ok((now, record)),
        Intake::Refuse(why) => Err(why),
    }
}

/// The fewest questions a minute a server may ask one person before Herald
/// refuses more without looking at them (ten times the org's cap, at least this).
pub const MIN_FLOOD_LIMIT: u32 = 60;

pub enum Intake {
    /// Show it: store it as pending.
    Open(Box<Elicitation>),
    /// Refuse it as a protocol violation, with the reason.
    Refuse(String),
}

/// Checks a server's request against the protocol and the org's rules and
/// prepares its record, asked in the server's era `protocol`.
pub fn intake(ctx: &CallContext, params: Option<&RawValue>, protocol: ProtocolGeneration) -> Intake {
    let Some(params) = params else { return Intake::Refuse("elicitation/create needs params".into()) };
    let value: Value = match serde_json::from_str(params.get()) {
        Ok(v) => v,
        Err(e) => return Intake::Refuse(format!("params: {e}")),
    };
    let request = match parse_elicit_params(&value) {
        Ok(r) => r,
        Err(e) => return Intake::Refuse(e.to_string()),
    };
    let (mode, message, schema, url) = match request {
        ElicitRequest::Form { message, .. } => {
            (ElicitationMode::Form, message, value.get("requestedSchema").cloned(), None)
        }
        ElicitRequest::Url { message, url, .. } => {
            if !ctx.policy.url_mode.enabled {
                return Intake::Refuse(
                    "URL-mode elicitation is turned off by this organisation's policy".into(),
                );
            }
            (ElicitationMode::Url, message, None, Some(url))
        }
    };
    let now = OffsetDateTime::now_utc();
    Intake::Open(Box::new(Elicitation {
        id: Uuid::now_v7(),
        org_id: ctx.org_id,
        org_slug: ctx.org_slug.clone(),
        user_id: ctx.user_id,
        server: ServerSnapshot {
            id: Some(ctx.server.id),
            slug: ctx.server.slug.clone(),
            name: ctx.server.name.clone(),
            url: ctx.server.url.clone(),
        },
        tool: ctx.tool.clone(),
        protocol,
        mode,
        message,
        requested_schema: schema,
        url,
        replica_id: ctx.state.broker.replica_id,
        created_at: now,
        expires_at: now + Duration::seconds(i64::from(ctx.policy.elicitation.timeout_secs)),
        fingerprint: None,
        policy_flags: None,
        outcome: None,
    }))
}

/// The `ElicitResult` for an ending: `content` only for an accepted form.
pub fn elicit_result(outcome: &Outcome) -> Value {
    match (outcome.action, &outcome.content) {
        (ElicitAction::Accept, Some(content)) => json!({ "action": "accept", "content": content }),
        (action, _) => json!({ "action": action.as_str() }),
    }
}
