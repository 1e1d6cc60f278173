//! The load driver's MCP client: the same code calls the upstream directly
//! and through Herald, in either generation (Herald's own transport, so the
//! two paths differ only in where the bytes go).

use std::sync::atomic::{AtomicI64, Ordering};

use anyhow::{Context, bail};
use futures_util::StreamExt;
use herald_mcp::transport::{Endpoint, PostHeaders, Reply};
use herald_mcp::{Message, RequestId};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::{Value, json};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gen {
    Legacy,
    Modern,
}

impl Gen {
    pub fn name(self) -> &'static str {
        match self {
            Gen::Legacy => "legacy",
            Gen::Modern => "modern",
        }
    }
}

pub struct Agent {
    endpoint: Endpoint,
    /// Legacy only: the session the server minted.
    session: Option<String>,
    next_id: AtomicI64,
}

pub fn client() -> reqwest::Client {
    reqwest::Client::builder().tcp_nodelay(true).build().expect("the HTTP client builds")
}

fn raw(value: &Value) -> Box<serde_json::value::RawValue> {
    serde_json::value::RawValue::from_string(value.to_string()).expect("JSON")
}

impl Agent {
    /// Connects to `url` (with `token` as a bearer when going through Herald).
    pub async fn connect(
        http: &reqwest::Client,
        url: &str,
        token: Option<&str>,
        generation: Gen,
    ) -> anyhow::Result<Self> {
        let mut headers = HeaderMap::new();
        if let Some(token) = token {
            headers.insert("authorization", HeaderValue::from_str(&format!("Bearer {token}"))?);
        }
        let endpoint = Endpoint::new(http.clone(), reqwest::Url::parse(url)?, headers);
        let mut agent = Agent { endpoint, session: None, next_id: AtomicI64::new(1) };
        if generation == Gen::Legacy {
            let init = Message::request(
                RequestId::Integer(0),
                "initialize",
                Some(raw(&json!({
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": { "name": "herald-bench", "version": "1" },
                }))),
            );
            let (reply, head) = agent.endpoint.post(init.to_json(), &PostHeaders::default()).await?;
            final_result(reply).await.context("initialize")?;
            agent.session = Some(head.session_id.context("initialize minted no session")?);
            let initialized = Message::notification("notifications/initialized", None);
            agent
                .endpoint
                .post(initialized.to_json(), &agent.headers("notifications/initialized", None))
                .await?;
        }
        Ok(agent)
    }

    fn headers(&self, method: &str, name: Option<&str>) -> PostHeaders {
        match &self.session {
            Some(session) => PostHeaders {
                protocol_version: Some("2025-11-25".into()),
                session_id: Some(session.clone()),
                extra: HeaderMap::new(),
            },
            None => {
                let mut extra = HeaderMap::new();
                extra.insert(
                    HeaderName::from_static("mcp-method"),
                    HeaderValue::from_str(method).expect("ascii"),
                );
                if let Some(name) = name.and_then(|n| HeaderValue::from_str(n).ok()) {
                    extra.insert(HeaderName::from_static("mcp-name"), name);
                }
                PostHeaders { protocol_version: Some("2026-07-28".into()), session_id: None, extra }
            }
        }
    }

    /// Ends the legacy session, as a well-behaved agent does when it is done
    /// (Herald caps the sessions one token holds open).
    pub async fn close(self) -> anyhow::Result<()> {
        if let Some(session) = &self.session {
            self.endpoint.delete_session(session, "2025-11-25").await?;
        }
        Ok(())
    }

    /// Calls `tool` and returns the text of its result.
    pub async fn call(&self, tool: &str, arguments: Value) -> anyhow::Result<String> {
        let mut params = json!({ "name": tool, "arguments": arguments });
        if self.session.is_none() {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": { "name": "herald-bench", "version": "1" },
            });
        }
        let id = RequestId::Integer(self.next_id.fetch_add(1, Ordering::Relaxed));
        let message = Message::request(id, "tools/call", Some(raw(&params)));
        let (reply, _) =
            self.endpoint.post(message.to_json(), &self.headers("tools/call", Some(tool))).await?;
        let result = final_result(reply).await?;
        if result.get("isError") == Some(&Value::Bool(true)) {
            bail!("the tool failed: {result}");
        }
        let text = result["content"]
            .as_array()
            .map(|items| items.iter().filter_map(|c| c["text"].as_str()).collect::<Vec<_>>().join("\n"))
            .unwrap_or_default();
        Ok(text)
    }
}

/// The result of the response a reply ends with.
async fn final_result(reply: Reply) -> anyhow::Result<Value> {
    let message = match reply {
        Reply::Message(m) => m,
        Reply::Stream(mut stream) => loop {
            match stream.next().await {
                Some(Ok(Message::Notification { .. })) => continue,
                Some(Ok(m)) => break m,
                Some(Err(e)) => bail!("the reply stream broke: {e}"),
                None => bail!("the reply stream ended without a response"),
            }
        },
        Reply::Accepted => bail!("a request was answered 202"),
    };
    match message {
        Message::Response { result, .. } => Ok(serde_json::from_str(result.get())?),
        other => bail!("expected a result, got {}", other.to_json()),
    }
}
