//! The audit log as an admin reads it: entries titled in words, changes as
//! before and after, filters that name people and servers (former members and
//! deleted servers included), and the compliance export (JSON lines and CSV,
//! every matching entry, streamed), for the org's admins only.

use herald_gateway::audit::{self, Actor, Subject};
use herald_gateway::broker::floods::{FloodKey, Summary};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::mcp_support::{Agent, register, text};
use crate::support::{PASSWORD, Session, TestApp, body, fields, problem};

async fn entries(session: &Session, query: &str) -> Vec<Value> {
    let page = session.get(&format!("/api/v1/orgs/acme/audit?limit=500&{query}")).await;
    assert_eq!(page.status(), StatusCode::OK, "audit?{query}");
    body(page).await["entries"].as_array().unwrap().clone()
}

fn only<'a>(entries: &'a [Value], action: &str) -> &'a Value {
    let found: Vec<&Value> = entries.iter().filter(|e| e["action"] == action).collect();
    assert_eq!(found.len(), 1, "one {action} in {entries:#?}");
    found[0]
}

fn user_id(me: &Value) -> String {
    me["user"]["id"].as_str().unwrap().to_owned()
}

/// Invites `email` as `name` into acme with `role`; their signed-in session and id.
async fn invite(app: &TestApp, admin: &Session, email: &str, name: &str, role: &str) -> (Session, String) {
    let created = admin.post("/api/v1/orgs/acme/invites", &json!({ "email": email, "role": role })).await;
    assert_eq!(created.status(), StatusCode::CREATED);
    let link = body(created).await["link"].as_str().unwrap().to_owned();
    let token = link.split_once("#token=").unwrap().1;
    let person = app.browser();
    let accepted = person
        .post("/api/v1/invites/accept", &json!({ "token": token, "name": name, "password": PASSWORD }))
        .await;
    assert_eq!(accepted.status(), StatusCode::CREATED);
    let id = user_id(&body(person.get("/api/v1/me").await).await);
    (person, id)
}

/// Acme's id, as the store knows it (the API names orgs by slug).
async fn acme_id(app: &TestApp, member: uuid::Uuid) -> uuid::Uuid {
    app.state.store.membership("acme", member).await.unwrap().expect("a member of acme").org.id
}

async fn ok(response: reqwest::Response) -> Value {
    let status = response.status();
    let text = response.text().await.unwrap();
    assert!(status.is_success(), "{status}: {text}");
    if text.is_empty() { Value::Null } else { serde_json::from_str(&text).unwrap() }
}

#[tokio::test]
async fn every_entry_is_titled_in_words_and_keeps_its_code() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let owner_id = user_id(&body(owner.get("/api/v1/me").await).await);
    let token = app.token(&owner, "acme", "agent").await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let demo = herald_demo_server::spawn(listener, Default::default()).expect("the demo server starts");
    register(&owner, "demo", "Demo Server", &demo.url()).await;

    // A credential ask, declined by the default policy.
    let agent = Agent::modern(&app, &token, "demo");
    assert_eq!(
        text(&agent.call(1, "fish_for_password", json!({})).await),
        "Password request declined by the user"
    );

    // Every admin action there is.
    let (member, member_id) = invite(&app, &owner, "mia@example.com", "Mia Member", "member").await;
    let pending = ok(owner
        .post("/api/v1/orgs/acme/invites", &json!({ "email": "x@example.com", "role": "member" }))
        .await)
    .await;
    ok(owner.delete(&format!("/api/v1/orgs/acme/invites/{}", pending["id"].as_str().unwrap())).await).await;
    ok(owner.patch("/api/v1/orgs/acme/servers/demo", &json!({ "name": "Demo" })).await).await;
    ok(owner.post("/api/v1/orgs/acme/servers/demo/cut-off", &json!({ "reason": "noisy" })).await).await;
    ok(owner.post("/api/v1/orgs/acme/servers/demo/restore", &json!({})).await).await;
    ok(owner.patch(&format!("/api/v1/orgs/acme/members/{member_id}"), &json!({ "role": "admin" })).await)
        .await;
    ok(member.post("/api/v1/orgs/acme/mutes", &json!({ "server": "demo" })).await).await;
    ok(member.delete("/api/v1/orgs/acme/mutes/demo").await).await;
    let made = ok(owner.post("/api/v1/orgs/acme/tokens", &json!({ "name": "ci" })).await).await;
    ok(owner.delete(&format!("/api/v1/orgs/acme/tokens/{}", made["id"].as_str().unwrap())).await).await;
    ok(owner.put("/api/v1/orgs/acme/policy", &json!({ "rate_caps": { "per_org_per_hour": 50 } })).await)
        .await;
    ok(member.delete(&format!("/api/v1/orgs/acme/members/{member_id}")).await).await;
    let (_, gone_id) = invite(&app, &owner, "gus@example.com", "Gus Gone", "member").await;
    ok(owner.delete(&format!("/api/v1/orgs/acme/members/{gone_id}")).await).await;
    ok(owner.delete("/api/v1/orgs/acme/servers/demo").await).await;

    // What the policy and Herald write on their own, through their own writers.
    let store = app.state.store.as_ref();
    let owner_uuid = owner_id.parse().unwrap();
    let org_id = acme_id(&app, owner_uuid).await;
    let key =
        FloodKey { org_id, user_id: owner_uuid, server_slug: "demo".into(), reason: "previously_declined" };
    herald_gateway::broker::gate::audit_floods(store, vec![Summary { key, unrecorded: 12 }]).await;
    let policy_answer = |action: &str| Subject {
        user_id: Some(owner_uuid),
        server_slug: Some("demo".into()),
        reason: Some("rate_capped".into()),
        details: Some(json!({ "action": action })),
    };
    audit::record(store, org_id, Actor::Policy, "elicitation.auto_answered", policy_answer("cancel")).await;
    let pestering =
        Subject { reason: Some("pestering".into()), user_id: Some(owner_uuid), ..Default::default() };
    audit::record(store, org_id, Actor::Policy, "mute.added", pestering).await;
    let throttled =
        Subject { user_id: Some(owner_uuid), details: Some(json!({ "failures": 5 })), ..Default::default() };
    audit::record(store, org_id, Actor::System, "auth.sign_in_throttled", throttled).await;
    // An entry a newer Herald might write.
    audit::record(store, org_id, Actor::System, "billing.plan_changed", Subject::default()).await;

    let log = entries(&owner, "").await;
    let titles: Vec<(String, String)> = log
        .iter()
        .map(|e| (e["action"].as_str().unwrap().to_owned(), e["title"].as_str().unwrap().to_owned()))
        .collect();
    let has = |action: &str, title: &str| {
        assert!(
            titles.iter().any(|(a, t)| a == action && t == title),
            "no {action} titled {title:?} in {titles:#?}"
        );
    };
    has("elicitation.auto_answered", "Question declined automatically");
    has("elicitation.auto_answered", "Question cancelled automatically");
    has("elicitation.auto_answered", "12 questions answered automatically");
    has("server.registered", "Server registered");
    has("server.updated", "Server changed");
    has("server.cut_off", "Server cut off");
    has("server.restored", "Server restored");
    has("server.deleted", "Server deleted");
    has("invite.created", "Invite created");
    has("invite.revoked", "Invite revoked");
    has("invite.accepted", "Invite accepted");
    has("member.role_changed", "Role changed");
    has("member.removed", "Member left");
    has("member.removed", "Member removed");
    has("mute.added", "Server muted");
    has("mute.added", "Server muted automatically");
    has("mute.removed", "Server unmuted");
    has("token.created", "Token created");
    has("token.revoked", "Token revoked");
    has("policy.updated", "Policy changed");
    has("auth.sign_in_throttled", "Sign-in throttled");
    has("billing.plan_changed", "Billing: plan changed");
    for e in &log {
        let title = e["title"].as_str().unwrap();
        assert!(!title.contains('.') && !title.contains('_'), "a title in words, not a code: {title}");
    }

    // The rule in words, beside the stored code.
    let declined = log.iter().find(|e| e["title"] == "Question declined automatically").unwrap();
    assert_eq!(
        (declined["reason"].clone(), declined["reason_text"].clone()),
        (json!("credential_ask"), json!("credential ask"))
    );
    assert_eq!(declined["actor"], "policy");
    assert_eq!(declined["user_name"], "Olive Owner");
    let flood = log.iter().find(|e| e["title"] == "12 questions answered automatically").unwrap();
    assert_eq!(flood["reason_text"], "previously declined");
    let capped = log.iter().find(|e| e["title"] == "Question cancelled automatically").unwrap();
    assert_eq!(capped["reason_text"], "rate cap");
    let auto_mute = log.iter().find(|e| e["title"] == "Server muted automatically").unwrap();
    assert_eq!(auto_mute["reason_text"], "kept asking a declined question");
    // An admin's own words are not made into a rule.
    let cut = only(&log, "server.cut_off");
    assert_eq!((cut["reason"].clone(), cut["reason_text"].clone()), (json!("noisy"), Value::Null));
    assert_eq!(cut["actor_name"], "Olive Owner");
    assert_eq!(cut["actor_email"], "owner@example.com");
}

#[tokio::test]
async fn a_policy_change_records_each_changed_value_before_and_after() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let change = json!({
        "rate_caps": { "per_org_per_hour": 50 },
        "credential_ask": { "mode": "warn", "extra_terms": ["pin code"] },
    });
    ok(owner.put("/api/v1/orgs/acme/policy", &change).await).await;
    let entry = only(&entries(&owner, "action=policy.updated").await, "policy.updated").clone();
    assert_eq!(entry["title"], "Policy changed");
    let mut recorded = entry["details"]["changes"].as_array().unwrap().clone();
    recorded.sort_by_key(|c| c["path"].as_str().unwrap().to_owned());
    assert_eq!(
        recorded,
        [
            json!({ "path": "credential_ask.extra_terms", "before": [], "after": ["pin code"] }),
            json!({ "path": "credential_ask.mode", "before": "block", "after": "warn" }),
            json!({ "path": "rate_caps.per_org_per_hour", "before": 5000, "after": 50 }),
        ],
        "only what changed, nothing for the values that stayed"
    );
    let labelled: Vec<(Value, Value)> = entry["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["path"].clone(), c["label"].clone()))
        .collect();
    assert!(labelled.contains(&(
        json!("rate_caps.per_org_per_hour"),
        json!("Rate cap for the whole organisation, per hour")
    )));
    assert!(labelled.contains(&(json!("credential_ask.mode"), json!("When a server asks for a credential"))));
    assert!(entry["details"].get("rate_caps").is_none(), "the whole document is not dumped: {entry}");

    // The next change is measured against what is stored now; the same document again changes nothing.
    let back = json!({ "rate_caps": { "per_org_per_hour": 50 }, "credential_ask": { "mode": "warn", "extra_terms": ["pin code"] }, "url_mode": { "enabled": false } });
    ok(owner.put("/api/v1/orgs/acme/policy", &back).await).await;
    ok(owner.put("/api/v1/orgs/acme/policy", &back).await).await;
    let log = entries(&owner, "action=policy.updated").await;
    assert_eq!(log.len(), 3);
    assert_eq!(log[0]["title"], "Policy saved unchanged");
    assert_eq!(log[0]["details"]["changes"], json!([]));
    assert_eq!(
        log[1]["details"]["changes"],
        json!([{ "path": "url_mode.enabled", "before": true, "after": false }])
    );
    // A refused document changes nothing and records nothing.
    let refused =
        owner.put("/api/v1/orgs/acme/policy", &json!({ "rate_caps": { "per_org_per_hour": 0 } })).await;
    assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(entries(&owner, "action=policy.updated").await.len(), 3);
}

#[tokio::test]
async fn server_and_role_changes_say_from_and_to_and_never_a_header_value() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let secret = "Bearer sk-live-never-in-the-log";
    let new = json!({ "slug": "docs", "name": "Docs", "url": "https://docs.example/mcp", "headers": { "Authorization": secret } });
    ok(owner.post("/api/v1/orgs/acme/servers", &new).await).await;
    let moved = json!({
        "name": "Docs v2", "url": "https://docs2.example/mcp", "protocol": "2026-07-28",
        "headers": { "Authorization": "Bearer sk-live-also-never", "X-Team": "blue-team-secret" },
    });
    ok(owner.patch("/api/v1/orgs/acme/servers/docs", &moved).await).await;
    ok(owner.patch("/api/v1/orgs/acme/servers/docs", &json!({ "name": "Docs v2" })).await).await;
    let (_, member_id) = invite(&app, &owner, "mia@example.com", "Mia Member", "member").await;
    ok(owner.patch(&format!("/api/v1/orgs/acme/members/{member_id}"), &json!({ "role": "admin" })).await)
        .await;

    let updates = entries(&owner, "action=server.updated").await;
    assert_eq!(updates.len(), 2);
    assert_eq!(updates[0]["details"]["changes"], json!([]), "saving the same name changes nothing");
    assert_eq!(
        updates[1]["details"]["changes"],
        json!([
            { "path": "name", "before": "Docs", "after": "Docs v2" },
            { "path": "url", "before": "https://docs.example/mcp", "after": "https://docs2.example/mcp" },
            { "path": "protocol", "before": "auto", "after": "2026-07-28" },
            { "path": "headers", "before": ["authorization"], "after": ["authorization", "x-team"] },
        ])
    );
    assert_eq!(updates[1]["server_name"], "Docs v2");
    let labels: Vec<&str> =
        updates[1]["changes"].as_array().unwrap().iter().map(|c| c["label"].as_str().unwrap()).collect();
    assert_eq!(labels, ["Name", "URL", "Protocol", "Headers (names only; values are never recorded)"]);

    let role = only(&entries(&owner, "action=member.role_changed").await, "member.role_changed").clone();
    assert_eq!(role["details"]["changes"], json!([{ "path": "role", "before": "member", "after": "admin" }]));
    assert_eq!(role["changes"][0]["label"], "Role");
    assert_eq!(role["user_name"], "Mia Member");

    // No header value anywhere: not in the log, not in either export.
    let log = owner.get("/api/v1/orgs/acme/audit?limit=500").await.text().await.unwrap();
    let jsonl = owner.get("/api/v1/orgs/acme/audit/export?format=jsonl").await.text().await.unwrap();
    let csv = owner.get("/api/v1/orgs/acme/audit/export?format=csv").await.text().await.unwrap();
    for (what, text) in [("the log", &log), ("the JSON lines", &jsonl), ("the CSV", &csv)] {
        for value in ["sk-live-never-in-the-log", "sk-live-also-never", "blue-team-secret"] {
            assert!(!text.contains(value), "{value} in {what}");
        }
    }
}

#[tokio::test]
async fn filters_name_people_and_servers_including_former_members_and_deleted_servers() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let owner_id = user_id(&body(owner.get("/api/v1/me").await).await);
    ok(owner
        .post(
            "/api/v1/orgs/acme/servers",
            &json!({ "slug": "docs", "name": "Docs", "url": "https://docs.example/mcp" }),
        )
        .await)
    .await;
    ok(owner
        .post(
            "/api/v1/orgs/acme/servers",
            &json!({ "slug": "old", "name": "Old Server", "url": "https://old.example/mcp" }),
        )
        .await)
    .await;
    let (mia, mia_id) = invite(&app, &owner, "mia@example.com", "Mia Member", "member").await;
    ok(mia.post("/api/v1/orgs/acme/mutes", &json!({ "server": "docs" })).await).await;
    ok(owner.delete(&format!("/api/v1/orgs/acme/members/{mia_id}")).await).await;
    ok(owner.post("/api/v1/orgs/acme/servers/old/cut-off", &json!({ "reason": "retired" })).await).await;
    ok(owner.delete("/api/v1/orgs/acme/servers/old").await).await;

    let choices = body(owner.get("/api/v1/orgs/acme/audit/filters").await).await;
    assert_eq!(
        choices["people"],
        json!([
            { "id": owner_id, "name": "Olive Owner", "email": "owner@example.com", "member": true },
            { "id": mia_id, "name": "Mia Member", "email": "mia@example.com", "member": false },
        ])
    );
    assert_eq!(
        choices["servers"],
        json!([
            { "slug": "docs", "name": "Docs", "registered": true },
            { "slug": "old", "name": "Old Server", "registered": false },
        ])
    );
    let actions: Vec<(&str, &str)> = choices["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["code"].as_str().unwrap(), a["title"].as_str().unwrap()))
        .collect();
    assert_eq!(actions, audit::ACTIONS.to_vec());
    assert!(
        choices["reasons"]
            .as_array()
            .unwrap()
            .contains(&json!({ "code": "credential_ask", "title": "credential ask" }))
    );

    // A former member's entries, by or about her, with her name.
    let hers = entries(&owner, &format!("user={mia_id}")).await;
    let mut kinds: Vec<&str> = hers.iter().map(|e| e["action"].as_str().unwrap()).collect();
    kinds.sort_unstable();
    assert_eq!(kinds, ["invite.accepted", "member.removed", "mute.added"]);
    for e in &hers {
        assert!(e["user_name"] == "Mia Member" || e["actor_name"] == "Mia Member", "{e}");
    }
    let removed = only(&hers, "member.removed");
    assert_eq!(
        (removed["actor_name"].clone(), removed["user_name"].clone()),
        (json!("Olive Owner"), json!("Mia Member"))
    );

    // A deleted server's entries by its slug; its name is gone from the registry, not from the log.
    let old = entries(&owner, "server=old").await;
    let mut kinds: Vec<&str> = old.iter().map(|e| e["action"].as_str().unwrap()).collect();
    kinds.sort_unstable();
    assert_eq!(kinds, ["server.cut_off", "server.deleted", "server.registered"]);
    assert!(old.iter().all(|e| e["server_name"].is_null()));
    assert_eq!(only(&old, "server.deleted")["details"]["name"], "Old Server");
    let docs = entries(&owner, "server=docs").await;
    assert!(!docs.is_empty() && docs.iter().all(|e| e["server_name"] == "Docs" && e["server"] == "docs"));
    // Filters combine.
    assert_eq!(entries(&owner, &format!("server=docs&user={mia_id}")).await.len(), 1);
    assert_eq!(entries(&owner, "server=old&action=server.cut_off").await.len(), 1);

    // A re-registered slug is no longer listed as deleted.
    ok(owner
        .post(
            "/api/v1/orgs/acme/servers",
            &json!({ "slug": "old", "name": "Old Again", "url": "https://old.example/mcp" }),
        )
        .await)
    .await;
    let choices = body(owner.get("/api/v1/orgs/acme/audit/filters").await).await;
    assert_eq!(choices["servers"].as_array().unwrap().iter().filter(|s| s["slug"] == "old").count(), 1);
    assert_eq!(entries(&owner, "server=old&action=server.cut_off").await[0]["server_name"], "Old Again");
}

/// RFC 4180 as the export writes it: every field quoted, quotes doubled, CRLF after each record.
fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let (mut records, mut record, mut field) = (Vec::new(), Vec::new(), String::new());
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => quoted = false,
                other => field.push(other),
            }
            continue;
        }
        match c {
            '"' if field.is_empty() => quoted = true,
            ',' => record.push(std::mem::take(&mut field)),
            '\r' => {
                assert_eq!(chars.next(), Some('\n'), "a record ends with CRLF");
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
            }
            other => panic!("{other:?} outside quotes: every field is quoted"),
        }
    }
    assert!(record.is_empty() && field.is_empty() && !quoted, "the last record ends with CRLF");
    records
}

async fn export(session: &Session, query: &str) -> (reqwest::header::HeaderMap, String) {
    let response = session.get(&format!("/api/v1/orgs/acme/audit/export?{query}")).await;
    assert_eq!(response.status(), StatusCode::OK, "export?{query}");
    let headers = response.headers().clone();
    (headers, response.text().await.unwrap())
}

#[tokio::test]
async fn exports_stream_every_matching_entry_as_json_lines_and_csv() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    ok(owner
        .post(
            "/api/v1/orgs/acme/servers",
            &json!({ "slug": "docs", "name": "Docs", "url": "https://docs.example/mcp" }),
        )
        .await)
    .await;
    // What an admin typed, made to look like spreadsheet formulas and to break CSV.
    let hostile = [
        "=HYPERLINK(\"https://evil.example\",\"open\")",
        "+1+2",
        "-3",
        "@SUM(A1)",
        "say \"hi\", then\r\nleave",
    ];
    for reason in hostile {
        ok(owner.post("/api/v1/orgs/acme/servers/docs/cut-off", &json!({ "reason": reason })).await).await;
        ok(owner.post("/api/v1/orgs/acme/servers/docs/restore", &json!({})).await).await;
    }
    // More entries than one chunk holds, twice over: exactly 1000 of one kind.
    let store = app.state.store.as_ref();
    let owner_id = user_id(&body(owner.get("/api/v1/me").await).await);
    let org_id = acme_id(&app, owner_id.parse().unwrap()).await;
    for i in 0..1000 {
        let subject = Subject { details: Some(json!({ "n": i })), ..Default::default() };
        audit::record(store, org_id, Actor::System, "test.bulk", subject).await;
    }
    assert_eq!(entries(&owner, "").await.len(), 500, "a page holds 500: not all of them");

    let (headers, jsonl) = export(&owner, "format=jsonl").await;
    assert_eq!(headers["content-type"], "application/jsonl; charset=utf-8");
    let disposition = headers["content-disposition"].to_str().unwrap();
    let today = time::OffsetDateTime::now_utc().date();
    assert_eq!(disposition, format!("attachment; filename=\"herald-audit-acme-{today}.jsonl\""));
    assert_eq!(headers["cache-control"], "no-store");
    let lines: Vec<Value> = jsonl
        .split_terminator('\n')
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    assert!(jsonl.ends_with('\n'));
    let bulk = lines.iter().filter(|e| e["action"] == "test.bulk").count();
    assert_eq!(bulk, 1000, "every entry, across chunks");
    assert_eq!(lines.iter().filter(|e| e["action"] == "server.cut_off").count(), 5);
    assert!(lines.iter().all(|e| e["title"].is_string() && e["id"].is_string()));
    let ids: std::collections::HashSet<&str> = lines.iter().map(|e| e["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), lines.len(), "no entry twice");
    assert!(lines.windows(2).all(|w| w[0]["id"].as_str() > w[1]["id"].as_str()), "newest first");
    assert!(lines.iter().all(|e| e["action"] != "audit.exported"), "an export covers what came before it");

    // The export is itself in the log, with what it was asked for; the next export has it.
    let exported = only(&entries(&owner, "action=audit.exported").await, "audit.exported").clone();
    assert_eq!(exported["title"], "Audit log exported");
    assert_eq!(exported["details"], json!({ "format": "jsonl", "filters": {} }));
    assert_eq!(exported["actor_name"], "Olive Owner");

    // Filters apply, across chunk boundaries: exactly two chunks' worth.
    let (_, only_bulk) = export(&owner, "format=jsonl&action=test.bulk").await;
    assert_eq!(only_bulk.lines().count(), 1000);
    let (_, cut_offs) = export(&owner, "format=jsonl&server=docs&action=server.cut_off").await;
    assert_eq!(cut_offs.lines().count(), 5);
    let (_, none) = export(&owner, "format=csv&since=2999-01-01T00:00:00Z").await;
    assert_eq!(parse_csv(&none).len(), 1, "a header row, and nothing else");

    let (headers, csv) = export(&owner, "format=csv&server=docs").await;
    assert_eq!(headers["content-type"], "text/csv; charset=utf-8; header=present");
    assert!(headers["content-disposition"].to_str().unwrap().ends_with(&format!("-{today}.csv\"")));
    let records = parse_csv(&csv);
    let header = &records[0];
    assert_eq!(header[..4], ["id", "at", "title", "action"]);
    assert!(records.iter().all(|r| r.len() == header.len()), "every record has every column");
    let column = |name: &str| header.iter().position(|h| h == name).unwrap();
    let rows = &records[1..];
    assert_eq!(rows.len(), 1 + 5 + 5, "registered, cut off and restored five times");
    assert!(rows.iter().all(|r| r[column("server")] == "docs" && r[column("server_name")] == "Docs"));
    let reasons: Vec<&str> = rows
        .iter()
        .filter(|r| r[column("action")] == "server.cut_off")
        .map(|r| r[column("reason")].as_str())
        .collect();
    // Newest first; a formula-looking cell starts with a quote mark; quotes and line breaks survive.
    assert_eq!(
        reasons,
        [
            "say \"hi\", then\r\nleave",
            "'@SUM(A1)",
            "'-3",
            "'+1+2",
            "'=HYPERLINK(\"https://evil.example\",\"open\")",
        ]
    );
    let cut = rows.iter().find(|r| r[column("action")] == "server.cut_off").unwrap();
    assert_eq!(cut[column("title")], "Server cut off");
    assert_eq!(cut[column("actor_name")], "Olive Owner");
    let details: Value = serde_json::from_str(&cut[column("details")]).unwrap();
    assert_eq!(details, json!({}));
    assert!(records.iter().flatten().all(|cell| !cell.starts_with(['=', '+', '-', '@', '\t', '\r'])));
    // Each export is recorded with what it was asked for.
    let exports = entries(&owner, "action=audit.exported").await;
    assert_eq!(exports.len(), 5);
    assert_eq!(exports[0]["details"], json!({ "format": "csv", "filters": { "server": "docs" } }));
    assert_eq!(exports[1]["details"]["filters"], json!({ "since": "2999-01-01T00:00:00Z" }));
}

#[tokio::test]
async fn only_the_orgs_admins_read_its_log_and_bad_requests_are_precise() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let member = app.join(&owner, "acme", "member@example.com", "member").await;
    // Someone who runs an org of their own and is no member of acme.
    let (other, other_id) = invite(&app, &owner, "olga@example.com", "Olga Other", "member").await;
    let beta = other.post("/api/v1/orgs", &json!({ "slug": "beta", "name": "Beta" })).await;
    assert_eq!(beta.status(), StatusCode::CREATED);
    ok(owner.delete(&format!("/api/v1/orgs/acme/members/{other_id}")).await).await;
    ok(other
        .post(
            "/api/v1/orgs/beta/servers",
            &json!({ "slug": "bdocs", "name": "Beta Docs", "url": "https://b.example/mcp" }),
        )
        .await)
    .await;

    for path in ["/audit", "/audit/filters", "/audit/export?format=csv"] {
        problem(member.get(&format!("/api/v1/orgs/acme{path}")).await, StatusCode::FORBIDDEN, "forbidden")
            .await;
        problem(other.get(&format!("/api/v1/orgs/acme{path}")).await, StatusCode::NOT_FOUND, "not-found")
            .await;
    }
    // Beta's own log holds beta's entries only, even about someone acme's log also names.
    let (_, beta_log) = {
        let response = other.get("/api/v1/orgs/beta/audit/export?format=jsonl").await;
        assert_eq!(response.status(), StatusCode::OK);
        ((), response.text().await.unwrap())
    };
    let actions: Vec<String> = beta_log
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["action"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(actions, ["server.registered"]);
    let beta_filters = body(other.get("/api/v1/orgs/beta/audit/filters").await).await;
    assert_eq!(beta_filters["people"].as_array().unwrap().len(), 1, "{beta_filters}");
    assert_eq!(
        beta_filters["servers"],
        json!([{ "slug": "bdocs", "name": "Beta Docs", "registered": true }])
    );
    // No export was recorded for the refused attempts.
    assert!(entries(&owner, "action=audit.exported").await.is_empty());

    for (query, field) in [
        ("format=xml", "format"),
        ("", "format"),
        ("format=csv&since=yesterday", "since"),
        ("format=jsonl&user=bob", "user"),
        ("format=csv&limit=5", "query"),
    ] {
        let refused = problem(
            owner.get(&format!("/api/v1/orgs/acme/audit/export?{query}")).await,
            StatusCode::UNPROCESSABLE_ENTITY,
            "validation-failed",
        )
        .await;
        assert_eq!(fields(&refused), [field], "{query}: {refused}");
    }
    let bad = problem(
        owner.get("/api/v1/orgs/acme/audit/export?format=xml").await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "validation-failed",
    )
    .await;
    assert_eq!(bad["errors"][0]["message"], "must be jsonl (JSON lines) or csv");
    assert!(entries(&owner, "action=audit.exported").await.is_empty());
}
