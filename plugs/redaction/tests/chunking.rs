//! Whatever the chunking, a stream comes out exactly as the whole text
//! would: every cut point of every text, many random multi-cut splits (a
//! fixed-seed PRNG), and 4 KiB against 64 KiB chunks of a large text.
//!
//! The values are random, shaped like the real formats: none is a live
//! credential.

mod support;

use support::{Rng, streamed};

use redaction::Config;
use redaction::detect::Redactor;

const GHP: &str = "ghp_d0WpixpxbB4r6bSr0pFBOPCWBRDFOxEzf5FJ";
const KEY: &str = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAIhpIwLj3jGEucdgMLwZadzJ20eC/c8K+r/quybX+cFdKnNtd\nlwldFa4vu3K5e1ZasZVhRMih6+azOiWl6RK/CVUTCJkhmM9fykBc+qcqk2CFFiT+\nAoVciH249uFDK+NMBhBxhCGxtHsOa+DW1CoMXN6T3HPuHR8izlL3vMriFOVB1pLy\n-----END RSA PRIVATE KEY-----";

/// Redactors built as the plug builds them: with a literal, and with or
/// without an operator pattern (whose 1 KiB hold-back would hide a shorter
/// one that is missing).
fn redactors() -> [Redactor; 2] {
    let with = Config::parse(
        r#"{"literals":["correct-horse-battery-staple"],
            "patterns":[{"name":"acme-key","regex":"acme_[a-z0-9]{32}","test":"acme_0123456789abcdef0123456789abcdef"}]}"#,
    )
    .unwrap();
    let without = Config::parse(r#"{"literals":["correct-horse-battery-staple"]}"#).unwrap();
    [
        Redactor::new(&with.literals).with_patterns(with.compiled_patterns()),
        Redactor::new(&without.literals),
    ]
}

fn texts() -> Vec<String> {
    let json_key = KEY.replace('\n', "\\n");
    let b64_env = "REJfSE9TVD1kYgpEQl9QQVNTV09SRD1odW50ZXIyc2VjcmV0WAo=";
    let b64_token = "Z2hwX2QwV3BpeHB4YkI0cjZiU3IwcEZCT1BDV0JSREZPeEV6ZjVGSg==";
    let short = vec![
        format!("token: {GHP} done"),
        "export DB_PASSWORD=s3cr3t-P4ssw0rd && run".to_string(),
        format!("$ cat id_rsa\n{KEY}\n$ "),
        format!("KEY={KEY}\nNEXT=1"),
        format!("KEY=\"{}\" next", KEY.replace('\n', " ")),
        format!(r#"{{"private_key": "{json_key}\n", "id": 1}}"#),
        format!("{}\n(truncated)", &KEY[..200]),
        "The file starts with `-----BEGIN RSA PRIVATE KEY-----` and then\nprose, then much later -----END RSA PRIVATE KEY----- ends.".to_string(),
        "-----BEGIN EC PRIVATE KEY-----\n\nnothing here".to_string(),
        r#"{"dsn":"postgres:\/\/admin:S3cretPassw0rd@db.example.com:5432\/app"} next"#.to_string(),
        format!(r#"{{"body":"\u003c{GHP}\u003e"}} and \u003cdiv\u003e"#),
        "GET /login?q=password%3Dhunter2secret&lang=en HTTP/1.1".to_string(),
        format!("GET /cb?next=%2Fhome%3Ftoken%3D{GHP}%26x%3D1 then a%2Fb%3Dc"),
        format!("data:\n  .env: {b64_env}\n  token: {b64_token}\n  other: {b64_token}x"),
        format!("echo {b64_token} | base64 -d; t=Z2hwX2QwV3BpeHB4YkI0cjZiU3IwcEZCT1BDV0JSREZPeEV6ZjVGSg&x=1"),
        "Authorization: Basic dXNlcjpodW50ZXIyc2VjcmV0\n".to_string(),
        "key acme_a1b2c3d4e5f6a7b8c9d0a1b2c3d4e5f6 and acme_short and correct-horse-battery-staple.".to_string(),
        "<img src=\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==\">".to_string(),
        "Läuft: password=hünter2-ü and ünïcödé \\u00e9 %C3%A9 done".to_string(),
    ];
    let mut all = short.clone();
    // Long ones: everything together, and a key past a lot of prose.
    all.push(short.join("\n"));
    // Fields without whitespace around the bound of what is decoded (4 KiB):
    // decoded or not, the same whatever the cuts.
    for len in [3000, 5000] {
        all.push(format!(
            "pre {}\\u003c{GHP}\\u003e%3Dpassword%3Dhunter2secret{} post",
            "ab".repeat(len / 2),
            "cd".repeat(200)
        ));
    }
    // A value read to its longest (4 KiB, not closed) whose bytes are no
    // word's: a cut in its last bytes still finds its name.
    all.push(format!("password=\"{}\" and more", "ab ".repeat(1400)));
    // Read as it is, the first value ends at the quote that, read without
    // colours, opens the second: cut back for one reading, the other's value
    // is open there.
    all.push(
        "x \x1bsecret=\"!!!!!!!!!!\x1b[0m\x1b[1mpassword\x1b[0m=\"lorem ipsum dolor".to_string(),
    );
    all.push(format!(
        "{}\n{KEY}\n{}",
        "Some prose about keys and tokens. ".repeat(60),
        short[8..13].join(" ")
    ));
    all
}

fn boundaries(text: &str) -> Vec<usize> {
    (0..=text.len())
        .filter(|&c| text.is_char_boundary(c))
        .collect()
}

#[test]
fn every_single_cut_masks_the_same() {
    let mut failures = Vec::new();
    let mut count = 0;
    for (r, text) in redactors()
        .iter()
        .flat_map(|r| texts().into_iter().map(move |t| (r, t)))
    {
        let whole = r.redact(&text);
        for cut in boundaries(&text) {
            count += 1;
            let got = streamed(r, &text, &[cut]);
            if got != whole {
                failures.push(format!(
                    "cut at {cut}: {:?} | {:?}\n   got {got:?}\n  want {whole:?}",
                    &text[cut.saturating_sub(60)..cut],
                    &text[cut..(cut + 60).min(text.len())]
                ));
                break;
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(count > 5000, "{count}");
}

#[test]
fn random_multi_cut_splits_mask_the_same() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut failures = Vec::new();
    for (r, text) in redactors()
        .iter()
        .flat_map(|r| texts().into_iter().map(move |t| (r, t)))
    {
        let whole = r.redact(&text);
        let points = boundaries(&text);
        for _ in 0..300 {
            let n = 1 + rng.below(24);
            let mut cuts: Vec<usize> = (0..n)
                .map(|_| points[rng.below(points.len())])
                .filter(|&c| c > 0 && c < text.len())
                .collect();
            // An empty chunk that is not the last is the runner's word that
            // the stream went quiet (what is held goes out): not a cut.
            cuts.sort_unstable();
            cuts.dedup();
            let got = streamed(r, &text, &cuts);
            if got != whole {
                failures.push(format!(
                    "{text:?} cut at {cuts:?}\n   got {got:?}\n  want {whole:?}"
                ));
                break;
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn char_by_char_masks_the_same() {
    for (r, text) in redactors()
        .iter()
        .flat_map(|r| texts().into_iter().map(move |t| (r, t)))
    {
        let cuts: Vec<usize> = text.char_indices().map(|(i, _)| i).skip(1).collect();
        assert_eq!(streamed(r, &text, &cuts), r.redact(&text), "{text:?}");
    }
}

/// Cut points every `size` bytes (moved to a char boundary).
fn every(text: &str, size: usize) -> Vec<usize> {
    let mut cuts = Vec::new();
    let mut at = size;
    while at < text.len() {
        let mut c = at;
        while !text.is_char_boundary(c) {
            c += 1;
        }
        cuts.push(c);
        at = c + size;
    }
    cuts
}

#[test]
fn small_and_large_chunks_of_a_large_text_mask_the_same() {
    for r in &redactors() {
        large_text_chunks(r);
    }
}

fn large_text_chunks(r: &Redactor) {
    let mut rng = Rng(42);
    let texts = texts();
    let mut big = String::new();
    while big.len() < 2 << 20 {
        big.push_str(&texts[rng.below(texts.len())]);
        big.push_str(["\n", " ", "", "\n\n"][rng.below(4)]);
    }
    let whole = r.redact(&big);
    assert_ne!(whole, big, "the text holds secrets");
    let small = streamed(r, &big, &every(&big, 4 << 10));
    let large = streamed(r, &big, &every(&big, 64 << 10));
    assert!(small == large, "4 KiB and 64 KiB chunks differ");
    assert!(
        small == whole,
        "chunked output differs from the whole text's"
    );
}

#[test]
fn what_is_held_back_stays_bounded() {
    let [r, _] = redactors();
    // A word that never ends, escapes, an open key: never more than MAX_HOLD.
    for text in [
        "a".repeat(200 << 10),
        "x%3D".repeat(50 << 10),
        format!(
            "-----BEGIN RSA PRIVATE KEY-----\n{}",
            "QUJDREVG\n".repeat(20 << 10)
        ),
    ] {
        let cut = r.hold_back_from(&text);
        assert!(
            text.len() - cut <= redaction::detect::MAX_HOLD,
            "{}",
            text.len() - cut
        );
    }
}
