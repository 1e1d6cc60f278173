//! Herald, the MCP host gateway: the deployable service.
//!
//! Layout: `config` (typed settings), `crypto` (keys, hashing, sealing),
//! `domain` (newtypes that parse untrusted input), `storage` (one trait, a
//! PostgreSQL and a SQLite implementation), `api` (the HTTP surface), `app`
//! (state and serving), `cli` (the `herald` commands), `telemetry` (logs, traces, metrics),
//! `egress` (which upstream addresses Herald may connect to), `backoff` (waits that double).

pub mod api;
pub mod app;
pub mod audit;
pub mod backoff;
pub mod broker;
pub mod cache;
pub mod cli;
pub mod config;
pub mod crypto;
pub mod demo;
pub mod domain;
pub mod egress;
pub mod listener;
pub mod passwords;
pub mod proxy;
pub mod storage;
pub mod telemetry;
pub mod throttle;
pub mod web;
