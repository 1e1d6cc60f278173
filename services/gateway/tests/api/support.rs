//! A Herald served on a real socket over a fresh database, per test.
//!
//! The database is SQLite in a temporary directory unless
//! `HERALD_TEST_DATABASE_URL` names a PostgreSQL server, in which case each
//! test creates its own database there and drops it afterwards.

use std::path::PathBuf;

use herald_gateway::app::{self, AppState};
use herald_gateway::config::{Config, RawSettings};
use reqwest::{Client, Response, StatusCode};
use serde_json::{Value, json};
use tokio::sync::oneshot;

pub const PASSWORD: &str = "correct horse battery staple";

/// The public URL of a hosted (not development) test Herald.
pub const HOSTED_URL: &str = "http://herald.example.test";

pub enum TestDb {
    Sqlite { dir: PathBuf },
    Postgres { server: String, name: String },
}

impl TestDb {
    pub async fn create() -> Self {
        let id = uuid::Uuid::new_v4().simple().to_string();
        match std::env::var("HERALD_TEST_DATABASE_URL").ok().filter(|u| !u.is_empty()) {
            Some(server) if server.starts_with("postgres") => {
                let name = format!("herald_test_{id}");
                let admin =
                    sqlx::PgPool::connect(&server).await.expect("HERALD_TEST_DATABASE_URL is reachable");
                sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
                    .execute(&admin)
                    .await
                    .expect("can create a test database");
                admin.close().await;
                TestDb::Postgres { server, name }
            }
            Some(other) => {
                panic!("HERALD_TEST_DATABASE_URL must be a postgres:// URL, not {other}")
            }
            None => {
                let dir = std::env::temp_dir().join(format!("herald-test-{id}"));
                std::fs::create_dir_all(&dir).unwrap();
                TestDb::Sqlite { dir }
            }
        }
    }

    pub fn url(&self) -> String {
        match self {
            TestDb::Sqlite { dir } => format!("sqlite://{}", dir.join("herald.db").display()),
            TestDb::Postgres { server, name } => {
                let mut url = url::Url::parse(server).unwrap();
                url.set_path(name);
                url.to_string()
            }
        }
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        match self {
            TestDb::Sqlite { dir } => {
                let _ = std::fs::remove_dir_all(dir);
            }
            TestDb::Postgres { server, name } => {
                let (server, name) = (server.clone(), name.clone());
                // Drop runs inside the test's runtime; use a runtime of our own.
                let _ = std::thread::spawn(move || {
                    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
                    rt.block_on(async {
                        if let Ok(admin) = sqlx::PgPool::connect(&server).await {
                            let _ = sqlx::query(sqlx::AssertSqlSafe(format!(
                                "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
                            )))
                            .execute(&admin)
                            .await;
                            admin.close().await;
                        }
                    });
                })
                .join();
            }
        }
    }
}

pub fn settings(database_url: &str, listen: &str, public_url: Option<String>) -> RawSettings {
    RawSettings {
        listen: listen.into(),
        public_url,
        database_url: database_url.into(),
        secret_key: Some("test-secret-key-that-is-long-enough-0123456789".into()),
        log_level: "warn".into(),
        log_format: "pretty".into(),
        session_hours: "168".into(),
        metrics: "on".into(),
        upstream: Default::default(),
        limits: Default::default(),
        hardening: Default::default(),
        notify: Default::default(),
        sign_in: Default::default(),
        upstream_allow: None,
        upstream_allow_cidrs: None,
    }
}

pub struct TestApp {
    pub base: String,
    pub state: AppState,
    pub setup_link: Option<String>,
    shutdown: Option<oneshot::Sender<()>>,
    served: Option<tokio::task::JoinHandle<()>>,
    // Last: the database goes after the server that uses it.
    pub db: TestDb,
}

impl TestApp {
    pub async fn spawn() -> Self {
        Self::spawn_on(TestDb::create().await).await
    }

    pub async fn spawn_on(db: TestDb) -> Self {
        Self::spawn_configured(db, |_| {}, |_| {}).await
    }

    /// A Herald whose settings `adjust` changes first (on a fresh database).
    pub async fn spawn_with(adjust: impl FnOnce(&mut RawSettings)) -> Self {
        Self::spawn_configured(TestDb::create().await, adjust, |_| {}).await
    }

    /// A Herald whose typed configuration `configure` adjusts first (limits, trusted proxies, …).
    pub async fn spawn_with_config(configure: impl FnOnce(&mut Config)) -> Self {
        Self::spawn_configured(TestDb::create().await, |_| {}, configure).await
    }

    pub async fn spawn_configured(
        db: TestDb,
        adjust: impl FnOnce(&mut RawSettings),
        configure: impl FnOnce(&mut Config),
    ) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        Self::spawn_listening(listener, db, adjust, configure).await
    }

    /// As [`Self::spawn_configured`], on a listener bound already (for peers that must know
    /// Herald's address before it starts, like an identity provider's redirect URI).
    pub async fn spawn_listening(
        listener: tokio::net::TcpListener,
        db: TestDb,
        adjust: impl FnOnce(&mut RawSettings),
        configure: impl FnOnce(&mut Config),
    ) -> Self {
        let base = format!("http://{}", listener.local_addr().unwrap());
        let mut raw = settings(&db.url(), "127.0.0.1:0", Some(base.clone()));
        adjust(&mut raw);
        let mut config = Config::from_raw(&raw).unwrap();
        configure(&mut config);
        let state = app::prepare(config).await.expect("the app starts");
        let setup_link = app::announce_setup_link(&state).await.unwrap();
        let (shutdown, stop) = oneshot::channel::<()>();
        let served = tokio::spawn(app::serve(listener, state.clone(), async {
            let _ = stop.await;
        }));
        let served = tokio::spawn(async move {
            served.await.unwrap().unwrap();
        });
        TestApp { base, state, setup_link, shutdown: Some(shutdown), served: Some(served), db }
    }

    /// A Herald as hosted for many tenants: its public URL is not loopback, so
    /// by default it connects to public upstream addresses only. (Tests still
    /// reach it on loopback.)
    pub async fn spawn_hosted() -> Self {
        Self::spawn_with(|s| s.public_url = Some(HOSTED_URL.into())).await
    }

    /// Stops serving and waits until the server has let go of the database.
    pub async fn stop(mut self) -> TestDb {
        self.halt().await;
        // What is left here (the state, an empty placeholder database) goes now.
        std::mem::replace(&mut self.db, TestDb::Sqlite { dir: PathBuf::new() })
    }

    async fn halt(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(served) = self.served.take() {
            served.await.unwrap();
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// A browser-like client with its own cookie jar.
    pub fn browser(&self) -> Session {
        Session {
            base: self.base.clone(),
            http: Client::builder().cookie_store(true).build().unwrap(),
            bearer: None,
        }
    }

    /// An agent-like client presenting an API token.
    pub fn agent(&self, token: &str) -> Session {
        Session { base: self.base.clone(), http: Client::new(), bearer: Some(token.to_owned()) }
    }

    /// The setup link's secret (from its fragment).
    pub fn setup_token(&self) -> String {
        let link = self.setup_link.as_deref().expect("an empty database announces a setup link");
        link.split_once("#token=").unwrap().1.to_owned()
    }

    /// Completes first-run setup; returns the owner's signed-in session.
    pub async fn owner(&self) -> Session {
        let owner = self.browser();
        let response = owner
            .post(
                "/api/v1/setup",
                &json!({
                    "token": self.setup_token(), "org_slug": "acme", "org_name": "Acme",
                    "email": "owner@example.com", "name": "Olive Owner", "password": PASSWORD,
                }),
            )
            .await;
        assert_eq!(response.status(), StatusCode::CREATED, "setup: {}", response.text().await.unwrap());
        owner
    }

    /// Signs `email` in (a new browser); returns the session.
    pub async fn sign_in(&self, email: &str) -> Session {
        let session = self.browser();
        let response =
            session.post("/api/v1/auth/login", &json!({ "email": email, "password": PASSWORD })).await;
        assert_eq!(response.status(), StatusCode::OK, "login: {}", response.text().await.unwrap());
        session
    }

    /// Invites `email` into `org` with `role` (by `admin`) and returns the
    /// new member's signed-in session.
    pub async fn join(&self, admin: &Session, org: &str, email: &str, role: &str) -> Session {
        let invite = admin
            .post(&format!("/api/v1/orgs/{org}/invites"), &json!({ "email": email, "role": role }))
            .await;
        assert_eq!(invite.status(), StatusCode::CREATED);
        let link = body(invite).await["link"].as_str().unwrap().to_owned();
        let token = link.split_once("#token=").unwrap().1;
        let member = self.browser();
        let accepted = member
            .post("/api/v1/invites/accept", &json!({ "token": token, "name": email, "password": PASSWORD }))
            .await;
        assert_eq!(accepted.status(), StatusCode::CREATED, "accept: {}", accepted.text().await.unwrap());
        member
    }

    /// A new API token of `session`'s user in `org`; returns its secret.
    pub async fn token(&self, session: &Session, org: &str, name: &str) -> String {
        let created = session.post(&format!("/api/v1/orgs/{org}/tokens"), &json!({ "name": name })).await;
        assert_eq!(created.status(), StatusCode::CREATED);
        body(created).await["secret"].as_str().unwrap().to_owned()
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

/// An HTTP client with its own credentials.
#[derive(Clone)]
pub struct Session {
    pub base: String,
    pub http: Client,
    pub bearer: Option<String>,
}

impl Session {
    pub fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        let builder = self.http.request(method, format!("{}{path}", self.base));
        match &self.bearer {
            Some(token) => builder.bearer_auth(token),
            None => builder,
        }
    }

    pub async fn get(&self, path: &str) -> Response {
        self.request(reqwest::Method::GET, path).send().await.unwrap()
    }

    pub async fn post(&self, path: &str, body: &Value) -> Response {
        self.request(reqwest::Method::POST, path).json(body).send().await.unwrap()
    }

    pub async fn put(&self, path: &str, body: &Value) -> Response {
        self.request(reqwest::Method::PUT, path).json(body).send().await.unwrap()
    }

    pub async fn patch(&self, path: &str, body: &Value) -> Response {
        self.request(reqwest::Method::PATCH, path).json(body).send().await.unwrap()
    }

    pub async fn delete(&self, path: &str) -> Response {
        self.request(reqwest::Method::DELETE, path).send().await.unwrap()
    }
}

pub async fn body(response: Response) -> Value {
    let text = response.text().await.unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// Asserts a problem+json response with the given status and type suffix,
/// and returns its body.
pub async fn problem(response: Response, status: StatusCode, kind: &str) -> Value {
    assert_eq!(response.status(), status, "unexpected status");
    assert_eq!(
        response.headers().get("content-type").and_then(|v| v.to_str().ok()),
        Some("application/problem+json")
    );
    let value = body(response).await;
    assert_eq!(value["type"], format!("urn:herald:problem:{kind}"), "{value}");
    assert_eq!(value["status"], status.as_u16());
    value
}

/// The `field`s of a validation problem, in order.
pub fn fields(problem: &Value) -> Vec<String> {
    problem["errors"]
        .as_array()
        .map(|errors| errors.iter().map(|e| e["field"].as_str().unwrap_or_default().to_owned()).collect())
        .unwrap_or_default()
}
