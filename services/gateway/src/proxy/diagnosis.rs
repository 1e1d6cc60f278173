//! What a failed connection test tells the admin: a short category and a
//! fixed sentence.
//!
//! Never the operating system's or the TLS library's words, and never what
//! a non-MCP service said: with those, registering a server and pressing
//! "test" would map whatever Herald can reach, port by port. The categories
//! are stable (clients may branch on them); the sentences are for people.

use std::time::Duration;

use herald_mcp::Message;
use herald_mcp::connect_failure::ConnectFailure;
use herald_mcp::transport::TransportError;

/// Why a connection test failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnosis {
    /// `blocked`, `dns`, `refused`, `unreachable`, `timeout`, `tls`, `closed`,
    /// `connect`, `http_status`, `not_mcp`, `mcp_error`, `config` or `tools_list`.
    pub category: &'static str,
    pub message: String,
}

impl Diagnosis {
    fn new(category: &'static str, message: impl Into<String>) -> Self {
        Self { category, message: message.into() }
    }

    /// A failure to connect or to complete the handshake.
    pub fn of_transport(error: &TransportError) -> Self {
        match error {
            TransportError::Connect(said) => {
                let failure = ConnectFailure::from_sentence(said).unwrap_or(ConnectFailure::Other);
                Self::new(failure.code(), failure.sentence())
            }
            TransportError::Timeout(limit) => Self::timed_out(*limit),
            TransportError::SessionExpired => Self::of_status(404, None),
            TransportError::Status { status, error, .. } => {
                Self::of_status(*status, error.as_ref().map(|e| e.code))
            }
            TransportError::Protocol(_) => Self::new(
                "not_mcp",
                "the server answered, but not as an MCP server: check that the URL is its Streamable HTTP endpoint",
            ),
            TransportError::Lost(_) => Self::new(
                ConnectFailure::Closed.code(),
                "the connection was lost before the server finished answering",
            ),
        }
    }

    fn of_status(status: u16, rpc_code: Option<i64>) -> Self {
        if let Some(code) = rpc_code {
            return Self::new(
                "mcp_error",
                format!("the server refused the MCP handshake (HTTP {status}, JSON-RPC error {code})"),
            );
        }
        let message = match status {
            300..=399 => format!(
                "the server answered with a redirect (HTTP {status}); Herald does not follow redirects: \
                 register the URL it points to"
            ),
            401 | 403 => {
                format!("the server refused the request (HTTP {status}): check the registered headers")
            }
            404 | 405 => {
                format!("the server answered HTTP {status}: check that the URL is the server's MCP endpoint")
            }
            _ => format!("the server answered HTTP {status}"),
        };
        Self::new("http_status", message)
    }

    /// Herald's own refusal to connect (before any request): the egress
    /// policy, or a registration it cannot use.
    pub fn of_refusal(message: &Message) -> Self {
        let text = match message {
            Message::Error { error, .. } => error.message.as_str(),
            _ => "",
        };
        match ConnectFailure::ALL.into_iter().find(|f| text.ends_with(f.sentence())) {
            Some(failure) => Self::new(failure.code(), failure.sentence()),
            // Herald's own words about the registration (unreadable credentials, a bad URL).
            None if !text.is_empty() => Self::new("config", text),
            None => Self::new("config", "Herald cannot use this server's registration"),
        }
    }

    /// It answered `server/discover`, but not as a 2026-07-28 server does.
    pub fn not_modern() -> Self {
        Self::new("not_mcp", "it does not answer server/discover as a 2026-07-28 server")
    }

    /// No link in the era the server's setting asks for (Herald's own words on why).
    pub fn unchosen(category: &'static str, why: String) -> Self {
        Self::new(category, why)
    }

    /// No answer within the test's limit.
    pub fn timed_out(limit: Duration) -> Self {
        Self::new(ConnectFailure::Timeout.code(), format!("no answer within {} seconds", limit.as_secs()))
    }

    /// Connected, but `tools/list` failed.
    pub fn tools_list(why: &str) -> Self {
        Self::new("tools_list", format!("connected, but tools/list failed: {why}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transport_failures_become_categories_with_fixed_sentences() {
        let connect = |f: ConnectFailure| TransportError::Connect(f.sentence().to_owned());
        let cases = [
            (connect(ConnectFailure::Refused), "refused"),
            (connect(ConnectFailure::Blocked), "blocked"),
            (connect(ConnectFailure::Tls), "tls"),
            (connect(ConnectFailure::Dns), "dns"),
            (TransportError::Connect("Connection refused (os error 111)".into()), "connect"),
            (TransportError::Timeout(Duration::from_secs(30)), "timeout"),
            (
                TransportError::Status {
                    status: 502,
                    error: None,
                    body: "nginx 1.2.3 at 10.0.0.4".into(),
                    challenge: None,
                },
                "http_status",
            ),
            (TransportError::Protocol("a reply must be application/json, not text/html".into()), "not_mcp"),
            (TransportError::Lost("connection reset by peer (os error 104)".into()), "closed"),
        ];
        for (error, category) in cases {
            let diagnosis = Diagnosis::of_transport(&error);
            assert_eq!(diagnosis.category, category, "{error}");
            for leak in ["os error", "nginx", "10.0.0.4", "text/html"] {
                assert!(!diagnosis.message.contains(leak), "{}", diagnosis.message);
            }
        }
        let redirect = Diagnosis::of_transport(&TransportError::Status {
            status: 307,
            error: None,
            body: String::new(),
            challenge: None,
        });
        assert!(redirect.message.contains("redirect (HTTP 307)"), "{}", redirect.message);
    }

    #[test]
    fn herald_refusals_keep_their_category() {
        let blocked = Message::error(
            None,
            -32603,
            format!("upstream server x (X): cannot reach the server: {}", ConnectFailure::Blocked.sentence()),
        );
        assert_eq!(Diagnosis::of_refusal(&blocked).category, "blocked");
        let unreadable =
            Message::error(None, -32603, "upstream server x: its stored credentials cannot be read");
        assert_eq!(
            Diagnosis::of_refusal(&unreadable),
            Diagnosis::new("config", "upstream server x: its stored credentials cannot be read")
        );
    }
}
