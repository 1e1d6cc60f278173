//! Logs: human-readable by default, one JSON object per line for pipelines.
//! Every line logged while serving a request carries that request's id.

use tracing_subscriber::EnvFilter;

use crate::config::LogFormat;

pub fn init(filter: &str, format: LogFormat) {
    let filter = EnvFilter::try_new(filter).unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    let result = match format {
        LogFormat::Pretty => builder.try_init(),
        LogFormat::Json => {
            builder.json().with_current_span(true).with_span_list(false).flatten_event(true).try_init()
        }
    };
    // A second init (tests embedding the app) keeps the first subscriber.
    let _ = result;
}
