//! From a question's words to its pending record: the protocol's checks (the
//! elicitation schema subset, parsed here once and kept on the record) and the
//! org's rules for what may be asked at all (URL mode on or off), under the
//! org's deadline.

use herald_mcp::{ElicitRequest, ElicitationMode, parse_elicit_params};
use serde_json::Value;
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

use super::question::{Circumstances, Question, Source};
use crate::storage::{Elicitation, ServerSnapshot};

/// The record of `question`, pending; `Err` says why it is refused as asked.
pub fn intake(now: &Circumstances, question: Question, replica_id: Uuid) -> Result<Elicitation, String> {
    let Source::Server { era, params } = question.source;
    let Some(params) = params else { return Err("elicitation/create needs params".into()) };
    let value: Value = serde_json::from_str(params.get()).map_err(|e| format!("params: {e}"))?;
    let request = parse_elicit_params(&value).map_err(|e| e.to_string())?;
    if let Some(only) = question.only
        && request.mode() != only
    {
        return Err(format!("only a {} elicitation can be asked here", only.as_str()));
    }
    let (mode, message, schema, form, url) = match request {
        ElicitRequest::Form { message, schema } => {
            (ElicitationMode::Form, message, value.get("requestedSchema").cloned(), Some(schema), None)
        }
        ElicitRequest::Url { message, url, .. } => {
            if !now.policy.url_mode.enabled {
                return Err("URL-mode elicitation is turned off by this organisation's policy".into());
            }
            (ElicitationMode::Url, message, None, None, Some(url))
        }
    };
    let created_at = OffsetDateTime::now_utc();
    Ok(Elicitation {
        id: Uuid::now_v7(),
        org_id: now.org_id,
        org_slug: now.org_slug.clone(),
        user_id: now.user_id,
        server: ServerSnapshot {
            id: Some(now.server.id),
            slug: now.server.slug.clone(),
            name: now.server.name.clone(),
            url: now.server.url.clone(),
        },
        tool: now.tool.clone(),
        protocol: era,
        mode,
        message,
        requested_schema: schema,
        form,
        url,
        replica_id,
        created_at,
        expires_at: created_at + Duration::seconds(i64::from(now.policy.elicitation.timeout_secs)),
        fingerprint: None,
        policy_flags: None,
        note_dismissed_at: None,
        answered_via: None,
        outcome: None,
    })
}
