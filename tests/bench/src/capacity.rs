//! Suspended capacity: many tool calls each waiting on a question, every
//! question on its user's websocket, then every one answered there.
//!
//! Users alternate between the generations (even: legacy agent and legacy
//! upstream; odd: modern and modern), so half the calls hold an upstream SSE
//! stream open in Herald and half do not. Calls are started, and answers
//! sent, at a steady rate: the latencies are those of a busy gateway, not
//! the queueing of one burst.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use futures_util::stream::StreamExt;
use futures_util::{SinkExt, TryStreamExt};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message as Frame;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use crate::agent::{Agent, Gen};
use crate::herald::ORG;
use crate::report::percentile_ms;
use crate::upstream::{ASK_PREFIX, Probe};

pub struct Scale {
    pub users: usize,
    pub calls: usize,
    /// Calls started, and answers sent, per second.
    pub rate: f64,
    /// Which generation the agents speak (both: even users legacy, odd users modern).
    pub mix: Mix,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mix {
    Both,
    Legacy,
    Modern,
}

#[derive(Default)]
pub struct Latencies {
    pub p50: f64,
    pub p99: f64,
}

pub struct Run {
    pub rss_before_kib: u64,
    pub rss_after_kib: u64,
    /// Per generation, then both: upstream's question → frame on the websocket.
    pub to_user: Vec<(&'static str, Latencies)>,
    /// Per generation, then both: the user's answer → the upstream has it.
    pub to_upstream: Vec<(&'static str, Latencies)>,
    pub lost: usize,
}

fn generation(mix: Mix, user: usize) -> Gen {
    match mix {
        Mix::Legacy => Gen::Legacy,
        Mix::Modern => Gen::Modern,
        Mix::Both if user.is_multiple_of(2) => Gen::Legacy,
        Mix::Both => Gen::Modern,
    }
}

/// How long a phase may take beyond its paced duration before the flow counts as broken.
const SLACK: Duration = Duration::from_secs(120);

pub async fn run(
    http: &reqwest::Client,
    base: &str,
    herald_pid: u32,
    tokens: &[String],
    probe: &Probe,
    scale: &Scale,
) -> anyhow::Result<Run> {
    probe.clear();
    let users = scale.users.min(tokens.len());
    // Every user's dashboard: frames are stamped as they are read.
    let shown: Arc<Mutex<HashMap<String, Instant>>> = Arc::default();
    let acks = Arc::new(AtomicUsize::new(0));
    let refusals = Arc::new(Mutex::new(Vec::<Value>::new()));
    let (created_tx, mut created_rx) = mpsc::unbounded_channel::<(usize, Value, String)>();
    let sockets = futures_util::stream::iter(0..users)
        .map(|u| {
            let (shown, acks, refusals, created_tx) =
                (shown.clone(), acks.clone(), refusals.clone(), created_tx.clone());
            let url = format!("{base}/api/v1/ws").replace("http://", "ws://");
            let token = tokens[u].clone();
            async move {
                let mut request = url.into_client_request()?;
                request.headers_mut().insert("authorization", format!("Bearer {token}").parse()?);
                let (socket, _) =
                    tokio_tungstenite::connect_async(request).await.context("open a websocket")?;
                let (sink, mut frames) = socket.split();
                tokio::spawn(async move {
                    while let Some(Ok(frame)) = frames.next().await {
                        let at = Instant::now();
                        let Frame::Text(text) = frame else { continue };
                        let Ok(event) = serde_json::from_str::<Value>(&text) else { continue };
                        match event["type"].as_str() {
                            Some("elicitation.created") => {
                                let Some(key) =
                                    event["message"].as_str().and_then(|m| m.strip_prefix(ASK_PREFIX))
                                else {
                                    continue;
                                };
                                let key = key.to_owned();
                                if shown.lock().expect("lock").insert(key.clone(), at).is_none() {
                                    let _ = created_tx.send((u, event["id"].clone(), key));
                                }
                            }
                            Some("ack") => {
                                acks.fetch_add(1, Ordering::Relaxed);
                            }
                            Some("error") => refusals.lock().expect("lock").push(event),
                            _ => {}
                        }
                    }
                });
                anyhow::Ok(tokio::sync::Mutex::new(sink))
            }
        })
        .buffered(32)
        .try_collect::<Vec<_>>()
        .await?;
    drop(created_tx);

    let agents: Vec<Arc<Agent>> = futures_util::stream::iter(0..users)
        .map(|u| async move {
            let (slug, g) = match generation(scale.mix, u) {
                Gen::Legacy => ("fast-legacy", Gen::Legacy),
                Gen::Modern => ("fast-modern", Gen::Modern),
            };
            let agent =
                Agent::connect(http, &format!("{base}/mcp/{ORG}/{slug}"), Some(&tokens[u]), g).await?;
            // Herald's link to the upstream for this user exists before the measured phase.
            agent.call("echo", json!({})).await?;
            anyhow::Ok(Arc::new(agent))
        })
        .buffered(32)
        .try_collect()
        .await?;

    let rss_before_kib = crate::herald::rss_kib(herald_pid)?;
    let period = Duration::from_secs_f64(1.0 / scale.rate);
    let paced = period.mul_f64(scale.calls as f64);
    let (done_tx, mut done_rx) = mpsc::unbounded_channel::<Result<(), String>>();
    let mut ticks = tokio::time::interval(period);
    for j in 0..scale.calls {
        ticks.tick().await;
        let u = j % users;
        let key = format!("u{u}-c{j}");
        let (agent, done_tx) = (agents[u].clone(), done_tx.clone());
        tokio::spawn(async move {
            let expected = format!("answered {key}: a-{key}");
            let outcome = match agent.call("ask", json!({ "key": key })).await {
                Ok(text) if text == expected => Ok(()),
                Ok(text) => Err(format!("{key}: wrong result {text:?}")),
                Err(e) => Err(format!("{key}: {e:#}")),
            };
            let _ = done_tx.send(outcome);
        });
    }
    drop(done_tx);

    // Every question on its user's websocket.
    let mut questions = Vec::with_capacity(scale.calls);
    let deadline = tokio::time::Instant::now() + SLACK;
    while questions.len() < scale.calls {
        match tokio::time::timeout_at(deadline, created_rx.recv()).await {
            Ok(Some(q)) => questions.push(q),
            _ => bail!(
                "only {} of {} questions reached the websockets ({} asked upstream); see Herald's log",
                questions.len(),
                scale.calls,
                probe.asked_count()
            ),
        }
    }
    let rss_after_kib = crate::herald::rss_kib(herald_pid)?;

    // Every one answered, at the same pace.
    let mut sent_at: HashMap<String, Instant> = HashMap::with_capacity(scale.calls);
    let mut ticks = tokio::time::interval(period);
    for (u, id, key) in &questions {
        ticks.tick().await;
        let frame = json!({ "type": "respond", "id": id, "action": "accept", "content": { "answer": format!("a-{key}") } });
        sent_at.insert(key.clone(), Instant::now());
        sockets[*u].lock().await.send(Frame::Text(frame.to_string().into())).await.context("answer")?;
    }

    let mut failures = Vec::new();
    let mut finished = 0;
    let deadline = tokio::time::Instant::now() + paced + SLACK;
    while finished < scale.calls {
        match tokio::time::timeout_at(deadline, done_rx.recv()).await {
            Ok(Some(outcome)) => {
                finished += 1;
                if let Err(e) = outcome {
                    failures.push(e);
                }
            }
            _ => break,
        }
    }
    let lost = scale.calls - finished + failures.len();
    for e in failures.iter().take(5) {
        eprintln!("lost call: {e}");
    }
    for r in refusals.lock().expect("lock").iter().take(5) {
        eprintln!("refused answer: {r}");
    }

    let asked = probe.asked.lock().expect("probe lock").clone();
    let answered = probe.answered.lock().expect("probe lock").clone();
    let shown = shown.lock().expect("lock").clone();
    let mut to_user: [Vec<Duration>; 2] = Default::default();
    let mut to_upstream: [Vec<Duration>; 2] = Default::default();
    for (u, _, key) in &questions {
        let g = usize::from(generation(scale.mix, *u) == Gen::Modern);
        if let (Some(a), Some(s)) = (asked.get(key), shown.get(key)) {
            to_user[g].push(s.saturating_duration_since(*a));
        }
        if let (Some(s), Some(r)) = (sent_at.get(key), answered.get(key)) {
            to_upstream[g].push(r.saturating_duration_since(*s));
        }
    }
    Ok(Run {
        rss_before_kib,
        rss_after_kib,
        to_user: summarise(to_user),
        to_upstream: summarise(to_upstream),
        lost,
    })
}

fn summarise([mut legacy, mut modern]: [Vec<Duration>; 2]) -> Vec<(&'static str, Latencies)> {
    let mut both: Vec<Duration> = legacy.iter().chain(&modern).copied().collect();
    let of = |v: &mut Vec<Duration>| Latencies { p50: percentile_ms(v, 50.0), p99: percentile_ms(v, 99.0) };
    vec![("legacy", of(&mut legacy)), ("modern", of(&mut modern)), ("both", of(&mut both))]
}
