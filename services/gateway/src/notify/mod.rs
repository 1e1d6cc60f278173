//! Reaching people who are not looking (issue 16). A notification is one more
//! way for a question to reach its person; it never holds up the call.
//!
//! The [`Notifier`] follows every question that waits for a person on this
//! replica (it is the broker's [`Watcher`]): the organisation's webhooks hear
//! of it at once; the person gets an e-mail and a push to each browser they
//! turned push on in after their delay if no dashboard of theirs is visible
//! (and not during their quiet hours), and a reminder before the deadline;
//! its ending replaces the browsers' notifications. Each message is a row in
//! the deliveries outbox (`pump.rs`), sent and retried by whichever replica
//! claims it, so a slow or dead mail server, push service or webhook delays
//! nothing but its own delivery.

pub mod content;
pub mod email;
pub mod links;
pub mod prefs;
pub mod presence;
pub mod pump;
pub mod push;
pub mod settings;
pub mod webhooks;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use time::OffsetDateTime;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use crate::broker::{Broker, Watcher};
use crate::crypto::Keys;
use crate::domain::notification::{NotifyChannel, NotifyEvent};
use crate::storage::notifications::NewDelivery;
use crate::storage::{Elicitation, Store};
use prefs::{Prefs, PrefsDoc};
use settings::NotifySettings;

pub struct Notifier {
    /// Itself, for the tasks it spawns.
    me: Weak<Notifier>,
    store: Arc<dyn Store>,
    broker: Weak<Broker>,
    replica_id: Uuid,
    public_url: url::Url,
    /// Signs the mails' one-click answer links.
    keys: Arc<Keys>,
    /// Whether e-mail can be sent at all (`HERALD_SMTP_HOST`).
    email_available: bool,
    /// The questions this replica follows, each with what stops its follow-up.
    following: Mutex<HashMap<Uuid, CancellationToken>>,
    pub presence: presence::Presence,
    pub pump: Arc<pump::Pump>,
}

impl Notifier {
    pub fn new(
        store: Arc<dyn Store>,
        broker: &Arc<Broker>,
        keys: Arc<Keys>,
        settings: &NotifySettings,
        egress: &crate::egress::EgressPolicy,
        public_url: url::Url,
    ) -> Arc<Self> {
        let pump = pump::Pump::new(store.clone(), broker.replica_id, keys.clone(), settings, egress);
        let notifier = Arc::new_cyclic(|me| Self {
            me: me.clone(),
            presence: presence::Presence::new(Arc::downgrade(broker)),
            store,
            broker: Arc::downgrade(broker),
            replica_id: broker.replica_id,
            public_url,
            keys,
            email_available: settings.smtp.is_some(),
            following: Mutex::new(HashMap::new()),
            pump,
        });
        broker.watch(notifier.clone());
        notifier
    }

    pub fn email_available(&self) -> bool {
        self.email_available
    }

    /// A dashboard of `user_id` opened, closed, or became visible or hidden here.
    pub fn presence_changed(&self, user_id: Uuid) {
        self.presence.changed(user_id);
    }

    /// Whether `user_id` has a visible dashboard on any live replica.
    pub async fn is_looking(&self, user_id: Uuid) -> bool {
        if self.broker.upgrade().is_some_and(|b| b.hub.is_looking(user_id)) {
            return true;
        }
        // A dead replica's rows do not count: it is dead when the janitor would judge it so.
        let alive_since = OffsetDateTime::now_utc() - crate::broker::janitor::REPLICA_TIMEOUT;
        self.store.looking_elsewhere(user_id, self.replica_id, alive_since).await.unwrap_or_else(|e| {
            // Unknown: rather one notification too many than a question nobody sees.
            tracing::warn!(error = %e, "could not read presence; notifying");
            false
        })
    }

    /// The preferences in force for `user_id` in `org_id`.
    pub async fn prefs(&self, user_id: Uuid, org_id: Uuid) -> Prefs {
        let own = self.store.notification_prefs(user_id).await.unwrap_or_else(|e| {
            tracing::warn!(error = %e, "could not read notification preferences; using the defaults");
            None
        });
        let org = self.store.org_notification_defaults(org_id).await.unwrap_or_else(|e| {
            tracing::warn!(error = %e, "could not read the organisation's notification defaults");
            None
        });
        Prefs::merged(&PrefsDoc::from_stored(own), &PrefsDoc::from_stored(org.map(|o| o.document)))
    }

    /// Follows `e` until it ends: webhooks now, e-mail and push after the
    /// delay, reminders before the deadline.
    async fn follow(self: Arc<Self>, e: Elicitation, stop: CancellationToken) {
        let has_webhooks = self.enqueue_webhooks(&e, NotifyEvent::Created).await;
        // Read once: a browser turned on while the question waits hears of the next one.
        let has_browsers = self.has_browsers(e.user_id).await;
        // Nothing more to send for it (no mail here, no browser, no webhook in the org): read nothing more.
        if !has_webhooks && !self.email_available && !has_browsers {
            return;
        }
        let prefs = self.prefs(e.user_id, e.org_id).await;
        let to_person = (self.email_available && prefs.email) || (has_browsers && prefs.push);
        let lifetime = e.expires_at - e.created_at;
        let first = e.created_at + time::Duration::seconds(prefs.delay_secs.into());
        let reminder = (prefs.reminder_percent > 0)
            .then(|| e.created_at + lifetime * (f64::from(prefs.reminder_percent) / 100.0));
        let mut notified = false;
        if to_person && first < e.expires_at {
            let at = prefs.send_at(first);
            // Not worth sending if it would only arrive at the reminder's time, or past the deadline.
            if at < e.expires_at && reminder.is_none_or(|r| at < r) {
                if !wait_until(at, &stop).await {
                    return;
                }
                notified = self.notify_unless_looking(&e, NotifyEvent::Created, &prefs).await;
            }
        }
        let Some(reminder) = reminder else { return };
        if !wait_until(reminder, &stop).await {
            return;
        }
        if has_webhooks {
            self.enqueue_webhooks(&e, NotifyEvent::Reminded).await;
        }
        if to_person && prefs.send_at(reminder) <= reminder {
            // The reminder is the first message when the first was not sent (they were looking then).
            let event = if notified { NotifyEvent::Reminded } else { NotifyEvent::Created };
            self.notify_unless_looking(&e, event, &prefs).await;
        }
    }

    async fn has_browsers(&self, user_id: Uuid) -> bool {
        self.store.push_devices(user_id).await.map(|d| !d.is_empty()).unwrap_or(true)
    }

    /// Queues the e-mail and the pushes about `e` its person chose, unless a
    /// dashboard of theirs is visible; whether anything was queued.
    async fn notify_unless_looking(&self, e: &Elicitation, event: NotifyEvent, prefs: &Prefs) -> bool {
        if self.is_looking(e.user_id).await {
            tracing::debug!(elicitation_id = %e.id, "the person is looking; no e-mail or push");
            return false;
        }
        // The question may have ended while this ran: nothing about what is over.
        match self.store.elicitation_of_user(e.user_id, e.id).await {
            Ok(Some(now)) if now.outcome.is_none() => {}
            _ => return false,
        }
        let mut deliveries = vec![];
        if self.email_available
            && prefs.email
            && let Some(mail) = self.mail(e, event).await
        {
            deliveries.push(mail);
        }
        if prefs.push {
            let devices = self.store.push_devices(e.user_id).await.unwrap_or_else(|err| {
                tracing::warn!(error = %err, "could not read the person's browsers");
                vec![]
            });
            let queued = push::question_push(e, event);
            let payload = serde_json::to_value(&queued).expect("pushes serialize");
            deliveries.extend(devices.iter().map(|d| self.push_delivery(e, d.id, event, payload.clone())));
        }
        if deliveries.is_empty() {
            return false;
        }
        let queued = self.enqueue(&deliveries).await;
        // Ended between the check and the queueing: withdrawn like the others.
        if queued && !self.following.lock().expect("following lock").contains_key(&e.id) {
            let _ = self.store.withdraw_deliveries(e.id).await;
        }
        queued
    }

    /// The e-mail about `e`, with one-click answers where they fit.
    async fn mail(&self, e: &Elicitation, event: NotifyEvent) -> Option<NewDelivery> {
        let user = match self.store.user_by_id(e.user_id).await {
            Ok(Some(u)) => u.user,
            Ok(None) => return None,
            Err(err) => {
                tracing::warn!(error = %err, "could not read the person to e-mail");
                return None;
            }
        };
        let base = self.public_url.as_str().trim_end_matches('/');
        let answers: Vec<(String, String)> = links::offered(e)
            .unwrap_or_default()
            .into_iter()
            .map(|(label, link)| (label, format!("{base}/answer/{}", link.seal(&self.keys))))
            .collect();
        Some(NewDelivery {
            id: Uuid::now_v7(),
            org_id: e.org_id,
            channel: NotifyChannel::Email,
            webhook_id: None,
            user_id: Some(e.user_id),
            push_device_id: None,
            elicitation_id: Some(e.id),
            event,
            payload: email::payload(e, &user, event, &self.public_url, &answers),
            created_at: OffsetDateTime::now_utc(),
        })
    }

    fn push_delivery(
        &self,
        e: &Elicitation,
        device: Uuid,
        event: NotifyEvent,
        payload: serde_json::Value,
    ) -> NewDelivery {
        NewDelivery {
            id: Uuid::now_v7(),
            org_id: e.org_id,
            channel: NotifyChannel::Push,
            webhook_id: None,
            user_id: Some(e.user_id),
            push_device_id: Some(device),
            elicitation_id: Some(e.id),
            event,
            payload,
            created_at: OffsetDateTime::now_utc(),
        }
    }

    /// Queues `event` about `e` for each of the org's webhooks that wants it;
    /// returns whether the org has any webhook at all.
    async fn enqueue_webhooks(&self, e: &Elicitation, event: NotifyEvent) -> bool {
        let hooks = match self.store.webhooks(e.org_id).await {
            Ok(hooks) => hooks,
            Err(err) => {
                tracing::warn!(error = %err, "could not read the organisation's webhooks");
                return true;
            }
        };
        let any = !hooks.is_empty();
        let hooks: Vec<_> =
            hooks.into_iter().filter(|h| h.events.iter().any(|name| name == event.as_str())).collect();
        if hooks.is_empty() {
            return any;
        }
        // The person asked, so a receiver can route the message (a Slack mention, a pager).
        let person = self.store.user_by_id(e.user_id).await.ok().flatten().map(|u| u.user);
        let now = OffsetDateTime::now_utc();
        let deliveries: Vec<NewDelivery> = hooks
            .iter()
            .map(|h| {
                let id = Uuid::now_v7();
                NewDelivery {
                    id,
                    org_id: e.org_id,
                    channel: NotifyChannel::Webhook,
                    webhook_id: Some(h.id),
                    user_id: Some(e.user_id),
                    push_device_id: None,
                    elicitation_id: Some(e.id),
                    event,
                    payload: webhooks::question_event(id, event, e, person.as_ref(), &self.public_url, now),
                    created_at: now,
                }
            })
            .collect();
        self.enqueue(&deliveries).await;
        true
    }

    async fn enqueue(&self, deliveries: &[NewDelivery]) -> bool {
        match self.store.enqueue_deliveries(deliveries).await {
            Ok(()) => {
                self.pump.wake();
                true
            }
            Err(e) => {
                tracing::warn!(error = %e, "could not queue a notification");
                false
            }
        }
    }

    /// The question ended: its follow-up stops, its unsent e-mails and
    /// pushes are withdrawn, the browsers it was pushed to have their
    /// notification replaced by how it ended, and the webhooks hear of it.
    async fn on_end(self: Arc<Self>, e: Elicitation) {
        if let Err(err) = self.store.withdraw_deliveries(e.id).await {
            tracing::warn!(error = %err, "could not withdraw a question's notifications");
        }
        match self.store.pushed_devices(e.id).await {
            Ok(devices) if !devices.is_empty() => {
                let now = OffsetDateTime::now_utc();
                let payload = serde_json::to_value(push::ended_push(&e, now)).expect("pushes serialize");
                let deliveries: Vec<NewDelivery> = devices
                    .into_iter()
                    .map(|d| self.push_delivery(&e, d, NotifyEvent::Ended, payload.clone()))
                    .collect();
                self.enqueue(&deliveries).await;
            }
            Ok(_) => {}
            Err(err) => tracing::warn!(error = %err, "could not read where a question was pushed"),
        }
        self.enqueue_webhooks(&e, NotifyEvent::Ended).await;
    }

    /// This replica is stopping: it no longer counts as anyone's dashboard.
    pub async fn stop(&self) {
        if let Err(e) = self.store.clear_presence(self.replica_id).await {
            tracing::warn!(error = %e, "could not clear this replica's presence rows");
        }
    }
}

/// Sleeps until `at`; `false` if stopped first.
async fn wait_until(at: OffsetDateTime, stop: &CancellationToken) -> bool {
    let wait = (at - OffsetDateTime::now_utc()).max(time::Duration::ZERO).unsigned_abs();
    tokio::select! {
        () = tokio::time::sleep(wait) => !stop.is_cancelled(),
        () = stop.cancelled() => false,
    }
}

impl Watcher for Notifier {
    fn opened(&self, e: &Elicitation) {
        let Some(notifier) = self.me.upgrade() else { return };
        let stop = CancellationToken::new();
        self.following.lock().expect("following lock").insert(e.id, stop.clone());
        // The entry stays until the question ends, so its ending is told even after the schedule ran out.
        tokio::spawn(notifier.follow(e.clone(), stop));
    }

    fn ended(&self, e: &Elicitation) {
        let Some(stop) = self.following.lock().expect("following lock").remove(&e.id) else { return };
        stop.cancel();
        if let Some(notifier) = self.me.upgrade() {
            tokio::spawn(notifier.on_end(e.clone()));
        }
    }

    fn orphan_ended(&self, e: &Elicitation) {
        // Its replica died with it: the webhooks and the browsers hear of the ending from here.
        if let Some(notifier) = self.me.upgrade() {
            tokio::spawn(notifier.on_end(e.clone()));
        }
    }
}
