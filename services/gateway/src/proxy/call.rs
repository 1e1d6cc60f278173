//! One agent request carried to the upstream server and back.
//!
//! Notifications from the server flow to the agent as they come. When the
//! server asks the user something — pushed on a legacy stream, or returned
//! as a modern `input_required` result — the call stays open while the
//! broker shows the question; the agent is kept waiting with progress
//! notifications or SSE keep-alives, and the answer goes upstream (a POSTed
//! response, or a retry with `inputResponses` and the byte-exact
//! `requestState`). Whatever ends the call early — the agent leaving, the
//! server vanishing — also ends the elicitations it opened, for the record.
//!
//! A suspended call is a future held for as long as a person takes to answer,
//! thousands at once: the rarer, larger steps inside it (admitting a question,
//! ending one, answering the server) are boxed where they are awaited, so that
//! the state kept while waiting stays a few kilobytes (docs/performance.md). The
//! waits themselves are boxed too: a `FuturesUnordered` keeps a spare slot the
//! size of its future type.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use futures_util::stream::FuturesUnordered;
use futures_util::{FutureExt, StreamExt};
use herald_mcp::jsonrpc::{INTERNAL_ERROR, INVALID_PARAMS, URL_ELICITATION_REQUIRED};
use herald_mcp::transport::{MessageStream, Reply, TransportError};
use herald_mcp::{ElicitAction, ElicitationMode, Message, ProtocolGeneration, RequestId};
use reqwest::header::HeaderMap;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use super::CallContext;
use super::era::{self, AgentEra};
use super::inbound::{Asks, FromServer, asks, classify, url_elicitation_id};
use super::meta::{RawObject, raw};
use super::relay;
use super::upstream::{LegacyLink, Link, ModernLink};
use crate::broker::events::{AskingServer, ServerEvent};
use crate::broker::question::{Question, Refused};
use crate::domain::outcome::{DecidedBy, Reason};

/// How often a waiting agent hears from Herald while a person decides.
pub const KEEPALIVE_EVERY: Duration = Duration::from_secs(10);
/// How long an upstream stream may stay silent while nobody is answering.
pub const UPSTREAM_IDLE: Duration = Duration::from_secs(300);
/// Retries of one modern request that keeps asking for input.
pub const MAX_INPUT_ROUNDS: usize = 10;

/// What the agent receives, in order.
pub enum Down {
    /// A message for the agent: a notification, or the final response.
    Message(Message),
    /// Nothing to say yet; keep the connection warm.
    KeepAlive,
    /// Start streaming now (a person is being asked; this will take a while).
    Commit,
    /// The last message of this response, though the call goes on: a
    /// 2026-07-28 agent was handed what only it can answer (`input_required`)
    /// and the call waits, parked, for its retry (`parking`).
    Park(Message),
}

/// The agent's request, as Herald will forward it.
pub struct Request {
    pub id: RequestId,
    pub method: String,
    pub params: RawObject,
    /// The agent's `clientInfo`, passed on to modern servers.
    pub agent_info: Option<Value>,
    /// Headers to pass on (`Mcp-Param-*`).
    pub headers: HeaderMap,
    /// The era the agent speaks: what the server sends is made fit for it.
    pub agent: AgentEra,
}

/// How a call ended.
pub enum Finished {
    /// Its last message has been sent down (or the agent is gone).
    Sent,
    /// A server that acts as each person refused the person's token on the request itself,
    /// before doing anything (`401`, `403 insufficient_scope`): nothing was sent down of it,
    /// and it may be made again with a renewed token. `last` is what the agent gets otherwise.
    TokenRefused { refused: crate::upstream_auth::TokenRefused, last: Message },
}

/// Runs the call; the final message (if the agent is still there) is the last thing sent down,
/// except where `retry` allows a request the server refused for the person's token to end as
/// `Finished::TokenRefused`, for the caller to make again.
pub async fn run(
    ctx: &CallContext,
    link: std::sync::Arc<Link>,
    request: &Request,
    down: &mpsc::Sender<Down>,
    cancel: &CancellationToken,
    retry: bool,
) -> Finished {
    let call = ctx.call.clone();
    crate::telemetry::mcp::relay(call.clone(), async move {
        let upstream = link.generation();
        let mut relay = Relay {
            ctx,
            down: down.clone(),
            cancel: cancel.clone(),
            progress: 0.0,
            upstream,
            request,
            agent_id: request.id.clone(),
            progress_token: ctx.progress_token.clone(),
            refused: None,
            retryable: retry,
        };
        let last = match link.as_ref() {
            Link::Legacy(l) => relay.legacy(l, request).await,
            Link::Modern(m) => relay.modern(m, request).await,
        };
        if let (Some(refused), Some(last)) = (relay.refused.take(), &last) {
            return Finished::TokenRefused { refused, last: last.clone() };
        }
        let last = last.and_then(|m| era::to_agent(m, &request.agent, upstream, &request.method));
        // Counted before the agent can see the answer.
        match (&call, &last) {
            (Some(call), Some(message)) => call.answered(message),
            (Some(call), None) => call.abandoned(),
            (None, _) => {}
        }
        if let Some(message) = last {
            let _ = relay.down.send(Down::Message(message)).await;
        }
        Finished::Sent
    })
    .await
}

struct Relay<'a> {
    ctx: &'a CallContext,
    /// To the agent: the response to its request (or, once a parked call is
    /// taken back, to its retry).
    down: mpsc::Sender<Down>,
    cancel: CancellationToken,
    /// The highest progress the agent has seen for its token.
    progress: f64,
    /// The server's era, and the agent's request (whose era the agent speaks).
    upstream: ProtocolGeneration,
    request: &'a Request,
    /// The id the agent's answer carries: its request's, or its retry's.
    agent_id: RequestId,
    progress_token: Option<Value>,
    /// Set when the server refused the person's token on the request, while `retryable`.
    refused: Option<crate::upstream_auth::TokenRefused>,
    /// Whether a refused token may still end the call for a retry: nothing has been asked
    /// or relayed on it yet.
    retryable: bool,
}

/// The agent has gone or cancelled.
struct Gone;

impl Relay<'_> {
    async fn gone(&self) {
        tokio::select! {
            () = self.down.closed() => {},
            () = self.cancel.cancelled() => {},
        }
    }

    /// Sends what the server said, made fit for the agent's era (or nothing,
    /// when that era has no place for it).
    async fn send(&mut self, item: Down) -> Result<(), Gone> {
        let item = match item {
            Down::Message(message) => {
                match era::to_agent(message, &self.request.agent, self.upstream, &self.request.method) {
                    Some(message) => Down::Message(message),
                    None => return Ok(()),
                }
            }
            other => other,
        };
        if let Down::Message(Message::Notification { method, params }) = &item
            && method == "notifications/progress"
            && let Some(p) = params.as_ref().and_then(|p| serde_json::from_str::<Value>(p.get()).ok())
            && let Some(progress) = p.get("progress").and_then(Value::as_f64)
        {
            self.progress = self.progress.max(progress);
        }
        self.down.send(item).await.map_err(|_| Gone)
    }

    /// Progress for an agent that asked for it, a keep-alive otherwise.
    async fn keep_alive(&mut self) -> Result<(), Gone> {
        match self.progress_token.clone() {
            Some(token) => {
                self.progress += 1.0;
                let params = json!({
                    "progressToken": token,
                    "progress": self.progress,
                    "message": format!("Waiting for a person to answer {}", self.ctx.server.name),
                });
                let note = Message::notification("notifications/progress", Some(raw(&params)));
                self.down.send(Down::Message(note)).await.map_err(|_| Gone)
            }
            None => self.down.send(Down::KeepAlive).await.map_err(|_| Gone),
        }
    }

    /// The request itself failed: a refused token is noted (while the call may be retried).
    fn request_failed(&mut self, e: &TransportError) -> Message {
        if self.retryable {
            self.refused = crate::upstream_auth::TokenRefused::of(&self.ctx.server, e);
        }
        self.upstream_error(e)
    }

    fn upstream_error(&self, e: &TransportError) -> Message {
        tracing::warn!(server = %self.ctx.server.slug, error = %e, "upstream request failed");
        failure(
            &self.agent_id,
            &format!("upstream server {} ({}): {e}", self.ctx.server.slug, self.ctx.server.name),
        )
    }

    async fn end_all(&self, open: impl Iterator<Item = Uuid>, by: DecidedBy, why: Reason) {
        self.ctx.state.broker.end_all(open, by, why).await;
    }

    // --- legacy servers: elicitations pushed on the call's stream -------------------------

    /// A legacy call, retried once after the user has been through the URL
    /// elicitations of a -32042 "URL elicitation required" error (2025-11-25).
    async fn legacy(&mut self, link: &LegacyLink, request: &Request) -> Option<Message> {
        let first = self.legacy_once(link, request).await?;
        let Message::Error { error, .. } = &first else { return Some(first) };
        if error.code != URL_ELICITATION_REQUIRED {
            return Some(first);
        }
        let required: Vec<Value> = error
            .data
            .as_ref()
            .and_then(|d| serde_json::from_str::<Value>(d.get()).ok())
            .and_then(|d| d.get("elicitations").and_then(Value::as_array).cloned())
            .unwrap_or_default();
        if required.is_empty() {
            return Some(first);
        }
        // The person is asked: the call is no longer one to make again from the start.
        self.retryable = false;
        let mut waiting = FuturesUnordered::new();
        let mut open = Vec::new();
        let origin = self.ctx.origin();
        for params in &required {
            let params = raw(params);
            // Only URL elicitations can satisfy -32042; anything else ends the attempt.
            let question =
                Question::from_server(ProtocolGeneration::Legacy, Some(&params)).only(ElicitationMode::Url);
            match Box::pin(self.ctx.state.broker.ask(&origin, question)).await {
                Ok(waiter) => {
                    open.push(waiter.id);
                    waiting.push(waiter.ended().boxed());
                }
                Err(_) => {
                    self.end_all(open.iter().copied(), DecidedBy::System, Reason::Interrupted).await;
                    return Some(first);
                }
            }
        }
        if self.send(Down::Commit).await.is_err() {
            self.end_all(open.iter().copied(), DecidedBy::Caller, Reason::CallerCancelled).await;
            return None;
        }
        let mut all_accepted = true;
        let mut keepalive = tokio::time::interval(KEEPALIVE_EVERY);
        keepalive.reset();
        while !waiting.is_empty() {
            tokio::select! {
                () = self.gone() => {
                    self.end_all(open.iter().copied(), DecidedBy::Caller, Reason::CallerCancelled).await;
                    return None;
                }
                Some(ended) = waiting.next() => {
                    all_accepted &= ended.outcome.is_some_and(|o| o.action == ElicitAction::Accept);
                }
                _ = keepalive.tick() => {
                    let _ = self.keep_alive().await;
                }
            }
        }
        if !all_accepted {
            return Some(first); // the user did not go through them: the server's own error stands
        }
        self.legacy_once(link, request).await
    }

    async fn legacy_once(&mut self, link: &LegacyLink, request: &Request) -> Option<Message> {
        let upstream_id = link.next_id();
        let params = legacy_params(&request.params);
        let message = Message::request(upstream_id.clone(), &request.method, Some(params.to_raw()));
        let reply = tokio::select! {
            reply = link.post(&message) => reply,
            () = self.gone() => return None,
        };
        match reply {
            Err(e) => Some(self.request_failed(&e)),
            Ok(Reply::Message(m)) => Some(self.legacy_answer(m)),
            Ok(Reply::Accepted) => {
                Some(failure(&self.agent_id, "the upstream server accepted the request but sent no response"))
            }
            Ok(Reply::Stream(stream)) => self.legacy_stream(link, &upstream_id, stream).await,
        }
    }

    async fn legacy_stream(
        &mut self,
        link: &LegacyLink,
        upstream_id: &RequestId,
        mut stream: MessageStream,
    ) -> Option<Message> {
        let ctx = self.ctx;
        let broker = &ctx.state.broker;
        let origin = ctx.origin();
        // What the server sent while the call was parked, to be handled once it is taken back.
        let mut backlog: Backlog = VecDeque::new();
        // The server's elicitation request id → our record.
        let mut open: HashMap<RequestId, Uuid> = HashMap::new();
        // A URL elicitation's id as the server knows it → our record.
        let mut url_ids: HashMap<String, Uuid> = HashMap::new();
        let mut answering = FuturesUnordered::new();
        // The server's requests relayed to the agent (sampling, roots): Herald's id for each.
        let mut relaying = FuturesUnordered::new();
        let mut relayed_ids: Vec<RequestId> = Vec::new();
        // The agent answers on a person's time scale, as a person answers a question.
        let relay_limit = Duration::from_secs(u64::from(self.ctx.policy.elicitation.timeout_secs));
        // What Herald POSTs to the server meanwhile (answers, refusals, pongs) is sent
        // beside the loop, so that a server slow to take them cannot stop the call
        // from noticing its agent leave; a few at a time, so that a server flooding
        // the call with requests is not flooded back.
        let mut replies = Outbox::new(link);
        let mut keepalive = tokio::time::interval(KEEPALIVE_EVERY);
        keepalive.reset();
        let idle = tokio::time::sleep(UPSTREAM_IDLE);
        tokio::pin!(idle);
        let outcome = loop {
            if replies.overflowed {
                self.end_all(open.values().copied(), DecidedBy::System, Reason::Interrupted).await;
                let params =
                    json!({ "requestId": upstream_id, "reason": "the server asked too much too fast" });
                let _ = Box::pin(link.notify("notifications/cancelled", params)).await;
                break Some(self.flooded());
            }
            tokio::select! {
                () = self.gone() => {
                    self.end_all(open.values().copied(), DecidedBy::Caller, Reason::CallerCancelled).await;
                    let params = json!({ "requestId": upstream_id, "reason": "the caller cancelled the request" });
                    if let Err(e) = Box::pin(link.notify("notifications/cancelled", params)).await {
                        tracing::debug!(error = %e, "could not tell the server the call was cancelled");
                    }
                    break None;
                }
                item = next_item(&mut backlog, &mut stream) => {
                    idle.as_mut().reset(tokio::time::Instant::now() + UPSTREAM_IDLE);
                    let message = match item {
                        Some(Ok(message)) => message,
                        Some(Err(e)) => {
                            self.end_all(open.values().copied(), DecidedBy::System, Reason::UpstreamLost).await;
                            break Some(self.upstream_error(&e));
                        }
                        None => {
                            self.end_all(open.values().copied(), DecidedBy::System, Reason::UpstreamLost).await;
                            let lost = TransportError::Lost("the stream ended before the response".into());
                            break Some(self.upstream_error(&lost));
                        }
                    };
                    match classify(message) {
                        FromServer::Question { id, params } => {
                            let upstream_url_id = url_elicitation_id(params.as_deref());
                            let question = Question::from_server(ProtocolGeneration::Legacy, params.as_deref());
                            match Box::pin(broker.ask(&origin, question)).await {
                                Err(refused) => {
                                    let code = if refused == Refused::Unrecorded { INTERNAL_ERROR } else { INVALID_PARAMS };
                                    replies.push(Message::error(Some(id), code, refused.reason()));
                                }
                                Ok(waiter) => {
                                    open.insert(id.clone(), waiter.id);
                                    if let Some(url_id) = upstream_url_id {
                                        url_ids.insert(url_id, waiter.id);
                                    }
                                    if self.send(Down::Commit).await.is_err() {
                                        continue; // `gone` ends it on the next turn
                                    }
                                    answering.push(
                                        async move {
                                            let ended = waiter.ended().await;
                                            (id, ended)
                                        }
                                        .boxed(),
                                    );
                                }
                            }
                        }
                        FromServer::Ping { id } => {
                            replies.push(Message::response(id, raw(&json!({}))));
                        }
                        FromServer::Request { id, method, params } => {
                            match relay::refusal(&method, &self.request.agent, link.relayed()) {
                                Some(why) => {
                                    tracing::info!(server = %self.ctx.server.slug, %method, reason = %why, "server request not relayed");
                                    replies.push(relay::refused(id, &why));
                                }
                                None if matches!(self.request.agent, AgentEra::Modern { .. }) => {
                                    // A 2026-07-28 agent is asked the 2026-07-28 way: by an
                                    // input_required result; the call waits for its retry.
                                    let key = format!("herald-{}", Uuid::new_v4().simple());
                                    let asked = json!({ key.clone(): { "method": method, "params": params } });
                                    let asked = asked.as_object().cloned().unwrap_or_default();
                                    match Box::pin(self.park(asked, Some((&mut backlog, &mut stream)))).await {
                                        Ok(mut answers) => {
                                            let answer = match answers.remove(&key) {
                                                Some(result) => Ok(Message::response(id.clone(), raw(&result))),
                                                None => Err("the agent retried without answering".to_owned()),
                                            };
                                            replies.push(relay::to_server(id, answer));
                                        }
                                        Err(why) => {
                                            // Nobody is there to take the call's answer: it ends.
                                            let _ = Box::pin(link.reply(relay::to_server(id, Err(why)))).await;
                                            self.end_all(open.values().copied(), DecidedBy::Caller, Reason::CallerCancelled).await;
                                            let params = json!({ "requestId": upstream_id, "reason": "the caller did not come back" });
                                            let _ = Box::pin(link.notify("notifications/cancelled", params)).await;
                                            break None;
                                        }
                                    }
                                }
                                None => {
                                    // To the agent on this call's stream; its answer comes back by POST.
                                    let (herald_id, answer) = link.answers.expect();
                                    let ask = Message::Request { id: herald_id.clone(), method, params };
                                    if self.down.send(Down::Message(ask)).await.is_err() {
                                        link.answers.forget(&herald_id);
                                        continue; // `gone` ends the call next turn
                                    }
                                    relayed_ids.push(herald_id.clone());
                                    relaying.push(
                                        async move { (id, herald_id, tokio::time::timeout(relay_limit, answer).await) }
                                            .boxed(),
                                    );
                                }
                            }
                        }
                        FromServer::Withdrawn { request_id } => {
                            if let Some(id) = request_id.and_then(|rid| open.get(&rid).copied()) {
                                broker.end_all([id], DecidedBy::Server, Reason::ServerCancelled).await;
                            }
                        }
                        // About a URL elicitation the agent never saw: tell the person instead.
                        FromServer::UrlComplete { elicitation_id, .. } => {
                            if let Some(ours) = elicitation_id.and_then(|u| url_ids.get(&u)) {
                                self.ctx.state.broker.hub.publish(self.ctx.user_id, self.ctx.org_id, &ServerEvent::Notice {
                                    org: self.ctx.org_slug.clone(),
                                    kind: "elicitation_complete",
                                    message: format!("{} reports the step you opened is complete", self.ctx.server.name),
                                    server: Some(AskingServer {
                                        slug: self.ctx.server.slug.clone(),
                                        name: self.ctx.server.name.clone(),
                                        url: self.ctx.server.url.clone(),
                                    }),
                                    elicitation_id: Some(*ours),
                                });
                            }
                        }
                        // A send to a departed agent fails; `gone` ends the call next turn.
                        FromServer::Notification(message) => {
                            let _ = self.send(Down::Message(message)).await;
                        }
                        FromServer::Reply(message) => {
                            if message.id() == Some(upstream_id) {
                                // The server finished without waiting for these: it withdrew them.
                                broker.end_all(open.values().copied(), DecidedBy::Server, Reason::ServerCancelled).await;
                                break Some(self.legacy_answer(message));
                            }
                        }
                    }
                }
                Some((server_request, ended)) = answering.next() => {
                    open.remove(&server_request);
                    let outcome = ended.outcome.expect("an ended elicitation has an outcome");
                    // A server that withdrew its request must not get an answer.
                    if let Some(answer) = outcome.server_answer() {
                        replies.push(Message::response(server_request, raw(&answer)));
                    }
                }
                Some((server_id, herald_id, got)) = relaying.next() => {
                    relayed_ids.retain(|id| *id != herald_id);
                    let answer = match got {
                        Ok(Ok(answer)) => Ok(answer),
                        Ok(Err(_)) => Err("the agent's session ended before it answered".to_owned()),
                        Err(_) => {
                            link.answers.forget(&herald_id);
                            Err(format!("the agent did not answer within {} seconds", relay_limit.as_secs()))
                        }
                    };
                    replies.push(relay::to_server(server_id, answer));
                }
                Some(()) = replies.next() => {}
                _ = keepalive.tick(), if !open.is_empty() || !relaying.is_empty() => {
                    let _ = self.keep_alive().await;
                }
                () = &mut idle, if open.is_empty() && relaying.is_empty() => {
                    break Some(self.upstream_error(&TransportError::Timeout(UPSTREAM_IDLE)));
                }
            }
        };
        // Answers still awaited will find nobody: the call is over.
        for id in &relayed_ids {
            link.answers.forget(id);
        }
        outcome
    }

    /// Hands `asked` (requests only the agent can answer, by key) to a
    /// 2026-07-28 agent as an `input_required` result of its call, and waits
    /// for its retry, which becomes this call's agent from then on; returns
    /// the retry's answers. Whatever the server sends meanwhile on `stream`
    /// waits in `backlog`. `Err` says why no answer came.
    async fn park(
        &mut self,
        asked: serde_json::Map<String, Value>,
        mut stream: Option<(&mut Backlog, &mut MessageStream)>,
    ) -> Result<serde_json::Map<String, Value>, String> {
        let parking = &self.ctx.state.proxy.parking;
        let (ticket, retry) = parking
            .park(self.ctx.user_id, self.ctx.server.id)
            .map_err(|_| "too many calls are waiting for their agents on this Herald".to_owned())?;
        let result =
            json!({ "resultType": "input_required", "inputRequests": asked, "requestState": ticket });
        if self.down.send(Down::Park(Message::response(self.agent_id.clone(), raw(&result)))).await.is_err() {
            parking.forget(&ticket);
            return Err("the agent went away".into());
        }
        // The agent has its person's time to come back, as a person has to answer.
        let limit = Duration::from_secs(u64::from(self.ctx.policy.elicitation.timeout_secs));
        let deadline = tokio::time::sleep(limit);
        tokio::pin!(deadline);
        tokio::pin!(retry);
        let resumed = loop {
            tokio::select! {
                resumed = &mut retry => break resumed.ok(),
                () = &mut deadline => break None,
                item = async {
                    match stream.as_mut() {
                        Some((_, s)) => s.next().await,
                        None => std::future::pending().await,
                    }
                } => {
                    if let Some((backlog, _)) = stream.as_mut() {
                        let ended = item.is_none();
                        backlog.push_back(item);
                        if ended || backlog.len() > MAX_BACKLOG {
                            stream = None; // stop reading; what is kept is handled on return
                        }
                    }
                }
            }
        };
        let Some(resumed) = resumed else {
            parking.forget(&ticket);
            return Err(format!("the agent did not come back within {} seconds", limit.as_secs()));
        };
        self.down = resumed.down;
        self.agent_id = resumed.id;
        self.progress_token = resumed.progress_token;
        Ok(resumed.responses)
    }

    /// The end of a call whose server asked far more than it took answers for.
    fn flooded(&self) -> Message {
        let why = TransportError::Protocol(format!(
            "it asked for more than {REPLIES_QUEUED} answers faster than it took them"
        ));
        self.upstream_error(&why)
    }

    /// A legacy server's final message for the agent, unless it broke its era:
    /// an `input_required` result belongs to 2026-07-28, and in a 2025-11-25
    /// session nobody would answer it (an agent's own SDK might, behind the
    /// person's back).
    fn legacy_answer(&self, message: Message) -> Message {
        if let Message::Response { result, .. } = &message
            && result.get().contains("input_required")
            && RawObject::parse(Some(result)).ok().and_then(|r| r.string("resultType")).as_deref()
                == Some("input_required")
        {
            let broke = TransportError::Protocol(
                "it answered input_required (a 2026-07-28 result) in a 2025-11-25 session".into(),
            );
            return self.upstream_error(&broke);
        }
        answer_for(&self.agent_id, message)
    }

    // --- modern servers: input_required results, answered by retrying -----------------------

    async fn modern(&mut self, link: &ModernLink, request: &Request) -> Option<Message> {
        let mut params = request.params.clone();
        for round in 0..=MAX_INPUT_ROUNDS {
            let upstream_id = link.next_id();
            let can_answer = match &request.agent {
                AgentEra::Modern { can_answer, .. } => *can_answer,
                AgentEra::Legacy | AgentEra::Console => relay::CanAnswer::NOTHING,
            };
            let post = link.post(
                upstream_id,
                &request.method,
                params.clone(),
                request.agent_info.as_ref(),
                can_answer,
                &request.headers,
            );
            let reply = tokio::select! {
                reply = post => reply,
                () = self.gone() => return None,
            };
            let last = match reply {
                Err(e) => return Some(self.request_failed(&e)),
                Ok(Reply::Message(m)) => m,
                Ok(Reply::Accepted) => {
                    return Some(failure(&self.agent_id, "the upstream server sent no response"));
                }
                Ok(Reply::Stream(stream)) => match self.modern_stream(stream).await {
                    Ok(Some(m)) => m,
                    Ok(None) => return None,
                    Err(e) => return Some(self.upstream_error(&e)),
                },
            };
            let result = match last {
                Message::Response { result, .. } => result,
                other => return Some(answer_for(&self.agent_id, other)),
            };
            let Ok(fields) = RawObject::parse(Some(&result)) else {
                return Some(Message::response(self.agent_id.clone(), result));
            };
            if fields.string("resultType").as_deref() != Some("input_required") {
                return Some(Message::response(self.agent_id.clone(), result));
            }
            if round == MAX_INPUT_ROUNDS {
                return Some(failure(
                    &self.agent_id,
                    &format!(
                        "upstream server {} asked for input {MAX_INPUT_ROUNDS} times in a row; giving up",
                        self.ctx.server.slug
                    ),
                ));
            }
            self.retryable = false;
            let responses = match self.gather(request, &fields).await {
                Ok(Some(responses)) => responses,
                Ok(None) => return None,
                Err(refusal) => return Some(refusal),
            };
            params.set("inputResponses", raw(&Value::Object(responses)));
            match fields.get("requestState") {
                // Echoed byte for byte: Herald never parses it.
                Some(state) => params.set("requestState", state.to_owned()),
                None => {
                    params.remove("requestState");
                }
            }
        }
        unreachable!("the loop returns by its last round")
    }

    /// Relays a modern stream's notifications; returns its final message.
    async fn modern_stream(&mut self, mut stream: MessageStream) -> Result<Option<Message>, TransportError> {
        loop {
            let item = tokio::select! {
                () = self.gone() => return Ok(None),
                item = tokio::time::timeout(UPSTREAM_IDLE, stream.next()) => item,
            };
            match item {
                Err(_) => return Err(TransportError::Timeout(UPSTREAM_IDLE)),
                Ok(None) => return Err(TransportError::Lost("the stream ended before the response".into())),
                Ok(Some(Err(e))) => return Err(e),
                Ok(Some(Ok(message))) => match message {
                    Message::Notification { .. } => {
                        if self.send(Down::Message(message)).await.is_err() {
                            return Ok(None);
                        }
                    }
                    Message::Response { .. } | Message::Error { .. } => return Ok(Some(message)),
                    // Servers of this era may not send requests; one that does would wait
                    // for an answer that cannot come.
                    Message::Request { method, .. } => {
                        let method: String = method.chars().take(64).collect();
                        return Err(TransportError::Protocol(format!(
                            "it sent a request ({method}) on a 2026-07-28 response stream, which that era does not allow"
                        )));
                    }
                },
            }
        }
    }

    /// Shows every input request of an `input_required` result and collects
    /// the answers. `Ok(None)`: the agent went away. `Err`: the final message
    /// when the server's request is refused.
    async fn gather(
        &mut self,
        request: &Request,
        result: &RawObject,
    ) -> Result<Option<serde_json::Map<String, Value>>, Message> {
        let requests: serde_json::Map<String, Value> =
            result.get("inputRequests").and_then(|r| serde_json::from_str(r.get()).ok()).unwrap_or_default();
        let mut waiting = FuturesUnordered::new();
        let mut open = Vec::new();
        let origin = self.ctx.origin();
        // What only a 2026-07-28 agent can answer (sampling, roots): handed to it, by key.
        let mut for_agent = serde_json::Map::new();
        for (key, input) in requests {
            let method = input.get("method").and_then(Value::as_str).unwrap_or_default();
            if asks(method) != Asks::Person {
                let why = match &request.agent {
                    AgentEra::Modern { .. } => {
                        relay::refusal(method, &request.agent, &serde_json::Map::new())
                    }
                    _ if relay::capability_for(method).is_some() => Some(format!(
                        "{method} from a 2026-07-28 server reaches only 2026-07-28 agents, and this agent speaks {}",
                        if request.agent == AgentEra::Console { "through the console" } else { "2025-11-25" }
                    )),
                    _ => Some(format!("the server asked for {method:?}, which this client does not offer")),
                };
                if let Some(why) = why {
                    tracing::info!(server = %self.ctx.server.slug, %method, reason = %why, "server request not relayed");
                    self.end_all(open.iter().copied(), DecidedBy::System, Reason::Interrupted).await;
                    return Err(self.refusal(request, &why));
                }
                for_agent.insert(key, input);
                continue;
            }
            let params = input.get("params").map(raw);
            let question = Question::from_server(ProtocolGeneration::Modern, params.as_deref());
            match Box::pin(self.ctx.state.broker.ask(&origin, question)).await {
                Ok(waiter) => {
                    open.push(waiter.id);
                    waiting.push(async move { (key, waiter.ended().await) }.boxed());
                }
                Err(refused) => {
                    self.end_all(open.iter().copied(), DecidedBy::System, Reason::Interrupted).await;
                    return Err(match refused {
                        Refused::Invalid(why) => self.refusal(request, &why),
                        Refused::Unrecorded => failure(
                            &self.agent_id,
                            "the host could not record the server's request for input",
                        ),
                    });
                }
            }
        }
        let mut responses = serde_json::Map::new();
        if !for_agent.is_empty() {
            // The person answers meanwhile: their answers wait in their waiters.
            let asked: Vec<String> = for_agent.keys().cloned().collect();
            match Box::pin(self.park(for_agent, None)).await {
                Ok(mut answers) => {
                    for key in asked {
                        if let Some(answer) = answers.remove(&key) {
                            responses.insert(key, answer);
                        }
                    }
                }
                Err(why) => {
                    tracing::info!(server = %self.ctx.server.slug, reason = %why, "the agent did not answer");
                    self.end_all(open.iter().copied(), DecidedBy::Caller, Reason::CallerCancelled).await;
                    return Ok(None);
                }
            }
        }
        if self.send(Down::Commit).await.is_err() {
            self.end_all(open.iter().copied(), DecidedBy::Caller, Reason::CallerCancelled).await;
            return Ok(None);
        }
        let mut keepalive = tokio::time::interval(KEEPALIVE_EVERY);
        keepalive.reset();
        while !waiting.is_empty() {
            tokio::select! {
                () = self.gone() => {
                    self.end_all(open.iter().copied(), DecidedBy::Caller, Reason::CallerCancelled).await;
                    return Ok(None);
                }
                Some((key, ended)) = waiting.next() => {
                    let outcome = ended.outcome.expect("an ended elicitation has an outcome");
                    responses.insert(key, outcome.elicit_result());
                }
                _ = keepalive.tick() => {
                    let _ = self.keep_alive().await;
                }
            }
        }
        Ok(Some(responses))
    }

    /// A refused input request ends the call with a clear error: a tool
    /// result with `isError` for tools, a JSON-RPC error otherwise.
    fn refusal(&self, request: &Request, why: &str) -> Message {
        let text = format!("Herald refused a request for input from {}: {why}", self.ctx.server.name);
        if request.method == "tools/call" {
            let result = json!({ "content": [{ "type": "text", "text": text }], "isError": true });
            Message::response(self.agent_id.clone(), raw(&result))
        } else {
            Message::error(Some(self.agent_id.clone()), INVALID_PARAMS, text)
        }
    }
}

/// A modern agent's request metadata has no place in a legacy session, where
/// the handshake already settled version, capabilities and identity (some
/// servers refuse a 2026-07-28 `_meta` under a 2025 header). Everything else
/// in `_meta` (a progress token, say) stays.
fn legacy_params(params: &RawObject) -> RawObject {
    let mut meta = params.meta();
    let before = meta.len();
    meta.retain(|key, _| !key.starts_with("io.modelcontextprotocol/"));
    if meta.len() == before {
        return params.clone();
    }
    let mut params = params.clone();
    if meta.is_empty() {
        params.remove("_meta");
    } else {
        params.set("_meta", raw(&Value::Object(meta)));
    }
    params
}

/// Answers Herald POSTs to one call's server at once, and answers it keeps waiting behind them.
const REPLIES_SENDING: usize = 8;
const REPLIES_QUEUED: usize = 4096;

/// What a call POSTs to its legacy server beside its loop: a few at a time, the
/// rest queued in order, up to a bound a well-behaved server never reaches.
struct Outbox<'l> {
    link: &'l LegacyLink,
    sending: FuturesUnordered<futures_util::future::BoxFuture<'l, ()>>,
    queued: VecDeque<Message>,
    /// The server asked for more answers than it took: the call ends.
    overflowed: bool,
}

impl<'l> Outbox<'l> {
    fn new(link: &'l LegacyLink) -> Self {
        Outbox { link, sending: FuturesUnordered::new(), queued: VecDeque::new(), overflowed: false }
    }

    fn send(&self, message: Message) -> futures_util::future::BoxFuture<'l, ()> {
        let link = self.link;
        async move {
            if let Err(e) = link.reply(message).await {
                tracing::warn!(error = %e, "could not send an answer upstream");
            }
        }
        .boxed()
    }

    /// Sends `message` when a place is free; past the queue's bound, marks the outbox overflowed.
    fn push(&mut self, message: Message) {
        if self.sending.len() < REPLIES_SENDING {
            self.sending.push(self.send(message));
        } else if self.queued.len() < REPLIES_QUEUED {
            self.queued.push_back(message);
        } else {
            self.overflowed = true;
        }
    }

    /// One answer sent; `None` when nothing is being sent.
    async fn next(&mut self) -> Option<()> {
        let sent = self.sending.next().await;
        if sent.is_some()
            && let Some(message) = self.queued.pop_front()
        {
            self.sending.push(self.send(message));
        }
        sent
    }
}

/// What a legacy server sent while its call was parked, in order (`None`: the stream ended).
type Backlog = VecDeque<Option<Result<Message, TransportError>>>;

/// The most a parked call keeps of what its server sends meanwhile.
const MAX_BACKLOG: usize = 256;

/// The next message: first what waited while the call was parked, then the stream.
async fn next_item(
    backlog: &mut Backlog,
    stream: &mut MessageStream,
) -> Option<Result<Message, TransportError>> {
    match backlog.pop_front() {
        Some(item) => item,
        None => stream.next().await,
    }
}

/// The server's final message, re-addressed to the agent's request id.
fn answer_for(id: &RequestId, message: Message) -> Message {
    match message {
        Message::Response { result, .. } => Message::Response { id: id.clone(), result },
        Message::Error { error, .. } => Message::Error { id: Some(id.clone()), error },
        _ => failure(id, "the upstream server answered with something other than a response"),
    }
}

pub fn failure(id: &RequestId, message: &str) -> Message {
    Message::error(Some(id.clone()), INTERNAL_ERROR, message)
}

/// Raw JSON for a response result (exposed for the endpoint's own answers).
pub fn raw_result(value: &Value) -> Box<RawValue> {
    raw(value)
}
