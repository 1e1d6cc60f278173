use super::{Invalid, invalid};

/// Which protocol era Herald speaks to a registered server.
///
/// `Auto` picks the era in which the server's tools can ask a person:
/// a legacy session (2025-11-25) whenever the server offers one, since it
/// carries both pushed questions (`ctx.elicit`-style tools) and resolver-style
/// ones; 2026-07-28 only for servers that speak nothing else. An admin pins
/// an era when the automatic choice is wrong for a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum ServerProtocol {
    #[default]
    Auto,
    /// 2025-11-25 (and what the server negotiates below it): `initialize`, sessions.
    Legacy,
    /// 2026-07-28: stateless, `input_required` results.
    Modern,
}

impl ServerProtocol {
    pub const CHOICES: [&'static str; 3] = ["auto", "2025-11-25", "2026-07-28"];

    pub fn parse(raw: &str) -> Result<Self, Invalid> {
        match raw {
            "auto" => Ok(Self::Auto),
            "2025-11-25" => Ok(Self::Legacy),
            "2026-07-28" => Ok(Self::Modern),
            _ => invalid(format!("must be one of {}", Self::CHOICES.join(", "))),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Legacy => "2025-11-25",
            Self::Modern => "2026-07-28",
        }
    }
}

impl serde::Serialize for ServerProtocol {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_exactly_the_three_choices() {
        for choice in ServerProtocol::CHOICES {
            assert_eq!(ServerProtocol::parse(choice).unwrap().as_str(), choice);
        }
        for bad in ["", "AUTO", "2025-06-18", "legacy", "2026-07-28 "] {
            assert!(ServerProtocol::parse(bad).is_err(), "{bad:?} should be refused");
        }
    }
}
