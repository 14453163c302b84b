//! The labelled corpus (positives of both sets, negatives) and the
//! transcript for throughput, all generated from a seed at bench time.

use std::ops::Range;

use super::contexts::{self, Ctx};

type Contexts = &'static [(&'static str, Ctx)];
use super::negatives::NEGATIVES;
use super::rng::*;
use super::vendors::VENDORS;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Set {
    Tuning,
    HeldOut,
    Negative,
}

pub struct Row {
    pub id: usize,
    pub set: Set,
    /// The vendor, or the kind of negative.
    pub kind: &'static str,
    pub context: &'static str,
    pub text: String,
    /// Where the planted secret is; `None` for a negative.
    pub secret: Option<Range<usize>>,
    /// Where a streamed row is cut into chunks; empty: delivered whole.
    pub cuts: Vec<usize>,
}

impl Row {
    pub fn streamed(&self) -> bool {
        !self.cuts.is_empty()
    }

    /// The chunks and where each starts.
    pub fn chunks(&self) -> Vec<(usize, &str)> {
        let mut out = Vec::new();
        let mut from = 0;
        for &c in self.cuts.iter().chain(std::iter::once(&self.text.len())) {
            out.push((from, &self.text[from..c]));
            from = c;
        }
        out
    }
}

/// Fraction of rows delivered as a stream.
pub const STREAMED: f64 = 0.3;

fn boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// Cuts at random points, one of them inside `inside` when given.
pub fn cuts(r: &mut Rng, text: &str, inside: Option<&Range<usize>>) -> Vec<usize> {
    let mut out = Vec::new();
    if let Some(s) = inside
        && s.len() > 1
    {
        out.push(boundary(text, s.start + 1 + r.below(s.len() - 1)));
    }
    for _ in 0..r.range(if inside.is_some() { 0 } else { 1 }, 3) {
        out.push(boundary(text, 1 + r.below(text.len().max(2) - 1)));
    }
    out.retain(|&c| c > 0 && c < text.len());
    out.sort_unstable();
    out.dedup();
    out
}

/// `n` positives: vendors round-robin, contexts at random. The held-out set
/// also draws (half of the time) on contexts only it has.
pub fn positives(seed: u64, n: usize, set: Set, first_id: usize) -> Vec<Row> {
    let mut r = Rng::new(seed);
    let mut rows = Vec::with_capacity(n);
    for i in 0..n {
        let (vendor, generate) = VENDORS[i % VENDORS.len()];
        let secret = generate(&mut r);
        let (tuning, held): (Contexts, Contexts) = if secret.block {
            (contexts::BLOCK_TUNING, contexts::BLOCK_HELD_OUT)
        } else {
            (contexts::TOKEN_TUNING, contexts::TOKEN_HELD_OUT)
        };
        let (context, ctx) = if set == Set::HeldOut && r.chance(0.5) {
            *r.pick(held)
        } else {
            *r.pick(tuning)
        };
        let marked = ctx(&mut r, &secret);
        let (text, span) = contexts::finish(&marked);
        let cuts = if r.chance(STREAMED) {
            cuts(&mut r, &text, Some(&span))
        } else {
            Vec::new()
        };
        rows.push(Row {
            id: first_id + i,
            set,
            kind: vendor,
            context,
            text,
            secret: Some(span),
            cuts,
        });
    }
    rows
}

pub fn negatives(seed: u64, n: usize, first_id: usize) -> Vec<Row> {
    let mut r = Rng::new(seed);
    (0..n)
        .map(|i| {
            let (kind, generate) = NEGATIVES[i % NEGATIVES.len()];
            let text = generate(&mut r);
            let cuts = if r.chance(STREAMED) {
                cuts(&mut r, &text, None)
            } else {
                Vec::new()
            };
            Row {
                id: first_id + i,
                set: Set::Negative,
                kind,
                context: kind,
                text,
                secret: None,
                cuts,
            }
        })
        .collect()
}

const IDENTS: &[&str] = &[
    "entry",
    "chunk",
    "stream",
    "config",
    "redactor",
    "found",
    "text",
    "start",
    "end",
    "kind",
    "bytes",
    "offset",
    "buffer",
    "reader",
    "writer",
    "state",
    "plug",
    "runner",
    "session",
    "transcript",
    "line",
    "word",
    "value",
    "name",
    "index",
    "span",
    "hold",
    "cut",
    "out",
];

fn code(r: &mut Rng, out: &mut String) {
    let f = r.pick(IDENTS);
    let g = r.pick(IDENTS);
    out.push_str(&format!(
        "/// Reads the {f} of a {g} and returns what is left.\npub fn {f}_{g}(&mut self, {g}: &str) -> Option<usize> {{\n"
    ));
    for _ in 0..r.range(4, 30) {
        let (a, b, c) = (r.pick(IDENTS), r.pick(IDENTS), r.pick(IDENTS));
        out.push_str(&match r.below(6) {
            0 => format!("    let {a} = self.{b}.get({c})?;\n"),
            1 => format!(
                "    if {a}.len() > {} {{\n        return None;\n    }}\n",
                r.range(1, 4096)
            ),
            2 => format!(
                "    for {a} in {b}.iter().skip({}) {{\n        {c}.push(*{a});\n    }}\n",
                r.range(0, 9)
            ),
            3 => format!("    // The {a} may hold the {b} of the next {c}.\n"),
            4 => format!(
                "    let {a}: Vec<_> = {b}.split(|&x| x == b'\\n').map(|l| l.len()).collect();\n"
            ),
            _ => format!("    self.{a}.insert({b}.to_string(), {c}.clone());\n"),
        });
    }
    out.push_str("    Some(0)\n}\n\n");
}

fn build_log(r: &mut Rng, out: &mut String) {
    for _ in 0..r.range(10, 60) {
        let c = r.pick(IDENTS);
        out.push_str(&match r.below(5) {
            0 => format!(
                "   Compiling {c}-{} v{}.{}.{}\n",
                r.pick(IDENTS),
                r.range(0, 3),
                r.range(0, 40),
                r.range(0, 20)
            ),
            1 => format!(
                "warning: unused variable: `{c}`\n  --> src/{}.rs:{}:{}\n",
                r.pick(IDENTS),
                r.range(1, 900),
                r.range(1, 80)
            ),
            2 => format!("test {}::{}_{} ... ok\n", r.pick(IDENTS), c, r.pick(IDENTS)),
            3 => format!(
                "    Finished `release` profile [optimized] target(s) in {}.{:02}s\n",
                r.range(1, 300),
                r.range(0, 99)
            ),
            _ => format!(
                "{} INFO {c}: processed {} entries in {} ms (request_id={})\n",
                r.range(1_700_000_000, 1_800_000_000),
                r.range(1, 10_000),
                r.range(1, 999),
                r.chars(HEX, 32)
            ),
        });
    }
}

fn prose(r: &mut Rng, out: &mut String) {
    const S: &[&str] = &[
        "I read the module and the tests first, to see how chunks are held back.",
        "The failing case is a stream cut right after the name of a secret.",
        "Next I will run the whole suite in release mode and compare the timings.",
        "This keeps the allocation out of the hot loop, which was most of the cost.",
        "The change is small: one branch in the dispatcher and a test for it.",
        "Let me check the config schema before touching the parser.",
    ];
    for _ in 0..r.range(2, 8) {
        out.push_str(r.pick::<&str>(S));
        out.push(' ');
    }
    out.push_str("\n\n");
}

/// About `size` bytes of transcript-like text (code, JSON tool results,
/// build logs, prose) with 10 secrets planted; where they are.
pub fn transcript(seed: u64, size: usize) -> (String, Vec<Range<usize>>) {
    let mut r = Rng::new(seed);
    let mut text = String::with_capacity(size + (64 << 10));
    let mut planted = Vec::new();
    let mut next_plant = size / 20;
    while text.len() < size {
        if text.len() >= next_plant && planted.len() < 10 {
            let (_, generate) = VENDORS[r.below(VENDORS.len())];
            let mut s = generate(&mut r);
            while s.block {
                s = VENDORS[r.below(VENDORS.len())].1(&mut r);
            }
            let (t, span) = contexts::finish(&format!("export {}=\"{}\"\n", s.name, s.marked()));
            planted.push(text.len() + span.start..text.len() + span.end);
            text.push_str(&t);
            next_plant += size / 10;
        }
        match r.below(4) {
            0 => code(&mut r, &mut text),
            1 => {
                let mut inner = String::new();
                if r.chance(0.5) {
                    code(&mut r, &mut inner);
                } else {
                    build_log(&mut r, &mut inner);
                }
                text.push_str(&format!(
                    "{{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_{}\",\"content\":\"{}\"}}\n",
                    r.chars(ALNUM, 24),
                    json_escape(&inner)
                ));
            }
            2 => build_log(&mut r, &mut text),
            _ => prose(&mut r, &mut text),
        }
    }
    (text, planted)
}
