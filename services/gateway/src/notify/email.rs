//! E-mail notifications over SMTP: plain text only (nothing a server wrote
//! can become markup), naming the server as registered, the tool and the
//! question's first words, with a link to the question in the dashboard.

use std::time::Duration;

use lettre::message::Mailbox;
use lettre::message::header::ContentType;
use lettre::transport::smtp::authentication::Credentials;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use serde::Deserialize;
use serde_json::{Value, json};
use time::OffsetDateTime;

use super::content;
use super::settings::{SmtpSettings, SmtpTls};
use crate::domain::notification::NotifyEvent;
use crate::storage::{Elicitation, User};

/// One SMTP exchange may take this long at most.
const SMTP_TIMEOUT: Duration = Duration::from_secs(20);

/// A queued e-mail, as stored in its delivery's payload.
#[derive(Debug, Deserialize)]
pub struct Mail {
    pub to: String,
    pub name: String,
    pub subject: String,
    pub text: String,
}

/// The mail about `e` for `user`.
/// `answers`: one-click answer links (label, address), for a single yes/no or choice.
pub fn payload(
    e: &Elicitation,
    user: &User,
    event: NotifyEvent,
    public_url: &url::Url,
    answers: &[(String, String)],
) -> Value {
    let server = content::first_words(&e.server.name);
    let tool = content::tool_words(e);
    let minutes = ((e.expires_at - OffsetDateTime::now_utc()).whole_seconds().max(0) + 59) / 60;
    let expires = e.expires_at.format(&time::format_description::well_known::Rfc2822).expect("formats");
    let herald = e.asked_by == crate::domain::AskedBy::Herald;
    let subject = match event {
        NotifyEvent::Reminded if herald => format!("Reminder: a call waits for you to connect to {server}"),
        NotifyEvent::Reminded => format!("Reminder: {server} is still waiting for your answer"),
        _ if herald => format!("Herald: connect your account to {server} so your agent's call can go on"),
        _ => format!("{server} is asking you something"),
    };
    let base = public_url.as_str().trim_end_matches('/');
    let mut quick = String::new();
    if !answers.is_empty() {
        quick.push_str("Or answer from here (each link asks you to confirm first):\n");
        for (label, link) in answers {
            quick.push_str(&format!("  {label}: {link}\n"));
        }
        quick.push('\n');
    }
    let text = format!(
        "{server} is waiting for your answer in the organisation {org}.\n\n\
         Tool: {tool}\n\
         Question: \"{words}\"\n\n\
         Answer it in Herald: {link}\n\n\
         {quick}\
         It expires in about {minutes} minute{s} ({expires}); after that the server is told you did not answer.\n\n\
         You get this e-mail because no Herald dashboard of yours was open.\n\
         Choose what Herald sends you, and when: {base}/notifications\n",
        org = e.org_slug,
        words = content::first_words(&e.message),
        link = content::question_link(public_url, e),
        s = if minutes == 1 { "" } else { "s" },
    );
    json!({ "to": user.email, "name": content::first_words(&user.name), "subject": subject, "text": text })
}

/// Sends mail through the operator's SMTP server.
pub struct Mailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
}

/// Why a mail was not sent, and whether trying again may help.
pub struct MailFailure {
    pub error: String,
    pub permanent: bool,
}

impl Mailer {
    pub fn new(settings: &SmtpSettings) -> Result<Self, String> {
        let builder = match settings.tls {
            SmtpTls::StartTls => AsyncSmtpTransport::<Tokio1Executor>::starttls_relay(&settings.host),
            SmtpTls::Implicit => AsyncSmtpTransport::<Tokio1Executor>::relay(&settings.host),
            SmtpTls::None => Ok(AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(&settings.host)),
        }
        .map_err(|e| format!("the SMTP settings are unusable: {e}"))?;
        let mut builder = builder.port(settings.port).timeout(Some(SMTP_TIMEOUT));
        if let Some((user, password)) = &settings.credentials {
            builder = builder.credentials(Credentials::new(user.clone(), password.clone()));
        }
        Ok(Self { transport: builder.build(), from: settings.from.clone() })
    }

    pub async fn send(&self, mail: &Mail) -> Result<(), MailFailure> {
        let to: Mailbox = match mail.to.parse::<lettre::Address>() {
            Ok(address) => Mailbox::new(Some(mail.name.clone()), address),
            Err(_) => {
                return Err(MailFailure {
                    error: "the person's address cannot receive mail".into(),
                    permanent: true,
                });
            }
        };
        let message = Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(&mail.subject)
            .header(ContentType::TEXT_PLAIN)
            .body(mail.text.clone())
            .map_err(|e| MailFailure {
                error: format!("the mail could not be composed: {e}"),
                permanent: true,
            })?;
        self.transport.send(message).await.map(|_| ()).map_err(|e| MailFailure {
            permanent: e.is_permanent(),
            error: if e.is_timeout() {
                "the SMTP server did not answer in time".to_owned()
            } else if e.is_permanent() {
                "the SMTP server refused the mail".to_owned()
            } else if e.is_transient() {
                "the SMTP server deferred the mail".to_owned()
            } else {
                "the SMTP server could not be reached".to_owned()
            },
        })
    }
}
