//! `GET /api/v1/ws`: the signed-in user's live feed. On connect it first
//! sends every pending elicitation of the user, then each event as it
//! happens; the browser answers with `respond` messages.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use uuid::Uuid;

use super::auth::Principal;
use crate::app::AppState;
use crate::broker::events::ServerEvent;
use crate::broker::hub::Scope;
use crate::broker::question::Channel;
use crate::broker::respond::{Answer, RespondError, respond};
use crate::problem::ApiError;

/// Browser messages are small: an answer to one form.
const MAX_MESSAGE_BYTES: usize = 64 * 1024;
/// The socket's read buffer (tungstenite allocates 128 KiB per socket by default, which for
/// an organisation's thousand open dashboards was 128 MiB of buffers waiting for small answers).
const READ_BUFFER_BYTES: usize = 4 * 1024;

pub async fn upgrade(
    State(state): State<AppState>,
    principal: Principal,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Response {
    // Cross-site websocket hijacking: a browser always sends Origin.
    if let Some(origin) = headers.get(header::ORIGIN)
        && origin.to_str().ok() != Some(state.config.public_origin().as_str())
    {
        return ApiError::CrossSite.into_response();
    }
    let user_id = principal.user().id;
    // A sign-in sees the person's every organisation; an API token, its own only.
    let scope = match &principal {
        Principal::Session { session_id, .. } => Scope::Session { session_id: *session_id },
        Principal::Token(token) => Scope::Token { token_id: token.token_id, org_id: token.membership.org.id },
    };
    let ws = ws.max_message_size(MAX_MESSAGE_BYTES).read_buffer_size(READ_BUFFER_BYTES);
    match state.sockets.take(user_id) {
        Some(seat) => ws.on_upgrade(move |socket| serve(state, user_id, scope, seat, socket)),
        // Over the cap the socket still opens, to be closed at once with a code and reason a
        // browser can read (a refused handshake shows a page's script no status or text).
        None => {
            crate::telemetry::metrics::metrics().limit_refusal("websockets_per_user");
            let limit = state.sockets.max;
            tracing::info!(%user_id, limit, "a dashboard websocket over the per-person cap was closed");
            ws.on_upgrade(move |socket| refuse(socket, limit))
        }
    }
}

/// The close code for "too many open dashboards" (4000 + the HTTP status it echoes, 429).
pub const TOO_MANY_SOCKETS: u16 = 4429;

async fn refuse(mut socket: WebSocket, limit: usize) {
    let reason = format!("too many open dashboards: at most {limit} per person; close one and reload");
    let frame = CloseFrame { code: TOO_MANY_SOCKETS, reason: Utf8Bytes::from(reason) };
    let _ = socket.send(Message::Close(Some(frame))).await;
    // Wait (briefly) for the browser's close, so the frame is read before the socket goes.
    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), socket.recv()).await;
}

/// Open dashboard websockets per person on this replica, capped.
pub struct Seats {
    pub max: usize,
    taken: Arc<Mutex<HashMap<Uuid, usize>>>,
}

/// One open websocket's place; given back on drop.
pub struct Seat {
    taken: Arc<Mutex<HashMap<Uuid, usize>>>,
    user_id: Uuid,
}

impl Seats {
    pub fn new(max: usize) -> Self {
        Self { max, taken: Arc::default() }
    }

    /// A place for one more of `user_id`'s sockets, unless they have `max` open.
    pub fn take(&self, user_id: Uuid) -> Option<Seat> {
        let mut taken = self.taken.lock().unwrap_or_else(|p| p.into_inner());
        let count = taken.entry(user_id).or_default();
        if *count >= self.max {
            return None;
        }
        *count += 1;
        Some(Seat { taken: self.taken.clone(), user_id })
    }

    /// How many sockets `user_id` has open on this replica.
    pub fn open(&self, user_id: Uuid) -> usize {
        self.taken.lock().unwrap_or_else(|p| p.into_inner()).get(&user_id).copied().unwrap_or(0)
    }
}

impl Drop for Seat {
    fn drop(&mut self) {
        let mut taken = self.taken.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(count) = taken.get_mut(&self.user_id) {
            *count -= 1;
            if *count == 0 {
                taken.remove(&self.user_id);
            }
        }
    }
}

/// One open dashboard socket in `herald_websocket_connections`, for as long as it lives.
struct OpenSocket;

impl OpenSocket {
    fn count() -> Self {
        crate::telemetry::metrics::metrics().websocket(true);
        OpenSocket
    }
}

impl Drop for OpenSocket {
    fn drop(&mut self) {
        crate::telemetry::metrics::metrics().websocket(false);
    }
}

#[derive(Deserialize)]
#[serde(tag = "type", deny_unknown_fields)]
enum BrowserMessage {
    #[serde(rename = "respond")]
    Respond {
        id: Uuid,
        action: herald_mcp::ElicitAction,
        #[serde(default)]
        content: Option<serde_json::Value>,
        /// `push` when the page was opened from a push notification about this question.
        #[serde(default)]
        via: Option<AnsweredVia>,
    },
    /// The page became visible or hidden (Page Visibility API): Herald
    /// notifies a person elsewhere only while none of their dashboards is visible.
    #[serde(rename = "presence")]
    Presence { visible: bool },
}

/// What a dashboard may say about how its person got to the question.
#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum AnsweredVia {
    Web,
    Push,
}

async fn serve(state: AppState, user_id: Uuid, scope: Scope, _seat: Seat, mut socket: WebSocket) {
    let _counted = OpenSocket::count();
    let (seat, mut events) = state.broker.hub.join(user_id, scope);
    state.notifier.presence_changed(user_id);
    // Joined first, then read: nothing created in between is missed (a
    // duplicate `created` is possible and harmless; browsers key by id).
    match state.store.pending_elicitations_of_user(user_id).await {
        Ok(pending) => {
            for e in pending.iter().filter(|e| scope.sees(e.org_id)) {
                if send(&mut socket, &ServerEvent::created(e)).await.is_err() {
                    state.broker.hub.leave(&seat);
                    state.notifier.presence_changed(user_id);
                    return;
                }
            }
        }
        Err(e) => {
            tracing::warn!(error = %e, "could not load pending elicitations for a dashboard");
            state.broker.hub.leave(&seat);
            state.notifier.presence_changed(user_id);
            return;
        }
    }
    // Then the notes about what the policy answered for the person, oldest
    // first (the inbox shows the newest on top); without them the inbox still works.
    match state.broker.open_notes(user_id, scope).await {
        Ok(notes) => {
            for e in notes.iter().rev() {
                if send(&mut socket, &ServerEvent::explained(e)).await.is_err() {
                    state.broker.hub.leave(&seat);
                    state.notifier.presence_changed(user_id);
                    return;
                }
            }
        }
        Err(e) => tracing::warn!(error = %e, "could not load the notes for a dashboard"),
    }
    loop {
        tokio::select! {
            event = events.recv() => match event {
                Some(text) => if socket.send(Message::Text(text)).await.is_err() { break },
                // The hub dropped this socket (too slow, or its credential ended): close; a
                // dashboard still signed in reconnects and resyncs.
                None => break,
            },
            incoming = socket.recv() => match incoming {
                Some(Ok(Message::Text(text))) => {
                    if let Some(reply) = handle(&state, &seat, scope, &text).await
                        && send(&mut socket, &reply).await.is_err()
                    {
                        break;
                    }
                }
                Some(Ok(Message::Binary(_))) => {
                    let reply = error(None, "bad_message", "messages are JSON text");
                    if send(&mut socket, &reply).await.is_err() { break }
                }
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                Some(Ok(_)) => {}
            },
        }
    }
    state.broker.hub.leave(&seat);
    state.notifier.presence_changed(user_id);
}

/// A browser message's reply, if it gets one.
async fn handle(
    state: &AppState,
    seat: &crate::broker::hub::Seat,
    scope: Scope,
    text: &str,
) -> Option<ServerEvent> {
    let user_id = seat.user_id;
    let message: BrowserMessage = match serde_json::from_str(text) {
        Ok(m) => m,
        Err(e) => return Some(error(None, "bad_message", &e.to_string())),
    };
    Some(match message {
        BrowserMessage::Presence { visible } => {
            state.broker.hub.set_visible(seat, visible);
            state.notifier.presence_changed(user_id);
            return None;
        }
        BrowserMessage::Respond { id, action, content, via } => {
            // Only what the socket may see, in an organisation the person still belongs to.
            let membership_ok = match state.store.elicitation_of_user(user_id, id).await {
                Ok(Some(e)) => {
                    scope.sees(e.org_id)
                        && state.store.membership(&e.org_slug, user_id).await.ok().flatten().is_some()
                }
                _ => true, // `respond` reports the missing record itself
            };
            if !membership_ok {
                return Some(error(Some(id), "not_found", "no such elicitation"));
            }
            let channel = match via {
                Some(AnsweredVia::Push) => Channel::Push,
                Some(AnsweredVia::Web) | None => Channel::Web,
            };
            match respond(&state.broker, user_id, None, id, Answer { action, content }, channel).await {
                Ok(_) => ServerEvent::Ack { id },
                Err(RespondError::NotFound) => error(Some(id), "not_found", "no such elicitation"),
                Err(RespondError::Ended(action)) => {
                    error(Some(id), "ended", &format!("this elicitation has already ended ({action})"))
                }
                Err(RespondError::Invalid(errors)) => ServerEvent::Error {
                    id: Some(id),
                    code: "invalid",
                    detail: "the answer does not fit the form".into(),
                    errors,
                },
                Err(RespondError::Store(e)) => {
                    tracing::warn!(error = %e, "could not record an answer");
                    error(Some(id), "unavailable", "the answer could not be recorded; try again")
                }
            }
        }
    })
}

fn error(id: Option<Uuid>, code: &'static str, detail: &str) -> ServerEvent {
    ServerEvent::Error { id, code, detail: detail.to_owned(), errors: vec![] }
}

async fn send(socket: &mut WebSocket, event: &ServerEvent) -> Result<(), axum::Error> {
    let text = serde_json::to_string(event).expect("events serialize");
    socket.send(Message::Text(Utf8Bytes::from(text))).await
}
