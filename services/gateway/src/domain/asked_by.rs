//! Who asks a question: a server (its `elicitation/create`), or Herald itself
//! (the sign-in a person's call needs before it can reach a server that acts
//! as each person). Herald's own questions are not a server's proposal: no
//! server policy judges them.

use serde::{Serialize, Serializer};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum AskedBy {
    /// The server the call goes to.
    #[default]
    Server,
    /// Herald, on behalf of the call (for the server the record names).
    Herald,
}

impl AskedBy {
    pub fn as_str(self) -> &'static str {
        match self {
            AskedBy::Server => "server",
            AskedBy::Herald => "herald",
        }
    }

    pub fn parse(s: &str) -> Option<AskedBy> {
        [AskedBy::Server, AskedBy::Herald].into_iter().find(|a| a.as_str() == s)
    }
}

impl Serialize for AskedBy {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_asker_has_one_spelling_that_parses_back() {
        for asker in [AskedBy::Server, AskedBy::Herald] {
            assert_eq!(AskedBy::parse(asker.as_str()), Some(asker));
        }
        assert_eq!(AskedBy::parse("Herald"), None);
    }
}
