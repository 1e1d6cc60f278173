use super::{Invalid, invalid};

/// A URL-safe identifier for an organisation or a server: 2 to 40 characters of
/// lowercase ASCII letters, digits and single hyphens, starting with a letter.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct Slug(String);

impl Slug {
    pub const MAX_LEN: usize = 40;

    pub fn parse(raw: &str) -> Result<Self, Invalid> {
        let len = raw.chars().count();
        if !(2..=Self::MAX_LEN).contains(&len) {
            return invalid(format!("must be 2 to {} characters long", Self::MAX_LEN));
        }
        if let Some(bad) = raw.chars().find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-'))
        {
            return invalid(format!("may contain only lowercase letters, digits and hyphens, not {bad:?}"));
        }
        if !raw.starts_with(|c: char| c.is_ascii_lowercase()) {
            return invalid("must start with a lowercase letter");
        }
        if raw.ends_with('-') || raw.contains("--") {
            return invalid("may not end with a hyphen or contain two in a row");
        }
        Ok(Self(raw.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Slug {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::Slug;

    #[test]
    fn accepts_ordinary_slugs() {
        for ok in ["acme", "a1", "acme-corp", "team-42-x"] {
            assert_eq!(Slug::parse(ok).unwrap().as_str(), ok);
        }
    }

    #[test]
    fn refuses_odd_slugs() {
        for bad in [
            "",
            "a",
            "Acme",
            "acme_corp",
            "-acme",
            "acme-",
            "ac--me",
            "1acme",
            "acmé",
            "a b",
            "../etc",
            "acme%20",
            &"a".repeat(41),
        ] {
            assert!(Slug::parse(bad).is_err(), "{bad:?} should be refused");
        }
    }
}
