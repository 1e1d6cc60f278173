//! Rows as both databases return them, and their conversion to the models.

use herald_mcp::{ElicitAction, ElicitationMode, ProtocolGeneration};
use sqlx::types::Json;
use uuid::Uuid;

use super::{
    AgentSessionRecord, ApiToken, AuditEntry, CutOff, DbTime, Elicitation, Invite, Member, Membership, Mute,
    Org, Outcome, PendingGroup, Server, ServerSnapshot, StoreError, StoredPolicy, TokenPrincipal, User,
    UserCredentials,
};
use crate::domain::outcome::{DecidedBy, Reason};
use crate::domain::{Role, ServerProtocol};

fn role(raw: &str) -> Result<Role, sqlx::Error> {
    Role::parse(raw).ok_or_else(|| sqlx::Error::Decode(format!("unknown role {raw:?}").into()))
}

#[derive(sqlx::FromRow)]
pub(super) struct UserRow {
    pub id: Uuid,
    pub email: String,
    pub name: String,
    pub password_hash: String,
    pub created_at: DbTime,
}

impl UserRow {
    pub fn user(self) -> User {
        User { id: self.id, email: self.email, name: self.name, created_at: self.created_at.0 }
    }

    pub fn credentials(self) -> UserCredentials {
        let password_hash = self.password_hash.clone();
        UserCredentials { user: self.user(), password_hash }
    }
}

#[derive(sqlx::FromRow)]
pub(super) struct OrgRow {
    pub id: Uuid,
    pub slug: String,
    pub name: String,
    pub created_at: DbTime,
}

impl From<OrgRow> for Org {
    fn from(r: OrgRow) -> Self {
        Org { id: r.id, slug: r.slug, name: r.name, created_at: r.created_at.0 }
    }
}

#[derive(sqlx::FromRow)]
pub(super) struct MembershipRow {
    pub org_id: Uuid,
    pub org_slug: String,
    pub org_name: String,
    pub org_created_at: DbTime,
    pub role: String,
}

impl MembershipRow {
    pub fn membership(self) -> Result<Membership, sqlx::Error> {
        Ok(Membership {
            role: role(&self.role)?,
            org: Org {
                id: self.org_id,
                slug: self.org_slug,
                name: self.org_name,
                created_at: self.org_created_at.0,
            },
        })
    }
}

#[derive(sqlx::FromRow)]
pub(super) struct MemberRow {
    pub user_id: Uuid,
    pub email: String,
    pub name: String,
    pub user_created_at: DbTime,
    pub role: String,
    pub joined_at: DbTime,
}

impl MemberRow {
    pub fn member(self) -> Result<Member, sqlx::Error> {
        Ok(Member {
            role: role(&self.role)?,
            joined_at: self.joined_at.0,
            user: User {
                id: self.user_id,
                email: self.email,
                name: self.name,
                created_at: self.user_created_at.0,
            },
        })
    }
}

#[derive(sqlx::FromRow)]
pub(super) struct InviteRow {
    pub id: Uuid,
    pub org_id: Uuid,
    pub email: String,
    pub role: String,
    pub created_by: Uuid,
    pub created_at: DbTime,
    pub expires_at: DbTime,
}

impl InviteRow {
    pub fn invite(self) -> Result<Invite, sqlx::Error> {
        Ok(Invite {
            role: role(&self.role)?,
            id: self.id,
            org_id: self.org_id,
            email: self.email,
            created_by: self.created_by,
            created_at: self.created_at.0,
            expires_at: self.expires_at.0,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(super) struct ApiTokenRow {
    pub id: Uuid,
    pub org_id: Uuid,
    pub user_id: Uuid,
    pub name: String,
    pub prefix: String,
    pub created_at: DbTime,
    pub last_used_at: Option<DbTime>,
    pub expires_at: Option<DbTime>,
}

impl From<ApiTokenRow> for ApiToken {
    fn from(r: ApiTokenRow) -> Self {
        ApiToken {
            id: r.id,
            org_id: r.org_id,
            user_id: r.user_id,
            name: r.name,
            prefix: r.prefix,
            created_at: r.created_at.0,
            last_used_at: r.last_used_at.map(|t| t.0),
            expires_at: r.expires_at.map(|t| t.0),
        }
    }
}

#[derive(sqlx::FromRow)]
pub(super) struct TokenPrincipalRow {
    pub token_id: Uuid,
    pub last_used_at: Option<DbTime>,
    pub expires_at: Option<DbTime>,
    #[sqlx(flatten)]
    pub user: UserRow,
    #[sqlx(flatten)]
    pub membership: MembershipRow,
}

impl TokenPrincipalRow {
    pub fn principal(self) -> Result<TokenPrincipal, sqlx::Error> {
        Ok(TokenPrincipal {
            token_id: self.token_id,
            last_used_at: self.last_used_at.map(|t| t.0),
            expires_at: self.expires_at.map(|t| t.0),
            user: self.user.user(),
            membership: self.membership.membership()?,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(super) struct ServerRow {
    pub id: Uuid,
    pub org_id: Uuid,
    pub slug: String,
    pub name: String,
    pub url: String,
    pub header_names: Json<Vec<String>>,
    pub headers_sealed: Vec<u8>,
    pub created_at: DbTime,
    pub updated_at: DbTime,
    pub cut_off_at: Option<DbTime>,
    pub cut_off_by: Option<Uuid>,
    pub cut_off_reason: Option<String>,
    pub protocol: String,
    pub auth_mode: String,
    pub oauth_client_id: Option<String>,
    pub oauth_client_secret_sealed: Option<Vec<u8>>,
    pub oauth_client_issuer: Option<String>,
}

impl From<ServerRow> for Server {
    fn from(r: ServerRow) -> Self {
        Server {
            id: r.id,
            org_id: r.org_id,
            slug: r.slug,
            name: r.name,
            url: r.url,
            header_names: r.header_names.0,
            headers_sealed: r.headers_sealed,
            created_at: r.created_at.0,
            updated_at: r.updated_at.0,
            cut_off: r.cut_off_at.map(|at| CutOff {
                at: at.0,
                by: r.cut_off_by,
                reason: r.cut_off_reason.unwrap_or_default(),
            }),
            // The column's CHECK admits only the three choices.
            protocol: ServerProtocol::parse(&r.protocol).unwrap_or_default(),
            // Written only from `AuthMode::as_str`.
            auth_mode: crate::domain::AuthMode::parse(&r.auth_mode).unwrap_or_default(),
            oauth_client: r.oauth_client_id.map(|client_id| crate::storage::PreregisteredClient {
                client_id,
                secret_sealed: r.oauth_client_secret_sealed,
                issuer: r.oauth_client_issuer,
            }),
        }
    }
}

#[derive(sqlx::FromRow)]
pub(super) struct PolicyRow {
    pub document: Json<serde_json::Value>,
    pub updated_at: DbTime,
    pub updated_by: Option<Uuid>,
}

impl From<PolicyRow> for StoredPolicy {
    fn from(r: PolicyRow) -> Self {
        StoredPolicy { document: r.document.0, updated_at: r.updated_at.0, updated_by: r.updated_by }
    }
}

#[derive(sqlx::FromRow)]
pub(super) struct ElicitationRow {
    pub id: Uuid,
    pub org_id: Uuid,
    pub org_slug: String,
    pub user_id: Uuid,
    pub server_id: Option<Uuid>,
    pub server_slug: String,
    pub server_name: String,
    pub server_url: String,
    pub tool: Option<String>,
    pub protocol: String,
    pub mode: String,
    pub message: String,
    /// Text, not JSON, on both databases: the fields' order is part of the form.
    pub requested_schema: Option<String>,
    pub url: Option<String>,
    pub action: Option<String>,
    pub content: Option<Json<serde_json::Value>>,
    pub decided_by: Option<String>,
    pub reason: Option<String>,
    pub replica_id: Uuid,
    pub created_at: DbTime,
    pub expires_at: DbTime,
    pub resolved_at: Option<DbTime>,
    pub fingerprint: Option<Vec<u8>>,
    pub policy_flags: Option<Json<serde_json::Value>>,
    pub note_dismissed_at: Option<DbTime>,
    pub answered_via: Option<String>,
    pub asked_by: String,
}

/// A stored word that must be one of a vocabulary's, or the row is unreadable.
fn word<T>(parse: impl Fn(&str) -> Option<T>, column: &str, value: &str) -> Result<T, StoreError> {
    parse(value).ok_or_else(|| StoreError::Unreadable(format!("elicitations.{column} = {value:?}")))
}

/// The row's words parsed once, here: past this point an ending's action, who decided it,
/// its reason, the era and the mode are enums.
impl TryFrom<ElicitationRow> for Elicitation {
    type Error = StoreError;

    fn try_from(r: ElicitationRow) -> Result<Self, StoreError> {
        let requested_schema: Option<serde_json::Value> =
            r.requested_schema.and_then(|s| serde_json::from_str(&s).ok());
        let form = requested_schema.as_ref().and_then(|s| herald_mcp::parse_requested_schema(s).ok());
        let outcome = match (r.action, r.decided_by, r.resolved_at) {
            (Some(action), Some(decided_by), Some(resolved_at)) => Some(Outcome {
                action: word(ElicitAction::parse, "action", &action)?,
                content: r.content.map(|c| c.0),
                decided_by: word(DecidedBy::parse, "decided_by", &decided_by)?,
                reason: r.reason.map(|why| word(Reason::parse, "reason", &why)).transpose()?,
                resolved_at: resolved_at.0,
            }),
            _ => None,
        };
        Ok(Elicitation {
            id: r.id,
            org_id: r.org_id,
            org_slug: r.org_slug,
            user_id: r.user_id,
            server: ServerSnapshot {
                id: r.server_id,
                slug: r.server_slug,
                name: r.server_name,
                url: r.server_url,
            },
            asked_by: word(crate::domain::AskedBy::parse, "asked_by", &r.asked_by)?,
            tool: r.tool,
            protocol: word(ProtocolGeneration::parse, "protocol", &r.protocol)?,
            mode: word(ElicitationMode::parse, "mode", &r.mode)?,
            message: r.message,
            requested_schema,
            form,
            url: r.url,
            replica_id: r.replica_id,
            created_at: r.created_at.0,
            expires_at: r.expires_at.0,
            fingerprint: r.fingerprint,
            policy_flags: r.policy_flags.map(|f| f.0),
            note_dismissed_at: r.note_dismissed_at.map(|t| t.0),
            answered_via: r.answered_via,
            outcome,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(super) struct MuteRow {
    pub server_id: Uuid,
    pub server_slug: String,
    pub server_name: String,
    pub reason: String,
    pub note: String,
    pub created_at: DbTime,
}

impl From<MuteRow> for Mute {
    fn from(r: MuteRow) -> Self {
        Mute {
            server_id: r.server_id,
            server_slug: r.server_slug,
            server_name: r.server_name,
            reason: r.reason,
            note: r.note,
            created_at: r.created_at.0,
        }
    }
}

#[derive(sqlx::FromRow)]
pub(super) struct AuditRow {
    pub id: Uuid,
    pub org_id: Uuid,
    pub at: DbTime,
    pub actor: String,
    pub actor_id: Option<Uuid>,
    pub action: String,
    pub user_id: Option<Uuid>,
    pub server_slug: Option<String>,
    pub reason: Option<String>,
    pub details: Json<serde_json::Value>,
}

impl From<AuditRow> for AuditEntry {
    fn from(r: AuditRow) -> Self {
        AuditEntry {
            id: r.id,
            org_id: r.org_id,
            at: r.at.0,
            actor: r.actor,
            actor_id: r.actor_id,
            action: r.action,
            user_id: r.user_id,
            server_slug: r.server_slug,
            reason: r.reason,
            details: r.details.0,
        }
    }
}

#[derive(sqlx::FromRow)]
pub(super) struct PendingGroupRow {
    pub server_slug: String,
    pub server_name: String,
    pub count: i64,
    pub people: i64,
    pub oldest: DbTime,
}

impl From<PendingGroupRow> for PendingGroup {
    fn from(r: PendingGroupRow) -> Self {
        PendingGroup {
            server_slug: r.server_slug,
            server_name: r.server_name,
            count: r.count,
            people: r.people,
            oldest: r.oldest.0,
        }
    }
}

#[derive(sqlx::FromRow)]
pub(super) struct AgentSessionRow {
    pub id_hash: Vec<u8>,
    pub org_id: Uuid,
    pub user_id: Uuid,
    pub server_id: Uuid,
    pub protocol_version: String,
    pub agent_info: Option<Json<serde_json::Value>>,
    pub agent_capabilities: Option<Json<serde_json::Value>>,
    pub token_id: Option<Uuid>,
    pub created_at: DbTime,
    pub last_seen_at: DbTime,
}

impl From<AgentSessionRow> for AgentSessionRecord {
    fn from(r: AgentSessionRow) -> Self {
        AgentSessionRecord {
            id_hash: r.id_hash,
            org_id: r.org_id,
            user_id: r.user_id,
            server_id: r.server_id,
            protocol_version: r.protocol_version,
            agent_info: r.agent_info.map(|j| j.0),
            agent_capabilities: r.agent_capabilities.map(|j| j.0),
            token_id: r.token_id,
            created_at: r.created_at.0,
            last_seen_at: r.last_seen_at.0,
        }
    }
}
