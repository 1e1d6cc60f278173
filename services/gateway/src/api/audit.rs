//! The org's audit log, for admins: `GET /orgs/{org}/audit` (a page),
//! `GET /orgs/{org}/audit/filters` (what the filters can name: people, former
//! members included, servers, deleted ones included, actions and reasons in
//! words) and `GET /orgs/{org}/audit/export?format=jsonl|csv` (every matching
//! entry, streamed a chunk at a time).
//!
//! Entries are shown with their title and reason in words and their changes
//! labelled (`crate::audit::describe`), and with the names their ids and slug
//! stand for (`storage::audit::NamedEntry`).

use std::sync::Arc;

use axum::Json;
use axum::body::{Body, Bytes};
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use uuid::Uuid;

use super::auth::OrgAccess;
use crate::app::AppState;
use crate::audit::{self, ACTIONS, Actor, Change, REASONS, Subject};
use crate::problem::{ApiError, ApiResult, InvalidField};
use crate::storage::audit::NamedEntry;
use crate::storage::{AuditQuery, Store};

const DEFAULT_PAGE: u32 = 50;
const MAX_PAGE: u32 = 500;
/// Entries read from the store at a time while an export streams.
const EXPORT_CHUNK: u32 = 500;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditParams {
    /// RFC 3339; entries at or after.
    since: Option<String>,
    /// RFC 3339; entries before.
    until: Option<String>,
    /// A user id: entries about or by them.
    user: Option<String>,
    server: Option<String>,
    action: Option<String>,
    reason: Option<String>,
    limit: Option<u32>,
    before: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExportParams {
    /// `jsonl` or `csv`.
    format: Option<String>,
    since: Option<String>,
    until: Option<String>,
    user: Option<String>,
    server: Option<String>,
    action: Option<String>,
    reason: Option<String>,
}

/// The filters both endpoints take, as the query string had them.
struct RawFilters {
    since: Option<String>,
    until: Option<String>,
    user: Option<String>,
    server: Option<String>,
    action: Option<String>,
    reason: Option<String>,
}

impl RawFilters {
    /// The filters as a query (without paging), or every problem with them in `errors`.
    fn parse(&self, errors: &mut Vec<InvalidField>) -> AuditQuery {
        let text =
            |raw: &Option<String>| raw.as_deref().map(str::trim).filter(|v| !v.is_empty()).map(str::to_owned);
        let mut time = |field: &str, raw: &Option<String>| {
            text(raw).and_then(|t| {
                match OffsetDateTime::parse(&t, &time::format_description::well_known::Rfc3339) {
                    Ok(t) => Some(t),
                    Err(_) => {
                        errors.push(InvalidField::new(field, "must be an RFC 3339 timestamp"));
                        None
                    }
                }
            })
        };
        let since = time("since", &self.since);
        let until = time("until", &self.until);
        let user_id = text(&self.user).and_then(|v| match Uuid::parse_str(&v) {
            Ok(id) => Some(id),
            Err(_) => {
                errors.push(InvalidField::new("user", "is not an id"));
                None
            }
        });
        AuditQuery {
            since,
            until,
            user_id,
            server_slug: text(&self.server),
            action: text(&self.action),
            reason: text(&self.reason),
            before: None,
            limit: 0,
        }
    }

    /// The filters given, as the export's own entry records them.
    fn recorded(&self) -> serde_json::Value {
        audit::filters_in_details(&[
            ("since", self.since.clone()),
            ("until", self.until.clone()),
            ("user", self.user.clone()),
            ("server", self.server.clone()),
            ("action", self.action.clone()),
            ("reason", self.reason.clone()),
        ])
    }
}

fn query_problem(e: QueryRejection) -> ApiError {
    ApiError::Validation(vec![InvalidField::new("query", e.body_text())])
}

/// One entry as the API and the exports show it.
#[derive(Serialize)]
pub struct AuditView {
    id: Uuid,
    #[serde(with = "time::serde::rfc3339")]
    at: OffsetDateTime,
    /// The entry in words ("Policy changed", "Question declined automatically").
    title: String,
    /// The stable code (`policy.updated`, `elicitation.auto_answered`).
    action: String,
    actor: String,
    actor_id: Option<Uuid>,
    actor_name: Option<String>,
    actor_email: Option<String>,
    user_id: Option<Uuid>,
    user_name: Option<String>,
    user_email: Option<String>,
    server: Option<String>,
    /// The name of the server registered under `server` now; none once it is deleted.
    server_name: Option<String>,
    reason: Option<String>,
    /// The rule or reason in words ("credential ask"), when Herald names it.
    reason_text: Option<String>,
    /// What changed, each setting in words, with its old and new value.
    changes: Vec<Change>,
    details: serde_json::Value,
}

impl From<&NamedEntry> for AuditView {
    fn from(named: &NamedEntry) -> Self {
        let e = &named.entry;
        let words = audit::describe(e);
        Self {
            id: e.id,
            at: e.at,
            title: words.title,
            action: e.action.clone(),
            actor: e.actor.clone(),
            actor_id: e.actor_id,
            actor_name: named.actor.as_ref().map(|p| p.name.clone()),
            actor_email: named.actor.as_ref().map(|p| p.email.clone()),
            user_id: e.user_id,
            user_name: named.user.as_ref().map(|p| p.name.clone()),
            user_email: named.user.as_ref().map(|p| p.email.clone()),
            server: e.server_slug.clone(),
            server_name: named.server_name.clone(),
            reason: e.reason.clone(),
            reason_text: words.reason_text,
            changes: words.changes,
            details: e.details.clone(),
        }
    }
}

#[derive(Serialize)]
pub struct AuditPage {
    entries: Vec<AuditView>,
    next: Option<Uuid>,
}

pub async fn list(
    State(state): State<AppState>,
    access: OrgAccess,
    params: Result<Query<AuditParams>, QueryRejection>,
) -> ApiResult<Json<AuditPage>> {
    access.require_admin()?;
    let Query(p) = params.map_err(query_problem)?;
    let mut errors = Vec::new();
    let raw = RawFilters {
        since: p.since,
        until: p.until,
        user: p.user,
        server: p.server,
        action: p.action,
        reason: p.reason,
    };
    let mut query = raw.parse(&mut errors);
    query.before = p.before.as_deref().and_then(|v| match Uuid::parse_str(v) {
        Ok(id) => Some(id),
        Err(_) => {
            errors.push(InvalidField::new("before", "is not an id"));
            None
        }
    });
    let limit = p.limit.unwrap_or(DEFAULT_PAGE);
    if !(1..=MAX_PAGE).contains(&limit) {
        errors.push(InvalidField::new("limit", format!("must be between 1 and {MAX_PAGE}")));
    }
    if !errors.is_empty() {
        return Err(ApiError::Validation(errors));
    }
    query.limit = limit + 1;
    let mut entries = state.store.audit_entries(access.org_id(), &query).await?;
    let next = if entries.len() > limit as usize {
        entries.truncate(limit as usize);
        entries.last().map(|e| e.entry.id)
    } else {
        None
    };
    Ok(Json(AuditPage { entries: entries.iter().map(Into::into).collect(), next }))
}

// ---------------------------------------------------------------------------------------------
// What the filters can name.

#[derive(Serialize)]
pub struct FilterChoices {
    /// Members now, then former members (`member: false`), by name.
    people: Vec<PersonChoice>,
    /// Registered servers, by name, then deleted ones (`registered: false`).
    servers: Vec<ServerChoice>,
    actions: Vec<Worded>,
    reasons: Vec<Worded>,
}

#[derive(Serialize)]
struct PersonChoice {
    id: Uuid,
    name: String,
    email: String,
    member: bool,
}

#[derive(Serialize)]
struct ServerChoice {
    slug: String,
    name: Option<String>,
    registered: bool,
}

#[derive(Serialize)]
struct Worded {
    code: &'static str,
    title: &'static str,
}

pub async fn filters(State(state): State<AppState>, access: OrgAccess) -> ApiResult<Json<FilterChoices>> {
    access.require_admin()?;
    let org_id = access.org_id();
    let store = state.store.as_ref();
    let (members, former, servers, gone) = tokio::try_join!(
        store.members(org_id),
        store.audit_former_members(org_id),
        store.servers(org_id),
        store.audit_deleted_servers(org_id),
    )?;
    let mut people: Vec<PersonChoice> = members
        .into_iter()
        .map(|m| PersonChoice { id: m.user.id, name: m.user.name, email: m.user.email, member: true })
        .collect();
    people.sort_by(|a, b| a.name.to_lowercase().cmp(&b.name.to_lowercase()).then(a.email.cmp(&b.email)));
    people.extend(former.into_iter().map(|p| PersonChoice {
        id: p.id,
        name: p.name,
        email: p.email,
        member: false,
    }));
    let mut registered: Vec<ServerChoice> = servers
        .into_iter()
        .map(|s| ServerChoice { slug: s.slug, name: Some(s.name), registered: true })
        .collect();
    registered.sort_by_key(|s| s.name.as_deref().unwrap_or_default().to_lowercase());
    registered.extend(gone.into_iter().map(|g| ServerChoice {
        slug: g.slug,
        name: g.name,
        registered: false,
    }));
    Ok(Json(FilterChoices {
        people,
        servers: registered,
        actions: ACTIONS.iter().map(|(code, title)| Worded { code, title }).collect(),
        reasons: REASONS.iter().map(|(code, title)| Worded { code, title }).collect(),
    }))
}

// ---------------------------------------------------------------------------------------------
// Export: every matching entry, as JSON lines or CSV.

#[derive(Clone, Copy)]
enum Format {
    JsonLines,
    Csv,
}

impl Format {
    fn parse(raw: Option<&str>, errors: &mut Vec<InvalidField>) -> Option<Self> {
        let problem = match raw.map(str::trim) {
            Some("jsonl") => return Some(Format::JsonLines),
            Some("csv") => return Some(Format::Csv),
            None | Some("") => "is required: jsonl (JSON lines) or csv",
            Some(_) => "must be jsonl (JSON lines) or csv",
        };
        errors.push(InvalidField::new("format", problem));
        None
    }

    fn as_str(self) -> &'static str {
        match self {
            Format::JsonLines => "jsonl",
            Format::Csv => "csv",
        }
    }

    fn content_type(self) -> &'static str {
        match self {
            Format::JsonLines => "application/jsonl; charset=utf-8",
            Format::Csv => "text/csv; charset=utf-8; header=present",
        }
    }
}

/// The CSV columns, in order.
const CSV_COLUMNS: [&str; 17] = [
    "id",
    "at",
    "title",
    "action",
    "actor",
    "actor_id",
    "actor_name",
    "actor_email",
    "user_id",
    "user_name",
    "user_email",
    "server",
    "server_name",
    "reason",
    "reason_text",
    "changes",
    "details",
];

pub async fn export(
    State(state): State<AppState>,
    access: OrgAccess,
    params: Result<Query<ExportParams>, QueryRejection>,
) -> ApiResult<Response> {
    access.require_admin()?;
    let Query(p) = params.map_err(query_problem)?;
    let mut errors = Vec::new();
    let format = Format::parse(p.format.as_deref(), &mut errors);
    let raw = RawFilters {
        since: p.since,
        until: p.until,
        user: p.user,
        server: p.server,
        action: p.action,
        reason: p.reason,
    };
    let mut query = raw.parse(&mut errors);
    let format = match format {
        Some(format) if errors.is_empty() => format,
        _ => return Err(ApiError::Validation(errors)),
    };
    // The export is itself an entry; it covers what was written before it.
    let exported = audit::record(
        state.store.as_ref(),
        access.org_id(),
        Actor::User(access.user().id),
        "audit.exported",
        Subject {
            details: Some(serde_json::json!({ "format": format.as_str(), "filters": raw.recorded() })),
            ..Default::default()
        },
    )
    .await;
    tracing::info!(org = %access.membership.org.slug, format = format.as_str(), "audit log exported");
    query.before = Some(exported);
    query.limit = EXPORT_CHUNK;
    let body = Body::from_stream(export_stream(state.store.clone(), access.org_id(), query, format));
    let filename = format!(
        "herald-audit-{}-{}.{}",
        access.membership.org.slug,
        OffsetDateTime::now_utc().date(),
        format.as_str()
    );
    let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{filename}\""))
        .map_err(anyhow::Error::from)?;
    Ok((
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(format.content_type())),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        body,
    )
        .into_response())
}

struct Pages {
    store: Arc<dyn Store>,
    org_id: Uuid,
    query: AuditQuery,
    format: Format,
    started: bool,
    done: bool,
}

/// The export's body: a chunk of entries at a time, read as the client takes
/// them, so memory stays bounded by one chunk whatever the log's size. A
/// failed read ends the body early (the client sees a broken transfer, not a
/// short file that looks complete).
fn export_stream(
    store: Arc<dyn Store>,
    org_id: Uuid,
    query: AuditQuery,
    format: Format,
) -> impl futures_util::Stream<Item = Result<Bytes, std::io::Error>> {
    let pages = Pages { store, org_id, query, format, started: false, done: false };
    futures_util::stream::unfold(pages, |mut p| async move {
        if p.done {
            return None;
        }
        let mut out = String::new();
        if !p.started {
            p.started = true;
            if let Format::Csv = p.format {
                csv_row(&mut out, CSV_COLUMNS.iter().map(|c| (*c).to_owned()));
            }
        }
        match p.store.audit_entries(p.org_id, &p.query).await {
            Ok(entries) => {
                p.done = entries.len() < p.query.limit as usize;
                p.query.before = entries.last().map(|e| e.entry.id);
                for entry in &entries {
                    let view = AuditView::from(entry);
                    match p.format {
                        Format::JsonLines => {
                            // A view always serializes: its JSON came from JSON.
                            out.push_str(&serde_json::to_string(&view).unwrap_or_default());
                            out.push('\n');
                        }
                        Format::Csv => csv_row(&mut out, csv_cells(&view)),
                    }
                }
                Some((Ok(Bytes::from(out)), p))
            }
            Err(e) => {
                tracing::error!(error = %e, org_id = %p.org_id, "the audit export could not read on; its body ends early");
                p.done = true;
                Some((Err(std::io::Error::other("the audit log could not be read")), p))
            }
        }
    })
}

fn csv_cells(v: &AuditView) -> impl Iterator<Item = String> {
    let id = |id: Option<Uuid>| id.map(|i| i.to_string()).unwrap_or_default();
    let text = |t: &Option<String>| t.clone().unwrap_or_default();
    let at = v.at.format(&time::format_description::well_known::Rfc3339).unwrap_or_default();
    [
        v.id.to_string(),
        at,
        v.title.clone(),
        v.action.clone(),
        v.actor.clone(),
        id(v.actor_id),
        text(&v.actor_name),
        text(&v.actor_email),
        id(v.user_id),
        text(&v.user_name),
        text(&v.user_email),
        text(&v.server),
        text(&v.server_name),
        text(&v.reason),
        text(&v.reason_text),
        changes_in_words(&v.changes),
        v.details.to_string(),
    ]
    .into_iter()
}

/// "Label: old → new; …", strings as they are, other values as JSON.
fn changes_in_words(changes: &[Change]) -> String {
    let value = |v: &serde_json::Value| match v {
        serde_json::Value::Null => "(none)".to_owned(),
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    changes
        .iter()
        .map(|c| format!("{}: {} → {}", c.label, value(&c.before), value(&c.after)))
        .collect::<Vec<_>>()
        .join("; ")
}

/// One CSV record (RFC 4180): every field quoted, quotes doubled, CRLF at the
/// end. A field a spreadsheet would read as a formula (starting with `=`, `+`,
/// `-`, `@`, a tab or a carriage return) is prefixed with `'`.
fn csv_row(out: &mut String, cells: impl Iterator<Item = String>) {
    for (i, cell) in cells.enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('"');
        if cell.starts_with(['=', '+', '-', '@', '\t', '\r']) {
            out.push('\'');
        }
        out.push_str(&cell.replace('"', "\"\""));
        out.push('"');
    }
    out.push_str("\r\n");
}

#[cfg(test)]
mod tests {
    use super::csv_row;

    #[test]
    fn csv_fields_are_quoted_escaped_and_never_formulas() {
        let mut out = String::new();
        let cells =
            ["plain", "say \"hi\"", "=HYPERLINK(\"x\")", "+1", "-2", "@SUM(A1)", "\tx", "\rx", "a,b\nc", ""];
        csv_row(&mut out, cells.iter().map(|c| (*c).to_owned()));
        assert_eq!(
            out,
            "\"plain\",\"say \"\"hi\"\"\",\"'=HYPERLINK(\"\"x\"\")\",\"'+1\",\"'-2\",\"'@SUM(A1)\",\"'\tx\",\"'\rx\",\"a,b\nc\",\"\"\r\n"
        );
    }
}
