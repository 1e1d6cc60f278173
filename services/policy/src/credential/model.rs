//! The detector's second opinion: a logistic-regression model over the
//! character n-grams of a whole request, learned from the labelled corpus.
//!
//! Phrase rules catch what they name, in the languages they were written for;
//! blind test sets kept finding asks that describe a credential without naming
//! it ("what you type after your e-mail address", "the numbers the app
//! shows"), and each round's phrases caught the last set's wording but not the
//! next one's. A model over n-grams of two to five characters generalises over
//! spelling, inflection and script without anyone writing the phrases, and it
//! weighs the request as a whole: a message that mentions a password but asks
//! for a yes/no about policy reads differently from one that asks for it.
//!
//! How it is combined with the rules (in [`super::CredentialDetector::detect`]):
//! a request the rules say nothing about is an ask if the model is sure
//! ([`Thresholds`]) and a field can carry a secret back; a built-in rule's
//! hit stands unless the model is sure of the opposite in a request long
//! enough to judge. The organisation's own terms always stand, and forms of
//! more than [`MAX_FIELDS`] fields are left to the rules.
//!
//! Features: every word (split at white space, lower-cased) padded with a
//! space on each side gives its n-grams of 2–5 characters; each field adds
//! its kind. Each distinct n-gram is hashed into one of 2^[`BITS`] buckets,
//! and a request's features are those buckets, each weighing 1/√n. The
//! weights are trained by `examples/train_credential_model.rs` from the
//! tuning corpus and the sets written for training (`tests/corpus/`, see its
//! README) and stored in `model.bin` (16-bit weights and a scale); the
//! same functions featurise for training and for scoring, so the two cannot
//! drift apart.

use std::sync::OnceLock;

use super::{AskText, FieldKind, FieldPart, HitLocation};

/// Buckets: 2^17 weights of 16 bits, 256 KiB, which stay in the L2 cache.
pub const BITS: u32 = 17;
const BUCKETS: usize = 1 << BITS;
/// Shortest and longest n-gram, in characters.
const MIN_GRAM: usize = 2;
const MAX_GRAM: usize = 5;
/// Longest word read: a longer run of characters without a space (a pasted
/// token, a data URL) is read up to here, so that its cost is bounded.
const MAX_WORD_CHARS: usize = 48;
/// The largest form the model judges: it learned from forms of one to four
/// fields (and those with up to five harmless fields more, in training), and a
/// larger form reads to it like nothing it has seen (the reference servers'
/// thirteen-field demo form looked like an ask). Larger forms are left to the
/// rules, which read every field.
pub const MAX_FIELDS: usize = 8;

/// Where the model's say begins: log-odds for a request to count as an ask
/// on the model's word alone, and for a rule's hits to be dropped.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    /// At or above this, a request the rules found nothing in is an ask.
    pub ask_at: f32,
    /// Below this the model doubts a built-in rule's hits enough to drop
    /// them...
    pub doubt_below: f32,
    /// ...in a request of at least this many distinct n-grams. In a short
    /// one (`pa55word`, `Informe no app a sua senha.`) a few weights decide,
    /// and the rules, which read the words, know better.
    pub doubt_from_features: u32,
}

impl Default for Thresholds {
    /// Probability 0.7 to ask and 0.1 to doubt, from 120 n-grams. Measured
    /// with the model trained without sets 36–41 and on those six (1,200 asks,
    /// 1,200 benign requests): doubting from 0.1 rather than 0.05 dropped two
    /// false alarms of the rules for three asks; 0.7 was taken after ordinary
    /// questions of the test peers scored between 0.6 and 0.7 (`Still there?
    /// This question is withdrawn if it is not answered within 3 s.`: 0.65).
    /// See docs/performance.md.
    fn default() -> Self {
        Self { ask_at: 0.847_298, doubt_below: -2.197_225, doubt_from_features: 120 }
    }
}

/// The log-odds for a probability.
#[must_use]
pub fn logit(probability: f32) -> f32 {
    (probability / (1.0 - probability)).ln()
}

const MAGIC: &[u8; 8] = b"HRLDCM01";
static BUILTIN: &[u8] = include_bytes!("model.bin");

/// A trained model: one weight per bucket and a bias.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// One weight per bucket, in 16-bit steps of `scale`: half the memory of
    /// `f32`, and integer sums.
    steps: Box<[i16; BUCKETS]>,
    scale: f32,
    bias: f32,
}

/// What the model makes of a request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Score {
    /// The log-odds that the request asks for a credential.
    pub logit: f32,
    /// How many distinct features (n-grams and field kinds) the request has.
    pub features: u32,
}

impl Score {
    /// The probability that the request asks for a credential.
    #[must_use]
    pub fn probability(&self) -> f32 {
        1.0 / (1.0 + (-self.logit).exp())
    }
}

/// The model shipped with Herald, decoded once per process.
pub fn builtin() -> &'static Model {
    static MODEL: OnceLock<Model> = OnceLock::new();
    MODEL.get_or_init(|| Model::from_bytes(BUILTIN).expect("the shipped model.bin is well-formed"))
}

/// One text of a request and where it is.
struct Part<'a> {
    location: Loc<'a>,
    text: &'a str,
}

#[derive(Clone, Copy)]
enum Loc<'a> {
    Message,
    Field(&'a str, FieldPart),
}

impl Loc<'_> {
    fn to_location(self) -> HitLocation {
        match self {
            Loc::Message => HitLocation::Message,
            Loc::Field(name, part) => HitLocation::Field { name: name.to_owned(), part },
        }
    }
}

fn parts<'a>(ask: &'a AskText<'a>) -> impl Iterator<Item = Part<'a>> + 'a {
    let message = std::iter::once(Part { location: Loc::Message, text: ask.message });
    let fields = ask.fields.iter().take(MAX_FIELDS).flat_map(|f| {
        let at = move |part| move |text: &'a str| Part { location: Loc::Field(f.name, part), text };
        std::iter::once(at(FieldPart::Name)(f.name))
            .chain(f.title.map(at(FieldPart::Title)))
            .chain(f.description.map(at(FieldPart::Description)))
            .chain(f.enum_labels.iter().copied().map(at(FieldPart::EnumLabel)))
            .chain(f.enum_values.iter().copied().map(at(FieldPart::EnumValue)))
            .chain(f.format.map(at(FieldPart::Format)))
            .chain(f.default.as_deref().map(at(FieldPart::Default)))
    });
    message.chain(fields)
}

/// A bucket for a running hash: the high bits of one multiplication
/// (FNV's low bits alone collide too often).
#[inline]
fn bucket(h: u32) -> u32 {
    h.wrapping_mul(0x9e37_79b1) >> (32 - BITS)
}

fn kind_bucket(kind: FieldKind) -> u32 {
    bucket(0x6b69_6e64 ^ (kind as u32 + 1).wrapping_mul(0x9e37_79b9))
}

/// Calls `emit(bucket, word)` for every n-gram of `text`, where `word` counts
/// the words of `text` split at white space (`split_whitespace`'s order).
/// Inlined whole into its callers, so that what `emit` adds up stays in
/// registers rather than going through memory for every n-gram.
#[inline(always)]
fn grams(text: &str, mut emit: impl FnMut(u32, usize)) {
    let mut word: [char; MAX_WORD_CHARS + 2] = [' '; MAX_WORD_CHARS + 2];
    let mut len = 0; // characters in `word` after its leading space
    let mut index = 0;
    for c in text.chars() {
        if c.is_whitespace() {
            if len > 0 {
                word[len + 1] = ' ';
                word_grams(&word[..len + 2], index, &mut emit);
                index += 1;
                len = 0;
            }
            continue;
        }
        if len < MAX_WORD_CHARS {
            if c.is_ascii() {
                len += 1;
                word[len] = c.to_ascii_lowercase();
                continue;
            }
            for lower in c.to_lowercase() {
                if len < MAX_WORD_CHARS {
                    len += 1;
                    word[len] = lower;
                }
            }
        }
    }
    if len > 0 {
        word[len + 1] = ' ';
        word_grams(&word[..len + 2], index, &mut emit);
    }
}

/// The n-grams of one word, its spaces around it included.
#[inline(always)]
fn word_grams(word: &[char], index: usize, emit: &mut impl FnMut(u32, usize)) {
    for i in 0..word.len() - 1 {
        let mut h: u32 = 0x811c_9dc5;
        for (j, c) in word[i..].iter().take(MAX_GRAM).enumerate() {
            h = (h ^ *c as u32).wrapping_mul(0x0100_0193);
            if j + 1 >= MIN_GRAM {
                emit(bucket(h), index);
            }
        }
    }
}

/// Counts each bucket once per request: a bit per bucket, kept per thread
/// and cleared word by word where it was set, rather than 16 KiB zeroed on
/// the stack for every request (about 3k of the model's 51k instructions).
struct Seen {
    bits: Box<[u64; BUCKETS / 64]>,
    /// The words of `bits` that are not zero (at most all of them: a fixed
    /// array, so that marking one never calls out to grow it).
    touched: Box<[u16; BUCKETS / 64]>,
    touched_len: usize,
    count: u32,
}

impl Seen {
    fn new() -> Self {
        Self {
            bits: Box::new([0; BUCKETS / 64]),
            touched: Box::new([0; BUCKETS / 64]),
            touched_len: 0,
            count: 0,
        }
    }

    /// Whether `b` is new to this request (and now seen).
    #[inline(always)]
    fn first(&mut self, b: u32) -> bool {
        let (slot, bit) = ((b >> 6) as usize, 1u64 << (b & 63));
        let word = self.bits[slot];
        if word & bit != 0 {
            return false;
        }
        if word == 0 {
            #[allow(clippy::cast_possible_truncation)] // BUCKETS / 64 fits in u16
            let slot = slot as u16;
            self.touched[self.touched_len] = slot;
            self.touched_len += 1;
        }
        self.bits[slot] = word | bit;
        self.count += 1;
        true
    }

    fn clear(&mut self) {
        for &slot in &self.touched[..self.touched_len] {
            self.bits[slot as usize] = 0;
        }
        self.touched_len = 0;
        self.count = 0;
    }

    /// Runs `f` with this thread's (cleared) set.
    fn with<T>(f: impl FnOnce(&mut Self) -> T) -> T {
        thread_local! {
            static SEEN: std::cell::RefCell<Seen> = std::cell::RefCell::new(Seen::new());
        }
        SEEN.with(|seen| {
            // A re-entrant call (none today) gets a set of its own.
            let Ok(mut seen) = seen.try_borrow_mut() else { return f(&mut Seen::new()) };
            seen.clear();
            f(&mut seen)
        })
    }
}

/// The distinct buckets of a request, sorted: its features for training.
#[must_use]
pub fn features(ask: &AskText<'_>) -> Vec<u32> {
    let mut out = Vec::with_capacity(512);
    for part in parts(ask) {
        grams(part.text, |b, _| out.push(b));
    }
    out.extend(ask.fields.iter().take(MAX_FIELDS).map(|f| kind_bucket(f.kind)));
    out.sort_unstable();
    out.dedup();
    out
}

impl Model {
    /// Reads a model written by [`Model::to_bytes`].
    ///
    /// # Errors
    /// A text saying what is wrong with the bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, &'static str> {
        let header = 8 + 4 + 4 + 4;
        if bytes.len() != header + 2 * BUCKETS || &bytes[..8] != MAGIC {
            return Err("not a credential model of this version");
        }
        let word = |at: usize| [bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]];
        if u32::from_le_bytes(word(8)) != BITS {
            return Err("the model has another number of buckets");
        }
        let scale = f32::from_le_bytes(word(12));
        let bias = f32::from_le_bytes(word(16));
        let steps: Vec<i16> =
            bytes[header..].chunks_exact(2).map(|w| i16::from_le_bytes([w[0], w[1]])).collect();
        let steps =
            steps.into_boxed_slice().try_into().map_err(|_| "the model has another number of buckets")?;
        Ok(Self { steps, scale, bias })
    }

    /// The model as bytes: a header, then one 16-bit weight per bucket.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(20 + 2 * BUCKETS);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&BITS.to_le_bytes());
        out.extend_from_slice(&self.scale.to_le_bytes());
        out.extend_from_slice(&self.bias.to_le_bytes());
        for w in self.steps.iter() {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out
    }

    /// Scores a request: each distinct n-gram's weight, summed and scaled by
    /// the square root of their number.
    #[must_use]
    pub fn score(&self, ask: &AskText<'_>) -> Score {
        Seen::with(|seen| {
            let mut sum = 0i32;
            for part in parts(ask) {
                grams(part.text, |b, _| {
                    if seen.first(b) {
                        sum += i32::from(self.steps[b as usize]);
                    }
                });
            }
            for field in ask.fields.iter().take(MAX_FIELDS) {
                let b = kind_bucket(field.kind);
                if seen.first(b) {
                    sum += i32::from(self.steps[b as usize]);
                }
            }
            #[allow(clippy::cast_precision_loss)]
            let norm = if seen.count == 0 { 1.0 } else { (seen.count as f32).sqrt() };
            #[allow(clippy::cast_precision_loss)]
            let logit = self.bias + sum as f32 * self.scale / norm;
            Score { logit, features: seen.count }
        })
    }

    /// The word that weighs most towards an ask, and where it is: for the
    /// explanation of a hit (read again only then, to keep [`Model::score`]
    /// lean). `None` if no word weighs towards one.
    #[must_use]
    pub fn strongest(&self, ask: &AskText<'_>) -> Option<(HitLocation, String)> {
        let seen = &mut Seen::new();
        let mut best: Option<(i32, Loc<'_>, &str, usize)> = None;
        for part in parts(ask) {
            // Each word's weight, over the n-grams it is the first to bring.
            let mut words: Vec<i32> = Vec::new();
            grams(part.text, |b, index| {
                if index >= words.len() {
                    words.resize(index + 1, 0);
                }
                if seen.first(b) {
                    words[index] += i32::from(self.steps[b as usize]);
                }
            });
            for (index, &weight) in words.iter().enumerate() {
                if weight > 0 && best.is_none_or(|(w, ..)| weight > w) {
                    best = Some((weight, part.location, part.text, index));
                }
            }
        }
        let (_, location, text, index) = best?;
        let word = text.split_whitespace().nth(index)?;
        Some((location.to_location(), word.to_owned()))
    }
}

/// How many other benign requests' fields a request is also trained with.
const PADS: usize = 5;

/// What the model is trained on, from labelled requests (`true`: asks): each
/// request's [`features`], and more made from it that keep its label.
#[must_use]
pub fn examples(labelled: &[(AskText<'_>, bool)]) -> Vec<(Vec<u32>, bool)> {
    let benign: Vec<&AskText<'_>> = labelled.iter().filter(|(_, asks)| !asks).map(|(a, _)| a).collect();
    let mut out = Vec::with_capacity(labelled.len() * 4);
    for (i, (ask, asks)) in labelled.iter().enumerate() {
        out.push((features(ask), *asks));
        // The same request with two, and with five, other benign requests'
        // fields: a longer form is not likelier to ask, and an ask with a form
        // around it still asks.
        let mut padded = ask.clone();
        for k in 0..PADS {
            let Some(other) = benign.get((i * (2 * k + 1) + 3 * k) % benign.len().max(1)) else { break };
            if !std::ptr::eq(*other, ask) {
                padded.fields.extend(other.fields.iter().cloned());
            }
            if k == 1 || k + 1 == PADS {
                out.push((features(&padded), *asks));
            }
        }
        // A benign request's parts are benign too: its message alone, and
        // each field alone. Short texts have few n-grams, so that one strong
        // word (`code`, `token`) would otherwise decide them.
        if !asks {
            out.push((features(&AskText { message: ask.message, fields: Vec::new() }), false));
            for field in &ask.fields {
                out.push((features(&AskText { message: "", fields: vec![field.clone()] }), false));
            }
        }
    }
    out
}

/// How to train: logistic regression with an L2 penalty, by AdaGrad.
#[derive(Debug, Clone, Copy)]
pub struct Training {
    /// The inverse of the penalty's strength (as scikit-learn's `C`).
    pub c: f32,
    /// Passes over the examples.
    pub epochs: u32,
    /// AdaGrad's base step.
    pub step: f32,
}

impl Default for Training {
    /// `C` 128 (was 64 until round 18): with sets 50–54 trained on, it gave
    /// as many asks and fewer false alarms in both cross-validation folds
    /// (docs/performance.md, "Round 18").
    fn default() -> Self {
        Self { c: 128.0, epochs: 40, step: 2.0 }
    }
}

impl Training {
    /// Trains on `examples`: each a request's [`features`] and whether it asks.
    /// Deterministic: the same examples give the same model.
    #[must_use]
    pub fn train(&self, examples: &[(Vec<u32>, bool)]) -> Model {
        let mut weights = vec![0f32; BUCKETS];
        let mut squares = vec![1e-8f32; BUCKETS];
        let (mut bias, mut bias_squares) = (0f32, 1e-8f32);
        // The penalty is spread over the examples that have a feature, so that
        // each pass applies it once per feature, as the full objective does.
        let mut frequency = vec![0u32; BUCKETS];
        for (features, _) in examples {
            for &b in features {
                frequency[b as usize] += 1;
            }
        }
        let mut order: Vec<usize> = (0..examples.len()).collect();
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..self.epochs {
            // Fisher–Yates with xorshift: a fixed, seeded order per pass.
            for i in (1..order.len()).rev() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                #[allow(clippy::cast_possible_truncation)]
                order.swap(i, (state % (i as u64 + 1)) as usize);
            }
            for &i in &order {
                let (features, asks) = &examples[i];
                #[allow(clippy::cast_precision_loss)]
                let x = 1.0 / (features.len().max(1) as f32).sqrt();
                let z = bias + x * features.iter().map(|&b| weights[b as usize]).sum::<f32>();
                let p = 1.0 / (1.0 + (-z).exp());
                let error = p - if *asks { 1.0 } else { 0.0 };
                for &b in features {
                    let b = b as usize;
                    #[allow(clippy::cast_precision_loss)]
                    let g = error * x + weights[b] / (self.c * frequency[b] as f32);
                    squares[b] += g * g;
                    weights[b] -= self.step * g / squares[b].sqrt();
                }
                bias_squares += error * error;
                bias -= self.step * error / bias_squares.sqrt();
            }
        }
        // Stored in 16-bit steps: each weight rounded to the nearest, the
        // largest at the end of the range.
        let largest = weights.iter().fold(0f32, |m, w| m.max(w.abs()));
        let scale = if largest > 0.0 { largest / f32::from(i16::MAX) } else { 1.0 };
        #[allow(clippy::cast_possible_truncation)]
        let steps: Vec<i16> = weights.iter().map(|w| (w / scale).round() as i16).collect();
        let steps = steps.into_boxed_slice().try_into().expect("one weight per bucket");
        Model { steps, scale, bias }
    }
}
