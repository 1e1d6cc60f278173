//! Browser push (Web Push): a person's browsers get a notification through
//! their push services (RFC 8030), the message encrypted to each browser's
//! keys (RFC 8291, by `web-push-native`) and signed with Herald's VAPID key
//! pair (RFC 8292: an ES256 token, by `jsonwebtoken`).
//!
//! The key pair is the same on every replica: derived from the instance key,
//! unless the operator sets `HERALD_VAPID_PRIVATE_KEY`. A browser subscribes
//! with its public half; a push service refuses messages signed by any other.

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::{URL_SAFE, URL_SAFE_NO_PAD};
use p256::elliptic_curve::sec1::ToEncodedPoint;
use p256::pkcs8::EncodePrivateKey;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use time::OffsetDateTime;
use uuid::Uuid;

use super::content;
use crate::crypto::{DecryptError, Keys};
use crate::domain::notification::NotifyEvent;
use crate::domain::outcome::DecidedBy;
use crate::problem::InvalidField;
use crate::storage::Elicitation;
use crate::storage::push::PushDevice;

/// The longest endpoint Herald keeps (push services' are well under 1 KiB).
const MAX_ENDPOINT_LEN: usize = 2048;
/// The longest device name.
pub const MAX_NAME_CHARS: usize = 80;
/// How long a VAPID token is valid (RFC 8292 allows at most 24 hours).
const TOKEN_LIFETIME: time::Duration = time::Duration::hours(12);
/// How long a push service keeps an ending for a browser that is offline:
/// it replaces the question's notification (same topic) when it comes back.
const ENDED_TTL: Duration = Duration::from_secs(12 * 3600);
/// How long a test notification is worth delivering.
pub const TEST_TTL: Duration = Duration::from_secs(300);

/// Herald's VAPID key pair.
pub struct Vapid {
    signing: jsonwebtoken::EncodingKey,
    /// The public key as browsers take it (`applicationServerKey`): the
    /// uncompressed point, base64url without padding.
    public_key: String,
    /// Who runs this Herald, for push services that need to reach them (`sub`).
    subject: String,
}

impl Vapid {
    /// The key pair whose private scalar is `seed` (a seed that is not a valid
    /// scalar, about one in 2^32, is hashed until it is).
    pub fn new(seed: [u8; 32], subject: String) -> Self {
        let mut candidate = seed;
        let secret = loop {
            if let Ok(secret) = p256::SecretKey::from_bytes(&candidate.into()) {
                break secret;
            }
            let next = crate::crypto::sha256(&candidate);
            candidate.copy_from_slice(&next);
        };
        let der = secret.to_pkcs8_der().expect("a P-256 key encodes as PKCS#8");
        let public = secret.public_key().to_encoded_point(false);
        Vapid {
            signing: jsonwebtoken::EncodingKey::from_ec_der(der.as_bytes()),
            public_key: URL_SAFE_NO_PAD.encode(public.as_bytes()),
            subject,
        }
    }

    /// An operator's `HERALD_VAPID_PRIVATE_KEY`: the 32-byte private scalar,
    /// base64url (what `web-push generate-vapid-keys` and similar tools print).
    pub fn parse_private_key(given: &str) -> Result<[u8; 32], String> {
        let bytes = decode_b64url(given.trim()).ok_or("is not base64url")?;
        let bytes: [u8; 32] = bytes.try_into().map_err(|_| "must be 32 bytes (a P-256 private key)")?;
        p256::SecretKey::from_bytes(&bytes.into()).map_err(|_| "is not a valid P-256 private key")?;
        Ok(bytes)
    }

    pub fn public_key(&self) -> &str {
        &self.public_key
    }

    /// The `Authorization` header for a message to `endpoint`: a token for
    /// the push service's origin, with the public key beside it.
    pub fn authorization(&self, endpoint: &url::Url, now: OffsetDateTime) -> Result<String, String> {
        #[derive(Serialize)]
        struct Claims<'a> {
            aud: &'a str,
            exp: i64,
            sub: &'a str,
        }
        let origin = endpoint.origin().ascii_serialization();
        let claims =
            Claims { aud: &origin, exp: (now + TOKEN_LIFETIME).unix_timestamp(), sub: &self.subject };
        let header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
        let token = jsonwebtoken::encode(&header, &claims, &self.signing).map_err(|e| e.to_string())?;
        Ok(format!("vapid t={token}, k={}", self.public_key))
    }
}

/// A browser's subscription as `PushSubscription.toJSON()` gives it.
#[derive(Debug, Deserialize)]
pub struct GivenSubscription {
    pub endpoint: String,
    /// Browsers send it (usually `null`); Herald does not rely on it.
    #[serde(default, rename = "expirationTime")]
    pub _expiration_time: Option<Value>,
    pub keys: GivenKeys,
}

#[derive(Debug, Deserialize)]
pub struct GivenKeys {
    pub p256dh: String,
    pub auth: String,
}

/// What a device's row keeps sealed: where to send and the keys to encrypt to.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Subscription {
    pub endpoint: String,
    /// The browser's P-256 public key, uncompressed, base64url.
    pub p256dh: String,
    /// The browser's 16-byte authentication secret, base64url.
    pub auth: String,
}

impl Subscription {
    /// Checks what a browser sent; errors name the fields (under `subscription.`).
    pub fn parse(
        given: &GivenSubscription,
        egress: &crate::egress::EgressPolicy,
    ) -> Result<(Subscription, url::Url), Vec<InvalidField>> {
        let mut errors = vec![];
        let endpoint = given.endpoint.trim();
        let url = if endpoint.len() > MAX_ENDPOINT_LEN {
            errors.push(InvalidField::new(
                "subscription.endpoint",
                format!("must be at most {MAX_ENDPOINT_LEN} characters"),
            ));
            None
        } else {
            match url::Url::parse(endpoint) {
                Err(_) => {
                    errors.push(InvalidField::new("subscription.endpoint", "is not a URL"));
                    None
                }
                Ok(u) if !u.username().is_empty() || u.password().is_some() => {
                    errors.push(InvalidField::new("subscription.endpoint", "may not contain credentials"));
                    None
                }
                Ok(u) if u.scheme() != "https" && !is_loopback(&u) => {
                    errors.push(InvalidField::new(
                        "subscription.endpoint",
                        "must be an https URL (push services are; plain http only to this machine)",
                    ));
                    None
                }
                Ok(_) => match egress.server_url(endpoint) {
                    Ok(checked) => Some(checked.url().clone()),
                    Err(e) => {
                        errors.push(InvalidField::new("subscription.endpoint", e.0));
                        None
                    }
                },
            }
        };
        let p256dh = decode_b64url(given.keys.p256dh.trim())
            .filter(|k| k.len() == 65 && p256::PublicKey::from_sec1_bytes(k).is_ok());
        if p256dh.is_none() {
            errors.push(InvalidField::new(
                "subscription.keys.p256dh",
                "must be the browser's P-256 public key (65 bytes, base64url)",
            ));
        }
        let auth = decode_b64url(given.keys.auth.trim()).filter(|a| a.len() == 16);
        if auth.is_none() {
            errors.push(InvalidField::new("subscription.keys.auth", "must be 16 bytes, base64url"));
        }
        match (url, p256dh, auth) {
            (Some(url), Some(p256dh), Some(auth)) if errors.is_empty() => Ok((
                Subscription {
                    endpoint: url.to_string(),
                    p256dh: URL_SAFE_NO_PAD.encode(p256dh),
                    auth: URL_SAFE_NO_PAD.encode(auth),
                },
                url,
            )),
            _ => Err(errors),
        }
    }

    pub fn endpoint_hash(&self) -> Vec<u8> {
        crate::crypto::sha256(self.endpoint.as_bytes())
    }

    /// Sealed for `user_id`'s row of this endpoint: a ciphertext moved to another row does not open.
    pub fn seal(&self, keys: &Keys, user_id: Uuid) -> Vec<u8> {
        let plain = serde_json::to_vec(self).expect("subscriptions serialize");
        keys.seal(&seal_context(user_id, &self.endpoint_hash()), &plain)
    }

    pub fn open(keys: &Keys, device: &PushDevice) -> Result<Subscription, DecryptError> {
        let plain =
            keys.open(&seal_context(device.user_id, &device.endpoint_hash), &device.subscription_sealed)?;
        serde_json::from_slice(&plain).map_err(|_| DecryptError)
    }
}

fn seal_context(user_id: Uuid, endpoint_hash: &[u8]) -> Vec<u8> {
    let mut context = b"push subscription v1:".to_vec();
    context.extend_from_slice(user_id.as_bytes());
    context.extend_from_slice(endpoint_hash);
    context
}

fn is_loopback(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(name)) => name == "localhost",
        None => false,
    }
}

/// Browsers give base64url without padding; some libraries pad it.
fn decode_b64url(given: &str) -> Option<Vec<u8>> {
    URL_SAFE_NO_PAD.decode(given).or_else(|_| URL_SAFE.decode(given)).ok()
}

/// A device's name as shown: what the page derived from the browser, cleaned.
pub fn device_name(given: Option<&str>) -> Result<String, InvalidField> {
    let name = given.map(str::trim).filter(|n| !n.is_empty()).unwrap_or("A browser");
    if name.chars().count() > MAX_NAME_CHARS || name.chars().any(char::is_control) {
        return Err(InvalidField::new(
            "name",
            format!("must be at most {MAX_NAME_CHARS} characters, on one line"),
        ));
    }
    Ok(name.to_owned())
}

/// A queued push, as stored in its delivery's payload: the message the
/// browser decrypts, and how the push service should treat it.
#[derive(Debug, Serialize, Deserialize)]
pub struct QueuedPush {
    pub message: Value,
    /// When the message stops being worth delivering.
    pub until: i64,
    /// Messages with the same topic replace each other at the push service.
    pub topic: Option<String>,
    pub urgency: String,
}

/// The push about a waiting question (created or reminded): the server as
/// registered, the tool and the message's first words; never a field.
pub fn question_push(e: &Elicitation, event: NotifyEvent) -> QueuedPush {
    let server = content::first_words(&e.server.name);
    let herald = e.asked_by == crate::domain::AskedBy::Herald;
    let (kind, title) = match event {
        NotifyEvent::Reminded if herald => ("reminder", format!("Reminder: connect to {server}")),
        NotifyEvent::Reminded => ("reminder", format!("Reminder: {server} is still waiting for your answer")),
        _ if herald => ("question", format!("Herald: connect to {server} to go on")),
        _ => ("question", format!("{server} is asking you something")),
    };
    QueuedPush {
        message: json!({
            "v": 1,
            "kind": kind,
            "question": e.id,
            "org": e.org_slug,
            "title": title,
            "body": format!("{}: {}", content::tool_words(e), content::first_words(&e.message)),
            "url": format!("/?question={}&via=push", e.id),
            "tag": tag(e.id),
        }),
        until: e.expires_at.unix_timestamp(),
        topic: Some(e.id.simple().to_string()),
        urgency: "high".into(),
    }
}

/// The push that replaces a question's notification once it ended.
pub fn ended_push(e: &Elicitation, now: OffsetDateTime) -> QueuedPush {
    let server = content::first_words(&e.server.name);
    let ended = ending_word(e);
    QueuedPush {
        message: json!({
            "v": 1,
            "kind": "ended",
            "question": e.id,
            "org": e.org_slug,
            "title": format!("{server}'s question was {ended}"),
            "body": "Nothing more to do.",
            "url": format!("/?question={}&via=push", e.id),
            "tag": tag(e.id),
            "ended": ended,
        }),
        until: (now + ENDED_TTL).unix_timestamp(),
        topic: Some(e.id.simple().to_string()),
        urgency: "normal".into(),
    }
}

/// A person's test of one of their browsers.
pub fn test_message() -> Value {
    json!({
        "v": 1,
        "kind": "test",
        "title": "Herald: a test notification",
        "body": "Questions from your servers will reach this browser like this.",
        "url": "/notifications",
        "tag": "herald-test",
    })
}

fn tag(question: Uuid) -> String {
    format!("herald-question-{question}")
}

/// How the question ended, in one word.
fn ending_word(e: &Elicitation) -> &'static str {
    use herald_mcp::ElicitAction;
    match &e.outcome {
        Some(o) => match (o.action, o.decided_by) {
            (ElicitAction::Accept, _) => "answered",
            (ElicitAction::Decline, _) => "declined",
            (_, DecidedBy::Timeout) => "expired",
            (_, DecidedBy::Server) => "withdrawn",
            _ => "cancelled",
        },
        None => "ended",
    }
}

/// How a push service took one message.
#[derive(Debug, PartialEq, Eq)]
pub enum Pushed {
    /// Accepted (201) for delivery.
    Accepted(u16),
    /// The subscription is gone (404, 410): the browser unsubscribed or expired.
    Gone(u16),
    /// Refused for good (bad key, too large, malformed).
    Refused(Option<u16>, String),
    /// Worth trying again (429, 5xx, no answer).
    Failed(Option<u16>, String),
}

/// One message on its way to a browser.
pub struct Outgoing<'a> {
    pub message: &'a Value,
    /// How long the push service keeps it for a browser that is offline.
    pub ttl: Duration,
    /// Messages with the same topic replace each other at the push service.
    pub topic: Option<&'a str>,
    /// `high` for a question, `normal` otherwise (RFC 8030 §5.3).
    pub urgency: &'a str,
}

/// Sends one encrypted, signed message to a subscription.
pub async fn send(
    http: &reqwest::Client,
    vapid: &Vapid,
    egress: &crate::egress::EgressPolicy,
    subscription: &Subscription,
    out: &Outgoing<'_>,
) -> Pushed {
    let Ok(endpoint) = url::Url::parse(&subscription.endpoint) else {
        return Pushed::Refused(None, "the stored endpoint is not a URL".into());
    };
    // A name is checked by the client's resolver once resolved; an address here.
    if egress.refuses_host(&endpoint) {
        return Pushed::Refused(None, "the push service's address is not allowed on this Herald".into());
    }
    let request = match encrypt(vapid, subscription, &endpoint, out.message, out.ttl) {
        Ok(request) => request,
        Err(e) => return Pushed::Refused(None, e),
    };
    let (parts, body) = request.into_parts();
    let mut builder = http.post(endpoint).headers(parts.headers).header("Urgency", out.urgency).body(body);
    if let Some(topic) = out.topic {
        builder = builder.header("Topic", topic);
    }
    match builder.send().await {
        Ok(response) => {
            let status = response.status().as_u16();
            // The push service's answer is not read beyond its status: nothing more is needed.
            drop(response);
            match status {
                200..=299 => Pushed::Accepted(status),
                404 | 410 => Pushed::Gone(status),
                400 | 401 | 403 | 413 => Pushed::Refused(
                    Some(status),
                    format!("the push service refused the message (HTTP {status})"),
                ),
                _ => Pushed::Failed(Some(status), format!("the push service answered HTTP {status}")),
            }
        }
        Err(e) if e.is_timeout() => Pushed::Failed(None, "the push service did not answer in time".into()),
        Err(e) => {
            let failure = herald_mcp::connect_failure::ConnectFailure::of(&e);
            Pushed::Failed(None, failure.sentence().to_owned())
        }
    }
}

/// The request's body and headers: `aes128gcm` content encrypted to the
/// browser's keys, its TTL, and the VAPID authorization.
fn encrypt(
    vapid: &Vapid,
    subscription: &Subscription,
    endpoint: &url::Url,
    message: &Value,
    ttl: Duration,
) -> Result<axum::http::Request<Vec<u8>>, String> {
    let ua_public = decode_b64url(&subscription.p256dh)
        .and_then(|k| p256::PublicKey::from_sec1_bytes(&k).ok())
        .ok_or("the stored browser key is unreadable")?;
    let auth = decode_b64url(&subscription.auth)
        .filter(|a| a.len() == 16)
        .ok_or("the stored secret is unreadable")?;
    let uri: axum::http::Uri = endpoint.as_str().parse().map_err(|_| "the endpoint is not a valid URI")?;
    let mut request =
        web_push_native::WebPushBuilder::new(uri, ua_public, *web_push_native::Auth::from_slice(&auth))
            .with_valid_duration(ttl)
            .build(serde_json::to_vec(message).expect("messages serialize"))
            .map_err(|e| format!("the message could not be encrypted: {e}"))?;
    let authorization = vapid.authorization(endpoint, OffsetDateTime::now_utc())?;
    request.headers_mut().insert(
        axum::http::header::AUTHORIZATION,
        axum::http::HeaderValue::from_str(&authorization)
            .map_err(|_| "the VAPID header is not a header value")?,
    );
    Ok(request)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_pair_is_stable_and_its_public_half_is_an_uncompressed_point() {
        let a = Vapid::new([7; 32], "mailto:ops@example.com".into());
        let b = Vapid::new([7; 32], "mailto:ops@example.com".into());
        assert_eq!(a.public_key(), b.public_key());
        let point = URL_SAFE_NO_PAD.decode(a.public_key()).unwrap();
        assert_eq!((point.len(), point[0]), (65, 4));
        assert_ne!(Vapid::new([8; 32], String::new()).public_key(), a.public_key());
        // A seed that is not a scalar (all ones is above the group order) still gives a key.
        let _ = Vapid::new([0xff; 32], String::new());
    }

    #[test]
    fn the_authorization_names_the_push_services_origin_and_the_key() {
        let vapid = Vapid::new([7; 32], "mailto:ops@example.com".into());
        let endpoint = url::Url::parse("https://push.example.net:8443/wpush/v2/abc").unwrap();
        let header = vapid.authorization(&endpoint, OffsetDateTime::now_utc()).unwrap();
        let (token, key) = header.strip_prefix("vapid t=").unwrap().split_once(", k=").unwrap();
        assert_eq!(key, vapid.public_key());
        let claims: Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(token.split('.').nth(1).unwrap()).unwrap())
                .unwrap();
        assert_eq!(claims["aud"], "https://push.example.net:8443");
        assert_eq!(claims["sub"], "mailto:ops@example.com");
        let lifetime = claims["exp"].as_i64().unwrap() - OffsetDateTime::now_utc().unix_timestamp();
        assert!((0..=24 * 3600).contains(&lifetime), "{lifetime}");
    }

    #[test]
    fn operator_keys_are_checked() {
        assert!(Vapid::parse_private_key(&URL_SAFE_NO_PAD.encode([7u8; 32])).is_ok());
        assert!(Vapid::parse_private_key("not base64!").is_err());
        assert!(Vapid::parse_private_key(&URL_SAFE_NO_PAD.encode([7u8; 16])).is_err());
        assert!(Vapid::parse_private_key(&URL_SAFE_NO_PAD.encode([0u8; 32])).is_err());
    }

    #[test]
    fn device_names_are_one_short_line() {
        assert_eq!(device_name(None).unwrap(), "A browser");
        assert_eq!(device_name(Some(" Chrome on Linux ")).unwrap(), "Chrome on Linux");
        assert!(device_name(Some("a\nb")).is_err());
        assert!(device_name(Some(&"x".repeat(81))).is_err());
    }
}
