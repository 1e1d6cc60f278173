//! The HTTP surface: routes, and the layers every request passes through.
//! The contract is documented in docs/api.md.

pub mod account;
pub mod answer_links;
pub mod audit;
pub mod auth;
pub mod binding;
pub mod client;
pub mod connections;
pub mod console;
pub mod csrf;
pub mod elicitations;
pub mod health;
pub mod invites;
pub mod json;
pub mod mutes;
pub mod notifications;
pub mod org_sign_in;
pub mod orgs;
pub mod policy;
pub mod push;
pub mod servers;
pub mod session;
pub mod setup;
pub mod sso;
pub mod tokens;
pub mod views;
pub mod ws;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{HeaderName, HeaderValue, header};
use axum::middleware;
use axum::routing::{delete, get, patch, post, put};
use tower::ServiceBuilder;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::set_header::SetResponseHeaderLayer;

use crate::app::AppState;
use crate::problem::ApiError;

/// Request bodies of the REST API are small documents.
pub const API_BODY_LIMIT: usize = 64 * 1024;

const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

pub fn router(state: AppState) -> Router {
    let org = Router::new()
        .route("/", get(orgs::show))
        .route("/members", get(orgs::members))
        .route("/members/{user_id}", patch(orgs::set_role).delete(orgs::remove))
        .route("/invites", get(invites::list).post(invites::create))
        .route("/invites/{id}", axum::routing::delete(invites::revoke))
        .route("/tokens", get(tokens::list).post(tokens::create))
        .route("/tokens/{id}", axum::routing::delete(tokens::revoke))
        .route("/servers", get(servers::list).post(servers::create))
        .route("/servers/{slug}", get(servers::show).patch(servers::update).delete(servers::delete))
        .route("/servers/{slug}/cut-off", post(servers::cut_off))
        .route("/servers/{slug}/restore", post(servers::restore))
        .route("/servers/{slug}/test", post(console::test_connection))
        .route("/servers/{slug}/tools", get(console::tools))
        .route("/servers/{slug}/tools/call", post(console::call_tool))
        .route("/sign-in", get(org_sign_in::settings).put(org_sign_in::set_settings))
        .route("/sign-in/provider", put(org_sign_in::set_provider).delete(org_sign_in::delete_provider))
        .route("/sign-in/domains", post(org_sign_in::claim_domain))
        .route("/sign-in/domains/{domain}", delete(org_sign_in::drop_domain))
        .route("/policy", get(policy::show).put(policy::replace))
        .route("/mutes", get(mutes::list).post(mutes::add))
        .route("/mutes/{server}", axum::routing::delete(mutes::remove))
        .route("/audit", get(audit::list))
        .route("/audit/filters", get(audit::filters))
        .route("/audit/export", get(audit::export))
        .route("/elicitations", get(elicitations::list))
        .route("/elicitations/pending", get(elicitations::pending_summary))
        .route("/elicitations/{id}", get(elicitations::show))
        .route("/elicitations/{id}/respond", post(elicitations::answer))
        .route("/elicitations/{id}/dismiss-note", post(elicitations::dismiss_note))
        .route("/elicitations/{id}/ask-again", post(elicitations::ask_again))
        .route(
            "/notifications/defaults",
            get(notifications::org_defaults).put(notifications::set_org_defaults),
        )
        .route("/webhooks", get(notifications::list_webhooks).post(notifications::create_webhook))
        .route("/webhooks/deliveries", get(notifications::deliveries))
        .route("/webhooks/deliveries/{id}/redeliver", post(notifications::redeliver))
        .route("/webhooks/{id}", axum::routing::delete(notifications::delete_webhook))
        .route("/webhooks/{id}/rotate-secret", post(notifications::rotate_secret))
        .route("/webhooks/{id}/test", post(notifications::test_webhook));

    let api = Router::new()
        .route("/setup", get(setup::status).post(setup::complete))
        .route("/auth/login", post(account::login))
        .route("/auth/sign-in-options", get(sso::options))
        .route("/auth/logout", post(account::logout))
        .route("/auth/password", post(account::change_password))
        .route("/me", get(account::me))
        .route("/me/notifications", get(notifications::my_prefs).put(notifications::set_my_prefs))
        .route("/me/connections", get(connections::list))
        .route("/me/connections/review", get(connections::review))
        .route("/me/connections/{org}/{server}", axum::routing::delete(connections::disconnect))
        .route("/me/push", get(push::show))
        .route("/me/push/devices", post(push::add_device))
        .route("/me/push/devices/{id}", axum::routing::delete(push::remove_device))
        .route("/me/push/devices/{id}/test", post(push::test_device))
        .route("/session", get(account::probe))
        .route("/ws", get(ws::upgrade))
        .route("/orgs", post(orgs::create))
        .route("/invites/preview", post(invites::preview))
        .route("/invites/accept", post(invites::accept))
        .route("/policy/defaults", get(policy::defaults))
        .nest("/orgs/{org}", org)
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn_with_state(state.clone(), csrf::refuse_cross_site))
        .layer(SetResponseHeaderLayer::overriding(
            header::CACHE_CONTROL,
            HeaderValue::from_static("no-store"),
        ))
        .layer(DefaultBodyLimit::max(API_BODY_LIMIT));

    Router::new()
        .route("/", get(crate::web::page))
        .route("/sw.js", get(crate::web::service_worker))
        .route("/login", get(crate::web::page))
        .route("/setup", get(crate::web::page))
        .route("/invite", get(crate::web::page))
        .route("/history", get(crate::web::page))
        .route("/tokens", get(crate::web::page))
        .route("/mutes", get(crate::web::page))
        .route("/connect", get(crate::web::page))
        .route("/admin/members", get(crate::web::page))
        .route("/admin/servers", get(crate::web::page))
        .route("/admin/policy", get(crate::web::page))
        .route("/admin/audit", get(crate::web::page))
        .route("/admin/pending", get(crate::web::page))
        .route("/admin/webhooks", get(crate::web::page))
        .route("/notifications", get(crate::web::page))
        .route("/console", get(crate::web::page))
        .route("/auth/sso/{provider}/start", get(sso::start))
        .route("/auth/sso/callback", get(sso::callback))
        .route("/connect/{org}/{server}/start", get(connections::start))
        .route("/connect/callback", get(connections::callback))
        .route(crate::upstream_auth::METADATA_DOCUMENT_PATH, get(connections::metadata_document))
        .route("/connections", get(crate::web::page))
        .route("/answer/{token}", get(answer_links::show).post(answer_links::confirm))
        .route("/assets/{*file}", get(crate::web::asset))
        .route("/healthz", get(health::healthz))
        .route("/readyz", get(health::readyz))
        .route("/metrics", get(crate::telemetry::metrics::public_handler))
        .nest("/api/v1", api)
        .route(
            "/mcp/{org}/{server}",
            post(crate::proxy::post).get(crate::proxy::get).delete(crate::proxy::delete),
        )
        .layer(DefaultBodyLimit::max(crate::proxy::MAX_BODY_BYTES))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state)
        .layer(
            ServiceBuilder::new()
                .layer(SetRequestIdLayer::new(REQUEST_ID, MakeRequestUuid))
                .layer(PropagateRequestIdLayer::new(REQUEST_ID))
                .layer(middleware::from_fn(crate::telemetry::http::observe))
                .layer(SetResponseHeaderLayer::if_not_present(
                    header::X_CONTENT_TYPE_OPTIONS,
                    HeaderValue::from_static("nosniff"),
                ))
                .layer(SetResponseHeaderLayer::if_not_present(
                    header::REFERRER_POLICY,
                    HeaderValue::from_static("no-referrer"),
                ))
                .layer(SetResponseHeaderLayer::if_not_present(
                    header::X_FRAME_OPTIONS,
                    HeaderValue::from_static("DENY"),
                )),
        )
}

async fn not_found() -> ApiError {
    ApiError::NotFound
}

async fn method_not_allowed() -> ApiError {
    ApiError::MethodNotAllowed
}
