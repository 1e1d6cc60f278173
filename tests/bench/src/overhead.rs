//! Proxy overhead: `tools/call echo` through Herald against the same call
//! straight to the upstream, in the same run. Concurrency 1: the calls
//! alternate between the two paths, and the latency added is the difference
//! of the medians. Concurrency 32: the same number of calls on each path, and
//! the ratio of throughputs. A third path, through `bench-relay` (a bare
//! axum + reqwest relay), shows the floor any proxy of this kind sits on.

use std::time::{Duration, Instant};

use anyhow::bail;
use futures_util::future::try_join_all;
use serde_json::json;

use crate::agent::{Agent, Gen};
use crate::report::{median, ms};

pub struct Scale {
    pub warmup: usize,
    pub c1_calls: usize,
    pub c32_calls_per_worker: usize,
}

pub struct Run {
    pub direct_ms: f64,
    pub relay_ms: f64,
    pub herald_ms: f64,
    pub direct_per_s: f64,
    pub relay_per_s: f64,
    pub herald_per_s: f64,
}

pub const WORKERS: usize = 32;

async fn echo(agent: &Agent) -> anyhow::Result<()> {
    let text = agent.call("echo", json!({})).await?;
    if text != "echo" {
        bail!("echo answered {text:?}");
    }
    Ok(())
}

pub async fn run(
    http: &reqwest::Client,
    generation: Gen,
    direct_url: &str,
    relay_url: &str,
    herald_url: &str,
    token: &str,
    scale: &Scale,
) -> anyhow::Result<Run> {
    let paths = [(direct_url, None), (relay_url, None), (herald_url, Some(token))];
    let mut agents = Vec::new();
    for (url, token) in paths {
        agents.push(Agent::connect(http, url, token, generation).await?);
    }
    for _ in 0..scale.warmup {
        for agent in &agents {
            echo(agent).await?;
        }
    }
    let mut latencies = [(); 3].map(|()| Vec::with_capacity(scale.c1_calls));
    for _ in 0..scale.c1_calls {
        for (agent, latency) in agents.iter().zip(&mut latencies) {
            let t = Instant::now();
            echo(agent).await?;
            latency.push(ms(t.elapsed()));
        }
    }
    try_join_all(agents.into_iter().map(Agent::close)).await?;

    let mut per_s = Vec::new();
    for (url, token) in paths {
        let agents = try_join_all((0..WORKERS).map(|_| Agent::connect(http, url, token, generation))).await?;
        try_join_all(agents.iter().map(|a| async move {
            for _ in 0..scale.warmup.min(5) {
                echo(a).await?;
            }
            anyhow::Ok(())
        }))
        .await?;
        let t = Instant::now();
        try_join_all(agents.iter().map(|a| async move {
            for _ in 0..scale.c32_calls_per_worker {
                echo(a).await?;
            }
            anyhow::Ok(())
        }))
        .await?;
        per_s.push((WORKERS * scale.c32_calls_per_worker) as f64 / elapsed_s(t.elapsed()));
        try_join_all(agents.into_iter().map(Agent::close)).await?;
    }
    Ok(Run {
        direct_ms: median(&latencies[0]),
        relay_ms: median(&latencies[1]),
        herald_ms: median(&latencies[2]),
        direct_per_s: per_s[0],
        relay_per_s: per_s[1],
        herald_per_s: per_s[2],
    })
}

fn elapsed_s(d: Duration) -> f64 {
    d.as_secs_f64().max(1e-9)
}
