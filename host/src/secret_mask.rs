//! Secret values the runner handed to plugs, masked in everything that
//! leaves the runner: every log line (any field, any level), every request
//! to Blaise (reports, transcript entries after the filters, permission
//! requests), whoever wrote the text — a plug, the agent or the runner.
//!
//! One set per process (a run is one process): a value handed to one plug is
//! masked wherever it shows up, also in what another plug or the agent says.
//!
//! What is masked, besides each whole value (also as Rust's `{:?}` and JSON
//! escape it): any run of [`FRAGMENT`] bytes copied from a value (a value
//! split over two log calls, or over two transcript chunks, leaves no piece
//! long enough to be useful), and a text's head or tail of at least
//! [`EDGE`] bytes that is the end or the start of a value (a split right at
//! a chunk boundary). Encoded forms (base64, reversed…) are not recognised:
//! a plug granted a secret is trusted not to encode it on purpose.

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::{OnceLock, RwLock};

/// What a masked value is replaced with.
pub const MASK: &str = "[REDACTED:secret]";

/// The shortest value that can be masked without masking ordinary words:
/// shorter secrets are refused (see `host::secrets`).
pub const MIN_SECRET: usize = 6;

/// Length of the pieces of a value that are masked on their own.
pub const FRAGMENT: usize = 8;

/// Shortest head or tail of a text matched against a value's end or start.
pub const EDGE: usize = 4;

#[derive(Default)]
struct Masks {
    /// Whole values and their escaped spellings, longest first.
    whole: Vec<String>,
    /// The values themselves, for the edge rule.
    values: Vec<String>,
    /// Every [`FRAGMENT`]-byte window of every value with enough variety.
    fragments: HashSet<[u8; FRAGMENT]>,
}

fn masks() -> &'static RwLock<Masks> {
    static MASKS: OnceLock<RwLock<Masks>> = OnceLock::new();
    MASKS.get_or_init(Default::default)
}

/// Masks `value` from now on in everything the runner sends or logs.
pub fn remember(value: &str) {
    if value.len() < MIN_SECRET {
        return;
    }
    let mut m = masks().write().unwrap_or_else(|e| e.into_inner());
    if m.values.iter().any(|v| v == value) {
        return;
    }
    m.values.push(value.to_owned());
    let debug = format!("{value:?}");
    let json = serde_json::to_string(value).unwrap_or_default();
    for form in [
        value,
        debug.trim_matches('"'),
        json.trim_start_matches('"').trim_end_matches('"'),
    ] {
        if !form.is_empty() && !m.whole.iter().any(|w| w == form) {
            m.whole.push(form.to_owned());
        }
    }
    m.whole.sort_by_key(|w| std::cmp::Reverse(w.len()));
    for window in value.as_bytes().windows(FRAGMENT) {
        if varied(window) {
            m.fragments
                .insert(window.try_into().expect("a window of FRAGMENT bytes"));
        }
    }
}

/// Whether any value was handed out in this process (the cheap check first).
pub fn is_active() -> bool {
    !masks()
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .values
        .is_empty()
}

/// `text` with every handed-out value (and every piece of one) masked.
pub fn scrub(text: &str) -> Cow<'_, str> {
    scrub_with(text, true)
}

/// As [`scrub`], without the head-and-tail rule: for an object's key, a name
/// its sender wrote whole, never a piece of text cut at a chunk's edge
/// (`"exit_code"` ends with the start of a key `codex-key-…`, and is no
/// piece of it).
fn scrub_key(text: &str) -> Cow<'_, str> {
    scrub_with(text, false)
}

fn scrub_with(text: &str, edges: bool) -> Cow<'_, str> {
    let m = masks().read().unwrap_or_else(|e| e.into_inner());
    if m.values.is_empty() || text.is_empty() {
        return Cow::Borrowed(text);
    }
    let b = text.as_bytes();
    let mut hidden = vec![false; b.len()];
    let mut any = false;
    let mut mark = |from: usize, to: usize, any: &mut bool| {
        hidden[from..to].iter_mut().for_each(|h| *h = true);
        *any = true;
    };
    for whole in &m.whole {
        for (at, _) in text.match_indices(whole.as_str()) {
            mark(at, at + whole.len(), &mut any);
        }
    }
    if !m.fragments.is_empty() && b.len() >= FRAGMENT {
        for at in 0..=b.len() - FRAGMENT {
            let window: &[u8; FRAGMENT] = b[at..at + FRAGMENT].try_into().expect("FRAGMENT bytes");
            if m.fragments.contains(window) {
                mark(at, at + FRAGMENT, &mut any);
            }
        }
    }
    for value in m.values.iter().filter(|_| edges) {
        let v = value.as_bytes();
        // The text ends with the start of a value, or starts with its end.
        for len in (EDGE..v.len().min(b.len() + 1)).rev() {
            if b.ends_with(&v[..len]) {
                mark(b.len() - len, b.len(), &mut any);
                break;
            }
        }
        for len in (EDGE..v.len().min(b.len() + 1)).rev() {
            if b.starts_with(&v[v.len() - len..]) {
                mark(0, len, &mut any);
                break;
            }
        }
    }
    if !any {
        return Cow::Borrowed(text);
    }
    Cow::Owned(replace_marked(text, &hidden))
}

/// Every string in `value` (object keys included) scrubbed in place.
pub fn scrub_json(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::String(s) => {
            if let Cow::Owned(clean) = scrub(s) {
                *s = clean;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(scrub_json),
        Value::Object(map) => {
            let dirty: Vec<String> = map
                .keys()
                .filter(|k| matches!(scrub_key(k), Cow::Owned(_)))
                .cloned()
                .collect();
            for key in dirty {
                if let Some(v) = map.remove(&key) {
                    map.insert(scrub_key(&key).into_owned(), v);
                }
            }
            map.values_mut().for_each(scrub_json);
        }
        _ => {}
    }
}

/// A window worth matching alone: at least five different bytes (so that
/// `--------` or `AAAAAAAA` inside a value does not mask ordinary text).
fn varied(window: &[u8]) -> bool {
    let mut seen = [false; 256];
    window
        .iter()
        .filter(|&&b| !std::mem::replace(&mut seen[b as usize], true))
        .count()
        >= 5
}

/// The text with each run of hidden bytes replaced by one [`MASK`], widened
/// to whole characters.
fn replace_marked(text: &str, hidden: &[bool]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut masking = false;
    for (i, c) in text.char_indices() {
        if hidden[i..i + c.len_utf8()].iter().any(|h| *h) {
            if !masking {
                out.push_str(MASK);
                masking = true;
            }
        } else {
            masking = false;
            out.push(c);
        }
    }
    out
}

/// A `tracing` writer that scrubs each formatted line before it reaches
/// stderr (the fmt layer writes one event per `write`).
pub struct ScrubbingStderr;

impl std::io::Write for ScrubbingStderr {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut err = std::io::stderr().lock();
        match std::str::from_utf8(buf) {
            Ok(text) if is_active() => err.write_all(scrub(text).as_bytes())?,
            _ => err.write_all(buf)?,
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The set is per process: each test uses values of its own.
    #[test]
    fn whole_values_and_their_escaped_spellings_are_masked() {
        remember("tok\"en-Quote-1234");
        assert_eq!(scrub("a tok\"en-Quote-1234 b"), format!("a {MASK} b"));
        let debug = format!("{:?}", "tok\"en-Quote-1234");
        assert!(
            !scrub(&debug).contains("en-Quote-1234"),
            "{}",
            scrub(&debug)
        );
        let json = serde_json::json!({"k": "x tok\"en-Quote-1234"}).to_string();
        assert!(!scrub(&json).contains("Quote-1234"), "{}", scrub(&json));
    }

    #[test]
    fn pieces_of_a_value_are_masked_on_their_own() {
        let secret = "ghp_SpLiTtOkEn0123456789abcdefXYZ";
        remember(secret);
        // Split over two log calls: neither half survives.
        let (a, b) = secret.split_at(15);
        assert!(
            !scrub(&format!("first {a}")).contains(&a[4..]),
            "{}",
            scrub(a)
        );
        assert!(
            !scrub(&format!("{b} second")).contains(&b[..8]),
            "{}",
            scrub(b)
        );
        // A piece from the middle.
        assert_eq!(
            scrub(&format!("x {} y", &secret[10..22])),
            format!("x {MASK} y")
        );
        // Unrelated text is left alone.
        assert_eq!(scrub("an ordinary line"), "an ordinary line");
    }

    #[test]
    fn a_head_or_tail_that_continues_a_value_is_masked() {
        let secret = "EdGe-VaLuE-98765";
        remember(secret);
        assert_eq!(scrub("chunk ends EdGe"), format!("chunk ends {MASK}"));
        assert_eq!(scrub("98765 and more"), format!("{MASK} and more"));
        assert_eq!(scrub("765 and more"), "765 and more", "shorter than EDGE");
    }

    #[test]
    fn json_strings_and_keys_are_scrubbed() {
        remember("JsOn-SeCrEt-424242");
        let mut v = serde_json::json!({
            "error": "failed with JsOn-SeCrEt-424242",
            "list": ["JsOn-SeCrEt-424242"],
            "JsOn-SeCrEt-424242": 1,
        });
        scrub_json(&mut v);
        assert!(!v.to_string().contains("SeCrEt-4242"), "{v}");
    }

    #[test]
    fn a_key_that_ends_like_a_value_starts_is_left_whole() {
        // CI saw Codex's `"exit_code": 0` become `"exit_[REDACTED:secret]"`
        // under an API key `codex-key-…`: a key is no chunk's edge.
        remember("KeYe-SeCrEt-777777");
        let mut v = serde_json::json!({
            "exit_KeYe": 0,
            "note": "exit_KeYe",
            "KeYe-SeCrEt-777777": 1,
        });
        scrub_json(&mut v);
        assert_eq!(v["exit_KeYe"], 0, "{v}");
        assert_eq!(
            v["note"],
            format!("exit_{MASK}"),
            "a string's tail still is"
        );
        assert!(
            !v.to_string().contains("SeCrEt-7777"),
            "a whole value in a key is: {v}"
        );
    }

    #[test]
    fn short_values_are_not_remembered() {
        remember("abc");
        assert_eq!(scrub("abc abc"), "abc abc");
    }
}
