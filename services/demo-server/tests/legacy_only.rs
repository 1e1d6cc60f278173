//! `Options::legacy_only`: a server that predates 2026-07-28, as a dual-generation client sees it.

mod common;

use common::{Reply, ScriptedUser, auto_client, call, start_server, start_server_with, text};
use herald_demo_server::{Options, forms::WITHDRAWN_TEXT};
use rmcp::model::ProtocolVersion;
use serde_json::json;

#[tokio::test]
async fn an_auto_client_falls_back_to_initialize_and_gets_questions_pushed() {
    let server = start_server_with(Options { legacy_only: true, ..Options::default() }).await;
    let user = ScriptedUser::new(ProtocolVersion::V_2025_11_25, Some(json!({ "form": {}, "url": {} })));
    user.will(Reply::Accept(json!({ "confirm": true }))).will(Reply::Hang);
    let client = auto_client(&server.url(), user.clone()).await;
    assert_eq!(
        client.peer_info().expect("initialized").protocol_version,
        ProtocolVersion::V_2025_11_25,
        "server/discover was refused, so the client initialized a legacy session"
    );

    let result = client
        .call_tool(call("deploy", json!({ "service": "api", "environment": "staging" })))
        .await
        .unwrap();
    assert_eq!(text(&result), "Deployed api to staging");
    let result = client.call_tool(call("ask_then_withdraw", json!({ "seconds": 1 }))).await.unwrap();
    assert_eq!(text(&result), WITHDRAWN_TEXT);
    assert_eq!(user.asked().len(), 2);
    client.cancel().await.expect("client closes");
    server.shutdown().await.expect("server stops");
}

#[tokio::test]
async fn without_the_option_the_same_client_speaks_2026_07_28() {
    let server = start_server().await;
    let client =
        auto_client(&server.url(), ScriptedUser::new(ProtocolVersion::V_2025_11_25, Some(json!({})))).await;
    assert_eq!(client.peer_info().unwrap().protocol_version, ProtocolVersion::V_2026_07_28);
    client.cancel().await.expect("client closes");
}
