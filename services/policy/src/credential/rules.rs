//! The detector's rule tables, one small table per language.
//!
//! Each table lists, in its language:
//!
//! - `terms`: phrases that name a credential, by category;
//! - `conditional`: ambiguous phrases that name a credential only in a
//!   certain context (see [`Sense`]);
//! - `blockers`: phrases that use a credential word in another sense (`map
//!   pin`, `postal code`, `gift card`); a term or request they overlap does
//!   not count;
//! - `not_requests`: phrases in which a request verb is aimed at the reader's
//!   benefit, not at the server's (`we will send you`, `press Enter`); a
//!   request they overlap does not count;
//! - `meta_before` / `meta_after`: words that make a nearby term a setting or
//!   a topic instead of the credential itself (`minimum password length`,
//!   `password manager`, `reset your password`, `token budget`);
//! - `statements`: verbs that, right after a term at the start of a
//!   description, make it a statement about the credential rather than the
//!   name of the value (`Credentials are managed by IT`);
//! - `cues`: request verbs and questions (`enter`, `ingrese`, `geben Sie`,
//!   `請輸入`, `입력하세요`); a term at most four tokens from one, in the same
//!   clause, is being asked for (a cue comes before the term, or on either
//!   side in verb-final languages). `near_cues` must be next to the term,
//!   on either side (`confirm your password`, `password required`);
//! - `negations` (`never`, `nunca`, `不要`) and how far they reach;
//! - context words: `card` (a payment card is being discussed), `otp` (a
//!   code is being sent: `sent`, `SMS`, `digits`), `address` and `map`.
//! - `carriers`: compound values that may hold a credential (`connection
//!   string`, `DSN`, `database URL`), passwords only if the request says so;
//! - `own` and `own_cues`: words that make a nearby term the person's own
//!   secret (`current`, `is your`, `one of these`, `word #`), so that a
//!   choice or a yes/no field can hold it; `own_cues` also ask;
//! - `qualifiers` (services and kinds of token: `npm`, `deploy`,
//!   `production`) may stand between a request and its term, and
//!   `qualified` nouns (`key`) name a credential right after one.
//!
//! Phrases are written as people write them; they are normalised like the
//! text (case, diacritics, separators, leetspeak), so `contraseña` also
//! matches `CONTRASENA` and `api key` also matches `apiKey` and `x-api-key`.
//! Marks: a leading `*` lets a phrase start inside a word (German
//! compounds: `*passwort` matches `Kontopasswort`), a trailing `*` makes it a
//! stem (`парол*` matches `пароля`); Chinese, Japanese, Korean and Arabic
//! phrases need no marks (`^`/`$` require a boundary there).

use super::Category;
use super::matcher::{Context, Kind, MatcherBuilder, Scope, Sense};

mod ar;
mod de;
mod en;
mod es;
mod fr;
mod hi;
mod it;
mod ja;
mod ko;
mod nl;
mod pl;
mod pt;
mod ru;
mod tr;
mod zh;

/// One language's rules; see the module documentation.
pub(crate) struct LangRules {
    pub code: &'static str,
    pub terms: &'static [(Category, &'static [&'static str])],
    pub conditional: &'static [(Category, Sense, &'static [&'static str])],
    pub blockers: &'static [&'static str],
    pub not_requests: &'static [&'static str],
    pub meta_before: &'static [&'static str],
    pub meta_after: &'static [&'static str],
    pub statements: &'static [&'static str],
    pub cues: &'static [&'static str],
    pub near_cues: &'static [&'static str],
    pub negations: &'static [&'static str],
    pub negation_scope: Scope,
    /// Whether a request may come after the term (`Passwort eingeben`,
    /// `パスワードを入力`), as in verb-final languages; otherwise it must come
    /// before (`enter your password`). Near cues may always come after
    /// (`password required`).
    pub cues_follow_terms: bool,
    pub card: &'static [&'static str],
    pub otp: &'static [&'static str],
    pub address: &'static [&'static str],
    pub map: &'static [&'static str],
    /// Values that may carry a credential inside them (connection strings,
    /// DSNs, database URLs): passwords only if the request says so.
    pub carriers: &'static [&'static str],
    /// Words that make a nearby term the person's own secret (`current`,
    /// `my`); `own_cues` also ask (`is your`, `which of these is`, `one of
    /// these`, `word # of`, where `#` stands for 1 to 24).
    pub own: &'static [&'static str],
    pub own_cues: &'static [&'static str],
    /// Services and kinds of tokens and keys that may stand between a
    /// request and its term (`npm`, `deploy`, `production`).
    pub qualifiers: &'static [&'static str],
    /// Bare nouns that name a credential only right after a qualifier.
    pub qualified: &'static [(Category, &'static [&'static str])],
}

impl LangRules {
    /// A table without the newer lists, to start from.
    pub(crate) const EMPTY: Self = Self {
        code: "",
        terms: &[],
        conditional: &[],
        blockers: &[],
        not_requests: &[],
        meta_before: &[],
        meta_after: &[],
        statements: &[],
        cues: &[],
        near_cues: &[],
        negations: &[],
        negation_scope: Scope::Forward,
        cues_follow_terms: false,
        card: &[],
        otp: &[],
        address: &[],
        map: &[],
        carriers: &[],
        own: &[],
        own_cues: &[],
        qualifiers: &[],
        qualified: &[],
    };
}

/// Every built-in language.
pub(crate) const LANGUAGES: &[&LangRules] = &[
    &en::RULES,
    &es::RULES,
    &fr::RULES,
    &de::RULES,
    &pt::RULES,
    &it::RULES,
    &nl::RULES,
    &pl::RULES,
    &tr::RULES,
    &ru::RULES,
    &ar::RULES,
    &hi::RULES,
    &zh::RULES,
    &ja::RULES,
    &ko::RULES,
];

/// How many tokens may separate a term from a request cue.
pub(crate) const CUE_GAP: u8 = 4;
/// How many tokens may separate a term from a near cue.
pub(crate) const NEAR_CUE_GAP: u8 = 1;
/// How many tokens may separate a term from an ownership cue.
pub(crate) const OWN_CUE_GAP: u8 = 3;

/// Adds every built-in rule to `builder`.
pub(crate) fn add_builtin(builder: &mut MatcherBuilder) {
    for lang in LANGUAGES {
        let code = lang.code;
        let mut add = |specs: &[&str], kind: Kind| {
            for spec in specs {
                builder.add(spec, kind, code);
            }
        };
        for &(category, specs) in lang.terms {
            add(specs, Kind::Term(category, Sense::Plain));
        }
        for &(category, sense, specs) in lang.conditional {
            add(specs, Kind::Term(category, sense));
        }
        add(lang.blockers, Kind::Blocker);
        add(lang.not_requests, Kind::NotRequest);
        add(lang.meta_before, Kind::MetaBefore);
        add(lang.meta_after, Kind::MetaAfter);
        add(lang.statements, Kind::Statement);
        add(lang.cues, Kind::Cue { gap: CUE_GAP, after: lang.cues_follow_terms });
        add(lang.near_cues, Kind::Cue { gap: NEAR_CUE_GAP, after: true });
        add(lang.negations, Kind::Negation(lang.negation_scope));
        add(lang.card, Kind::Context(Context::Card));
        add(lang.otp, Kind::Context(Context::Otp));
        add(lang.address, Kind::Context(Context::Address));
        add(lang.map, Kind::Context(Context::Map));
        add(lang.carriers, Kind::Term(Category::Password, Sense::NeedsInline));
        add(lang.qualifiers, Kind::Qualifier);
        for &(category, specs) in lang.qualified {
            add(specs, Kind::Term(category, Sense::NeedsQualifier));
        }
        add(lang.own, Kind::Own { cue: false });
        for spec in lang.own_cues {
            if spec.contains('#') {
                for n in 1..=24 {
                    builder.add(&spec.replace('#', &n.to_string()), Kind::Own { cue: true }, code);
                }
            } else {
                builder.add(spec, Kind::Own { cue: true }, code);
            }
        }
    }
}
