//! What the test files share: a text sent through the plug's stream filter
//! the way the runner sends an agent's chunks.

use blaise_plug::{EntryKind, TranscriptEntry};
use redaction::detect::Redactor;
use redaction::stream::Streams;

/// One chunk of stream `m`.
pub fn chunk(text: &str, last: bool) -> TranscriptEntry {
    TranscriptEntry {
        stream_id: "m".into(),
        kind: EntryKind::AgentMessage,
        text: text.into(),
        last,
        replay: false,
    }
}

/// The text sent as one stream, cut at `cuts` (ascending char boundaries).
pub fn streamed(r: &Redactor, text: &str, cuts: &[usize]) -> String {
    let mut streams = Streams::default();
    let mut out = String::new();
    let mut from = 0;
    for &cut in cuts {
        out.push_str(&streams.filter(r, chunk(&text[from..cut], false)).text);
        from = cut;
    }
    out.push_str(&streams.filter(r, chunk(&text[from..], true)).text);
    out
}

/// A small deterministic generator (xorshift64*): a fixed seed gives the
/// same samples and splits on every run.
pub struct Rng(pub u64);

#[allow(dead_code)] // each test file uses what it needs
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The text with each `[REDACTED:kind]` as `[REDACTED]`: what was masked,
/// whatever kind the detector named it.
#[allow(dead_code)]
pub fn without_kinds(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("[REDACTED:") {
        out.push_str(&rest[..at]);
        out.push_str("[REDACTED]");
        let close = rest[at..].find(']').expect("closed");
        rest = &rest[at + close + 1..];
    }
    out.push_str(rest);
    out
}

/// A text with its secrets between `«` and `»`: the text without the marks,
/// and what it must become (each marked part one `[REDACTED]`, the rest as
/// it was).
#[allow(dead_code)]
pub fn unmark(marked: &str) -> (String, String) {
    let input = marked.replace(['«', '»'], "");
    let mut want = String::new();
    let mut rest = marked;
    while let Some(open) = rest.find('«') {
        want.push_str(&rest[..open]);
        want.push_str("[REDACTED]");
        let close = rest[open..].find('»').expect("every « has its »");
        rest = &rest[open + close + '»'.len_utf8()..];
    }
    want.push_str(rest);
    (input, want)
}

/// Whole, cut in two at every byte, and one character at a time: the marked
/// parts masked, the rest unchanged, and every stream the same as the whole.
#[allow(dead_code)]
pub fn check(table: &[&str]) {
    let r = Redactor::new(&[]);
    let mut failures = Vec::new();
    for marked in table {
        let (input, want) = unmark(marked);
        let whole = r.redact(&input);
        if without_kinds(&whole) != want {
            failures.push(format!("{input:?}\n   got {whole:?}\n  want {want:?}"));
            continue;
        }
        for cut in (1..input.len()).filter(|&c| input.is_char_boundary(c)) {
            let got = streamed(&r, &input, &[cut]);
            if got != whole {
                failures.push(format!(
                    "{:?} | {:?}\n   got {got:?}\n  want {whole:?}",
                    &input[..cut],
                    &input[cut..]
                ));
                break;
            }
        }
        let cuts: Vec<usize> = input.char_indices().map(|(i, _)| i).skip(1).collect();
        let got = streamed(&r, &input, &cuts);
        if got != whole {
            failures.push(format!(
                "{input:?} char by char\n   got {got:?}\n  want {whole:?}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        table.len(),
        failures.join("\n")
    );
}
