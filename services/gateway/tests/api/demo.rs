//! The whole flow with nothing installed: the bundled demo MCP server started in-process, the
//! official Rust SDK (rmcp) as the agent. Agent → Herald → demo server → elicitation → the
//! person's dashboard (websocket) or the REST API → answer → tool result at the agent.
//!
//! The agent declares no elicitation capability: Herald is the host that answers. It never sees a
//! question, only the final tool result.

use std::sync::{Arc, Mutex};

use herald_demo_server::{Options, TOOL_NAMES, forms::WITHDRAWN_TEXT};
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation, JsonObject,
    ProgressNotificationParam, ProtocolVersion,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio::sync::Notify;
use tokio::task::JoinHandle;
use uuid::Uuid;

use crate::mcp_support::{
    Agent as RawAgent, Dashboard, DemoWorld as World, PATIENCE, latest, pin_protocol, result as raw_result,
    text as raw_text,
};
use crate::support::body;

async fn world(options: Options) -> World {
    World::start(options).await
}

/// The rmcp agent's handler: no capabilities at all; it only takes note of progress.
#[derive(Clone)]
struct AgentHandler {
    version: ProtocolVersion,
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
    progressed: Arc<Notify>,
}

impl ClientHandler for AgentHandler {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(ClientCapabilities::default(), Implementation::new("herald-test-rmcp-agent", "1"))
            .with_protocol_version(self.version.clone())
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.lock().unwrap().push(params);
        self.progressed.notify_one();
    }
}

type Agent = RunningService<RoleClient, AgentHandler>;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Generation {
    /// 2025-11-25: `initialize`, a session minted by Herald.
    Legacy,
    /// 2026-07-28: `server/discover`, then stateless requests.
    Modern,
}

/// An rmcp agent connected to Herald's endpoint for the demo server with the bearer token.
async fn connect(w: &World, generation: Generation) -> (Agent, AgentHandler) {
    let version = match generation {
        Generation::Legacy => ProtocolVersion::V_2025_11_25,
        Generation::Modern => ProtocolVersion::V_2026_07_28,
    };
    let handler =
        AgentHandler { version: version.clone(), progress: Arc::default(), progressed: Arc::default() };
    let config = StreamableHttpClientTransportConfig::with_uri(w.app.url("/mcp/acme/demo"))
        .auth_header(w.token.clone());
    let transport = StreamableHttpClientTransport::from_config(config);
    let agent = match generation {
        Generation::Legacy => handler.clone().serve(transport).await,
        Generation::Modern => {
            let lifecycle = ClientLifecycleMode::Discover { preferred_versions: vec![version.clone()] };
            handler.clone().serve_with_lifecycle(transport, lifecycle).await
        }
    }
    .unwrap_or_else(|e| panic!("the {generation:?} agent connects to Herald: {e}"));
    assert_eq!(agent.peer_info().expect("connected").protocol_version, version);
    (agent, handler)
}

fn call(name: &str, arguments: Value) -> CallToolRequestParams {
    let Value::Object(arguments) = arguments else { panic!("arguments must be an object") };
    CallToolRequestParams::new(name.to_owned()).with_arguments(arguments as JsonObject)
}

/// Starts a tool call in the background (it only ends once the person has answered).
fn start(agent: &Agent, name: &str, arguments: Value) -> JoinHandle<CallToolResult> {
    let peer = agent.peer().clone();
    let request = call(name, arguments);
    tokio::spawn(async move { peer.call_tool(request).await.expect("the tool call succeeds") })
}

async fn finish(call: JoinHandle<CallToolResult>) -> CallToolResult {
    tokio::time::timeout(PATIENCE, call).await.expect("the call ends in time").expect("the call task")
}

fn text(result: &CallToolResult) -> &str {
    &result.content.first().and_then(|content| content.as_text()).expect("a text result").text
}

fn deploy_args(service: &str) -> Value {
    json!({ "service": service, "environment": "staging" })
}

/// The stored record, with what no surface shows (the generation Herald spoke upstream).
async fn stored(w: &World, id: &Value) -> herald_gateway::storage::Elicitation {
    let me = body(w.owner.get("/api/v1/me").await).await;
    let user: Uuid = me["user"]["id"].as_str().unwrap().parse().unwrap();
    let id: Uuid = id.as_str().unwrap().parse().unwrap();
    w.app.state.store.elicitation_of_user(user, id).await.unwrap().expect("the record exists")
}

async fn respond_over_rest(w: &World, id: &Value, answer: Value) -> Value {
    let id = id.as_str().unwrap();
    let response = w.owner.post(&format!("/api/v1/orgs/acme/elicitations/{id}/respond"), &answer).await;
    assert_eq!(response.status(), 200);
    body(response).await
}

/// 1. A legacy agent, a modern upstream: the demo server pinned to 2026-07-28, so it returns
/// `input_required`; the person confirms on the dashboard; the agent gets the deployment.
#[tokio::test]
async fn a_legacy_rmcp_agent_deploys_once_the_person_confirms_over_the_websocket() {
    let w = world(Options::default()).await;
    pin_protocol(&w.owner, "demo", "2026-07-28").await;
    let mut dashboard = Dashboard::open(&w.app, &w.token).await;
    let (agent, _) = connect(&w, Generation::Legacy).await;
    let tools = agent.list_all_tools().await.expect("tools/list through Herald");
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(names, TOOL_NAMES);

    let deploy = start(&agent, "deploy", deploy_args("api"));
    let created = dashboard.next_of("elicitation.created").await;
    assert_eq!(created["server"], json!({ "slug": "demo", "name": "Demo Server", "url": w.demo.url() }));
    assert_eq!(created["tool"], "deploy");
    assert_eq!(created["mode"], "form");
    assert_eq!(created["message"], "Deploy api to staging?");
    assert_eq!(created["status"], "pending");
    assert_eq!(created["requested_schema"]["properties"]["confirm"]["type"], "boolean");
    let id = created["id"].clone();
    assert_eq!(stored(&w, &id).await.protocol.as_str(), "modern", "pinned to the modern generation upstream");

    let ack = dashboard.respond(&id, "accept", Some(json!({ "confirm": true }))).await;
    assert_eq!(ack["type"], "ack", "{ack}");
    let resolved = dashboard.next_of("elicitation.resolved").await;
    assert_eq!(
        resolved,
        json!({ "type": "elicitation.resolved", "id": id, "action": "accept", "decided_by": "user", "reason": "answered" })
    );

    let result = finish(deploy).await;
    assert_eq!(text(&result), "Deployed api to staging");
    assert_ne!(result.is_error, Some(true));
    let record = latest(&w.owner).await;
    assert_eq!(record["id"], id);
    assert_eq!(record["status"], "resolved");
    assert_eq!(record["action"], "accept");
    assert_eq!(record["decided_by"], "user");
    assert_eq!(record["content"]["confirm"], true);
    agent.cancel().await.expect("the agent disconnects");
}

/// 2. A modern agent: the person fills in only the required fields; Herald adds the schema's
/// defaults before the answer goes upstream, and the booking comes back with them.
#[tokio::test]
async fn a_modern_rmcp_agent_books_a_table_and_herald_fills_in_the_defaults() {
    book_a_table_with_only_the_required_fields(Generation::Modern).await;
}

/// The same through a legacy agent, which runs today.
#[tokio::test]
async fn a_legacy_rmcp_agent_books_a_table_and_herald_fills_in_the_defaults() {
    book_a_table_with_only_the_required_fields(Generation::Legacy).await;
}

async fn book_a_table_with_only_the_required_fields(generation: Generation) {
    let w = world(Options::default()).await;
    let mut dashboard = Dashboard::open(&w.app, &w.token).await;
    let (agent, _) = connect(&w, generation).await;

    let booking = start(&agent, "book_table", json!({ "restaurant": "Chez Herald" }));
    let created = dashboard.next_of("elicitation.created").await;
    assert_eq!(created["tool"], "book_table");
    assert_eq!(created["message"], "Book a table at Chez Herald");
    assert_eq!(created["requested_schema"]["required"], json!(["date", "name"]));
    let id = created["id"].clone();

    let ack =
        dashboard.respond(&id, "accept", Some(json!({ "date": "2027-05-01", "name": "Ada Lovelace" }))).await;
    assert_eq!(ack["type"], "ack", "{ack}");

    let result = finish(booking).await;
    let expected = json!({
        "restaurant": "Chez Herald", "date": "2027-05-01", "time": "19:00", "party_size": 2,
        "name": "Ada Lovelace", "dietary": []
    });
    assert_eq!(result.structured_content.as_ref(), Some(&expected), "{result:?}");
    assert_eq!(serde_json::from_str::<Value>(text(&result)).unwrap(), expected);
    // The defaults came from Herald, not from the server's own fallbacks: they are in what was sent.
    let record = latest(&w.owner).await;
    assert_eq!(record["id"], id);
    assert_eq!(
        record["content"],
        json!({ "date": "2027-05-01", "name": "Ada Lovelace", "time": "19:00", "party_size": 2, "dietary": [] })
    );
    agent.cancel().await.expect("the agent disconnects");
}

/// 3. A decline (over REST) and a dismissal (over the websocket) reach the agent as normal results.
#[tokio::test]
async fn a_decline_over_rest_and_a_dismissal_over_the_websocket_reach_a_legacy_agent_as_results() {
    decline_then_dismiss(Generation::Legacy).await;
}

#[tokio::test]
async fn a_decline_over_rest_and_a_dismissal_over_the_websocket_reach_a_modern_agent_as_results() {
    decline_then_dismiss(Generation::Modern).await;
}

async fn decline_then_dismiss(generation: Generation) {
    let w = world(Options::default()).await;
    let mut dashboard = Dashboard::open(&w.app, &w.token).await;
    let (agent, _) = connect(&w, generation).await;

    let deploy = start(&agent, "deploy", deploy_args("api"));
    let created = dashboard.next_of("elicitation.created").await;
    let declined = respond_over_rest(&w, &created["id"], json!({ "action": "decline" })).await;
    assert_eq!(declined["action"], "decline");
    let resolved = dashboard.next_of("elicitation.resolved").await;
    assert_eq!(resolved["id"], created["id"]);
    assert_eq!((&resolved["action"], &resolved["decided_by"]), (&json!("decline"), &json!("user")));
    let result = finish(deploy).await;
    assert_eq!(text(&result), "Deployment declined by the user");
    assert_ne!(result.is_error, Some(true), "a decline is not an error");

    // Another question: the same one again would be answered by decline memory, not shown.
    let deploy = start(&agent, "deploy", deploy_args("web"));
    let created = dashboard.next_of("elicitation.created").await;
    assert_eq!(created["message"], "Deploy web to staging?");
    let ack = dashboard.respond(&created["id"], "cancel", None).await;
    assert_eq!(ack["type"], "ack", "{ack}");
    let resolved = dashboard.next_of("elicitation.resolved").await;
    assert_eq!(
        resolved,
        json!({ "type": "elicitation.resolved", "id": created["id"], "action": "cancel", "decided_by": "user", "reason": "dismissed" })
    );
    let result = finish(deploy).await;
    assert_eq!(text(&result), "Deployment cancelled by the user");
    assert_ne!(result.is_error, Some(true));
    let record = latest(&w.owner).await;
    assert_eq!((&record["action"], &record["reason"]), (&json!("cancel"), &json!("dismissed")));
    agent.cancel().await.expect("the agent disconnects");
}

/// 4. An upstream that speaks only 2025-11-25: Herald's `server/discover` gets a 400 that is no
/// modern error, so it falls back to `initialize`; questions come pushed on the call's stream, and
/// a question the server withdraws disappears from the dashboard while the agent gets the result.
#[tokio::test]
async fn a_legacy_only_upstream_is_reached_through_initialize_and_can_withdraw_its_question() {
    let w = world(Options { legacy_only: true, ..Options::default() }).await;
    let mut dashboard = Dashboard::open(&w.app, &w.token).await;
    let (agent, _) = connect(&w, Generation::Legacy).await;

    let deploy = start(&agent, "deploy", deploy_args("api"));
    let created = dashboard.next_of("elicitation.created").await;
    assert_eq!(created["message"], "Deploy api to staging?");
    assert_eq!(
        stored(&w, &created["id"]).await.protocol.as_str(),
        "legacy",
        "Herald fell back to initialize"
    );
    let ack = dashboard.respond(&created["id"], "accept", Some(json!({ "confirm": true }))).await;
    assert_eq!(ack["type"], "ack", "{ack}");
    assert_eq!(text(&finish(deploy).await), "Deployed api to staging");

    let ask = start(&agent, "ask_then_withdraw", json!({ "seconds": 1 }));
    let created = dashboard.next_of("elicitation.created").await;
    assert_eq!(created["tool"], "ask_then_withdraw");
    assert_eq!(created["status"], "pending");
    // Nobody answers; a second later the server takes the question back.
    let resolved = dashboard.next_of("elicitation.resolved").await;
    assert_eq!(
        resolved,
        json!({ "type": "elicitation.resolved", "id": created["id"], "action": "cancel", "decided_by": "server", "reason": "server_cancelled" })
    );
    let result = finish(ask).await;
    assert_eq!(text(&result), WITHDRAWN_TEXT);
    assert_ne!(result.is_error, Some(true));
    let record = latest(&w.owner).await;
    assert_eq!(record["id"], created["id"]);
    assert_eq!((&record["decided_by"], &record["reason"]), (&json!("server"), &json!("server_cancelled")));
    // A late answer finds the question gone.
    let late = dashboard.respond(&created["id"], "accept", Some(json!({}))).await;
    assert_eq!(late["type"], "error", "{late}");
    agent.cancel().await.expect("the agent disconnects");
}

/// 5. The org's deadline: at its minimum (10 s) an unanswered question expires; the server is told
/// "cancel", and the agent gets the server's own result for that.
#[tokio::test]
async fn an_unanswered_question_expires_at_the_org_deadline() {
    let w = world(Options::default()).await;
    let put =
        w.owner.put("/api/v1/orgs/acme/policy", &json!({ "elicitation": { "timeout_secs": 10 } })).await;
    assert_eq!(put.status(), 200, "{}", put.text().await.unwrap());
    let mut dashboard = Dashboard::open(&w.app, &w.token).await;
    let (agent, _) = connect(&w, Generation::Legacy).await;

    let deploy = start(&agent, "deploy", deploy_args("api"));
    let created = dashboard.next_of("elicitation.created").await;
    let created_at = time::OffsetDateTime::parse(
        created["created_at"].as_str().unwrap(),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap();
    let expires_at = time::OffsetDateTime::parse(
        created["expires_at"].as_str().unwrap(),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap();
    assert_eq!((expires_at - created_at).whole_seconds(), 10, "{created}");

    // Nobody answers (the wait for this frame outlasts the deadline).
    let resolved = dashboard.next_of("elicitation.resolved").await;
    assert_eq!(
        resolved,
        json!({ "type": "elicitation.resolved", "id": created["id"], "action": "cancel", "decided_by": "timeout", "reason": "expired" })
    );
    let result = finish(deploy).await;
    assert_eq!(text(&result), "Deployment cancelled by the user", "a cancel is what the server received");
    let record = latest(&w.owner).await;
    assert_eq!((&record["action"], &record["decided_by"]), (&json!("cancel"), &json!("timeout")));
    agent.cancel().await.expect("the agent disconnects");
}

/// 6. rmcp sends a progress token with every request; while the person decides, Herald sends the
/// agent `notifications/progress` for it. Herald sends one every 10 s, so this waits ~10 s (the
/// keep-alive comments a caller without a token gets are not visible through rmcp).
#[tokio::test]
async fn a_waiting_legacy_agent_receives_progress_while_the_question_is_pending() {
    progress_while_pending(Generation::Legacy).await;
}

#[tokio::test]
async fn a_waiting_modern_agent_receives_progress_while_the_question_is_pending() {
    progress_while_pending(Generation::Modern).await;
}

async fn progress_while_pending(generation: Generation) {
    let w = world(Options::default()).await;
    let mut dashboard = Dashboard::open(&w.app, &w.token).await;
    let (agent, handler) = connect(&w, generation).await;

    let deploy = start(&agent, "deploy", deploy_args("api"));
    let created = dashboard.next_of("elicitation.created").await;
    tokio::time::timeout(PATIENCE, handler.progressed.notified())
        .await
        .expect("progress arrives while the question is pending");
    let first = handler.progress.lock().unwrap()[0].clone();
    assert!(first.progress > 0.0, "{first:?}");
    assert_eq!(first.message.as_deref(), Some("Waiting for a person to answer Demo Server"));
    assert!(!deploy.is_finished(), "the call is still waiting");
    assert_eq!(latest(&w.owner).await["status"], "pending");

    let ack = dashboard.respond(&created["id"], "accept", Some(json!({ "confirm": true }))).await;
    assert_eq!(ack["type"], "ack", "{ack}");
    assert_eq!(text(&finish(deploy).await), "Deployed api to staging");
    agent.cancel().await.expect("the agent disconnects");
}

/// A 2026-07-28 agent in front of an upstream that speaks only 2025-11-25: Herald translates, so
/// the agent's per-request metadata (`_meta` protocol version, capabilities, client info) must not
/// leak into the legacy session. (A raw agent, since rmcp cannot connect as a modern agent yet.)
#[tokio::test]
async fn a_modern_agent_reaches_a_legacy_only_upstream() {
    let w = world(Options { legacy_only: true, ..Options::default() }).await;
    let mut dashboard = Dashboard::open(&w.app, &w.token).await;
    let agent = RawAgent::modern(&w.app, &w.token, "demo");
    let (_, listed) = agent.request(1, "tools/list", json!({})).await;
    let listed = raw_result(&listed);
    assert_eq!(listed["tools"].as_array().map(Vec::len), Some(TOOL_NAMES.len()), "{listed}");

    let mut deploy = tokio::spawn({
        let agent = agent.clone();
        async move { agent.call(2, "deploy", deploy_args("api")).await }
    });
    let created = tokio::select! {
        created = dashboard.next_of("elicitation.created") => created,
        ended = &mut deploy => panic!("the call ended before any question was shown: {}", ended.unwrap().to_json()),
    };
    assert_eq!(stored(&w, &created["id"]).await.protocol.as_str(), "legacy");
    let ack = dashboard.respond(&created["id"], "accept", Some(json!({ "confirm": true }))).await;
    assert_eq!(ack["type"], "ack", "{ack}");
    let done = tokio::time::timeout(PATIENCE, deploy).await.expect("the call ends").unwrap();
    assert_eq!(raw_text(&done), "Deployed api to staging");
}
