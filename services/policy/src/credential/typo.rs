//! Typo tolerance for credential nouns.
//!
//! A Latin word of the text that is one edit (a substitution, a deletion,
//! an insertion or two neighbours swapped) away from one of a few long
//! credential nouns (`pasword`, `Passwrot`, `kontraseña`, `wachtwort`) is
//! read as that noun. Only nouns of at least [`MIN_LEN`] letters are
//! corrected, where one edit rarely lands on another word; shorter ones
//! (`senha`, `hasło`, `şifre`, `parol`) have real neighbours (`hallo`,
//! `sifir`) and are left alone, as are words that only add an ending to
//! the noun (`passwords`, `contraseñas`: the rules know them) and a few
//! real words one edit away from a noun (`parole` for `parola`, which is
//! not corrected at all: it is Italian for "word").
//!
//! A few short credential nouns (`senha`, `şifre`, `hasło`, `token`,
//! `secret`, `passwd`) are corrected for one kind of edit only, two
//! neighbours swapped (`sehna`, `sfire`, `hsalo`, `tokne`, `secert`): a
//! swap keeps every letter, and none of their swaps is a word of the 16
//! languages (`parol`, whose swap `parlo` is Italian, and `clave`, whose
//! swap `calve` is English, are left out).
//!
//! The check runs on every token of letters of a suitable length, after
//! the rest of the normalisation: nouns are bucketed by length and compared
//! byte by byte, stopping at the second difference, with no allocation.

/// The shortest noun that is corrected.
#[cfg(test)]
const MIN_LEN: usize = 6;

/// Credential nouns, normalised (lower case, diacritics folded, no spaces).
const NOUNS: &[&str] = &[
    "password",   // en
    "passwort",   // de
    "kennwort",   // de
    "passcode",   // en
    "passphrase", // en
    "contrasena", // es
    "wachtwoord", // nl
    "losenord",   // sv
    "motdepasse", // fr, written as one word
];

/// Short credential nouns, corrected only for two neighbours swapped.
const SHORT_NOUNS: &[&str] = &[
    "senha",  // pt
    "sifre",  // tr
    "haslo",  // pl
    "token",  // en and others
    "secret", // en
    "passwd", // en
];

/// Real words one edit away from a noun, which are not typos of it.
const REAL_WORDS: &[&str] = &[
    "passport",
    "kennwert",
    "ipassword",
    "passwords",
    "passcodes",
    "kennworte",
    "kennworts",
    "passworte",
    "passworts",
];

/// The noun that `word` (lower-case ASCII letters) is a one-edit typo of, if
/// any; `None` for a noun itself, a noun with an ending, and real words.
#[inline]
pub(crate) fn nearest(word: &[u8]) -> Option<&'static str> {
    let n = word.len();
    if (5..=6).contains(&n) {
        return swapped(word);
    }
    // The nouns are 8 to 10 letters long.
    if !(7..=11).contains(&n) {
        return None;
    }
    let mut best = None;
    for noun in NOUNS {
        let nb = noun.as_bytes();
        if nb.len().abs_diff(n) > 1 {
            continue;
        }
        // One edit keeps the first letter, or moves the second one there
        // (`ontrasena`, `ocntrasena`), or changes the first (`kontrasena`,
        // `kcontrasena`).
        let (w0, w1, n0, n1) = (word[0], word[1], nb[0], nb[1]);
        if w0 != n0 && w1 != n1 && w0 != n1 && w1 != n0 {
            continue;
        }
        if nb == word {
            return None;
        }
        // An ending added to the noun (`passwords`) is no typo.
        if n == nb.len() + 1 && word.starts_with(nb) {
            return None;
        }
        if best.is_none() && one_edit(word, nb) {
            best = Some(*noun);
        }
    }
    if best.is_some()
        && (!word.iter().all(u8::is_ascii_lowercase) || REAL_WORDS.iter().any(|w| w.as_bytes() == word))
    {
        return None;
    }
    best
}

/// The short noun that `word` (5 or 6 letters) spells with two neighbours
/// swapped, if any.
#[inline]
fn swapped(word: &[u8]) -> Option<&'static str> {
    SHORT_NOUNS.iter().copied().find(|noun| {
        let nb = noun.as_bytes();
        nb.len() == word.len() && {
            let i = word.iter().zip(nb).take_while(|(x, y)| x == y).count();
            i + 1 < nb.len()
                && word[i] == nb[i + 1]
                && word[i + 1] == nb[i]
                && same(&word[i + 2..], &nb[i + 2..])
        }
    })
}

/// Whether byte slices `a` and `b` are equal, without a call to `memcmp`
/// (they are a few bytes long).
#[inline]
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// Whether `a` and `b` (which differ) are one substitution, deletion,
/// insertion or adjacent transposition apart.
#[inline]
fn one_edit(a: &[u8], b: &[u8]) -> bool {
    let i = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    match a.len().cmp(&b.len()) {
        std::cmp::Ordering::Equal => {
            if i == a.len() {
                return false;
            }
            // A substitution, or two neighbours swapped.
            same(&a[i + 1..], &b[i + 1..])
                || (i + 1 < a.len() && a[i] == b[i + 1] && a[i + 1] == b[i] && same(&a[i + 2..], &b[i + 2..]))
        }
        std::cmp::Ordering::Less => same(&a[i..], &b[i + 1..]),
        std::cmp::Ordering::Greater => same(&a[i + 1..], &b[i..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fix(w: &str) -> Option<&'static str> {
        nearest(w.as_bytes())
    }

    #[test]
    fn nouns_are_long_enough() {
        // `nearest` looks only at words of 7 to 11 letters.
        for noun in NOUNS {
            assert!((MIN_LEN.max(8)..=10).contains(&noun.len()), "{noun}");
        }
    }

    #[test]
    fn typos_of_nouns() {
        assert_eq!(fix("pasword"), Some("password"));
        assert_eq!(fix("passwrod"), Some("password"));
        assert_eq!(fix("passwird"), Some("password"));
        assert_eq!(fix("passsword"), Some("password"));
        assert_eq!(fix("passwrot"), Some("passwort"));
        assert_eq!(fix("kontrasena"), Some("contrasena"));
        assert_eq!(fix("contrasna"), Some("contrasena"));
        assert_eq!(fix("wachtwoort"), Some("wachtwoord"));
        assert_eq!(fix("losenrod"), Some("losenord"));
        assert_eq!(fix("kenwort"), Some("kennwort"));
        assert_eq!(fix("pasphrase"), Some("passphrase"));
    }

    #[test]
    fn swaps_in_short_nouns() {
        assert_eq!(fix("sehna"), Some("senha"));
        assert_eq!(fix("senah"), Some("senha"));
        assert_eq!(fix("sfire"), Some("sifre"));
        assert_eq!(fix("hsalo"), Some("haslo"));
        assert_eq!(fix("tokne"), Some("token"));
        assert_eq!(fix("toekn"), Some("token"));
        assert_eq!(fix("secert"), Some("secret"));
        assert_eq!(fix("paswsd"), Some("passwd"));
        // Other edits of short nouns, and the nouns themselves, stay.
        for w in [
            "senhas", "senh", "sanha", "tokens", "taken", "toke", "secrets", "sector", "parlo", "calve",
            "hallo", "token", "senha",
        ] {
            assert_eq!(fix(w), None, "{w}");
        }
    }

    #[test]
    fn real_words_and_nouns_stay() {
        for w in [
            "password",
            "passwords",
            "passwort",
            "passport",
            "passage",
            "passwd",
            "passes",
            "passed",
            "parole",
            "parola",
            "senhor",
            "senha",
            "sifir",
            "sifre",
            "haslo",
            "hallo",
            "keyword",
            "passing",
            "barcode",
            "postcode",
            "kennwert",
            "contrasenas",
            "kennworte",
            "wachtwoorden",
            "pass",
            "code",
            "passcodes",
            "compass",
        ] {
            assert_eq!(fix(w), None, "{w}");
        }
    }
}
