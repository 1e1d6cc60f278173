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
//! - `not_negations`: phrases in which a negation word of some language means
//!   something else (Portuguese `no app`, "in the app"); a negation they
//!   overlap does not count;
//! - `meta_before` / `meta_after`: words that make a nearby term a setting or
//!   a topic instead of the credential itself (`minimum password length`,
//!   `password manager`, `reset your password`, `token budget`);
//! - `which`: question words that do the same (`which API key should I
//!   revoke?`) unless an `own` word follows the term (`which password do you
//!   use for the VPN?`), when they ask;
//! - `statements`: verbs that, right after a term at the start of a
//!   description, make it a statement about the credential rather than the
//!   name of the value (`Credentials are managed by IT`);
//! - `cues`: request verbs and questions (`enter`, `ingrese`, `geben Sie`,
//!   `請輸入`, `입력하세요`); a term at most four tokens from one, in the same
//!   clause, is being asked for (a cue comes before the term, or on either
//!   side in verb-final languages). `near_cues` must be next to the term,
//!   on either side (`confirm your password`, `password required`);
//!   `back_cues` point back at what came before (`copy the .env file and
//!   paste it here`, `pégalo`) and reach four tokens on either side;
//!   `please` makes a request of the term right before it (`your password,
//!   please`), and `question_cues` of the term right after them (`what
//!   password do you use?`);
//! - `negations` (`never`, `nunca`, `不要`) and how far they reach;
//! - context words: `card` (a payment card is being discussed), `otp` (a
//!   code is being sent: `sent`, `SMS`, `digits`), `address` and `map`;
//! - `carriers`: compound values that may hold a credential (`connection
//!   string`, `DSN`, `database URL`, a config `block` or `section`, a
//!   `request`, a `line` of a file), passwords only if the request says so;
//! - `own` and `own_cues`: words that make a nearby term the person's own
//!   secret (`current`, `is your`, `one of these`, `word #`, `characters of
//!   your`), so that a choice or a yes/no field can hold it; `own_cues` also
//!   ask, up to three tokens before the term or five after it;
//! - `qualifiers` (services and kinds of token: `npm`, `deploy`,
//!   `production`) may stand between a request and its term, and
//!   `qualified` nouns (`key`) name a credential right after one;
//! - `credential_files` (and `credential_dotfiles`, named only as
//!   dotfiles): files and command outputs whose contents are a credential
//!   (`kubeconfig`, `terraform.tfstate`, `id_rsa`, `.npmrc`, `az account
//!   get-access-token`), a category of their own; a request may also come
//!   up to [`FILE_CUE_GAP`] tokens after them in the same clause (`run
//!   gcloud auth print-access-token and paste the output`), and a path or a
//!   location of them is a topic (`where is your kubeconfig?`);
//! - `dotfiles`: files that hold secrets by nature, named only when written
//!   as a dotfile (`.env`, not the word `env`);
//! - `inline_only`: phrases that say a compound value next to them carries
//!   a credential without asking for anything themselves (`headers and
//!   all`, `keys included`, `rclone`);
//! - `possessive` (`your`, `votre`, `您的`; a suffix such as Turkish
//!   `*niz`, marked with a leading `*`, only on the term or after it) and
//!   `properties`: predicates about a value (`contains`, `is longer than`,
//!   `contient-il`, `the same as`, `your birth year`) that, up to five tokens
//!   after the person's own secret (possessed or owned, or in a language
//!   with `drops_possessives`, any), ask for a property of it;
//! - `copulas` (`is`, `lautet`, `是否为`) and `whether` (`ob`, `czy`,
//!   `かどうか`): an unquoted secret-looking value linked to a term by a
//!   copula, in a yes/no question, is a guess to confirm (`is your PIN
//!   4821?`), as is one in a choice's option (`My PIN is 1234`);
//! - `redactions`: words that, anywhere in a term's phrase, say it is left
//!   out or kept by the person (`with the key removed`, `geschwärzt`, `打码`,
//!   `into your password manager`);
//! - `queue`: phrases that show a queue ticket is discussed (Portuguese
//!   `senha de atendimento`, `totem`), so that a bare `senha` of sense
//!   `UnlessQueue` is the ticket, not a password;
//! - `security_question`: phrases that show a security question is
//!   discussed (`security question`, `question secrète`, `秘密の質問`), so
//!   that the `conditional` answers (`answer`, `réponse`, `答え`) of sense
//!   `NeedsQuestion` are passwords; a security question is also a term
//!   whose answer is asked for by `answer_cues` (`answer`, `responda`,
//!   `ответьте на`) a few tokens either side of it, or when it heads a
//!   question (`Security question: what was …?`);
//! - `need_cues`: statements that something is needed (`hace falta el`,
//!   `нужен`), which ask like cues, in the message only of a form with a
//!   free-text field;
//! - `other_sense`: phrases that show a field in which an ambiguous word of
//!   sense `UnlessOtherField` is no credential (professional `credentials`
//!   next to `licensure`, a musical `clave` next to `partitura`);
//! - `public`: words that, up to two tokens before a key or a token, make it
//!   a public one (`the public Mapbox token`), not a password or a PIN.
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
mod sv;
mod tr;
mod zh;

/// One language's rules; see the module documentation.
pub(crate) struct LangRules {
    pub code: &'static str,
    pub terms: &'static [(Category, &'static [&'static str])],
    pub conditional: &'static [(Category, Sense, &'static [&'static str])],
    pub blockers: &'static [&'static str],
    pub not_requests: &'static [&'static str],
    pub not_negations: &'static [&'static str],
    pub meta_before: &'static [&'static str],
    pub meta_after: &'static [&'static str],
    pub which: &'static [&'static str],
    pub statements: &'static [&'static str],
    pub cues: &'static [&'static str],
    pub near_cues: &'static [&'static str],
    pub back_cues: &'static [&'static str],
    pub please: &'static [&'static str],
    pub question_cues: &'static [&'static str],
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
    /// Files that hold API keys and the like, named as dotfiles (`.env`).
    pub dotfiles: &'static [&'static str],
    /// Files and command outputs that hold a credential by nature (a
    /// kubeconfig, `terraform.tfstate`, `id_rsa`, `gcloud auth
    /// print-access-token`): asked for when a request asks for their
    /// contents, also a few words after the name (`run … and paste the
    /// output`); and such files named only as dotfiles (`.npmrc`).
    pub credential_files: &'static [&'static str],
    pub credential_dotfiles: &'static [&'static str],
    /// Phrases that say a nearby compound value carries a credential.
    pub inline_only: &'static [&'static str],
    /// Possessives (`your`) and predicates about a value (`contains`).
    pub possessive: &'static [&'static str],
    /// Whether the language usually leaves the possessive out (`暗証番号は
    /// 生年月日と同じですか`), so that a property asks without one.
    pub drops_possessives: bool,
    pub properties: &'static [&'static str],
    /// Copulas (`is`, `lautet`) and yes/no question words (`whether`).
    pub copulas: &'static [&'static str],
    pub whether: &'static [&'static str],
    /// Phrases that show a security question is discussed.
    pub security_question: &'static [&'static str],
    /// Requests to answer (`answer`, `responda`), which ask for a security
    /// question's answer.
    pub answer_cues: &'static [&'static str],
    /// Statements that something is needed (`hace falta el`, `нужен`),
    /// which ask only in a form with a free-text field.
    pub need_cues: &'static [&'static str],
    /// Words that make a key or a token a public one (`public`).
    pub public: &'static [&'static str],
    /// Words that say a credential is left out, anywhere in its phrase.
    pub redactions: &'static [&'static str],
    /// Phrases that show a queue ticket is discussed.
    pub queue: &'static [&'static str],
    /// Phrases that show taxes or an invoice are discussed.
    pub tax: &'static [&'static str],
    /// Phrases that show a field in which an ambiguous word of sense
    /// `UnlessOtherField` is no credential (`licensure`, `partitura`).
    pub other_sense: &'static [&'static str],
}

impl LangRules {
    /// A table without the newer lists, to start from.
    pub(crate) const EMPTY: Self = Self {
        code: "",
        terms: &[],
        conditional: &[],
        blockers: &[],
        not_requests: &[],
        not_negations: &[],
        meta_before: &[],
        meta_after: &[],
        which: &[],
        statements: &[],
        cues: &[],
        near_cues: &[],
        back_cues: &[],
        please: &[],
        question_cues: &[],
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
        dotfiles: &[],
        credential_files: &[],
        credential_dotfiles: &[],
        inline_only: &[],
        possessive: &[],
        drops_possessives: false,
        properties: &[],
        copulas: &[],
        whether: &[],
        security_question: &[],
        answer_cues: &[],
        need_cues: &[],
        public: &[],
        redactions: &[],
        queue: &[],
        tax: &[],
        other_sense: &[],
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
    &sv::RULES,
];

/// How many tokens may separate a term from a request cue.
pub(crate) const CUE_GAP: u8 = 4;
/// How many tokens may separate a credential file or command from a request
/// after it (`run gcloud auth print-access-token and paste the output`).
pub(crate) const FILE_CUE_GAP: u8 = 8;
/// How many tokens may separate a term from a near cue.
pub(crate) const NEAR_CUE_GAP: u8 = 1;
/// How many tokens may separate a term from an ownership cue before it.
pub(crate) const OWN_CUE_GAP: u8 = 3;
/// How many tokens may separate the person's own secret from an ownership
/// cue or a property after it (`the 6-digit password of the bank app
/// starts with 19?`).
pub(crate) const PROPERTY_GAP: u8 = 5;

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
        add(lang.not_negations, Kind::NotNegation);
        add(lang.meta_before, Kind::MetaBefore);
        add(lang.meta_after, Kind::MetaAfter);
        add(lang.which, Kind::Which);
        add(lang.statements, Kind::Statement);
        add(lang.cues, Kind::Cue { gap: CUE_GAP, before: true, after: lang.cues_follow_terms });
        add(lang.near_cues, Kind::Cue { gap: NEAR_CUE_GAP, before: true, after: true });
        add(lang.back_cues, Kind::Cue { gap: CUE_GAP, before: true, after: true });
        add(lang.please, Kind::Cue { gap: NEAR_CUE_GAP, before: false, after: true });
        add(lang.question_cues, Kind::Cue { gap: NEAR_CUE_GAP, before: true, after: false });
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
        add(lang.dotfiles, Kind::Term(Category::ApiKey, Sense::NeedsDot));
        add(lang.credential_files, Kind::Term(Category::CredentialFile, Sense::Plain));
        add(lang.credential_dotfiles, Kind::Term(Category::CredentialFile, Sense::NeedsDot));
        add(lang.inline_only, Kind::Term(Category::Password, Sense::InlineOnly));
        add(lang.possessive, Kind::Possessive);
        add(lang.properties, Kind::Property);
        add(lang.copulas, Kind::Copula);
        add(lang.whether, Kind::Whether);
        add(lang.security_question, Kind::Context(Context::Question));
        add(lang.security_question, Kind::Term(Category::Password, Sense::AnswerAsked));
        add(lang.answer_cues, Kind::Answer);
        add(lang.need_cues, Kind::Need { after: lang.cues_follow_terms });
        add(lang.public, Kind::Public);
        add(lang.redactions, Kind::Negation(Scope::Both));
        add(lang.queue, Kind::Context(Context::Queue));
        add(lang.tax, Kind::Context(Context::Tax));
        add(lang.other_sense, Kind::Context(Context::OtherSense));
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
