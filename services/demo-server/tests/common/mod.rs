//! Shared test plumbing: a demo server on a real socket and an rmcp client that plays the user.
#![allow(dead_code)]

use std::{
    collections::VecDeque,
    sync::{Arc, Mutex},
};

use herald_demo_server::{DemoServerHandle, Options};
use rmcp::{
    ClientHandler, ClientLifecycleMode, ClientServiceExt, ErrorData, RoleClient, ServiceExt,
    model::{
        CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, ElicitRequestParams,
        ElicitResult, ElicitationAction, Implementation, JsonObject, ProtocolVersion,
    },
    service::{RequestContext, RunningService},
    transport::StreamableHttpClientTransport,
};
use serde_json::{Map, Value, json};

pub async fn start_server() -> DemoServerHandle {
    start_server_with(Options::default()).await
}

pub async fn start_server_with(options: Options) -> DemoServerHandle {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind a loopback port");
    herald_demo_server::spawn(listener, options).expect("start the demo server")
}

/// What the scripted user answers to the next question.
#[derive(Debug, Clone)]
pub enum Reply {
    /// Accept; for a form, the schema's defaults overlaid with these fields.
    Accept(Value),
    Decline,
    Cancel,
    /// Never answer; wait until the server withdraws the question (`notifications/cancelled`).
    Hang,
}

/// An rmcp client handler that answers questions from a script, like a person would through a
/// host: forms are pre-filled with the schema's defaults before the person's own input.
#[derive(Clone)]
pub struct ScriptedUser {
    version: ProtocolVersion,
    capabilities: ClientCapabilities,
    replies: Arc<Mutex<VecDeque<Reply>>>,
    asked: Arc<Mutex<Vec<ElicitRequestParams>>>,
    question_arrived: Arc<tokio::sync::Notify>,
    question_withdrawn: Arc<tokio::sync::Notify>,
}

impl ScriptedUser {
    /// `elicitation` is the capability object, e.g. `{"form": {}, "url": {}}`, or `None` for none.
    pub fn new(version: ProtocolVersion, elicitation: Option<Value>) -> Self {
        let capabilities = match elicitation {
            Some(elicitation) => json!({ "elicitation": elicitation }),
            None => json!({}),
        };
        Self {
            version,
            capabilities: serde_json::from_value(capabilities).expect("client capabilities"),
            replies: Arc::default(),
            asked: Arc::default(),
            question_arrived: Arc::default(),
            question_withdrawn: Arc::default(),
        }
    }

    pub fn will(&self, reply: Reply) -> &Self {
        self.replies.lock().unwrap().push_back(reply);
        self
    }

    /// Every question asked so far.
    pub fn asked(&self) -> Vec<ElicitRequestParams> {
        self.asked.lock().unwrap().clone()
    }

    /// Waits until a question has arrived (returns at once if one came since the last wait).
    pub async fn question_arrived(&self) {
        self.question_arrived.notified().await
    }

    /// Waits until the server has withdrawn a question the user was holding ([`Reply::Hang`]).
    pub async fn question_withdrawn(&self) {
        self.question_withdrawn.notified().await
    }

    pub fn unanswered(&self) -> usize {
        self.replies.lock().unwrap().len()
    }
}

fn defaults_of(request: &ElicitRequestParams) -> Map<String, Value> {
    let ElicitRequestParams::FormElicitationParams { requested_schema, .. } = request else {
        return Map::new();
    };
    let schema = serde_json::to_value(requested_schema).expect("schema serialises");
    schema["properties"]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(name, property)| property.get("default").map(|default| (name.clone(), default.clone())))
        .collect()
}

impl ClientHandler for ScriptedUser {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(self.capabilities.clone(), Implementation::new("herald-demo-test-client", "0.0.0"))
            .with_protocol_version(self.version.clone())
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.asked.lock().unwrap().push(request.clone());
        self.question_arrived.notify_one();
        let reply = self
            .replies
            .lock()
            .unwrap()
            .pop_front()
            .ok_or_else(|| ErrorData::internal_error("the test did not expect a question", None))?;
        Ok(match reply {
            Reply::Accept(fields) => match request {
                ElicitRequestParams::UrlElicitationParams { .. } => {
                    ElicitResult::new(ElicitationAction::Accept)
                }
                _ => {
                    let mut content = defaults_of(&request);
                    if let Value::Object(fields) = fields {
                        content.extend(fields);
                    }
                    ElicitResult::new(ElicitationAction::Accept).with_content(Value::Object(content))
                }
            },
            Reply::Decline => ElicitResult::new(ElicitationAction::Decline),
            Reply::Cancel => ElicitResult::new(ElicitationAction::Cancel),
            Reply::Hang => {
                context.ct.cancelled().await;
                self.question_withdrawn.notify_one();
                return Err(ErrorData::internal_error("withdrawn", None));
            }
        })
    }
}

/// A legacy client: `initialize` handshake, session, pushed elicitation.
pub async fn legacy_client(url: &str, user: ScriptedUser) -> RunningService<RoleClient, ScriptedUser> {
    user.serve(StreamableHttpClientTransport::from_uri(url.to_owned())).await.expect("legacy client connects")
}

/// A 2026-07-28 client: `server/discover`, no session, per-request `_meta`, MRTR.
pub async fn modern_client(url: &str, user: ScriptedUser) -> RunningService<RoleClient, ScriptedUser> {
    user.serve_with_lifecycle(
        StreamableHttpClientTransport::from_uri(url.to_owned()),
        ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] },
    )
    .await
    .expect("modern client connects")
}

/// A dual-generation client: `server/discover` first, `initialize` when the server is legacy.
pub async fn auto_client(url: &str, user: ScriptedUser) -> RunningService<RoleClient, ScriptedUser> {
    user.serve_with_lifecycle(
        StreamableHttpClientTransport::from_uri(url.to_owned()),
        ClientLifecycleMode::Auto {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            legacy_version: Some(ProtocolVersion::V_2025_11_25),
        },
    )
    .await
    .expect("auto client connects")
}

pub fn call(name: &'static str, arguments: Value) -> CallToolRequestParams {
    let Value::Object(arguments) = arguments else { panic!("arguments must be an object") };
    CallToolRequestParams::new(name).with_arguments(arguments as JsonObject)
}

pub fn text(result: &CallToolResult) -> &str {
    &result.content.first().and_then(|content| content.as_text()).expect("a text result").text
}
