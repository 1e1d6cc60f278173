//! The operator's sign-in settings (`HERALD_PASSWORD_SIGN_IN`, `HERALD_OIDC_*`),
//! as given and as validated.

use clap::Args;

use crate::config::ConfigError;
use crate::domain::Role;

#[derive(Debug, Args, Default, Clone)]
pub struct RawSignInSettings {
    /// Whether people may sign in with a password: `on` (default) or `off` (only through an
    /// identity provider; setup and invites still set passwords).
    #[arg(long, env = "HERALD_PASSWORD_SIGN_IN", global = true)]
    pub password_sign_in: Option<String>,
    /// The instance's identity provider: an OpenID Connect issuer URL (discovery at
    /// `<issuer>/.well-known/openid-configuration`). Unset: no single sign-on.
    #[arg(long, env = "HERALD_OIDC_ISSUER", global = true)]
    pub oidc_issuer: Option<String>,
    /// Herald's client id at the provider (its redirect URI: `<public URL>/auth/sso/callback`).
    #[arg(long, env = "HERALD_OIDC_CLIENT_ID", global = true)]
    pub oidc_client_id: Option<String>,
    /// Herald's client secret at the provider.
    #[arg(long, env = "HERALD_OIDC_CLIENT_SECRET", hide_env_values = true, global = true)]
    pub oidc_client_secret: Option<String>,
    /// What the sign-in button calls the provider. Default: "single sign-on".
    #[arg(long, env = "HERALD_OIDC_NAME", global = true)]
    pub oidc_name: Option<String>,
    /// The organisation (slug) people who sign in through the provider join.
    #[arg(long, env = "HERALD_OIDC_ORG", global = true)]
    pub oidc_org: Option<String>,
    /// E-mail domains whose people may sign in (and join), comma-separated; `*` for any.
    #[arg(long, env = "HERALD_OIDC_DOMAINS", global = true)]
    pub oidc_domains: Option<String>,
    /// The role people get when they join: `member` (default) or `admin`.
    #[arg(long, env = "HERALD_OIDC_DEFAULT_ROLE", global = true)]
    pub oidc_default_role: Option<String>,
    /// The ID token claim that lists a person's groups (like `groups`); with
    /// `--oidc-role-map`, the provider decides members' roles at every sign-in.
    #[arg(long, env = "HERALD_OIDC_GROUPS_CLAIM", global = true)]
    pub oidc_groups_claim: Option<String>,
    /// Groups to roles, like `herald-admins=admin,engineering=member`; the highest match wins.
    #[arg(long, env = "HERALD_OIDC_ROLE_MAP", global = true)]
    pub oidc_role_map: Option<String>,
    /// Scopes asked for besides `openid`, space-separated. Default: `email profile`, and the
    /// groups claim's name when one is set.
    #[arg(long, env = "HERALD_OIDC_SCOPES", global = true)]
    pub oidc_scopes: Option<String>,
    /// Whether organisations may set up their own identity provider: `off` (default) or `on`.
    /// Their people sign in through it only with e-mail domains the operator confirmed for
    /// the organisation (`herald domains confirm`).
    #[arg(long, env = "HERALD_ORG_IDENTITY_PROVIDERS", global = true)]
    pub org_identity_providers: Option<String>,
}

/// The validated sign-in settings.
#[derive(Clone, Debug)]
pub struct SignInSettings {
    pub password_sign_in: bool,
    pub instance_provider: Option<ProviderSettings>,
    /// Organisations may have identity providers of their own.
    pub org_providers: bool,
}

impl Default for SignInSettings {
    fn default() -> Self {
        SignInSettings { password_sign_in: true, instance_provider: None, org_providers: false }
    }
}

/// One identity provider, as Herald uses it.
#[derive(Clone)]
pub struct ProviderSettings {
    /// `instance` (the operator's) or `org:<uuid>` (an organisation's own).
    pub key: String,
    pub issuer: url::Url,
    pub client_id: String,
    pub client_secret: String,
    pub display_name: String,
    /// The organisation people join (its slug).
    pub org_slug: String,
    pub domains: Domains,
    pub default_role: Role,
    pub groups_claim: Option<String>,
    /// Group names to roles, highest role first.
    pub role_map: Vec<(String, Role)>,
    pub scopes: Vec<String>,
    /// Whether an account with the asserted (verified) e-mail may be linked to the provider's
    /// subject. True for the operator's provider, which the operator trusts to assert e-mails.
    pub links_by_email: bool,
}

impl std::fmt::Debug for ProviderSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderSettings")
            .field("key", &self.key)
            .field("issuer", &self.issuer.as_str())
            .field("client_id", &self.client_id)
            .field("org_slug", &self.org_slug)
            .field("domains", &self.domains)
            .finish_non_exhaustive()
    }
}

/// The e-mail domains a provider may sign people in from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Domains {
    Any,
    Only(Vec<String>),
}

impl Domains {
    pub fn allows(&self, email: &str) -> bool {
        match self {
            Domains::Any => true,
            Domains::Only(list) => email
                .rsplit_once('@')
                .is_some_and(|(_, domain)| list.iter().any(|d| d.eq_ignore_ascii_case(domain))),
        }
    }
}

impl ProviderSettings {
    /// The key an organisation's own provider is known by (in sign-in attempts and identities).
    pub fn org_key(org_id: uuid::Uuid) -> String {
        format!("org:{org_id}")
    }

    /// The organisation `key` names, when it is an organisation's provider.
    pub fn org_of_key(key: &str) -> Option<uuid::Uuid> {
        key.strip_prefix("org:").and_then(|id| id.parse().ok())
    }

    /// Whether a tenant chose this provider (its URLs are held to the egress policy).
    pub fn is_org_provider(&self) -> bool {
        Self::org_of_key(&self.key).is_some()
    }

    /// An organisation's provider, with its secret opened and its confirmed domains: the only
    /// e-mails it may sign in, and since the operator confirmed them the organisation's, the
    /// only ones it may link existing accounts by.
    pub fn of_org(
        org: &crate::storage::Org,
        stored: &crate::storage::org_providers::OrgProvider,
        client_secret: String,
        confirmed_domains: Vec<String>,
    ) -> Result<Self, String> {
        let issuer = url::Url::parse(&stored.issuer).map_err(|e| format!("its issuer is not a URL ({e})"))?;
        let mut scopes = vec!["email".to_owned(), "profile".to_owned()];
        if let Some(claim) = &stored.groups_claim {
            scopes.push(claim.clone());
        }
        Ok(ProviderSettings {
            key: Self::org_key(org.id),
            issuer,
            client_id: stored.client_id.clone(),
            client_secret,
            display_name: stored.display_name.clone(),
            org_slug: org.slug.clone(),
            domains: Domains::Only(confirmed_domains),
            default_role: stored.default_role,
            groups_claim: stored.groups_claim.clone(),
            role_map: stored.role_map.clone(),
            scopes,
            links_by_email: true,
        })
    }

    /// The role the groups claim maps to, if a mapping is configured and one group matches.
    pub fn mapped_role(&self, groups: &[String]) -> Option<Role> {
        self.role_map.iter().find(|(group, _)| groups.iter().any(|g| g == group)).map(|(_, role)| *role)
    }
}

impl SignInSettings {
    pub fn from_raw(raw: &RawSignInSettings, development: bool) -> Result<Self, ConfigError> {
        let password_sign_in = match raw.password_sign_in.as_deref().map(str::trim) {
            None | Some("") | Some("on") => true,
            Some("off") => false,
            Some(other) => {
                return Err(bad(
                    "--password-sign-in",
                    "HERALD_PASSWORD_SIGN_IN",
                    format!("{other:?} is neither on nor off"),
                ));
            }
        };
        let org_providers = match raw.org_identity_providers.as_deref().map(str::trim) {
            None | Some("") | Some("off") => false,
            Some("on") => true,
            Some(other) => {
                return Err(bad(
                    "--org-identity-providers",
                    "HERALD_ORG_IDENTITY_PROVIDERS",
                    format!("{other:?} is neither on nor off"),
                ));
            }
        };
        let given =
            |v: &Option<String>| v.as_deref().map(str::trim).filter(|v| !v.is_empty()).map(str::to_owned);
        let Some(issuer) = given(&raw.oidc_issuer) else {
            if !password_sign_in {
                return Err(bad(
                    "--password-sign-in",
                    "HERALD_PASSWORD_SIGN_IN",
                    "is off, but no identity provider is set (HERALD_OIDC_ISSUER): nobody could sign in",
                ));
            }
            return Ok(SignInSettings { password_sign_in, instance_provider: None, org_providers });
        };
        let issuer =
            parse_issuer(&issuer, development).map_err(|p| bad("--oidc-issuer", "HERALD_OIDC_ISSUER", p))?;
        let client_id = given(&raw.oidc_client_id)
            .ok_or_else(|| bad("--oidc-client-id", "HERALD_OIDC_CLIENT_ID", "is needed with an issuer"))?;
        let client_secret = given(&raw.oidc_client_secret).ok_or_else(|| {
            bad("--oidc-client-secret", "HERALD_OIDC_CLIENT_SECRET", "is needed with an issuer")
        })?;
        let org_slug = given(&raw.oidc_org).ok_or_else(|| {
            bad("--oidc-org", "HERALD_OIDC_ORG", "is needed with an issuer: the organisation people join")
        })?;
        let domains = match given(&raw.oidc_domains) {
            None => {
                return Err(bad(
                    "--oidc-domains",
                    "HERALD_OIDC_DOMAINS",
                    "is needed with an issuer: the e-mail domains whose people may sign in, or *",
                ));
            }
            Some(list) if list == "*" => Domains::Any,
            Some(list) => Domains::Only(
                list.split(',')
                    .map(parse_email_domain)
                    .collect::<Result<_, _>>()
                    .map_err(|p| bad("--oidc-domains", "HERALD_OIDC_DOMAINS", p))?,
            ),
        };
        let default_role = match given(&raw.oidc_default_role).as_deref() {
            None | Some("member") => Role::Member,
            Some("admin") => Role::Admin,
            Some(other) => {
                return Err(bad(
                    "--oidc-default-role",
                    "HERALD_OIDC_DEFAULT_ROLE",
                    format!("{other:?} is neither member nor admin"),
                ));
            }
        };
        let groups_claim = given(&raw.oidc_groups_claim);
        let mut role_map = Vec::new();
        if let Some(map) = given(&raw.oidc_role_map) {
            if groups_claim.is_none() {
                return Err(bad(
                    "--oidc-role-map",
                    "HERALD_OIDC_ROLE_MAP",
                    "needs --oidc-groups-claim: the claim the groups are read from",
                ));
            }
            let mut pairs = Vec::new();
            for pair in map.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                let (group, role) = pair.rsplit_once('=').ok_or_else(|| {
                    bad("--oidc-role-map", "HERALD_OIDC_ROLE_MAP", format!("{pair:?} is not group=role"))
                })?;
                pairs.push((group.trim().to_owned(), role.trim().to_owned()));
            }
            role_map =
                parse_role_map(pairs).map_err(|p| bad("--oidc-role-map", "HERALD_OIDC_ROLE_MAP", p))?;
        }
        let mut scopes: Vec<String> = match given(&raw.oidc_scopes) {
            Some(list) => list.split_whitespace().filter(|s| *s != "openid").map(str::to_owned).collect(),
            None => vec!["email".into(), "profile".into()],
        };
        if let Some(claim) = &groups_claim
            && given(&raw.oidc_scopes).is_none()
        {
            scopes.push(claim.clone());
        }
        let display_name = given(&raw.oidc_name).unwrap_or_else(|| "single sign-on".into());
        Ok(SignInSettings {
            password_sign_in,
            org_providers,
            instance_provider: Some(ProviderSettings {
                key: "instance".into(),
                issuer,
                client_id,
                client_secret,
                display_name,
                org_slug,
                domains,
                default_role,
                groups_claim,
                role_map,
                scopes,
                links_by_email: true,
            }),
        })
    }
}

/// An e-mail domain as given (`example.com`, `@Example.com`, `bücher.example`), as compared:
/// lowercase, internationalised names in their ASCII form.
pub fn parse_email_domain(given: &str) -> Result<String, String> {
    let trimmed = given.trim().trim_start_matches('@');
    let problem = || format!("{:?} is not an e-mail domain like example.com", given.trim());
    if trimmed.is_empty() || trimmed.len() > 253 || trimmed.contains(['@', '/', ' ', '*', ':', '[']) {
        return Err(problem());
    }
    match url::Host::parse(trimmed) {
        Ok(url::Host::Domain(domain))
            if domain.contains('.')
                && domain.split('.').all(|label| {
                    !label.is_empty()
                        && label.len() <= 63
                        && !label.starts_with('-')
                        && !label.ends_with('-')
                        && label.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
                }) =>
        {
            Ok(domain.to_ascii_lowercase())
        }
        _ => Err(problem()),
    }
}

/// Groups to roles, as an operator or an admin gave them: admin or member (owners are made by
/// owners), highest role first so that the first match is the role.
pub fn parse_role_map(pairs: Vec<(String, String)>) -> Result<Vec<(String, Role)>, String> {
    const MAX_PAIRS: usize = 50;
    if pairs.len() > MAX_PAIRS {
        return Err(format!("at most {MAX_PAIRS} groups may be mapped"));
    }
    let mut map = Vec::with_capacity(pairs.len());
    for (group, role) in pairs {
        if group.is_empty() || group.len() > 256 || group.chars().any(char::is_control) {
            return Err(format!("{group:?} is not a group name (1 to 256 characters)"));
        }
        let role = match role.as_str() {
            "admin" => Role::Admin,
            "member" => Role::Member,
            other => {
                return Err(format!("{other:?} is neither admin nor member (owners are made by owners)"));
            }
        };
        map.push((group, role));
    }
    map.sort_by_key(|(_, role)| if *role == Role::Admin { 0 } else { 1 });
    Ok(map)
}

/// An issuer URL: https, or http on loopback while developing; no query or fragment.
pub fn parse_issuer(given: &str, development: bool) -> Result<url::Url, String> {
    let url = url::Url::parse(given).map_err(|e| format!("{given:?} is not a URL ({e})"))?;
    let loopback = match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(d)) => d == "localhost",
        None => false,
    };
    match url.scheme() {
        "https" => {}
        "http" if loopback && development => {}
        "http" if loopback => {
            return Err(format!("{given:?} is plain http: allowed only while Herald itself is on loopback"));
        }
        _ => return Err(format!("{given:?} must be an https URL")),
    }
    if url.query().is_some() || url.fragment().is_some() || !url.username().is_empty() {
        return Err(format!("{given:?} must have no query, fragment or user name"));
    }
    Ok(url)
}

fn bad(flag: &'static str, env: &'static str, problem: impl Into<String>) -> ConfigError {
    ConfigError { flag, env, problem: problem.into() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw() -> RawSignInSettings {
        RawSignInSettings {
            oidc_issuer: Some("https://idp.example.com".into()),
            oidc_client_id: Some("herald".into()),
            oidc_client_secret: Some("s3cret".into()),
            oidc_org: Some("acme".into()),
            oidc_domains: Some("Example.com, @corp.example.org".into()),
            ..Default::default()
        }
    }

    #[test]
    fn a_provider_needs_its_client_its_organisation_and_its_domains() {
        let settings = SignInSettings::from_raw(&raw(), false).unwrap();
        let provider = settings.instance_provider.unwrap();
        assert_eq!(provider.domains, Domains::Only(vec!["example.com".into(), "corp.example.org".into()]));
        assert!(provider.domains.allows("ada@EXAMPLE.com"));
        assert!(!provider.domains.allows("ada@example.com.evil.test"));
        assert_eq!(provider.scopes, vec!["email", "profile"]);
        for missing in ["client id", "client secret", "org", "domains"] {
            let mut r = raw();
            match missing {
                "client id" => r.oidc_client_id = None,
                "client secret" => r.oidc_client_secret = None,
                "org" => r.oidc_org = None,
                _ => r.oidc_domains = None,
            }
            assert!(SignInSettings::from_raw(&r, false).is_err(), "{missing}");
        }
    }

    #[test]
    fn e_mail_domains_are_compared_lowercase_and_in_ascii() {
        assert_eq!(parse_email_domain(" @Example.COM ").unwrap(), "example.com");
        assert_eq!(parse_email_domain("bücher.example").unwrap(), "xn--bcher-kva.example");
        for bad in
            ["", "example", "*.example.com", "a@b.com", "127.0.0.1", "-x.example.com", "x..com", "[::1]"]
        {
            assert!(parse_email_domain(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn plain_http_issuers_only_on_loopback_while_developing() {
        assert!(parse_issuer("http://127.0.0.1:9000", true).is_ok());
        assert!(parse_issuer("http://127.0.0.1:9000", false).is_err());
        assert!(parse_issuer("http://idp.example.com", true).is_err());
        assert!(parse_issuer("https://idp.example.com/?x=1", false).is_err());
    }

    #[test]
    fn role_maps_put_the_highest_role_first_and_refuse_owner() {
        let mut r = raw();
        r.oidc_groups_claim = Some("groups".into());
        r.oidc_role_map = Some("eng=member, herald-admins=admin".into());
        let p = SignInSettings::from_raw(&r, false).unwrap().instance_provider.unwrap();
        assert_eq!(p.mapped_role(&["eng".into(), "herald-admins".into()]), Some(Role::Admin));
        assert_eq!(p.mapped_role(&["eng".into()]), Some(Role::Member));
        assert_eq!(p.mapped_role(&["other".into()]), None);
        assert_eq!(p.scopes, vec!["email", "profile", "groups"]);
        r.oidc_role_map = Some("x=owner".into());
        assert!(SignInSettings::from_raw(&r, false).is_err());
    }

    #[test]
    fn password_sign_in_off_needs_a_provider() {
        let r = RawSignInSettings { password_sign_in: Some("off".into()), ..Default::default() };
        assert!(SignInSettings::from_raw(&r, false).is_err());
        let mut r = raw();
        r.password_sign_in = Some("off".into());
        assert!(!SignInSettings::from_raw(&r, false).unwrap().password_sign_in);
    }
}
