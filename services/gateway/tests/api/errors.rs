//! Bad requests get precise problem+json answers and change nothing.

use reqwest::StatusCode;
use serde_json::json;

use crate::support::{TestApp, body, fields, problem};

#[tokio::test]
async fn malformed_bodies_are_refused_precisely() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let send = |body: &'static str, content_type: &'static str| {
        owner
            .request(reqwest::Method::POST, "/api/v1/orgs/acme/servers")
            .header("content-type", content_type)
            .body(body)
            .send()
    };
    let p = problem(
        send("{\"slug\": ", "application/json").await.unwrap(),
        StatusCode::BAD_REQUEST,
        "malformed-body",
    )
    .await;
    assert!(p["detail"].as_str().unwrap().contains("EOF"), "{p}");
    let p = problem(
        send(r#"{"slug":"a1","name":"A","url":"https://a.example"} {}"#, "application/json").await.unwrap(),
        StatusCode::BAD_REQUEST,
        "malformed-body",
    )
    .await;
    assert!(p["detail"].as_str().unwrap().contains("trailing"), "{p}");
    problem(send("[]", "application/json").await.unwrap(), StatusCode::BAD_REQUEST, "malformed-body").await;
    problem(
        send("{}", "text/plain").await.unwrap(),
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "unsupported-media-type",
    )
    .await;
    let p = problem(
        send(r#"{"slug":"a1","name":"A","url":"https://a.example","colour":"red"}"#, "application/json")
            .await
            .unwrap(),
        StatusCode::BAD_REQUEST,
        "malformed-body",
    )
    .await;
    assert_eq!(fields(&p), ["colour"]);
    let p = problem(
        send(r#"{"slug":"a1","name":"A"}"#, "application/json").await.unwrap(),
        StatusCode::BAD_REQUEST,
        "malformed-body",
    )
    .await;
    assert!(p["detail"].as_str().unwrap().contains("missing field `url`"), "{p}");
    assert_eq!(body(owner.get("/api/v1/orgs/acme/servers").await).await["servers"], json!([]));
}

#[tokio::test]
async fn oversized_bodies_are_refused() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let huge = json!({ "name": "x".repeat(70 * 1024) });
    let response = owner.post("/api/v1/orgs/acme/tokens", &huge).await;
    problem(response, StatusCode::PAYLOAD_TOO_LARGE, "payload-too-large").await;
    assert_eq!(body(owner.get("/api/v1/orgs/acme/tokens").await).await["tokens"], json!([]));
}

#[tokio::test]
async fn unknown_routes_and_methods_are_problems_too() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    problem(owner.get("/api/v1/nowhere").await, StatusCode::NOT_FOUND, "not-found").await;
    problem(owner.get("/nowhere").await, StatusCode::NOT_FOUND, "not-found").await;
    problem(owner.delete("/api/v1/me").await, StatusCode::METHOD_NOT_ALLOWED, "method-not-allowed").await;
    problem(owner.get("/api/v1/orgs/no-such-org/servers").await, StatusCode::NOT_FOUND, "not-found").await;
    problem(owner.get("/api/v1/orgs/%2e%2e/servers").await, StatusCode::NOT_FOUND, "not-found").await;
}

#[tokio::test]
async fn every_response_carries_a_request_id_and_safe_headers() {
    let app = TestApp::spawn().await;
    let anon = app.browser();
    let mut ids = Vec::new();
    for response in [anon.get("/healthz").await, anon.get("/api/v1/me").await, anon.get("/nowhere").await] {
        let id = response.headers()["x-request-id"].to_str().unwrap().to_owned();
        assert_eq!(id.len(), 36, "a UUID: {id}");
        assert_eq!(response.headers()["x-content-type-options"], "nosniff");
        assert_eq!(response.headers()["x-frame-options"], "DENY");
        ids.push(id);
    }
    ids.dedup();
    assert_eq!(ids.len(), 3);
    let api = anon.get("/api/v1/setup").await;
    assert_eq!(api.headers()["cache-control"], "no-store");
}

#[tokio::test]
async fn health_and_readiness() {
    let app = TestApp::spawn().await;
    let anon = app.browser();
    assert_eq!(body(anon.get("/healthz").await).await, json!({ "status": "ok" }));
    let ready = anon.get("/readyz").await;
    assert_eq!(ready.status(), StatusCode::OK);
    assert_eq!(body(ready).await["database"], "ok");
}
