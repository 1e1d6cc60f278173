//! The official Rust SDK as a legacy (2025-11-25 / 2025-06-18) client: elicitation is pushed to it
//! as `elicitation/create` on the `tools/call` stream and answered through its `ClientHandler`.

mod common;

use common::{Reply, ScriptedUser, call, legacy_client, start_server, text};
use herald_demo_server::TOOL_NAMES;
use rmcp::model::{ElicitRequestParams, ProtocolVersion};
use serde_json::json;

#[tokio::test]
async fn deploy_reports_accept_decline_and_cancel_as_themselves() {
    let server = start_server().await;
    let user = ScriptedUser::new(ProtocolVersion::V_2025_11_25, Some(json!({ "form": {}, "url": {} })));
    user.will(Reply::Accept(json!({ "confirm": true, "note": "ship it" })))
        .will(Reply::Accept(json!({})))
        .will(Reply::Decline)
        .will(Reply::Cancel);
    let client = legacy_client(&server.url(), user.clone()).await;
    assert_eq!(
        client.peer_info().expect("initialized").protocol_version,
        ProtocolVersion::V_2025_11_25,
        "the session runs the legacy revision the client asked for"
    );

    let deploy = || call("deploy", json!({ "service": "billing-api", "environment": "production" }));
    let expected = [
        "Deployed billing-api to production",
        // The form's default for confirm is false; the person left it alone.
        "Deployment cancelled: not confirmed",
        "Deployment declined by the user",
        "Deployment cancelled by the user",
    ];
    for expected in expected {
        let result = client.call_tool(deploy()).await.expect("tools/call succeeds");
        assert_eq!(text(&result), expected);
        assert_ne!(result.is_error, Some(true), "{expected:?} is a normal result, not an error");
    }
    assert_eq!(user.unanswered(), 0);

    let asked = user.asked();
    assert_eq!(asked.len(), 4);
    let ElicitRequestParams::FormElicitationParams { message, requested_schema, .. } = &asked[0] else {
        panic!("deploy asks with a form");
    };
    assert_eq!(message, "Deploy billing-api to production?");
    let schema = serde_json::to_value(requested_schema).unwrap();
    assert_eq!(schema["properties"]["confirm"]["type"], "boolean");
    assert_eq!(schema["properties"]["confirm"]["title"], "Confirm deploy");
    assert_eq!(schema["properties"]["note"]["maxLength"], 200);
    assert_eq!(schema["required"], json!(["confirm"]));

    client.cancel().await.expect("client closes");
    server.shutdown().await.expect("server stops");
}

#[tokio::test]
async fn tools_list_shows_all_tools_with_descriptions_and_schemas() {
    let server = start_server().await;
    let client = legacy_client(&server.url(), ScriptedUser::new(ProtocolVersion::V_2025_06_18, None)).await;
    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(names, TOOL_NAMES);
    for tool in &tools {
        assert!(tool.description.as_deref().is_some_and(|d| d.len() > 20), "{} is described", tool.name);
        assert_eq!(tool.input_schema["type"], "object", "{} has an object inputSchema", tool.name);
    }
    let deploy = tools.iter().find(|tool| tool.name == "deploy").unwrap();
    let properties = deploy.input_schema["properties"].as_object().unwrap();
    assert_eq!(properties["service"]["type"], "string");
    assert_eq!(properties["environment"]["enum"], json!(["staging", "production"]));
    assert_eq!(deploy.input_schema["required"], json!(["service", "environment"]));
    let echo = tools.iter().find(|tool| tool.name == "echo").unwrap();
    assert_eq!(echo.input_schema["properties"]["text"]["type"], "string");
    client.cancel().await.expect("client closes");
}

#[tokio::test]
async fn a_2025_06_18_session_gets_forms_and_the_booking_keeps_the_defaults() {
    let server = start_server().await;
    let user = ScriptedUser::new(ProtocolVersion::V_2025_06_18, Some(json!({})));
    user.will(Reply::Accept(json!({ "date": "2027-03-14", "name": "Ada Lovelace", "dietary": ["vegan"] })));
    let client = legacy_client(&server.url(), user.clone()).await;
    assert_eq!(client.peer_info().unwrap().protocol_version, ProtocolVersion::V_2025_06_18);

    let result = client.call_tool(call("book_table", json!({ "restaurant": "Chez Ferris" }))).await.unwrap();
    let expected = json!({
        "restaurant": "Chez Ferris", "date": "2027-03-14", "time": "19:00", "party_size": 2,
        "name": "Ada Lovelace", "dietary": ["vegan"]
    });
    assert_eq!(result.structured_content.as_ref(), Some(&expected));
    assert_eq!(serde_json::from_str::<serde_json::Value>(text(&result)).unwrap(), expected);

    // URL mode does not exist for a client that declared only `elicitation: {}`.
    let result = client.call_tool(call("connect_account", json!({ "provider": "github" }))).await.unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(text(&result).contains("URL mode elicitation is unavailable"), "{}", text(&result));
    assert_eq!(user.asked().len(), 1, "nothing was asked for the URL tool");
    client.cancel().await.expect("client closes");
}

#[tokio::test]
async fn url_mode_carries_an_elicitation_id_and_accept_means_agreed_to_open() {
    let server = start_server().await;
    let user = ScriptedUser::new(ProtocolVersion::V_2025_11_25, Some(json!({ "form": {}, "url": {} })));
    user.will(Reply::Accept(json!(null))).will(Reply::Decline);
    let client = legacy_client(&server.url(), user.clone()).await;

    let result = client.call_tool(call("connect_account", json!({ "provider": "github" }))).await.unwrap();
    assert_eq!(
        text(&result),
        "The user agreed to open https://auth.example.com/connect?provider=github to connect github"
    );
    assert_eq!(result.structured_content.as_ref().unwrap()["agreed_to_open"], true);
    let result = client.call_tool(call("connect_account", json!({ "provider": "github" }))).await.unwrap();
    assert_eq!(text(&result), "Connecting github was declined by the user");

    let asked = user.asked();
    let ElicitRequestParams::UrlElicitationParams { url, elicitation_id, message, .. } = &asked[0] else {
        panic!("connect_account asks in URL mode");
    };
    assert_eq!(url, "https://auth.example.com/connect?provider=github");
    assert!(message.contains("github"));
    assert!(!elicitation_id.is_empty(), "2025-11-25 URL requests carry an elicitationId");
    let ElicitRequestParams::UrlElicitationParams { elicitation_id: second, .. } = &asked[1] else {
        panic!()
    };
    assert_ne!(elicitation_id, second, "each URL request has its own id");
    client.cancel().await.expect("client closes");
}

#[tokio::test]
async fn the_other_tools_ask_what_they_should() {
    let server = start_server().await;
    let user = ScriptedUser::new(ProtocolVersion::V_2025_11_25, Some(json!({ "form": {} })));
    user.will(Reply::Accept(json!({ "region": "eu-west" })))
        .will(Reply::Accept(json!({ "password": "hunter2" })))
        .will(Reply::Cancel);
    let client = legacy_client(&server.url(), user.clone()).await;

    let result = client.call_tool(call("choose_region", json!({}))).await.unwrap();
    assert_eq!(text(&result), "Selected region: eu-west (EU West (Ireland))");
    let result = client.call_tool(call("fish_for_password", json!({}))).await.unwrap();
    assert_eq!(text(&result), "Password received (7 characters)");
    let result = client.call_tool(call("fish_for_password", json!({}))).await.unwrap();
    assert_eq!(text(&result), "Password request cancelled by the user");
    let result = client.call_tool(call("echo", json!({ "text": "hello" }))).await.unwrap();
    assert_eq!(text(&result), "hello");

    let asked = user.asked();
    assert_eq!(asked.len(), 3, "echo asks nothing");
    let region = serde_json::to_value(&asked[0]).unwrap();
    assert_eq!(
        region["requestedSchema"]["properties"]["region"]["oneOf"][2],
        json!({ "const": "eu-west", "title": "EU West (Ireland)" })
    );
    let password = serde_json::to_value(&asked[1]).unwrap();
    assert_eq!(password["message"], "Please enter your account password to continue.");
    assert_eq!(password["requestedSchema"]["properties"]["password"]["type"], "string");
    client.cancel().await.expect("client closes");
}

#[tokio::test]
async fn a_client_without_elicitation_gets_a_tool_error_not_a_question() {
    let server = start_server().await;
    let user = ScriptedUser::new(ProtocolVersion::V_2025_11_25, None);
    let client = legacy_client(&server.url(), user.clone()).await;
    let result = client
        .call_tool(call("deploy", json!({ "service": "api", "environment": "staging" })))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(text(&result).starts_with("Elicitation is unavailable"), "{}", text(&result));
    assert!(user.asked().is_empty());
    client.cancel().await.expect("client closes");
}

#[tokio::test]
async fn cancelling_the_call_withdraws_the_question() {
    let server = start_server().await;
    let user = ScriptedUser::new(ProtocolVersion::V_2025_11_25, Some(json!({ "form": {} })));
    user.will(Reply::Hang).will(Reply::Accept(json!({ "confirm": true })));
    let client = legacy_client(&server.url(), user.clone()).await;

    // rmcp sends notifications/cancelled for a tools/call whose future is dropped.
    let abandoned = tokio::spawn({
        let peer = client.peer().clone();
        async move { peer.call_tool(call("deploy", json!({ "service": "api", "environment": "staging" }))).await }
    });
    user.question_arrived().await;
    abandoned.abort();
    // The server answers by cancelling its own elicitation/create (the timeout only bounds a hang).
    tokio::time::timeout(std::time::Duration::from_secs(30), user.question_withdrawn())
        .await
        .expect("the server withdraws its question");

    // The session is still usable.
    let result = client
        .call_tool(call("deploy", json!({ "service": "api", "environment": "staging" })))
        .await
        .unwrap();
    assert_eq!(text(&result), "Deployed api to staging");
    client.cancel().await.expect("client closes");
}
