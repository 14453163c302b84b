//! Streamed text full of multi-byte characters: box-drawn tables (what
//! `doppler secrets`, `psql` and `kubectl` print), CJK, emoji (ZWJ
//! sequences, flags, skin tones), combining marks, with secrets in and
//! between them. Whatever the chunking, nothing panics and the stream comes
//! out exactly as the whole text would (`stream.rs`: the context kept
//! between chunks and every cut are on char boundaries).
//!
//! One kind of text is not masked exactly the same, by design: a run
//! without whitespace longer than what is decoded for escapes (4 KiB, a box
//! rule of `┴`, or `***`) holding `\u003c…`. The whole text leaves it
//! undecoded; a stream keeps only the last 1 KiB of a line as context, so
//! there the run seems to start 1 KiB back, short enough to decode: the
//! stream masks more. For such a scenario what is asserted is that nothing
//! the whole text's redaction masks is left visible by the stream.
//!
//! Each text is long (several KiB, lines up to several KiB), so that the
//! context kept between chunks (1 KiB) and the hold-back's look-behinds
//! start and end inside characters. The values are random, shaped like the
//! real formats: none is a live credential.

mod support;

use support::{Rng, streamed};

use redaction::Config;
use redaction::detect::Redactor;

const GHP: &str = "ghp_d0WpixpxbB4r6bSr0pFBOPCWBRDFOxEzf5FJ";
const AKIA: &str = "AKIAQX3NDBLT4VKM7J2P";
const PASSWORD: &str = "s3cr3t-P4ssw0rd";
const KEY: &str = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAIhpIwLj3jGEucdgMLwZadzJ20eC/c8K+r/quybX+cFdKnNtd\nlwldFa4vu3K5e1ZasZVhRMih6+azOiWl6RK/CVUTCJkhmM9fykBc+qcqk2CFFiT+\nAoVciH249uFDK+NMBhBxhCGxtHsOa+DW1CoMXN6T3HPuHR8izlL3vMriFOVB1pLy\n-----END RSA PRIVATE KEY-----";
/// A piece of the key's body: gone when the block is masked.
const KEY_BODY: &str = "MIIEowIBAAKCAQEAIhpIwLj3jGEucdgMLwZadzJ20eC";
const LITERAL: &str = "geheimnis-schlüssel-✓";

/// A box-drawn table (`┌─┬─┐ │ │ ├─┼─┤ └─┴─┘`) of `rows`, each cell padded
/// to its column's width in characters.
fn boxed(header: &[&str], rows: &[Vec<String>]) -> String {
    let width = |i: usize| {
        rows.iter()
            .map(|r| r[i].chars().count())
            .chain([header[i].chars().count()])
            .max()
            .unwrap()
            + 2
    };
    let widths: Vec<usize> = (0..header.len()).map(width).collect();
    let rule = |l: &str, m: &str, r: &str| {
        let cells: Vec<String> = widths.iter().map(|&w| "─".repeat(w)).collect();
        format!("{l}{}{r}\n", cells.join(m))
    };
    let line = |cells: Vec<&str>| {
        let cells: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, &w)| format!(" {c}{} ", " ".repeat(w - 2 - c.chars().count())))
            .collect();
        format!("│{}│\n", cells.join("│"))
    };
    let mut out = rule("┌", "┬", "┐");
    out += &line(header.to_vec());
    out += &rule("├", "┼", "┤");
    for (k, row) in rows.iter().enumerate() {
        if k > 0 && k % 4 == 0 {
            out += &rule("├", "┼", "┤");
        }
        out += &line(row.iter().map(String::as_str).collect());
    }
    out + &rule("└", "┴", "┘")
}

/// `doppler secrets`: names and values, the secrets among ordinary ones.
fn doppler() -> String {
    let mut rows = Vec::new();
    for k in 0..12 {
        rows.push(vec![format!("LOG_LEVEL_{k}"), "info ✓ débogage".into()]);
        rows.push(vec![format!("REGION_{k}"), "eu-central-1 → 東京".into()]);
        match k % 3 {
            0 => rows.push(vec!["GITHUB_TOKEN".into(), GHP.into()]),
            1 => rows.push(vec!["AWS_ACCESS_KEY_ID".into(), AKIA.into()]),
            _ => rows.push(vec!["NOTE".into(), "ünïcödé ─ fine".into()]),
        }
    }
    format!(
        "$ doppler secrets\n{}",
        boxed(&["NAME", "VALUE (raw) ✓"], &rows)
    )
}

/// `psql`: a result with CJK names and keys in a column.
fn psql() -> String {
    let mut out = String::from(
        " id │ 用户名   │ 备注                         │ api_key\n────┼──────────┼──────────────────────────────┼──────────────────────\n",
    );
    for k in 0..40 {
        let key = if k % 7 == 3 { AKIA } else { "—" };
        out += &format!(" {k:>2} │ 张伟{k:<4} │ 部署完成，令牌已轮换。ok      │ {key}\n");
    }
    out + "(40 行记录)\n"
}

/// `kubectl get secret -o yaml` and env lines between CJK prose.
fn kubectl_cjk() -> String {
    let mut out = String::new();
    for k in 0..30 {
        out += &format!("部署完成。第{k}步：请妥善保管令牌。──────────────\n");
        if k % 5 == 2 {
            out += &format!("export DB_PASSWORD={PASSWORD} # 密码，勿外传\n");
            out += &format!("令牌 token: {GHP} 已生成\n");
        }
    }
    out
}

/// Emoji: ZWJ families, flags, skin tones, keycaps, around keys.
fn emoji() -> String {
    let line = "👩‍👩‍👧‍👦 🇩🇪🇯🇵🇺🇳 👍🏽👋🏿 🧑🏻‍💻 ❤️‍🔥 1️⃣ 🏳️‍🌈 ";
    let mut out = String::new();
    for k in 0..24 {
        out += &line.repeat(1 + k % 3);
        match k % 6 {
            1 => out += &format!("🔑 {AKIA} 🔑"),
            4 => out += &format!("token ✨{GHP}✨ done"),
            _ => {}
        }
        out.push('\n');
    }
    out
}

/// Combining marks (Zalgo, decomposed accents) around a PEM block.
fn combining() -> String {
    let zalgo = "Z̷̢͎̺a̵̛̮̭l̶̡̰̈g̴̰̓o̸̞̔ e\u{301}te\u{301} n\u{303}o\u{308} ";
    format!(
        "{}\n$ cat id_rsa\n{KEY}\n{}\npassword={PASSWORD}\n{}",
        zalgo.repeat(40),
        zalgo.repeat(25),
        zalgo.repeat(30)
    )
}

/// One line of box drawing longer than the context, secrets inside it.
fn long_line() -> String {
    let bar = "─".repeat(700);
    format!("{bar}┼{bar} password={PASSWORD} {bar} {GHP} ┤{bar}\n{bar} {AKIA}{bar}")
}

/// Values made of multi-byte characters (4 KiB, the most a value is read,
/// ends inside a character), plain and coloured; and a value that the text
/// as it is closes with the quote that, without colours, opens the next one.
fn multibyte_values() -> String {
    let long = "─".repeat(1400);
    format!(
        "password=\"{long}\" and\n\x1b[1mpassword\x1b[0m=\"{long}\" x\napi_key={long}═ y\n{{\"token\": \"秘密{long}\"}}\n\x1b[33mGITHUB_TOKEN\x1b[0m={GHP} ✓\n\x1bsecret=\"{}\x1b[0m\x1b[1mpassword\x1b[0m=\"lorem ipsum dolor\n",
        "╬".repeat(300)
    )
}

/// A box table drawn with colours, and a literal with non-ASCII letters.
fn coloured_table() -> String {
    let mut out = String::new();
    for k in 0..30 {
        let value = match k % 5 {
            1 => GHP.to_string(),
            3 => format!("{LITERAL} ✓"),
            _ => format!("wert-{k}-ünïcödé"),
        };
        out += &format!(
            "\x1b[36m│\x1b[0m KEY_{k:<10} \x1b[36m│\x1b[0m {value:<44} \x1b[36m│\x1b[0m\n\x1b[36m├────────────────┼──────────────────────────────────────────────┤\x1b[0m\n"
        );
    }
    out
}

/// Everything together.
fn mixed() -> String {
    [doppler(), emoji(), combining(), psql()].join("\n🇩🇪 ─ 東京 ─\n")
}

/// A run without whitespace longer than what is decoded (4 KiB), an
/// escaped token in it: decoded in a stream only (see the top).
fn long_escaped_field() -> String {
    format!(
        "{}\\u003c{GHP}\\u003e{} and {AKIA}\n{}",
        "┴".repeat(1500),
        "┴".repeat(100),
        "─".repeat(600)
    )
}

struct Scenario {
    name: &'static str,
    text: fn() -> String,
    /// What the whole text's redaction must mask (so that no comparison is
    /// of texts with nothing to mask).
    masked: &'static [&'static str],
    /// Streamed exactly as the whole; else only nothing the whole masks is
    /// left visible.
    exact: bool,
}

const fn exact(
    name: &'static str,
    text: fn() -> String,
    masked: &'static [&'static str],
) -> Scenario {
    Scenario {
        name,
        text,
        masked,
        exact: true,
    }
}

const SCENARIOS: &[Scenario] = &[
    exact("doppler box table", doppler, &[GHP, AKIA]),
    exact("psql CJK result", psql, &[AKIA]),
    exact("kubectl CJK prose", kubectl_cjk, &[GHP, PASSWORD]),
    exact("emoji ZWJ flags", emoji, &[GHP, AKIA]),
    exact("combining marks PEM", combining, &[KEY_BODY, PASSWORD]),
    exact("one long box line", long_line, &[GHP, AKIA, PASSWORD]),
    exact("multi-byte values", multibyte_values, &[GHP]),
    exact("coloured box table", coloured_table, &[GHP, LITERAL]),
    exact("all mixed", mixed, &[GHP, AKIA, KEY_BODY, PASSWORD]),
    Scenario {
        name: "escaped token in a 4 KiB box run",
        text: long_escaped_field,
        masked: &[AKIA],
        exact: false,
    },
];

/// Redactors as the plug builds them: literals (one not ASCII) with and
/// without an operator pattern (which holds back 1 KiB more).
fn redactors() -> [Redactor; 2] {
    let literals = vec![LITERAL.to_string(), "correct-horse-battery-staple".into()];
    let with = Config::parse(
        r#"{"patterns":[{"name":"acme-key","regex":"acme_[a-z0-9]{32}","test":"acme_0123456789abcdef0123456789abcdef"}]}"#,
    )
    .unwrap();
    [
        Redactor::new(&literals).with_patterns(with.compiled_patterns()),
        Redactor::new(&literals),
    ]
}

fn boundaries(text: &str) -> Vec<usize> {
    (0..=text.len())
        .filter(|&c| text.is_char_boundary(c))
        .collect()
}

/// One scenario with one redactor: its text and whole redaction, checked to
/// mask what it must.
struct Case {
    scenario: &'static Scenario,
    r: Redactor,
    text: String,
    whole: String,
}

impl Case {
    /// What is wrong with `got`, the text streamed cut at `cuts`.
    fn check(&self, cuts: &[usize], got: &str) -> Option<String> {
        let name = self.scenario.name;
        if self.scenario.exact || got == self.whole {
            return (got != self.whole).then(|| describe(name, &self.text, cuts, got, &self.whole));
        }
        // Nothing the whole text's redaction masks is seen, whole or in part.
        redaction::oracle::shown_more(&self.r, &self.text, &self.whole, got).map(|shown| {
            format!(
                "{name}: {shown:?} masked whole, visible streamed\n{}",
                describe(name, &self.text, cuts, got, &self.whole)
            )
        })
    }
}

fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for scenario in SCENARIOS {
        let (name, text) = (scenario.name, (scenario.text)());
        assert!(text.len() > 3 << 10, "{name}: {} bytes", text.len());
        assert!(
            text.len() > text.chars().count() * 3 / 2,
            "{name}: mostly ASCII"
        );
        for r in redactors() {
            let whole = r.redact(&text).into_owned();
            assert!(whole.contains("[REDACTED:"), "{name}: nothing masked");
            for s in scenario.masked {
                assert!(!whole.contains(s), "{name}: {s:?} not masked whole");
            }
            cases.push(Case {
                scenario,
                r,
                text: text.clone(),
                whole,
            });
        }
    }
    cases
}

fn describe(name: &str, text: &str, cuts: &[usize], got: &str, want: &str) -> String {
    let at = got
        .bytes()
        .zip(want.bytes())
        .position(|(a, b)| a != b)
        .unwrap_or(got.len().min(want.len()));
    let around = |s: &str| {
        let lo = s.floor_char_boundary(at.saturating_sub(80));
        let hi = s.ceil_char_boundary((at + 80).min(s.len()));
        s[lo..hi].to_string()
    };
    format!(
        "{name} ({} bytes) cut at {cuts:?}: differs at byte {at}\n   got …{:?}…\n  want …{:?}…",
        text.len(),
        around(got),
        around(want)
    )
}

/// Two chunks, split at every char boundary of every text.
#[test]
fn every_single_cut_of_multibyte_text_masks_the_same() {
    let mut failures = Vec::new();
    let mut count = 0;
    for case in cases() {
        for cut in boundaries(&case.text) {
            count += 1;
            let got = streamed(&case.r, &case.text, &[cut]);
            if let Some(failure) = case.check(&[cut], &got) {
                failures.push(failure);
                break;
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(count > 40_000, "{count}");
}

/// Many chunks, cut at random char boundaries (a fixed seed).
#[test]
fn random_multi_cut_splits_of_multibyte_text_mask_the_same() {
    let mut rng = Rng(0x5eed_b0c5_d1ce_2051);
    let mut failures = Vec::new();
    for case in cases() {
        let text = &case.text;
        let points = boundaries(text);
        for _ in 0..200 {
            let n = 1 + rng.below(32);
            let mut cuts: Vec<usize> = (0..n)
                .map(|_| points[rng.below(points.len())])
                .filter(|&c| c > 0 && c < text.len())
                .collect();
            // An empty chunk that is not the last is the runner's word that
            // the stream went quiet (what is held goes out): not a cut.
            cuts.sort_unstable();
            cuts.dedup();
            let got = streamed(&case.r, text, &cuts);
            if let Some(failure) = case.check(&cuts, &got) {
                failures.push(failure);
                break;
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Chunks of one character each, and of 1 KiB plus one byte moved to a
/// boundary (each cut lands at a different place in a character).
#[test]
fn char_by_char_and_odd_sized_chunks_mask_the_same() {
    for case in cases() {
        let text = &case.text;
        let cuts: Vec<usize> = text.char_indices().map(|(i, _)| i).skip(1).collect();
        let got = streamed(&case.r, text, &cuts);
        if let Some(failure) = case.check(&cuts, &got) {
            panic!("char by char: {failure}");
        }
        for size in [1025, 1026, 1027, 3001] {
            let mut cuts = Vec::new();
            let mut at = size;
            while at < text.len() {
                at = text.ceil_char_boundary(at);
                cuts.push(at);
                at += size;
            }
            cuts.pop_if(|&mut c| c >= text.len());
            let got = streamed(&case.r, text, &cuts);
            if let Some(failure) = case.check(&cuts, &got) {
                panic!("{failure}");
            }
        }
    }
}
