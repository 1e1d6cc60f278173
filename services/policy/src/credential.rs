//! The credential-ask detector (policy step 4).
//!
//! A server may use an elicitation to fish for a secret: "enter your GitHub
//! token", a field named `password`, a form titled `Contraseña`, a
//! `パスワード` field, a `CVV` box. [`CredentialDetector::detect`] reads the
//! message and every field's name, title, description, enum values and
//! labels, format and default, and reports each place where a credential is
//! *asked for*, with the category, the matched text and an explanation. It
//! knows passwords, passphrases, API keys, access and bearer tokens, client
//! secrets, private keys, recovery (seed) phrases, session cookies, one-time
//! and verification codes, PINs, and payment card numbers, expiry dates and
//! security codes, in English, Spanish, French, German, Portuguese, Italian,
//! Dutch, Polish, Turkish, Russian, Arabic, Hindi, Chinese, Japanese and
//! Korean, through abbreviations and obfuscations (`pwd`, `p4ssw0rd`,
//! `x-api-key`, `apiKey`, `2FA`, full-width letters, zero-width spaces).
//!
//! # What counts as asking
//!
//! Mentioning a credential is not asking for one. The detector decides by
//! where a credential term appears:
//!
//! - **A field's name, title or format** names what the field holds. A field
//!   named `pwd` or titled `Código de verificación` asks for that credential,
//!   unless the field cannot hold it: a boolean never can (`Rotate the key
//!   now?`), a number can only hold a numeric secret (PIN, code, card number,
//!   expiry, security code — not `minimum password length`), and a choice
//!   only if its options look like the secret itself (digits for a PIN or an
//!   expiry month, or secret-looking values), not product or method names
//!   (`Which password manager do you use?`). A title counts in its first
//!   clause, or anywhere next to a request; a title that uses the word in
//!   another sense (`Map pin label`) overrules the name (`pin`).
//! - **The message and descriptions** ask only with a request at most a few
//!   words before the term (or after it, in verb-final languages), in the
//!   same clause: a verb or question such as `enter`, `paste`,
//!   `what is your`, `ingrese`, `saisissez`, `geben Sie … ein`, `digite`,
//!   `inserisci`, `voer … in`, `podaj`, `girin`, `введите`, `أدخل`, `दर्ज
//!   करें`, `请输入`, `入力してください`, `입력하세요`. A description also
//!   counts when it starts by naming the value (`Your personal access
//!   token`), unless it goes on to say something about it (`Passwords must
//!   not be entered here`).
//! - **A compound value** (a connection string, a DSN, a database URL, a
//!   config snippet) asks for a password only if the request says the
//!   credential is inside it: a credential term in the same clause (`the
//!   connection string, including the password`, not `without the password`
//!   or `with the password redacted`), or a URL template with a password
//!   (`postgres://user:password@host/db`) anywhere in the request. Files that
//!   hold secrets by nature (`.env`, `.npmrc`, `.netrc`) are asked for like
//!   any credential.
//! - **The person's own secret** among options: a choice or a yes/no field
//!   can hold a credential when a word makes it the person's own (`Current
//!   password`, `Is your PIN one of these?`, `Does your PIN end with 4?`,
//!   `word #3 of your recovery phrase`); such phrases also ask, a few words
//!   either side of the term.
//! - **Qualified tokens and keys**: services and kinds of token between a
//!   request and its term do not count toward their distance (`enter your
//!   npm publish token`, `the production Stripe restricted key`), and a bare
//!   `key` names an API key right after one (`SendGrid production mail key`).
//! - **A default or an option** that holds a secret-looking value (`sk_live_…`,
//!   `ghp_…`, `AKIA…`, a PEM private key, a JWT, a card number passing the
//!   Luhn check) is a hit wherever it is. Otherwise options and defaults only
//!   inform the rest (card brands make `Expiry` a card's expiry).
//!
//! Everywhere, a term does not count when a phrase uses the word in another
//! sense (`map pin`, `PIN the tab`, `postal code`, `discount code`, `Trello
//! card`, `gift card`, `max tokens`), when a word next to it makes it a
//! setting or a topic (`password length`, `password manager`, `token
//! budget`, `reset your password`, `which 2FA method`), or when it is negated
//! (`we will never ask for your password`). Ambiguous terms wait for the rest
//! of the request: `expiry date` is a card expiry only if a payment card is
//! discussed somewhere in the request, a bare `code` is a one-time code only
//! if something is being sent (`SMS`, `we sent`, `6 digits`), `security code`
//! is a card's if a card is discussed and a one-time code otherwise, and `PIN
//! code` is not a PIN in an address form (it is also India's postal code).
//!
//! # The organisation's terms
//!
//! [`CredentialAskPolicy::extra_terms`] are credential terms of category
//! [`Category::Custom`] and follow the rules above: they count in a field's
//! name, title or format, and in the message or a description next to a
//! request. [`CredentialAskPolicy::allow_terms`] silence false positives: a
//! hit whose text, or the clause around it, contains an allow-listed term is
//! dropped (for a default or an option: the whole value). Both are matched
//! like built-in terms: case-, accent- and separator-insensitively, as whole
//! words (or anywhere, in Chinese, Japanese, Korean and Arabic).
//!
//! ```
//! use herald_policy::CredentialAskPolicy;
//! use herald_policy::credential::{AskText, Category, CredentialDetector, FieldPart, FieldText, HitLocation};
//!
//! let detector = CredentialDetector::new(&CredentialAskPolicy::default());
//! let ask = AskText {
//!     message: "Please sign in to continue",
//!     fields: vec![FieldText { name: "pwd", ..FieldText::default() }],
//! };
//! let hits = detector.detect(&ask);
//! assert_eq!(hits.len(), 1);
//! assert_eq!(hits[0].category, Category::Password);
//! assert_eq!(hits[0].location, HitLocation::Field { name: "pwd".into(), part: FieldPart::Name });
//! assert_eq!(hits[0].matched, "pwd");
//!
//! let benign = AskText {
//!     message: "Which password manager do you use?",
//!     fields: vec![FieldText { name: "manager", ..FieldText::default() }],
//! };
//! assert!(detector.detect(&benign).is_empty());
//! ```

use std::fmt;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{CredentialAskMode, CredentialAskPolicy};

mod matcher;
mod normalize;
mod rules;
mod secrets;

use matcher::{Context, Kind, Match, Matcher, MatcherBuilder, Pattern, Scope, Sense};
use normalize::{CLAUSE, Norm, SPACE};

/// What an elicitation shows the user: its message and its fields.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AskText<'a> {
    /// The elicitation's message.
    pub message: &'a str,
    /// The fields of the requested schema, in order.
    pub fields: Vec<FieldText<'a>>,
}

/// The texts of one field of a requested schema.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldText<'a> {
    /// The property name.
    pub name: &'a str,
    /// `title`.
    pub title: Option<&'a str>,
    /// `description`.
    pub description: Option<&'a str>,
    /// `format` (`email`, `uri`, … and sometimes `password`).
    pub format: Option<&'a str>,
    /// `default`, as text (a string as is, any other value as JSON).
    pub default: Option<String>,
    /// The allowed values (`enum`, or the `const` of each `oneOf` entry).
    pub enum_values: Vec<&'a str>,
    /// The labels shown for them (`enumNames`, or each `oneOf` entry's
    /// `title`).
    pub enum_labels: Vec<&'a str>,
    /// What kind of value the field holds.
    pub kind: FieldKind,
}

/// What kind of value a field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldKind {
    /// Free text (`"type": "string"` without `enum`).
    #[default]
    Text,
    /// `"type": "number"` or `"integer"`.
    Number,
    /// `"type": "boolean"`.
    Boolean,
    /// One (or several) of a fixed set of options.
    Choice,
}

/// Where a hit was found.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "in", rename_all = "snake_case")]
pub enum HitLocation {
    /// In the elicitation's message.
    Message,
    /// In one part of a field.
    Field {
        /// The field's property name.
        name: String,
        /// Which part of the field.
        part: FieldPart,
    },
}

/// A part of a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldPart {
    /// The property name.
    Name,
    /// `title`.
    Title,
    /// `description`.
    Description,
    /// One of the allowed values.
    EnumValue,
    /// One of the labels of the allowed values.
    EnumLabel,
    /// `format`.
    Format,
    /// `default`.
    Default,
}

impl FieldPart {
    /// The part's name, as serialized.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Name => "name",
            Self::Title => "title",
            Self::Description => "description",
            Self::EnumValue => "enum_value",
            Self::EnumLabel => "enum_label",
            Self::Format => "format",
            Self::Default => "default",
        }
    }
}

/// The kind of credential a hit asks for: the rule that fired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// A password (or login credentials).
    Password,
    /// A passphrase.
    Passphrase,
    /// An API key or secret key.
    ApiKey,
    /// An access, bearer, API or personal access token.
    AccessToken,
    /// A client, app or webhook secret.
    ClientSecret,
    /// A private key.
    PrivateKey,
    /// A wallet's recovery or seed phrase.
    RecoveryPhrase,
    /// A session cookie or session id.
    SessionCookie,
    /// A one-time, verification or 2FA code.
    OneTimeCode,
    /// A PIN.
    Pin,
    /// A payment card number.
    CardNumber,
    /// A payment card's expiry date.
    CardExpiry,
    /// A payment card's security code (CVV, CVC).
    CardSecurityCode,
    /// One of the organisation's own terms.
    Custom,
}

impl Category {
    /// Every category, in declaration order.
    pub const ALL: [Self; 14] = [
        Self::Password,
        Self::Passphrase,
        Self::ApiKey,
        Self::AccessToken,
        Self::ClientSecret,
        Self::PrivateKey,
        Self::RecoveryPhrase,
        Self::SessionCookie,
        Self::OneTimeCode,
        Self::Pin,
        Self::CardNumber,
        Self::CardExpiry,
        Self::CardSecurityCode,
        Self::Custom,
    ];

    /// The category's name, as serialized (`"api_key"`).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Password => "password",
            Self::Passphrase => "passphrase",
            Self::ApiKey => "api_key",
            Self::AccessToken => "access_token",
            Self::ClientSecret => "client_secret",
            Self::PrivateKey => "private_key",
            Self::RecoveryPhrase => "recovery_phrase",
            Self::SessionCookie => "session_cookie",
            Self::OneTimeCode => "one_time_code",
            Self::Pin => "pin",
            Self::CardNumber => "card_number",
            Self::CardExpiry => "card_expiry",
            Self::CardSecurityCode => "card_security_code",
            Self::Custom => "custom",
        }
    }

    /// The category in words, with an article (`"an API key"`).
    #[must_use]
    pub const fn describe(self) -> &'static str {
        match self {
            Self::Password => "a password",
            Self::Passphrase => "a passphrase",
            Self::ApiKey => "an API key",
            Self::AccessToken => "an access token",
            Self::ClientSecret => "a client secret",
            Self::PrivateKey => "a private key",
            Self::RecoveryPhrase => "a recovery phrase",
            Self::SessionCookie => "a session cookie",
            Self::OneTimeCode => "a one-time code",
            Self::Pin => "a PIN",
            Self::CardNumber => "a payment card number",
            Self::CardExpiry => "a card expiry date",
            Self::CardSecurityCode => "a card security code",
            Self::Custom => "an organisation-defined credential",
        }
    }

    /// Whether the credential is made of digits, so that a number field or a
    /// choice among digits can hold it.
    const fn numeric(self) -> bool {
        matches!(
            self,
            Self::OneTimeCode | Self::Pin | Self::CardNumber | Self::CardExpiry | Self::CardSecurityCode
        )
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One place where a request asks for a credential.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CredentialHit {
    /// Where: the message, or which part of which field.
    pub location: HitLocation,
    /// The rule that fired: what kind of credential is asked for.
    pub category: Category,
    /// The text that matched, as written in the request (a secret-looking
    /// value is shortened to its first characters).
    pub matched: String,
    /// One sentence for people: where, what, and why it counts as asking.
    pub explanation: String,
}

/// Finds requests that fish for credentials; see the module documentation.
///
/// Build one per organisation policy and reuse it for every request; it is
/// `Send` and `Sync`. The built-in rules are compiled once per process (a
/// few milliseconds, on first use) and shared; a policy's own terms are
/// compiled by [`CredentialDetector::new`].
pub struct CredentialDetector {
    mode: CredentialAskMode,
    builtin: &'static Matcher,
    /// The organisation's extra and allow-listed terms, if any.
    custom: Option<Matcher>,
}

impl fmt::Debug for CredentialDetector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CredentialDetector")
            .field("mode", &self.mode)
            .field("builtin_rules", &self.builtin.patterns.len())
            .field("custom_rules", &self.custom.as_ref().map_or(0, |c| c.patterns.len()))
            .finish()
    }
}

/// The built-in rules, compiled on first use.
fn builtin() -> &'static Matcher {
    static BUILTIN: OnceLock<Matcher> = OnceLock::new();
    BUILTIN.get_or_init(|| {
        let mut builder = MatcherBuilder::default();
        rules::add_builtin(&mut builder);
        builder.build(0)
    })
}

impl Default for CredentialDetector {
    fn default() -> Self {
        Self::new(&CredentialAskPolicy::default())
    }
}

/// Evidence about the whole request.
#[derive(Debug, Default, Clone, Copy)]
struct Evidence {
    card: bool,
    otp: bool,
    address: bool,
    map: bool,
    /// A credential is said to be inside a compound value (`connection
    /// string, including the password`, `postgres://user:password@…`).
    inline: bool,
}

/// How a term came to count.
#[derive(Debug, Clone, Copy)]
enum Reason {
    /// Named by a field's name, title or format.
    Label,
    /// Next to a request (the cue's pattern and byte range).
    Request { cue: u32 },
    /// At the start of a description, naming the value.
    Head,
    /// A secret-looking value.
    Value { what: &'static str },
}

/// A hit before the whole request has been read.
struct Pending {
    location: HitLocation,
    category: Category,
    sense: Sense,
    matched: String,
    reason: Reason,
    /// The rule's pattern, or `None` for a secret-looking value.
    pattern: Option<u32>,
    /// For a request: the cue as written.
    cue_text: String,
}

/// A credential term in one text that survived blockers, meta words,
/// negations and allow-listed terms.
#[derive(Debug, Clone, Copy)]
struct Found {
    start: u32,
    end: u32,
    pat: u32,
    category: Category,
    sense: Sense,
    /// The nearest request cue in reach: (pattern, start, end).
    cue: Option<(u32, u32, u32)>,
    /// In the text's first clause.
    first_clause: bool,
    /// Among the first four tokens of the text, and neither negated nor
    /// followed by a statement verb.
    head: bool,
    /// Next to a word that makes it the person's own secret (`current`,
    /// `is your`, `one of these`).
    own: bool,
}

/// What one text says.
#[derive(Default)]
struct Reading {
    found: Vec<Found>,
    /// Categories whose terms appeared but did not count.
    silenced: Vec<Category>,
    /// Whether an allow-listed term appears anywhere in the text.
    allowed_anywhere: bool,
}

/// Buffers reused across the texts of one request.
#[derive(Default)]
struct Scratch {
    norm: Norm,
    matches: Vec<Match>,
    secrets: Vec<secrets::SecretValue>,
}

/// A description names its value if the term is among its first tokens.
const HEAD_TOKENS: u32 = 4;
/// How many tokens may separate a term from a meta word before it.
const META_BEFORE_GAP: u32 = 2;
/// How far (in normalised bytes) the detector looks around a term for what
/// decides about it: cues, meta words, negations, blockers.
const REACH: u32 = 256;
/// How many tokens may separate a compound value (`connection string`) from
/// the credential said to be inside it.
const CARRIER_GAP: u32 = 8;
/// How many tokens may separate a term from a word that makes it the
/// person's own.
const OWN_GAP: u32 = 3;

impl CredentialDetector {
    /// Compiles the built-in rules and the policy's own terms.
    #[must_use]
    pub fn new(policy: &CredentialAskPolicy) -> Self {
        let builtin = builtin();
        let custom = (!policy.extra_terms.is_empty() || !policy.allow_terms.is_empty()).then(|| {
            let mut builder = MatcherBuilder::default();
            for term in &policy.extra_terms {
                builder.add_literal(term, Kind::Term(Category::Custom, Sense::Plain), "custom");
            }
            for term in &policy.allow_terms {
                builder.add_literal(term, Kind::Allow, "custom");
            }
            builder.build(builtin.patterns.len() as u32)
        });
        Self { mode: policy.mode, builtin, custom }
    }

    fn pattern(&self, id: u32) -> &Pattern {
        match &self.custom {
            Some(custom) if id >= custom.first_id => &custom.patterns[(id - custom.first_id) as usize],
            _ => &self.builtin.patterns[id as usize],
        }
    }

    /// The policy's mode for detected credential asks.
    #[must_use]
    pub fn mode(&self) -> CredentialAskMode {
        self.mode
    }

    /// Every place where `ask` asks for a credential, at most one hit per
    /// location (message, or field and part) and category, in the order:
    /// message, then each field's name, title, description, enum values,
    /// enum labels, format and default.
    ///
    /// With mode [`CredentialAskMode::Off`] the policy does not look for
    /// credential asks at all, and this returns nothing.
    #[must_use]
    pub fn detect(&self, ask: &AskText<'_>) -> Vec<CredentialHit> {
        if self.mode == CredentialAskMode::Off {
            return Vec::new();
        }
        let scratch = &mut Scratch::default();
        let mut evidence = Evidence::default();
        let mut pending = Vec::new();
        // A URL template with a password in it says that a compound value
        // carries a credential.
        evidence.inline = secrets::userinfo_url(ask.message)
            || ask.fields.iter().any(|f| {
                [f.title, f.description, f.default.as_deref()]
                    .into_iter()
                    .flatten()
                    .any(secrets::userinfo_url)
            });

        let reading = self.read(ask.message, scratch, &mut evidence);
        for found in firsts(&reading.found, |x| x.cue.is_some()) {
            pending.push(self.pending(HitLocation::Message, ask.message, &scratch.norm, found, found.cue));
        }
        for field in &ask.fields {
            self.field(field, scratch, &mut evidence, &mut pending);
        }
        self.settle(pending, evidence)
    }

    /// Reads one text: finds its terms and what they mean there.
    fn read(&self, text: &str, s: &mut Scratch, evidence: &mut Evidence) -> Reading {
        let mut reading = Reading::default();
        if text.is_empty() {
            return reading;
        }
        s.norm.build(text);
        s.matches.clear();
        self.builtin.scan(&s.norm.text, &mut s.matches);
        if let Some(custom) = &self.custom {
            custom.scan(&s.norm.text, &mut s.matches);
        }
        if s.matches.is_empty() {
            return reading;
        }
        let norm = &s.norm;
        // Everything that decides about a term lies close to it; looking only
        // within `REACH` bytes keeps long or repetitive texts linear.
        s.matches.sort_unstable_by_key(|m| (m.start, m.end));
        let matches = &s.matches;
        let near = |m: &Match| {
            let from = matches.partition_point(|o| o.start + REACH < m.start);
            let to = matches.partition_point(|o| o.start <= m.end + REACH);
            &matches[from..to]
        };
        // Blockers cancel whatever they overlap; not-requests only cues.
        let blocked = |m: &Match| {
            let cue = matches!(m.kind, Kind::Cue { .. });
            near(m).iter().any(|o| {
                (o.kind == Kind::Blocker || (cue && o.kind == Kind::NotRequest))
                    && o.start < m.end
                    && m.start < o.end
            })
        };
        let clause = |byte: u32| norm.tokens[norm.tok[byte as usize] as usize].clause;
        let phrase = |byte: u32| norm.tokens[norm.tok[byte as usize] as usize].phrase;

        let mut allow_clauses: Vec<u32> = Vec::new();
        for m in matches {
            let k = m.kind;
            if matches!(k, Kind::Term(..) | Kind::Context(_) | Kind::Allow) && blocked(m) {
                continue;
            }
            match k {
                Kind::Context(Context::Card) => evidence.card = true,
                Kind::Context(Context::Otp) => evidence.otp = true,
                Kind::Context(Context::Address) => evidence.address = true,
                Kind::Context(Context::Map) => evidence.map = true,
                Kind::Term(c, Sense::Plain) => match c {
                    Category::CardNumber | Category::CardSecurityCode | Category::CardExpiry => {
                        evidence.card = true
                    }
                    Category::OneTimeCode => evidence.otp = true,
                    _ => {}
                },
                Kind::Allow => {
                    reading.allowed_anywhere = true;
                    allow_clauses.push(clause(m.start));
                }
                _ => {}
            }
        }

        // Qualifiers and ownership words between a request and its term do
        // not count toward their distance (`enter your npm publish token`).
        let any_skippable = matches.iter().any(|o| matches!(o.kind, Kind::Qualifier | Kind::Own { .. }));
        let any_own = any_skippable && matches.iter().any(|o| matches!(o.kind, Kind::Own { .. }));
        let skipped = |around: &[Match], from: u32, to: u32| -> u32 {
            if !any_skippable {
                return 0;
            }
            let mut last = u32::MAX;
            let mut n = 0;
            for o in around {
                if matches!(o.kind, Kind::Qualifier | Kind::Own { .. })
                    && from <= o.start
                    && o.end <= to
                    && o.start != last
                    && !norm.tokens[norm.tok[o.start as usize] as usize].dense
                {
                    n += norm.tok[o.end as usize - 1] - norm.tok[o.start as usize] + 1;
                    last = o.start;
                }
            }
            n
        };
        for m in matches {
            let Kind::Term(category, mut sense) = m.kind else { continue };
            if blocked(m) {
                reading.silenced.push(category);
                continue;
            }
            let around = near(m);
            if sense == Sense::NeedsQualifier {
                let qualified = around.iter().any(|o| {
                    o.kind == Kind::Qualifier
                        && o.end <= m.start
                        && clause(o.start) == clause(m.start)
                        && gap(norm, o.end, m.start) == 0
                        && !blocked(o)
                });
                if !qualified {
                    continue;
                }
                sense = Sense::Plain;
            }
            // A longer term that contains this one wins (`one-time password`
            // over `password`).
            let contained = around.iter().any(|o| {
                matches!(o.kind, Kind::Term(..))
                    && o.start <= m.start
                    && m.end <= o.end
                    && (o.end - o.start) > (m.end - m.start)
                    && !blocked(o)
            });
            if contained {
                continue;
            }
            let c = clause(m.start);
            let silenced = allow_clauses.contains(&c)
                || around.iter().any(|o| match o.kind {
                    Kind::MetaAfter => o.start >= m.end && clause(o.start) == c && gap(norm, m.end, o.start) == 0,
                    Kind::MetaBefore => {
                        o.end <= m.start && clause(o.end - 1) == c && gap(norm, o.end, m.start) <= META_BEFORE_GAP
                    }
                    Kind::Negation(scope) => {
                        let disjoint = o.end <= m.start || m.end <= o.start;
                        disjoint
                            && phrase(o.start) == phrase(m.start)
                            && (scope == Scope::Both || o.end <= m.start)
                    }
                    _ => false,
                } && !blocked(o));
            if silenced {
                reading.silenced.push(category);
                continue;
            }
            let cue = around
                .iter()
                .filter_map(|o| match o.kind {
                    Kind::Cue { gap: reach, after } if o.end <= m.start || (after && m.end <= o.start) => {
                        Some((o, u32::from(reach)))
                    }
                    Kind::Own { cue: true } if o.end <= m.start || m.end <= o.start => {
                        Some((o, u32::from(rules::OWN_CUE_GAP)))
                    }
                    _ => None,
                })
                .filter(|(o, _)| clause(o.start) == c)
                .map(|(o, reach)| {
                    let distance = if o.end <= m.start {
                        gap(norm, o.end, m.start).saturating_sub(skipped(around, o.end, m.start))
                    } else {
                        gap(norm, m.end, o.start).saturating_sub(skipped(around, m.end, o.start))
                    };
                    (o, reach, distance)
                })
                .filter(|&(o, reach, distance)| distance <= reach && !blocked(o))
                .min_by_key(|&(_, _, distance)| distance)
                .map(|(o, _, _)| (o.pat, o.start, o.end));
            // A request that is itself negated asks for nothing ("do not give
            // us your phone number, pin, or other sensitive info").
            let negated_cue = cue.is_some_and(|(_, cue_start, _)| {
                around.iter().any(|o| {
                    matches!(o.kind, Kind::Negation(_))
                        && o.end <= cue_start
                        && phrase(o.start) == phrase(cue_start)
                        && !blocked(o)
                })
            });
            if negated_cue {
                reading.silenced.push(category);
                continue;
            }
            // A description that opens with the term names the value, unless
            // it goes on to negate it ("Passwords must not be entered here")
            // or to say something about it ("Credentials are managed by IT").
            let statement = around.iter().any(|o| match o.kind {
                Kind::Negation(_) => o.start >= m.end && phrase(o.start) == phrase(m.start),
                Kind::Statement => o.start >= m.end && clause(o.start) == c && gap(norm, m.end, o.start) == 0,
                _ => false,
            });
            let own = any_own
                && around.iter().any(|o| {
                    matches!(o.kind, Kind::Own { .. })
                        && clause(o.start) == c
                        && (o.end <= m.start || m.end <= o.start)
                        && (if o.end <= m.start {
                            gap(norm, o.end, m.start)
                        } else {
                            gap(norm, m.end, o.start)
                        }) <= OWN_GAP
                        && !blocked(o)
                });
            let first_token = norm.tok[m.start as usize];
            reading.found.push(Found {
                start: m.start,
                end: m.end,
                pat: m.pat,
                category,
                sense,
                cue,
                first_clause: c == 0,
                head: c == 0 && first_token < HEAD_TOKENS && !statement,
                own,
            });
        }
        // A compound value with a credential next to it, in the same clause
        // (`the connection string, including the password`), carries it.
        let secret = |c: Category| {
            matches!(
                c,
                Category::Password
                    | Category::Passphrase
                    | Category::ApiKey
                    | Category::AccessToken
                    | Category::ClientSecret
                    | Category::PrivateKey
                    | Category::Custom
            )
        };
        for carrier in reading.found.iter().filter(|x| x.sense == Sense::NeedsInline) {
            if evidence.inline {
                break;
            }
            evidence.inline = reading.found.iter().any(|x| {
                x.sense == Sense::Plain
                    && secret(x.category)
                    && clause(x.start) == clause(carrier.start)
                    && (if x.end <= carrier.start {
                        gap(norm, x.end, carrier.start)
                    } else {
                        gap(norm, carrier.end, x.start)
                    }) <= CARRIER_GAP
            });
        }
        reading
    }

    /// Reads every part of one field and records its hits.
    fn field(&self, f: &FieldText<'_>, s: &mut Scratch, evidence: &mut Evidence, out: &mut Vec<Pending>) {
        let location = |part| HitLocation::Field { name: f.name.to_owned(), part };

        // Options that look like the secret itself: digits (a PIN, a month),
        // or secret-looking values.
        let options = f.enum_values.iter().chain(&f.enum_labels);
        let numeric = options.clone().filter(|o| digit_like(o)).count();
        let total = options.clone().count();
        let numeric_options = total > 0 && numeric * 2 >= total;
        let mut secret_options = false;

        // Options and the default count only when they hold a secret-looking
        // value; the options are also read, all at once, for evidence (card
        // brands, "SMS").
        if total > 0 {
            let mut joined = String::new();
            for option in options.clone() {
                joined.push_str(option);
                joined.push('\n');
            }
            self.read(&joined, s, evidence);
        }
        let values = f.enum_values.iter().map(|v| (FieldPart::EnumValue, *v));
        let values = values.chain(f.enum_labels.iter().map(|v| (FieldPart::EnumLabel, *v)));
        for (part, text) in values.chain(f.default.as_deref().map(|d| (FieldPart::Default, d))) {
            s.secrets.clear();
            secrets::find(text, &mut s.secrets);
            if s.secrets.is_empty() || self.read(text, s, &mut Evidence::default()).allowed_anywhere {
                continue;
            }
            for secret in &s.secrets {
                secret_options |= part != FieldPart::Default;
                out.push(Pending {
                    location: location(part),
                    category: secret.category,
                    sense: Sense::Plain,
                    matched: shorten(&text[secret.start..secret.end]),
                    reason: Reason::Value { what: secret.what },
                    pattern: None,
                    cue_text: String::new(),
                });
            }
        }

        // A choice or a yes/no question about the person's own secret
        // (`Current password`, `Is your PIN one of these?`) extracts it.
        let holds = |x: &Found| match f.kind {
            FieldKind::Boolean => x.own,
            FieldKind::Text => true,
            FieldKind::Number => x.category.numeric() || x.category == Category::Custom,
            FieldKind::Choice => secret_options || (numeric_options && x.category.numeric()) || x.own,
        };

        // The title is read before the name: a title that uses the word in
        // another sense (`Map pin label`) speaks for the field.
        let mut title_hits = Vec::new();
        let mut title_silenced = Vec::new();
        if let Some(text) = f.title {
            let reading = self.read(text, s, evidence);
            for found in firsts(&reading.found, |x| holds(x) && (x.first_clause || x.cue.is_some())) {
                title_hits.push(self.pending(location(FieldPart::Title), text, &s.norm, found, found.cue));
            }
            title_silenced
                .extend(reading.silenced.iter().filter(|c| !reading.found.iter().any(|x| x.category == **c)));
        }
        let name = self.read(f.name, s, evidence);
        for found in firsts(&name.found, |x| holds(x) && !title_silenced.contains(&x.category)) {
            out.push(self.pending(location(FieldPart::Name), f.name, &s.norm, found, None));
        }
        out.append(&mut title_hits);
        if let Some(text) = f.description {
            let reading = self.read(text, s, evidence);
            for found in firsts(&reading.found, |x| holds(x) && (x.cue.is_some() || x.head)) {
                out.push(self.pending(location(FieldPart::Description), text, &s.norm, found, found.cue));
            }
        }
        if let Some(text) = f.format {
            let reading = self.read(text, s, evidence);
            for found in firsts(&reading.found, |x| holds(x)) {
                out.push(self.pending(location(FieldPart::Format), text, &s.norm, found, None));
            }
        }
    }

    fn pending(
        &self,
        location: HitLocation,
        text: &str,
        norm: &Norm,
        found: &Found,
        cue: Option<(u32, u32, u32)>,
    ) -> Pending {
        let (a, b) = norm.original_range(text, found.start as usize, found.end as usize);
        let (reason, cue_text) = match cue {
            Some((pat, start, end)) => {
                let (ca, cb) = norm.original_range(text, start as usize, end as usize);
                (Reason::Request { cue: pat }, text[ca..cb].to_owned())
            }
            None if matches!(location, HitLocation::Field { part: FieldPart::Description, .. }) => {
                (Reason::Head, String::new())
            }
            None => (Reason::Label, String::new()),
        };
        Pending {
            location,
            category: found.category,
            sense: found.sense,
            matched: text[a..b].to_owned(),
            reason,
            pattern: Some(found.pat),
            cue_text,
        }
    }

    /// Settles the terms that depend on the whole request, writes the
    /// explanations and removes duplicates.
    fn settle(&self, pending: Vec<Pending>, evidence: Evidence) -> Vec<CredentialHit> {
        let mut hits: Vec<CredentialHit> = Vec::with_capacity(pending.len());
        for p in pending {
            let category = match p.sense {
                Sense::Plain => p.category,
                Sense::NeedsCard if evidence.card => p.category,
                Sense::NeedsOtp if evidence.otp => p.category,
                Sense::UnlessPlace if !(evidence.address || evidence.map) => p.category,
                Sense::UnlessMap if !evidence.map => p.category,
                Sense::CardOrOtp if evidence.card => Category::CardSecurityCode,
                Sense::CardOrOtp => Category::OneTimeCode,
                Sense::NeedsInline if evidence.inline => p.category,
                _ => continue,
            };
            if hits.iter().any(|h| h.location == p.location && h.category == category) {
                continue;
            }
            let explanation = self.explain(&p, category);
            hits.push(CredentialHit { location: p.location, category, matched: p.matched, explanation });
        }
        hits
    }

    fn explain(&self, p: &Pending, category: Category) -> String {
        let place = match &p.location {
            HitLocation::Message => "the message".to_owned(),
            HitLocation::Field { name, part } => format!("field \"{name}\" ({})", part.as_str()),
        };
        let what = category.describe();
        let rule = |pat: u32| {
            let pattern = self.pattern(pat);
            if pattern.lang == "custom" {
                format!("organisation term \"{}\"", pattern.source)
            } else {
                format!("{} term \"{}\"", pattern.lang, pattern.source)
            }
        };
        let matched = &p.matched;
        match (p.reason, p.pattern) {
            (Reason::Value { what: looks_like }, _) => {
                format!("{place} holds what looks like {looks_like} (\"{matched}\")")
            }
            (Reason::Request { cue, .. }, Some(pat)) => {
                let cue_pattern = self.pattern(cue);
                format!(
                    "{place} asks for {what}: the request \"{}\" ({} cue) next to \"{matched}\" ({})",
                    p.cue_text,
                    cue_pattern.lang,
                    rule(pat)
                )
            }
            (Reason::Head, Some(pat)) => {
                format!("{place} describes the value as {what}: \"{matched}\" ({})", rule(pat))
            }
            (_, Some(pat)) => format!("{place} names {what}: \"{matched}\" ({})", rule(pat)),
            (_, None) => format!("{place} asks for {what}: \"{matched}\""),
        }
    }
}

/// The found terms that `keep` accepts, only the first of each category and
/// sense: one text gives at most one hit per category.
fn firsts<'r>(
    found: &'r [Found],
    keep: impl Fn(&Found) -> bool + 'r,
) -> impl Iterator<Item = &'r Found> + 'r {
    let mut seen: Vec<(Category, Sense)> = Vec::new();
    found.iter().filter(move |x| {
        if !keep(x) || seen.contains(&(x.category, x.sense)) {
            return false;
        }
        seen.push((x.category, x.sense));
        true
    })
}

/// How many tokens lie between normalised byte offsets `from` (an end) and
/// `to` (a start); inside a run of Chinese or Japanese, characters count
/// half a token each, also in the rest of a run that `from` ends inside or
/// the part of a run before `to`.
fn gap(norm: &Norm, from: u32, to: u32) -> u32 {
    if to <= from {
        return 0;
    }
    let a = norm.tok[from as usize - 1];
    let b = norm.tok[to as usize];
    let dense_chars = |range: std::ops::Range<usize>| norm.text[range].chars().count() as u32;
    if a == b {
        if norm.tokens[a as usize].dense {
            return dense_chars(from as usize..to as usize).div_ceil(2);
        }
        return 0;
    }
    let mut between = b - a - 1;
    let bytes = norm.text.as_bytes();
    if norm.tokens[a as usize].dense {
        let end = (from as usize..bytes.len())
            .find(|&i| norm.tok[i] != a || bytes[i] == SPACE || bytes[i] == CLAUSE)
            .unwrap_or(bytes.len());
        between += dense_chars(from as usize..end).div_ceil(2);
    }
    if norm.tokens[b as usize].dense {
        let start = (0..to as usize)
            .rev()
            .find(|&i| norm.tok[i] != b || bytes[i] == SPACE || bytes[i] == CLAUSE)
            .map_or(0, |i| i + 1);
        between += dense_chars(start..to as usize).div_ceil(2);
    }
    between
}

/// Whether an option is digits (a PIN digit, a month, a year), possibly
/// grouped by spaces, slashes, hyphens or dots.
fn digit_like(option: &str) -> bool {
    let option = option.trim();
    !option.is_empty()
        && option.bytes().any(|b| b.is_ascii_digit())
        && option.bytes().all(|b| b.is_ascii_digit() || matches!(b, b' ' | b'/' | b'-' | b'.'))
}

/// The first characters of a secret-looking value, so that hits and audit
/// entries do not carry the secret.
fn shorten(value: &str) -> String {
    const KEEP: usize = 8;
    match value.char_indices().nth(KEEP) {
        Some((cut, _)) => format!("{}…", &value[..cut]),
        None => value.to_owned(),
    }
}

impl<'a> AskText<'a> {
    /// The texts of an elicitation: its message and the properties of its
    /// requested schema (`{"type": "object", "properties": {…}}`).
    ///
    /// Each property gives a field: `type` `"boolean"` a boolean, `"number"`
    /// or `"integer"` a number, a property with `enum` or `oneOf` (or an
    /// array of such items, a multi-select) a choice, anything else text.
    /// Options come from `enum` (labels from `enumNames`) or from each
    /// `oneOf`/`anyOf` entry's `const` and `title`. A default that is not a
    /// string is kept as JSON text. Anything that is not an object is
    /// ignored.
    #[must_use]
    pub fn from_schema(message: &'a str, schema: &'a Value) -> Self {
        let fields = schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|properties| properties.iter().map(|(name, p)| FieldText::from_property(name, p)).collect())
            .unwrap_or_default();
        Self { message, fields }
    }
}

impl<'a> FieldText<'a> {
    /// The texts of one property of a requested schema; see
    /// [`AskText::from_schema`].
    #[must_use]
    pub fn from_property(name: &'a str, property: &'a Value) -> Self {
        let str_of = |key: &str| property.get(key).and_then(Value::as_str);
        let items = property.get("items");
        let options_of = |p: Option<&'a Value>| -> (Vec<&'a str>, Vec<&'a str>) {
            let Some(p) = p else { return (Vec::new(), Vec::new()) };
            let strings = |v: Option<&'a Value>| -> Vec<&'a str> {
                v.and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default()
            };
            let mut values = strings(p.get("enum"));
            let mut labels = strings(p.get("enumNames"));
            for key in ["oneOf", "anyOf"] {
                for entry in p.get(key).and_then(Value::as_array).into_iter().flatten() {
                    values.extend(entry.get("const").and_then(Value::as_str));
                    labels.extend(entry.get("title").and_then(Value::as_str));
                }
            }
            (values, labels)
        };
        let (mut enum_values, mut enum_labels) = options_of(Some(property));
        if enum_values.is_empty() && enum_labels.is_empty() {
            (enum_values, enum_labels) = options_of(items);
        }
        let kind = match str_of("type") {
            _ if !enum_values.is_empty() || !enum_labels.is_empty() => FieldKind::Choice,
            Some("boolean") => FieldKind::Boolean,
            Some("number" | "integer") => FieldKind::Number,
            _ => FieldKind::Text,
        };
        let default = property.get("default").map(|d| match d {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        });
        Self {
            name,
            title: str_of("title"),
            description: str_of("description"),
            format: str_of("format"),
            default,
            enum_values,
            enum_labels,
            kind,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_schema_reads_every_part() {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {
                "pwd": {"type": "string", "title": "Password", "format": "password", "default": "x"},
                "n": {"type": "integer", "default": 4},
                "ok": {"type": "boolean"},
                "c": {"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]},
                "o": {"type": "string", "oneOf": [{"const": "x", "title": "X"}]},
                "m": {"type": "array", "items": {"enum": ["p", "q"]}}
            }
        });
        let ask = AskText::from_schema("hi", &schema);
        let kinds: Vec<_> = ask.fields.iter().map(|f| (f.name, f.kind)).collect();
        assert_eq!(
            kinds,
            [
                ("pwd", FieldKind::Text),
                ("n", FieldKind::Number),
                ("ok", FieldKind::Boolean),
                ("c", FieldKind::Choice),
                ("o", FieldKind::Choice),
                ("m", FieldKind::Choice),
            ]
        );
        assert_eq!(ask.fields[0].format, Some("password"));
        assert_eq!(ask.fields[1].default.as_deref(), Some("4"));
        assert_eq!(ask.fields[3].enum_labels, ["A", "B"]);
        assert_eq!(ask.fields[4].enum_values, ["x"]);
        assert_eq!(ask.fields[5].enum_values, ["p", "q"]);
    }

    #[test]
    fn shorten_keeps_a_prefix() {
        assert_eq!(shorten("sk_live_4eC39HqLyjWDarjtT1zdp7dc"), "sk_live_…");
        assert_eq!(shorten("short"), "short");
    }
}
