//! The elicitation broker: one record per elicitation, every ending one
//! compare-and-set in the database, and the wake-ups that carry an ending to
//! the suspended call that waits for it and to the user's dashboards.
//!
//! A call that meets an elicitation `open`s it (stored as pending, pushed to
//! dashboards) and awaits its `Waiter`. Whoever ends it — the person, the
//! deadline, the server, the caller, Herald — goes through `resolve`: the
//! database decides the one winner, and the winner's outcome is handed to the
//! waiter and announced to every dashboard.

pub mod events;
pub mod floods;
pub mod gate;
pub mod hub;
pub mod intake;
pub mod janitor;
pub mod notes;
pub mod question;
pub mod respond;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use time::OffsetDateTime;
use tokio::sync::oneshot;
use uuid::Uuid;

use crate::backoff::Backoff;
use crate::domain::outcome::{DecidedBy, Reason, cancelled};
use crate::lookup::Lookups;
use crate::replicas::{self, QuestionChange, QuestionEvent};
use crate::storage::questions::PendingOf;
use crate::storage::{Elicitation, Outcome, Store, StoreError};
use events::ServerEvent;
use herald_policy::OrgPolicy;
use herald_policy::decision::Rule;
use hub::Hub;
use question::{Circumstances, Origin, Question, Refused};

pub struct Broker {
    /// This process, as recorded on the elicitations it holds.
    pub replica_id: Uuid,
    pub hub: Hub,
    store: Arc<dyn Store>,
    /// Calls on this replica waiting for an elicitation to end, by its id (with its user).
    waiters: Mutex<HashMap<Uuid, (Uuid, oneshot::Sender<Elicitation>)>>,
    /// This replica's own heartbeats, for telling a database outage from dead replicas.
    liveness: std::sync::Mutex<janitor::Liveness>,
    /// The spans of the elicitations this replica opened, until they end.
    tracked: Mutex<HashMap<Uuid, crate::telemetry::elicitation::Tracked>>,
    /// Automatic answers counted per person, server and reason, so floods are not stored one by one.
    pub floods: floods::Floods,
    /// Membership, registration and policy, read as each question arrives.
    lookups: Arc<Lookups>,
    /// Development mode: the URL rules allow loopback addresses.
    development: bool,
    /// What follows each question beyond the dashboards (the notifier), once set.
    watcher: std::sync::OnceLock<Arc<dyn Watcher>>,
}

/// Follows questions beyond the dashboards: told when a question starts
/// waiting for its person on this replica, and of every ending this replica
/// learns (its own questions' and, over replica events, others').
pub trait Watcher: Send + Sync {
    /// This replica opened `e`.
    fn opened(&self, e: &Elicitation);
    /// `e`, one this replica may have opened, ended.
    fn ended(&self, e: &Elicitation);
    /// `e`, opened by a replica that died, was ended here (by the janitor):
    /// nobody else will tell of its ending.
    fn orphan_ended(&self, e: &Elicitation);
}

impl Broker {
    pub fn new(store: Arc<dyn Store>, lookups: Arc<Lookups>, development: bool) -> Arc<Self> {
        Arc::new(Self {
            lookups,
            development,
            replica_id: Uuid::new_v4(),
            hub: Hub::default(),
            store,
            waiters: Mutex::new(HashMap::new()),
            liveness: std::sync::Mutex::new(janitor::Liveness::default()),
            tracked: Mutex::new(HashMap::new()),
            floods: floods::Floods::default(),
            watcher: std::sync::OnceLock::new(),
        })
    }

    /// Sets what follows questions beyond the dashboards (once; later calls are ignored).
    pub fn watch(&self, watcher: Arc<dyn Watcher>) {
        let _ = self.watcher.set(watcher);
    }

    /// Takes in a question for a person, the one way in for every question:
    /// reads the circumstances now (is the person still a member, is the server
    /// still registered, the org's policy), refuses a server asking far past the
    /// org's cap before any further work, makes the record, and runs the policy
    /// gate. The waiter either waits for the person or already holds the policy's
    /// answer; either way it ends like any other question.
    pub async fn ask(self: &Arc<Self>, origin: &Origin, question: Question) -> Result<Waiter, Refused> {
        let now = self.circumstances(origin).await.map_err(Refused::Invalid)?;
        let refused = |why: String| {
            tracing::info!(server = %origin.server.slug, reason = %why, "question refused");
            Refused::Invalid(why)
        };
        self.within_flood_limit(&now).await.map_err(refused)?;
        let by_herald = question.asked_by_herald();
        let record = intake::intake(&now, question, self.replica_id).map_err(refused)?;
        let taken = if by_herald {
            // Herald's own question: the policy judges what servers propose, not this.
            self.open(record).await
        } else {
            gate::judge(self, &now, record).await
        };
        taken.map_err(|e| {
            tracing::error!(server = %origin.server.slug, error = %e, "could not store a question");
            Refused::Unrecorded
        })
    }

    /// The question's origin as things are now: each question is judged by the
    /// membership, registration and policy in force when it arrives (a call, or a
    /// link's standalone stream, may outlive a change). `Err` says why it may not be asked.
    async fn circumstances(&self, origin: &Origin) -> Result<Circumstances, String> {
        let member =
            self.lookups.is_member(origin.org_id, &origin.org_slug, origin.user_id).await.map_err(|e| {
                tracing::warn!(error = %e, "cannot confirm a membership");
                "the host could not confirm the person's membership".to_owned()
            })?;
        if !member {
            return Err("the person it would ask is no longer a member of this organisation".into());
        }
        let server = self
            .lookups
            .server(origin.org_id, &origin.server.slug)
            .await
            .map_err(|e| {
                tracing::warn!(error = %e, "cannot read the server's registration");
                "the host could not read the server's registration".to_owned()
            })?
            .filter(|s| s.id == origin.server.id)
            .ok_or_else(|| "the server is no longer registered".to_owned())?;
        let policy = self.lookups.policy(origin.org_id).await.unwrap_or_else(|e| {
            tracing::warn!(error = %e, "cannot read the org policy; using the defaults");
            OrgPolicy::default()
        });
        Ok(Circumstances {
            org_id: origin.org_id,
            org_slug: origin.org_slug.clone(),
            user_id: origin.user_id,
            tool: origin.tool.clone(),
            server,
            policy,
        })
    }

    /// A server asking far more often than the org's rate cap is refused before
    /// the question costs anything more: no record, no database round trip.
    async fn within_flood_limit(&self, now: &Circumstances) -> Result<(), String> {
        let limit =
            now.policy.rate_caps.per_user_server_per_minute.saturating_mul(10).max(floods::MIN_FLOOD_LIMIT);
        let at = std::time::Instant::now();
        if self.floods.ask(now.org_id, now.user_id, &now.server.slug, limit, at) {
            return Ok(());
        }
        let key = floods::FloodKey {
            org_id: now.org_id,
            user_id: now.user_id,
            server_slug: now.server.slug.clone(),
            reason: Rule::RateCapped.as_str(),
        };
        let ended = self.floods.count_unrecorded(key, at);
        gate::audit_floods(self.store.as_ref(), ended).await;
        Err(format!(
            "the server asked more than {limit} questions in a minute; Herald refuses more until the minute is over"
        ))
    }

    /// Ends the questions `ids` that are still pending: the call that asked them
    /// is over (or cannot go on), and says by whom and why.
    pub async fn end_all(&self, ids: impl IntoIterator<Item = Uuid>, by: DecidedBy, why: Reason) {
        let ending = cancelled(by, why);
        for id in ids {
            if let Err(e) = Box::pin(self.resolve(id, &ending)).await {
                tracing::warn!(elicitation_id = %id, error = %e, "could not end a question");
            }
        }
    }

    /// The person connected their account to `server_id`: Herald's questions asking them to
    /// (each waiting call's) end as answered, and the calls go on.
    pub async fn connected(&self, user_id: Uuid, server_id: Uuid) {
        let pending = match self.store.pending_elicitations_of_user(user_id).await {
            Ok(pending) => pending,
            Err(e) => {
                tracing::warn!(error = %e, "cannot list the questions a new connection answers");
                return;
            }
        };
        let ending = crate::domain::outcome::outcome(
            herald_mcp::ElicitAction::Accept,
            None,
            DecidedBy::User,
            Reason::Connected,
        );
        for e in pending
            .into_iter()
            .filter(|e| e.asked_by == crate::domain::AskedBy::Herald && e.server.id == Some(server_id))
        {
            if let Err(err) = self.resolve(e.id, &ending).await {
                tracing::warn!(elicitation_id = %e.id, error = %err, "could not end a question a connection answers");
            }
        }
    }

    /// Stores a new pending elicitation and shows it on the user's dashboards;
    /// the returned waiter resolves when it ends, however it ends.
    pub async fn open(self: &Arc<Self>, elicitation: Elicitation) -> Result<Waiter, StoreError> {
        let (tx, rx) = oneshot::channel();
        // Registered before the record exists, so no answer can slip past.
        self.waiters.lock().expect("waiters lock").insert(elicitation.id, (elicitation.user_id, tx));
        if let Err(e) = self.store.create_elicitation(&elicitation).await {
            self.waiters.lock().expect("waiters lock").remove(&elicitation.id);
            return Err(e);
        }
        tracing::info!(
            elicitation_id = %elicitation.id, org = %elicitation.org_slug, server = %elicitation.server.slug,
            tool = elicitation.tool.as_deref().unwrap_or("-"), mode = %elicitation.mode, "elicitation pending"
        );
        let tracked = crate::telemetry::elicitation::opened(&elicitation);
        self.tracked.lock().expect("tracked lock").insert(elicitation.id, tracked);
        self.hub.publish(elicitation.user_id, elicitation.org_id, &ServerEvent::created(&elicitation));
        self.tell_replicas(QuestionChange::Created, elicitation.id, elicitation.user_id);
        if let Some(watcher) = self.watcher.get() {
            watcher.opened(&elicitation);
        }
        Ok(Waiter {
            broker: self.clone(),
            id: elicitation.id,
            user_id: elicitation.user_id,
            deadline: elicitation.expires_at,
            rx: Some(rx),
            answered: None,
        })
    }

    /// Stores an elicitation the policy answered on the person's behalf (it is
    /// never shown); the waiter returns that answer at once.
    pub async fn record_answered(self: &Arc<Self>, elicitation: Elicitation) -> Result<Waiter, StoreError> {
        self.store.create_elicitation(&elicitation).await?;
        crate::telemetry::elicitation::answered_at_once(&elicitation);
        // The person's note about it, here and on every other replica.
        self.hub.publish(elicitation.user_id, elicitation.org_id, &ServerEvent::explained(&elicitation));
        self.tell_replicas(QuestionChange::Resolved, elicitation.id, elicitation.user_id);
        if let Some(outcome) = &elicitation.outcome {
            tracing::info!(
                elicitation_id = %elicitation.id, org = %elicitation.org_slug, server = %elicitation.server.slug,
                action = %outcome.action, reason = outcome.reason.map_or("-", |r| r.as_str()), "elicitation answered by policy"
            );
        }
        Ok(Waiter {
            broker: self.clone(),
            id: elicitation.id,
            user_id: elicitation.user_id,
            deadline: elicitation.expires_at,
            rx: None,
            answered: Some(elicitation),
        })
    }

    /// An elicitation the policy answered on the person's behalf, not stored
    /// (one of a flood, counted in its window's summary instead).
    pub fn answered_unrecorded(self: &Arc<Self>, elicitation: Elicitation) -> Waiter {
        Waiter {
            broker: self.clone(),
            id: elicitation.id,
            user_id: elicitation.user_id,
            deadline: elicitation.expires_at,
            rx: None,
            answered: Some(elicitation),
        }
    }

    /// Ends a pending elicitation if it still is; `None` if it had already ended.
    pub async fn resolve(&self, id: Uuid, outcome: &Outcome) -> Result<Option<Elicitation>, StoreError> {
        let resolved = self.store.resolve_elicitation(id, outcome).await?;
        if let Some(e) = &resolved {
            self.announce(e);
        }
        Ok(resolved)
    }

    /// Tells the waiting call and the user's dashboards, on every replica,
    /// that `e` has ended.
    pub fn announce(&self, e: &Elicitation) {
        self.deliver_ended(e);
        self.tell_replicas(QuestionChange::Resolved, e.id, e.user_id);
    }

    /// Ends of questions whose replica died: announced like any ending, and
    /// the watcher told that nobody followed them.
    pub fn announce_orphans(&self, ended: &[Elicitation]) {
        for e in ended {
            self.announce(e);
            if let Some(watcher) = self.watcher.get() {
                watcher.orphan_ended(e);
            }
        }
    }

    /// This replica's part of an ending: its waiter, its sockets.
    fn deliver_ended(&self, e: &Elicitation) {
        if let Some(outcome) = &e.outcome {
            tracing::info!(
                elicitation_id = %e.id, action = %outcome.action, decided_by = %outcome.decided_by,
                reason = outcome.reason.map_or("-", |r| r.as_str()), "elicitation ended"
            );
        }
        self.untrack(e);
        if let Some((_, tx)) = self.waiters.lock().expect("waiters lock").remove(&e.id) {
            let _ = tx.send(e.clone());
        }
        self.hub.publish(e.user_id, e.org_id, &ServerEvent::resolved(e));
        if outcome_is_the_policys(e) {
            self.hub.publish(e.user_id, e.org_id, &ServerEvent::explained(e));
        }
        if let Some(watcher) = self.watcher.get() {
            watcher.ended(e);
        }
    }

    /// Ends the span of an elicitation this replica opened (counted as it ends).
    fn untrack(&self, e: &Elicitation) {
        let Some(outcome) = &e.outcome else { return };
        let tracked = self.tracked.lock().expect("tracked lock").remove(&e.id);
        if let Some(tracked) = tracked {
            tracked.ended(outcome);
        }
    }

    /// This replica is stopping: ends every question it holds (the waiting
    /// calls then send the server a cancel and the agent its result, and the
    /// dashboards are told).
    pub async fn stop(&self) {
        let ending = cancelled(DecidedBy::System, Reason::Interrupted);
        match self.store.end_pending(PendingOf::Replica(self.replica_id), &ending).await {
            Ok(ended) => {
                if !ended.is_empty() {
                    tracing::info!(
                        count = ended.len(),
                        "shutting down: ended this replica's pending elicitations"
                    );
                }
                ended.iter().for_each(|e| self.announce(e));
            }
            Err(e) => tracing::warn!(error = %e, "shutting down: could not end pending elicitations"),
        }
    }

    /// Wakes the other replicas (PostgreSQL NOTIFY). The rows stay the truth:
    /// a replica that misses an event catches up from them.
    fn tell_replicas(&self, kind: QuestionChange, id: Uuid, user_id: Uuid) {
        replicas::tell_soon(&self.store, QuestionEvent { replica: self.replica_id, kind, id, user: user_id });
    }

    /// Another replica's event: show a new question on this replica's
    /// sockets, or end a question for this replica's waiter and sockets.
    pub async fn on_replica_event(&self, event: QuestionEvent) {
        if event.replica == self.replica_id {
            return;
        }
        match self.store.elicitation_of_user(event.user, event.id).await {
            Ok(Some(e)) => match (event.kind, &e.outcome) {
                (QuestionChange::NoteDismissed, _) => {
                    self.hub.publish(e.user_id, e.org_id, &ServerEvent::NoteDismissed { ids: vec![e.id] })
                }
                (QuestionChange::Created, None) => {
                    self.hub.publish(e.user_id, e.org_id, &ServerEvent::created(&e))
                }
                (_, Some(_)) => self.deliver_ended(&e),
                (QuestionChange::Resolved, None) => {}
            },
            Ok(None) => {}
            Err(e) => tracing::warn!(error = %e, "could not read the record of a replica event"),
        }
    }

    /// After the event feed was interrupted: whatever ended meanwhile is
    /// delivered to the waiters here from the rows.
    pub async fn resync(&self) {
        let waiting: Vec<(Uuid, Uuid)> =
            self.waiters.lock().expect("waiters lock").iter().map(|(id, (user, _))| (*id, *user)).collect();
        for (id, user) in waiting {
            if let Ok(Some(e)) = self.store.elicitation_of_user(user, id).await
                && e.outcome.is_some()
            {
                self.deliver_ended(&e);
            }
        }
    }

    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }
}

/// Whether the policy ended `e` (answered it for the person, or ended it while
/// shown): such endings are explained to the person in a note.
fn outcome_is_the_policys(e: &Elicitation) -> bool {
    e.outcome.as_ref().is_some_and(|o| o.decided_by == DecidedBy::Policy)
}

/// A suspended call's claim on one pending elicitation.
pub struct Waiter {
    broker: Arc<Broker>,
    pub id: Uuid,
    user_id: Uuid,
    deadline: OffsetDateTime,
    rx: Option<oneshot::Receiver<Elicitation>>,
    /// Set when the policy answered before anyone was asked.
    answered: Option<Elicitation>,
}

impl Waiter {
    /// Waits until the elicitation ends: answered, or its deadline passed,
    /// or ended by whoever calls `Broker::resolve` meanwhile.
    pub async fn ended(mut self) -> Elicitation {
        if let Some(answered) = self.answered.take() {
            return answered;
        }
        let mut rx = self.rx.take().expect("a waiter is awaited once");
        let until_deadline = (self.deadline - OffsetDateTime::now_utc()).max(time::Duration::ZERO);
        let sleep = tokio::time::sleep(until_deadline.unsigned_abs());
        tokio::select! {
            ended = &mut rx => {
                if let Ok(e) = ended {
                    return e;
                }
            }
            () = sleep => {
                let timeout = cancelled(DecidedBy::Timeout, Reason::Expired);
                if let Ok(Some(e)) = Box::pin(self.broker.resolve(self.id, &timeout)).await {
                    return e;
                }
            }
        }
        // Someone else ended it (possibly another replica): the row says how.
        // Boxed, as is the resolve above: a waiting waiter stays small.
        Box::pin(self.settled()).await
    }

    /// Reads the ending from the database, for endings that did not come
    /// through this replica's wake-up; retries while the database is away.
    async fn settled(&self) -> Elicitation {
        let mut delays =
            Backoff::new(std::time::Duration::from_millis(50), std::time::Duration::from_secs(2));
        loop {
            match self.broker.store.elicitation_of_user(self.user_id, self.id).await {
                Ok(Some(e)) if e.outcome.is_some() => {
                    self.broker.untrack(&e);
                    if let Some(watcher) = self.broker.watcher.get() {
                        watcher.ended(&e);
                    }
                    return e;
                }
                Ok(Some(_)) => {
                    // Still pending: the deadline's resolve failed; try it again.
                    let timeout = cancelled(DecidedBy::Timeout, Reason::Expired);
                    if let Ok(Some(e)) = Box::pin(self.broker.resolve(self.id, &timeout)).await {
                        return e;
                    }
                }
                _ => {}
            }
            tokio::time::sleep(delays.next()).await;
        }
    }
}

impl std::fmt::Debug for Waiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Waiter")
            .field("id", &self.id)
            .field("deadline", &self.deadline)
            .finish_non_exhaustive()
    }
}

impl Drop for Waiter {
    fn drop(&mut self) {
        self.broker.waiters.lock().expect("waiters lock").remove(&self.id);
    }
}
