//! Browser push for the signed-in person (`/me/push`): the key a browser
//! subscribes with, the browsers they turned push on in, removing one, and a
//! test notification to one, sent while they wait.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use uuid::Uuid;

use super::auth::Principal;
use super::json::ValidJson;
use crate::app::AppState;
use crate::notify::push::{self, GivenSubscription, Outgoing, Pushed, Subscription};
use crate::problem::{ApiError, ApiResult};
use crate::storage::push::PushDevice;

#[derive(Serialize)]
pub struct DeviceView {
    pub id: Uuid,
    pub name: String,
    /// The push service's host.
    pub push_service: String,
    /// SHA-256 of the endpoint, hex: lets a page tell which row is its own browser.
    pub endpoint_hash: String,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    pub last_sent_at: Option<OffsetDateTime>,
    pub last_error: Option<String>,
}

impl From<PushDevice> for DeviceView {
    fn from(d: PushDevice) -> Self {
        DeviceView {
            id: d.id,
            name: d.name,
            push_service: d.push_service,
            endpoint_hash: crate::crypto::hex(&d.endpoint_hash),
            created_at: d.created_at,
            last_sent_at: d.last_sent_at,
            last_error: d.last_error,
        }
    }
}

#[derive(Serialize)]
pub struct PushView {
    pub available: bool,
    /// The VAPID public key, base64url: `applicationServerKey` for `pushManager.subscribe`.
    pub public_key: String,
    pub devices: Vec<DeviceView>,
}

/// Devices are a dashboard's business: an agent's token may not add a
/// browser that would receive its person's notifications.
fn signed_in(principal: &Principal) -> ApiResult<Uuid> {
    match principal {
        Principal::Session { user, .. } => Ok(user.id),
        Principal::Token(_) => {
            Err(ApiError::Forbidden("browser push is set up from the dashboard, signed in"))
        }
    }
}

pub async fn show(State(state): State<AppState>, principal: Principal) -> ApiResult<Json<PushView>> {
    let user_id = signed_in(&principal)?;
    let devices = state.store.push_devices(user_id).await?;
    Ok(Json(PushView {
        available: true,
        public_key: state.notifier.pump.vapid.public_key().to_owned(),
        devices: devices.into_iter().map(Into::into).collect(),
    }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewDevice {
    pub subscription: GivenSubscription,
    #[serde(default)]
    pub name: Option<String>,
}

pub async fn add_device(
    State(state): State<AppState>,
    principal: Principal,
    ValidJson(body): ValidJson<NewDevice>,
) -> ApiResult<(StatusCode, Json<DeviceView>)> {
    let user_id = signed_in(&principal)?;
    let mut errors = vec![];
    let parsed =
        Subscription::parse(&body.subscription, &state.config.egress).map_err(|e| errors.extend(e)).ok();
    let name = push::device_name(body.name.as_deref()).map_err(|e| errors.push(e)).ok();
    let (Some((subscription, endpoint)), Some(name)) = (parsed, name) else {
        return Err(ApiError::Validation(errors));
    };
    let device = PushDevice {
        id: Uuid::now_v7(),
        user_id,
        endpoint_hash: subscription.endpoint_hash(),
        push_service: endpoint.host_str().unwrap_or_default().to_owned(),
        name,
        subscription_sealed: subscription.seal(&state.keys, user_id),
        created_at: OffsetDateTime::now_utc(),
        last_sent_at: None,
        last_error: None,
    };
    let put = state.store.put_push_device(&device).await?;
    let status = if put.created { StatusCode::CREATED } else { StatusCode::OK };
    Ok((status, Json(put.device.into())))
}

fn device_id(given: &str) -> ApiResult<Uuid> {
    Uuid::parse_str(given).map_err(|_| ApiError::NotFound)
}

pub async fn remove_device(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
) -> ApiResult<StatusCode> {
    let user_id = signed_in(&principal)?;
    if !state.store.delete_push_device(user_id, device_id(&id)?).await? {
        return Err(ApiError::NotFound);
    }
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Serialize)]
pub struct TestResult {
    /// The push service accepted it (the browser shows it when it is online).
    pub sent: bool,
    pub error: Option<String>,
    /// The push service no longer knows the subscription: the device was removed.
    pub removed: bool,
}

pub async fn test_device(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
) -> ApiResult<Json<TestResult>> {
    let user_id = signed_in(&principal)?;
    let device = state
        .store
        .push_device(device_id(&id)?)
        .await?
        .filter(|d| d.user_id == user_id)
        .ok_or(ApiError::NotFound)?;
    state.notifier.pump.may_test(device.id).map_err(|retry_after| ApiError::TooSoon {
        retry_after,
        detail: "this browser was sent 3 tests in the last minute; try again in a moment",
    })?;
    let message = push::test_message();
    let out = Outgoing { message: &message, ttl: push::TEST_TTL, topic: None, urgency: "normal" };
    let result = match state.notifier.pump.push_to(&device, &out).await {
        Pushed::Accepted(_) => TestResult { sent: true, error: None, removed: false },
        Pushed::Gone(status) => TestResult {
            sent: false,
            error: Some(format!(
                "this browser's subscription has expired (HTTP {status}) and was removed; turn notifications on in it again"
            )),
            removed: true,
        },
        Pushed::Refused(_, error) | Pushed::Failed(_, error) => {
            TestResult { sent: false, error: Some(error), removed: false }
        }
    };
    Ok(Json(result))
}
