//! English. English credential words (`password`, `token`, `PIN`, `OTP`,
//! `CVV`, `API key`) are also loanwords in most other languages, so these
//! terms apply to every text.

use super::LangRules;
use crate::credential::Category::*;
use crate::credential::matcher::{Scope, Sense};

#[rustfmt::skip]
pub(super) const RULES: LangRules = LangRules {
    code: "en",
    terms: &[
        (Password, &[
            "password", "passwords", "passwd", "pwd", "pword", "pass word", "credentials",
            "login credentials", "login details", "sign in details", "logon password",
        ]),
        (Passphrase, &["passphrase", "passphrases", "pass phrase"]),
        (ApiKey, &[
            "api key", "api keys", "x api key", "xapikey", "secret key", "access key", "access key id",
            "secret access key", "sk live", "sk test", "rk live", "developer key", "app key",
            "application key", "subscription key", "openai key", "stripe key", "aws key", "anthropic key",
            "service account key", "auth key", "authentication key",
        ]),
        (AccessToken, &[
            "token", "access token", "bearer token", "auth token", "authentication token",
            "authorization token", "api token", "personal access token", "refresh token", "id token",
            "oauth token", "github token", "gitlab token", "slack token", "bot token", "jwt", "session token",
            "authorization header", "auth header", "security token",
        ]),
        (ClientSecret, &[
            "client secret", "app secret", "application secret", "consumer secret", "api secret",
            "webhook secret", "signing secret", "shared secret", "secret", "oauth secret",
            "client credentials",
        ]),
        (PrivateKey, &[
            "private key", "private keys", "privkey", "priv key", "ssh private key", "id rsa", "id ed25519",
            "id ecdsa", "signing key", "encryption key", "decryption key",
        ]),
        (RecoveryPhrase, &[
            "recovery phrase", "seed phrase", "secret recovery phrase", "seed words", "recovery words",
            "mnemonic", "mnemonic phrase", "backup phrase", "wallet seed", "12 word phrase", "24 word phrase",
            "12 word recovery", "24 word recovery", "recovery seed", "seed words",
        ]),
        (SessionCookie, &[
            "session cookie", "session cookies", "cookie", "cookie header", "auth cookie", "session id",
            "sessionid", "phpsessid", "jsessionid", "connect sid", "cookie value", "cookie string",
        ]),
        (OneTimeCode, &[
            "otp", "totp", "hotp", "one time password", "one time code", "one time passcode", "one time pin",
            "verification code", "verify code", "auth code", "authentication code", "authorization code",
            "authenticator code", "2fa code", "2fa", "mfa code", "mfa", "two factor code",
            "two factor authentication code", "2 step verification code", "sms code", "login code",
            "sign in code", "signin code", "magic code", "backup code", "backup codes", "recovery code",
            "recovery codes", "digit code", "code we sent", "code we just sent", "code we texted",
            "code we emailed", "code sent to", "code from your authenticator", "code from the authenticator",
            "code from your app", "mtan", "smstan", "pushtan", "chiptan", "one time token",
            "verification pin", "otp code", "digits we sent", "digits we texted", "digits we emailed",
            "digits we just sent",
        ]),
        (Pin, &[
            "pin number", "atm pin", "card pin", "sim pin", "passcode", "upi pin", "access code",
            "personal identification number",
        ]),
        (CardNumber, &[
            "card number", "card numbers", "card no", "card num", "credit card", "credit card number",
            "debit card", "debit card number", "cc number", "cc num", "cc no", "payment card", "bank card",
            "card details", "card info", "card information", "long card number",
        ]),
        (CardExpiry, &[
            "card expiry", "card expiration", "card expiration date", "card expiry date", "cc exp",
            "card exp",
        ]),
        (CardSecurityCode, &[
            "cvv", "cvc", "cvv2", "cvc2", "cvn", "card verification value", "card verification code",
            "card security code", "card code", "cc csc", "code on the back", "digits on the back",
            "number on the back",
        ]),
    ],
    conditional: &[
        (Pin, Sense::UnlessMap, &["pin"]),
        (Pin, Sense::UnlessPlace, &["pin code", "pincode"]),
        (OneTimeCode, Sense::NeedsOtp, &["code", "tan", "confirmation code"]),
        (CardSecurityCode, Sense::CardOrOtp, &["security code"]),
        (CardSecurityCode, Sense::NeedsCard, &["csc"]),
        (CardExpiry, Sense::NeedsCard, &[
            "expiry", "expiry date", "expiration", "expiration date", "exp date", "exp", "exp month",
            "exp year", "expiry month", "expiry year", "expiration month", "expiration year", "mm yy",
            "mm yyyy", "valid thru", "valid through", "valid until", "good thru",
        ]),
    ],
    blockers: &[
        // pins that are not PINs
        "map pin", "pin on the map", "pin on map", "drop a pin", "dropped pin", "pin location", "pin the tab",
        "pin this tab", "pin the message", "pin the post", "pin the chat", "pin the conversation",
        "pin the note", "pin the channel", "pin the file", "pin the location", "pin the page",
        "pin the window", "pin the app", "pin it", "pin this", "pin to top", "pin to the top", "pin to the",
        "pin to taskbar", "pin to dashboard", "pin to sidebar", "pin a message", "pin a tab", "pin a note",
        "pin a location", "pin message", "pin tab", "pin post", "push pin", "bowling pin", "pin badge",
        "lapel pin", "hair pin", "safety pin", "pin board", "pin drop", "pin point", "pin code of the map",
        // codes that are not secrets
        "postal code", "post code", "zip code", "area code", "country code", "dial code", "calling code",
        "language code", "currency code", "discount code", "promo code", "promotional code", "coupon code",
        "voucher code", "gift code", "referral code", "invite code", "invitation code", "tracking code",
        "source code", "error code", "status code", "exit code", "color code", "colour code", "hex code",
        "dress code", "qr code", "bar code", "product code", "sku code", "tax code", "hs code", "sort code",
        "swift code", "bic code", "airport code", "booking code", "reservation code", "booking confirmation",
        "confirmation number", "code snippet", "code review", "code block", "morse code", "course code",
        "class code", "room code", "game code", "join code", "event code", "cheat code", "code name",
        "project code", "cost code", "department code", "redeem code", "redemption code", "activation code",
        "pairing code", "code of conduct", "code base", "airline code", "station code", "code editor",
        "code sample", "code example", "code change", "code changes",
        // cards that are not payment cards
        "gift card", "giftcard", "trello card", "kanban card", "playing card", "card game", "card games",
        "business card", "greeting card", "birthday card", "christmas card", "thank you card", "report card",
        "id card", "identity card", "sim card", "sd card", "memory card", "graphics card", "video card",
        "sound card", "network card", "library card", "loyalty card", "membership card", "member card",
        "reward card", "rewards card", "index card", "flash card", "flashcard", "post card", "postcard",
        "score card", "scorecard", "wild card", "wildcard", "red card", "yellow card", "green card",
        "boarding card", "key card", "keycard", "card deck", "deck of cards", "card design", "card template",
        "card title", "card layout", "card component", "card view", "tarot card", "pokemon card",
        "trading card", "baseball card", "insurance card", "health card", "student card", "employee card",
        "access card", "transit card", "oyster card", "card reader",
        // secrets, seeds, cookies and tokens that are not credentials
        "secret santa", "top secret", "secret ingredient", "secret recipe", "trade secret", "secret garden",
        "secret to", "secret of", "secret menu", "secret sauce", "secret message", "keep it secret",
        "random seed", "seed data", "seed value", "seed number", "seed round", "seed funding", "seed stage",
        "seed money", "seed the", "seed database", "seeds", "cookie recipe", "cookie consent",
        "cookie banner", "cookie policy", "cookie preferences", "cookie settings", "fortune cookie",
        "chocolate chip cookie", "cookie jar", "cookie cutter", "cookie flavor", "cookie flavour",
        "accept cookies", "cookie dough", "crypto token", "governance token", "utility token", "native token",
        "erc20 token", "erc 20 token", "token of appreciation", "bearer bond",
        // requests aimed at the reader, not at the server
    ],
    not_requests: &[
        "send you", "we ll send", "we will send", "will send", "we sent", "we have sent", "we ve sent",
        "resend", "send a new", "send another", "tell you", "give you", "provide you", "we provide",
        "press enter", "hit enter", "enter key", "type to search", "copy and paste this", "input tokens",
        "data type", "type of",
    ],
    meta_before: &[
        "minimum", "maximum", "min", "max", "length of", "forgot", "forgot your", "forgotten", "lost",
        "reset", "reset your", "change", "change your", "update", "update your", "rotate", "rotate your",
        "revoke", "regenerate", "delete", "remove", "disable", "enable", "expire", "label for", "name for",
        "name of", "nickname for", "alias for", "description of", "description for", "note for", "notes for",
        "which", "what kind of", "what type of", "kind of", "favourite", "favorite", "recover", "retrieve",
        "show", "view", "display", "hide", "manage", "store", "save", "remember", "rotated", "revoked",
        "leaked", "compromised", "expired", "how many", "reused", "expiring",
    ],
    statements: &[
        "is", "are", "was", "were", "will", "must", "should", "can", "cannot", "may", "has", "have",
        "expires", "expired",
    ],
    meta_after: &[
        "length", "lengths", "policy", "policies", "manager", "managers", "strength", "complexity",
        "requirement", "requirements", "rule", "rules", "reset", "resets", "expiry", "expiration", "age",
        "history", "hint", "hints", "change", "changes", "rotation", "generator", "vault", "vaults", "field",
        "protection", "protected", "recovery", "reminder", "settings", "setting", "attempts", "retries",
        "lockout", "leak", "leaks", "breach", "check", "audit", "hygiene", "score", "meter", "app", "apps",
        "tool", "tools", "feature", "option", "options", "validation", "storage", "hashing", "hash", "limit",
        "limits", "budget", "count", "counts", "usage", "window", "cost", "costs", "price", "balance",
        "symbol", "address", "amount", "supply", "contract", "ticker", "pair", "swap", "decimals", "standard",
        "holders", "sale", "economy", "type", "types", "scope", "scopes", "permissions", "lifetime", "ttl",
        "validity", "endpoint", "url", "name", "label", "description", "method", "methods", "provider",
        "providers", "service", "setup", "status", "enabled", "enrollment", "device", "devices", "backup",
        "digits", "timeout", "format", "prefix", "rotated", "was", "has been", "is set", "expires", "expired",
        "issuer", "fingerprint", "compromised", "leaked", "stolen", "rotate", "revoked", "page", "section",
        "tab", "screen", "button", "link", "documentation", "docs", "guide", "tutorial", "strategy",
        "management", "authentication", "login", "sign in", "support", "based", "less", "free", "expire",
        "a name", "a label", "a description", "a nickname", "last", "s last",
    ],
    cues: &[
        "enter", "enter in", "type", "type in", "paste", "provide", "input", "submit", "supply", "share",
        "send", "give", "tell", "reply with", "respond with", "fill in", "key in", "insert", "re enter",
        "reenter", "retype", "what is your", "what s your", "whats your", "what was your", "what is the",
        "what s the", "whats the", "what are your", "need your", "need a", "needs a", "i need", "we need",
        "needs your", "need the", "require your", "requires your", "log in with", "login with",
        "sign in with", "authenticate with", "use your", "entering", "providing", "typing", "pasting",
        "submitting", "upload", "may i have", "can i have", "could i have", "let me know", "drop your",
        "read out", "dictate", "enter it",
    ],
    near_cues: &[
        "confirm", "confirm your", "verify", "verify your", "set", "set a", "set your", "choose", "choose a",
        "pick", "pick a", "required", "is required", "needed", "is needed",
    ],
    negations: &[
        "not", "never", "don t", "do not", "dont", "doesn t", "does not", "won t", "will not", "shouldn t",
        "should not", "cannot", "can t", "no", "without", "nobody", "no one", "neither", "nor", "instead of",
    ],
    negation_scope: Scope::Forward,
    cues_follow_terms: false,
    card: &[
        "card", "cardholder", "card holder", "name on card", "name on the card", "visa", "mastercard", "amex",
        "american express", "discover card",
    ],
    otp: &[
        "sent", "texted", "emailed", "sms", "text message", "authenticator", "digit", "digits", "one time",
        "verification", "verify", "2fa", "mfa", "two factor", "2 step", "two step", "log in", "login",
        "sign in", "expires in", "valid for",
    ],
    address: &[
        "address", "delivery", "shipping", "city", "locality", "postal", "post office", "district", "street",
        "area", "village", "town",
    ],
    map: &["map", "maps", "marker", "location", "coordinates", "latitude", "longitude"],
};
