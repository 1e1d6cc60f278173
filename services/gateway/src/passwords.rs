//! Password hashing and verification, bounded. Each argon2id run takes 19 MiB and tens of
//! milliseconds of a core; unbounded, 64 concurrent failed sign-ins took Herald from 368 to
//! 1,036 MiB. Here at most `concurrency` run at once (on the blocking pool), at most `queue`
//! callers wait for a slot, and none waits longer than [`MAX_WAIT`]; beyond that the caller is
//! told Herald is busy (503 with `Retry-After`) and nothing is hashed.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore, TryAcquireError};

use crate::crypto::password;
use crate::domain::Password;

/// The longest a sign-in waits for a hashing slot before it is answered 503.
pub const MAX_WAIT: Duration = Duration::from_secs(5);

/// What a caller that was not served should be told.
#[derive(Debug, thiserror::Error)]
pub enum HashError {
    /// Every slot is taken and the queue is full, or the wait was too long.
    #[error("every password hashing slot is busy")]
    Busy,
    #[error("password hashing failed: {0}")]
    Failed(#[from] tokio::task::JoinError),
}

pub struct Passwords {
    slots: Arc<Semaphore>,
    concurrency: usize,
    queue: usize,
    waiting: AtomicUsize,
    started: AtomicU64,
}

impl Passwords {
    pub fn new(concurrency: usize, queue: usize) -> Self {
        let concurrency = concurrency.max(1);
        Self {
            slots: Arc::new(Semaphore::new(concurrency)),
            concurrency,
            queue,
            waiting: AtomicUsize::new(0),
            started: AtomicU64::new(0),
        }
    }

    /// Waits (within the bounds) for a slot to hash or verify one password in.
    pub async fn slot(&self) -> Result<Slot<'_>, HashError> {
        let permit = match self.slots.clone().try_acquire_owned() {
            Ok(permit) => permit,
            Err(TryAcquireError::Closed) => unreachable!("the semaphore is never closed"),
            Err(TryAcquireError::NoPermits) => self.wait_for_slot().await?,
        };
        Ok(Slot { permit, started: &self.started })
    }

    /// A new password's PHC string.
    pub async fn hash(&self, plain: &Password) -> Result<String, HashError> {
        self.slot().await?.hash(plain).await
    }

    /// Whether `plain` matches `stored` (see [`Slot::verify`]).
    pub async fn verify(&self, plain: &str, stored: Option<String>) -> Result<bool, HashError> {
        self.slot().await?.verify(plain, stored).await
    }

    /// How many hashes and verifications have started since Herald did (the tests check that
    /// refused requests do none).
    pub fn work_started(&self) -> u64 {
        self.started.load(Ordering::Relaxed)
    }

    /// Takes every slot until the permit is dropped: lets a test see what callers are told
    /// when hashing is saturated, without timing anything.
    pub fn occupy_all(&self) -> OwnedSemaphorePermit {
        self.slots
            .clone()
            .try_acquire_many_owned(u32::try_from(self.concurrency).unwrap_or(u32::MAX))
            .expect("no slot is taken")
    }

    async fn wait_for_slot(&self) -> Result<OwnedSemaphorePermit, HashError> {
        if self.waiting.fetch_add(1, Ordering::AcqRel) >= self.queue {
            self.waiting.fetch_sub(1, Ordering::AcqRel);
            return Err(HashError::Busy);
        }
        let _waiting = Waiting(&self.waiting);
        match tokio::time::timeout(MAX_WAIT, self.slots.clone().acquire_owned()).await {
            Ok(Ok(permit)) => Ok(permit),
            _ => Err(HashError::Busy),
        }
    }
}

/// A hashing slot, held until the one hash or verification it is used for has finished.
pub struct Slot<'a> {
    permit: OwnedSemaphorePermit,
    started: &'a AtomicU64,
}

impl Slot<'_> {
    /// A new password's PHC string.
    pub async fn hash(self, plain: &Password) -> Result<String, HashError> {
        let plain = plain.expose().to_owned();
        self.run(move || password::hash(&plain)).await
    }

    /// Whether `plain` matches `stored`; with no stored hash (an unknown account) the same work
    /// is done against a dummy, so the answer's timing does not tell which accounts exist.
    pub async fn verify(self, plain: &str, stored: Option<String>) -> Result<bool, HashError> {
        let plain = plain.to_owned();
        self.run(move || match stored {
            Some(stored) => password::verify(&plain, &stored),
            None => {
                password::verify_against_nothing(&plain);
                false
            }
        })
        .await
    }

    async fn run<T: Send + 'static>(self, work: impl FnOnce() -> T + Send + 'static) -> Result<T, HashError> {
        self.started.fetch_add(1, Ordering::Relaxed);
        let permit = self.permit;
        // The permit travels with the work: a caller that gives up does not free the slot
        // before the 19 MiB it stands for are.
        Ok(tokio::task::spawn_blocking(move || {
            let _slot = permit;
            work()
        })
        .await?)
    }
}

/// One caller in the queue, for as long as it waits (even if its request is dropped).
struct Waiting<'a>(&'a AtomicUsize);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn saturated_hashing_refuses_without_working_and_frees_its_slots() {
        let passwords = Passwords::new(2, 0);
        let held = passwords.occupy_all();
        assert!(matches!(passwords.verify("a password", None).await, Err(HashError::Busy)));
        assert_eq!(passwords.work_started(), 0);
        drop(held);
        assert!(!passwords.verify("a password", None).await.unwrap());
        assert_eq!(passwords.work_started(), 1);
    }

    #[tokio::test]
    async fn a_caller_in_the_queue_is_served_when_a_slot_frees() {
        let passwords = Arc::new(Passwords::new(1, 1));
        let held = passwords.occupy_all();
        let waiting = tokio::spawn({
            let passwords = passwords.clone();
            async move { passwords.verify("a password", None).await }
        });
        // The queue holds one: wait until the spawned caller is in it, then a second is refused.
        while passwords.waiting.load(Ordering::Acquire) == 0 {
            tokio::task::yield_now().await;
        }
        assert!(matches!(passwords.verify("another", None).await, Err(HashError::Busy)));
        drop(held);
        assert!(!waiting.await.unwrap().unwrap());
        assert_eq!(passwords.work_started(), 1);
    }
}
