//! Organisations' webhooks: the events they receive and how each request is
//! signed. The scheme is Stripe's and Slack's: `Herald-Signature: t=<unix
//! seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" with the webhook's secret>`;
//! a receiver recomputes it over the raw body and refuses a request whose
//! signature differs or whose `t` is more than a few minutes old (replays).

use aws_lc_rs::hmac;
use base64::Engine;
use serde_json::{Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use uuid::Uuid;

use super::content;
use crate::domain::notification::NotifyEvent;
use crate::storage::{Elicitation, User};

/// The header carrying the signature.
pub const SIGNATURE_HEADER: &str = "Herald-Signature";

/// A fresh signing secret, shown to the admin once.
pub fn new_secret() -> String {
    let bytes = crate::crypto::random_bytes::<32>();
    format!("whsec_{}", base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

/// What a sealed secret is bound to: its organisation and webhook, so a
/// ciphertext moved to another row does not open.
pub fn seal_context(org_id: Uuid, webhook_id: Uuid) -> Vec<u8> {
    let mut context = b"webhook secret v1:".to_vec();
    context.extend_from_slice(org_id.as_bytes());
    context.extend_from_slice(webhook_id.as_bytes());
    context
}

/// The `Herald-Signature` value for `body` sent at `t`.
pub fn signature(secret: &str, t: i64, body: &[u8]) -> String {
    let key = hmac::Key::new(hmac::HMAC_SHA256, secret.as_bytes());
    let mut ctx = hmac::Context::with_key(&key);
    ctx.update(t.to_string().as_bytes());
    ctx.update(b".");
    ctx.update(body);
    let tag = ctx.sign();
    format!("t={t},v1={}", crate::crypto::hex(tag.as_ref()))
}

fn when(t: OffsetDateTime) -> String {
    t.format(&Rfc3339).expect("timestamps format")
}

/// The body of a question event.
pub fn question_event(
    id: Uuid,
    event: NotifyEvent,
    e: &Elicitation,
    person: Option<&User>,
    public_url: &url::Url,
    now: OffsetDateTime,
) -> Value {
    let mut body = json!({
        "id": id,
        "type": event.as_str(),
        "created_at": when(now),
        "organisation": { "slug": e.org_slug },
        "question": {
            "id": e.id,
            "url": content::question_link(public_url, e),
            "server": { "slug": e.server.slug, "name": e.server.name },
            "asked_by": e.asked_by.as_str(),
            "tool": e.tool,
            "first_words": content::first_words(&e.message),
            "mode": e.mode.as_str(),
            "asked_at": when(e.created_at),
            "expires_at": when(e.expires_at),
            "person": person.map(|u| json!({ "id": u.id, "name": u.name, "email": u.email })),
        },
    });
    if let (NotifyEvent::Ended, Some(outcome)) = (event, &e.outcome) {
        body["ending"] = json!({
            "action": outcome.action.as_str(),
            "decided_by": outcome.decided_by.as_str(),
            "reason": outcome.reason.map(|r| r.as_str()),
            "at": when(outcome.resolved_at),
        });
    }
    body
}

/// The body of an admin's test.
pub fn ping_event(id: Uuid, org_slug: &str, now: OffsetDateTime) -> Value {
    json!({
        "id": id,
        "type": NotifyEvent::Ping.as_str(),
        "created_at": when(now),
        "organisation": { "slug": org_slug },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_is_hmac_sha256_over_timestamp_dot_body() {
        // Computed independently: printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac whsec_test
        assert_eq!(
            signature("whsec_test", 1_700_000_000, br#"{"a":1}"#),
            "t=1700000000,v1=38877139021993b830af32feea6e18a8da83eb2f6e49ee50bd9e4cf4ca4d3789"
        );
    }

    #[test]
    fn secrets_are_long_and_distinct() {
        let (a, b) = (new_secret(), new_secret());
        assert!(a.starts_with("whsec_") && a.len() >= 40);
        assert_ne!(a, b);
    }
}
