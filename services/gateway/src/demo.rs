//! `herald serve --demo`: the bundled demo MCP server, registered in a `demo`
//! organisation with a demo account, so a newcomer sees the whole flow —
//! agent, question, dashboard, answer — within a minute.

use anyhow::Context;
use herald_demo_server::{DemoServerHandle, Options};
use time::OffsetDateTime;

use crate::app::AppState;
use crate::crypto;
use crate::storage::{Conflict, Joiner, NewApiToken, NewOrg, NewServer, NewUser, ServerChanges, StoreError};

pub const ORG: &str = "demo";
pub const SERVER: &str = "demo";
pub const EMAIL: &str = "demo@herald.example";
const TOKEN_NAME: &str = "demo agent";

/// Starts the demo server and (re)creates the demo org, account, server
/// registration and agent token; prints how to use them.
pub async fn start(state: &AppState) -> anyhow::Result<DemoServerHandle> {
    // The demo server listens on loopback: an instance that may not connect there cannot use it.
    if !state.config.egress.permits(std::net::Ipv4Addr::LOCALHOST.into()) {
        anyhow::bail!(
            "the demo server listens on 127.0.0.1, and this Herald's egress policy ({}) does not allow loopback; \
             set HERALD_UPSTREAM_ALLOW=public+loopback to run the demo here",
            state.config.egress
        );
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.context("binding the demo server")?;
    let server =
        herald_demo_server::spawn(listener, Options::default()).context("starting the demo server")?;
    let url = server.url();
    let store = &state.store;
    let now = OffsetDateTime::now_utc();

    // A fresh password each start: the previous one was only ever printed.
    let password = crypto::link_secret()[..16].to_owned();
    let password_hash = {
        let password = password.clone();
        tokio::task::spawn_blocking(move || crypto::password::hash(&password)).await?
    };
    let user = match store.user_by_email(EMAIL).await? {
        Some(existing) => {
            store.set_password(existing.user.id, &password_hash, None, now).await?;
            existing.user
        }
        None => {
            let new = NewUser { email: EMAIL.into(), name: "Demo User".into(), password_hash };
            match store
                .create_org(NewOrg { slug: ORG.into(), name: "Herald Demo".into() }, Joiner::New(new), now)
                .await
            {
                Ok((_, user)) => user,
                Err(StoreError::Conflict(Conflict::OrgSlugTaken)) => {
                    anyhow::bail!(
                        "an organisation called {ORG:?} exists but the demo account does not; run the demo on another database"
                    )
                }
                Err(e) => return Err(e.into()),
            }
        }
    };
    let membership = store
        .membership(ORG, user.id)
        .await?
        .with_context(|| format!("the demo account is not a member of the {ORG:?} organisation"))?;
    let org_id = membership.org.id;

    // The demo server listens on a new port every start.
    match store.server(org_id, SERVER).await? {
        Some(_) => {
            let changes = ServerChanges { url: Some(url.clone()), ..Default::default() };
            store.update_server(org_id, SERVER, changes, now).await?;
        }
        None => {
            let id = uuid::Uuid::now_v7();
            let new = NewServer {
                id,
                slug: SERVER.into(),
                name: "Demo Server".into(),
                url: url.clone(),
                header_names: vec![],
                headers_sealed: state.keys.seal(&crate::lookup::headers::context(org_id, id), b"{}"),
                protocol: Default::default(),
                auth_mode: Default::default(),
                oauth_client: None,
            };
            store.create_server(org_id, new, now).await?;
        }
    }

    for token in store.api_tokens(org_id, user.id).await? {
        if token.name == TOKEN_NAME {
            store.revoke_api_token(org_id, user.id, token.id, now).await?;
        }
    }
    let token = crypto::new_api_token();
    let new = NewApiToken {
        name: TOKEN_NAME.into(),
        prefix: token.display_prefix.clone(),
        secret_hash: crypto::token_hash(&token.secret),
        expires_at: None,
    };
    store.create_api_token(org_id, user.id, new, now).await?;

    let base = state.config.public_url.as_str().trim_end_matches('/');
    println!(
        "\nHerald demo is ready.\n\
         \x20 Dashboard:  {base}/login  (sign in with the account below)\n\
         \x20 Account:    {EMAIL} / {password}  (email / password)\n\
         \x20 MCP URL:    {base}/mcp/{ORG}/{SERVER}\n\
         \x20 Agent token: {}\n\
         \x20 Try:  curl -N {base}/mcp/{ORG}/{SERVER} -H 'authorization: Bearer {}' \\\n\
         \x20         -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \\\n\
         \x20         -H 'mcp-protocol-version: 2026-07-28' -H 'mcp-method: tools/call' -H 'mcp-name: deploy' \\\n\
         \x20         -d '{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{{\"name\":\"deploy\",\"arguments\":{{\"service\":\"api\",\"environment\":\"staging\"}},\"_meta\":{{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{{}}}}}}}}'\n\
         \x20 then answer the question in the dashboard, or over the API:\n\
         \x20   GET  {base}/api/v1/orgs/{ORG}/elicitations?status=pending\n\
         \x20   POST {base}/api/v1/orgs/{ORG}/elicitations/<id>/respond  {{\"action\":\"accept\",\"content\":{{\"confirm\":true}}}}\n",
        token.secret, token.secret
    );
    tracing::info!(url = %url, "demo server started and registered in the demo organisation");
    Ok(server)
}
