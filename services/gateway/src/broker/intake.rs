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
    let (era, params) = match question.source {
        Source::Server { era, params } => (era, params),
        Source::Connect { era, connect, why } => {
            return Ok(connect_record(now, era, connect, &why, replica_id));
        }
    };
    let Some(params) = params else { return Err("elicitation/create needs params".into()) };
    let value: Value = serde_json::from_str(params.get()).map_err(|e| format!("params: {e}"))?;
    let request = parse_elicit_params(&value).map_err(|e| e.to_string())?;
    if let Some(only) = question.only
        && request.mode() != only
    {
        return Err(format!("only a {} elicitation can be asked here", only.as_str()));
    }
    let words = match request {
        ElicitRequest::Form { message, schema } => Words {
            mode: ElicitationMode::Form,
            message,
            requested_schema: value.get("requestedSchema").cloned(),
            form: Some(schema),
            url: None,
        },
        ElicitRequest::Url { message, url, .. } => {
            if !now.policy.url_mode.enabled {
                return Err("URL-mode elicitation is turned off by this organisation's policy".into());
            }
            Words { mode: ElicitationMode::Url, message, requested_schema: None, form: None, url: Some(url) }
        }
    };
    Ok(record(now, era, words, replica_id))
}

/// What a question asks, in its mode.
struct Words {
    mode: ElicitationMode,
    message: String,
    requested_schema: Option<Value>,
    form: Option<herald_mcp::RequestedSchema>,
    url: Option<String>,
}

/// Herald's own question for a call whose server acts as each person: open Herald's connect
/// page, which sends the person to the server's sign-in and back. It is a URL question, of
/// Herald's address, and ends when the person has connected (or says no, or it expires).
fn connect_record(
    now: &Circumstances,
    era: herald_mcp::ProtocolGeneration,
    connect: String,
    why: &str,
    replica_id: Uuid,
) -> Elicitation {
    let server = &now.server.name;
    let what = match &now.tool {
        Some(tool) => format!("Your agent's call to {tool} on {server}"),
        None => format!("Your agent's request to {server}"),
    };
    let message = format!(
        "{what} waits for you: {server} acts as each person, and {why}. Connect your account: \
         Herald sends you to its sign-in page and back, and the call goes on as you."
    );
    let words =
        Words { mode: ElicitationMode::Url, message, requested_schema: None, form: None, url: Some(connect) };
    let mut e = record(now, era, words, replica_id);
    e.asked_by = crate::domain::AskedBy::Herald;
    e
}

fn record(
    now: &Circumstances,
    era: herald_mcp::ProtocolGeneration,
    words: Words,
    replica_id: Uuid,
) -> Elicitation {
    let Words { mode, message, requested_schema, form, url } = words;
    let created_at = OffsetDateTime::now_utc();
    Elicitation {
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
        asked_by: crate::domain::AskedBy::Server,
        tool: now.tool.clone(),
        protocol: era,
        mode,
        message,
        requested_schema,
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
    }
}
