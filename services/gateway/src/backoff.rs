//! Exponential back-off, written once.
//!
//! Herald waits ever longer between attempts in several places: opening the database at start-up,
//! re-reading an elicitation's ending while the database is away, re-subscribing to the other
//! replicas' events, re-opening a legacy server's GET stream, and the sign-in throttle's waits.
//! Each used to double its own delay by hand; [`Backoff`] is that arithmetic in one place, with
//! the cap and saturation (a doubling never overflows or panics) tested once.

use std::time::Duration;

/// Delays that start at `first` and double after each use, up to `max`.
#[derive(Debug, Clone)]
pub struct Backoff {
    first: Duration,
    max: Duration,
    current: Duration,
}

impl Backoff {
    /// Starts at `first` (or `max`, if that is shorter).
    pub fn new(first: Duration, max: Duration) -> Self {
        let first = first.min(max);
        Self { first, max, current: first }
    }

    /// The delay to wait now; the next call returns twice as much, at most `max`.
    #[allow(clippy::should_implement_trait)] // not an `Iterator`: there is always a next delay
    pub fn next(&mut self) -> Duration {
        let now = self.current;
        self.current = self.current.saturating_mul(2).min(self.max);
        now
    }

    /// Starts over: the next delay is `first` again (after a success).
    pub fn reset(&mut self) {
        self.current = self.first;
    }

    /// The `n`-th delay of a fresh back-off (counting from 0): `first` doubled `n` times, at most
    /// `max`, for any `n`.
    pub fn nth(first: Duration, max: Duration, n: u32) -> Duration {
        let doubled = match 2u32.checked_pow(n) {
            Some(factor) => first.saturating_mul(factor),
            None if first.is_zero() => Duration::ZERO,
            None => Duration::MAX,
        };
        doubled.min(max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn doubles_from_the_first_delay_up_to_the_cap() {
        let mut b = Backoff::new(MS * 250, Duration::from_secs(2));
        let delays: Vec<u128> = (0..7).map(|_| b.next().as_millis()).collect();
        assert_eq!(delays, [250, 500, 1000, 2000, 2000, 2000, 2000]);
    }

    #[test]
    fn a_cap_between_doublings_is_reached_exactly() {
        let mut b = Backoff::new(MS * 500, Duration::from_secs(30));
        let delays: Vec<u128> = (0..9).map(|_| b.next().as_millis()).collect();
        assert_eq!(delays, [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
    }

    #[test]
    fn reset_starts_over() {
        let mut b = Backoff::new(Duration::from_secs(1), Duration::from_secs(60));
        b.next();
        b.next();
        assert_eq!(b.next(), Duration::from_secs(4));
        b.reset();
        assert_eq!(b.next(), Duration::from_secs(1));
        assert_eq!(b.next(), Duration::from_secs(2));
    }

    #[test]
    fn never_overflows() {
        let mut b = Backoff::new(Duration::MAX / 3, Duration::MAX);
        for _ in 0..10 {
            b.next();
        }
        assert_eq!(b.next(), Duration::MAX);
        assert_eq!(Backoff::nth(Duration::from_secs(1), Duration::MAX, u32::MAX), Duration::MAX);
        assert_eq!(Backoff::nth(Duration::from_secs(1), Duration::MAX, 31), Duration::from_secs(1 << 31));
        assert_eq!(Backoff::nth(Duration::from_secs(1), Duration::MAX, 32), Duration::MAX);
        assert_eq!(Backoff::nth(Duration::ZERO, Duration::MAX, u32::MAX), Duration::ZERO);
    }

    #[test]
    fn nth_is_what_next_returns() {
        let (first, max) = (MS * 300, Duration::from_secs(40));
        let mut b = Backoff::new(first, max);
        for n in 0..40 {
            assert_eq!(b.next(), Backoff::nth(first, max, n), "delay {n}");
        }
        assert_eq!(Backoff::nth(first, max, u32::MAX), max);
    }

    #[test]
    fn a_first_delay_past_the_cap_is_the_cap() {
        let mut b = Backoff::new(Duration::from_secs(10), Duration::from_secs(3));
        assert_eq!(b.next(), Duration::from_secs(3));
        assert_eq!(b.next(), Duration::from_secs(3));
        assert_eq!(Backoff::nth(Duration::from_secs(10), Duration::from_secs(3), 0), Duration::from_secs(3));
    }
}
