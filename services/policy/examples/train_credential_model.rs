//! Trains the detector's learned model (`src/credential/model.rs`) and
//! reports how the detector does with it.
//!
//! ```text
//! cargo run --release -p herald-policy --example train_credential_model -- \
//!     --out services/policy/src/credential/model.bin \
//!     services/policy/tests/corpus/credential_asks.jsonl \
//!     --eval services/policy/tests/corpus/held_out.jsonl
//! ```
//!
//! Every file before `--eval` is trained on; every file after it is only
//! measured: the rules alone, the model alone, and both as `detect` joins
//! them, at the shipped thresholds and at other probabilities for a request
//! to count as an ask on the model's word alone. Without `--out` nothing is
//! written. The training is deterministic: the same files give the same
//! `model.bin`. `--c`, `--epochs` and `--step` change the training; `--ask-at`,
//! `--doubt-below` (probabilities) and `--doubt-from` (n-grams) the thresholds measured;
//! `--show` lists what `detect` gets wrong in the measured files.

#[path = "../tests/corpus/entry.rs"]
#[allow(dead_code)] // the language and note are for the tests
mod entry;

use entry::{Entry, Label};
use herald_policy::CredentialAskPolicy;
use herald_policy::credential::model::{self, Model, Thresholds, Training};
use herald_policy::credential::{AskText, CredentialDetector};

fn main() {
    let mut out = None;
    let mut train = Vec::new();
    let mut eval = Vec::new();
    let mut evaluating = false;
    let mut show = false;
    let mut training = Training::default();
    let mut thresholds = Thresholds::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--out" => out = Some(args.next().expect("--out takes a path")),
            "--eval" => evaluating = true,
            "--show" => show = true,
            "--c" => training.c = number(args.next()),
            "--epochs" => training.epochs = number(args.next()),
            "--step" => training.step = number(args.next()),
            "--ask-at" => thresholds.ask_at = model::logit(number(args.next())),
            "--doubt-below" => thresholds.doubt_below = model::logit(number(args.next())),
            "--doubt-from" => thresholds.doubt_from_features = number(args.next()),
            _ if evaluating => eval.push(arg),
            _ => train.push(arg),
        }
    }
    assert!(!train.is_empty(), "give at least one corpus to train on");

    let entries: Vec<Entry> = train.iter().flat_map(|path| read(path)).collect();
    let labelled: Vec<(AskText<'_>, bool)> =
        entries.iter().map(|e| (e.ask(), e.label == Label::Ask)).collect();
    let trained = training.train(&model::examples(&labelled));
    let detector = CredentialDetector::new(&CredentialAskPolicy::default());
    report("trained on", &entries, &detector, &trained, &thresholds);
    for path in &eval {
        let measured = read(path);
        report(path, &measured, &detector, &trained, &thresholds);
        if show {
            wrong(&measured, &detector, &trained, &thresholds);
        }
    }
    if let Some(out) = out {
        std::fs::write(&out, trained.to_bytes()).unwrap_or_else(|e| panic!("writing {out}: {e}"));
        println!("wrote {out}");
    }
}

fn number<T: std::str::FromStr>(arg: Option<String>) -> T {
    arg.and_then(|a| a.parse().ok()).expect("a number")
}

fn read(path: &str) -> Vec<Entry> {
    entry::parse(&std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {path}: {e}")))
}

/// Asks caught and false alarms, as `caught/asks, alarms/benign`.
fn figures(entries: &[Entry], mut flags: impl FnMut(&AskText<'_>) -> bool) -> String {
    let (mut asks, mut caught, mut benign, mut alarms) = (0, 0, 0, 0);
    for e in entries {
        let flagged = flags(&e.ask());
        match e.label {
            Label::Ask => (asks, caught) = (asks + 1, caught + usize::from(flagged)),
            Label::Benign => (benign, alarms) = (benign + 1, alarms + usize::from(flagged)),
        }
    }
    format!("{caught}/{asks}, {alarms}/{benign}")
}

fn report(what: &str, entries: &[Entry], detector: &CredentialDetector, model: &Model, shipped: &Thresholds) {
    let shipped = *shipped;
    println!("{what}:");
    println!(
        "  rules alone        {}",
        figures(entries, |a| !detector.detect_with(a, None, &shipped).is_empty())
    );
    println!("  model alone        {}", figures(entries, |a| model.score(a).logit >= shipped.ask_at));
    println!(
        "  detect             {}",
        figures(entries, |a| !detector.detect_with(a, Some(model), &shipped).is_empty())
    );
    for p in [0.5, 0.6, 0.8, 0.9] {
        let other = Thresholds { ask_at: model::logit(p), ..shipped };
        println!(
            "  detect, ask at {p:.1} {}",
            figures(entries, |a| !detector.detect_with(a, Some(model), &other).is_empty())
        );
    }
}

/// Prints each missed ask and each false alarm, with the model's probability.
fn wrong(entries: &[Entry], detector: &CredentialDetector, model: &Model, thresholds: &Thresholds) {
    for e in entries {
        let flagged = !detector.detect_with(&e.ask(), Some(model), thresholds).is_empty();
        if flagged != (e.label == Label::Ask) {
            let p = model.score(&e.ask()).probability();
            let what = if flagged { "false alarm" } else { "missed" };
            println!("  {what} p={p:.2} [{}] {}: {}", e.lang, e.note, e.message);
        }
    }
}
