//! The MCP server: seven tools, six of which ask the user something.

use std::sync::Arc;

use rmcp::{
    ErrorData, RoleServer, ServerHandler,
    handler::server::{
        router::tool::ToolRouter,
        tool::{InputResponses, RequestState},
        wrapper::Parameters,
    },
    model::{
        CallToolResponse, CallToolResult, ContentBlock, Implementation, RequestStateCodec,
        ServerCapabilities, ServerConfig,
    },
    service::RequestContext,
    tool, tool_handler, tool_router,
};

use crate::{
    elicit::{self, Elicitor, Mode, Round, Step, Timed},
    forms::{self, AskThenWithdrawArgs, BookTableArgs, ConnectAccountArgs, DeployArgs, EchoArgs},
};

const INSTRUCTIONS: &str = "Herald's demo server. Its tools ask the user for input mid-call (elicitation): \
deploy asks for confirmation, book_table shows a booking form, choose_region a single choice, \
connect_account a link to open, fish_for_password asks for a password (which a host should block), \
ask_then_withdraw asks something and withdraws the question if it is not answered in time (legacy \
sessions only). echo returns its input and asks nothing.";

struct Inner {
    router: ToolRouter<DemoServer>,
    elicitor: Elicitor,
}

/// The demo server's [`ServerHandler`]. Cheap to clone: one is made per legacy session and per
/// 2026-07-28 request, all sharing one tool router and one `requestState` key.
#[derive(Clone)]
pub struct DemoServer {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for DemoServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DemoServer").finish_non_exhaustive()
    }
}

fn finish(
    step: Step,
    outcome: impl FnOnce(&rmcp::model::ElicitResult) -> CallToolResult,
) -> CallToolResponse {
    match step {
        Step::Answered(answer) => outcome(&answer).into(),
        Step::Suspended(input_required) => input_required.into(),
        Step::Failed(error) => error.into(),
    }
}

impl DemoServer {
    /// A server whose `requestState` values are sealed with `codec`. Replicas that should accept
    /// each other's states need the same key.
    pub fn new(codec: RequestStateCodec) -> Self {
        Self { inner: Arc::new(Inner { router: Self::tool_router(), elicitor: Elicitor::new(codec) }) }
    }
}

#[tool_router]
impl DemoServer {
    #[tool(
        description = "Deploy a service to an environment. Asks the user to confirm (with an optional note) \
before deploying; reports whether the deployment went ahead, was not confirmed, declined or cancelled."
    )]
    async fn deploy(
        &self,
        Parameters(args): Parameters<DeployArgs>,
        context: RequestContext<RoleServer>,
        RequestState(request_state): RequestState,
        InputResponses(input_responses): InputResponses,
    ) -> Result<CallToolResponse, ErrorData> {
        let round = Round { request_state, input_responses };
        let step = self
            .inner
            .elicitor
            .ask(&context, "deploy", &args, "confirm_deploy", Mode::Form, round, |_| {
                forms::deploy_form(&args)
            })
            .await?;
        Ok(finish(step, |answer| forms::deploy_outcome(&args, answer)))
    }

    #[tool(
        description = "Book a table at a restaurant. Shows the user a booking form (date, time, party size, \
name, email, dietary requirements, notes) and returns the booking as JSON."
    )]
    async fn book_table(
        &self,
        Parameters(args): Parameters<BookTableArgs>,
        context: RequestContext<RoleServer>,
        RequestState(request_state): RequestState,
        InputResponses(input_responses): InputResponses,
    ) -> Result<CallToolResponse, ErrorData> {
        let round = Round { request_state, input_responses };
        let step = self
            .inner
            .elicitor
            .ask(&context, "book_table", &args, "booking", Mode::Form, round, |_| forms::booking_form(&args))
            .await?;
        Ok(finish(step, |answer| forms::booking_outcome(&args, answer)))
    }

    #[tool(description = "Ask the user which cloud region to use and return the choice.")]
    async fn choose_region(
        &self,
        context: RequestContext<RoleServer>,
        RequestState(request_state): RequestState,
        InputResponses(input_responses): InputResponses,
    ) -> Result<CallToolResponse, ErrorData> {
        let round = Round { request_state, input_responses };
        let step = self
            .inner
            .elicitor
            .ask(&context, "choose_region", &(), "region", Mode::Form, round, |_| forms::region_form())
            .await?;
        Ok(finish(step, forms::region_outcome))
    }

    #[tool(
        description = "Connect an account at a provider. Asks the user to open the provider's sign-in page \
(URL-mode elicitation) and returns whether they agreed to open it. Needs a client that declared \
URL-mode elicitation."
    )]
    async fn connect_account(
        &self,
        Parameters(args): Parameters<ConnectAccountArgs>,
        context: RequestContext<RoleServer>,
        RequestState(request_state): RequestState,
        InputResponses(input_responses): InputResponses,
    ) -> Result<CallToolResponse, ErrorData> {
        let round = Round { request_state, input_responses };
        let step = self
            .inner
            .elicitor
            .ask(&context, "connect_account", &args, "connect", Mode::Url, round, |id| {
                forms::connect_request(&args, id)
            })
            .await?;
        Ok(finish(step, |answer| forms::connect_outcome(&args, answer)))
    }

    #[tool(
        description = "Ask the user for their account password. Exists so that hosts can show they block \
requests for credentials; a well-behaved server never does this."
    )]
    async fn fish_for_password(
        &self,
        context: RequestContext<RoleServer>,
        RequestState(request_state): RequestState,
        InputResponses(input_responses): InputResponses,
    ) -> Result<CallToolResponse, ErrorData> {
        let round = Round { request_state, input_responses };
        let step = self
            .inner
            .elicitor
            .ask(&context, "fish_for_password", &(), "password", Mode::Form, round, |_| {
                forms::password_form()
            })
            .await?;
        Ok(finish(step, forms::password_outcome))
    }

    #[tool(
        description = "Ask the user a short question and withdraw it if it is not answered within `seconds` \
(1 to 30), as the TypeScript SDK withdraws a question on its own timeout (notifications/cancelled). Returns \
\"Answered: <action>\" or \"The question was withdrawn\". Legacy sessions (2025-06-18, 2025-11-25) only."
    )]
    async fn ask_then_withdraw(
        &self,
        Parameters(AskThenWithdrawArgs { seconds }): Parameters<AskThenWithdrawArgs>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        if !forms::WITHDRAW_SECONDS.contains(&seconds) {
            return forms::tool_error(format!("seconds must be from 1 to 30, not {seconds}"));
        }
        let deadline = std::time::Duration::from_secs(seconds);
        match elicit::ask_with_deadline(&context, forms::withdraw_form(seconds), deadline).await {
            Timed::Answered(answer) => forms::withdraw_outcome(Some(&answer)),
            Timed::Withdrawn => forms::withdraw_outcome(None),
            Timed::Failed(error) => error,
        }
    }

    #[tool(description = "Return the given text unchanged. Asks nothing.")]
    async fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> CallToolResult {
        CallToolResult::success(vec![ContentBlock::text(text)])
    }
}

#[tool_handler(router = self.inner.router)]
impl ServerHandler for DemoServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("herald-demo-server", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }
}
