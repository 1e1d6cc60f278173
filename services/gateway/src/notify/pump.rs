//! The deliveries outbox: every replica claims due deliveries, sends them
//! (a webhook request, an e-mail, a browser push) and records how each went; a failure is
//! tried again with back-off, up to the configured number of attempts. A
//! claim lapses after a while, so a delivery a dying replica held is sent by
//! another. Nothing here ever waits on the call path.

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::join_all;
use time::OffsetDateTime;
use tokio::sync::Notify;
use uuid::Uuid;

use super::email::{Mail, Mailer};
use super::push::{self, Outgoing, Pushed, QueuedPush, Subscription, Vapid};
use super::settings::NotifySettings;
use super::webhooks;
use crate::crypto::Keys;
use crate::storage::Store;
use crate::storage::notifications::{Attempted, Delivery};
use crate::storage::push::PushDevice;

/// Deliveries claimed per round.
const BATCH: i64 = 16;
/// How long a claim holds: longer than any attempt takes.
const CLAIM: time::Duration = time::Duration::minutes(2);
/// A webhook receiver gets this long to answer.
const WEBHOOK_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest wait between attempts.
const MAX_RETRY: Duration = Duration::from_secs(3600);
/// What of a receiver's answer is read (and dropped): enough to finish the response.
const RESPONSE_READ_LIMIT: usize = 64 * 1024;
/// A person's tests of one browser, at most this many a minute per replica: the endpoint is
/// theirs to choose, and each test is a request from Herald to it.
pub const TEST_PUSHES_PER_MINUTE: usize = 3;
const MINUTE: Duration = Duration::from_secs(60);

pub struct Pump {
    store: Arc<dyn Store>,
    replica_id: Uuid,
    keys: Arc<Keys>,
    http: reqwest::Client,
    mailer: Option<Mailer>,
    pub vapid: Vapid,
    egress: crate::egress::EgressPolicy,
    /// When each browser was sent its tests of the last minute (only browsers with any).
    tested: std::sync::Mutex<std::collections::HashMap<Uuid, Vec<std::time::Instant>>>,
    retry_first: Duration,
    attempts: u32,
    due: Notify,
}

impl Pump {
    pub fn new(
        store: Arc<dyn Store>,
        replica_id: Uuid,
        keys: Arc<Keys>,
        settings: &NotifySettings,
        egress: &crate::egress::EgressPolicy,
    ) -> Arc<Self> {
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(5))
            .timeout(WEBHOOK_TIMEOUT)
            .tcp_nodelay(true)
            // A redirect would send the signed event somewhere the admin did not register.
            .redirect(reqwest::redirect::Policy::none())
            // Every resolved address is checked against the egress policy (as for upstreams).
            .dns_resolver(egress.resolver())
            .no_proxy()
            .user_agent(concat!("Herald/", env!("CARGO_PKG_VERSION")))
            .build()
            .expect("the HTTP client builds");
        let mailer = settings.smtp.as_ref().and_then(|smtp| match Mailer::new(smtp) {
            Ok(m) => Some(m),
            Err(e) => {
                tracing::error!(error = %e, "e-mail notifications are off");
                None
            }
        });
        let vapid = Vapid::new(
            settings.vapid_private_key.unwrap_or_else(|| keys.vapid_seed()),
            settings.vapid_subject.clone(),
        );
        Arc::new(Self {
            store,
            replica_id,
            keys,
            http,
            mailer,
            vapid,
            egress: egress.clone(),
            tested: Default::default(),
            retry_first: settings.retry_first,
            attempts: settings.attempts,
            due: Notify::new(),
        })
    }

    /// Something was queued: look now rather than at the next round.
    pub fn wake(&self) {
        self.due.notify_one();
    }

    /// Sends what is due until the task is aborted.
    pub fn spawn(self: &Arc<Self>) -> tokio::task::JoinHandle<()> {
        let pump = self.clone();
        tokio::spawn(async move {
            // Retries come due by time: look at least this often.
            let every = pump.retry_first.min(Duration::from_secs(5));
            loop {
                let sent = pump.round().await;
                if sent < BATCH as usize {
                    tokio::select! {
                        () = pump.due.notified() => {}
                        () = tokio::time::sleep(every) => {}
                    }
                }
            }
        })
    }

    /// Claims and sends one batch; returns how many were claimed.
    pub async fn round(&self) -> usize {
        let now = OffsetDateTime::now_utc();
        let claimed = match self.store.claim_deliveries(self.replica_id, now, now + CLAIM, BATCH).await {
            Ok(claimed) => claimed,
            Err(e) => {
                tracing::warn!(error = %e, "could not claim notification deliveries");
                return 0;
            }
        };
        let count = claimed.len();
        join_all(claimed.into_iter().map(|d| self.deliver(d))).await;
        count
    }

    async fn deliver(&self, delivery: Delivery) {
        if self.is_over(&delivery).await {
            if let Err(e) = self.store.finish_delivery(delivery.id, &Attempted::Withdrawn).await {
                tracing::warn!(delivery_id = %delivery.id, error = %e, "could not withdraw a delivery");
            }
            return;
        }
        let result = match delivery.channel.as_str() {
            "webhook" => self.send_webhook(&delivery).await,
            "email" => self.send_mail(&delivery).await,
            "push" => self.send_push(&delivery).await,
            other => Err((None, format!("unknown channel {other}"), true)),
        };
        let attempted = match result {
            Ok(status) => Attempted::Delivered { status, at: OffsetDateTime::now_utc() },
            Err((status, error, permanent)) => {
                let made = u32::try_from(delivery.attempts).unwrap_or(u32::MAX).saturating_add(1);
                let retry_at = (!permanent && made < self.attempts).then(|| {
                    let wait = crate::backoff::Backoff::nth(self.retry_first, MAX_RETRY, made - 1);
                    OffsetDateTime::now_utc() + wait
                });
                tracing::info!(
                    delivery_id = %delivery.id, channel = %delivery.channel, event = %delivery.event,
                    attempt = made, error = %error, retry = retry_at.is_some(), "a notification was not delivered"
                );
                Attempted::Failed { status, error, retry_at }
            }
        };
        if let Err(e) = self.store.finish_delivery(delivery.id, &attempted).await {
            tracing::warn!(delivery_id = %delivery.id, error = %e, "could not record a delivery attempt");
        }
    }

    /// Whether a person's mail or push about a waiting question is about
    /// something over: the question ended while it waited for a retry (the
    /// ending withdraws only what is not being sent at that moment).
    async fn is_over(&self, delivery: &Delivery) -> bool {
        let about_waiting = matches!(delivery.event.as_str(), "question.created" | "question.reminded");
        let (true, Some(user_id), Some(id), "email" | "push") =
            (about_waiting, delivery.user_id, delivery.elicitation_id, delivery.channel.as_str())
        else {
            return false;
        };
        match self.store.elicitation_of_user(user_id, id).await {
            Ok(Some(e)) => e.outcome.is_some(),
            Ok(None) => true,
            // Unknown: rather one message too many than none.
            Err(_) => false,
        }
    }

    /// `Ok(status)` when the receiver answered 2xx; otherwise the status (if
    /// any), a short reason, and whether trying again is pointless.
    async fn send_webhook(&self, delivery: &Delivery) -> Result<Option<i64>, (Option<i64>, String, bool)> {
        let Some(webhook_id) = delivery.webhook_id else {
            return Err((None, "the delivery names no webhook".into(), true));
        };
        let hook = match self.store.webhook(delivery.org_id, webhook_id).await {
            Ok(Some(hook)) => hook,
            Ok(None) => return Err((None, "the webhook was deleted".into(), true)),
            Err(e) => return Err((None, format!("the webhook could not be read: {e}"), false)),
        };
        let secret = match self.keys.open(&webhooks::seal_context(hook.org_id, hook.id), &hook.secret_sealed)
        {
            Ok(secret) => String::from_utf8_lossy(&secret).into_owned(),
            Err(e) => return Err((None, e.to_string(), true)),
        };
        let body = serde_json::to_vec(&delivery.payload).expect("payloads serialize");
        let t = OffsetDateTime::now_utc().unix_timestamp();
        let response = self
            .http
            .post(&hook.url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header("Herald-Event", &delivery.event)
            .header("Herald-Delivery", delivery.id.to_string())
            .header(webhooks::SIGNATURE_HEADER, webhooks::signature(&secret, t, &body))
            .body(body)
            .send()
            .await;
        match response {
            Ok(mut response) => {
                let status = i64::from(response.status().as_u16());
                // Read a little of the answer so the connection can be reused; never more.
                let mut read = 0;
                while read < RESPONSE_READ_LIMIT {
                    match response.chunk().await {
                        Ok(Some(chunk)) => read += chunk.len(),
                        _ => break,
                    }
                }
                if response.status().is_success() {
                    Ok(Some(status))
                } else {
                    Err((Some(status), format!("the receiver answered HTTP {status}"), false))
                }
            }
            Err(e) if e.is_timeout() => Err((None, "the receiver did not answer in time".into(), false)),
            Err(e) => {
                // A short category, never the operating system's words (as for the connection test).
                let failure = herald_mcp::connect_failure::ConnectFailure::of(&e);
                Err((None, failure.sentence().to_owned(), false))
            }
        }
    }

    async fn send_push(&self, delivery: &Delivery) -> Result<Option<i64>, (Option<i64>, String, bool)> {
        let Some(device_id) = delivery.push_device_id else {
            return Err((None, "the delivery names no browser".into(), true));
        };
        let device = match self.store.push_device(device_id).await {
            Ok(Some(device)) => device,
            Ok(None) => return Err((None, "the browser was removed".into(), true)),
            Err(e) => return Err((None, format!("the browser could not be read: {e}"), false)),
        };
        let queued: QueuedPush = serde_json::from_value(delivery.payload.clone())
            .map_err(|e| (None, format!("the queued push is unreadable: {e}"), true))?;
        let left = queued.until - OffsetDateTime::now_utc().unix_timestamp();
        if left <= 0 {
            return Err((None, "no longer worth delivering".into(), true));
        }
        let ttl = Duration::from_secs(left.unsigned_abs());
        let out = Outgoing {
            message: &queued.message,
            ttl,
            topic: queued.topic.as_deref(),
            urgency: &queued.urgency,
        };
        match self.push_to(&device, &out).await {
            Pushed::Accepted(status) => Ok(Some(i64::from(status))),
            Pushed::Gone(status) => Err((Some(i64::from(status)), gone(status), true)),
            Pushed::Refused(status, error) => Err((status.map(i64::from), error, true)),
            Pushed::Failed(status, error) => Err((status.map(i64::from), error, false)),
        }
    }

    /// Whether `device` may be sent a test now; if not, the seconds until it may.
    pub fn may_test(&self, device: Uuid) -> Result<(), u64> {
        let now = std::time::Instant::now();
        let mut tested = self.tested.lock().expect("tested lock");
        tested.retain(|_, times| {
            times.retain(|at| now.duration_since(*at) < MINUTE);
            !times.is_empty()
        });
        let times = tested.entry(device).or_default();
        if times.len() >= TEST_PUSHES_PER_MINUTE {
            return Err((MINUTE - now.duration_since(times[0])).as_secs().max(1));
        }
        times.push(now);
        Ok(())
    }

    /// Sends `message` to one browser now, and records how it went on the
    /// device: a subscription its push service no longer knows is forgotten.
    pub async fn push_to(&self, device: &PushDevice, out: &Outgoing<'_>) -> Pushed {
        let pushed = match Subscription::open(&self.keys, device) {
            Ok(subscription) => push::send(&self.http, &self.vapid, &self.egress, &subscription, out).await,
            Err(e) => Pushed::Refused(None, e.to_string()),
        };
        let now = OffsetDateTime::now_utc();
        let recorded = match &pushed {
            Pushed::Accepted(_) => self.store.record_push(device.id, now, None).await,
            Pushed::Gone(_) => {
                tracing::info!(device_id = %device.id, "a browser's push subscription expired; removed");
                self.store.drop_push_device(device.id).await
            }
            Pushed::Refused(_, error) | Pushed::Failed(_, error) => {
                self.store.record_push(device.id, now, Some(error)).await
            }
        };
        if let Err(e) = recorded {
            tracing::warn!(device_id = %device.id, error = %e, "could not record a push");
        }
        pushed
    }

    async fn send_mail(&self, delivery: &Delivery) -> Result<Option<i64>, (Option<i64>, String, bool)> {
        let Some(mailer) = &self.mailer else {
            return Err((None, "e-mail is not set up on this Herald".into(), true));
        };
        let mail: Mail = serde_json::from_value(delivery.payload.clone())
            .map_err(|e| (None, format!("the queued mail is unreadable: {e}"), true))?;
        mailer.send(&mail).await.map(|()| None).map_err(|f| (None, f.error, f.permanent))
    }
}

/// Why a push to an expired subscription is not tried again.
fn gone(status: u16) -> String {
    format!("the browser's subscription has expired (HTTP {status}); it was removed")
}
