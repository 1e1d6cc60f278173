//! The official Rust MCP SDK, rmcp 3.11, as a peer of the compatibility matrix (tests/compat).
//!
//! * `compat-rmcp-peer agent --era 2025-11-25|2026-07-28 [--url U --token T --tool NAME --args JSON
//!   --answer A]`: an rmcp client (legacy `initialize`, or the 2026-07-28 `Discover` lifecycle)
//!   speaking the agents' JSON-lines contract of tests/compat/README.md.
//! * `compat-rmcp-peer server --only legacy|modern --listen ADDR`: an rmcp server that speaks one
//!   era only, configured the way rmcp documents it; prints `READY <address>` once it listens.

mod agent;
mod answers;
mod server;

use clap::{Parser, Subcommand};

#[derive(Parser)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Calls tools as an agent; without --tool, one JSON request per stdin line.
    Agent(agent::Options),
    /// Serves one protocol era on http://ADDR/mcp.
    Server(server::Options),
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Agent(options) => agent::run(options).await,
        Command::Server(options) => server::run(options).await,
    }
}
