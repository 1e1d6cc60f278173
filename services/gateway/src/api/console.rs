//! The dashboard's "try a tool" console and an admin's connection test.
//!
//! Console calls go through the caller's own link to the server, exactly as
//! an agent's would: the server's questions arrive in the caller's inbox and
//! the org's policy applies. The HTTP request stays open until the tool
//! returns (a person may be answering); closing it ends the call.

use axum::Json;
use axum::extract::{Path, State};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::auth::OrgAccess;
use super::json::ValidJson;
use crate::app::AppState;
use crate::problem::{ApiError, ApiResult};
use crate::proxy::console::{self, ConnectionReport, ConsoleCaller, ConsoleError};
use crate::storage::Server;

/// More pages than this of tools/list is a server misbehaving.
const MAX_TOOL_PAGES: usize = 20;
const MAX_TOOL_NAME: usize = 256;

#[derive(Serialize)]
pub struct ToolList {
    tools: Vec<ListedTool>,
}

#[derive(Serialize)]
pub struct ListedTool {
    /// The tool as the server described it (name, title, description,
    /// inputSchema, …): data for the console to render as text, never markup.
    tool: Value,
    /// Its input schema as a flat form, when it fits the elicitation subset
    /// (the console then shows the same controls as the inbox); `null`
    /// otherwise, and the console takes the arguments as JSON.
    form: Option<herald_mcp::RequestedSchema>,
}

/// `GET /api/v1/orgs/{org}/servers/{slug}/tools`
pub async fn tools(
    State(state): State<AppState>,
    access: OrgAccess,
    Path((_, slug)): Path<(String, String)>,
) -> ApiResult<Json<ToolList>> {
    let server = usable_server(&state, &access, &slug).await?;
    let member = member(&access);
    let mut tools = Vec::new();
    let mut cursor: Option<Value> = None;
    for _ in 0..MAX_TOOL_PAGES {
        let params = match cursor.take() {
            Some(c) => json!({ "cursor": c }),
            None => json!({}),
        };
        let page = console::request(&state, &member, server.clone(), "tools/list", params)
            .await
            .map_err(|e| upstream_error(&server, e))?;
        if let Some(found) = page.get("tools").and_then(Value::as_array) {
            tools.extend(found.iter().filter(|t| t.get("name").is_some_and(Value::is_string)).map(|tool| {
                let form = tool.get("inputSchema").and_then(|s| herald_mcp::parse_requested_schema(s).ok());
                ListedTool { tool: tool.clone(), form }
            }));
        }
        match page.get("nextCursor") {
            Some(next @ Value::String(_)) => cursor = Some(next.clone()),
            _ => return Ok(Json(ToolList { tools })),
        }
    }
    Err(ApiError::Upstream(format!(
        "upstream server {}: tools/list returned more than {MAX_TOOL_PAGES} pages",
        server.slug
    )))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallBody {
    name: String,
    #[serde(default)]
    arguments: Map<String, Value>,
}

#[derive(Serialize)]
pub struct CallOutcome {
    /// The server's CallToolResult as it sent it (`isError` included).
    result: Value,
}

/// `POST /api/v1/orgs/{org}/servers/{slug}/tools/call`
pub async fn call_tool(
    State(state): State<AppState>,
    access: OrgAccess,
    Path((_, slug)): Path<(String, String)>,
    ValidJson(body): ValidJson<CallBody>,
) -> ApiResult<Json<CallOutcome>> {
    if body.name.trim().is_empty() || body.name.len() > MAX_TOOL_NAME {
        return Err(ApiError::field("name", format!("must be 1 to {MAX_TOOL_NAME} characters")));
    }
    let server = usable_server(&state, &access, &slug).await?;
    let params = json!({ "name": body.name, "arguments": body.arguments });
    let result = console::request(&state, &member(&access), server.clone(), "tools/call", params)
        .await
        .map_err(|e| upstream_error(&server, e))?;
    Ok(Json(CallOutcome { result }))
}

/// `POST /api/v1/orgs/{org}/servers/{slug}/test` (admins)
pub async fn test_connection(
    State(state): State<AppState>,
    access: OrgAccess,
    Path((_, slug)): Path<(String, String)>,
) -> ApiResult<Json<ConnectionReport>> {
    access.require_admin()?;
    // A cut-off server may be tested: that is how an admin decides to restore it.
    let server = state.store.server(access.org_id(), &slug).await?.ok_or(ApiError::NotFound)?;
    let org = &access.membership.org.slug;
    let token =
        crate::proxy::Proxy::person_token(&state, org, &server, access.user().id).await.ok().flatten();
    Ok(Json(console::test_connection(&state, org, &server, token.as_deref()).await))
}

/// The server, unless it does not exist or is cut off.
async fn usable_server(state: &AppState, access: &OrgAccess, slug: &str) -> ApiResult<Server> {
    let server = state.store.server(access.org_id(), slug).await?.ok_or(ApiError::NotFound)?;
    if server.cut_off.is_some() {
        return Err(ApiError::Forbidden("this server has been cut off by your organisation"));
    }
    Ok(server)
}

fn member(access: &OrgAccess) -> ConsoleCaller {
    ConsoleCaller {
        org_id: access.org_id(),
        org_slug: access.membership.org.slug.clone(),
        user_id: access.user().id,
    }
}

fn upstream_error(server: &Server, e: ConsoleError) -> ApiError {
    match e {
        // Herald's own refusals (policy, unreachable) already name the server.
        ConsoleError::Rpc { message, .. } if message.contains(&server.slug) => ApiError::Upstream(message),
        ConsoleError::Rpc { code, message } => ApiError::Upstream(format!(
            "upstream server {} answered with error {code}: {message}",
            server.slug
        )),
        ConsoleError::TimedOut => ApiError::UpstreamTimeout(format!(
            "upstream server {} did not finish within {} minutes",
            server.slug,
            console::CONSOLE_CALL_LIMIT.as_secs() / 60
        )),
    }
}
