//! Italian.

use super::LangRules;
use crate::credential::Category::*;
use crate::credential::matcher::{Scope, Sense};

#[rustfmt::skip]
pub(super) const RULES: LangRules = LangRules {
    code: "it",
    terms: &[
        (Password, &[
            "parola d'ordine", "credenziali", "credenziali di accesso", "chiave d'accesso",
            "cognome da nubile di tua madre", "cognome da nubile di sua madre", "nome da nubile di tua madre",
            "cognome da nubile della madre", "risposta di sicurezza", "risposta segreta",
            "risposta alla domanda di sicurezza", "primo animale domestico", "primo animale", "prima scuola",
            "migliore amico d infanzia", "nome del tuo primo animale", "nome del primo animale",
            "chiave del wi fi", "chiave wifi", "chiave wi fi", "chiave della rete",
        ]),
        (Passphrase, &["frase segreta", "frase di accesso", "frase password"]),
        (ApiKey, &[
            "chiave api", "chiave dell'api", "chiave delle api", "chiave segreta", "chiave di accesso",
            "chiave sviluppatore", "file env", "contenuto del file env", "chiave limitata", "chiave ristretta",
        ]),
        (AccessToken, &[
            "token di accesso", "token di autenticazione", "token personale", "token di sessione",
            "token di autorizzazione", "token di deploy", "token di pubblicazione", "token del bot",
        ]),
        (ClientSecret, &[
            "segreto del client", "segreto client", "segreto dell'applicazione", "segreto di firma",
            "segreto del webhook", "segreto dell api", "segreto condiviso",
        ]),
        (PrivateKey, &["chiave privata", "chiavi private"]),
        (RecoveryPhrase, &[
            "frase di recupero", "frase seed", "parole di recupero", "frase mnemonica", "frase di backup",
            "seed del portafoglio", "chiave di ripristino", "chiave di recupero",
        ]),
        (SessionCookie, &["cookie di sessione"]),
        (OneTimeCode, &[
            "codice di verifica", "codice monouso", "codice usa e getta", "codice otp",
            "codice di autenticazione", "codice inviato", "codice che ti abbiamo inviato", "codice ricevuto",
            "codice sms", "codice via sms", "codice 2fa", "password monouso", "password temporanea",
            "codice di accesso temporaneo", "codice a 6 cifre", "codice di sei cifre", "codice di validazione",
            "codici di backup", "codice di backup", "codici di recupero", "codice di recupero",
        ]),
        (Pin, &["codice pin", "numero pin", "pin della carta", "pin del bancomat"]),
        (CardNumber, &[
            "numero della carta", "numero di carta", "carta di credito", "carta di debito", "dati della carta",
            "numero carta", "dati della tua carta",
        ]),
        (CardExpiry, &["scadenza della carta", "data di scadenza della carta"]),
        (CardSecurityCode, &[
            "codice cvv", "codice di sicurezza della carta", "le 3 cifre sul retro", "tre cifre sul retro",
            "cifre sul retro",
        ]),
        (Pin, &[
            "codice di sblocco", "pin di sblocco", "sequenza di sblocco",
        ]),
        (AccessToken, &[
            "intestazione authorization", "header authorization", "intestazione di autorizzazione",
            "header di autorizzazione",
        ]),
        (CardNumber, &["16 cifre della carta", "le 16 cifre", "16 cifre della tua carta"]),
        (AccessToken, &["token di upload", "token di pubblicazione", "token di registrazione"]),
    ],
    conditional: &[
        (OneTimeCode, Sense::NeedsOtp, &["codice", "codice di conferma", "codice di accesso"]),
        (CardSecurityCode, Sense::CardOrOtp, &["codice di sicurezza"]),
        (CardExpiry, Sense::NeedsCard, &["data di scadenza", "scadenza", "valida fino al"]),
        (Password, Sense::NeedsQuestion, &["risposta", "risposte"]),
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
        "chiave pubblica", "chiave di licenza", "chiave del prodotto", "chiave di ricerca",
        "nome token", "nome chiave", "nome del token", "nome della chiave",
    ],
    not_requests: &["ti invieremo", "le invieremo", "invieremo", "reinvia", "abbiamo inviato un", "crea una chiave api", "crea una nuova chiave api", "crea un token", "crea un nuovo token", "di upload", "per upload", "di caricamento"],
    meta_before: &[
        "gestore di", "gestore delle", "gestore password", "lunghezza della", "lunghezza minima della",
        "lunghezza minima", "politica delle", "politica della", "criteri della", "numero di", "limite di",
        "reimposta la", "reimpostare la", "reimpostazione della", "hai dimenticato la", "dimenticato la",
        "cambiare la", "cambia la", "modifica la", "modificare la", "recupero della", "recupera la",
        "revoca la", "revocare", "elimina la", "nome della", "nome del", "descrizione della", "tipo di",
        "quale tipo di", "scadenza della", "sicurezza della", "salvare la", "ricorda", "generatore di",
        "mostra", "id della", "id del", "identificativo della", "identificativo del",
    ],
    statements: &["è", "sono", "sarà", "saranno", "deve", "devono"],
    meta_after: &[
        "dimenticata", "scaduta", "compromessa", "salvata", "debole", "revocare", "eliminare", "nome",
        "un nome", "un titolo", "deve", "devono", "dovrà", "valida", "valido", "ancora valida",
        "ancora valido", "scade",
    ],
    cues: &[
        "inserisci", "inserisca", "inserire", "digita", "digiti", "digitare", "fornisci", "fornisca",
        "fornire", "indica", "indichi", "incolla", "incolli", "invia", "invii", "inviaci", "condividi",
        "condivida", "qual è la tua", "qual è il tuo", "qual è la sua", "dimmi", "dicci", "immetti",
        "immettere", "comunicaci", "abbiamo bisogno della tua", "abbiamo bisogno del tuo", "scrivi", "scriva",
        "qual è il", "qual è la", "mandami", "mandaci", "dammi", "passami", "copia qui", "incolla qui",
        "qual è", "mi serve", "ci serve", "mi servono", "ci servono", "ho bisogno di", "ho bisogno della",
        "ho bisogno del", "abbiamo bisogno di", "come si chiamava", "come si chiama", "allega", "alleghi",
        "allegare", "carica", "carichi", "accedi con", "acceda con", "comunicami", "inviami", "forniscimi",
        "incollami", "incollaci", "inoltra", "inoltrami", "inoltraci", "inoltrare",
        "mi giri", "girami", "mandami", "passami", "mi passi", "mi mandi",
    ],
    near_cues: &[
        "conferma", "confermi", "scegli", "scelga", "imposta", "obbligatoria", "obbligatorio", "richiesta",
        "seleziona", "selezioni", "selezionare",
    ],
    negations: &["non", "mai", "senza", "nessuno", "nessun"],
    negation_scope: Scope::Forward,
    cues_follow_terms: false,
    card: &["carta", "titolare della carta", "intestatario della carta"],
    otp: &["inviato", "ricevuto", "sms", "cifre", "autenticatore", "verifica", "messaggio"],
    address: &["indirizzo", "spedizione", "consegna", "città", "via", "comune"],
    map: &["mappa", "posizione"],
    carriers: &[
        "stringa di connessione", "url di connessione", "url del database", "uri del database",
        "file di configurazione", "comando curl", "richiesta curl", "configurazione", "riga", "variabile",
        "blocco", "sezione", "estratto", "variabili d ambiente", "variabili di ambiente", "richiesta",
        "request", "chiamata api",
        "stringa mongodb srv", "stringa srv",
    ],
    own: &["attuale", "esistente", "mia", "mio", "usi", "utilizzi", "usa", "utilizza"],
    own_cues: &[
        "una di queste", "uno di questi", "è la tua", "è il tuo", "dalla lista", "inizia con", "finisce con",
        "termina con", "parola #", "#a parola", "#ª parola", "è il suo", "è la sua", "prima lettera",
        "prima cifra", "ultima cifra", "ultime cifre", "ultime # cifre", "quale di questi è",
        "quale di queste è", "parola numero #", "prima parola", "seconda parola", "terza parola",
        "quarta parola", "quinta parola", "sesta parola", "settima parola", "ottava parola", "nona parola",
        "decima parola", "undicesima parola", "dodicesima parola", "ultime due cifre", "ultime tre cifre",
        "prime due cifre", "secondo carattere", "terzo carattere", "# parole", "carattere della",
        "caratteri della", "lettera della", "lettere della", "cifra del", "cifre del", "posizione #",
        "posizioni",
        "quanti caratteri ha la tua", "quanti caratteri ha la sua", "quante cifre ha il tuo", "quante cifre ha la tua",
    ],
    back_cues: &[
        "incollalo", "incollala", "incollali", "incolla qui", "mandamelo", "mandamela", "inviamelo",
        "inviamela", "inviacelo", "scrivilo", "scrivila", "dimmelo", "dimmela",
    ],
    please: &["per favore", "per piacere", "prego"],
    which: &["quale", "quali"],
    possessive: &["tua", "tuo", "tue", "tuoi", "sua", "suo", "vostra", "vostro"],
    properties: &[
        "è più lunga di", "è più lungo di", "è più corta di", "è più corto di", "ha più di", "ha meno di",
        "ha almeno", "contiene", "include", "è uguale a", "coincide con", "la stessa di", "lo stesso di",
        "uguale a", "la stessa che", "la tua data di nascita", "il tuo anno di nascita", "il tuo compleanno",
        "ancora quella", "è ancora quella", "ancora la stessa", "la stessa di", "uguale a", "contiene", "inizia con", "finisce con", "termina con",
    ],
    copulas: &["è", "è ancora", "era", "resta", "rimane"],
    whether: &["se"],
    security_question: &[
        "domanda di sicurezza", "domande di sicurezza", "domanda segreta", "domande segrete",
        "cognome da nubile", "nome da nubile", "primo animale", "prima scuola", "migliore amico d infanzia",
        "città natale",
    ],
    answer_cues: &["rispondi", "risponda", "rispondere", "rispondi alla", "risponda alla"],
    inline_only: &[
        "con tutte le intestazioni", "con le intestazioni", "con gli header", "con tutti gli header",
        "intestazioni incluse", "header inclusi", "con le chiavi", "chiavi incluse",
    ],
    redactions: &[
        "rimossa", "rimosso", "oscurata", "oscurato", "mascherata", "mascherato", "cancellata", "cancellato",
        "omessa", "omesso", "offuscata", "offuscato",
    ],
    qualifiers: &["contenuto", "contenuto del", "intero", "completo"],
    ..LangRules::EMPTY
};
