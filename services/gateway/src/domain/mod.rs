//! Domain newtypes. Each one parses untrusted input into a value that is valid by
//! construction, so code past the API boundary never re-checks it; and the
//! vocabulary of a question's ending (`outcome`), parsed once where rows are read.

mod asked_by;
mod auth_mode;
mod email;
pub mod notification;
pub mod outcome;
mod password;
mod protocol;
mod role;
mod server;
mod slug;
mod text;

pub use asked_by::AskedBy;
pub use auth_mode::AuthMode;
pub use email::Email;
pub use password::Password;
pub use protocol::ServerProtocol;
pub use role::Role;
pub use server::{HeaderSet, ServerUrl};
pub use slug::Slug;
pub use text::DisplayName;

/// Why a value was refused. The message is shown to the user next to the field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid(pub String);

impl std::fmt::Display for Invalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Invalid {}

fn invalid<T>(message: impl Into<String>) -> Result<T, Invalid> {
    Err(Invalid(message.into()))
}
