//! `/mcp/{org}/{server}`: the MCP endpoint agents call, in both protocol
//! generations, with a member's API token.
//!
//! Legacy agents (2025-06-18, 2025-11-25) `initialize` and get a session
//! minted by Herald (`Mcp-Session-Id`), with its own upstream link; DELETE
//! ends it. Modern agents (2026-07-28) are served statelessly: headers and
//! `_meta` are checked on every request, and the user's link to the server is
//! shared by their modern calls. Either way the upstream server may speak
//! either generation; Herald translates, and answers elicitations itself.

pub mod call;
pub mod consent;
pub mod console;
pub mod diagnosis;
pub mod era;
pub mod idle_cache;
pub mod inbound;
pub mod meta;
pub mod parking;
pub mod relay;
pub mod sessions;
pub mod upstream;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use herald_mcp::headers::{
    MCP_METHOD, MCP_NAME, MCP_PARAM_PREFIX, MCP_PROTOCOL_VERSION, MCP_SESSION_ID, META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO, META_PROTOCOL_VERSION, decode_header_value, name_param,
};
use herald_mcp::jsonrpc::{
    HEADER_MISMATCH, INVALID_PARAMS, INVALID_REQUEST, PROTOCOL_VERSION_2025_06_18,
    PROTOCOL_VERSION_2025_11_25, PROTOCOL_VERSION_2026_07_28, UNSUPPORTED_PROTOCOL_VERSION,
};
use herald_mcp::transport::Endpoint;
use herald_mcp::{Message, RequestId};
use herald_policy::OrgPolicy;
use reqwest::header::{HeaderMap as ReqHeaderMap, HeaderName};
use serde_json::{Value, json};
use tokio::sync::{OnceCell, mpsc};
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use crate::app::AppState;
use crate::problem::ApiError;
use crate::replicas::Forget;
use crate::storage::{Server, TokenPrincipal};
use call::{Down, failure};
use idle_cache::IdleCache;
use meta::{RawObject, raw};
use upstream::{Link, LinkFor, LinkOptions};

/// The largest message an agent may POST.
pub const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// Everything a forwarded call needs to know about where it is.
#[derive(Clone)]
pub struct CallContext {
    pub state: AppState,
    pub org_id: Uuid,
    pub org_slug: String,
    pub user_id: Uuid,
    pub server: Server,
    pub policy: OrgPolicy,
    /// The tool (prompt, resource) the request names, for attribution.
    pub tool: Option<String>,
    /// The agent's progress token, if it asked for progress.
    pub progress_token: Option<Value>,
    /// The agent's request, for telemetry (set for forwarded calls).
    pub call: Option<Arc<crate::telemetry::mcp::AgentCall>>,
}

/// Herald's agent-side state: legacy sessions (in rows; this replica's links
/// for them), and modern agents' links, per user and server.
pub struct Proxy {
    http: reqwest::Client,
    limits: crate::config::UpstreamLimits,
    /// What every upstream connection together may hold of messages not yet whole.
    read_budget: Arc<herald_mcp::transport::ReadBudget>,
    calls: CallCounts,
    /// Which addresses upstream connections may reach (`crate::egress`).
    egress: crate::egress::EgressPolicy,
    pub sessions: sessions::Sessions,
    shared: Mutex<IdleCache<SharedKey, SharedLink>>,
    /// Calls waiting for their 2026-07-28 agent's retry.
    pub parking: parking::Parking,
}

/// A modern agent's link to a server, made on first use.
#[derive(Clone)]
struct SharedLink {
    org_id: Uuid,
    cell: Arc<OnceCell<Arc<Link>>>,
}

/// A modern agent's link: per user, server, and the server's last registry change.
type SharedKey = (Uuid, Uuid, i128);

/// How long a modern agents' link may go unused before this replica closes it (the next call
/// makes a fresh one, at the cost of a handshake): long enough for an agent's pauses between
/// calls, short enough that links of people who stopped do not pile up.
const SHARED_LINK_IDLE: Duration = Duration::from_secs(10 * 60);

/// How often unused links are looked for: a link goes between `SHARED_LINK_IDLE` and this much
/// more after its last use.
const SHARED_LINK_SWEEP_EVERY: Duration = Duration::from_secs(60);

/// The most modern agents' links one replica keeps: far more than its people use at once; past
/// it, the least recently used goes.
const MAX_SHARED_LINKS: usize = 10_000;

impl SharedLink {
    /// Whether anything besides the cache holds this link: a call making it (holds the cell
    /// while it connects), or a call, parked call or console request using it (holds the `Link`,
    /// from before it lets go of the cell). A legacy link's stream task holds only a weak
    /// reference, so a link nobody calls through is not in use. Counted under the cache's lock,
    /// through which alone a call gets the cell: a link found unused there, and taken out, gets
    /// no new call.
    fn in_use(&self) -> bool {
        Arc::strong_count(&self.cell) > 1 || self.cell.get().is_some_and(|link| Arc::strong_count(link) > 1)
    }

    /// Closes these links if they are legacy ones (their GET stream, their upstream session), in
    /// the background.
    fn close_in_background(links: Vec<SharedLink>) {
        if links.is_empty() {
            return;
        }
        tokio::spawn(async move {
            for shared in links {
                if let Some(Link::Legacy(link)) = shared.cell.get().map(AsRef::as_ref) {
                    link.close().await;
                }
            }
        });
    }
}

/// Calls in flight on this replica, per API token: each one holds memory and
/// an upstream connection for as long as a person takes, so a token gets a
/// bounded number of them (`HERALD_MAX_CALLS_PER_TOKEN`); and when the token
/// or its member's place in the org ends, so do its calls.
#[derive(Clone, Default)]
struct CallCounts(Arc<Mutex<HashMap<Uuid, TokenCalls>>>);

struct TokenCalls {
    count: usize,
    /// Every call of the token runs under a child of this.
    ended: CancellationToken,
    org_id: Uuid,
    user_id: Uuid,
}

/// One call's place in its token's count, given back when the call ends.
pub struct CallSlot {
    counts: CallCounts,
    token: Uuid,
    /// Cancelled when the token is revoked or its member leaves the org.
    pub ended: CancellationToken,
}

impl CallCounts {
    fn take(&self, principal: &TokenPrincipal, cap: usize) -> Option<CallSlot> {
        let mut counts = self.0.lock().expect("call counts lock");
        let calls = counts.entry(principal.token_id).or_insert_with(|| TokenCalls {
            count: 0,
            ended: CancellationToken::new(),
            org_id: principal.membership.org.id,
            user_id: principal.user.id,
        });
        if calls.count >= cap {
            return None;
        }
        calls.count += 1;
        Some(CallSlot { counts: self.clone(), token: principal.token_id, ended: calls.ended.child_token() })
    }

    /// Ends the calls of the tokens `which` picks.
    fn end(&self, which: impl Fn(&Uuid, &TokenCalls) -> bool) {
        for (_, calls) in self.0.lock().expect("call counts lock").iter().filter(|(t, c)| which(t, c)) {
            calls.ended.cancel();
        }
    }
}

impl Drop for CallSlot {
    fn drop(&mut self) {
        let mut counts = self.counts.0.lock().expect("call counts lock");
        if let Some(calls) = counts.get_mut(&self.token) {
            calls.count -= 1;
            if calls.count == 0 {
                counts.remove(&self.token);
            }
        }
    }
}

/// A place for one more call of `principal`'s token, or the refusal to send.
fn call_slot(
    state: &AppState,
    principal: &TokenPrincipal,
    id: &RequestId,
) -> Result<CallSlot, Box<Response>> {
    let cap = state.config.limits.calls_per_token;
    state.proxy.calls.take(principal, cap).ok_or_else(|| {
        let refusal = Message::error(
            Some(id.clone()),
            TOO_MANY,
            format!(
                "this API token already has {cap} calls in flight through Herald, the most allowed \
                 (HERALD_MAX_CALLS_PER_TOKEN); retry when one has finished"
            ),
        );
        let mut response = rpc(StatusCode::TOO_MANY_REQUESTS, &refusal);
        response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        Box::new(response)
    })
}

/// The JSON-RPC error code of Herald's own caps (implementation-defined range).
const TOO_MANY: i64 = -32000;

impl Proxy {
    pub fn new(limits: crate::config::UpstreamLimits, egress: &crate::egress::EgressPolicy) -> Self {
        let http = reqwest::Client::builder()
            .connect_timeout(limits.connect)
            .tcp_nodelay(true)
            .pool_idle_timeout(Duration::from_secs(90))
            // A redirect would carry the server's stored headers (an API key, say) to
            // wherever it points; reqwest strips only the standard credential headers.
            // The registered URL is the one an admin approved: a 3xx is an error.
            .redirect(reqwest::redirect::Policy::none())
            // Every resolved address is checked against the egress policy; a proxy
            // from the environment would resolve and connect unchecked.
            .dns_resolver(egress.resolver())
            .no_proxy()
            .build()
            .expect("the HTTP client builds");
        Self {
            http,
            limits,
            read_budget: herald_mcp::transport::ReadBudget::new(limits.buffer),
            egress: egress.clone(),
            calls: CallCounts::default(),
            sessions: Default::default(),
            shared: Mutex::new(IdleCache::new(MAX_SHARED_LINKS)),
            parking: Default::default(),
        }
    }

    /// Closes every upstream link this replica holds (shutting down). A
    /// legacy link's background stream holds the app state, so the state (and
    /// the database it holds) only goes once the links are closed.
    pub async fn close_all(&self) {
        self.sessions.close_all().await;
        let links = self.shared.lock().expect("links lock").drain();
        for shared in links {
            if let Some(Link::Legacy(link)) = shared.cell.get().map(AsRef::as_ref) {
                link.close().await;
            }
        }
    }

    /// Retires what a change leaves standing on a stale footing, on this
    /// replica: a revoked token's calls and sessions; a departed member's
    /// calls, sessions and links in the org; links made with a server's old
    /// registration or the org's old policy (the calls on them finish; the
    /// next call makes a fresh link).
    pub fn retire(&self, change: &Forget) {
        match change {
            Forget::CachedToken { token_id } => {
                self.calls.end(|token, _| token == token_id);
                self.sessions.shut_where(|s| s.record.token_id == Some(*token_id));
            }
            Forget::CachedMember { org_id, user_id, left: true } => {
                self.calls.end(|_, c| c.org_id == *org_id && c.user_id == *user_id);
                self.sessions.shut_where(|s| s.record.org_id == *org_id && s.record.user_id == *user_id);
                let gone = self.take_shared(|key, link| link.org_id == *org_id && key.0 == *user_id);
                SharedLink::close_in_background(gone);
            }
            Forget::CachedMember { .. } => {}
            Forget::CachedServer { org_id, server_id, .. } => {
                // Without the id (an older replica's event), every link of the org is renewed.
                let of_server =
                    |org: Uuid, server: Uuid| org == *org_id && server_id.is_none_or(|id| id == server);
                self.take_shared(|key, link| of_server(link.org_id, key.1));
                self.sessions.renew_links_where(|s| of_server(s.record.org_id, s.record.server_id));
            }
            Forget::CachedPolicy { org_id } => {
                // Links declare the org's URL-mode rule upstream: the next call declares the new one.
                self.take_shared(|_, link| link.org_id == *org_id);
                self.sessions.renew_links_where(|s| s.record.org_id == *org_id);
            }
            // A person's connection ended: nothing goes on with its token.
            Forget::CachedConnection { server_id, user_id, ended: true } => {
                let gone = self.take_shared(|key, _| key.0 == *user_id && key.1 == *server_id);
                SharedLink::close_in_background(gone);
                self.sessions
                    .renew_links_where(|s| s.record.user_id == *user_id && s.record.server_id == *server_id);
            }
            // Renewed or refused: a link with the old token meets the server's refusal and is
            // made again (`forward`).
            Forget::CachedConnection { ended: false, .. } => {}
            // Dashboard sign-ins hold no call, session or link.
            Forget::SessionEnded { .. } | Forget::SessionsEnded { .. } => {}
        }
    }

    /// Removes the shared links `which` picks; calls holding one keep it until they end.
    fn take_shared(&self, which: impl Fn(&SharedKey, &SharedLink) -> bool) -> Vec<SharedLink> {
        self.shared.lock().expect("links lock").take_where(which)
    }

    /// Closes the shared links nobody has used for `SHARED_LINK_IDLE` at `now`; a link in use
    /// stays, however long its call takes, and its idle time starts when the call lets go.
    pub fn evict_idle_links(&self, now: Instant) {
        let idle =
            self.shared.lock().expect("links lock").evict_idle(now, SHARED_LINK_IDLE, SharedLink::in_use);
        if !idle.is_empty() {
            tracing::debug!(links = idle.len(), "closing unused upstream links");
        }
        SharedLink::close_in_background(idle);
    }

    /// The person's own token for a server that wants one (`auth_mode` `oauth`): `None` for
    /// other servers; an error naming where to connect when the person has not (or their
    /// connection no longer works). A call that can wait asks the person instead (`consent`).
    pub async fn person_token(
        state: &AppState,
        org: &str,
        server: &Server,
        user_id: Uuid,
    ) -> Result<Option<String>, Message> {
        consent::token(state, org, server, user_id).await.map_err(|need| need.refusal(server, None))
    }

    fn endpoint(
        &self,
        state: &AppState,
        org: &str,
        server: &Server,
        person_token: Option<&str>,
    ) -> Result<Endpoint, Message> {
        let url = reqwest::Url::parse(&server.url)
            .map_err(|_| bad(&server.slug, "its registered URL is invalid"))?;
        if self.egress.refuses_host(&url) {
            // An address in the URL never reaches the resolver: checked here.
            let blocked = herald_mcp::connect_failure::ConnectFailure::Blocked.sentence().to_owned();
            return Err(unreachable_server(server, &herald_mcp::transport::TransportError::Connect(blocked)));
        }
        let headers = crate::lookup::headers::open(&state.keys, server).map_err(|e| {
            tracing::error!(server = %server.slug, error = %e, "cannot open the server's stored headers");
            bad(&server.slug, "its stored credentials cannot be read")
        })?;
        let mut map = ReqHeaderMap::new();
        match server.auth_mode {
            crate::domain::AuthMode::Headers => {
                for (name, value) in headers.iter() {
                    if let (Ok(n), Ok(v)) =
                        (HeaderName::from_bytes(name.as_bytes()), HeaderValue::from_str(value))
                    {
                        map.insert(n, v);
                    }
                }
            }
            crate::domain::AuthMode::None => {}
            // Without the person's token (a connection test by an admin who has not connected)
            // nothing is sent, and the server's refusal is what the test reports.
            crate::domain::AuthMode::OAuth => {
                let Some(token) = person_token else {
                    return Ok(self.finish_endpoint(org, server, url, map));
                };
                let mut value = HeaderValue::from_str(&format!("Bearer {token}"))
                    .map_err(|_| bad(&server.slug, "the person's token is not a valid header value"))?;
                value.set_sensitive(true);
                map.insert(reqwest::header::AUTHORIZATION, value);
            }
        }
        Ok(self.finish_endpoint(org, server, url, map))
    }

    fn finish_endpoint(
        &self,
        org: &str,
        server: &Server,
        url: reqwest::Url,
        headers: ReqHeaderMap,
    ) -> Endpoint {
        let observer = crate::telemetry::upstream::observer(org, &server.slug, &url);
        Endpoint::new(self.http.clone(), url, headers)
            .response_timeout(self.limits.response_headers)
            .read_budget(self.read_budget.clone())
            .observed(observer)
    }

    async fn shared_link(&self, ctx: &CallContext) -> Result<Arc<Link>, Message> {
        let token = Self::person_token(&ctx.state, &ctx.org_slug, &ctx.server, ctx.user_id).await?;
        self.shared_link_with(ctx, token).await
    }

    /// The person's shared link to the call's server, made with `token` (theirs, for a server
    /// that acts as each person) if there is none yet.
    async fn shared_link_with(&self, ctx: &CallContext, token: Option<String>) -> Result<Arc<Link>, Message> {
        self.connect_shared(ctx, token).await.map_err(|f| f.message)
    }

    /// `shared_link_with`, saying whether the server refused the person's token (recorded:
    /// `upstream_auth::token_refused`) so that the caller may try once more.
    async fn connect_shared(
        &self,
        ctx: &CallContext,
        token: Option<String>,
    ) -> Result<Arc<Link>, LinkFailure> {
        let (state, server, user_id) = (&ctx.state, &ctx.server, ctx.user_id);
        // The registry's last change is in the key: an edited server gets fresh links; so is the
        // person's token, so a renewed one gets a fresh link.
        let generation = token.as_deref().map(|t| {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            t.hash(&mut h);
            i128::from(h.finish())
        });
        let key = (user_id, server.id, server.updated_at.unix_timestamp_nanos() ^ generation.unwrap_or(0));
        let (SharedLink { cell, .. }, pushed_out) =
            self.shared.lock().expect("links lock").get_or_insert_with(key, Instant::now(), || SharedLink {
                org_id: ctx.org_id,
                cell: Arc::default(),
            });
        // Too many links: the least recently used one goes. Closed unless a call still holds it
        // (then it ends with its last call, without a DELETE upstream).
        SharedLink::close_in_background(pushed_out.into_iter().filter(|link| !link.in_use()).collect());
        let link = cell
            .get_or_try_init(|| async {
                let endpoint = self
                    .endpoint(state, &ctx.org_slug, server, token.as_deref())
                    .map_err(|message| LinkFailure { message, token_refused: false })?;
                let link =
                    match Link::connect(endpoint, LinkOptions::for_call(ctx, LinkFor::ModernAgents)).await {
                        Ok(link) => link,
                        Err(e) => return Err(LinkFailure::of(ctx, &e, token.as_deref()).await),
                    };
                link.listen(upstream::StreamContext::of(ctx));
                Ok::<_, LinkFailure>(link)
            })
            .await?;
        Ok(link.clone())
    }
}

/// A link that could not be made: what the agent is told, and whether it was because the
/// server refused the person's token (then recorded, and worth one more try).
struct LinkFailure {
    message: Message,
    token_refused: bool,
}

impl LinkFailure {
    /// `token`: the person's token the link was made with.
    async fn of(ctx: &CallContext, e: &herald_mcp::transport::TransportError, token: Option<&str>) -> Self {
        let refused = crate::upstream_auth::TokenRefused::of(&ctx.server, e);
        if let Some(refused) = &refused {
            crate::upstream_auth::token_refused(&ctx.state, &ctx.server, ctx.user_id, refused, token).await;
        }
        LinkFailure { message: unreachable_server(&ctx.server, e), token_refused: refused.is_some() }
    }
}

/// The person's shared link to the call's server, or what the request waits for first (their
/// connection). A server that refuses their token as the link starts gets it once more, renewed,
/// or the person is asked to connect again.
async fn person_upstream(ctx: &CallContext) -> Result<Upstream, Message> {
    let state = &ctx.state;
    let mut tried_again = false;
    loop {
        let token = match consent::token(state, &ctx.org_slug, &ctx.server, ctx.user_id).await {
            Ok(token) => token,
            Err(need) => return Ok(Upstream::Connecting(need)),
        };
        match state.proxy.connect_shared(ctx, token).await {
            Ok(link) => return Ok(Upstream::Linked(link)),
            Err(failure) if failure.token_refused && !tried_again => tried_again = true,
            Err(failure) => return Err(failure.message),
        }
    }
}

/// Closes the modern agents' links nobody uses, every `SHARED_LINK_SWEEP_EVERY`, for as long as
/// Herald runs.
pub fn spawn_link_sweep(state: &AppState) -> tokio::task::JoinHandle<()> {
    let state = state.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(SHARED_LINK_SWEEP_EVERY);
        loop {
            every.tick().await;
            state.proxy.evict_idle_links(Instant::now());
        }
    })
}

fn bad(slug: &str, why: &str) -> Message {
    Message::error(None, herald_mcp::jsonrpc::INTERNAL_ERROR, format!("upstream server {slug}: {why}"))
}

fn unreachable_server(server: &Server, e: &herald_mcp::transport::TransportError) -> Message {
    tracing::warn!(server = %server.slug, error = %e, "cannot connect to the upstream server");
    Message::error(
        None,
        herald_mcp::jsonrpc::INTERNAL_ERROR,
        format!("upstream server {} ({}): {e}", server.slug, server.name),
    )
}

/// The caller of an MCP request: an API token of a member of `{org}`, and
/// the server it names, which must not be cut off.
async fn admit(
    state: &AppState,
    headers: &HeaderMap,
    org: &str,
    server: &str,
    request_id: Option<&RequestId>,
) -> Result<(TokenPrincipal, Server), Response> {
    let token = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
        .filter(|t| crate::crypto::looks_like_api_token(t));
    let Some(token) = token else {
        return Err(unauthorized());
    };
    let principal = match state.lookups.token(token).await {
        Ok(Some(p)) => p,
        Ok(None) => return Err(unauthorized()),
        Err(e) => return Err(ApiError::from(e).into_response()),
    };
    if principal.membership.org.slug != org {
        return Err(ApiError::NotFound.into_response());
    }
    let org_id = principal.membership.org.id;
    let found = state.lookups.server(org_id, server).await.map_err(|e| ApiError::from(e).into_response())?;
    let Some(found) = found.map(|s| (*s).clone()) else { return Err(ApiError::NotFound.into_response()) };
    if let Some(cut) = &found.cut_off {
        let why = if cut.reason.is_empty() { String::new() } else { format!(" ({})", cut.reason) };
        let refusal = Message::error(
            request_id.cloned(),
            INVALID_REQUEST,
            format!("upstream server {} has been cut off by your organisation{why}", found.slug),
        );
        return Err(rpc(StatusCode::FORBIDDEN, &refusal));
    }
    Ok((principal, found))
}

fn unauthorized() -> Response {
    let mut response = ApiError::Unauthenticated.into_response();
    response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    response
}

/// A JSON-RPC message as an HTTP response.
fn rpc(status: StatusCode, message: &Message) -> Response {
    crate::telemetry::mcp::answered(message);
    (status, [(header::CONTENT_TYPE, "application/json")], message.to_json()).into_response()
}

pub async fn post(
    State(state): State<AppState>,
    Path((org, server)): Path<(String, String)>,
    headers: HeaderMap,
    body: Result<Bytes, axum::extract::rejection::BytesRejection>,
) -> Response {
    let body = match body {
        Ok(body) => body,
        Err(rejection) if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            let detail = format!("a message may be at most {} MiB", MAX_BODY_BYTES / (1024 * 1024));
            return crate::problem::problem_response(
                StatusCode::PAYLOAD_TOO_LARGE,
                "payload-too-large",
                "Request body too large",
                detail,
                &[],
            );
        }
        Err(rejection) => {
            let detail = format!("the request body could not be read: {}", rejection.body_text());
            return ApiError::MalformedBody { detail, errors: vec![] }.into_response();
        }
    };
    // Parsed before admission only so that a refusal can answer the request's id.
    let parsed = Message::parse(&body);
    let call = crate::telemetry::mcp::AgentCall::begin(&org, &server, &headers, parsed.as_ref().ok());
    call.run(post_call(state, org, server, headers, parsed)).await
}

async fn post_call(
    state: AppState,
    org: String,
    server: String,
    headers: HeaderMap,
    parsed: Result<Message, herald_mcp::jsonrpc::MessageError>,
) -> Response {
    let request_id = parsed.as_ref().ok().and_then(|m| m.id().cloned());
    let (principal, server) = match admit(&state, &headers, &org, &server, request_id.as_ref()).await {
        Ok(admitted) => admitted,
        Err(response) => return response,
    };
    let message = match parsed {
        Ok(m) => m,
        Err(e) => return rpc(StatusCode::BAD_REQUEST, &e.to_response()),
    };
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
    if let Some(session_id) = header(MCP_SESSION_ID) {
        return legacy_request(&state, &principal, &server, &session_id, message).await;
    }
    if message.method() == Some("initialize") {
        return initialize(&state, &principal, server, message).await;
    }
    match header(MCP_PROTOCOL_VERSION).as_deref() {
        Some(PROTOCOL_VERSION_2026_07_28) => {
            modern_request(&state, &principal, server, &headers, message).await
        }
        Some(version)
            if herald_mcp::ProtocolGeneration::of(version).is_none() && !version.starts_with("2025-") =>
        {
            let error = Message::Error {
                id: message.id().cloned(),
                error: herald_mcp::ErrorObject::new(UNSUPPORTED_PROTOCOL_VERSION, format!("protocol version {version} is not supported"))
                    .with_data(raw(&json!({
                        "supported": [PROTOCOL_VERSION_2026_07_28, PROTOCOL_VERSION_2025_11_25, PROTOCOL_VERSION_2025_06_18],
                        "requested": version,
                    }))),
            };
            rpc(StatusCode::BAD_REQUEST, &error)
        }
        _ => rpc(
            StatusCode::BAD_REQUEST,
            &Message::error(
                message.id().cloned(),
                INVALID_REQUEST,
                "send initialize first (MCP 2025-11-25 and earlier) or MCP-Protocol-Version: 2026-07-28 with _meta",
            ),
        ),
    }
}

/// Where a call happens: the caller, their org and its policy, the server.
async fn context(state: &AppState, principal: &TokenPrincipal, server: Server) -> CallContext {
    let org = &principal.membership.org;
    CallContext::new(state, org.id, &org.slug, principal.user.id, server).await
}

impl CallContext {
    /// A call by `user_id` in the org, to `server`, under the org's policy as it is now.
    pub async fn new(state: &AppState, org_id: Uuid, org_slug: &str, user_id: Uuid, server: Server) -> Self {
        CallContext {
            state: state.clone(),
            org_id,
            org_slug: org_slug.to_owned(),
            user_id,
            server,
            policy: policy(state, org_id).await,
            tool: None,
            progress_token: None,
            call: None,
        }
    }
}

impl CallContext {
    /// Whose questions this call's server asks, for the broker (`Broker::ask`), which judges
    /// each one by the membership, registration and policy in force when it arrives.
    pub fn origin(&self) -> crate::broker::question::Origin {
        crate::broker::question::Origin {
            org_id: self.org_id,
            org_slug: self.org_slug.clone(),
            user_id: self.user_id,
            server: self.server.clone(),
            tool: self.tool.clone(),
        }
    }
}

async fn policy(state: &AppState, org_id: Uuid) -> OrgPolicy {
    match state.lookups.policy(org_id).await {
        Ok(p) => p,
        Err(e) => {
            tracing::warn!(error = %e, "cannot read the org policy; using the defaults");
            OrgPolicy::default()
        }
    }
}

// --- legacy agents ------------------------------------------------------------------------

async fn initialize(
    state: &AppState,
    principal: &TokenPrincipal,
    server: Server,
    message: Message,
) -> Response {
    let Message::Request { id, params, .. } = &message else {
        return rpc(
            StatusCode::BAD_REQUEST,
            &Message::error(None, INVALID_REQUEST, "initialize must be a request"),
        );
    };
    let params: Value = params.as_ref().and_then(|p| serde_json::from_str(p.get()).ok()).unwrap_or_default();
    let asked = params.get("protocolVersion").and_then(Value::as_str).unwrap_or_default();
    let version = if asked == PROTOCOL_VERSION_2025_06_18 {
        PROTOCOL_VERSION_2025_06_18
    } else {
        PROTOCOL_VERSION_2025_11_25
    };
    // Each session may hold an upstream session and a stream: a token gets a bounded number.
    let cap = state.config.limits.sessions_per_token;
    let idle_since = time::OffsetDateTime::now_utc() - sessions::SESSION_IDLE;
    match state.store.count_agent_sessions_of_token(principal.token_id, idle_since).await {
        Ok(open) if open >= cap => {
            let refusal = Message::error(
                Some(id.clone()),
                TOO_MANY,
                format!(
                    "this API token already has {cap} sessions open with Herald, the most allowed \
                     (HERALD_MAX_SESSIONS_PER_TOKEN): end unused ones with DELETE, or let them expire \
                     after {} hours unused",
                    sessions::SESSION_IDLE.as_secs() / 3600
                ),
            );
            return rpc(StatusCode::TOO_MANY_REQUESTS, &refusal);
        }
        Ok(_) => {}
        Err(e) => return ApiError::from(e).into_response(),
    }
    let ctx = context(state, principal, server.clone()).await;
    let hello = Hello {
        id: id.clone(),
        version,
        agent: sessions::AgentHello {
            info: params.get("clientInfo").cloned(),
            capabilities: params.get("capabilities").filter(|c| c.is_object()).cloned(),
        },
    };
    let mut tried_again = false;
    loop {
        let token = match consent::token(state, &ctx.org_slug, &server, ctx.user_id).await {
            Ok(token) => token,
            // The session starts once the person has connected; until then the response is a stream.
            Err(need) => {
                // It may wait long: it holds one of the token's places for calls meanwhile.
                let slot = match call_slot(state, principal, id) {
                    Ok(slot) => slot,
                    Err(refusal) => return *refusal,
                };
                return initialize_after_connect(state, principal, ctx, hello, need, slot);
            }
        };
        match open_session(state, principal, &ctx, &hello, token, None).await {
            Ok((result, session_id)) => {
                let mut response = rpc(StatusCode::OK, &result);
                response.headers_mut().insert(
                    MCP_SESSION_ID,
                    HeaderValue::from_str(&session_id).expect("base64 is a header value"),
                );
                return response;
            }
            // The server refused the person's token: renewed (or asked for again) once.
            Err(failure) if failure.token_refused && !tried_again => tried_again = true,
            Err(failure) => return rpc(StatusCode::OK, &failure.message),
        }
    }
}

/// A legacy agent's `initialize`, as Herald answers it once the upstream link exists.
struct Hello {
    id: RequestId,
    version: &'static str,
    agent: sessions::AgentHello,
}

/// Links to the server (with the person's `token`, for a server that acts as each person) and
/// mints the agent's session (as `session_id`, when the response already named it): the
/// `initialize` result and the session's id, or the error the agent gets.
async fn open_session(
    state: &AppState,
    principal: &TokenPrincipal,
    ctx: &CallContext,
    hello: &Hello,
    token: Option<String>,
    session_id: Option<String>,
) -> Result<(Message, String), LinkFailure> {
    let server = &ctx.server;
    let endpoint = state
        .proxy
        .endpoint(state, &ctx.org_slug, server, token.as_deref())
        .map_err(|m| LinkFailure { message: readdress(m, &hello.id), token_refused: false })?;
    let capabilities = hello.agent.capabilities.as_ref();
    let link =
        match Link::connect(endpoint, LinkOptions::for_call(ctx, LinkFor::LegacyAgent(capabilities))).await {
            Ok(link) => link,
            Err(e) => {
                let failure = LinkFailure::of(ctx, &e, token.as_deref()).await;
                return Err(LinkFailure { message: readdress(failure.message, &hello.id), ..failure });
            }
        };
    link.listen(upstream::StreamContext::of(ctx));
    let (capabilities, server_info, instructions) = link.server_description().await;
    let mut result =
        json!({ "protocolVersion": hello.version, "capabilities": capabilities, "serverInfo": server_info });
    if let Some(instructions) = instructions {
        result["instructions"] = instructions;
    }
    let agent = sessions::AgentHello {
        info: hello.agent.info.clone(),
        capabilities: hello.agent.capabilities.clone(),
    };
    let session_id = session_id.unwrap_or_else(sessions::new_session_id);
    let minted = sessions::Minted { session_id, protocol_version: hello.version, agent };
    let minted = state.proxy.sessions.mint(state, principal, server, minted, link).await;
    let session_id = minted.map_err(|e| {
        tracing::error!(error = %e, "cannot record an agent session");
        LinkFailure { message: session_unrecorded(&hello.id), token_refused: false }
    })?;
    tracing::info!(server = %server.slug, user_id = %principal.user.id, "agent session started");
    Ok((Message::response(hello.id.clone(), raw(&result)), session_id))
}

fn session_unrecorded(id: &RequestId) -> Message {
    Message::error(
        Some(id.clone()),
        herald_mcp::jsonrpc::INTERNAL_ERROR,
        "the host could not record the session; try again",
    )
}

/// `initialize` by a person not connected to a server that acts as each person: the response
/// is a stream that names the session at once (its id is chosen now, and minted only when the
/// link exists) and carries keep-alives while Herald asks the person to connect
/// (`consent::wait`), then the `initialize` result, or the error saying where to connect.
fn initialize_after_connect(
    state: &AppState,
    principal: &TokenPrincipal,
    ctx: CallContext,
    hello: Hello,
    need: consent::NeedsConnect,
    slot: CallSlot,
) -> Response {
    let session_id = sessions::new_session_id();
    let (tx, rx) = mpsc::channel::<Down>(32);
    let (state, principal, id) = (state.clone(), principal.clone(), session_id.clone());
    tokio::spawn(async move {
        let cancel = CancellationToken::new();
        let last = match consent::wait(&ctx, need, herald_mcp::ProtocolGeneration::Legacy, &tx, &cancel).await
        {
            consent::Connected::Token(token) => {
                match open_session(&state, &principal, &ctx, &hello, Some(token), Some(id)).await {
                    Ok((result, _)) => result,
                    Err(failure) => failure.message,
                }
            }
            consent::Connected::Refused(message) => readdress(message, &hello.id),
            consent::Connected::Gone => return,
        };
        let _ = tx.send(Down::Message(last)).await;
        drop(slot);
    });
    let rest = futures_util::stream::poll_fn({
        let mut rx = rx;
        move |cx| rx.poll_recv(cx)
    });
    let mut response = sse(rest.boxed());
    response
        .headers_mut()
        .insert(MCP_SESSION_ID, HeaderValue::from_str(&session_id).expect("base64 is a header value"));
    response
}

fn readdress(message: Message, id: &RequestId) -> Message {
    match message {
        Message::Error { error, .. } => Message::Error { id: Some(id.clone()), error },
        other => other,
    }
}

async fn legacy_request(
    state: &AppState,
    principal: &TokenPrincipal,
    server: &Server,
    session_id: &str,
    message: Message,
) -> Response {
    let session = match state.proxy.sessions.find(state, principal, server, session_id).await {
        Ok(Some(session)) => session,
        Ok(None) => {
            return rpc(
                StatusCode::NOT_FOUND,
                &Message::error(
                    message.id().cloned(),
                    INVALID_REQUEST,
                    "unknown or expired session; initialize again",
                ),
            );
        }
        Err(e) => return ApiError::from(e).into_response(),
    };
    match message {
        Message::Request { id, method, .. } if method == "ping" => {
            rpc(StatusCode::OK, &Message::response(id, raw(&json!({}))))
        }
        Message::Request { id, method, params } => {
            let params = match RawObject::parse(params.as_deref()) {
                Ok(p) => p,
                Err(e) => return rpc(StatusCode::OK, &Message::error(Some(id), INVALID_PARAMS, e)),
            };
            let slot = match call_slot(state, principal, &id) {
                Ok(slot) => slot,
                Err(refusal) => return *refusal,
            };
            let ctx = context(state, principal, server.clone()).await;
            let link = match session.link(state, &ctx).await {
                Ok(link) => link,
                Err(m) => return rpc(StatusCode::OK, &readdress(m, &id)),
            };
            let cancel = slot.ended.child_token();
            session.in_flight.lock().expect("in-flight lock").insert(id.clone(), cancel.clone());
            let request = call::Request {
                id: id.clone(),
                method,
                params,
                agent_info: session.agent_info(),
                headers: ReqHeaderMap::new(),
                agent: era::AgentEra::Legacy,
            };
            let response =
                forward(ctx, Upstream::Linked(link), Some(session.clone()), request, cancel, slot).await;
            let session = session.clone();
            // Forget the token when the response is done (or dropped).
            finish_later(response, move || {
                session.in_flight.lock().expect("in-flight lock").remove(&id);
            })
        }
        Message::Notification { method, params } if method == "notifications/cancelled" => {
            let target = params
                .and_then(|p| serde_json::from_str::<Value>(p.get()).ok())
                .and_then(|p| p.get("requestId").and_then(RequestId::from_value));
            if let Some(target) = target {
                state.proxy.sessions.cancel(state, &session, &target);
            }
            StatusCode::ACCEPTED.into_response()
        }
        // The agent's answer to a server's request Herald relayed to it (sampling, roots).
        answer @ (Message::Response { .. } | Message::Error { id: Some(_), .. }) => {
            match state.proxy.sessions.answered(state, &session, answer).await {
                Ok(()) => StatusCode::ACCEPTED.into_response(),
                Err(why) => rpc(StatusCode::BAD_REQUEST, &Message::error(None, INVALID_REQUEST, why)),
            }
        }
        // Other notifications from the agent end here.
        _ => StatusCode::ACCEPTED.into_response(),
    }
}

/// Runs `done` once the response has been sent or abandoned.
fn finish_later(response: Response, done: impl FnOnce() + Send + 'static) -> Response {
    struct OnDrop<F: FnOnce()>(Option<F>);
    impl<F: FnOnce()> Drop for OnDrop<F> {
        fn drop(&mut self) {
            if let Some(f) = self.0.take() {
                f();
            }
        }
    }
    let (parts, body) = response.into_parts();
    let guard = OnDrop(Some(done));
    let stream = body.into_data_stream().map(move |chunk| {
        let _keep = &guard;
        chunk
    });
    Response::from_parts(parts, axum::body::Body::from_stream(stream))
}

/// A legacy agent's request on its session (GET, DELETE): admitted, and the
/// session the `Mcp-Session-Id` header names, minted for this user and server.
async fn agent_session(
    state: &AppState,
    headers: &HeaderMap,
    org: &str,
    server: &str,
) -> Result<(String, Arc<sessions::AgentSession>, TokenPrincipal, Server), Response> {
    let (principal, server) = admit(state, headers, org, server, None).await?;
    let Some(session_id) = headers.get(MCP_SESSION_ID).and_then(|v| v.to_str().ok()) else {
        return Err(StatusCode::METHOD_NOT_ALLOWED.into_response());
    };
    let found = state
        .proxy
        .sessions
        .find(state, &principal, &server, session_id)
        .await
        .map_err(|e| ApiError::from(e).into_response())?
        .ok_or_else(|| StatusCode::NOT_FOUND.into_response())?;
    Ok((session_id.to_owned(), found, principal, server))
}

/// The standalone stream of a legacy session: the upstream's notifications
/// (through this replica's link for the session).
pub async fn get(
    State(state): State<AppState>,
    Path((org, server)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    let (_, session, principal, server) = match agent_session(&state, &headers, &org, &server).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let ctx = context(&state, &principal, server).await;
    let link = match session.link(&state, &ctx).await {
        Ok(link) => link,
        Err(m) => return rpc(StatusCode::BAD_GATEWAY, &m),
    };
    let Link::Legacy(legacy) = link.as_ref() else {
        // A modern server has no standalone stream; offer one that only keeps alive.
        return sse(futures_util::stream::pending::<Down>().boxed());
    };
    let listening = legacy.notifications.subscribe();
    // A server's request that came just before the agent opened this stream was waiting for it.
    legacy.agent_listens.notify_waiters();
    let notes = futures_util::stream::unfold(listening, |mut rx| async move {
        loop {
            match rx.recv().await {
                Ok(message) => return Some((Down::Message(message), rx)),
                // A listener that fell behind skips what it missed.
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return None,
            }
        }
    });
    // The stream holds the link, so the link lives as long as someone listens.
    let notes = notes.map(move |item| {
        let _keep = &link;
        item
    });
    sse(notes.boxed())
}

/// Ends a legacy session everywhere: its in-flight calls on every replica,
/// and its upstream sessions.
pub async fn delete(
    State(state): State<AppState>,
    Path((org, server)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    let (session_id, _, _, server) = match agent_session(&state, &headers, &org, &server).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    match state.proxy.sessions.end(&state, &session_id).await {
        Ok(true) => {
            tracing::info!(server = %server.slug, "agent session ended");
            StatusCode::NO_CONTENT.into_response()
        }
        Ok(false) => StatusCode::NOT_FOUND.into_response(),
        Err(e) => ApiError::from(e).into_response(),
    }
}

// --- modern agents -------------------------------------------------------------------------

async fn modern_request(
    state: &AppState,
    principal: &TokenPrincipal,
    server: Server,
    headers: &HeaderMap,
    message: Message,
) -> Response {
    let Message::Request { id, method, params } = message else {
        // This revision defines no client notifications over HTTP; accept and drop.
        return StatusCode::ACCEPTED.into_response();
    };
    let params = match RawObject::parse(params.as_deref()) {
        Ok(p) => p,
        Err(e) => return rpc(StatusCode::BAD_REQUEST, &Message::error(Some(id), INVALID_PARAMS, e)),
    };
    let meta = params.meta();
    if let Err(mismatch) = check_modern(headers, &method, &params, &meta) {
        return rpc(StatusCode::BAD_REQUEST, &Message::error(Some(id), HEADER_MISMATCH, mismatch));
    }
    if !meta.contains_key(META_CLIENT_CAPABILITIES) {
        return rpc(
            StatusCode::BAD_REQUEST,
            &Message::error(
                Some(id),
                INVALID_PARAMS,
                format!("params._meta must carry {META_CLIENT_CAPABILITIES}"),
            ),
        );
    }
    // A retry carrying one of Herald's tickets takes a parked call back.
    if let Some(ticket) = params.string("requestState").filter(|s| parking::Parking::is_ticket(s)) {
        return take_back(state, principal, &server, id, &params, &meta, &ticket).await;
    }
    let slot = match call_slot(state, principal, &id) {
        Ok(slot) => slot,
        Err(refusal) => return *refusal,
    };
    let ctx = context(state, principal, server).await;
    // A server that acts as each person, and a person not connected there: the request waits
    // while Herald asks them to connect (`consent`).
    let upstream = match person_upstream(&ctx).await {
        Ok(upstream) => upstream,
        Err(m) => return rpc(StatusCode::OK, &readdress(m, &id)),
    };
    if method == "server/discover"
        && let Upstream::Linked(link) = &upstream
    {
        return rpc(StatusCode::OK, &discovered(link, id).await);
    }
    let mut passed = ReqHeaderMap::new();
    for (name, value) in headers {
        if name.as_str().starts_with(MCP_PARAM_PREFIX) {
            passed.insert(name.clone(), value.clone());
        }
    }
    let log_level = meta.get(era::META_LOG_LEVEL).and_then(Value::as_str).and_then(era::LogLevel::parse);
    let request = call::Request {
        id,
        method,
        params,
        agent_info: meta.get(META_CLIENT_INFO).cloned(),
        headers: passed,
        agent: era::AgentEra::Modern {
            log_level,
            can_answer: relay::CanAnswer::of(meta.get(META_CLIENT_CAPABILITIES)),
        },
    };
    let cancel = slot.ended.child_token();
    forward(ctx, upstream, None, request, cancel, slot).await
}

/// `server/discover`'s answer, from the person's link.
async fn discovered(link: &Link, id: RequestId) -> Message {
    let (capabilities, server_info, instructions) = link.server_description().await;
    let mut result = json!({
        "resultType": "complete",
        // Per user (the link is): cacheable within this authorization only.
        "ttlMs": 0,
        "cacheScope": "private",
        "supportedVersions": [PROTOCOL_VERSION_2026_07_28],
        "capabilities": capabilities,
        "_meta": { "io.modelcontextprotocol/serverInfo": server_info },
    });
    if let Some(instructions) = instructions {
        result["instructions"] = instructions;
    }
    Message::response(id, raw(&result))
}

/// A 2026-07-28 agent's retry of a call Herald parked to ask it something
/// only it can answer: the answers go to the call, and the rest of the call
/// comes back as this request's response.
async fn take_back(
    state: &AppState,
    principal: &TokenPrincipal,
    server: &Server,
    id: RequestId,
    params: &RawObject,
    meta: &serde_json::Map<String, Value>,
    ticket: &str,
) -> Response {
    let responses = params
        .get("inputResponses")
        .and_then(|r| serde_json::from_str::<serde_json::Map<String, Value>>(r.get()).ok())
        .unwrap_or_default();
    let (down, mut rx) = mpsc::channel::<Down>(32);
    let retry = parking::Resume {
        id: id.clone(),
        responses,
        down,
        progress_token: meta.get("progressToken").cloned(),
    };
    if state.proxy.parking.resume(ticket, principal.user.id, server.id, retry).is_err() {
        let gone = "requestState names a call that no longer waits: it ended, its agent took too long, or it \
                    waits on another Herald replica; call again";
        return rpc(StatusCode::OK, &Message::error(Some(id), INVALID_PARAMS, gone));
    }
    let first = rx.recv().await;
    respond_with(first, rx, &id)
}

/// The 2026-07-28 rules: headers present and equal to the body.
fn check_modern(
    headers: &HeaderMap,
    method: &str,
    params: &RawObject,
    meta: &serde_json::Map<String, Value>,
) -> Result<(), String> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let body_version = meta.get(META_PROTOCOL_VERSION).and_then(Value::as_str);
    if body_version != Some(PROTOCOL_VERSION_2026_07_28) {
        return Err(format!(
            "MCP-Protocol-Version header is {PROTOCOL_VERSION_2026_07_28} but params._meta[{META_PROTOCOL_VERSION:?}] is {body_version:?}"
        ));
    }
    match header(MCP_METHOD) {
        Some(m) if m == method => {}
        Some(m) => {
            return Err(format!("Mcp-Method header {m:?} does not match the body's method {method:?}"));
        }
        None => return Err("the Mcp-Method header is required".into()),
    }
    if let Some(key) = name_param(method) {
        let body = params.string(key);
        let given = header(MCP_NAME).map(decode_header_value);
        match (given, body) {
            (None, _) => return Err("the Mcp-Name header is required for this method".into()),
            (Some(None), _) => return Err("the Mcp-Name header is not valid base64".into()),
            (Some(Some(h)), Some(b)) if h == b => {}
            (Some(Some(h)), b) => {
                return Err(format!("Mcp-Name header {h:?} does not match the body's {key} {b:?}"));
            }
        }
    }
    Ok(())
}

// --- both ------------------------------------------------------------------------------------

/// Runs the call and answers with JSON when the upstream answered at once,
/// or with an SSE stream when there is more to say (notifications, a person
/// being asked).
///
/// The call runs on the request's own task until it says something: most
/// calls end with their answer at once, and handing them to a task of their
/// own cost a wake-up across threads per call, more than the rest of Herald's
/// work. A call with more to say (a stream) goes on in a task of its own, and
/// so does one whose agent leaves before its first word, so that it still sees
/// the agent gone and ends what it opened.
async fn forward(
    mut ctx: CallContext,
    upstream: Upstream,
    session: Option<Arc<sessions::AgentSession>>,
    request: call::Request,
    cancel: CancellationToken,
    slot: CallSlot,
) -> Response {
    ctx.tool = name_param(&request.method).and_then(|key| request.params.string(key));
    ctx.progress_token = request.params.meta().get("progressToken").cloned();
    ctx.call = crate::telemetry::mcp::current();
    let (tx, mut rx) = mpsc::channel::<Down>(32);
    let id = request.id.clone();
    let call = async move {
        let link = match upstream {
            Upstream::Linked(link) => link,
            // Boxed: a call that never needs it keeps its waiting state small.
            Upstream::Connecting(need) => {
                match Box::pin(connected_link(&ctx, need, &request, &tx, &cancel)).await {
                    Some(link) => link,
                    None => return,
                }
            }
        };
        if request.method == "server/discover" {
            let _ = tx.send(Down::Message(discovered(&link, request.id.clone()).await)).await;
            return;
        }
        // Made again, once, when the server refused the person's token on it: with the token
        // renewed, or after the person connected again (with the scopes the server wants).
        let used = link.bearer().map(str::to_owned);
        if let call::Finished::TokenRefused { refused, last } =
            call::run(&ctx, link, &request, &tx, &cancel, true).await
        {
            let state = &ctx.state;
            crate::upstream_auth::token_refused(state, &ctx.server, ctx.user_id, &refused, used.as_deref())
                .await;
            let relinked = Box::pin(relinked(&ctx, session.as_ref(), &request, &tx, &cancel)).await;
            match relinked {
                Some(link) => {
                    call::run(&ctx, link, &request, &tx, &cancel, false).await;
                }
                None if tx.is_closed() => {}
                None => {
                    let _ = tx.send(Down::Message(last)).await;
                }
            }
        }
    };
    // The token's place is held until the call ends, wherever it runs on.
    let mut running = Detach(Some(Box::pin(async move {
        call.await;
        drop(slot);
    })));
    let first = match running.step(&mut rx).await {
        Step::Finished => rx.recv().await,
        Step::Said(item) => item,
    };
    match first {
        Some(Down::Message(message @ (Message::Response { .. } | Message::Error { .. }))) => {
            // The call's last act was to send this: let it finish here.
            running.finish().await;
            rpc(StatusCode::OK, &message)
        }
        // Parked: this is the answer to this request, and the call waits elsewhere for the retry.
        Some(Down::Park(message)) => {
            running.detach();
            rpc(StatusCode::OK, &message)
        }
        first => {
            running.detach();
            respond_with(first, rx, &id)
        }
    }
}

/// The person's link again, after the server refused their token: with the token renewed, or,
/// when it cannot be, once they have connected again (`consent::wait`). `None` when that did not
/// happen (what the agent gets then is sent down, unless the agent left).
async fn relinked(
    ctx: &CallContext,
    session: Option<&Arc<sessions::AgentSession>>,
    request: &call::Request,
    down: &mpsc::Sender<Down>,
    cancel: &CancellationToken,
) -> Option<Arc<Link>> {
    let state = &ctx.state;
    let token = match consent::token(state, &ctx.org_slug, &ctx.server, ctx.user_id).await {
        Ok(token) => token,
        Err(need) => match consent::wait(ctx, need, era_of(request), down, cancel).await {
            consent::Connected::Token(token) => Some(token),
            consent::Connected::Refused(m) => {
                let _ = down.send(Down::Message(readdress(m, &request.id))).await;
                return None;
            }
            consent::Connected::Gone => return None,
        },
    };
    let linked = match session {
        Some(session) => session.relink(state, ctx, token).await,
        None => state.proxy.shared_link_with(ctx, token).await,
    };
    match linked {
        Ok(link) => Some(link),
        Err(m) => {
            let _ = down.send(Down::Message(readdress(m, &request.id))).await;
            None
        }
    }
}

fn era_of(request: &call::Request) -> herald_mcp::ProtocolGeneration {
    match request.agent {
        era::AgentEra::Modern { .. } => herald_mcp::ProtocolGeneration::Modern,
        _ => herald_mcp::ProtocolGeneration::Legacy,
    }
}

/// The upstream link a request goes through: ready, or once the person has connected.
enum Upstream {
    Linked(Arc<Link>),
    Connecting(consent::NeedsConnect),
}

/// Waits for the person to connect (`consent::wait`), then makes their link; `None` when the
/// request ends here (what it ends with has been sent down, or the agent is gone).
async fn connected_link(
    ctx: &CallContext,
    need: consent::NeedsConnect,
    request: &call::Request,
    down: &mpsc::Sender<Down>,
    cancel: &CancellationToken,
) -> Option<Arc<Link>> {
    let refusal = match consent::wait(ctx, need, era_of(request), down, cancel).await {
        consent::Connected::Token(token) => match ctx.state.proxy.shared_link_with(ctx, Some(token)).await {
            Ok(link) => return Some(link),
            Err(m) => m,
        },
        consent::Connected::Refused(m) => m,
        consent::Connected::Gone => return None,
    };
    let _ = down.send(Down::Message(readdress(refusal, &request.id))).await;
    None
}

/// The response to an agent's request whose call runs (or waits) elsewhere:
/// the first item it said, then the rest of what `rx` carries.
fn respond_with(first: Option<Down>, mut rx: mpsc::Receiver<Down>, id: &RequestId) -> Response {
    match first {
        Some(
            Down::Message(message @ (Message::Response { .. } | Message::Error { .. })) | Down::Park(message),
        ) => rpc(StatusCode::OK, &message),
        Some(first) => {
            let rest = futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx));
            sse(futures_util::stream::once(async { first }).chain(rest).boxed())
        }
        None => rpc(StatusCode::OK, &failure(id, "the call ended without a response")),
    }
}

/// A call driven by the request's task; dropped unfinished (the agent left,
/// or it has more to say), it goes on in a task of its own.
struct Detach(Option<futures_util::future::BoxFuture<'static, ()>>);

enum Step {
    Finished,
    Said(Option<Down>),
}

impl Detach {
    /// Runs the call until it finishes or says something.
    async fn step(&mut self, rx: &mut mpsc::Receiver<Down>) -> Step {
        let Some(call) = self.0.as_mut() else { return Step::Finished };
        let step = tokio::select! {
            biased;
            () = call => Step::Finished,
            item = rx.recv() => Step::Said(item),
        };
        if matches!(step, Step::Finished) {
            self.0 = None;
        }
        step
    }

    async fn finish(&mut self) {
        if let Some(call) = self.0.take() {
            call.await;
        }
    }

    fn detach(&mut self) {
        if let Some(call) = self.0.take() {
            tokio::spawn(call);
        }
    }
}

impl Drop for Detach {
    fn drop(&mut self) {
        if let Some(call) = self.0.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(call);
        }
    }
}

fn sse(items: futures_util::stream::BoxStream<'static, Down>) -> Response {
    // A parked call's `input_required` is this response's last message: the stream ends there.
    let items = items.scan(false, |parked, item| {
        let next = (!*parked).then_some(item);
        if matches!(next, Some(Down::Park(_))) {
            *parked = true;
        }
        std::future::ready(next)
    });
    let events = items.filter_map(|item| async move {
        match item {
            Down::Message(m) | Down::Park(m) => {
                Some(Ok::<_, std::convert::Infallible>(Event::default().event("message").data(m.to_json())))
            }
            Down::KeepAlive => Some(Ok(Event::default().comment("keep-alive"))),
            Down::Commit => None,
        }
    });
    let mut response = Sse::new(events)
        .keep_alive(axum::response::sse::KeepAlive::new().interval(call::KEEPALIVE_EVERY))
        .into_response();
    response.headers_mut().insert("x-accel-buffering", HeaderValue::from_static("no"));
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link() -> Arc<Link> {
        let url = reqwest::Url::parse("http://127.0.0.1:9/mcp").expect("a URL");
        Link::unconnected(Endpoint::new(reqwest::Client::new(), url, ReqHeaderMap::new()))
    }

    #[test]
    fn a_shared_link_is_in_use_while_anything_but_the_cache_holds_it() {
        let shared = SharedLink { org_id: Uuid::nil(), cell: Arc::default() };
        assert!(!shared.in_use());
        // A call connecting holds the cell…
        let connecting = shared.cell.clone();
        assert!(shared.in_use());
        // …then the link, before it lets go of the cell.
        let held = link();
        assert!(connecting.set(held.clone()).is_ok(), "the cell was empty");
        drop(connecting);
        assert!(shared.in_use());
        drop(held);
        assert!(!shared.in_use());
    }

    #[tokio::test]
    async fn idle_shared_links_go_and_links_in_use_stay() {
        let proxy = Proxy::new(Default::default(), &Default::default());
        let start = Instant::now();
        let put = |user: Uuid| {
            let make =
                || SharedLink { org_id: Uuid::nil(), cell: Arc::new(OnceCell::new_with(Some(link()))) };
            let (shared, pushed_out) =
                proxy.shared.lock().unwrap().get_or_insert_with((user, Uuid::nil(), 0), start, make);
            assert!(pushed_out.is_none());
            shared
        };
        let count = || proxy.shared.lock().unwrap().len();
        put(Uuid::new_v4());
        let held = put(Uuid::new_v4()).cell.get().cloned().expect("a link"); // a call's
        assert_eq!(count(), 2);

        proxy.evict_idle_links(start + SHARED_LINK_IDLE - Duration::from_millis(1));
        assert_eq!(count(), 2);
        proxy.evict_idle_links(start + SHARED_LINK_IDLE);
        assert_eq!(count(), 1, "the unused link goes, the one in use stays");
        drop(held);
        // Last seen in use at `start + SHARED_LINK_IDLE`: idle from then on.
        proxy.evict_idle_links(start + 2 * SHARED_LINK_IDLE - Duration::from_millis(1));
        assert_eq!(count(), 1);
        proxy.evict_idle_links(start + 2 * SHARED_LINK_IDLE);
        assert_eq!(count(), 0);
    }
}
