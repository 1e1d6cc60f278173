use std::process::ExitCode;

use clap::Parser;
use herald_gateway::cli;
use herald_gateway::config::{Cli, Command, Config, ServeArgs};
use herald_gateway::telemetry;

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
    let start_logging = |config: &Config| telemetry::init(&config.log_filter, config.log_format);
    match args.command {
        // A probe run every few seconds by a container runtime sets up no logging or telemetry.
        Some(Command::Healthcheck(probe)) => cli::healthcheck(&config, probe).await,
        None => {
            start_logging(&config);
            cli::serve(config, ServeArgs::default()).await
        }
        Some(Command::Serve(serve)) => {
            start_logging(&config);
            cli::serve(config, serve).await
        }
        Some(Command::Bootstrap(bootstrap)) => {
            start_logging(&config);
            cli::bootstrap(config, bootstrap).await
        }
    }
}
