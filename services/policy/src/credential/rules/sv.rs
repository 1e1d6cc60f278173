//! Swedish. Like German and Dutch, Swedish writes compounds as one word
//! (`bankdosakod`, `engångskod`), and the definite article is a suffix
//! (`lösenordet`, `koden`).

use super::LangRules;
use crate::credential::Category::*;
use crate::credential::matcher::{Scope, Sense};

#[rustfmt::skip]
pub(super) const RULES: LangRules = LangRules {
    code: "sv",
    terms: &[
        (OneTimeCode, &["koden i din säkerhetsdosa", "kod från dosan", "koden från dosan", "koden från säkerhetsdosan", "engångskod från dosan"]),
        (OneTimeCode, &["*bankdosakoden", "*bankdosekoden", "*signeringskoden"]),
        (PrivateKey, &["privata ssh nyckel", "privata ssh nyckeln", "din privata nyckel", "privat ssh nyckel"]),
        (Password, &[
            "*lösenord", "*lösenordet", "*lösenorden", "lösen", "lösenordsfras", "inloggningsuppgifter",
            "inloggningsuppgifterna", "användaruppgifter", "åtkomstuppgifter",
            "mammas flicknamn", "din mammas flicknamn", "moderns flicknamn", "ditt första husdjur",
            "första husdjur", "första skola", "svar på säkerhetsfrågan", "säkerhetssvar", "*wifilösenord",
            "wifi lösenord", "nätverksnyckel", "appspecifikt lösenord", "applösenord", "*applösenord",
        ]),
        (Passphrase, &["lösenfras", "lösenfrasen", "*lösenfras"]),
        (ApiKey, &[
            "api nyckel", "api nyckeln", "*apinyckel", "*apinyckeln", "hemlig nyckel", "hemliga nyckeln",
            "åtkomstnyckel", "åtkomstnyckeln", "*åtkomstnyckel", "*åtkomstnyckeln", "env fil", "env filen",
            "innehållet i din env", "huvudnyckel", "huvudnyckeln", "tjänstekontonyckel", "tjänstekontots nyckel",
        ]),
        (AccessToken, &[
            "*token", "*tokenet", "*tokenen", "åtkomsttoken", "*åtkomsttoken", "personlig åtkomsttoken",
            "sessionstoken", "bärartoken", "autentiseringstoken",
        ]),
        (ClientSecret, &[
            "klienthemlighet", "klienthemligheten", "apphemlighet", "signeringshemlighet", "webhookhemlighet",
            "webhook hemlighet", "*hemligheten",
        ]),
        (PrivateKey, &[
            "privat nyckel", "privata nyckel", "privata nyckeln", "*privatnyckel", "ssh privat nyckel",
            "nyckelfil", "nyckelfilen", "nyckellager",
        ]),
        (RecoveryPhrase, &[
            "återställningsfras", "återställningsfrasen", "*återställningsfras", "*återställningsfrasen",
            "återställningsord", "återställningsorden", "seedfras", "seedfrasen", "plånboksfras",
            "dina 12 ord", "dina 24 ord", "de 12 orden", "de 24 orden", "alla 12 orden", "alla 24 orden",
            "hemliga ord", "de hemliga orden",
        ]),
        (SessionCookie, &["sessionscookie", "sessionskaka", "*sessionscookie", "sessionskakan"]),
        (OneTimeCode, &[
            "*verifieringskod", "*verifieringskoden", "*bekräftelsekod", "*bekräftelsekoden", "engångskod",
            "engångskoden", "*engångskod", "*engångskoden", "engångslösenord", "*smskod", "*smskoden",
            "sms kod", "sms koden", "*inloggningskod", "*inloggningskoden", "koden vi skickade",
            "koden som vi skickade", "koden vi skickat", "koden vi just skickade", "*säkerhetskod sms",
            "*reservkod", "*reservkoder", "*reservkoderna", "*återställningskod", "*återställningskoder",
            "*autentiseringskod", "*autentiseringskoden", "koden från din autentiseringsapp",
            "koden i din autentiseringsapp", "*tvåfaktorskod", "2fa koden", "*bankdosakod", "*bankdosekod",
            "koden från bankdosan", "*kontrollkod", "*kontrollkoden", "*signeringskod", "*signeringskoden",
            "*aktiveringskod sms", "6 siffriga koden", "sexsiffriga koden", "engångskoden från bankid",
        ]),
        (Pin, &[
            "*pinkod", "*pinkoden", "pin kod", "pin koden", "bankid kod", "bankid koden", "*säkerhetskod bankid",
            "personlig kod", "personliga koden", "*upplåsningskod", "*upplåsningskoden", "skärmlåskod",
            "*kortkod", "*kortkoden", "*bankkortskod",
        ]),
        (CardNumber, &[
            "*kortnummer", "*kortnumret", "kreditkort", "*kreditkortsnummer", "*kreditkortsnumret", "betalkort",
            "*betalkortsnummer", "*bankkortsnummer", "kortuppgifter", "kortuppgifterna", "*kortuppgifter",
            "16 siffrorna på kortet", "de 16 siffrorna", "siffrorna på framsidan",
        ]),
        (CardExpiry, &["kortets giltighetstid", "kortets utgångsdatum", "utgångsdatum på kortet"]),
        (CardSecurityCode, &[
            "cvc koden", "cvv koden", "*kortverifieringskod", "siffrorna på baksidan", "3 siffrorna på baksidan",
            "tre siffrorna på baksidan",
        ]),
    ],
    conditional: &[
        (OneTimeCode, Sense::NeedsOtp, &["kod", "koden", "koder", "koderna", "6 siffror", "sex siffror", "8 siffror"]),
        (CardSecurityCode, Sense::CardOrOtp, &["*säkerhetskod", "*säkerhetskoden"]),
        (CardExpiry, Sense::NeedsCard, &[
            "utgångsdatum", "giltighetstid", "giltig till", "giltigt till", "utgångsmånad", "utgångsår", "mm åå",
        ]),
        (Password, Sense::NeedsQuestion, &["svar", "svaret", "svaren"]),
    ],
    blockers: &[
        "*rabattkod", "*postnummer", "*kampanjkod", "*presentkort", "*kundkort", "*medlemskort", "*simkort",
        "*minneskort", "*grafikkort", "*kortspel", "trello kort", "*visitkort", "*vykort", "*landskod",
        "*felkod", "*källkod", "*streckkod", "qr kod", "*qrkoden", "*bokningskod", "*inbjudningskod",
        "*klädkod", "*rabattkoden", "*portkod", "*portkoden", "*husnyckel", "*bilnyckel", "offentlig nyckel",
        "publik nyckel", "offentliga nyckeln", "publika nyckeln", "fingeravtryck", "*nyckelknippa",
        "*tangent", "*tangenten", "*tangentbord", "*statuskod", "http 401", "*fästa", "fäst fliken",
        "*id kort", "*idkort", "*lånekort", "*busskort", "*reskort", "*passerkort", "*spårningskod",
        "*kollinummer", "*ordernummer",
        "tokennamn", "nyckelnamn", "namn på token", "namn på nyckeln",
    ],
    not_requests: &["vi skickar", "vi skickar dig", "skicka igen", "skicka om", "skickar en ny", "tryck enter"],
    meta_before: &[
        "längd på", "minsta längd", "minimilängd", "minimilängden", "policy för", "antal", "maximalt antal",
        "glömt", "glömt ditt", "glömt din", "namn på", "namnet på", "beskrivning av", "byt", "byt ditt",
        "byt din", "ändra", "ändra ditt", "ändra din", "återställ", "återställ ditt", "återställ din",
        "återkalla", "ta bort", "förnya", "rotera", "spara", "behörigheter för", "id för", "utgångsdatum för",
        "giltighetstid för", "aktivera", "inaktivera", "slå på", "slå av", "vilken lösenordshanterare",
        "etikett för",
    ],
    statements: &["är", "måste", "ska", "bör", "får", "kan", "sparas", "lagras", "hanteras"],
    meta_after: &[
        "glömt", "ändras", "ändra", "återställning", "återställa", "policy", "policyn", "längd", "längden",
        "hanterare", "hanteraren", "gräns", "gränsen", "budget", "budgeten", "krav", "kraven", "styrka",
        "styrkan", "löper ut", "går ut", "har gått ut", "sparas", "namn", "namnet", "etikett", "etiketten",
        "rotera", "roteras", "återkalla", "återkallas", "ta bort", "måste", "ska", "bör", "giltig",
        "giltigt", "ogiltig", "ogiltigt", "hanterare", "manager", "regler", "reglerna", "inställningar",
        "inställningen",
    ],
    cues: &[
        "ange", "anger", "fyll i", "skriv", "skriv in", "klistra in", "klistra", "dela", "skicka", "uppge",
        "lämna", "vad är ditt", "vad är din", "vad är dina", "vad är", "ge oss", "ge mig", "skicka mig",
        "skicka oss", "mata in", "knappa in", "vi behöver", "jag behöver", "behöver ditt", "behöver din",
        "logga in med", "bifoga", "ladda upp", "lägg in", "lägg till", "berätta", "säg", "vidarebefordra",
        "kopiera in", "kopiera hit", "klistra in här", "vad hette", "vad heter", "uppger", "anges",
        "kan du skicka", "kan du ge", "kan du dela", "kan du klistra in", "skulle du kunna skicka",
        "vänligen ange", "var vänlig ange", "vänligen skriv", "fyll i ditt", "fyll i din",
    ],
    near_cues: &["bekräfta", "bekräftar", "välj", "välja", "krävs", "obligatoriskt", "obligatorisk", "behövs", "ställ in"],
    back_cues: &["klistra in den här", "klistra in det här", "skicka den", "skicka det", "skriv in den", "klistra in den"],
    negations: &["inte", "aldrig", "ingen", "inget", "inga", "utan", "ej", "ingen någonsin"],
    negation_scope: Scope::Forward,
    cues_follow_terms: false,
    card: &["kort", "kortet", "kreditkort", "betalkort", "bankkort", "visa", "mastercard", "kortinnehavare"],
    otp: &[
        "säkerhetsdosa", "säkerhetsdosan", "dosa", "dosan", "kodbox", "kortläsare", "kortläsaren",
        "skickade", "skickat", "skickats", "fick", "fått", "sms", "sms et", "siffror", "siffrig", "siffriga",
        "autentiseringsapp", "autentiseringsappen", "bankdosa", "bankdosan", "bankid", "mobilt bankid",
        "giltig i", "går ut om", "whatsapp",
    ],
    address: &["adress", "adressen", "leverans", "leveransadress", "ort", "gata", "postort"],
    map: &["karta", "kartan", "plats", "platsen"],
    carriers: &[
        "anslutningssträng", "anslutningssträngen", "*anslutningssträng", "databas url", "databasens url",
        "konfigurationsfil", "konfigurationsfilen", "konfigfil", "konfigfilen", "rad", "raden", "block",
        "blocket", "avsnitt", "avsnittet", "sektion", "sektionen", "utdrag", "förfrågan", "anropet",
        "miljövariabler", "miljövariablerna", "inställningar", "smtp inställningar", "smtp inställningarna",
    ],
    own: &["nuvarande", "befintliga", "befintligt", "mitt", "min", "mina", "du använder", "som du använder", "du valde"],
    own_cues: &[
        "är detta ditt", "är detta din", "är det här ditt", "är det här din", "en av dessa", "ett av dessa",
        "något av dessa", "någon av dessa", "vilken av dessa är", "vilket av dessa är", "vilken av följande",
        "vilket av följande", "från listan", "börjar med", "slutar med", "slutar på", "första siffran",
        "sista siffran", "sista siffrorna", "sista # siffrorna", "första # siffrorna", "första bokstaven",
        "sista bokstaven", "ord #", "ord nummer #", "#e ordet", "#a ordet", "#:e ordet", "#:a ordet",
        "första ordet", "andra ordet", "tredje ordet", "fjärde ordet", "femte ordet", "sjätte ordet",
        "sjunde ordet", "åttonde ordet", "nionde ordet", "tionde ordet", "elfte ordet", "tolfte ordet",
        "är ditt", "är din", "stämmer det att", "innehåller ditt", "innehåller din", "tecknen i",
        "tecknet i", "siffrorna i", "siffran i", "sista fyra", "sista två", "sista tre", "första två",
        "ingår i din", "ingår i ditt", "inte ingår i",
        "börjar ditt", "börjar din", "slutar ditt", "slutar din", "innehåller ditt", "med en stor bokstav", "med en siffra",
        "hur många tecken har ditt", "hur många tecken har ert", "hur många siffror har din",
    ],
    please: &["tack", "tusen tack", "snälla", "vänligen"],
    which: &["vilken", "vilket", "vilka"],
    possessive: &["ditt", "din", "dina", "er", "ert", "era"],
    properties: &[
        "innehåller", "längre än", "kortare än", "har fler än", "samma som", "likadant som", "detsamma som",
        "ditt födelseår", "ditt födelsedatum", "din födelsedag", "fortfarande samma", "fortfarande det",
        "fortfarande",
    ],
    copulas: &["är", "var", "är fortfarande", "lyder"],
    whether: &["om", "stämmer det att", "bekräfta att"],
    security_question: &[
        "säkerhetsfråga", "säkerhetsfrågan", "säkerhetsfrågor", "hemlig fråga", "hemliga frågan",
        "kontrollfråga", "kontrollfrågan", "flicknamn", "första husdjur", "första skola", "födelseort",
        "första lärare", "vad hette ditt första", "vad hette din första",
    ],
    answer_cues: &["besvara", "svara på", "svara"],
    inline_only: &[
        "med alla headers", "inklusive headers", "med headers", "med lösenordet", "inklusive lösenordet",
        "med nycklarna", "inklusive nycklarna", "lösenord och allt",
    ],
    redactions: &["inte här", "inte i det här formuläret", "i valvet", "i vaulten", "i lösenordshanteraren", "platshållare", "bara namnen", "endast namnen", "utan värden", "på ett säkert ställe", "säkert förvarade", "borttaget", "borttagen", "maskerat", "maskerad", "dolt", "dold", "överstruket", "censurerat"],
    qualifiers: &[
        "bankid", "mobilt bankid", "swish", "klarna", "nordea", "swedbank", "handelsbanken", "seb",
        "skatteverket", "1177", "freja", "freja eid",
    ],
    not_negations: &["inte i chatten", "inte via mejl", "glöm inte", "inte bara"],
    ..LangRules::EMPTY
};
