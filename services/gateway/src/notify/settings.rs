//! The operator's notification settings (`HERALD_SMTP_*`, `HERALD_DELIVERY_*`),
//! as given and as validated.

use std::time::Duration;

use clap::Args;

use crate::config::ConfigError;

#[derive(Debug, Args, Default, Clone)]
pub struct RawNotifySettings {
    /// SMTP server for e-mail notifications (host name or address). Unset: no e-mail.
    #[arg(long, env = "HERALD_SMTP_HOST", global = true)]
    pub smtp_host: Option<String>,
    /// SMTP port. Default: 587 with starttls, 465 with implicit, 25 with none.
    #[arg(long, env = "HERALD_SMTP_PORT", global = true)]
    pub smtp_port: Option<String>,
    /// starttls (default), implicit (TLS from the first byte), or none (loopback servers only).
    #[arg(long, env = "HERALD_SMTP_TLS", global = true)]
    pub smtp_tls: Option<String>,
    /// SMTP user name, when the server requires authentication.
    #[arg(long, env = "HERALD_SMTP_USERNAME", global = true)]
    pub smtp_username: Option<String>,
    /// SMTP password.
    #[arg(long, env = "HERALD_SMTP_PASSWORD", hide_env_values = true, global = true)]
    pub smtp_password: Option<String>,
    /// The sender, like `Herald <herald@example.com>`. Default: herald@<the public URL's host>.
    #[arg(long, env = "HERALD_SMTP_FROM", global = true)]
    pub smtp_from: Option<String>,
    /// Seconds before a failed delivery is tried again; doubles each time, up to an hour. Default: 10.
    #[arg(long, env = "HERALD_DELIVERY_RETRY_SECS", global = true)]
    pub delivery_retry_secs: Option<String>,
    /// Attempts at one delivery before it is recorded as failed. Default: 8.
    #[arg(long, env = "HERALD_DELIVERY_ATTEMPTS", global = true)]
    pub delivery_attempts: Option<String>,
    /// The Web Push (VAPID) private key: a P-256 scalar, 32 bytes base64url. Default: derived
    /// from the instance key. Browsers subscribed under one key get nothing signed by another.
    #[arg(long, env = "HERALD_VAPID_PRIVATE_KEY", hide_env_values = true, global = true)]
    pub vapid_private_key: Option<String>,
    /// Who push services may contact about this Herald (`mailto:` or `https:`). Default: the
    /// public URL when it is https, else mailto:herald@<its host>.
    #[arg(long, env = "HERALD_VAPID_SUBJECT", global = true)]
    pub vapid_subject: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SmtpTls {
    StartTls,
    Implicit,
    None,
}

#[derive(Clone)]
pub struct SmtpSettings {
    pub host: String,
    pub port: u16,
    pub tls: SmtpTls,
    pub credentials: Option<(String, String)>,
    pub from: lettre::message::Mailbox,
}

impl std::fmt::Debug for SmtpSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmtpSettings")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("tls", &self.tls)
            .field("username", &self.credentials.as_ref().map(|(u, _)| u))
            .field("from", &self.from.to_string())
            .finish_non_exhaustive()
    }
}

#[derive(Clone)]
pub struct NotifySettings {
    pub smtp: Option<SmtpSettings>,
    pub retry_first: Duration,
    pub attempts: u32,
    /// The operator's VAPID private key, if they set one.
    pub vapid_private_key: Option<[u8; 32]>,
    pub vapid_subject: String,
}

impl std::fmt::Debug for NotifySettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NotifySettings")
            .field("smtp", &self.smtp)
            .field("retry_first", &self.retry_first)
            .field("attempts", &self.attempts)
            .field("vapid_private_key", &self.vapid_private_key.map(|_| "<set>"))
            .field("vapid_subject", &self.vapid_subject)
            .finish()
    }
}

impl NotifySettings {
    pub fn from_raw(raw: &RawNotifySettings, public_url: &url::Url) -> Result<Self, ConfigError> {
        let given =
            |v: &Option<String>| v.as_deref().map(str::trim).filter(|v| !v.is_empty()).map(str::to_owned);
        let retry_first = match given(&raw.delivery_retry_secs) {
            None => 10,
            Some(v) => v.parse::<u64>().ok().filter(|n| (1..=3600).contains(n)).ok_or_else(|| {
                bad(
                    "--delivery-retry-secs",
                    "HERALD_DELIVERY_RETRY_SECS",
                    format!("{v:?} is not a whole number of seconds from 1 to 3600"),
                )
            })?,
        };
        let attempts = match given(&raw.delivery_attempts) {
            None => 8,
            Some(v) => v.parse::<u32>().ok().filter(|n| (1..=20).contains(n)).ok_or_else(|| {
                bad(
                    "--delivery-attempts",
                    "HERALD_DELIVERY_ATTEMPTS",
                    format!("{v:?} is not a whole number from 1 to 20"),
                )
            })?,
        };
        let smtp = match given(&raw.smtp_host) {
            None => {
                for (value, flag, env) in [
                    (&raw.smtp_port, "--smtp-port", "HERALD_SMTP_PORT"),
                    (&raw.smtp_tls, "--smtp-tls", "HERALD_SMTP_TLS"),
                    (&raw.smtp_username, "--smtp-username", "HERALD_SMTP_USERNAME"),
                    (&raw.smtp_from, "--smtp-from", "HERALD_SMTP_FROM"),
                ] {
                    if given(value).is_some() {
                        return Err(bad(flag, env, "is set without HERALD_SMTP_HOST"));
                    }
                }
                None
            }
            Some(host) => Some(smtp(raw, host, public_url)?),
        };
        let vapid_private_key = match given(&raw.vapid_private_key) {
            None => None,
            Some(v) => Some(
                crate::notify::push::Vapid::parse_private_key(&v)
                    .map_err(|e| bad("--vapid-private-key", "HERALD_VAPID_PRIVATE_KEY", e))?,
            ),
        };
        let vapid_subject = match given(&raw.vapid_subject) {
            Some(v) if (v.starts_with("mailto:") && v.len() > 7) || v.starts_with("https://") => v,
            Some(v) => {
                return Err(bad(
                    "--vapid-subject",
                    "HERALD_VAPID_SUBJECT",
                    format!("{v:?} is neither a mailto: nor an https: URI"),
                ));
            }
            None if public_url.scheme() == "https" => public_url.origin().ascii_serialization(),
            None => format!("mailto:herald@{}", public_url.host_str().unwrap_or("localhost")),
        };
        Ok(Self {
            smtp,
            retry_first: Duration::from_secs(retry_first),
            attempts,
            vapid_private_key,
            vapid_subject,
        })
    }
}

fn smtp(raw: &RawNotifySettings, host: String, public_url: &url::Url) -> Result<SmtpSettings, ConfigError> {
    let tls = match raw.smtp_tls.as_deref().map(str::trim) {
        None | Some("") | Some("starttls") => SmtpTls::StartTls,
        Some("implicit") => SmtpTls::Implicit,
        Some("none") => SmtpTls::None,
        Some(other) => {
            return Err(bad(
                "--smtp-tls",
                "HERALD_SMTP_TLS",
                format!("{other:?} is not one of: starttls, implicit, none"),
            ));
        }
    };
    // Mail in the clear only to a relay on this machine (a local MTA or a test server).
    let loopback = host == "localhost" || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback());
    if tls == SmtpTls::None && !loopback {
        return Err(bad(
            "--smtp-tls",
            "HERALD_SMTP_TLS",
            format!(
                "none sends mail and the SMTP password in the clear; it is only allowed for a loopback host, not {host:?}"
            ),
        ));
    }
    let port =
        match raw.smtp_port.as_deref().map(str::trim).filter(|p| !p.is_empty()) {
            None => match tls {
                SmtpTls::StartTls => 587,
                SmtpTls::Implicit => 465,
                SmtpTls::None => 25,
            },
            Some(p) => p.parse::<u16>().ok().filter(|p| *p > 0).ok_or_else(|| {
                bad("--smtp-port", "HERALD_SMTP_PORT", format!("{p:?} is not a port number"))
            })?,
        };
    let credentials = match (raw.smtp_username.as_deref(), raw.smtp_password.as_deref()) {
        (Some(u), Some(p)) if !u.is_empty() => Some((u.to_owned(), p.to_owned())),
        (Some(u), None) if !u.is_empty() => {
            return Err(bad(
                "--smtp-password",
                "HERALD_SMTP_PASSWORD",
                "is needed with HERALD_SMTP_USERNAME",
            ));
        }
        (None, Some(_)) => {
            return Err(bad(
                "--smtp-username",
                "HERALD_SMTP_USERNAME",
                "is needed with HERALD_SMTP_PASSWORD",
            ));
        }
        _ => None,
    };
    let from = match raw.smtp_from.as_deref().map(str::trim).filter(|f| !f.is_empty()) {
        Some(from) => from.parse().map_err(|e| {
            bad(
                "--smtp-from",
                "HERALD_SMTP_FROM",
                format!("{from:?} is not an address like Herald <herald@example.com> ({e})"),
            )
        })?,
        None => {
            let domain = public_url.host_str().unwrap_or("localhost");
            let domain =
                if domain.contains('.') { domain.to_owned() } else { format!("{domain}.localdomain") };
            format!("Herald <herald@{domain}>").parse().map_err(|e| {
                bad(
                    "--smtp-from",
                    "HERALD_SMTP_FROM",
                    format!("must be set: no sender can be made from the public URL ({e})"),
                )
            })?
        }
    };
    Ok(SmtpSettings { host, port, tls, credentials, from })
}

fn bad(flag: &'static str, env: &'static str, problem: impl Into<String>) -> ConfigError {
    ConfigError { flag, env, problem: problem.into() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url() -> url::Url {
        "https://herald.example.com".parse().unwrap()
    }

    #[test]
    fn no_host_means_no_email() {
        let s = NotifySettings::from_raw(&RawNotifySettings::default(), &url()).unwrap();
        assert!(s.smtp.is_none());
        assert_eq!(s.retry_first, Duration::from_secs(10));
    }

    #[test]
    fn mail_in_the_clear_only_to_loopback() {
        let raw = RawNotifySettings {
            smtp_host: Some("mail.example.com".into()),
            smtp_tls: Some("none".into()),
            ..Default::default()
        };
        assert_eq!(NotifySettings::from_raw(&raw, &url()).unwrap_err().env, "HERALD_SMTP_TLS");
        let raw = RawNotifySettings {
            smtp_host: Some("127.0.0.1".into()),
            smtp_tls: Some("none".into()),
            ..Default::default()
        };
        let smtp = NotifySettings::from_raw(&raw, &url()).unwrap().smtp.unwrap();
        assert_eq!((smtp.port, smtp.from.email.to_string()), (25, "herald@herald.example.com".to_owned()));
    }

    #[test]
    fn a_password_never_shows_in_debug_output() {
        let raw = RawNotifySettings {
            smtp_host: Some("mail.example.com".into()),
            smtp_username: Some("herald".into()),
            smtp_password: Some("hunter2-secret".into()),
            ..Default::default()
        };
        let s = NotifySettings::from_raw(&raw, &url()).unwrap();
        assert!(!format!("{s:?}").contains("hunter2"));
    }

    #[test]
    fn settings_without_a_host_are_refused() {
        let raw = RawNotifySettings { smtp_port: Some("2525".into()), ..Default::default() };
        assert_eq!(NotifySettings::from_raw(&raw, &url()).unwrap_err().env, "HERALD_SMTP_PORT");
    }
}
