//! A server that floods a person with questions: every question is answered,
//! but what is stored stays bounded, refusals do not use up the org's budget,
//! and one org's pending questions do not count against another's cap.

use serde_json::{Value, json};

use crate::mcp_support::{Agent, Dashboard, register};
use crate::puppet::{Puppet, ask};
use crate::support::{Session, TestApp, body};

async fn set_policy(owner: &Session, org: &str, policy: Value) {
    let put = owner.put(&format!("/api/v1/orgs/{org}/policy"), &policy).await;
    assert_eq!(put.status(), 200, "{}", put.text().await.unwrap());
}

fn question(id: i64) -> Value {
    ask(id, &format!("Pick a colour ({id})"), json!({ "colour": { "type": "string" } }))
}

/// Every answer the server got, by request id.
async fn answers(puppet: &Puppet, n: usize) {
    puppet
        .sent_times("an answer", n, |m, v| m == "POST" && v.get("method").is_none() && v.get("id").is_some())
        .await;
}

async fn audit(owner: &Session) -> Vec<Value> {
    body(owner.get("/api/v1/orgs/acme/audit?limit=200").await).await["entries"].as_array().unwrap().clone()
}

/// 300 questions on one call: each gets an answer, but only a bounded number are stored (the
/// shown ones, and the first automatic answers of the minute), and the rest are summed up in
/// one audit entry with their count.
#[tokio::test]
async fn a_flood_of_questions_is_answered_but_bounded_where_it_is_stored() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let token = app.token(&owner, "acme", "agent").await;
    let puppet = Puppet::start().await;
    register(&owner, "puppet", "Puppet", &puppet.url).await;
    let agent = Agent::legacy(&app, &token, "puppet").await;
    let call = tokio::spawn(async move { agent.call(1, "work", json!({})).await });
    puppet.sent("the call", |m, v| m == "POST" && v["method"] == "tools/call").await;

    const FLOOD: i64 = 300;
    for id in 1..=FLOOD {
        puppet.push_on_call(question(id));
    }
    // The ones shown wait for the person; everything else is answered at once.
    let shown = herald_policy::OrgPolicy::default().rate_caps.per_user_server_per_minute as usize;
    answers(&puppet, FLOOD as usize - shown).await;

    let stored = body(owner.get("/api/v1/orgs/acme/elicitations?limit=200").await).await["elicitations"]
        .as_array()
        .unwrap()
        .len();
    let recorded = herald_gateway::broker::floods::RECORDED_PER_WINDOW as usize;
    assert!(stored <= shown + recorded, "{stored} records for {FLOOD} questions");
    let entries = audit(&owner).await;
    let auto = entries.iter().filter(|e| e["action"] == "elicitation.auto_answered").count();
    assert!(auto <= recorded, "{auto} audit entries");

    // When the minute is over, one entry sums up the rest.
    let later = std::time::Instant::now() + herald_gateway::broker::floods::WINDOW;
    let ended = app.state.broker.floods.ended(later);
    herald_gateway::broker::gate::audit_floods(app.state.store.as_ref(), ended).await;
    let entries = audit(&owner).await;
    let summed: u64 = entries
        .iter()
        .filter(|e| e["details"]["aggregated"] == true)
        .map(|e| e["details"]["count"].as_u64().unwrap())
        .sum();
    assert_eq!(summed as usize, FLOOD as usize - shown - auto, "every unrecorded answer is counted once");

    puppet.push_on_call(json!({ "end": { "content": [] } }));
    call.await.unwrap();
}

/// A flooding server's refused questions do not count against the org's hourly budget: a
/// well-behaved server's question is still shown.
#[tokio::test]
async fn refused_questions_do_not_use_up_the_orgs_budget() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let token = app.token(&owner, "acme", "agent").await;
    set_policy(
        &owner,
        "acme",
        json!({ "rate_caps": { "per_user_server_per_minute": 2, "per_org_per_hour": 10 } }),
    )
    .await;
    let (noisy, quiet) = (Puppet::start().await, Puppet::start().await);
    register(&owner, "noisy", "Noisy", &noisy.url).await;
    register(&owner, "quiet", "Quiet", &quiet.url).await;
    let mut dashboard = Dashboard::open(&app, &token).await;

    let agent = Agent::legacy(&app, &token, "noisy").await;
    let noisy_call = tokio::spawn(async move { agent.call(1, "work", json!({})).await });
    noisy.sent("the call", |m, v| m == "POST" && v["method"] == "tools/call").await;
    for id in 1..=40 {
        noisy.push_on_call(question(id));
    }
    answers(&noisy, 38).await; // two shown, 38 refused

    let agent = Agent::legacy(&app, &token, "quiet").await;
    let quiet_call = tokio::spawn(async move { agent.call(1, "work", json!({})).await });
    quiet.sent("the call", |m, v| m == "POST" && v["method"] == "tools/call").await;
    quiet.push_on_call(question(1));
    let mut shown = Vec::new();
    while shown.len() < 3 {
        shown.push(dashboard.next_of("elicitation.created").await);
    }
    assert_eq!(shown[2]["server"]["slug"], "quiet", "the quiet server's question is shown: {:?}", shown[2]);

    noisy.push_on_call(json!({ "end": { "content": [] } }));
    quiet.push_on_call(json!({ "end": { "content": [] } }));
    let _ = (noisy_call.await, quiet_call.await);
}

/// `max_pending_per_user` counts the person's pending questions in the org that set it, not
/// their questions in other orgs.
#[tokio::test]
async fn the_pending_cap_counts_per_organisation() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let created = owner.post("/api/v1/orgs", &json!({ "slug": "beta", "name": "Beta" })).await;
    assert_eq!(created.status(), 201);
    set_policy(&owner, "beta", json!({ "rate_caps": { "max_pending_per_user": 1 } })).await;
    let (acme_token, beta_token) =
        (app.token(&owner, "acme", "acme agent").await, app.token(&owner, "beta", "beta agent").await);
    let puppet = Puppet::start().await;
    register(&owner, "puppet", "Puppet", &puppet.url).await;
    let on_beta = owner
        .post("/api/v1/orgs/beta/servers", &json!({ "slug": "puppet", "name": "Puppet", "url": puppet.url }))
        .await;
    assert_eq!(on_beta.status(), 201);
    let mut dashboard = Dashboard::open(&app, &acme_token).await;
    let mut beta_dashboard = Dashboard::open(&app, &beta_token).await;

    // Two questions pending in acme.
    let agent = Agent::legacy(&app, &acme_token, "puppet").await;
    let acme_call = tokio::spawn(async move { agent.call(1, "work", json!({})).await });
    puppet.sent("acme's call", |m, v| m == "POST" && v["method"] == "tools/call").await;
    puppet.push_on_call(question(1));
    puppet.push_on_call(question(2));
    dashboard.next_of("elicitation.created").await;
    dashboard.next_of("elicitation.created").await;

    // Beta's first question is shown: the cap of 1 counts beta's pending questions only.
    let agent = Agent::legacy_at(&app.base, "beta", &beta_token, "puppet").await;
    let beta_call = tokio::spawn(async move { agent.call(1, "work", json!({})).await });
    puppet.sent_times("beta's call", 2, |m, v| m == "POST" && v["method"] == "tools/call").await;
    puppet.push_on_call(question(3));
    let shown = loop {
        let created = beta_dashboard.next_of("elicitation.created").await;
        if created["org"] == "beta" {
            break created;
        }
    };
    assert_eq!(shown["status"], "pending");

    puppet.push_on_call(json!({ "end": { "content": [] } }));
    let _ = (acme_call.await, beta_call.await);
}
