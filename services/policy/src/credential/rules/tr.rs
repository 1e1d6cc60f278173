//! Turkish. Suffixes glue to nouns (`şifrenizi`, `kodunu`), so the main
//! nouns are stems, and the possessive is a suffix (`*niz`); the verb comes
//! last and negation is a suffix of the verb, so negations reach both ways.

use super::LangRules;
use crate::credential::Category::*;
use crate::credential::matcher::{Scope, Sense};

#[rustfmt::skip]
pub(super) const RULES: LangRules = LangRules {
    code: "tr",
    terms: &[
        (RecoveryPhrase, &["12 kelime", "24 kelime", "12 kelimeyi", "24 kelimeyi"]),
        (RecoveryPhrase, &["kurtarma ifade*", "kurtarma ifadenizi", "kurtarma cümle*", "gizli kurtarma ifade*"]),
        (Password, &["ilk öğretmeninizin adı", "ilk öğretmenin adı", "ilk evcil hayvanınızın adı", "annenizin kızlık soyadı", "doğduğunuz şehir"]),
        (Password, &[
            "şifre*", "parola*", "giriş bilgileri*", "kimlik bilgileri*", "kızlık soyad*", "annenizin kızlık*",
            "güvenlik sorusunun cevab*", "güvenlik cevab*", "gizli cevab*", "ilk evcil hayvan*", "ilk okul*",
            "çocukluk arkadaş*", "ilk evcil hayvanınızın adı", "ilk evcil hayvanınızın ismi", "ilk evcil hayvanının adı",
        ]),
        (Passphrase, &["parola cümle*", "şifre cümle*", "parola ifade*"]),
        (ApiKey, &[
            "api anahtar*", "gizli anahtar*", "erişim anahtar*", "env dosyası", "env dosyasının",
            "env dosyasini", "env dosyanızın", "kısıtlı anahtar*",
        ]),
        (AccessToken, &[
            "erişim token*", "erişim belirteç*", "erisim belirteci*", "kimlik doğrulama belirteç*",
            "tokeninizi", "tokenı", "tokeni", "tokenini", "oturum belirteç*", "dağıtım token*",
            "yayınlama token*", "bot token*", "token", "tokenını", "tokenınızı", "tokenınız", "tokeniniz",
            "tokenin", "tokenın", "tokenim", "tokenım", "tokenimi", "tokenımı", "tokenla", "tokenle",
            "tokenlar", "tokenler",
        ]),
        (ClientSecret, &[
            "istemci sırrı*", "istemci gizli*", "uygulama sırrı*", "imzalama sırrı*", "imza sırrı*",
            "webhook sırrı*", "api sırrı*", "imzalama gizli*",
        ]),
        (PrivateKey, &["özel anahtar*"]),
        (RecoveryPhrase, &[
            "kurtarma ifade*", "kurtarma cümle*", "tohum ifade*", "gizli kurtarma*", "seed ifade*",
            "kurtarma kelime*", "anımsatıcı ifade*", "yedek ifade*", "kurtarma anahtar*",
        ]),
        (SessionCookie, &["oturum çerez*"]),
        (OneTimeCode, &[
            "doğrulama kod*", "tek kullanımlık kod*", "tek kullanımlık şifre*", "tek kullanımlık parola*",
            "onay kod*", "sms kod*", "2fa kod*", "giriş kod*", "gönderilen kod*", "gönderdiğimiz kod*",
            "tek seferlik kod*", "tek seferlik şifre*", "doğrulama şifre*", "yedek kod*", "kurtarma kod*",
        ]),
        (Pin, &["pin kod*", "pin numara*", "pininizi", "pinini", "pin şifre*"]),
        (CardNumber, &["kart numara*", "kredi kart*", "banka kart*", "kart bilgi*", "banka kartı*"]),
        (CardExpiry, &["kartın son kullanma*", "kart son kullanma*"]),
        (CardSecurityCode, &["cvv kod*", "cvc kod*", "kartın arkasındaki*"]),
        (Pin, &[
            "kilit açma kod*", "kilit kodu*", "ekran kilidi*", "kilit açma şifre*",
        ]),
        (Pin, &[
            "kart şifre*", "kartınızın şifre*", "kartının şifre*", "banka kartı şifre*", "atm şifre*",
            "4 haneli şifre*", "6 haneli şifre*",
        ]),
        (AccessToken, &["authorization başlığ*", "yetkilendirme başlığ*", "authorization header*"]),
        (CardNumber, &["kartın üzerindeki 16 hane*", "16 haneli kart numara*", "kartınızdaki 16 hane*"]),
        (AccessToken, &["erişim token*"]),
    ],
    conditional: &[
        (OneTimeCode, Sense::NeedsOtp, &["kod", "kodu", "kodunu", "kodunuzu"]),
        (CardSecurityCode, Sense::CardOrOtp, &["güvenlik kod*"]),
        (CardExpiry, Sense::NeedsCard, &["son kullanma tarih*", "geçerlilik tarih*", "son kullanma*"]),
        (Password, Sense::NeedsQuestion, &["cevap*", "cevab*", "yanıt*"]),
    ],
    blockers: &[
        "posta kod*", "indirim kod*", "promosyon kod*", "kupon kod*", "kaynak kod*", "hediye kart*",
        "kart oyun*", "ülke kod*", "alan kod*", "karekod*", "qr kod*", "barkod*", "hata kod*", "takip kod*",
        "referans kod*", "davet kod*", "ürün kod*", "üyelik kart*", "sim kart*", "ekran kart*",
        "hafıza kart*", "kimlik kart*", "trello kart*", "sadakat kart*", "biniş kart*", "kartvizit*",
        "ev anahtar*", "araba anahtar*", "açık anahtar*", "genel anahtar*", "usb bellek*", "haritaya pin*",
        "pinle*", "sabitle*", "şifreli*", "una parola", "la parola", "parola chiave", "parola del",
        "parola in", "ogni parola", "nuova parola", "parola da", "questa parola", "şifreleme*", "şifrelen*",
        "şifreleyin", "şifreledi*", "şifrelemek", "şifresiz", "parolasız",
        "token adı", "anahtar adı", "token ismi", "anahtar ismi",
    ],
    not_requests: &["göndereceğiz", "tekrar gönder*", "haber verin", "bana haber verin", "haber ver"],
    meta_before: &["minimum", "maksimum", "en az", "en fazla", "kaç", "unuttum"],
    statements: &[],
    meta_after: &[
        "yönetici*", "uzunlu*", "politika*", "unut*", "sıfırla*", "sınır*", "limit*", "değiştir*",
        "gereksinim*", "kural*", "süresi*", "güç*", "yenile*", "iptal*", "sayı*", "bütçe*", "tür*", "adı",
        "ismi", "etiket*", "kaydet*", "hatırla*", "oluşturucu*", "bir ad", "ad verin", "silin", "iptal",
        "oluşturun", "oluşturup", "oluşturduktan", "bir başlık", "bir isim", "geçerli mi", "hâlâ geçerli",
        "geçerliliği", "kimliği", "id si", "idsi",
        "nasıl", "nasıl oluşturulur", "nasıl alınır",
    ],
    cues: &[
        "girin", "giriniz", "girmeniz", "girmelisiniz", "gir", "yazın", "yazınız", "yaz", "yapıştırın",
        "yapıştır", "paylaşın", "paylaş", "gönderin", "gönder", "belirtin", "sağlayın", "iletin", "nedir",
        "lütfen girin", "bildirin", "verin", "söyleyin", "söyle", "ihtiyacımız var", "gerekiyor", "tuşlayın",
        "neydi", "ekleyin", "ekle", "yükleyin", "iliştirin", "ile giriş yapın", "yollayın",
        "gönderir misiniz", "verir misiniz", "söyler misiniz", "kopyala", "kopyalayın", "kopyalayıp",
        "yapıştırır mısın", "yapıştırır mısınız", "gönderir misin", "paylaşır mısın", "paylaşır mısınız",
        "yazar mısın", "yazar mısınız", "verir misin", "söyler misin", "iletir misin", "iletir misiniz",
        "atar mısın", "atar mısınız", "atabilir misin", "atabilir misiniz", "yollar mısın", "yollasana", "atsana", "gönderebilir misin",
        "girer misin", "girer misiniz", "girebilir misin", "girebilir misiniz",
    ],
    near_cues: &["onaylayın", "seçin", "belirleyin", "gerekli", "zorunlu", "seçiniz", "seç", "işaretleyin"],
    negations: &[
        "asla", "paylaşmayın", "girmeyin", "vermeyin", "söylemeyin", "göndermeyin", "yazmayın", "değil",
        "gerekmez", "istemeyiz", "istemez", "sormayız", "sormaz", "olmadan", "kimseyle", "paylaşmayınız",
    ],
    negation_scope: Scope::Both,
    cues_follow_terms: true,
    card: &["kart*", "kart sahibi*"],
    otp: &["donanım anahtar*", "token cihaz*", "gönderilen", "gönderdiğimiz", "gönderildi", "sms", "haneli", "doğrulayıcı", "doğrulama", "mesaj*"],
    address: &["adres*", "teslimat*", "şehir", "mahalle*", "ilçe*", "sokak*"],
    map: &["harita*", "konum*"],
    carriers: &[
        "bağlantı dizesi", "bağlantı dizesini", "bağlantı dizgesi*", "veritabanı url*", "bağlantı url*",
        "yapılandırma dosyası*", "bağlantı adres*", "bağlantı cümle*", "mysql adres*", "satır*", "değişken*",
        "bölüm*", "kısm*", "blok*", "ortam değişken*", "istek*", "isteği", "request",
    ],
    own: &[
        "mevcut", "şu anki", "geçerli", "şimdiki", "kullanıyorsunuz", "kullanıyorsun", "kullandığınız",
        "kullandığın",
    ],
    own_cues: &[
        "bunlardan biri", "listeden", "ile başlıyor", "ile bitiyor", "kelime #", "#. kelime", "ilk harf*",
        "son harf*", "ilk hane*", "son hane*", "ilk rakam*", "son rakam*", "ilk karakter*", "son karakter*",
        "bunlardan hangisi", "#. kelime*", "birinci kelime*", "ikinci kelime*", "üçüncü kelime*",
        "dördüncü kelime*", "beşinci kelime*", "altıncı kelime*", "yedinci kelime*", "sekizinci kelime*",
        "dokuzuncu kelime*", "onuncu kelime*", "son iki hane*", "son üç hane*", "son iki rakam*",
        "ilk iki hane*", "ikinci karakter*", "# kelime*", "aşağıdakilerden hangisi", "ile mi başlıyor",
        "karakterlerini", "karakterini", "harflerini", "harfini", "rakamlarını", "hanesini",
        "hangisiydi", "bunlardan hangisi", "aşağıdakilerden hangisi",
        "mi başlıyor", "ile mi başlıyor", "harfle mi başlıyor", "başlıyor mu", "ile başlıyor mu", "mi bitiyor", "ile mi bitiyor", "bitiyor mu",
    ],
    please: &["lütfen"],
    which: &["hangi"],
    possessive: &[
        "*niz", "*nizi", "*nizin", "*niza", "*nizda", "*nizdaki", "*nizdan", "*nizla", "*nuz", "*nuzu",
        "*nuzun", "*nuza", "*nuzda", "*nuzdaki", "sizin", "senin",
    ],
    properties: &[
        "ile mi başlıyor", "ile mi bitiyor", "içeriyor mu", "içeriyor", "hangisi", "karakterden uzun mu",
        "karakterden fazla mı", "karakterden kısa mı", "en az", "en fazla", "karakter mi", "karakterli mi",
        "haneli mi", "karakterden fazla mi", "aynı mı", "ile aynı", "doğum yıl*", "doğum tarih*",
        "doğum gün*", "telefon numara*",
        "kaç karakter", "kaç haneli", "kaç hane",
    ],
    copulas: &["mi", "mı", "mu", "mü", "midir", "mıdır", "mudur", "müdür"],
    whether: &["mi", "mı", "mu", "mü", "olup olmadığını"],
    security_question: &[
        "güvenlik soru*", "gizli soru*", "kızlık soyad*", "ilk evcil hayvan*", "ilk okul*",
        "çocukluk arkadaş*", "doğduğunuz şehir*",
        "güvenlik sorusu", "güvenlik sorunuz", "ilk öğretmeninizin", "ilk öğretmen", "ilk evcil hayvan",
    ],
    answer_cues: &["cevapla*", "yanıtla*", "cevap ver*", "yanıt ver*"],
    inline_only: &[
        "şifresiyle birlikte", "şifre dahil", "parolasıyla birlikte", "başlıklarıyla birlikte",
        "başlıklar dahil", "header dahil", "headerlar dahil", "tüm başlıklar*", "anahtarlarıyla birlikte",
        "anahtarlar dahil", "başlığıyla birlikte", "başlığı dahil", "başlıklarıyla", "header ile",
        "satırı dahil", "satırıyla birlikte", "parolası dahil", "şifresi dahil",
        "header larıyla", "header larıyla beraber", "header larıyla birlikte", "headerlarıyla", "başlıklarıyla beraber", "authorization satırı", "authorization başlığı", "header larını da",
    ],
    redactions: &[
        "buraya değil", "burada değil", "buraya yazmayın", "bu forma değil", "kasaya", "vault a", "şifre yöneticinize", "yer tutucu", "sadece isimler", "sadece adları", "yalnızca adları", "değerler olmadan", "değerleri olmadan", "güvenli bir yerde", "güvenli bir yere",
        "kaldırılmış", "kaldırarak", "gizlenmiş", "gizleyerek", "maskelenmiş", "maskeleyerek", "silinmiş",
        "silerek", "çıkarılmış", "çıkararak", "sansürlenmiş",
        "hariç", "olmadan",
    ],
    qualifiers: &["içeriğini", "içeriği", "dosyasının", "dosyası", "tamamını", "tüm"],
    not_negations: &["sohbete değil", "sohbette değil", "e postayla değil", "unutmayın", "unutma"],
    ..LangRules::EMPTY
};
