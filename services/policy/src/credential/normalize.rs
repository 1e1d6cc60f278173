//! Text normalisation for the credential-ask detector.
//!
//! Every text the detector reads (and every rule term it knows) goes through
//! [`Norm::build`], so rules and text meet in one spelling:
//!
//! - full-width ASCII (`ｐａｓｓｗｏｒｄ`) becomes ASCII and half-width katakana
//!   full-width, a kana's voicing mark joins the kana before it, whether it
//!   is a separate one (`ﾊﾟｽﾜｰﾄﾞ`, `ハ゜`) or a combining one (`ハ\u{309A}`),
//!   so all read `パスワード`; invisible characters
//!   (zero-width spaces and joiners, soft hyphens, combining marks, Arabic
//!   tashkeel and tatweel, the Devanagari nukta) are dropped;
//! - Unicode lower-casing, then Latin diacritics are folded (`contraseña` →
//!   `contrasena`, `şifre` → `sifre`, `ß` → `ss`), `ё` → `е`, Arabic alef
//!   variants, `ة` and `ى` are unified, and non-ASCII digits become ASCII;
//! - the text is cut into tokens: runs of letters and digits, split at
//!   camel-case humps (`apiKey` → `api key`) and where the script changes
//!   between Chinese/Japanese, Korean and everything else (`API密钥` → `api
//!   密钥`). Everything else separates tokens, so `api_key`, `api-key`,
//!   `x-api-key` and `API Key` all read `api key`;
//! - in a token that holds Latin letters, leetspeak is folded (`p4ssw0rd` →
//!   `password`: `4`/`@` → a, `3` → e, `1` → i, `0` → o, `5`/`$` → s, `7` →
//!   t), except for a trailing run of digits (`pin1` stays `pin1`) and a
//!   number with a short ending (`1st`, `4th`), and
//!   Cyrillic and Greek look-alikes become Latin (`pаssword` with a Cyrillic
//!   `а`, `ρassword` with a Greek `ρ`);
//! - tokens are joined by one space, or by `|` where a clause ends (`.`, but
//!   not an ordinal's, as in `4. Wort`; `?`, `!`, `;`, parentheses and
//!   braces, dashes, line breaks and their CJK, Arabic and Devanagari forms),
//!   so that no rule matches across a clause; square brackets only separate
//!   tokens, as in a config section name (`the [default] profile`). A
//!   quotation is part of the sentence around it: corner brackets that close
//!   on the same line (`秘密の質問「母親の旧姓は？」の答え`) and punctuation at a
//!   quotation's edge (`'Summer2023!'`, `«¿Cómo se llamaba?»`) end no
//!   clause;
//! - a word spelled out letter by letter (`p a s s w o r d`, `p-a-s-s`,
//!   `p.w.d`, `M o t   d e   p a s s e`, `비 밀 번 호`) becomes one token (see
//!   [`Norm::join_spelled`]);
//! - a Latin word one edit away from a long credential noun (`pasword`,
//!   `Passwrot`, `kontraseña`) becomes that noun (see [`super::typo`]);
//! - the dot of a few abbreviations (`inkl.`, `incl.`, `np.`) ends no clause.
//!
//! The normalised text keeps, for each of its bytes, where it came from in
//! the original (to quote the matched text) and which token it belongs to
//! (to measure how far apart two matches are).

use super::typo;

/// Separator between two tokens of the same clause.
pub(crate) const SPACE: u8 = b' ';
/// Separator between two clauses.
pub(crate) const CLAUSE: u8 = b'|';
/// How many letters spelled out one by one make a word (three when they are
/// joined by dots, hyphens or underscores: `p.w.d`, `p_i_n`; two or three
/// Chinese, Japanese or Korean characters, see [`Norm::join_spelled`]).
const SPELLED_MIN: usize = 4;
/// How many one-character tokens in a row are worth a look.
const SPELLED_TRIGGER: u8 = 2;

/// One token of a normalised text.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Token {
    /// Clause number: clauses end at sentence punctuation, parentheses,
    /// dashes and line breaks.
    pub clause: u32,
    /// Phrase number: phrases also end at commas.
    pub phrase: u32,
    /// Whether the token is a run of Chinese or Japanese, which are written
    /// without spaces: distances inside it are counted in characters.
    pub dense: bool,
    /// Whether the token follows a dot that starts a word, as a dotfile's
    /// name does (`.env`, `~/.npmrc`).
    pub dotted: bool,
}

/// A normalised text; see the module documentation.
#[derive(Debug, Default)]
pub(crate) struct Norm {
    /// The normalised text.
    pub text: String,
    /// For each byte of `text`: the byte offset, in the original, of the
    /// character it came from. Separators point at the next token's start.
    pub orig: Vec<u32>,
    /// For each byte of `text`: the index of its token in `tokens`.
    /// Separators belong to the token after them.
    pub tok: Vec<u32>,
    /// The tokens, in order.
    pub tokens: Vec<Token>,
    /// Whether the text holds a quote mark (so that quoted values are worth
    /// looking for).
    pub quotes: bool,
    /// Scratch for re-folding a token: (character, original offset).
    buf: Vec<(char, u32)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Script {
    /// Han, hiragana, katakana: written without spaces.
    Dense,
    /// Hangul.
    Hangul,
    /// Everything else.
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Pending {
    None,
    Space,
    Comma,
    Clause,
}

enum Class {
    Word(Script),
    Separator,
    Comma,
    ClauseEnd,
}

impl Norm {
    /// Normalises `src` into `self`, reusing its buffers.
    pub(crate) fn build(&mut self, src: &str) {
        self.text.clear();
        self.orig.clear();
        self.tok.clear();
        self.tokens.clear();
        self.quotes = false;
        self.text.reserve(src.len() + 16);
        self.orig.reserve(src.len() + 16);
        self.tok.reserve(src.len() + 16);

        let mut st = Builder::default();
        let mut prev: Option<char> = None;
        let mut chars = src.char_indices().peekable();
        while let Some((off, raw)) = chars.next() {
            let c = fold_width(raw);
            // A kana voicing mark, combining or not (half-width `ﾊﾟｽﾜｰﾄﾞ`,
            // decomposed `ハ\u{309A}`), joins the kana before it.
            if let Some(semi) = voicing_mark(c) {
                if st.in_token && st.script == Script::Dense {
                    self.voice_last(semi);
                }
                continue;
            }
            if is_ignorable(c) {
                continue;
            }
            let next = chars.peek().map(|&(_, n)| fold_width(n));
            // A quotation is part of the sentence around it: corner brackets
            // that close soon, and punctuation at a quotation's edge
            // (`'Summer2023!'`, `«¿Cómo se llamaba…?»`), end no clause.
            let class = match c {
                _ if c.is_ascii_alphanumeric() => Class::Word(Script::Other),
                '「' | '『' if closes_soon(&src[off + c.len_utf8()..], c) => {
                    st.bracket = true;
                    Class::Separator
                }
                '」' | '』' if st.bracket => {
                    st.bracket = false;
                    Class::Separator
                }
                // A count in parentheses is part of the phrase around it
                // (`Kurtarma ifadenizi (12 kelime) girin`, `復元フレーズ（12単語）を`),
                // and so is one word glossing the word before it (`tu clave
                // (contraseña) aquí`, `暗号（ぱすわーど）を`) or a name of two or
                // three capitalised words (`접속 문자열(JDBC URL)을`).
                '(' | '（'
                    if counts_soon(&src[off + raw.len_utf8()..])
                        || glosses_soon(&src[off + raw.len_utf8()..]) =>
                {
                    st.paren = true;
                    Class::Separator
                }
                ')' | '）' if st.paren => {
                    st.paren = false;
                    Class::Separator
                }
                '!' | '?' | '…' | '。' | '！' | '？' if next.is_some_and(closes_quote) => {
                    Class::Separator
                }
                '¿' | '¡' if prev.is_some_and(opens_quote) => Class::Separator,
                _ => classify(c, prev, next),
            };
            match class {
                Class::Word(script) => {
                    if st.in_token && (script != st.script || camel_hump(prev, c, next)) {
                        self.end_token(&mut st);
                    }
                    if !st.in_token {
                        self.start_token(&mut st, script, off as u32);
                    }
                    self.push_char(&mut st, c, off as u32);
                }
                Class::Separator => {
                    self.end_token(&mut st);
                    st.pending = st.pending.max(Pending::Space);
                    self.quotes |= is_quote(c);
                    st.dot = c == '.' && prev.is_none_or(|p| !p.is_alphanumeric());
                }
                Class::Comma => {
                    self.end_token(&mut st);
                    st.pending = st.pending.max(Pending::Comma);
                    st.singles = 0;
                    st.dot = false;
                }
                // The dot of an ordinal (`4. Wort`, `9. słowo`) ends no clause.
                Class::ClauseEnd
                    if c == '.' && st.in_token && (self.ordinal_number(&st) || self.abbreviation(&st)) =>
                {
                    self.end_token(&mut st);
                    st.pending = st.pending.max(Pending::Space);
                }
                Class::ClauseEnd => {
                    self.end_token(&mut st);
                    st.pending = Pending::Clause;
                    st.singles = 0;
                    st.dot = false;
                    self.quotes |= is_quote(c);
                }
            }
            prev = Some(c);
        }
        self.end_token(&mut st);
        if st.spelled {
            self.join_spelled(src);
        }
    }

    /// Joins words spelled out letter by letter: a run of one-character
    /// tokens of one phrase and one script, a few separators apart in the
    /// original, becomes one token (folded like any other, typos
    /// included) when it is long enough:
    ///
    /// - at least [`SPELLED_MIN`] Latin letters or digits (`p a s s w o r
    ///   d`, `P-A-S-S`), or three letters joined by single dots, hyphens or
    ///   underscores (`p.w.d`, `p_w_d`; not `e.g.`); where the separators
    ///   of a run differ, it is split into words where another than its
    ///   most common one stands (`M o t   d e   p a s s e` → `mot de passe`,
    ///   `a s-e-n-h-a` → `a senha`);
    /// - at least three Korean syllables (`비 밀 번 호`) or two Chinese or
    ///   Japanese characters (`密 码`, `パ ス`), one space apart.
    fn join_spelled(&mut self, src: &str) {
        let n = self.tokens.len();
        let bytes = self.text.as_bytes();
        // Start byte of each token: separators belong to the token after them.
        let mut starts = Vec::with_capacity(n);
        starts.push(0usize);
        starts.extend((0..bytes.len()).filter(|&i| bytes[i] == SPACE || bytes[i] == CLAUSE).map(|i| i + 1));
        let end_of = |i: usize| starts.get(i + 1).map_or(bytes.len(), |&s| s - 1);
        // The script of a one-character token (0 Latin or digit, 1 Chinese or
        // Japanese, 2 Korean), or `None`.
        let single = |i: usize| {
            let t = &self.text[starts[i]..end_of(i)];
            let mut cs = t.chars();
            let c = cs.next()?;
            if cs.next().is_some() {
                return None;
            }
            match script_of(c) {
                _ if c.is_ascii_alphanumeric() => Some(0u8),
                Script::Dense => Some(1),
                Script::Hangul => Some(2),
                Script::Other => None,
            }
        };
        // How many original bytes separate token `i - 1` from token `i`, and
        // whether they are a single dot, hyphen or underscore.
        let sep = |i: usize| {
            let prev = self.orig[starts[i - 1]] as usize;
            let width = src[prev..].chars().next().map_or(1, char::len_utf8);
            let from = prev + width;
            let to = (self.orig[starts[i]] as usize).max(from);
            &src[from..to]
        };
        let mut runs = Vec::new();
        let mut i = 0;
        while i < n {
            let Some(script) = single(i) else {
                i += 1;
                continue;
            };
            let mut j = i + 1;
            let mut gaps: Vec<&str> = Vec::new();
            while j < n
                && bytes[starts[j] - 1] == SPACE
                && self.tokens[j].phrase == self.tokens[j - 1].phrase
                && single(j) == Some(script)
            {
                let g = sep(j);
                let limit = if script == 0 { 5 } else { 1 };
                if g.is_empty() || g.len() > limit {
                    break;
                }
                gaps.push(g);
                j += 1;
            }
            // Korean puts its particle on the last syllable (`비.밀.번.호를`,
            // `비 밀 번 호를`): a word of Hangul right after three spelled
            // syllables, with the same separator, ends the spelling.
            if script == 2 && j - i >= 3 && j < n && bytes[starts[j] - 1] == SPACE {
                let g = sep(j);
                let word = &self.text[starts[j]..end_of(j)];
                if self.tokens[j].phrase == self.tokens[j - 1].phrase
                    && gaps.iter().all(|h| *h == g)
                    && word.chars().all(|c| script_of(c) == Script::Hangul)
                {
                    gaps.push(g);
                    j += 1;
                }
            }
            // The separator that spells the word: the most common one. A
            // wider run of spaces splits words (`M o t   d e   p a s s e`);
            // another separator ends the spelling (`o -p e o`, `a s-e-n-h-a`).
            let spelling = gaps.iter().copied().max_by_key(|g| gaps.iter().filter(|h| *h == g).count());
            let blank = |g: &str| g.bytes().all(|b| b == b' ');
            let soft = |g: &str| spelling.is_some_and(|sp| blank(sp) && blank(g) && g.len() > sp.len());
            let mut group = i;
            for k in i..j {
                let last = k + 1 == j;
                if !last && (Some(gaps[k - i]) == spelling || soft(gaps[k - i])) {
                    continue;
                }
                // Tokens `group..=k` are spelled with one separator.
                let (from, to) = (group, k + 1);
                group = k + 1;
                let count = to - from;
                let inner = &gaps[from - i..to - 1 - i];
                let joined = !inner.is_empty() && inner.iter().all(|g| matches!(*g, "." | "-" | "_"));
                let long_enough = match script {
                    0 => {
                        count >= SPELLED_MIN
                            || (count >= 3
                                && joined
                                && (from..to).all(|t| !bytes[starts[t]].is_ascii_digit()))
                    }
                    1 => count >= 2,
                    _ => count >= 3,
                };
                if !long_enough {
                    continue;
                }
                let mut start = from;
                for (t, g) in inner.iter().enumerate() {
                    if soft(g) {
                        runs.push((start, from + t + 1));
                        start = from + t + 1;
                    }
                }
                runs.push((start, to));
            }
            i = j;
        }
        if runs.is_empty() {
            return;
        }
        let text = std::mem::take(&mut self.text);
        let orig = std::mem::take(&mut self.orig);
        let tokens = std::mem::take(&mut self.tokens);
        self.tok.clear();
        let mut buf = std::mem::take(&mut self.buf);
        let mut runs = runs.into_iter().peekable();
        let mut t = 0;
        while t < n {
            let run = runs.next_if(|&(a, _)| a == t);
            let last = run.map_or(t + 1, |(_, b)| b);
            let index = self.tokens.len() as u32;
            if t > 0 {
                self.text.push(text.as_bytes()[starts[t] - 1] as char);
                self.orig.push(orig[starts[t] - 1]);
                self.tok.push(index);
            }
            self.tokens.push(tokens[t]);
            buf.clear();
            for k in t..last {
                let end = starts.get(k + 1).map_or(text.len(), |&s| s - 1);
                let from = starts[k];
                for (off, c) in text[from..end].char_indices() {
                    buf.push((c, orig[from + off]));
                }
            }
            if run.is_some() {
                fold_token(&mut buf);
                let word: String = buf.iter().map(|&(c, _)| c).collect();
                if let Some(noun) = typo::nearest(word.as_bytes()) {
                    let last = buf.len() - 1;
                    let origs: Vec<u32> = buf.iter().map(|&(_, o)| o).collect();
                    buf.clear();
                    buf.extend(noun.chars().enumerate().map(|(k, c)| (c, origs[k.min(last)])));
                }
            }
            for &(c, off) in &buf {
                self.text.push(c);
                for _ in 0..c.len_utf8() {
                    self.orig.push(off);
                    self.tok.push(index);
                }
            }
            t = last;
        }
        self.buf = buf;
    }

    /// Whether the current token is an abbreviation whose dot ends no
    /// clause (`inkl.`, `incl.`, `etc.`, `np.`, `vb.`).
    fn abbreviation(&self, st: &Builder) -> bool {
        const ABBREVIATIONS: &[&str] = &[
            "inkl",
            "incl",
            "bzw",
            "ggf",
            "evtl",
            "vgl",
            "usw",
            "approx",
            "ej",
            "vs",
            "resp",
            "np",
            "tj",
            "itd",
            "wg",
            "vb",
            "orn",
            "ecc",
            "cf",
            "inkluzive",
            "bijv",
            "bv",
            "dvs",
            "osv",
            "напр",
            "вкл",
        ];
        let token = &self.text[st.token_start..];
        ABBREVIATIONS.contains(&token)
    }

    /// Whether the current token is a number of one or two digits.
    fn ordinal_number(&self, st: &Builder) -> bool {
        let token = &self.text.as_bytes()[st.token_start..];
        (1..=2).contains(&token.len()) && token.iter().all(u8::is_ascii_digit)
    }

    /// Starts a token: writes the separator before it.
    fn start_token(&mut self, st: &mut Builder, script: Script, off: u32) {
        let index = self.tokens.len() as u32;
        if !self.text.is_empty() {
            match st.pending {
                Pending::Clause => {
                    st.clause += 1;
                    st.phrase += 1;
                }
                Pending::Comma => st.phrase += 1,
                Pending::None | Pending::Space => {}
            }
            let sep = if st.pending == Pending::Clause { CLAUSE } else { SPACE };
            self.text.push(sep as char);
            self.orig.push(off);
            self.tok.push(index);
        }
        st.pending = Pending::None;
        self.tokens.push(Token {
            clause: st.clause,
            phrase: st.phrase,
            dense: script == Script::Dense,
            dotted: std::mem::take(&mut st.dot),
        });
        *st = Builder { in_token: true, script, token_start: self.text.len(), ..*st };
    }

    /// Lower-cases and folds one character onto the current token.
    #[inline]
    fn push_char(&mut self, st: &mut Builder, c: char, off: u32) {
        let index = self.tokens.len() as u32 - 1;
        if c.is_ascii() {
            let l = c.to_ascii_lowercase();
            st.latin |= l.is_ascii_alphabetic();
            st.leet |= is_leet(l);
            self.text.push(l);
            self.orig.push(off);
            self.tok.push(index);
            return;
        }
        st.cyrillic |= is_cyrillic(c);
        for l in c.to_lowercase() {
            let (a, b) = match fold_char(l) {
                Folded::One(x) => (x, None),
                Folded::Two(x, y) => (x, Some(y)),
                Folded::Drop => continue,
            };
            for x in std::iter::once(a).chain(b) {
                st.latin |= x.is_ascii_alphabetic();
                st.leet |= is_leet(x);
                self.text.push(x);
                for _ in 0..x.len_utf8() {
                    self.orig.push(off);
                    self.tok.push(index);
                }
            }
        }
    }

    /// Gives the kana that ends the text its voiced (`カ` → `ガ`) or, with
    /// `semi`, semi-voiced (`ハ` → `パ`) form, if it has one.
    fn voice_last(&mut self, semi: bool) {
        let Some(last) = self.text.chars().next_back() else {
            return;
        };
        if let Some(voiced) = voiced_kana(last, semi) {
            // Both are three bytes long: `orig` and `tok` stay as they are.
            self.text.pop();
            self.text.push(voiced);
        }
    }

    /// Ends the current token; folds leetspeak and look-alikes in it.
    #[inline]
    fn end_token(&mut self, st: &mut Builder) {
        if !st.in_token {
            return;
        }
        st.in_token = false;
        let len = self.text.len() - st.token_start;
        let single = match st.script {
            Script::Other => len == 1 && self.text.as_bytes()[st.token_start].is_ascii_alphanumeric(),
            // One character of three bytes.
            Script::Dense | Script::Hangul => len == 3,
        };
        st.singles = if single { st.singles.saturating_add(1) } else { 0 };
        st.spelled |= st.singles >= SPELLED_TRIGGER;
        if st.script == Script::Other && st.latin {
            if st.leet || st.cyrillic {
                self.refold(st.token_start);
            }
            if (5..=11).contains(&(self.text.len() - st.token_start))
                && let Some(noun) = typo::nearest(&self.text.as_bytes()[st.token_start..])
            {
                self.replace_token(st.token_start, noun);
            }
        }
    }

    /// Rewrites the token that starts at byte `start` as `word` (ASCII), its
    /// bytes pointing at the original characters in order (the last one for
    /// any extra byte).
    fn replace_token(&mut self, start: usize, word: &str) {
        let old = self.text.len() - start;
        let index = self.tokens.len() as u32 - 1;
        let origs: [u32; 16] = std::array::from_fn(|i| self.orig[start + i.min(old - 1)]);
        self.text.truncate(start);
        self.orig.truncate(start);
        self.tok.truncate(start);
        for (i, c) in word.chars().enumerate() {
            self.text.push(c);
            self.orig.push(origs[i.min(15)]);
            self.tok.push(index);
        }
    }

    /// Rewrites the token that starts at byte `start` with [`fold_token`].
    fn refold(&mut self, start: usize) {
        let index = self.tokens.len() as u32 - 1;
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        let mut byte = start;
        for c in self.text[start..].chars() {
            buf.push((c, self.orig[byte]));
            byte += c.len_utf8();
        }
        fold_token(&mut buf);
        self.text.truncate(start);
        self.orig.truncate(start);
        self.tok.truncate(start);
        for &(c, off) in &buf {
            self.text.push(c);
            for _ in 0..c.len_utf8() {
                self.orig.push(off);
                self.tok.push(index);
            }
        }
        self.buf = buf;
    }

    /// The original byte range of the normalised byte range `start..end`.
    pub(crate) fn original_range(&self, original: &str, start: usize, end: usize) -> (usize, usize) {
        let from = self.orig[start] as usize;
        let last = self.orig[end - 1] as usize;
        let to = last + original[last..].chars().next().map_or(0, char::len_utf8);
        (from, to)
    }
}

#[derive(Clone, Copy)]
struct Builder {
    pending: Pending,
    clause: u32,
    phrase: u32,
    in_token: bool,
    /// How many one-character tokens in a row end here, and whether a run
    /// long enough to be a spelled-out word was seen.
    singles: u8,
    spelled: bool,
    /// Whether the last character was a dot starting a word.
    dot: bool,
    /// Whether a corner bracket (`「`) that closes soon is open.
    bracket: bool,
    /// Whether a parenthesised count (`(12 words)`) is open.
    paren: bool,
    script: Script,
    /// Byte offset in the text where the current token starts.
    token_start: usize,
    /// What the current token holds.
    latin: bool,
    leet: bool,
    cyrillic: bool,
}

impl Default for Builder {
    fn default() -> Self {
        Self {
            pending: Pending::None,
            clause: 0,
            phrase: 0,
            in_token: false,
            singles: 0,
            spelled: false,
            dot: false,
            bracket: false,
            paren: false,
            script: Script::Other,
            token_start: 0,
            latin: false,
            leet: false,
            cyrillic: false,
        }
    }
}

#[inline]
fn is_leet(c: char) -> bool {
    matches!(c, '0' | '1' | '3' | '4' | '5' | '7' | '@' | '$')
}

/// Cyrillic, and the Greek letters that look like Latin ones.
#[inline]
fn is_cyrillic(c: char) -> bool {
    ('\u{0400}'..='\u{04FF}').contains(&c)
        || matches!(c, 'ԁ' | 'α' | 'ε' | 'ι' | 'κ' | 'ν' | 'ο' | 'ρ' | 'τ' | 'υ' | 'χ')
}

/// Full-width ASCII forms and the ideographic space, as ASCII; half-width
/// katakana and punctuation, as full-width (their sound marks as the
/// combining ones, see [`voicing_mark`]).
#[inline]
fn fold_width(c: char) -> char {
    if c.is_ascii() {
        return c;
    }
    match c {
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
        '\u{3000}' => ' ',
        '\u{FF61}'..='\u{FF9F}' => HALF_WIDTH_KANA[(c as u32 - 0xFF61) as usize],
        _ => c,
    }
}

/// U+FF61 to U+FF9F (`｡` … `ﾝ`, `ﾞ`, `ﾟ`) in their full-width forms.
const HALF_WIDTH_KANA: [char; 63] = [
    '。', '「', '」', '、', '・', 'ヲ', 'ァ', 'ィ', 'ゥ', 'ェ', 'ォ', 'ャ', 'ュ', 'ョ', 'ッ', 'ー', 'ア',
    'イ', 'ウ', 'エ', 'オ', 'カ', 'キ', 'ク', 'ケ', 'コ', 'サ', 'シ', 'ス', 'セ', 'ソ', 'タ', 'チ', 'ツ',
    'テ', 'ト', 'ナ', 'ニ', 'ヌ', 'ネ', 'ノ', 'ハ', 'ヒ', 'フ', 'ヘ', 'ホ', 'マ', 'ミ', 'ム', 'メ', 'モ',
    'ヤ', 'ユ', 'ヨ', 'ラ', 'リ', 'ル', 'レ', 'ロ', 'ワ', 'ン', '\u{3099}', '\u{309A}',
];

/// Whether `c` is a kana voicing mark, combining (U+3099) or spacing (`゛`),
/// or a semi-voicing one (U+309A, `゜`): `Some(true)` for the latter.
#[inline]
fn voicing_mark(c: char) -> Option<bool> {
    match c {
        '\u{3099}' | '\u{309B}' => Some(false),
        '\u{309A}' | '\u{309C}' => Some(true),
        _ => None,
    }
}

/// The voiced (or, with `semi`, semi-voiced) form of a hiragana or
/// katakana: `カ` → `ガ`, `ハ` → `バ` or `パ`, `ウ` → `ヴ`.
fn voiced_kana(c: char, semi: bool) -> Option<char> {
    let code = c as u32;
    let (kata, hiragana) = match code {
        0x3041..=0x3096 => (code + 0x60, true),
        0x30A1..=0x30F6 => (code, false),
        _ => return None,
    };
    let voiced = match kata {
        // カ to ヂ: the plain ones are odd; ツ, テ, ト even.
        0x30AB..=0x30C1 if kata % 2 == 1 && !semi => kata + 1,
        0x30C4..=0x30C8 if kata % 2 == 0 && !semi => kata + 1,
        // ハ, ヒ, フ, ヘ, ホ.
        0x30CF..=0x30DB if (kata - 0x30CF) % 3 == 0 => kata + if semi { 2 } else { 1 },
        0x30A6 if !semi => 0x30F4,
        _ => return None,
    };
    char::from_u32(if hiragana { voiced - 0x60 } else { voiced })
}

/// Quote marks (see [`super::secrets::quoted_values`]).
#[inline]
pub(crate) fn is_quote(c: char) -> bool {
    matches!(c, '\'' | '"' | '`' | '“' | '”' | '„' | '‘' | '’' | '«' | '»' | '「' | '」' | '『' | '』')
}

/// Marks that close a quotation.
#[inline]
fn closes_quote(c: char) -> bool {
    matches!(c, '\'' | '"' | '’' | '”' | '“' | '»' | '」' | '』')
}

/// Marks that open a quotation.
#[inline]
fn opens_quote(c: char) -> bool {
    matches!(c, '\'' | '"' | '‘' | '“' | '„' | '«' | '「' | '『')
}

/// Whether the corner bracket `open` is closed within a short stretch of
/// `rest`, on the same line.
fn closes_soon(rest: &str, open: char) -> bool {
    let close = if open == '「' { '」' } else { '』' };
    rest.chars().take(64).take_while(|&c| c != '\n').any(|c| c == close)
}

/// Whether `rest`, right after an opening parenthesis, is one word of
/// letters, closed (`contraseña)`, `ぱすわーど）`), or two or three words
/// that each start with a capital, a name (`JDBC URL)`, `Connection
/// String)`).
fn glosses_soon(rest: &str) -> bool {
    let Some(close) = rest.char_indices().take(24).find(|&(_, c)| c == ')' || c == '）').map(|(i, _)| i)
    else {
        return false;
    };
    let inner = &rest[..close];
    if !inner.is_empty() && inner.chars().all(|c| c.is_alphabetic() || c == 'ー') {
        return true;
    }
    let words = inner.split(' ');
    (2..=3).contains(&words.clone().count())
        && words.into_iter().all(|w| {
            w.starts_with(|c: char| c.is_ascii_uppercase()) && w.chars().all(|c| c.is_ascii_alphabetic())
        })
}

/// Whether `rest`, right after an opening parenthesis, is a number and at
/// most one short word, closed (`12 kelime)`, `24 words)`, `12単語）`).
fn counts_soon(rest: &str) -> bool {
    let Some(close) = rest.char_indices().take(16).find(|&(_, c)| c == ')' || c == '）').map(|(i, _)| i)
    else {
        return false;
    };
    let inner = rest[..close].trim();
    let digits = inner.chars().take_while(char::is_ascii_digit).count();
    (1..=2).contains(&digits)
        && inner[digits..].chars().all(|c| c.is_alphanumeric() || c == ' ')
        && inner[digits..].split_whitespace().count() <= 1
}

/// Characters that are dropped without separating anything.
#[inline]
fn is_ignorable(c: char) -> bool {
    !c.is_ascii()
        && matches!(c,
            '\u{00AD}' | '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}'
            | '\u{0300}'..='\u{036F}'               // combining diacritical marks
            | '\u{0640}'                            // Arabic tatweel
            | '\u{064B}'..='\u{065F}' | '\u{0670}'  // Arabic tashkeel
            | '\u{093C}'                            // Devanagari nukta
            | '\u{3099}' | '\u{309A}'               // combining kana voicing marks
        )
}

fn script_of(c: char) -> Script {
    match c {
        '\u{3040}'..='\u{30FF}'
        | '\u{31F0}'..='\u{31FF}'
        | '\u{3400}'..='\u{4DBF}'
        | '\u{4E00}'..='\u{9FFF}'
        | '\u{F900}'..='\u{FAFF}'
        | '\u{FF66}'..='\u{FF9F}'
        | '\u{3005}' => Script::Dense,
        '\u{AC00}'..='\u{D7AF}' | '\u{1100}'..='\u{11FF}' | '\u{3130}'..='\u{318F}' => Script::Hangul,
        _ => Script::Other,
    }
}

#[inline]
fn classify(c: char, prev: Option<char>, next: Option<char>) -> Class {
    if c.is_ascii_alphanumeric() {
        return Class::Word(Script::Other);
    }
    if c == ' ' {
        return Class::Separator;
    }
    match c {
        '@' | '$' => {
            // Part of a word when next to one: `p@ss`, `pa$$word`.
            let wordy =
                |o: Option<char>| o.is_some_and(|x| x.is_ascii_alphanumeric() || x == '@' || x == '$');
            if wordy(prev) || wordy(next) { Class::Word(Script::Other) } else { Class::Separator }
        }
        '.' | '…' => {
            if next.is_none_or(|n| n.is_whitespace()) {
                Class::ClauseEnd
            } else {
                Class::Separator
            }
        }
        ',' | '，' | '،' => Class::Comma,
        // A spaced em dash is often a copula (`ваше
        // кодовое слово — одно из этих?`), not a break.
        '—' if prev == Some(' ') && next == Some(' ') => Class::Separator,
        '!' | '?' | ';' | '(' | ')' | '{' | '}' | '\n' | '\r' | '—' | '–' | '•' | '|' | '¿' | '¡' | '。'
        | '！' | '？' | '；' | '（' | '）' | '「' | '」' | '『' | '』' | '【' | '】' | '؛' | '؟' | '।'
        | '॥' => Class::ClauseEnd,
        '\u{0900}'..='\u{0963}' | '\u{0966}'..='\u{097F}' => Class::Word(Script::Other),
        _ if c.is_alphanumeric() => Class::Word(script_of(c)),
        _ => Class::Separator,
    }
}

/// A camel-case hump: `apiKey` (lower → upper) or `APIKey` (the last capital
/// of a run that is followed by a lower-case letter).
#[inline]
fn camel_hump(prev: Option<char>, c: char, next: Option<char>) -> bool {
    let Some(prev) = prev else { return false };
    if c.is_ascii_lowercase() || c.is_ascii_digit() || !c.is_uppercase() {
        return false;
    }
    prev.is_lowercase() || (prev.is_uppercase() && next.is_some_and(char::is_lowercase))
}

enum Folded {
    One(char),
    Two(char, char),
    Drop,
}

/// Folds a lower-case character: Latin diacritics and ordinal indicators
/// (`nº` → `no`), Cyrillic `ё`, Arabic letter variants, Devanagari nukta
/// letters, non-ASCII digits.
fn fold_char(c: char) -> Folded {
    use Folded::{Drop, One, Two};
    let one = match c {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ă' | 'ą' => 'a',
        'æ' => return Two('a', 'e'),
        'ç' | 'ć' | 'ĉ' | 'ċ' | 'č' => 'c',
        'ď' | 'đ' | 'ð' => 'd',
        'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ĕ' | 'ė' | 'ę' | 'ě' => 'e',
        'ĝ' | 'ğ' | 'ġ' | 'ģ' => 'g',
        'ĥ' | 'ħ' => 'h',
        'ì' | 'í' | 'î' | 'ï' | 'ĩ' | 'ī' | 'ĭ' | 'į' | 'ı' => 'i',
        'ĵ' => 'j',
        'ķ' => 'k',
        'ĺ' | 'ļ' | 'ľ' | 'ŀ' | 'ł' => 'l',
        'ñ' | 'ń' | 'ņ' | 'ň' => 'n',
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' | 'ŏ' | 'ő' => 'o',
        'œ' => return Two('o', 'e'),
        'ŕ' | 'ŗ' | 'ř' => 'r',
        'ś' | 'ŝ' | 'ş' | 'š' | 'ș' => 's',
        'ß' => return Two('s', 's'),
        'ţ' | 'ť' | 'ŧ' | 'ț' => 't',
        'ù' | 'ú' | 'û' | 'ü' | 'ũ' | 'ū' | 'ŭ' | 'ů' | 'ű' | 'ų' => 'u',
        'ŵ' => 'w',
        'ý' | 'ÿ' | 'ŷ' => 'y',
        'ź' | 'ż' | 'ž' => 'z',
        'ё' => 'е',
        'º' => 'o',
        'ª' => 'a',
        'أ' | 'إ' | 'آ' | 'ٱ' => 'ا',
        'ة' => 'ه',
        'ى' => 'ي',
        '\u{0958}' => 'क',
        '\u{0959}' => 'ख',
        '\u{095A}' => 'ग',
        '\u{095B}' => 'ज',
        '\u{095C}' => 'ड',
        '\u{095D}' => 'ढ',
        '\u{095E}' => 'फ',
        '\u{095F}' => 'य',
        '\u{0660}'..='\u{0669}' => digit(c as u32 - 0x0660),
        '\u{06F0}'..='\u{06F9}' => digit(c as u32 - 0x06F0),
        '\u{0966}'..='\u{096F}' => digit(c as u32 - 0x0966),
        '\u{0300}'..='\u{036F}' => return Drop,
        _ => c,
    };
    One(one)
}

fn digit(d: u32) -> char {
    char::from_digit(d, 10).unwrap_or('0')
}

/// Leetspeak and Cyrillic (or Greek) look-alikes, in a token holding Latin
/// letters.
fn fold_token(buf: &mut [(char, u32)]) {
    let (mut latin, mut cyrillic, mut leet) = (false, false, false);
    for &(c, _) in buf.iter() {
        latin |= c.is_ascii_alphabetic();
        cyrillic |= is_cyrillic(c);
        leet |= is_leet(c);
    }
    if !latin || !(cyrillic || leet) {
        return;
    }
    if cyrillic {
        fold_lookalikes(buf);
    }
    if leet {
        fold_leet(buf);
    }
}

/// Cyrillic (and Greek) letters that look like Latin ones, in a token of
/// Latin letters.
fn fold_lookalikes(buf: &mut [(char, u32)]) {
    for (c, _) in buf.iter_mut() {
        *c = match *c {
            'а' => 'a',
            'е' => 'e',
            'о' => 'o',
            'р' => 'p',
            'с' => 'c',
            'у' => 'y',
            'х' => 'x',
            'к' => 'k',
            'і' => 'i',
            'ј' => 'j',
            'ѕ' => 's',
            'ԁ' => 'd',
            'һ' => 'h',
            'α' => 'a',
            'ε' => 'e',
            'ι' => 'i',
            'κ' => 'k',
            'ν' => 'v',
            'ο' => 'o',
            'ρ' => 'p',
            'τ' => 't',
            'υ' => 'u',
            'χ' => 'x',
            other => other,
        };
    }
}

/// Leetspeak, except in a trailing run of digits and in a number with a
/// short ending (`1st`, `4th`, `12e`, `2fa`). A single trailing digit is
/// folded too when the word is leetspeak before it, with at least two
/// letters and a folded digit (`s3nh4` → `senha`, `c0ntr4s3ñ4`, `ş1fr3`;
/// not `pin1`, `mp3`, `passw0rd12`).
fn fold_leet(buf: &mut [(char, u32)]) {
    let mut core = buf.len();
    while core > 0 && buf[core - 1].0.is_ascii_digit() {
        core -= 1;
    }
    if core + 1 == buf.len()
        && is_leet(buf[core].0)
        && buf[..core].iter().filter(|(c, _)| c.is_alphabetic()).count() >= 2
        && buf[1..core].iter().any(|(c, _)| c.is_ascii_digit() && is_leet(*c))
    {
        core += 1;
    }
    let digits = buf.iter().take_while(|(c, _)| c.is_ascii_digit()).count();
    if digits > 0 && buf.len() - digits <= 3 && buf[digits..].iter().all(|(c, _)| c.is_ascii_alphabetic()) {
        return;
    }
    for (c, _) in &mut buf[..core] {
        *c = match *c {
            '0' => 'o',
            '1' => 'i',
            '3' => 'e',
            '4' | '@' => 'a',
            '5' | '$' => 's',
            '7' => 't',
            other => other,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(s: &str) -> String {
        let mut n = Norm::default();
        n.build(s);
        n.text
    }

    #[test]
    fn separators_and_case() {
        assert_eq!(norm("api_key"), "api key");
        assert_eq!(norm("x-api-key"), "x api key");
        assert_eq!(norm("apiKey"), "api key");
        assert_eq!(norm("APIKey"), "api key");
        assert_eq!(norm("X-API-KEY"), "x api key");
        assert_eq!(norm("API密钥"), "api 密钥");
        assert_eq!(norm("ＰＡＳＳＷＯＲＤ"), "password");
        assert_eq!(norm("Contraseña"), "contrasena");
        assert_eq!(norm("Şifrenizi"), "sifrenizi");
        assert_eq!(norm("İstanbul"), "istanbul");
        assert_eq!(norm("Straße"), "strasse");
        assert_eq!(norm("pass\u{200B}word"), "password");
    }

    #[test]
    fn leetspeak() {
        assert_eq!(norm("p4ssw0rd"), "password");
        assert_eq!(norm("P@$$w0rd"), "password");
        assert_eq!(norm("pin1"), "pin1");
        assert_eq!(norm("passw0rd123"), "password123");
        assert_eq!(norm("s3nh4 c0ntr4s3ñ4 ş1fr3 cl4v3"), "senha contrasena sifre clave");
        assert_eq!(norm("mp3 h264 covid19 pin1 v2 4dm1n 0800"), "mp3 h264 covid19 pin1 v2 admin 0800");
        assert_eq!(norm("2fa"), "2fa");
        assert_eq!(norm("1st 4th 3rd 4dmin"), "1st 4th 3rd admin");
        assert_eq!(norm("$100"), "$100");
        assert_eq!(norm("costs $ 5"), "costs 5");
        assert_eq!(norm("pаssword"), "password");
        assert_eq!(norm("ρassword"), "password");
    }

    #[test]
    fn spelled_out_words() {
        assert_eq!(norm("your p a s s w o r d now"), "your password now");
        assert_eq!(norm("P-A-S-S-W-0-R-D"), "password");
        assert_eq!(norm("plan a b c"), "plan a b c");
        assert_eq!(norm("a, b, c, d"), "a b c d");
        let mut n = Norm::default();
        n.build("xx p a s s yy");
        assert_eq!(n.text, "xx pass yy");
        assert_eq!(n.tokens.len(), 3);
        assert_eq!(n.tok, [0, 0, 1, 1, 1, 1, 1, 2, 2, 2]);
        assert_eq!(&n.orig[3..7], [3, 5, 7, 9]);
    }

    #[test]
    fn spelled_with_dots_gaps_and_scripts() {
        assert_eq!(norm("p.w.d"), "pwd");
        assert_eq!(norm("P_I_N"), "pin");
        assert_eq!(norm("K-e-n-n-w-o-r-t"), "kennwort");
        assert_eq!(norm("e.g. this"), "e g|this");
        assert_eq!(norm("v1.2.3"), "v1 2 3");
        assert_eq!(norm("M o t   d e   p a s s e"), "mot de passe");
        assert_eq!(norm("Digite a s-e-n-h-a"), "digite a senha");
        assert_eq!(norm("com o -p e o valor"), "com o p e o valor");
        assert_eq!(norm("비 밀 번 호"), "비밀번호");
        assert_eq!(norm("비.밀.번.호를 입력"), "비밀번호를 입력");
        assert_eq!(norm("비 밀 번 호를 입력"), "비밀번호를 입력");
        assert_eq!(norm("할 수 있는"), "할 수 있는");
        assert_eq!(norm("할 수 있는"), "할 수 있는");
        assert_eq!(norm("密 码"), "密码");
        assert_eq!(norm("p a s w o r d"), "password");
    }

    #[test]
    fn typos_of_credential_nouns() {
        assert_eq!(norm("Your pasword, please"), "your password please");
        assert_eq!(norm("Passwrot"), "passwort");
        assert_eq!(norm("Kontraseña"), "contrasena");
        assert_eq!(norm("p4sword"), "password");
        assert_eq!(norm("passport passage passwd"), "passport passage passwd");
        let mut n = Norm::default();
        n.build("a pasword b");
        assert_eq!(n.text, "a password b");
        assert_eq!(n.tok.len(), n.text.len());
        assert_eq!(n.orig.len(), n.text.len());
        assert_eq!(n.orig[2..10], [2, 3, 4, 5, 6, 7, 8, 8]);
    }

    #[test]
    fn abbreviations_end_no_clause() {
        assert_eq!(norm("mail (inkl. Passwörter) und"), "mail|inkl passworter|und");
        assert_eq!(norm("Ende. Dann"), "ende|dann");
    }

    #[test]
    fn half_width_kana_and_sound_marks() {
        assert_eq!(norm("ﾊﾟｽﾜｰﾄﾞ"), "パスワード");
        assert_eq!(norm("ﾊ\u{309A}スワート\u{3099}"), "パスワード");
        assert_eq!(norm("ハ゜スワート゛"), "パスワード");
        assert_eq!(norm("ｱﾝｼｮｳﾊﾞﾝｺﾞｳ"), "アンショウバンゴウ");
        assert_eq!(norm("ぱすわーと\u{3099}"), "ぱすわーど");
        assert_eq!(norm("ｳﾞｨ"), "ヴィ");
        // A mark that follows nothing it can voice is dropped.
        assert_eq!(norm("ア\u{3099}"), "ア");
    }

    #[test]
    fn clauses() {
        let mut n = Norm::default();
        n.build("Never share it. Enter your password, then the PIN");
        assert_eq!(n.text, "never share it|enter your password then the pin");
        assert_eq!(n.tokens[2].clause, 0);
        assert_eq!(n.tokens[3].clause, 1);
        assert_ne!(n.tokens[5].phrase, n.tokens[6].phrase);
        assert_eq!(norm("v1.2 e.g. x"), "v1 2 e g|x");
        assert_eq!(norm("das 4. Wort. Dann"), "das 4 wort|dann");
        // A quotation is part of the sentence around it.
        assert_eq!(norm("Is 'Summer2023!' still it?"), "is summer2023 still it");
        assert_eq!(norm("Le «¿Cómo se llamaba?» x"), "le como se llamaba x");
        assert_eq!(norm("秘密の質問「母親の旧姓は？」の答え"), "秘密の質問 母親の旧姓は の答え");
        assert_eq!(norm("未「完"), "未|完");
        // One word in parentheses glosses the word before it.
        assert_eq!(norm("tu clave (contraseña) aquí"), "tu clave contrasena aqui");
        assert_eq!(norm("la clave (ver abajo) aquí"), "la clave|ver abajo|aqui");
        // So does a name of two or three capitalised words.
        assert_eq!(norm("접속 문자열(JDBC URL)을"), "접속 문자열 jdbc url 을");
        assert_eq!(norm("the URL (Not Here Please Now) x"), "the url|not here please now|x");
        let mut n = Norm::default();
        n.build("the .env and file.env, ~/.npmrc");
        let dotted: Vec<bool> = n.tokens.iter().map(|t| t.dotted).collect();
        assert_eq!(dotted, [false, true, false, false, false, true]);
    }
}
