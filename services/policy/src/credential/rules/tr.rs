//! Turkish. Suffixes glue to nouns (`şifrenizi`, `kodunu`), so the main
//! nouns are stems; the verb comes last and negation is a suffix of the verb,
//! so negations reach both ways.

use super::LangRules;
use crate::credential::Category::*;
use crate::credential::matcher::{Scope, Sense};

#[rustfmt::skip]
pub(super) const RULES: LangRules = LangRules {
    code: "tr",
    terms: &[
        (Password, &["şifre*", "parola*", "giriş bilgileri*", "kimlik bilgileri*"]),
        (Passphrase, &["parola cümle*", "şifre cümle*", "parola ifade*"]),
        (ApiKey, &["api anahtar*", "gizli anahtar*", "erişim anahtar*"]),
        (AccessToken, &[
            "erişim token*", "erişim belirteç*", "erisim belirteci*", "kimlik doğrulama belirteç*",
            "tokeninizi", "tokeninizi", "tokenı", "tokeni", "tokenini", "oturum belirteç*",
        ]),
        (ClientSecret, &["istemci sırrı*", "istemci gizli*", "uygulama sırrı*"]),
        (PrivateKey, &["özel anahtar*"]),
        (RecoveryPhrase, &[
            "kurtarma ifade*", "kurtarma cümle*", "tohum ifade*", "gizli kurtarma*", "seed ifade*",
            "kurtarma kelime*", "anımsatıcı ifade*", "yedek ifade*",
        ]),
        (SessionCookie, &["oturum çerez*"]),
        (OneTimeCode, &[
            "doğrulama kod*", "tek kullanımlık kod*", "tek kullanımlık şifre*", "tek kullanımlık parola*",
            "onay kod*", "sms kod*", "2fa kod*", "giriş kod*", "gönderilen kod*", "gönderdiğimiz kod*",
            "tek seferlik kod*", "tek seferlik şifre*", "doğrulama şifre*",
        ]),
        (Pin, &["pin kod*", "pin numara*", "pininizi", "pinini", "pin şifre*"]),
        (CardNumber, &["kart numara*", "kredi kart*", "banka kart*", "kart bilgi*", "banka kartı*"]),
        (CardExpiry, &["kartın son kullanma*", "kart son kullanma*"]),
        (CardSecurityCode, &["cvv kod*", "cvc kod*", "kartın arkasındaki*"]),
        (ApiKey, &["env dosyası", "env dosyasının", "env dosyasini", "env dosyanızın", "kısıtlı anahtar*"]),
        (AccessToken, &["dağıtım token*", "yayınlama token*", "bot token*", "token*"]),
    ],
    conditional: &[
        (OneTimeCode, Sense::NeedsOtp, &["kod", "kodu", "kodunu", "kodunuzu", "kodu girin"]),
        (CardSecurityCode, Sense::CardOrOtp, &["güvenlik kod*"]),
        (CardExpiry, Sense::NeedsCard, &["son kullanma tarih*", "geçerlilik tarih*", "son kullanma*"]),
    ],
    blockers: &[
        "posta kod*", "indirim kod*", "promosyon kod*", "kupon kod*", "kaynak kod*", "hediye kart*",
        "kart oyun*", "ülke kod*", "alan kod*", "karekod*", "qr kod*", "barkod*", "hata kod*", "takip kod*",
        "referans kod*", "davet kod*", "ürün kod*", "üyelik kart*", "sim kart*", "ekran kart*",
        "hafıza kart*", "kimlik kart*", "trello kart*", "sadakat kart*", "biniş kart*", "kartvizit*",
        "ev anahtar*", "araba anahtar*", "açık anahtar*", "genel anahtar*", "usb bellek*", "haritaya pin*",
        "pinle*", "sabitle*", "şifrele*", "şifreli*", "una parola", "la parola", "parola chiave",
        "parola del", "parola in", "ogni parola", "nuova parola", "parola da", "questa parola",
    ],
    not_requests: &["göndereceğiz", "tekrar gönder*"],
    meta_before: &["minimum", "maksimum", "en az", "en fazla", "kaç", "hangi", "unuttum"],
    statements: &[],
    meta_after: &[
        "yönetici*", "uzunlu*", "politika*", "unut*", "sıfırla*", "sınır*", "limit*", "değiştir*",
        "gereksinim*", "kural*", "süresi*", "güç*", "yenile*", "iptal*", "sayı*", "bütçe*", "tür*", "adı",
        "ismi", "etiket*", "kaydet*", "hatırla*", "oluşturucu*",
    ],
    cues: &[
        "girin", "giriniz", "girmeniz", "girmelisiniz", "gir", "yazın", "yazınız", "yaz", "yapıştırın",
        "yapıştır", "paylaşın", "paylaş", "gönderin", "gönder", "belirtin", "sağlayın", "iletin", "nedir",
        "lütfen girin", "bildirin", "verin", "söyleyin", "söyle", "ihtiyacımız var", "gerekiyor", "tuşlayın",
    ],
    near_cues: &["onaylayın", "seçin", "belirleyin", "oluşturun", "gerekli", "zorunlu"],
    negations: &[
        "asla", "paylaşmayın", "girmeyin", "vermeyin", "söylemeyin", "göndermeyin", "yazmayın", "değil",
        "gerekmez", "istemeyiz", "istemez", "sormayız", "sormaz", "olmadan", "kimseyle", "paylaşmayınız",
    ],
    negation_scope: Scope::Both,
    cues_follow_terms: true,
    card: &["kart*", "kart sahibi*"],
    otp: &[
        "gönderilen", "gönderdiğimiz", "gönderildi", "sms", "haneli", "doğrulayıcı", "doğrulama", "mesaj*",
    ],
    address: &["adres*", "teslimat*", "şehir", "mahalle*", "ilçe*", "sokak*"],
    map: &["harita*", "konum*"],
    carriers: &["bağlantı dizesi", "bağlantı dizesini", "bağlantı dizgesi*", "veritabanı url*", "bağlantı url*", "yapılandırma dosyası*"],
    own: &["mevcut", "şu anki", "geçerli", "şimdiki"],
    own_cues: &["bunlardan biri", "listeden", "ile başlıyor", "ile bitiyor", "kelime #", "#. kelime", "ilk harf*", "son harf*", "ilk hane*", "son hane*", "ilk rakam*", "son rakam*", "ilk karakter*", "son karakter*"],
    ..LangRules::EMPTY
};
