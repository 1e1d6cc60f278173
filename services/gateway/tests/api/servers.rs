//! The server registry: header values are sealed at rest and never returned.

use herald_gateway::lookup::headers;
use reqwest::StatusCode;
use serde_json::json;

use crate::support::{TestApp, body, fields, problem};

const SECRET: &str = "Bearer upstream-secret-7f3a9c";

#[tokio::test]
async fn admins_register_servers_and_values_never_come_back() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let created = owner
        .post(
            "/api/v1/orgs/acme/servers",
            &json!({ "slug": "github", "name": "GitHub", "url": "https://mcp.github.example/mcp",
                     "headers": { "Authorization": SECRET, "X-Team": "core" } }),
        )
        .await;
    assert_eq!(created.status(), StatusCode::CREATED);
    let created = body(created).await;
    assert_eq!(created["header_names"], json!(["authorization", "x-team"]));
    assert_eq!(created["cut_off"], json!(null));

    let member = app.join(&owner, "acme", "member@example.com", "member").await;
    let mut seen = vec![created.to_string()];
    seen.push(body(member.get("/api/v1/orgs/acme/servers").await).await.to_string());
    seen.push(body(member.get("/api/v1/orgs/acme/servers/github").await).await.to_string());
    let renamed = owner.patch("/api/v1/orgs/acme/servers/github", &json!({ "name": "GitHub (prod)" })).await;
    seen.push(body(renamed).await.to_string());
    for text in &seen {
        assert!(!text.contains("upstream-secret"), "header value leaked: {text}");
        assert!(text.contains("authorization"));
    }

    // At rest: sealed, and only this server's row opens it.
    let org_id = app.state.store.memberships(member_user(&app, &owner).await).await.unwrap()[0].org.id;
    let stored = app.state.store.server(org_id, "github").await.unwrap().unwrap();
    assert!(!stored.headers_sealed.windows(6).any(|w| w == b"secret"));
    let opened = headers::open(&app.state.keys, &stored).unwrap();
    let values: Vec<_> = opened.iter().map(|(k, v)| (k.to_owned(), v.to_owned())).collect();
    assert_eq!(
        values,
        [("authorization".to_owned(), SECRET.to_owned()), ("x-team".to_owned(), "core".to_owned())]
    );
    let mut moved = stored.clone();
    moved.id = uuid::Uuid::new_v4();
    assert!(
        headers::open(&app.state.keys, &moved).is_err(),
        "a ciphertext moved to another row does not open"
    );
}

async fn member_user(_app: &TestApp, session: &crate::support::Session) -> uuid::Uuid {
    body(session.get("/api/v1/me").await).await["user"]["id"].as_str().unwrap().parse().unwrap()
}

#[tokio::test]
async fn updates_replace_headers_and_keep_what_is_not_named() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let new = json!({ "slug": "docs", "name": "Docs", "url": "http://127.0.0.1:3901/mcp", "headers": { "X-Key": "one" } });
    assert_eq!(owner.post("/api/v1/orgs/acme/servers", &new).await.status(), StatusCode::CREATED);
    // A new path on the same origin keeps the headers (another origin needs them again: server_secrets).
    let moved = body(
        owner
            .patch("/api/v1/orgs/acme/servers/docs", &json!({ "url": "http://127.0.0.1:3901/v2/mcp" }))
            .await,
    )
    .await;
    assert_eq!(moved["url"], "http://127.0.0.1:3901/v2/mcp");
    assert_eq!(moved["name"], "Docs");
    assert_eq!(moved["header_names"], json!(["x-key"]));
    let cleared = body(owner.patch("/api/v1/orgs/acme/servers/docs", &json!({ "headers": {} })).await).await;
    assert_eq!(cleared["header_names"], json!([]));
    let bad = owner
        .patch(
            "/api/v1/orgs/acme/servers/docs",
            &json!({ "url": "ftp://x", "headers": { "Host": "evil", "bad name": "x" } }),
        )
        .await;
    let p = problem(bad, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    assert_eq!(fields(&p), ["url", "headers.Host", "headers.bad name"]);
    let unchanged = body(owner.get("/api/v1/orgs/acme/servers/docs").await).await;
    assert_eq!(unchanged["url"], "http://127.0.0.1:3901/v2/mcp");
    problem(
        owner.patch("/api/v1/orgs/acme/servers/nope", &json!({ "name": "x" })).await,
        StatusCode::NOT_FOUND,
        "not-found",
    )
    .await;
}

#[tokio::test]
async fn registration_refuses_bad_input_and_duplicates() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let ok = json!({ "slug": "docs", "name": "Docs", "url": "https://docs.example/mcp" });
    assert_eq!(owner.post("/api/v1/orgs/acme/servers", &ok).await.status(), StatusCode::CREATED);
    problem(owner.post("/api/v1/orgs/acme/servers", &ok).await, StatusCode::CONFLICT, "server-slug-taken")
        .await;

    let bad = json!({ "slug": "Docs!", "name": "  ", "url": "http://docs.example/mcp",
                      "headers": { "Content-Length": "1", "X-Ok": "line\nbreak" } });
    let p = problem(
        owner.post("/api/v1/orgs/acme/servers", &bad).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "validation-failed",
    )
    .await;
    assert_eq!(fields(&p), ["slug", "name", "url", "headers.Content-Length", "headers.X-Ok"]);
    let creds = json!({ "slug": "creds", "name": "C", "url": "https://user:pw@docs.example/mcp" });
    let p = problem(
        owner.post("/api/v1/orgs/acme/servers", &creds).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "validation-failed",
    )
    .await;
    assert_eq!(fields(&p), ["url"]);
    let listed = body(owner.get("/api/v1/orgs/acme/servers").await).await;
    assert_eq!(listed["servers"].as_array().unwrap().len(), 1);

    // The same slug is free in another org.
    assert_eq!(
        owner.post("/api/v1/orgs", &json!({ "slug": "beta", "name": "Beta" })).await.status(),
        StatusCode::CREATED
    );
    assert_eq!(owner.post("/api/v1/orgs/beta/servers", &ok).await.status(), StatusCode::CREATED);
}

#[tokio::test]
async fn cut_off_restore_and_delete() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let new = json!({ "slug": "docs", "name": "Docs", "url": "https://docs.example/mcp" });
    assert_eq!(owner.post("/api/v1/orgs/acme/servers", &new).await.status(), StatusCode::CREATED);

    let cut =
        owner.post("/api/v1/orgs/acme/servers/docs/cut-off", &json!({ "reason": "phishing forms" })).await;
    let cut = body(cut).await;
    assert_eq!(cut["cut_off"]["reason"], "phishing forms");
    assert!(cut["cut_off"]["at"].is_string());
    let listed = body(owner.get("/api/v1/orgs/acme/servers").await).await;
    assert_eq!(listed["servers"][0]["cut_off"]["reason"], "phishing forms");

    let empty =
        owner.request(reqwest::Method::POST, "/api/v1/orgs/acme/servers/docs/cut-off").send().await.unwrap();
    assert_eq!(body(empty).await["cut_off"]["reason"], "");
    let restored = body(owner.post("/api/v1/orgs/acme/servers/docs/restore", &json!({})).await).await;
    assert_eq!(restored["cut_off"], json!(null));

    assert_eq!(owner.delete("/api/v1/orgs/acme/servers/docs").await.status(), StatusCode::NO_CONTENT);
    problem(owner.get("/api/v1/orgs/acme/servers/docs").await, StatusCode::NOT_FOUND, "not-found").await;
    problem(owner.delete("/api/v1/orgs/acme/servers/docs").await, StatusCode::NOT_FOUND, "not-found").await;
    problem(
        owner.post("/api/v1/orgs/acme/servers/docs/restore", &json!({})).await,
        StatusCode::NOT_FOUND,
        "not-found",
    )
    .await;
}
