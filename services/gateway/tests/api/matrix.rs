//! The authorization matrix: every org-scoped endpoint against every kind of
//! caller. Outsiders see 404 (the org does not exist for them), members get
//! 403 for admin actions, and dead credentials get 401.

use herald_gateway::api::session;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::support::{Session, TestApp, body};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Who {
    Anonymous,
    Outsider,
    RevokedToken,
    ExpiredSession,
    Member,
    MemberToken,
    Admin,
    AdminToken,
    Owner,
}

/// What a caller gets: the status for each kind of caller that is allowed in.
#[derive(Clone, Copy)]
enum Rule {
    /// Every member may; the given status on success.
    Members(u16),
    /// Admins and owners may; members get 403.
    Admins(u16),
    /// Members get 403; admins and owners get this (e.g. 404 for an unknown id).
    AdminsThen(u16),
    /// Every member gets this.
    Everyone(u16),
    /// Every member signed in to the dashboard; API tokens get 403.
    Sessions(u16),
}

struct Case {
    method: Method,
    path: String,
    body: Option<Value>,
    rule: Rule,
}

fn case(method: Method, path: &str, body: Option<Value>, rule: Rule) -> Case {
    Case { method, path: format!("/api/v1/orgs/acme{path}"), body, rule }
}

fn cases(who: Who, target_member: &str) -> Vec<Case> {
    let tag = format!("{who:?}").to_lowercase();
    let random = uuid::Uuid::new_v4();
    vec![
        case(Method::GET, "", None, Rule::Members(200)),
        case(Method::GET, "/members", None, Rule::Members(200)),
        case(
            Method::PATCH,
            &format!("/members/{target_member}"),
            Some(json!({ "role": "member" })),
            Rule::Admins(200),
        ),
        case(Method::DELETE, &format!("/members/{random}"), None, Rule::AdminsThen(404)),
        case(Method::GET, "/invites", None, Rule::Admins(200)),
        case(
            Method::POST,
            "/invites",
            Some(json!({ "email": format!("invitee-{tag}@example.com"), "role": "member" })),
            Rule::Admins(201),
        ),
        case(Method::DELETE, &format!("/invites/{random}"), None, Rule::AdminsThen(404)),
        case(Method::GET, "/tokens", None, Rule::Members(200)),
        case(Method::POST, "/tokens", Some(json!({ "name": format!("made-by-{tag}") })), Rule::Sessions(201)),
        case(Method::DELETE, &format!("/tokens/{random}"), None, Rule::Everyone(404)),
        case(Method::GET, "/servers", None, Rule::Members(200)),
        case(
            Method::POST,
            "/servers",
            Some(json!({ "slug": format!("new-{tag}"), "name": "New", "url": "https://new.example/mcp" })),
            Rule::Admins(201),
        ),
        case(Method::GET, "/servers/shared", None, Rule::Members(200)),
        case(
            Method::PATCH,
            "/servers/shared",
            Some(json!({ "name": format!("Shared {tag}") })),
            Rule::Admins(200),
        ),
        case(Method::POST, "/servers/shared/cut-off", Some(json!({ "reason": tag })), Rule::Admins(200)),
        case(Method::POST, "/servers/shared/restore", None, Rule::Admins(200)),
        case(Method::GET, "/mutes", None, Rule::Members(200)),
        case(Method::POST, "/mutes", Some(json!({ "server": format!("gone-{tag}") })), Rule::Members(201)),
        case(Method::DELETE, "/mutes/no-such-server", None, Rule::Everyone(404)),
        case(Method::DELETE, &format!("/servers/gone-{tag}"), None, Rule::Admins(204)),
        case(Method::GET, "/audit", None, Rule::Admins(200)),
        case(Method::GET, "/audit/filters", None, Rule::Admins(200)),
        case(Method::GET, "/audit/export?format=jsonl", None, Rule::Admins(200)),
        case(Method::POST, &format!("/elicitations/{random}/dismiss-note"), None, Rule::Everyone(404)),
        case(Method::POST, &format!("/elicitations/{random}/ask-again"), None, Rule::Everyone(404)),
        case(Method::GET, "/elicitations", None, Rule::Members(200)),
        case(Method::GET, &format!("/elicitations/{random}"), None, Rule::Everyone(404)),
        case(
            Method::POST,
            &format!("/elicitations/{random}/respond"),
            Some(json!({ "action": "decline" })),
            Rule::Everyone(404),
        ),
        case(Method::GET, "/policy", None, Rule::Members(200)),
        case(Method::PUT, "/policy", Some(json!({})), Rule::Admins(200)),
    ]
}

fn expected(who: Who, rule: Rule) -> u16 {
    match who {
        Who::Anonymous | Who::RevokedToken | Who::ExpiredSession => 401,
        Who::Outsider => 404,
        Who::MemberToken | Who::AdminToken if matches!(rule, Rule::Sessions(_)) => 403,
        Who::Member | Who::MemberToken => match rule {
            Rule::Members(s) | Rule::Everyone(s) | Rule::Sessions(s) => s,
            Rule::Admins(_) | Rule::AdminsThen(_) => 403,
        },
        Who::Admin | Who::AdminToken | Who::Owner => match rule {
            Rule::Members(s)
            | Rule::Admins(s)
            | Rule::AdminsThen(s)
            | Rule::Everyone(s)
            | Rule::Sessions(s) => s,
        },
    }
}

fn with_header(app: &TestApp, name: &'static str, value: String) -> Session {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(name, value.parse().unwrap());
    Session {
        base: app.base.clone(),
        http: reqwest::Client::builder().default_headers(headers).build().unwrap(),
        bearer: None,
    }
}

#[tokio::test]
async fn every_org_endpoint_against_every_caller() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let admin = app.join(&owner, "acme", "admin@example.com", "admin").await;
    let member = app.join(&owner, "acme", "member@example.com", "member").await;
    let target = app.join(&owner, "acme", "target@example.com", "member").await;
    let target_id = body(target.get("/api/v1/me").await).await["user"]["id"].as_str().unwrap().to_owned();

    // The outsider owns another org, beta, and has nothing to do with acme.
    assert_eq!(
        owner.post("/api/v1/orgs", &json!({ "slug": "beta", "name": "Beta" })).await.status(),
        StatusCode::CREATED
    );
    let outsider = app.join(&owner, "beta", "outsider@example.com", "owner").await;
    let owner_id = body(owner.get("/api/v1/me").await).await["user"]["id"].as_str().unwrap().to_owned();
    assert_eq!(
        owner.delete(&format!("/api/v1/orgs/beta/members/{owner_id}")).await.status(),
        StatusCode::NO_CONTENT
    );

    let revoked = app.token(&member, "acme", "to-revoke").await;
    let revoked_id = body(member.get("/api/v1/orgs/acme/tokens").await).await["tokens"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        member.delete(&format!("/api/v1/orgs/acme/tokens/{revoked_id}")).await.status(),
        StatusCode::NO_CONTENT
    );

    let member_user =
        body(member.get("/api/v1/me").await).await["user"]["id"].as_str().unwrap().parse().unwrap();
    let now = time::OffsetDateTime::now_utc();
    let sid = app.state.store.create_session(member_user, now, now + time::Duration::hours(1)).await.unwrap();
    let expired = session::issue(
        &app.state,
        member_user,
        sid,
        now - time::Duration::hours(2),
        now - time::Duration::hours(1),
    );

    let shared = json!({ "slug": "shared", "name": "Shared", "url": "https://shared.example/mcp" });
    assert_eq!(owner.post("/api/v1/orgs/acme/servers", &shared).await.status(), StatusCode::CREATED);

    let member_token = app.agent(&app.token(&member, "acme", "member-agent").await);
    let admin_token = app.agent(&app.token(&admin, "acme", "admin-agent").await);
    let callers: Vec<(Who, Session)> = vec![
        (Who::Anonymous, app.browser()),
        (Who::Outsider, outsider),
        (Who::RevokedToken, app.agent(&revoked)),
        (Who::ExpiredSession, with_header(&app, "cookie", format!("herald_session={expired}"))),
        (Who::Member, member.clone()),
        (Who::MemberToken, member_token),
        (Who::Admin, admin.clone()),
        (Who::AdminToken, admin_token),
        (Who::Owner, owner.clone()),
    ];
    for (who, _) in &callers {
        let tag = format!("{who:?}").to_lowercase();
        let gone =
            json!({ "slug": format!("gone-{tag}"), "name": "Gone", "url": "https://gone.example/mcp" });
        assert_eq!(owner.post("/api/v1/orgs/acme/servers", &gone).await.status(), StatusCode::CREATED);
    }

    let mut failures = Vec::new();
    for (who, session) in &callers {
        for case in cases(*who, &target_id) {
            let mut request = session.request(case.method.clone(), &case.path);
            if let Some(body) = &case.body {
                request = request.json(body);
            }
            let status = request.send().await.unwrap().status().as_u16();
            let want = expected(*who, case.rule);
            if status != want {
                failures.push(format!("{who:?} {} {}: got {status}, want {want}", case.method, case.path));
            }
        }
        let me = session.get("/api/v1/me").await.status().as_u16();
        let want_me =
            if matches!(who, Who::Anonymous | Who::RevokedToken | Who::ExpiredSession) { 401 } else { 200 };
        if me != want_me {
            failures.push(format!("{who:?} GET /api/v1/me: got {me}, want {want_me}"));
        }
    }
    assert!(failures.is_empty(), "authorization matrix mismatches:\n{}", failures.join("\n"));

    // Refused callers changed nothing: only admins' and owners' servers were deleted.
    let servers = body(owner.get("/api/v1/orgs/acme/servers").await).await;
    let mut slugs: Vec<_> = servers["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["slug"].as_str().unwrap().to_owned())
        .collect();
    slugs.sort();
    assert!(slugs.contains(&"gone-member".to_owned()) && slugs.contains(&"gone-outsider".to_owned()));
    assert!(!slugs.contains(&"gone-admin".to_owned()) && !slugs.contains(&"gone-owner".to_owned()));
    assert!(!slugs.iter().any(|s| s == "new-member" || s == "new-anonymous" || s == "new-outsider"));
}
