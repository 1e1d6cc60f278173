//! Legacy sessions: a server's `notifications/cancelled` for a question it pushed rides the SSE
//! stream of the `tools/call` that asked it, as the TypeScript SDK sends it (with the call as its
//! `relatedRequestId`).
//!
//! rmcp 3.11 routes a server→client cancellation by looking its `requestId` up among the *client's*
//! in-flight request ids, so a withdrawn question's cancellation lands on the standalone GET stream
//! (or, when the numbers collide, on some other call's stream). This session manager wraps rmcp's
//! [`LocalSessionManager`]: its transport remembers which call each pushed request came from, and
//! hands the cancellation of that request to the call's own response stream instead.

use std::{
    collections::HashMap,
    pin::Pin,
    sync::{Arc, Mutex},
    task::{Context, Poll},
};

use futures_util::{Stream, future::Either};
use rmcp::{
    RoleServer,
    model::{ClientJsonRpcMessage, JsonRpcMessage, RequestId, ServerJsonRpcMessage, ServerNotification},
    service::{OriginatingRequestId, RxJsonRpcMessage, TxJsonRpcMessage},
    transport::{
        Transport,
        streamable_http_server::session::{
            EventStore, ServerSseMessage, SessionId, SessionManager, local::LocalSessionManager,
        },
    },
};
use tokio::sync::mpsc;

type Key = (SessionId, RequestId);
type Injector = mpsc::UnboundedSender<ServerSseMessage>;

/// The open `tools/call` (and other request) streams, by session and client request id.
#[derive(Clone, Default)]
struct CallStreams(Arc<Mutex<HashMap<Key, Injector>>>);

impl CallStreams {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Key, Injector>> {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// [`LocalSessionManager`], plus delivery of withdrawals on the originating call's stream.
pub struct DemoSessions {
    inner: LocalSessionManager,
    streams: CallStreams,
}

impl DemoSessions {
    pub fn new(inner: LocalSessionManager) -> Self {
        Self { inner, streams: CallStreams::default() }
    }
}

impl SessionManager for DemoSessions {
    type Error = <LocalSessionManager as SessionManager>::Error;
    type Transport = RoutingTransport<<LocalSessionManager as SessionManager>::Transport>;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let (id, inner) = self.inner.create_session().await?;
        let transport = RoutingTransport {
            inner,
            session: id.clone(),
            streams: self.streams.clone(),
            origins: HashMap::new(),
        };
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.inner.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.inner.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.inner.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        // Register before the request reaches the handler, so nothing it sends can miss the stream.
        let registration = match &message {
            JsonRpcMessage::Request(request) => {
                let key = (id.clone(), request.id.clone());
                let (tx, rx) = mpsc::unbounded_channel();
                self.streams.lock().insert(key.clone(), tx.clone());
                Some((Registration { streams: self.streams.clone(), key, tx }, rx))
            }
            _ => None,
        };
        let inner = self.inner.create_stream(id, message).await?;
        let (registration, injected) = registration.unzip();
        Ok(CallStream { injected, inner: Box::pin(inner), _registration: registration })
    }

    async fn accept_message(&self, id: &SessionId, message: ClientJsonRpcMessage) -> Result<(), Self::Error> {
        self.inner.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.resume(id, last_event_id).await
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        self.inner.event_store()
    }
}

/// Forgets a call's stream when its response stream is dropped.
struct Registration {
    streams: CallStreams,
    key: Key,
    tx: Injector,
}

impl Drop for Registration {
    fn drop(&mut self) {
        let mut streams = self.streams.lock();
        if streams.get(&self.key).is_some_and(|tx| tx.same_channel(&self.tx)) {
            streams.remove(&self.key);
        }
    }
}

/// A request's response stream: rmcp's own, with withdrawals injected ahead of whatever rmcp sends
/// next. It ends when rmcp's ends (after the response).
struct CallStream {
    injected: Option<mpsc::UnboundedReceiver<ServerSseMessage>>,
    inner: Pin<Box<dyn Stream<Item = ServerSseMessage> + Send + Sync>>,
    _registration: Option<Registration>,
}

impl Stream for CallStream {
    type Item = ServerSseMessage;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<ServerSseMessage>> {
        if let Some(injected) = self.injected.as_mut() {
            match injected.poll_recv(cx) {
                Poll::Ready(Some(message)) => return Poll::Ready(Some(message)),
                Poll::Ready(None) => self.injected = None,
                Poll::Pending => {}
            }
        }
        self.inner.as_mut().poll_next(cx)
    }
}

/// The session's transport: records which call each server request was issued from, and sends the
/// server's cancellation of such a request down that call's stream.
pub struct RoutingTransport<T> {
    inner: T,
    session: SessionId,
    streams: CallStreams,
    /// Server request id → the client request (call) it was issued from.
    origins: HashMap<RequestId, RequestId>,
}

impl<T> RoutingTransport<T> {
    /// Delivers a withdrawal on its call's stream (`None`); hands anything else back for rmcp's
    /// own routing.
    fn deliver(&mut self, item: TxJsonRpcMessage<RoleServer>) -> Option<TxJsonRpcMessage<RoleServer>> {
        use rmcp::model::GetExtensions;
        match &item {
            JsonRpcMessage::Request(request) => {
                if let Some(OriginatingRequestId(call)) = request.request.extensions().get() {
                    self.origins.insert(request.id.clone(), call.clone());
                }
                Some(item)
            }
            JsonRpcMessage::Notification(notification) => {
                let ServerNotification::CancelledNotification(cancelled) = &notification.notification else {
                    return Some(item);
                };
                let Some(call) =
                    cancelled.params.request_id.as_ref().and_then(|withdrawn| self.origins.remove(withdrawn))
                else {
                    return Some(item);
                };
                let Some(tx) = self.streams.lock().get(&(self.session.clone(), call)).cloned() else {
                    return Some(item);
                };
                let unsent = tx.send(ServerSseMessage::from_message(item)).err()?;
                let message = unsent.0.message.expect("an injected event carries a message");
                Some(Arc::unwrap_or_clone(message))
            }
            JsonRpcMessage::Response(response) => {
                let call = response.id.clone();
                self.origins.retain(|_, origin| *origin != call);
                Some(item)
            }
            JsonRpcMessage::Error(error) => {
                if let Some(call) = error.id.clone() {
                    self.origins.retain(|_, origin| *origin != call);
                }
                Some(item)
            }
        }
    }
}

impl<T: Transport<RoleServer>> Transport<RoleServer> for RoutingTransport<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        match self.deliver(item) {
            None => Either::Left(std::future::ready(Ok(()))),
            Some(item) => Either::Right(self.inner.send(item)),
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleServer>>> + Send {
        self.inner.receive()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
