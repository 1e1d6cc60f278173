use super::{Invalid, invalid};

/// An email address, trimmed and lower-cased so that it identifies one account.
/// The check is deliberately structural (one `@`, a dotted domain, no spaces or
/// control characters): only a delivered message proves an address.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct Email(String);

impl Email {
    pub const MAX_LEN: usize = 254;

    pub fn parse(raw: &str) -> Result<Self, Invalid> {
        let value = raw.trim().to_lowercase();
        if value.is_empty() {
            return invalid("is required");
        }
        if value.len() > Self::MAX_LEN {
            return invalid(format!("must be at most {} characters", Self::MAX_LEN));
        }
        if value.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return invalid("may not contain spaces or control characters");
        }
        let Some((local, domain)) = value.split_once('@') else {
            return invalid("must look like name@example.com");
        };
        let domain_ok = domain.contains('.')
            && !domain.contains('@')
            && domain
                .split('.')
                .all(|label| !label.is_empty() && !label.starts_with('-') && !label.ends_with('-'));
        if local.is_empty() || !domain_ok {
            return invalid("must look like name@example.com");
        }
        Ok(Self(value))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::Email;

    #[test]
    fn normalises_case_and_space() {
        assert_eq!(Email::parse("  Ada@Example.COM ").unwrap().as_str(), "ada@example.com");
    }

    #[test]
    fn refuses_malformed_addresses() {
        for bad in [
            "",
            "ada",
            "ada@",
            "@example.com",
            "ada@example",
            "a b@example.com",
            "ada@@example.com",
            "ada@ex..com",
            "ada@-ex.com",
        ] {
            assert!(Email::parse(bad).is_err(), "{bad:?} should be refused");
        }
    }
}
