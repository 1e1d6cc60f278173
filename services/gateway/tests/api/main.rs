//! Black-box tests of the HTTP API over a real socket. Every test gets its
//! own database: SQLite by default, PostgreSQL when HERALD_TEST_DATABASE_URL
//! points at a server (see `support`).

mod accounts;
mod agent_leaves;
mod audit_log;
mod cli;
mod connections;
mod console;
mod demo;
mod egress;
mod elicitations;
mod errors;
mod explanations;
mod floods;
mod follows_truth;
mod governance;
mod hardening;
mod hostile_upstream;
mod live_sockets;
mod matrix;
mod mcp_endpoint;
mod mcp_support;
mod members;
mod migrations;
mod notifications;
mod org_sso;
mod peers;
mod policy;
mod policy_flow;
mod puppet;
mod push;
mod recorder;
mod server_secrets;
mod servers;
mod sessions;
mod sso;
mod storage;
mod support;
mod telemetry;
mod tokens;
mod upstream_oidc;
mod upstream_redirects;
mod web;
