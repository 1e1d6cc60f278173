//! Polish. Nouns decline, so the main ones are stems (`hasł*` covers
//! `hasło`, `hasła`, `hasłem`) and multi-word terms list their common cases.

use super::LangRules;
use crate::credential::Category::*;
use crate::credential::matcher::{Scope, Sense};

#[rustfmt::skip]
pub(super) const RULES: LangRules = LangRules {
    code: "pl",
    terms: &[
        (RecoveryPhrase, &["fraza odzyskiwania", "frazy odzyskiwania", "frazę odzyskiwania", "frazie odzyskiwania", "fraza seed", "frazy seed"]),
        (ClientSecret, &["klucz crc", "klucz do raportów"]),
        (Password, &[
            "hasło", "hasła", "hasłem", "haśle", "haseł", "dane logowania", "danych logowania",
            "nazwisko panieńskie matki", "nazwisko panieńskie twojej matki", "nazwisko panieńskie pana matki",
            "odpowiedź na pytanie bezpieczeństwa", "odpowiedź zabezpieczająca", "hasłami", "hasłach", "hasłom",
            "pierwsze zwierzę", "pierwszego zwierzęcia", "pierwsza szkoła",
            "najlepszy przyjaciel z dzieciństwa", "klucz do wi fi", "klucz wifi", "klucz do wifi",
            "klucz wi fi", "klucz sieci", "hasło maskowane", "hasła maskowanego", "znak hasła", "znaki hasła",
        ]),
        (Passphrase, &["fraza hasła", "frazę hasła", "hasło frazowe"]),
        (ApiKey, &[
            "klucz api", "klucza api", "kluczem api", "klucz tajny", "tajny klucz", "klucza tajnego",
            "tajnego klucza", "klucz dostępu", "klucza dostępu", "klucz dostępowy", "plik env", "pliku env",
            "zawartość pliku env", "klucz ograniczony",
        ]),
        (AccessToken, &[
            "token dostępu", "tokenu dostępu", "token dostępowy", "token autoryzacyjny", "tokenu",
            "token uwierzytelniający", "token sesji", "token wdrożeniowy", "token wdrożenia",
            "token publikacji", "token bota",
        ]),
        (ClientSecret, &[
            "sekret klienta", "sekretu klienta", "klucz tajny klienta", "sekret podpisywania", "sekret podpisu",
            "sekret webhooka", "sekret api", "sekret aplikacji",
        ]),
        (PrivateKey, &["klucz prywatny", "klucza prywatnego", "kluczem prywatnym", "kluczy prywatnych"]),
        (RecoveryPhrase, &[
            "fraza odzyskiwania", "frazę odzyskiwania", "frazy odzyskiwania", "fraza seed", "frazę seed",
            "słowa odzyskiwania", "fraza mnemoniczna", "frazę mnemoniczną", "fraza zapasowa", "frazę zapasową",
            "seed portfela", "klucz odzyskiwania",
        ]),
        (SessionCookie, &["ciasteczko sesji", "plik cookie sesji", "cookie sesji", "ciasteczka sesyjne"]),
        (OneTimeCode, &[
            "kod weryfikacyjny", "kodu weryfikacyjnego", "kod jednorazowy", "kodu jednorazowego", "kod sms",
            "kodu sms", "kod z sms", "kod z wiadomości sms", "kod potwierdzający", "kodu potwierdzającego",
            "kod autoryzacyjny", "kodu autoryzacyjnego", "kod uwierzytelniający", "hasło jednorazowe",
            "hasła jednorazowego", "kod 2fa", "kod logowania", "kodu logowania", "kod z aplikacji", "kod blik",
            "kody zapasowe", "kod zapasowy", "kodów zapasowych", "kody odzyskiwania", "kod odzyskiwania",
            "kody jednorazowe",
        ]),
        (Pin, &["kod pin", "kodu pin", "numer pin", "numeru pin", "pin do karty"]),
        (CardNumber, &[
            "numer karty", "numeru karty", "karta kredytowa", "kartę kredytową", "karty kredytowej",
            "karta płatnicza", "kartę płatniczą", "karty płatniczej", "dane karty", "danych karty",
            "karta debetowa", "kartę debetową",
        ]),
        (CardExpiry, &["data ważności karty", "datę ważności karty", "ważność karty"]),
        (CardSecurityCode, &["kod cvv", "kodu cvv", "kod cvc", "kodu cvc", "kod cvv2"]),
        (Pin, &[
            "kod odblokowania", "kodu odblokowania", "wzór odblokowania",
        ]),
        (AccessToken, &[
            "nagłówek authorization", "nagłówka authorization", "nagłówkiem authorization",
            "nagłówek autoryzacji", "nagłówka autoryzacji",
        ]),
        (Password, &[
            "pierwszy zwierzak", "pierwszego zwierzaka", "pierwszym zwierzakiem",
            "pierwszego zwierzaka domowego", "pierwsze zwierzątko", "pierwszego zwierzątka", "pierwszy pies",
            "pierwszego psa", "pierwszy kot", "pierwszego kota", "pierwszym psie", "pierwszym kocie",
        ]),
        (CardNumber, &["16 cyfr karty", "16 cyfr z przodu", "16 cyfr twojej karty"]),
    ],
    conditional: &[
        (OneTimeCode, Sense::NeedsOtp, &["kod", "kodu", "kodem"]),
        (CardSecurityCode, Sense::CardOrOtp, &["kod bezpieczeństwa", "kodu bezpieczeństwa"]),
        (CardExpiry, Sense::NeedsCard, &[
            "data ważności", "datę ważności", "daty ważności", "ważna do", "termin ważności", "ważność",
        ]),
        (Password, Sense::NeedsQuestion, &["odpowiedź", "odpowiedzi", "odpowiedzią"]),
    ],
    blockers: &[
        "kod pocztowy", "kodu pocztowego", "kod rabatowy", "kodu rabatowego", "kod promocyjny",
        "kodu promocyjnego", "kod źródłowy", "kodu źródłowego", "kod kreskowy", "kod qr", "kod kraju",
        "kod kupon", "kod zniżkowy", "kod polecający", "kod zaproszenia", "kod błędu", "kod produktu",
        "kod rezerwacji", "kod przesyłki", "kod śledzenia", "karta podarunkowa", "kartę podarunkową",
        "karty podarunkowej", "karta sim", "kartę sim", "karta graficzna", "karta pamięci", "gra karciana",
        "karta trello", "kartę trello", "karta lojalnościowa", "karta stałego klienta", "karta pokładowa",
        "karta miejska", "karta biblioteczna", "karta multisport", "karta do gry", "karty do gry",
        "klucz do mieszkania", "klucze do", "klucz publiczny", "kod statusu", "kodu statusu",
        "kod odpowiedzi", "kodu odpowiedzi", "kod http", "kodu http", "kod stanu", "kodu stanu",
    ],
    not_requests: &["wyślemy", "wyślemy ci", "ponownie wyślij"],
    meta_before: &[
        "menedżer", "menedżera", "menedżerze", "długość", "minimalna długość", "minimalną długość",
        "polityka", "zasady", "wymagania dotyczące", "limit", "liczba", "liczbę", "zresetuj", "resetowanie",
        "reset", "zmień", "zmiana", "zmiany", "zapomniałeś", "zapomniałem", "przypomnienie", "odzyskiwanie",
        "odzyskaj", "unieważnij", "usuń", "nazwa", "nazwę", "opis", "jaki typ", "typ", "rodzaj", "ważność",
        "siła", "zapisz", "zapamiętaj", "generator", "identyfikator", "id klucza", "id tokenu",
    ],
    statements: &["jest", "są", "będzie", "będą", "musi", "muszą"],
    meta_after: &[
        "menedżer", "wygasło", "wyciekło", "zapomniane", "zmienione", "usunąć", "unieważnić", "nazwa",
        "nazwę", "tytuł", "musi", "muszą", "powinno", "powinien", "powinna", "ważne", "ważny", "nadal ważne",
        "wygasa",
    ],
    cues: &[
        "podaj", "wpisz", "wprowadź", "wklej", "udostępnij", "wyślij", "prześlij", "jakie jest twoje",
        "jaki jest twój", "jaki jest pana", "jakie jest pana", "podaj nam", "wpisać", "podać", "wprowadzić",
        "proszę podać", "proszę wpisać", "proszę wprowadzić", "potrzebujemy twojego", "potrzebujemy twojej",
        "powiedz", "przekaż", "wprowadzając", "daj", "dajcie", "przepisz", "skopiuj tutaj", "wklej tutaj",
        "jakie jest", "jaki jest", "potrzebujemy", "potrzebny jest", "potrzebne jest", "podaj mi",
        "jak miało na imię", "jak miał na imię", "jak miała na imię", "jak się nazywał", "jak się nazywała",
        "jak nazywało się", "załącz", "dołącz", "prześlij plik", "wgraj", "zaloguj się za pomocą",
        "zaloguj się przy użyciu", "zaloguj się podając", "potrzebuję twojego", "potrzebuję twojej",
        "potrzebuję pana", "potrzebuję pani",
        "przekaż mi", "podeślij",
    ],
    near_cues: &["potwierdź", "wybierz", "ustaw", "utwórz", "wymagane", "wymagany", "zaznacz", "wskaż"],
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
    carriers: &[
        "ciąg połączenia", "ciąg połączeniowy", "ciągu połączenia", "url bazy danych", "adres url bazy",
        "adres bazy danych", "plik konfiguracyjny", "konfiguracj*", "polecenie curl", "komendę curl",
        "komenda curl", "linię", "linia", "linijkę", "linii", "zmienną", "zmienna", "sekcję", "sekcja",
        "sekcji", "fragment", "blok", "zmienne środowiskowe", "zapytanie", "żądanie", "request",
        "wywołanie api",
        "dsn", "dsn do bazy",
    ],
    own: &[
        "obecny", "obecne", "obecnym", "obecnego", "aktualne", "aktualny", "aktualnym", "bieżące", "bieżący",
        "moje", "mój", "używasz", "używa pan", "używa pani", "używacie",
    ],
    own_cues: &[
        "jednym z", "z listy", "zaczyna się od", "kończy się na", "słowo #", "# słowo", "słowo nr #",
        "jest twoim", "jest twoje", "jest twój", "jest twoja", "pierwsza litera", "pierwszą literę",
        "pierwsza cyfra", "ostatnia cyfra", "ostatnie cyfry", "ostatnie # cyfry", "który z tych",
        "które z tych", "która z tych", "który z nich", "to twój", "to twoje", "to twoja", "pierwsze słowo",
        "drugie słowo", "trzecie słowo", "czwarte słowo", "piąte słowo", "szóste słowo", "siódme słowo",
        "ósme słowo", "dziewiąte słowo", "dziesiąte słowo", "jedenaste słowo", "dwunaste słowo",
        "dwie ostatnie cyfry", "trzy ostatnie cyfry", "ostatnie dwie cyfry", "ostatnie trzy cyfry",
        "drugi znak", "trzeci znak", "# słów", "jest twoją", "znak twojego", "znaki twojego", "znak swojego",
        "znaki swojego", "literę twojego", "litery twojego", "cyfrę twojego", "cyfry twojego", "pozycje",
        "pozycja #",
        "które z tych słów", "które z tych", "trzecim słowem", "drugim słowem", "pierwszym słowem", "ostatnim słowem", "#. słowem", "słowem twojej", "słowem twojego",
    ],
    back_cues: &[
        "wklej go", "wklej ją", "wklej je", "wklej tutaj", "wklej tu", "wyślij go", "wyślij ją", "prześlij go",
        "prześlij ją", "wpisz go", "wpisz ją", "podaj go", "podaj ją",
    ],
    please: &["proszę", "poproszę"],
    which: &["jaki", "jakie", "jakiego", "jakiej", "który", "które", "która"],
    possessive: &[
        "twoje", "twój", "twoja", "twojego", "twojej", "twoim", "twoją", "pana", "pani", "państwa", "wasze",
        "wasz",
    ],
    properties: &[
        "zawiera", "ma więcej niż", "ma mniej niż", "ma co najmniej", "jest dłuższe niż", "jest dłuższy niż",
        "jest krótsze niż", "takie samo jak", "to samo co", "taki sam jak", "takie same jak",
        "twój rok urodzenia", "twoja data urodzenia", "twoje urodziny", "rok urodzenia", "data urodzenia",
    ],
    copulas: &["to", "jest", "brzmi", "nadal", "wciąż", "było"],
    whether: &["czy"],
    security_question: &[
        "pytanie bezpieczeństwa", "pytania bezpieczeństwa", "pytaniu bezpieczeństwa",
        "pytanie zabezpieczające", "pytania zabezpieczającego", "pytanie pomocnicze", "pytania pomocniczego",
        "pytanie kontrolne", "pytania kontrolnego", "pierwszy zwierzak", "pierwszego zwierzaka",
        "pierwszym zwierzakiem", "pierwszego zwierzaka domowego", "pierwsze zwierzątko",
        "pierwszego zwierzątka", "pierwszy pies", "pierwszego psa", "pierwszy kot", "pierwszego kota",
        "pierwszym psie", "pierwszym kocie", "nazwisko panieńskie matki", "pierwsze zwierzę",
        "pierwszego zwierzęcia", "pierwsza szkoła", "najlepszy przyjaciel z dzieciństwa", "miejsce urodzenia",
    ],
    inline_only: &[
        "z kluczami", "łącznie z kluczami", "razem z kluczami", "z nagłówkami", "ze wszystkimi nagłówkami",
        "łącznie z nagłówkami",
    ],
    redactions: &[
        "usunięte", "usuniętym", "usuniętą", "usunięty", "zamaskowane", "zamaskowanym", "zamaskowaną",
        "ukryte", "ukrytym", "zakryte", "zakrytym", "wykropkowane",
    ],
    qualifiers: &["przelewy24", "p24", "payu", "tpay", "blik", "allegro", "inpost", "raportów", "do raportów"],
    ..LangRules::EMPTY
};
