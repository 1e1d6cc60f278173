use std::process::ExitCode;

use clap::Parser;
use herald_gateway::cli;
use herald_gateway::config::{Cli, Command, Config, ServeArgs};
use herald_gateway::telemetry;

// mimalloc: every call allocates and frees many small buffers across the runtime's threads;
// glibc's malloc spent about a fifth of Herald's CPU on that, and held on to memory per
// thread (docs/performance.md).
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> ExitCode {
    let args = Cli::parse();
    let config = match Config::from_raw(&args.settings) {
        Ok(config) => config,
        Err(e) => {
            eprintln!("herald: {e}");
            return ExitCode::from(2);
        }
    };
    // A probe run every few seconds by a container runtime sets up no logging or telemetry.
    if let Some(Command::Healthcheck(probe)) = args.command {
        return cli::healthcheck(&config, probe).await;
    }
    let otel = match telemetry::Settings::from_env() {
        Ok(otel) => otel,
        Err(e) => {
            eprintln!("herald: {e}");
            return ExitCode::from(2);
        }
    };
    if let Err(e) = telemetry::init(&config.log_filter, config.log_format, &otel, config.metrics_endpoint) {
        eprintln!("herald: {e}");
        return ExitCode::from(2);
    }
    let code = match args.command {
        None => cli::serve(config, ServeArgs::default()).await,
        Some(Command::Serve(serve)) => cli::serve(config, serve).await,
        Some(Command::Bootstrap(bootstrap)) => cli::bootstrap(config, bootstrap).await,
        Some(Command::Domains(domains)) => cli::domains(config, domains).await,
        Some(Command::Healthcheck(_)) => unreachable!("handled above"),
    };
    // The exporters send what they still hold (blocking: off the async workers).
    let _ = tokio::task::spawn_blocking(telemetry::shutdown).await;
    code
}
