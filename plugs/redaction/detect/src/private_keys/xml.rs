//! .NET's XML key format (`RSA.ToXmlString(true)`, `<RSAKeyValue>`, and
//! `<DSAKeyValue>`): the private members' base64 is masked (`<P>`, `<Q>`,
//! `<DP>`, `<DQ>`, `<InverseQ>`, `<D>`; DSA's `<X>`); `<Modulus>`,
//! `<Exponent>` and DSA's domain parameters and `<Y>` are public and stay.
//! The same escaped for HTML (`&lt;RSAKeyValue&gt;…`, a page or a log that
//! escapes what it shows) is read with its escaped brackets.

use super::super::{Found, MAX_PEM, b64, find, rfind};

/// A key element: its name and its private members.
const KEYS: [(&[u8], &[&[u8]]); 2] = [
    (
        b"RSAKeyValue",
        &[b"P", b"Q", b"DP", b"DQ", b"InverseQ", b"D"],
    ),
    (b"DSAKeyValue", &[b"X"]),
];

/// The brackets of a tag: as they are, or escaped for HTML.
struct Brackets {
    open: &'static [u8],
    close: &'static [u8],
    end_tag: &'static [u8],
}

const PLAIN: Brackets = Brackets {
    open: b"<",
    close: b">",
    end_tag: b"</",
};

const ESCAPED: Brackets = Brackets {
    open: b"&lt;",
    close: b"&gt;",
    end_tag: b"&lt;/",
};

/// Whether the word at `s` follows `&lt;`: an HTML-escaped tag's name.
#[inline(always)]
pub(crate) fn after_escaped_open(b: &[u8], s: usize) -> bool {
    s >= 4 && b[s - 1] == b';' && &b[s - 4..s - 1] == b"&lt"
}

/// The word `[s, e)`, right after a `<` (or `&lt;`): if it opens a key
/// element, its private members' values, masked.
pub(super) fn key_value(b: &[u8], s: usize, e: usize, found: &mut Vec<Found>) {
    let Some(&(name, private)) = KEYS.iter().find(|(n, _)| &b[s..e] == *n) else {
        return;
    };
    let tags = if after_escaped_open(b, s) {
        &ESCAPED
    } else {
        &PLAIN
    };
    // The tag's `>` within the bound a key is read in (a tag never closed costs no more).
    let limit = (s + MAX_PEM).min(b.len());
    let Some(open_end) = find(&b[e..limit], tags.close).map(|p| e + p + tags.close.len()) else {
        return;
    };
    let end = close_of(b, open_end, limit, name, tags.end_tag).unwrap_or(limit);
    // Each member: `<Name>value</Name>`, the value maybe wrapped in blanks; nothing is read
    // past `end`.
    let b = &b[..end];
    let mut i = open_end;
    while let Some(p) = find(&b[i..end], tags.open) {
        let tag = i + p + tags.open.len();
        let n = b[tag..end]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric())
            .count();
        let after = tag + n;
        i = after;
        if n == 0 || !b[after..].starts_with(tags.close) || !private.contains(&&b[tag..after]) {
            continue;
        }
        let from = after + tags.close.len();
        let to = find(&b[from..end], tags.open).map_or(end, |q| from + q);
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

/// Where `</name>` (`end_tag` and the name) starts, within `[from, limit)`.
fn close_of(b: &[u8], from: usize, limit: usize, name: &[u8], end_tag: &[u8]) -> Option<usize> {
    let mut at = from;
    while let Some(p) = find(&b[at..limit], end_tag) {
        let tag = at + p + end_tag.len();
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
        .flat_map(|(name, _)| [(name, &PLAIN), (name, &ESCAPED)])
        .filter_map(|(name, tags)| {
            let mut open = Vec::with_capacity(name.len() + tags.open.len());
            open.extend_from_slice(tags.open);
            open.extend_from_slice(name);
            let at = floor + rfind(hay, &open)?;
            close_of(b, at, cut, name, tags.end_tag)
                .is_none()
                .then_some(at)
        })
        .min()
}
