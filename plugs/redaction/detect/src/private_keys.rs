//! Private key blocks, masked whole: PEM of any kind (`RSA`, `EC`, `DSA`,
//! `OPENSSH`, `ENCRYPTED`, PKCS#8, `PGP PRIVATE KEY BLOCK`, OpenVPN static
//! and tls-crypt-v2 keys, also with `\n` escapes inside a JSON string such
//! as a GCP service-account file), PuTTY's `Private-Lines:`, and PEM keys
//! base64-encoded once more. Public keys and certificates stay.
//!
//! A key in another encoding has its private parts masked, its public ones
//! left: a JSON Web Key ([`jwk`]), .NET's XML ([`xml`]), `openssl … -text`
//! ([`dumps`]).

mod dumps;
mod jwk;
pub(crate) mod xml;

use super::{Found, decorations, find, rfind};

const PEM_BEGIN: &[u8] = b"-----BEGIN ";
const PEM_END: &[u8] = b"-----END ";
const DASHES: &[u8] = b"-----";
const PUTTY: &[u8] = b"Private-Lines:";

/// Most bytes from a `-----BEGIN` marker to the end of its block: an
/// RSA-8192 key in PEM is about 6.5 KB, escaped in JSON or quoted line by line
/// in code a little more. Past this nothing is paired with the header, so
/// prose between a quoted header and a distant footer is never masked.
pub const MAX_PEM: usize = 16 << 10;

/// How the body of a PEM block ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Body {
    /// At its `-----END …-----` marker, which ends here.
    Closed(usize),
    /// Cut short: the last key line ends here (the BEGIN marker's end when
    /// there was none), and what follows is not key-shaped.
    Short(usize),
    /// The text ends inside the body (the last key line so far ends here):
    /// what comes next may continue it.
    Open(usize),
}

/// A PEM block whose first marker starts at `s`.
pub(super) fn pem(b: &[u8], s: usize, found: &mut Vec<Found>) {
    if !b[s..].starts_with(PEM_BEGIN) {
        return;
    }
    let Some((label, begin_end)) = marker(b, s, PEM_BEGIN) else {
        return;
    };
    if !is_private(label) {
        return;
    }
    // A key cut short (`head -5 id_rsa`) is masked as far as its body goes.
    // Markers with no key between them (`starts_with("-----BEGIN PRIVATE
    // KEY-----")`, a sentence about the format) are only names.
    let (Body::Closed(end) | Body::Short(end) | Body::Open(end), body) = scan_body(b, begin_end);
    if !body {
        // `2024-…Z -----BEGIN …`, `│ -----BEGIN … │`, `-----BEGIN …-----$`:
        // each line decorated; read again without it (`decorations`).
        if let Some(line) = super::line_start_within(b, s, decorations::MAX_PREFIX)
            && let Some(suffix) = decorations::rest_of_line(b, begin_end)
            && decorations::decorated(&b[line..s], suffix)
        {
            decorations::mark(line, s, found);
        }
        return;
    }
    found.push(Found {
        start: s,
        end,
        kind: "private-key",
    });
}

/// Where the marker or label of a key block at `anchor` ends: a private
/// PEM marker's, or a key dump's private label's `:`; what follows on its
/// line is a decoration, if anything.
pub(super) fn anchor_end(b: &[u8], anchor: usize) -> Option<usize> {
    if b[anchor] != b'-' {
        return dumps::label_end(b, anchor);
    }
    match marker(b, anchor, PEM_BEGIN)? {
        (label, end) if is_private(label) => Some(end),
        _ => None,
    }
}

/// The key block at `at` in `r` (read without its lines' decorations,
/// `decorations::region`), whose marker or label ends at `anchor_end`:
/// masked.
pub(super) fn block_at(r: &[u8], at: usize, anchor_end: usize, found: &mut Vec<Found>) {
    // A region may be empty (its first line's decoration did not read as the others').
    if at >= r.len() || anchor_end > r.len() {
        return;
    }
    if r[at] == b'-' {
        pem(r, at, found);
    } else {
        dumps::section(r, anchor_end, found);
    }
}

/// The key block at the start of `r` (read without its lines'
/// decorations), its marker or label ending at `anchor_end`: what of it is
/// masked, and whether the text ended inside it (more may follow).
pub(super) fn block_reading(r: &[u8], anchor_end: usize) -> (Option<(usize, usize)>, bool) {
    // An empty region reads no block (the text as it is is read on its own).
    if r.is_empty() || anchor_end > r.len() {
        return (None, false);
    }
    if r[0] != b'-' {
        return dumps::reading(r, anchor_end);
    }
    match marker(r, 0, PEM_BEGIN) {
        Some((label, end)) if is_private(label) => {
            let (extent, body) = scan_body(r, end);
            let (Body::Closed(e) | Body::Short(e) | Body::Open(e)) = extent;
            (body.then_some((0, e)), matches!(extent, Body::Open(_)))
        }
        Some(_) => (None, false),
        None => (None, true),
    }
}

/// The last `-----BEGIN ` marker that starts before `cut` (maybe cut
/// itself), within [`MAX_PEM`]: the only one whose block may reach the cut.
pub(super) fn last_begin(b: &[u8], cut: usize) -> Option<usize> {
    let from = cut.saturating_sub(MAX_PEM);
    let to = (cut + PEM_BEGIN.len() - 1).min(b.len());
    rfind(&b[from..to], PEM_BEGIN)
        .map(|p| from + p)
        .filter(|&begin| begin < cut)
}

/// Where a block begins that reaches `cut` (the end of the text, or a point
/// a stream's hold-back moved to): it is read whole or not at all. `begin`
/// is [`last_begin`]'s.
pub(super) fn open_at(b: &[u8], cut: usize, begin: Option<usize>) -> Option<usize> {
    if let Some(begin) = begin {
        match marker(b, begin, PEM_BEGIN) {
            Some((label, _)) if !is_private(label) => {}
            Some((_, end)) => match scan_body(b, end).0 {
                Body::Open(_) => return Some(begin),
                Body::Closed(e) | Body::Short(e) if e.max(end) > cut => return Some(begin),
                _ => {}
            },
            // A marker cut in two may still close (its label is short).
            None if b.len() - begin <= PEM_BEGIN.len() + 80 => return Some(begin),
            None => {}
        }
    }
    let at = rfind(&b[..cut], PUTTY)?;
    let (end, complete) = putty_extent(b, at);
    (end > cut || !complete).then_some(at)
}

/// Reads the body of a key from `from` (just after its BEGIN marker), line by
/// line (real line breaks and `\n` escapes alike), within [`MAX_PEM`]: armour
/// headers first (`Proc-Type:`, `DEK-Info:`, `Comment:`), then base64 lines,
/// each maybe wrapped in quotes, `+`, comment marks or indentation; then the
/// END marker. Also whether a line of body (16 base64 characters or more) was
/// seen: a header with no body is not a key.
fn scan_body(b: &[u8], from: usize) -> (Body, bool) {
    let limit = (from + MAX_PEM).min(b.len());
    let mut last = from;
    let mut body = false;
    let mut blank = 0;
    let mut i = from;
    while i < limit || i == from {
        let Some(line) = next_line(b, i, limit) else {
            break;
        };
        let core = &b[line.start..line.end];
        // The text ends in this line: it may still become key-shaped.
        let open = line.next == b.len() && !line.terminated;
        if !line.terminated && !open {
            // The line runs past MAX_PEM: the block is not paired over it.
            return (Body::Short(last), body);
        }
        if core.starts_with(PEM_END) {
            return match marker(b, line.start, PEM_END) {
                Some((_, end)) => (Body::Closed(end), body),
                None if open => (Body::Open(last), body),
                None => (Body::Short(last), body),
            };
        }
        if i == from {
            // What follows the marker on its own line: line-ending marks, or
            // a key flattened onto one line, its lines joined by spaces.
            let mut at = line.start;
            for word in core.split(|&c| c == b' ') {
                if word.starts_with(b"-----END") {
                    return match marker(b, at, PEM_END) {
                        Some((_, end)) => (Body::Closed(end), body),
                        None if open => (Body::Open(last), body),
                        None => (Body::Short(last), body),
                    };
                }
                if is_base64_line(word) {
                    body |= word.len() >= 16;
                    last = at + word.len();
                } else if !word.is_empty() {
                    return if open && at + word.len() == line.end {
                        (Body::Open(last), body)
                    } else {
                        (Body::Short(last), body)
                    };
                }
                at += word.len() + 1;
            }
        } else if core.is_empty() {
            blank += 1;
            if blank > 4 {
                return (Body::Short(last), body);
            }
        } else if is_base64_line(core) {
            blank = 0;
            body |= core.len() >= 16;
            last = line.end;
        } else if !body && is_armour_header(core) {
            blank = 0;
            last = line.end;
        } else if open {
            return (Body::Open(last), body);
        } else {
            return (Body::Short(last), body);
        }
        if open {
            return (Body::Open(last), body);
        }
        i = line.next;
    }
    if i >= b.len() {
        (Body::Open(last), body)
    } else {
        (Body::Short(last), body)
    }
}

/// One line of a key's body: its core, without indentation, quotes,
/// concatenation and comment marks around it.
struct Line {
    start: usize,
    end: usize,
    /// Where the next line starts.
    next: usize,
    /// Whether a line break ended it (not the text or the limit).
    terminated: bool,
}

/// The line from `i`, up to `limit`. A line ends at a line break or a `\n`
/// (or `\r\n`, or doubly escaped `\\n`) escape.
fn next_line(b: &[u8], i: usize, limit: usize) -> Option<Line> {
    if i > limit {
        return None;
    }
    let mut e = i;
    let mut next = limit;
    let mut terminated = false;
    while e < limit {
        match b[e] {
            b'\n' => {
                (next, terminated) = (e + 1, true);
                break;
            }
            b'\\' if matches!(b.get(e + 1), Some(b'n')) => {
                (next, terminated) = (e + 2, true);
                break;
            }
            b'\\' if b.get(e + 1..e + 4) == Some(b"r\\n") => {
                (next, terminated) = (e + 4, true);
                break;
            }
            // JSON inside a JSON string: the key's `\n` is written `\\n`.
            b'\\' if b.get(e + 1..e + 3) == Some(b"\\n") => {
                (next, terminated) = (e + 3, true);
                break;
            }
            b'\\' if e + 2 == b.len() && b[e + 1] == b'\\' => {
                next = b.len();
                break;
            }
            // A lone `\` at the text's end may be the start of an escape.
            b'\\' if e + 1 == b.len() => {
                next = b.len();
                break;
            }
            _ => e += 1,
        }
    }
    let mut s = i;
    while s < e
        && matches!(
            b[s],
            b' ' | b'\t' | b'"' | b'\'' | b'+' | b'#' | b'*' | b'\r'
        )
    {
        s += 1;
    }
    if b[s..e].starts_with(b"//") {
        s += 2;
        while s < e && matches!(b[s], b' ' | b'\t') {
            s += 1;
        }
    }
    let mut ce = e;
    loop {
        let before = ce;
        while ce > s
            && matches!(
                b[ce - 1],
                b' ' | b'\t' | b'\r' | b'"' | b'\'' | b',' | b';' | b')'
            )
        {
            ce -= 1;
        }
        // `"…" +` concatenation, not a base64 `+` ending the line.
        if ce > s + 1 && b[ce - 1] == b'+' && matches!(b[ce - 2], b' ' | b'"' | b'\'') {
            ce -= 1;
        }
        if ce == before {
            break;
        }
    }
    Some(Line {
        start: s,
        end: ce,
        next,
        terminated,
    })
}

/// A line of a key's base64 body, or a PGP checksum line (`=JvqY`).
fn is_base64_line(core: &[u8]) -> bool {
    !core.is_empty()
        && core
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'='))
}

/// `Proc-Type: 4,ENCRYPTED`, `DEK-Info: …`, `Comment: …`, `Version: …`.
fn is_armour_header(core: &[u8]) -> bool {
    let Some(colon) = core.iter().position(|&c| c == b':') else {
        return false;
    };
    let name = &core[..colon];
    (2..=24).contains(&name.len())
        && name[0].is_ascii_uppercase()
        && name.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'-')
        && core.get(colon + 1) == Some(&b' ')
}

/// PuTTY `.ppk`: the `Private-Lines: N` header, its N lines and the MAC line.
pub(super) fn putty(b: &[u8], s: usize, found: &mut Vec<Found>) {
    // Key lines are base64: `<private lines elided>` is no key.
    if let Some(nl) = b[s..].iter().position(|&c| c == b'\n') {
        let first = &b[s + nl + 1..];
        let first = &first[..first
            .iter()
            .position(|&c| c == b'\n')
            .unwrap_or(first.len())];
        if !first.iter().all(|&c| super::b64(c) || c == b'\r') {
            return;
        }
    }
    let (end, _) = putty_extent(b, s);
    found.push(Found {
        start: s,
        end,
        kind: "private-key",
    });
}

/// Whether base64 text decodes to a PEM private key (kubeconfig
/// `client-key-data: LS0tLS1CRUdJTi…`).
pub(super) fn is_base64_private_key(t: &[u8]) -> bool {
    let head = decode_base64(&t[..t.len().min(120)]);
    find(&head, b"PRIVATE KEY").is_some()
}

/// `-----BEGIN LABEL-----` at `at`: the label, and where the marker ends.
fn marker<'a>(b: &'a [u8], at: usize, prefix: &[u8]) -> Option<(&'a [u8], usize)> {
    let from = at + prefix.len();
    let rest = &b[from.min(b.len())..];
    let rest = &rest[..rest.len().min(80)];
    let close = find(rest, DASHES)?;
    let label = &rest[..close];
    if label.contains(&b'\n') {
        return None;
    }
    Some((label, from + close + DASHES.len()))
}

/// `RSA PRIVATE KEY`, `PRIVATE KEY`, `PGP PRIVATE KEY BLOCK`, …, and
/// OpenVPN's shared keys (`OpenVPN Static key V1`, `OpenVPN tls-crypt-v2
/// server key`), which are secret whole.
fn is_private(label: &[u8]) -> bool {
    find(label, b"PRIVATE KEY").is_some()
        || label.starts_with(b"OpenVPN Static key")
        || label.starts_with(b"OpenVPN tls-crypt-v2")
}

/// A word that may name part of a key in another encoding (`privateExponent:`
/// of `openssl -text`, `<RSAKeyValue>`, the `:` after a JWK's `"kty"`): its
/// private parts, masked.
#[inline(always)]
pub(super) fn at_name(b: &[u8], class: u8, s: usize, e: usize, found: &mut Vec<Found>) {
    use super::assignments::{COLON_FIRST, COLON_LAST, TAG};
    // Most words are none of these: told apart by a byte or two here (in the
    // plug, a call costs more than the test).
    if class & TAG != 0 && matches!(b[s], b'R' | b'D') {
        xml::key_value(b, s, e, found);
    }
    if class & COLON_LAST != 0
        && matches!(e - s, 5 | 7 | 10 | 12 | 16)
        && matches!(b[s], b'p' | b'e' | b'c')
    {
        match dumps::label(b, s, e) {
            dumps::Label::Alone => dumps::section(b, e, found),
            dumps::Label::Decorated(line) => decorations::mark(line, s, found),
            dumps::Label::No => {}
        }
    }
    if class & COLON_FIRST != 0 && s >= 5 && matches!(b[s - 1], b'"' | b'\'') && jwk::is_kty(b, s) {
        jwk::key(b, s, found);
    }
}

/// Where a key in another encoding starts that `cut` cuts: it is read whole.
pub(super) fn other_open_at(b: &[u8], cut: usize) -> Option<usize> {
    [
        dumps::open_at(b, cut),
        xml::open_at(b, cut),
        jwk::open_at(b, cut),
    ]
    .into_iter()
    .flatten()
    .min()
}

/// The end of a PuTTY private block starting at `s`, and whether it is
/// complete (its MAC line, or a line after its N lines, is there).
fn putty_extent(b: &[u8], s: usize) -> (usize, bool) {
    let line_end = |from: usize| {
        b[from..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(b.len(), |p| from + p)
    };
    let mut i = s + PUTTY.len();
    while i < b.len() && b[i] == b' ' {
        i += 1;
    }
    let digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    let lines: usize = std::str::from_utf8(&b[i..i + digits])
        .ok()
        .and_then(|d| d.parse().ok())
        .unwrap_or(0)
        .min(1000);
    let mut end = line_end(i);
    for _ in 0..lines {
        if end >= b.len() {
            return (b.len(), false);
        }
        end = line_end(end + 1);
    }
    if end >= b.len() {
        return (b.len(), false);
    }
    let next = end + 1;
    let rest = &b[next..];
    if rest.len() < 13 && (b"Private-MAC:".starts_with(rest) || b"Private-Hash:".starts_with(rest))
    {
        // The MAC line is on its way.
        return (b.len(), false);
    }
    if rest.starts_with(b"Private-MAC:") || rest.starts_with(b"Private-Hash:") {
        let mac_end = line_end(next);
        return (mac_end, mac_end < b.len());
    }
    (end, true)
}

/// Decodes standard base64, stopping at the first byte that is not.
fn decode_base64(t: &[u8]) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' | b'-' => Some(62),
        b'/' | b'_' => Some(63),
        _ => None,
    };
    let mut out = Vec::with_capacity(t.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for &c in t {
        let Some(v) = value(c) else { break };
        acc = ((acc << 6) | v as u32) & 0xffff;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}
