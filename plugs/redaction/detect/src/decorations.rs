//! Decorations that tools put on every line of what they show, read through:
//! CI logs' timestamps (`2024-05-01T10:00:00.1234567Z `, `[12:00:01] `),
//! a log's source (`web-1  | `), line numbers (`  12 | `, `cat -n`'s tab,
//! `bat`'s gutter), quote and diff marks (`> `, `| `, `-`), a box table's
//! borders and the cell to the left (`│ NAME │ … │`), `cat -A`'s `$`.
//!
//! Two readings use them:
//!
//! - a key block whose first line carries a decoration (a `-----BEGIN`, a
//!   key dump's `priv:`) is read again with that decoration taken off each
//!   of its lines ([`region`]): the same shape before each (its digits may
//!   change, a table's left cell may be blank), the same mark after each.
//!   The block is masked where its bytes came from, decorations between its
//!   lines included;
//! - a `key: value` line that must be alone on its line (a config's) may
//!   follow a decoration ([`line_prefix`]).

use super::{Found, MAX_LINE_PREFIX, MAX_PEM, line_start_within, private_keys, run};

/// The kind of the mark a detector leaves where a key block's first line is
/// decorated (never returned): from the line's start to the block's anchor.
pub(crate) const DECORATED: &str = "\x00decorated";

/// Longest decoration before a block's anchor.
pub(crate) const MAX_PREFIX: usize = 96;

/// Longest mark after a line (`$`, `^M$`, `│`), its padding aside.
const MAX_SUFFIX: usize = 8;

/// The borders of a table's cells: a continuation line blanks the cells
/// before the value's, not these.
const BORDERS: [char; 5] = ['│', '|', '┃', '║', '¦'];

/// Whether a key's first line is decorated: `prefix` (from the line's start
/// to the anchor) is short and not only blanks, or `suffix` (from the end of
/// the marker or label to the line's end) is a mark; and the suffix is
/// nothing else (prose after a marker is a sentence about it).
pub(crate) fn decorated(prefix: &[u8], suffix: &[u8]) -> bool {
    let Some(mark) = suffix_mark(suffix) else {
        return false;
    };
    !mark.is_empty()
        || (prefix.len() <= MAX_PREFIX && prefix.iter().any(|&c| !matches!(c, b' ' | b'\t')))
}

/// What follows a key's marker or label to the line's end, as a mark: empty
/// if only blanks; `None` if it is text (letters and digits, or long).
fn suffix_mark(rest: &[u8]) -> Option<&[u8]> {
    let t = rest.trim_ascii();
    // `cat -A` shows a CR as `^M`.
    (t.len() <= MAX_SUFFIX && (t == b"^M$" || !t.iter().any(u8::is_ascii_alphanumeric)))
        .then_some(t)
}

/// The rest of the line from `from`, read at most [`MAX_LINE_PREFIX`]
/// bytes far (a table's padding): `None` if it runs on (no suffix of ours).
pub(crate) fn rest_of_line(b: &[u8], from: usize) -> Option<&[u8]> {
    let to = b.len().min(from + MAX_LINE_PREFIX);
    match memchr::memchr(b'\n', &b[from..to]) {
        Some(p) => Some(&b[from..from + p]),
        None if to == b.len() => Some(&b[from..]),
        None => None,
    }
}

/// Marks the line that starts at `line` as a decorated block's first line,
/// its anchor at `anchor`.
pub(crate) fn mark(line: usize, anchor: usize, found: &mut Vec<Found>) {
    found.push(Found {
        start: line,
        end: anchor,
        kind: DECORATED,
    });
}

/// What kind of block a decorated anchor starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Anchor {
    /// A `-----BEGIN …-----` marker.
    Pem,
    /// An `openssl … -text` dump's private label (`priv:`).
    Dump,
}

impl Anchor {
    pub(crate) fn at(b: &[u8], anchor: usize) -> Anchor {
        if b[anchor] == b'-' {
            Anchor::Pem
        } else {
            Anchor::Dump
        }
    }

    /// Whether a line of the block, read without its decoration, is the
    /// last one (an END marker) or past the block (a dump's line that is
    /// neither hex nor a label).
    fn ends(self, text: &[u8]) -> bool {
        let t = text.trim_ascii();
        match self {
            Anchor::Pem => t.starts_with(b"-----END"),
            Anchor::Dump => {
                let indented = text.first().is_some_and(|c| matches!(c, b' ' | b'\t'));
                let hex = indented && t.iter().all(|&c| c.is_ascii_hexdigit() || c == b':');
                !(hex || t.ends_with(b":"))
            }
        }
    }
}

/// A block read without its lines' decoration.
pub(crate) struct Region {
    pub bytes: Vec<u8>,
    /// For each byte, where it came from; one more entry: the end.
    pub map: Vec<u32>,
    /// Whether it reaches the text's end: more of it may follow.
    pub open: bool,
}

impl Region {
    /// Where the text's byte `i` is in the region, if it was copied there.
    pub(crate) fn at(&self, i: usize) -> Option<usize> {
        let k = self.map.binary_search(&u32::try_from(i).ok()?).ok()?;
        (k < self.bytes.len()).then_some(k)
    }

    /// Bytes `[start, end)` of the region (not empty): where they came
    /// from, from the first to the last.
    pub(crate) fn span(&self, (start, end): (usize, usize)) -> (usize, usize) {
        (self.map[start] as usize, self.map[end - 1] as usize + 1)
    }

    /// A find in the region, where its bytes came from.
    pub(crate) fn back(&self, f: Found) -> Found {
        let (start, end) = self.span((f.start, f.end));
        Found {
            start,
            end,
            kind: f.kind,
        }
    }
}

/// The block whose first line starts at `line`, its anchor at `anchor` and
/// its marker or label ending at `anchor_end` (what is before the anchor is
/// the decoration, what follows the marker the mark after each line): each
/// line with the decoration taken off, from the anchor up to the block's
/// last line, the first line that does not carry the decoration, or
/// `limit`. The end of `b` is the text's: a line it cuts may grow.
pub(crate) fn region(
    b: &[u8],
    line: usize,
    anchor: usize,
    anchor_end: usize,
    limit: usize,
) -> Region {
    let kind = Anchor::at(b, anchor);
    let prefix = &b[line..anchor];
    let first_end = memchr::memchr(b'\n', &b[anchor_end..limit]).map_or(limit, |p| anchor_end + p);
    let mark = suffix_mark(&b[anchor_end..first_end]).unwrap_or_default();
    let mut bytes = Vec::with_capacity(limit - anchor);
    let mut map = Vec::with_capacity(limit - anchor + 1);
    let mut at = line;
    let mut open = limit == b.len();
    while at < limit {
        let end = memchr::memchr(b'\n', &b[at..limit]).map_or(limit, |p| at + p);
        // The text's last line, cut where it ends: it may grow its
        // decoration still.
        let growing = end == b.len();
        let mut text = &b[at..end];
        text = text.strip_suffix(b"\r").unwrap_or(text);
        let p = if at == line {
            Some(anchor - line)
        } else {
            prefix_len(prefix, text)
        };
        let Some(p) = p else {
            open = growing;
            break;
        };
        let s = match suffix_len(mark, &text[p..]) {
            Some(s) => s,
            None if growing => 0,
            None => {
                open = false;
                break;
            }
        };
        let (from, to) = (at + p, at + text.len() - s);
        bytes.extend_from_slice(&b[from..to]);
        map.extend((from..to).map(|i| i as u32));
        if end < limit {
            bytes.push(b'\n');
            map.push(end as u32);
        }
        at = end + 1;
        if kind.ends(&b[from..to]) && !growing {
            open = false;
            break;
        }
    }
    map.push(at.min(b.len()) as u32);
    Region { bytes, map, open }
}

/// How many bytes at the start of `line` are the decoration `first` (the
/// block's first line's), in one of two shapes: the same text, its digits
/// (a timestamp, a line number) and blanks (their alignment) free; or a
/// table's row whose cells before the value are blank.
fn prefix_len(first: &[u8], line: &[u8]) -> Option<usize> {
    same_shape(first, line)
        .or_else(|| blank_cells(first, line))
        .or_else(|| printed_by_frame(first, line))
}

/// The first line's decoration as the lines after it carry it, where it is
/// not the same: an agent's frame on the first line only (Claude Code's
/// `  ⎿  `, Codex's `  └ `: blanks below), and a command that printed the
/// block from its first line (`+ echo '-----BEGIN …`, under a CI log's
/// timestamps: only the timestamps below).
#[cold]
#[inline(never)]
fn printed_by_frame(first: &[u8], line: &[u8]) -> Option<usize> {
    let mut shape = first.to_vec();
    for glyph in ["⎿", "└"] {
        if let Some(p) = crate::find(&shape, glyph.as_bytes()) {
            shape.splice(p..p + glyph.len(), [b' ']);
        }
    }
    if let Some(p) = echo_at(&shape) {
        shape.truncate(p);
    }
    (shape != first && shape.iter().any(|&c| c != b' '))
        .then(|| same_shape(&shape, line))
        .flatten()
}

/// Where a command that prints its quoted argument starts at the end of
/// `prefix` (`+ echo '`, `$ printf '%s' "`), after a blank.
fn echo_at(prefix: &[u8]) -> Option<usize> {
    if !matches!(prefix.last(), Some(b'\'' | b'"')) {
        return None;
    }
    let p = [&b"echo "[..], b"printf "]
        .iter()
        .filter_map(|c| crate::rfind(prefix, c))
        .max()?;
    let p = match p.checked_sub(2) {
        Some(q) if matches!(&prefix[q..p], b"+ " | b"$ ") => q,
        _ => p,
    };
    (p > 0 && prefix[p - 1] == b' ').then_some(p)
}

/// `first`'s text, each run of digits any run of digits; a run of blanks
/// before or after digits any run (numbers aligned right or left), a last
/// run of blanks as many (what follows is the text's own indentation),
/// other runs one or more.
fn same_shape(first: &[u8], line: &[u8]) -> Option<usize> {
    let (mut i, mut j) = (0, 0);
    while i < first.len() {
        let c = first[i];
        if c.is_ascii_digit() {
            let m = run(line, j, |c| c.is_ascii_digit());
            if m == 0 {
                return None;
            }
            i += run(first, i, |c| c.is_ascii_digit());
            j += m;
        } else if c == b' ' {
            let n = run(first, i, |c| c == b' ');
            let m = run(line, j, |c| c == b' ');
            let by_digits = (i > 0 && first[i - 1].is_ascii_digit())
                || first.get(i + n).is_some_and(u8::is_ascii_digit);
            let ok = if i + n == first.len() {
                m >= n
            } else {
                by_digits || m > 0
            };
            if !ok {
                return None;
            }
            j += if i + n == first.len() { n } else { m };
            i += n;
        } else {
            // `grep -n -A`: `12:` before the matching line, `13-` before
            // the lines of context after it.
            let grep = matches!(c, b':' | b'-')
                && i > 0
                && first[i - 1].is_ascii_digit()
                && matches!(line.get(j), Some(b':' | b'-'));
            if line.get(j) != Some(&c) && !grep {
                return None;
            }
            i += 1;
            j += 1;
        }
    }
    Some(j)
}

/// `first` a table row's start (`│ TLS_KEY │ `) and `line` the same row's
/// next line (`│         │ `): the same borders at the same places, blanks
/// where `first` has text.
fn blank_cells(first: &[u8], line: &[u8]) -> Option<usize> {
    let first = std::str::from_utf8(first).ok()?;
    let mut j = 0;
    let mut border = false;
    for c in first.chars() {
        let n = c.len_utf8();
        let same = line.get(j..j + n) == Some(c.encode_utf8(&mut [0; 4]).as_bytes());
        if BORDERS.contains(&c) {
            if !same {
                return None;
            }
            border = true;
            j += n;
        } else if same || line.get(j) == Some(&b' ') {
            j += if same { n } else { 1 };
        } else {
            return None;
        }
    }
    border.then_some(j)
}

/// How many bytes of `first`'s shape (a table row's start, up to a cell)
/// `line` starts with, its cells blank: a wrapped cell's next row.
pub(crate) fn blank_cells_len(first: &[u8], line: &[u8]) -> Option<usize> {
    blank_cells(first, line)
}

/// The length of a cell's border at `t[i]` (`│`, `|`, `┃`, `║`, `¦`), 0 if
/// none.
pub(crate) fn border_at(t: &[u8], i: usize) -> usize {
    let Some(rest) = t.get(i..) else {
        return 0;
    };
    BORDERS
        .iter()
        .find(|c| rest.starts_with(c.encode_utf8(&mut [0; 4]).as_bytes()))
        .map_or(0, |c| c.len_utf8())
}

/// How many bytes at the end of `line` are the mark `mark` and the padding
/// before it; 0 for no mark.
fn suffix_len(mark: &[u8], line: &[u8]) -> Option<usize> {
    if mark.is_empty() {
        return Some(0);
    }
    let t = line.strip_suffix(mark)?;
    Some(line.len() - t.trim_ascii_end().len())
}

/// The decorated key blocks that may reach `cut`: the last `-----BEGIN`
/// before it (`last_begin`, `private_keys::last_begin`'s) and the last
/// private label of a key dump within [`MAX_PEM`] before it (a block holds
/// no other), if their lines are decorated; each as its line's start, its
/// anchor and where its marker or label ends.
pub(crate) fn anchors_before(
    b: &[u8],
    cut: usize,
    last_begin: Option<usize>,
) -> impl Iterator<Item = (usize, usize, usize)> {
    let floor = cut.saturating_sub(MAX_PEM);
    let pem = last_begin;
    let dump = last_label(b, floor, cut);
    [pem, dump].into_iter().flatten().filter_map(move |anchor| {
        let line = line_start_within(b, anchor, MAX_PREFIX)?;
        let anchor_end = private_keys::anchor_end(b, anchor)?;
        let suffix = rest_of_line(b, anchor_end)?;
        decorated(&b[line..anchor], suffix).then_some((line, anchor, anchor_end))
    })
}

/// The private label of a key dump whose section may reach `cut`: on the
/// line the cut is in, or above it over lines that end as a dump's do (in
/// hex, or a label), within `[floor, cut)`. Text of any other kind ends the
/// search at once, having read only the ends of two lines.
fn last_label(b: &[u8], floor: usize, cut: usize) -> Option<usize> {
    // The line the cut is in may be anything so far (its decoration); a
    // dump's line is short.
    let mut start = line_start_within(b, cut, MAX_LINE_PREFIX)?.max(floor);
    let mut end = cut;
    loop {
        let text = dump_line_end(&b[start..end]);
        if text.ends_with(b":") {
            let colon = start + text.len() - 1;
            let mut word = colon;
            while word > start && (b[word - 1].is_ascii_alphanumeric() || b[word - 1] == b'-') {
                word -= 1;
            }
            if private_keys::anchor_end(b, word) == Some(colon + 1) {
                return Some(word);
            }
        }
        if start <= floor || start == 0 {
            return None;
        }
        // The line above, told by its end first.
        end = start - 1;
        let hex = {
            let t = dump_line_end(&b[end.saturating_sub(MAX_LINE_PREFIX).max(floor)..end]);
            let n = t
                .iter()
                .rev()
                .take_while(|&&c| c.is_ascii_hexdigit() || c == b':')
                .count();
            let before = t.len() - n;
            (n >= 2 && (before == 0 || matches!(t[before - 1], b' ' | b'\t'))) || t.ends_with(b":")
        };
        if !hex {
            return None;
        }
        start = line_start_within(b, end, MAX_LINE_PREFIX)?.max(floor);
    }
}

/// `t` (a line, or its end) without what a tool put after it: a CR, `cat
/// -A`'s `$` or `^M$`, a table's border and the padding before it.
fn dump_line_end(t: &[u8]) -> &[u8] {
    let t = t.strip_suffix(b"\r").unwrap_or(t);
    let t = t.strip_suffix(b"^M$").unwrap_or(t);
    let mark = t
        .iter()
        .rev()
        .take(MAX_SUFFIX + 1)
        .take_while(|&&c| !c.is_ascii_alphanumeric() && c != b':' && c != b'\n')
        .count();
    let t = &t[..t.len() - mark];
    let blanks = t.iter().rev().take_while(|&&c| c == b' ' || c == b'\t');
    &t[..t.len() - blanks.count()]
}

/// Whether the decorated block at `anchor` (its line starting at `line`,
/// its marker or label ending at `anchor_end`) must be held back whole from
/// `cut`: read in the text up to the cut, it would not be masked as in the
/// text so far (it goes on past the cut, or may go on past the text's end,
/// or its first line, which decides its decoration, is not whole yet).
pub(crate) fn reaches(b: &[u8], cut: usize, line: usize, anchor: usize, anchor_end: usize) -> bool {
    if anchor_end >= cut || memchr::memchr(b'\n', &b[anchor_end..cut]).is_none() {
        return true;
    }
    let limit = (line + MAX_PEM).min(b.len());
    let whole = region(b, line, anchor, anchor_end, limit);
    let (masked, open) = private_keys::block_reading(&whole.bytes, anchor_end - anchor);
    if open && whole.open {
        return true;
    }
    let before = region(&b[..cut], line, anchor, anchor_end, limit.min(cut));
    let (masked_before, _) = private_keys::block_reading(&before.bytes, anchor_end - anchor);
    masked.map(|m| whole.span(m)) != masked_before.map(|m| before.span(m))
}

/// How many bytes at `line` (a line's start, up to `ks`) are decorations a
/// tool put before a file's or a log's line: timestamps, `[hh:mm:ss]`,
/// `##[…]`, a line number and its separator, quote, diff, list and comment
/// marks, a box table's border; several of them in a row too.
pub(crate) fn line_prefix(b: &[u8], line: usize, ks: usize) -> usize {
    let mut at = line;
    loop {
        let n = one_prefix(&b[at..ks]);
        if n == 0 {
            return at - line;
        }
        at += n;
    }
}

/// One decoration at the start of `t`: how long (0: none).
pub(crate) fn one_prefix(t: &[u8]) -> usize {
    let blanks = |from: usize| run(t, from, |c| c == b' ' || c == b'\t');
    let lead = blanks(0);
    let s = &t[lead..];
    let digits = run(s, 0, |c| c.is_ascii_digit());
    // `2024-05-01T10:00:00.1234567Z `, `2024-05-01 10:00:00,123 `.
    if digits == 4 && s.get(4) == Some(&b'-') {
        let stamp = |c: u8| {
            c.is_ascii_digit() || matches!(c, b'-' | b':' | b'.' | b',' | b'T' | b'Z' | b'+')
        };
        let mut n = run(s, 0, stamp);
        if s.get(n) == Some(&b' ') && s.get(n + 1).is_some_and(u8::is_ascii_digit) {
            n += 1 + run(s, n + 1, stamp);
        }
        let after = blanks(lead + n);
        return if n >= 10 && after > 0 {
            lead + n + after
        } else {
            0
        };
    }
    // A line number: `  12 | `, `12:`, `12 │ `, `cat -n`'s `    12\t`,
    // Claude Code's `    12→`.
    if digits > 0 && digits <= 7 {
        let mut i = digits + run(s, digits, |c| c == b' ');
        if s[i..].starts_with("│".as_bytes()) {
            i += "│".len();
        } else if s[i..].starts_with("→".as_bytes()) {
            i += "→".len();
        } else if matches!(s.get(i), Some(b'|' | b':')) || (s.get(i) == Some(&b'\t') && i == digits)
        {
            i += 1;
        } else {
            return 0;
        }
        return lead + i + run(s, i, |c| c == b' ');
    }
    // `[12:00:01] `, `[2024-05-01 10:00:00] `, `##[debug]`.
    let bracket = if s.starts_with(b"##[") {
        3
    } else {
        usize::from(s.first() == Some(&b'['))
    };
    if bracket > 0 {
        let Some(close) = s.iter().take(40).position(|&c| c == b']') else {
            return 0;
        };
        let inside = s.get(bracket..close).unwrap_or_default();
        let ok = if bracket == 3 {
            inside.iter().all(u8::is_ascii_alphabetic)
        } else {
            inside.iter().any(u8::is_ascii_digit)
                && inside.iter().all(|&c| {
                    c.is_ascii_digit()
                        || matches!(c, b':' | b'.' | b'-' | b' ' | b'T' | b'Z' | b',')
                })
        };
        return if ok && !inside.is_empty() {
            lead + close + 1 + blanks(lead + close + 1)
        } else {
            0
        };
    }
    // Marks followed by a blank: `> `, `| `, `│ `, `- `, `+ `, `* `, `# `,
    // `// `; a diff's `+` and a quote's `>` glued to the line.
    for mark in [
        &b">"[..],
        b"|",
        "│".as_bytes(),
        b"#",
        b"//",
        b"*",
        b"-",
        b"+",
    ] {
        if s.starts_with(mark) {
            let after = blanks(lead + mark.len());
            if after > 0 || matches!(mark, b"+" | b">") {
                return lead + mark.len() + after;
            }
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Redactor;

    /// A block's first decoration, a later line, and how much of that line
    /// is its decoration (`None`: it does not carry it).
    const SHAPES: &[(&str, &str, Option<usize>)] = &[
        (
            "2024-05-01T10:00:00.1234567Z ",
            "2024-05-01T10:00:01.12Z MIIE",
            Some(24),
        ),
        (
            "2024-05-01T10:00:00.1234567Z ",
            "2024-05-01T10:00:01.12Z   MIIE",
            Some(24),
        ),
        (
            "2024-05-01T10:00:00.1234567Z ",
            "2024-05-01 10:00:01 MIIE",
            None,
        ),
        ("     9\t", "    10\tMIIE", Some(7)),
        ("  8 | ", " 10 | MIIE", Some(6)),
        ("   1   │ ", "  12   │ MIIE", Some("  12   │ ".len())),
        ("web-1  | ", "web-1  | MIIE", Some(9)),
        ("web-1  | ", "db-1   | MIIE", None),
        ("> ", ">     00:c5", Some(2)),
        ("> ", "MIIE", None),
        (
            "│ TLS_KEY    │ ",
            "│            │ MIIE",
            Some("│            │ ".len()),
        ),
        ("│ TLS_KEY    │ ", "│ OTHER      │ MIIE", None),
        ("│ TLS_KEY    │ ", "             │ MIIE", None),
        ("Error: expected \"", "Error: process exited", None),
        // The first line's frame and the command that printed the block.
        (
            "  ⎿  2025-04-08T15:45:37.3106386Z ",
            "     2025-04-08T15:45:37.3427860Z lIYE",
            Some(34),
        ),
        (
            "2025-04-08T15:45:37.3106386Z + echo '",
            "2025-04-08T15:45:37.3427860Z lIYE",
            Some(29),
        ),
        (
            "  └ 12:00:01 $ printf '%s\\n' \"",
            "    12:00:02 MIIE",
            Some(13),
        ),
        ("+ echo '", "lIYEYhc6", None),
    ];

    #[test]
    fn each_line_is_read_through_its_blocks_decoration() {
        for &(first, line, want) in SHAPES {
            let got = prefix_len(first.as_bytes(), line.as_bytes());
            assert_eq!(got, want, "{first:?} on {line:?}");
        }
    }

    /// What follows a marker on its line: a mark, nothing, or text.
    const SUFFIXES: &[(&str, Option<&str>)] = &[
        ("$", Some("$")),
        ("^M$", Some("^M$")),
        ("                                   │", Some("│")),
        ("  \r", Some("")),
        (" is the header; the body follows", None),
        ("` in the docs", None),
    ];

    #[test]
    fn a_marks_suffix_is_a_decoration_or_text() {
        for &(rest, want) in SUFFIXES {
            assert_eq!(
                suffix_mark(rest.as_bytes()),
                want.map(str::as_bytes),
                "{rest:?}"
            );
        }
    }

    #[test]
    fn many_decorated_markers_are_read_in_linear_time() {
        let r = Redactor::new(&[]);
        let unit = "> -----BEGIN RSA PRIVATE KEY-----\n> priv:\n";
        let time = |text: &str| {
            let started = std::time::Instant::now();
            assert!(r.find(text).is_empty());
            r.hold_back_from(text);
            started.elapsed()
        };
        let (short_text, long_text) = (unit.repeat(5_000), unit.repeat(20_000));
        // The best of five, taken in turns: the machine may be busy with
        // other tests a while.
        let (mut short, mut long) = (std::time::Duration::MAX, std::time::Duration::MAX);
        for _ in 0..5 {
            short = short.min(time(&short_text));
            long = long.min(time(&long_text));
        }
        let ratio = long.as_secs_f64() / short.as_secs_f64().max(1e-6);
        assert!(
            ratio < 9.0,
            "4x the text took {ratio:.1}x the time ({short:?}, {long:?})"
        );
    }
}
