//! Liveness and readiness for load balancers and orchestrators.

use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::app::AppState;

/// The process is up and serving HTTP.
pub async fn healthz() -> Json<Value> {
    Json(json!({ "status": "ok" }))
}

/// The process can do its job: the database answers, promptly.
pub async fn readyz(State(state): State<AppState>) -> (StatusCode, Json<Value>) {
    match tokio::time::timeout(Duration::from_secs(2), state.store.ping()).await {
        Ok(Ok(())) => (StatusCode::OK, Json(json!({ "status": "ready", "database": "ok" }))),
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "readiness: database unreachable");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                Json(json!({ "status": "unavailable", "database": "unreachable" })),
            )
        }
        Err(_) => {
            (StatusCode::SERVICE_UNAVAILABLE, Json(json!({ "status": "unavailable", "database": "timeout" })))
        }
    }
}
