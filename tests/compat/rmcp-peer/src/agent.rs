//! An agent built on rmcp's client: one fresh connection per request, the JSON-lines contract of
//! tests/compat/README.md, and callbacks that answer the way the request says.

// Sampling and roots are deprecated by SEP-2577, but 2025-11-25 servers still ask for them.
#![allow(deprecated)]

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use rmcp::{
    ClientHandler, ClientLifecycleMode, ClientServiceExt, ErrorData, RoleClient, ServiceError, ServiceExt,
    model::{
        CallToolRequestParams, ClientConfig, CreateMessageRequestParams, CreateMessageResult,
        ElicitRequestParams, ElicitResult, ElicitationAction, Implementation, ListRootsResult,
        ProtocolVersion,
    },
    service::RequestContext,
    transport::{StreamableHttpClientTransport, streamable_http_client::StreamableHttpClientTransportConfig},
};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::answers::{ROOT_URI, SAMPLING_REPLY, fill};

#[derive(clap::Args)]
pub struct Options {
    /// 2025-11-25 (the `initialize` handshake) or 2026-07-28 (the `Discover` lifecycle).
    #[arg(long)]
    era: String,
    #[arg(long)]
    url: Option<String>,
    #[arg(long)]
    token: Option<String>,
    #[arg(long)]
    tool: Option<String>,
    #[arg(long, default_value = "{}")]
    args: String,
    #[arg(long, default_value = "accept")]
    answer: String,
    /// Comma-separated extra capabilities: sampling, roots.
    #[arg(long, default_value = "")]
    capabilities: String,
    #[arg(long, default_value_t = 20.0)]
    timeout: f64,
}

/// The client side of one request: declares the capabilities it has and records what it was asked.
#[derive(Clone)]
struct CompatUser {
    version: ProtocolVersion,
    answer: String,
    capabilities: Vec<String>,
    asked: Arc<Mutex<Vec<Value>>>,
}

impl CompatUser {
    fn record(&self, entry: Value) {
        self.asked.lock().expect("asked list").push(entry);
    }
}

impl ClientHandler for CompatUser {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = json!({ "elicitation": { "form": {}, "url": {} } });
        if self.capabilities.iter().any(|c| c == "sampling") {
            capabilities["sampling"] = json!({});
        }
        if self.capabilities.iter().any(|c| c == "roots") {
            capabilities["roots"] = json!({ "listChanged": true });
        }
        ClientConfig::new(
            serde_json::from_value(capabilities).expect("client capabilities"),
            Implementation::new("compat-rmcp-agent", "3.11.0"),
        )
        .with_protocol_version(self.version.clone())
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let wire = serde_json::to_value(&request).unwrap_or(Value::Null);
        let result = match (self.answer.as_str(), &request) {
            ("accept", ElicitRequestParams::UrlElicitationParams { .. }) => {
                ElicitResult::new(ElicitationAction::Accept)
            }
            ("accept", ElicitRequestParams::FormElicitationParams { .. }) => {
                ElicitResult::new(ElicitationAction::Accept).with_content(fill(&wire["requestedSchema"]))
            }
            ("decline", _) => ElicitResult::new(ElicitationAction::Decline),
            _ => ElicitResult::new(ElicitationAction::Cancel),
        };
        self.record(json!({ "method": "elicitation/create", "params": wire, "answer": result }));
        Ok(result)
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.record(json!({ "method": "sampling/createMessage", "params": params }));
        serde_json::from_value(json!({
            "role": "assistant", "content": { "type": "text", "text": SAMPLING_REPLY }, "model": "compat-model"
        }))
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }

    async fn list_roots(&self, _context: RequestContext<RoleClient>) -> Result<ListRootsResult, ErrorData> {
        self.record(json!({ "method": "roots/list", "params": null }));
        serde_json::from_value(json!({ "roots": [{ "uri": ROOT_URI, "name": "compat" }] }))
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }
}

fn error(stage: &str, code: Option<i32>, message: String, data: Option<Value>) -> Value {
    json!({ "kind": "error", "stage": stage, "code": code, "message": message, "data": data })
}

fn service_error(stage: &str, e: ServiceError) -> Value {
    match e {
        ServiceError::McpError(e) => error(stage, Some(e.code.0), e.message.into_owned(), e.data),
        other => error(stage, None, other.to_string(), None),
    }
}

async fn call(user: CompatUser, request: &Value) -> Value {
    let url = request["url"].as_str().unwrap_or_default().to_owned();
    let mut config = StreamableHttpClientTransportConfig::with_uri(url);
    if let Some(token) = request["token"].as_str() {
        config = config.auth_header(token.to_owned());
    }
    let transport = StreamableHttpClientTransport::from_config(config);
    let connected = if user.version >= ProtocolVersion::V_2026_07_28 {
        let lifecycle =
            ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
        user.clone().serve_with_lifecycle(transport, lifecycle).await
    } else {
        user.clone().serve(transport).await
    };
    let client = match connected {
        Ok(client) => client,
        Err(e) => return error("connect", None, e.to_string(), None),
    };
    let mut params = CallToolRequestParams::new(request["tool"].as_str().unwrap_or_default().to_owned());
    if let Value::Object(arguments) = request["args"].clone() {
        params = params.with_arguments(arguments);
    }
    let outcome = match client.call_tool(params).await {
        Ok(result) => json!({ "kind": "result", "result": result }),
        Err(e) => service_error("call", e),
    };
    let _ = client.cancel().await;
    outcome
}

async fn run_one(version: &ProtocolVersion, request: &Value) -> Value {
    let user = CompatUser {
        version: version.clone(),
        answer: request["answer"].as_str().unwrap_or("accept").to_owned(),
        capabilities: request["capabilities"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c.as_str().map(str::to_owned))
            .collect(),
        asked: Arc::default(),
    };
    let timeout = Duration::from_secs_f64(request["timeout"].as_f64().unwrap_or(20.0));
    let outcome = match tokio::time::timeout(timeout, call(user.clone(), request)).await {
        Ok(outcome) => outcome,
        Err(_) => json!({ "kind": "timeout", "stage": "call" }),
    };
    let asked = user.asked.lock().expect("asked list").clone();
    json!({ "id": request["id"], "outcome": outcome, "asked": asked })
}

pub async fn run(options: Options) -> anyhow::Result<()> {
    let version = match options.era.as_str() {
        "2025-11-25" => ProtocolVersion::V_2025_11_25,
        "2026-07-28" => ProtocolVersion::V_2026_07_28,
        other => anyhow::bail!("--era must be 2025-11-25 or 2026-07-28, not {other}"),
    };
    if let Some(tool) = options.tool {
        let request = json!({
            "id": "cli", "url": options.url, "token": options.token, "tool": tool,
            "args": serde_json::from_str::<Value>(&options.args)?, "answer": options.answer,
            "timeout": options.timeout,
            "capabilities": options.capabilities.split(',').filter(|c| !c.is_empty()).collect::<Vec<_>>(),
        });
        println!("{}", run_one(&version, &request).await);
        return Ok(());
    }
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    while let Some(line) = lines.next_line().await? {
        if line.trim().is_empty() {
            continue;
        }
        let request: Value = serde_json::from_str(&line)?;
        println!("{}", run_one(&version, &request).await);
    }
    Ok(())
}
