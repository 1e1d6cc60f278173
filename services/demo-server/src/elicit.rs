//! One way for a tool to ask the user something, whichever protocol generation the call came in.
//!
//! * Legacy sessions (2025-06-18, 2025-11-25): the question is pushed as a server→client
//!   `elicitation/create` request (rmcp sends it on the SSE stream of the `tools/call` POST) and the
//!   tool waits for the answer.
//! * 2026-07-28 (stateless): the first call returns an `input_required` result whose
//!   `inputRequests` holds the question and whose `requestState` is sealed with an HMAC bound to the
//!   tool and its arguments; the retry brings `inputResponses` and the echoed `requestState`, which is
//!   verified before the answer is trusted.

use std::time::Duration;

use rmcp::{
    ErrorData, RoleServer, ServiceError,
    model::{
        CancelledNotificationParam, ClientCapabilities, ClientResult, ElicitRequest, ElicitRequestParams,
        ElicitResult, InputRequest, InputRequests, InputRequiredResult, InputResponses, ProtocolVersion,
        RequestStateCodec, SealOptions, ServerRequest,
    },
    service::{PeerRequestOptions, RequestContext},
};
use serde::{Deserialize, Serialize};

use crate::forms::tool_error;

/// How long a legacy session waits for the user before giving up on the question.
pub const ELICITATION_TIMEOUT: Duration = Duration::from_secs(15 * 60);
/// How long a sealed `requestState` stays valid.
pub const REQUEST_STATE_TTL: Duration = Duration::from_secs(15 * 60);
/// The single client-facing message for any `requestState` that fails to open.
pub const REJECTED_STATE_MESSAGE: &str = "requestState failed verification";
/// The tool error of a tool that only works in legacy sessions, called on 2026-07-28.
pub const LEGACY_ONLY_TOOL_MESSAGE: &str = "This tool needs a legacy session (2025-06-18 or 2025-11-25): \
on 2026-07-28 a server returns its question and cannot withdraw it";

/// Which elicitation mode a question uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Form,
    Url,
}

/// The MRTR fields of a `tools/call` (both absent on a first call and on every legacy call).
#[derive(Debug, Default)]
pub struct Round {
    pub request_state: Option<String>,
    pub input_responses: Option<InputResponses>,
}

/// What became of a question.
pub enum Step {
    /// The user (or whoever speaks for them) answered: accept, decline or cancel.
    Answered(ElicitResult),
    /// 2026-07-28: the call ends here with `input_required`; the client retries with the answer.
    Suspended(InputRequiredResult),
    /// The question could not be asked or answered; a tool error to return as is.
    Failed(rmcp::model::CallToolResult),
}

/// What the sealed `requestState` carries. The tool name and arguments are bound as associated
/// data too, so a state cannot be replayed against another tool or other arguments.
#[derive(Debug, Serialize, Deserialize)]
struct SealedState {
    tool: String,
    key: String,
}

/// Legacy delivery: push `elicitation/create` and wait. If the `tools/call` itself is cancelled
/// (`notifications/cancelled` from the client) the question is withdrawn with a
/// `notifications/cancelled` of its own, as real servers do; on timeout rmcp withdraws it.
async fn push(context: &RequestContext<RoleServer>, params: ElicitRequestParams) -> Step {
    let request = ServerRequest::ElicitRequest(ElicitRequest::new(params));
    let handle = match context
        .peer
        .send_cancellable_request(request, PeerRequestOptions::with_timeout(ELICITATION_TIMEOUT))
        .await
    {
        Ok(handle) => handle,
        Err(error) => return Step::Failed(tool_error(format!("Elicitation failed: {error}"))),
    };
    let (peer, id) = (handle.peer.clone(), handle.id.clone());
    tokio::select! {
        response = handle.await_response() => match response {
            Ok(ClientResult::ElicitResult(answer)) => Step::Answered(answer),
            Ok(_) => Step::Failed(tool_error("Elicitation failed: the client answered with something else")),
            Err(ServiceError::Timeout { .. }) => {
                Step::Failed(tool_error("The question timed out before the user answered"))
            }
            Err(error) => Step::Failed(tool_error(format!("Elicitation failed: {error}"))),
        },
        _ = context.ct.cancelled() => {
            let reason = Some("the tool call was cancelled".to_owned());
            let _ = peer.notify_cancelled(CancelledNotificationParam::new(Some(id), reason)).await;
            Step::Failed(tool_error("The tool call was cancelled"))
        }
    }
}

/// What became of a question with a deadline.
pub enum Timed {
    Answered(ElicitResult),
    /// Nobody answered in time; the server withdrew the question.
    Withdrawn,
    /// The question could not be asked or answered; a tool error to return as is.
    Failed(rmcp::model::CallToolResult),
}

/// Legacy sessions only: pushes a form question and, if it is not answered within `deadline`,
/// withdraws it the way the TypeScript SDK does on its own timeout: rmcp's request timeout sends
/// `notifications/cancelled` for the question's request id, which the session layer delivers on
/// the call's SSE stream. A cancelled `tools/call` withdraws it too.
pub async fn ask_with_deadline(
    context: &RequestContext<RoleServer>,
    params: ElicitRequestParams,
    deadline: Duration,
) -> Timed {
    let version = context.protocol_version();
    if version.as_ref().is_some_and(|v| *v >= ProtocolVersion::V_2026_07_28) {
        return Timed::Failed(tool_error(LEGACY_ONLY_TOOL_MESSAGE));
    }
    if !supports(context.client_capabilities().as_ref(), Mode::Form, version.as_ref()) {
        return Timed::Failed(unavailable(Mode::Form));
    }
    let request = ServerRequest::ElicitRequest(ElicitRequest::new(params));
    let handle = match context
        .peer
        .send_cancellable_request(request, PeerRequestOptions::with_timeout(deadline))
        .await
    {
        Ok(handle) => handle,
        Err(error) => return Timed::Failed(tool_error(format!("Elicitation failed: {error}"))),
    };
    let (peer, id) = (handle.peer.clone(), handle.id.clone());
    tokio::select! {
        response = handle.await_response() => match response {
            Ok(ClientResult::ElicitResult(answer)) => Timed::Answered(answer),
            Ok(_) => Timed::Failed(tool_error("Elicitation failed: the client answered with something else")),
            Err(ServiceError::Timeout { .. }) => Timed::Withdrawn,
            Err(error) => Timed::Failed(tool_error(format!("Elicitation failed: {error}"))),
        },
        _ = context.ct.cancelled() => {
            let reason = Some("the tool call was cancelled".to_owned());
            let _ = peer.notify_cancelled(CancelledNotificationParam::new(Some(id), reason)).await;
            Timed::Failed(tool_error("The tool call was cancelled"))
        }
    }
}

/// Does the client take questions in this mode?
fn supports(
    capabilities: Option<&ClientCapabilities>,
    mode: Mode,
    version: Option<&ProtocolVersion>,
) -> bool {
    let Some(elicitation) = capabilities.and_then(|caps| caps.elicitation.as_ref()) else {
        return false;
    };
    match mode {
        // An empty `elicitation: {}` means form only (and is all 2025-06-18 knows).
        Mode::Form => elicitation.form.is_some() || elicitation.url.is_none(),
        Mode::Url => {
            elicitation.url.is_some() && version.is_some_and(|v| *v >= ProtocolVersion::V_2025_11_25)
        }
    }
}

fn unavailable(mode: Mode) -> rmcp::model::CallToolResult {
    tool_error(match mode {
        Mode::Form => "Elicitation is unavailable: the client did not declare the elicitation capability",
        Mode::Url => {
            "URL mode elicitation is unavailable: the client did not declare the elicitation.url capability"
        }
    })
}

fn binding<A: Serialize>(tool: &str, args: &A) -> Result<Vec<u8>, ErrorData> {
    let args = serde_json::to_string(args).map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
    Ok(format!("herald-demo-server/v1\n{tool}\n{args}").into_bytes())
}

/// Asks questions for the demo tools; holds the key that seals `requestState`.
pub struct Elicitor {
    codec: RequestStateCodec,
}

impl Elicitor {
    pub fn new(codec: RequestStateCodec) -> Self {
        Self { codec }
    }

    /// Asks `params` (built for the given elicitation id; empty on 2026-07-28) under the
    /// `inputRequests` key `key`.
    #[allow(clippy::too_many_arguments)]
    pub async fn ask<A: Serialize>(
        &self,
        context: &RequestContext<RoleServer>,
        tool: &str,
        args: &A,
        key: &str,
        mode: Mode,
        round: Round,
        params: impl FnOnce(String) -> ElicitRequestParams,
    ) -> Result<Step, ErrorData> {
        let version = context.protocol_version();
        let capabilities = context.client_capabilities();
        if !supports(capabilities.as_ref(), mode, version.as_ref()) {
            return Ok(Step::Failed(unavailable(mode)));
        }
        let modern = version.as_ref().is_some_and(|v| *v >= ProtocolVersion::V_2026_07_28);
        if !modern {
            let elicitation_id = match mode {
                Mode::Url => uuid::Uuid::new_v4().to_string(),
                Mode::Form => String::new(),
            };
            return Ok(push(context, params(elicitation_id)).await);
        }

        let binding = binding(tool, args)?;
        let Round { request_state, input_responses } = round;
        if let Some(state) = request_state {
            let sealed: SealedState = self
                .codec
                .open_json_with(&state, &binding)
                .map_err(|_| ErrorData::invalid_params(REJECTED_STATE_MESSAGE, None))?;
            if sealed.tool != tool || sealed.key != key {
                return Err(ErrorData::invalid_params(REJECTED_STATE_MESSAGE, None));
            }
            if let Some(answer) = input_responses.and_then(|mut responses| responses.remove(key)) {
                let answer = ElicitResult::deserialize(answer).map_err(|e| {
                    ErrorData::invalid_params(
                        format!("inputResponses.{key} is not an elicitation result: {e}"),
                        None,
                    )
                })?;
                return Ok(Step::Answered(answer));
            }
            // A retry without the answer we need: ask again rather than fail.
        }

        let state = self
            .codec
            .seal_json_with(
                &SealedState { tool: tool.to_owned(), key: key.to_owned() },
                &SealOptions::new().associated_data(&binding).ttl(REQUEST_STATE_TTL),
            )
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let mut requests = InputRequests::new();
        requests.insert(key.to_owned(), InputRequest::Elicitation(ElicitRequest::new(params(String::new()))));
        Ok(Step::Suspended(InputRequiredResult::new(Some(requests), Some(state))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn caps(value: serde_json::Value) -> ClientCapabilities {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn declared_modes_decide_what_may_be_asked() {
        let v0618 = Some(ProtocolVersion::V_2025_06_18);
        let v1125 = Some(ProtocolVersion::V_2025_11_25);
        let empty = caps(json!({"elicitation": {}}));
        assert!(supports(Some(&empty), Mode::Form, v0618.as_ref()));
        assert!(!supports(Some(&empty), Mode::Url, v1125.as_ref()));
        let both = caps(json!({"elicitation": {"form": {}, "url": {}}}));
        assert!(supports(Some(&both), Mode::Url, v1125.as_ref()));
        assert!(!supports(Some(&both), Mode::Url, v0618.as_ref()));
        let url_only = caps(json!({"elicitation": {"url": {}}}));
        assert!(!supports(Some(&url_only), Mode::Form, v1125.as_ref()));
        assert!(!supports(Some(&caps(json!({}))), Mode::Form, v1125.as_ref()));
        assert!(!supports(None, Mode::Form, v1125.as_ref()));
    }
}
