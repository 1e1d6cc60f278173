//! The credential-ask detector against a hand-written corpus of elicitation
//! requests (`tests/corpus/credential_asks.jsonl`, the tuning corpus), a
//! held-out set meant to be written apart from the rules and never tuned on
//! (`tests/corpus/held_out.jsonl`; once a held-out set has been looked at,
//! its entries move to the tuning corpus and a fresh one replaces it), plus
//! focused tests of obfuscations, hard negatives, the organisation's terms
//! and explanations.
//!
//! Run `cargo test -p herald-policy --test credential_corpus -- --nocapture`
//! to see recall, the false-positive rate and every miss and false alarm;
//! `cargo test -p herald-policy --test credential_corpus held_out_figures --
//! --nocapture` prints the tuning and held-out figures side by side, and
//! `held_out_holds_its_measured_figures` keeps the held-out figures from
//! getting worse (the goal is in docs/performance.md, "Accuracy").

use std::collections::BTreeMap;

use herald_policy::credential::model::{self, Training};
use herald_policy::credential::{
    AskText, Category, CredentialDetector, CredentialHit, FieldKind, FieldPart, FieldText, HitLocation,
};
use herald_policy::{CredentialAskMode, CredentialAskPolicy};
#[path = "corpus/entry.rs"]
mod entry;
use entry::{Entry, Label};

const CORPUS: &str = include_str!("corpus/credential_asks.jsonl");
const HELD_OUT: &str = include_str!("corpus/held_out.jsonl");
/// The held-out set's figures (blind sets 35, 48, 58, 59 and 62, 2,000
/// requests, written apart from the rules and the model, never trained or
/// tuned on): asks caught at least, false alarms at most, with the shipped
/// detector. Each set was measured blind once, with the detector of its round
/// final (35 and 48: round 17, 392/400 and 1/400; 58: round 18, 192/200 and
/// 0/200; 59: round 19, 199/200 and 1/200; 62: round 19's detector again,
/// 198/200 and 1/200), and all are measured with the shipped one: 982/1,000
/// = 0.982 recall and 3/1,000 = 0.003 false alarms, meeting the goal of 0.98
/// and 0.01 (980/1,000 and 10/1,000). This keeps the detector from getting
/// worse on requests it never saw.
const HELD_OUT_CAUGHT_AT_LEAST: usize = 982;
const HELD_OUT_ALARMS_AT_MOST: usize = 3;
/// On the tuning corpus every entry is right but these, each a known gap
/// (the start of its message): any other miss or false alarm is a regression.
/// A yes/no that confirms a guess at part of a secret, which the rules do not
/// read and the model may not flag alone (a yes/no cannot hold a secret)...
const KNOWN_MISSES: [&str; 3] = [
    "アカウント移行の確認です。現在のパスワードの最初の3文字は",
    "Confirmação de segurança: a sua frase de segurança cadastrada é",
    "Enthält die sechsstellige PIN Ihres Personalausweises die Ziffernfolge 19?",
];
/// ...and a template with a placeholder, shown for review, that the rules read
/// as a connection string with its password and the model is not sure enough
/// to overrule, and a provider ID "to verify" an account that the model reads
/// as a credential (62 %) though it was trained on it as benign.
const KNOWN_FALSE_ALARMS: [&str; 2] = [
    "Here's the template we'll put in the README: postgres://app_user:<PASSWORD>@",
    "Enter your NPI number to verify your provider account.",
];

fn corpus() -> Vec<Entry> {
    parse(CORPUS)
}

fn parse(text: &str) -> Vec<Entry> {
    entry::parse(text)
}

#[test]
fn corpus_recall_and_false_positive_rate() {
    let detector = CredentialDetector::new(&CredentialAskPolicy::default());
    let entries = corpus();

    let mut per_lang: BTreeMap<&str, [usize; 4]> = BTreeMap::new(); // asks, caught, benign, false alarms
    let mut misses = Vec::new();
    let mut false_alarms = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let hits = detector.detect(&entry.ask());
        let counts = per_lang.entry(&entry.lang).or_default();
        match entry.label {
            Label::Ask => {
                counts[0] += 1;
                if hits.is_empty() {
                    misses.push((i + 1, entry));
                } else {
                    counts[1] += 1;
                }
            }
            Label::Benign => {
                counts[2] += 1;
                if !hits.is_empty() {
                    counts[3] += 1;
                    false_alarms.push((i + 1, entry, hits));
                }
            }
        }
    }

    let asks: usize = per_lang.values().map(|c| c[0]).sum();
    let caught: usize = per_lang.values().map(|c| c[1]).sum();
    let benign: usize = per_lang.values().map(|c| c[2]).sum();
    let alarms: usize = per_lang.values().map(|c| c[3]).sum();
    let recall = caught as f64 / asks as f64;
    let fpr = alarms as f64 / benign as f64;

    println!("lang  asks caught benign false-alarms");
    for (lang, c) in &per_lang {
        println!("{lang:<5} {:>4} {:>6} {:>6} {:>12}", c[0], c[1], c[2], c[3]);
    }
    println!("total {asks:>4} {caught:>6} {benign:>6} {alarms:>12}");
    println!("recall {recall:.4}, false-positive rate {fpr:.4}");
    for (line, entry) in &misses {
        println!("MISS line {line} [{}] {:?} — {}", entry.lang, entry.message, entry.note);
    }
    for (line, entry, hits) in &false_alarms {
        println!("FALSE ALARM line {line} [{}] {:?} — {}", entry.lang, entry.message, entry.note);
        for hit in hits {
            println!("    {}", hit.explanation);
        }
    }

    // The corpus itself must stay representative.
    assert!(entries.len() >= 250, "corpus has {} entries", entries.len());
    assert!(benign * 3 >= entries.len(), "at least a third of the corpus must be hard negatives");
    for lang in
        ["en", "es", "fr", "de", "pt", "it", "nl", "pl", "tr", "ru", "ar", "hi", "zh", "ja", "ko", "sv"]
    {
        let c = per_lang.get(lang).copied().unwrap_or_default();
        assert!(c[0] > 0 && c[2] > 0, "{lang} needs both asks and benign entries");
    }

    let known = |list: &[&str], message: &str| list.iter().any(|k| message.starts_with(k));
    let new_misses: Vec<usize> =
        misses.iter().filter(|(_, e)| !known(&KNOWN_MISSES, &e.message)).map(|(line, _)| *line).collect();
    let new_alarms: Vec<usize> = false_alarms
        .iter()
        .filter(|(_, e, _)| !known(&KNOWN_FALSE_ALARMS, &e.message))
        .map(|(line, ..)| *line)
        .collect();
    assert!(new_misses.is_empty(), "missed asks on corpus lines {new_misses:?}");
    assert!(new_alarms.is_empty(), "false alarms on corpus lines {new_alarms:?}");
}

/// Every built-in category is asked for somewhere in the corpus, and found
/// (the learned model's own, [`Category::Secret`], where no rule names the
/// secret).
#[test]
fn corpus_covers_every_category() {
    let detector = CredentialDetector::new(&CredentialAskPolicy::default());
    let mut seen: Vec<Category> = corpus()
        .iter()
        .filter(|e| e.label == Label::Ask)
        .flat_map(|e| detector.detect(&e.ask()))
        .map(|h| h.category)
        .collect();
    seen.sort();
    seen.dedup();
    let expected: Vec<Category> = Category::ALL.iter().copied().filter(|c| *c != Category::Custom).collect();
    assert_eq!(seen, expected);
}

fn detector() -> CredentialDetector {
    CredentialDetector::new(&CredentialAskPolicy::default())
}

fn text_field(name: &str) -> FieldText<'_> {
    FieldText { name, ..FieldText::default() }
}

fn titled<'a>(name: &'a str, title: &'a str, kind: FieldKind) -> FieldText<'a> {
    FieldText { name, title: Some(title), kind, ..FieldText::default() }
}

fn categories(hits: &[CredentialHit]) -> Vec<Category> {
    let mut c: Vec<Category> = hits.iter().map(|h| h.category).collect();
    c.sort();
    c.dedup();
    c
}

#[test]
fn obfuscations_are_caught() {
    let d = detector();
    let cases: &[(&str, Category)] = &[
        ("pwd", Category::Password),
        ("passwd", Category::Password),
        ("p4ssw0rd", Category::Password),
        ("P@$$w0rd", Category::Password),
        ("pa55word", Category::Password),
        ("ｐａｓｓｗｏｒｄ", Category::Password),
        ("pass\u{200B}word", Category::Password),
        ("api_key", Category::ApiKey),
        ("apikey", Category::ApiKey),
        ("APIKEY", Category::ApiKey),
        ("x-api-key", Category::ApiKey),
        ("apiKey", Category::ApiKey),
        ("api key", Category::ApiKey),
        ("X-Api-Key", Category::ApiKey),
        ("sk_live", Category::ApiKey),
        ("2fa", Category::OneTimeCode),
        ("2FA code", Category::OneTimeCode),
        ("otp", Category::OneTimeCode),
        ("OTPCode", Category::OneTimeCode),
        ("cvv", Category::CardSecurityCode),
        ("cvc", Category::CardSecurityCode),
        ("t0k3n", Category::AccessToken),
        ("s3cr3t", Category::ClientSecret),
    ];
    for &(name, category) in cases {
        let ask = AskText { message: "", fields: vec![text_field(name)] };
        let hits = d.detect(&ask);
        assert!(hits.iter().any(|h| h.category == category), "{name:?} not caught as {category:?}: {hits:?}");
    }
    // In a message, with a request.
    for message in [
        "Please enter your p4ssw0rd",
        "Paste your sk_live_… key below",
        "Type the 2FA code from your phone",
        "Reply with your OTP",
        "Send us the CVV on the back of your card",
        "Provide your apiKey",
    ] {
        assert!(!d.detect(&AskText { message, fields: vec![] }).is_empty(), "{message:?} not caught");
    }
}

#[test]
fn secret_values_in_defaults_are_caught() {
    let d = detector();
    for (default, category) in [
        ("sk_live_51HyZa2Kx9vQ8mPq3LrT7wNc", Category::ApiKey),
        ("ghp_16C7e42F292c6912E7710c838347Ae178B4a", Category::AccessToken),
        ("AKIAIOSFODNN7EXAMPLE", Category::ApiKey),
        ("-----BEGIN RSA PRIVATE KEY-----\nMIIEow", Category::PrivateKey),
        ("4242 4242 4242 4242", Category::CardNumber),
    ] {
        let field = FieldText { name: "value", default: Some(default.to_owned()), ..FieldText::default() };
        let hits = d.detect(&AskText { message: "Confirm the settings", fields: vec![field] });
        assert_eq!(hits.len(), 1, "{default:?}: {hits:?}");
        assert_eq!(hits[0].category, category);
        assert_eq!(hits[0].location, HitLocation::Field { name: "value".into(), part: FieldPart::Default });
        assert!(!hits[0].matched.contains(&default[10..]), "the secret must not be quoted whole");
    }
}

#[test]
fn listed_hard_negatives_are_not_hits() {
    let d = detector();
    let cases: Vec<AskText<'_>> = vec![
        AskText {
            message: "How long should the answer be?",
            fields: vec![titled("max_tokens", "Max tokens", FieldKind::Number)],
        },
        AskText {
            message: "What is the token budget for this run?",
            fields: vec![titled("budget", "Token budget", FieldKind::Number)],
        },
        AskText {
            message: "Set the minimum password length",
            fields: vec![titled("min", "Minimum password length", FieldKind::Number)],
        },
        AskText { message: "", fields: vec![titled("rotate", "Rotate the key now?", FieldKind::Boolean)] },
        AskText {
            message: "Drop a map pin where we should meet",
            fields: vec![titled("pin", "Map pin", FieldKind::Text)],
        },
        AskText {
            message: "Which Trello card is this about?",
            fields: vec![titled("card", "Trello card", FieldKind::Text)],
        },
        AskText {
            message: "Enter your discount code",
            fields: vec![titled("code", "Discount code", FieldKind::Text)],
        },
        AskText {
            message: "Enter your postal code",
            fields: vec![titled("code", "Postal code", FieldKind::Text)],
        },
        AskText {
            message: "Which password manager do you use?",
            fields: vec![FieldText {
                name: "manager",
                kind: FieldKind::Choice,
                enum_values: vec!["1Password", "Bitwarden", "LastPass"],
                ..FieldText::default()
            }],
        },
        AskText {
            message: "Should I PIN the tab?",
            fields: vec![titled("pin_tab", "PIN the tab", FieldKind::Boolean)],
        },
        AskText { message: "Enter the pin code of the map marker", fields: vec![] },
        AskText { message: "Pick a card game", fields: vec![titled("game", "Card game", FieldKind::Text)] },
        AskText {
            message: "Choose the gift card design",
            fields: vec![titled("design", "Gift card design", FieldKind::Text)],
        },
        AskText {
            message: "Describe your password policy",
            fields: vec![titled("policy", "Password policy", FieldKind::Text)],
        },
        AskText {
            message: "Enter the token limit",
            fields: vec![titled("limit", "Token limit", FieldKind::Number)],
        },
        AskText {
            message: "Indica el límite de tokens",
            fields: vec![titled("limite", "Límite de tokens", FieldKind::Number)],
        },
        AskText {
            message: "Saisissez votre code postal",
            fields: vec![titled("cp", "Code postal", FieldKind::Text)],
        },
        AskText { message: "Insérez la clé USB", fields: vec![titled("cle", "Clé USB", FieldKind::Text)] },
        AskText {
            message: "Haben Sie Ihren Schlüssel für die Haustür verloren?",
            fields: vec![titled("verloren", "Schlüssel verloren", FieldKind::Boolean)],
        },
        AskText { message: "We will never ask you to enter your password.", fields: vec![] },
    ];
    for ask in &cases {
        let hits = d.detect(ask);
        assert!(hits.is_empty(), "false alarm on {ask:?}: {hits:#?}");
    }
}

#[test]
fn extra_terms_count_as_custom_asks() {
    let policy = CredentialAskPolicy {
        extra_terms: vec!["badge number".into(), "Vault token".into()],
        ..CredentialAskPolicy::default()
    };
    let d = CredentialDetector::new(&policy);
    let hits = d.detect(&AskText {
        message: "Please enter your badge number",
        fields: vec![titled("badge", "Badge number", FieldKind::Number)],
    });
    assert_eq!(categories(&hits), [Category::Custom]);
    assert_eq!(hits.len(), 2);
    assert_eq!(hits[0].location, HitLocation::Message);
    assert!(hits[0].explanation.contains("organisation term \"badge number\""), "{}", hits[0].explanation);

    // Separator- and case-insensitive, as built-in terms.
    let hits = d.detect(&AskText { message: "", fields: vec![text_field("vault_token")] });
    assert!(hits.iter().any(|h| h.category == Category::Custom));

    // Mentioned without a request, it does not count.
    assert!(
        d.detect(&AskText { message: "Your badge number is printed on the card", fields: vec![] }).is_empty()
    );
    // Without the policy, nothing.
    assert!(
        detector().detect(&AskText { message: "Please enter your badge number", fields: vec![] }).is_empty()
    );
}

#[test]
fn allow_terms_silence_hits() {
    let ask = AskText {
        message: "Enter the demo password shown on the conference screen",
        fields: vec![
            titled("demo_password", "Demo password", FieldKind::Text),
            titled("pwd", "Password", FieldKind::Text),
        ],
    };
    // The message, and the name and title of both fields.
    assert_eq!(detector().detect(&ask).len(), 5);

    let policy =
        CredentialAskPolicy { allow_terms: vec!["demo password".into()], ..CredentialAskPolicy::default() };
    let hits = CredentialDetector::new(&policy).detect(&ask);
    // Only the plain `Password` field remains: the allow-listed phrase is
    // not around it.
    assert_eq!(hits.len(), 2, "{hits:#?}");
    assert!(hits.iter().all(|h| matches!(&h.location, HitLocation::Field { name, .. } if name == "pwd")));

    // An allow-listed term silences a secret-looking default too.
    let policy =
        CredentialAskPolicy { allow_terms: vec!["sk_test".into()], ..CredentialAskPolicy::default() };
    let field = FieldText {
        name: "v",
        default: Some("sk_test_4eC39HqLyjWDarjtT1zdp7dc".into()),
        ..FieldText::default()
    };
    assert!(
        CredentialDetector::new(&policy).detect(&AskText { message: "", fields: vec![field] }).is_empty()
    );
}

#[test]
fn hits_explain_themselves() {
    let d = detector();
    let ask = AskText {
        message: "Para continuar, ingrese su contraseña.",
        fields: vec![
            titled("user", "Usuario", FieldKind::Text),
            FieldText {
                name: "clave",
                title: Some("Contraseña"),
                format: Some("password"),
                ..FieldText::default()
            },
            FieldText {
                name: "code",
                description: Some("The 6-digit code we sent to your phone"),
                kind: FieldKind::Number,
                ..FieldText::default()
            },
        ],
    };
    let hits = d.detect(&ask);
    let summary: Vec<(HitLocation, Category, &str)> =
        hits.iter().map(|h| (h.location.clone(), h.category, h.matched.as_str())).collect();
    let field = |name: &str, part| HitLocation::Field { name: name.into(), part };
    assert_eq!(
        summary,
        [
            (HitLocation::Message, Category::Password, "contraseña"),
            (field("clave", FieldPart::Name), Category::Password, "clave"),
            (field("clave", FieldPart::Title), Category::Password, "Contraseña"),
            (field("clave", FieldPart::Format), Category::Password, "password"),
            (field("code", FieldPart::Name), Category::OneTimeCode, "code"),
            (field("code", FieldPart::Description), Category::OneTimeCode, "digit code"),
        ]
    );
    assert!(hits[0].explanation.contains("the message asks for a password"), "{}", hits[0].explanation);
    assert!(hits[0].explanation.contains("\"ingrese\""), "{}", hits[0].explanation);
    assert!(hits[2].explanation.contains("field \"clave\" (title)"), "{}", hits[2].explanation);

    let json = serde_json::to_value(&hits[2]).expect("serializable");
    assert_eq!(json["location"], serde_json::json!({"in": "field", "name": "clave", "part": "title"}));
    assert_eq!(json["category"], "password");
    assert_eq!(
        serde_json::to_value(&hits[0].location).expect("serializable"),
        serde_json::json!({"in": "message"})
    );
    assert_eq!(Category::CardSecurityCode.as_str(), "card_security_code");
    assert_eq!(serde_json::to_value(FieldPart::EnumLabel).expect("serializable"), "enum_label");
}

#[test]
fn one_hit_per_location_and_category() {
    let hits = detector().detect(&AskText {
        message: "Enter your password. Then type the password again. Password please: enter it",
        fields: vec![],
    });
    assert_eq!(hits.len(), 1, "{hits:#?}");
}

#[test]
fn field_kind_decides_whether_the_field_can_hold_the_secret() {
    let d = detector();
    let one = |field: FieldText<'_>| d.detect(&AskText { message: "", fields: vec![field] });
    assert!(one(titled("password_length", "Password", FieldKind::Number)).is_empty());
    assert!(!one(titled("pin", "PIN", FieldKind::Number)).is_empty());
    assert!(one(titled("api_key", "API key", FieldKind::Boolean)).is_empty());
    let months = vec!["01", "02", "03", "04", "05", "06", "07", "08", "09", "10", "11", "12"];
    let choice = |title, values| FieldText {
        name: "x",
        title: Some(title),
        kind: FieldKind::Choice,
        enum_values: values,
        ..FieldText::default()
    };
    assert!(!one(choice("Card expiry month", months)).is_empty());
    assert!(one(choice("Password", vec!["Strong", "Weak"])).is_empty());
}

#[test]
fn context_settles_ambiguous_terms() {
    let d = detector();
    // `expiry date` alone is not a card's.
    let passport = AskText { message: "Passport details", fields: vec![text_field("expiry_date")] };
    assert!(d.detect(&passport).is_empty());
    let card = AskText {
        message: "Card details",
        fields: vec![text_field("card_number"), text_field("expiry_date")],
    };
    assert_eq!(categories(&d.detect(&card)), [Category::CardNumber, Category::CardExpiry]);
    // `security code` is a card's with a card, a one-time code otherwise.
    let sms = AskText { message: "We texted you", fields: vec![text_field("security_code")] };
    assert_eq!(categories(&d.detect(&sms)), [Category::OneTimeCode]);
    let cvv = AskText { message: "Pay by card", fields: vec![text_field("security_code")] };
    assert_eq!(categories(&d.detect(&cvv)), [Category::CardSecurityCode]);
    // A bare `code` needs something being sent.
    assert!(d.detect(&AskText { message: "Code review", fields: vec![text_field("code")] }).is_empty());
}

#[test]
fn mode_off_looks_for_nothing() {
    let policy = CredentialAskPolicy { mode: CredentialAskMode::Off, ..CredentialAskPolicy::default() };
    let d = CredentialDetector::new(&policy);
    assert_eq!(d.mode(), CredentialAskMode::Off);
    assert!(
        d.detect(&AskText { message: "Enter your password", fields: vec![text_field("password")] })
            .is_empty()
    );
}

#[test]
fn long_repetitive_input_gives_one_hit_per_category() {
    let message = "Enter your password and PIN, then type the code we sent. ".repeat(400);
    let benign = "Which password manager do you use? Pin the tab. ".repeat(400);
    let d = detector();
    let hits = d.detect(&AskText { message: &message, fields: vec![] });
    assert_eq!(categories(&hits), [Category::Password, Category::OneTimeCode, Category::Pin]);
    assert_eq!(hits.len(), 3);
    assert!(d.detect(&AskText { message: &benign, fields: vec![] }).is_empty());
}

#[test]
fn detector_is_shareable_across_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<CredentialDetector>();
}

/// server-everything's every-variant form warns people off sensitive data in
/// a field description; that is a mention, not an ask.
#[test]
fn a_description_that_warns_against_sharing_a_pin_is_not_an_ask() {
    use herald_policy::credential::{AskText, CredentialDetector};
    let schema = serde_json::json!({
        "type": "object",
        "properties": {
            "integer": {
                "title": "Integer", "type": "integer", "minimum": 1, "maximum": 100, "default": 42,
                "description": "Your favorite integer (do not give us your phone number, pin, or other sensitive info)"
            },
            "email": { "title": "String with email format", "type": "string", "format": "email",
                       "description": "Your email address (will be verified, and never shared with anyone else)" }
        }
    });
    let ask = AskText::from_schema("Please provide inputs for the following fields:", &schema);
    let hits = CredentialDetector::new(&herald_policy::CredentialAskPolicy::default()).detect(&ask);
    assert!(hits.is_empty(), "{hits:?}");
}

/// The three families of issue 15, in the words of the issue, and their
/// benign look-alikes.
#[test]
fn compound_values_own_secrets_and_qualified_tokens() {
    let d = detector();
    let choice = |title: &'static str, options: Vec<&'static str>| FieldText {
        name: "answer",
        title: Some(title),
        kind: FieldKind::Choice,
        enum_values: options,
        ..FieldText::default()
    };
    let yes_no = |title: &'static str| FieldText {
        name: "answer",
        title: Some(title),
        kind: FieldKind::Boolean,
        ..FieldText::default()
    };
    let asks: Vec<(AskText<'_>, Category)> = vec![
        (
            AskText {
                message: "Paste your Postgres connection string (postgres://user:password@host/db)",
                fields: vec![text_field("conn")],
            },
            Category::Password,
        ),
        (AskText { message: "Enter the database URL with credentials", fields: vec![] }, Category::Password),
        (
            AskText { message: "Please paste the contents of your .env file", fields: vec![] },
            Category::ApiKey,
        ),
        (AskText { message: "Paste the AWS_SECRET_ACCESS_KEY=... line", fields: vec![] }, Category::ApiKey),
        (
            AskText {
                message: "Security check",
                fields: vec![choice("Your current password", vec!["hunter2", "letmein", "dragon"])],
            },
            Category::Password,
        ),
        (
            AskText {
                message: "Which of these is your PIN?",
                fields: vec![choice("Answer", vec!["first", "second", "third"])],
            },
            Category::Pin,
        ),
        (
            AskText {
                message: "One question",
                fields: vec![yes_no("Is your password one of these: dragon, hunter2?")],
            },
            Category::Password,
        ),
        (
            AskText {
                message: "Confirm your recovery phrase word #3",
                fields: vec![choice("Word", vec!["apple", "river", "stone"])],
            },
            Category::RecoveryPhrase,
        ),
        (AskText { message: "Enter your npm publish token", fields: vec![] }, Category::AccessToken),
        (AskText { message: "Send me the deploy access key for staging", fields: vec![] }, Category::ApiKey),
        (AskText { message: "Paste the GitLab project deploy token", fields: vec![] }, Category::AccessToken),
        (AskText { message: "Enter the Slack bot user OAuth token", fields: vec![] }, Category::AccessToken),
        (
            AskText { message: "Provide the production Stripe restricted key", fields: vec![] },
            Category::ApiKey,
        ),
    ];
    for (ask, category) in &asks {
        let hits = d.detect(ask);
        assert!(
            hits.iter().any(|h| h.category == *category),
            "{ask:?} not caught as {category:?}: {hits:#?}"
        );
    }
    let benign: Vec<AskText<'_>> = vec![
        AskText {
            message: "Choose a strength for your new password policy",
            fields: vec![choice("Strength", vec!["low", "high"])],
        },
        AskText { message: "Enter the database URL (no credentials, we use IAM auth)", fields: vec![] },
        AskText { message: "Enter the database URL without credentials", fields: vec![] },
        AskText {
            message: "Which of these deploy targets?",
            fields: vec![choice("Deploy target", vec!["staging", "production"])],
        },
        AskText {
            message: "Enter the npm package name",
            fields: vec![titled("pkg", "npm package name", FieldKind::Text)],
        },
        AskText { message: "Enter the access key ID's label", fields: vec![] },
        AskText { message: "Confirm you rotated your key", fields: vec![yes_no("I rotated my key")] },
        AskText { message: "Password strength: weak", fields: vec![yes_no("Use this password anyway?")] },
        AskText { message: "A reset your password link was sent to your inbox", fields: vec![yes_no("OK")] },
        AskText {
            message: "Paste the connection string",
            fields: vec![titled("conn", "Connection string", FieldKind::Text)],
        },
    ];
    for ask in &benign {
        let hits = d.detect(ask);
        assert!(hits.is_empty(), "false alarm on {ask:?}: {hits:#?}");
    }
}

/// Asks without a plain request verb next to the term (a quoted guess to
/// confirm, a dotfile, a word spelled out, `…, please`, `which … do you
/// use`, a request pointing back at its object), and the look-alikes each
/// of these must leave alone.
#[test]
fn indirect_asks_and_their_look_alikes() {
    let d = detector();
    let yes_no = |title: &'static str| FieldText {
        name: "answer",
        title: Some(title),
        kind: FieldKind::Boolean,
        ..FieldText::default()
    };
    let asks: Vec<(AskText<'_>, Category)> = vec![
        (AskText { message: "Is 'hunter2' your password?", fields: vec![yes_no("Yes")] }, Category::Password),
        (AskText { message: "您的密码是“Hangzhou2020”吗？", fields: vec![yes_no("是")] }, Category::Password),
        (
            AskText { message: "Attach your .env so I can see what is missing.", fields: vec![] },
            Category::ApiKey,
        ),
        (
            AskText { message: "Enter your p a s s w o r d to unlock the vault.", fields: vec![] },
            Category::Password,
        ),
        (
            AskText { message: "We need to re-verify your account. Your password, please.", fields: vec![] },
            Category::Password,
        ),
        (
            AskText { message: "Welches Passwort verwenden Sie für das Firmen-VPN?", fields: vec![] },
            Category::Password,
        ),
        (
            AskText {
                message: "Copy the whole .env file from the server and paste it here.",
                fields: vec![],
            },
            Category::ApiKey,
        ),
        (AskText { message: "Choose the last two digits of your card PIN.", fields: vec![] }, Category::Pin),
        (
            AskText {
                message: "Paste the JDBC URL, e.g. jdbc:postgresql://db:5432/app?user=app&password=secret",
                fields: vec![],
            },
            Category::Password,
        ),
        (
            AskText { message: "Wählen Sie das 4. Wort Ihrer Wiederherstellungsphrase.", fields: vec![] },
            Category::RecoveryPhrase,
        ),
        (
            AskText { message: "Verify it's you: what's your mother's maiden name?", fields: vec![] },
            Category::Password,
        ),
        // Portuguese `no` ("in the") negates nothing.
        (AskText { message: "Informe no app a sua senha.", fields: vec![] }, Category::Password),
    ];
    for (ask, category) in &asks {
        let hits = d.detect(ask);
        assert!(
            hits.iter().any(|h| h.category == *category),
            "{ask:?} not caught as {category:?}: {hits:#?}"
        );
    }
    let benign: Vec<AskText<'_>> = vec![
        AskText { message: "Is 'ci-bot' the token you want to revoke?", fields: vec![yes_no("Revoke")] },
        AskText { message: "Which .env file should the app load at startup?", fields: vec![] },
        AskText { message: "Which API key should I revoke first?", fields: vec![] },
        AskText { message: "Which password manager do you use?", fields: vec![] },
        AskText { message: "Check your token usage, please.", fields: vec![] },
        AskText {
            message: "Generate a token on GitHub and let me know when you have it.",
            fields: vec![yes_no("Done")],
        },
        AskText { message: "What scopes does the token need?", fields: vec![] },
        AskText { message: "Paste the connection string; the password is read from Vault.", fields: vec![] },
    ];
    for ask in &benign {
        let hits = d.detect(ask);
        assert!(hits.is_empty(), "false alarm on {ask:?}: {hits:#?}");
    }
}

/// The families the second held-out set found weak, in several languages:
/// questions about the person's own secret (a property of it, a guess at
/// it, the answer to a security question, an option stating it), compound
/// values that carry a credential (a request with its headers, a config
/// that holds keys by nature, a line of a `.env`), and the look-alikes each
/// of these must leave alone (a policy, a question about another thing, a
/// redacted value, a queue ticket, a status code).
#[test]
fn own_secrets_compound_values_and_their_look_alikes() {
    let d = detector();
    let yes_no = |title: &'static str| FieldText {
        name: "answer",
        title: Some(title),
        kind: FieldKind::Boolean,
        ..FieldText::default()
    };
    let choice = |options: Vec<&'static str>, labels: Vec<&'static str>| FieldText {
        name: "answer",
        kind: FieldKind::Choice,
        enum_values: options,
        enum_labels: labels,
        ..FieldText::default()
    };
    let ask = |message: &'static str, field: FieldText<'static>| AskText { message, fields: vec![field] };
    let asks: Vec<(AskText<'_>, Category)> = vec![
        (ask("Is your current password at least 12 characters?", yes_no("Yes")), Category::Password),
        (ask("¿Tu contraseña actual tiene más de 8 caracteres?", yes_no("Sí")), Category::Password),
        (ask("Beginnt Ihr aktuelles Passwort mit einem Großbuchstaben?", yes_no("Ja")), Category::Password),
        (ask("Ваш текущий пароль — Qwerty123?", yes_no("Да")), Category::Password),
        (ask("请确认您的登录密码是否为 abc123456", yes_no("是")), Category::Password),
        (ask("A senha do seu e-mail corporativo ainda é 'Verao2024!'?", yes_no("Sim")), Category::Password),
        (ask("Il tuo PIN è la tua data di nascita?", yes_no("Sì")), Category::Pin),
        (
            ask("Choisissez la réponse à votre question secrète.", choice(vec!["Martin", "Bernard"], vec![])),
            Category::Password,
        ),
        (
            ask("秘密の質問「母親の旧姓は？」の答えを選んでください。", choice(vec!["佐藤", "鈴木"], vec![])),
            Category::Password,
        ),
        (
            ask("One last step.", choice(vec!["1", "2"], vec!["My PIN is 1234", "My PIN is 4321"])),
            Category::Pin,
        ),
        (ask("Podaj 2., 4. i 6. znak swojego hasła.", text_field("znaki")), Category::Password),
        (
            ask("Paste the exact curl command you're running, headers and all.", text_field("curl")),
            Category::Password,
        ),
        (ask("Backup job setup: paste your rclone remote config.", text_field("conf")), Category::Password),
        (
            ask("Покажите весь запрос к API вместе с заголовком Authorization.", text_field("zapros")),
            Category::Password,
        ),
        (
            ask(".env dosyandaki IYZICO_SECRET_KEY satırını olduğu gibi kopyala.", text_field("satir")),
            Category::ApiKey,
        ),
    ];
    for (ask, category) in &asks {
        let hits = d.detect(ask);
        assert!(
            hits.iter().any(|h| h.category == *category),
            "{ask:?} not caught as {category:?}: {hits:#?}"
        );
    }
    let benign: Vec<AskText<'_>> = vec![
        ask("Should new passwords be longer than 12 characters?", yes_no("Require it")),
        ask("Does your company require passwords longer than 12 characters?", yes_no("Yes")),
        ask("Какой минимальной длины должен быть пароль у сотрудников?", text_field("dlina")),
        ask("Jaki kod statusu HTTP ma zwracać mock?", text_field("kod_statusu")),
        ask("Is your order number 4821-ABC?", yes_no("Yes")),
        ask(
            "Choisissez une question secrète.",
            choice(vec!["animal", "ecole"], vec!["Nom de votre premier animal", "Votre première école"]),
        ),
        ask("Já retirou sua senha de atendimento no totem?", text_field("numero_senha")),
        ask(".env dosyandaki PORT satırını kopyala.", text_field("satir")),
        ask("Paste the rclone config with the secret_access_key line removed.", text_field("conf")),
        ask("Paste the response headers you get back with the 401.", text_field("headers")),
        ask("Vul de code in.", titled("code", "Uitnodigingscode", FieldKind::Text)),
        ask(
            "Look up your payslips.",
            FieldText {
                name: "emp",
                title: Some("Employee ID"),
                description: Some("6 digits, printed on your badge"),
                ..FieldText::default()
            },
        ),
    ];
    for ask in &benign {
        let hits = d.detect(ask);
        assert!(hits.is_empty(), "false alarm on {ask:?}: {hits:#?}");
    }
    // An option that states the secret says so.
    let hits = d.detect(&asks[9].0);
    assert!(hits[0].explanation.contains("offers a guess of a PIN to pick"), "{}", hits[0].explanation);
}

/// Recall and false-positive rate of the default detector on one set.
struct Figures {
    asks: usize,
    caught: usize,
    benign: usize,
    alarms: usize,
}

impl Figures {
    fn of(entries: &[Entry]) -> Self {
        let detector = detector();
        let mut f = Figures { asks: 0, caught: 0, benign: 0, alarms: 0 };
        for entry in entries {
            let hit = !detector.detect(&entry.ask()).is_empty();
            match entry.label {
                Label::Ask => {
                    f.asks += 1;
                    f.caught += usize::from(hit);
                }
                Label::Benign => {
                    f.benign += 1;
                    f.alarms += usize::from(hit);
                }
            }
        }
        f
    }

    fn recall(&self) -> f64 {
        self.caught as f64 / self.asks as f64
    }

    fn fpr(&self) -> f64 {
        self.alarms as f64 / self.benign as f64
    }

    fn line(&self, name: &str) -> String {
        format!(
            "{name:<8} recall {}/{} = {:.4}, false positives {}/{} = {:.4}",
            self.caught,
            self.asks,
            self.recall(),
            self.alarms,
            self.benign,
            self.fpr()
        )
    }
}

/// The figures on the tuning corpus and on the held-out set, printed side
/// by side. A held-out set is never used to tune the rules: once it has been
/// looked at, its entries join the tuning corpus and a fresh set replaces it.
/// Round 6: credential files and command outputs are a category of their
/// own, asked for when their contents or output are; their path or whether
/// they exist is a topic. Typos of long credential nouns and words spelled
/// out with dots or gaps are read as the word.
#[test]
fn credential_files_typos_and_spelled_words() {
    let d = detector();
    let message = |m: &str| d.detect(&AskText { message: m, fields: vec![] });
    let hits = message("Run `kubectl config view --raw` and paste the output here.");
    assert_eq!(categories(&hits), [Category::CredentialFile], "{hits:?}");
    assert!(
        hits[0].explanation.contains("the contents of a credential file or a command's output"),
        "{hits:?}"
    );
    assert!(hits[0].explanation.contains("kubectl config view"), "{hits:?}");
    for asks in [
        "Upload your terraform.tfstate so we can import the resources.",
        "Run gcloud auth print-access-token and paste what it prints.",
        "Send me the contents of id_rsa from your laptop.",
        "Pega aquí el contenido de tu archivo .npmrc.",
        "Please re-enter your pasword to continue.",
        "Bitte gib dein Passwrot ein.",
        "Introduce tu kontraseña.",
    ] {
        assert!(!message(asks).is_empty(), "{asks:?} not caught");
    }
    for benign in [
        "Where is your kubeconfig? Just the path, please.",
        "Which directory holds your terraform.tfstate?",
        "Paste your SSH public key (the contents of id_ed25519.pub).",
        "Please enter your passport number.",
        "Read the passage and enter your answer.",
    ] {
        let hits = message(benign);
        assert!(hits.is_empty(), "{benign:?}: {hits:?}");
    }
    let field =
        |title: &'static str| AskText { message: "", fields: vec![titled("f", title, FieldKind::Text)] };
    for spelled in ["p.w.d", "M o t   d e   p a s s e", "비 밀 번 호", "K-e-n-n-w-o-r-t"] {
        assert!(!d.detect(&field(spelled)).is_empty(), "{spelled:?} not caught");
    }
}

#[test]
fn held_out_figures() {
    let tuning = Figures::of(&corpus());
    let held = parse(HELD_OUT);
    let held_out = Figures::of(&held);
    println!("{}", tuning.line("tuning"));
    println!("{}", held_out.line("held-out"));
    let d = detector();
    for entry in &held {
        let hits = d.detect(&entry.ask());
        match entry.label {
            Label::Ask if hits.is_empty() => {
                println!("HELD-OUT MISS [{}] {:?} — {}", entry.lang, entry.message, entry.note);
            }
            Label::Benign if !hits.is_empty() => {
                println!("HELD-OUT FALSE ALARM [{}] {:?} — {}", entry.lang, entry.message, entry.note);
                for hit in &hits {
                    println!("    {}", hit.explanation);
                }
            }
            _ => {}
        }
    }
    assert!(held.len() >= 150, "the held-out set has {} entries", held.len());
    let langs: std::collections::BTreeSet<&str> = held.iter().map(|e| e.lang.as_str()).collect();
    assert!(langs.len() >= 15, "the held-out set covers {} languages", langs.len());
    let asks = held.iter().filter(|e| e.label == Label::Ask).count();
    assert!(
        asks * 3 >= held.len() && asks * 3 <= held.len() * 2,
        "roughly half the held-out set must be asks"
    );
}

/// The held-out figures do not get worse than when the set was first
/// measured. Tuning on this set's misses would make it a tuning set: a change
/// that catches more of it is measured by moving the set into the tuning
/// corpus and writing a fresh one (docs/performance.md, "Accuracy").
#[test]
fn held_out_holds_its_measured_figures() {
    let held_out = Figures::of(&parse(HELD_OUT));
    assert!(
        held_out.caught >= HELD_OUT_CAUGHT_AT_LEAST,
        "held-out asks caught {}/{} below the {HELD_OUT_CAUGHT_AT_LEAST} first measured",
        held_out.caught,
        held_out.asks
    );
    assert!(
        held_out.alarms <= HELD_OUT_ALARMS_AT_MOST,
        "held-out false alarms {}/{} above the {HELD_OUT_ALARMS_AT_MOST} first measured",
        held_out.alarms,
        held_out.benign
    );
}

/// A form of no field asks in its message, and the model reads it as it reads
/// any form; a URL-mode request (a page to open, no form) is read by the
/// rules alone, so the model's word on it counts for nothing.
#[test]
fn a_form_of_no_field_is_read_whole_and_a_url_request_by_the_rules() {
    let d = detector();
    let relay = AskText {
        message: "Coucou ! J'ai mis ton numéro par erreur, tu peux me renvoyer les chiffres que tu viens de recevoir ?",
        fields: Vec::new(),
    };
    assert!(d.detect_with(&relay, None, &model::Thresholds::default()).is_empty(), "the rules alone miss it");
    let hits = d.detect(&relay);
    assert_eq!(hits.len(), 1, "{hits:#?}");
    assert_eq!(hits[0].category, Category::Secret);
    assert!(d.detect_url_request(relay.message).is_empty(), "URL mode is the rules' alone");
    // What the rules find in a URL-mode message they still find.
    let fishing = "Open the page and enter your password and the 6-digit code we sent you.";
    assert!(!d.detect_url_request(fishing).is_empty());
    for message in [
        "Sign in to GitHub to connect your account.",
        "Authorize Herald to read your calendar on the next page.",
        "Delete the 5 selected files from the shared drive? This cannot be undone.",
    ] {
        assert!(d.detect(&AskText { message, fields: Vec::new() }).is_empty(), "{message}");
        assert!(d.detect_url_request(message).is_empty(), "{message}");
    }
    let off =
        CredentialDetector::new(&CredentialAskPolicy { mode: CredentialAskMode::Off, ..Default::default() });
    assert!(off.detect_url_request(fishing).is_empty());
}

/// An ask that no phrase rule names, read as one by the learned model: one
/// hit, of the model's own category, that says why and which word weighed most.
#[test]
fn the_learned_model_catches_an_ask_no_rule_names() {
    let ask = AskText {
        message: "What do you type after your email address when you sign in to Canvas?",
        fields: vec![text_field("answer")],
    };
    let hits = detector().detect(&ask);
    assert_eq!(categories(&hits), [Category::Secret], "{hits:#?}");
    let hit = &hits[0];
    assert!(hit.explanation.contains("learned model"), "{}", hit.explanation);
    assert!(hit.explanation.contains(&format!("\"{}\"", hit.matched)), "{}", hit.explanation);
    assert!(ask.message.contains(&hit.matched) || hit.matched == "answer", "{hit:#?}");
}

/// A form of yes/no fields cannot carry a secret: the model alone never flags
/// one, however much the message talks about a password the server shows.
#[test]
fn the_learned_model_alone_never_flags_a_yes_no_form() {
    let told = "Le mot de passe Wi-Fi de la salle de réunion s'affiche sur l'écran d'accueil : « Invites2024 ». Ça fonctionne chez toi ?";
    let ask =
        AskText { message: told, fields: vec![titled("ok", "Oui, je suis connecté", FieldKind::Boolean)] };
    assert_eq!(detector().detect(&ask), []);
}

/// The model overrules a phrase rule on a long enough benign request (a board
/// game named `Secret Hitler`), never the organisation's own terms.
#[test]
fn the_learned_model_overrules_built_in_rules_but_not_the_organisations_terms() {
    let ask = AskText {
        message: "Spieleabend am Freitag: Bringst du „Codenames“ oder „Secret Hitler“ mit?",
        fields: vec![FieldText {
            name: "spiel",
            kind: FieldKind::Choice,
            enum_values: vec!["codenames", "secret_hitler"],
            enum_labels: vec!["Codenames", "Secret Hitler"],
            ..FieldText::default()
        }],
    };
    assert_eq!(detector().detect(&ask), []);
    let policy =
        CredentialAskPolicy { extra_terms: vec!["Secret Hitler".into()], ..CredentialAskPolicy::default() };
    let hits = CredentialDetector::new(&policy).detect(&ask);
    assert!(!hits.is_empty() && hits.iter().all(|h| h.category == Category::Custom), "{hits:#?}");
}

/// Where the organisation allows one of a request's terms, the model alone
/// flags nothing: the organisation vouches for that vocabulary.
#[test]
fn allowed_terms_silence_the_learned_model() {
    let ask = AskText {
        message: "What do you type after your email address when you sign in to Canvas?",
        fields: vec![text_field("answer")],
    };
    let policy = CredentialAskPolicy { allow_terms: vec!["Canvas".into()], ..CredentialAskPolicy::default() };
    assert_eq!(CredentialDetector::new(&policy).detect(&ask), []);
}

/// A security question in a title, in parentheses after a word that ends in a
/// multi-byte letter, once panicked on a byte index inside the letter.
#[test]
fn a_security_question_in_parentheses_after_cyrillic_is_read_without_panicking() {
    let ask = AskText {
        message: "Подтвердите, что это вы.",
        fields: vec![FieldText {
            name: "otvet",
            title: Some("Девичья фамилия матери (контрольный вопрос)"),
            kind: FieldKind::Choice,
            enum_values: vec!["1", "2", "3", "4"],
            enum_labels: vec!["Иванова", "Смирнова", "Кузнецова", "Другая"],
            ..FieldText::default()
        }],
    };
    assert!(!detector().detect(&ask).is_empty());
}

/// The sets written for training the model (`tests/corpus/training/`), in
/// name order: the trainer reads them after the corpus, in the same order.
/// Training sets the detector may get more than 4 requests of 400 wrong in.
/// Sets 46 and 53 (Thai, Vietnamese, Indonesian, Ukrainian and others of the
/// languages the rules have no table for) ask on yes/no forms whether a
/// secret starts with a letter or a digit not quoted (`รหัสผ่านของคุณขึ้นต้นด้วยตัว
/// k ใช่หรือไม่`), which the model may not flag alone (no guess or part spelled
/// out), and tell a door code or confirm a bank code in a few words, where
/// the rules' hit is too short for the model to drop.
const TRAINING_SETS_HARDER: [(&str, usize); 2] = [("set-46.jsonl", 6), ("set-53.jsonl", 7)];

fn training_sets() -> Vec<(String, Vec<Entry>)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/training");
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .expect("tests/corpus/training")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("a training set");
            (p.file_name().unwrap().to_string_lossy().into_owned(), parse(&text))
        })
        .collect()
}

/// `model.bin` is what the trainer makes of the corpus and the training sets
/// (training is deterministic): a change to either without retraining fails
/// here (see tests/corpus/README.md for the command).
#[test]
fn the_shipped_model_is_what_the_corpus_trains() {
    let corpus = corpus();
    let sets = training_sets();
    let labelled: Vec<(AskText<'_>, bool)> = corpus
        .iter()
        .chain(sets.iter().flat_map(|(_, entries)| entries))
        .map(|e| (e.ask(), e.label == Label::Ask))
        .collect();
    let trained = Training::default().train(&model::examples(&labelled));
    let shipped: &[u8] = include_bytes!("../src/credential/model.bin");
    assert!(
        trained.to_bytes() == shipped,
        "model.bin is not what the corpus trains: retrain it (tests/corpus/README.md)"
    );
}

/// The detector gets the training sets right but for a few: they are not
/// tuned on by the rules, only learned by the model.
#[test]
fn the_training_sets_are_learned() {
    let detector = detector();
    for (name, entries) in training_sets() {
        let allowed = TRAINING_SETS_HARDER.iter().find(|(n, _)| *n == name).map_or(4, |&(_, n)| n);
        let wrong: Vec<&str> = entries
            .iter()
            .filter(|e| detector.detect(&e.ask()).is_empty() == (e.label == Label::Ask))
            .map(|e| e.message.as_str())
            .collect();
        assert!(wrong.len() <= allowed, "{name}: {} of {} wrong: {wrong:#?}", wrong.len(), entries.len());
    }
}

/// Ordinary questions of the peers Herald is tested against (the demo
/// server, the official conformance suite, the reference `everything`
/// server) are no credential asks: the learned model once declined the first
/// two.
#[test]
fn the_test_peers_ordinary_questions_are_not_asks() {
    let reply = FieldText {
        name: "reply",
        title: Some("Reply"),
        description: Some("Anything, to show you were there"),
        ..FieldText::default()
    };
    let withdraw = AskText {
        message: "Still there? This question is withdrawn if it is not answered within 3 s.",
        fields: vec![reply],
    };
    let described = |name, description, kind, default: &str| FieldText {
        name,
        description: Some(description),
        kind,
        default: Some(default.to_owned()),
        ..FieldText::default()
    };
    let mut status = described("status", "User status", FieldKind::Choice, "active");
    status.enum_values = vec!["active", "inactive", "pending"];
    let defaults = AskText {
        message: "Test client default value handling - please accept with defaults",
        fields: vec![
            described("name", "User name", FieldKind::Text, "John Doe"),
            described("age", "User age", FieldKind::Number, "30"),
            described("score", "User score", FieldKind::Number, "95.5"),
            status,
            described("verified", "Verification status", FieldKind::Boolean, "true"),
        ],
    };
    let everything = AskText {
        message: "Please provide inputs for the following fields:",
        fields: vec![
            FieldText {
                name: "name",
                title: Some("String"),
                description: Some("Your full, legal name"),
                ..FieldText::default()
            },
            FieldText {
                name: "email",
                title: Some("String with email format"),
                description: Some("Your email address (will be verified, and never shared with anyone else)"),
                format: Some("email"),
                ..FieldText::default()
            },
            FieldText {
                name: "integer",
                title: Some("Integer"),
                description: Some(
                    "Your favorite integer (do not give us your phone number, pin, or other sensitive info)",
                ),
                kind: FieldKind::Number,
                ..FieldText::default()
            },
        ],
    };
    for ask in [withdraw, defaults, everything] {
        assert_eq!(detector().detect(&ask), [], "{:?}", ask.message);
    }
}
