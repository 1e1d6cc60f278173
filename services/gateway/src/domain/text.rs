use super::{Invalid, invalid};

/// A human-facing name (of a person, an organisation or a server): trimmed,
/// 1 to 100 characters, no control or bidirectional-override characters, which
/// could make one name masquerade as another in the dashboard.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(transparent)]
pub struct DisplayName(String);

impl DisplayName {
    pub const MAX_CHARS: usize = 100;

    pub fn parse(raw: &str) -> Result<Self, Invalid> {
        let value = raw.trim();
        if value.is_empty() {
            return invalid("is required");
        }
        if value.chars().count() > Self::MAX_CHARS {
            return invalid(format!("must be at most {} characters", Self::MAX_CHARS));
        }
        if value.chars().any(|c| c.is_control() || is_bidi_control(c)) {
            return invalid("may not contain control or text-direction characters");
        }
        Ok(Self(value.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::DisplayName;

    #[test]
    fn trims_and_refuses_tricks() {
        assert_eq!(DisplayName::parse("  Acme  ").unwrap().as_str(), "Acme");
        for bad in ["", "   ", "a\nb", "evil\u{202E}moc.elgoog", &"x".repeat(101)] {
            assert!(DisplayName::parse(bad).is_err(), "{bad:?} should be refused");
        }
    }
}
