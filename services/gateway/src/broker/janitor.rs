//! Nothing stays pending forever: this replica's heartbeat, and the sweeps
//! that end what dead replicas left pending and what outlived its deadline
//! (normally the waiting call ends those itself; the sweep is the backstop).

use std::sync::Arc;
use std::time::Duration;

use time::OffsetDateTime;

use super::Broker;
use crate::domain::outcome::{DecidedBy, Reason, cancelled};
use crate::storage::questions::PendingOf;

pub const HEARTBEAT_EVERY: Duration = Duration::from_secs(5);
/// A replica silent for this long is dead.
pub const REPLICA_TIMEOUT: Duration = Duration::from_secs(15);
/// The waiting call gets this long past a deadline to end it itself.
const DEADLINE_GRACE: Duration = Duration::from_secs(5);

/// What a replica knows of its own heartbeats. When the database has been
/// unreachable, every replica's heartbeat stopped at once: for a while after it
/// comes back, a silent replica may be one that has not beaten again yet, not a
/// dead one, so only those already silent before the outage are judged dead.
#[derive(Debug, Default)]
pub struct Liveness {
    last_beat: Option<OffsetDateTime>,
    cut_off: bool,
    /// When heartbeats worked again, and the last one before they stopped.
    recovery: Option<(OffsetDateTime, OffsetDateTime)>,
}

impl Liveness {
    pub fn beat_failed(&mut self) {
        self.cut_off = true;
    }

    pub fn beat(&mut self, now: OffsetDateTime) {
        if self.cut_off
            && let Some(before) = self.last_beat
        {
            self.recovery = Some((now, before));
        }
        self.cut_off = false;
        self.last_beat = Some(now);
    }

    /// Replicas whose last heartbeat is older than this are dead.
    pub fn stale_before(&mut self, now: OffsetDateTime) -> OffsetDateTime {
        let normally = now - REPLICA_TIMEOUT;
        match self.recovery {
            Some((since, before)) if now - since < REPLICA_TIMEOUT => normally.min(before - REPLICA_TIMEOUT),
            _ => {
                self.recovery = None;
                normally
            }
        }
    }
}

/// One round: beat, then end what dead replicas and lapsed deadlines left.
/// On a single-process database every other replica is a previous run.
pub async fn sweep(broker: &Broker) {
    let store = broker.store();
    let now = OffsetDateTime::now_utc();
    if let Err(e) = store.heartbeat(broker.replica_id, now).await {
        tracing::warn!(error = %e, "heartbeat failed");
        broker.liveness.lock().unwrap_or_else(|p| p.into_inner()).beat_failed();
        return;
    }
    let stale_before = {
        let mut liveness = broker.liveness.lock().unwrap_or_else(|p| p.into_inner());
        liveness.beat(now);
        if store.single_process() { now } else { liveness.stale_before(now) }
    };
    let dead = PendingOf::DeadReplicas { alive: broker.replica_id, stale_before };
    match store.end_pending(dead, &cancelled(DecidedBy::System, Reason::Interrupted)).await {
        Ok(ended) => broker.announce_orphans(&ended),
        Err(e) => tracing::warn!(error = %e, "could not end elicitations of dead replicas"),
    }
    match store
        .end_pending(
            PendingOf::ExpiredBefore(now - DEADLINE_GRACE),
            &cancelled(DecidedBy::Timeout, Reason::Expired),
        )
        .await
    {
        Ok(ended) => ended.iter().for_each(|e| broker.announce(e)),
        Err(e) => tracing::warn!(error = %e, "could not end expired elicitations"),
    }
}

/// How often accepted content past its org's retention is erased, and
/// stale rate counters dropped.
const RETENTION_EVERY: u32 = 720; // sweeps: an hour

/// Forgets accepted answers' content past each org's retention period, rate
/// counters of windows long gone, agent sessions idle for a day, and
/// notification deliveries finished more than 30 days ago. Records
/// of who answered what stay.
pub async fn purge(broker: &Broker) {
    let store = broker.store();
    let now = OffsetDateTime::now_utc();
    let orgs = match store.org_ids().await {
        Ok(orgs) => orgs,
        Err(e) => return tracing::warn!(error = %e, "retention: cannot list organisations"),
    };
    for org_id in orgs {
        let days = match store.policy(org_id).await {
            Ok(Some(stored)) => serde_json::from_value::<herald_policy::OrgPolicy>(stored.document)
                .map(|p| p.retention.accepted_content_days)
                .unwrap_or_else(|_| herald_policy::OrgPolicy::default().retention.accepted_content_days),
            Ok(None) => herald_policy::OrgPolicy::default().retention.accepted_content_days,
            Err(e) => {
                tracing::warn!(error = %e, %org_id, "retention: cannot read the policy");
                continue;
            }
        };
        let before = now - time::Duration::days(i64::from(days));
        match store.purge_accepted_content(org_id, before).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(%org_id, erased = n, "retention: erased accepted content"),
            Err(e) => tracing::warn!(error = %e, %org_id, "retention: cannot erase accepted content"),
        }
    }
    if let Err(e) = store.purge_counters(now - time::Duration::hours(2)).await {
        tracing::warn!(error = %e, "cannot drop old rate counters");
    }
    let kept = time::Duration::days(crate::storage::notifications::DELIVERY_LOG_DAYS);
    match store.purge_deliveries(now - kept).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(forgotten = n, "forgot old notification deliveries"),
        Err(e) => tracing::warn!(error = %e, "cannot forget old notification deliveries"),
    }
    let idle = time::Duration::try_from(crate::storage::sessions::SESSION_IDLE).expect("a day fits");
    match store.purge_idle_agent_sessions(now - idle).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(forgotten = n, "forgot idle agent sessions"),
        Err(e) => tracing::warn!(error = %e, "cannot forget idle agent sessions"),
    }
}

/// Runs `sweep` now and then every `HEARTBEAT_EVERY`, and `purge` hourly,
/// until the broker is gone.
pub fn spawn(broker: &Arc<Broker>) -> tokio::task::JoinHandle<()> {
    let broker = Arc::downgrade(broker);
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(HEARTBEAT_EVERY);
        let mut round: u32 = 0;
        loop {
            ticks.tick().await;
            let Some(broker) = broker.upgrade() else { return };
            sweep(&broker).await;
            let ended = broker.floods.ended(std::time::Instant::now());
            super::gate::audit_floods(broker.store().as_ref(), ended).await;
            if round.is_multiple_of(RETENTION_EVERY) {
                purge(&broker).await;
            }
            round = round.wrapping_add(1);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn after_a_database_outage_silent_replicas_get_time_to_beat_again() {
        let t0 = OffsetDateTime::now_utc();
        let at = |secs: i64| t0 + time::Duration::seconds(secs);
        let mut liveness = Liveness::default();
        liveness.beat(at(0));
        assert_eq!(liveness.stale_before(at(0)), at(0) - REPLICA_TIMEOUT);
        // The database is unreachable for 30 s: every replica's heartbeat stops.
        liveness.beat_failed();
        liveness.beat(at(30));
        // Only replicas already silent before the outage are dead...
        assert_eq!(liveness.stale_before(at(30)), at(0) - REPLICA_TIMEOUT);
        assert_eq!(liveness.stale_before(at(44)), at(0) - REPLICA_TIMEOUT);
        // ...until the others have had a timeout's worth of time to beat again.
        assert_eq!(liveness.stale_before(at(45)), at(45) - REPLICA_TIMEOUT);
        assert_eq!(liveness.stale_before(at(50)), at(50) - REPLICA_TIMEOUT);
    }

    #[test]
    fn a_failed_first_heartbeat_is_no_outage_to_recover_from() {
        let now = OffsetDateTime::now_utc();
        let mut liveness = Liveness::default();
        liveness.beat_failed();
        liveness.beat(now);
        assert_eq!(liveness.stale_before(now), now - REPLICA_TIMEOUT);
    }
}
