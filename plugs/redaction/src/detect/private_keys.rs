//! Private key blocks, masked whole: PEM of any kind (`RSA`, `EC`, `DSA`,
//! `OPENSSH`, `ENCRYPTED`, PKCS#8, `PGP PRIVATE KEY BLOCK`, also with `\n`
//! escapes inside a JSON string such as a GCP service-account file), PuTTY's
//! `Private-Lines:`, and PEM keys base64-encoded once more. Public keys and
//! certificates stay.

use super::{Found, find, rfind};

const PEM_BEGIN: &[u8] = b"-----BEGIN ";
const PEM_END: &[u8] = b"-----END ";
const DASHES: &[u8] = b"-----";
const PUTTY: &[u8] = b"Private-Lines:";

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
    let end = block_end(b, begin_end).unwrap_or_else(|| body_end(b, begin_end));
    if !has_body(&b[begin_end..end]) {
        return;
    }
    found.push(Found {
        start: s,
        end,
        kind: "private-key",
    });
}

/// Where a block begins that is not complete before `cut`.
pub(super) fn open_at(b: &[u8], cut: usize) -> Option<usize> {
    if let Some(begin) = rfind(&b[..cut], PEM_BEGIN) {
        match marker(b, begin, PEM_BEGIN) {
            Some((label, _)) if !is_private(label) => {}
            Some((_, end)) if block_end(b, end).is_some_and(|e| e <= cut) => {}
            // No `-----END`: the body ended before the cut.
            Some((_, end)) if block_end(b, end).is_none() && end + body_len(b, end) < cut => {}
            _ => return Some(begin),
        }
    }
    let at = rfind(&b[..cut], PUTTY)?;
    let (end, complete) = putty_extent(b, at);
    (end > cut || !complete).then_some(at)
}

/// PuTTY `.ppk`: the `Private-Lines: N` header, its N lines and the MAC line.
pub(super) fn putty(b: &[u8], s: usize, found: &mut Vec<Found>) {
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

/// Whether a key's body is there: a run of base64 as long as a line of one.
fn has_body(between: &[u8]) -> bool {
    between
        .split(|&c| !(c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=')))
        .any(|run| run.len() >= 16)
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

fn is_private(label: &[u8]) -> bool {
    find(label, b"PRIVATE KEY").is_some()
}

/// The end of the `-----END …-----` marker after `from`.
/// The end of the `-----END …-----` marker that closes the body starting at
/// `from` (the body runs up to it).
fn block_end(b: &[u8], from: usize) -> Option<usize> {
    let body = from + body_len(b, from);
    let end = from + find(&b[from..body], PEM_END)?;
    marker(b, end, PEM_END).map(|(_, e)| e)
}

/// How many bytes from `from` may belong to a key's body: base64, armour
/// headers (`Proc-Type: 4,ENCRYPTED`, `Comment: https://…`), line breaks,
/// and what keeps a key in source code (`\n` escapes, quotes, `+`, comment
/// marks).
fn body_len(b: &[u8], from: usize) -> usize {
    b[from..]
        .iter()
        .take_while(|&&c| {
            c.is_ascii_alphanumeric()
                || matches!(
                    c,
                    b'+' | b'/'
                        | b'='
                        | b' '
                        | b'\t'
                        | b'\r'
                        | b'\n'
                        | b'\\'
                        | b':'
                        | b'-'
                        | b','
                        | b'.'
                        | b'"'
                        | b'\''
                        | b'#'
                        | b'*'
                )
        })
        .count()
}

/// How far the base64 body (and armour headers) of a key runs from `from`.
fn body_end(b: &[u8], from: usize) -> usize {
    // Keep the line break (or escape, or quote) that ends the body outside
    // the mask.
    let mut end = from + body_len(b, from);
    while end > from
        && matches!(
            b[end - 1],
            b' ' | b'\t' | b'\r' | b'\n' | b'\\' | b'"' | b'\'' | b',' | b'.'
        )
    {
        end -= 1;
    }
    end
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
