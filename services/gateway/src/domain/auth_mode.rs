//! How Herald authenticates to an upstream server.

use super::Invalid;

/// `none`: nothing is sent. `headers`: the server's shared header set, the same for everyone
/// in the organisation (a service account). `oauth`: each person's own token, obtained when
/// they connect (the MCP authorization specification, Herald as the OAuth client).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum AuthMode {
    None,
    #[default]
    Headers,
    OAuth,
}

impl AuthMode {
    pub const CHOICES: [&'static str; 3] = ["none", "headers", "oauth"];

    pub fn parse(raw: &str) -> Result<Self, Invalid> {
        match raw {
            "none" => Ok(Self::None),
            "headers" => Ok(Self::Headers),
            "oauth" => Ok(Self::OAuth),
            _ => Err(Invalid(format!("must be one of {}", Self::CHOICES.join(", ")))),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Headers => "headers",
            Self::OAuth => "oauth",
        }
    }
}

impl serde::Serialize for AuthMode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}
