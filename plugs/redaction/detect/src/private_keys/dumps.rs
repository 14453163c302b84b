//! A key's numbers as `openssl rsa|ec|dsa|pkey -text -noout` prints them:
//! each under its label, in indented lines of `xx:xx:…` hex. The private ones
//! are masked (their hex lines; the label stays): `privateExponent`,
//! `prime1`, `prime2`, `exponent1`, `exponent2`, `coefficient` (RSA), `priv`
//! (EC, DSA, Ed25519, X25519), `private-key` (DH). `modulus`,
//! `publicExponent`, `pub` and the domain parameters are public and stay.

use super::super::{Found, MAX_PEM, decorations, hex, line_start_within, run};

/// The labels of the private numbers, as OpenSSL prints them.
const PRIVATE: [&[u8]; 8] = [
    b"privateExponent",
    b"prime1",
    b"prime2",
    b"exponent1",
    b"exponent2",
    b"coefficient",
    b"priv",
    b"private-key",
];

/// Fewer bytes than this under a label are no key's number (a 64-bit
/// exponent is printed on the label's line, in decimal).
const MIN_BYTES: usize = 16;

/// What a word that may be a private label is.
pub(super) enum Label {
    /// A private label alone on its line (indentation aside).
    Alone,
    /// A private label after a decoration (a timestamp, a line number): the
    /// line starts here.
    Decorated(usize),
    No,
}

/// Whether the word `[s, e)` (ending in `:`) is a private label, and how.
pub(super) fn label(b: &[u8], s: usize, e: usize) -> Label {
    if !PRIVATE.contains(&&b[s..e - 1]) {
        return Label::No;
    }
    if is_label(b, s, e) {
        return Label::Alone;
    }
    match line_start_within(b, s, decorations::MAX_PREFIX) {
        Some(l)
            if decorations::rest_of_line(b, e)
                .is_some_and(|suffix| decorations::decorated(&b[l..s], suffix)) =>
        {
            Label::Decorated(l)
        }
        _ => Label::No,
    }
}

/// Where the private label at `p` ends (after its `:`), if one starts there.
pub(super) fn label_end(b: &[u8], p: usize) -> Option<usize> {
    if p > 0 && (b[p - 1].is_ascii_alphanumeric() || b[p - 1] == b'-') {
        return None;
    }
    let n = run(b, p, |c| c.is_ascii_alphanumeric() || c == b'-');
    (PRIVATE.contains(&&b[p..p + n]) && b.get(p + n) == Some(&b':')).then_some(p + n + 1)
}

/// Whether the word `[s, e)` (ending in `:`) is a private label, alone on
/// its line (indentation aside).
pub(super) fn is_label(b: &[u8], s: usize, e: usize) -> bool {
    let name = &b[s..e - 1];
    matches!(name.len(), 4 | 6 | 9 | 11 | 15)
        && matches!(name[0], b'p' | b'e' | b'c')
        && PRIVATE.contains(&name)
        && line_start_within(b, s, 64)
            .is_some_and(|l| b[l..s].iter().all(|&c| c == b' ' || c == b'\t'))
        && matches!(
            &b[e..b.len().min(e + 2)],
            [] | [b'\n', ..] | [b'\r'] | [b'\r', b'\n']
        )
}

/// The hex lines under a label that ends at `e` (checked by [`is_label`]),
/// masked.
pub(super) fn section(b: &[u8], e: usize, found: &mut Vec<Found>) {
    if let Some((start, end, _)) = hex_lines(b, e) {
        found.push(Found {
            start,
            end,
            kind: "private-key",
        });
    }
}

/// The hex lines after a label that ends at `e`: where the first one's hex
/// starts, where the last one ends, and whether the text ended among them
/// (more may follow). `None` if fewer than [`MIN_BYTES`] bytes.
fn hex_lines(b: &[u8], e: usize) -> Option<(usize, usize, bool)> {
    let s = scan(b, e);
    (s.bytes >= MIN_BYTES).then_some((s.first?, s.last, s.open))
}

/// The section under a label that ends at `e`: what is masked of it, and
/// whether the text ended inside it (after its label too).
pub(super) fn reading(b: &[u8], e: usize) -> (Option<(usize, usize)>, bool) {
    let s = scan(b, e);
    let masked = (s.bytes >= MIN_BYTES)
        .then_some(s.first.map(|f| (f, s.last)))
        .flatten();
    (masked, s.open)
}

/// What [`hex_lines`] reads.
struct Scan {
    first: Option<usize>,
    last: usize,
    /// How many bytes the hex lines hold.
    bytes: usize,
    open: bool,
}

fn scan(b: &[u8], e: usize) -> Scan {
    let limit = (e + MAX_PEM).min(b.len());
    let mut i = e + run(b, e, |c| c == b'\r');
    let (mut first, mut last, mut bytes) = (None, i, 0);
    if b.get(i) != Some(&b'\n') {
        let open = i >= b.len();
        return Scan {
            first,
            last,
            bytes,
            open,
        };
    }
    i += 1;
    loop {
        let indent = run(&b[..limit], i, |c| c == b' ' || c == b'\t');
        let from = i + indent;
        let n = run(&b[..limit], from, |c| hex(c) || c == b':');
        let mut end = from + n;
        let rest = end + run(&b[..limit], end, |c| c == b'\r' || c == b' ');
        let whole_line = rest < limit && b[rest] == b'\n';
        let at_end = rest >= b.len();
        if indent == 0 || n < 2 || !hex_groups(&b[from..end]) || !(whole_line || at_end) {
            // The text's last line, cut inside its hex (or its indentation,
            // or empty): it may still become a hex line.
            let open = at_end;
            return Scan {
                first,
                last,
                bytes,
                open,
            };
        }
        first.get_or_insert(from);
        bytes += b[from..end].iter().filter(|&&c| c == b':').count() + 1;
        while end > from && b[end - 1] == b':' {
            end -= 1;
        }
        last = end;
        if at_end {
            return Scan {
                first,
                last,
                bytes,
                open: true,
            };
        }
        i = rest + 1;
        if i >= limit {
            break;
        }
    }
    let open = i >= b.len();
    Scan {
        first,
        last,
        bytes,
        open,
    }
}

/// `xx:xx:…`, two hex digits between colons.
fn hex_groups(t: &[u8]) -> bool {
    t.split(|&c| c == b':')
        .enumerate()
        .all(|(k, g)| g.len() == 2 || (g.is_empty() && k > 0))
}

/// Where a private section starts (its label's line) that `cut` may cut:
/// inside its hex lines, or right after them or after its label, where more
/// may follow.
pub(super) fn open_at(b: &[u8], cut: usize) -> Option<usize> {
    let b = &b[..cut];
    let floor = cut.saturating_sub(MAX_PEM);
    let mut line = line_start_within(b, cut, 512)?;
    // The line the cut is in: a hex line's start, or a label.
    let partial = &b[line..];
    let trimmed = &partial[run(partial, 0, |c| c == b' ' || c == b'\t')..];
    if trimmed.ends_with(b":") && is_label(b, line + partial.len() - trimmed.len(), cut) {
        return Some(line);
    }
    if !trimmed.iter().all(|&c| hex(c) || c == b':' || c == b'\r') {
        return None;
    }
    // The lines above: hex lines up to a label.
    while line > floor && line > 0 {
        let above = line_start_within(b, line - 1, 512)?;
        let text = &b[above..line - 1];
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        let indent = run(text, 0, |c| c == b' ' || c == b'\t');
        let body = &text[indent..];
        if body.ends_with(b":") && PRIVATE.contains(&&body[..body.len() - 1]) {
            return Some(above);
        }
        if indent == 0 || body.len() < 2 || !body.iter().all(|&c| hex(c) || c == b':') {
            return None;
        }
        line = above;
    }
    None
}
