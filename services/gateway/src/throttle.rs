//! The sign-in throttle: failed password checks are counted per account (by email, whether or
//! not an account has it) and per client address, in the database, so that every replica
//! counts alike. Past a free allowance (`HERALD_LOGIN_FAILURES_PER_ACCOUNT`, `…_PER_ADDRESS`)
//! each failure makes the next attempt under that key wait, twice as long each time (1 s, 2 s,
//! 4 s, … up to `HERALD_LOGIN_BACKOFF_MAX_SECS`). While a key waits, attempts are answered
//! `429` with `Retry-After` before any password is looked at: a throttled attempt costs one
//! indexed read, never a hash. A successful sign-in clears its account's count (not its
//! address's: an attacker's own account must not reset the address it sprays from). A key
//! quiet for `forget_after` starts over.
//!
//! A back-off that starts is recorded: for an account, in the audit log of every organisation
//! the account belongs to (`auth.sign_in_throttled`, by `system`, naming the member); for an
//! address, or an email with no account, in the log and the `herald_signin_blocks_total`
//! metric only, since no organisation owns them (and saying which emails have accounts would
//! be a leak of its own).

use std::net::IpAddr;
use std::time::Duration;

use time::OffsetDateTime;

use crate::app::AppState;
use crate::audit::{self, Subject};
use crate::backoff::Backoff;
use crate::config::LoginLimits;
use crate::problem::{ApiError, ApiResult};
use crate::storage::User;
use crate::telemetry::metrics::metrics;

/// The address as the throttle counts it: an IPv6 client usually holds a whole /64, so that
/// is what counts as one address.
pub fn throttle_scope(addr: IpAddr) -> IpAddr {
    match addr.to_canonical() {
        IpAddr::V6(v6) => IpAddr::V6((u128::from(v6) & !((1u128 << 64) - 1)).into()),
        v4 => v4,
    }
}

/// One sign-in attempt's two keys.
pub struct Attempt {
    account: Vec<u8>,
    address: Vec<u8>,
    client: IpAddr,
}

impl Attempt {
    /// The attempt to sign in as `email` (normalised) from `client`.
    pub fn new(state: &AppState, email: &str, client: IpAddr) -> Self {
        let scoped = throttle_scope(client);
        Self {
            account: state.keys.throttle_key("account", email.as_bytes()),
            address: state.keys.throttle_key("address", scoped.to_string().as_bytes()),
            client: scoped,
        }
    }

    fn keys(&self) -> [&[u8]; 2] {
        [&self.account, &self.address]
    }

    /// `429 too-many-attempts` while either key waits.
    pub async fn check(&self, state: &AppState) -> ApiResult<()> {
        let now = OffsetDateTime::now_utc();
        match state.store.login_blocked_until(self.keys(), now).await? {
            None => Ok(()),
            Some(until) => {
                metrics().limit_refusal("signin_throttled");
                let wait = (until - now).whole_milliseconds().max(0) as u64;
                Err(ApiError::TooManyAttempts { retry_after: wait.div_ceil(1000).max(1) })
            }
        }
    }

    /// Counts a wrong password under both keys, starts a back-off where the allowance is used
    /// up, and records it. `account` is the account the email belongs to, if any.
    pub async fn failed(&self, state: &AppState, account: Option<&User>) -> ApiResult<()> {
        let limits = &state.config.hardening.login;
        let now = OffsetDateTime::now_utc();
        let counts = state.store.record_login_failures(self.keys(), now, now - limits.forget_after).await?;
        let scopes = [("account", limits.failures_per_account), ("address", limits.failures_per_address)];
        for ((key, failures), (scope, free)) in self.keys().into_iter().zip(counts).zip(scopes) {
            let Some(wait) = backoff(limits, failures, free) else { continue };
            state.store.block_login(key, now + wait).await?;
            metrics().signin_block(scope);
            self.record_block(state, scope, failures, wait, account).await;
        }
        Ok(())
    }

    /// The account signed in: its failures are forgotten.
    pub async fn succeeded(&self, state: &AppState) -> ApiResult<()> {
        Ok(state.store.clear_login_failures(&self.account).await?)
    }

    async fn record_block(
        &self,
        state: &AppState,
        scope: &'static str,
        failures: i64,
        wait: Duration,
        account: Option<&User>,
    ) {
        let wait_secs = wait.as_secs();
        match (scope, account) {
            ("account", Some(user)) => {
                tracing::warn!(user_id = %user.id, failures, wait_secs, "sign-ins to an account are throttled");
                let memberships = match state.store.memberships(user.id).await {
                    Ok(m) => m,
                    Err(e) => {
                        tracing::error!(error = %e, "could not list the memberships to audit a throttled account");
                        return;
                    }
                };
                let details =
                    serde_json::json!({ "scope": scope, "failures": failures, "wait_secs": wait_secs });
                for membership in memberships {
                    audit::record(
                        state.store.as_ref(),
                        membership.org.id,
                        audit::Actor::System,
                        "auth.sign_in_throttled",
                        Subject {
                            user_id: Some(user.id),
                            details: Some(details.clone()),
                            ..Default::default()
                        },
                    )
                    .await;
                }
            }
            ("account", None) => {
                tracing::warn!(failures, wait_secs, "sign-ins to an email without an account are throttled");
            }
            _ => {
                tracing::warn!(client = %self.client, failures, wait_secs, "sign-ins from an address are throttled");
            }
        }
    }
}

/// The wait after the `failures`-th failure in a row under a key that allows `free`: none
/// before the allowance is used up, then the base, doubling with each further failure, capped.
pub fn backoff(limits: &LoginLimits, failures: i64, free: u32) -> Option<Duration> {
    let beyond = failures.checked_sub(i64::from(free))?;
    if beyond < 0 {
        return None;
    }
    let doublings = u32::try_from(beyond).unwrap_or(u32::MAX);
    Some(Backoff::nth(limits.backoff_base, limits.backoff_max, doublings))
}

/// Forgets keys that have been quiet long enough, every few minutes, for as long as Herald runs.
pub fn spawn_purge(state: &AppState) -> tokio::task::JoinHandle<()> {
    let state = state.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_secs(600));
        loop {
            every.tick().await;
            let now = OffsetDateTime::now_utc();
            let before = now - state.config.hardening.login.forget_after;
            if let Err(e) = state.store.purge_login_failures(before, now).await {
                tracing::debug!(error = %e, "could not purge old sign-in failures");
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv6_clients_count_by_their_64() {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        assert_eq!(throttle_scope(ip("2001:db8:1:2:3:4:5:6")), ip("2001:db8:1:2::"));
        assert_eq!(throttle_scope(ip("198.51.100.7")), ip("198.51.100.7"));
    }

    #[test]
    fn back_off_doubles_from_the_allowance_up_to_the_cap() {
        let limits = LoginLimits {
            failures_per_account: 5,
            failures_per_address: 20,
            backoff_base: Duration::from_secs(1),
            backoff_max: Duration::from_secs(900),
            forget_after: Duration::from_secs(3600),
        };
        let waits: Vec<Option<u64>> = (1..=16).map(|n| backoff(&limits, n, 5).map(|d| d.as_secs())).collect();
        assert_eq!(&waits[..4], &[None, None, None, None]);
        assert_eq!(
            &waits[4..],
            &[1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900].map(Some),
            "the 5th failure starts the back-off"
        );
        assert_eq!(backoff(&limits, i64::MAX, 5), Some(Duration::from_secs(900)));
        assert_eq!(backoff(&limits, 19, 20), None);
    }
}
