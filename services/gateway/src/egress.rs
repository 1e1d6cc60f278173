//! The egress policy: which addresses Herald may connect to on a tenant's behalf.
//!
//! Any account can create an organisation and register a server URL of its
//! choosing, and Herald then connects there from inside the operator's
//! network. Left alone, that reaches Herald's own loopback, the private
//! network around it and the cloud's metadata service. So every upstream
//! address is checked against the operator's setting (`HERALD_UPSTREAM_ALLOW`
//! and `HERALD_UPSTREAM_ALLOW_CIDRS`):
//!
//! - at registration, a URL whose host is an address (in any spelling the URL
//!   standard accepts: `127.1`, `2130706433`, `0x7f.1`, `[::ffff:7f00:1]`) or a
//!   name that is loopback by definition (`localhost`) is refused with a
//!   field error;
//! - at connect time, on every new connection: [`Resolver`] resolves a name
//!   and keeps only the addresses the policy allows (so a name that resolves,
//!   or later re-resolves, to a private address is refused: DNS rebinding),
//!   and [`EgressPolicy::refuses_host`] checks a URL whose host is an address
//!   (which never reaches a resolver).

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use herald_mcp::connect_failure::{AddressNotAllowed, NameNotResolved};
use ipnet::IpNet;

/// The kinds of address the operator may allow, besides explicit networks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allow {
    /// Globally reachable addresses only.
    Public,
    /// Those and loopback (development: servers on the same machine).
    PublicAndLoopback,
    /// Every address (a trusted, single-tenant deployment).
    Any,
}

impl Allow {
    pub const CHOICES: &'static str = "public, public+loopback, any";

    pub fn parse(given: &str) -> Option<Self> {
        match given.trim().to_ascii_lowercase().as_str() {
            "public" => Some(Allow::Public),
            "public+loopback" => Some(Allow::PublicAndLoopback),
            "any" => Some(Allow::Any),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Allow::Public => "public",
            Allow::PublicAndLoopback => "public+loopback",
            Allow::Any => "any",
        }
    }
}

/// What an address is, after the IANA special-purpose registries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressClass {
    Public,
    Loopback,
    /// `0.0.0.0/8`, `::` (on Linux a connection to it reaches this machine).
    Unspecified,
    /// RFC 1918, unique local `fc00::/7`, site-local `fec0::/10`.
    Private,
    /// `169.254.0.0/16` (cloud metadata services live here), `fe80::/10`.
    LinkLocal,
    /// Carrier-grade NAT, `100.64.0.0/10`.
    SharedAddressSpace,
    Multicast,
    Broadcast,
    /// `192.0.2.0/24`, `198.51.100.0/24`, `203.0.113.0/24`, `2001:db8::/32`, `3fff::/20`.
    Documentation,
    /// `198.18.0.0/15`, `2001:2::/48`.
    Benchmarking,
    /// Anything else not globally reachable: `240.0.0.0/4`, `192.0.0.0/24`,
    /// IETF protocol assignments, IPv4-compatible IPv6, IPv6 outside `2000::/3`.
    Reserved,
}

impl AddressClass {
    fn described(self) -> &'static str {
        match self {
            AddressClass::Public => "a public address",
            AddressClass::Loopback => "a loopback address",
            AddressClass::Unspecified => "an unspecified address",
            AddressClass::Private => "a private address",
            AddressClass::LinkLocal => "a link-local address",
            AddressClass::SharedAddressSpace => "a carrier-grade NAT address",
            AddressClass::Multicast => "a multicast address",
            AddressClass::Broadcast => "the broadcast address",
            AddressClass::Documentation => "a documentation address",
            AddressClass::Benchmarking => "a benchmarking address",
            AddressClass::Reserved => "a reserved address",
        }
    }
}

/// Classifies an address. IPv6 forms that carry an IPv4 address (mapped
/// `::ffff:0:0/96`, the NAT64 prefix `64:ff9b::/96`, 6to4 `2002::/16`) are
/// classified by the IPv4 address they carry.
pub fn classify(ip: IpAddr) -> AddressClass {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

fn classify_v4(ip: Ipv4Addr) -> AddressClass {
    use AddressClass::*;
    match ip.octets() {
        [0, ..] => Unspecified,
        [10, ..] => Private,
        [100, b, ..] if (64..128).contains(&b) => SharedAddressSpace,
        [127, ..] => Loopback,
        [169, 254, ..] => LinkLocal,
        [172, b, ..] if (16..32).contains(&b) => Private,
        [192, 0, 0, _] => Reserved,
        [192, 0, 2, _] => Documentation,
        [192, 88, 99, _] => Reserved,
        [192, 168, ..] => Private,
        [198, 18 | 19, ..] => Benchmarking,
        [198, 51, 100, _] => Documentation,
        [203, 0, 113, _] => Documentation,
        [224..=239, ..] => Multicast,
        [255, 255, 255, 255] => Broadcast,
        [240..=255, ..] => Reserved,
        _ => Public,
    }
}

fn classify_v6(ip: Ipv6Addr) -> AddressClass {
    use AddressClass::*;
    if let Some(v4) = ip.to_ipv4_mapped() {
        return classify_v4(v4);
    }
    let s = ip.segments();
    let embedded = |hi: u16, lo: u16| Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
    match s {
        [0, 0, 0, 0, 0, 0, 0, 0] => Unspecified,
        [0, 0, 0, 0, 0, 0, 0, 1] => Loopback,
        // NAT64, well-known prefix: the IPv4 address it translates to decides.
        [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => classify_v4(embedded(hi, lo)),
        // 6to4: the IPv4 address of the tunnel's end decides.
        [0x2002, hi, lo, ..] => classify_v4(embedded(hi, lo)),
        [0x2001, 0x0db8, ..] => Documentation,
        [0x3fff, b, ..] if b < 0x1000 => Documentation,
        [0x2001, 0x0002, 0, ..] => Benchmarking,
        // 2001::/23: IETF protocol assignments (Teredo, ORCHID, …).
        [0x2001, b, ..] if b < 0x0200 => Reserved,
        [a, ..] if a & 0xfe00 == 0xfc00 => Private,
        [a, ..] if a & 0xffc0 == 0xfe80 => LinkLocal,
        [a, ..] if a & 0xffc0 == 0xfec0 => Private,
        [a, ..] if a & 0xff00 == 0xff00 => Multicast,
        // Only 2000::/3 is global unicast; the rest (IPv4-compatible ::/96,
        // local-use NAT64 64:ff9b:1::/48, discard 100::/64, …) is not.
        [a, ..] if a & 0xe000 != 0x2000 => Reserved,
        _ => Public,
    }
}

/// The IPv4 address an IPv4-mapped IPv6 address stands for; others as they are.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// Names that are loopback by definition (RFC 6761), whatever DNS says.
fn is_loopback_name(name: &str) -> bool {
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    name == "localhost" || name.ends_with(".localhost")
}

/// The operator's egress setting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EgressPolicy {
    pub allow: Allow,
    /// Networks allowed whatever their class (an operator's private MCP servers).
    pub networks: Vec<IpNet>,
    /// Whether `allow` was derived from the public URL rather than set.
    pub derived: bool,
}

impl Default for EgressPolicy {
    /// Public addresses only: the safe choice when nothing is known.
    fn default() -> Self {
        Self { allow: Allow::Public, networks: Vec::new(), derived: true }
    }
}

impl EgressPolicy {
    /// `allow` as set, or derived: a development instance (loopback public
    /// URL) may reach loopback, anything else only public addresses.
    pub fn new(allow: Option<Allow>, networks: Vec<IpNet>, development: bool) -> Self {
        let derived = allow.is_none();
        let allow = allow.unwrap_or(if development { Allow::PublicAndLoopback } else { Allow::Public });
        Self { allow, networks: networks.into_iter().map(|n| n.trunc()).collect(), derived }
    }

    /// Parses a comma- or space-separated list of networks (`10.20.0.0/16`,
    /// `fd12:3456::/48`) or single addresses.
    pub fn parse_networks(given: &str) -> Result<Vec<IpNet>, String> {
        given
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|item| !item.is_empty())
            .map(|item| {
                item.parse::<IpNet>()
                    .or_else(|_| item.parse::<IpAddr>().map(IpNet::from))
                    .map(|net| net.trunc())
                    .map_err(|_| format!("{item:?} is not a network like 10.20.0.0/16 or an address"))
            })
            .collect()
    }

    /// Whether Herald may connect to `ip`.
    pub fn permits(&self, ip: IpAddr) -> bool {
        if self.networks.iter().any(|net| net.contains(&ip) || net.contains(&canonical(ip))) {
            return true;
        }
        matches!(
            (self.allow, classify(ip)),
            (Allow::Any, _) | (_, AddressClass::Public) | (Allow::PublicAndLoopback, AddressClass::Loopback)
        )
    }

    /// What a registered URL may name, said to the admin who typed it.
    fn scope(&self) -> String {
        let kinds = match self.allow {
            Allow::Public => "public addresses",
            Allow::PublicAndLoopback => "public and loopback addresses",
            Allow::Any => "any address",
        };
        if self.networks.is_empty() {
            format!("this Herald connects only to {kinds}")
        } else {
            format!("this Herald connects only to {kinds} and the networks its operator allowed")
        }
    }

    /// Checks a URL at registration: its host, when it is an address or a
    /// loopback name. Other names are checked when Herald connects.
    pub fn check_url(&self, url: &url::Url) -> Result<(), String> {
        let ip = match url.host() {
            Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip),
            Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip),
            Some(url::Host::Domain(name)) if is_loopback_name(name) => {
                if self.permits(IpAddr::V4(Ipv4Addr::LOCALHOST)) {
                    return Ok(());
                }
                return Err(format!("points to {name}, a loopback name; {}", self.scope()));
            }
            _ => return Ok(()),
        };
        if self.permits(ip) {
            return Ok(());
        }
        Err(format!("points to {ip}, {}; {}", classify(ip).described(), self.scope()))
    }

    /// Parses a server URL an admin gives (`ServerUrl`'s rules) and checks
    /// its host against this policy.
    pub fn server_url(&self, given: &str) -> Result<crate::domain::ServerUrl, crate::domain::Invalid> {
        let url = crate::domain::ServerUrl::parse(given)?;
        self.check_url(url.url()).map_err(crate::domain::Invalid)?;
        Ok(url)
    }

    /// At connect time: whether `url`'s host is an address the policy
    /// refuses. (A name is checked by [`Resolver`] once resolved.)
    pub fn refuses_host(&self, url: &url::Url) -> bool {
        match url.host() {
            Some(url::Host::Ipv4(ip)) => !self.permits(IpAddr::V4(ip)),
            Some(url::Host::Ipv6(ip)) => !self.permits(IpAddr::V6(ip)),
            Some(url::Host::Domain(_)) | None => false,
        }
    }

    /// The resolver for reqwest clients that connect to upstream servers.
    pub fn resolver(&self) -> Resolver {
        Resolver { policy: Arc::new(self.clone()) }
    }
}

impl Resolver {
    /// The policy it keeps addresses to (for URLs that name an address, which it never sees).
    pub fn policy(&self) -> &EgressPolicy {
        &self.policy
    }
}

impl fmt::Display for EgressPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.allow.as_str())?;
        for net in &self.networks {
            write!(f, ",{net}")?;
        }
        Ok(())
    }
}

/// Resolves names for upstream connections and keeps only the addresses
/// the policy allows; when none is left the connection fails with
/// [`AddressNotAllowed`]. It runs for every new connection, so the address
/// Herald connects to is the one that was checked.
#[derive(Clone)]
pub struct Resolver {
    policy: Arc<EgressPolicy>,
}

impl reqwest::dns::Resolve for Resolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let policy = self.policy.clone();
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let found: Vec<SocketAddr> = match tokio::net::lookup_host((host.as_str(), 0)).await {
                Ok(found) => found.collect(),
                Err(_) => Vec::new(),
            };
            if found.is_empty() {
                return Err(Box::new(NameNotResolved) as Box<dyn std::error::Error + Send + Sync>);
            }
            let allowed: Vec<SocketAddr> = found.iter().copied().filter(|a| policy.permits(a.ip())).collect();
            if allowed.is_empty() {
                // For the operator's eyes: the tenant is told only that it was refused.
                let addresses: Vec<IpAddr> = found.iter().map(SocketAddr::ip).collect();
                tracing::warn!(%host, ?addresses, "upstream connection refused by the egress policy");
                return Err(Box::new(AddressNotAllowed) as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(allowed.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn addresses_are_classified_after_the_special_purpose_registries() {
        use AddressClass::*;
        let cases = [
            ("8.8.8.8", Public),
            ("1.1.1.1", Public),
            ("100.63.255.255", Public),
            ("100.128.0.0", Public),
            ("172.15.255.255", Public),
            ("172.32.0.0", Public),
            ("192.0.1.1", Public),
            ("198.17.255.255", Public),
            ("223.255.255.255", Public),
            ("0.0.0.0", Unspecified),
            ("0.1.2.3", Unspecified),
            ("10.0.0.1", Private),
            ("10.255.255.255", Private),
            ("100.64.0.1", SharedAddressSpace),
            ("100.127.255.254", SharedAddressSpace),
            ("127.0.0.1", Loopback),
            ("127.255.255.254", Loopback),
            ("169.254.169.254", LinkLocal),
            ("172.16.0.1", Private),
            ("172.31.255.255", Private),
            ("192.0.0.8", Reserved),
            ("192.0.2.10", Documentation),
            ("192.88.99.1", Reserved),
            ("192.168.1.1", Private),
            ("198.18.0.1", Benchmarking),
            ("198.19.255.255", Benchmarking),
            ("198.51.100.7", Documentation),
            ("203.0.113.9", Documentation),
            ("224.0.0.1", Multicast),
            ("239.255.255.250", Multicast),
            ("240.0.0.1", Reserved),
            ("255.255.255.255", Broadcast),
            // IPv6
            ("2606:4700:4700::1111", Public),
            ("2a00:1450:4001:82b::200e", Public),
            ("::", Unspecified),
            ("::1", Loopback),
            ("::ffff:127.0.0.1", Loopback),
            ("::ffff:7f00:1", Loopback),
            ("::ffff:10.1.2.3", Private),
            ("::ffff:169.254.169.254", LinkLocal),
            ("::ffff:8.8.8.8", Public),
            ("::127.0.0.1", Reserved),
            ("::8.8.8.8", Reserved),
            ("64:ff9b::7f00:1", Loopback),
            ("64:ff9b::a9fe:a9fe", LinkLocal),
            ("64:ff9b::10.0.0.1", Private),
            ("64:ff9b::8.8.8.8", Public),
            ("64:ff9b:1::a00:1", Reserved),
            ("2002:7f00:1::1", Loopback),
            ("2002:c0a8:101::1", Private),
            ("2002:808:808::1", Public),
            ("fc00::1", Private),
            ("fd00::1", Private),
            ("fd00:ec2::254", Private),
            ("fe80::1", LinkLocal),
            ("febf::1", LinkLocal),
            ("fec0::1", Private),
            ("ff02::1", Multicast),
            ("2001:db8::1", Documentation),
            ("3fff::1", Documentation),
            ("2001:2::1", Benchmarking),
            ("2001::1", Reserved),
            ("2001:10::1", Reserved),
            ("100::1", Reserved),
            ("5f00::1", Reserved),
            ("4000::1", Reserved),
        ];
        for (address, class) in cases {
            assert_eq!(classify(ip(address)), class, "{address}");
        }
    }

    #[test]
    fn the_allowed_kinds_and_networks_decide() {
        let public = EgressPolicy::new(Some(Allow::Public), vec![], true);
        assert!(public.permits(ip("8.8.8.8")));
        assert!(!public.permits(ip("127.0.0.1")));
        assert!(!public.permits(ip("::1")));
        assert!(!public.permits(ip("10.0.0.1")));

        let dev = EgressPolicy::new(None, vec![], true);
        assert_eq!(dev.allow, Allow::PublicAndLoopback);
        assert!(
            dev.permits(ip("127.0.0.1")) && dev.permits(ip("::1")) && dev.permits(ip("::ffff:127.0.0.1"))
        );
        assert!(!dev.permits(ip("169.254.169.254")));
        assert!(!dev.permits(ip("0.0.0.0")));
        assert_eq!(EgressPolicy::new(None, vec![], false).allow, Allow::Public);

        let any = EgressPolicy::new(Some(Allow::Any), vec![], false);
        assert!(any.permits(ip("169.254.169.254")) && any.permits(ip("10.0.0.1")));

        let networks = EgressPolicy::parse_networks("10.20.0.0/16, fd12:3456::/48 192.168.5.7").unwrap();
        let private = EgressPolicy::new(Some(Allow::Public), networks, false);
        assert!(private.permits(ip("10.20.3.4")));
        assert!(private.permits(ip("::ffff:10.20.3.4")), "a mapped address is in its IPv4 network");
        assert!(private.permits(ip("fd12:3456::9")));
        assert!(private.permits(ip("192.168.5.7")));
        assert!(!private.permits(ip("192.168.5.8")));
        assert!(!private.permits(ip("10.21.0.1")));
        assert_eq!(private.to_string(), "public,10.20.0.0/16,fd12:3456::/48,192.168.5.7/32");
    }

    #[test]
    fn networks_are_parsed_precisely() {
        assert_eq!(EgressPolicy::parse_networks("10.1.2.3/8").unwrap(), vec!["10.0.0.0/8".parse().unwrap()]);
        assert_eq!(EgressPolicy::parse_networks(" ").unwrap(), vec![]);
        let err = EgressPolicy::parse_networks("10.0.0.0/8,intranet").unwrap_err();
        assert!(err.contains("\"intranet\""), "{err}");
        assert!(EgressPolicy::parse_networks("10.0.0.0/33").is_err());
        assert_eq!(Allow::parse("Public+Loopback"), Some(Allow::PublicAndLoopback));
        assert_eq!(Allow::parse("private"), None);
    }

    /// Every spelling of loopback the URL standard accepts is one address
    /// once parsed, so the check cannot be dodged by writing it differently.
    #[test]
    fn every_spelling_of_a_refused_host_is_refused_at_registration() {
        let public = EgressPolicy::new(Some(Allow::Public), vec![], false);
        for url in [
            "http://127.0.0.1:8080/mcp",
            "http://127.1:8080/mcp",
            "http://2130706433:8080/mcp",
            "http://0x7f.1:8080/mcp",
            "http://0x7f000001/mcp",
            "http://0177.0.0.1/mcp",
            "http://127.0.0.1./mcp",
            "http://%31%32%37.0.0.1/mcp",
            "http://[::1]/mcp",
            "http://[0:0:0:0:0:0:0:1]/mcp",
            "http://[::ffff:127.0.0.1]/mcp",
            "http://[::ffff:7f00:1]/mcp",
            "http://localhost/mcp",
            "http://LOCALHOST./mcp",
            "https://api.localhost/mcp",
            "https://0.0.0.0/mcp",
            "https://0/mcp",
            "https://[::]/mcp",
            "https://169.254.169.254/latest/meta-data/",
            "https://[fd00::1]/mcp",
            "https://[fe80::1]/mcp",
            "https://10.0.0.8/mcp",
            "https://172.16.0.1/mcp",
            "https://192.168.0.1/mcp",
            "https://100.64.0.1/mcp",
            "https://[64:ff9b::a9fe:a9fe]/mcp",
        ] {
            let parsed = url::Url::parse(url).unwrap();
            assert!(public.check_url(&parsed).is_err(), "{url} ({parsed}) should be refused");
            // Addresses are refused again at connect time; names by the resolver.
            let is_name = matches!(parsed.host(), Some(url::Host::Domain(_)));
            assert!(public.refuses_host(&parsed) || is_name, "{url} at connect time");
        }
        for url in ["https://mcp.example.com/mcp", "https://8.8.8.8/mcp", "https://[2606:4700::1]/mcp"] {
            let parsed = url::Url::parse(url).unwrap();
            assert_eq!(public.check_url(&parsed), Ok(()), "{url}");
            assert!(!public.refuses_host(&parsed));
        }
        let error = public.check_url(&url::Url::parse("http://0x7f.1:9/mcp").unwrap()).unwrap_err();
        assert_eq!(
            error,
            "points to 127.0.0.1, a loopback address; this Herald connects only to public addresses"
        );

        let dev = EgressPolicy::new(None, vec![], true);
        for url in ["http://127.1:8080/mcp", "http://localhost:3000/mcp", "http://[::1]:3000/mcp"] {
            assert_eq!(dev.check_url(&url::Url::parse(url).unwrap()), Ok(()), "{url}");
        }
        let error = dev.check_url(&url::Url::parse("https://169.254.169.254/").unwrap()).unwrap_err();
        assert_eq!(
            error,
            "points to 169.254.169.254, a link-local address; this Herald connects only to public and loopback addresses"
        );
    }

    #[tokio::test]
    async fn the_resolver_keeps_only_allowed_addresses() {
        use reqwest::dns::Resolve;
        let public = EgressPolicy::new(Some(Allow::Public), vec![], false).resolver();
        let refused = public.resolve("localhost".parse().unwrap()).await.err().expect("localhost is refused");
        assert!(refused.is::<AddressNotAllowed>(), "{refused}");
        let unknown =
            public.resolve("no-such-host.invalid".parse().unwrap()).await.err().expect("no address");
        assert!(unknown.is::<NameNotResolved>(), "{unknown}");

        let dev = EgressPolicy::new(None, vec![], true).resolver();
        let found: Vec<SocketAddr> = dev.resolve("localhost".parse().unwrap()).await.unwrap().collect();
        assert!(!found.is_empty() && found.iter().all(|a| a.ip().is_loopback()), "{found:?}");

        let only_v4 = EgressPolicy::new(Some(Allow::Public), vec!["127.0.0.1/32".parse().unwrap()], false);
        let found: Vec<SocketAddr> =
            only_v4.resolver().resolve("localhost".parse().unwrap()).await.unwrap().collect();
        assert!(found.iter().all(|a| a.ip() == ip("127.0.0.1")), "{found:?}");
    }
}
