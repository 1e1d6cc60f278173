//! Which address a request comes from, for the sign-in throttle.
//!
//! By default the socket's peer. When the peer is one of the operator's trusted proxies
//! (`HERALD_TRUSTED_PROXIES`), the `X-Forwarded-For` chain is walked from the right, skipping
//! trusted proxies, and the first address that is not one is the client: everything left of it
//! was written by the client itself and proves nothing. HAProxy's `option forwardfor` and
//! ingress-nginx append the address they saw, so this holds for chains of proxies too, as
//! long as each of them is listed.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::HeaderMap;
use axum::http::request::Parts;

use crate::app::AppState;
use crate::config::Cidr;
use crate::problem::ApiError;

/// The client's address, as far as Herald can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientAddr(pub IpAddr);

impl FromRequestParts<AppState> for ClientAddr {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        // The listener (`crate::listener`) records every connection's peer.
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |ConnectInfo(addr)| addr.ip());
        Ok(ClientAddr(resolve(peer, &parts.headers, &state.config.hardening.trusted_proxies)))
    }
}

/// The client behind `peer`: see the module's documentation.
pub fn resolve(peer: IpAddr, headers: &HeaderMap, trusted: &[Cidr]) -> IpAddr {
    let peer = peer.to_canonical();
    let is_trusted = |addr: IpAddr| trusted.iter().any(|net| net.contains(addr));
    if !is_trusted(peer) {
        return peer;
    }
    let hops: Vec<&str> = headers
        .get_all("x-forwarded-for")
        .iter()
        .flat_map(|value| value.to_str().unwrap_or_default().split(','))
        .map(str::trim)
        .collect();
    let mut nearest = peer;
    for hop in hops.iter().rev() {
        // Something unreadable was written by no proxy of ours: the nearest trusted hop is
        // all Herald can vouch for.
        let Some(addr) = parse_hop(hop) else { return nearest };
        if !is_trusted(addr) {
            return addr;
        }
        nearest = addr;
    }
    nearest
}

/// `1.2.3.4`, `1.2.3.4:5678`, `2001:db8::1` or `[2001:db8::1]:5678`.
fn parse_hop(hop: &str) -> Option<IpAddr> {
    if let Ok(addr) = hop.parse::<IpAddr>() {
        return Some(addr.to_canonical());
    }
    hop.parse::<SocketAddr>().ok().map(|s| s.ip().to_canonical())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(values: &[&str]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for v in values {
            map.append("x-forwarded-for", HeaderValue::from_str(v).unwrap());
        }
        map
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn an_untrusted_peer_is_the_client_whatever_it_claims() {
        let trusted = [Cidr::parse("10.0.0.5").unwrap()];
        assert_eq!(resolve(ip("203.0.113.9"), &headers(&["198.51.100.1"]), &trusted), ip("203.0.113.9"));
        assert_eq!(resolve(ip("203.0.113.9"), &headers(&[]), &[]), ip("203.0.113.9"));
    }

    #[test]
    fn behind_trusted_proxies_the_right_most_untrusted_hop_is_the_client() {
        let trusted = [Cidr::parse("10.0.0.0/24").unwrap(), Cidr::parse("192.168.1.1").unwrap()];
        // The client forged a left-most entry; HAProxy (10.0.0.5) appended what it saw.
        let chain = headers(&["6.6.6.6, 198.51.100.7", "192.168.1.1"]);
        assert_eq!(resolve(ip("10.0.0.5"), &chain, &trusted), ip("198.51.100.7"));
        // Separate header lines count as one list, in order.
        assert_eq!(
            resolve(ip("10.0.0.5"), &headers(&["6.6.6.6", "198.51.100.7:4431"]), &trusted),
            ip("198.51.100.7")
        );
        // No header: the proxy itself is all there is.
        assert_eq!(resolve(ip("10.0.0.5"), &headers(&[]), &trusted), ip("10.0.0.5"));
        // Garbage right of the proxies: the nearest trusted hop, never the garbage's left side.
        assert_eq!(resolve(ip("10.0.0.5"), &headers(&["6.6.6.6, unknown"]), &trusted), ip("10.0.0.5"));
        // IPv4-mapped IPv6 peers of a dual-stack socket are matched as IPv4.
        assert_eq!(resolve(ip("::ffff:10.0.0.5"), &headers(&["198.51.100.7"]), &trusted), ip("198.51.100.7"));
        assert_eq!(resolve(ip("10.0.0.5"), &headers(&["[2001:db8::1]:443"]), &trusted), ip("2001:db8::1"));
    }
}
