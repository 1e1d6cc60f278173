//! Runs the shipped detector over a file of requests in the corpus format
//! (`tests/corpus/entry.rs`) and prints what it finds in each, with the
//! learned model's probability: for looking at requests one by one.
//!
//! ```text
//! cargo run --release -p herald-policy --example detect_file -- requests.jsonl
//! ```

#[path = "../tests/corpus/entry.rs"]
#[allow(dead_code)] // the language is for the tests
mod entry;

use herald_policy::CredentialAskPolicy;
use herald_policy::credential::CredentialDetector;
use herald_policy::credential::model::{self, Thresholds};

fn main() {
    let detector = CredentialDetector::new(&CredentialAskPolicy::default());
    for path in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
        for e in entry::parse(&text) {
            let ask = e.ask();
            let hits = detector.detect(&ask);
            let rules = detector.detect_with(&ask, None, &Thresholds::default()).len();
            let score = model::builtin().score(&ask);
            let verdict = if hits.is_empty() { "pass" } else { "ASK " };
            println!(
                "{verdict} p={:.2} n-grams={} rule hits={rules} [{:?}] {}: {}",
                score.probability(),
                score.features,
                e.label,
                e.note,
                e.message
            );
            for hit in &hits {
                println!("       {:?} {:?}: {}", hit.category, hit.matched, hit.explanation);
            }
        }
    }
}
