//! A call to a server that acts as each person (`auth_mode` `oauth`), by
//! someone who has not connected their account there, or whose connection no
//! longer works. Herald does not fail the call: it asks the person, in their
//! inbox, with a question of its own (attributed to Herald, naming the
//! server) whose address is Herald's connect page. The call waits like any
//! call waiting for a person (progress or keep-alives), and when the person
//! has connected (`Broker::connected` ends the question) it goes on with
//! their new token. A "no", the deadline, or a question that could not be
//! asked ends the call with words that say where to connect.

use herald_mcp::{Message, ProtocolGeneration};
use serde_json::json;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::CallContext;
use super::call::{Down, KEEPALIVE_EVERY};
use super::meta::raw;
use crate::broker::question::Question;
use crate::domain::outcome::{DecidedBy, Reason};
use crate::storage::Server;
use crate::upstream_auth::{self, Credential};

/// The person's token is missing or unusable: why, and where they connect.
#[derive(Debug, Clone)]
pub struct NeedsConnect {
    pub why: String,
    /// The Connections page, with this server picked.
    pub connect: String,
}

impl NeedsConnect {
    /// The error the agent gets when the call cannot wait for the person (or waited in vain).
    pub fn refusal(&self, server: &Server, ending: Option<&str>) -> Message {
        let ending = ending.map(|e| format!(" ({e})")).unwrap_or_default();
        Message::error(
            None,
            herald_mcp::jsonrpc::INTERNAL_ERROR,
            format!(
                "upstream server {} ({}) acts as each person: {}{ending}. Connect your account at {}, \
                 then call again",
                server.slug, server.name, self.why, self.connect
            ),
        )
    }
}

/// The person's own token for `server`, when it wants one: `Ok(None)` for servers that do not.
pub async fn token(
    state: &crate::app::AppState,
    org: &str,
    server: &Server,
    user_id: uuid::Uuid,
) -> Result<Option<String>, NeedsConnect> {
    if !upstream_auth::per_person(server) {
        return Ok(None);
    }
    match upstream_auth::credential(state, org, server, user_id).await {
        Credential::Bearer(token) => Ok(Some(token)),
        Credential::NeedsConnect { why, connect } => Err(NeedsConnect { why, connect }),
    }
}

/// How the wait for a connection ended.
pub enum Connected {
    /// The person's token, now.
    Token(String),
    /// The call ends with this error.
    Refused(Message),
    /// The agent left or cancelled meanwhile.
    Gone,
}

/// Asks the person to connect and waits until they have, for the agent's request in `era`.
/// `down` hears `Commit` once the question is shown (the response becomes a stream), then
/// progress or keep-alives.
pub async fn wait(
    ctx: &CallContext,
    need: NeedsConnect,
    era: ProtocolGeneration,
    down: &mpsc::Sender<Down>,
    cancel: &CancellationToken,
) -> Connected {
    let state = &ctx.state;
    let broker = &state.broker;
    let page = format!(
        "{}/connect/{}/{}/start",
        state.config.public_url.as_str().trim_end_matches('/'),
        ctx.org_slug,
        ctx.server.slug
    );
    let question = Question::connect(era, page, need.why.clone());
    let waiter = match Box::pin(broker.ask(&ctx.origin(), question)).await {
        Ok(waiter) => waiter,
        Err(refused) => return Connected::Refused(need.refusal(&ctx.server, Some(refused.reason()))),
    };
    let id = waiter.id;
    let gone = || async {
        tokio::select! {
            () = down.closed() => {},
            () = cancel.cancelled() => {},
        }
    };
    if down.send(Down::Commit).await.is_err() {
        broker.end_all([id], DecidedBy::Caller, Reason::CallerCancelled).await;
        return Connected::Gone;
    }
    let ended = waiter.ended();
    tokio::pin!(ended);
    let mut keepalive = tokio::time::interval(KEEPALIVE_EVERY);
    keepalive.reset();
    let mut progress = 0.0;
    let ended = loop {
        tokio::select! {
            () = gone() => {
                broker.end_all([id], DecidedBy::Caller, Reason::CallerCancelled).await;
                return Connected::Gone;
            }
            ended = &mut ended => break ended,
            _ = keepalive.tick() => {
                let item = match &ctx.progress_token {
                    Some(token) => {
                        progress += 1.0;
                        let params = json!({
                            "progressToken": token,
                            "progress": progress,
                            "message": format!(
                                "Waiting for you to connect your account to {} (your Herald inbox asks)",
                                ctx.server.name
                            ),
                        });
                        Down::Message(Message::notification("notifications/progress", Some(raw(&params))))
                    }
                    None => Down::KeepAlive,
                };
                if down.send(item).await.is_err() {
                    broker.end_all([id], DecidedBy::Caller, Reason::CallerCancelled).await;
                    return Connected::Gone;
                }
            }
        }
    };
    // However the question ended, the connection decides: the person may have connected from
    // the Connections page, or said "done" without connecting.
    match token(state, &ctx.org_slug, &ctx.server, ctx.user_id).await {
        Ok(Some(token)) => Connected::Token(token),
        Ok(None) => {
            Connected::Refused(need.refusal(&ctx.server, Some("the server no longer acts as each person")))
        }
        Err(still) => {
            let how = ended.outcome.as_ref().map(|o| match (o.decided_by, o.reason) {
                (DecidedBy::Timeout, _) => "nobody connected in time",
                (DecidedBy::User, Some(Reason::Declined | Reason::Dismissed)) => "you said not now",
                (DecidedBy::Caller, _) => "the call was cancelled",
                _ => "the question ended without a connection",
            });
            Connected::Refused(still.refusal(&ctx.server, how))
        }
    }
}
