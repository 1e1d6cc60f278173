//! rmcp servers that speak one protocol era only, configured the way rmcp documents it.
//!
//! * `--only legacy`: `ServerHandler::supported_protocol_versions` lists 2025-11-25 and 2025-06-18;
//!   the default `StreamableHttpServerConfig` (legacy sessions). Questions are pushed
//!   (`Peer::create_elicitation`, sent on the call's stream); `need_url` fails with -32042.
//! * `--only modern`: `supported_protocol_versions` lists 2026-07-28 only;
//!   `legacy_session_mode: false` and `stateless_protocol_metadata_required: true`. Questions are
//!   returned as `input_required` results and answered by the retry's `inputResponses`.
//!
//! Every eliciting tool reports what the server received as `action=… content={…}`, the line the
//! compatibility harness reads.

use std::{
    borrow::Cow,
    collections::{BTreeMap, HashSet},
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
};

use rmcp::{
    ErrorData, RoleServer, ServerHandler,
    handler::server::{
        router::tool::ToolRouter,
        tool::{InputResponses, RequestState},
        wrapper::Parameters,
    },
    model::{
        CallToolResponse, CallToolResult, ContentBlock, ElicitRequest, ElicitRequestParams, ElicitResult,
        ErrorCode, Implementation, InputRequest, InputRequests, InputRequiredResult, ProtocolVersion,
        ServerCapabilities, ServerConfig,
    },
    service::RequestContext,
    tool, tool_handler, tool_router,
    transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    },
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

const LEGACY_VERSIONS: &[ProtocolVersion] = &[ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2025_06_18];
const MODERN_VERSIONS: &[ProtocolVersion] = &[ProtocolVersion::V_2026_07_28];
/// The `inputRequests` key of the modern server's one question, and the state it sends with it.
const QUESTION_KEY: &str = "trip";
const REQUEST_STATE: &str = "compat-rmcp-round-1";

#[derive(clap::Args)]
pub struct Options {
    /// Which era this server speaks: legacy (2025-11-25, 2025-06-18) or modern (2026-07-28).
    #[arg(long, value_parser = ["legacy", "modern"])]
    only: String,
    #[arg(long, default_value = "127.0.0.1:0")]
    listen: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct EchoArgs {
    /// The text to return.
    text: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct DestinationArgs {
    /// Where the trip goes.
    destination: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct UrlArgs {
    /// The page the user is asked to open.
    url: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct KeyArgs {
    /// Identifies the call: the first call with a key fails with -32042, the next one succeeds.
    key: String,
}

#[derive(Clone)]
pub struct CompatServer {
    modern: bool,
    router: ToolRouter<CompatServer>,
    authorized: Arc<Mutex<HashSet<String>>>,
    next_id: Arc<AtomicU64>,
}

fn trip_form(destination: &str) -> ElicitRequestParams {
    serde_json::from_value(json!({
        "mode": "form",
        "message": format!("Plan the trip to {destination} (rmcp)?"),
        "requestedSchema": {
            "type": "object",
            "properties": {
                "traveller": { "type": "string", "title": "Traveller", "description": "Who travels" },
                "nights": { "type": "integer", "title": "Nights", "minimum": 1, "maximum": 14, "default": 2 },
                "seat": { "type": "string", "title": "Seat", "enum": ["aisle", "window"], "default": "aisle" },
                "insurance": { "type": "boolean", "title": "Travel insurance", "default": false }
            },
            "required": ["traveller"]
        }
    }))
    .expect("a valid form")
}

fn describe(answer: &ElicitResult) -> CallToolResult {
    let action = serde_json::to_value(&answer.action).unwrap_or(Value::Null);
    let action = action.as_str().unwrap_or("unknown");
    let text = match &answer.content {
        // A BTreeMap sorts the keys, as the other servers of the matrix do.
        Some(Value::Object(content)) => {
            let sorted: BTreeMap<_, _> = content.iter().collect();
            format!("action={action} content={}", serde_json::to_string(&sorted).unwrap_or_default())
        }
        _ => format!("action={action}"),
    };
    CallToolResult::success(vec![ContentBlock::text(text)])
}

fn tool_error(message: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

impl CompatServer {
    fn new(modern: bool) -> Self {
        Self { modern, router: Self::tool_router(), authorized: Arc::default(), next_id: Arc::default() }
    }

    /// Asks one question the way this server's era allows: pushed, or returned as `input_required`.
    async fn ask(
        &self,
        context: &RequestContext<RoleServer>,
        params: ElicitRequestParams,
        input_responses: Option<rmcp::model::InputResponses>,
    ) -> Result<CallToolResponse, ErrorData> {
        if !self.modern {
            return Ok(match context.peer.create_elicitation(params).await {
                Ok(answer) => describe(&answer).into(),
                Err(e) => tool_error(format!("elicitation failed: {e}")).into(),
            });
        }
        if let Some(answer) = input_responses.and_then(|mut responses| responses.remove(QUESTION_KEY)) {
            let answer = ElicitResult::deserialize(answer).map_err(|e| {
                ErrorData::invalid_params(
                    format!("inputResponses.{QUESTION_KEY} is not an elicitation result: {e}"),
                    None,
                )
            })?;
            return Ok(describe(&answer).into());
        }
        let mut requests = InputRequests::new();
        requests.insert(QUESTION_KEY.to_owned(), InputRequest::Elicitation(ElicitRequest::new(params)));
        Ok(InputRequiredResult::new(Some(requests), Some(REQUEST_STATE.to_owned())).into())
    }
}

#[tool_router]
impl CompatServer {
    #[tool(description = "Return the text unchanged. Asks nothing.")]
    async fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> CallToolResult {
        CallToolResult::success(vec![ContentBlock::text(text)])
    }

    #[tool(description = "Ask the user for trip preferences (a form) and report what the server received.")]
    async fn ask_form(
        &self,
        Parameters(DestinationArgs { destination }): Parameters<DestinationArgs>,
        context: RequestContext<RoleServer>,
        RequestState(_state): RequestState,
        InputResponses(input_responses): InputResponses,
    ) -> Result<CallToolResponse, ErrorData> {
        self.ask(&context, trip_form(&destination), input_responses).await
    }

    #[tool(description = "Ask the user to open a page (URL mode) and report the answer.")]
    async fn ask_url(
        &self,
        Parameters(UrlArgs { url }): Parameters<UrlArgs>,
        context: RequestContext<RoleServer>,
        RequestState(_state): RequestState,
        InputResponses(input_responses): InputResponses,
    ) -> Result<CallToolResponse, ErrorData> {
        // 2026-07-28 has no elicitationId; rmcp leaves it empty there.
        let id = if self.modern {
            String::new()
        } else {
            format!("rmcp-{}", self.next_id.fetch_add(1, Ordering::Relaxed))
        };
        let params = ElicitRequestParams::UrlElicitationParams {
            meta: None,
            message: "Open this page to link your account (rmcp).".to_owned(),
            url,
            elicitation_id: id,
        };
        self.ask(&context, params, input_responses).await
    }

    #[tool(description = "Fail with -32042 (URL elicitation required) until the same key is retried.")]
    async fn need_url(
        &self,
        Parameters(KeyArgs { key }): Parameters<KeyArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        if self.authorized.lock().expect("authorized keys").remove(&key) {
            return Ok(CallToolResult::success(vec![ContentBlock::text(format!("authorized {key}"))]));
        }
        self.authorized.lock().expect("authorized keys").insert(key.clone());
        let id = format!("rmcp-{}", self.next_id.fetch_add(1, Ordering::Relaxed));
        let elicitation = json!({
            "mode": "url", "message": "Authorise access first (rmcp).",
            "url": format!("https://example.com/rmcp/authorize/{key}"), "elicitationId": id
        });
        Err(ErrorData::new(
            ErrorCode(-32042),
            "URL elicitation required",
            Some(json!({ "elicitations": [elicitation] })),
        ))
    }
}

#[tool_handler(router = self.router)]
impl ServerHandler for CompatServer {
    fn get_info(&self) -> ServerConfig {
        let name = if self.modern { "compat-rmcp-modern" } else { "compat-rmcp-legacy" };
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(name, "3.11.0"))
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(if self.modern { MODERN_VERSIONS } else { LEGACY_VERSIONS })
    }
}

pub async fn run(options: Options) -> anyhow::Result<()> {
    let modern = options.only == "modern";
    let mut config = StreamableHttpServerConfig::default();
    if modern {
        config = config.with_legacy_session_mode(false);
        config.stateless_protocol_metadata_required = true;
    }
    let handler = CompatServer::new(modern);
    let service = StreamableHttpService::new(
        move || Ok(handler.clone()),
        LocalSessionManager::default().into(),
        config,
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(&options.listen).await?;
    println!("READY {}", listener.local_addr()?);
    axum::serve(listener, router).await?;
    Ok(())
}
