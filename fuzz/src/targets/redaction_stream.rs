//! The redaction plug's stream filter (`redaction::stream::Streams`, what
//! the runner's transcript filter calls for an agent's streamed output) on
//! text rich in multi-byte characters: box-drawn tables, CJK, emoji (ZWJ
//! sequences, flags), combining marks, terminal colours, with secrets of the
//! shapes the detector knows in and between them.
//!
//! Each input is one text (lossy UTF-8: a chunk in the runner is always a
//! `String`), streamed several ways, its cuts at char boundaries drawn from
//! a hash of the input: two chunks, many random chunks, chunks of one size
//! (1 KiB and more, so that the context kept between chunks starts inside
//! characters), and two streams interleaved. Each must come out as the
//! whole text's redaction: exactly, or masking more where the stream's
//! bounded context (the last 1 KiB of a line) reads a line or a run without
//! whitespace as starting where the context does (a run longer than what is
//! decoded, 4 KiB, is decoded in a stream only); never with a value the
//! whole text's redaction masks left visible, which panics with the cuts.
//! Chunks with the runner's quiet signal (an empty chunk that is not the
//! last: what is held back goes out masked as it stands, `stream.rs`) only
//! must not panic. The values are random, shaped like the real formats:
//! none is a live credential.

use arbitrary::{Result, Unstructured};
use blaise_plug::{EntryKind, TranscriptEntry};
use redaction::Config;
use redaction::detect::Redactor;
use redaction::stream::Streams;

use super::{Outcome, Target};
use crate::rng::Rng;

/// Multi-byte pieces: box drawing, CJK, emoji (ZWJ, flags, skin tones,
/// keycaps, variation selectors), combining marks, 2- and 4-byte letters.
const WIDE: &[&str] = &[
    "─",
    "│",
    "┼",
    "├",
    "┤",
    "┌",
    "┐",
    "└",
    "┘",
    "┬",
    "┴",
    "═",
    "║",
    "╬",
    "部署完成",
    "令牌",
    "東京",
    "用户名",
    "密码",
    "비밀번호",
    "👩\u{200d}👩\u{200d}👧\u{200d}👦",
    "🇩🇪",
    "🇯🇵",
    "🇺🇳",
    "👍🏽",
    "🧑🏻\u{200d}💻",
    "❤\u{fe0f}\u{200d}🔥",
    "1\u{fe0f}\u{20e3}",
    "🏳\u{fe0f}\u{200d}🌈",
    "🔑",
    "✨",
    "e\u{301}",
    "Z\u{337}\u{322}\u{34e}",
    "n\u{303}",
    "\u{200d}",
    "\u{fe0f}",
    "\u{feff}",
    "ü",
    "ß",
    "é",
    "✓",
    "→",
    "𝕏",
    "\u{10ffff}",
];

const GHP: &str = "ghp_d0WpixpxbB4r6bSr0pFBOPCWBRDFOxEzf5FJ";
const KEY: &str = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAIhpIwLj3jGEucdgMLwZadzJ20eC/c8K+r/quybX+cFdKnNtd\nlwldFa4vu3K5e1ZasZVhRMih6+azOiWl6RK/CVUTCJkhmM9fykBc+qcqk2CFFiT+\n-----END RSA PRIVATE KEY-----";
const LITERAL: &str = "geheimnis-schlüssel-✓";

/// Secret shapes the detector masks, and names that make what follows one.
const SECRETS: &[&str] = &[
    GHP,
    "AKIAQX3NDBLT4VKM7J2P",
    "xoxb-543034082470-1434766027622-9KOVkyqwGUWJRNsOIQsWCa0l",
    "sk_live_abcdefghijklmnopqrstuvwx",
    "glpat-dnfECc2xbNDaWdoqNdTO",
    "password=s3cr3t-P4ssw0rd",
    "DB_PASSWORD: \"hünter2-sëcret─密码\"",
    "export API_KEY=Zq8RtY3vWm1KpL6nBx4CdF7gHj2sAe9T",
    "{\"token\": \"秘密-ghp_d0WpixpxbB4r6bSr0pFBOPCWBRDFOxEzf5FJ\"}",
    "postgres://admin:S3cretPassw0rd@db.example.com:5432/app",
    "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "\\u003cghp_d0WpixpxbB4r6bSr0pFBOPCWBRDFOxEzf5FJ\\u003e",
    "?q=password%3Dhunter2secret&x=1",
    "Z2hwX2QwV3BpeHB4YkI0cjZiU3IwcEZCT1BDV0JSREZPeEV6ZjVGSg==",
    KEY,
    "| api_key | Zq8RtY3vWm1KpL6nBx4CdF7g |",
    "\x1b[1mpassword\x1b[0m=\"",
    "\x1b[33mGITHUB_TOKEN\x1b[0m=",
    "acme_a1b2c3d4e5f6a7b8c9d0a1b2c3d4e5f6",
    LITERAL,
    "correct-horse-battery-staple",
    "password",
    "token: ",
    "secret=\"",
];

/// What sits between: blanks, line ends, operators, quotes, escapes.
const GLUE: &[&str] = &[
    " ", "\n", "  ", "\t", "=", ": ", "\"", "│ ", " │", "\r\n", "\x1b[36m", "\x1b[0m", "\x1b",
    "\\", "%", "&", "?", "'", "<", ">", ",",
];

pub struct RedactionStream {
    /// With an operator pattern (which holds back 1 KiB more) and without.
    redactors: [Redactor; 2],
    texts: u64,
    masked: u64,
    /// Streamed outputs that masked more than the whole text's redaction.
    more: u64,
    chunks: u64,
    bytes: u64,
    wide_bytes: u64,
}

impl Default for RedactionStream {
    fn default() -> Self {
        Self::new()
    }
}

impl RedactionStream {
    pub fn new() -> RedactionStream {
        let literals = vec![LITERAL.to_string(), "correct-horse-battery-staple".into()];
        let with = Config::parse(
            r#"{"patterns":[{"name":"acme-key","regex":"acme_[a-z0-9]{32}","test":"acme_0123456789abcdef0123456789abcdef"}]}"#,
        )
        .expect("a valid config");
        RedactionStream {
            redactors: [
                Redactor::new(&literals).with_patterns(with.compiled_patterns()),
                Redactor::new(&literals),
            ],
            texts: 0,
            masked: 0,
            more: 0,
            chunks: 0,
            bytes: 0,
            wide_bytes: 0,
        }
    }
}

impl Target for RedactionStream {
    fn name(&self) -> &'static str {
        "redaction_stream"
    }

    fn generate(&mut self, u: &mut Unstructured) -> Result<Vec<u8>> {
        let target = u.int_in_range(64..=12_288usize)?;
        let mut text = String::new();
        while text.len() < target && !u.is_empty() {
            match u.int_in_range(0..=9u8)? {
                // A run of one wide piece: a table's rule, a line of CJK.
                0..=2 => {
                    let piece = u.choose(WIDE)?;
                    text.push_str(&piece.repeat(u.int_in_range(1..=400)?));
                }
                3 => text.push_str(u.choose(WIDE)?),
                4 | 5 => text.push_str(u.choose(SECRETS)?),
                6 | 7 => text.push_str(u.choose(GLUE)?),
                // A row of a box-drawn table with a secret or a word in a cell.
                8 => {
                    let width = u.int_in_range(4..=60usize)?;
                    let cell = if u.ratio(1, 2)? {
                        u.choose(SECRETS)?
                    } else {
                        u.choose(WIDE)?
                    };
                    let fill = " ".repeat(width.saturating_sub(cell.chars().count()));
                    text.push_str(&format!(
                        "│ NAME_{width} │ {cell}{fill} │\n├{}┼{}┤\n",
                        "─".repeat(width),
                        "─".repeat(width + 2)
                    ));
                }
                // ASCII prose, so that lines and words have lengths of
                // every kind.
                _ => text.push_str(&"lorem ipsum dolor ".repeat(u.int_in_range(1..=20)?)),
            }
        }
        Ok(text.into_bytes())
    }

    fn run(&mut self, input: &[u8]) -> Outcome {
        let text = String::from_utf8_lossy(input);
        let mut rng = Rng::new(fnv(input));
        let r = &self.redactors[rng.below(2)];
        let whole = r.redact(&text);
        self.texts += 1;
        self.masked += u64::from(whole.contains("[REDACTED:"));
        self.bytes += text.len() as u64;
        self.wide_bytes += text.bytes().filter(|b| !b.is_ascii()).count() as u64;
        let points: Vec<usize> = (1..text.len())
            .filter(|&c| text.is_char_boundary(c))
            .collect();
        let pick = |rng: &mut Rng| -> Option<usize> {
            (!points.is_empty()).then(|| points[rng.below(points.len())])
        };

        let mut more = 0;
        let mut check = |got: &str, cuts: &[usize], plan: &str| {
            if got != whole {
                no_leak(r, &text, &whole, cuts, got, plan);
                more += 1;
            }
        };
        // Two chunks.
        let two: Vec<usize> = pick(&mut rng).into_iter().collect();
        check(&streamed(r, &text, &two), &two, "two chunks");
        // Many chunks at random places.
        let mut many: Vec<usize> = (0..1 + rng.below(32))
            .filter_map(|_| pick(&mut rng))
            .collect();
        many.sort_unstable();
        many.dedup();
        check(&streamed(r, &text, &many), &many, "random chunks");
        // Chunks of one size around the context kept (1 KiB), or small.
        let size = if rng.one_in(4) {
            1 + rng.below(64)
        } else {
            1000 + rng.below(2200)
        };
        let sized = every(&text, size);
        check(&streamed(r, &text, &sized), &sized, "chunks of one size");
        // Two streams at once, their chunks interleaved.
        let outs = interleaved(r, &text, &[&many, &sized]);
        for (out, cuts) in outs.iter().zip([&many, &sized]) {
            check(out, cuts, "interleaved streams");
        }
        self.more += more;
        // The runner's quiet signal between chunks: what is held goes out
        // masked as it stands (not the whole text's masking), and the stream
        // goes on. It must not panic.
        let quiet: Vec<bool> = many.iter().map(|_| rng.one_in(3)).collect();
        let mut streams = Streams::default();
        let mut from = 0;
        for (&cut, &quiet) in many.iter().zip(&quiet) {
            streams.filter(r, chunk("q", &text[from..cut], false));
            if quiet {
                streams.filter(r, chunk("q", "", false));
            }
            from = cut;
        }
        streams.filter(r, chunk("q", &text[from..], true));
        let quiets = quiet.iter().filter(|&&q| q).count();
        // Two chunks; random ones three times (alone, interleaved, quiet); sized
        // ones twice.
        self.chunks += (two.len() + 3 * many.len() + 2 * sized.len() + 6 + quiets) as u64;
        Outcome::Ok
    }

    fn stats(&self) -> Option<String> {
        let texts = self.texts.max(1);
        Some(format!(
            "{} texts, {:.0}% with a mask, {:.0} bytes each ({:.0}% in multi-byte characters), {} chunks; {} of {} streamed outputs masked more than the whole text's",
            self.texts,
            100.0 * self.masked as f64 / texts as f64,
            self.bytes as f64 / texts as f64,
            100.0 * self.wide_bytes as f64 / self.bytes.max(1) as f64,
            self.chunks,
            self.more,
            5 * self.texts
        ))
    }
}

/// A streamed output `got` that is not the whole text's redaction
/// (`whole`) must not show what `whole` masks, whole or in part.
fn no_leak(r: &Redactor, text: &str, whole: &str, cuts: &[usize], got: &str, plan: &str) {
    if redaction::oracle::shown_more(r, text, whole, got).is_some() {
        fail(plan, text, cuts, got, whole);
    }
}

fn chunk(stream: &str, text: &str, last: bool) -> TranscriptEntry {
    TranscriptEntry {
        stream_id: stream.into(),
        kind: EntryKind::AgentMessage,
        text: text.into(),
        last,
        replay: false,
    }
}

/// `text` as one stream cut at `cuts` (ascending char boundaries).
fn streamed(r: &Redactor, text: &str, cuts: &[usize]) -> String {
    interleaved(r, text, &[cuts]).remove(0)
}

/// `text` as one stream per cut list, all through one filter, their chunks
/// taken in turn.
fn interleaved(r: &Redactor, text: &str, cuts: &[&[usize]]) -> Vec<String> {
    let mut streams = Streams::default();
    let mut outs = vec![String::new(); cuts.len()];
    let mut next = vec![(0, 0); cuts.len()]; // (cut index, byte offset)
    let mut open = cuts.len();
    while open > 0 {
        for (k, cuts) in cuts.iter().enumerate() {
            let (i, from) = next[k];
            if i > cuts.len() {
                continue;
            }
            let id = format!("s{k}");
            let entry = match cuts.get(i) {
                Some(&cut) => chunk(&id, &text[from..cut], false),
                None => {
                    open -= 1;
                    chunk(&id, &text[from..], true)
                }
            };
            outs[k].push_str(&streams.filter(r, entry).text);
            next[k] = (i + 1, cuts.get(i).copied().unwrap_or(text.len()));
        }
    }
    outs
}

/// Cuts every `size` bytes, each moved on to a char boundary.
fn every(text: &str, size: usize) -> Vec<usize> {
    let mut cuts = Vec::new();
    let mut at = size;
    while at < text.len() {
        at = text.ceil_char_boundary(at);
        if at >= text.len() {
            break;
        }
        cuts.push(at);
        at += size;
    }
    cuts
}

/// A streamed output that shows what the whole text's redaction masks: a
/// panic whose first line names only the plan (one finding per plan), then
/// where it differs.
fn fail(plan: &str, text: &str, cuts: &[usize], got: &str, want: &str) -> ! {
    let at = got
        .bytes()
        .zip(want.bytes())
        .position(|(a, b)| a != b)
        .unwrap_or(got.len().min(want.len()));
    let around = |s: &str| {
        let lo = s.floor_char_boundary(at.saturating_sub(60));
        s[lo..s.ceil_char_boundary((at + 60).min(s.len()))].to_string()
    };
    panic!(
        "redaction_stream: {plan}: the stream leaves visible what the whole text's redaction masks\n  {} bytes cut at {cuts:?}, differs at output byte {at}\n  got  …{:?}…\n  want …{:?}…",
        text.len(),
        around(got),
        around(want)
    )
}

fn fnv(input: &[u8]) -> u64 {
    input.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}
