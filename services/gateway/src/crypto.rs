//! Every secret Herald handles goes through here: the instance key and the keys
//! derived from it, password hashing, and the random, hashed-at-rest tokens.

use aws_lc_rs::aead::{self, AES_256_GCM_SIV, Aad, Nonce, RandomizedNonceKey};
use aws_lc_rs::{digest, hkdf, hmac, rand};
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};

/// The instance secret from which every other key is derived. Set through
/// `HERALD_SECRET_KEY`, or generated once and kept in the database.
#[derive(Clone)]
pub struct SecretKey(Vec<u8>);

impl SecretKey {
    pub const MIN_LEN: usize = 32;

    pub fn parse(raw: &str) -> Result<Self, String> {
        if raw.len() < Self::MIN_LEN {
            return Err(format!(
                "must be at least {} characters (try `openssl rand -base64 48`)",
                Self::MIN_LEN
            ));
        }
        Ok(Self(raw.as_bytes().to_vec()))
    }

    /// A fresh key for an instance that was given none.
    pub fn generate() -> String {
        STANDARD.encode(random_bytes::<48>())
    }
}

impl std::fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretKey(<redacted>)")
    }
}

/// Keys derived from the instance secret with HKDF-SHA256, one per purpose, so
/// that no key is ever used for two things.
pub struct Keys {
    pub session_encoding: jsonwebtoken::EncodingKey,
    pub session_decoding: jsonwebtoken::DecodingKey,
    header_sealing: RandomizedNonceKey,
    throttle: hmac::Key,
    answer_links: hmac::Key,
    /// Where the Web Push (VAPID) key pair comes from when the operator set none.
    vapid_seed: [u8; 32],
}

impl Keys {
    pub fn derive(secret: &SecretKey) -> Self {
        let prk = hkdf::Salt::new(hkdf::HKDF_SHA256, b"herald instance key v1").extract(&secret.0);
        let subkey = |purpose: &[u8]| -> [u8; 32] {
            let mut out = [0u8; 32];
            prk.expand(&[purpose], hkdf::HKDF_SHA256)
                .and_then(|okm| okm.fill(&mut out))
                .expect("HKDF-SHA256 can always produce 32 bytes");
            out
        };
        let header_key = subkey(b"upstream header encryption");
        let session_key = subkey(b"session jwt signing");
        let throttle_key = subkey(b"sign-in throttle keys");
        let answer_link_key = subkey(b"e-mail answer links");
        Self {
            vapid_seed: subkey(b"web push vapid key pair"),
            answer_links: hmac::Key::new(hmac::HMAC_SHA256, &answer_link_key),
            throttle: hmac::Key::new(hmac::HMAC_SHA256, &throttle_key),
            session_encoding: jsonwebtoken::EncodingKey::from_secret(&session_key)
                .expect("a 32-byte HMAC key is valid"),
            session_decoding: jsonwebtoken::DecodingKey::from_secret(&session_key)
                .expect("a 32-byte HMAC key is valid"),
            header_sealing: RandomizedNonceKey::new(&AES_256_GCM_SIV, &header_key)
                .expect("a 32-byte key fits AES-256-GCM-SIV"),
        }
    }

    /// The sign-in throttle's key for `value` (an email, an address) in `scope`: an HMAC, so the
    /// throttle's table holds no email or address in the clear, yet every replica agrees.
    pub fn throttle_key(&self, scope: &str, value: &[u8]) -> Vec<u8> {
        let mut ctx = hmac::Context::with_key(&self.throttle);
        ctx.update(scope.as_bytes());
        ctx.update(&[0]);
        ctx.update(value);
        ctx.sign().as_ref().to_vec()
    }

    /// The signature of an e-mail answer link's payload.
    /// 32 bytes that stay the same for this instance key: the seed of the
    /// VAPID key pair every replica signs push messages with (`notify::push`).
    pub fn vapid_seed(&self) -> [u8; 32] {
        self.vapid_seed
    }

    pub fn sign_answer_link(&self, payload: &[u8]) -> Vec<u8> {
        hmac::sign(&self.answer_links, payload).as_ref().to_vec()
    }

    /// Whether `tag` is the signature of `payload` (compared in constant time).
    pub fn verify_answer_link(&self, payload: &[u8], tag: &[u8]) -> bool {
        hmac::verify(&self.answer_links, payload, tag).is_ok()
    }

    /// Encrypts `plaintext`, bound to `context` (for example the owning org and
    /// server ids) so a ciphertext moved to another row fails to open.
    pub fn seal(&self, context: &[u8], plaintext: &[u8]) -> Vec<u8> {
        let mut buf = plaintext.to_vec();
        let nonce = self
            .header_sealing
            .seal_in_place_append_tag(Aad::from(context), &mut buf)
            .expect("sealing cannot fail for in-memory buffers");
        let mut out = nonce.as_ref().to_vec();
        out.extend_from_slice(&buf);
        out
    }

    pub fn open(&self, context: &[u8], sealed: &[u8]) -> Result<Vec<u8>, DecryptError> {
        if sealed.len() < aead::NONCE_LEN {
            return Err(DecryptError);
        }
        let (nonce, ciphertext) = sealed.split_at(aead::NONCE_LEN);
        let nonce = Nonce::try_assume_unique_for_key(nonce).map_err(|_| DecryptError)?;
        let mut buf = ciphertext.to_vec();
        let plain = self
            .header_sealing
            .open_in_place(nonce, Aad::from(context), &mut buf)
            .map_err(|_| DecryptError)?;
        Ok(plain.to_vec())
    }
}

#[derive(Debug, thiserror::Error)]
#[error("stored secret could not be decrypted (was HERALD_SECRET_KEY changed?)")]
pub struct DecryptError;

pub fn random_bytes<const N: usize>() -> [u8; N] {
    let mut out = [0u8; N];
    rand::fill(&mut out).expect("the system random source is available");
    out
}

/// SHA-256 of a high-entropy secret (API token, invite or setup token). Such
/// secrets need no slow hash: guessing 256 random bits is hopeless either way.
pub fn token_hash(secret: &str) -> Vec<u8> {
    sha256(secret.as_bytes())
}

/// Bytes as lower-case hex (signatures, hashes shown to people).
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn sha256(data: &[u8]) -> Vec<u8> {
    digest::digest(&digest::SHA256, data).as_ref().to_vec()
}

/// A random URL-safe secret for one-time links.
pub fn link_secret() -> String {
    URL_SAFE_NO_PAD.encode(random_bytes::<32>())
}

pub const API_TOKEN_PREFIX: &str = "hrl_";
const API_TOKEN_SECRET_CHARS: usize = 43;
const API_TOKEN_DISPLAY_CHARS: usize = 8;
const BASE62: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// A new agent token: `hrl_` and 43 base62 characters (about 256 bits), easy to
/// select with a double click and easy for secret scanners to recognise.
pub struct NewApiToken {
    pub secret: String,
    /// What lists show so a person can tell tokens apart: `hrl_` and 8 characters.
    pub display_prefix: String,
}

pub fn new_api_token() -> NewApiToken {
    let mut secret = String::from(API_TOKEN_PREFIX);
    while secret.len() < API_TOKEN_PREFIX.len() + API_TOKEN_SECRET_CHARS {
        for byte in random_bytes::<64>() {
            // Rejection sampling keeps every character equally likely.
            if byte < 248 && secret.len() < API_TOKEN_PREFIX.len() + API_TOKEN_SECRET_CHARS {
                secret.push(BASE62[usize::from(byte % 62)] as char);
            }
        }
    }
    let display_prefix = secret[..API_TOKEN_PREFIX.len() + API_TOKEN_DISPLAY_CHARS].to_owned();
    NewApiToken { secret, display_prefix }
}

/// True when `raw` has the shape of a Herald API token (checked before any lookup).
pub fn looks_like_api_token(raw: &str) -> bool {
    raw.strip_prefix(API_TOKEN_PREFIX).is_some_and(|rest| {
        rest.len() == API_TOKEN_SECRET_CHARS && rest.bytes().all(|b| b.is_ascii_alphanumeric())
    })
}

pub mod password {
    //! argon2id with the crate's defaults (19 MiB, 2 passes), the OWASP baseline.
    //! Hashing is deliberately slow: call these from `spawn_blocking`.
    use argon2::password_hash::{PasswordHash, SaltString};
    use argon2::{Argon2, PasswordHasher, PasswordVerifier};
    use std::sync::OnceLock;

    pub fn hash(password: &str) -> String {
        let salt =
            SaltString::encode_b64(&super::random_bytes::<16>()).expect("16 bytes is a valid salt length");
        Argon2::default()
            .hash_password(password.as_bytes(), &salt)
            .expect("argon2id hashing of a bounded password cannot fail")
            .to_string()
    }

    pub fn verify(password: &str, stored: &str) -> bool {
        PasswordHash::new(stored)
            .is_ok_and(|parsed| Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok())
    }

    /// Spends the same time as a real check, for unknown accounts, so response
    /// time does not reveal which emails have accounts.
    pub fn verify_against_nothing(password: &str) {
        static DUMMY: OnceLock<String> = OnceLock::new();
        let dummy = DUMMY.get_or_init(|| hash("not a real password, only for timing"));
        let _ = verify(password, dummy);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_values_round_trip_only_in_their_context() {
        let keys = Keys::derive(&SecretKey::parse(&"k".repeat(40)).unwrap());
        let sealed = keys.seal(b"org1/server1", b"Bearer secret");
        assert!(!sealed.windows(6).any(|w| w == b"secret"));
        assert_eq!(keys.open(b"org1/server1", &sealed).unwrap(), b"Bearer secret");
        assert!(keys.open(b"org2/server1", &sealed).is_err());
        let other = Keys::derive(&SecretKey::parse(&"j".repeat(40)).unwrap());
        assert!(other.open(b"org1/server1", &sealed).is_err());
    }

    #[test]
    fn api_tokens_have_the_documented_shape() {
        let a = new_api_token();
        let b = new_api_token();
        assert_ne!(a.secret, b.secret);
        assert!(looks_like_api_token(&a.secret), "{}", a.secret);
        assert!(a.secret.starts_with(&a.display_prefix));
        assert_eq!(a.display_prefix.len(), 12);
        assert!(!looks_like_api_token("hrl_short"));
        assert!(!looks_like_api_token(&a.secret.replace("hrl_", "hrx_")));
    }

    #[test]
    fn passwords_verify() {
        let stored = password::hash("correct horse battery");
        assert!(stored.starts_with("$argon2id$"));
        assert!(password::verify("correct horse battery", &stored));
        assert!(!password::verify("correct horse batterY", &stored));
    }

    #[test]
    fn short_secret_keys_are_refused() {
        assert!(SecretKey::parse("short").is_err());
        assert!(SecretKey::parse(&SecretKey::generate()).is_ok());
    }
}
