//! German. German writes compounds as one word, so the main credential
//! nouns also match as the last part of a compound (`Kontopasswort`,
//! `Kreditkartennummer`), but not as the first (`Passwortlänge`,
//! `Passwortmanager`), which is where the settings and topics are.

use super::LangRules;
use crate::credential::Category::*;
use crate::credential::matcher::{Scope, Sense};

#[rustfmt::skip]
pub(super) const RULES: LangRules = LangRules {
    code: "de",
    terms: &[
        (Password, &[
            "*passwort", "*passworts", "*passwörter", "*kennwort", "*kennworts", "*kennwörter",
            "zugangsdaten", "anmeldedaten", "*zugangscode",
        ]),
        (Passphrase, &["*passphrase", "passsatz", "kennsatz"]),
        (ApiKey, &[
            "api schlüssel", "*apischlüssel", "geheimer schlüssel", "geheimen schlüssel", "zugriffsschlüssel",
            "zugangsschlüssel", "*zugriffsschlüssel", "entwicklerschlüssel",
        ]),
        (AccessToken, &[
            "zugriffstoken", "zugangstoken", "*zugriffstoken", "authentifizierungstoken",
            "persönliches zugriffstoken", "sitzungstoken", "bearer token",
        ]),
        (ClientSecret, &["client geheimnis", "clientgeheimnis", "anwendungsgeheimnis"]),
        (PrivateKey, &[
            "privater schlüssel", "privaten schlüssel", "private schlüssel", "privatschlüssel",
            "*privatschlüssel", "geheimer privater schlüssel",
        ]),
        (RecoveryPhrase, &[
            "wiederherstellungsphrase", "*wiederherstellungsphrase", "wiederherstellungswörter",
            "wiederherstellungssatz", "mnemonische phrase", "seed phrase", "*seedphrase",
        ]),
        (SessionCookie, &["sitzungscookie", "session cookie", "sitzungs cookie"]),
        (OneTimeCode, &[
            "*bestätigungscode", "*verifizierungscode", "*einmalpasswort", "*einmalkennwort", "*einmalcode",
            "authentifizierungscode", "*anmeldecode", "*smscode", "sms code", "*smstan", "*pushtan",
            "*chiptan", "*mobiltan", "tan nummer", "push tan", "chip tan", "sms tan", "photo tan",
            "*freigabecode", "*prüfcode", "*authentifizierungscode", "*loginkode", "*logincode",
            "*sicherheitstoken",
        ]),
        (Pin, &["pin nummer", "*geheimzahl", "*pinnummer", "persönliche geheimzahl", "*kartenpin"]),
        (CardNumber, &[
            "*kartennummer", "*kreditkarte", "*kreditkartennummer", "*kreditkartendaten", "*kartendaten",
            "*debitkarte", "*bankkarte", "*girokarte",
        ]),
        (CardExpiry, &["*kartenablaufdatum", "ablaufdatum der karte", "gültigkeit der karte"]),
        (CardSecurityCode, &["*kartenprüfnummer", "*kartenprüfziffer", "prüfnummer", "cvc code"]),
        (ApiKey, &["env datei", "*envdatei", "inhalt der env datei", "inhalt ihrer env datei", "dotenv datei"]),
        (AccessToken, &["*deploytoken", "deploy token", "*bereitstellungstoken", "*veröffentlichungstoken"]),
    ],
    conditional: &[
        (CardSecurityCode, Sense::CardOrOtp, &["*sicherheitscode"]),
        (CardSecurityCode, Sense::NeedsCard, &["prüfziffer", "prüfziffern"]),
        (CardExpiry, Sense::NeedsCard, &[
            "*ablaufdatum", "gültig bis", "gültigkeitsdatum", "verfallsdatum", "ablaufmonat", "ablaufjahr",
            "gültigkeit",
        ]),
    ],
    blockers: &[
        "*hausschlüssel", "*autoschlüssel", "*wohnungsschlüssel", "*schlüsselbund", "öffentlicher schlüssel",
        "öffentlichen schlüssel", "*geschenkkarte", "*kundenkarte", "*bonuskarte", "*simkarte", "sim karte",
        "*speicherkarte", "*grafikkarte", "*visitenkarte", "*landkarte", "*spielkarte", "*kartenspiel",
        "*trello karte", "trello karte", "*postkarte", "*eintrittskarte", "*fahrkarte",
        "*krankenversicherungskarte", "*gesundheitskarte", "*mitgliedskarte", "*bordkarte", "*gutscheincode",
        "*rabattcode", "*aktionscode", "*postleitzahl", "*quellcode", "*fehlercode", "*ländercode",
        "*strichcode", "*barcode", "qr code", "*qrcode", "*promocode", "*einladungscode", "*buchungscode",
        "*sendungscode", "*dresscode", "pin anheften", "anheften",
    ],
    not_requests: &["wir senden ihnen", "wir schicken ihnen", "senden wir ihnen", "erneut senden"],
    meta_before: &[
        "länge des", "länge ihres", "mindestlänge", "mindestlänge des", "anzahl der", "anzahl", "maximale",
        "maximalen", "minimale", "richtlinie für", "vergessen sie ihr", "ihr vergessenes", "ändern sie ihr",
        "neues festlegen", "zurücksetzen des", "zurücksetzen", "welcher", "welches", "welchen", "art des",
        "typ des", "name des", "namen des", "bezeichnung des", "beschreibung des", "rotieren", "widerrufen",
        "löschen", "speichern", "ablauf des",
    ],
    statements: &["ist", "sind", "wird", "werden", "muss", "müssen", "darf", "dürfen"],
    meta_after: &[
        "manager", "vergessen", "zurücksetzen", "ändern", "richtlinie", "richtlinien", "länge",
        "wiederherstellen", "limit", "budget", "anzahl", "rotieren", "widerrufen", "abgelaufen", "löschen",
        "speichern", "anforderungen", "regeln", "stärke", "gültigkeit", "verwaltung", "ablauf", "geändert",
        "vergessen?",
    ],
    cues: &[
        "geben sie", "gib", "gebt", "eingeben", "einfügen", "fügen sie", "füge", "tragen sie", "trage",
        "eintragen", "angeben", "geben sie an", "nennen sie", "nenne", "teilen sie", "teile", "senden sie",
        "sende", "schicken sie", "schicke", "bitte geben", "wie lautet", "wie lautet ihr", "wie lautet dein",
        "tippen sie", "tippe", "benötigen ihr", "brauchen ihr", "brauchen dein", "brauche dein", "mitteilen",
        "übermitteln", "eingabe", "hinterlegen", "was ist ihr", "was ist dein", "wie lautet das",
        "wie lautet die",
    ],
    near_cues: &[
        "bestätigen sie", "bestätigen", "bestätige", "wählen sie", "wähle", "festlegen", "erforderlich",
        "benötigt", "vergeben",
    ],
    negations: &["nicht", "nie", "niemals", "kein", "keine", "keinen", "keiner", "ohne", "niemand"],
    negation_scope: Scope::Both,
    cues_follow_terms: true,
    card: &["karte", "*kreditkarte", "karteninhaber", "*bankkarte", "*debitkarte", "*girokarte"],
    otp: &[
        "gesendet", "geschickt", "sms", "ziffern", "stellige", "stelligen", "authenticator", "zugesandt",
        "erhalten",
    ],
    address: &["adresse", "anschrift", "lieferung", "straße", "stadt", "wohnort"],
    map: &["standort", "karte anheften", "kartenmarkierung"],
    carriers: &["verbindungszeichenfolge", "*verbindungszeichenfolge", "verbindungsstring", "*verbindungsstring", "datenbank url", "datenbank uri", "*datenbankurl", "verbindungs url", "verbindungsurl", "konfigurationsdatei", "konfigurationsausschnitt"],
    own: &["aktuelles", "aktuelle", "aktuellen", "derzeitiges", "derzeitige", "bestehendes", "bestehende", "jetziges", "mein", "meine"],
    own_cues: &["ist eines dieser", "eines dieser", "ist das ihr", "ist dies ihr", "ist das dein", "beginnt mit", "endet mit", "aus der liste", "#. wort", "wort #", "wort nr #", "ist ihr", "ist dein", "erster buchstabe", "ersten buchstaben", "erste ziffer", "letzte ziffer", "letzten ziffern", "letzten # ziffern"],
    qualifiers: &["live", "produktion", "produktions", "test", "deploy", "bereitstellungs"],
    qualified: &[(ApiKey, &["schlüssel", "*liveschlüssel", "*produktionsschlüssel"])],
};
