//! The redaction plug, compiled to wasm and run by the real host, masks
//! exactly what the same detector masks natively. The two scan a text's
//! words with different code: natively with SSE2, in the plug with wasm's
//! `simd128` (`plugs/redaction/detect/src/token_mask.rs`), so the detector's
//! own tests, which run natively, cannot see a fault in the plug's.

use blaise_runner::host::bindings::{EntryKind, RunKind, TranscriptEntry};
use blaise_runner::host::{Allow, Limits};
use blaise_tests::{World, plug, setup};
use redaction::detect::{Redactor, Seen};
use serde_json::json;

/// Secrets whose words are long (past a 16-byte block, past a 64-byte
/// window), glued to a name by a separator, or inside a URL.
const SECRETS: [&str; 6] = [
    "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
    "AKIAQX3NDBLT4VKM7J2P",
    "GITHUB_TOKEN=ghp_zYxWvUtSrQpOnMlKjIhGfEdCbA9876543210",
    "postgres://app:s3cr3tPassW0rd@db.internal:5432/app",
    "xoxb-1234567890123-1234567890123-aBcDeFgHiJkLmNoPqRsTuVwX",
    "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",
];

/// Each secret after every padding of 0–130 bytes (every lane of a block,
/// every place in and across a window), the padding made of words, spaces,
/// separators and bytes above 0x7f; then a token glued to a name by each of
/// the bytes a word may hold besides letters and digits, where whether the
/// byte ends the word decides what is masked. With whether the text must
/// have something masked.
fn texts() -> Vec<(String, bool)> {
    let filler = "ab-cd:e/f é  word_x=1 , 100% ~u @h +p. ";
    let pad = |n| filler.chars().cycle().take(n).collect::<String>();
    let mut texts = Vec::new();
    for secret in SECRETS {
        for n in 0..=130 {
            texts.push((format!("{} {secret} and {}", pad(n), pad(n / 2)), true));
        }
    }
    for glue in "_-+/=.:@%~,".chars() {
        for n in [0, 13, 50, 63] {
            let token = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789";
            texts.push((format!("{} key{glue}{token}{glue}x end", pad(n)), false));
        }
    }
    texts
}

#[tokio::test]
async fn the_plug_masks_what_the_detector_masks_natively() {
    let w = World::new();
    let loaded = w.host.load(&plug("plugs/redaction")).await.unwrap();
    let s = setup(
        "redaction",
        &loaded,
        json!({}),
        Allow::default(),
        Limits::default(),
    );
    let mut p = w.instance(s, "s1", RunKind::Start).await;
    let native = Redactor::new(&[]);
    // The plug's instance is one session: what it found in earlier entries
    // is masked again in later ones, and the native side keeps the same.
    let mut seen = Seen::default();
    let texts = texts();
    // Sixteen per call, as the runner hands over what arrived together.
    for (b, group) in texts.chunks(16).enumerate() {
        let entries = group
            .iter()
            .enumerate()
            .map(|(i, t)| TranscriptEntry {
                stream_id: format!("m{b}-{i}"),
                kind: EntryKind::AgentMessage,
                text: t.0.clone(),
                last: true,
                replay: false,
            })
            .collect();
        let out = p.filter(entries).await.unwrap();
        for ((text, must_mask), entry) in group.iter().zip(out) {
            let expected = native.redact_knowing(text, &mut seen);
            assert_eq!(
                entry.text, expected,
                "the plug and the detector differ on {text:?}"
            );
            // Not a comparison of two readings that both missed.
            assert!(
                !must_mask || expected.contains("[REDACTED:"),
                "nothing masked in {text:?}"
            );
        }
    }
}
