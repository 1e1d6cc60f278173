//! Multi-pattern matching over normalised text.
//!
//! Every rule phrase of every language is normalised like the text it is
//! matched against and put into one of three byte tries:
//!
//! - phrases that must start at a word boundary (most Latin, Cyrillic and
//!   Devanagari phrases) are tried only where a word starts;
//! - phrases that must end at a word boundary but may start inside a word
//!   (the last part of a German or Dutch compound: `*passwort`) are stored
//!   reversed and tried backwards from where a word ends;
//! - the rest (Chinese, Japanese, Korean, Arabic) are tried at every
//!   character.
//!
//! A phrase may also require a word boundary after it, or be a stem that any
//! ending may follow. A scan of a few hundred characters walks each trie a
//! handful of bytes deep per start, so it costs a few microseconds and is
//! linear in the text.

use super::Category;
use super::normalize::{CLAUSE, Norm, SPACE};

/// What a rule phrase means when it matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Names a credential of this category.
    Term(Category, Sense),
    /// A phrase that uses a credential word in another sense (`map pin`,
    /// `postal code`, `gift card`): terms and cues it overlaps do not count.
    Blocker,
    /// A phrase in which a request verb does not ask the reader for
    /// anything (`we will send you`, `press Enter`): cues it overlaps do not
    /// count.
    NotRequest,
    /// A phrase in which a negation word means something else (Portuguese
    /// `no app`, "in the app"): negations it overlaps do not count.
    NotNegation,
    /// A word that, shortly before a term, makes it a setting or a topic
    /// rather than the credential itself (`minimum`, `reset your`).
    MetaBefore,
    /// A word that, right after a term, makes it a setting or a topic
    /// (`length`, `policy`, `manager`).
    MetaAfter,
    /// A question word that, shortly before a term, makes it a choice among
    /// things (`which API key should I revoke?`), unless a word right after
    /// the term makes it the person's own (`which password do you use?`),
    /// when it asks.
    Which,
    /// A verb that, right after a term opening a description, makes it a
    /// statement about the credential (`Credentials are managed by IT`).
    Statement,
    /// A request: a verb or question that asks the reader for something,
    /// counting if a term is at most `gap` tokens away in the same clause,
    /// after it if `before` (the cue comes first), before it if `after`.
    Cue { gap: u8, before: bool, after: bool },
    /// A negation; terms it covers (in its phrase, after it or, in
    /// verb-final languages, before it) do not count.
    Negation(Scope),
    /// Evidence about the whole request, used to settle ambiguous terms.
    Context(Context),
    /// An organisation's allow-listed term.
    Allow,
    /// A word that makes a nearby term the person's own secret rather than
    /// a setting or a topic (`current`, `is your`, `one of these`, `word
    /// #3 of`): a choice or a yes/no field labelled with it extracts the
    /// secret. With `cue`, it also asks, like a near cue reaching a few
    /// tokens on either side.
    Own { cue: bool },
    /// A word that may stand between a request and a term without counting
    /// toward the distance (a service or a kind of token: `npm`, `Stripe`,
    /// `deploy`, `production`, `restricted`), and that turns a bare `key`
    /// right before it into an API key.
    Qualifier,
    /// A possessive right next to a term (`your`, `votre`, `您的`, the
    /// Turkish `-niz`): the person's own, for a [`Kind::Property`].
    Possessive,
    /// A predicate about a value (`contains`, `is longer than`, `tiene más
    /// de`, `contient-il`): after the person's own secret (owned or
    /// possessed), it asks for a property of it.
    Property,
    /// A word that links a term to a value (`is`, `lautet`, `是否为`, `هو`,
    /// `맞는지`): with an unquoted secret-looking value next to it, in a
    /// yes/no question, a guess to confirm (`is your PIN 4821?`).
    Copula,
    /// A word that makes a clause a yes/no question without a question
    /// mark (`whether`, `ob`, `czy`, `是否`, `かどうか`).
    Whether,
    /// A request to answer (`answer`, `responda`, `ответьте на`, `답해`):
    /// it asks only for a security question next to it ([`Sense::AnswerAsked`]),
    /// a few tokens either side in the same clause, and no other cue does.
    Answer,
    /// A statement that something is needed (`hace falta el`, `vou precisar
    /// do`, `нужен`): a request like a [`Kind::Cue`] reaching a few tokens
    /// (after the term too, with `after`), but in the message only of a form
    /// that can take the value (a free-text field); `you need a token with
    /// admin rights` and a yes/no field explain, they do not ask.
    Need { after: bool },
    /// A word that, shortly before a key or a token, makes it a public one
    /// (`the public Mapbox token`, `öffentlichen`); a password or a PIN stays
    /// a secret (`the public Wi-Fi password`).
    Public,
}

/// When a term counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sense {
    /// Always (subject to the usual blockers, meta words and negations).
    Plain,
    /// Only if the request is about a payment card (`expiry date`).
    NeedsCard,
    /// Only if the request is about a one-time code (`code`).
    NeedsOtp,
    /// Not if the request is about an address or a map (`pin code` is also
    /// the Indian postal code).
    UnlessPlace,
    /// Not if the request is about a map (`pin`).
    UnlessMap,
    /// A card security code if the request is about a payment card,
    /// otherwise a one-time code (`security code`).
    CardOrOtp,
    /// A value that may carry a credential inside it (a connection string,
    /// a DSN, a database URL): only if the request says it does (a
    /// credential term next to it, or a URL template with `user:password@`).
    NeedsInline,
    /// A bare noun (`key`) that names a credential only right after a
    /// qualifier (`Stripe restricted key`, `storage account key`).
    NeedsQualifier,
    /// A file name that names a credential only written as a dotfile
    /// (`.env`, not `env`).
    NeedsDot,
    /// Not if the request is about a queue ticket (Portuguese `senha`, also
    /// the ticket one draws at a counter).
    UnlessQueue,
    /// An answer (`answer`, `réponse`, `答え`) that is a password only if a
    /// security question is discussed somewhere in the request.
    NeedsQuestion,
    /// A phrase that never asks by itself but says that a compound value
    /// next to it carries a credential (`headers and all`, `keys
    /// included`, `rclone`, whose configs hold keys by nature).
    InlineOnly,
    /// Not if the request is about taxes or an invoice (Polish `NIP`, a tax
    /// number, is a PIN in Mexican Spanish).
    UnlessTax,
    /// Not if the request is about a field in which the word has another,
    /// non-secret sense: professional `credentials` (qualifications,
    /// licensure), a musical `clave` (the clef of a score).
    UnlessOtherField,
    /// A security question (`security question`, `pergunta de segurança`,
    /// `密保问题`): its answer, a password, is asked for only by a request to
    /// answer it (`answer your security question`, `ответьте на контрольный
    /// вопрос`) or when it heads a question put to the person (`Security
    /// question: what was …?`).
    AnswerAsked,
}

/// Which way a negation reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// Terms after the negation.
    Forward,
    /// Terms before or after the negation.
    Both,
}

/// Evidence about the whole request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Context {
    /// A payment card is being talked about.
    Card,
    /// A one-time code is being talked about (sent, SMS, digits…).
    Otp,
    /// A postal address is being talked about.
    Address,
    /// A map or a location is being talked about.
    Map,
    /// A security question is being talked about.
    Question,
    /// A queue ticket is being talked about (Portuguese `senha de
    /// atendimento`, `totem`, `guichê`).
    Queue,
    /// Taxes or an invoice are being talked about (Polish `faktura`, `REGON`).
    Tax,
    /// A field in which an ambiguous credential word has another sense
    /// (`licensure`, `nursing`, `partitura`).
    OtherSense,
}

/// One rule phrase, normalised.
#[derive(Debug, Clone)]
pub(crate) struct Pattern {
    pub kind: Kind,
    /// Language code of the rule table it came from (`"custom"` for an
    /// organisation's terms).
    pub lang: &'static str,
    /// The phrase as written in the rule table.
    pub source: Box<str>,
    /// Whether a word boundary is required before and after the phrase.
    pub left: bool,
    pub right: bool,
}

/// A match of pattern `pat` at normalised bytes `start..end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Match {
    pub start: u32,
    pub end: u32,
    pub pat: u32,
    /// The pattern's kind, copied here so that reading matches stays local.
    pub kind: Kind,
}

/// All rule phrases and the tries to find them.
#[derive(Debug, Default)]
pub(crate) struct Matcher {
    /// The id of the first pattern.
    pub first_id: u32,
    pub patterns: Vec<Pattern>,
    bounded: Trie,
    suffixes: Trie,
    free: Trie,
}

/// Collects patterns, then builds the tries.
#[derive(Debug, Default)]
pub(crate) struct MatcherBuilder {
    patterns: Vec<Pattern>,
    /// Each pattern's normalised text: its range in `text`.
    texts: Vec<(u32, u32)>,
    text: String,
    norm: Norm,
}

impl MatcherBuilder {
    /// Adds a rule phrase.
    ///
    /// A leading `*` lets the phrase start inside a word and a trailing `*`
    /// lets it end inside one (a stem); a leading `^` or trailing `$`
    /// requires a boundary. Without marks, a phrase whose first (last)
    /// character is Chinese, Japanese, Korean or Arabic needs no boundary
    /// there, and any other phrase does. A phrase of several words of
    /// alphabetic scripts also matches with the words run together
    /// (`api key` matches `apikey`).
    pub(crate) fn add(&mut self, spec: &str, kind: Kind, lang: &'static str) {
        let mut body = spec;
        let mut left = None;
        let mut right = None;
        if let Some(rest) = body.strip_prefix('*') {
            body = rest;
            left = Some(false);
        } else if let Some(rest) = body.strip_prefix('^') {
            body = rest;
            left = Some(true);
        }
        if let Some(rest) = body.strip_suffix('*') {
            body = rest;
            right = Some(false);
        } else if let Some(rest) = body.strip_suffix('$') {
            body = rest;
            right = Some(true);
        }
        self.add_phrase(body, spec, left, right, kind, lang);
    }

    /// Adds an organisation's term as written (no marks; boundaries as for
    /// a built-in phrase without marks).
    pub(crate) fn add_literal(&mut self, term: &str, kind: Kind, lang: &'static str) {
        self.add_phrase(term, term, None, None, kind, lang);
    }

    fn add_phrase(
        &mut self,
        body: &str,
        spec: &str,
        left: Option<bool>,
        right: Option<bool>,
        kind: Kind,
        lang: &'static str,
    ) {
        self.norm.build(body);
        let text = &self.norm.text;
        if text.is_empty() {
            return;
        }
        let first = text.chars().next().unwrap_or(' ');
        let last = text.chars().next_back().unwrap_or(' ');
        let left = left.unwrap_or(!unspaced(first));
        let right = right.unwrap_or(!unspaced(last));
        let spaced = text.bytes().any(|b| b == SPACE || b == CLAUSE);
        let joinable = spaced && !text.chars().any(unspaced);
        let source: Box<str> = spec.into();
        let pattern = Pattern { kind, lang, source, left, right };
        if joinable {
            let start = self.text.len() as u32;
            self.text.extend(text.chars().filter(|&c| c != SPACE as char && c != CLAUSE as char));
            self.texts.push((start, self.text.len() as u32));
            self.patterns.push(pattern.clone());
        }
        let start = self.text.len() as u32;
        self.text.extend(text.chars().map(|c| if c == CLAUSE as char { SPACE as char } else { c }));
        self.texts.push((start, self.text.len() as u32));
        self.patterns.push(pattern);
    }

    /// Builds the tries; pattern ids start at `first_id`, so that matches of
    /// several matchers can share one list.
    pub(crate) fn build(self, first_id: u32) -> Matcher {
        let mut bounded = TrieBuilder::default();
        let mut suffixes = TrieBuilder::default();
        let mut free = TrieBuilder::default();
        for (i, (&(from, to), pattern)) in self.texts.iter().zip(&self.patterns).enumerate() {
            let text = &self.text[from as usize..to as usize];
            let out = Out { pat: first_id + i as u32, right: pattern.right, kind: pattern.kind };
            if pattern.left {
                bounded.insert(text.bytes(), out);
            } else if pattern.right {
                suffixes.insert(text.bytes().rev(), out);
            } else {
                free.insert(text.bytes(), out);
            }
        }
        Matcher {
            first_id,
            patterns: self.patterns,
            bounded: bounded.build(),
            suffixes: suffixes.build(),
            free: free.build(),
        }
    }
}

/// Characters of scripts written without spaces between words, or with
/// affixes glued to words (Arabic): phrases in them need no boundaries.
fn unspaced(c: char) -> bool {
    matches!(c,
        '\u{0600}'..='\u{06FF}'
        | '\u{3040}'..='\u{30FF}'
        | '\u{3400}'..='\u{4DBF}'
        | '\u{4E00}'..='\u{9FFF}'
        | '\u{F900}'..='\u{FAFF}'
        | '\u{AC00}'..='\u{D7AF}'
    )
}

/// Whether a word boundary lies at byte `pos` of normalised `text`: at
/// either end, next to a separator, or between a digit and a non-digit.
#[inline]
pub(crate) fn boundary(text: &[u8], pos: usize) -> bool {
    if pos == 0 || pos >= text.len() {
        return true;
    }
    let (before, after) = (text[pos - 1], text[pos]);
    before == SPACE
        || before == CLAUSE
        || after == SPACE
        || after == CLAUSE
        || before.is_ascii_digit() != after.is_ascii_digit()
}

impl Matcher {
    /// Finds every pattern in normalised `text`, appending to `out`.
    pub(crate) fn scan(&self, text: &str, out: &mut Vec<Match>) {
        let bytes = text.as_bytes();
        for start in 0..bytes.len() {
            let b = bytes[start];
            let at_boundary = boundary(bytes, start);
            if at_boundary && start > 0 && bytes[start - 1] != SPACE && bytes[start - 1] != CLAUSE {
                // A word (or a run of letters or digits) ends here.
                self.suffixes.walk_back(bytes, start, &mut |begin: usize, o: Out| {
                    out.push(Match { start: begin as u32, end: start as u32, pat: o.pat, kind: o.kind });
                });
            }
            if b == SPACE || b == CLAUSE || b & 0xC0 == 0x80 {
                continue;
            }
            let mut found = |end: usize, o: Out| {
                if !o.right || boundary(bytes, end) {
                    out.push(Match { start: start as u32, end: end as u32, pat: o.pat, kind: o.kind });
                }
            };
            if at_boundary && self.bounded.starts_with(b) {
                self.bounded.walk(bytes, start, &mut found);
            }
            if self.free.starts_with(b) {
                self.free.walk(bytes, start, &mut found);
            }
        }
        if bytes.last().is_some_and(|&b| b != SPACE && b != CLAUSE) {
            self.suffixes.walk_back(bytes, bytes.len(), &mut |begin: usize, o: Out| {
                out.push(Match { start: begin as u32, end: bytes.len() as u32, pat: o.pat, kind: o.kind });
            });
        }
    }
}

const NONE: u32 = u32::MAX;

/// A pattern ending at a trie node, and whether it needs a boundary after.
#[derive(Debug, Clone, Copy)]
struct Out {
    pat: u32,
    right: bool,
    kind: Kind,
}

/// Nodes with at least this many children get a dense child table.
const DENSE_FANOUT: usize = 12;

/// A trie node: 12 bytes, laid out breadth-first so that the shallow nodes,
/// where most walks end, share a few cache lines.
#[derive(Debug, Clone, Copy, Default)]
struct Node {
    /// Index of the first child in `edge_bytes`/`edge_nodes`, or of the
    /// node's dense child table if `dense`.
    edges: u32,
    /// Index of the first output in `outs`.
    outs: u32,
    edge_len: u16,
    out_len: u8,
    dense: bool,
}

/// A byte trie, flattened breadth-first: each node's children sorted by
/// byte, dense child tables for the root and for nodes with many children.
#[derive(Debug)]
struct Trie {
    root: Box<[u32; 256]>,
    nodes: Vec<Node>,
    edge_bytes: Vec<u8>,
    edge_nodes: Vec<u32>,
    dense: Vec<[u32; 256]>,
    outs: Vec<Out>,
}

impl Default for Trie {
    fn default() -> Self {
        Self {
            root: Box::new([NONE; 256]),
            nodes: Vec::new(),
            edge_bytes: Vec::new(),
            edge_nodes: Vec::new(),
            dense: Vec::new(),
            outs: Vec::new(),
        }
    }
}

impl Trie {
    /// Whether some pattern starts with byte `b`.
    #[inline]
    fn starts_with(&self, b: u8) -> bool {
        self.root[b as usize] != NONE
    }

    #[inline]
    fn child(&self, n: &Node, b: u8) -> u32 {
        if n.dense {
            return self.dense[n.edges as usize][b as usize];
        }
        let start = n.edges as usize;
        let bytes = &self.edge_bytes[start..start + n.edge_len as usize];
        match bytes.iter().position(|&eb| eb >= b) {
            Some(i) if bytes[i] == b => self.edge_nodes[start + i],
            _ => NONE,
        }
    }

    #[inline]
    fn outs(&self, n: &Node) -> &[Out] {
        &self.outs[n.outs as usize..n.outs as usize + n.out_len as usize]
    }

    /// Calls `found(end, out)` for every pattern that starts at `start`.
    #[inline]
    fn walk(&self, bytes: &[u8], start: usize, found: &mut impl FnMut(usize, Out)) {
        let mut node = self.root[bytes[start] as usize];
        let mut at = start + 1;
        while node != NONE {
            let n = self.nodes[node as usize];
            if n.out_len > 0 {
                for &o in self.outs(&n) {
                    found(at, o);
                }
            }
            if at == bytes.len() || n.edge_len == 0 {
                break;
            }
            node = self.child(&n, bytes[at]);
            at += 1;
        }
    }

    /// Calls `found(start, out)` for every reversed pattern that ends at
    /// `end`, walking backwards.
    #[inline]
    fn walk_back(&self, bytes: &[u8], end: usize, found: &mut impl FnMut(usize, Out)) {
        let mut at = end - 1;
        let mut node = self.root[bytes[at] as usize];
        while node != NONE {
            let n = self.nodes[node as usize];
            if n.out_len > 0 {
                for &o in self.outs(&n) {
                    found(at, o);
                }
            }
            if at == 0 || n.edge_len == 0 {
                break;
            }
            at -= 1;
            node = self.child(&n, bytes[at]);
        }
    }
}

/// Collects a trie's phrases; [`TrieBuilder::build`] sorts them and builds
/// the trie in one pass, without an allocation per node.
#[derive(Default)]
struct TrieBuilder {
    /// The phrases' bytes, one after another.
    bytes: Vec<u8>,
    /// Each phrase: its range in `bytes`, and its output.
    entries: Vec<(u32, u32, Out)>,
}

/// A node while the trie is built: its byte, first child and next sibling
/// (children in byte order), and its outputs, a range of the sorted list.
struct BuildNode {
    byte: u8,
    first: u32,
    last: u32,
    next: u32,
    outs: u32,
    out_len: u32,
}

impl BuildNode {
    fn new(byte: u8) -> Self {
        Self { byte, first: NONE, last: NONE, next: NONE, outs: 0, out_len: 0 }
    }
}

impl TrieBuilder {
    fn insert(&mut self, text: impl Iterator<Item = u8>, out: Out) {
        let start = self.bytes.len() as u32;
        self.bytes.extend(text);
        self.entries.push((start, self.bytes.len() as u32, out));
    }

    fn build(mut self) -> Trie {
        let mut trie = Trie::default();
        let bytes = &self.bytes;
        let text = |e: &(u32, u32, Out)| &bytes[e.0 as usize..e.1 as usize];
        // Sorted (a phrase's outputs in the order they were added, which is
        // their pattern ids'), phrases that share a prefix are neighbours, so
        // each phrase only adds the nodes past its common prefix with the
        // one before.
        self.entries.sort_unstable_by(|a, b| text(a).cmp(text(b)).then(a.2.pat.cmp(&b.2.pat)));
        let mut nodes = vec![BuildNode::new(0)];
        let mut outs: Vec<Out> = Vec::with_capacity(self.entries.len());
        // `path[i]`: the node of the previous phrase's first `i` bytes.
        let mut path: Vec<u32> = vec![0];
        let mut prev: &[u8] = &[];
        for e in &self.entries {
            let t = text(e);
            if t.is_empty() {
                continue;
            }
            let common = t.iter().zip(prev).take_while(|(a, b)| a == b).count();
            path.truncate(common + 1);
            for &b in &t[common..] {
                let parent = *path.last().unwrap_or(&0) as usize;
                let child = nodes.len() as u32;
                nodes.push(BuildNode::new(b));
                match nodes[parent].last {
                    NONE => nodes[parent].first = child,
                    last => nodes[last as usize].next = child,
                }
                nodes[parent].last = child;
                path.push(child);
            }
            prev = t;
            let node = &mut nodes[*path.last().unwrap_or(&0) as usize];
            if node.out_len == 0 {
                node.outs = outs.len() as u32;
            }
            // The same phrase, boundaries and kind from another table (or
            // twice in one) is one output.
            let have = &outs[node.outs as usize..(node.outs + node.out_len) as usize];
            if !have.iter().any(|o| o.right == e.2.right && o.kind == e.2.kind) {
                outs.push(e.2);
                node.out_len += 1;
            }
        }
        let children = |n: &BuildNode| {
            std::iter::successors((n.first != NONE).then_some(n.first), |&c| {
                let next = nodes[c as usize].next;
                (next != NONE).then_some(next)
            })
        };
        // Breadth-first order, without the root (which is the dense table).
        let mut order: Vec<u32> = children(&nodes[0]).collect();
        let mut i = 0;
        while i < order.len() {
            order.extend(children(&nodes[order[i] as usize]));
            i += 1;
        }
        let mut new_index = vec![NONE; nodes.len()];
        for (new, &old) in order.iter().enumerate() {
            new_index[old as usize] = new as u32;
        }
        trie.nodes.reserve(order.len());
        trie.outs.reserve(outs.len());
        for &old in &order {
            let n = &nodes[old as usize];
            let fanout = children(n).count();
            let dense = fanout >= DENSE_FANOUT;
            let edges = if dense {
                let mut table = [NONE; 256];
                for c in children(n) {
                    table[nodes[c as usize].byte as usize] = new_index[c as usize];
                }
                trie.dense.push(table);
                trie.dense.len() as u32 - 1
            } else {
                let start = trie.edge_bytes.len() as u32;
                for c in children(n) {
                    trie.edge_bytes.push(nodes[c as usize].byte);
                    trie.edge_nodes.push(new_index[c as usize]);
                }
                start
            };
            trie.nodes.push(Node {
                edges,
                outs: trie.outs.len() as u32,
                edge_len: fanout as u16,
                out_len: u8::try_from(n.out_len).expect("at most 255 patterns per phrase"),
                dense,
            });
            trie.outs.extend_from_slice(&outs[n.outs as usize..(n.outs + n.out_len) as usize]);
        }
        for c in children(&nodes[0]) {
            trie.root[nodes[c as usize].byte as usize] = new_index[c as usize];
        }
        trie
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matcher(specs: &[&str]) -> Matcher {
        let mut b = MatcherBuilder::default();
        for s in specs {
            b.add(s, Kind::Blocker, "en");
        }
        b.build(0)
    }

    fn found(m: &Matcher, text: &str) -> Vec<String> {
        let mut n = Norm::default();
        n.build(text);
        let mut out = Vec::new();
        m.scan(&n.text, &mut out);
        out.iter().map(|x| n.text[x.start as usize..x.end as usize].to_owned()).collect()
    }

    #[test]
    fn boundaries_stems_and_joins() {
        let m = matcher(&["api key", "pin", "парол*", "*passwort", "密码"]);
        assert_eq!(found(&m, "X-API-KEY"), ["api key"]);
        assert_eq!(found(&m, "apikey"), ["apikey"]);
        assert_eq!(found(&m, "pin1 spin pinned"), ["pin"]);
        assert_eq!(found(&m, "Введите пароль"), ["парол"]);
        assert_eq!(found(&m, "Kontopasswort Passwortlänge"), ["passwort"]);
        assert_eq!(found(&m, "请输入密码"), ["密码"]);
    }
}
