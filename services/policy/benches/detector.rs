//! Speed of the credential-ask detector.
//!
//! `cargo bench -p herald-policy --bench detector` (release). Prints the
//! median time per request of `CredentialDetector::detect` on a typical
//! elicitation (a message of about 150 characters and 5 fields), benign
//! and fishing, and on a large one (100 fields), after a warm-up; and the
//! time to build a detector: the first one in a process compiles the
//! built-in rules, later ones only the policy's own terms. The goal: a
//! question is under 10 µs at the median: each question of the held-out set
//! (`tests/corpus/held_out.jsonl`, as servers wrote them) is timed on its
//! own, and the median and 90th percentile of those times are printed; the
//! typical requests above are larger than the median question.

use std::hint::black_box;
use std::time::{Duration, Instant};

use herald_policy::CredentialAskPolicy;
use herald_policy::credential::model::{self, Thresholds};
use herald_policy::credential::{AskText, CredentialDetector, FieldKind};
use requests::{field, typical_benign, typical_fishing};

mod requests;

#[path = "../tests/corpus/entry.rs"]
#[allow(dead_code)] // the label, language and note are for the tests
mod entry;

fn large(names: &[String]) -> AskText<'_> {
    let titles =
        ["First name", "Shipping address", "Preferred contact time", "Favourite colour", "Team size"];
    let descriptions = [
        Some("As printed on your ID"),
        None,
        Some("We will call you then"),
        None,
        Some("Including contractors"),
    ];
    let kinds = [FieldKind::Text, FieldKind::Text, FieldKind::Choice, FieldKind::Text, FieldKind::Number];
    AskText {
        message: "Please fill in the onboarding survey for the new workspace so that we can set everything up.",
        fields: names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let options =
                    if kinds[i % 5] == FieldKind::Choice { vec!["morning", "afternoon"] } else { vec![] };
                field(name, titles[i % 5], descriptions[i % 5], kinds[i % 5], options)
            })
            .collect(),
    }
}

/// Median nanoseconds per call of `f`, timed in batches of `batch` calls.
fn median_ns(mut f: impl FnMut(), batch: u32, warmup: Duration, samples: usize) -> f64 {
    let start = Instant::now();
    while start.elapsed() < warmup {
        f();
    }
    let mut times: Vec<f64> = (0..samples)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..batch {
                f();
            }
            t.elapsed().as_nanos() as f64 / f64::from(batch)
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn main() {
    let policy = CredentialAskPolicy::default();
    let first = Instant::now();
    let detector = CredentialDetector::new(&policy);
    let first_build = first.elapsed().as_nanos();
    let custom = CredentialAskPolicy {
        extra_terms: (0..20).map(|i| format!("internal badge {i}")).collect(),
        allow_terms: (0..20).map(|i| format!("demo password {i}")).collect(),
        ..CredentialAskPolicy::default()
    };
    let build = median_ns(
        || drop(black_box(CredentialDetector::new(black_box(&policy)))),
        1,
        Duration::from_millis(200),
        101,
    );
    let build_custom = median_ns(
        || drop(black_box(CredentialDetector::new(black_box(&custom)))),
        1,
        Duration::from_millis(200),
        101,
    );

    let benign = typical_benign();
    let fishing = typical_fishing();
    let names: Vec<String> = (0..100).map(|i| format!("field_{i}")).collect();
    let big = large(&names);
    assert!(detector.detect(&benign).is_empty(), "the benign request must stay benign");
    assert!(!detector.detect(&fishing).is_empty(), "the fishing request must be caught");
    assert!(detector.detect(&big).is_empty(), "the large request must stay benign");
    let chars = |a: &AskText<'_>| a.message.chars().count();

    let warmup = Duration::from_secs(1);
    let typical_benign = median_ns(|| drop(black_box(detector.detect(black_box(&benign)))), 64, warmup, 301);
    let typical_fishing =
        median_ns(|| drop(black_box(detector.detect(black_box(&fishing)))), 64, warmup, 301);
    let large = median_ns(|| drop(black_box(detector.detect(black_box(&big)))), 4, warmup, 301);
    // The same two requests read by the phrase rules alone and by the model
    // alone: what each part of `detect` costs.
    let thresholds = Thresholds::default();
    let rules_benign = median_ns(
        || drop(black_box(detector.detect_with(black_box(&benign), None, &thresholds))),
        64,
        warmup,
        301,
    );
    let model_benign = median_ns(
        || {
            black_box(model::builtin().score(black_box(&benign)));
        },
        64,
        warmup,
        301,
    );

    println!("first detector (compiles the built-in rules):    {first_build:>10} ns");
    println!("detector, default policy:                        {build:>10.0} ns");
    println!("detector, 20 extra + 20 allow terms:             {build_custom:>10.0} ns");
    println!(
        "typical benign  ({} chars, {} fields):            {typical_benign:>10.0} ns/request",
        chars(&benign),
        benign.fields.len()
    );
    println!(
        "typical fishing ({} chars, {} fields):            {typical_fishing:>10.0} ns/request",
        chars(&fishing),
        fishing.fields.len()
    );
    println!(
        "large           ({} chars, {} fields):           {large:>10.0} ns/request",
        chars(&big),
        big.fields.len()
    );
    println!("  of which the rules alone (benign):             {rules_benign:>10.0} ns/request");
    println!("  of which the learned model alone (benign):     {model_benign:>10.0} ns/request");

    // Each question of the held-out corpus on its own, for the median over
    // questions as they come.
    let corpus = entry::parse(include_str!("../tests/corpus/held_out.jsonl"));
    let mut per_question: Vec<f64> = corpus
        .iter()
        .map(|e| {
            let ask = e.ask();
            median_ns(|| drop(black_box(detector.detect(black_box(&ask)))), 16, Duration::from_millis(2), 15)
        })
        .collect();
    per_question.sort_by(f64::total_cmp);
    let at = |q: f64| per_question[((per_question.len() - 1) as f64 * q) as usize];
    println!(
        "median question of the held-out set ({}):        {:>10.0} ns/request",
        per_question.len(),
        at(0.5)
    );
    println!("90th percentile question of the held-out set:     {:>10.0} ns/request", at(0.9));
    let goal = 10_000.0;
    let met = |yes: bool| if yes { "met" } else { "NOT met" };
    println!(
        "goal < {goal:.0} ns at the median question: {}; typical requests under it: {}",
        met(at(0.5) < goal),
        met(typical_benign.max(typical_fishing) < goal)
    );
}
