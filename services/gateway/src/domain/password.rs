use super::{Invalid, invalid};

/// A new password that meets Herald's minimum: long enough, not absurdly long
/// (argon2 cost grows with input), and not one of the passwords every attacker
/// tries first. Only ever held briefly, to be hashed.
pub struct Password(String);

impl Password {
    pub const MIN_CHARS: usize = 10;
    pub const MAX_BYTES: usize = 1024;

    pub fn parse(raw: &str, email: Option<&str>) -> Result<Self, Invalid> {
        if raw.is_empty() {
            return invalid("is required");
        }
        if raw.chars().count() < Self::MIN_CHARS {
            return invalid(format!("must be at least {} characters", Self::MIN_CHARS));
        }
        if raw.len() > Self::MAX_BYTES {
            return invalid(format!("must be at most {} bytes", Self::MAX_BYTES));
        }
        let lowered = raw.to_lowercase();
        let mut distinct: Vec<char> = lowered.chars().collect();
        distinct.sort_unstable();
        distinct.dedup();
        if distinct.len() < 4 {
            return invalid("is too repetitive; use more different characters");
        }
        if COMMON.iter().any(|common| lowered == *common) {
            return invalid("is one of the most common passwords; choose another");
        }
        if email.is_some_and(|e| lowered == e.to_lowercase() || Some(lowered.as_str()) == e.split('@').next())
        {
            return invalid("may not be your email address");
        }
        Ok(Self(raw.to_owned()))
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Password(<redacted>)")
    }
}

/// The most common passwords of ten or more characters in public breach lists.
const COMMON: &[&str] = &[
    "1234567890",
    "12345678910",
    "123456789a",
    "0123456789",
    "0987654321",
    "1q2w3e4r5t",
    "1qaz2wsx3edc",
    "password1",
    "password12",
    "password123",
    "password1234",
    "passw0rd123",
    "qwertyuiop",
    "qwerty1234",
    "qwerty12345",
    "qwerty123456",
    "iloveyou12",
    "letmein123",
    "welcome123",
    "admin12345",
    "administrator",
    "abc1234567",
    "abcdefghij",
    "changeme123",
    "trustno1234",
    "football12",
    "baseball12",
    "sunshine12",
    "princess12",
    "superman12",
    "zaq12wsxcde",
    "asdfghjkl1",
    "1234qwer!@#$",
    "p@ssw0rd123",
    "qwe123qwe123",
];

#[cfg(test)]
mod tests {
    use super::Password;

    #[test]
    fn accepts_a_reasonable_password() {
        assert!(Password::parse("correct horse battery", Some("ada@example.com")).is_ok());
    }

    #[test]
    fn refuses_weak_passwords() {
        for bad in ["", "short", "aaaaaaaaaaaa", "ababababab", "Password123", "QWERTYUIOP"] {
            assert!(Password::parse(bad, None).is_err(), "{bad:?} should be refused");
        }
        assert!(Password::parse("ada@example.com", Some("ada@example.com")).is_err());
        assert!(Password::parse(&"x1y2".repeat(300), None).is_err());
    }
}
