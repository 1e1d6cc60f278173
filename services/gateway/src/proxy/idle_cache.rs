//! A map whose entries go when nobody uses them.
//!
//! Herald keeps some things per (user, server, …) for as long as they are used: a 2026-07-28
//! agent's upstream link is the one today. Kept in a plain map, they stay until something retires
//! them, so a tenant with many people and servers piles them up. [`IdleCache`] remembers when each
//! entry was last used, gives back the ones unused for a while (`evict_idle`), and holds at most a
//! given number, giving back the least recently used on overflow. What it gives back is the
//! caller's to close: the cache only forgets. Time is passed in (`now`), never read, so the tests
//! need no clock and no sleeps.

use std::collections::HashMap;
use std::hash::Hash;
use std::time::{Duration, Instant};

/// Entries by key, each with its last use; at most `capacity` of them.
pub struct IdleCache<K, V> {
    entries: HashMap<K, Entry<V>>,
    capacity: usize,
    /// Counts uses: the order of last uses, without ties (equal `Instant`s are common).
    uses: u64,
}

struct Entry<V> {
    value: V,
    last_used: Instant,
    /// The value of `uses` at the last use: the smallest is the least recently used.
    order: u64,
}

impl<K: Eq + Hash, V: Clone> IdleCache<K, V> {
    /// An empty cache that holds at most `capacity` entries (at least one).
    pub fn new(capacity: usize) -> Self {
        Self { entries: HashMap::new(), capacity: capacity.max(1), uses: 0 }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entry under `key`, made by `make` if there is none, marked used at `now`. A new entry
    /// in a full cache pushes out the least recently used one, returned second for the caller to
    /// close.
    pub fn get_or_insert_with(&mut self, key: K, now: Instant, make: impl FnOnce() -> V) -> (V, Option<V>) {
        self.uses += 1;
        if let Some(entry) = self.entries.get_mut(&key) {
            entry.last_used = now;
            entry.order = self.uses;
            return (entry.value.clone(), None);
        }
        let pushed_out = if self.entries.len() >= self.capacity { self.take_least_recent() } else { None };
        let value = make();
        self.entries.insert(key, Entry { value: value.clone(), last_used: now, order: self.uses });
        (value, pushed_out)
    }

    /// Removes and returns the entries `which` picks.
    pub fn take_where(&mut self, which: impl Fn(&K, &V) -> bool) -> Vec<V> {
        self.entries.extract_if(|key, entry| which(key, &entry.value)).map(|(_, entry)| entry.value).collect()
    }

    /// Removes and returns every entry.
    pub fn drain(&mut self) -> Vec<V> {
        self.entries.drain().map(|(_, entry)| entry.value).collect()
    }

    /// Removes and returns the entries unused for `idle_for` at `now`. An entry `busy` says is in
    /// use right now (held by someone other than the cache) counts as used at `now` and stays: its
    /// idle time starts when it is let go, not when it was last looked up.
    pub fn evict_idle(&mut self, now: Instant, idle_for: Duration, busy: impl Fn(&V) -> bool) -> Vec<V> {
        for entry in self.entries.values_mut() {
            if busy(&entry.value) {
                entry.last_used = now;
            }
        }
        self.entries
            .extract_if(|_, entry| now.saturating_duration_since(entry.last_used) >= idle_for)
            .map(|(_, entry)| entry.value)
            .collect()
    }

    fn take_least_recent(&mut self) -> Option<V> {
        let oldest = self.entries.values().map(|entry| entry.order).min()?;
        self.entries.extract_if(|_, entry| entry.order == oldest).map(|(_, entry)| entry.value).next()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    const MINUTE: Duration = Duration::from_secs(60);

    fn sorted(mut values: Vec<&'static str>) -> Vec<&'static str> {
        values.sort_unstable();
        values
    }

    #[test]
    fn makes_an_entry_once_and_hands_out_the_same_value() {
        let now = Instant::now();
        let mut cache = IdleCache::new(10);
        let (first, pushed_out) = cache.get_or_insert_with("a", now, || Arc::new(1));
        assert!(pushed_out.is_none());
        let (again, _) = cache.get_or_insert_with("a", now, || unreachable!("the entry exists"));
        assert!(Arc::ptr_eq(&first, &again));
        assert_eq!(cache.len(), 1);
    }

    #[test]
    fn evicts_what_went_unused_for_the_idle_time_and_no_more() {
        let start = Instant::now();
        let mut cache = IdleCache::new(10);
        cache.get_or_insert_with("old", start, || "old");
        cache.get_or_insert_with("used", start, || "used");
        cache.get_or_insert_with("new", start + 5 * MINUTE, || "new");
        // A use is a touch: "used" starts its idle time again.
        cache.get_or_insert_with("used", start + 8 * MINUTE, || unreachable!());

        assert!(cache.evict_idle(start + 9 * MINUTE, 10 * MINUTE, |_| false).is_empty());
        assert_eq!(cache.evict_idle(start + 10 * MINUTE, 10 * MINUTE, |_| false), ["old"]);
        assert!(
            cache
                .evict_idle(start + 15 * MINUTE - Duration::from_nanos(1), 10 * MINUTE, |_| false)
                .is_empty()
        );
        assert_eq!(cache.evict_idle(start + 15 * MINUTE, 10 * MINUTE, |_| false), ["new"]);
        assert_eq!(cache.evict_idle(start + 18 * MINUTE, 10 * MINUTE, |_| false), ["used"]);
        assert!(cache.is_empty());
    }

    #[test]
    fn a_busy_entry_stays_and_its_idle_time_starts_when_it_is_let_go() {
        let start = Instant::now();
        let mut cache = IdleCache::new(10);
        let (held, _) = cache.get_or_insert_with("link", start, || Arc::new("link"));
        let busy = |v: &Arc<&str>| Arc::strong_count(v) > 1;
        assert!(cache.evict_idle(start + 60 * MINUTE, 10 * MINUTE, busy).is_empty());
        drop(held);
        // Last seen in use at minute 60: idle from then on.
        assert!(cache.evict_idle(start + 69 * MINUTE, 10 * MINUTE, busy).is_empty());
        assert_eq!(cache.evict_idle(start + 70 * MINUTE, 10 * MINUTE, busy).len(), 1);
    }

    #[test]
    fn a_clock_that_seems_to_go_back_evicts_nothing() {
        let start = Instant::now() + MINUTE;
        let mut cache = IdleCache::new(10);
        cache.get_or_insert_with("a", start, || "a");
        assert!(cache.evict_idle(start - MINUTE, Duration::from_secs(1), |_| false).is_empty());
    }

    #[test]
    fn over_capacity_the_least_recently_used_is_pushed_out() {
        let start = Instant::now();
        let mut cache = IdleCache::new(2);
        cache.get_or_insert_with("a", start, || "a");
        cache.get_or_insert_with("b", start, || "b");
        // Same instant, later use: "a" is now more recent than "b".
        cache.get_or_insert_with("a", start, || unreachable!());
        let (c, pushed_out) = cache.get_or_insert_with("c", start, || "c");
        assert_eq!((c, pushed_out), ("c", Some("b")));
        let (_, pushed_out) = cache.get_or_insert_with("d", start, || "d");
        assert_eq!(pushed_out, Some("a"));
        assert_eq!(cache.len(), 2);
        // A pushed-out key is made afresh.
        let (b, _) = cache.get_or_insert_with("b", start, || "b again");
        assert_eq!(b, "b again");
    }

    #[test]
    fn a_capacity_of_zero_still_holds_one() {
        let mut cache = IdleCache::new(0);
        let now = Instant::now();
        assert_eq!(cache.get_or_insert_with(1, now, || "one"), ("one", None));
        assert_eq!(cache.get_or_insert_with(2, now, || "two"), ("two", Some("one")));
    }

    #[test]
    fn take_where_and_drain_remove_what_they_return() {
        let now = Instant::now();
        let mut cache = IdleCache::new(10);
        for (key, value) in [(1, "one"), (2, "two"), (3, "three"), (4, "four")] {
            cache.get_or_insert_with(key, now, || value);
        }
        assert_eq!(sorted(cache.take_where(|key, _| key % 2 == 0)), ["four", "two"]);
        assert_eq!(sorted(cache.take_where(|_, value| *value == "one")), ["one"]);
        assert!(cache.take_where(|_, _| false).is_empty());
        assert_eq!(cache.len(), 1);
        assert_eq!(cache.drain(), ["three"]);
        assert!(cache.is_empty());
        let (three, _) = cache.get_or_insert_with(3, now, || "three again");
        assert_eq!(three, "three again");
    }
}
