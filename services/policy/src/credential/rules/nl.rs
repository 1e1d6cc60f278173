//! Dutch. Like German, Dutch writes compounds as one word.

use super::LangRules;
use crate::credential::Category::*;
use crate::credential::matcher::{Scope, Sense};

#[rustfmt::skip]
pub(super) const RULES: LangRules = LangRules {
    code: "nl",
    terms: &[
        (Password, &["*wachtwoord", "*wachtwoorden", "inloggegevens", "toegangsgegevens"]),
        (Passphrase, &["wachtwoordzin", "wachtzin"]),
        (ApiKey, &["api sleutel", "*apisleutel", "geheime sleutel", "toegangssleutel", "*toegangssleutel"]),
        (AccessToken, &[
            "toegangstoken", "*toegangstoken", "authenticatietoken", "persoonlijk toegangstoken",
            "sessietoken",
        ]),
        (ClientSecret, &["clientgeheim", "client geheim", "applicatiegeheim"]),
        (PrivateKey, &["privésleutel", "privé sleutel", "private sleutel", "*privésleutel"]),
        (RecoveryPhrase, &["herstelzin", "herstelfrase", "seedzin", "herstelwoorden", "*herstelzin"]),
        (SessionCookie, &["sessiecookie", "*sessiecookie"]),
        (OneTimeCode, &[
            "*verificatiecode", "*bevestigingscode", "eenmalige code", "eenmalig wachtwoord", "*smscode",
            "sms code", "*inlogcode", "*authenticatiecode", "code die we hebben gestuurd",
            "code die we je hebben gestuurd", "code die we u hebben gestuurd", "*controlecode",
            "*beveiligingstoken", "6 cijferige code", "zescijferige code",
        ]),
        (Pin, &["*pinnummer", "*toegangscode"]),
        (CardNumber, &[
            "*kaartnummer", "creditcard", "*creditcardnummer", "*bankpasnummer", "kaartgegevens",
            "betaalkaart", "*creditcardgegevens", "*pasnummer",
        ]),
        (CardExpiry, &["vervaldatum van de kaart", "vervaldatum van uw kaart"]),
        (CardSecurityCode, &["cvc code", "*kaartverificatiecode"]),
        (ApiKey, &["env bestand", "*envbestand", "inhoud van je env bestand", "inhoud van uw env bestand"]),
        (AccessToken, &["*token", "*tokens"]),
    ],
    conditional: &[
        (Pin, Sense::UnlessPlace, &["*pincode"]),
        (CardSecurityCode, Sense::CardOrOtp, &["*beveiligingscode"]),
        (CardExpiry, Sense::NeedsCard, &["vervaldatum", "geldig tot", "vervalmaand", "vervaljaar"]),
    ],
    blockers: &[
        "*kortingscode", "*postcode", "*actiecode", "*cadeaukaart", "*cadeaubon", "*klantenkaart",
        "*spaarkaart", "*simkaart", "sim kaart", "*geheugenkaart", "*videokaart", "*kaartspel",
        "trello kaart", "*visitekaartje", "*landkaart", "*plattegrond", "*ov chipkaart", "*ovchipkaart",
        "*sleutelbos", "*huissleutel", "*autosleutel", "usb stick", "*broncode", "*foutcode", "*landcode",
        "*streepjescode", "qr code", "*qrcode", "*promotiecode", "*boekingscode", "*uitnodigingscode",
        "*dresscode", "openbare sleutel", "publieke sleutel", "vastzetten", "*pincode van het adres",
    ],
    not_requests: &["we sturen je", "we sturen u", "opnieuw versturen"],
    meta_before: &[
        "lengte van het", "minimale lengte", "minimale lengte van het", "beleid voor", "aantal",
        "maximum aantal", "vergeten", "welke", "welk", "naam van de", "beschrijving van de", "wijzig uw",
        "wijzig je", "reset je", "reset uw", "intrekken", "verwijder", "vernieuw", "opslaan",
    ],
    statements: &["is", "zijn", "wordt", "worden", "moet", "moeten"],
    meta_after: &[
        "vergeten", "wijzigen", "resetten", "beleid", "lengte", "beheerder", "manager", "limiet", "budget",
        "vereisten", "sterkte", "verlopen", "gewijzigd", "opslaan",
    ],
    cues: &[
        "voer", "vul", "geef", "plak", "typ", "deel", "stuur", "verstrek", "wat is je", "wat is uw",
        "invoeren", "opgeven", "invullen", "doorgeven", "geef ons", "noem", "wat is het", "wat is de",
    ],
    near_cues: &["bevestig", "bevestigen", "kies", "stel", "verplicht", "vereist", "nodig"],
    negations: &["niet", "nooit", "geen", "zonder", "niemand"],
    negation_scope: Scope::Forward,
    cues_follow_terms: true,
    card: &["kaart", "creditcard", "bankpas", "betaalpas", "kaarthouder"],
    otp: &["verstuurd", "gestuurd", "ontvangen", "sms", "cijfers", "authenticator", "cijferige"],
    address: &["adres", "bezorging", "bezorgadres", "woonplaats", "straat"],
    map: &["kaartlocatie", "locatie"],
    carriers: &["connectiestring", "*connectiestring", "verbindingsreeks", "verbindingsstring", "database url", "*databaseurl", "configuratiebestand"],
    own: &["huidige", "bestaande", "mijn"],
    own_cues: &["is dit uw", "is dit je", "een van deze", "één van deze", "begint met", "eindigt op", "eindigt met", "uit de lijst", "woord #", "#e woord", "is uw", "is je", "eerste letter", "eerste cijfer", "laatste cijfer", "laatste cijfers", "laatste # cijfers"],
    ..LangRules::EMPTY
};
