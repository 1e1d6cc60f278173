//! The dashboard's "try a tool" console, an admin's connection test, and the
//! admins' view of what is pending across the org: against the real demo
//! server (rmcp), in both protocol generations.

use herald_demo_server::{Options, TOOL_NAMES};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::task::JoinHandle;

use crate::mcp_support::{Dashboard, DemoWorld as World, PATIENCE, pin_protocol};
use crate::support::{Session, body, problem};

async fn world(options: Options) -> World {
    World::start(options).await
}

fn legacy_only() -> Options {
    Options { legacy_only: true, ..Options::default() }
}

/// Starts a console call; it returns when the tool does.
fn call(session: &Session, tool: &str, arguments: Value) -> JoinHandle<reqwest::Response> {
    let session = session.clone();
    let body = json!({ "name": tool, "arguments": arguments });
    tokio::spawn(async move { session.post("/api/v1/orgs/acme/servers/demo/tools/call", &body).await })
}

async fn finish(call: JoinHandle<reqwest::Response>) -> reqwest::Response {
    tokio::time::timeout(PATIENCE, call).await.expect("the call ends in time").expect("the call task")
}

#[tokio::test]
async fn the_console_lists_a_modern_servers_tools_with_their_input_schemas() {
    lists_tools(Options::default()).await;
}

#[tokio::test]
async fn the_console_lists_a_legacy_servers_tools_with_their_input_schemas() {
    lists_tools(legacy_only()).await;
}

async fn lists_tools(options: Options) {
    let w = world(options).await;
    let listed = w.owner.get("/api/v1/orgs/acme/servers/demo/tools").await;
    assert_eq!(listed.status(), StatusCode::OK);
    let tools = body(listed).await["tools"].as_array().unwrap().clone();
    let names: Vec<&str> = tools.iter().map(|t| t["tool"]["name"].as_str().unwrap()).collect();
    for expected in ["book_table", "deploy", "echo"] {
        assert!(names.contains(&expected), "{expected} missing from {names:?}");
    }
    assert!(names.iter().all(|n| TOOL_NAMES.contains(n)), "{names:?}");
    let book = tools.iter().find(|t| t["tool"]["name"] == "book_table").expect("book_table is listed");
    assert_eq!(book["tool"]["inputSchema"]["properties"]["restaurant"]["type"], "string");
    assert_eq!(book["tool"]["inputSchema"]["required"], json!(["restaurant"]));
    // A flat schema also comes as the inbox's form model; anything richer does not.
    assert_eq!(book["form"]["fields"][0]["name"], "restaurant", "{book}");
    assert_eq!(book["form"]["fields"][0]["required"], true, "{book}");
    let deploy = tools.iter().find(|t| t["tool"]["name"] == "deploy").unwrap();
    let flat = deploy["tool"]["inputSchema"].to_string().contains("$ref");
    assert_eq!(deploy["form"].is_null(), flat, "{deploy}");
}

#[tokio::test]
async fn a_console_call_that_asks_completes_once_the_person_answers_in_their_inbox_modern() {
    call_and_answer(Options::default()).await;
}

#[tokio::test]
async fn a_console_call_that_asks_completes_once_the_person_answers_in_their_inbox_legacy() {
    call_and_answer(legacy_only()).await;
}

async fn call_and_answer(options: Options) {
    let w = world(options).await;
    let mut inbox = Dashboard::open(&w.app, &w.token).await;
    let booking = call(&w.owner, "book_table", json!({ "restaurant": "Chez Herald" }));

    let created = inbox.next_of("elicitation.created").await;
    assert_eq!(created["tool"], "book_table");
    assert_eq!(created["server"]["slug"], "demo");
    // While it waits, the admins' view counts it, without the question itself.
    let summary = body(w.owner.get("/api/v1/orgs/acme/elicitations/pending").await).await;
    assert_eq!(summary["total"], 1, "{summary}");
    assert_eq!(summary["servers"][0]["server"], "demo");
    assert_eq!(summary["servers"][0]["server_name"], "Demo Server");
    assert_eq!(summary["servers"][0]["count"], 1);
    assert_eq!(summary["servers"][0]["people"], 1);
    assert!(summary["oldest"].is_string());
    assert!(!summary.to_string().contains("Chez Herald"), "no question text in the summary: {summary}");

    let ack = inbox
        .respond(&created["id"], "accept", Some(json!({ "date": "2027-05-01", "name": "Ada Lovelace" })))
        .await;
    assert_eq!(ack["type"], "ack", "{ack}");

    let response = finish(booking).await;
    assert_eq!(response.status(), StatusCode::OK);
    let result = body(response).await["result"].clone();
    assert_eq!(
        result["structuredContent"],
        json!({
            "restaurant": "Chez Herald", "date": "2027-05-01", "time": "19:00", "party_size": 2,
            "name": "Ada Lovelace", "dietary": []
        })
    );
    let summary = body(w.owner.get("/api/v1/orgs/acme/elicitations/pending").await).await;
    assert_eq!(summary, json!({ "total": 0, "oldest": null, "servers": [] }));
}

#[tokio::test]
async fn a_dismissed_question_reaches_the_console_as_the_tools_own_result() {
    let w = world(Options::default()).await;
    let mut inbox = Dashboard::open(&w.app, &w.token).await;
    let booking = call(&w.owner, "book_table", json!({ "restaurant": "Chez Herald" }));
    let created = inbox.next_of("elicitation.created").await;
    assert_eq!(inbox.respond(&created["id"], "cancel", None).await["type"], "ack");
    let result = body(finish(booking).await).await["result"].clone();
    assert_eq!(result["content"][0]["text"], "Booking cancelled by the user", "{result}");
}

#[tokio::test]
async fn leaving_the_console_mid_call_withdraws_the_question() {
    let w = world(Options::default()).await;
    let mut inbox = Dashboard::open(&w.app, &w.token).await;
    let booking = call(&w.owner, "book_table", json!({ "restaurant": "Chez Herald" }));
    let created = inbox.next_of("elicitation.created").await;
    booking.abort();
    let resolved = inbox.next_of("elicitation.resolved").await;
    assert_eq!(resolved["id"], created["id"]);
    assert_eq!(resolved["action"], "cancel", "{resolved}");
    assert_eq!(resolved["decided_by"], "caller", "{resolved}");
}

#[tokio::test]
async fn a_plain_console_call_returns_the_result() {
    let w = world(Options::default()).await;
    let response = finish(call(&w.owner, "echo", json!({ "text": "<b>hello</b>" }))).await;
    assert_eq!(response.status(), StatusCode::OK);
    let result = body(response).await["result"].clone();
    assert_eq!(result["content"][0]["text"], "<b>hello</b>");
}

#[tokio::test]
async fn console_calls_are_refused_precisely() {
    let w = world(Options::default()).await;
    let url = "/api/v1/orgs/acme/servers/demo/tools/call";
    let empty = w.owner.post(url, &json!({ "name": "" })).await;
    let problem_doc = problem(empty, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    assert_eq!(problem_doc["errors"][0]["field"], "name");
    let unknown_field = w.owner.post(url, &json!({ "name": "echo", "args": {} })).await;
    problem(unknown_field, StatusCode::BAD_REQUEST, "malformed-body").await;
    let not_an_object = w.owner.post(url, &json!({ "name": "echo", "arguments": [1] })).await;
    problem(not_an_object, StatusCode::BAD_REQUEST, "malformed-body").await;
    let nowhere = w.owner.post("/api/v1/orgs/acme/servers/nope/tools/call", &json!({ "name": "echo" })).await;
    problem(nowhere, StatusCode::NOT_FOUND, "not-found").await;
    let stranger = w.app.join(&w.owner, "acme", "member@example.com", "member").await;
    let other_org =
        stranger.post("/api/v1/orgs/other/servers/demo/tools/call", &json!({ "name": "echo" })).await;
    problem(other_org, StatusCode::NOT_FOUND, "not-found").await;

    // An unknown tool is the server's error, named as such.
    let unknown = finish(call(&w.owner, "no_such_tool", json!({}))).await;
    let doc = problem(unknown, StatusCode::BAD_GATEWAY, "upstream-error").await;
    assert!(doc["detail"].as_str().unwrap().contains("upstream server demo"), "{doc}");

    // A cut-off server takes no calls.
    let cut = w.owner.post("/api/v1/orgs/acme/servers/demo/cut-off", &json!({ "reason": "review" })).await;
    assert_eq!(cut.status(), StatusCode::OK);
    let refused = w.owner.post(url, &json!({ "name": "echo", "arguments": { "text": "x" } })).await;
    problem(refused, StatusCode::FORBIDDEN, "forbidden").await;
    let tools = w.owner.get("/api/v1/orgs/acme/servers/demo/tools").await;
    problem(tools, StatusCode::FORBIDDEN, "forbidden").await;
}

/// A server that speaks both eras: the test shows both offered, and under `auto` Herald speaks
/// 2025-11-25 to it (a session carries every kind of question); pinned, the other era.
#[tokio::test]
async fn a_connection_test_shows_the_eras_a_server_offers_and_the_one_herald_speaks() {
    let w = world(Options::default()).await;
    let report = body(w.owner.post("/api/v1/orgs/acme/servers/demo/test", &json!({})).await).await;
    assert_eq!(report["ok"], true, "{report}");
    assert_eq!(report["protocol_setting"], "auto");
    assert_eq!(
        report["eras"],
        json!([
            { "era": "2025-11-25", "offered": true, "protocol_version": "2025-11-25" },
            { "era": "2026-07-28", "offered": true, "protocol_version": "2026-07-28" },
        ])
    );
    assert_eq!(report["generation"], "legacy");
    assert_eq!(report["protocol_version"], "2025-11-25");
    assert!(report["tool_count"].as_u64().unwrap() >= 3, "{report}");
    assert!(report["server_info"]["name"].is_string());
    assert!(report.get("error").is_none());

    pin_protocol(&w.owner, "demo", "2026-07-28").await;
    let report = body(w.owner.post("/api/v1/orgs/acme/servers/demo/test", &json!({})).await).await;
    assert_eq!(report["ok"], true, "{report}");
    assert_eq!(report["protocol_setting"], "2026-07-28");
    assert_eq!(report["generation"], "modern");
    assert_eq!(report["protocol_version"], "2026-07-28");
    assert!(report["tool_count"].as_u64().unwrap() >= 3, "{report}");
}

/// A legacy-only server pinned to 2026-07-28 fails the test, saying why; both eras are reported.
#[tokio::test]
async fn a_server_pinned_to_an_era_it_does_not_speak_fails_its_test_with_the_reason() {
    let w = world(legacy_only()).await;
    pin_protocol(&w.owner, "demo", "2026-07-28").await;
    let report = body(w.owner.post("/api/v1/orgs/acme/servers/demo/test", &json!({})).await).await;
    assert_eq!(report["ok"], false, "{report}");
    assert_eq!(report["eras"][0]["offered"], true, "{report}");
    assert_eq!(report["eras"][1]["offered"], false, "{report}");
    assert_eq!(report["eras"][1]["category"], "not_mcp", "{report}");
    assert_eq!(report["eras"][1]["detail"], "it does not answer server/discover as a 2026-07-28 server");
    assert_eq!(report["category"], "not_mcp", "{report}");
    assert_eq!(report["error"], "it is set to speak 2026-07-28, but it does not offer that era");
}

#[tokio::test]
async fn an_admin_tests_the_connection_of_a_legacy_server() {
    let w = world(legacy_only()).await;
    let report = body(w.owner.post("/api/v1/orgs/acme/servers/demo/test", &json!({})).await).await;
    assert_eq!(report["ok"], true, "{report}");
    assert_eq!(report["generation"], "legacy");
    assert_eq!(report["protocol_version"], "2025-11-25");
    assert_eq!(report["eras"][1]["offered"], false, "{report}");
    assert_eq!(report["tool_count"].as_u64().unwrap() as usize, TOOL_NAMES.len(), "{report}");
}

#[tokio::test]
async fn a_connection_test_of_an_unreachable_server_says_why_and_members_may_not_test() {
    let w = world(Options::default()).await;
    let far = json!({ "slug": "far", "name": "Far Away", "url": "http://127.0.0.1:9/mcp" });
    assert_eq!(w.owner.post("/api/v1/orgs/acme/servers", &far).await.status(), StatusCode::CREATED);
    let report = body(w.owner.post("/api/v1/orgs/acme/servers/far/test", &json!({})).await).await;
    assert_eq!(report["ok"], false, "{report}");
    assert!(!report["error"].as_str().unwrap().is_empty());
    assert!(report.get("generation").is_none());

    let member = w.app.join(&w.owner, "acme", "member@example.com", "member").await;
    let refused = member.post("/api/v1/orgs/acme/servers/demo/test", &json!({})).await;
    problem(refused, StatusCode::FORBIDDEN, "forbidden").await;
    let summary = member.get("/api/v1/orgs/acme/elicitations/pending").await;
    problem(summary, StatusCode::FORBIDDEN, "forbidden").await;
}
