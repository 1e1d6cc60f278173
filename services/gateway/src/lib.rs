//! Herald, the MCP host gateway: the deployable service.
//!
//! Layout, from the bottom up: `config` (typed settings), `crypto` (keys, hashing,
//! sealing), `domain` (newtypes that parse untrusted input), `storage` (one trait, a
//! PostgreSQL and a SQLite implementation), `lookup` (the cached reads every request
//! path shares), `problem` (problem+json errors), `broker` (a question's lifecycle),
//! `notify` (reaching people who are not looking: webhooks, e-mail, presence),
//! `proxy` (the MCP endpoint and upstream links), `api` (the HTTP surface), `app`
//! (state and serving), `cli` (the `herald` commands), `telemetry` (logs, traces,
//! metrics), `egress` (which upstream addresses Herald may connect to), `backoff`
//! (waits that double). Nothing below `api` imports it; docs/architecture.md has the
//! whole map.

pub mod api;
pub mod app;
pub mod audit;
pub mod backoff;
pub mod broker;
pub mod cli;
pub mod config;
pub mod crypto;
pub mod demo;
pub mod domain;
pub mod egress;
pub mod listener;
pub mod lookup;
pub mod notify;
pub mod passwords;
pub mod problem;
pub mod proxy;
pub mod replicas;
pub mod sso;
pub mod storage;
pub mod telemetry;
pub mod throttle;
pub mod upstream_auth;
pub mod web;
