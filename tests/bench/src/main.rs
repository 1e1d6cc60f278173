//! Herald's benchmark suite: `tests/bench/run.sh [--smoke]` builds and runs
//! it. Spawns a release-built `herald` per database, sets it up through
//! `herald bootstrap` and the REST API, and measures proxy overhead,
//! suspended capacity, cold start and idle memory against a fast upstream
//! MCP server in this process. Prints a table and writes JSON; every figure
//! is the median of repeated runs, with its goal beside it. It fails only
//! when a flow breaks (a setup error, a lost call), never on a number.

mod agent;
mod capacity;
mod herald;
mod overhead;
mod relay;
mod report;
mod upstream;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Parser;
use serde_json::json;

use agent::Gen;
use herald::{Database, Db, Herald};
use report::{Figure, Goal};

#[derive(Parser, Debug)]
#[command(about = "Herald's benchmark suite (see docs/performance.md)")]
struct Args {
    /// Tiny counts, one run each: proves every flow works, in well under two minutes.
    #[arg(long)]
    smoke: bool,
    /// The release-built herald (default: next to this binary).
    #[arg(long)]
    herald: Option<PathBuf>,
    /// Where the JSON goes (default: target/bench/results.json, next to the build).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Which databases.
    #[arg(long, value_enum, default_value = "both")]
    db: DbChoice,
    /// PostgreSQL server; a fresh database is created on it and dropped afterwards.
    #[arg(long, default_value = "postgres://postgres@127.0.0.1:5432")]
    pg_url: String,
    /// Repeated runs of the overhead and cold-start measurements (default 5; smoke 1).
    #[arg(long)]
    runs: Option<usize>,
    /// Repeated runs of the suspended-capacity measurement (default 3; smoke 1).
    #[arg(long)]
    capacity_runs: Option<usize>,
    /// Users with a websocket open (default 1000; smoke 5).
    #[arg(long)]
    users: Option<usize>,
    /// Tool calls suspended at once (default 10000; smoke 20).
    #[arg(long)]
    suspended: Option<usize>,
    /// Calls started, and answers sent, per second in the capacity phase.
    #[arg(long, default_value_t = 500.0)]
    rate: f64,
    /// Which generation the capacity phase's agents speak (both: half each).
    #[arg(long, value_enum, default_value = "both")]
    capacity_generation: capacity::Mix,
    /// Which measurements (default all); the others are skipped.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "cold,overhead,telemetry,capacity")]
    phases: Vec<Phase>,
    /// The output of `cargo bench -p herald-policy --bench detector`, for the detector's figures.
    #[arg(long)]
    detector: Option<PathBuf>,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Cold,
    Overhead,
    /// The proxy overhead again, under each logging and telemetry set-up.
    Telemetry,
    Capacity,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum DbChoice {
    Sqlite,
    Postgres,
    Both,
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    match run(args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("herald-bench: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> anyhow::Result<()> {
    let exe_dir = std::env::current_exe()?.parent().context("the binary has a directory")?.to_owned();
    let bin = args.herald.clone().unwrap_or_else(|| exe_dir.join("herald"));
    anyhow::ensure!(
        bin.is_file(),
        "no herald binary at {} (build it with cargo build --release)",
        bin.display()
    );
    let target = exe_dir.parent().unwrap_or(&exe_dir);
    let out = args.out.clone().unwrap_or_else(|| target.join("bench/results.json"));
    let smoke = args.smoke;
    let runs = args.runs.unwrap_or(if smoke { 1 } else { 5 }).max(1);
    let capacity_runs = args.capacity_runs.unwrap_or(if smoke { 1 } else { 3 }).max(1);
    let users = args.users.unwrap_or(if smoke { 5 } else { 1000 }).max(1);
    let suspended = args.suspended.unwrap_or(if smoke { 20 } else { 10_000 }).max(1);
    anyhow::ensure!(args.rate > 0.0, "--rate must be positive");
    let overhead_scale = if smoke {
        overhead::Scale { warmup: 5, c1_calls: 50, c32_calls_per_worker: 5 }
    } else {
        overhead::Scale { warmup: 200, c1_calls: 2000, c32_calls_per_worker: 200 }
    };
    let capacity_scale =
        capacity::Scale { users, calls: suspended, rate: args.rate, mix: args.capacity_generation };
    let dbs = match args.db {
        DbChoice::Sqlite => vec![Db::Sqlite],
        DbChoice::Postgres => vec![Db::Postgres],
        DbChoice::Both => vec![Db::Sqlite, Db::Postgres],
    };

    let scratch = std::env::temp_dir().join(format!("herald-bench-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)?;
    let http = agent::client();
    let upstream = upstream::Upstream::start().await?;
    let relay = relay::Relay::start(&exe_dir, &upstream.url("")).await?;
    let mut figures = Vec::new();
    let started = Instant::now();
    let mut broken = None;
    let rig = Rig { bin: &bin, http: &http, upstream: &upstream, relay: &relay };
    for kind in dbs {
        let outcome = one_database(
            kind,
            &args,
            &rig,
            &scratch,
            runs,
            capacity_runs,
            &overhead_scale,
            &capacity_scale,
            &mut figures,
        )
        .await;
        if let Err(e) = outcome {
            // What was measured before the break is still reported, then the break.
            eprintln!("Herald's log is kept in {}", scratch.join(kind.name()).display());
            broken = Some(e.context(format!("on {}", kind.name())));
            break;
        }
    }
    if let Some(path) = &args.detector {
        detector(path, &mut figures)?;
    }
    if broken.is_none() {
        let _ = std::fs::remove_dir_all(&scratch);
    }

    report::by_section(&mut figures);
    report::print_table(&figures);
    let meta = json!({
        "smoke": smoke,
        "runs": runs,
        "capacity_runs": capacity_runs,
        "users": users,
        "suspended": suspended,
        "rate_per_s": args.rate,
        "overhead_calls_c1": overhead_scale.c1_calls,
        "overhead_calls_c32": overhead_scale.c32_calls_per_worker * overhead::WORKERS,
        "machine": machine(),
        "seconds": started.elapsed().as_secs(),
        "broken": broken.as_ref().map(|e| format!("{e:#}")),
    });
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(&out, serde_json::to_string_pretty(&report::to_json(&figures, meta))?)?;
    println!("\nJSON: {}", out.display());
    broken.map_or(Ok(()), Err)
}

/// What every measurement runs against: the release `herald`, the driver's HTTP client, the
/// fast upstream and the bare relay in front of it.
struct Rig<'a> {
    bin: &'a Path,
    http: &'a reqwest::Client,
    upstream: &'a upstream::Upstream,
    relay: &'a relay::Relay,
}

impl Rig<'_> {
    /// `runs` proxy-overhead runs of `generation`: directly, through the relay and through the
    /// Herald at `herald_base` (as `token`), each against the upstream path of that generation.
    async fn overhead(
        &self,
        generation: Gen,
        herald_base: &str,
        token: &str,
        runs: usize,
        scale: &overhead::Scale,
    ) -> anyhow::Result<Vec<overhead::Run>> {
        let path = generation.name();
        let direct = self.upstream.url(path);
        let relayed = self.relay.url(path);
        let herald = format!("{herald_base}/mcp/{}/fast-{path}", herald::ORG);
        let mut all = Vec::with_capacity(runs);
        for _ in 0..runs {
            all.push(overhead::run(self.http, generation, &direct, &relayed, &herald, token, scale).await?);
        }
        Ok(all)
    }
}

#[allow(clippy::too_many_arguments)] // one call site; a struct would only rename them
async fn one_database(
    kind: Db,
    args: &Args,
    rig: &Rig<'_>,
    scratch: &Path,
    runs: usize,
    capacity_runs: usize,
    overhead_scale: &overhead::Scale,
    capacity_scale: &capacity::Scale,
    figures: &mut Vec<Figure>,
) -> anyhow::Result<()> {
    let Rig { bin, http, upstream, .. } = *rig;
    let db = Database::create(kind, &args.pg_url, scratch)?;
    let name = kind.name();
    eprintln!("[{name}] bootstrap");
    herald::bootstrap(bin, &db).await?;

    let phase = |p| args.phases.contains(&p);
    let cold_runs = if phase(Phase::Cold) { runs } else { 0 };
    eprintln!("[{name}] cold start × {cold_runs}");
    let (mut ready, mut idle) = (Vec::new(), Vec::new());
    for _ in 0..cold_runs {
        let herald = Herald::start(bin, &db, http).await?;
        ready.push(report::ms(herald.ready_after));
        // Idle: serving, nothing asked of it; let start-up's transient allocations settle.
        tokio::time::sleep(Duration::from_millis(if args.smoke { 200 } else { 1000 })).await;
        idle.push(herald.rss_kib()? as f64 / 1024.0);
        herald.stop().await?;
    }
    let section = "Cold start and idle memory";
    if phase(Phase::Cold) {
        figures.push(fig(section, "spawn → /readyz 200", name.into(), "ms", ready, Goal::None));
        figures.push(fig(section, "idle RSS", name.into(), "MiB", idle, Goal::None));
    }

    let herald = Herald::start(bin, &db, http).await?;
    let owner = herald::setup_owner(http, &herald.base, upstream).await?;
    let generations = if phase(Phase::Overhead) { vec![Gen::Legacy, Gen::Modern] } else { vec![] };
    for generation in generations {
        let g = generation.name();
        eprintln!("[{name}] proxy overhead, {g} × {runs}");
        let all = rig.overhead(generation, &herald.base, &owner, runs, overhead_scale).await?;
        let config = format!("{g}, {name}");
        let section = "Proxy overhead (tools/call, no elicitation)";
        let col = |f: fn(&overhead::Run) -> f64| all.iter().map(f).collect::<Vec<_>>();
        figures.push(fig(
            section,
            "latency added at c=1",
            config.clone(),
            "ms",
            col(|r| r.herald_ms - r.direct_ms),
            Goal::Below(0.2),
        ));
        figures.push(fig(
            section,
            "latency direct at c=1",
            config.clone(),
            "ms",
            col(|r| r.direct_ms),
            Goal::None,
        ));
        figures.push(fig(
            section,
            "latency via Herald at c=1",
            config.clone(),
            "ms",
            col(|r| r.herald_ms),
            Goal::None,
        ));
        figures.push(fig(
            section,
            "latency added by a bare relay at c=1",
            config.clone(),
            "ms",
            col(|r| r.relay_ms - r.direct_ms),
            Goal::None,
        ));
        figures.push(fig(
            section,
            "throughput via Herald / direct at c=32",
            config.clone(),
            "ratio",
            col(|r| r.herald_per_s / r.direct_per_s),
            Goal::AtLeast(0.5),
        ));
        figures.push(fig(
            section,
            "throughput direct at c=32",
            config.clone(),
            "calls/s",
            col(|r| r.direct_per_s),
            Goal::None,
        ));
        figures.push(fig(
            section,
            "throughput via Herald at c=32",
            config.clone(),
            "calls/s",
            col(|r| r.herald_per_s),
            Goal::None,
        ));
        figures.push(fig(
            section,
            "throughput via a bare relay / direct at c=32",
            config,
            "ratio",
            col(|r| r.relay_per_s / r.direct_per_s),
            Goal::None,
        ));
    }

    let herald = if phase(Phase::Telemetry) {
        // One process per set-up; SQLite allows one at a time.
        herald.stop().await?;
        telemetry_setups(name, rig, &db, &owner, runs, overhead_scale, figures).await?;
        Herald::start(bin, &db, http).await?
    } else {
        herald
    };

    if !phase(Phase::Capacity) {
        return herald.stop().await;
    }
    eprintln!("[{name}] {} members (invites and accepts; not measured)", capacity_scale.users);
    let t = Instant::now();
    let tokens = herald::members(http, &herald.base, &owner, capacity_scale.users).await?;
    eprintln!("[{name}] members ready in {:.1} s", t.elapsed().as_secs_f64());
    herald.stop().await?;
    db.settle()?;

    let mut all = Vec::new();
    for r in 0..capacity_runs {
        eprintln!("[{name}] suspended capacity, run {} of {capacity_runs}", r + 1);
        // A fresh process per run, so its memory is this run's alone.
        let herald = Herald::start(bin, &db, http).await?;
        let run =
            capacity::run(http, &herald.base, herald.pid, &tokens, &upstream.probe, capacity_scale).await;
        herald.stop().await?;
        let run = run?;
        anyhow::ensure!(run.lost == 0, "{} of {} suspended calls were lost", run.lost, capacity_scale.calls);
        all.push(run);
    }
    let section = "Suspended capacity";
    let mix = match capacity_scale.mix {
        capacity::Mix::Both => String::new(),
        only => format!(", {only:?} only").to_lowercase(),
    };
    let config = format!("{name}, {} calls, {} users{mix}", capacity_scale.calls, capacity_scale.users);
    let per_call = all
        .iter()
        .map(|r| (r.rss_after_kib as f64 - r.rss_before_kib as f64) / capacity_scale.calls as f64)
        .collect();
    figures.push(fig(
        section,
        "memory added per suspended call",
        config.clone(),
        "KiB",
        per_call,
        Goal::Below(16.0),
    ));
    let rss = |f: fn(&capacity::Run) -> u64| all.iter().map(|r| f(r) as f64 / 1024.0).collect::<Vec<_>>();
    figures.push(fig(
        section,
        "RSS before the calls",
        config.clone(),
        "MiB",
        rss(|r| r.rss_before_kib),
        Goal::None,
    ));
    figures.push(fig(
        section,
        "RSS with every call suspended",
        config.clone(),
        "MiB",
        rss(|r| r.rss_after_kib),
        Goal::None,
    ));
    for (i, which) in ["legacy", "modern", "both"].into_iter().enumerate() {
        let config = format!("{name}, {which}");
        let goal = |g| if which == "both" { Goal::Below(g) } else { Goal::None };
        let pick = |f: fn(&capacity::Run) -> &Vec<(&'static str, capacity::Latencies)>, p99: bool| {
            all.iter().map(|r| if p99 { f(r)[i].1.p99 } else { f(r)[i].1.p50 }).collect::<Vec<_>>()
        };
        figures.push(fig(
            section,
            "question → websocket frame, p50",
            config.clone(),
            "ms",
            pick(|r| &r.to_user, false),
            Goal::None,
        ));
        figures.push(fig(
            section,
            "question → websocket frame, p99",
            config.clone(),
            "ms",
            pick(|r| &r.to_user, true),
            goal(20.0),
        ));
        figures.push(fig(
            section,
            "answer → upstream, p50",
            config.clone(),
            "ms",
            pick(|r| &r.to_upstream, false),
            Goal::None,
        ));
        figures.push(fig(
            section,
            "answer → upstream, p99",
            config,
            "ms",
            pick(|r| &r.to_upstream, true),
            goal(20.0),
        ));
    }
    figures.push(fig(
        section,
        "calls lost",
        name.into(),
        "calls",
        all.iter().map(|r| r.lost as f64).collect(),
        Goal::Zero,
    ));
    Ok(())
}

/// The logging and telemetry set-ups an operator chooses between, each with the default first.
const TELEMETRY_SETUPS: [(&str, &[(&str, &str)]); 5] = [
    ("JSON logs at info (the default of the images)", &[]),
    ("JSON logs at warn", &[("HERALD_LOG_LEVEL", "warn")]),
    ("pretty logs at info (no OpenTelemetry layer)", &[("HERALD_LOG_FORMAT", "pretty")]),
    ("pretty logs at warn", &[("HERALD_LOG_FORMAT", "pretty"), ("HERALD_LOG_LEVEL", "warn")]),
    (
        "pretty logs at warn, metrics off",
        &[("HERALD_LOG_FORMAT", "pretty"), ("HERALD_LOG_LEVEL", "warn"), ("HERALD_METRICS", "off")],
    ),
];

/// The legacy proxy overhead under each set-up of `TELEMETRY_SETUPS`, a fresh process for each.
async fn telemetry_setups(
    name: &str,
    rig: &Rig<'_>,
    db: &Database,
    owner: &str,
    runs: usize,
    scale: &overhead::Scale,
    figures: &mut Vec<Figure>,
) -> anyhow::Result<()> {
    let section = "Telemetry set-ups (legacy tools/call, no elicitation)";
    for (setup, env) in TELEMETRY_SETUPS {
        eprintln!("[{name}] telemetry: {setup} × {runs}");
        let herald = Herald::start_with(rig.bin, db, rig.http, env).await?;
        let all = rig.overhead(Gen::Legacy, &herald.base, owner, runs, scale).await;
        herald.stop().await?;
        let all = all?;
        let config = format!("{setup}, {name}");
        let col = |f: fn(&overhead::Run) -> f64| all.iter().map(f).collect::<Vec<_>>();
        let added = col(|r| r.herald_ms - r.direct_ms);
        figures.push(fig(section, "latency added at c=1", config.clone(), "ms", added, Goal::None));
        let per_s = col(|r| r.herald_per_s);
        figures.push(fig(section, "throughput via Herald at c=32", config, "calls/s", per_s, Goal::None));
    }
    Ok(())
}

fn fig(
    section: &'static str,
    name: &str,
    config: String,
    unit: &'static str,
    runs: Vec<f64>,
    goal: Goal,
) -> Figure {
    Figure { section, name: name.into(), config, unit, runs, goal }
}

/// The detector's own benchmark reports medians; its lines are read, not re-measured.
fn detector(path: &Path, figures: &mut Vec<Figure>) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(path).with_context(|| format!("read {}", path.display()))?;
    let section = "Credential-ask detector (cargo bench -p herald-policy --bench detector)";
    let mut found = 0;
    for line in text.lines() {
        let Some(before) = line.trim().strip_suffix("ns/request") else { continue };
        let (label, value) = before.trim().rsplit_once(' ').context("a detector line")?;
        let ns: f64 = value.trim().parse().with_context(|| format!("a number in {line:?}"))?;
        let goal = if label.starts_with("typical") || label.starts_with("median question") {
            Goal::Below(10.0)
        } else {
            Goal::None
        };
        figures.push(fig(
            section,
            "time per request",
            label.trim().to_owned(),
            "µs",
            vec![ns / 1000.0],
            goal,
        ));
        found += 1;
    }
    anyhow::ensure!(found > 0, "no `ns/request` lines in {}", path.display());
    Ok(())
}

fn machine() -> serde_json::Value {
    let cpu = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|c| {
        c.lines()
            .find_map(|l| l.strip_prefix("model name"))
            .map(|m| m.trim_start_matches([' ', '\t', ':']).to_owned())
    });
    let memory = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| m.lines().next().map(|l| l.split_whitespace().nth(1).unwrap_or_default().to_owned()));
    json!({
        "cores": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
        "cpu": cpu,
        "memory_kib": memory,
        "kernel": std::fs::read_to_string("/proc/sys/kernel/osrelease").ok().map(|k| k.trim().to_owned()),
    })
}
