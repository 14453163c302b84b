//! .NET's XML key format (`RSA.ToXmlString(true)`, `<RSAKeyValue>`, and
//! `<DSAKeyValue>`): the private members' base64 is masked (`<P>`, `<Q>`,
//! `<DP>`, `<DQ>`, `<InverseQ>`, `<D>`; DSA's `<X>`); `<Modulus>`,
//! `<Exponent>` and DSA's domain parameters and `<Y>` are public and stay.

use super::super::{Found, MAX_PEM, b64, find, rfind};

/// A key element: its name and its private members.
const KEYS: [(&[u8], &[&[u8]]); 2] = [
    (
        b"RSAKeyValue",
        &[b"P", b"Q", b"DP", b"DQ", b"InverseQ", b"D"],
    ),
    (b"DSAKeyValue", &[b"X"]),
];

/// The word `[s, e)`, right after a `<`: if it opens a key element, its
/// private members' values, masked.
pub(super) fn key_value(b: &[u8], s: usize, e: usize, found: &mut Vec<Found>) {
    let Some(&(name, private)) = KEYS.iter().find(|(n, _)| &b[s..e] == *n) else {
        return;
    };
    // The tag's `>` within the bound a key is read in (a tag never closed costs no more).
    let limit = (s + MAX_PEM).min(b.len());
    let Some(open_end) = memchr::memchr(b'>', &b[e..limit]).map(|p| e + p + 1) else {
        return;
    };
    let end = close_of(b, open_end, limit, name).unwrap_or(limit);
    // Each member: `<Name>value</Name>`, the value maybe wrapped in blanks; nothing is read
    // past `end`.
    let b = &b[..end];
    let mut i = open_end;
    while let Some(p) = memchr::memchr(b'<', &b[i..end]) {
        let tag = i + p + 1;
        let n = b[tag..end]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric())
            .count();
        let after = tag + n;
        i = after;
        if n == 0 || b.get(after) != Some(&b'>') || !private.contains(&&b[tag..after]) {
            continue;
        }
        let from = after + 1;
        let to = memchr::memchr(b'<', &b[from..end]).map_or(end, |q| from + q);
        let value = &b[from..to];
        let lead = value.iter().take_while(|c| c.is_ascii_whitespace()).count();
        let trail = value[lead..]
            .iter()
            .rev()
            .take_while(|c| c.is_ascii_whitespace())
            .count();
        let (vs, ve) = (from + lead, to - trail);
        if ve > vs && b[vs..ve].iter().all(|&c| b64(c) || c.is_ascii_whitespace()) {
            found.push(Found {
                start: vs,
                end: ve,
                kind: "private-key",
            });
        }
        i = to;
    }
}

/// Where `</name>` starts, within `[from, limit)`.
fn close_of(b: &[u8], from: usize, limit: usize, name: &[u8]) -> Option<usize> {
    let mut at = from;
    while let Some(p) = find(&b[at..limit], b"</") {
        let tag = at + p + 2;
        if b[tag..limit].starts_with(name) {
            return Some(at + p);
        }
        at = tag;
    }
    None
}

/// Where a key element starts that `cut` cuts (not closed before it, within
/// [`MAX_PEM`]): its members are read whole.
pub(super) fn open_at(b: &[u8], cut: usize) -> Option<usize> {
    let floor = cut.saturating_sub(MAX_PEM);
    let hay = &b[floor..cut];
    KEYS.iter()
        .filter_map(|(name, _)| {
            let mut open = Vec::with_capacity(name.len() + 1);
            open.push(b'<');
            open.extend_from_slice(name);
            let at = floor + rfind(hay, &open)?;
            close_of(b, at, cut, name).is_none().then_some(at)
        })
        .min()
}
