//! Why a request to a server failed before the server answered, as a short
//! category and a fixed sentence.
//!
//! The errors reqwest hands back carry the operating system's and the TLS
//! library's own words ("Connection refused (os error 111)", "invalid peer
//! certificate: UnknownIssuer", a resolver's message), and whoever registers
//! a server would read them: enough to map a network port by port. What
//! Herald reports instead is one of the fixed sentences below.
//!
//! A resolver or connector that refuses an address on purpose returns
//! [`AddressNotAllowed`] (or [`NameNotResolved`] when a name has no address),
//! so the refusal is recognised here without this crate knowing the policy.

/// The error a resolver returns when every address of a name is one it may
/// not connect to (an egress policy). Its text names no address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{}", ConnectFailure::Blocked.sentence())]
pub struct AddressNotAllowed;

/// The error a resolver returns when a name has no address at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{}", ConnectFailure::Dns.sentence())]
pub struct NameNotResolved;

/// What went wrong on the way to a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnectFailure {
    /// The address is not one Herald may connect to.
    Blocked,
    /// The host name does not resolve.
    Dns,
    /// Nothing accepts connections at that address and port.
    Refused,
    /// No route to the address.
    Unreachable,
    /// The connection could not be made in time.
    Timeout,
    /// The TLS handshake failed (certificate, protocol, or not TLS at all).
    Tls,
    /// The connection was closed or reset before the server answered.
    Closed,
    /// Anything else.
    Other,
}

impl ConnectFailure {
    pub const ALL: [ConnectFailure; 8] = [
        ConnectFailure::Blocked,
        ConnectFailure::Dns,
        ConnectFailure::Refused,
        ConnectFailure::Unreachable,
        ConnectFailure::Timeout,
        ConnectFailure::Tls,
        ConnectFailure::Closed,
        ConnectFailure::Other,
    ];

    /// A stable, machine-readable name.
    pub fn code(self) -> &'static str {
        match self {
            ConnectFailure::Blocked => "blocked",
            ConnectFailure::Dns => "dns",
            ConnectFailure::Refused => "refused",
            ConnectFailure::Unreachable => "unreachable",
            ConnectFailure::Timeout => "timeout",
            ConnectFailure::Tls => "tls",
            ConnectFailure::Closed => "closed",
            ConnectFailure::Other => "connect",
        }
    }

    /// The one sentence Herald says about it.
    pub fn sentence(self) -> &'static str {
        match self {
            ConnectFailure::Blocked => "address not allowed by this Herald's egress policy",
            ConnectFailure::Dns => "the server's host name does not resolve",
            ConnectFailure::Refused => "the connection was refused",
            ConnectFailure::Unreachable => "the server's address is unreachable",
            ConnectFailure::Timeout => "the connection timed out",
            ConnectFailure::Tls => "the TLS handshake failed",
            ConnectFailure::Closed => "the connection was closed before the server answered",
            ConnectFailure::Other => "the request failed before the server answered",
        }
    }

    /// The failure whose [`sentence`](Self::sentence) this is (the text of a
    /// `TransportError::Connect`).
    pub fn from_sentence(sentence: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.sentence() == sentence)
    }

    /// Classifies a reqwest error by walking its causes.
    pub fn of(error: &reqwest::Error) -> Self {
        if error.is_timeout() {
            return ConnectFailure::Timeout;
        }
        let mut found = ConnectFailure::Other;
        let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
        while let Some(e) = cause {
            if e.is::<AddressNotAllowed>() {
                return ConnectFailure::Blocked;
            }
            if e.is::<NameNotResolved>() {
                return ConnectFailure::Dns;
            }
            if let Some(io) = e.downcast_ref::<std::io::Error>() {
                if let Some(kind) = Self::of_io(io.kind()) {
                    found = kind;
                }
                // An io::Error's source() skips the error it wraps (rustls's
                // is wrapped twice, the outer one of kind Other): look inside.
                if let Some(inner) = io.get_ref() {
                    cause = Some(inner);
                    continue;
                }
            } else if e.to_string() == "dns error" && found == ConnectFailure::Other {
                // hyper-util's wrapper around whatever its resolver said.
                found = ConnectFailure::Dns;
            }
            cause = e.source();
        }
        found
    }

    fn of_io(kind: std::io::ErrorKind) -> Option<Self> {
        use std::io::ErrorKind as K;
        Some(match kind {
            K::ConnectionRefused => ConnectFailure::Refused,
            K::HostUnreachable | K::NetworkUnreachable | K::AddrNotAvailable | K::NetworkDown => {
                ConnectFailure::Unreachable
            }
            K::TimedOut => ConnectFailure::Timeout,
            // rustls reports every handshake failure (bad certificate, a peer
            // that does not speak TLS) as invalid data.
            K::InvalidData => ConnectFailure::Tls,
            K::ConnectionReset | K::ConnectionAborted | K::UnexpectedEof | K::BrokenPipe => {
                ConnectFailure::Closed
            }
            _ => return None,
        })
    }
}

impl std::fmt::Display for ConnectFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.sentence())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sentence_maps_back_to_its_failure() {
        for failure in ConnectFailure::ALL {
            assert_eq!(ConnectFailure::from_sentence(failure.sentence()), Some(failure));
        }
        assert_eq!(ConnectFailure::from_sentence("Connection refused (os error 111)"), None);
        assert_eq!(AddressNotAllowed.to_string(), ConnectFailure::Blocked.sentence());
    }

    #[tokio::test]
    async fn a_refused_connection_is_refused_and_says_nothing_else() {
        // Bound but never listening: the port stays this test's (a dropped listener's port
        // could be handed to a test running beside it), and a connection to it is refused.
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let port = socket.local_addr().unwrap().port();
        let error = reqwest::Client::builder()
            .no_proxy()
            .build()
            .unwrap()
            .get(format!("http://127.0.0.1:{port}/"))
            .send()
            .await
            .unwrap_err();
        assert_eq!(ConnectFailure::of(&error), ConnectFailure::Refused, "{error:?}");
    }

    #[tokio::test]
    async fn a_peer_that_does_not_speak_tls_is_a_tls_failure() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let _ = socket.read(&mut [0u8; 1024]).await;
                let _ = socket.write_all(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n").await;
            }
        });
        let error = reqwest::Client::builder()
            .no_proxy()
            .build()
            .unwrap()
            .get(format!("https://127.0.0.1:{port}/"))
            .send()
            .await
            .unwrap_err();
        assert_eq!(ConnectFailure::of(&error), ConnectFailure::Tls, "{error:?}");
    }

    #[tokio::test]
    async fn a_resolver_refusal_is_recognised_through_reqwest() {
        struct Refuse;
        impl reqwest::dns::Resolve for Refuse {
            fn resolve(&self, _: reqwest::dns::Name) -> reqwest::dns::Resolving {
                Box::pin(async {
                    Err(Box::new(AddressNotAllowed) as Box<dyn std::error::Error + Send + Sync>)
                })
            }
        }
        struct Unknown;
        impl reqwest::dns::Resolve for Unknown {
            fn resolve(&self, _: reqwest::dns::Name) -> reqwest::dns::Resolving {
                Box::pin(async { Err(Box::new(NameNotResolved) as Box<dyn std::error::Error + Send + Sync>) })
            }
        }
        let client = |resolver: std::sync::Arc<dyn reqwest::dns::Resolve>| {
            reqwest::Client::builder().no_proxy().dns_resolver(resolver).build().unwrap()
        };
        let refused =
            client(std::sync::Arc::new(Refuse)).get("http://example.test/").send().await.unwrap_err();
        assert_eq!(ConnectFailure::of(&refused), ConnectFailure::Blocked, "{refused:?}");
        let unknown =
            client(std::sync::Arc::new(Unknown)).get("http://example.test/").send().await.unwrap_err();
        assert_eq!(ConnectFailure::of(&unknown), ConnectFailure::Dns, "{unknown:?}");
    }
}
