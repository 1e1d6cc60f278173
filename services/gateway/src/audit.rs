//! The audit log: every admin change, every mute and cut-off, and every
//! answer the policy gave on someone's behalf. Entries are written after the
//! change they describe; a failed write is logged loudly rather than undoing
//! a change that has already happened.

use serde_json::Value;
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

pub async fn record(store: &dyn Store, org_id: Uuid, actor: Actor, action: &str, subject: Subject) {
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
}
