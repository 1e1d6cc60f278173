//! Polish. Nouns decline, so the main ones are stems (`hasł*` covers
//! `hasło`, `hasła`, `hasłem`) and multi-word terms list their common cases.

use super::LangRules;
use crate::credential::Category::*;
use crate::credential::matcher::{Scope, Sense};

#[rustfmt::skip]
pub(super) const RULES: LangRules = LangRules {
    code: "pl",
    terms: &[
        (Password, &["hasło", "hasła", "hasłem", "haśle", "haseł", "dane logowania", "danych logowania"]),
        (Passphrase, &["fraza hasła", "frazę hasła", "hasło frazowe"]),
        (ApiKey, &[
            "klucz api", "klucza api", "kluczem api", "klucz tajny", "tajny klucz", "klucza tajnego",
            "tajnego klucza", "klucz dostępu", "klucza dostępu", "klucz dostępowy",
        ]),
        (AccessToken, &[
            "token dostępu", "tokenu dostępu", "token dostępowy", "token autoryzacyjny", "tokenu",
            "token uwierzytelniający", "token sesji",
        ]),
        (ClientSecret, &["sekret klienta", "sekretu klienta", "klucz tajny klienta"]),
        (PrivateKey, &["klucz prywatny", "klucza prywatnego", "kluczem prywatnym", "kluczy prywatnych"]),
        (RecoveryPhrase, &[
            "fraza odzyskiwania", "frazę odzyskiwania", "frazy odzyskiwania", "fraza seed", "frazę seed",
            "słowa odzyskiwania", "fraza mnemoniczna", "frazę mnemoniczną", "fraza zapasowa",
            "frazę zapasową", "seed portfela",
        ]),
        (SessionCookie, &["ciasteczko sesji", "plik cookie sesji", "cookie sesji", "ciasteczka sesyjne"]),
        (OneTimeCode, &[
            "kod weryfikacyjny", "kodu weryfikacyjnego", "kod jednorazowy", "kodu jednorazowego", "kod sms",
            "kodu sms", "kod z sms", "kod z wiadomości sms", "kod potwierdzający", "kodu potwierdzającego",
            "kod autoryzacyjny", "kodu autoryzacyjnego", "kod uwierzytelniający", "hasło jednorazowe",
            "hasła jednorazowego", "kod 2fa", "kod logowania", "kodu logowania", "kod z aplikacji",
            "kod blik",
        ]),
        (Pin, &["kod pin", "kodu pin", "numer pin", "numeru pin", "pin do karty"]),
        (CardNumber, &[
            "numer karty", "numeru karty", "karta kredytowa", "kartę kredytową", "karty kredytowej",
            "karta płatnicza", "kartę płatniczą", "karty płatniczej", "dane karty", "danych karty",
            "karta debetowa", "kartę debetową",
        ]),
        (CardExpiry, &["data ważności karty", "datę ważności karty", "ważność karty"]),
        (CardSecurityCode, &["kod cvv", "kodu cvv", "kod cvc", "kodu cvc", "kod cvv2"]),
        (ApiKey, &["plik env", "pliku env", "zawartość pliku env", "klucz ograniczony"]),
        (AccessToken, &["token wdrożeniowy", "token wdrożenia", "token publikacji", "token bota"]),
    ],
    conditional: &[
        (OneTimeCode, Sense::NeedsOtp, &["kod", "kodu", "kodem"]),
        (CardSecurityCode, Sense::CardOrOtp, &["kod bezpieczeństwa", "kodu bezpieczeństwa"]),
        (CardExpiry, Sense::NeedsCard, &[
            "data ważności", "datę ważności", "daty ważności", "ważna do", "termin ważności", "ważność",
        ]),
    ],
    blockers: &[
        "kod pocztowy", "kodu pocztowego", "kod rabatowy", "kodu rabatowego", "kod promocyjny",
        "kodu promocyjnego", "kod źródłowy", "kodu źródłowego", "kod kreskowy", "kod qr", "kod kraju",
        "kod kupon", "kod zniżkowy", "kod polecający", "kod zaproszenia", "kod błędu", "kod produktu",
        "kod rezerwacji", "kod przesyłki", "kod śledzenia", "karta podarunkowa", "kartę podarunkową",
        "karty podarunkowej", "karta sim", "kartę sim", "karta graficzna", "karta pamięci", "gra karciana",
        "karta trello", "kartę trello", "karta lojalnościowa", "karta stałego klienta", "karta pokładowa",
        "karta miejska", "karta biblioteczna", "karta multisport", "karta do gry", "karty do gry",
        "klucz do mieszkania", "klucze do", "klucz publiczny",
    ],
    not_requests: &["wyślemy", "wyślemy ci", "ponownie wyślij"],
    meta_before: &[
        "menedżer", "menedżera", "menedżerze", "długość", "minimalna długość", "minimalną długość",
        "polityka", "zasady", "wymagania dotyczące", "limit", "liczba", "liczbę", "zresetuj", "resetowanie",
        "reset", "zmień", "zmiana", "zmiany", "zapomniałeś", "zapomniałem", "przypomnienie", "odzyskiwanie",
        "odzyskaj", "unieważnij", "usuń", "nazwa", "nazwę", "opis", "jaki typ", "typ", "rodzaj", "ważność",
        "siła", "zapisz", "zapamiętaj", "generator",
    ],
    statements: &["jest", "są", "będzie", "będą", "musi", "muszą"],
    meta_after: &["menedżer", "wygasło", "wyciekło", "zapomniane", "zmienione"],
    cues: &[
        "podaj", "wpisz", "wprowadź", "wklej", "udostępnij", "wyślij", "prześlij", "jakie jest twoje",
        "jaki jest twój", "jaki jest pana", "jakie jest pana", "podaj nam", "wpisać", "podać", "wprowadzić",
        "proszę podać", "proszę wpisać", "proszę wprowadzić", "potrzebujemy twojego", "potrzebujemy twojej",
        "powiedz", "przekaż", "wprowadzając",
    ],
    near_cues: &["potwierdź", "wybierz", "ustaw", "utwórz", "wymagane", "wymagany"],
    negations: &["nie", "nigdy", "bez", "nikomu", "nikt"],
    negation_scope: Scope::Forward,
    cues_follow_terms: false,
    card: &["karta", "karty", "kartę", "kartą", "karcie", "posiadacz karty"],
    otp: &[
        "wysłany", "wysłaliśmy", "wysłanym", "sms", "sms em", "cyfr", "cyfrowy", "cyfrowego",
        "aplikacji uwierzytelniającej", "weryfikacji", "otrzymałeś",
    ],
    address: &["adres", "adresu", "dostawa", "dostawy", "miasto", "ulica", "miejscowość"],
    map: &["mapa", "mapie", "mapy", "lokalizacja", "lokalizacji"],
    carriers: &["ciąg połączenia", "ciąg połączeniowy", "ciągu połączenia", "url bazy danych", "adres url bazy", "adres bazy danych", "plik konfiguracyjny"],
    own: &["obecny", "obecne", "obecnym", "obecnego", "aktualne", "aktualny", "aktualnym", "bieżące", "bieżący", "moje", "mój"],
    own_cues: &["jednym z", "z listy", "zaczyna się od", "kończy się na", "słowo #", "# słowo", "słowo nr #", "jest twoim", "jest twoje", "jest twój", "jest twoja", "pierwsza litera", "pierwszą literę", "pierwsza cyfra", "ostatnia cyfra", "ostatnie cyfry", "ostatnie # cyfry"],
    ..LangRules::EMPTY
};
