//! Notifications: a person's preferences (`/me/notifications`), their
//! organisation's defaults, and the organisation's signed webhooks with their
//! delivery log (admins).

use std::collections::BTreeSet;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use uuid::Uuid;

use super::auth::{OrgAccess, Principal};
use super::json::ValidJson;
use crate::app::AppState;
use crate::audit::{self, Subject};
use crate::domain::notification::{NotifyChannel, NotifyEvent};
use crate::notify::prefs::{Prefs, PrefsDoc};
use crate::notify::webhooks;
use crate::problem::{ApiError, ApiResult, InvalidField};
use crate::storage::notifications::{Delivery, NewDelivery, Webhook};

// ---- a person's preferences ----

#[derive(Serialize)]
pub struct OrgPrefsView {
    pub org: String,
    pub name: String,
    pub effective: Prefs,
}

#[derive(Serialize)]
pub struct MyPrefsView {
    pub own: PrefsDoc,
    /// Over Herald's built-in defaults only (each organisation's defaults are in `by_org`).
    pub effective: Prefs,
    pub by_org: Vec<OrgPrefsView>,
    pub email_available: bool,
    /// Browser push works on every Herald; whether it reaches anyone depends on their browsers.
    pub push_available: bool,
    /// How the latest e-mail to the person went (a mail server refusing them shows here).
    pub last_email: Option<LastEmail>,
    pub address: String,
}

#[derive(Serialize)]
pub struct LastEmail {
    /// `delivered`, `retrying` (failed, to be tried again) or `failed` (given up).
    pub status: String,
    #[serde(with = "time::serde::rfc3339")]
    pub at: OffsetDateTime,
    pub error: Option<String>,
    pub attempts: i64,
}

async fn my_view(state: &AppState, principal: &Principal) -> ApiResult<MyPrefsView> {
    let user = principal.user();
    let own = PrefsDoc::from_stored(state.store.notification_prefs(user.id).await?);
    let memberships = match principal {
        Principal::Session { .. } => state.store.memberships(user.id).await?,
        Principal::Token(token) => vec![token.membership.clone()],
    };
    let mut by_org = Vec::with_capacity(memberships.len());
    for m in memberships {
        let defaults = state.store.org_notification_defaults(m.org.id).await?;
        let org = PrefsDoc::from_stored(defaults.map(|d| d.document));
        by_org.push(OrgPrefsView { org: m.org.slug, name: m.org.name, effective: Prefs::merged(&own, &org) });
    }
    Ok(MyPrefsView {
        effective: Prefs::merged(&own, &PrefsDoc::default()),
        own,
        by_org,
        email_available: state.notifier.email_available(),
        push_available: true,
        last_email: state.store.latest_to_person(user.id, NotifyChannel::Email.as_str()).await?.map(|d| {
            LastEmail {
                status: match d.status.as_str() {
                    "pending" => "retrying".into(),
                    // Its last attempt failed; then the question ended.
                    "withdrawn" => "failed".into(),
                    _ => d.status,
                },
                at: d.delivered_at.unwrap_or(d.created_at),
                error: d.last_error,
                attempts: d.attempts,
            }
        }),
        address: user.email.clone(),
    })
}

pub async fn my_prefs(State(state): State<AppState>, principal: Principal) -> ApiResult<Json<MyPrefsView>> {
    Ok(Json(my_view(&state, &principal).await?))
}

/// Replaces the person's own choices; a missing or null value means "my organisation's default".
pub async fn set_my_prefs(
    State(state): State<AppState>,
    principal: Principal,
    ValidJson(doc): ValidJson<PrefsDoc>,
) -> ApiResult<Json<MyPrefsView>> {
    doc.check().map_err(ApiError::Validation)?;
    let document = serde_json::to_value(&doc).map_err(anyhow::Error::from)?;
    state.store.put_notification_prefs(principal.user().id, &document, OffsetDateTime::now_utc()).await?;
    Ok(Json(my_view(&state, &principal).await?))
}

// ---- an organisation's defaults ----

#[derive(Serialize)]
pub struct PersonView {
    pub name: String,
    pub email: String,
}

#[derive(Serialize)]
pub struct DefaultsView {
    pub defaults: PrefsDoc,
    #[serde(with = "time::serde::rfc3339::option")]
    pub updated_at: Option<OffsetDateTime>,
    pub updated_by: Option<PersonView>,
}

async fn person(state: &AppState, id: Option<Uuid>) -> ApiResult<Option<PersonView>> {
    let Some(id) = id else { return Ok(None) };
    Ok(state.store.user_by_id(id).await?.map(|u| PersonView { name: u.user.name, email: u.user.email }))
}

async fn defaults_view(state: &AppState, org_id: Uuid) -> ApiResult<DefaultsView> {
    let stored = state.store.org_notification_defaults(org_id).await?;
    let (updated_at, updated_by) = match &stored {
        Some(s) => (Some(s.updated_at), person(state, s.updated_by).await?),
        None => (None, None),
    };
    Ok(DefaultsView { defaults: PrefsDoc::from_stored(stored.map(|s| s.document)), updated_at, updated_by })
}

pub async fn org_defaults(State(state): State<AppState>, access: OrgAccess) -> ApiResult<Json<DefaultsView>> {
    Ok(Json(defaults_view(&state, access.org_id()).await?))
}

pub async fn set_org_defaults(
    State(state): State<AppState>,
    access: OrgAccess,
    ValidJson(doc): ValidJson<PrefsDoc>,
) -> ApiResult<Json<DefaultsView>> {
    access.require_admin()?;
    doc.check().map_err(ApiError::Validation)?;
    let document = serde_json::to_value(&doc).map_err(anyhow::Error::from)?;
    let replaced = state
        .store
        .put_org_notification_defaults(
            access.org_id(),
            &document,
            access.user().id,
            OffsetDateTime::now_utc(),
        )
        .await?;
    let previous = replaced.unwrap_or_else(|| serde_json::to_value(PrefsDoc::default()).expect("serializes"));
    access
        .audit(
            state.store.as_ref(),
            "notifications.defaults_changed",
            about(serde_json::json!({ "changes": audit::changes(&previous, &document) })),
        )
        .await;
    Ok(Json(defaults_view(&state, access.org_id()).await?))
}

// ---- webhooks ----

#[derive(Serialize)]
pub struct LastDeliveryView {
    pub status: String,
    #[serde(with = "time::serde::rfc3339")]
    pub at: OffsetDateTime,
}

#[derive(Serialize)]
pub struct WebhookView {
    pub id: Uuid,
    pub url: String,
    pub description: String,
    pub events: Vec<String>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    pub created_by: Option<PersonView>,
    pub last_delivery: Option<LastDeliveryView>,
}

async fn webhook_view(state: &AppState, w: Webhook) -> ApiResult<WebhookView> {
    Ok(WebhookView {
        created_by: person(state, w.created_by).await?,
        last_delivery: w.last_delivery.map(|(status, at)| LastDeliveryView { status, at }),
        id: w.id,
        url: w.url,
        description: w.description,
        events: w.events,
        created_at: w.created_at,
    })
}

#[derive(Serialize)]
pub struct WebhookList {
    pub webhooks: Vec<WebhookView>,
}

pub async fn list_webhooks(State(state): State<AppState>, access: OrgAccess) -> ApiResult<Json<WebhookList>> {
    access.require_admin()?;
    let mut webhooks = vec![];
    for w in state.store.webhooks(access.org_id()).await? {
        webhooks.push(webhook_view(&state, w).await?);
    }
    Ok(Json(WebhookList { webhooks }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewWebhook {
    pub url: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub events: Option<Vec<String>>,
}

/// The description's longest length.
const MAX_DESCRIPTION_CHARS: usize = 200;

#[derive(Serialize)]
pub struct CreatedWebhook {
    pub webhook: WebhookView,
    /// The signing secret, shown this once.
    pub secret: String,
}

pub async fn create_webhook(
    State(state): State<AppState>,
    access: OrgAccess,
    ValidJson(body): ValidJson<NewWebhook>,
) -> ApiResult<(StatusCode, Json<CreatedWebhook>)> {
    access.require_admin()?;
    let mut errors = vec![];
    let url = match url::Url::parse(body.url.trim()) {
        Ok(u) if !u.username().is_empty() || u.password().is_some() => {
            errors.push(InvalidField::new(
                "url",
                "may not contain credentials: Herald signs each request instead",
            ));
            None
        }
        _ => match state.config.egress.server_url(&body.url) {
            Ok(url) => Some(url.url().to_string()),
            Err(e) => {
                errors.push(InvalidField::new("url", e.0));
                None
            }
        },
    };
    let description = body.description.unwrap_or_default().trim().to_owned();
    if description.chars().count() > MAX_DESCRIPTION_CHARS || description.chars().any(char::is_control) {
        errors.push(InvalidField::new(
            "description",
            format!("must be at most {MAX_DESCRIPTION_CHARS} characters, on one line"),
        ));
    }
    let events: Vec<String> = match body.events {
        None => NotifyEvent::SUBSCRIBABLE.iter().map(|e| e.as_str().to_owned()).collect(),
        Some(given) => {
            let mut chosen = BTreeSet::new();
            for name in &given {
                match NotifyEvent::parse(name).filter(|e| NotifyEvent::SUBSCRIBABLE.contains(e)) {
                    Some(e) => {
                        chosen.insert(e.as_str());
                    }
                    None => errors.push(InvalidField::new(
                        "events",
                        format!(
                            "{name:?} is not one of: question.created, question.reminded, question.ended"
                        ),
                    )),
                }
            }
            if given.is_empty() {
                errors.push(InvalidField::new("events", "must name at least one event"));
            }
            // In the documented order.
            NotifyEvent::SUBSCRIBABLE
                .iter()
                .map(|e| e.as_str())
                .filter(|e| chosen.contains(e))
                .map(str::to_owned)
                .collect()
        }
    };
    let Some(url) = url.filter(|_| errors.is_empty()) else {
        return Err(ApiError::Validation(errors));
    };
    let secret = webhooks::new_secret();
    let id = Uuid::now_v7();
    let webhook = Webhook {
        id,
        org_id: access.org_id(),
        url,
        description,
        events,
        secret_sealed: state.keys.seal(&webhooks::seal_context(access.org_id(), id), secret.as_bytes()),
        created_by: Some(access.user().id),
        created_at: OffsetDateTime::now_utc(),
        last_delivery: None,
    };
    state.store.create_webhook(&webhook).await?;
    access
        .audit(
            state.store.as_ref(),
            "webhook.created",
            about(serde_json::json!({ "webhook_id": id, "url": webhook.url, "events": webhook.events })),
        )
        .await;
    let webhook = webhook_view(&state, webhook).await?;
    Ok((StatusCode::CREATED, Json(CreatedWebhook { webhook, secret })))
}

/// An audit entry's subject: its details only.
fn about(details: serde_json::Value) -> Subject {
    Subject { details: Some(details), ..Default::default() }
}

/// An id in the path; one that is not a UUID names nothing.
fn path_id(given: &str) -> ApiResult<Uuid> {
    Uuid::parse_str(given).map_err(|_| ApiError::NotFound)
}

async fn existing(state: &AppState, access: &OrgAccess, id: Uuid) -> ApiResult<Webhook> {
    state.store.webhook(access.org_id(), id).await?.ok_or(ApiError::NotFound)
}

pub async fn delete_webhook(
    State(state): State<AppState>,
    access: OrgAccess,
    Path((_, id)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    access.require_admin()?;
    let id = path_id(&id)?;
    let hook = existing(&state, &access, id).await?;
    if !state.store.delete_webhook(access.org_id(), id).await? {
        return Err(ApiError::NotFound);
    }
    access
        .audit(
            state.store.as_ref(),
            "webhook.deleted",
            about(serde_json::json!({ "webhook_id": id, "url": hook.url })),
        )
        .await;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Serialize)]
pub struct RotatedSecret {
    pub secret: String,
}

/// A new signing secret, shown once; the old one stops signing at once.
pub async fn rotate_secret(
    State(state): State<AppState>,
    access: OrgAccess,
    Path((_, id)): Path<(String, String)>,
) -> ApiResult<Json<RotatedSecret>> {
    access.require_admin()?;
    let id = path_id(&id)?;
    let hook = existing(&state, &access, id).await?;
    let secret = webhooks::new_secret();
    let sealed = state.keys.seal(&webhooks::seal_context(access.org_id(), id), secret.as_bytes());
    if !state.store.set_webhook_secret(access.org_id(), id, &sealed).await? {
        return Err(ApiError::NotFound);
    }
    access
        .audit(
            state.store.as_ref(),
            "webhook.secret_rotated",
            about(serde_json::json!({ "webhook_id": id, "url": hook.url })),
        )
        .await;
    Ok(Json(RotatedSecret { secret }))
}

#[derive(Serialize)]
pub struct DeliveryView {
    pub id: Uuid,
    pub webhook_id: Option<Uuid>,
    pub event: String,
    pub question_id: Option<Uuid>,
    pub status: String,
    pub attempts: i64,
    pub last_status: Option<i64>,
    pub last_error: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    pub next_attempt_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    pub delivered_at: Option<OffsetDateTime>,
}

impl From<Delivery> for DeliveryView {
    fn from(d: Delivery) -> Self {
        let pending = d.status == "pending";
        Self {
            id: d.id,
            webhook_id: d.webhook_id,
            event: d.event,
            question_id: d.elicitation_id,
            status: d.status,
            attempts: d.attempts,
            last_status: d.last_status,
            last_error: d.last_error,
            created_at: d.created_at,
            next_attempt_at: d.next_attempt_at.filter(|_| pending),
            delivered_at: d.delivered_at,
        }
    }
}

#[derive(Serialize)]
pub struct OneDelivery {
    pub delivery: DeliveryView,
}

/// Sends the webhook a `ping` event (through the outbox, like every event).
pub async fn test_webhook(
    State(state): State<AppState>,
    access: OrgAccess,
    Path((_, id)): Path<(String, String)>,
) -> ApiResult<(StatusCode, Json<OneDelivery>)> {
    access.require_admin()?;
    let id = path_id(&id)?;
    existing(&state, &access, id).await?;
    let now = OffsetDateTime::now_utc();
    let delivery_id = Uuid::now_v7();
    let delivery = NewDelivery {
        id: delivery_id,
        org_id: access.org_id(),
        channel: NotifyChannel::Webhook,
        webhook_id: Some(id),
        user_id: Some(access.user().id),
        push_device_id: None,
        elicitation_id: None,
        event: NotifyEvent::Ping,
        payload: webhooks::ping_event(delivery_id, &access.membership.org.slug, now),
        created_at: now,
    };
    state.store.enqueue_deliveries(std::slice::from_ref(&delivery)).await?;
    state.notifier.pump.wake();
    // As stored (the pump may already be sending it).
    let queued = state.store.delivery(access.org_id(), delivery_id).await?.ok_or(ApiError::NotFound)?;
    Ok((StatusCode::ACCEPTED, Json(OneDelivery { delivery: queued.into() })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeliveriesQuery {
    #[serde(default)]
    pub webhook: Option<Uuid>,
    #[serde(default)]
    pub limit: Option<i64>,
}

#[derive(Serialize)]
pub struct DeliveryList {
    pub deliveries: Vec<DeliveryView>,
}

pub async fn deliveries(
    State(state): State<AppState>,
    access: OrgAccess,
    Query(query): Query<DeliveriesQuery>,
) -> ApiResult<Json<DeliveryList>> {
    access.require_admin()?;
    let limit = query.limit.unwrap_or(50);
    if !(1..=200).contains(&limit) {
        return Err(ApiError::field("limit", "must be between 1 and 200"));
    }
    let list = state.store.deliveries(access.org_id(), query.webhook, limit).await?;
    Ok(Json(DeliveryList { deliveries: list.into_iter().map(Into::into).collect() }))
}

/// Queues a finished delivery again (a receiver that was down, say).
pub async fn redeliver(
    State(state): State<AppState>,
    access: OrgAccess,
    Path((_, id)): Path<(String, String)>,
) -> ApiResult<(StatusCode, Json<OneDelivery>)> {
    access.require_admin()?;
    let id = path_id(&id)?;
    match state.store.redeliver(access.org_id(), id, OffsetDateTime::now_utc()).await? {
        Some(d) => {
            state.notifier.pump.wake();
            Ok((StatusCode::ACCEPTED, Json(OneDelivery { delivery: d.into() })))
        }
        None => match state.store.delivery(access.org_id(), id).await? {
            Some(d) if d.channel == NotifyChannel::Webhook.as_str() => {
                Err(ApiError::Conflict("delivery-pending", "this delivery is still being sent".into()))
            }
            _ => Err(ApiError::NotFound),
        },
    }
}
