//! `ask_then_withdraw`: a question the server takes back when nobody answers in time, the way the
//! TypeScript SDK does on its own timeout (`notifications/cancelled` for the question's id).

mod common;

use std::time::Duration;

use common::{Reply, ScriptedUser, call, legacy_client, modern_client, start_server, text};
use herald_demo_server::{LEGACY_ONLY_TOOL_MESSAGE, forms::WITHDRAWN_TEXT};
use rmcp::model::{ElicitRequestParams, ProtocolVersion};
use serde_json::json;

/// Only a bound on a hang; nothing waits for it to pass.
const HANG: Duration = Duration::from_secs(30);

#[tokio::test]
async fn an_unanswered_question_is_withdrawn_and_the_handler_sees_the_cancellation() {
    let server = start_server().await;
    let user = ScriptedUser::new(ProtocolVersion::V_2025_11_25, Some(json!({ "form": {} })));
    user.will(Reply::Hang);
    let client = legacy_client(&server.url(), user.clone()).await;
    let pending = tokio::spawn({
        let peer = client.peer().clone();
        async move { peer.call_tool(call("ask_then_withdraw", json!({ "seconds": 1 }))).await }
    });
    tokio::time::timeout(HANG, user.question_arrived()).await.expect("the question arrives");
    // The handler is still holding the question when the server takes it back.
    tokio::time::timeout(HANG, user.question_withdrawn()).await.expect("the server withdraws the question");
    let result = tokio::time::timeout(HANG, pending).await.expect("the call ends").unwrap().unwrap();
    assert_eq!(text(&result), WITHDRAWN_TEXT);
    assert_ne!(result.is_error, Some(true), "a withdrawal is a normal result");

    let asked = user.asked();
    assert_eq!(asked.len(), 1);
    let ElicitRequestParams::FormElicitationParams { message, requested_schema, .. } = &asked[0] else {
        panic!("ask_then_withdraw asks with a form");
    };
    assert!(message.contains("within 1 s"), "{message}");
    let schema = serde_json::to_value(requested_schema).unwrap();
    assert_eq!(schema["properties"]["reply"]["type"], "string");
    client.cancel().await.expect("client closes");
    server.shutdown().await.expect("server stops");
}

#[tokio::test]
async fn an_answer_in_time_is_reported_with_its_action() {
    let server = start_server().await;
    let user = ScriptedUser::new(ProtocolVersion::V_2025_11_25, Some(json!({ "form": {} })));
    user.will(Reply::Accept(json!({ "reply": "here" }))).will(Reply::Decline).will(Reply::Cancel);
    let client = legacy_client(&server.url(), user.clone()).await;
    for expected in ["Answered: accept", "Answered: decline", "Answered: cancel"] {
        let result = client.call_tool(call("ask_then_withdraw", json!({ "seconds": 30 }))).await.unwrap();
        assert_eq!(text(&result), expected);
    }
    assert_eq!(user.unanswered(), 0);
    client.cancel().await.expect("client closes");
}

#[tokio::test]
async fn it_needs_a_legacy_session_elicitation_and_a_wait_from_1_to_30_seconds() {
    let server = start_server().await;

    let user = ScriptedUser::new(ProtocolVersion::V_2026_07_28, Some(json!({ "form": {} })));
    let client = modern_client(&server.url(), user.clone()).await;
    let result = client.call_tool(call("ask_then_withdraw", json!({ "seconds": 1 }))).await.unwrap();
    assert_eq!(result.is_error, Some(true));
    assert_eq!(text(&result), LEGACY_ONLY_TOOL_MESSAGE);
    assert!(user.asked().is_empty(), "nothing is asked on 2026-07-28");
    client.cancel().await.expect("client closes");

    let user = ScriptedUser::new(ProtocolVersion::V_2025_11_25, None);
    let client = legacy_client(&server.url(), user.clone()).await;
    let result = client.call_tool(call("ask_then_withdraw", json!({ "seconds": 1 }))).await.unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(text(&result).contains("Elicitation is unavailable"), "{}", text(&result));
    client.cancel().await.expect("client closes");

    let user = ScriptedUser::new(ProtocolVersion::V_2025_11_25, Some(json!({ "form": {} })));
    let client = legacy_client(&server.url(), user.clone()).await;
    for seconds in [0, 31] {
        let result =
            client.call_tool(call("ask_then_withdraw", json!({ "seconds": seconds }))).await.unwrap();
        assert_eq!(result.is_error, Some(true), "{seconds}");
        assert!(text(&result).contains("from 1 to 30"), "{}", text(&result));
    }
    assert!(user.asked().is_empty());
    let tools = client.list_all_tools().await.unwrap();
    let tool = tools.iter().find(|tool| tool.name == "ask_then_withdraw").unwrap();
    let seconds = &tool.input_schema["properties"]["seconds"];
    assert_eq!(
        (seconds["type"].as_str(), &seconds["minimum"], &seconds["maximum"]),
        (Some("integer"), &json!(1), &json!(30))
    );
    assert_eq!(tool.input_schema["required"], json!(["seconds"]));
    client.cancel().await.expect("client closes");
}
