//! Where the two protocol eras differ, what crosses from the server's era to
//! the agent's.
//!
//! Herald speaks to each server in one era (the registry's setting) and to
//! each agent in the agent's own; every message the server sends on a call
//! reaches the agent through [`to_agent`], which makes it a valid message of
//! the agent's era or drops it when that era has no place for it:
//!
//! | from a 2025-11-25 server to a 2026-07-28 agent | |
//! |---|---|
//! | any result | gains `resultType: "complete"` (required since 2026-07-28) |
//! | `tools/list`, `prompts/list`, `resources/list`, `resources/templates/list`, `resources/read` | gain `ttlMs: 0` and `cacheScope: "private"` (required; the link is per user) |
//! | `resources/read` error -32002 (not found) | -32602, the code 2026-07-28 uses |
//! | `notifications/progress` | passed |
//! | `notifications/message` | passed only if the agent's request asked for a log level, and at or above it |
//! | list-changed, `resources/updated`, `cancelled`, unknown notifications | dropped: 2026-07-28 carries them on `subscriptions/listen`, or not at all |
//!
//! | from a 2026-07-28 server to a 2025-11-25 agent | |
//! |---|---|
//! | any result | loses `resultType`, `ttlMs` and `cacheScope`, which that era does not know |
//! | notifications | passed |
//!
//! Herald's own results (refusals) go through the same door, so a 2026-07-28
//! agent always receives a `resultType`, whatever the server sent.

use herald_mcp::Message;
use serde_json::Value;

use super::meta::{RawObject, raw};
use herald_mcp::ProtocolGeneration;

/// The side of a call Herald speaks to: the agent's era, or Herald's own console.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentEra {
    /// A 2025-06-18 or 2025-11-25 agent, in a session Herald minted.
    Legacy,
    /// A 2026-07-28 agent; `log_level` is what its request's `_meta` asked
    /// for, `can_answer` what its capabilities say it answers.
    Modern { log_level: Option<LogLevel>, can_answer: super::relay::CanAnswer },
    /// Herald's dashboard console, which reads results as they come.
    Console,
}

/// The syslog severities of `notifications/message`, least severe first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    Debug,
    Info,
    Notice,
    Warning,
    Error,
    Critical,
    Alert,
    Emergency,
}

impl LogLevel {
    pub fn parse(raw: &str) -> Option<LogLevel> {
        Some(match raw {
            "debug" => LogLevel::Debug,
            "info" => LogLevel::Info,
            "notice" => LogLevel::Notice,
            "warning" => LogLevel::Warning,
            "error" => LogLevel::Error,
            "critical" => LogLevel::Critical,
            "alert" => LogLevel::Alert,
            "emergency" => LogLevel::Emergency,
            _ => return None,
        })
    }
}

/// The `_meta` key in which a 2026-07-28 request asks for log messages.
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";

/// Methods whose 2026-07-28 results are `CacheableResult`s.
const CACHEABLE: [&str; 5] =
    ["tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read"];

/// The "resource not found" error code of 2025-11-25, and the one 2026-07-28 uses instead.
const LEGACY_RESOURCE_NOT_FOUND: i64 = -32002;

/// A message of the server's era (`upstream`) on a call to `method`, made
/// fit for the agent's era; `None` when the agent's era has no place for it.
pub fn to_agent(
    message: Message,
    agent: &AgentEra,
    upstream: ProtocolGeneration,
    method: &str,
) -> Option<Message> {
    match (agent, message) {
        (AgentEra::Console, message) => Some(message),
        (AgentEra::Modern { .. }, Message::Response { id, result }) => {
            Some(Message::Response { id, result: modern_result(result, method) })
        }
        (AgentEra::Modern { .. }, Message::Error { id, mut error })
            if upstream == ProtocolGeneration::Legacy
                && method == "resources/read"
                && error.code == LEGACY_RESOURCE_NOT_FOUND =>
        {
            error.code = herald_mcp::jsonrpc::INVALID_PARAMS;
            Some(Message::Error { id, error })
        }
        // 2026-07-28 has no -32042: what the server required (a step in the browser, which the
        // person did not complete) is said as a failed tool, or as an error of that era.
        (AgentEra::Modern { .. }, Message::Error { id, error })
            if error.code == herald_mcp::jsonrpc::URL_ELICITATION_REQUIRED =>
        {
            let text = format!(
                "The server needs a step completed in the browser first, and it was not: {}",
                error.message
            );
            Some(match (method, id) {
                ("tools/call", Some(id)) => Message::response(
                    id,
                    raw(&serde_json::json!({
                        "content": [{ "type": "text", "text": text }],
                        "isError": true,
                        "resultType": "complete",
                    })),
                ),
                (_, id) => Message::error(id, herald_mcp::jsonrpc::INTERNAL_ERROR, text),
            })
        }
        (AgentEra::Modern { log_level, .. }, Message::Notification { method, params }) => {
            let keep = match method.as_str() {
                "notifications/progress" => true,
                "notifications/message" => log_level.is_some_and(|wanted| {
                    params
                        .as_ref()
                        .and_then(|p| RawObject::parse(Some(p)).ok())
                        .and_then(|p| p.string("level"))
                        .and_then(|level| LogLevel::parse(&level))
                        .is_some_and(|level| level >= wanted)
                }),
                _ => false,
            };
            keep.then_some(Message::Notification { method, params })
        }
        (AgentEra::Legacy, Message::Response { id, result }) if upstream == ProtocolGeneration::Modern => {
            Some(Message::Response { id, result: legacy_result(result) })
        }
        (_, message) => Some(message),
    }
}

/// A result as 2026-07-28 requires it: `resultType`, and the cache hints of
/// cacheable results. Results that already have them pass unchanged.
fn modern_result(result: Box<serde_json::value::RawValue>, method: &str) -> Box<serde_json::value::RawValue> {
    let Ok(mut fields) = RawObject::parse(Some(&result)) else { return result };
    let mut changed = false;
    if fields.get("resultType").is_none() {
        fields.set("resultType", raw(&Value::from("complete")));
        changed = true;
    }
    if CACHEABLE.contains(&method) {
        if fields.get("ttlMs").is_none() {
            fields.set("ttlMs", raw(&Value::from(0)));
            changed = true;
        }
        if fields.get("cacheScope").is_none() {
            // Herald's links are per user: nothing here may be shared between people.
            fields.set("cacheScope", raw(&Value::from("private")));
            changed = true;
        }
    }
    if changed { fields.to_raw() } else { result }
}

/// A 2026-07-28 result without the members 2025-11-25 does not know.
fn legacy_result(result: Box<serde_json::value::RawValue>) -> Box<serde_json::value::RawValue> {
    let Ok(mut fields) = RawObject::parse(Some(&result)) else { return result };
    let removed = ["resultType", "ttlMs", "cacheScope"].map(|key| fields.remove(key).is_some());
    if removed.contains(&true) { fields.to_raw() } else { result }
}

#[cfg(test)]
mod tests {
    use herald_mcp::RequestId;
    use serde_json::json;

    use super::*;

    fn response(result: Value) -> Message {
        Message::response(RequestId::Integer(1), raw(&result))
    }

    fn result_of(message: Option<Message>) -> Value {
        match message {
            Some(Message::Response { result, .. }) => serde_json::from_str(result.get()).unwrap(),
            other => panic!("expected a response, got {other:?}"),
        }
    }

    fn notification(method: &str, params: Value) -> Message {
        Message::notification(method, Some(raw(&params)))
    }

    const MODERN: AgentEra =
        AgentEra::Modern { log_level: None, can_answer: crate::proxy::relay::CanAnswer::NOTHING };

    #[test]
    fn a_legacy_result_gains_result_type_for_a_modern_agent() {
        let legacy = response(json!({ "content": [{ "type": "text", "text": "ok" }], "isError": false }));
        let out = result_of(to_agent(legacy, &MODERN, ProtocolGeneration::Legacy, "tools/call"));
        assert_eq!(
            out,
            json!({ "content": [{ "type": "text", "text": "ok" }], "isError": false, "resultType": "complete" })
        );
    }

    #[test]
    fn cacheable_results_gain_private_cache_hints_and_keep_their_own() {
        let listed = response(json!({ "tools": [] }));
        let out = result_of(to_agent(listed, &MODERN, ProtocolGeneration::Legacy, "tools/list"));
        assert_eq!(
            out,
            json!({ "tools": [], "resultType": "complete", "ttlMs": 0, "cacheScope": "private" })
        );
        let own =
            response(json!({ "tools": [], "resultType": "complete", "ttlMs": 5000, "cacheScope": "public" }));
        let out = result_of(to_agent(own, &MODERN, ProtocolGeneration::Modern, "tools/list"));
        assert_eq!(
            out,
            json!({ "tools": [], "resultType": "complete", "ttlMs": 5000, "cacheScope": "public" })
        );
    }

    #[test]
    fn a_modern_result_loses_what_a_legacy_agent_does_not_know() {
        let modern =
            response(json!({ "resultType": "complete", "tools": [], "ttlMs": 0, "cacheScope": "private" }));
        let out = result_of(to_agent(modern, &AgentEra::Legacy, ProtocolGeneration::Modern, "tools/list"));
        assert_eq!(out, json!({ "tools": [] }));
    }

    #[test]
    fn same_era_and_console_pass_unchanged() {
        let legacy = response(json!({ "content": [] }));
        let out = result_of(to_agent(legacy, &AgentEra::Legacy, ProtocolGeneration::Legacy, "tools/call"));
        assert_eq!(out, json!({ "content": [] }));
        let any = response(json!({ "content": [] }));
        let out = result_of(to_agent(any, &AgentEra::Console, ProtocolGeneration::Legacy, "tools/call"));
        assert_eq!(out, json!({ "content": [] }));
    }

    #[test]
    fn a_legacy_not_found_becomes_invalid_params_for_a_modern_agent() {
        let missing =
            Message::error(Some(RequestId::Integer(1)), LEGACY_RESOURCE_NOT_FOUND, "no such resource");
        match to_agent(missing, &MODERN, ProtocolGeneration::Legacy, "resources/read") {
            Some(Message::Error { error, .. }) => assert_eq!(error.code, -32602),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_url_step_left_undone_is_said_in_the_modern_agents_terms() {
        let required = Message::error(Some(RequestId::Integer(1)), -32042, "sign in at the provider");
        let out = result_of(to_agent(required, &MODERN, ProtocolGeneration::Legacy, "tools/call"));
        assert_eq!(out["isError"], true);
        assert_eq!(out["resultType"], "complete");
        assert!(out["content"][0]["text"].as_str().unwrap().ends_with("sign in at the provider"));
        let required = Message::error(Some(RequestId::Integer(1)), -32042, "sign in");
        let legacy = to_agent(required, &AgentEra::Legacy, ProtocolGeneration::Legacy, "tools/call");
        assert!(matches!(legacy, Some(Message::Error { error, .. }) if error.code == -32042), "as sent");
    }

    #[test]
    fn modern_agents_get_progress_and_only_the_log_messages_they_asked_for() {
        let progress = notification("notifications/progress", json!({ "progressToken": 1, "progress": 1 }));
        assert!(to_agent(progress, &MODERN, ProtocolGeneration::Legacy, "tools/call").is_some());
        let warning = || notification("notifications/message", json!({ "level": "warning", "data": "x" }));
        assert!(
            to_agent(warning(), &MODERN, ProtocolGeneration::Legacy, "tools/call").is_none(),
            "not asked for"
        );
        let wants_errors =
            AgentEra::Modern { log_level: Some(LogLevel::Error), can_answer: Default::default() };
        assert!(
            to_agent(warning(), &wants_errors, ProtocolGeneration::Legacy, "tools/call").is_none(),
            "below the level"
        );
        let wants_info = AgentEra::Modern { log_level: Some(LogLevel::Info), can_answer: Default::default() };
        assert!(to_agent(warning(), &wants_info, ProtocolGeneration::Legacy, "tools/call").is_some());
        for dropped in [
            "notifications/tools/list_changed",
            "notifications/resources/updated",
            "notifications/cancelled",
            "notifications/elicitation/complete",
            "notifications/something_new",
        ] {
            let note = notification(dropped, json!({}));
            assert!(
                to_agent(note, &wants_info, ProtocolGeneration::Legacy, "tools/call").is_none(),
                "{dropped}"
            );
        }
        let unknown = notification("notifications/something_new", json!({}));
        assert!(to_agent(unknown, &AgentEra::Legacy, ProtocolGeneration::Legacy, "tools/call").is_some());
    }
}
