//! Italian.

use super::LangRules;
use crate::credential::Category::*;
use crate::credential::matcher::{Scope, Sense};

#[rustfmt::skip]
pub(super) const RULES: LangRules = LangRules {
    code: "it",
    terms: &[
        (Password, &["parola d'ordine", "credenziali", "credenziali di accesso", "chiave d'accesso"]),
        (Passphrase, &["frase segreta", "frase di accesso", "frase password"]),
        (ApiKey, &[
            "chiave api", "chiave dell'api", "chiave delle api", "chiave segreta", "chiave di accesso",
            "chiave sviluppatore",
        ]),
        (AccessToken, &[
            "token di accesso", "token di autenticazione", "token personale", "token di sessione",
            "token di autorizzazione",
        ]),
        (ClientSecret, &["segreto del client", "segreto client", "segreto dell'applicazione"]),
        (PrivateKey, &["chiave privata", "chiavi private"]),
        (RecoveryPhrase, &[
            "frase di recupero", "frase seed", "parole di recupero", "frase mnemonica", "frase di backup",
            "seed del portafoglio",
        ]),
        (SessionCookie, &["cookie di sessione"]),
        (OneTimeCode, &[
            "codice di verifica", "codice monouso", "codice usa e getta", "codice otp",
            "codice di autenticazione", "codice inviato", "codice che ti abbiamo inviato", "codice ricevuto",
            "codice sms", "codice via sms", "codice 2fa", "password monouso", "password temporanea",
            "codice di accesso temporaneo", "codice a 6 cifre", "codice di sei cifre",
            "codice di validazione",
        ]),
        (Pin, &["codice pin", "numero pin", "pin della carta", "pin del bancomat"]),
        (CardNumber, &[
            "numero della carta", "numero di carta", "carta di credito", "carta di debito",
            "dati della carta", "numero carta", "dati della tua carta",
        ]),
        (CardExpiry, &["scadenza della carta", "data di scadenza della carta"]),
        (CardSecurityCode, &[
            "codice cvv", "codice di sicurezza della carta", "le 3 cifre sul retro", "tre cifre sul retro",
            "cifre sul retro",
        ]),
        (ApiKey, &["file env", "contenuto del file env", "chiave limitata", "chiave ristretta"]),
        (AccessToken, &["token di deploy", "token di pubblicazione", "token del bot"]),
    ],
    conditional: &[
        (OneTimeCode, Sense::NeedsOtp, &["codice", "codice di conferma", "codice di accesso"]),
        (CardSecurityCode, Sense::CardOrOtp, &["codice di sicurezza"]),
        (CardExpiry, Sense::NeedsCard, &["data di scadenza", "scadenza", "valida fino al"]),
    ],
    blockers: &[
        "codice postale", "codice sconto", "codice promozionale", "codice coupon", "codice fiscale",
        "codice sorgente", "codice a barre", "codice qr", "codice di tracciamento", "codice di tracking",
        "codice prodotto", "codice di prenotazione", "codice invito", "codice regalo", "codice di errore",
        "codice paese", "codice della strada", "codice etico", "codice di abbigliamento", "codice colore",
        "codice iban", "codice ateco", "carta regalo", "carta fedeltà", "carta sim", "carta d'identità",
        "gioco di carte", "carta igienica", "carta da regalo", "carta trello", "carta di imbarco",
        "carta d'imbarco", "carta da gioco", "carte da gioco", "carta stampante", "carta della",
        "carta geografica", "parola chiave", "parole chiave", "chiave di casa", "chiavetta usb",
        "chiave pubblica",
    ],
    not_requests: &["ti invieremo", "le invieremo", "invieremo", "reinvia", "abbiamo inviato un"],
    meta_before: &[
        "gestore di", "gestore delle", "gestore password", "lunghezza della", "lunghezza minima della",
        "lunghezza minima", "politica delle", "politica della", "criteri della", "numero di", "limite di",
        "reimposta la", "reimpostare la", "reimpostazione della", "hai dimenticato la", "dimenticato la",
        "cambiare la", "cambia la", "modifica la", "modificare la", "recupero della", "recupera la",
        "revoca la", "revocare", "elimina la", "nome della", "nome del", "descrizione della", "tipo di",
        "quale tipo di", "scadenza della", "sicurezza della", "salvare la", "ricorda", "generatore di",
        "mostra",
    ],
    statements: &["è", "sono", "sarà", "saranno", "deve", "devono"],
    meta_after: &["dimenticata", "scaduta", "compromessa", "salvata", "debole"],
    cues: &[
        "inserisci", "inserisca", "inserire", "digita", "digiti", "digitare", "fornisci", "fornisca",
        "fornire", "indica", "indichi", "incolla", "incolli", "invia", "invii", "inviaci", "condividi",
        "condivida", "qual è la tua", "qual è il tuo", "qual è la sua", "dimmi", "dicci", "immetti",
        "immettere", "comunicaci", "abbiamo bisogno della tua", "abbiamo bisogno del tuo", "scrivi", "scriva",
        "qual è il", "qual è la",
    ],
    near_cues: &[
        "conferma", "confermi", "scegli", "scelga", "imposta", "obbligatoria", "obbligatorio", "richiesta",
    ],
    negations: &["non", "mai", "senza", "nessuno", "nessun"],
    negation_scope: Scope::Forward,
    cues_follow_terms: false,
    card: &["carta", "titolare della carta", "intestatario della carta"],
    otp: &["inviato", "ricevuto", "sms", "cifre", "autenticatore", "verifica", "messaggio"],
    address: &["indirizzo", "spedizione", "consegna", "città", "via", "comune"],
    map: &["mappa", "posizione"],
    carriers: &["stringa di connessione", "url di connessione", "url del database", "uri del database", "file di configurazione"],
    own: &["attuale", "esistente", "mia", "mio"],
    own_cues: &["una di queste", "uno di questi", "è la tua", "è il tuo", "dalla lista", "inizia con", "finisce con", "termina con", "parola #", "#a parola", "#ª parola", "è il suo", "è la sua", "prima lettera", "prima cifra", "ultima cifra", "ultime cifre", "ultime # cifre"],
    ..LangRules::EMPTY
};
