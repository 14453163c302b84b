//! A secret found once is masked again wherever it comes back later: in
//! the same text (an agent quoting the password a file named a line above,
//! `set -x` echoing it, a JSON dump repeating it), and in later entries and
//! streams of the session. A copy before the find stays as it is: a stream
//! cannot take back what it sent, and a whole text is masked as its chunks
//! are. Every row is also streamed cut at every byte and char by char.

mod support;

use support::{check, chunk, without_kinds};

use redaction::detect::Redactor;
use redaction::stream::Streams;

// With bytes no token has (`!`, `#`): a chunk that ends inside
// it ends inside no word the stream would hold back anyway.
const PW: &str = "Zq8L!w2R#t5Y";

#[test]
fn a_value_found_once_is_masked_where_it_comes_back_in_the_same_text() {
    check(&[
        // Named, then quoted bare in prose; with symbols a chunk may end
        // between.
        "DB_PASSWORD=«Zq8L!w2R#t5Y»\nrun it with «Zq8L!w2R#t5Y» now\n",
        "DB_PASSWORD=«Zq8Lw2Rt5YmK»\nI set the password to «Zq8Lw2Rt5YmK» as asked.\n",
        // set -x: the echo of a variable the line above assigned.
        "+ export PGPASSWORD=«u7Hw-Qe94xLr2Vn»\n+ psql -h db -U app\napp password «u7Hw-Qe94xLr2Vn» rejected\n",
        // A vendor token, then its copy inside a longer word and a URL.
        "token: «ghp_d0WpixpxbB4r6bSr0pFBOPCWBRDFOxEzf5FJ»\nsaved as gh-«ghp_d0WpixpxbB4r6bSr0pFBOPCWBRDFOxEzf5FJ».txt\n",
        // Two values, each copied after its own find.
        "api_key = \"«Tq4Wz8Lp2Nv6Xc3R»\"\nsecret = \"«Hm1Ks5Rb9Xc3Nv6W»\"\nkeys: «Tq4Wz8Lp2Nv6Xc3R», «Hm1Ks5Rb9Xc3Nv6W»\n",
        // A multi-byte neighbour on both sides of the copy.
        "PASSWORD=«Zq8Lw2Rt5YmK»\n│ «Zq8Lw2Rt5YmK» │ ─────\n",
        // Overlapping copies are all masked.
        "PASSWORD=«abababab»\nthen «ababababab»\n",
    ]);
}

#[test]
fn a_copy_before_the_find_and_short_values_stay() {
    check(&[
        // Before the name: nothing said it was a secret yet.
        "I will use Zq8Lw2Rt5YmK.\nDB_PASSWORD=«Zq8Lw2Rt5YmK»\n",
        // Shorter than 8 bytes: a word that comes back for other reasons.
        "PASSWORD=«x9!kQ2»\nthe x9!kQ2 row\n",
    ]);
}

/// Entries of a session through one filter: what each became.
fn session(r: &Redactor, entries: &[(&str, &str, bool)]) -> Vec<String> {
    let mut streams = Streams::default();
    entries
        .iter()
        .map(|&(stream, text, last)| {
            let mut e = chunk(text, last);
            e.stream_id = stream.into();
            streams.filter(r, e).text
        })
        .collect()
}

#[test]
fn a_session_masks_a_value_an_earlier_entry_found() {
    let r = Redactor::new(&[]);
    let out = session(
        &r,
        &[
            ("read", &format!("$ cat .env\nDB_PASSWORD={PW}\n"), true),
            ("answer", &format!("Connected with {PW}, all good."), true),
        ],
    );
    assert_eq!(
        without_kinds(&out[1]),
        "Connected with [REDACTED], all good."
    );
    assert_eq!(
        out[1],
        "Connected with [REDACTED:secret-assignment], all good."
    );
}

#[test]
fn a_copy_split_between_chunks_of_a_later_stream_is_held_back() {
    let r = Redactor::new(&[]);
    let answer = format!("Then run it with {PW} now.");
    for cut in 1..answer.len() {
        let out = session(
            &r,
            &[
                ("read", &format!("DB_PASSWORD={PW}\n"), true),
                ("answer", &answer[..cut], false),
                ("answer", &answer[cut..], true),
            ],
        );
        // No piece of the value left with the first chunk.
        assert_eq!(
            without_kinds(&(out[1].clone() + &out[2])),
            "Then run it with [REDACTED] now.",
            "cut at {cut}: {out:?}"
        );
    }
}

#[test]
fn a_stream_that_names_a_value_masks_its_copies_in_later_chunks() {
    let r = Redactor::new(&[]);
    let text = format!("export API_TOKEN={PW}\n{}\necho {PW}\n", "x ".repeat(2000));
    let whole = r.redact(&text);
    assert_eq!(whole.matches("[REDACTED:").count(), 2, "{whole}");
    // Chunks far apart: the copy is past the context a stream keeps.
    for size in [7, 64, 1000] {
        let mut streams = Streams::default();
        let mut out = String::new();
        let cuts: Vec<usize> = (size..text.len()).step_by(size).collect();
        let mut from = 0;
        for &c in &cuts {
            out += &streams.filter(&r, chunk(&text[from..c], false)).text;
            from = c;
        }
        out += &streams.filter(&r, chunk(&text[from..], true)).text;
        assert_eq!(out, whole, "chunks of {size}");
    }
}
