//! Lines a viewer decorated, read again as the file had them: `cat -n`'s
//! and Claude Code's line numbers, `grep -n`'s `path:12:`, a CI log's
//! timestamps, Compose's `web-1  | `, `kubectl logs --prefix`'s
//! `[pod/…/…] `, a quote's `> ` and a diff's `+`. Rules that read a line
//! with the one above it (a Redis reply's pairs, a REPL's answer, a value
//! under the command that printed it) see the file's lines, not the
//! viewer's.
//!
//! A run of two or more such lines is copied without the decorations, under
//! the lines above it, and read by the same detector (not read through
//! again); what it finds is masked where its bytes came from, besides what
//! the decorated reading found. A single decorated line is left to the
//! rules that read past a line's decoration themselves.

use super::{Found, Redactor, decorations};

/// Longest decoration taken off a line.
const MAX_DECORATION: usize = 96;

/// How much of the text above a run is read with it, in whole lines.
const MAX_CONTEXT: usize = 512;

/// Finds in the runs of decorated lines of `text`, mapped onto `text`.
#[inline(never)]
pub(super) fn read_through(r: &Redactor, text: &str, depth: u8, found: &mut Vec<Found>) {
    let b = text.as_bytes();
    let mut line = 0;
    // The current run: where each of its lines' content starts and ends.
    let mut run: Vec<(usize, usize)> = Vec::new();
    while line < b.len() {
        let end = memchr::memchr(b'\n', &b[line..]).map_or(b.len(), |p| line + p);
        let n = viewer_prefix(b, line, end);
        if n > 0 {
            // (A blank panel line's prefix takes its padding too.)
            let e = panel_end(b, line, end).map_or(end, |e| e.max(line + n));
            run.push((line + n, e));
        } else {
            read_run(r, text, &run, depth, found);
            run.clear();
        }
        line = end + 1;
    }
    read_run(r, text, &run, depth, found);
}

/// Reads the lines of one run (two or more) as one text.
fn read_run(r: &Redactor, text: &str, run: &[(usize, usize)], depth: u8, found: &mut Vec<Found>) {
    if run.len() < 2 {
        return;
    }
    let b = text.as_bytes();
    // The lines above the run as they are (a prompt's command, a table's
    // header, a parent): what the run's lines are read under.
    let first = crate::line_start(b, run[0].0);
    let context = match first.checked_sub(MAX_CONTEXT) {
        None => 0,
        Some(floor) => memchr::memchr(b'\n', &b[floor..first]).map_or(first, |p| floor + p + 1),
    };
    let mut plain = String::from(&text[context..first]);
    let mut map: Vec<u32> = (context as u32..first as u32).collect();
    for &(s, e) in run {
        plain.push_str(&text[s..e]);
        map.extend(s as u32..e as u32);
        plain.push('\n');
        map.push(e as u32);
    }
    // Added to what the decorated reading found: where it took a value for
    // a secret without the context a decoration hid (a table's header), the
    // file's reading cannot tell it was none, and dropping such finds cost
    // more secrets than it spared look-alikes on the held-out set.
    let above = first - context;
    let p = plain.as_bytes();
    for f in r.find_plain(&plain, depth) {
        if f.end <= above {
            continue;
        }
        // Masked line by line where its bytes came from: a key block's mask
        // leaves each line's decorations (its number, a panel's bars) as
        // they were.
        let mut i = f.start;
        while i < f.end {
            if p[i] == b'\n' {
                i += 1;
                continue;
            }
            let start = i;
            while i + 1 < f.end && p[i + 1] != b'\n' && map[i + 1] == map[i] + 1 {
                i += 1;
            }
            found.push(Found {
                start: map[start] as usize,
                end: map[i] as usize + 1,
                kind: f.kind,
            });
            i += 1;
        }
    }
}

/// How many bytes at the start of the line `[line, end)` a viewer put
/// there (0: none). Not a list's or a comment's mark (`- `, `* `, `# `,
/// `// `): those are the file's own.
pub(crate) fn viewer_prefix(b: &[u8], line: usize, end: usize) -> usize {
    let Some(&first) = b.get(line) else {
        return 0;
    };
    // Told by the first byte (after blanks, a number, a bar, an arrow or a
    // quote's mark): most lines start with a word of their own.
    match first {
        b'0'..=b'9' | b'[' | b'+' | b'>' | b'|' | 0xE2 => {}
        b' ' | b'\t' => {
            let at = line + crate::run(&b[line..end], 0, |c| c == b' ' || c == b'\t');
            if !b
                .get(at)
                .is_some_and(|&c| c.is_ascii_digit() || matches!(c, b'>' | b'|' | 0xE2))
            {
                return 0;
            }
        }
        b'#' if b[line..end].starts_with(b"##[") => {}
        c if c.is_ascii_alphabetic() || c == b'.' || c == b'/' || c == b'_' => {
            return compose_or_grep(&b[line..end]);
        }
        _ => return 0,
    }
    // `kubectl logs --prefix`: `[pod/name/container] `.
    if b[line..end].starts_with(b"[pod/") {
        let limit = end.min(line + MAX_DECORATION);
        return match memchr::memchr(b']', &b[line..limit]) {
            Some(p) if b.get(line + p + 1) == Some(&b' ') => p + 2,
            _ => 0,
        };
    }
    // One decoration: what follows it is the file's (`04:d7:…` of a key
    // dump after a timestamp is no line number).
    let limit = end.min(line + MAX_DECORATION);
    let n = decorations::one_prefix(&b[line..limit]);
    if n == 0 {
        return 0;
    }
    let d = &b[line..line + n];
    if d.iter()
        .all(|&c| matches!(c, b' ' | b'\t' | b'-' | b'*' | b'#' | b'/'))
    {
        return 0;
    }
    // A table's row (`| Field | Value |`, `│ … │`): its bars are its own;
    // but a panel's line (Gemini CLI frames a tool's output: `│ … │`, no
    // bar between) is read without its bars and the padding before the
    // last (`panel_end`).
    let last = b[line..end].trim_ascii_end().last().copied();
    if (d.trim_ascii() == b"|" && last == Some(b'|'))
        || (d.trim_ascii() == "│".as_bytes()
            && b[line..end].trim_ascii_end().ends_with("│".as_bytes())
            && panel_end(b, line, end).is_none())
    {
        return 0;
    }
    // `12:` is as often a hex dump's first byte (`    12:20:44:…`) or a
    // clock's hour as a line number: viewers number lines with a tab, a
    // bar or an arrow.
    if d.trim_ascii_end().ends_with(b":") {
        return 0;
    }
    // The blanks after the decoration but its first are the file's own
    // indentation (`2024-…Z     04:d7:…`, a YAML key under its parent).
    let blanks = d.iter().rev().take_while(|&&c| c == b' ').count();
    // A timestamp then a column's padding is a table's first cell
    // (`az … -o table`'s `CreationTime`, `+00:00`), not a log's stamp (UTC's
    // `Z` then the line, indented as it was).
    if blanks >= 2 && d[0].is_ascii_digit() && d[..d.len() - blanks].last() != Some(&b'Z') {
        return 0;
    }
    n - blanks.saturating_sub(1)
}

/// Where a panel's line `[line, end)` (`│ text   │`: a box of one column,
/// as Gemini CLI frames a tool's output) ends its text: before the padding
/// and the closing bar. `None` for any other line (a table's row has bars
/// between).
fn panel_end(b: &[u8], line: usize, end: usize) -> Option<usize> {
    const BAR: &[u8] = "│".as_bytes();
    let t = b[line..end].trim_ascii_end();
    let inner = t.strip_prefix(BAR)?.strip_suffix(BAR)?;
    if crate::find(inner, BAR).is_some() {
        return None;
    }
    Some(line + BAR.len() + inner.trim_ascii_end().len())
}

/// Compose's `web-1  | ` (a service, its replica, padding, a bar) or
/// `grep -n`'s `path:12:` (`path-12-` a context line).
fn compose_or_grep(t: &[u8]) -> usize {
    let word = first_word(t);
    let rest = &t[word..];
    // Told by the byte after the first word: most lines' is neither.
    if rest.first() == Some(&b' ') {
        return compose_prefix(t);
    }
    // grep: `path:12:`, the path holding a `.` or a `/`.
    if rest.first() == Some(&b':') && t[..word].iter().any(|&c| c == b'.' || c == b'/') {
        let digits = rest[1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits > 0 && rest.get(1 + digits) == Some(&b':') {
            return word + digits + 2;
        }
    }
    0
}

/// How long Compose's prefix is at the start of the line `t` (0: none): a
/// service and its replica (`web-1`), padding, `| `. Also what no table's
/// row label is (`assignments::positions`).
pub(crate) fn compose_prefix(t: &[u8]) -> usize {
    let word = first_word(t);
    let rest = &t[word..];
    let replica = t[..word].rsplit(|&c| c == b'-').next().unwrap_or_default();
    match rest.iter().position(|&c| c != b' ') {
        Some(bar)
            if bar > 0
                && rest[bar..].starts_with(b"| ")
                && t[..word].contains(&b'-')
                && !replica.is_empty()
                && replica.iter().all(u8::is_ascii_digit) =>
        {
            word + bar + 2
        }
        _ => 0,
    }
}

/// The length of the word a viewer's prefix may start with: a path, a
/// service.
fn first_word(t: &[u8]) -> usize {
    t.iter()
        .take(MAX_DECORATION)
        .take_while(|&&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'/'))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn viewers_decorations_are_told_from_a_files_own_marks() {
        let table: &[(&str, usize)] = &[
            ("     3\tDB_PASSWORD=x", 7),
            ("    12→requirepass x", "    12→".len()),
            ("2024-05-01T10:00:00.1234567Z export X=1", 29),
            ("web-1  | listening", 9),
            ("config/app.yml:12:  password: x", 18),
            ("+API_KEY=x", 1),
            ("> quoted", 2),
            ("    12:20:44:f0:3c", 0),
            ("2024-05-01T10:00:00.1Z     04:d7:46", 23),
            ("2024-05-01T10:00:00.000000+00:00  key1       FULL", 0),
            ("  12 |   password: x", 7),
            ("- item", 0),
            ("* item", 0),
            ("# comment", 0),
            ("password: x", 0),
            ("https://example.com/x:12:", 0),
            ("web  | x", 0),
            ("[pod/api-7d4b9-x2k/app] DB_PASSWORD=x", 24),
            ("| API Secret   | Tq4Wz8Lp2Nv6Xc3Rb9Ks5Hm1 |", 0),
        ];
        for &(line, want) in table {
            let b = line.as_bytes();
            assert_eq!(viewer_prefix(b, 0, b.len()), want, "{line:?}");
        }
    }
}
