//! The whole flow against MCP servers nobody here wrote: agent → Herald →
//! peer server → elicitation → dashboard → answer → tool result at the agent.
//! Needs `tests/peers/install.sh`; `.ci/run` installs the peers and runs these.

use serde_json::{Value, json};

use herald_mcp::Message;

use crate::mcp_support::{Agent, Dashboard, Peer, PeerProcess, latest, register, result, text};
use crate::support::{Session, TestApp, body};

struct World {
    app: TestApp,
    owner: Session,
    token: String,
    peer: PeerProcess,
}

async fn world(peer: Peer, slug: &str, name: &str) -> World {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let token = app.token(&owner, "acme", "agent").await;
    let peer = PeerProcess::start(peer).await;
    register(&owner, slug, name, &peer.url).await;
    World { app, owner, token, peer }
}

/// A resolver-style tool of the Python SDK (it pushes in a 2025-11-25 session, the era Herald
/// picks for a server that speaks both); a legacy agent gets the final result once the person
/// answers.
#[tokio::test]
#[ignore = "needs the peer servers: tests/peers/install.sh"]
async fn python_modern_input_required_answered_over_the_websocket_for_a_legacy_agent() {
    let w = world(Peer::Python, "py", "Python Peer").await;
    let mut dashboard = Dashboard::open(&w.app, &w.token).await;
    let agent = Agent::legacy(&w.app, &w.token, "py").await;
    let call = tokio::spawn({
        let agent = agent.clone();
        async move { agent.call(7, "book_table", json!({ "restaurant": "Chez Herald" })).await }
    });
    let created = dashboard.next_of("elicitation.created").await;
    assert_eq!(created["server"], json!({ "slug": "py", "name": "Python Peer", "url": w.peer.url }));
    assert_eq!(created["tool"], "book_table");
    assert_eq!(created["mode"], "form");
    assert_eq!(created["status"], "pending");
    let id = created["id"].clone();

    // Content that breaks the form is refused with field errors; the question stays open.
    let refused =
        dashboard.respond(&id, "accept", Some(json!({ "date": "tomorrow", "party_size": 40 }))).await;
    assert_eq!(refused["type"], "error");
    assert_eq!(refused["code"], "invalid");
    let mut bad: Vec<_> = refused["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap().to_owned())
        .collect();
    bad.sort();
    assert_eq!(bad, ["date", "party_size"]);
    assert_eq!(latest(&w.owner).await["status"], "pending");

    let ack = dashboard.respond(&id, "accept", Some(json!({ "date": "2026-12-24", "party_size": 4 }))).await;
    assert_eq!(ack["type"], "ack");
    let resolved = dashboard.next_of("elicitation.resolved").await;
    assert_eq!(
        resolved,
        json!({ "type": "elicitation.resolved", "id": id, "action": "accept", "decided_by": "user", "reason": "answered" })
    );

    let done = call.await.unwrap();
    let answer: Value = serde_json::from_str(&text(&done)).unwrap();
    assert_eq!(answer["action"], "accept");
    // What the server received: the person's fields plus the schema's defaults.
    assert_eq!(
        answer["booking"],
        json!({ "date": "2026-12-24", "party_size": 4, "seating": "indoor", "high_chair": false, "notes": "" })
    );
    let record = latest(&w.owner).await;
    assert_eq!(record["content"]["party_size"], 4);
    assert_eq!(record["decided_by"], "user");
}

/// Issue 12, case 1: a tool written with the Python SDK's `ctx.elicit` can ask only in a
/// 2025-11-25 session. The server also answers `server/discover`, and Herald used to speak
/// 2026-07-28 to it, where every such call failed (-32600, no back-channel). Under `auto`
/// Herald opens a session, so the question reaches the person whatever era the agent speaks,
/// and a 2026-07-28 agent receives a valid 2026-07-28 result.
#[tokio::test]
#[ignore = "needs the peer servers: tests/peers/install.sh"]
async fn a_ctx_elicit_tool_of_a_dual_era_python_server_asks_agents_of_both_eras() {
    let w = world(Peer::Python, "py", "Python Peer").await;
    let mut dashboard = Dashboard::open(&w.app, &w.token).await;
    for (n, agent) in [Agent::legacy(&w.app, &w.token, "py").await, Agent::modern(&w.app, &w.token, "py")]
        .into_iter()
        .enumerate()
    {
        let modern = n == 1;
        let call = tokio::spawn({
            let agent = agent.clone();
            async move { agent.call(3, "confirm_deploy", json!({ "service": "api" })).await }
        });
        let created = dashboard.next_of("elicitation.created").await;
        assert_eq!(created["tool"], "confirm_deploy");
        assert_eq!(created["message"], "Deploy api to production?");
        let ack = dashboard.respond(&created["id"], "accept", Some(json!({ "confirm": true }))).await;
        assert_eq!(ack["type"], "ack", "{ack}");
        let done = call.await.unwrap();
        assert_eq!(text(&done), r#"deploy api: accepted: {"confirm": true}"#, "{}", done.to_json());
        assert_eq!(result(&done).get("resultType").and_then(Value::as_str), modern.then_some("complete"));
    }
}

#[tokio::test]
#[ignore = "needs the peer servers: tests/peers/install.sh"]
async fn python_decline_over_rest_reaches_a_modern_agent_as_a_decline() {
    let w = world(Peer::Python, "py", "Python Peer").await;
    let mut dashboard = Dashboard::open(&w.app, &w.token).await;
    let agent = Agent::modern(&w.app, &w.token, "py");
    let call = tokio::spawn({
        let agent = agent.clone();
        async move { agent.call(1, "book_table", json!({ "restaurant": "Le Refus" })).await }
    });
    let created = dashboard.next_of("elicitation.created").await;
    let id = created["id"].as_str().unwrap();
    let declined = w
        .owner
        .post(&format!("/api/v1/orgs/acme/elicitations/{id}/respond"), &json!({ "action": "decline" }))
        .await;
    assert_eq!(declined.status(), 200);
    assert_eq!(body(declined).await["action"], "decline");
    let done = call.await.unwrap();
    let answer: Value = serde_json::from_str(&text(&done)).unwrap();
    assert_eq!(answer["action"], "decline", "a decline is a normal result, not an error");
    assert_eq!(result(&done)["isError"], false);
    // Answering again is refused.
    let again = w
        .owner
        .post(
            &format!("/api/v1/orgs/acme/elicitations/{id}/respond"),
            &json!({ "action": "accept", "content": {} }),
        )
        .await;
    assert_eq!(again.status(), 409);
}

/// server-everything pushes `elicitation/create` on the call's SSE stream
/// (legacy); Herald answers with a POSTed response.
#[tokio::test]
#[ignore = "needs the peer servers: tests/peers/install.sh"]
async fn everything_form_with_every_variant_accepted_with_exact_content() {
    let w = world(Peer::Everything, "everything", "Everything").await;
    let mut dashboard = Dashboard::open(&w.app, &w.token).await;
    let agent = Agent::modern(&w.app, &w.token, "everything");
    let call = tokio::spawn({
        let agent = agent.clone();
        async move { agent.call(3, "trigger-elicitation-request", json!({})).await }
    });
    let created = dashboard.next_of("elicitation.created").await;
    let kinds: Vec<_> = created["form"]["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        kinds.contains(&"titledMultipleSelectEnum".to_owned())
            && kinds.contains(&"legacyTitledEnum".to_owned()),
        "{kinds:?}"
    );
    let ack = dashboard
        .respond(&created["id"], "accept", Some(json!({ "name": "Ada", "email": "ada@example.com" })))
        .await;
    assert_eq!(ack["type"], "ack", "{ack}");
    let done = call.await.unwrap();
    let said = text(&done);
    assert!(said.contains("\"action\": \"accept\""), "{said}");
    assert!(said.contains("\"name\": \"Ada\""), "{said}");
    // Defaults the person left alone were filled in (the conformance scenario checks this).
    let record = latest(&w.owner).await;
    let content = record["content"].as_object().unwrap();
    for field in created["form"]["fields"].as_array().unwrap() {
        if !field["default"].is_null() {
            let name = field["name"].as_str().unwrap();
            assert!(content.contains_key(name), "default for {name} filled in: {content:?}");
        }
    }
}

#[tokio::test]
#[ignore = "needs the peer servers: tests/peers/install.sh"]
async fn dismiss_is_a_cancel_and_the_first_answer_wins_across_tabs() {
    let w = world(Peer::Everything, "everything", "Everything").await;
    let mut first_tab = Dashboard::open(&w.app, &w.token).await;
    let mut second_tab = Dashboard::open(&w.app, &w.token).await;
    let agent = Agent::legacy(&w.app, &w.token, "everything").await;
    let call = tokio::spawn({
        let agent = agent.clone();
        async move { agent.call(1, "trigger-elicitation-request", json!({})).await }
    });
    let created = first_tab.next_of("elicitation.created").await;
    assert_eq!(second_tab.next_of("elicitation.created").await["id"], created["id"]);
    assert_eq!(first_tab.respond(&created["id"], "cancel", None).await["type"], "ack");
    // The other tab is told the form is gone, and a late answer there is refused.
    let withdrawn = second_tab.next_of("elicitation.resolved").await;
    assert_eq!(withdrawn["action"], "cancel");
    assert_eq!(withdrawn["reason"], "dismissed");
    let late = second_tab.respond(&created["id"], "accept", Some(json!({}))).await;
    assert_eq!(late["type"], "error");
    assert_eq!(late["code"], "ended");
    let done = call.await.unwrap();
    assert!(text(&done).contains("cancel"), "{}", text(&done));
}

#[tokio::test]
#[ignore = "needs the peer servers: tests/peers/install.sh"]
async fn an_agent_that_goes_away_cancels_its_elicitation() {
    let w = world(Peer::Everything, "everything", "Everything").await;
    let mut dashboard = Dashboard::open(&w.app, &w.token).await;
    let agent = Agent::legacy(&w.app, &w.token, "everything").await;
    let call = tokio::spawn({
        let agent = agent.clone();
        async move { agent.call(1, "trigger-elicitation-request", json!({})).await }
    });
    let created = dashboard.next_of("elicitation.created").await;
    call.abort(); // the agent hangs up mid-call
    let resolved = dashboard.next_of("elicitation.resolved").await;
    assert_eq!(resolved["id"], created["id"]);
    assert_eq!(resolved["decided_by"], "caller");
    assert_eq!(resolved["reason"], "caller_cancelled");
    assert_eq!(latest(&w.owner).await["action"], "cancel");
}

#[tokio::test]
#[ignore = "needs the peer servers: tests/peers/install.sh"]
async fn a_server_that_dies_mid_question_ends_it_as_upstream_lost() {
    let mut w = world(Peer::Everything, "everything", "Everything").await;
    let mut dashboard = Dashboard::open(&w.app, &w.token).await;
    let agent = Agent::legacy(&w.app, &w.token, "everything").await;
    let call = tokio::spawn({
        let agent = agent.clone();
        async move { agent.call(1, "trigger-elicitation-request", json!({})).await }
    });
    dashboard.next_of("elicitation.created").await;
    w.peer.kill().await;
    let resolved = dashboard.next_of("elicitation.resolved").await;
    assert_eq!(resolved["decided_by"], "system");
    assert_eq!(resolved["reason"], "upstream_lost");
    let done = call.await.unwrap();
    let herald_mcp::Message::Error { error, .. } = &done else {
        panic!("expected an error: {}", done.to_json())
    };
    assert!(error.message.contains("everything"), "the error names the server: {}", error.message);
}

#[tokio::test]
#[ignore = "needs the peer servers: tests/peers/install.sh"]
async fn url_mode_is_shown_with_its_url_and_accept_means_consent() {
    let w = world(Peer::Everything, "everything", "Everything").await;
    let mut dashboard = Dashboard::open(&w.app, &w.token).await;
    let agent = Agent::legacy(&w.app, &w.token, "everything").await;
    let call = tokio::spawn({
        let agent = agent.clone();
        async move {
            agent
                .call(1, "trigger-url-elicitation", json!({ "url": "https://auth.example.com/connect" }))
                .await
        }
    });
    let created = dashboard.next_of("elicitation.created").await;
    assert_eq!(created["mode"], "url");
    assert_eq!(created["url"], "https://auth.example.com/connect");
    let content_refused = dashboard.respond(&created["id"], "accept", Some(json!({ "x": 1 }))).await;
    assert_eq!(content_refused["type"], "error");
    assert_eq!(dashboard.respond(&created["id"], "accept", None).await["type"], "ack");
    let done = call.await.unwrap();
    assert!(text(&done).contains("accept"), "{}", text(&done));
}

#[tokio::test]
#[ignore = "needs the peer servers: tests/peers/install.sh"]
async fn plain_calls_pass_through_untouched() {
    let w = world(Peer::Everything, "everything", "Everything").await;
    for (n, agent) in
        [Agent::legacy(&w.app, &w.token, "everything").await, Agent::modern(&w.app, &w.token, "everything")]
            .into_iter()
            .enumerate()
    {
        let modern = n == 1;
        let (_, listed) = agent.request(1, "tools/list", json!({})).await;
        // Issue 12, case 2: a 2026-07-28 agent gets 2026-07-28 results from a 2025-11-25-only
        // server (`resultType`, and the cache hints of list results); a legacy agent gets them as sent.
        let listed_result = result(&listed);
        assert_eq!(listed_result.get("resultType").and_then(Value::as_str), modern.then_some("complete"));
        assert_eq!(listed_result.get("cacheScope").and_then(Value::as_str), modern.then_some("private"));
        assert_eq!(listed_result.get("ttlMs").and_then(Value::as_u64), modern.then_some(0));
        let names: Vec<_> = result(&listed)["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect();
        assert!(names.contains(&"echo".to_owned()), "{names:?}");
        let echoed = agent.call(2, "echo", json!({ "message": "héllo ✓ \u{202e}" })).await;
        assert!(text(&echoed).contains("héllo ✓ \u{202e}"), "{}", text(&echoed));
        assert_eq!(result(&echoed).get("resultType").and_then(Value::as_str), modern.then_some("complete"));
        let summed = agent.call(3, "get-structured-content", json!({ "location": "New York" })).await;
        assert!(result(&summed)["structuredContent"].is_object(), "{}", summed.to_json());
        let (_, pong) = agent.request(4, "ping", json!({})).await;
        assert!(matches!(pong, herald_mcp::Message::Response { .. }));
        let (_, prompts) = agent.request(5, "prompts/list", json!({})).await;
        assert!(result(&prompts)["prompts"].is_array());
        let (_, resources) = agent.request(6, "resources/list", json!({})).await;
        assert!(result(&resources)["resources"].is_array());
    }
}

/// 2025-11-25's -32042: the server refuses until the user has been through
/// some URLs. Herald shows them; once all are accepted it retries the call once.
#[tokio::test]
#[ignore = "needs the peer servers: tests/peers/install.sh"]
async fn url_elicitation_required_is_shown_then_the_call_is_retried_once() {
    let w = world(Peer::Everything, "everything", "Everything").await;
    let mut dashboard = Dashboard::open(&w.app, &w.token).await;
    let agent = Agent::legacy(&w.app, &w.token, "everything").await;
    let call = tokio::spawn({
        let agent = agent.clone();
        async move {
            agent
                .call(
                    1,
                    "trigger-url-elicitation",
                    json!({ "url": "https://auth.example.com/x", "errorPath": true }),
                )
                .await
        }
    });
    let prerequisite = dashboard.next_of("elicitation.created").await;
    assert_eq!(prerequisite["mode"], "url");
    assert_eq!(prerequisite["url"], "https://modelcontextprotocol.io");
    assert_eq!(dashboard.respond(&prerequisite["id"], "accept", None).await["type"], "ack");
    // The retry reaches the tool, which now asks its own URL question.
    let question = dashboard.next_of("elicitation.created").await;
    assert_eq!(question["url"], "https://auth.example.com/x");
    assert_eq!(dashboard.respond(&question["id"], "accept", None).await["type"], "ack");
    let done = call.await.unwrap();
    assert!(text(&done).contains("accept"), "{}", done.to_json());

    // Declining the prerequisite leaves the server's own error for the agent.
    let call = tokio::spawn({
        let agent = agent.clone();
        async move {
            agent
                .call(
                    2,
                    "trigger-url-elicitation",
                    json!({ "url": "https://auth.example.com/y", "errorPath": true }),
                )
                .await
        }
    });
    let prerequisite = dashboard.next_of("elicitation.created").await;
    assert_eq!(dashboard.respond(&prerequisite["id"], "decline", None).await["type"], "ack");
    let done = call.await.unwrap();
    let herald_mcp::Message::Error { error, .. } = &done else {
        panic!("expected the -32042 error: {}", done.to_json())
    };
    assert_eq!(error.code, -32042);
}

/// A legacy agent's `notifications/cancelled` for its call ends the question
/// (and the call) as cancelled by the caller.
#[tokio::test]
#[ignore = "needs the peer servers: tests/peers/install.sh"]
async fn a_legacy_agent_cancelling_its_call_cancels_the_question() {
    let w = world(Peer::Everything, "everything", "Everything").await;
    let mut dashboard = Dashboard::open(&w.app, &w.token).await;
    let agent = Agent::legacy(&w.app, &w.token, "everything").await;
    let call = tokio::spawn({
        let agent = agent.clone();
        async move {
            agent
                .request(41, "tools/call", json!({ "name": "trigger-elicitation-request", "arguments": {} }))
                .await
        }
    });
    let created = dashboard.next_of("elicitation.created").await;
    agent.notify("notifications/cancelled", json!({ "requestId": 41, "reason": "user pressed stop" })).await;
    let resolved = dashboard.next_of("elicitation.resolved").await;
    assert_eq!(resolved["id"], created["id"]);
    assert_eq!(
        (resolved["decided_by"].clone(), resolved["reason"].clone()),
        (json!("caller"), json!("caller_cancelled"))
    );
    // The cancelled call's stream ends without a response (the test agent
    // treats that as a failure, hence the panicked task): none is owed.
    assert!(call.await.unwrap_err().is_panic(), "no response follows a cancellation");
}

// --- the server's own requests (sampling, roots) in legacy sessions ------------------------

/// A sampling answer, as an agent's model would give it.
fn sampled(request: &Message, text: &str) -> Message {
    let Message::Request { id, .. } = request else { panic!("a request") };
    let answer = json!({
        "role": "assistant",
        "content": { "type": "text", "text": text },
        "model": "test-model",
        "stopReason": "endTurn",
    });
    Message::response(id.clone(), crate::mcp_support::raw(&answer))
}

fn method_of(message: &Message) -> &str {
    message.method().expect("a request")
}

/// server-everything offers its sampling tool only to clients that declared sampling: Herald
/// declares it upstream for a legacy agent that declared it, relays the server's
/// `sampling/createMessage` to the agent on the call's stream (under an id of Herald's own), and
/// carries the agent's answer back.
#[tokio::test]
#[ignore = "needs the peer servers: tests/peers/install.sh"]
async fn sampling_is_relayed_to_a_legacy_agent_that_declared_it() {
    let w = world(Peer::Everything, "everything", "Everything").await;
    let agent = Agent::legacy_declaring(&w.app, &w.token, "everything", json!({ "sampling": {} })).await;
    let (_, listed) = agent.request(1, "tools/list", json!({})).await;
    assert!(
        result(&listed)["tools"].to_string().contains("trigger-sampling-request"),
        "{}",
        listed.to_json()
    );
    let (asked, done) = agent
        .call_answering(2, "trigger-sampling-request", json!({ "prompt": "Say hi", "maxTokens": 20 }), |r| {
            sampled(r, "Hi from the agent's model")
        })
        .await;
    assert_eq!(asked.len(), 1);
    assert_eq!(method_of(&asked[0]), "sampling/createMessage");
    assert!(matches!(asked[0].id(), Some(herald_mcp::RequestId::String(id)) if id.starts_with("herald-")));
    assert!(asked[0].to_json().contains("Say hi"), "{}", asked[0].to_json());
    assert!(text(&done).contains("Hi from the agent's model"), "{}", done.to_json());

    // A legacy agent that did not declare sampling never sees the tool: its session declared nothing.
    let undeclared = Agent::legacy(&w.app, &w.token, "everything").await;
    let (_, listed) = undeclared.request(1, "tools/list", json!({})).await;
    assert!(!result(&listed)["tools"].to_string().contains("trigger-sampling-request"));
}

/// A 2026-07-28 agent has no stream for the server's requests: Herald asks it the 2026-07-28
/// way, with an `input_required` result for its call; the call waits, parked, for the agent's
/// retry with `inputResponses` and the `requestState` it was given, and then goes on.
#[tokio::test]
#[ignore = "needs the peer servers: tests/peers/install.sh"]
async fn sampling_reaches_a_modern_agent_as_input_required_and_its_retry_resumes_the_call() {
    for (peer, slug, tool, args) in [
        (
            Peer::Everything,
            "everything",
            "trigger-sampling-request",
            json!({ "prompt": "Say hi", "maxTokens": 20 }),
        ),
        (Peer::Python, "py", "ask_model", json!({ "prompt": "Name a colour" })),
    ] {
        let w = world(peer, slug, slug).await;
        let agent = Agent::modern_declaring(&w.app, &w.token, slug, json!({ "sampling": {} }));
        let first = agent.call(1, tool, args.clone()).await;
        let asked = result(&first);
        assert_eq!(asked["resultType"], "input_required", "{asked}");
        let (key, request) = asked["inputRequests"].as_object().unwrap().iter().next().unwrap();
        assert_eq!(request["method"], "sampling/createMessage", "{asked}");
        let ticket = asked["requestState"].as_str().unwrap();
        assert!(ticket.starts_with("herald-park."), "{ticket}");
        let answer = json!({
            "role": "assistant", "content": { "type": "text", "text": "teal" }, "model": "m", "stopReason": "endTurn",
        });
        let retry = json!({ "name": tool, "arguments": args, "inputResponses": { key: answer }, "requestState": ticket });
        let (_, done) = agent.request(2, "tools/call", retry.clone()).await;
        assert!(
            matches!(done.id(), Some(herald_mcp::RequestId::Integer(2))),
            "answered under the retry's id"
        );
        assert_eq!(result(&done)["resultType"], "complete");
        assert!(text(&done).contains("teal"), "{}", done.to_json());
        // A ticket is good once.
        let (_, again) = agent.request(3, "tools/call", retry).await;
        assert!(matches!(again, Message::Error { .. }), "{}", again.to_json());
    }
}

/// The Python SDK sends `sampling/createMessage` whatever the client declared. Herald relays it
/// to a legacy agent that declared sampling (its answer, an error included, reaches the server);
/// the server of an agent that did not declare it gets a JSON-RPC error that says why, at once.
#[tokio::test]
#[ignore = "needs the peer servers: tests/peers/install.sh"]
async fn sampling_reaches_only_agents_that_can_answer_and_the_server_learns_why_otherwise() {
    let w = world(Peer::Python, "py", "Python Peer").await;
    let args = json!({ "prompt": "Name a colour" });

    let able = Agent::legacy_declaring(&w.app, &w.token, "py", json!({ "sampling": {} })).await;
    let (asked, done) = able.call_answering(2, "ask_model", args.clone(), |r| sampled(r, "teal")).await;
    assert_eq!(asked.len(), 1);
    assert_eq!(text(&done), "model said: teal");
    let (_, refused) = able
        .call_answering(3, "ask_model", args.clone(), |r| {
            Message::error(r.id().cloned(), -1, "the user rejected the sampling request")
        })
        .await;
    assert_eq!(text(&refused), "sampling failed: the user rejected the sampling request (-1)");

    let undeclared = Agent::legacy(&w.app, &w.token, "py").await;
    let (asked, done) =
        undeclared.call_answering(2, "ask_model", args.clone(), |_| panic!("not relayed")).await;
    assert!(asked.is_empty());
    assert_eq!(
        text(&done),
        "sampling failed: sampling/createMessage cannot be relayed: the agent did not declare the sampling capability (-32601)"
    );

    let modern = Agent::modern(&w.app, &w.token, "py");
    let done = modern.call(2, "ask_model", args).await;
    assert_eq!(
        text(&done),
        "sampling failed: sampling/createMessage cannot be relayed: the agent did not declare the sampling capability (-32601)"
    );
}

/// The Python SDK sends `roots/list` on the standalone stream: Herald relays it to the agent's
/// own standalone stream and carries the answer back.
#[tokio::test]
#[ignore = "needs the peer servers: tests/peers/install.sh"]
async fn roots_asked_outside_a_call_reach_the_agents_standalone_stream() {
    use futures_util::StreamExt;
    let w = world(Peer::Python, "py", "Python Peer").await;
    let agent =
        Agent::legacy_declaring(&w.app, &w.token, "py", json!({ "roots": { "listChanged": false } })).await;
    let mut stream = agent.listen().await;
    let call = tokio::spawn({
        let agent = agent.clone();
        async move { agent.call(2, "list_my_roots", json!({})).await }
    });
    let asked = loop {
        match stream.next().await.expect("the stream stays open").expect("well-formed") {
            request @ Message::Request { .. } => break request,
            _ => continue,
        }
    };
    assert_eq!(method_of(&asked), "roots/list");
    let roots = json!({ "roots": [{ "uri": "file:///work/project", "name": "project" }] });
    let answer = Message::response(asked.id().unwrap().clone(), crate::mcp_support::raw(&roots));
    assert!(matches!(agent.send(&answer).await, herald_mcp::transport::Reply::Accepted));
    assert_eq!(text(&call.await.unwrap()), "roots: file:///work/project");
}
