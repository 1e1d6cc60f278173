//! The dashboard's files are served from the binary with a strict CSP.

use reqwest::StatusCode;

use crate::support::TestApp;

#[tokio::test]
async fn pages_are_served_with_a_strict_content_security_policy() {
    let app = TestApp::spawn().await;
    let client = reqwest::Client::new();
    for page in ["/", "/login", "/setup", "/invite"] {
        let response = client.get(app.url(page)).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{page}");
        assert_eq!(response.headers()["content-type"], "text/html; charset=utf-8");
        let csp = response.headers()["content-security-policy"].to_str().unwrap().to_owned();
        for directive in
            ["default-src 'none'", "script-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"]
        {
            assert!(csp.contains(directive), "{csp} lacks {directive}");
        }
        assert!(!csp.contains("unsafe-inline"));
        let html = response.text().await.unwrap();
        assert!(html.contains(r#"<script type="module" src="/assets/app.js"></script>"#));
        assert!(!html.contains("<script>"), "no inline script");
    }
    let script = client.get(app.url("/assets/app.js")).send().await.unwrap();
    assert_eq!(script.headers()["content-type"], "text/javascript; charset=utf-8");
    assert!(!script.text().await.unwrap().contains("innerHTML"), "nothing is inserted as markup");
    let style = client.get(app.url("/assets/styles.css")).send().await.unwrap();
    assert_eq!(style.headers()["content-type"], "text/css; charset=utf-8");
    for missing in ["/assets/nope.js", "/assets/../Cargo.toml", "/assets/%2e%2e/Cargo.toml", "/elsewhere"] {
        assert_eq!(
            client.get(app.url(missing)).send().await.unwrap().status(),
            StatusCode::NOT_FOUND,
            "{missing}"
        );
    }
}
