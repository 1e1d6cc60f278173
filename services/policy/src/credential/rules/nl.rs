//! Dutch. Like German, Dutch writes compounds as one word.

use super::LangRules;
use crate::credential::Category::*;
use crate::credential::matcher::{Scope, Sense};

#[rustfmt::skip]
pub(super) const RULES: LangRules = LangRules {
    code: "nl",
    terms: &[
        (Password, &["wachtw", "ww"]),
        (OneTimeCode, &["*signeercode", "*ondertekencode", "*responscode", "*inlogcode", "*e.identificatiecode"]),
        (Password, &[
            "*wachtwoord", "*wachtwoorden", "inloggegevens", "toegangsgegevens", "meisjesnaam van je moeder",
            "meisjesnaam van uw moeder", "meisjesnaam moeder", "beveiligingsantwoord",
            "antwoord op je beveiligingsvraag", "antwoord op uw beveiligingsvraag", "eerste huisdier",
            "eerste school", "beste jeugdvriend", "*wifisleutel", "wifi sleutel", "wi fi sleutel",
            "netwerksleutel",
        ]),
        (Passphrase, &["wachtwoordzin", "wachtzin"]),
        (ApiKey, &[
            "api sleutel", "*apisleutel", "geheime sleutel", "toegangssleutel", "*toegangssleutel",
            "env bestand", "*envbestand", "inhoud van je env bestand", "inhoud van uw env bestand",
        ]),
        (AccessToken, &[
            "toegangstoken", "*toegangstoken", "authenticatietoken", "persoonlijk toegangstoken", "sessietoken",
            "*token", "*tokens",
        ]),
        (ClientSecret, &[
            "clientgeheim", "client geheim", "applicatiegeheim", "signing secret", "ondertekeningsgeheim",
            "webhookgeheim", "webhook geheim",
        ]),
        (PrivateKey, &["privésleutel", "privé sleutel", "private sleutel", "*privésleutel"]),
        (RecoveryPhrase, &[
            "herstelzin", "herstelfrase", "seedzin", "herstelwoorden", "*herstelzin", "herstelsleutel",
        ]),
        (SessionCookie, &["sessiecookie", "*sessiecookie"]),
        (OneTimeCode, &[
            "*verificatiecode", "*bevestigingscode", "eenmalige code", "eenmalig wachtwoord", "*smscode",
            "sms code", "*inlogcode", "*authenticatiecode", "code die we hebben gestuurd",
            "code die we je hebben gestuurd", "code die we u hebben gestuurd", "*controlecode",
            "*beveiligingstoken", "6 cijferige code", "zescijferige code", "*herstelcode", "*herstelcodes",
            "*backupcodes", "back upcodes", "reservecodes", "*identificatiecode", "*identificatiecodes",
        ]),
        (Pin, &["*pinnummer", "*toegangscode"]),
        (CardNumber, &[
            "*kaartnummer", "creditcard", "*creditcardnummer", "*bankpasnummer", "kaartgegevens", "betaalkaart",
            "*creditcardgegevens", "*pasnummer",
        ]),
        (CardExpiry, &["vervaldatum van de kaart", "vervaldatum van uw kaart"]),
        (CardSecurityCode, &["cvc code", "*kaartverificatiecode"]),
        (Pin, &[
            "*ontgrendelcode", "ontgrendelingscode", "ontgrendelpatroon",
        ]),
        (CardNumber, &["16 cijfers op je kaart", "16 cijfers van je kaart", "de 16 cijfers"]),
        (Password, &["straat woonde je als kind", "straat waar je opgroeide", "straat waarin je opgroeide", "naam van je eerste huisdier", "naam van je eerste school", "meisjesnaam van je moeder", "meisjesnaam van uw moeder"]),
        (Password, &["je eerste basisschool", "eerste basisschool", "je eerste auto", "je eerste baas", "uw eerste auto"]),
    ],
    conditional: &[
        (Pin, Sense::UnlessPlace, &["*pincode"]),
        (CardSecurityCode, Sense::CardOrOtp, &["*beveiligingscode"]),
        (CardExpiry, Sense::NeedsCard, &["vervaldatum", "geldig tot", "vervalmaand", "vervaljaar"]),
        (Password, Sense::NeedsQuestion, &["antwoord", "antwoorden"]),
    ],
    blockers: &[
        "*kortingscode", "*postcode", "*actiecode", "*cadeaukaart", "*cadeaubon", "*klantenkaart",
        "*spaarkaart", "*simkaart", "sim kaart", "*geheugenkaart", "*videokaart", "*kaartspel", "trello kaart",
        "*visitekaartje", "*landkaart", "*plattegrond", "*ov chipkaart", "*ovchipkaart", "*sleutelbos",
        "*huissleutel", "*autosleutel", "usb stick", "*broncode", "*foutcode", "*landcode", "*streepjescode",
        "qr code", "*qrcode", "*promotiecode", "*boekingscode", "*uitnodigingscode", "*dresscode",
        "openbare sleutel", "publieke sleutel", "vastzetten", "*pincode van het adres",
        "naam token", "naam van de token", "naam van de sleutel", "sleutelnaam", "tokennaam",
    ],
    not_requests: &["we sturen je", "we sturen u", "opnieuw versturen", "laten weten wanneer", "laten weten of", "laten weten hoe", "laten weten welke", "laten weten hoeveel", "kun je me laten weten", "kunt u mij laten weten", "kan je me laten weten", "wil je me laten weten", "kunt u me laten weten"],
    meta_before: &[
        "lengte van het", "minimale lengte", "minimale lengte van het", "beleid voor", "aantal",
        "maximum aantal", "vergeten", "naam van de", "beschrijving van de", "wijzig uw", "wijzig je",
        "reset je", "reset uw", "intrekken", "verwijder", "vernieuw", "opslaan", "rechten", "welke rechten",
        "welke rechten heeft", "id van de", "id van het",
    ],
    statements: &["is", "zijn", "wordt", "worden", "moet", "moeten"],
    meta_after: &[
        "vergeten", "wijzigen", "resetten", "beleid", "lengte", "beheerder", "manager", "limiet", "budget",
        "vereisten", "sterkte", "verlopen", "gewijzigd", "opslaan", "een naam", "naam", "intrekken",
        "verwijderen", "een titel", "moet", "moeten", "zou moeten", "geldig", "nog geldig", "ongeldig",
    ],
    cues: &[
        "voer", "vul", "geef", "plak", "typ", "deel", "stuur", "verstrek", "wat is je", "wat is uw",
        "invoeren", "opgeven", "invullen", "doorgeven", "geef ons", "noem", "wat is het", "wat is de",
        "stuur me", "stuur ons", "geef me", "geef mij", "kopieer hier", "plak hier", "hoe heette", "hoe heet",
        "ik heb nodig", "we hebben nodig", "voeg", "toevoegen", "upload", "bijvoegen", "voeg toe",
        "log in met", "meld je aan met", "meld u aan met", "geef door", "laat weten wat", "stuur door",
        "doorsturen", "stuur me door",
        "kun je me", "kunt u mij", "kan je me", "mailen",
        "kunt u me", "wil je me", "wilt u mij", "zou je me", "zou u mij",
        "wat was de naam van", "wat was", "hoe heette je",
    ],
    near_cues: &[
        "bevestig", "bevestigen", "kies", "stel", "verplicht", "vereist", "nodig", "selecteer", "kiezen",
    ],
    negations: &["niet", "nooit", "geen", "zonder", "niemand"],
    negation_scope: Scope::Forward,
    cues_follow_terms: true,
    card: &["kaart", "creditcard", "bankpas", "betaalpas", "kaarthouder"],
    otp: &[
        "digipass", "kaartlezer", "de kaartlezer",
        "verstuurd", "gestuurd", "ontvangen", "sms", "cijfers", "authenticator", "cijferige", "stuurden",
        "whatsapp", "gestuurd hebben",
        "scanner", "rabo scanner", "digipas", "identifier",
    ],
    address: &["adres", "bezorging", "bezorgadres", "woonplaats", "straat"],
    map: &["kaartlocatie", "locatie"],
    carriers: &[
        "connectiestring", "*connectiestring", "verbindingsreeks", "verbindingsstring", "database url",
        "*databaseurl", "configuratiebestand", "regel", "variabele", "blok", "sectie", "fragment",
        "omgevingsvariabelen", "verzoek", "request", "api aanroep",
    ],
    own: &["huidige", "bestaande", "mijn", "gebruik je", "gebruikt u", "gebruik jij", "gebruikt je"],
    own_cues: &[
        "is dit uw", "is dit je", "een van deze", "één van deze", "begint met", "eindigt op", "eindigt met",
        "uit de lijst", "woord #", "#e woord", "is uw", "is je", "eerste letter", "eerste cijfer",
        "laatste cijfer", "laatste cijfers", "laatste # cijfers", "welke van deze is", "welke hiervan is",
        "is dit", "eerste woord", "tweede woord", "derde woord", "vierde woord", "vijfde woord",
        "zesde woord", "zevende woord", "achtste woord", "negende woord", "tiende woord", "elfde woord",
        "twaalfde woord", "laatste twee cijfers", "laatste drie cijfers", "eerste twee cijfers",
        "tweede teken", "derde teken", "# woorden", "bevat uw", "bevat je", "bevat jouw", "begint uw",
        "begint je", "eindigt uw", "eindigt je", "heeft uw", "heeft je", "letter van", "letters van",
        "teken van", "tekens van", "cijfer van", "cijfers van", "positie #", "posities", "begint", "eindigt",
        "ermee begint",
        "hoeveel tekens heeft je", "hoeveel tekens heeft uw", "hoeveel cijfers heeft je", "hoeveel cijfers heeft uw",
    ],
    please: &["alsjeblieft", "alstublieft", "aub", "graag"],
    which: &["welke", "welk"],
    possessive: &["uw", "je", "jouw"],
    properties: &[
        "bevat", "langer dan", "korter dan", "heeft meer dan", "hetzelfde als", "gelijk aan", "dezelfde als",
        "je geboortejaar", "je geboortedatum", "uw geboortejaar", "uw geboortedatum", "je verjaardag",
    ],
    copulas: &["is", "luidt", "nog steeds", "nog", "was"],
    whether: &["of", "klopt het dat"],
    security_question: &[
        "*beveiligingsvraag", "*beveiligingsvragen", "geheime vraag", "controlevraag", "meisjesnaam",
        "eerste huisdier", "eerste school", "beste jeugdvriend", "geboorteplaats",
        "straat woonde je als kind", "straat waar je opgroeide", "straat waarin je opgroeide",
    ],
    answer_cues: &["beantwoord", "beantwoorden", "antwoord op"],
    inline_only: &[
        "met alle headers", "inclusief headers", "met headers", "inclusief de headers", "met de sleutels",
        "inclusief sleutels",
    ],
    redactions: &[
        "niet hier", "niet in dit formulier", "in de kluis", "in de vault", "in je wachtwoordmanager", "tijdelijke aanduiding", "alleen de namen", "alleen namen", "zonder waarden", "op een veilige plek", "veilig bewaard",
        "verwijderd", "weggelaten", "gemaskeerd", "onleesbaar gemaakt", "zwartgemaakt", "weggehaald",
    ],
    qualifiers: &["digi d", "digid", "mijn overheid", "inhoud", "inhoud van", "bestand", "volledige", "hele"],
    not_negations: &["niet in de chat", "niet via de chat", "niet per mail", "vergeet niet", "niet vergeten", "niet alleen"],
    ..LangRules::EMPTY
};
