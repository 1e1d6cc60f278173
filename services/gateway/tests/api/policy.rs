//! The org policy document: defaults, validation, and replacement.

use herald_policy::OrgPolicy;
use reqwest::StatusCode;
use serde_json::json;

use crate::support::{TestApp, body, fields, problem};

#[tokio::test]
async fn a_new_org_reads_the_documented_defaults() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let policy = body(owner.get("/api/v1/orgs/acme/policy").await).await;
    assert_eq!(policy, serde_json::to_value(OrgPolicy::default()).unwrap());
    assert_eq!(policy["credential_ask"]["mode"], "block");
    assert_eq!(policy["elicitation"]["timeout_secs"], 600);
    assert_eq!(body(owner.get("/api/v1/policy/defaults").await).await, policy);
}

#[tokio::test]
async fn admins_replace_it_and_omitted_fields_take_defaults() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let member = app.join(&owner, "acme", "member@example.com", "member").await;
    let put = owner
        .put(
            "/api/v1/orgs/acme/policy",
            &json!({ "credential_ask": { "mode": "warn", "extra_terms": [" vault code "] },
                     "url_mode": { "allow_domains": ["Example.COM"] } }),
        )
        .await;
    assert_eq!(put.status(), StatusCode::OK);
    let stored = body(member.get("/api/v1/orgs/acme/policy").await).await;
    assert_eq!(stored["credential_ask"]["mode"], "warn");
    assert_eq!(stored["credential_ask"]["extra_terms"], json!(["vault code"]));
    assert_eq!(stored["url_mode"]["allow_domains"], json!(["example.com"]));
    assert_eq!(stored["rate_caps"], serde_json::to_value(OrgPolicy::default().rate_caps).unwrap());

    let refused = member.put("/api/v1/orgs/acme/policy", &json!({})).await;
    problem(refused, StatusCode::FORBIDDEN, "forbidden").await;
}

#[tokio::test]
async fn invalid_documents_are_refused_whole_with_every_problem_named() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let before = body(owner.get("/api/v1/orgs/acme/policy").await).await;

    let invalid = owner
        .put(
            "/api/v1/orgs/acme/policy",
            &json!({ "rate_caps": { "per_user_server_per_minute": 0 },
                     "decline_memory": { "window_secs": 1 },
                     "url_mode": { "deny_domains": ["*.evil.example"] } }),
        )
        .await;
    let p = problem(invalid, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    assert_eq!(
        fields(&p),
        ["decline_memory.window_secs", "rate_caps.per_user_server_per_minute", "url_mode.deny_domains[0]"]
    );
    for (document, field) in [
        (json!({ "credential_ask": { "mode": "shout" } }), "credential_ask.mode"),
        (json!({ "rate_caps": { "per_org_per_hour": -5 } }), "rate_caps.per_org_per_hour"),
        (json!({ "surprise": true }), "surprise"),
        (json!({ "retention": { "accepted_content_days": "30" } }), "retention.accepted_content_days"),
    ] {
        let response = owner.put("/api/v1/orgs/acme/policy", &document).await;
        assert_eq!(fields(&problem(response, StatusCode::BAD_REQUEST, "malformed-body").await), [field]);
    }
    assert_eq!(body(owner.get("/api/v1/orgs/acme/policy").await).await, before, "nothing changed");
}
