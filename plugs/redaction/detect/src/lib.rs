//! Secret detection in one pass over the text, without regexes.
//!
//! The text is read as *words* (runs of bytes that can appear in a token).
//! Each word long enough to hold a secret is dispatched on its first bytes
//! (and on the bytes after `=`, `:`, `/`, `@`, `,` inside it) to the few
//! formats that can start there; a word that may be the name of a secret
//! (`password:`, `"api_key" =`, `Bearer`) has what follows it read as its
//! value. Operator literals are found in a pass of their own (`memmem`, which
//! looks for their rarest bytes first). The same code runs natively and in the plug, which is
//! what the benchmark compares.
//!
//! The families live in their own modules: [`tokens`] (vendor prefixes such as
//! `ghp_`, `AKIA`, `xoxb-`, JWTs), [`assignments`] (`KEY=value`, `"key":
//! "value"`, headers, `.netrc`, flags), [`urls`] (credentials in URLs,
//! webhooks) and [`private_keys`] (PEM, PuTTY, keys in other encodings). A
//! key block whose lines a tool decorated (a CI log's timestamps, `cat -A`'s
//! `$`, line numbers, a table's borders) is read through them
//! ([`decorations`]).
//!
//! What is deliberately left alone (the README has the list): values that
//! only name or refer to a secret (`$TOKEN`, `${{ secrets.X }}`,
//! `os.environ["X"]`, `<your-token>`), public keys and certificates, and
//! random-looking strings nothing says are secret: git SHAs, UUIDs, `sha512-…`
//! integrity hashes, base64 data.

mod ansi;
mod assignments;
mod decode;
mod decorations;
mod layouts;
mod placeholders;
mod private_keys;
mod repeats;
mod token_mask;
mod tokens;
mod urls;
mod viewers;
mod words;
mod wraps;

#[cfg(test)]
mod tests;

use std::borrow::Cow;

/// The kind of the mark the scan leaves where it met an ESC byte (never
/// returned).
const ESCAPE: &str = "\x1b";

/// A secret found in a text: bytes `start..end`, of `kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    pub start: usize,
    pub end: usize,
    pub kind: &'static str,
}

/// Most bytes a non-final chunk may hold back waiting for its next chunk:
/// room for a whole private key block ([`MAX_PEM`]) with the line before it.
pub const MAX_HOLD: usize = 32 << 10;

pub use private_keys::MAX_PEM;
pub use repeats::{Learned, Seen};
pub use tokens::public_by_design;

/// Words shorter than this are never secrets (literals and the names of
/// secrets, `pwd:`, are matched apart).
const MIN_WORD: usize = 8;

// How far back from a chunk's cut a `key = value` or URL whose value
// reaches the cut is looked for (past the longest value read).
use assignments::OPEN_LOOKBACK;

const fn token_table() -> [bool; 256] {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'_' | b'-' | b'+' | b'/' | b'=' | b'.' | b':' | b'@' | b'%' | b'~' | b','
            );
        c += 1;
    }
    t
}

/// Bytes that can be part of a token-like word.
pub(crate) static TOKEN: [bool; 256] = token_table();

/// Longest match of an operator's pattern that is masked: a stream holds
/// this much back when patterns are configured, so a match cut in two is
/// still found.
pub const MAX_PATTERN_MATCH: usize = 1 << 10;

/// An operator's pattern: masked as `[REDACTED:name]`.
#[derive(Debug, Clone)]
pub struct Pattern {
    pub name: &'static str,
    pub regex: regex::Regex,
}

/// Finds and masks secrets: well-known formats and the operator's literals.
#[derive(Debug, Clone)]
pub struct Redactor {
    /// One searcher per literal: it looks for the literal's rarest bytes
    /// first (vectorized natively and in wasm), where a search by first
    /// byte would stop at every common letter.
    literals: Vec<memchr::memmem::Finder<'static>>,
    patterns: Vec<Pattern>,
}

impl Redactor {
    pub fn new(literals: &[String]) -> Redactor {
        let literals = literals
            .iter()
            .filter(|l| !l.is_empty())
            .map(|l| memchr::memmem::Finder::new(l.as_bytes()).into_owned())
            .collect();
        Redactor {
            literals,
            patterns: Vec::new(),
        }
    }

    /// Also masks what the operator's patterns match (at most
    /// [`MAX_PATTERN_MATCH`] bytes per match).
    pub fn with_patterns(mut self, patterns: Vec<Pattern>) -> Redactor {
        self.patterns = patterns;
        self
    }

    /// The text with every secret replaced by `[REDACTED:kind]`; borrowed
    /// when there is nothing to mask.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        Self::masked(text, &self.find(text))
    }

    /// [`Redactor::redact`] in a session: values `seen` in earlier entries
    /// are masked wherever they come back, and what this text teaches is
    /// remembered.
    pub fn redact_knowing<'a>(&self, text: &'a str, seen: &mut Seen) -> Cow<'a, str> {
        let (found, learned) = self.find_after(text, 0..text.len(), seen);
        seen.learn(learned);
        Self::masked(text, &found)
    }

    /// `text` with `found` (its finds) masked; borrowed when there are none.
    fn masked<'a>(text: &'a str, found: &[Found]) -> Cow<'a, str> {
        if found.is_empty() {
            Cow::Borrowed(text)
        } else {
            Cow::Owned(Self::mask_after(text, 0, found))
        }
    }

    /// `text` from byte `from` on with `found` (finds in all of `text`)
    /// masked; the text before `from` was only read, as the context of what
    /// follows (a stream's earlier chunks).
    pub fn mask_after(text: &str, from: usize, found: &[Found]) -> String {
        let mut out = String::with_capacity(text.len() - from);
        let mut last = from;
        for &f in found {
            if f.end <= from {
                continue;
            }
            out.push_str(&text[last..f.start.max(from)]);
            out.push_str("[REDACTED:");
            out.push_str(f.kind);
            out.push(']');
            last = f.end;
        }
        out.push_str(&text[last..]);
        out
    }

    /// Every secret in the text, in order, not overlapping, each on char
    /// boundaries.
    pub fn find(&self, text: &str) -> Vec<Found> {
        self.find_after(text, 0..text.len(), &Seen::default()).0
    }

    /// [`Redactor::find`] with what earlier text taught (`seen`): copies of
    /// a value found before are found too ([`repeats`]). Also what this text
    /// teaches, from its finds that end in `sent` (a stream sends those
    /// bytes now: the text before them is context, taught already, and a
    /// find past them may be a secret's first part), for [`Seen::learn`].
    pub fn find_after(
        &self,
        text: &str,
        sent: std::ops::Range<usize>,
        seen: &Seen,
    ) -> (Vec<Found>, Learned) {
        Self::with_repeats(text, self.find_fresh(text), sent, seen)
    }

    /// The finds of `text` alone, before the session's values are looked
    /// for: what [`Redactor::with_repeats`] completes. A stream that tries
    /// several cuts of one text reads it once.
    pub fn find_fresh(&self, text: &str) -> Vec<Found> {
        self.find_at_depth(text, 0)
    }

    /// `found` ([`Redactor::find_fresh`]'s finds in `text`) with the copies
    /// of what `seen` knows and of what `found` teaches in `sent` (see
    /// [`Redactor::find_after`]).
    pub fn with_repeats(
        text: &str,
        found: Vec<Found>,
        sent: std::ops::Range<usize>,
        seen: &Seen,
    ) -> (Vec<Found>, Learned) {
        let learned = seen.taught(text, &found, sent);
        if seen.is_empty() && learned.is_empty() {
            return (found, learned);
        }
        let copies = seen.copies(text, &learned);
        if copies.is_empty() {
            return (found, learned);
        }
        let mut all = found;
        all.extend(copies);
        (resolve_overlaps(all), learned)
    }

    /// [`Redactor::find`] in text with terminal escape sequences: read
    /// without them (colour codes between a name and its value, inside a
    /// token) and as it is (what a sequence would swallow from the reading
    /// without it, an OSC title, `ESC [` before a token's first letter, is
    /// still text that leaves the runner); masked where either finds
    /// something, at the bytes it came from.
    #[inline(never)]
    fn find_through_colours(&self, text: &str, mut raw: Vec<Found>) -> Vec<Found> {
        // A value made of escape sequences (`"\x1b[0m\x1b[1;39m,` after a
        // quote) is no secret: what the raw reading finds must hold text.
        // (Read on char boundaries: these finds are not widened yet, and a
        // value cut at its longest, 4 KiB, may end inside a character.)
        raw.retain(|f| {
            let (start, end) = (
                text.floor_char_boundary(f.start),
                text.ceil_char_boundary(f.end),
            );
            f.kind != ESCAPE
                && ansi::strip(&text[start..end])
                    .is_none_or(|(t, _)| t.bytes().filter(u8::is_ascii_alphanumeric).count() >= 4)
        });
        if let Some((plain, map)) = ansi::strip(text) {
            raw.extend(self.find_at_depth(&plain, 0).into_iter().map(|f| Found {
                start: map[f.start] as usize,
                end: map[f.end - 1] as usize + 1,
                kind: f.kind,
            }));
        }
        raw
    }

    /// [`Redactor::find`] in text decoded `depth` times already.
    fn find_at_depth(&self, text: &str, depth: u8) -> Vec<Found> {
        self.find_reading(text, depth, true)
    }

    /// [`Redactor::find_at_depth`] in lines a viewer's decorations were
    /// taken off: not read through them again.
    fn find_plain(&self, text: &str, depth: u8) -> Vec<Found> {
        self.find_reading(text, depth, false)
    }

    /// The finds in `text`; `viewers`: also in its runs of lines a viewer
    /// decorated, read without the decorations (`viewers`).
    fn find_reading(&self, text: &str, depth: u8, viewers: bool) -> Vec<Found> {
        let b = text.as_bytes();
        let mut found = Vec::new();
        self.literals_in(b, &mut found);
        let mut words = words::Words::new(b);
        // Where the last word that may be a table's rule (`----+----`,
        // `-----`) ended: a cell is looked up under a header only near one.
        let mut rule_end = None;
        while let Some((start, end, mut class)) = words.next_word() {
            if assignments::columns::may_be_rule(b, start, end) {
                rule_end = Some(end);
            }
            if assignments::call_arguments::may_be(b, start) {
                assignments::call_arguments::at_argument(b, start, end, &mut found);
            }
            if assignments::call_arguments::may_open_call(b, start) {
                assignments::call_arguments::at_first_argument(b, start, &mut found);
            }
            if end - start >= MIN_WORD {
                word(b, start, end, &mut found);
                if assignments::command_lines::may_be_user_command(b, start, end) {
                    assignments::command_lines::at_user_command(b, start, end, &mut found);
                }
                if assignments::setting_commands::may_read_stdin(b, start, end) {
                    assignments::setting_commands::at_reader(b, start, end, &mut found);
                }
                if end - start >= 16 && start > 0 && b[start - 1] == b'"' {
                    assignments::parents::at_element(b, start, &mut found);
                }
                if end - start >= 16 && assignments::parents::may_be_yaml_value(b, start) {
                    assignments::parents::at_yaml_value(b, start, end, &mut found);
                }
                if end - start == 40 {
                    tokens::aws_secret_on_line(b, start, end, &mut found);
                }
                if tokens::may_be_wireguard_column(b, start, end) {
                    tokens::wireguard_column(b, start, end, &mut found);
                }
                if tokens::may_be_kerberos_key(b, start, end) {
                    tokens::kerberos_key(b, start, end, &mut found);
                }
                // A device's keyword (`insecure-password …`: a value of short
                // words); `key` and `secret` are read from their values.
                if assignments::device_lines::may_be(b, start, end) {
                    assignments::device_lines::at_keyword(b, start, end, &mut found);
                }
                // A value its prefix says is clear text (`{PLAIN}…`, `"$9$…`).
                if assignments::clear_text::may_follow(b, start) {
                    assignments::clear_text::at_word(b, start, &mut found);
                }
                // A keyword's value (`PASSWORD '…'`, `key 7 …`).
                if assignments::may_follow_keyword(b, start) {
                    assignments::keyword_value(b, start, &mut found);
                }
                // (After one blank a long key only, as `influx` pads a
                // token's column; a table of passwords has two blanks.)
                if start >= 2
                    && b[start - 1] == b' '
                    && (b[start - 2] == b' ' || end - start >= 32)
                    && assignments::columns::may_be_aligned(&b[start..end])
                {
                    assignments::columns::aligned(b, start, end, &mut found);
                }
                if assignments::setting_commands::may_follow(b, start, end) {
                    assignments::setting_commands::after_blank(b, start, end, &mut found);
                }
                class |= assignments::after_name(b, start, end);
                if end - start >= decode::MIN_BASE64 && depth < decode::MAX_DEPTH {
                    self.base64_word(b, start, end, depth, &mut found);
                }
                if start > 0 && matches!(b[start - 1], b'"' | b'\'') {
                    assignments::named_above::at_value(b, start, &mut found);
                    assignments::argument_lists::at_value(b, start, &mut found);
                }
            }
            // A Jetty realm file's `user: password, role` (a short name).
            if layouts::may_be_realm_user(b, start, end) {
                layouts::realm_line(b, start, end, &mut found);
            }
            // (Any word: a cell's first may be short, `n#yO…`.)
            if assignments::columns::may_be_cell(b, start, rule_end) {
                assignments::columns::cell(b, start, &mut found);
            }
            if assignments::command_output::may_start_line(b, start) {
                assignments::command_output::at_word(b, start, &mut found);
                // (A short first word too: `ShHZ&A@…` under `root_password:`.)
                assignments::named_above::at_value(b, start, &mut found);
                if b.get(end) == Some(&b' ') {
                    class |= assignments::directive_class(b, class, start, end);
                }
            } else if start == 0 && b.get(end) == Some(&b' ') {
                // (The text's first line: a stream may start its text there.)
                class |= assignments::directive_class(b, class, start, end);
            }
            if class != 0 {
                assignments::at_word(b, class, start, end, &mut found);
                if class & (assignments::TAG | assignments::COLON_FIRST | assignments::COLON_LAST)
                    != 0
                {
                    private_keys::at_name(b, class, start, end, &mut found);
                }
            }
        }
        // A protocol's login (`AUTH …`, `a1 LOGIN …`, RESP, SASL PLAIN).
        assignments::logins::find(b, &mut found);
        // A key block on decorated lines (`decorations`): read again without
        // the decoration, masked where its bytes came from.
        if found.iter().any(|f| f.kind == decorations::DECORATED) {
            Self::read_decorated(text, &mut found);
        }
        // Runs of lines a viewer decorated. Looked for line by line in
        // every text: a test per word for whether the text may have any
        // (two words that may start such a line) cost more in the word loop
        // than the line pass costs (204 against 193 MB/s).
        if viewers {
            viewers::read_through(self, text, depth, &mut found);
        }
        // An escape sequence was seen (`literals_in` marks it): read the text
        // again without colours.
        if found.iter().any(|f| f.kind == ESCAPE) {
            found = if depth == 0 {
                self.find_through_colours(text, found)
            } else {
                found.into_iter().filter(|f| f.kind != ESCAPE).collect()
            };
        }
        if depth < decode::MAX_DEPTH {
            decode::escaped(self, text, depth, &mut found);
        }
        // A vendor's prefix on a mask or on the documentation's example
        // (the operator's literals are theirs to judge).
        found.retain(|f| f.kind == "literal" || !placeholders::masked_token(&b[f.start..f.end]));
        // A value a terminal or a box table wrapped onto the next line.
        wraps::continuations(b, &mut found);
        for p in &self.patterns {
            found.extend(
                p.regex
                    .find_iter(text)
                    .filter(|m| !m.is_empty() && m.len() <= MAX_PATTERN_MATCH)
                    .map(|m| Found {
                        start: m.start(),
                        end: m.end(),
                        kind: p.name,
                    }),
            );
        }
        // Values end where bytes say so (a value read to its longest, 4 KiB,
        // may end inside a character); a mask must not split one. Widened
        // before overlaps are resolved: two finds that met inside one
        // character overlap once widened and are merged (widened after, the
        // second would start before the first ends: `redact` slices between
        // them).
        for f in &mut found {
            f.start = text.floor_char_boundary(f.start);
            f.end = text.ceil_char_boundary(f.end);
        }
        resolve_overlaps(found)
    }

    /// Each key block marked as decorated (its first line, its anchor), read
    /// without its lines' decorations; masked where its bytes came from. The
    /// marks are taken out.
    #[inline(never)]
    fn read_decorated(text: &str, found: &mut Vec<Found>) {
        let marks: Vec<(usize, usize)> = found
            .iter()
            .filter(|f| f.kind == decorations::DECORATED)
            .map(|f| (f.start, f.end))
            .collect();
        found.retain(|f| f.kind != decorations::DECORATED);
        let b = text.as_bytes();
        let mut blocks = Vec::new();
        // The last region of each kind of block: a block inside it is read
        // there, so that each byte is copied once per kind however many
        // markers a text repeats.
        let mut regions: [Option<decorations::Region>; 2] = [None, None];
        for (line, anchor) in marks {
            let Some(anchor_end) = private_keys::anchor_end(b, anchor) else {
                continue;
            };
            let slot = &mut regions[decorations::Anchor::at(b, anchor) as usize];
            let (r, at) = match slot.as_ref().and_then(|r| r.at(anchor)) {
                Some(at) => (slot.as_ref().expect("inside it"), at),
                None => {
                    let limit = (line + MAX_PEM).min(b.len());
                    let r = decorations::region(b, line, anchor, anchor_end, limit);
                    (&*slot.insert(r), 0)
                }
            };
            blocks.clear();
            private_keys::block_at(&r.bytes, at, at + anchor_end - anchor, &mut blocks);
            found.extend(
                blocks
                    .iter()
                    .filter(|f| f.kind != decorations::DECORATED)
                    .map(|&f| r.back(f)),
            );
        }
    }

    /// Every literal, and a mark at each ESC, in `b`.
    fn literals_in(&self, b: &[u8], found: &mut Vec<Found>) {
        // A terminal escape sequence starts at an ESC: marked for
        // `find_through_colours`.
        found.extend(memchr::memchr_iter(0x1b, b).map(|i| Found {
            start: i,
            end: i,
            kind: ESCAPE,
        }));
        for l in &self.literals {
            // Overlapping occurrences too (`abab` in `ababab`): the mask
            // covers all of them.
            let mut from = 0;
            while let Some(p) = b.get(from..).and_then(|rest| l.find(rest)) {
                found.push(Found {
                    start: from + p,
                    end: from + p + l.needle().len(),
                    kind: "literal",
                });
                from += p + 1;
            }
        }
    }

    /// A base64 word whose decoded text holds a secret is masked whole, as
    /// the kind found inside.
    #[inline(never)]
    fn base64_word(&self, b: &[u8], s: usize, e: usize, depth: u8, found: &mut Vec<Found>) {
        // Or the value after `t=` or `auth:` inside the word.
        let w = &b[s..e];
        let unpadded = w.len() - w.iter().rev().take_while(|&&c| c == b'=').count();
        let s = match memchr::memrchr2(b'=', b':', &w[..unpadded]) {
            Some(p) => s + p + 1,
            None => s,
        };
        // SASL PLAIN's message (`\0user\0password`, what `printf '\0%s\0%s'
        // … | base64` makes for `AUTH PLAIN`): not text, told by its NULs.
        if e - s >= 4
            && b[s] == b'A'
            && (b'A'..=b'P').contains(&b[s + 1])
            && assignments::logins::sasl_plain(&decode::decode(&b[s..e]))
        {
            found.push(Found {
                start: s,
                end: e,
                kind: "secret-assignment",
            });
            return;
        }
        let Some(text) = decode::base64_text(&b[s..e]) else {
            return;
        };
        if let Some(f) = self.find_at_depth(&text, depth + 1).first() {
            found.push(Found {
                start: s,
                end: e,
                kind: f.kind,
            });
        }
    }

    /// Where a chunk that is not the last of its stream should be cut: the
    /// bytes from here on may be the start of a secret that continues in the
    /// next chunk. `text.len()` when nothing needs holding back.
    pub fn hold_back_from(&self, text: &str) -> usize {
        // An escape sequence cut in two waits for its end; the rest is
        // decided on the text without colours, as `find` reads it.
        let open = ansi::open_at_end(text.as_bytes());
        let whole = &text[..open.unwrap_or(text.len())];
        let b = whole.as_bytes();
        let mut cut = self.settled(b, b.len());
        // Both readings `find` makes: the earlier cut of the two, until
        // neither moves it. The cut one reading moves back to may fall inside
        // what the other read as closed by bytes past it (a quoted value in
        // the raw reading whose closing quote, past the plain reading's cut,
        // is what opens the next value in the plain one): sent up to there,
        // that value was read as open, not as the whole text reads it.
        if let Some((plain, map)) = ansi::strip(whole) {
            let plain = plain.as_bytes();
            let mut at = plain.len();
            loop {
                at = self.settled(plain, at);
                let back = map.get(at).map_or(whole.len(), |&i| i as usize);
                let next = self.settled(b, cut.min(back));
                // The plain reading's cut at or before the raw one.
                let next_at = at.min(map.partition_point(|&i| (i as usize) < next));
                if (next, next_at) == (cut, at) {
                    break;
                }
                (cut, at) = (next, next_at);
            }
        }
        // Never hold more than MAX_HOLD; keep the cut on a char boundary.
        text.ceil_char_boundary(cut.max(text.len().saturating_sub(MAX_HOLD)))
    }

    /// `cut`, moved back until nothing straddles it: moving it back may put
    /// it inside something else.
    fn settled(&self, b: &[u8], mut cut: usize) -> usize {
        loop {
            let before = cut;
            cut = self.before_straddling(b, cut);
            if cut == before {
                return cut;
            }
        }
    }

    /// `cut`, moved back to the start of whatever may be a secret that
    /// reaches it: the part before the cut must be masked the same whatever
    /// comes after it.
    fn before_straddling(&self, b: &[u8], mut cut: usize) -> usize {
        let n = b.len();
        // An operator's pattern may match across the cut: its whole longest
        // match waits.
        if !self.patterns.is_empty() {
            cut = cut.min(n.saturating_sub(MAX_PATTERN_MATCH));
        }
        // A word through the cut, or running to the end, may continue.
        if cut == n || TOKEN[b[cut] as usize] {
            while cut > 0 && TOKEN[b[cut - 1] as usize] {
                cut -= 1;
            }
        }
        // `\` may escape the byte after it (`\nghp_…`).
        if cut > 0 && b[cut - 1] == b'\\' {
            cut -= 1;
        }
        // A Sanctum token's id before its `|`.
        if let Some(id) = tokens::sanctum_open_at(b, cut) {
            cut = id;
        }
        // An AWS key id may be followed by its secret.
        if let Some(id) = tokens::aws_key_id_before(b, cut) {
            cut = id;
        }
        // A literal may be cut in two.
        let at = cut;
        for l in self.literals.iter().map(|l| l.needle()) {
            if let Some(k) = (1..l.len().min(at + 1))
                .rev()
                .find(|&k| b[..at].ends_with(&l[..k]))
            {
                cut = cut.min(at - k);
            }
        }
        // So may a private key block, the value of a `key: value` or the
        // password of a URL (`"password": "hunt`, `Authorization: Bearer `).
        let marker_cut = cut;
        let mut last_begin = private_keys::last_begin(b, cut);
        if let Some(begin) = private_keys::open_at(b, cut, last_begin) {
            cut = cut.min(begin);
        }
        if let Some(begin) = private_keys::other_open_at(b, cut) {
            cut = cut.min(begin);
        }
        // A key block on decorated lines, open in its reading without them.
        // (The last marker is looked for again only if the cut moved.)
        if cut < marker_cut && last_begin.is_none_or(|begin| begin >= cut) {
            last_begin = private_keys::last_begin(b, cut);
        }
        for (line, anchor, anchor_end) in decorations::anchors_before(b, cut, last_begin) {
            if decorations::reaches(b, cut, line, anchor, anchor_end) {
                cut = cut.min(line);
            }
        }
        // A field with escapes is decoded whole.
        if let Some(field) = decode::open_at(b, cut) {
            cut = cut.min(field);
        }
        let line = line_start(b, cut);
        if cut > line && layouts::pgpass_open(b, line, cut) {
            cut = line;
        }
        if let Some(line) = layouts::realm_open_at(b, cut) {
            cut = cut.min(line);
        }
        let from = line.max(cut.saturating_sub(OPEN_LOOKBACK));
        if let Some(key) = assignments::open_at(b, from, cut) {
            cut = cut.min(key);
        }
        if let Some(url) = urls::open_at(b, from, cut) {
            cut = cut.min(url);
        }
        if let Some(url) = layouts::oracle_open(b, from, cut) {
            cut = cut.min(url);
        }
        if let Some(line) = assignments::command_output::open_at(b, cut) {
            cut = cut.min(line);
        }
        if let Some(echo) = assignments::setting_commands::open_at(b, cut) {
            cut = cut.min(echo);
        }
        if let Some(value) = assignments::setting_commands::open_value_at(b, cut) {
            cut = cut.min(value);
        }
        if let Some(string) = assignments::call_arguments::open_at(b, cut) {
            cut = cut.min(string);
        }
        if let Some(call) = assignments::call_arguments::call_open_at(b, cut) {
            cut = cut.min(call);
        }
        if let Some(line) = assignments::parents::open_at(b, cut) {
            cut = cut.min(line);
        }
        if let Some(line) = assignments::named_above::open_at(b, cut) {
            cut = cut.min(line);
        }
        if let Some(cell) = assignments::columns::open_at(b, cut) {
            cut = cut.min(cell);
        }
        if let Some(value) = assignments::sql::open_at(b, cut) {
            cut = cut.min(value);
        }
        if let Some(value) = assignments::device_lines::open_at(b, cut) {
            cut = cut.min(value);
        }
        if let Some(value) = assignments::clear_text::open_at(b, cut) {
            cut = cut.min(value);
        }
        if let Some(login) = assignments::logins::open_at(b, cut) {
            cut = cut.min(login);
        }
        if let Some(line) = assignments::command_lines::user_command_open_at(b, cut) {
            cut = cut.min(line);
        }
        cut
    }
}

/// Checks one word for the known formats: at its start, and after each
/// `=`, `:`, `/`, `@` or `,` inside it (`TOKEN=ghp_…`, `Bearer:eyJ…`), and
/// for `key=value` inside it.
fn word(b: &[u8], s: usize, e: usize, found: &mut Vec<Found>) {
    // JSON-escaped text (`"…\nghp_…"`): the word starts after the escape.
    let s = if s > 0 && b[s - 1] == b'\\' && matches!(b[s], b'n' | b'r' | b't') {
        s + 1
    } else if b[s] == b'+' && e - s > 1 {
        // `git diff --word-diff`'s `{+ghp_…+}`, a diff's added line.
        s + 1
    } else {
        s
    };
    let w = &b[s..e];
    if w.starts_with(b"-----") {
        // `------BEGIN …`: a diff's `-` (or another dash) before the marker.
        let dashes = w.iter().take_while(|&&c| c == b'-').count();
        private_keys::pem(b, s + dashes - 5, found);
        return;
    }
    // `KEY=-----BEGIN RSA PRIVATE KEY-----`: a marker glued to what comes
    // before it ends its word (a space follows `BEGIN`).
    // (Its last byte first: in wasm a compare of ten bytes is a call.)
    if w.last() == Some(&b'N') && w.ends_with(b"-----BEGIN") {
        private_keys::pem(b, e - 10, found);
    }
    // A Kubernetes bootstrap token is a word of its own.
    if e - s == 23 && b[s + 6] == b'.' {
        tokens::kubeadm(b, s, found);
    }
    // `.pgpass`: a line of four `:` and a password.
    if (s == 0 || matches!(b[s - 1], b'\n' | b'*')) && layouts::may_be_pgpass(w) {
        layouts::pgpass(b, s, found);
    }
    let mut has_scheme = false;
    let mut at = 0;
    loop {
        tokens::at(b, s + at, e, found);
        if w[at] == b'j' && w[at..].starts_with(b"jdbc:oracle:thin:") {
            layouts::oracle_thin(b, s + at, found);
        }
        // After a `-` only a vendor's token is looked for: one glued to a
        // word before it (`yes-ghp_…`, `id-AKIA…`, a flag's value `-xoxb-…`).
        let Some(p) = next_separator(b, s + at, e).map(|p| p - s) else {
            break;
        };
        match w[p] {
            b'=' | b':' if s + p + 1 < e => {
                if w[p..].starts_with(b"://") {
                    has_scheme = true;
                } else {
                    // `KEY=-----BEGIN … PRIVATE KEY-----`: a key glued to its name.
                    if w[p + 1..].starts_with(b"-----") {
                        private_keys::pem(b, s + p + 1, found);
                    }
                    assignments::at_operator(b, s, s + p, found);
                }
            }
            _ => {}
        }
        at = p + 1;
        if e - (s + at) < MIN_WORD {
            break;
        }
    }
    if has_scheme {
        urls::credentials(b, s, e, found);
    }
    // Go's MySQL DSN, `user:password@tcp(host:3306)/db`: the word ends at
    // the `(`. (Its last byte first: most words end otherwise.)
    if matches!(w.last(), Some(b'p' | b'x')) && (w.ends_with(b"@tcp") || w.ends_with(b"@unix")) {
        let at = e - if w.ends_with(b"@tcp") { 4 } else { 5 };
        layouts::go_dsn(b, s, at, found);
    }
}

/// Where in `b[from..end]` (a word) the next byte is after which [`word`]
/// looks for a token or a value; sixteen bytes at a time where a vector
/// unit compares them ([`token_mask::any_of`]).
#[inline(always)]
fn next_separator(b: &[u8], mut from: usize, end: usize) -> Option<usize> {
    const SEPARATORS: [u8; 6] = [b'=', b':', b'/', b'@', b',', b'-'];
    while from < end {
        // The block may reach past the word: what is past it is not looked at.
        let Some(block) = b.get(from..from + 16) else {
            break;
        };
        let Some(mask) = token_mask::any_of(block.try_into().unwrap(), SEPARATORS) else {
            break;
        };
        if mask != 0 {
            let p = from + mask.trailing_zeros() as usize;
            return (p < end).then_some(p);
        }
        from += 16;
    }
    let p = b
        .get(from..end)?
        .iter()
        .position(|c| SEPARATORS.contains(c))?;
    Some(from + p)
}

/// Where the line holding `i` starts, if it starts at most `max` bytes
/// before `i`: what is read of a line's beginning is bounded, so that a text
/// of one endless line costs no more than many short ones.
/// Where the line holding byte `i` (or starting at it) starts.
pub(crate) fn line_start(b: &[u8], i: usize) -> usize {
    memchr::memrchr(b'\n', &b[..i]).map_or(0, |p| p + 1)
}

/// Where the line holding byte `i` starts, if within `max` bytes before it.
pub(crate) fn line_start_within(b: &[u8], i: usize, max: usize) -> Option<usize> {
    let floor = i.saturating_sub(max);
    match memchr::memrchr(b'\n', &b[floor..i]) {
        Some(p) => Some(floor + p + 1),
        None if floor == 0 => Some(0),
        None => None,
    }
}

/// How much of a line before a name is read for its layout (an env file's
/// `export `, a table's label, `grep`'s `path:12:`, a client's command).
pub(crate) const MAX_LINE_PREFIX: usize = 512;

/// Where `needle` (not empty) first occurs in `hay`. Its first byte is
/// found with `memchr` and only there is the rest compared: a compare at
/// every position is a `memcmp` call each in wasm, where the plug runs.
pub(crate) fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let (&first, rest) = needle.split_first()?;
    memchr::memchr_iter(first, hay).find(|&p| starts(&hay[p + 1..], rest))
}

/// Where `needle` (not empty) last occurs in `hay`.
pub(crate) fn rfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let (&first, rest) = needle.split_first()?;
    memchr::memrchr_iter(first, hay).find(|&p| starts(&hay[p + 1..], rest))
}

/// Whether `t` starts with `p`, compared here: in wasm, `starts_with` with
/// a length not known when compiling is a call to libc's byte-by-byte
/// `memcmp`.
#[inline(always)]
pub(crate) fn starts(t: &[u8], p: &[u8]) -> bool {
    t.len() >= p.len() && t.iter().zip(p).all(|(a, b)| a == b)
}

/// How many bytes from `from` on satisfy `ok`.
pub(crate) fn run(t: &[u8], from: usize, ok: impl Fn(u8) -> bool) -> usize {
    t.get(from..)
        .map_or(0, |rest| rest.iter().take_while(|&&c| ok(c)).count())
}

/// Whether `cat -v`/`cat -A` shows a NUL at `i` (`^@`) between two
/// environment variables (`/proc/<pid>/environ`): the next `NAME=` follows.
/// (Called for each byte of a value: the `^` test inline, the rest not.)
#[inline(always)]
pub(crate) fn nul_shown_at(b: &[u8], i: usize) -> bool {
    b[i] == b'^' && env_name_after_nul(b, i)
}

#[inline(never)]
fn env_name_after_nul(b: &[u8], i: usize) -> bool {
    if b.get(i + 1) != Some(&b'@') {
        return false;
    }
    let name = run(b, i + 2, |c| {
        c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_'
    });
    name > 0 && b[i + 2].is_ascii_uppercase() && b.get(i + 2 + name) == Some(&b'=')
}

pub(crate) const fn b64url(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'-'
}

pub(crate) const fn b64(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'+' || c == b'/' || c == b'='
}

pub(crate) const fn hex(c: u8) -> bool {
    c.is_ascii_hexdigit()
}

/// Whether a run of random-looking characters has at least two of lower
/// case, upper case and digits: what tells a key from an identifier such as
/// `sk-button-primary-large`.
pub(crate) fn mixed(s: &[u8]) -> bool {
    let (mut lower, mut upper, mut digit) = (false, false, false);
    for &c in s {
        lower |= c.is_ascii_lowercase();
        upper |= c.is_ascii_uppercase();
        digit |= c.is_ascii_digit();
    }
    (lower as u8 + upper as u8 + digit as u8) >= 2
}

/// The kinds that only say "something named like a secret": a find of a
/// known format at the same place is more telling.
fn generic(kind: &str) -> bool {
    matches!(kind, "secret-assignment" | "authorization" | "cookie")
}

/// Keeps the earliest (then longest, then most specific) of overlapping finds.
fn resolve_overlaps(mut found: Vec<Found>) -> Vec<Found> {
    if found.len() < 2 {
        return found;
    }
    // `KEY=ghp_…` is a GitHub token before it is a secret assignment.
    found.sort_by(|a, b| {
        a.start
            .cmp(&b.start)
            .then(b.end.cmp(&a.end))
            .then(generic(a.kind).cmp(&generic(b.kind)))
    });
    let mut kept: Vec<Found> = Vec::with_capacity(found.len());
    for f in found {
        match kept.last_mut() {
            Some(last) if f.start < last.end => last.end = last.end.max(f.end),
            _ => kept.push(f),
        }
    }
    kept
}
