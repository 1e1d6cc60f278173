//! The egress policy (issue 13, finding 4). Any account may register a server
//! URL of its choosing; Herald must not become its way into Herald's own
//! loopback, the private network around it, or the cloud's metadata service,
//! and the connection test must not work as a port scanner.

use herald_demo_server::Options;
use herald_mcp::Message;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::mcp_support::{Agent, register, with_demo};
use crate::recorder::{Recorder, closed_port, silent_server};
use crate::support::{HOSTED_URL, Session, TestApp, body, fields, problem};

const REFUSED_BY_POLICY: &str = "address not allowed by this Herald's egress policy";

async fn register_with_key(owner: &Session, slug: &str, url: &str) -> reqwest::Response {
    owner
        .post(
            "/api/v1/orgs/acme/servers",
            &json!({ "slug": slug, "name": slug, "url": url, "headers": { "X-Api-Key": "sk-egress-test" } }),
        )
        .await
}

async fn connection_test(owner: &Session, slug: &str) -> Value {
    let response = owner.post(&format!("/api/v1/orgs/acme/servers/{slug}/test"), &json!({})).await;
    assert_eq!(response.status(), StatusCode::OK);
    body(response).await
}

#[tokio::test]
async fn a_hosted_herald_refuses_loopback_private_and_metadata_addresses_in_every_spelling() {
    let app = TestApp::spawn_hosted().await;
    let owner = app.owner().await;
    let cases = [
        ("http://127.0.0.1:8080/mcp", "127.0.0.1, a loopback address"),
        ("http://127.1:8080/mcp", "127.0.0.1, a loopback address"),
        ("http://2130706433:8080/mcp", "127.0.0.1, a loopback address"),
        ("http://0x7f.1:8080/mcp", "127.0.0.1, a loopback address"),
        ("http://0177.0.0.1:8080/mcp", "127.0.0.1, a loopback address"),
        ("http://[::1]:8080/mcp", "::1, a loopback address"),
        ("http://[::ffff:7f00:1]:8080/mcp", "a loopback address"),
        ("http://localhost:8080/mcp", "localhost, a loopback name"),
        ("https://0.0.0.0/mcp", "0.0.0.0, an unspecified address"),
        ("https://169.254.169.254/latest/meta-data/", "169.254.169.254, a link-local address"),
        ("https://[fd00:ec2::254]/latest/meta-data/", "a private address"),
        ("https://[64:ff9b::a9fe:a9fe]/mcp", "a link-local address"),
        ("https://10.0.0.8/mcp", "10.0.0.8, a private address"),
        ("https://172.16.5.4/mcp", "172.16.5.4, a private address"),
        ("https://192.168.1.1/mcp", "192.168.1.1, a private address"),
        ("https://100.64.0.1/mcp", "100.64.0.1, a carrier-grade NAT address"),
        ("https://[fe80::1]/mcp", "fe80::1, a link-local address"),
        ("https://[fd12:3456::1]/mcp", "a private address"),
    ];
    for (url, why) in cases {
        let refused = problem(
            register_with_key(&owner, "inside", url).await,
            StatusCode::UNPROCESSABLE_ENTITY,
            "validation-failed",
        )
        .await;
        assert_eq!(fields(&refused), ["url"], "{url}: {refused}");
        let message = refused["errors"][0]["message"].as_str().unwrap();
        assert!(message.contains(why), "{url}: {message}");
        assert!(message.ends_with("this Herald connects only to public addresses"), "{url}: {message}");
    }
    let listed = body(owner.get("/api/v1/orgs/acme/servers").await).await;
    assert_eq!(listed["servers"], json!([]), "nothing was registered");

    // A name is checked when Herald connects; a public address is fine.
    for (slug, url) in [("named", "https://mcp.example.com/mcp"), ("public", "https://8.8.8.8/mcp")] {
        assert_eq!(register_with_key(&owner, slug, url).await.status(), StatusCode::CREATED, "{url}");
    }
    // Moving a server inside is refused the same way, and changes nothing.
    let moved = owner
        .patch("/api/v1/orgs/acme/servers/named", &json!({ "url": "http://127.1:9/mcp", "headers": {} }))
        .await;
    let moved = problem(moved, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    assert_eq!(fields(&moved), ["url"]);
    let named = body(owner.get("/api/v1/orgs/acme/servers/named").await).await;
    assert_eq!(named["url"], "https://mcp.example.com/mcp");
    assert_eq!(named["header_names"], json!(["x-api-key"]));
}

#[tokio::test]
async fn a_development_herald_reaches_loopback_but_not_metadata_or_private_addresses() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    for (slug, url) in [
        ("four", "http://127.0.0.1:3901/mcp"),
        ("name", "http://localhost:3901/mcp"),
        ("six", "http://[::1]:3901/mcp"),
    ] {
        assert_eq!(register_with_key(&owner, slug, url).await.status(), StatusCode::CREATED, "{url}");
    }
    for url in ["https://169.254.169.254/latest/meta-data/", "https://10.1.2.3/mcp", "https://[fd00::1]/mcp"]
    {
        let refused = problem(
            register_with_key(&owner, "inside", url).await,
            StatusCode::UNPROCESSABLE_ENTITY,
            "validation-failed",
        )
        .await;
        let message = refused["errors"][0]["message"].as_str().unwrap();
        assert!(
            message.ends_with("this Herald connects only to public and loopback addresses"),
            "{url}: {message}"
        );
    }
}

/// Servers registered while loopback was allowed (or before there was a
/// policy), then served by a Herald that allows public addresses only: the
/// address Herald would connect to is checked when it connects, whether the
/// URL names it (`127.0.0.1`) or a name resolves to it (`localhost`). Nothing
/// reaches the server, not even a TCP connection.
#[tokio::test]
async fn addresses_are_checked_when_connecting_so_a_name_that_resolves_to_loopback_is_refused() {
    let upstream = Recorder::not_found().await;
    let dev = TestApp::spawn().await;
    let owner = dev.owner().await;
    let token = dev.token(&owner, "acme", "agent").await;
    let servers =
        [("literal", upstream.url("/mcp")), ("named", format!("http://localhost:{}/mcp", upstream.port))];
    for (slug, url) in &servers {
        assert_eq!(register_with_key(&owner, slug, url).await.status(), StatusCode::CREATED);
    }
    let db = dev.stop().await;

    let hosted = TestApp::spawn_configured(db, |s| s.public_url = Some(HOSTED_URL.into()), |_| {}).await;
    let owner = hosted.sign_in("owner@example.com").await;
    for (slug, _) in &servers {
        let agent = Agent::modern(&hosted, &token, slug);
        let (_, answer) = agent.request(1, "tools/list", json!({})).await;
        let Message::Error { error, .. } = answer else { panic!("{slug}: refused, not {answer:?}") };
        assert!(error.message.contains(&format!("upstream server {slug}")), "{}", error.message);
        assert!(error.message.contains(REFUSED_BY_POLICY), "{}", error.message);
        assert!(!error.message.contains("127.0.0.1") && !error.message.contains("::1"), "{}", error.message);

        let report = connection_test(&owner, slug).await;
        assert_eq!(report["ok"], false, "{report}");
        assert_eq!(report["category"], "blocked", "{report}");
        assert_eq!(report["error"], REFUSED_BY_POLICY, "{report}");
    }
    assert_eq!(upstream.connections(), 0, "nothing reached the upstream, not even a connection");
    assert!(!upstream.received("sk-egress-test"));
}

/// An operator with MCP servers on a private network allows that network
/// explicitly; everything else stays refused.
#[tokio::test]
async fn operators_allow_their_own_networks_explicitly() {
    let hosted = TestApp::spawn_with(|s| {
        s.public_url = Some(HOSTED_URL.into());
        s.upstream_allow_cidrs = Some("127.0.0.1/32".into());
    })
    .await;
    let (owner, token, demo) = with_demo(&hosted, Options::default()).await;
    let agent = Agent::modern(&hosted, &token, "demo");
    let (_, answer) = agent.request(1, "tools/list", json!({})).await;
    assert!(matches!(answer, Message::Response { .. }), "the allowed network is reached: {answer:?}");

    let other = format!("http://[::1]:{}/mcp", url::Url::parse(&demo.url()).unwrap().port().unwrap());
    let refused = problem(
        register_with_key(&owner, "six", &other).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "validation-failed",
    )
    .await;
    let message = refused["errors"][0]["message"].as_str().unwrap();
    assert!(message.ends_with("public addresses and the networks its operator allowed"), "{message}");

    // Or allows loopback as a whole.
    let dev_like = TestApp::spawn_with(|s| {
        s.public_url = Some(HOSTED_URL.into());
        s.upstream_allow = Some("public+loopback".into());
    })
    .await;
    let owner = dev_like.owner().await;
    assert_eq!(register_with_key(&owner, "six", &other).await.status(), StatusCode::CREATED);
}

#[tokio::test]
async fn a_connection_test_names_what_failed_in_a_category_never_in_the_systems_own_words() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let page = Recorder::web_page().await;
    let missing = Recorder::not_found().await;
    let cases = [
        ("refused", format!("http://127.0.0.1:{}/mcp", closed_port()), "refused"),
        ("plain", format!("https://127.0.0.1:{}/mcp", page.port), "tls"),
        ("page", page.url("/mcp"), "not_mcp"),
        ("missing", missing.url("/mcp"), "http_status"),
        ("nowhere", "https://no-such-host.invalid/mcp".to_owned(), "dns"),
    ];
    for (slug, url, category) in &cases {
        register(&owner, slug, slug, url).await;
        let report = connection_test(&owner, slug).await;
        assert_eq!(report["ok"], false, "{report}");
        assert_eq!(report["category"], *category, "{slug}: {report}");
        let error = report["error"].as_str().unwrap();
        for leak in [
            "os error",
            "Connection refused",
            "corrupt",
            "InvalidContentType",
            "tcp connect",
            "dns error",
            "lookup",
            "nginx",
            "text/html",
            "not found",
            "<server>",
        ] {
            assert!(!error.contains(leak), "{slug}: {error:?} contains {leak:?}");
        }
        assert!(report.get("generation").is_none(), "{report}");
    }
}

#[tokio::test]
async fn a_connection_test_of_a_server_that_accepts_and_never_answers_times_out() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let port = silent_server().await;
    register(&owner, "silent", "Silent", &format!("http://127.0.0.1:{port}/mcp")).await;
    let report = connection_test(&owner, "silent").await;
    assert_eq!(report["ok"], false, "{report}");
    assert_eq!(report["category"], "timeout", "{report}");
    assert_eq!(report["error"], "no answer within 10 seconds", "{report}");
}

/// An agent of the tenant is told its server is unreachable in the same
/// categories, not in the operating system's words.
#[tokio::test]
async fn an_agent_hears_why_a_server_is_unreachable_as_a_category() {
    let app = TestApp::spawn().await;
    let owner = app.owner().await;
    let token = app.token(&owner, "acme", "agent").await;
    register(&owner, "far", "Far Away", &format!("http://127.0.0.1:{}/mcp", closed_port())).await;
    let (_, answer) = Agent::modern(&app, &token, "far").request(1, "tools/list", json!({})).await;
    let Message::Error { error, .. } = answer else { panic!("unreachable is an error: {answer:?}") };
    assert_eq!(
        error.message,
        "upstream server far (Far Away): cannot reach the server: the connection was refused"
    );
}

/// `serve --demo` registers a server on loopback: where the policy refuses
/// loopback, it says so at start instead of failing every call later.
#[tokio::test]
async fn the_demo_will_not_start_where_loopback_is_refused_and_says_which_setting_allows_it() {
    let cwd = crate::cli::temp_dir();
    let refusal =
        crate::cli::herald(&cwd).env("HERALD_PUBLIC_URL", HOSTED_URL).args(["serve", "--demo"]).output();
    // A guard against a Herald that serves instead (the child is killed on drop), not a timing assertion.
    let output = tokio::time::timeout(std::time::Duration::from_secs(60), refusal)
        .await
        .expect("herald refuses to start instead of serving")
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("does not allow loopback"), "{stderr}");
    assert!(stderr.contains("HERALD_UPSTREAM_ALLOW=public+loopback"), "{stderr}");
    let _ = std::fs::remove_dir_all(cwd);
}
