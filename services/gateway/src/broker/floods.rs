//! Automatic answers in bulk. A server may ask the same person a question
//! thousands of times a minute; the policy answers each one, but storing a
//! record and an audit entry for every one would let a single tenant's server
//! grow the database without bound. Per person, server and reason, the first
//! few automatic answers of each minute are recorded as usual; the rest are
//! answered without a record and counted, and the count is written as one
//! audit entry when the minute is over.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use uuid::Uuid;

/// The fewest questions a minute a server may ask one person before Herald
/// refuses more without looking at them (ten times the org's cap, at least this).
pub const MIN_FLOOD_LIMIT: u32 = 60;

/// Automatic answers recorded one by one per person, server and reason in a window.
pub const RECORDED_PER_WINDOW: u32 = 10;
/// The window.
pub const WINDOW: Duration = Duration::from_secs(60);
/// Windows kept at once; past this the oldest are summed up early.
const MAX_WINDOWS: usize = 10_000;

/// Org, person and server slug.
type AskedKey = (Uuid, Uuid, String);

/// Whose automatic answers are counted together.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FloodKey {
    pub org_id: Uuid,
    pub user_id: Uuid,
    pub server_slug: String,
    pub reason: &'static str,
}

struct Window {
    started: Instant,
    recorded: u32,
    unrecorded: u32,
}

/// A window that ended with answers left unrecorded: the summary to audit.
#[derive(Debug, PartialEq, Eq)]
pub struct Summary {
    pub key: FloodKey,
    pub unrecorded: u32,
}

#[derive(Default)]
pub struct Floods {
    answers: Mutex<HashMap<FloodKey, Window>>,
    /// Questions per person and server in the current window, before any other work.
    asked: Mutex<HashMap<AskedKey, (Instant, u32)>>,
}

impl Floods {
    /// Counts a question from `server_slug` to a person; `false` once more than
    /// `limit` arrived in the window on this replica. Checked before the
    /// question costs a database round trip.
    pub fn ask(&self, org_id: Uuid, user_id: Uuid, server_slug: &str, limit: u32, now: Instant) -> bool {
        let mut asked = self.asked.lock().expect("floods lock");
        if asked.len() >= MAX_WINDOWS {
            asked.retain(|_, (started, _)| now.duration_since(*started) < WINDOW);
        }
        let (started, count) = asked.entry((org_id, user_id, server_slug.to_owned())).or_insert((now, 0));
        if now.duration_since(*started) >= WINDOW {
            *started = now;
            *count = 0;
        }
        *count += 1;
        *count <= limit
    }

    /// Counts one automatic answer; `true` when it is recorded on its own.
    pub fn record_individually(&self, key: FloodKey, now: Instant) -> (bool, Vec<Summary>) {
        let mut windows = self.answers.lock().expect("floods lock");
        let mut ended = Vec::new();
        if windows.len() >= MAX_WINDOWS && !windows.contains_key(&key) {
            ended = take(&mut windows, |_| true);
        }
        let window =
            windows.entry(key.clone()).or_insert(Window { started: now, recorded: 0, unrecorded: 0 });
        if now.duration_since(window.started) >= WINDOW {
            if window.unrecorded > 0 {
                ended.push(Summary { key, unrecorded: window.unrecorded });
            }
            *window = Window { started: now, recorded: 0, unrecorded: 0 };
        }
        let individually = window.recorded < RECORDED_PER_WINDOW;
        if individually {
            window.recorded += 1;
        } else {
            window.unrecorded += 1;
        }
        (individually, ended)
    }

    /// Counts an answer that was never going to be recorded (a question
    /// refused before it was looked at) in its window's summary.
    pub fn count_unrecorded(&self, key: FloodKey, now: Instant) -> Vec<Summary> {
        let mut windows = self.answers.lock().expect("floods lock");
        let mut ended = Vec::new();
        let window =
            windows.entry(key.clone()).or_insert(Window { started: now, recorded: 0, unrecorded: 0 });
        if now.duration_since(window.started) >= WINDOW {
            if window.unrecorded > 0 {
                ended.push(Summary { key, unrecorded: window.unrecorded });
            }
            *window = Window { started: now, recorded: 0, unrecorded: 0 };
        }
        window.unrecorded += 1;
        ended
    }

    /// The windows over by `now` that left answers unrecorded (they are forgotten).
    pub fn ended(&self, now: Instant) -> Vec<Summary> {
        self.asked
            .lock()
            .expect("floods lock")
            .retain(|_, (started, _)| now.duration_since(*started) < WINDOW);
        take(&mut self.answers.lock().expect("floods lock"), |w| now.duration_since(w.started) >= WINDOW)
    }
}

fn take(windows: &mut HashMap<FloodKey, Window>, which: impl Fn(&Window) -> bool) -> Vec<Summary> {
    let keys: Vec<FloodKey> = windows.iter().filter(|(_, w)| which(w)).map(|(k, _)| k.clone()).collect();
    keys.into_iter()
        .filter_map(|key| {
            let window = windows.remove(&key)?;
            (window.unrecorded > 0).then_some(Summary { key, unrecorded: window.unrecorded })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(reason: &'static str) -> FloodKey {
        FloodKey { org_id: Uuid::nil(), user_id: Uuid::nil(), server_slug: "s".into(), reason }
    }

    #[test]
    fn the_first_answers_of_a_window_are_recorded_the_rest_summed_up_once() {
        let floods = Floods::default();
        let t0 = Instant::now();
        let recorded = (0..1000).filter(|_| floods.record_individually(key("rate_capped"), t0).0).count();
        assert_eq!(recorded, RECORDED_PER_WINDOW as usize);
        // Another reason is another count.
        assert!(floods.record_individually(key("muted"), t0).0);
        assert!(floods.ended(t0 + WINDOW / 2).is_empty(), "not over yet");
        let over = floods.ended(t0 + WINDOW);
        assert_eq!(over, vec![Summary { key: key("rate_capped"), unrecorded: 1000 - RECORDED_PER_WINDOW }]);
        assert!(floods.ended(t0 + WINDOW * 2).is_empty(), "summed up once");
    }

    #[test]
    fn questions_past_the_limit_of_a_window_are_refused_until_the_next() {
        let floods = Floods::default();
        let t0 = Instant::now();
        let allowed = (0..100).filter(|_| floods.ask(Uuid::nil(), Uuid::nil(), "s", 60, t0)).count();
        assert_eq!(allowed, 60);
        assert!(floods.ask(Uuid::nil(), Uuid::nil(), "other", 60, t0), "another server has its own count");
        assert!(floods.ask(Uuid::nil(), Uuid::nil(), "s", 60, t0 + WINDOW));
    }

    #[test]
    fn a_new_window_starts_recording_again_and_sums_up_the_last() {
        let floods = Floods::default();
        let t0 = Instant::now();
        for _ in 0..RECORDED_PER_WINDOW + 3 {
            floods.record_individually(key("rate_capped"), t0);
        }
        let (individually, ended) = floods.record_individually(key("rate_capped"), t0 + WINDOW);
        assert!(individually);
        assert_eq!(ended, vec![Summary { key: key("rate_capped"), unrecorded: 3 }]);
    }
}
