//! Values that look like secrets: vendor key prefixes, PEM private keys,
//! JSON Web Tokens, and payment card numbers (13 to 19 digits that pass the
//! Luhn check). A field whose default (or one of whose options) holds such a
//! value is fishing: a legitimate form never pre-fills a live secret.
//!
//! Also the shapes of text that show where a secret goes: a credential
//! inside a compound value ([`inline_credential`]: `user:password@` in a URL,
//! `password=…` or `secret_access_key = …`, an `Authorization: Bearer …`
//! header line), and short quoted values that could be a guess at one
//! ([`quoted_values`]: `Is 'hunter2' your password?`).

use super::Category;

/// A secret-looking value found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SecretValue {
    pub category: Category,
    /// What it looks like, for the explanation (`"a Stripe secret key"`).
    pub what: &'static str,
    /// Byte range in the text.
    pub start: usize,
    pub end: usize,
}

/// A vendor prefix, the characters that may follow it and how many must.
struct Prefix {
    prefix: &'static str,
    category: Category,
    what: &'static str,
    min_tail: usize,
    tail: fn(u8) -> bool,
}

fn alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

fn alnum_underscore(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn token_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-')
}

fn upper_digit(b: u8) -> bool {
    b.is_ascii_uppercase() || b.is_ascii_digit()
}

fn bearer_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'~' | b'+' | b'/' | b'=')
}

const PREFIXES: &[Prefix] = &[
    Prefix {
        prefix: "sk_live_",
        category: Category::ApiKey,
        what: "a Stripe secret key",
        min_tail: 10,
        tail: alnum,
    },
    Prefix {
        prefix: "sk_test_",
        category: Category::ApiKey,
        what: "a Stripe secret key",
        min_tail: 10,
        tail: alnum,
    },
    Prefix {
        prefix: "rk_live_",
        category: Category::ApiKey,
        what: "a Stripe restricted key",
        min_tail: 10,
        tail: alnum,
    },
    Prefix {
        prefix: "rk_test_",
        category: Category::ApiKey,
        what: "a Stripe restricted key",
        min_tail: 10,
        tail: alnum,
    },
    Prefix {
        prefix: "whsec_",
        category: Category::ClientSecret,
        what: "a webhook signing secret",
        min_tail: 16,
        tail: alnum,
    },
    Prefix {
        prefix: "ghp_",
        category: Category::AccessToken,
        what: "a GitHub token",
        min_tail: 20,
        tail: alnum,
    },
    Prefix {
        prefix: "gho_",
        category: Category::AccessToken,
        what: "a GitHub token",
        min_tail: 20,
        tail: alnum,
    },
    Prefix {
        prefix: "ghu_",
        category: Category::AccessToken,
        what: "a GitHub token",
        min_tail: 20,
        tail: alnum,
    },
    Prefix {
        prefix: "ghs_",
        category: Category::AccessToken,
        what: "a GitHub token",
        min_tail: 20,
        tail: alnum,
    },
    Prefix {
        prefix: "ghr_",
        category: Category::AccessToken,
        what: "a GitHub token",
        min_tail: 20,
        tail: alnum,
    },
    Prefix {
        prefix: "github_pat_",
        category: Category::AccessToken,
        what: "a GitHub token",
        min_tail: 20,
        tail: alnum_underscore,
    },
    Prefix {
        prefix: "glpat-",
        category: Category::AccessToken,
        what: "a GitLab token",
        min_tail: 20,
        tail: token_char,
    },
    Prefix {
        prefix: "xoxb-",
        category: Category::AccessToken,
        what: "a Slack token",
        min_tail: 10,
        tail: token_char,
    },
    Prefix {
        prefix: "xoxp-",
        category: Category::AccessToken,
        what: "a Slack token",
        min_tail: 10,
        tail: token_char,
    },
    Prefix {
        prefix: "xoxa-",
        category: Category::AccessToken,
        what: "a Slack token",
        min_tail: 10,
        tail: token_char,
    },
    Prefix {
        prefix: "xoxs-",
        category: Category::AccessToken,
        what: "a Slack token",
        min_tail: 10,
        tail: token_char,
    },
    Prefix {
        prefix: "npm_",
        category: Category::AccessToken,
        what: "an npm token",
        min_tail: 36,
        tail: alnum,
    },
    Prefix {
        prefix: "hf_",
        category: Category::AccessToken,
        what: "a Hugging Face token",
        min_tail: 30,
        tail: alnum,
    },
    Prefix {
        prefix: "AKIA",
        category: Category::ApiKey,
        what: "an AWS access key",
        min_tail: 16,
        tail: upper_digit,
    },
    Prefix {
        prefix: "ASIA",
        category: Category::ApiKey,
        what: "an AWS access key",
        min_tail: 16,
        tail: upper_digit,
    },
    Prefix {
        prefix: "AIza",
        category: Category::ApiKey,
        what: "a Google API key",
        min_tail: 35,
        tail: token_char,
    },
    Prefix {
        prefix: "sk-",
        category: Category::ApiKey,
        what: "an OpenAI or Anthropic API key",
        min_tail: 20,
        tail: token_char,
    },
    Prefix {
        prefix: "xprv",
        category: Category::PrivateKey,
        what: "an extended private key",
        min_tail: 100,
        tail: alnum,
    },
    Prefix {
        prefix: "Bearer ",
        category: Category::AccessToken,
        what: "a bearer token",
        min_tail: 20,
        tail: bearer_char,
    },
    Prefix {
        prefix: "eyJ",
        category: Category::AccessToken,
        what: "a JSON Web Token",
        min_tail: 30,
        tail: bearer_char,
    },
];

/// Finds secret-looking values in `text`, in order.
pub(crate) fn find(text: &str, out: &mut Vec<SecretValue>) {
    let bytes = text.as_bytes();
    if bytes.len() < 13 {
        return;
    }
    let mut i = 0;
    while i < bytes.len() {
        let at_start = text.is_char_boundary(i) && (i == 0 || !token_char(bytes[i - 1]));
        if !at_start {
            i += 1;
            continue;
        }
        if let Some(found) = prefixed(bytes, i).or_else(|| pem(text, i)).or_else(|| card_number(bytes, i)) {
            i = found.end;
            out.push(found);
            continue;
        }
        i += 1;
    }
}

/// Whether `text` shows a credential inside a compound value, as a value or
/// as a template: a URL with a password (`postgres://user:password@host/db`,
/// `redis://:secret@cache`, `https://user:TOKEN@…`), a key-value pair
/// whose key names a secret (`password=…`, `Password=...;`,
/// `AWS_SECRET_ACCESS_KEY=…`, `_authToken=…`, `secret_access_key = ...`),
/// or a header line that carries one (`Authorization: Bearer ...`,
/// `X-API-Key: <key>`).
pub(crate) fn inline_credential(text: &str) -> bool {
    userinfo_url(text) || secret_assignment(text) || auth_header(text) || password_flag(text)
}

/// A command line's password option: `--password`, or `-p` together with
/// `-u` (`docker login -u ci -p …`, "the line with -u and -p"); `-p` alone
/// is often a port.
fn password_flag(text: &str) -> bool {
    let flag = |name: &str| {
        text.match_indices(name).any(|(at, _)| {
            let before = text[..at].chars().next_back();
            let after = text[at + name.len()..].chars().next();
            before.is_none_or(|c| !c.is_alphanumeric() && c != '-')
                && after.is_none_or(|c| !c.is_ascii_alphanumeric() && c != '-')
        })
    };
    let found = (text.contains("--password") && flag("--password"))
        || (text.contains("-p") && flag("-p") && flag("-u"));
    found && !flags_left_out(text)
}

/// Words that, earlier in the sentence of a password option, leave it out
/// (`without the -u and -p values`, `sin -p`, `ohne -u und -p`).
const LEAVE_OUT: &[&str] = &[
    "without",
    "except",
    "minus",
    "omit",
    "remove",
    "strip",
    "redact",
    "sin ",
    "sans ",
    "ohne ",
    "senza ",
    "zonder ",
    "utan ",
    "bez ",
    "без ",
    "sem ",
    "hariç",
    "olmadan",
    "除了",
    "不带",
    "不要",
    "없이",
    "빼고",
    "なし",
    "抜き",
    "を除",
    "بدون",
    "बिना",
];

/// Whether the sentence that holds the first password option leaves it out.
fn flags_left_out(text: &str) -> bool {
    let first = ["--password", " -p", " -u", "(-p", "(-u"].iter().filter_map(|f| text.find(f)).min();
    let Some(at) = first else { return false };
    let start = text[..at].rfind(['.', '!', '?', ';', '\n', '。', '！', '？']).map_or(0, |i| i + 1);
    let sentence = text[start..=at].to_lowercase();
    LEAVE_OUT.iter().any(|w| sentence.contains(w))
}

/// Header names that carry a credential (`Authorization: Bearer …`,
/// `X-API-Key: …`), folded like keys.
const SECRET_HEADERS: &[&str] =
    &["authorization", "xapikey", "apikey", "xauthtoken", "privatetoken", "cookie"];

/// A header line whose name carries a credential, followed by a value
/// (`-H 'Authorization: Bearer ...'`).
fn auth_header(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(at) = text[from..].find(':') {
        let colon = from + at;
        from = colon + 1;
        let value = text[colon + 1..].trim_start_matches([' ', '\t']);
        if value.is_empty()
            || !value.starts_with(|c: char| c.is_ascii_alphanumeric() || matches!(c, '$' | '<' | '.' | '{'))
        {
            continue;
        }
        let key = fold_key(&bytes[..colon]);
        if SECRET_HEADERS.iter().any(|k| key.as_slice() == k.as_bytes()) {
            return true;
        }
    }
    false
}

/// The key that ends right before byte `end` of `before`, folded to
/// lower-case letters and digits (`DB_PASSWORD` → `dbpassword`), at most
/// 32 of them.
fn fold_key(before: &[u8]) -> Vec<u8> {
    let mut key = Vec::new();
    for &b in before.iter().rev() {
        if !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')) || key.len() == 32 {
            break;
        }
        if b.is_ascii_alphanumeric() {
            key.push(b.to_ascii_lowercase());
        }
    }
    key.reverse();
    key
}

/// A URL whose user info holds a password (the user may be empty).
fn userinfo_url(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(at) = text[from..].find("://") {
        let start = from + at + 3;
        let authority = bytes[start..]
            .iter()
            .take_while(|&&b| !matches!(b, b'/' | b'?' | b'#' | b' ' | b'\n' | b'\t' | b')' | b'"'))
            .count();
        let authority = &bytes[start..start + authority];
        if let Some(user_end) = authority.iter().position(|&b| b == b'@') {
            let userinfo = &authority[..user_end];
            if let Some(colon) = userinfo.iter().position(|&b| b == b':')
                && colon + 1 < userinfo.len()
                && !masked(&userinfo[colon + 1..])
            {
                return true;
            }
        }
        from = start;
    }
    // An Oracle thin URL: `jdbc:oracle:thin:user/password@//host:1521/svc`.
    let mut from = 0;
    while let Some(at) = text[from..].find(":thin:") {
        let start = from + at + ":thin:".len();
        from = start;
        let len =
            bytes[start..].iter().take_while(|&&b| !matches!(b, b'@' | b' ' | b'\n' | b'\t' | b'"')).count();
        let userinfo = &bytes[start..start + len];
        if bytes.get(start + len) == Some(&b'@')
            && let Some(slash) = userinfo.iter().position(|&b| b == b'/')
            && slash > 0
            && slash + 1 < userinfo.len()
        {
            return true;
        }
    }
    // A Go driver's DSN: `user:password@tcp(host:3306)/db`.
    for proto in ["@tcp(", "@unix("] {
        let mut from = 0;
        while let Some(at) = text[from..].find(proto) {
            let end = from + at;
            from = end + proto.len();
            let userinfo = bytes[..end]
                .iter()
                .rev()
                .take_while(|&&b| !matches!(b, b' ' | b'\n' | b'\t' | b'"' | b'\'' | b'/' | b'('))
                .count();
            let userinfo = &bytes[end - userinfo..end];
            if let Some(colon) = userinfo.iter().position(|&b| b == b':')
                && colon > 0
                && colon + 1 < userinfo.len()
            {
                return true;
            }
        }
    }
    false
}

/// Key endings that name a secret, in a key folded to lower-case letters
/// and digits (`DB_PASSWORD` → `dbpassword`).
const SECRET_KEYS: &[&str] = &[
    "password",
    "passwd",
    "pwd",
    "secret",
    "token",
    "apikey",
    "secretkey",
    "accesskey",
    "privatekey",
    "credentials",
];
/// Short keys that name a secret only on their own (`pass=`, not `bypass=`).
const SECRET_KEYS_EXACT: &[&str] = &["pass", "pw"];

/// `key=value` (or `key = value`, as in an INI or TOML file) with a
/// non-empty value and a key that names a secret.
fn secret_assignment(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(at) = text[from..].find('=') {
        let eq = from + at;
        from = eq + 1;
        // Spaces around the sign, but on one line.
        let after = text[eq + 1..].trim_start_matches([' ', '\t']);
        // A value, or a placeholder for one (`...`, `<secret>`, `${TOKEN}`),
        // not a remark (`password= (leave it empty)`).
        let value = after.bytes().next().unwrap_or(b' ');
        // `…` is a placeholder too (`Password=…;`).
        if !(value.is_ascii_alphanumeric() || b"$<.{\"'*_-/%[".contains(&value) || after.starts_with('…')) {
            continue;
        }
        let value_len = after.find([';', ' ', '\t', '\n', '&', ',', '"', '\'']).unwrap_or(after.len());
        if masked(&after.as_bytes()[..value_len]) {
            continue;
        }
        let key_end = bytes[..eq].iter().rposition(|&b| b != b' ' && b != b'\t').map_or(0, |i| i + 1);
        let key = fold_key(&bytes[..key_end]);
        if SECRET_KEYS.iter().any(|k| key.ends_with(k.as_bytes()))
            || SECRET_KEYS_EXACT.iter().any(|k| key.as_slice() == k.as_bytes())
        {
            return true;
        }
    }
    false
}

/// A value shown masked (`***`, `••••`): the credential is left out, not asked for. A
/// placeholder (`<password>`, `${TOKEN}`, `...`) still says where it goes.
fn masked(value: &[u8]) -> bool {
    let Ok(value) = std::str::from_utf8(value) else { return false };
    value.chars().count() >= 3 && value.chars().all(|c| matches!(c, '*' | '•' | '●' | '∗'))
}

/// Quote marks, opening and closing.
const QUOTES: &[(char, char)] = &[
    ('\'', '\''),
    ('"', '"'),
    ('`', '`'),
    ('“', '”'),
    ('„', '“'),
    ('‘', '’'),
    ('«', '»'),
    ('「', '」'),
    ('『', '』'),
];

/// The byte ranges of short quoted values in `text` that could be a guess
/// at a secret (`'hunter2'`, `“Hangzhou2020”`, `「Osaka2020」`): 2 to 64
/// characters without spaces between quote marks, not a name (`'ci-bot'`,
/// `'DB_PASSWORD'`, `'prod.db'`); an apostrophe inside a word (`what's`)
/// opens nothing.
pub(crate) fn quoted_values(text: &str, out: &mut Vec<(usize, usize)>) {
    out.clear();
    let quotish = |b: u8| matches!(b, b'\'' | b'"' | b'`' | 0xC2 | 0xE2 | 0xE3);
    if !text.bytes().any(quotish) {
        return;
    }
    let mut prev: Option<char> = None;
    let mut chars = text.char_indices();
    while let Some((at, c)) = chars.next() {
        let opens = QUOTES.iter().find(|(open, _)| *open == c).map(|&(_, close)| close);
        // Only the apostrophe is ambiguous: inside a word it opens nothing.
        let apostrophe = c == '\'' && prev.is_some_and(char::is_alphanumeric);
        prev = Some(c);
        let Some(close) = opens.filter(|_| !apostrophe) else { continue };
        // French guillemets keep a space inside (`« Soleil-2020 »`).
        let pad = |s: &str| {
            if c == '«' {
                s.chars()
                    .next()
                    .filter(|&x| matches!(x, ' ' | '\u{A0}' | '\u{202F}'))
                    .map_or(0, char::len_utf8)
            } else {
                0
            }
        };
        let start = at + c.len_utf8();
        let start = start + pad(&text[start..]);
        let rest = &text[start..];
        let Some(len) = rest.find(|x: char| x == close || x.is_whitespace()) else { continue };
        let inner = rest[..len].chars().count();
        let space = pad(&rest[len..]);
        let closed = rest[len + space..].starts_with(close);
        let next = rest[len..].chars().nth(1);
        let glued = close == '\'' && next.is_some_and(|n| n.is_ascii_alphanumeric());
        if closed && (2..=64).contains(&inner) && !glued && guess_like(&rest[..len]) {
            out.push((start, start + len));
            prev = Some(close);
            let skip = rest[..len + space + close.len_utf8()].chars().count();
            for _ in 0..skip {
                chars.next();
            }
        }
    }
}

/// Whether a quoted value could be a password or a PIN rather than the name
/// of something: no path, key or host punctuation, and a hyphenated value
/// only with a digit (`Blue-Horse-7`, not `old-laptop`).
fn guess_like(value: &str) -> bool {
    !value.contains(['_', '/', '.', ':', '@', '=', '\\'])
        && (!value.contains('-') || value.bytes().any(|b| b.is_ascii_digit()))
}

fn prefixed(bytes: &[u8], at: usize) -> Option<SecretValue> {
    let rest = &bytes[at..];
    for p in PREFIXES {
        if !rest.starts_with(p.prefix.as_bytes()) {
            continue;
        }
        let tail = rest[p.prefix.len()..].iter().take_while(|&&b| (p.tail)(b)).count();
        if tail < p.min_tail {
            continue;
        }
        if p.prefix == "eyJ" && !looks_like_jwt(&rest[..p.prefix.len() + tail]) {
            continue;
        }
        return Some(SecretValue {
            category: p.category,
            what: p.what,
            start: at,
            end: at + p.prefix.len() + tail,
        });
    }
    None
}

/// `header.payload.signature`, each part non-empty base64url.
fn looks_like_jwt(value: &[u8]) -> bool {
    let mut parts = value.split(|&b| b == b'.');
    let ok = |part: Option<&[u8]>| part.is_some_and(|p| p.len() >= 4 && p.iter().all(|&b| token_char(b)));
    ok(parts.next()) && ok(parts.next()) && ok(parts.next())
}

fn pem(text: &str, at: usize) -> Option<SecretValue> {
    let rest = &text[at..];
    let header = rest.strip_prefix("-----BEGIN ")?;
    let line_end = header.find("-----")?;
    let label = &header[..line_end];
    if !label.ends_with("PRIVATE KEY") || label.len() > 40 {
        return None;
    }
    let end = at + "-----BEGIN ".len() + line_end + "-----".len();
    Some(SecretValue { category: Category::PrivateKey, what: "a PEM private key", start: at, end })
}

/// 13 to 19 digits, optionally grouped by single spaces or hyphens, that
/// pass the Luhn check and are not all one digit.
fn card_number(bytes: &[u8], at: usize) -> Option<SecretValue> {
    if !bytes[at].is_ascii_digit() {
        return None;
    }
    let mut digits = [0u8; 19];
    let mut n = 0;
    let mut i = at;
    let mut end = at;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii_digit() {
            if n == 19 {
                return None;
            }
            digits[n] = b - b'0';
            n += 1;
            i += 1;
            end = i;
        } else if (b == b' ' || b == b'-') && i + 1 < bytes.len() && bytes[i + 1].is_ascii_digit() && n > 0 {
            i += 1;
        } else {
            break;
        }
    }
    if end < bytes.len() && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'.') {
        return None;
    }
    if !(13..=19).contains(&n) || digits[..n].iter().all(|&d| d == digits[0]) {
        return None;
    }
    let sum: u32 = digits[..n]
        .iter()
        .rev()
        .enumerate()
        .map(|(k, &d)| {
            let d = u32::from(d);
            if k % 2 == 1 {
                let x = d * 2;
                if x > 9 { x - 9 } else { x }
            } else {
                d
            }
        })
        .sum();
    sum.is_multiple_of(10).then_some(SecretValue {
        category: Category::CardNumber,
        what: "a payment card number",
        start: at,
        end,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whats(text: &str) -> Vec<&'static str> {
        let mut out = Vec::new();
        find(text, &mut out);
        out.iter().map(|s| s.what).collect()
    }

    #[test]
    fn vendor_keys_pem_jwt_cards() {
        assert_eq!(whats("sk_live_4eC39HqLyjWDarjtT1zdp7dc"), ["a Stripe secret key"]);
        assert_eq!(whats("ghp_16C7e42F292c6912E7710c838347Ae178B4a"), ["a GitHub token"]);
        assert_eq!(whats("AKIAIOSFODNN7EXAMPLE"), ["an AWS access key"]);
        assert_eq!(whats("-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn"), ["a PEM private key"]);
        assert_eq!(
            whats(
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
            ),
            ["a JSON Web Token"]
        );
        assert_eq!(whats("4242 4242 4242 4242"), ["a payment card number"]);
        assert_eq!(whats("4111-1111-1111-1111"), ["a payment card number"]);
    }

    #[test]
    fn credentials_inside_values() {
        assert!(inline_credential("e.g. postgres://admin:secret@db.internal:5432/main"));
        assert!(inline_credential("(mysql://user:pass@host:3306/app)"));
        assert!(inline_credential("https://user:TOKEN@github.com/org/repo.git"));
        assert!(inline_credential("redis://:yourpassword@cache:6379/0"));
        assert!(inline_credential("jdbc:postgresql://db:5432/app?user=app&password=secret"));
        assert!(inline_credential("(Server=...;Database=...;User Id=...;Password=...;)"));
        assert!(inline_credential("the AWS_SECRET_ACCESS_KEY=... line"));
        assert!(inline_credential("//registry.npmjs.org/:_authToken=${NPM_TOKEN}"));
        assert!(!inline_credential("https://github.com/org/repo"));
        assert!(!inline_credential("http://localhost:8080/x?a=b@c"));
        assert!(!inline_credential("ssh://git@github.com/org/repo"));
        assert!(!inline_credential("redis://cache:6379/0"));
        assert!(!inline_credential("max_tokens=512, temperature=0.2"));
        assert!(!inline_credential("password= (leave it empty)"));
        assert!(!inline_credential("bypass=true"));
        // INI and TOML files, and headers.
        assert!(inline_credential("[s3-backup]\ntype = s3\nsecret_access_key = ..."));
        assert!(inline_credential("-H 'Authorization: Bearer ...'"));
        assert!(inline_credential("X-API-Key: <your key>"));
        assert!(!inline_credential("region = eu-west-1\nacl = private"));
        assert!(!inline_credential("Authorization: (leave empty)"));
        assert!(!inline_credential("Content-Type: application/json"));
    }

    #[test]
    fn quoted() {
        let spans = |text: &str| {
            let mut out = Vec::new();
            quoted_values(text, &mut out);
            out.into_iter().map(|(a, b)| text[a..b].to_owned()).collect::<Vec<_>>()
        };
        assert_eq!(spans("Is 'hunter2' your password?"), ["hunter2"]);
        assert_eq!(spans("您的密码是“Hangzhou2020”吗？"), ["Hangzhou2020"]);
        assert_eq!(spans("あなたのパスワードは「Osaka2020」ですか"), ["Osaka2020"]);
        assert_eq!(spans("비밀번호가 'Seoul2020'입니까?"), ["Seoul2020"]);
        assert_eq!(spans("What's your team's name?"), Vec::<String>::new());
        assert_eq!(spans("Type 'a long sentence' here"), Vec::<String>::new());
        assert_eq!(spans("Type \"DELETE\" or 'x'"), ["DELETE"]);
        assert_eq!(spans("Is 'ci-bot' or 'DB_PASSWORD' it? 'Blue-Horse-7'"), ["Blue-Horse-7"]);
    }

    #[test]
    fn ordinary_values() {
        assert!(whats("-----BEGIN PUBLIC KEY-----").is_empty());
        assert!(whats("4242 4242 4242 4241").is_empty());
        assert!(whats("0000 0000 0000 0000").is_empty());
        assert!(whats("task-skeleton-builder").is_empty());
        assert!(whats("order 2024-01-15 shipped").is_empty());
        assert!(whats("+1 415 555 2671 ext 12").is_empty());
    }
}
