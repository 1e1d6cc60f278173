//! Fingerprints of elicitation requests, for decline memory.
//!
//! Decline memory has to recognise a re-ask: the same server asking the same
//! question from the same tool, even when the wording changed trivially (case,
//! spacing, a fresh request id, a new timestamp, a trailing question mark).
//! This module turns the parts of a request into one canonical text; the
//! gateway hashes that text (SHA-256) and stores the hash.
//!
//! - [`normalize_message`] normalises the human-readable message and masks the
//!   parts that vary without changing the question (request ids, UUIDs,
//!   nonces and other long random tokens, timestamps, retry counters) with
//!   placeholders (`<id>`, `<time>`, `<n>`). What a person decides on stays
//!   as written: build and order numbers, amounts, quantities, file, branch
//!   and people's names, e-mail addresses and URLs, so declining "Deploy
//!   build 77?" does not decline "Deploy build 78?".
//! - [`canonical_schema`] writes the requested schema as canonical JSON without
//!   the keywords that only label or describe a field.
//! - [`fingerprint_text`] joins server, tool, normalised message and canonical
//!   schema into one unambiguous text.
//!
//! ```
//! use herald_policy::fingerprint::{fingerprint_text, normalize_message};
//!
//! assert_eq!(
//!     normalize_message("Approve  deployment #4521 of build a3f9c2e1d7 at 2025-03-05T12:30:00Z?"),
//!     "approve deployment #4521 of build a3f9c2e1d7 at <time>",
//! );
//! assert_eq!(
//!     normalize_message("Retry (request id 7f3k9x2m) attempt 2: refund 10 €?"),
//!     "retry (request id <id>) attempt <n>: refund 10 €",
//! );
//! assert_eq!(
//!     fingerprint_text("deploy-bot", Some("deploy"), "Deploy to production?", None),
//!     fingerprint_text("deploy-bot", Some("deploy"), "deploy to PRODUCTION", None),
//! );
//! ```

use std::fmt::Write as _;

use serde_json::{Map, Value};

/// Version tag at the start of every fingerprint text. Changing the
/// normalisation changes every fingerprint, so it changes this tag too.
const FINGERPRINT_VERSION: &str = "herald-fingerprint-v2";

/// The normal form of an elicitation message, for fingerprinting.
///
/// In order:
///
/// 1. Unicode lower-casing; every run of whitespace becomes one space,
///    invisible format characters (zero-width spaces and joiners, BOM, soft
///    hyphen) are dropped, and the ends are trimmed.
/// 2. Trailing sentence punctuation (`. ? ! , ; : …` and their full-width
///    forms) is stripped.
/// 3. Quoted strings (`"…"`, `'…'`, `` `…` ``, `“…”`, `‘…’`, `„…“`, `«…»`,
///    `「…」`) keep their content verbatim: they usually name the very thing the
///    question is about (a file, a branch), so a number inside them is part of
///    the question. Their quote marks are normalised to `"`. An apostrophe
///    inside a word (`don't`) does not open a quote.
/// 4. Outside quotes, only what varies without changing the question is
///    masked:
///    UUIDs → `<id>`; ISO 8601 dates and date-times, numeric dates
///    (`05/03/2025`, `5.3.2025`), clock times (`12:30`, `7pm`, `7 a.m.`),
///    written dates (`March 5, 2025`, `5th of March`, `Mon, Mar 5`) and a
///    number after `timestamp`, `ts` or `epoch` → `<time>`, where adjacent
///    times joined by spaces, commas, `at`, `on` or `-` and a trailing
///    `utc`/`gmt` make one `<time>`; the value after a request-id or nonce
///    word (`request id 7f3k9x2m`, `req-id: 42`, `nonce=…`, `trace id`,
///    `correlation id`, `idempotency key`, `session id`, `state=`), a
///    token prefixed `req_`, `nonce_`, `trace_` or `idem_`, and any other
///    run of 16 or more ASCII letters, digits and underscores that keeps
///    switching between letters and digits (random hex and base64 tokens)
///    → `<id>`, except an object id with its own prefix (`ch_…`, `cus_…`)
///    or a run right after a word naming what is decided on (`commit`,
///    `build`, `order`, `file`, `branch`, …); the number after `attempt`,
///    `retry` or `try` → `<n>`. Everything else stays: numbers (build and
///    order numbers, amounts, quantities), short hashes, file and branch
///    names, e-mail addresses and URLs (masked inside only as above).
#[must_use]
pub fn normalize_message(message: &str) -> String {
    let collapsed = collapse_whitespace(&message.to_lowercase());
    let trimmed = strip_trailing_punctuation(&collapsed);
    let mut out = String::with_capacity(trimmed.len());
    for segment in split_quoted(trimmed) {
        match segment {
            Segment::Plain(text) => out.push_str(&mask(text)),
            Segment::Quoted(text) => {
                out.push('"');
                out.push_str(text);
                out.push('"');
            }
        }
    }
    collapse_whitespace(&out)
}

/// The requested schema as canonical JSON text, for fingerprinting.
///
/// Object keys are sorted (by their UTF-8 bytes) at every level and no
/// whitespace is written. In schema positions, annotation-only keywords are
/// removed: `title`, `description`, `default`, `examples`, `deprecated`,
/// `readOnly`, `writeOnly`, `$comment`, `$schema`, `$id` and the legacy
/// `enumNames` labels. Property names are kept, including a property that
/// happens to be called `title`. Keywords whose value is a set are sorted
/// and de-duplicated: `required`, `enum`, `type` (as an array), and the
/// subschemas of `oneOf`, `anyOf` and `allOf`. Integral numbers are written
/// without a fraction, so `1.0` and `1` are the same.
///
/// Reordering, retitling or re-describing fields, or changing their default,
/// therefore leaves the text alone; adding, removing, renaming or retyping a
/// field, changing its constraints or format, or changing an enum's values
/// changes it.
#[must_use]
pub fn canonical_schema(schema: &Value) -> String {
    let mut out = String::new();
    write_schema(schema, &mut out);
    out
}

/// The canonical text the gateway hashes to fingerprint an elicitation.
///
/// The parts are the server (its slug, compared exactly), the tool (exactly;
/// `None` when the elicitation did not come from a tool call), the
/// [normalised message](normalize_message) and the
/// [canonical schema](canonical_schema) (`None` for URL mode). The text starts
/// with a version line and puts each part on its own line as
/// `name:byte_length:value`, or `name:-` for an absent part, so no two
/// different inputs produce the same text: a missing tool differs from an
/// empty one, and no part can run into the next.
#[must_use]
pub fn fingerprint_text(server: &str, tool: Option<&str>, message: &str, schema: Option<&Value>) -> String {
    let message = normalize_message(message);
    let schema = schema.map(canonical_schema);
    let mut out = String::from(FINGERPRINT_VERSION);
    push_part(&mut out, "server", Some(server));
    push_part(&mut out, "tool", tool);
    push_part(&mut out, "message", Some(&message));
    push_part(&mut out, "schema", schema.as_deref());
    out
}

fn push_part(out: &mut String, name: &str, value: Option<&str>) {
    match value {
        // Writing to a String cannot fail.
        Some(value) => {
            let _ = write!(out, "\n{name}:{}:{value}", value.len());
        }
        None => {
            let _ = write!(out, "\n{name}:-");
        }
    }
}

// --- whitespace and punctuation ------------------------------------------------

/// Characters that render as nothing and would otherwise let a reworded
/// message differ invisibly.
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{00AD}' | '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{2060}' | '\u{FEFF}')
}

fn collapse_whitespace(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    for c in text.chars() {
        if is_invisible(c) {
            continue;
        }
        if c.is_whitespace() {
            pending_space = true;
            continue;
        }
        if pending_space && !out.is_empty() {
            out.push(' ');
        }
        pending_space = false;
        out.push(c);
    }
    out
}

fn is_trailing_punctuation(c: char) -> bool {
    matches!(
        c,
        '.' | '?'
            | '!'
            | ','
            | ';'
            | ':'
            | '…'
            | '‼'
            | '⁇'
            | '⁈'
            | '⁉'
            | '。'
            | '？'
            | '！'
            | '，'
            | '；'
            | '：'
            | '、'
    )
}

fn strip_trailing_punctuation(text: &str) -> &str {
    text.trim_end_matches(|c: char| is_trailing_punctuation(c) || c.is_whitespace())
}

// --- quoted strings ------------------------------------------------------------

enum Segment<'a> {
    Plain(&'a str),
    Quoted(&'a str),
}

/// The closing marks a quote opened by `open` may end with.
fn closers(open: char) -> Option<&'static [char]> {
    Some(match open {
        '"' => &['"', '”'],
        '“' => &['”', '"', '“'],
        '„' => &['“', '”', '"'],
        '«' => &['»'],
        '‹' => &['›'],
        '\'' => &['\''],
        '‘' => &['’', '\''],
        '`' => &['`'],
        '「' => &['」'],
        '『' => &['』'],
        _ => return None,
    })
}

/// Single quotes double as apostrophes, so they only open at the start of a
/// word and only close at the end of one.
fn is_single_quote(c: char) -> bool {
    matches!(c, '\'' | '‘' | '’')
}

fn opens_at(chars: &[(usize, char)], i: usize) -> bool {
    let c = chars[i].1;
    if !is_single_quote(c) {
        return true;
    }
    let before_ok = i == 0 || !chars[i - 1].1.is_alphanumeric();
    let after_ok = chars.get(i + 1).is_some_and(|&(_, next)| !next.is_whitespace());
    before_ok && after_ok
}

fn closes_at(chars: &[(usize, char)], j: usize) -> bool {
    let c = chars[j].1;
    if !is_single_quote(c) {
        return true;
    }
    let before_ok = !chars[j - 1].1.is_whitespace();
    let after_ok = chars.get(j + 1).is_none_or(|&(_, next)| !next.is_alphanumeric());
    before_ok && after_ok
}

fn split_quoted(text: &str) -> Vec<Segment<'_>> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let end_of = |k: usize| chars.get(k).map_or(text.len(), |&(pos, _)| pos);
    let mut segments = Vec::new();
    let mut plain_start = 0;
    let mut i = 0;
    while i < chars.len() {
        let (pos, c) = chars[i];
        let close = closers(c).filter(|_| opens_at(&chars, i)).and_then(|ends| {
            (i + 1..chars.len()).find(|&j| ends.contains(&chars[j].1) && closes_at(&chars, j))
        });
        if let Some(j) = close {
            if plain_start < pos {
                segments.push(Segment::Plain(&text[plain_start..pos]));
            }
            segments.push(Segment::Quoted(&text[pos + c.len_utf8()..chars[j].0]));
            i = j + 1;
            plain_start = end_of(i);
        } else {
            i += 1;
        }
    }
    if plain_start < text.len() {
        segments.push(Segment::Plain(&text[plain_start..]));
    }
    segments
}

// --- masking -------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mask {
    Id,
    Time,
    /// A retry counter.
    Count,
}

impl Mask {
    fn placeholder(self) -> &'static str {
        match self {
            Mask::Id => "<id>",
            Mask::Time => "<time>",
            Mask::Count => "<n>",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Masked(Mask),
    Word(String),
    /// A digit run, kept as written; dates are recognised from these.
    Number(String),
    Other(char),
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether a match of `len` characters at the start of `s` ends a word.
fn ends_word(s: &[char], len: usize) -> bool {
    s.get(len).is_none_or(|&c| !is_word_char(c))
}

fn mask(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let tokens = merge_times(merge_written_dates(scan(&chars)));
    let mut out = String::with_capacity(text.len());
    for token in tokens {
        match token {
            Tok::Masked(mask) => out.push_str(mask.placeholder()),
            Tok::Word(word) | Tok::Number(word) => out.push_str(&word),
            Tok::Other(c) => out.push(c),
        }
    }
    out
}

fn scan(chars: &[char]) -> Vec<Tok> {
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let rest = &chars[i..];
        let word_start = i == 0 || !is_word_char(chars[i - 1]);
        if word_start && let Some((len, mask)) = match_masked(rest, context_before(&tokens)) {
            tokens.push(Tok::Masked(mask));
            i += len;
            continue;
        }
        let c = chars[i];
        if c.is_ascii_digit() {
            let len = number_len(rest);
            tokens.push(Tok::Number(rest[..len].iter().collect()));
            i += len;
        } else if c.is_alphanumeric() {
            let len = rest.iter().take_while(|c| c.is_alphanumeric() && !c.is_ascii_digit()).count();
            tokens.push(Tok::Word(rest[..len].iter().collect()));
            i += len;
        } else {
            tokens.push(Tok::Other(c));
            i += 1;
        }
    }
    tokens
}

/// What the words just before a value say it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Context {
    /// Nothing in particular.
    None,
    /// A request id, nonce or the like: the value is masked as `<id>`.
    RequestId,
    /// A timestamp: a number is masked as `<time>`.
    Timestamp,
    /// A retry counter: a number is masked as `<n>`.
    Attempt,
    /// Something a person decides on (`commit`, `build`, `order`): the
    /// value stays, however random it looks.
    Decided,
}

/// Words after which a value is a request id or a nonce.
const ID_WORDS: &[&str] =
    &["nonce", "requestid", "reqid", "traceid", "correlationid", "spanid", "idempotency"];
/// Words that, followed by `id` or `key`, make the value a request id.
const ID_OWNERS: &[&str] =
    &["request", "req", "trace", "correlation", "span", "idempotency", "session", "nonce"];
/// Words after which, with `=`, a value is a nonce (URL parameters).
const PARAM_WORDS: &[&str] = &["state", "challenge", "sig", "signature"];
/// Prefixes of request-id and nonce tokens (`req_…`).
const ID_PREFIXES: &[&str] = &["req", "request", "nonce", "trace", "idem", "idempotency"];
/// Words after which a number is a timestamp.
const TIME_WORDS: &[&str] = &["timestamp", "ts", "epoch"];
/// Words after which a number is a retry counter.
const ATTEMPT_WORDS: &[&str] = &["attempt", "retry", "try"];
/// Words naming what a person decides on; a value after them stays.
const DECIDED_WORDS: &[&str] = &[
    "commit",
    "sha",
    "build",
    "digest",
    "revision",
    "rev",
    "version",
    "release",
    "tag",
    "image",
    "artifact",
    "order",
    "invoice",
    "charge",
    "payment",
    "transaction",
    "refund",
    "file",
    "branch",
    "ticket",
    "issue",
    "customer",
    "account",
    "user",
    "job",
    "pr",
    "item",
    "product",
    "sku",
];

/// The context of a value starting after `tokens`: the last word before it,
/// across spaces and `:`, `=`, `#`, `-`, `_`, and across `id`/`key` after a
/// request-id word.
fn context_before(tokens: &[Tok]) -> Context {
    let mut equals = false;
    let mut words = tokens.iter().rev().filter(|t| {
        if let Tok::Other(c) = t {
            equals |= *c == '=';
        }
        !matches!(t, Tok::Other(' ' | ':' | '=' | '#' | '-' | '_'))
    });
    let Some(Tok::Word(last)) = words.next() else { return Context::None };
    let last = last.as_str();
    if matches!(last, "id" | "key" | "ids") {
        return match words.next() {
            Some(Tok::Word(owner)) if ID_OWNERS.contains(&owner.as_str()) => Context::RequestId,
            _ => Context::None,
        };
    }
    if ID_WORDS.contains(&last) || (equals && PARAM_WORDS.contains(&last)) {
        Context::RequestId
    } else if TIME_WORDS.contains(&last) {
        Context::Timestamp
    } else if ATTEMPT_WORDS.contains(&last) {
        Context::Attempt
    } else if DECIDED_WORDS.contains(&last) {
        Context::Decided
    } else {
        Context::None
    }
}

/// Tries every masked pattern at a word start, most specific first.
fn match_masked(s: &[char], context: Context) -> Option<(usize, Mask)> {
    if let Some(len) = uuid_len(s) {
        return Some((len, Mask::Id));
    }
    if let Some(len) = iso_date_len(s).or_else(|| numeric_date_len(s)).or_else(|| clock_len(s)) {
        return Some((len, Mask::Time));
    }
    let digits = digits_at(s, 0);
    match context {
        Context::RequestId => value_len(s).map(|len| (len, Mask::Id)),
        Context::Timestamp if digits >= 9 && ends_word(s, digits) => Some((digits, Mask::Time)),
        Context::Attempt if digits > 0 && ends_word(s, digits) => Some((digits, Mask::Count)),
        Context::Decided => None,
        _ => random_id_len(s).map(|len| (len, Mask::Id)),
    }
}

fn digits_at(s: &[char], at: usize) -> usize {
    s.get(at..).map_or(0, |rest| rest.iter().take_while(|c| c.is_ascii_digit()).count())
}

fn char_at(s: &[char], at: usize, expected: char) -> bool {
    s.get(at) == Some(&expected)
}

fn starts_with(s: &[char], prefix: &str) -> bool {
    let mut rest = s.iter();
    prefix.chars().all(|p| rest.next() == Some(&p))
}

/// `8-4-4-4-12` hex digits.
fn uuid_len(s: &[char]) -> Option<usize> {
    const LEN: usize = 36;
    if s.len() < LEN {
        return None;
    }
    let ok = s[..LEN]
        .iter()
        .enumerate()
        .all(|(k, c)| if matches!(k, 8 | 13 | 18 | 23) { *c == '-' } else { c.is_ascii_hexdigit() });
    (ok && ends_word(s, LEN)).then_some(LEN)
}

/// `yyyy-mm-dd`, optionally followed by `thh:mm[:ss[.fff]]` and a zone (the
/// message is lower-cased, so `T` and `Z` arrive as `t` and `z`).
fn iso_date_len(s: &[char]) -> Option<usize> {
    let date_ok = digits_at(s, 0) == 4
        && char_at(s, 4, '-')
        && digits_at(s, 5) == 2
        && char_at(s, 7, '-')
        && digits_at(s, 8) == 2;
    if !date_ok {
        return None;
    }
    let date_len = 10;
    if char_at(s, date_len, 't')
        && let Some(time) = hms_len(&s[date_len + 1..])
    {
        let end = date_len + 1 + time;
        let end = end + zone_len(&s[end..]);
        if ends_word(s, end) {
            return Some(end);
        }
    }
    ends_word(s, date_len).then_some(date_len)
}

/// `hh:mm[:ss[.fff]]` with a one- or two-digit hour.
fn hms_len(s: &[char]) -> Option<usize> {
    let hour = digits_at(s, 0);
    if !(1..=2).contains(&hour) || !char_at(s, hour, ':') || digits_at(s, hour + 1) != 2 {
        return None;
    }
    let mut end = hour + 3;
    if char_at(s, end, ':') && digits_at(s, end + 1) == 2 {
        end += 3;
        if char_at(s, end, '.') && digits_at(s, end + 1) > 0 {
            end += 1 + digits_at(s, end + 1);
        }
    }
    Some(end)
}

/// `z`, or `+hh`, `+hhmm`, `+hh:mm` (and with `-`), directly after a time.
fn zone_len(s: &[char]) -> usize {
    if char_at(s, 0, 'z') {
        return 1;
    }
    if !(char_at(s, 0, '+') || char_at(s, 0, '-')) || digits_at(s, 1) < 2 {
        return 0;
    }
    match digits_at(s, 1) {
        2 if char_at(s, 3, ':') && digits_at(s, 4) == 2 => 6,
        2 => 3,
        4 => 5,
        _ => 0,
    }
}

/// `dd/mm/yy[yy]`, `dd.mm.yyyy`, `dd-mm-yyyy` and `yyyy/mm/dd`, `yyyy.mm.dd`,
/// `yyyy-m-d` (one or two digits for day and month, the same separator
/// twice). A dotted date needs a four-digit year so version numbers stay
/// numbers.
fn numeric_date_len(s: &[char]) -> Option<usize> {
    let first = digits_at(s, 0);
    let sep = *s.get(first)?;
    if !matches!(sep, '/' | '.' | '-') {
        return None;
    }
    let second = digits_at(s, first + 1);
    let third_at = first + 1 + second + 1;
    if !(1..=2).contains(&second) || !char_at(s, third_at - 1, sep) {
        return None;
    }
    let third = digits_at(s, third_at);
    let year_first = first == 4 && (1..=2).contains(&third);
    let year_last = (1..=2).contains(&first) && (third == 4 || (third == 2 && sep == '/'));
    let end = third_at + third;
    let followed_by_more = char_at(s, end, sep) && digits_at(s, end + 1) > 0;
    ((year_first || year_last) && !followed_by_more && ends_word(s, end)).then_some(end)
}

/// `am`, `pm`, `a.m.`, `p.m.` (the last dot may have been stripped as
/// trailing punctuation).
fn meridiem_len(s: &[char]) -> Option<usize> {
    if !(char_at(s, 0, 'a') || char_at(s, 0, 'p')) {
        return None;
    }
    let len = if char_at(s, 1, 'm') {
        2
    } else if char_at(s, 1, '.') && char_at(s, 2, 'm') {
        if char_at(s, 3, '.') { 4 } else { 3 }
    } else {
        return None;
    };
    let boundary = s.get(len).is_none_or(|&c| !c.is_alphanumeric());
    boundary.then_some(len)
}

/// `12:30`, `9:05:10`, `12:30pm`, `12:30 pm`, `7pm`, `7 p.m.`, optionally with
/// a numeric zone right after the time.
fn clock_len(s: &[char]) -> Option<usize> {
    let meridiem_after = |at: usize| {
        let gap = usize::from(char_at(s, at, ' '));
        meridiem_len(&s[at + gap..]).map(|len| at + gap + len)
    };
    if let Some(time) = hms_len(s) {
        if let Some(end) = meridiem_after(time) {
            return Some(end);
        }
        let end = time + zone_len(&s[time..]);
        return ends_word(s, end).then_some(end);
    }
    let hour = digits_at(s, 0);
    if !(1..=2).contains(&hour) {
        return None;
    }
    meridiem_after(hour)
}

/// A value after a request-id word: a run of ASCII letters, digits, `_` and
/// `-` that holds a digit or is at least 8 long.
fn value_len(s: &[char]) -> Option<usize> {
    let mut len = s.iter().take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-')).count();
    while len > 0 && matches!(s[len - 1], '_' | '-') {
        len -= 1;
    }
    let run = &s[..len];
    (len > 0 && (run.iter().any(char::is_ascii_digit) || len >= 8) && ends_word(s, len)).then_some(len)
}

/// A random-looking token: a request-id prefix and a tail (`req_8f2k3j`),
/// or 16 or more ASCII letters, digits and underscores that switch between
/// letters and digits at least four times (hex digests, base64 nonces), and
/// not an object id with a prefix of its own (`ch_3MtwBwLkdIwHu7ix`).
fn random_id_len(s: &[char]) -> Option<usize> {
    let len = s.iter().take_while(|c| c.is_ascii_alphanumeric() || **c == '_').count();
    if len == 0 || !ends_word(s, len) {
        return None;
    }
    let run = &s[..len];
    let prefix = run.iter().take_while(|c| c.is_ascii_alphabetic()).count();
    if prefix < len && run[prefix] == '_' && (1..=11).contains(&prefix) {
        let name: String = run[..prefix].iter().collect();
        let tail = len - prefix - 1;
        return (ID_PREFIXES.contains(&name.as_str()) && tail >= 4).then_some(len);
    }
    let switches = run.windows(2).filter(|w| w[0].is_ascii_digit() != w[1].is_ascii_digit()).count();
    (len >= 16 && switches >= 4).then_some(len)
}

/// Digits with `,`/`.` group or decimal separators and an optional ordinal
/// suffix. Called on a digit.
fn number_len(s: &[char]) -> usize {
    let mut end = digits_at(s, 0);
    while matches!(s.get(end), Some(',' | '.')) && digits_at(s, end + 1) > 0 {
        end += 1 + digits_at(s, end + 1);
    }
    for suffix in ["st", "nd", "rd", "th"] {
        if starts_with(&s[end..], suffix) && ends_word(s, end + 2) {
            return end + 2;
        }
    }
    end
}

// --- merging dates and times ---------------------------------------------------

const MONTHS: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
];

const WEEKDAYS: &[&str] = &["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];

/// Weekday abbreviations; several are also ordinary words (`sun`, `sat`,
/// `wed`), so they only join a time across spaces and commas.
const WEEKDAY_ABBREVIATIONS: &[&str] =
    &["mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun"];

fn is_word(token: &Tok, words: &[&str]) -> bool {
    matches!(token, Tok::Word(word) if words.contains(&word.as_str()))
}

/// Tokens that may sit between a month name and its day or year.
fn is_date_joiner(token: &Tok) -> bool {
    matches!(token, Tok::Other(' ' | ',' | '.')) || is_word(token, &["of", "the"])
}

/// Tokens that may sit between two parts of one point in time.
fn is_time_joiner(token: &Tok) -> bool {
    matches!(token, Tok::Other(' ' | ',' | '-')) || is_word(token, &["at", "on"])
}

/// Index of the first token from `from` (walking by `step`) that is not a
/// joiner, if it is a number.
fn number_across_joiners(tokens: &[Tok], from: usize, forward: bool) -> Option<usize> {
    let mut k = from;
    loop {
        let token = tokens.get(k)?;
        if matches!(token, Tok::Number(_)) {
            return Some(k);
        }
        if !is_date_joiner(token) {
            return None;
        }
        k = if forward { k + 1 } else { k.checked_sub(1)? };
    }
}

/// A month name next to a day or year number (`march 5, 2025`, `5th of
/// march`, `mar. 2025`) becomes one `<time>`. A month name alone (`may`) is
/// left as a word.
fn merge_written_dates(tokens: Vec<Tok>) -> Vec<Tok> {
    let mut out: Vec<Tok> = Vec::with_capacity(tokens.len());
    let mut k = 0;
    while k < tokens.len() {
        if !is_word(&tokens[k], MONTHS) {
            out.push(tokens[k].clone());
            k += 1;
            continue;
        }
        let mut end = k;
        if let Some(day) = number_across_joiners(&tokens, k + 1, true) {
            end = day;
            if let Some(year) = number_across_joiners(&tokens, day + 1, true) {
                end = year;
            }
        }
        // A number before the month (`5th of march`) was already emitted;
        // `may` takes only a number after it (`build 77, may I?`).
        let emitted_start = out.len();
        let before = emitted_start
            .checked_sub(1)
            .filter(|_| !is_word(&tokens[k], &["may"]))
            .and_then(|last| number_across_joiners(&out, last, false));
        if let Some(start) = before {
            out.truncate(start);
        } else if end == k {
            out.push(tokens[k].clone());
            k += 1;
            continue;
        }
        out.push(Tok::Masked(Mask::Time));
        k = end + 1;
    }
    out
}

/// Joins the pieces of one point in time: `<time> at <time>`, `<time>,
/// <time>`, a weekday name before a time, and a `utc`/`gmt` after one.
fn merge_times(mut tokens: Vec<Tok>) -> Vec<Tok> {
    let time = Tok::Masked(Mask::Time);
    let mut out: Vec<Tok> = Vec::with_capacity(tokens.len());
    let mut k = 0;
    while k < tokens.len() {
        let is_time = tokens[k] == time;
        let abbreviation = is_word(&tokens[k], WEEKDAY_ABBREVIATIONS);
        if is_time || abbreviation || is_word(&tokens[k], WEEKDAYS) {
            let joiner = |t: &Tok| {
                if abbreviation { matches!(t, Tok::Other(' ' | ',')) } else { is_time_joiner(t) }
            };
            let next = (k + 1..tokens.len()).find(|&j| !joiner(&tokens[j]));
            let absorbs = |t: &Tok| *t == time || (is_time && is_word(t, &["utc", "gmt"]));
            if let Some(j) = next.filter(|&j| absorbs(&tokens[j])) {
                // Everything from here to `j` is one time; carry on from `j`
                // so that chains (`mon, mar 5 at 3pm utc`) merge too.
                tokens[j] = time.clone();
                k = j;
                continue;
            }
        }
        out.push(tokens[k].clone());
        k += 1;
    }
    out
}

// --- canonical JSON --------------------------------------------------------------

/// Keywords that only label, describe or exemplify a schema.
const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
    "$schema",
    "$id",
    "enumNames",
];

/// Keywords whose value maps names to subschemas.
const SCHEMA_MAPS: &[&str] = &["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];

/// Keywords whose value is one subschema (or, for `items`, an ordered list).
const SUBSCHEMAS: &[&str] = &[
    "items",
    "additionalItems",
    "additionalProperties",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "prefixItems",
];

/// Keywords whose value is an unordered list of subschemas.
const SCHEMA_SETS: &[&str] = &["oneOf", "anyOf", "allOf"];

/// Keywords whose value is an unordered set of plain values.
const VALUE_SETS: &[&str] = &["required", "enum", "type"];

fn write_schema(schema: &Value, out: &mut String) {
    match schema {
        Value::Object(map) => {
            let mut entries: Vec<(&str, String)> = Vec::with_capacity(map.len());
            for (key, value) in map {
                let key = key.as_str();
                if ANNOTATIONS.contains(&key) {
                    continue;
                }
                entries.push((key, keyword_text(key, value)));
            }
            write_entries(entries, out);
        }
        Value::Array(items) => {
            let texts = items.iter().map(|item| text_of(|out| write_schema(item, out))).collect();
            write_list(texts, out);
        }
        other => write_value(other, out),
    }
}

fn keyword_text(key: &str, value: &Value) -> String {
    text_of(|out| match value {
        Value::Object(map) if SCHEMA_MAPS.contains(&key) => {
            let entries = map
                .iter()
                .map(|(name, subschema)| (name.as_str(), text_of(|out| write_schema(subschema, out))))
                .collect();
            write_entries(entries, out);
        }
        _ if SUBSCHEMAS.contains(&key) => write_schema(value, out),
        Value::Array(items) if SCHEMA_SETS.contains(&key) => {
            write_set(items.iter().map(|item| text_of(|out| write_schema(item, out))).collect(), out);
        }
        Value::Array(items) if VALUE_SETS.contains(&key) => {
            write_set(items.iter().map(|item| text_of(|out| write_value(item, out))).collect(), out);
        }
        _ => write_value(value, out),
    })
}

fn text_of(write: impl FnOnce(&mut String)) -> String {
    let mut out = String::new();
    write(&mut out);
    out
}

fn write_entries(mut entries: Vec<(&str, String)>, out: &mut String) {
    entries.sort_by(|a, b| a.0.cmp(b.0));
    out.push('{');
    for (index, (key, text)) in entries.iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        write_string(key, out);
        out.push(':');
        out.push_str(text);
    }
    out.push('}');
}

fn write_list(texts: Vec<String>, out: &mut String) {
    out.push('[');
    out.push_str(&texts.join(","));
    out.push(']');
}

fn write_set(mut texts: Vec<String>, out: &mut String) {
    texts.sort();
    texts.dedup();
    write_list(texts, out);
}

fn write_value(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(n, out),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            write_list(items.iter().map(|item| text_of(|out| write_value(item, out))).collect(), out);
        }
        Value::Object(map) => write_object(map, out),
    }
}

fn write_object(map: &Map<String, Value>, out: &mut String) {
    let entries = map.iter().map(|(k, v)| (k.as_str(), text_of(|out| write_value(v, out)))).collect();
    write_entries(entries, out);
}

/// Largest integer an `f64` holds exactly.
const MAX_EXACT_F64_INT: f64 = 9_007_199_254_740_992.0;

fn write_number(n: &serde_json::Number, out: &mut String) {
    if n.is_f64()
        && let Some(f) = n.as_f64()
        && f.fract() == 0.0
        && f.abs() <= MAX_EXACT_F64_INT
    {
        // Exact: the value is integral and within the exactly representable range.
        let int = f as i64;
        let _ = write!(out, "{int}");
        return;
    }
    let _ = write!(out, "{n}");
}

fn write_string(s: &str, out: &mut String) {
    // Serializing a string to JSON cannot fail.
    out.push_str(&serde_json::to_string(s).unwrap_or_default());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_split_without_taking_apostrophes() {
        let segments = split_quoted("don't delete 'the file' or “x”, it's 'ok");
        let rendered: Vec<String> = segments
            .iter()
            .map(|s| match s {
                Segment::Plain(t) => format!("P[{t}]"),
                Segment::Quoted(t) => format!("Q[{t}]"),
            })
            .collect();
        assert_eq!(rendered, ["P[don't delete ]", "Q[the file]", "P[ or ]", "Q[x]", "P[, it's 'ok]"]);
    }

    #[test]
    fn individual_patterns() {
        let chars = |s: &str| s.chars().collect::<Vec<_>>();
        assert_eq!(uuid_len(&chars("123e4567-e89b-12d3-a456-426614174000 x")), Some(36));
        assert_eq!(iso_date_len(&chars("2025-03-05t12:30:00.123+02:00")), Some(29));
        assert_eq!(iso_date_len(&chars("2025-03-05 12:30")), Some(10));
        assert_eq!(numeric_date_len(&chars("05/03/25")), Some(8));
        assert_eq!(numeric_date_len(&chars("1.2.3")), None);
        assert_eq!(numeric_date_len(&chars("10.0.0.1")), None);
        assert_eq!(clock_len(&chars("7 p.m.")), Some(6));
        assert_eq!(clock_len(&chars("7 a.m")), Some(5));
        assert_eq!(clock_len(&chars("7 apples")), None);
        assert_eq!(clock_len(&chars("16:9")), None);
        assert_eq!(random_id_len(&chars("deadbeef1")), None);
        assert_eq!(random_id_len(&chars("3f9a2c1d7e0b4a5c6d7e")), Some(20));
        assert_eq!(random_id_len(&chars("release2024hotfix12")), None);
        assert_eq!(random_id_len(&chars("req_8f2k")), Some(8));
        assert_eq!(random_id_len(&chars("ch_3mtwbwlkdiwhu7ix28a3tqpa")), None);
        assert_eq!(value_len(&chars("7f3k-9x2m, then")), Some(9));
        assert_eq!(value_len(&chars("for the build")), None);
        assert_eq!(number_len(&chars("1,234.5th")), 9);
        assert_eq!(number_len(&chars("3rd")), 3);
    }

    #[test]
    fn numbers_render_canonically() {
        let text = |json: &str| canonical_schema(&serde_json::from_str(json).expect("json"));
        assert_eq!(text("1.0"), "1");
        assert_eq!(text("-0.0"), "0");
        assert_eq!(text("1.5"), "1.5");
        assert_eq!(text("18446744073709551615"), "18446744073709551615");
    }
}
