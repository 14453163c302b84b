//! JSON Web Keys (RFC 7517, 7518, 8037): an object with `"kty"` whose
//! private members' values are masked: `"d"` (EC, OKP, RSA), `"p"`, `"q"`,
//! `"dp"`, `"dq"`, `"qi"` (RSA), `"k"` (oct, a symmetric key), `"priv"`
//! (AKP). The public members (`"n"`, `"e"`, `"x"`, `"y"`, `"crv"`, `"kid"`)
//! stay. Also in a JWKS (`{"keys": [...]}`), escaped in a JSON string
//! (`{\"kty\": …}`), pretty-printed, and with the members in any order
//! (`"d"` before `"kty"`, as sorted output has it); and as Python prints a
//! dict (`{'kty': 'OKP', 'd': '…'}`). (A key printed as YAML or a JavaScript
//! object, each member on a line of its own, is read by the rule for values
//! in a config's place.)

use super::super::{Found, MAX_PEM, b64url};

/// The private members.
const PRIVATE: [&[u8]; 8] = [b"d", b"p", b"q", b"dp", b"dq", b"qi", b"k", b"priv"];

/// Shorter values are no key (a 128-bit `k` is 22 characters).
const MIN_VALUE: usize = 16;

/// Whether the key that ends right before `op` (a `:`, maybe after blanks)
/// is `"kty"` (or `\"kty\"`).
pub(super) fn is_kty(b: &[u8], op: usize) -> bool {
    let mut e = op;
    while e > 0 && matches!(b[e - 1], b' ' | b'\t') {
        e -= 1;
    }
    // The key's closing quote, `"`, `\"` (JSON in a JSON string) or `'`
    // (a Python dict).
    if e == 0 || !matches!(b[e - 1], b'"' | b'\'') {
        return false;
    }
    let quote = b[e - 1];
    e -= 1;
    if quote == b'"' && e > 0 && b[e - 1] == b'\\' {
        e -= 1;
    }
    e >= 4 && &b[e - 3..e] == b"kty" && b[e - 4] == quote
}

/// The JWK whose `kty` ends before `op`: its private members' values,
/// masked.
pub(super) fn key(b: &[u8], op: usize, found: &mut Vec<Found>) {
    let Some(open) = object_start(b, op) else {
        return;
    };
    let end = object_end(b, open);
    private_members(b, open, end, |start, end| {
        found.push(Found {
            start,
            end,
            kind: "private-key",
        })
    });
}

/// The `{` of the object that holds `at` (within [`MAX_PEM`] before it).
fn object_start(b: &[u8], at: usize) -> Option<usize> {
    let floor = at.saturating_sub(MAX_PEM);
    let mut depth = 0usize;
    let mut to = at;
    while let Some(p) = memchr::memrchr2(b'{', b'}', &b[floor..to]) {
        let i = floor + p;
        match b[i] {
            b'}' => depth += 1,
            _ if depth == 0 => return Some(i),
            _ => depth -= 1,
        }
        to = i;
    }
    None
}

/// Where the object that opens at `open` ends (its `}`, or the end of the
/// text or of [`MAX_PEM`]).
fn object_end(b: &[u8], open: usize) -> usize {
    let limit = (open + MAX_PEM).min(b.len());
    let mut depth = 0usize;
    for (i, &c) in b[open..limit].iter().enumerate() {
        match c {
            b'{' => depth += 1,
            b'}' if depth == 1 => return open + i + 1,
            b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    limit
}

/// Calls `f` with each private member's value (inside its quotes) in
/// `b[open..end]`: `"d": "…"` of base64url, escaped or not.
fn private_members(b: &[u8], open: usize, end: usize, mut f: impl FnMut(usize, usize)) {
    // Nothing is read past `end` (a member cut by it is not one).
    let b = &b[..end];
    let mut i = open;
    while let Some(p) = memchr::memchr2(b'"', b'\'', &b[i..end]) {
        let q = i + p;
        let quote = b[q];
        i = q + 1;
        let n = b[i..end]
            .iter()
            .take_while(|c| c.is_ascii_lowercase())
            .count();
        let name = &b[i..i + n];
        let mut j = i + n;
        // The key's closing quote (`"`, `\"` or `'`), then `:`.
        j += usize::from(quote == b'"' && b.get(j) == Some(&b'\\'));
        if n == 0 || b.get(j) != Some(&quote) || !PRIVATE.contains(&name) {
            continue;
        }
        j += 1;
        j += super::super::run(&b[..end], j, |c| c == b' ' || c == b'\t');
        if b.get(j) != Some(&b':') {
            continue;
        }
        j += 1;
        j += super::super::run(&b[..end], j, |c| c == b' ' || c == b'\t' || c == b'\\');
        if b.get(j) != Some(&quote) {
            continue;
        }
        let start = j + 1;
        let len = super::super::run(&b[..end], start, b64url);
        if len >= MIN_VALUE {
            f(start, start + len);
        }
        i = start + len;
    }
}

/// Where a JWK's object starts that `cut` cuts and whose private members
/// may be read differently once it ends: the innermost object open at the
/// cut (within [`MAX_PEM`]) that has, among its own members so far, a
/// `kty` or a private member, or ends in a key that may become one.
pub(super) fn open_at(b: &[u8], cut: usize) -> Option<usize> {
    let open = object_start(b, cut)?;
    // Most objects hold none of these keys at any depth: told from their
    // quotes alone, before their members are walked byte by byte.
    if !memchr::memchr2_iter(b'"', b'\'', &b[open..cut]).any(|q| key_at(&b[open + q + 1..cut])) {
        return None;
    }
    let mut depth = 0usize;
    let mut i = open;
    while i < cut {
        match b[i] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' | b'\'' if depth == 1 => {
                if key_at(&b[i + 1..cut]) {
                    return Some(open);
                }
                i += 1 + b[i + 1..cut]
                    .iter()
                    .take_while(|c| c.is_ascii_lowercase())
                    .count();
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Whether `t` (what follows a `"` up to the cut) starts with a JWK's
/// `kty` or private member as a key (`d"`, `d\"`), or with what may become
/// one at the cut (`"d`, `"`).
fn key_at(t: &[u8]) -> bool {
    let n = t.iter().take_while(|c| c.is_ascii_lowercase()).count();
    let (name, rest) = t.split_at(n);
    let known = |w: &[u8]| w == b"kty" || PRIVATE.contains(&w);
    let closed = matches!(rest.first(), Some(b'"' | b'\'')) || rest.starts_with(b"\\\"");
    (closed && known(name))
        || (rest.iter().all(|&c| c == b'\\')
            && (name.is_empty()
                || known(name)
                || PRIVATE
                    .iter()
                    .chain([&&b"kty"[..]])
                    .any(|w| w.starts_with(name))))
}
