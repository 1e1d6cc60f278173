//! Runs the credential-ask detector a fixed number of times on the
//! benchmark's typical benign and fishing requests, for counting
//! instructions: `valgrind --tool=callgrind target/release/examples/detector_calls benign 1000`
//! against the same with `0` gives the instructions per request. A third
//! argument, `rules` or `model`, runs only the phrase rules or only the
//! learned model.

use std::hint::black_box;

use herald_policy::CredentialAskPolicy;
use herald_policy::credential::CredentialDetector;
use herald_policy::credential::model::{self, Thresholds};

#[path = "../benches/requests/mod.rs"]
mod requests;
use requests::{typical_benign, typical_fishing};

fn main() {
    let mut args = std::env::args().skip(1);
    let which = args.next().unwrap_or_else(|| "benign".into());
    let n: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let detector = CredentialDetector::new(&CredentialAskPolicy::default());
    let ask = if which == "fishing" { typical_fishing() } else { typical_benign() };
    let part = args.next().unwrap_or_default();
    let thresholds = Thresholds::default();
    let mut hits = 0;
    for _ in 0..n {
        hits += match part.as_str() {
            "rules" => black_box(detector.detect_with(black_box(&ask), None, &thresholds)).len(),
            "model" => {
                usize::from(black_box(model::builtin().score(black_box(&ask))).logit >= thresholds.ask_at)
            }
            _ => black_box(detector.detect(black_box(&ask))).len(),
        };
    }
    println!("{which}: {n} requests, {hits} hits");
}
