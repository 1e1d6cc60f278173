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
//! Dutch, Polish, Turkish, Russian, Arabic, Hindi, Chinese, Japanese, Korean
//! and Swedish, through abbreviations and obfuscations (`pwd`, `pw`, `creds`,
//! `tkn`, `p4ssw0rd`, `p a s s w o r d`, `p.w.d`, `비 밀 번 호`, `x-api-key`,
//! `apiKey`, `2FA`, full-width letters, half-width katakana (`ﾊﾟｽﾜｰﾄﾞ`),
//! zero-width spaces, Cyrillic and Greek
//! look-alikes, and one-letter typos of long credential nouns: `pasword`,
//! `Passwrot`, `kontraseña`, not `passport`). It also knows the contents of
//! files and the output of commands that hold a credential by nature (a
//! kubeconfig, `~/.aws/credentials`, `terraform.tfstate`, `id_rsa`, `.npmrc`,
//! `gcloud auth print-access-token`, a "Copy as cURL" of a request), asked for
//! when their contents are (`run … and paste the output`), not their path.
//! Answers to security questions (`your mother's maiden name`, or an
//! `answer` when a security question is discussed) count as passwords.
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
//!   another sense (`Map pin label`, `Uitnodigingscode`) overrules the name
//!   (`pin`, `code`), and a name `answer` is any field's. A description
//!   that only says how the value looks (`6 digits`) does not make a field
//!   titled for something else (`Employee ID`) a one-time code.
//! - **The message and descriptions** ask only with a request at most a few
//!   words before the term (or after it, in verb-final languages), in the
//!   same clause: a verb or question such as `enter`, `paste`,
//!   `what is your`, `ingrese`, `saisissez`, `geben Sie … ein`, `digite`,
//!   `inserisci`, `voer … in`, `podaj`, `girin`, `введите`, `أدخل`, `दर्ज
//!   करें`, `请输入`, `入力してください`, `입력하세요`, or one that points
//!   back at it (`copy the .env file and paste it here`, also from the start
//!   of the next sentence: `… sent you a number by text. Type it here`; a
//!   word inside a quoted name, `the token 'deploy-send'`, is none), a `please` right
//!   after it (`your password, please`), or a `which` that a word after the
//!   term makes the person's own (`which password do you use for the
//!   VPN?`; otherwise `which API key should I revoke?` is a topic). Numbers
//!   and names of services between a request and its term do not count
//!   toward their distance. A description also counts when it starts by
//!   naming the value (`Your personal access token`) or, in a language that
//!   puts the head noun last, ends its first clause with it, unless it goes
//!   on to say something about it (`Passwords must not be entered here`).
//! - **A compound value** (a connection string, a DSN, a database URL, a
//!   config file, block or section, a curl command or any request, a
//!   header, a line of a file) asks for a password only if the request says
//!   the credential is inside it: a credential term in the same clause or
//!   the next (`the connection string, including the password`, `the DSN
//!   (with the password)`, `the request, with the Authorization header`,
//!   not `without the password` or `with the password redacted`), a phrase
//!   that says so (`headers and all`, `keys included`, `şifresiyle
//!   birlikte`) or names a tool whose configs hold keys (`rclone`), or,
//!   anywhere in the request, a URL template with a password
//!   (`postgres://user:password@host/db`), a key-value pair whose key names
//!   a secret (`Password=...;`, `?password=secret`, `secret_access_key =
//!   ...`), a header line that carries one (`Authorization: Bearer ...`),
//!   an Oracle URL with `user/password@` (not one whose password is shown
//!   masked, `app:***@`, `Password=****`), or a command line's `--password`
//!   or `-p` with `-u` (`docker login`; not in a sentence that leaves them
//!   out: `without the -u and -p values`).
//!   Files that hold secrets by nature (`.env`, `.npmrc`, `.netrc`, a
//!   kubeconfig, `~/.aws/credentials`, a keystore, the output of
//!   `printenv`) are asked for like any credential, unless the request names
//!   one variable of them (`the PORT line of your .env`; a secret one,
//!   `IYZICO_SECRET_KEY`, is a term of its own). Credential files and
//!   commands ([`Category::CredentialFile`]: a kubeconfig, `terraform.tfstate`,
//!   `id_rsa`, `.npmrc`, a WireGuard `wg0.conf` or an `.ovpn` profile,
//!   `ovh.conf`, `aws configure export-credentials`, `az account
//!   get-access-token`, `aws ecr get-login-password`, `firebase login:ci`)
//!   are asked for by a request before them or up to eight
//!   words after them in the same clause (`run gcloud auth print-access-token
//!   and paste what it prints`); their path, location or existence is a
//!   topic (`where is your kubeconfig?`, `the path of the .pgpass`), and a
//!   public key file is not a private one (`id_ed25519.pub`).
//! - **The person's own secret**: a question that makes the person reveal,
//!   confirm or choose their own secret, or any property of it, asks for it;
//!   one about a policy or an action (`how long must passwords be?`, `did
//!   you change your password?`) does not. A choice or a yes/no field can
//!   hold a credential when a word makes it the person's own (`Current
//!   password`, `Is your PIN one of these?`, `Does your PIN end with 4?`,
//!   `word #3 of your recovery phrase`, `the 7th word`, `the last two
//!   digits of your PIN`, `the 2nd and 5th characters of your password`),
//!   when a property follows the person's own or possessed secret (`is your
//!   current password longer than 8 characters?`, `tu contraseña actual
//!   tiene más de 8 caracteres`, `votre mot de passe contient-il…`, `is your
//!   PIN your birth year?`; not `should passwords be longer than 12?`), when
//!   a value next to the term is a guess to confirm (`Is 'hunter2' your
//!   password?`, `is your PIN 4821?`, `密码是否为 abc123456`, `Ваш пароль —
//!   Qwerty123?`: quoted, or a word with digits linked to the term by a
//!   copula, in a yes/no question; such a guess asks if the form can
//!   confirm it, with a yes/no or a choice field, `Ваш ПИН-код всё ещё
//!   1987?`; a quoted plain word only in a question or after a `confirm
//!   that`, so that a strength rating, `is 'zwak'.`, is none; a PIN spelled
//!   `6-3-9-1` is its digits), or when the field names a security question and its
//!   options are candidate answers (`Which street did you grow up on?`); an
//!   option that states a guess (`My PIN is 1234`) asks by itself. Two or
//!   more choices of exactly the ten digits ask for a PIN or a password digit
//!   by digit, whatever their words (`2nd digit`, `1桁目`). Such
//!   phrases also ask, a few words either side of the term. A security
//!   question asks for its answer when a request to answer it stands a few
//!   words away (`answer your security question`, `ответьте на контрольный
//!   вопрос`, `보안 질문에 답해 주세요`), or when it heads a question addressed
//!   to the person in a form with a free-text field (`Security question:
//!   what was your first car?`, `… als kind? (beveiligingsvraag)`). A number
//!   field holds the person's own secret when a request asks a property of
//!   it (`How many characters is your current password?`).
//! - **Qualified tokens and keys**: services and kinds of token between a
//!   request and its term do not count toward their distance (`enter your
//!   npm publish token`, `the production Stripe restricted key`), and a bare
//!   `key`, `PAT` or `pass` names a credential right after one (`SendGrid
//!   production mail key`, `Azure DevOps PAT`, `db pass`).
//! - **A default or an option** that holds a secret-looking value (`sk_live_…`,
//!   `ghp_…`, `AKIA…`, a PEM private key, a JWT, a card number passing the
//!   Luhn check) is a hit wherever it is. Otherwise options and defaults only
//!   inform the rest (card brands make `Expiry` a card's expiry).
//!
//! Everywhere, a term does not count when a phrase uses the word in another
//! sense (`map pin`, `PIN the tab`, `postal code`, `discount code`, `Trello
//! card`, `gift card`, `max tokens`), when a word next to it makes it a
//! setting or a topic (`password length`, `password manager`, `token
//! budget`, `reset your password`, `which 2FA method`, `password must…`,
//! `key ID`), or when it is negated or left out (`we will never ask for your
//! password`, `with the key removed`, `copy it into your password
//! manager`, `put it in the vault, not here`, `names only, no values`,
//! `replace every secret with a placeholder`; but `don't forget to include
//! the password` asks). A request that forbids giving a secret (`do not
//! paste the real password`) asks for a compound value without it: a URL
//! template (`postgres://user:password@…`) then says nothing, only a
//! credential named next to the value does. A word that has another sense
//! in the field a request is about is not a credential there (professional
//! `credentials` next to `licensure`, a musical `clave` next to
//! `partitura`). Ambiguous terms wait for the rest of the request: `expiry
//! date` is a card expiry only if a payment card is discussed somewhere in
//! the request, a bare `code` is a one-time code only if something is being
//! sent (`SMS`, `we sent`, `6 digits`) or it is the person's own (`which of
//! these is your access code?`), `security code` is a card's if a card is
//! discussed and a one-time code otherwise, `PIN code` is not a PIN in an
//! address form (it is also India's postal code), an `answer` is a password
//! only if a security question is discussed, and a Portuguese `senha` is
//! not one if a queue ticket is (`senha de atendimento`, `totem`).
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
pub mod model;
mod normalize;
mod rules;
mod secrets;
mod typo;

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
    /// The contents of a file, or the output of a command, that holds a
    /// credential by nature: a kubeconfig, `~/.aws/credentials`, a
    /// `terraform.tfstate`, an SSH private key file, the output of `gcloud
    /// auth print-access-token`, a "Copy as cURL" of a signed-in request.
    CredentialFile,
    /// One of the organisation's own terms.
    Custom,
    /// A secret that no rule names, found by the learned model reading the
    /// request as a whole (`what you type after your e-mail address`).
    Secret,
}

impl Category {
    /// Every category, in declaration order.
    pub const ALL: [Self; 16] = [
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
        Self::CredentialFile,
        Self::Custom,
        Self::Secret,
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
            Self::CredentialFile => "credential_file",
            Self::Custom => "custom",
            Self::Secret => "secret",
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
            Self::CredentialFile => "the contents of a credential file or a command's output",
            Self::Custom => "an organisation-defined credential",
            Self::Secret => "a secret",
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
    /// A security question is discussed.
    question: bool,
    /// A queue ticket is discussed.
    queue: bool,
    /// Taxes or an invoice are discussed.
    tax: bool,
    /// A field in which an ambiguous word is no credential is discussed
    /// (qualifications, music).
    other_sense: bool,
    /// The request tells the person not to give a secret (`do not paste
    /// real secrets`, `no pegues contraseñas`): a compound value it asks
    /// for is then one without them.
    prohibited: bool,
    /// A credential term next to a compound value says it is inside
    /// (`the DSN, with the password`), which a prohibition does not undo;
    /// a URL template (`postgres://user:password@…`) alone does not.
    inline_said: bool,
    /// A `pin code` of an address form is named (India's postal code): a
    /// bare `pin` in the same request is that too.
    place_pin: bool,
    /// One of the organisation's allowed terms is in the request: the
    /// organisation vouches for its vocabulary, so the model alone does not
    /// flag it.
    allowed: bool,
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
    /// Next to a quoted value, in a request that can confirm it
    /// (`Is 'hunter2' your password?` with a yes/no field).
    Quoted,
    /// An option that states a guess at the secret (`My PIN is 1234`).
    Offered,
    /// A security question that heads a question put to the person
    /// (`Security question: what was …?`).
    Question,
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
    /// For a request: the cue as written; for an offered guess: the option.
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
    /// `is your`, `one of these`), or to a quoted value.
    own: bool,
    /// Next to a quoted value, a guess to confirm (`Is 'hunter2' your
    /// password?`).
    quoted: bool,
    /// The answer to a security question, named by the question (`the
    /// street you grew up on`): a choice among candidate answers asks for
    /// it.
    answer: bool,
}

/// What one text says.
#[derive(Default)]
struct Reading {
    found: Vec<Found>,
    /// Categories whose terms appeared but did not count.
    silenced: Vec<Category>,
    /// Whether an allow-listed term appears anywhere in the text.
    allowed_anywhere: bool,
    /// Where phrases that use a credential word in another sense are.
    blockers: Vec<(u32, u32)>,
}

/// Buffers reused across the texts of one request.
#[derive(Default)]
struct Scratch {
    norm: Norm,
    matches: Vec<Match>,
    secrets: Vec<secrets::SecretValue>,
    /// Quoted values: original byte ranges, then normalised ones with the
    /// clauses they belong to.
    quoted: Vec<(usize, usize)>,
    quoted_norm: Vec<(u32, u32, u32, u32)>,
    /// For each of `quoted_norm`: whether the value may be a guess to confirm by itself, next to
    /// a term: it looks like a secret (`'Summer2024'`), or its sentence is a question (`still
    /// 'sunshine'?`). A plain word in a statement is a rating or a label (`is 'zwak'.`).
    quoted_confirms: Vec<bool>,
    /// Tokens that could be a guess at a secret: quoted, or of at least four
    /// characters with a digit.
    guesses: Vec<u32>,
    /// Whether the text being read is a choice's options, each of which is
    /// an answer: a guess there needs no question mark (`My PIN is 1234`).
    options: bool,
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
const CARRIER_GAP: u32 = 10;
/// How many tokens may separate a term from a word that makes it the
/// person's own.
const OWN_GAP: u32 = 3;
/// How many tokens may separate a possessive before a term from it (one
/// more after it, or in Chinese and Japanese).
const POSSESSIVE_GAP: u32 = 1;
/// How many tokens may separate a term from an unquoted guess at it, and
/// from a quoted one linked to it by a copula.
const GUESS_TOKENS: u32 = 4;
const GUESS_REACH: u32 = 8;

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

    /// Whether pattern `id` comes from a language that usually leaves the
    /// possessive out.
    fn drops_possessives(&self, id: u32) -> bool {
        let lang = self.pattern(id).lang;
        rules::LANGUAGES.iter().any(|l| l.code == lang && l.drops_possessives)
    }

    /// Whether pattern `id` comes from a language whose requests follow
    /// their object (`पासवर्ड दर्ज करें`), which also ends noun phrases with
    /// their head.
    fn head_final(&self, id: u32) -> bool {
        let lang = self.pattern(id).lang;
        rules::LANGUAGES.iter().any(|l| l.code == lang && l.cues_follow_terms)
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
    ///
    /// The phrase rules decide first; the learned model ([`model`]) then
    /// reads the request as a whole. A request no rule flags is an ask if
    /// the model is sure of it and a field can hold a secret (one hit,
    /// [`Category::Secret`], where the word that weighs most is); a built-in
    /// rule's hits are dropped if the model is sure the request, long enough
    /// to judge, asks for nothing. The organisation's own terms are never
    /// overruled, and where one of its allowed terms appears the model alone
    /// flags nothing. A form of more than [`model::MAX_FIELDS`] fields is
    /// left to the rules.
    #[must_use]
    pub fn detect(&self, ask: &AskText<'_>) -> Vec<CredentialHit> {
        self.detect_with(ask, Some(model::builtin()), &model::Thresholds::default())
    }

    /// What the detector finds in a URL-mode request: a message and a page
    /// to open, no form. Only the phrase rules read it; the learned model
    /// judges what a form asks the person to send back, and would read the
    /// usual `Sign in to GitHub to connect your account` as an ask.
    #[must_use]
    pub fn detect_url_request(&self, message: &str) -> Vec<CredentialHit> {
        if self.mode == CredentialAskMode::Off {
            return Vec::new();
        }
        self.detect_by_rules(&AskText { message, fields: Vec::new() }).0
    }

    /// [`detect`](Self::detect) with another model or other thresholds: for
    /// training and measuring a model (`examples/train_credential_model.rs`).
    /// `None` leaves the model out: the phrase rules alone.
    #[doc(hidden)]
    #[must_use]
    pub fn detect_with(
        &self,
        ask: &AskText<'_>,
        model: Option<&model::Model>,
        thresholds: &model::Thresholds,
    ) -> Vec<CredentialHit> {
        if self.mode == CredentialAskMode::Off {
            return Vec::new();
        }
        let (mut hits, allowed) = self.detect_by_rules(ask);
        let Some(model) = model.filter(|_| ask.fields.len() <= model::MAX_FIELDS) else { return hits };
        let score = model.score(ask);
        if hits.is_empty() {
            // A form of no field asks in its message (`just reply with the
            // code`); a field asks if it takes a value, or if it is a yes/no
            // whose question spells out a guess (`Is that still Rover2019!?`)
            // or names part of one (`'88'`, `Does your PIN start with 7?`),
            // in the message or a field's title or description. A yes/no
            // that spells nothing (`Does it start with a capital letter?`)
            // is the rules' to read: the model alone on every yes/no, from
            // 0.9 or even 0.97, cost a false alarm for every ask it caught,
            // or two (docs/performance.md). A URL-mode request is not read
            // here ([`Self::detect_url_request`]).
            let can_hold = || {
                ask.fields.is_empty()
                    || ask.fields.iter().any(|f| f.kind != FieldKind::Boolean)
                    || spells_out_a_guess(ask.message)
                    || ask.fields.iter().any(|f| {
                        f.title.is_some_and(spells_out_a_guess)
                            || f.description.is_some_and(spells_out_a_guess)
                    })
            };
            if score.logit >= thresholds.ask_at
                && !allowed
                && can_hold()
                && let Some((location, word)) = model.strongest(ask)
            {
                hits.push(learned_hit(location, &word, score.probability()));
            }
        } else if score.logit < thresholds.doubt_below && score.features >= thresholds.doubt_from_features {
            hits.retain(|h| h.category == Category::Custom);
        }
        hits
    }

    /// What the phrase rules find, and whether an allowed term was seen.
    fn detect_by_rules(&self, ask: &AskText<'_>) -> (Vec<CredentialHit>, bool) {
        let scratch = &mut Scratch::default();
        let mut evidence = Evidence::default();
        let mut pending = Vec::new();

        let reading = self.read(ask.message, scratch, &mut evidence);
        // A guess next to a quoted value asks only if the form can confirm
        // it: a yes/no or a choice field (`Ваш ПИН-код всё ещё 1987?` with a
        // yes box and a telephone number beside it).
        let confirm_only = ask.fields.is_empty()
            || ask.fields.iter().any(|f| matches!(f.kind, FieldKind::Boolean | FieldKind::Choice));
        // A security question heading a question, or a statement that a
        // credential is needed, asks only if the form can take an answer: a
        // field that is not a yes/no one (or no field at all, a reply).
        let free_text = ask.fields.is_empty() || ask.fields.iter().any(|f| f.kind != FieldKind::Boolean);
        let heads = |x: &Found| {
            x.cue.is_some_and(|(pat, start, _)| {
                (pat == x.pat && start == x.start) || matches!(self.pattern(pat).kind, Kind::Need { .. })
            })
        };
        for found in firsts(&reading.found, |x| {
            (x.cue.is_some() && (free_text || !heads(x))) || (x.quoted && confirm_only)
        }) {
            pending.push(self.pending(HitLocation::Message, ask.message, &scratch.norm, found, found.cue));
        }
        for field in &ask.fields {
            self.field(field, scratch, &mut evidence, &mut pending);
        }
        // Two or more choices of the ten digits each (`2nd digit`, `1桁目`, `الرقم الثاني`): a
        // PIN or a password asked for digit by digit, whatever the language around them.
        if ask.fields.iter().filter(|f| digit_picker(f)).count() >= 2 {
            for field in ask.fields.iter().filter(|f| digit_picker(f)) {
                pending.push(Pending {
                    location: HitLocation::Field { name: field.name.to_owned(), part: FieldPart::EnumValue },
                    category: Category::Pin,
                    sense: Sense::Plain,
                    matched: "0–9".to_owned(),
                    reason: Reason::Value {
                        what: "one digit of a PIN or a password, asked for digit by digit",
                    },
                    pattern: None,
                    cue_text: String::new(),
                });
            }
        }
        // A URL template with a password in it, or a `password=…` pair, says
        // that a compound value carries a credential (looked for only when
        // one is asked for).
        evidence.inline_said = evidence.inline;
        if !evidence.inline && pending.iter().any(|p| p.sense == Sense::NeedsInline) {
            evidence.inline = secrets::inline_credential(ask.message)
                || ask.fields.iter().any(|f| {
                    [f.title, f.description, f.default.as_deref()]
                        .into_iter()
                        .flatten()
                        .any(secrets::inline_credential)
                });
        }
        let allowed = evidence.allowed;
        (self.settle(pending, evidence), allowed)
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
        // Without a term, a text only gives evidence about the request.
        let (mut any_term, mut any_property, mut any_guess_word) = (false, false, false);
        let (mut any_qualifier, mut any_own, mut any_possessive, mut any_question) =
            (false, false, false, false);
        for m in &s.matches {
            match m.kind {
                Kind::Term(..) => any_term = true,
                Kind::Context(Context::Question) => any_question = true,
                Kind::Property => any_property = true,
                Kind::Possessive => any_possessive = true,
                Kind::Copula | Kind::Whether => any_guess_word = true,
                Kind::Qualifier => any_qualifier = true,
                Kind::Own { .. } => any_own = true,
                _ => {}
            }
        }
        let drop_possessives = any_possessive && !any_property;
        any_possessive &= any_property;
        s.quoted.clear();
        if any_term && s.norm.quotes {
            secrets::quoted_values(text, &mut s.quoted);
        }
        s.quoted_norm.clear();
        s.quoted_confirms.clear();
        for &(a, b) in &s.quoted {
            let from = s.norm.orig.partition_point(|&o| (o as usize) < a);
            let to = s.norm.orig.partition_point(|&o| (o as usize) < b);
            if from >= to {
                continue;
            }
            // A dash before the value is a copula, not a clause end (`Ваш
            // пароль — «Kazan2020»?`).
            let clause = s.norm.tokens[s.norm.tok[from] as usize].clause;
            let opening = text[..a].trim_end_matches(char::is_whitespace);
            let before = opening.trim_end_matches(|c: char| !c.is_alphanumeric() && c != '—' && c != '–');
            let lo = clause.saturating_sub(u32::from(before.ends_with(['—', '–'])));
            s.quoted_norm.push((from as u32, to as u32, lo, clause));
            s.quoted_confirms.push(guess_literal(&text[a..b]) || question_after(text, b));
        }
        // A guess needs a value: a quoted one, or a word of at least four
        // characters with a digit.
        s.guesses.clear();
        if any_term && (!s.quoted_norm.is_empty() || s.norm.text.bytes().any(|b| b.is_ascii_digit())) {
            let bytes = s.norm.text.as_bytes();
            let (mut start, mut t, mut digit) = (0usize, 0u32, false);
            for end in 0..=bytes.len() {
                let b = bytes.get(end).copied().unwrap_or(SPACE);
                if b != SPACE && b != CLAUSE {
                    digit |= b.is_ascii_digit();
                    continue;
                }
                let in_quotes =
                    s.quoted_norm.iter().any(|&(a, b, _, _)| a as usize <= start && end <= b as usize);
                if in_quotes || (digit && end - start >= 4) {
                    s.guesses.push(t);
                }
                (start, t, digit) = (end + 1, t + 1, false);
            }
        }
        let may_guess = !s.guesses.is_empty();
        // Possessives matter only to a property, copulas and question words
        // only to a guess: without those, they are dropped, so that every
        // look around a term stays short.
        if any_guess_word || drop_possessives {
            s.matches.retain(|m| match m.kind {
                Kind::Possessive => any_property,
                Kind::Copula | Kind::Whether => may_guess,
                _ => true,
            });
        }
        let quoted = &s.quoted_norm;
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
        // Blockers cancel whatever they overlap; not-requests only cues,
        // not-negations only negations.
        let blocked = |m: &Match| {
            let cue = matches!(m.kind, Kind::Cue { .. } | Kind::Answer | Kind::Need { .. });
            let negation = matches!(m.kind, Kind::Negation(_));
            near(m).iter().any(|o| {
                (o.kind == Kind::Blocker
                    || (cue && o.kind == Kind::NotRequest)
                    || (negation && o.kind == Kind::NotNegation))
                    && o.start < m.end
                    && m.start < o.end
            })
        };
        let clause = |byte: u32| norm.tokens[norm.tok[byte as usize] as usize].clause;
        let phrase = |byte: u32| norm.tokens[norm.tok[byte as usize] as usize].phrase;

        let mut allow_clauses: Vec<u32> = Vec::new();
        for m in matches {
            let k = m.kind;
            if k == Kind::Blocker {
                reading.blockers.push((m.start, m.end));
            }
            // A queue phrase is often also a blocker of the word it holds
            // (`senha de atendimento`): it still says a queue is discussed;
            // so does another sense's (`clave de sol`), and a map's (`pin en
            // el mapa`).
            if matches!(k, Kind::Term(..) | Kind::Context(_) | Kind::Allow)
                && !matches!(k, Kind::Context(Context::Queue | Context::OtherSense | Context::Map))
                && blocked(m)
            {
                continue;
            }
            match k {
                Kind::Context(Context::Card) => evidence.card = true,
                Kind::Context(Context::Otp) => evidence.otp = true,
                Kind::Context(Context::Address) => evidence.address = true,
                Kind::Context(Context::Map) => evidence.map = true,
                Kind::Context(Context::Question) => evidence.question = true,
                Kind::Context(Context::Queue) => evidence.queue = true,
                Kind::Context(Context::Tax) => evidence.tax = true,
                Kind::Context(Context::OtherSense) => evidence.other_sense = true,
                Kind::Term(c, Sense::Plain) => match c {
                    Category::CardNumber | Category::CardSecurityCode | Category::CardExpiry => {
                        evidence.card = true
                    }
                    Category::OneTimeCode => evidence.otp = true,
                    _ => {}
                },
                Kind::Allow => {
                    reading.allowed_anywhere = true;
                    evidence.allowed = true;
                    allow_clauses.push(clause(m.start));
                }
                _ => {}
            }
        }

        // Qualifiers and ownership words between a request and its term do
        // not count toward their distance (`enter your npm publish token`).
        let any_skippable = any_qualifier || any_own;
        // So do numbers (`the 3rd, 5th and 8th character of your password`).
        let bytes = norm.text.as_bytes();
        let numbers = |from: u32, to: u32| -> u32 {
            let span = &bytes[from as usize..to as usize];
            span.split(|&b| b == SPACE || b == CLAUSE)
                .filter(|t| !t.is_empty() && t.iter().all(u8::is_ascii_digit))
                .count() as u32
        };
        let skipped = |around: &[Match], from: u32, to: u32| -> u32 {
            let mut n = numbers(from, to);
            if !any_skippable {
                return n;
            }
            let mut last = u32::MAX;
            for o in around {
                if matches!(o.kind, Kind::Qualifier | Kind::Own { .. })
                    && from <= o.start
                    && o.end <= to
                    && o.start != last
                {
                    // In Chinese or Japanese, as many tokens as the
                    // distance counts for its characters.
                    n += if norm.tokens[norm.tok[o.start as usize] as usize].dense {
                        (norm.text[o.start as usize..o.end as usize].chars().count() as u32) / 2
                    } else {
                        norm.tok[o.end as usize - 1] - norm.tok[o.start as usize] + 1
                    };
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
            if sense == Sense::NeedsDot {
                // A dotfile names its secrets, unless the request names one
                // variable of it (`the PORT line of your .env`; a secret one,
                // `IYZICO_SECRET_KEY`, is a term of its own).
                if !norm.tokens[norm.tok[m.start as usize] as usize].dotted
                    || names_variable(text, norm, clause(m.start), matches)
                {
                    continue;
                }
                sense = Sense::Plain;
            }
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
            // over `password`), except over a security question, whose answer
            // a request to answer asks for (`odpowiedz na pytanie
            // bezpieczeństwa` also reads as the noun, "the answer to …"), and
            // over a phrase that says a compound value carries a credential
            // (`mongodb+srv` in `cadena mongodb+srv`).
            let contained = !matches!(sense, Sense::AnswerAsked | Sense::InlineOnly)
                && around.iter().any(|o| {
                    matches!(o.kind, Kind::Term(_, s) if s != Sense::InlineOnly && s != Sense::AnswerAsked)
                        && o.start <= m.start
                        && m.end <= o.end
                        && (o.end - o.start) > (m.end - m.start)
                        && !blocked(o)
                });
            if contained {
                continue;
            }
            let c = clause(m.start);
            // A security question, whose answer only a request to answer asks for.
            let asked_answer = sense == Sense::AnswerAsked;
            // A security question's answer, named by the question itself.
            let answer = !asked_answer
                && any_question
                && around.iter().any(|o| {
                    o.kind == Kind::Context(Context::Question)
                        && o.start < m.end
                        && m.start < o.end
                        && !blocked(o)
                });
            // A word right after the term that makes it the person's own
            // (`which password do you use`) turns `which` into a request.
            let owned_after = any_own
                && around.iter().any(|o| {
                    matches!(o.kind, Kind::Own { .. })
                        && m.end <= o.start
                        && clause(o.start) == c
                        && gap(norm, m.end, o.start) <= OWN_GAP
                        && !blocked(o)
                });
            let before_within = |o: &Match, reach: u32| {
                o.end <= m.start && clause(o.end - 1) == c && gap(norm, o.end, m.start) <= reach
            };
            // The tokens between `o` and the term, less those that do not
            // count (numbers, qualifiers, ownership words).
            let distance = |o: &Match| {
                let (from, to) = if o.end <= m.start { (o.end, m.start) } else { (m.end, o.start) };
                gap(norm, from, to).saturating_sub(skipped(around, from, to))
            };
            let own_near = || {
                any_own
                    && around.iter().any(|o| {
                        matches!(o.kind, Kind::Own { .. })
                            && clause(o.start) == c
                            && (o.end <= m.start || m.end <= o.start)
                            && distance(o) <= OWN_GAP
                            && !blocked(o)
                    })
            };
            // A possessive right before the term, or just after it (`the
            // password of your account`); a suffix only on the term or after
            // it (`şifreniz`, `لحسابك`, not `شركتك كلمات مرور`, "your company
            // … passwords").
            let possessed = any_possessive
                && around.iter().any(|o| {
                    if o.kind != Kind::Possessive || clause(o.start) != c || blocked(o) {
                        return false;
                    }
                    let after = m.end <= o.start && distance(o) <= POSSESSIVE_GAP + 1;
                    if self.pattern(o.pat).source.starts_with('*') {
                        return (m.start <= o.start && o.start < m.end) || after;
                    }
                    let dense = norm.tokens[norm.tok[o.start as usize] as usize].dense;
                    after || (o.end <= m.start && distance(o) <= POSSESSIVE_GAP + u32::from(dense))
                });
            // A meta word right after the term, unless a quotation or a
            // colon stands between them (`question secrète : « Nom … »`) or it
            // begins a property of the person's own secret (`is your password
            // at least 12 characters?`), or it names a part of a compound
            // value (`the ConnectionStrings section`).
            let meta_after = |o: &Match| {
                sense != Sense::NeedsInline
                    && o.start >= m.end
                    && clause(o.start) == c
                    && gap(norm, m.end, o.start) == 0
                    && !text[orig_end(text, norm, m.end)..orig_start(text, norm, o.start)]
                        .contains(|ch: char| ch == ':' || normalize::is_quote(ch))
                    && !around.iter().any(|q| {
                        q.start == o.start
                            && q.end >= o.end
                            && (matches!(q.kind, Kind::Own { cue: true })
                                || (q.kind == Kind::Property && (possessed || own_near())))
                    })
            };
            let silenced = allow_clauses.contains(&c)
                || around.iter().any(|o| match o.kind {
                    Kind::MetaAfter => meta_after(o),
                    // Not when a property of the person's own secret
                    // follows (`our records show your PIN ends in 39`).
                    // Nor when a request stands between them (`لاستعادة
                    // المحفظة، أدخل عبارة الاسترداد`, "to recover the wallet,
                    // enter the recovery phrase").
                    Kind::MetaBefore => {
                        before_within(o, META_BEFORE_GAP)
                            && !around.iter().any(|q| {
                                matches!(q.kind, Kind::Cue { .. })
                                    && o.end <= q.start
                                    && q.end <= m.start
                                    && !blocked(q)
                            })
                            && !around.iter().any(|q| {
                                q.kind == Kind::Own { cue: true }
                                    && ((q.start >= m.end
                                        && clause(q.start) == c
                                        && gap(norm, m.end, q.start) <= 1)
                                        // A meta word inside an ownership cue
                                        // (`كم عدد أحرف`, "how many letters").
                                        || (q.start <= o.start && o.end <= q.end && q.end <= m.start))
                            })
                    }
                    // A request that starts with the question word (`cuál
                    // es tu`, `which of these is`) reads it.
                    // `Which street did you grow up on?` asks the answer.
                    Kind::Which => {
                        !owned_after
                            && !answer
                            && before_within(o, META_BEFORE_GAP)
                            && !around.iter().any(|q| {
                                matches!(q.kind, Kind::Cue { .. } | Kind::Own { .. })
                                    && q.start <= o.start
                                    && o.end < q.end
                            })
                    }
                    Kind::Public => {
                        matches!(category, Category::ApiKey | Category::AccessToken)
                            && before_within(o, META_BEFORE_GAP)
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
                // A negated request for a secret (`do not paste the real
                // password`, `no escribas la contraseña`) forbids giving it.
                // (`Geben Sie das echte Passwort nicht ein`).
                evidence.prohibited |=
                    matches!(sense, Sense::Plain | Sense::UnlessQueue | Sense::UnlessOtherField)
                        && around.iter().any(|n| {
                            matches!(n.kind, Kind::Negation(_))
                                && (n.end <= m.start || m.end <= n.start)
                                && phrase(n.start) == phrase(m.start)
                                && !blocked(n)
                        })
                        && around.iter().any(|q| {
                            matches!(q.kind, Kind::Cue { .. })
                                && phrase(q.start) == phrase(m.start)
                                && (if q.end <= m.start {
                                    gap(norm, q.end, m.start)
                                } else {
                                    gap(norm, m.end, q.start)
                                }) <= u32::from(rules::CUE_GAP)
                                && !blocked(q)
                        });
                reading.silenced.push(category);
                continue;
            }
            evidence.place_pin |= sense == Sense::UnlessPlace && category == Category::Pin;
            let own = own_near();
            // A request that opens the next sentence and points back with a pronoun (`… sent
            // you a number by text. Type it here`) asks for what the sentence before it ended on.
            let points_back = |o: &Match| {
                clause(o.start) == c + 1
                    && norm.tok[o.start as usize] == norm.tokens.partition_point(|k| k.clause <= c) as u32
                    && matches!(o.kind, Kind::Cue { .. })
                    && {
                        // `it`, `them`; German `es`, `ihn`, or `sie` as the object after `Sie`;
                        // French `le`, `la`, `les`; a Spanish or Italian verb with its object
                        // glued on (`pásamelo`, `incollalo`).
                        let words = self.pattern(o.pat).source.split(' ');
                        words.clone().any(|w| {
                            matches!(w, "it" | "them" | "es" | "ihn" | "le" | "la" | "les")
                                || (w.chars().count() > 5
                                    && ["lo", "la", "los", "las"].iter().any(|e| w.ends_with(e)))
                        }) || words.filter(|w| w.eq_ignore_ascii_case("sie")).count() >= 2
                    }
            };
            let cue = around
                .iter()
                .filter_map(|o| match o.kind {
                    Kind::Answer if asked_answer && (o.end <= m.start || m.end <= o.start) => {
                        Some((o, u32::from(rules::CUE_GAP)))
                    }
                    _ if asked_answer => None,
                    Kind::Need { after } if o.end <= m.start || (after && m.end <= o.start) => {
                        Some((o, u32::from(rules::CUE_GAP)))
                    }
                    // A request a few words after a credential file or
                    // command (`run … and paste the output here`).
                    Kind::Cue { .. } if category == Category::CredentialFile && m.end <= o.start => {
                        Some((o, u32::from(rules::FILE_CUE_GAP)))
                    }
                    Kind::Cue { gap: reach, before, after }
                        if (before && o.end <= m.start) || (after && m.end <= o.start) =>
                    {
                        Some((o, u32::from(reach)))
                    }
                    Kind::Own { cue: true } if o.end <= m.start => Some((o, u32::from(rules::OWN_CUE_GAP))),
                    // Not an age (`ha più di 90 giorni`, `已使用超过 180 天`).
                    Kind::Own { cue: true } if m.end <= o.start && !age_after(norm, o.end) => {
                        Some((o, u32::from(rules::PROPERTY_GAP)))
                    }
                    Kind::Property
                        if m.end <= o.start
                            && (own || possessed || self.drops_possessives(o.pat))
                            && !age_after(norm, o.end) =>
                    {
                        Some((o, u32::from(rules::PROPERTY_GAP)))
                    }
                    Kind::Which if (owned_after || answer) && o.end <= m.start => {
                        Some((o, u32::from(rules::CUE_GAP)))
                    }
                    _ => None,
                })
                .filter(|(o, _)| {
                    // A parenthesis between a term and a request after it
                    // stays in the sentence (`把连接串（包括密码）发给我`).
                    clause(o.start) == c
                        || (m.end <= o.start && parenthesis_between(text, norm, m.end, o.start))
                        || (m.end <= o.start && points_back(o))
                })
                .filter(|(o, _)| {
                    !in_quoted_name(text, orig_start(text, norm, o.start), orig_end(text, norm, o.end))
                })
                .map(|(o, reach)| {
                    let (from, to) = if o.end <= m.start { (o.end, m.start) } else { (m.end, o.start) };
                    let mut distance = gap(norm, from, to);
                    if distance > reach {
                        distance = distance.saturating_sub(skipped(around, from, to));
                    }
                    (o, reach, distance)
                })
                .filter(|&(o, reach, distance)| distance <= reach && !blocked(o))
                .min_by_key(|&(_, _, distance)| distance)
                .map(|(o, _, _)| {
                    (o.pat, o.start, o.end, matches!(o.kind, Kind::Own { .. } | Kind::Property))
                });
            // An ownership cue or a property makes the secret the person's own.
            let (mut cue, cue_owns) = match cue {
                Some((pat, start, end, owns)) => (Some((pat, start, end)), owns),
                None => (None, false),
            };
            // Without a request to answer it, a security question asks only
            // when it heads a question; it is then its own cue.
            if asked_answer && cue.is_none() {
                if !heads_question(text, norm, m.start, m.end) {
                    continue;
                }
                cue = Some((m.pat, m.start, m.end));
            }
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
                evidence.prohibited |=
                    matches!(sense, Sense::Plain | Sense::UnlessQueue | Sense::UnlessOtherField);
                reading.silenced.push(category);
                continue;
            }
            // A description that opens with the term names the value, unless
            // it goes on to negate it ("Passwords must not be entered here")
            // or to say something about it ("Credentials are managed by IT").
            let statement = around.iter().any(|o| match o.kind {
                Kind::Negation(_) => o.start >= m.end && phrase(o.start) == phrase(m.start) && !blocked(o),
                Kind::Statement => o.start >= m.end && clause(o.start) == c && gap(norm, m.end, o.start) == 0,
                _ => false,
            });
            // A plain quoted word confirms only where the clause asks to (`Conferma che … è
            // 'tigre'`, `whether`).
            let asks_to_confirm =
                around.iter().any(|o| o.kind == Kind::Whether && (o.end <= m.start || clause(o.start) == c));
            let near_quote = quoted.iter().zip(&s.quoted_confirms).any(|(&(a, b, lo, hi), &confirms)| {
                (confirms || asks_to_confirm)
                    && (lo..=hi).contains(&c)
                    && (b <= m.start || m.end <= a)
                    && (if b <= m.start { gap(norm, b, m.start) } else { gap(norm, m.end, a) }) <= OWN_GAP
            }) || (may_guess && self.guessed(text, s, m, around));
            let first_token = norm.tok[m.start as usize];
            // In a language that puts the head noun last, a description may
            // name its value at the end of its first clause (`बैंक ऐप में
            // इस्तेमाल होने वाला पासवर्ड`).
            let ends_clause = norm.text.as_bytes().get(m.end as usize).is_none_or(|&b| b == CLAUSE);
            let head_last = c == 0 && ends_clause && first_token >= HEAD_TOKENS && self.head_final(m.pat);
            reading.found.push(Found {
                start: m.start,
                end: m.end,
                pat: m.pat,
                category,
                sense,
                cue,
                first_clause: c == 0,
                head: c == 0 && (first_token < HEAD_TOKENS || head_last) && !statement,
                own: own || near_quote || cue_owns,
                quoted: near_quote,
                answer,
            });
        }
        // A compound value with a credential next to it, in the same clause
        // or the next (`the connection string, including the password`, `the
        // DSN (with the password)`), carries it.
        let secret = |c: Category| {
            matches!(
                c,
                Category::Password
                    | Category::Passphrase
                    | Category::ApiKey
                    | Category::AccessToken
                    | Category::ClientSecret
                    | Category::PrivateKey
                    | Category::SessionCookie
                    | Category::CredentialFile
                    | Category::Custom
            )
        };
        for carrier in reading.found.iter().filter(|x| x.sense == Sense::NeedsInline) {
            if evidence.inline {
                break;
            }
            let carrier_clause = clause(carrier.start);
            let from = matches.partition_point(|o| o.start + REACH < carrier.start);
            let to = matches.partition_point(|o| o.start <= carrier.end + REACH);
            let around = &matches[from..to];
            evidence.inline = reading.found.iter().any(|x| {
                // In the same clause, or in the one right after it.
                let next = x.start > carrier.end && clause(x.start) == carrier_clause + 1;
                matches!(
                    x.sense,
                    Sense::Plain | Sense::InlineOnly | Sense::UnlessQueue | Sense::UnlessOtherField
                ) && secret(x.category)
                    && (clause(x.start) == carrier_clause || next)
                    && (if x.end <= carrier.start {
                        gap(norm, x.end, carrier.start).saturating_sub(skipped(around, x.end, carrier.start))
                    } else if x.start < carrier.end {
                        0
                    } else {
                        gap(norm, carrier.end, x.start).saturating_sub(skipped(around, carrier.end, x.start))
                    }) <= CARRIER_GAP
            });
        }
        reading
    }

    /// Whether a value a few tokens from the term at `m`, in a yes/no
    /// question (a question mark, or a word such as `whether`, `ob`, `是否`,
    /// `かどうか`), is a guess at it: a secret-looking word (`Ahmed@1990`,
    /// `abc123456`, `4821`) right next to the term (`Ваш пароль Qwerty123?`)
    /// or linked to it by a copula between them (`is your PIN 4821?`,
    /// `密码是否为 abc123456`, a dash: `пароль — Qwerty123?`) or, in a
    /// verb-final language, right after it (`पासवर्ड Rahul@123 है?`,
    /// `Passwort abc123456 lautet`); or a quoted value further off, in the
    /// same phrase, with a copula between (`the password of your work e-mail
    /// is still 'Verao2024!'?`).
    fn guessed(&self, text: &str, s: &Scratch, m: &Match, around: &[Match]) -> bool {
        let (norm, quoted, guesses) = (&s.norm, &s.quoted_norm, &s.guesses);
        let token = |t: u32| norm.tokens[t as usize];
        let first = norm.tok[m.start as usize];
        let last = norm.tok[m.end as usize - 1];
        // Nothing to look at within reach: the usual case.
        if !guesses.iter().any(|&g| g + 3 >= first && g <= last + GUESS_REACH) {
            return false;
        }
        let c = token(first).clause;
        for forward in [true, false] {
            let mut dash = false;
            for k in 1..=GUESS_REACH {
                let Some(t) = (if forward { last.checked_add(k) } else { first.checked_sub(k) }) else {
                    break;
                };
                if t as usize >= norm.tokens.len() {
                    break;
                }
                if token(t).clause != c {
                    // Only a dash right after the term joins the next clause.
                    let joins = forward && k == 1 && token(t).clause == c + 1 && {
                        let from = orig_end(text, norm, m.end);
                        let (ts, _) = token_bytes(norm, t);
                        text.get(from..orig_start(text, norm, ts)).is_some_and(|s| s.contains(['—', '–']))
                    };
                    if !joins {
                        break;
                    }
                    dash = true;
                } else if token(t).phrase != token(first).phrase {
                    break;
                }
                if !guesses.contains(&t) {
                    continue;
                }
                let (ts, te) = token_bytes(norm, t);
                let in_quotes = quoted.iter().any(|&(a, b, _, _)| a <= ts && te <= b);
                let value = &text[orig_start(text, norm, ts)..orig_end(text, norm, te)];
                if !in_quotes && !guess_literal(value) {
                    continue;
                }
                // A number is a count of tokens or keys (`1200 jeton`, `500
                // tokens`), never a guess at one.
                if !digits_may_be(m.kind)
                    && value.bytes().all(|b| b.is_ascii_digit() || b == b'.' || b == b',')
                {
                    continue;
                }
                let copula = |o: &&Match| o.kind == Kind::Copula;
                // Further off, an unquoted value needs a copula right before
                // it (`la contraseña de tu e.firma del SAT es Mariposa88?`).
                if !in_quotes
                    && k > GUESS_TOKENS
                    && !(forward
                        && around.iter().filter(copula).any(|o| o.end <= ts && gap(norm, o.end, ts) == 0))
                {
                    return false;
                }
                let (from, to) = if forward { (m.end, ts) } else { (te, m.start) };
                let between = around.iter().filter(copula).any(|o| from <= o.start && o.end <= to);
                // Punctuation glued to the value is part of it (`Seoul2023!
                // 인가요?`).
                let value_end = orig_end(text, norm, te);
                let glued = text[value_end..]
                    .chars()
                    .take_while(|c| c.is_ascii_punctuation())
                    .map(char::len_utf8)
                    .sum::<usize>();
                let beyond = around.iter().filter(copula).any(|o| {
                    if forward {
                        o.start >= te
                            && norm.tok[o.start as usize] == t + 1
                            && text
                                .get(value_end + glued..orig_start(text, norm, o.start))
                                .is_some_and(|s| s.trim().is_empty())
                            && self.head_final(o.pat)
                    } else {
                        o.end <= ts && gap(norm, o.end, ts) == 0
                    }
                });
                let linked = dash || between || (!in_quotes && (beyond || k == 1));
                if !linked {
                    return false;
                }
                let whether = around.iter().any(|o| {
                    o.kind == Kind::Whether && {
                        let k = token(norm.tok[o.start as usize]).clause;
                        k == c || k == token(t).clause
                    }
                });
                // A full stop glued to a quoted value ends its sentence (`is 'zwak'. Wil je…?`):
                // a question in the next one is about something else.
                let ends_sentence = in_quotes && text[value_end..value_end + glued].contains('.');
                return s.options
                    || whether
                    || question_after(text, value_end)
                    || (!ends_sentence && question_after(text, value_end + glued));
            }
        }
        false
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
            let mut starts = Vec::with_capacity(total);
            for option in options.clone() {
                starts.push(joined.len());
                joined.push_str(option);
                joined.push('\n');
            }
            // An option that states a guess at the secret (`My PIN is 1234`,
            // `Mi clave es 4821`) offers it to be picked.
            s.options = true;
            let reading = self.read(&joined, s, evidence);
            s.options = false;
            for found in firsts(&reading.found, |x| x.quoted) {
                let at = s.norm.orig[found.start as usize] as usize;
                let i = starts.partition_point(|&o| o <= at) - 1;
                let (part, text) = if i < f.enum_values.len() {
                    (FieldPart::EnumValue, f.enum_values[i])
                } else {
                    (FieldPart::EnumLabel, f.enum_labels[i - f.enum_values.len()])
                };
                let (a, b) = s.norm.original_range(&joined, found.start as usize, found.end as usize);
                out.push(Pending {
                    location: location(part),
                    category: found.category,
                    sense: found.sense,
                    matched: joined[a..b].to_owned(),
                    reason: Reason::Offered,
                    pattern: Some(found.pat),
                    cue_text: shorten(text),
                });
            }
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

        // A free-text field whose default or description shows a compound
        // value with a credential in it (`redis://default:<password>@…`,
        // `Server=…;Password=…;`) asks for that credential.
        if f.kind == FieldKind::Text {
            for (part, text) in
                [(FieldPart::Default, f.default.as_deref()), (FieldPart::Description, f.description)]
            {
                if let Some(text) = text
                    && secrets::inline_credential(text)
                {
                    out.push(Pending {
                        location: location(part),
                        category: Category::Password,
                        sense: Sense::Plain,
                        matched: shorten(text),
                        reason: Reason::Value { what: "a compound value with a credential in it" },
                        pattern: None,
                        cue_text: String::new(),
                    });
                    evidence.inline = true;
                    break;
                }
            }
        }

        // A choice or a yes/no question about the person's own secret
        // (`Current password`, `Is your PIN one of these?`) extracts it.
        let holds = |x: &Found| match f.kind {
            FieldKind::Boolean => x.own,
            FieldKind::Text => true,
            // A number can also be a property of the person's own secret
            // that a request asks for (`How many characters long is your
            // current password?`, `year in password`).
            FieldKind::Number => {
                x.category.numeric() || x.category == Category::Custom || (x.own && x.cue.is_some())
            }
            FieldKind::Choice => {
                secret_options || (numeric_options && x.category.numeric()) || x.own || x.answer
            }
        };

        // The title is read before the name: a title that uses the word in
        // another sense (`Map pin label`) speaks for the field.
        // A name also takes the sense of the title's term of its category: a
        // `pin` field titled `PIN code` on an address form is a postal code.
        let mut title_hits = Vec::new();
        let mut title_silenced = Vec::new();
        let mut title_senses = Vec::new();
        // Phrases of the title that use a word in another sense, for a name
        // that holds only that word (`code` titled `Uitnodigingscode`).
        let mut title_blockers: Vec<String> = Vec::new();
        // Whether the title names a credential at all; if it names
        // something else (`Employee ID`), a description saying only how
        // the value looks (`6 digits`) does not make it a one-time code.
        let mut title_names_other = false;
        if let Some(text) = f.title {
            let reading = self.read(text, s, evidence);
            title_blockers.extend(
                reading.blockers.iter().map(|&(a, b)| s.norm.text[a as usize..b as usize].to_owned()),
            );
            title_names_other = reading.found.is_empty() && reading.silenced.is_empty();
            for found in firsts(&reading.found, |x| holds(x) && (x.first_clause || x.cue.is_some())) {
                title_hits.push(self.pending(location(FieldPart::Title), text, &s.norm, found, found.cue));
            }
            title_silenced
                .extend(reading.silenced.iter().filter(|c| !reading.found.iter().any(|x| x.category == **c)));
            title_senses.extend(reading.found.iter().map(|x| (x.category, x.sense)));
        }
        let name = self.read(f.name, s, evidence);
        let norm = &s.norm;
        let in_title_blocker = |x: &Found| {
            title_blockers.iter().any(|b| b.contains(&norm.text[x.start as usize..x.end as usize]))
        };
        // A name `answer` is any field's; only its title or description can
        // make it a security question's.
        let name_holds = |x: &Found| {
            holds(x)
                && x.sense != Sense::NeedsQuestion
                && !title_silenced.contains(&x.category)
                && !in_title_blocker(x)
        };
        for found in firsts(&name.found, name_holds) {
            let mut hit = self.pending(location(FieldPart::Name), f.name, &s.norm, found, None);
            if let Some(&(_, sense)) = title_senses.iter().find(|(c, _)| *c == found.category) {
                hit.sense = sense;
            }
            out.push(hit);
        }
        out.append(&mut title_hits);
        if let Some(text) = f.description {
            let reading = self.read(text, s, evidence);
            // Whether the description says something is being sent (`SMS`,
            // `we sent`) outside the terms that need it (`6 digits` says
            // only how a value looks); its matches are still at hand.
            let otp_outside = || {
                s.matches.iter().any(|m| {
                    m.kind == Kind::Context(Context::Otp)
                        && !s.matches.iter().any(|o| {
                            matches!(o.kind, Kind::Term(_, Sense::NeedsOtp))
                                && o.start <= m.start
                                && m.end <= o.end
                        })
                })
            };
            let head =
                |x: &Found| x.head && (x.sense != Sense::NeedsOtp || !title_names_other || otp_outside());
            for found in firsts(&reading.found, |x| holds(x) && (x.cue.is_some() || head(x))) {
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
            Some((pat, start, _)) if pat == found.pat && start == found.start => {
                (Reason::Question, String::new())
            }
            Some((pat, start, end)) => {
                let (ca, cb) = norm.original_range(text, start as usize, end as usize);
                (Reason::Request { cue: pat }, text[ca..cb].to_owned())
            }
            None if location == HitLocation::Message && found.quoted => (Reason::Quoted, String::new()),
            None if matches!(location, HitLocation::Field { part: FieldPart::Description, .. }) => {
                (Reason::Head, String::new())
            }
            None => (Reason::Label, String::new()),
        };
        // The person's own code (`which of these codes is your access
        // code?`) is a secret whatever else the request says.
        let sense = if found.own && found.sense == Sense::NeedsOtp { Sense::Plain } else { found.sense };
        Pending {
            location,
            category: found.category,
            sense,
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
        // A compound value that a credential file or command carries (`run
        // kubectl config view --raw and paste the output`) is that file's
        // contents, not a password of its own.
        let file_at = |location: &HitLocation| {
            pending.iter().any(|q| q.category == Category::CredentialFile && q.location == *location)
        };
        let skip: Vec<bool> =
            pending.iter().map(|p| p.sense == Sense::NeedsInline && file_at(&p.location)).collect();
        for (p, skip) in pending.into_iter().zip(skip) {
            if skip {
                continue;
            }
            let category = match p.sense {
                Sense::Plain => p.category,
                Sense::NeedsCard if evidence.card => p.category,
                Sense::NeedsOtp if evidence.otp => p.category,
                Sense::UnlessPlace if !(evidence.address || evidence.map) => p.category,
                Sense::UnlessMap if !(evidence.map || (evidence.place_pin && evidence.address)) => p.category,
                Sense::CardOrOtp if evidence.card => Category::CardSecurityCode,
                Sense::CardOrOtp => Category::OneTimeCode,
                Sense::NeedsInline if evidence.inline_said || (evidence.inline && !evidence.prohibited) => {
                    p.category
                }
                Sense::NeedsQuestion if evidence.question => p.category,
                Sense::UnlessQueue if !evidence.queue => p.category,
                Sense::UnlessTax if !evidence.tax => p.category,
                Sense::UnlessOtherField if !evidence.other_sense => p.category,
                Sense::AnswerAsked => p.category,
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
        // Pieces pushed onto one string: explanations are built for every hit,
        // and `format!` with nested strings costs several allocations each.
        let mut out = String::with_capacity(160);
        match &p.location {
            HitLocation::Message => out.push_str("the message"),
            HitLocation::Field { name, part } => {
                for piece in ["field \"", name, "\" (", part.as_str(), ")"] {
                    out.push_str(piece);
                }
            }
        }
        let what = category.describe();
        let matched = p.matched.as_str();
        let rule = |out: &mut String, pat: u32| {
            let pattern = self.pattern(pat);
            let lang = if pattern.lang == "custom" { "organisation" } else { pattern.lang };
            for piece in [" (", lang, " term \"", &pattern.source, "\")"] {
                out.push_str(piece);
            }
        };
        let pieces: [&str; 5] = match (p.reason, p.pattern) {
            (Reason::Value { what: looks_like }, _) => {
                [" holds what looks like ", looks_like, " (\"", matched, "\")"]
            }
            (Reason::Request { cue }, Some(_)) => {
                let cue_lang = self.pattern(cue).lang;
                for piece in [
                    " asks for ",
                    what,
                    ": the request \"",
                    &p.cue_text,
                    "\" (",
                    cue_lang,
                    " cue) next to \"",
                ] {
                    out.push_str(piece);
                }
                [matched, "\"", "", "", ""]
            }
            (Reason::Quoted, Some(_)) => {
                [" asks to confirm a guess of ", what, ": a quoted value next to \"", matched, "\""]
            }
            (Reason::Offered, Some(_)) => {
                for piece in [" offers a guess of ", what, " to pick: \"", &p.cue_text, "\" (next to \""] {
                    out.push_str(piece);
                }
                [matched, "\")", "", "", ""]
            }
            (Reason::Question, Some(_)) => {
                [" asks for ", what, ": it puts the security question \"", matched, "\" to the person"]
            }
            (Reason::Head, Some(_)) => [" describes the value as ", what, ": \"", matched, "\""],
            (_, Some(_)) => [" names ", what, ": \"", matched, "\""],
            (_, None) => [" asks for ", what, ": \"", matched, "\""],
        };
        for piece in pieces {
            out.push_str(piece);
        }
        if let (Some(pat), false) = (p.pattern, matches!(p.reason, Reason::Value { .. })) {
            rule(&mut out, pat);
        }
        out
    }
}

/// The hit for a request that only the learned model flags. The word shown is
/// a remote server's: without its punctuation, and shortened if it is long or
/// looks like a secret (a guess at the person's password weighs much), so
/// that hits and audit entries neither carry a secret nor grow with the text.
fn learned_hit(location: HitLocation, word: &str, probability: f32) -> CredentialHit {
    let bare = word.trim_matches(|c: char| !c.is_alphanumeric());
    let bare = if bare.is_empty() { word } else { bare };
    let word = if bare.chars().count() > 24 || guess_literal(bare) { shorten(bare) } else { bare.to_owned() };
    let mut explanation = String::with_capacity(160);
    match &location {
        HitLocation::Message => explanation.push_str("the message"),
        HitLocation::Field { name, part } => {
            for piece in ["field \"", name, "\" (", part.as_str(), ")"] {
                explanation.push_str(piece);
            }
        }
    }
    let percent = (probability * 100.0).round().clamp(0.0, 100.0);
    explanation.push_str(&format!(
        " reads, with the rest of the request, as asking for a secret although it names none the rules know \
         (Herald's learned model: {percent:.0} % sure; the word that weighs most is \"{word}\")"
    ));
    CredentialHit { location, category: Category::Secret, matched: word, explanation }
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

/// The normalised byte range of token `t`.
fn token_bytes(norm: &Norm, t: u32) -> (u32, u32) {
    let mut start = norm.tok.partition_point(|&x| x < t);
    if t > 0 {
        start += 1;
    }
    let end = norm.tok.partition_point(|&x| x <= t);
    (start as u32, end as u32)
}

/// The original byte offset where normalised byte `at` (a token's start)
/// comes from.
fn orig_start(text: &str, norm: &Norm, at: u32) -> usize {
    norm.orig.get(at as usize).map_or(text.len(), |&o| o as usize)
}

/// The original byte offset right after the character that normalised byte
/// `end - 1` (a token's last byte) comes from, and after a kana sound mark
/// that the normalisation joined to it (`ﾄﾞ`).
fn orig_end(text: &str, norm: &Norm, end: u32) -> usize {
    let last = norm.orig[end as usize - 1] as usize;
    let mut chars = text[last..].chars();
    let len = chars.next().map_or(0, char::len_utf8);
    let mark = chars
        .next()
        .filter(|c| matches!(c, '\u{FF9E}' | '\u{FF9F}' | '\u{3099}'..='\u{309C}'))
        .map_or(0, char::len_utf8);
    last + len + mark
}

/// Whether a question mark ends the clause that goes on at original byte
/// `from`.
fn question_after(text: &str, from: usize) -> bool {
    let rest = &text[from..];
    let Some(stop) = rest.find(['.', '!', '?', ';', '\n', '。', '！', '？', '；', '؟', '।']) else {
        return false;
    };
    rest[stop..].chars().take_while(|c| !c.is_alphanumeric()).any(|c| matches!(c, '?' | '？' | '؟'))
}

/// Units of time, normalised: after a number, they make a property an age
/// (`more than 90 days`), not something about the secret itself.
const TIME_UNITS: &[&str] = &[
    "day",
    "days",
    "week",
    "weeks",
    "month",
    "months",
    "year",
    "years",
    "hour",
    "hours",
    "dia",
    "dias",
    "semana",
    "semanas",
    "mes",
    "meses",
    "ano",
    "anos",
    "jour",
    "jours",
    "semaine",
    "semaines",
    "mois",
    "an",
    "ans",
    "annee",
    "annees",
    "tag",
    "tage",
    "tagen",
    "woche",
    "wochen",
    "monat",
    "monate",
    "monaten",
    "jahr",
    "jahre",
    "jahren",
    "giorno",
    "giorni",
    "settimana",
    "settimane",
    "mese",
    "mesi",
    "anno",
    "anni",
    "dag",
    "dagen",
    "weken",
    "maand",
    "maanden",
    "jaar",
    "jaren",
    "dzien",
    "dni",
    "tygodni",
    "miesiac",
    "miesiace",
    "miesiecy",
    "rok",
    "lata",
    "lat",
    "gun",
    "hafta",
    "ay",
    "yil",
    "день",
    "дня",
    "дней",
    "недели",
    "недель",
    "месяц",
    "месяца",
    "месяцев",
    "год",
    "года",
    "лет",
    "يوم",
    "ايام",
    "يوما",
    "شهر",
    "اشهر",
    "سنه",
    "سنوات",
    "दिन",
    "महीने",
    "महीनों",
    "साल",
    "वर्ष",
    "dagar",
    "vecka",
    "veckor",
    "manad",
    "manader",
    "ar",
];
/// The same, in Chinese, Japanese and Korean, which need no word boundary.
const DENSE_TIME_UNITS: &[&str] =
    &["天", "日", "个月", "個月", "か月", "ヶ月", "カ月", "年", "周", "週", "일", "개월", "년", "주"];

/// Whether a number and a unit of time follow normalised byte `from`.
fn age_after(norm: &Norm, from: u32) -> bool {
    let rest = norm.text[from as usize..].trim_start_matches(SPACE as char);
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return false;
    }
    let unit = rest[digits..].trim_start_matches(SPACE as char);
    let word = unit.split([SPACE as char, CLAUSE as char]).next().unwrap_or("");
    TIME_UNITS.contains(&word) || DENSE_TIME_UNITS.iter().any(|u| unit.starts_with(u))
}

/// Whether only a parenthesis (and spaces, and one short word) stands between
/// normalised byte `end` (a token's end) and `start` (a token's start), or
/// the close of a parenthesis that `end` ends (a gloss: `暗号（ぱすわーど）を`).
fn parenthesis_between(text: &str, norm: &Norm, end: u32, start: u32) -> bool {
    let between = text.get(orig_end(text, norm, end)..orig_start(text, norm, start)).unwrap_or("").trim();
    // The term glosses the word before it, in parentheses that close right
    // before the request (`暗号（ぱすわーど）を入力`, `su clave (contraseña) aquí`).
    if let Some(after) = between.strip_prefix([')', '）']) {
        let after = after.trim();
        return after.chars().count() <= 10
            && !after.contains(|c: char| c.is_whitespace() || c.is_ascii_punctuation());
    }
    let Some(inner) = between.strip_prefix(['(', '（']) else { return false };
    let Some(close) = inner.find([')', '）']) else { return false };
    // A particle or a word such as `here` may follow (`）を`, `) buraya`),
    // or a comma and a short conjunction (`(bash), and paste it here`).
    let after = inner[close..].trim_start_matches([')', '）']).trim();
    let after = match after.strip_prefix([',', '，', '،']) {
        Some(rest) if rest.trim().chars().count() <= 5 => rest.trim(),
        _ => after,
    };
    !inner[..close].contains(['(', '（', '.', '!', '?', ';', '\n', '。', '！', '？', '；'])
        && after.chars().count() <= 10
        && !after.contains(|c: char| c.is_whitespace() || c.is_ascii_punctuation())
}

/// Whether the security question at normalised bytes `start..end` heads a
/// question put to the person: it opens its sentence and a colon, then a
/// question, follow it (`Security question: what was …?`, `密保问题：…？`), or
/// it follows a question, in parentheses (`… als kind? (beveiligingsvraag)`).
fn heads_question(text: &str, norm: &Norm, start: u32, end: u32) -> bool {
    let (a, b) = (orig_start(text, norm, start), orig_end(text, norm, end));
    let before = text[..a].trim_end();
    let after = text[b..].trim_start();
    if let Some(open) = before.strip_suffix(['(', '（']) {
        let open = open.trim_end();
        // Where the sentence before the question starts: after the last
        // stop before its own closing mark (which may be any character).
        let head = open.char_indices().next_back().map_or("", |(i, _)| &open[..i]);
        let start = head.rfind(['.', '!', '?', '\n', '。', '！', '？', '؟', ':', '：']).map_or(0, |i| i + 1);
        return open.ends_with(['?', '？', '؟']) && addresses_person(&open[start..]);
    }
    let opens = before.is_empty() || before.ends_with(['.', '!', '?', '\n', '。', '！', '？', '؟', '।']);
    let Some(rest) = after.strip_prefix(':').or_else(|| after.strip_prefix('：')) else { return false };
    let from = text.len() - rest.len();
    let question =
        rest.find(['.', '!', '?', ';', '\n', '。', '！', '？', '；', '؟']).map_or(rest, |end| &rest[..end]);
    opens && question_after(text, from) && addresses_person(question)
}

/// Second-person words: a question with one is put to the person.
const SECOND_PERSON: &[&str] = &[
    "you",
    "your",
    "yours",
    "tu",
    "tus",
    "su",
    "sus",
    "usted",
    "te",
    "ti",
    "votre",
    "vos",
    "ton",
    "ta",
    "tes",
    "vous",
    "ihr",
    "ihre",
    "ihren",
    "ihrem",
    "ihrer",
    "dein",
    "deine",
    "deinen",
    "deinem",
    "deiner",
    "du",
    "sie",
    "seu",
    "sua",
    "seus",
    "suas",
    "você",
    "voce",
    "teu",
    "tua",
    "tuo",
    "tuoi",
    "lei",
    "je",
    "jouw",
    "uw",
    "u",
    "twój",
    "twoja",
    "twoje",
    "twojego",
    "twojej",
    "twoim",
    "pana",
    "pani",
    "ty",
    "ваш",
    "ваша",
    "ваше",
    "вашего",
    "вашей",
    "вашу",
    "вашим",
    "твой",
    "твоя",
    "твое",
    "твоё",
    "твоего",
    "твоей",
    "вы",
    "ты",
    "вас",
    "тебя",
    "आपका",
    "आपकी",
    "आपके",
    "आप",
    "तुम्हारा",
    "तुम्हारी",
    "तुम",
    "din",
    "ditt",
    "dina",
    "er",
    "ert",
    "siz",
    "sen",
    "senin",
    "sizin",
];

/// Whether a question addresses the person: a second-person word, a
/// Turkish or Arabic second-person suffix, or Japanese or Korean, which
/// usually leave the pronoun out.
fn addresses_person(question: &str) -> bool {
    let q = question.to_lowercase();
    if q.contains(['您', '你']) || q.contains("あなた") || q.contains("당신") || q.contains("귀하") {
        return true;
    }
    if q.chars().any(|c| matches!(c, '\u{3040}'..='\u{30ff}' | '\u{ac00}'..='\u{d7af}')) {
        return true;
    }
    q.split(|c: char| c.is_whitespace() || c.is_ascii_punctuation() || "¿¡？：،؟«»“”„".contains(c)).any(|w| {
        SECOND_PERSON.contains(&w)
            || w.ends_with('ك')
            || w.ends_with("كم")
            || ["iniz", "ınız", "unuz", "ünüz"].iter().any(|s| w.contains(s))
    })
}

/// Whether a text spells out, for a yes/no to confirm, a value that could be
/// a guess at a secret (`Is that still Rover2019!?`) in a sentence that does
/// not end with a full stop (not `The Wi-Fi password is Bosphorus2024. Did it
/// work?`, which tells it), or part of one in a question: one to three
/// characters in quotes (`'88'`, `«M»`) or one to three digits (`Does your
/// PIN start with 7?`).
fn spells_out_a_guess(text: &str) -> bool {
    let names_a_part = |word: &str| {
        let bare = word.trim_matches(|c: char| !c.is_alphanumeric());
        (1..=3).contains(&bare.chars().count())
            && (bare.chars().all(char::is_numeric) || word.chars().next().is_some_and(normalize::is_quote))
    };
    sentences(text).any(|(sentence, ending)| {
        let mut words = sentence.split_whitespace();
        match ending {
            Ending::FullStop => false,
            Ending::Question => words.any(|w| guess_literal(w) || names_a_part(w)),
            Ending::Other => words.any(guess_literal),
        }
    })
}

/// How a sentence ends, for [`spells_out_a_guess`].
#[derive(Clone, Copy)]
enum Ending {
    /// `.` before a space or the text's end (not the dot of `bank.example`), or `。`.
    FullStop,
    /// `?`, `？`, or a Greek `;`.
    Question,
    /// A line's end or the text's.
    Other,
}

/// The sentences of a text, each without the mark that ends it.
fn sentences(text: &str) -> impl Iterator<Item = (&str, Ending)> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut chars = rest.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            let after = chars.peek().map(|&(_, n)| n);
            let ending = match c {
                '.' if after.is_none_or(char::is_whitespace) => Ending::FullStop,
                '。' => Ending::FullStop,
                '?' | '？' | ';' => Ending::Question,
                '\n' => Ending::Other,
                _ => continue,
            };
            let sentence = &rest[..at];
            rest = &rest[at + c.len_utf8()..];
            return Some((sentence, ending));
        }
        Some((std::mem::take(&mut rest), Ending::Other))
    })
}

/// Whether a word could be a guess at a secret: 4 to 64 characters with a
/// digit and a letter (`abc123456`, `Ahmed@1990`), or 4 to 12 digits
/// (`4821`, `880214`).
fn guess_literal(value: &str) -> bool {
    let value = value.trim_matches(|c: char| !c.is_alphanumeric());
    // A PIN spelled digit by digit (`6-3-9-1`, `1.9.0.7`) is its digits.
    if value.contains(['-', '.']) {
        let spelled = value
            .split(['-', '.'])
            .try_fold(0usize, |n, g| (g.len() == 1 && g.as_bytes()[0].is_ascii_digit()).then_some(n + 1));
        if let Some(n) = spelled {
            return (4..=12).contains(&n);
        }
    }
    let n = value.chars().count();
    if !(4..=64).contains(&n) || value.contains(char::is_whitespace) {
        return false;
    }
    // Digits of any script count (`６６８８８８`, `۱۳۷۹`, `১২৩৪৫`).
    let digits = value.chars().filter(|c| c.is_numeric()).count();
    let letters = value.chars().filter(|c| c.is_alphabetic()).count();
    (digits > 0 && letters > 0 && digits + letters + 2 >= n) || (digits == n && n <= 12)
}

/// Whether `text[from..to]` lies inside a quoted name with no space in it (`“oss-upload”`,
/// `'ci-readonly'`): a word there names something and requests nothing.
fn in_quoted_name(text: &str, from: usize, to: usize) -> bool {
    // A name is short (as a quoted value: at most 64 characters); in a text without spaces the
    // look stops there instead of running to either end of it for every request word.
    const NAME: usize = 64;
    let edge = |c: &char| c.is_whitespace() || normalize::is_quote(*c);
    let before = text[..from].chars().rev().take(NAME).find(edge);
    let after = text[to..].chars().take(NAME).find(edge);
    before.is_some_and(normalize::is_quote) && after.is_some_and(normalize::is_quote)
}

/// Whether a field is a choice of exactly the ten digits, one each.
fn digit_picker(f: &FieldText<'_>) -> bool {
    let mut seen = [false; 10];
    f.kind == FieldKind::Choice
        && f.enum_values.len() == 10
        && f.enum_values.iter().all(|v| match v.as_bytes() {
            [d @ b'0'..=b'9'] => !std::mem::replace(&mut seen[usize::from(d - b'0')], true),
            _ => false,
        })
}

/// Whether a credential of the term kind `kind` may be all digits (a
/// password or a PIN may; a token, a key or a secret never is).
fn digits_may_be(kind: Kind) -> bool {
    !matches!(
        kind,
        Kind::Term(
            Category::ApiKey
                | Category::AccessToken
                | Category::ClientSecret
                | Category::PrivateKey
                | Category::SessionCookie
                | Category::Passphrase
                | Category::RecoveryPhrase
                | Category::CredentialFile,
            _
        )
    )
}

/// Whether an option is digits (a PIN digit, a month, a year), possibly
/// grouped by spaces, slashes, hyphens or dots.
fn digit_like(option: &str) -> bool {
    let option = option.trim();
    !option.is_empty()
        && option.bytes().any(|b| b.is_ascii_digit())
        && option.bytes().all(|b| b.is_ascii_digit() || matches!(b, b' ' | b'/' | b'-' | b'.'))
}

/// Whether clause `c` names an environment variable: a word in capitals
/// with an underscore (`LOG_LEVEL`), or in capitals next to a compound value
/// (`the PORT line`, `PORT satırını`).
fn names_variable(text: &str, norm: &Norm, c: u32, matches: &[Match]) -> bool {
    let carrier = |at: u32, end: u32| {
        matches.iter().any(|o| {
            matches!(o.kind, Kind::Term(_, Sense::NeedsInline))
                && (gap(norm, end, o.start) == 0 && o.start >= end
                    || o.end <= at && gap(norm, o.end, at) == 0)
        })
    };
    let mut t = norm.tokens.partition_point(|k| k.clause < c) as u32;
    while (t as usize) < norm.tokens.len() && norm.tokens[t as usize].clause == c {
        let (ts, te) = token_bytes(norm, t);
        let from = orig_start(text, norm, ts);
        // The whole word as written, underscores included (`LOG_LEVEL` is
        // two tokens).
        let word_end = text[from..]
            .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
            .map_or(text.len(), |e| from + e);
        let word = &text[from..word_end];
        let capitals = word.len() >= 3
            && word.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
            && word.bytes().any(|b| b.is_ascii_uppercase());
        // A secret variable's line is the secret (`the DB_PASSWORD line`).
        let secret = ["PASS", "PWD", "SECRET", "TOKEN", "KEY", "CREDENTIAL", "PRIVATE"]
            .iter()
            .any(|s| word.contains(s));
        if capitals && !secret && (word.contains('_') || carrier(ts, te)) {
            return true;
        }
        t += 1;
    }
    false
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

    /// What a yes/no may confirm: a guess spelled in a sentence that does not tell it (one
    /// ending in a full stop, `.` before a space or `。` anywhere, tells), or part of one in
    /// a question.
    #[test]
    fn a_guess_is_spelled_where_a_question_or_an_unended_line_names_it() {
        for asks in [
            "Is that still Rover2019!?",
            "Does your PIN start with 7?",
            "Your passphrase contains 'ox', right?",
            "確認です。ログインパスはまだ「sakura2019」のままですか？",
        ] {
            assert!(spells_out_a_guess(asks), "{asks}");
        }
        for tells in [
            "The Wi-Fi password is Bosphorus2024. Did it work?",
            "会議室のWi-Fiパスワードは「sakura2024」です。つながりましたか？",
            "Does it start with a capital letter?",
            "Deploy to bank.example now?",
        ] {
            assert!(!spells_out_a_guess(tells), "{tells}");
        }
    }

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
    fn a_learned_hit_shows_a_bounded_word_without_a_secret() {
        let hit = |word: &str| learned_hit(HitLocation::Message, word, 0.9).matched;
        assert_eq!(hit("secrète."), "secrète");
        assert_eq!(hit("Sommer2024!"), "Sommer20…");
        assert_eq!(hit(&"a".repeat(10_000)), "aaaaaaaa…");
        assert_eq!(hit("..."), "...");
    }

    #[test]
    fn shorten_keeps_a_prefix() {
        assert_eq!(shorten("sk_live_4eC39HqLyjWDarjtT1zdp7dc"), "sk_live_…");
        assert_eq!(shorten("short"), "short");
    }
}
