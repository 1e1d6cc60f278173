//! The `herald` commands: `serve` (the default), `bootstrap`, `healthcheck` and `domains`.

use std::io::BufRead;
use std::process::ExitCode;

use time::OffsetDateTime;

use crate::app;
use crate::config::{BootstrapArgs, Config, DomainsAction, DomainsArgs, HealthcheckArgs, ServeArgs};
use crate::crypto::password;
use crate::domain::{DisplayName, Email, Password, Slug};
use crate::storage::{self, Conflict, Joiner, NewOrg, NewUser, StoreError};

pub async fn serve(mut config: Config, args: ServeArgs) -> ExitCode {
    // Bound first, so links and the demo's instructions name the real port.
    let listener = match app::bind(&config).await {
        Ok(listener) => listener,
        Err(e) => return fail(&format!("{e:#}")),
    };
    if let Ok(addr) = listener.local_addr() {
        config.bound_to(addr);
    }
    let metrics_listener = match app::bind_metrics(&config).await {
        Ok(listener) => listener,
        Err(e) => return fail(&format!("{e:#}")),
    };
    // Where the metrics are, as bound (the setting may ask for port 0).
    let metrics_listen = metrics_listener.as_ref().and_then(|l| l.local_addr().ok());
    let state = match app::prepare(config.clone()).await {
        Ok(state) => state,
        Err(e) => return fail(&format!("cannot start: {e:#}")),
    };
    // Kept for as long as Herald serves.
    let _demo = if args.demo {
        match crate::demo::start(&state).await {
            Ok(demo) => Some(demo),
            Err(e) => return fail(&format!("cannot start the demo: {e:#}")),
        }
    } else {
        None
    };
    if let Err(e) = app::announce_setup_link(&state).await {
        return fail(&format!("cannot prepare the setup link: {e:#}"));
    }
    match (metrics_listen, &config.hardening.metrics_token) {
        (Some(addr), _) => {
            tracing::info!(metrics_listen = %addr, "GET /metrics is served on its own listener")
        }
        (None, Some(_)) => {
            tracing::info!("GET /metrics is served on the main listener to HERALD_METRICS_TOKEN")
        }
        (None, None) if config.metrics_endpoint => tracing::info!(
            "GET /metrics is not served: set HERALD_METRICS_LISTEN (a separate listener) or HERALD_METRICS_TOKEN"
        ),
        (None, None) => {}
    }
    let metrics_listen = metrics_listen.map(|a| a.to_string()).unwrap_or_default();
    tracing::info!(
        listen = %config.listen,
        public_url = %config.public_url,
        metrics_listen,
        upstream_allow = %config.egress,
        "herald is serving"
    );
    // On SIGTERM or Ctrl-C: stop accepting, end this replica's questions so
    // the calls waiting on them finish, and give in-flight requests a grace
    // period to complete before exiting anyway.
    let (stopping_tx, stopping) = tokio::sync::oneshot::channel::<()>();
    let broker = state.broker.clone();
    let shutdown = async move {
        shutdown_signal().await;
        let _ = stopping_tx.send(());
        broker.stop().await;
    };
    let served = app::serve_with_metrics(listener, metrics_listener, state, shutdown);
    tokio::pin!(served);
    let outcome = tokio::select! {
        outcome = &mut served => outcome,
        () = async {
            let _ = stopping.await;
            tokio::time::sleep(SHUTDOWN_GRACE).await;
        } => {
            tracing::warn!(grace = ?SHUTDOWN_GRACE, "shutting down: in-flight requests outlived the grace period");
            Ok(())
        }
    };
    match outcome {
        Ok(()) => {
            tracing::info!("herald stopped");
            ExitCode::SUCCESS
        }
        Err(e) => fail(&format!("server error: {e:#}")),
    }
}

/// How long in-flight requests may take to finish once Herald is told to stop.
const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(20);

pub async fn bootstrap(config: Config, args: BootstrapArgs) -> ExitCode {
    let slug = Slug::parse(&args.org).map_err(|e| format!("--org: {e}"));
    let org_name = DisplayName::parse(&args.org_name).map_err(|e| format!("--org-name: {e}"));
    let email = Email::parse(&args.email).map_err(|e| format!("--email: {e}"));
    let (slug, org_name, email) = match (slug, org_name, email) {
        (Ok(s), Ok(n), Ok(e)) => (s, n, e),
        (s, n, e) => {
            let problems: Vec<String> = [s.err(), n.err(), e.err()].into_iter().flatten().collect();
            return fail(&problems.join("; "));
        }
    };
    let mut line = String::new();
    if let Err(e) = std::io::stdin().lock().read_line(&mut line) {
        return fail(&format!("cannot read the password from standard input: {e}"));
    }
    let password_text = line.trim_end_matches(['\n', '\r']);

    let store = match storage::open(&config.database).await {
        Ok(store) => store,
        Err(e) => return fail(&format!("cannot open the database: {e}")),
    };
    let owner = match store.user_by_email(email.as_str()).await {
        Err(e) => return fail(&format!("database error: {e}")),
        Ok(Some(existing)) => {
            println!(
                "{} already has an account; it becomes the owner and keeps its password",
                email.as_str()
            );
            Joiner::Existing(existing.user.id)
        }
        Ok(None) => {
            let plain = match Password::parse(password_text, Some(email.as_str())) {
                Ok(p) => p,
                Err(e) => return fail(&format!("password from standard input: {e}")),
            };
            let default_name = email.as_str().split('@').next().unwrap_or_default().to_owned();
            let name = match DisplayName::parse(args.name.as_deref().unwrap_or(&default_name)) {
                Ok(n) => n,
                Err(e) => return fail(&format!("--name: {e}")),
            };
            let password_hash = password::hash(plain.expose());
            Joiner::New(NewUser {
                email: email.as_str().to_owned(),
                name: name.as_str().to_owned(),
                password_hash,
            })
        }
    };
    let org = NewOrg { slug: slug.to_string(), name: org_name.as_str().to_owned() };
    match store.create_org(org, owner, OffsetDateTime::now_utc()).await {
        Ok((org, user)) => {
            println!("created organisation {} ({}) with owner {}", org.slug, org.name, user.email);
            println!("sign in at {}", config.public_url);
            ExitCode::SUCCESS
        }
        Err(StoreError::Conflict(Conflict::OrgSlugTaken)) => {
            fail(&format!("organisation {slug} already exists; nothing was changed"))
        }
        Err(e) => fail(&format!("bootstrap failed: {e}")),
    }
}

/// The operator's word on organisations' e-mail domains (recorded in each organisation's audit
/// log as the system's doing).
pub async fn domains(config: Config, args: DomainsArgs) -> ExitCode {
    use crate::audit::{self, Actor, Subject};
    use crate::sso::settings::parse_email_domain;
    // Nothing serving caches domains (a sign-in reads them): safe beside a running Herald.
    let store = match storage::open_beside_server(&config.database).await {
        Ok(store) => store,
        Err(e) => return fail(&format!("cannot open the database: {e}")),
    };
    let (org_slug, domain, confirm) = match args.action {
        DomainsAction::List => {
            return match store.all_org_domains().await {
                Ok(all) if all.is_empty() => {
                    println!("no organisation has claimed an e-mail domain");
                    ExitCode::SUCCESS
                }
                Ok(all) => {
                    for (org, d) in all {
                        let status = match d.confirmed_at {
                            Some(at) => format!("confirmed {}", at.date()),
                            None => format!("awaiting confirmation since {}", d.claimed_at.date()),
                        };
                        println!("{}\t{}\t{status}", d.domain, org.slug);
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => fail(&format!("database error: {e}")),
            };
        }
        DomainsAction::Confirm { org, domain } => (org, domain, true),
        DomainsAction::Revoke { org, domain } => (org, domain, false),
    };
    let domain = match parse_email_domain(&domain) {
        Ok(d) => d,
        Err(e) => return fail(&e),
    };
    let org = match store.org_by_slug(&org_slug).await {
        Ok(Some(org)) => org,
        Ok(None) => return fail(&format!("there is no organisation {org_slug}")),
        Err(e) => return fail(&format!("database error: {e}")),
    };
    let now = OffsetDateTime::now_utc();
    let (action, said) = if confirm {
        match store.confirm_domain(org.id, &domain, now).await {
            Ok(_) => ("org.domain_confirmed", format!("{domain} is confirmed for {}", org.slug)),
            Err(StoreError::Conflict(Conflict::DomainTaken)) => {
                return fail(&format!(
                    "{domain} is confirmed for another organisation; revoke it there first (herald domains list)"
                ));
            }
            Err(e) => return fail(&format!("database error: {e}")),
        }
    } else {
        match store.drop_domain(org.id, &domain).await {
            Ok(true) => ("org.domain_revoked", format!("{}'s claim on {domain} is withdrawn", org.slug)),
            Ok(false) => return fail(&format!("{} has no claim on {domain}", org.slug)),
            Err(e) => return fail(&format!("database error: {e}")),
        }
    };
    let details = serde_json::json!({ "domain": domain, "by": "the operator" });
    audit::record(
        store.as_ref(),
        org.id,
        Actor::System,
        action,
        Subject { details: Some(details), ..Default::default() },
    )
    .await;
    println!("{said}");
    ExitCode::SUCCESS
}

/// Probes `/readyz` of a running Herald (container health checks have no curl):
/// exit 0 on 200, 1 on anything else, with one line saying what was seen.
pub async fn healthcheck(config: &Config, args: HealthcheckArgs) -> ExitCode {
    let url = match args.url.as_deref() {
        None => crate::config::readiness_url(config.listen),
        Some(given) => match url::Url::parse(given) {
            Ok(url) if matches!(url.scheme(), "http" | "https") => url,
            _ => {
                eprintln!("herald: --url {given:?} is not an http:// or https:// URL");
                return ExitCode::from(2);
            }
        },
    };
    let client = match reqwest::Client::builder().timeout(std::time::Duration::from_secs(5)).build() {
        Ok(client) => client,
        Err(e) => return fail(&format!("cannot make an HTTP client: {e}")),
    };
    match client.get(url.clone()).send().await {
        Ok(response) if response.status() == reqwest::StatusCode::OK => {
            println!("{url}: ready");
            ExitCode::SUCCESS
        }
        Ok(response) => {
            eprintln!("herald: {url}: not ready ({})", response.status());
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("herald: {url}: unreachable ({e})");
            ExitCode::FAILURE
        }
    }
}

/// Prints one line and fails: for problems a person must fix.
fn fail(message: &str) -> ExitCode {
    tracing::error!("{message}");
    eprintln!("herald: {message}");
    ExitCode::FAILURE
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    tracing::info!("shutting down");
}
