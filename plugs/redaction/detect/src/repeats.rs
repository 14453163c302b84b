//! A secret, once found, is masked again wherever it comes back later: an
//! agent that read `DB_PASSWORD=…` from a file and then quotes the value in
//! its answer, `set -x` echoing a password a line above named, a JSON dump
//! repeating a token its config named. Nothing around the later copy says
//! it is a secret; the earlier find does.
//!
//! Later means after the find ends, in the same text or, through [`Seen`],
//! in a later chunk of a stream or a later entry of the session. Never
//! before: a stream cannot take back what it sent, and a whole text must be
//! masked as its chunks are. The most recent [`MAX_SEEN`] values are kept,
//! each a word of [`MIN_VALUE`] to [`MAX_VALUE`] bytes.

use aho_corasick::{AhoCorasick, AhoCorasickKind, Input, MatchKind};

use std::ops::Range;

use super::Found;

/// Values kept: the oldest is forgotten when one more is learned.
pub const MAX_SEEN: usize = 64;
/// Shortest value remembered: shorter masks may be words that come back
/// for other reasons.
pub const MIN_VALUE: usize = 8;
/// Longest value remembered: a stream holds back a copy's start that long.
pub const MAX_VALUE: usize = 1 << 10;

/// Values found earlier in a session, oldest first, with the kind each was
/// masked as.
#[derive(Debug, Clone, Default)]
pub struct Seen {
    values: Vec<(Box<str>, &'static str)>,
    searcher: Option<AhoCorasick>,
}

/// Values a text taught, in order: each with the kind it was masked as and
/// where its find ended (copies are masked from there on).
#[derive(Debug, Clone, Default)]
pub struct Learned {
    values: Vec<(Box<str>, &'static str, usize)>,
}

impl Learned {
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

impl Seen {
    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Remembers what a text taught (the oldest values go past
    /// [`MAX_SEEN`]).
    pub fn learn(&mut self, learned: Learned) {
        if learned.values.is_empty() {
            return;
        }
        self.values
            .extend(learned.values.into_iter().map(|(v, kind, _)| (v, kind)));
        let over = self.values.len().saturating_sub(MAX_SEEN);
        self.values.drain(..over);
        self.searcher = searcher(self.values.iter().map(|(v, _)| &**v));
    }

    /// What `found` (a text's finds, in order) teaches: the values of those
    /// that end in `sent` (what a stream sends now), not known yet.
    pub(crate) fn taught(&self, text: &str, found: &[Found], sent: Range<usize>) -> Learned {
        let mut learned = Learned::default();
        for f in found
            .iter()
            .filter(|f| sent.start < f.end && f.end <= sent.end)
        {
            let v = &text[f.start..f.end];
            if eligible(v, f.kind)
                && !self.values.iter().any(|(s, _)| **s == *v)
                && !learned.values.iter().any(|(s, _, _)| **s == *v)
            {
                learned.values.push((v.into(), f.kind, f.end));
            }
        }
        learned
    }

    /// Every value known to be in effect at each byte: those seen before
    /// the text (from its start), then `learned` (from where each was
    /// found), each until [`MAX_SEEN`] later ones push it out.
    fn in_effect<'a>(&'a self, learned: &'a Learned) -> Vec<Known<'a>> {
        let mut all: Vec<Known> = self
            .values
            .iter()
            .map(|(v, kind)| Known {
                value: v,
                kind,
                from: 0,
                until: usize::MAX,
            })
            .chain(learned.values.iter().map(|(v, kind, at)| Known {
                value: v,
                kind,
                from: *at,
                until: usize::MAX,
            }))
            .collect();
        for i in 0..all.len().saturating_sub(MAX_SEEN) {
            all[i].until = all[i + MAX_SEEN].from;
        }
        all
    }

    /// The copies in `text` of the values in effect where each copy starts,
    /// masked as their value was: those seen before in one pass of the
    /// session's searcher, each new one on its own (a text teaches one or
    /// two: a searcher built for them would cost more than it saves).
    pub(crate) fn copies(&self, text: &str, learned: &Learned) -> Vec<Found> {
        let known = self.in_effect(learned);
        let mut out = match &self.searcher {
            Some(s) => matches(s, text, &known[..self.values.len()]),
            None => Vec::new(),
        };
        for k in &known[self.values.len()..] {
            let v = k.value.as_bytes();
            let finder = memchr::memmem::Finder::new(v);
            let mut at = k.from;
            // Overlapping copies too (`abab` in `ababab`).
            while let Some(p) = text.as_bytes().get(at..).and_then(|t| finder.find(t)) {
                let start = at + p;
                if start >= k.until {
                    break;
                }
                out.push(Found {
                    start,
                    end: start + v.len(),
                    kind: k.kind,
                });
                at = start + 1;
            }
        }
        out
    }

    /// Where a stream's chunk that ends at `text.len()` must be cut so that
    /// no copy of a value in effect there is cut in two: the start of the
    /// earliest tail of `text` that a value starts with (`text.len()`:
    /// none).
    pub fn hold_back_from(&self, text: &str, learned: &Learned) -> usize {
        let b = text.as_bytes();
        let mut cut = b.len();
        for k in self.in_effect(learned) {
            let v = k.value.as_bytes();
            let floor = b.len().saturating_sub(v.len() - 1).max(k.from);
            for p in memchr::memchr_iter(v[0], &b[floor.min(b.len())..]).map(|p| floor + p) {
                if p >= cut.min(k.until) {
                    break;
                }
                if v.starts_with(&b[p..]) {
                    cut = p;
                    break;
                }
            }
        }
        cut
    }
}

/// A value in effect over `[from, until)` of a text.
struct Known<'a> {
    value: &'a str,
    kind: &'static str,
    from: usize,
    until: usize,
}

/// Whether a mask's text is worth remembering: long enough not to be a
/// word, one word (a mask that took the words after a value, or a key
/// block, is no value to look for again), and no operator's literal (found
/// everywhere anyway).
fn eligible(v: &str, kind: &str) -> bool {
    (MIN_VALUE..=MAX_VALUE).contains(&v.len())
        && !v.bytes().any(|c| c.is_ascii_whitespace())
        && kind != "literal"
}

fn searcher<'a>(values: impl Iterator<Item = &'a str>) -> Option<AhoCorasick> {
    let values: Vec<&str> = values.collect();
    if values.is_empty() {
        return None;
    }
    // A contiguous automaton: built in microseconds where the default (a
    // DFA, for few patterns) takes milliseconds, and a session learns often
    // early on. The values are checked when learned; a build can only fail
    // on sizes far past MAX_SEEN × MAX_VALUE.
    AhoCorasick::builder()
        .kind(Some(AhoCorasickKind::ContiguousNFA))
        .match_kind(MatchKind::LeftmostLongest)
        .build(values)
        .ok()
}

/// Copies of the values seen before (the searcher's patterns, first in
/// `known` and in the same order) where they are in effect: at each byte
/// where one starts, the longest in effect there (a shorter one at the same
/// start is inside it; one that starts inside it is found from the next
/// byte on, so overlapping copies, `abab` in `ababab`, are found too).
fn matches(s: &AhoCorasick, text: &str, known: &[Known]) -> Vec<Found> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    // A leftmost search, not an overlapping one: it may use a vectorised
    // prefilter for a few dozen values, where an overlapping search steps
    // its automaton through every byte.
    while let Some(m) = s.find(Input::new(text).range(at..)) {
        let start = m.start();
        let longest = known
            .iter()
            .filter(|k| {
                k.from <= start && start < k.until && b[start..].starts_with(k.value.as_bytes())
            })
            .max_by_key(|k| k.value.len());
        if let Some(k) = longest {
            out.push(Found {
                start,
                end: start + k.value.len(),
                kind: k.kind,
            });
        }
        at = start + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(start: usize, end: usize) -> Found {
        Found {
            start,
            end,
            kind: "secret-assignment",
        }
    }

    #[test]
    fn a_value_is_masked_after_its_find_never_before() {
        let text = "x Zq8Lw2Rt5Y; PW=Zq8Lw2Rt5Y; again Zq8Lw2Rt5Y";
        let seen = Seen::default();
        let learned = seen.taught(text, &[f(17, 27)], 0..usize::MAX);
        let copies: Vec<_> = seen
            .copies(text, &learned)
            .iter()
            .map(|f| f.start)
            .collect();
        assert_eq!(copies, [35]);
    }

    #[test]
    fn short_spaced_multi_line_and_literal_values_are_not_remembered() {
        let text = "PW=abc1234\nKEY=-----BEGIN\nX\nA: Bearer eyJ0eXAiOi and more\n";
        let seen = Seen::default();
        let literal = Found {
            start: 3,
            end: 10,
            kind: "literal",
        };
        let wide = f(38, 57);
        assert_eq!(&text[wide.start..wide.end], "eyJ0eXAiOi and more");
        assert!(
            seen.taught(text, &[f(3, 9), f(15, 27), literal, wide], 0..usize::MAX)
                .is_empty()
        );
    }

    #[test]
    fn the_oldest_values_are_forgotten() {
        let mut seen = Seen::default();
        for i in 0..MAX_SEEN + 3 {
            let text = format!("v=Secret{i:04}x");
            let learned = seen.taught(&text, &[f(2, text.len())], 0..usize::MAX);
            seen.learn(learned);
        }
        assert_eq!(seen.len(), MAX_SEEN);
        let text = "Secret0000x Secret0003x";
        let copies = seen.copies(text, &Learned::default());
        assert_eq!(copies.len(), 1, "{copies:?}");
        assert_eq!(copies[0].start, 12);
    }

    #[test]
    fn overlapping_copies_of_a_value_seen_before_are_all_found() {
        let mut seen = Seen::default();
        let learned = seen.taught("PW=ab12ab12ab", &[f(3, 13)], 0..usize::MAX);
        seen.learn(learned);
        let text = "ab12ab12ab12ab and ab12ab12ab";
        let copies: Vec<_> = seen
            .copies(text, &Learned::default())
            .iter()
            .map(|f| (f.start, f.end))
            .collect();
        assert_eq!(copies, [(0, 10), (4, 14), (19, 29)]);
    }

    #[test]
    fn a_copys_start_at_a_chunks_end_is_held_back() {
        let mut seen = Seen::default();
        let learned = seen.taught("PW=Zq8Lw2Rt5Y", &[f(3, 13)], 0..usize::MAX);
        seen.learn(learned);
        let none = Learned::default();
        assert_eq!(seen.hold_back_from("echo Zq8L", &none), 5);
        assert_eq!(seen.hold_back_from("echo Zq8Lw2Rt5Y", &none), 15);
        assert_eq!(seen.hold_back_from("echo Zq8x", &none), 9);
        assert_eq!(seen.hold_back_from("Z", &none), 0);
    }
}
