//! Test-side MCP: an agent speaking either generation to Herald's endpoint,
//! peer servers started as real processes, and a dashboard websocket.

use std::process::Stdio;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use herald_mcp::transport::{Endpoint, PostHeaders, Reply};
use herald_mcp::{Message, RequestId};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use crate::support::{Session, TestApp, body};

/// How long a test waits for something that should happen promptly before
/// calling it a failure (not a sleep: the wait ends as soon as it happens).
pub const PATIENCE: Duration = Duration::from_secs(20);

// --- peers -------------------------------------------------------------------------------

pub enum Peer {
    /// `tests/peers/python/elicit_server.py`: the official Python SDK, both generations.
    Python,
    /// `@modelcontextprotocol/server-everything`: the TypeScript SDK, legacy only.
    Everything,
}

pub struct PeerProcess {
    pub url: String,
    child: Child,
}

impl PeerProcess {
    pub async fn start(peer: Peer) -> Self {
        let peers = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/peers");
        let script = match peer {
            Peer::Python => "run-elicit-server.sh",
            Peer::Everything => "run-everything.sh",
        };
        let mut child = Command::new("bash")
            .arg(peers.join(script))
            .arg("0")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("the peer starts (run tests/peers/install.sh first)");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let port = tokio::time::timeout(PATIENCE, async {
            while let Some(line) = lines.next_line().await.unwrap() {
                if let Some(port) = line.strip_prefix("READY ") {
                    return port.trim().to_owned();
                }
            }
            panic!("the peer {script} exited before it was ready (run tests/peers/install.sh first)");
        })
        .await
        .expect("the peer gets ready");
        // Keep draining its output so it never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        PeerProcess { url: format!("http://127.0.0.1:{port}/mcp"), child }
    }

    /// Kills the server mid-flight (for the upstream-lost tests).
    pub async fn kill(&mut self) {
        let _ = self.child.kill().await;
    }
}

/// Registers `url` as server `slug` in org acme (as the owner).
pub async fn register(owner: &Session, slug: &str, name: &str, url: &str) {
    let response =
        owner.post("/api/v1/orgs/acme/servers", &json!({ "slug": slug, "name": name, "url": url })).await;
    assert_eq!(response.status(), 201, "register {slug}: {}", response.text().await.unwrap());
}

/// Pins the era Herald speaks to a registered server (`auto`, `2025-11-25`, `2026-07-28`).
pub async fn pin_protocol(owner: &Session, slug: &str, protocol: &str) {
    let response =
        owner.patch(&format!("/api/v1/orgs/acme/servers/{slug}"), &json!({ "protocol": protocol })).await;
    assert_eq!(response.status(), 200, "pin {slug} to {protocol}: {}", response.text().await.unwrap());
}

// --- agents ------------------------------------------------------------------------------

#[derive(Clone)]
pub enum Generation {
    Legacy { session: String, version: String },
    Modern,
}

/// An MCP client pointed at Herald's endpoint for one server.
#[derive(Clone)]
pub struct Agent {
    endpoint: Endpoint,
    token: String,
    pub generation: Generation,
    /// What a 2026-07-28 agent declares in every request's `_meta`.
    capabilities: Value,
}

impl Agent {
    fn endpoint(base: &str, org: &str, token: &str, server: &str) -> Endpoint {
        let mut headers = HeaderMap::new();
        headers.insert("authorization", HeaderValue::from_str(&format!("Bearer {token}")).unwrap());
        let url = reqwest::Url::parse(&format!("{base}/mcp/{org}/{server}")).unwrap();
        Endpoint::new(reqwest::Client::new(), url, headers)
    }

    /// A 2025-11-25 agent: initialize, then initialized.
    pub async fn legacy(app: &TestApp, token: &str, server: &str) -> Self {
        Self::legacy_at(&app.base, "acme", token, server).await
    }

    /// The same agent (same session, if legacy) talking to another Herald
    /// replica, or to this one after a restart, at `base`.
    pub fn at(&self, base: &str, token: &str) -> Self {
        let path = self.endpoint.url().path();
        let mut parts = path.trim_start_matches("/mcp/").split('/');
        let (org, server) = (parts.next().unwrap(), parts.next().unwrap());
        Agent {
            endpoint: Self::endpoint(base, org, token, server),
            token: token.into(),
            generation: self.generation.clone(),
            capabilities: self.capabilities.clone(),
        }
    }

    /// The legacy session Herald minted, if any.
    pub fn session(&self) -> Option<&str> {
        match &self.generation {
            Generation::Legacy { session, .. } => Some(session),
            Generation::Modern => None,
        }
    }

    /// Ends a legacy agent's session (DELETE); whether Herald took it (204).
    pub async fn end_session(&self) -> bool {
        let Generation::Legacy { session, version } = &self.generation else { panic!("a legacy agent") };
        let response = reqwest::Client::new()
            .delete(self.endpoint.url().clone())
            .bearer_auth(&self.token)
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", version)
            .send()
            .await
            .unwrap();
        response.status() == reqwest::StatusCode::NO_CONTENT
    }

    /// A legacy agent that presents `session` without having initialised.
    pub fn with_session(
        base: &str,
        org: &str,
        token: &str,
        server: &str,
        session: &str,
        version: &str,
    ) -> Self {
        Agent {
            endpoint: Self::endpoint(base, org, token, server),
            token: token.into(),
            generation: Generation::Legacy { session: session.into(), version: version.into() },
            capabilities: json!({}),
        }
    }

    /// A 2025-11-25 agent of any Herald at `base`.
    pub async fn legacy_at(base: &str, org: &str, token: &str, server: &str) -> Self {
        Self::legacy_declaring_at(base, org, token, server, json!({})).await
    }

    /// A 2025-11-25 agent that declares `capabilities` (e.g. `{"sampling": {}}`).
    pub async fn legacy_declaring(app: &TestApp, token: &str, server: &str, capabilities: Value) -> Self {
        Self::legacy_declaring_at(&app.base, "acme", token, server, capabilities).await
    }

    async fn legacy_declaring_at(
        base: &str,
        org: &str,
        token: &str,
        server: &str,
        capabilities: Value,
    ) -> Self {
        match Self::try_legacy_declaring_at(base, org, token, server, capabilities).await {
            Ok(agent) => agent,
            Err(why) => panic!("initialize failed: {why}"),
        }
    }

    /// A 2025-11-25 agent, or the message of the error its `initialize` got.
    pub async fn try_legacy(app: &TestApp, token: &str, server: &str) -> Result<Self, String> {
        Self::try_legacy_declaring_at(&app.base, "acme", token, server, json!({})).await
    }

    async fn try_legacy_declaring_at(
        base: &str,
        org: &str,
        token: &str,
        server: &str,
        capabilities: Value,
    ) -> Result<Self, String> {
        let endpoint = Self::endpoint(base, org, token, server);
        let init = Message::request(
            RequestId::Integer(0),
            "initialize",
            Some(raw(&json!({
                "protocolVersion": "2025-11-25",
                "capabilities": capabilities,
                "clientInfo": { "name": "herald-test-agent", "version": "1" },
            }))),
        );
        let (reply, head) = endpoint.post(init.to_json(), &PostHeaders::default()).await.unwrap();
        // At once, or as a stream (Herald asks the person something first).
        let answer = match reply {
            Reply::Message(m) => m,
            Reply::Stream(mut stream) => loop {
                match stream.next().await.expect("the stream ends with the answer").expect("well-formed") {
                    Message::Notification { .. } => {}
                    last => break last,
                }
            },
            Reply::Accepted => panic!("initialize got 202"),
        };
        let result = match answer {
            Message::Response { result, .. } => result,
            Message::Error { error, .. } => return Err(error.message),
            other => panic!("initialize got {other:?}"),
        };
        let result: Value = serde_json::from_str(result.get()).unwrap();
        let version = result["protocolVersion"].as_str().unwrap().to_owned();
        let session = head.session_id.expect("Herald mints a session");
        let agent = Agent {
            endpoint,
            token: token.into(),
            generation: Generation::Legacy { session, version },
            capabilities: json!({}),
        };
        let initialized = Message::notification("notifications/initialized", None);
        agent.endpoint.post(initialized.to_json(), &agent.headers(None, None)).await.unwrap();
        Ok(agent)
    }

    /// A 2026-07-28 agent: stateless.
    pub fn modern(app: &TestApp, token: &str, server: &str) -> Self {
        Self::modern_at(&app.base, "acme", token, server)
    }

    /// A 2026-07-28 agent of any Herald at `base`.
    pub fn modern_at(base: &str, org: &str, token: &str, server: &str) -> Self {
        Agent {
            endpoint: Self::endpoint(base, org, token, server),
            token: token.into(),
            generation: Generation::Modern,
            capabilities: json!({}),
        }
    }

    /// A 2026-07-28 agent that declares `capabilities` (e.g. `{"sampling": {}}`).
    pub fn modern_declaring(app: &TestApp, token: &str, server: &str, capabilities: Value) -> Self {
        Agent { capabilities, ..Self::modern(app, token, server) }
    }

    /// Sends a notification (legacy agents: in their session).
    pub async fn notify(&self, method: &str, params: Value) {
        let message = Message::notification(method, Some(raw(&params)));
        self.endpoint.post(message.to_json(), &self.headers(None, None)).await.expect("Herald takes it");
    }

    fn headers(&self, method: Option<&str>, name: Option<&str>) -> PostHeaders {
        match &self.generation {
            Generation::Legacy { session, version } => PostHeaders {
                protocol_version: Some(version.clone()),
                session_id: Some(session.clone()),
                extra: HeaderMap::new(),
            },
            Generation::Modern => {
                let mut extra = HeaderMap::new();
                if let Some(m) = method {
                    extra.insert(HeaderName::from_static("mcp-method"), HeaderValue::from_str(m).unwrap());
                }
                if let Some(n) = name {
                    extra.insert(HeaderName::from_static("mcp-name"), HeaderValue::from_str(n).unwrap());
                }
                PostHeaders { protocol_version: Some("2026-07-28".into()), session_id: None, extra }
            }
        }
    }

    /// Sends a request; returns the notifications seen and the final message.
    pub async fn request(&self, id: i64, method: &str, params: Value) -> (Vec<Message>, Message) {
        self.try_request(id, method, params).await.expect("Herald answers")
    }

    /// Sends a request; a transport failure (e.g. an unknown session's 404) is returned.
    pub async fn try_request(
        &self,
        id: i64,
        method: &str,
        mut params: Value,
    ) -> Result<(Vec<Message>, Message), herald_mcp::transport::TransportError> {
        if matches!(self.generation, Generation::Modern) {
            params["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2026-07-28");
            params["_meta"]["io.modelcontextprotocol/clientCapabilities"] = self.capabilities.clone();
            params["_meta"]["io.modelcontextprotocol/clientInfo"] =
                json!({ "name": "herald-test-agent", "version": "1" });
        }
        let name = params.get("name").and_then(Value::as_str).map(str::to_owned);
        let message = Message::request(RequestId::Integer(id), method, Some(raw(&params)));
        let headers = self.headers(Some(method), name.as_deref());
        let (reply, _) = self.endpoint.post(message.to_json(), &headers).await?;
        Ok(match reply {
            Reply::Message(m) => (vec![], m),
            Reply::Stream(mut stream) => {
                let mut notes = Vec::new();
                while let Some(item) = stream.next().await {
                    let m = item.expect("the stream stays well-formed");
                    match m {
                        Message::Notification { .. } => notes.push(m),
                        _ => return Ok((notes, m)),
                    }
                }
                panic!("the stream ended without a response");
            }
            Reply::Accepted => panic!("a request got 202"),
        })
    }

    /// Calls a tool as a legacy agent that answers the server's requests relayed to it on the
    /// call's stream with `answer(request)` (POSTed in its session); returns the requests it was
    /// sent and the final message.
    pub async fn call_answering(
        &self,
        id: i64,
        tool: &str,
        arguments: Value,
        answer: impl Fn(&Message) -> Message,
    ) -> (Vec<Message>, Message) {
        let params = json!({ "name": tool, "arguments": arguments });
        let message = Message::request(RequestId::Integer(id), "tools/call", Some(raw(&params)));
        let (reply, _) = self.endpoint.post(message.to_json(), &self.headers(None, None)).await.unwrap();
        let mut asked = Vec::new();
        let mut stream = match reply {
            Reply::Stream(stream) => stream,
            Reply::Message(m) => return (asked, m),
            Reply::Accepted => panic!("a request got 202"),
        };
        while let Some(item) = stream.next().await {
            match item.expect("the stream stays well-formed") {
                request @ Message::Request { .. } => {
                    let reply = answer(&request);
                    asked.push(request);
                    let (taken, _) =
                        self.endpoint.post(reply.to_json(), &self.headers(None, None)).await.unwrap();
                    assert!(matches!(taken, Reply::Accepted), "Herald takes the agent's answer with 202");
                }
                Message::Notification { .. } => {}
                last => return (asked, last),
            }
        }
        panic!("the stream ended without a response");
    }

    /// Opens a legacy agent's standalone stream (GET); its messages, as they come.
    pub async fn listen(&self) -> herald_mcp::transport::MessageStream {
        let Generation::Legacy { session, version } = &self.generation else { panic!("a legacy agent") };
        self.endpoint.open_stream(session, version).await.expect("Herald opens the stream").expect("a stream")
    }

    /// POSTs any message in the agent's session (an answer to a relayed request).
    pub async fn send(&self, message: &Message) -> Reply {
        self.endpoint.post(message.to_json(), &self.headers(None, None)).await.expect("Herald takes it").0
    }

    /// Calls a tool; returns the final message.
    pub async fn call(&self, id: i64, tool: &str, arguments: Value) -> Message {
        self.request(id, "tools/call", json!({ "name": tool, "arguments": arguments })).await.1
    }
}

/// The demo server's `deploy` of `service` to `environment`, called through `agent` in the
/// background (it waits for a person); the tool's text once it is answered.
pub fn deploy_in_background(
    agent: Agent,
    service: &str,
    environment: &str,
) -> tokio::task::JoinHandle<String> {
    let arguments = json!({ "service": service, "environment": environment });
    tokio::spawn(async move { text(&agent.call(1, "deploy", arguments).await) })
}

pub fn raw(value: &Value) -> Box<serde_json::value::RawValue> {
    serde_json::value::RawValue::from_string(value.to_string()).unwrap()
}

/// The `result` of a response, as JSON.
pub fn result(message: &Message) -> Value {
    match message {
        Message::Response { result, .. } => serde_json::from_str(result.get()).unwrap(),
        other => panic!("expected a result, got {}", other.to_json()),
    }
}

/// All text of a tool result's content.
pub fn text(message: &Message) -> String {
    result(message)["content"]
        .as_array()
        .map(|items| items.iter().filter_map(|c| c["text"].as_str()).collect::<Vec<_>>().join("\n"))
        .unwrap_or_default()
}

// --- the dashboard -----------------------------------------------------------------------

type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A dashboard's websocket, authenticated with the user's API token.
pub struct Dashboard {
    socket: Socket,
}

impl Dashboard {
    pub async fn open(app: &TestApp, token: &str) -> Self {
        Self::open_at(&app.base, token).await
    }

    pub async fn open_at(base: &str, token: &str) -> Self {
        let url = format!("{base}/api/v1/ws").replace("http://", "ws://");
        let mut request = url.into_client_request().unwrap();
        request.headers_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
        let (socket, _) = tokio_tungstenite::connect_async(request).await.expect("the websocket opens");
        Dashboard { socket }
    }

    /// The next JSON frame (fails the test if none comes in time).
    pub async fn next(&mut self) -> Value {
        self.next_within(PATIENCE).await
    }

    /// The next JSON frame, waiting at most `patience`.
    pub async fn next_within(&mut self, patience: std::time::Duration) -> Value {
        loop {
            let frame = tokio::time::timeout(patience, self.socket.next())
                .await
                .expect("a frame arrives in time")
                .expect("the socket is open")
                .expect("frames are well-formed");
            if let tokio_tungstenite::tungstenite::Message::Text(text) = frame {
                return serde_json::from_str(&text).unwrap();
            }
        }
    }

    /// Skips frames until one of `kind` arrives.
    pub async fn next_of(&mut self, kind: &str) -> Value {
        loop {
            let frame = self.next().await;
            if frame["type"] == kind {
                return frame;
            }
        }
    }

    pub async fn send(&mut self, frame: Value) {
        self.socket
            .send(tokio_tungstenite::tungstenite::Message::Text(frame.to_string().into()))
            .await
            .unwrap();
    }

    /// Answers elicitation `id` and returns Herald's reply (`ack` or `error`).
    pub async fn respond(&mut self, id: &Value, action: &str, content: Option<Value>) -> Value {
        let mut frame = json!({ "type": "respond", "id": id, "action": action });
        if let Some(content) = content {
            frame["content"] = content;
        }
        self.send(frame).await;
        loop {
            let reply = self.next().await;
            if (reply["type"] == "ack" || reply["type"] == "error") && reply["id"] == *id {
                return reply;
            }
        }
    }
}

/// Herald with its owner signed in, the owner's agent token, and the demo
/// server (rmcp) registered as `demo` in org acme.
pub struct DemoWorld {
    pub app: TestApp,
    pub owner: Session,
    pub token: String,
    pub demo: herald_demo_server::DemoServerHandle,
}

impl DemoWorld {
    pub async fn start(options: herald_demo_server::Options) -> Self {
        let app = TestApp::spawn().await;
        let (owner, token, demo) = with_demo(&app, options).await;
        DemoWorld { app, owner, token, demo }
    }
}

/// On `app`: the owner signed in, an agent token, and a demo server registered as `demo`.
pub async fn with_demo(
    app: &TestApp,
    options: herald_demo_server::Options,
) -> (Session, String, herald_demo_server::DemoServerHandle) {
    let owner = app.owner().await;
    let token = app.token(&owner, "acme", "agent").await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let demo = herald_demo_server::spawn(listener, options).expect("the demo server starts");
    register(&owner, "demo", "Demo Server", &demo.url()).await;
    (owner, token, demo)
}

/// The user's most recent elicitation record, via the REST API.
pub async fn latest(session: &Session) -> Value {
    let page = body(session.get("/api/v1/orgs/acme/elicitations?limit=1").await).await;
    page["elicitations"][0].clone()
}
