//! The JSON shapes the API returns. Timestamps are RFC 3339 in UTC.

use serde::Serialize;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::domain::Role;
use crate::storage::{ApiToken, Invite, Member, Membership, Org, Server, User};

#[derive(Serialize)]
pub struct UserView {
    pub id: Uuid,
    pub email: String,
    pub name: String,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
}

impl From<&User> for UserView {
    fn from(u: &User) -> Self {
        Self { id: u.id, email: u.email.clone(), name: u.name.clone(), created_at: u.created_at }
    }
}

#[derive(Serialize)]
pub struct OrgView {
    pub slug: String,
    pub name: String,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
}

impl From<&Org> for OrgView {
    fn from(o: &Org) -> Self {
        Self { slug: o.slug.clone(), name: o.name.clone(), created_at: o.created_at }
    }
}

#[derive(Serialize)]
pub struct MembershipView {
    pub org: OrgView,
    pub role: Role,
}

impl From<&Membership> for MembershipView {
    fn from(m: &Membership) -> Self {
        Self { org: (&m.org).into(), role: m.role }
    }
}

/// The signed-in user and where they belong: what login, setup and `/me` return.
#[derive(Serialize)]
pub struct AccountView {
    pub user: UserView,
    pub memberships: Vec<MembershipView>,
}

impl AccountView {
    pub fn new(user: &User, memberships: &[Membership]) -> Self {
        Self { user: user.into(), memberships: memberships.iter().map(Into::into).collect() }
    }
}

#[derive(Serialize)]
pub struct MemberView {
    pub user: UserView,
    pub role: Role,
    #[serde(with = "time::serde::rfc3339")]
    pub joined_at: OffsetDateTime,
}

impl From<&Member> for MemberView {
    fn from(m: &Member) -> Self {
        Self { user: (&m.user).into(), role: m.role, joined_at: m.joined_at }
    }
}

#[derive(Serialize)]
pub struct InviteView {
    pub id: Uuid,
    pub email: String,
    pub role: Role,
    pub created_by: Uuid,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub expires_at: OffsetDateTime,
}

impl From<&Invite> for InviteView {
    fn from(i: &Invite) -> Self {
        Self {
            id: i.id,
            email: i.email.clone(),
            role: i.role,
            created_by: i.created_by,
            created_at: i.created_at,
            expires_at: i.expires_at,
        }
    }
}

#[derive(Serialize)]
pub struct TokenView {
    pub id: Uuid,
    pub name: String,
    pub prefix: String,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    pub last_used_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    pub expires_at: Option<OffsetDateTime>,
}

impl From<&ApiToken> for TokenView {
    fn from(t: &ApiToken) -> Self {
        Self {
            id: t.id,
            name: t.name.clone(),
            prefix: t.prefix.clone(),
            created_at: t.created_at,
            last_used_at: t.last_used_at,
            expires_at: t.expires_at,
        }
    }
}

/// A registered server. Header values are never part of any response.
#[derive(Serialize)]
pub struct ServerView {
    pub slug: String,
    pub name: String,
    pub url: String,
    pub header_names: Vec<String>,
    /// The era Herald speaks to the server: `auto`, `2025-11-25` or `2026-07-28`.
    pub protocol: crate::domain::ServerProtocol,
    /// How Herald authenticates to it: `none`, `headers` (shared) or `oauth` (each person's own).
    pub auth_mode: crate::domain::AuthMode,
    /// The client an admin registered at its authorization server (never its secret).
    pub oauth_client: Option<OAuthClientView>,
    pub cut_off: Option<CutOffView>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub updated_at: OffsetDateTime,
}

#[derive(Serialize)]
pub struct OAuthClientView {
    pub client_id: String,
    pub issuer: Option<String>,
    pub has_secret: bool,
}

#[derive(Serialize)]
pub struct CutOffView {
    #[serde(with = "time::serde::rfc3339")]
    pub at: OffsetDateTime,
    pub by: Option<Uuid>,
    pub reason: String,
}

impl From<&Server> for ServerView {
    fn from(s: &Server) -> Self {
        Self {
            slug: s.slug.clone(),
            name: s.name.clone(),
            url: crate::domain::ServerUrl::display_form(&s.url),
            header_names: s.header_names.clone(),
            protocol: s.protocol,
            auth_mode: s.auth_mode,
            oauth_client: s.oauth_client.as_ref().map(|c| OAuthClientView {
                client_id: c.client_id.clone(),
                issuer: c.issuer.clone(),
                has_secret: c.secret_sealed.is_some(),
            }),
            cut_off: s.cut_off.as_ref().map(|c| CutOffView { at: c.at, by: c.by, reason: c.reason.clone() }),
            created_at: s.created_at,
            updated_at: s.updated_at,
        }
    }
}
