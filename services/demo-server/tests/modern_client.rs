//! The official Rust SDK as a 2026-07-28 client: no session; questions come back as
//! `input_required` results and rmcp's `call_tool` answers them through the same
//! `ClientHandler::create_elicitation` and retries with `inputResponses` and `requestState`.

mod common;

use common::{Reply, ScriptedUser, call, modern_client, start_server, text};
use herald_demo_server::TOOL_NAMES;
use rmcp::model::{CallToolResponse, ElicitRequestParams, InputRequest, ProtocolVersion};
use serde_json::json;

fn modern_user(elicitation: serde_json::Value) -> ScriptedUser {
    ScriptedUser::new(ProtocolVersion::V_2026_07_28, Some(elicitation))
}

#[tokio::test]
async fn book_table_round_trips_through_input_required_and_keeps_the_defaults() {
    let server = start_server().await;
    let user = modern_user(json!({ "form": {}, "url": {} }));
    user.will(Reply::Accept(json!({
        "date": "2027-06-01", "name": "Grace Hopper", "email": "grace@example.com", "party_size": 4
    })));
    let client = modern_client(&server.url(), user.clone()).await;
    assert_eq!(client.peer_info().expect("discovered").protocol_version, ProtocolVersion::V_2026_07_28);

    let result = client.call_tool(call("book_table", json!({ "restaurant": "Chez Ferris" }))).await.unwrap();
    let expected = json!({
        "restaurant": "Chez Ferris", "date": "2027-06-01", "time": "19:00", "party_size": 4,
        "name": "Grace Hopper", "email": "grace@example.com", "dietary": []
    });
    assert_eq!(result.structured_content.as_ref(), Some(&expected), "the answer, with the form's defaults");
    assert_eq!(serde_json::from_str::<serde_json::Value>(text(&result)).unwrap(), expected);

    let asked = user.asked();
    assert_eq!(asked.len(), 1, "one question, answered once");
    let ElicitRequestParams::FormElicitationParams { message, requested_schema, .. } = &asked[0] else {
        panic!("book_table asks with a form");
    };
    assert_eq!(message, "Book a table at Chez Ferris");
    let schema = serde_json::to_value(requested_schema).unwrap();
    assert_eq!(schema["properties"]["time"]["default"], "19:00");
    assert_eq!(schema["properties"]["party_size"]["default"], 2);
    assert_eq!(schema["properties"]["dietary"]["default"], json!([]));
    client.cancel().await.expect("client closes");
    server.shutdown().await.expect("server stops");
}

#[tokio::test]
async fn call_tool_once_returns_the_input_required_result_itself() {
    let server = start_server().await;
    let client = modern_client(&server.url(), modern_user(json!({ "form": {} }))).await;
    let response = client
        .call_tool_once(call("deploy", json!({ "service": "api", "environment": "staging" })))
        .await
        .unwrap();
    let CallToolResponse::InputRequired(input_required) = response else {
        panic!("a 2026-07-28 call is answered with input_required, got {response:?}");
    };
    assert!(input_required.request_state.as_deref().is_some_and(|state| !state.is_empty()));
    let requests = input_required.input_requests.expect("inputRequests");
    assert_eq!(requests.len(), 1);
    let InputRequest::Elicitation(request) = &requests["confirm_deploy"] else {
        panic!("an elicitation/create input request");
    };
    let ElicitRequestParams::FormElicitationParams { message, .. } = &request.params else {
        panic!("a form")
    };
    assert_eq!(message, "Deploy api to staging?");
    client.cancel().await.expect("client closes");
}

#[tokio::test]
async fn deploy_decline_and_cancel_are_results_on_the_modern_path_too() {
    let server = start_server().await;
    let user = modern_user(json!({ "form": {} }));
    user.will(Reply::Accept(json!({ "confirm": true }))).will(Reply::Decline).will(Reply::Cancel);
    let client = modern_client(&server.url(), user.clone()).await;
    for expected in
        ["Deployed api to staging", "Deployment declined by the user", "Deployment cancelled by the user"]
    {
        let result = client
            .call_tool(call("deploy", json!({ "service": "api", "environment": "staging" })))
            .await
            .unwrap();
        assert_eq!(text(&result), expected);
        assert_ne!(result.is_error, Some(true));
    }
    assert_eq!(user.unanswered(), 0);
    client.cancel().await.expect("client closes");
}

#[tokio::test]
async fn tools_list_shows_all_tools() {
    let server = start_server().await;
    let client = modern_client(&server.url(), modern_user(json!({}))).await;
    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(names, TOOL_NAMES);
    let result = client.call_tool(call("echo", json!({ "text": "ping" }))).await.unwrap();
    assert_eq!(text(&result), "ping");
    client.cancel().await.expect("client closes");
}

#[tokio::test]
async fn url_mode_follows_the_per_request_capabilities() {
    let server = start_server().await;
    let user = modern_user(json!({ "form": {}, "url": {} }));
    user.will(Reply::Accept(json!(null)));
    let client = modern_client(&server.url(), user.clone()).await;
    let result = client.call_tool(call("connect_account", json!({ "provider": "gitlab" }))).await.unwrap();
    assert_eq!(
        text(&result),
        "The user agreed to open https://auth.example.com/connect?provider=gitlab to connect gitlab"
    );
    let ElicitRequestParams::UrlElicitationParams { url, .. } = &user.asked()[0] else { panic!("URL mode") };
    assert_eq!(url, "https://auth.example.com/connect?provider=gitlab");
    client.cancel().await.expect("client closes");

    let form_only = modern_user(json!({ "form": {} }));
    let client = modern_client(&server.url(), form_only.clone()).await;
    let result = client.call_tool(call("connect_account", json!({ "provider": "gitlab" }))).await.unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(text(&result).contains("URL mode elicitation is unavailable"));
    assert!(form_only.asked().is_empty());
    client.cancel().await.expect("client closes");
}
