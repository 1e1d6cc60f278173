//! Proxy overhead: `tools/call echo` through Herald against the same call
//! straight to the upstream, in the same run. Concurrency 1: the calls
//! alternate between the two paths, and the latency added is the difference
//! of the medians. Concurrency 32: the same number of calls on each path, and
//! the ratio of throughputs.

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
    pub herald_ms: f64,
    pub direct_per_s: f64,
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
    herald_url: &str,
    token: &str,
    scale: &Scale,
) -> anyhow::Result<Run> {
    let direct = Agent::connect(http, direct_url, None, generation).await?;
    let herald = Agent::connect(http, herald_url, Some(token), generation).await?;
    for _ in 0..scale.warmup {
        echo(&direct).await?;
        echo(&herald).await?;
    }
    let (mut d, mut h) = (Vec::with_capacity(scale.c1_calls), Vec::with_capacity(scale.c1_calls));
    for _ in 0..scale.c1_calls {
        let t = Instant::now();
        echo(&direct).await?;
        d.push(ms(t.elapsed()));
        let t = Instant::now();
        echo(&herald).await?;
        h.push(ms(t.elapsed()));
    }

    let mut per_s = Vec::new();
    for (url, token) in [(direct_url, None), (herald_url, Some(token))] {
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
    }
    Ok(Run { direct_ms: median(&d), herald_ms: median(&h), direct_per_s: per_s[0], herald_per_s: per_s[1] })
}

fn elapsed_s(d: Duration) -> f64 {
    d.as_secs_f64().max(1e-9)
}
