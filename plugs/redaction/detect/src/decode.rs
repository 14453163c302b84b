//! Secrets hidden by an encoding: JSON string escapes (`postgres:\/\/…`,
//! `\u003cghp_…\u003e`), `\xHH` escapes (fish's `glpat\x2d…`),
//! percent-encoding (`password%3D…`, `token%3Dghp_…`), HTML's entities
//! (`&quot;api_key&quot;: &quot;…&quot;`, a page or a log that escapes what
//! it shows) and base64 (`.env` files, tokens, Kubernetes Secret `data:`
//! values). The
//! encoded text is decoded, read again by the same detector (at most
//! [`MAX_DEPTH`] levels deep), and what it finds is masked in the encoded
//! text: the encoded span of an escaped secret, the whole run of a base64 one.
//!
//! Bounded and kept off the hot path: only fields that hold an escape that
//! can hide a separator (a `\/`, a `\u00XX` of punctuation, a `%XX` of one)
//! and base64 words of [`MIN_BASE64`]..=[`MAX_BASE64`] characters whose
//! decoding is printable text are decoded.

use super::{Found, Redactor};

/// How many times decoded text is decoded again (base64 of a JSON string
/// with escapes).
pub(super) const MAX_DEPTH: u8 = 2;

/// Most bytes of a field (a run without whitespace) read for escapes.
pub const MAX_FIELD: usize = 4 << 10;

/// Base64 shorter than this is left to the other detectors (`Basic …`, a
/// `password:` value under `data:`): too short to be text that names a secret.
pub const MIN_BASE64: usize = 24;
/// Longer base64 is mostly files and images, not a secret's text.
pub const MAX_BASE64: usize = 4 << 10;

/// Whether the escape at `i` (a `\` or a `%`) may hide a separator that
/// decides a secret (`\/`, `\u003c`, `%3D`, `%40`, …) and is followed by
/// a run as long as a secret's value: `\u003cdiv\u003e` and `a%2Fb` are not
/// worth decoding.
#[inline]
pub(super) fn is_hint(b: &[u8], i: usize) -> bool {
    let len = match b[i] {
        b'\\' => match b.get(i + 1) {
            Some(b'/') => 2,
            Some(b'u')
                if b.get(i + 2..i + 4) == Some(b"00")
                    && matches!(b.get(i + 4), Some(b'2' | b'3' | b'4')) =>
            {
                6
            }
            // fish's `\x2d` (its universal variables), C's and Python's
            // bytes: punctuation only.
            Some(b'x')
                if matches!(b.get(i + 2), Some(b'2' | b'3' | b'4'))
                    && b.get(i + 3).is_some_and(u8::is_ascii_hexdigit) =>
            {
                4
            }
            _ => return false,
        },
        b'&' => match entity(&b[i..]) {
            Some((_, len)) => len,
            None => return false,
        },
        b'%' => match (b.get(i + 1), b.get(i + 2).map(|c| c.to_ascii_uppercase())) {
            (Some(b'2'), Some(b'2' | b'6' | b'7' | b'F'))
            | (Some(b'3'), Some(b'A' | b'C' | b'D' | b'E' | b'F'))
            | (Some(b'4'), Some(b'0')) => 3,
            _ => return false,
        },
        _ => return false,
    };
    super::run(b, i + len, |c| super::TOKEN[c as usize] && c != b'%') >= 6
}

fn space(c: u8) -> bool {
    c.is_ascii_whitespace()
}

/// The HTML entity at the start of `t` that may hide a quote or a bracket
/// (and `&amp;`): what it stands for and its length.
fn entity(t: &[u8]) -> Option<(&'static [u8], usize)> {
    const ENTITIES: [(&[u8], &[u8]); 8] = [
        (b"&quot;", b"\""),
        (b"&#34;", b"\""),
        (b"&#39;", b"'"),
        (b"&#x27;", b"'"),
        (b"&apos;", b"'"),
        (b"&lt;", b"<"),
        (b"&gt;", b">"),
        (b"&amp;", b"&"),
    ];
    ENTITIES
        .iter()
        .find(|(e, _)| t.starts_with(e))
        .map(|&(e, c)| (c, e.len()))
}

/// The line around the entity at `i` (at most [`MAX_FIELD`] bytes of it):
/// entities escape text with blanks in it (`&quot;key&quot;: &quot;…`).
fn line_of(b: &[u8], i: usize) -> (usize, usize) {
    let lo = i.saturating_sub(MAX_FIELD / 2);
    let s = memchr::memrchr(b'\n', &b[lo..i]).map_or(lo, |p| lo + p + 1);
    let hi = (s + MAX_FIELD).min(b.len());
    let e = memchr::memchr(b'\n', &b[i..hi]).map_or(hi, |p| i + p);
    (s, e)
}

/// The field (run of bytes without whitespace) around `i`, if it is at most
/// [`MAX_FIELD`] long.
fn field(b: &[u8], i: usize) -> Option<(usize, usize)> {
    let lo = i.saturating_sub(MAX_FIELD);
    let s = b[lo..i].iter().rposition(|&c| space(c)).map(|p| lo + p + 1);
    let s = match s {
        Some(s) => s,
        None if lo == 0 => 0,
        None => return None,
    };
    let hi = (s + MAX_FIELD).min(b.len());
    let e = match b[i..hi].iter().position(|&c| space(c)) {
        Some(p) => i + p,
        None if hi == b.len() => hi,
        None => return None,
    };
    Some((s, e))
}

/// Decodes the fields with escapes that may hide a secret and adds what the
/// detector finds in them, mapped back onto the encoded text. A separate
/// vectorised pass for `\` and `%`, so the word scan stays as fast as before.
#[inline(never)]
pub(super) fn escaped(r: &Redactor, text: &str, depth: u8, found: &mut Vec<Found>) {
    let b = text.as_bytes();
    let mut done = 0;
    for h in memchr::memchr3_iter(b'\\', b'%', b'&', b) {
        if h < done || !is_hint(b, h) {
            continue;
        }
        let around = if b[h] == b'&' {
            Some(line_of(b, h))
        } else {
            field(b, h)
        };
        let Some((s, e)) = around else {
            done = h + 1;
            continue;
        };
        done = e.max(h + 1);
        let Some((decoded, map)) = unescape(&b[s..e]) else {
            continue;
        };
        for f in r.find_at_depth(&decoded, depth + 1) {
            found.push(Found {
                start: s + map[f.start] as usize,
                end: s + map[f.end] as usize,
                kind: f.kind,
            });
        }
    }
}

/// JSON escapes and percent-encoding undone; for each decoded byte, where it
/// came from in `t` (one more entry: `t.len()`). `None` when nothing was
/// decoded or the result is not UTF-8.
fn unescape(t: &[u8]) -> Option<(String, Vec<u32>)> {
    let mut out = Vec::with_capacity(t.len());
    let mut map = Vec::with_capacity(t.len() + 1);
    let mut i = 0;
    let mut changed = false;
    let hexval = |c: u8| (c as char).to_digit(16);
    while i < t.len() {
        let c = t[i];
        let (bytes, len): (&[u8], usize) = match c {
            b'\\' if i + 1 < t.len() => match t[i + 1] {
                b'/' => (b"/", 2),
                b'"' => (b"\"", 2),
                b'\\' => (b"\\", 2),
                b'n' => (b"\n", 2),
                b't' => (b"\t", 2),
                b'r' => (b"\r", 2),
                b'x' if i + 4 <= t.len() => match (hexval(t[i + 2]), hexval(t[i + 3])) {
                    (Some(h), Some(l)) if h < 8 => {
                        out.push((h * 16 + l) as u8);
                        map.push(i as u32);
                        i += 4;
                        changed = true;
                        continue;
                    }
                    _ => (&t[i..i + 1], 1),
                },
                b'u' if i + 6 <= t.len() => {
                    let v = t[i + 2..i + 6]
                        .iter()
                        .try_fold(0u32, |acc, &d| hexval(d).map(|d| acc * 16 + d));
                    match v.and_then(char::from_u32) {
                        Some(ch) => {
                            let mut buf = [0u8; 4];
                            let n = ch.encode_utf8(&mut buf).len();
                            out.extend_from_slice(&buf[..n]);
                            map.extend(std::iter::repeat_n(i as u32, n));
                            i += 6;
                            changed = true;
                            continue;
                        }
                        None => (&t[i..i + 1], 1),
                    }
                }
                _ => (&t[i..i + 1], 1),
            },
            b'&' if entity(&t[i..]).is_some() => {
                let (c, len) = entity(&t[i..]).expect("tested");
                out.extend_from_slice(c);
                map.push(i as u32);
                i += len;
                changed = true;
                continue;
            }
            b'%' if i + 2 < t.len() => match (hexval(t[i + 1]), hexval(t[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    map.push(i as u32);
                    i += 3;
                    changed = true;
                    continue;
                }
                _ => (&t[i..i + 1], 1),
            },
            _ => (&t[i..i + 1], 1),
        };
        if len == 2 {
            changed = true;
        }
        for &byte in bytes {
            out.push(byte);
            map.push(i as u32);
        }
        i += len;
    }
    map.push(t.len() as u32);
    if !changed {
        return None;
    }
    String::from_utf8(out).ok().map(|s| (s, map))
}

/// The base64 word `b[s..e]`, decoded, if it may hold a secret: of the right
/// length and alphabet, and printable text once decoded.
pub(super) fn base64_text(w: &[u8]) -> Option<String> {
    if !(MIN_BASE64..=MAX_BASE64).contains(&w.len()) {
        return None;
    }
    let body = w
        .strip_suffix(b"==")
        .or_else(|| w.strip_suffix(b"="))
        .unwrap_or(w);
    let (mut std, mut url) = (true, true);
    let (mut upper, mut lower) = (false, false);
    for (k, &c) in body.iter().enumerate() {
        // Each group of four starts with the top six bits of a byte: below
        // 0x80 (ASCII text) that is `A`..`Z` or `a`..`f`. Random data, hashes
        // and images fail this within a few groups.
        if k % 4 == 0 && k < 64 && !matches!(c, b'A'..=b'Z' | b'a'..=b'f') {
            return None;
        }
        upper |= c.is_ascii_uppercase();
        lower |= c.is_ascii_lowercase();
        if c.is_ascii_alphanumeric() {
            continue;
        }
        match c {
            b'+' | b'/' => url = false,
            b'-' | b'_' => std = false,
            _ => return None,
        }
        if !(std || url) {
            return None;
        }
    }
    // Unpadded base64 can't be one character past a group.
    if body.len() % 4 == 1
        || (body.len() != w.len() && !w.len().is_multiple_of(4))
        || !(upper && lower)
    {
        return None;
    }
    let bytes = decode(body);
    let text = String::from_utf8(bytes).ok()?;
    // Printable: images, archives and keys decode to control bytes.
    let bad = text
        .chars()
        .filter(|&c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
        .count();
    (bad == 0).then_some(text)
}

/// Decodes base64, standard or URL-safe; padding (`=`) ends it.
pub(crate) fn decode(t: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(t.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for &c in t {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            // (Read as data, padding added a byte that was never there.)
            b'=' => break,
            _ => 63,
        };
        acc = ((acc << 6) | v as u32) & 0xffff;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

/// Where a field with escapes (a line with an entity) begins that reaches `cut`: it is decoded
/// whole, so it waits for its end.
pub(super) fn open_at(b: &[u8], cut: usize) -> Option<usize> {
    // An entity's line is decoded whole (`line_of`). (One cut in two
    // decodes nothing before the cut: what it hides comes after it.)
    let line = crate::line_start(b, cut).max(cut.saturating_sub(MAX_FIELD / 2));
    if memchr::memchr_iter(b'&', &b[line..cut]).any(|p| entity(&b[line + p..cut]).is_some()) {
        return Some(line);
    }
    let lo = cut.saturating_sub(MAX_FIELD);
    let s = b[lo..cut]
        .iter()
        .rposition(|&c| space(c))
        .map_or(lo, |p| lo + p + 1);
    let hi = (cut + MAX_FIELD).min(b.len());
    let e = b[cut..hi]
        .iter()
        .position(|&c| space(c))
        .map_or(hi, |p| cut + p);
    if s == cut && e == cut {
        return None;
    }
    // A `\` or `%` at the very end may be the start of an escape.
    b[s..e]
        .iter()
        .any(|&c| c == b'\\' || c == b'%')
        .then_some(s)
}

#[cfg(test)]
mod tests {
    use super::decode;

    #[test]
    fn padding_ends_what_is_decoded() {
        for (t, want) in [
            (&b"YQ=="[..], &b"a"[..]),
            (b"YWI=", b"ab"),
            (b"YWJj", b"abc"),
            (b"YQ", b"a"),
            // systemd's `some 200000 2000000` and its NUL.
            (b"c29tZSAyMDAwMDAgMjAwMDAwMAA=", b"some 200000 2000000\0"),
        ] {
            assert_eq!(decode(t), want, "{}", String::from_utf8_lossy(t));
        }
    }
}
