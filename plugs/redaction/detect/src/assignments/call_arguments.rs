//! A password passed by its place among a call's arguments, no name beside
//! it: `HTTPBasicAuth("ana", "…")`, `requests.get(url, auth=("ana", "…"))`,
//! `new NetworkCredential("ana", "…")`, `DriverManager.getConnection(url,
//! "app", "…")`, `smtp.login("ana@example.com", "…")`, Go's
//! `req.SetBasicAuth("ana", "…")`.

use super::values::{name_word, plain};
use crate::Found;

/// What opens a call (up to its `(`) and which argument, counted from 1,
/// is the password.
const CALLS: &[(&[u8], usize)] = &[
    (b"BasicAuth(", 2),
    (b"DigestAuth(", 2),
    (b"auth=(", 2),
    // (A traceback's locals, a REPL: `auth = ('ana', '…')`.)
    (b"auth = (", 2),
    (b"NetworkCredential(", 2),
    (b"UsernamePasswordCredentials(", 2),
    (b"PasswordAuthentication(", 2),
    (b"getConnection(", 3),
    (b".login(", 2),
    (b"simple_bind_s(", 2),
    (b".bind(", 2),
];

/// Most bytes from a call's `(` to the argument read.
const MAX_ARGUMENTS: usize = 256;

/// Whether the quoted word at `s` may be a later argument: after `, "`.
#[inline(always)]
pub(crate) fn may_be(b: &[u8], s: usize) -> bool {
    s >= 3 && matches!(b[s - 1], b'"' | b'\'') && b[s - 2] == b' ' && b[s - 3] == b','
}

/// The argument quoted at `s` (its word ends at `e`): masked if it is the
/// password of one of [`CALLS`].
#[inline(never)]
pub(crate) fn at_argument(b: &[u8], s: usize, e: usize, found: &mut Vec<Found>) {
    let quote = b[s - 1];
    // The whole string: the word may stop before its end (`p@ss!w0rd`).
    // Closed, whatever follows: a stream may not have it yet.
    let Some(close) = memchr::memchr(quote, &b[s..(s + 256).min(b.len())]).map(|p| s + p) else {
        return;
    };
    let v = &b[s..close];
    if close < e || !plain(v) || name_word(v) || v.iter().any(u8::is_ascii_whitespace) {
        return;
    }
    let floor = s.saturating_sub(MAX_ARGUMENTS);
    let Some(open) = memchr::memrchr(b'(', &b[floor..s]).map(|p| floor + p) else {
        return;
    };
    let Some(&(_, nth)) = CALLS.iter().find(|(c, _)| b[..open + 1].ends_with(c)) else {
        return;
    };
    // Arguments before this one: commas outside quotes.
    let mut commas = 0;
    let mut in_quote = None;
    for &c in &b[open + 1..s - 1] {
        match (c, in_quote) {
            (b'"' | b'\'', None) => in_quote = Some(c),
            (q, Some(open_q)) if q == open_q => in_quote = None,
            (b',', None) => commas += 1,
            (b'(' | b')' | b'\n', None) => return,
            _ => {}
        }
    }
    if commas + 1 == nth {
        found.push(Found {
            start: s,
            end: close,
            kind: "secret-assignment",
        });
    }
}

/// Where a later argument's string opens (`, "`) that `cut` leaves
/// unclosed on its line: whether it is a password is known once it closes.
pub(crate) fn open_at(b: &[u8], cut: usize) -> Option<usize> {
    let floor = cut.saturating_sub(MAX_ARGUMENTS);
    let line = memchr::memrchr(b'\n', &b[floor..cut]).map_or(floor, |p| floor + p + 1);
    let head = &b[line..cut];
    let q = memchr::memrchr2(b'"', b'\'', head)?;
    let opens = q >= 2 && head[q - 2] == b',' && head[q - 1] == b' ';
    (opens && !head[q + 1..].contains(&head[q])).then_some(line + q + 1)
}
