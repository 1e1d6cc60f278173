//! The audit log: every admin change, every mute and cut-off, and every
//! answer the policy gave on someone's behalf. Entries are written after the
//! change they describe; a failed write is logged loudly rather than undoing
//! a change that has already happened.
//!
//! This module also reads entries in words, in one place ([`describe`]): an
//! entry's title ("Policy changed", "Question declined automatically"), its
//! reason in words ("credential ask"), and what it changed, each changed
//! setting labelled, with its old and new value. The stable `action` codes are
//! listed once, with their titles, in [`ACTIONS`].

use serde::Serialize;
use serde_json::{Map, Value, json};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::storage::{AuditEntry, Store};

/// Who did it.
pub enum Actor {
    User(Uuid),
    Policy,
    System,
}

/// What it concerned, beyond the action itself.
#[derive(Default)]
pub struct Subject {
    pub user_id: Option<Uuid>,
    pub server_slug: Option<String>,
    pub reason: Option<String>,
    pub details: Option<Value>,
}

/// Writes an entry; returns its id (time-ordered: entries written later have greater ids).
pub async fn record(store: &dyn Store, org_id: Uuid, actor: Actor, action: &str, subject: Subject) -> Uuid {
    let (actor, actor_id) = match actor {
        Actor::User(id) => ("user", Some(id)),
        Actor::Policy => ("policy", None),
        Actor::System => ("system", None),
    };
    let entry = AuditEntry {
        id: Uuid::now_v7(),
        org_id,
        at: OffsetDateTime::now_utc(),
        actor: actor.to_owned(),
        actor_id,
        action: action.to_owned(),
        user_id: subject.user_id,
        server_slug: subject.server_slug,
        reason: subject.reason,
        details: subject.details.unwrap_or_else(|| Value::Object(Default::default())),
    };
    if let Err(e) = store.audit(&entry).await {
        tracing::error!(error = %e, %org_id, action, "could not write an audit entry");
    }
    entry.id
}

// ---------------------------------------------------------------------------------------------
// What changed: `details.changes` of `policy.updated`, `server.updated` and `member.role_changed`.

/// One changed value, as recorded in `details.changes`: `{path, before, after}`.
pub fn change(path: &str, before: impl Into<Value>, after: impl Into<Value>) -> Value {
    json!({ "path": path, "before": before.into(), "after": after.into() })
}

/// The values that differ between two JSON documents, as [`change`]s with
/// dotted paths, in the order of `after` (then what only `before` has).
/// Objects are compared member by member; anything else (lists included) is
/// compared whole. Nothing is listed for what stayed the same.
pub fn changes(before: &Value, after: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    walk("", before, after, &mut out);
    out
}

fn walk(path: &str, before: &Value, after: &Value, out: &mut Vec<Value>) {
    let join = |key: &str| if path.is_empty() { key.to_owned() } else { format!("{path}.{key}") };
    match (before, after) {
        (Value::Object(b), Value::Object(a)) => {
            for (key, new) in a {
                walk(&join(key), b.get(key).unwrap_or(&Value::Null), new, out);
            }
            for (key, old) in b.iter().filter(|(key, _)| !a.contains_key(*key)) {
                walk(&join(key), old, &Value::Null, out);
            }
        }
        (b, a) if b == a => {}
        (b, a) => out.push(change(path, b.clone(), a.clone())),
    }
}

// ---------------------------------------------------------------------------------------------
// Reading an entry in words.

/// Every action Herald writes, with the title a filter shows for it (an
/// entry's own title may say more: [`describe`]).
pub const ACTIONS: [(&str, &str); 34] = [
    ("policy.updated", "Policy changed"),
    ("server.registered", "Server registered"),
    ("server.updated", "Server changed"),
    ("server.deleted", "Server deleted"),
    ("server.cut_off", "Server cut off"),
    ("server.restored", "Server restored"),
    ("member.role_changed", "Role changed"),
    ("member.removed", "Member removed or left"),
    ("member.joined", "Member joined through single sign-on"),
    ("org.sign_in_changed", "Sign-in settings changed"),
    ("org.identity_provider_set", "Identity provider set up"),
    ("org.identity_provider_changed", "Identity provider changed"),
    ("org.identity_provider_removed", "Identity provider removed"),
    ("org.domain_claimed", "E-mail domain claimed"),
    ("org.domain_dropped", "E-mail domain dropped"),
    ("org.domain_confirmed", "E-mail domain confirmed by the operator"),
    ("org.domain_revoked", "E-mail domain withdrawn by the operator"),
    ("connection.created", "Account connected to a server"),
    ("connection.removed", "Account disconnected from a server"),
    ("invite.created", "Invite created"),
    ("invite.revoked", "Invite revoked"),
    ("invite.accepted", "Invite accepted"),
    ("token.created", "Token created"),
    ("token.revoked", "Token revoked"),
    ("mute.added", "Server muted"),
    ("mute.removed", "Server unmuted"),
    ("decline.forgotten", "Decline forgotten: ask again"),
    ("elicitation.auto_answered", "Question answered automatically"),
    ("auth.sign_in_throttled", "Sign-in throttled"),
    ("audit.exported", "Audit log exported"),
    ("notifications.defaults_changed", "Notification defaults changed"),
    ("webhook.created", "Webhook added"),
    ("webhook.deleted", "Webhook deleted"),
    ("webhook.secret_rotated", "Webhook secret rotated"),
];

/// The reasons an automatic answer (and a mute by the policy) is recorded
/// with, in words: the policy's rules, and Herald's own refusal.
pub const REASONS: [(&str, &str); 9] = [
    ("cut_off", "server cut off"),
    ("muted", "server muted by the person"),
    ("credential_ask", "credential ask"),
    ("previously_declined", "previously declined"),
    ("pestering", "kept asking a declined question"),
    ("rate_capped", "rate cap"),
    ("too_many_pending", "too many questions waiting"),
    ("url_refused", "link refused by the URL rules"),
    ("interrupted", "not a question this call may ask"),
];

/// A changed value with its setting in words.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    pub path: String,
    pub label: String,
    pub before: Value,
    pub after: Value,
}

/// An entry in words.
#[derive(Debug, Clone, PartialEq)]
pub struct Described {
    pub title: String,
    /// The rule or reason in words, when the entry's reason is one Herald names.
    pub reason_text: Option<String>,
    pub changes: Vec<Change>,
}

/// The title, the reason in words and the labelled changes of `entry`, from
/// its action, actor, reason and details. An action this version does not
/// know still gets a title: its code in words.
pub fn describe(entry: &AuditEntry) -> Described {
    let details = entry.details.as_object();
    let detail = |key: &str| details.and_then(|d| d.get(key));
    let by_policy = entry.actor == "policy";
    let title = match entry.action.as_str() {
        "policy.updated" => match detail("changes").and_then(Value::as_array) {
            Some(list) if list.is_empty() => "Policy saved unchanged".to_owned(),
            _ => "Policy changed".to_owned(),
        },
        "member.removed" if entry.actor_id.is_some() && entry.actor_id == entry.user_id => {
            "Member left".to_owned()
        }
        "member.removed" => "Member removed".to_owned(),
        "mute.added" if by_policy => "Server muted automatically".to_owned(),
        "elicitation.auto_answered" => {
            if detail("aggregated").and_then(Value::as_bool) == Some(true) {
                let count = detail("count").and_then(Value::as_u64).unwrap_or(0);
                format!("{count} question{} answered automatically", if count == 1 { "" } else { "s" })
            } else {
                match detail("action").and_then(Value::as_str) {
                    Some("decline") => "Question declined automatically",
                    Some("cancel") => "Question cancelled automatically",
                    Some("accept") => "Question accepted automatically",
                    _ => "Question answered automatically",
                }
                .to_owned()
            }
        }
        known => match ACTIONS.iter().find(|(action, _)| *action == known) {
            Some((_, title)) => (*title).to_owned(),
            None => in_words(known),
        },
    };
    let reason_text = entry
        .reason
        .as_deref()
        .and_then(|r| REASONS.iter().find(|(reason, _)| *reason == r))
        .filter(|_| by_policy || entry.action == "elicitation.auto_answered")
        .map(|(_, words)| (*words).to_owned());
    Described { title, reason_text, changes: labelled_changes(entry) }
}

fn labelled_changes(entry: &AuditEntry) -> Vec<Change> {
    let details = entry.details.as_object();
    let recorded = details.and_then(|d| d.get("changes")).and_then(Value::as_array);
    let label: fn(&str) -> String = match entry.action.as_str() {
        "policy.updated" => policy_label,
        "server.updated" => server_label,
        "org.sign_in_changed" => |path: &str| match path {
            "password_sign_in" => "Password sign-in".to_owned(),
            other => in_words(other),
        },
        "org.identity_provider_set" | "org.identity_provider_changed" => |path: &str| {
            match path {
                "issuer" => "Issuer",
                "client_id" => "Client ID",
                "client_secret" => "Client secret",
                "name" => "Name on the sign-in button",
                "default_role" => "Role of people who join",
                "groups_claim" => "Groups claim",
                "role_map" => "Groups to roles",
                other => return in_words(other),
            }
            .to_owned()
        },
        _ => in_words,
    };
    match recorded {
        Some(list) => list
            .iter()
            .filter_map(Value::as_object)
            .filter_map(|c| {
                let path = c.get("path")?.as_str()?.to_owned();
                let field = |key: &str| c.get(key).cloned().unwrap_or(Value::Null);
                Some(Change { label: label(&path), before: field("before"), after: field("after"), path })
            })
            .collect(),
        // Entries written before changes were recorded said only the new role.
        None if entry.action == "member.role_changed" => details
            .and_then(|d| d.get("role"))
            .map(|role| {
                vec![Change {
                    path: "role".into(),
                    label: "Role".into(),
                    before: Value::Null,
                    after: role.clone(),
                }]
            })
            .unwrap_or_default(),
        None => Vec::new(),
    }
}

/// The policy editor's words for each setting.
fn policy_label(path: &str) -> String {
    let known = match path {
        "elicitation.timeout_secs" => "Deadline for an answer (seconds)",
        "credential_ask.mode" => "When a server asks for a credential",
        "credential_ask.extra_terms" => "Extra terms that count as credentials",
        "credential_ask.allow_terms" => "Terms that never count as credentials",
        "decline_memory.window_secs" => "Remember declines for (seconds)",
        "decline_memory.pestering_threshold" => "Re-asks before auto-mute",
        "rate_caps.per_user_server_per_minute" => "Rate cap per person and server, per minute",
        "rate_caps.per_server_per_hour" => "Rate cap per server across the organisation, per hour",
        "rate_caps.per_org_per_hour" => "Rate cap for the whole organisation, per hour",
        "rate_caps.max_pending_per_user" => "Questions waiting for one person at once",
        "url_mode.enabled" => "Allow servers to ask people to open links",
        "url_mode.allow_domains" => "Allowed link domains",
        "url_mode.deny_domains" => "Denied link domains",
        "retention.accepted_content_days" => "Keep accepted answers' content (days)",
        other => return in_words(other),
    };
    known.to_owned()
}

fn server_label(path: &str) -> String {
    match path {
        "name" => "Name".to_owned(),
        "url" => "URL".to_owned(),
        "protocol" => "Protocol".to_owned(),
        "headers" => "Headers (names only; values are never recorded)".to_owned(),
        other => in_words(other),
    }
}

/// A code in words: `rate_caps.per_org_per_hour` → "Rate caps: per org per hour".
fn in_words(code: &str) -> String {
    let words = code.split('.').map(|part| part.replace('_', " ")).filter(|p| !p.is_empty());
    let text = words.collect::<Vec<_>>().join(": ");
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => "Unnamed action".to_owned(),
    }
}

/// The filters of a query, as an export's own entry records them.
pub fn filters_in_details(pairs: &[(&str, Option<String>)]) -> Value {
    let map: Map<String, Value> = pairs
        .iter()
        .filter_map(|(k, v)| {
            let v = v.as_deref().map(str::trim).filter(|v| !v.is_empty())?;
            Some(((*k).to_owned(), Value::String(v.to_owned())))
        })
        .collect();
    Value::Object(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(actor: &str, action: &str, reason: Option<&str>, details: Value) -> AuditEntry {
        AuditEntry {
            id: Uuid::now_v7(),
            org_id: Uuid::nil(),
            at: OffsetDateTime::UNIX_EPOCH,
            actor: actor.into(),
            actor_id: None,
            action: action.into(),
            user_id: None,
            server_slug: None,
            reason: reason.map(Into::into),
            details,
        }
    }

    #[test]
    fn changes_lists_only_what_differs_with_dotted_paths() {
        let before = json!({ "a": { "x": 1, "y": [1, 2] }, "b": true, "gone": 1 });
        let after = json!({ "a": { "x": 2, "y": [1, 2] }, "b": true, "new": "n" });
        assert_eq!(
            changes(&before, &after),
            [change("a.x", 1, 2), change("new", Value::Null, "n"), change("gone", 1, Value::Null)]
        );
        assert!(changes(&after, &after).is_empty());
    }

    #[test]
    fn every_action_has_a_title_and_an_unknown_one_gets_its_code_in_words() {
        for (action, title) in ACTIONS {
            assert_eq!(
                describe(&entry("user", action, None, json!({}))).title,
                title.replace("d or left", "d")
            );
        }
        assert_eq!(
            describe(&entry("system", "widget.frob_done", None, json!({}))).title,
            "Widget: frob done"
        );
        assert_eq!(describe(&entry("system", "", None, json!({}))).title, "Unnamed action");
    }

    #[test]
    fn automatic_answers_say_what_was_answered_and_why() {
        let declined = describe(&entry(
            "policy",
            "elicitation.auto_answered",
            Some("credential_ask"),
            json!({ "action": "decline" }),
        ));
        assert_eq!(declined.title, "Question declined automatically");
        assert_eq!(declined.reason_text.as_deref(), Some("credential ask"));
        let cancelled = describe(&entry(
            "policy",
            "elicitation.auto_answered",
            Some("rate_capped"),
            json!({ "action": "cancel" }),
        ));
        assert_eq!(cancelled.title, "Question cancelled automatically");
        assert_eq!(cancelled.reason_text.as_deref(), Some("rate cap"));
        let flood = describe(&entry(
            "policy",
            "elicitation.auto_answered",
            Some("previously_declined"),
            json!({ "aggregated": true, "count": 12 }),
        ));
        assert_eq!(flood.title, "12 questions answered automatically");
        assert_eq!(flood.reason_text.as_deref(), Some("previously declined"));
        // An admin's own words for a cut-off are not a rule.
        let cut = describe(&entry("user", "server.cut_off", Some("muted"), json!({})));
        assert_eq!((cut.title.as_str(), cut.reason_text), ("Server cut off", None));
    }

    #[test]
    fn recorded_changes_get_the_editors_words() {
        let e = entry(
            "user",
            "policy.updated",
            None,
            json!({ "changes": [change("rate_caps.per_org_per_hour", 100, 50), change("some.new_thing", 1, 2)] }),
        );
        let labels: Vec<String> = describe(&e).changes.into_iter().map(|c| c.label).collect();
        assert_eq!(labels, ["Rate cap for the whole organisation, per hour", "Some: new thing"]);
        let old_role = describe(&entry("user", "member.role_changed", None, json!({ "role": "admin" })));
        assert_eq!(old_role.changes[0].after, "admin");
        assert_eq!(
            describe(&entry("user", "policy.updated", None, json!({ "changes": [] }))).title,
            "Policy saved unchanged"
        );
    }
}
