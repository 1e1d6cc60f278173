//! Trains the detector's learned model (`src/credential/model.rs`) and
//! reports how it does.
//!
//! ```text
//! cargo run --release -p herald-policy --example train_credential_model -- \
//!     --out services/policy/src/credential/model.bin \
//!     services/policy/tests/corpus/credential_asks.jsonl \
//!     --eval services/policy/tests/corpus/held_out.jsonl
//! ```
//!
//! Every file before `--eval` is trained on; every file after it is only
//! measured (the model alone, at the detector's threshold). Without `--out`
//! nothing is written. The training is deterministic: the same files give the
//! same `model.bin`.

#[path = "../tests/corpus/entry.rs"]
#[allow(dead_code)] // the language and note are for the tests
mod entry;

use entry::{Entry, Label};
use herald_policy::credential::AskText;
use herald_policy::credential::model::{self, Model, Training};

fn main() {
    let mut out = None;
    let mut train = Vec::new();
    let mut eval = Vec::new();
    let mut evaluating = false;
    let mut training = Training::default();
    let mut logits = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--out" => out = Some(args.next().expect("--out takes a path")),
            "--eval" => evaluating = true,
            "--c" => training.c = number(args.next()),
            "--epochs" => training.epochs = number(args.next()),
            "--step" => training.step = number(args.next()),
            "--logits" => logits = Some(args.next().expect("--logits takes a path")),
            _ if evaluating => eval.push(arg),
            _ => train.push(arg),
        }
    }
    assert!(!train.is_empty(), "give at least one corpus to train on");

    let mut examples: Vec<(Vec<u32>, bool)> = Vec::new();
    let entries: Vec<Entry> = train.iter().flat_map(|path| read(path)).collect();
    let benign: Vec<&Entry> = entries.iter().filter(|e| e.label == Label::Benign).collect();
    for (i, e) in entries.iter().enumerate() {
        let ask = e.ask();
        // The same request with two more harmless fields (another benign
        // request's): longer requests are not more likely to ask, and an ask
        // with a form around it still asks.
        let mut padded = ask.clone();
        for other in [benign[i % benign.len()], benign[(i * 7 + 3) % benign.len()]] {
            if !std::ptr::eq(other, e) {
                padded.fields.extend(other.ask().fields);
            }
        }
        examples.push((model::features(&padded), e.label == Label::Ask));
        examples.push((model::features(&ask), e.label == Label::Ask));
        // A benign request's parts are benign too: its message alone, and
        // each field alone. Short texts have few n-grams, so that one strong
        // word (`code`, `token`) would otherwise decide them.
        if e.label == Label::Benign {
            let message = AskText { message: ask.message, fields: Vec::new() };
            examples.push((model::features(&message), false));
            for field in &ask.fields {
                let alone = AskText { message: "", fields: vec![field.clone()] };
                examples.push((model::features(&alone), false));
            }
        }
    }
    let trained = training.train(&examples);
    report("trained on", &train.iter().flat_map(|p| read(p)).collect::<Vec<_>>(), &trained);
    for path in &eval {
        report(path, &read(path), &trained);
    }
    if let Some(path) = logits {
        // One line per measured request, in order: for choosing thresholds.
        let lines: String = eval
            .iter()
            .flat_map(|p| read(p))
            .map(|e| format!("{} {}\n", trained.score(&e.ask()).logit, model::features(&e.ask()).len()))
            .collect();
        std::fs::write(&path, lines).unwrap_or_else(|e| panic!("writing {path}: {e}"));
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

fn report(what: &str, entries: &[Entry], model: &Model) {
    let (mut asks, mut caught, mut benign, mut alarms) = (0, 0, 0, 0);
    for e in entries {
        let ask = model.score(&e.ask()).logit >= model::ASK_AT;
        match e.label {
            Label::Ask => (asks, caught) = (asks + 1, caught + usize::from(ask)),
            Label::Benign => (benign, alarms) = (benign + 1, alarms + usize::from(ask)),
        }
    }
    println!("{what}: model alone caught {caught}/{asks}, false alarms {alarms}/{benign}");
}
