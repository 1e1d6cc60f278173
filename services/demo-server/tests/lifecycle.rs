//! Starting and stopping: the library entry points and the binary.

mod common;

use std::{process::Stdio, time::Duration};

use common::{Reply, ScriptedUser, call, legacy_client};
use herald_demo_server::{CancellationToken, Options};
use rmcp::model::ProtocolVersion;
use serde_json::json;
use tokio::io::{AsyncBufReadExt, BufReader};

/// Only a bound on a hang; nothing waits for it to pass.
const HANG: Duration = Duration::from_secs(30);

#[tokio::test]
async fn shutdown_ends_sessions_with_a_question_still_open() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let shutdown = CancellationToken::new();
    let served = tokio::spawn(herald_demo_server::serve_with(listener, Options::default(), shutdown.clone()));

    // A legacy call whose question is never answered keeps its SSE stream open.
    let user = ScriptedUser::new(ProtocolVersion::V_2025_11_25, Some(json!({ "form": {} })));
    user.will(Reply::Hang);
    let client = legacy_client(&url, user.clone()).await;
    let pending = tokio::spawn({
        let peer = client.peer().clone();
        async move { peer.call_tool(call("choose_region", json!({}))).await }
    });
    tokio::time::timeout(HANG, user.question_arrived()).await.expect("the question arrives");

    shutdown.cancel();
    let stopped = tokio::time::timeout(HANG, served).await.expect("serve_with returns after cancel");
    stopped.unwrap().expect("clean shutdown");
    pending.abort();
    drop(client);
}

#[tokio::test]
async fn spawned_server_serves_until_shut_down() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = herald_demo_server::spawn(listener, Options::default()).unwrap();
    let user = ScriptedUser::new(ProtocolVersion::V_2025_11_25, Some(json!({ "form": {} })));
    user.will(Reply::Decline);
    let client = legacy_client(&server.url(), user).await;
    let result = client.call_tool(call("choose_region", json!({}))).await.unwrap();
    assert_eq!(common::text(&result), "Region selection declined by the user");
    client.cancel().await.unwrap();
    tokio::time::timeout(HANG, server.shutdown()).await.expect("shutdown completes").unwrap();
}

#[test]
fn a_short_request_state_key_is_refused() {
    let options = Options { request_state_key: Some(b"too short".to_vec()), ..Options::default() };
    assert!(herald_demo_server::handler(&options).is_err());
    let options = Options { request_state_key: Some(vec![7; 32]), ..Options::default() };
    assert!(herald_demo_server::handler(&options).is_ok());
}

#[tokio::test]
async fn the_binary_prints_ready_and_serves_both_generations() {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_herald-demo-server"))
        .args(["--listen", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start the binary");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let ready = tokio::time::timeout(HANG, lines.next_line()).await.expect("READY in time").unwrap().unwrap();
    let addr = ready.strip_prefix("READY ").expect("READY <addr>");
    assert!(addr.starts_with("127.0.0.1:") && !addr.ends_with(":0"), "{ready}");
    let url = format!("http://{addr}/mcp");

    let legacy = legacy_client(&url, ScriptedUser::new(ProtocolVersion::V_2025_11_25, None)).await;
    assert_eq!(legacy.list_all_tools().await.unwrap().len(), herald_demo_server::TOOL_NAMES.len());
    legacy.cancel().await.unwrap();
    let modern = common::modern_client(&url, ScriptedUser::new(ProtocolVersion::V_2026_07_28, None)).await;
    let echoed = modern.call_tool(call("echo", json!({ "text": "hi" }))).await.unwrap();
    assert_eq!(common::text(&echoed), "hi");
    modern.cancel().await.unwrap();

    child.start_kill().unwrap();
    child.wait().await.unwrap();
}
