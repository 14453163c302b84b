//! A cell of a table whose column is named in a header row above it, not on
//! its own row: `psql`'s aligned output (`token` over a column of tokens),
//! `az … -o table` (`Value`), a Markdown or box table with the secrets in a
//! column. The header is the line above the table's rule (`----+----`,
//! `-----  -----`, `───┼───`, `|---|---|`); the cell's column is the header
//! cell with as many borders before it (a bordered table) or the header word
//! over the cell's first byte (one aligned by blanks).
//!
//! The header decides as a name does on a value's own line: one that names
//! a secret (`token`, `api_key`) takes any value of two kinds of characters
//! (letters of both cases, or letters and digits) that is plainly not a name
//! or a path; one that says nothing of its value (`Value`, `code`) only one
//! that looks like a key; one that says what its value is (`id`,
//! `checksum`, `name`) none.

use super::names::secret_kind;
use super::values::{hex_key, keylike, name_word, path, plain};
use crate::Found;

/// How far above the cell's row the table's rule is looked for: within what
/// a stream keeps before a line it holds back (`redaction::stream` keeps 1
/// KiB, a row is at most [`MAX_ROW`]), so a stream reads the same header.
const MAX_ABOVE: usize = 600;
/// Longest row read.
const MAX_ROW: usize = 400;
/// Most rows between the rule and the cell's.
const MAX_ROWS: usize = 8;

/// Whether the word at `s` may be a table's cell: after two blanks, or a
/// border and a blank. The cheap test made for every long word.
/// Not the first word on an indented line: that is no cell. And a table's rule is near: an ASCII one was read as a word within
/// [`MAX_ABOVE`] + [`MAX_ROW`] bytes before (`rule_end`), or the cell follows
/// a box's border (whose rules, `───┼───`, are no words).
///
/// A Markdown cell's value may be code (`` `…` ``): read from its backtick.
#[inline(always)]
pub(crate) fn may_be_cell(b: &[u8], s: usize, rule_end: Option<usize>) -> bool {
    let near_rule = || rule_end.is_some_and(|r| r + MAX_ABOVE + MAX_ROW >= s);
    let s = if s >= 3 && b[s - 1] == b'`' { s - 1 } else { s };
    (s >= 2
        && b[s - 1] == b' '
        && matches!(b[s - 2], b' ' | b'|' | 0x82 | 0x83)
        && (matches!(b[s - 2], 0x82 | 0x83) || near_rule())
        && after_cell(b, s))
        // A row's first cell at the line's very start, under its header
        // (`az … keys list -o table`: `Key1  Key2`).
        || (s >= 1 && b[s - 1] == b'\n' && near_rule())
}

/// Whether the word at `s`, however short, may open a bordered table's cell
/// (`| n#yO…`, `` | `Ub*j…` ``): a password's symbols split it into short
/// words, of which the first is read. (After two blanks a word is read
/// anyway: it may start a line's value.)
#[inline(always)]
pub(crate) fn may_open_cell(b: &[u8], s: usize) -> bool {
    s >= 2
        && match b[s - 1] {
            b' ' => matches!(b[s - 2], b'|' | 0x82 | 0x83),
            b'`' => b[s - 2] == b' ',
            _ => false,
        }
}

/// Whether the word `[s, e)` may be (part of) a table's rule: dashes, and
/// `+`, `:`, `=` (`----+----`, `:---`, `-----`).
#[inline(always)]
pub(crate) fn may_be_rule(b: &[u8], s: usize, e: usize) -> bool {
    matches!(b[s], b'-' | b':' | b'+')
        && e - s >= 3
        && b[s..e]
            .iter()
            .all(|&c| matches!(c, b'-' | b'+' | b':' | b'='))
}

/// Whether something other than blanks comes before the blanks before `s`
/// on its line.
#[inline(never)]
fn after_cell(b: &[u8], s: usize) -> bool {
    let floor = s.saturating_sub(MAX_ROW);
    let mut i = s - 1;
    while i > floor && b[i - 1] == b' ' {
        i -= 1;
    }
    i > floor && !matches!(b[i - 1], b'\n' | b'\t')
}

/// The cell whose first word starts at `s`, under a header that makes it a
/// secret: masked whole, to its border, two blanks or its code span's
/// closing backtick (a password's symbols split it into words: `n#yO…`).
#[inline(never)]
pub(crate) fn cell(b: &[u8], s: usize, found: &mut Vec<Found>) {
    let Some(e) = cell_end(b, s) else {
        return;
    };
    let v = &b[s..e];
    // A value has two of lower case, upper case and digits (most words in
    // code and prose have one): told first, before the header is looked for.
    if !crate::mixed(v) || !plain(v) || path(v) {
        return;
    }
    // A word glued to a `$` is part of a longer one (`SCRAM-SHA-256$4096:…`,
    // a password's hash; decided the same whether the rest has come yet).
    if b.get(e) == Some(&b'$') {
        return;
    }
    let Some(row) = crate::line_start_within(b, s, MAX_ROW) else {
        return;
    };
    let Some(header) = header_above(b, row) else {
        return;
    };
    let Some(mut name) = column_name(b, header, row, s) else {
        return;
    };
    // A row's first cell is mostly its label (`Key`, `Name`): a value there
    // must look like a key, under a header that is no label's.
    let first = b[s - 1] == b'\n';
    if first && (LABELS.iter().any(|l| name.eq_ignore_ascii_case(l)) || !(keylike(v) || hex_key(v)))
    {
        return;
    }
    // A table of names and values (`vault … ` prints `Key  Value`, `az … -o
    // table` `KeyName … Value`): the row's name is the value's.
    // Its words joined (`Cluster Name` as `Cluster_Name`).
    let joined: Vec<u8>;
    if name.eq_ignore_ascii_case(b"value")
        && let Some(label) = row_name(b, header, row)
    {
        joined = label
            .iter()
            .map(|&c| if c == b' ' { b'_' } else { c })
            .collect();
        name = &joined;
    }
    let secret = if let Some(kind) = secret_kind(name) {
        // An `Auth` column's mechanism (`SASL/SCRAM-SHA-512`), a `Key`
        // column's key id (Confluent's, an access key's).
        let mechanism = super::names::ends_auth(name) && super::values::method_name(v);
        let id = (matches!(kind, super::NAMED_KEY | super::BARE_KEY)
            || super::names::access_key(name))
            && super::values::key_id(v);
        !(name_word(v) || super::label_word(v) || mechanism || id)
    } else {
        super::values::neutral_key(v) && super::positions::says_nothing(name)
    };
    if secret {
        found.push(Found {
            start: s,
            end: e,
            kind: "secret-assignment",
        });
    }
}

/// A key in a table aligned by blanks with no rule under its header
/// (`influx auth create`'s `ID  Description  Token …`, `column -t` of a
/// credentials CSV): the nearest line above made of header words (within
/// [`MAX_ROWS`] rows and [`MAX_ABOVE`] bytes, what a stream keeps) has a
/// name that starts at the key's column and names a secret. Only a value
/// that looks like a key: without a rule, a line of words above may be a
/// row of names rather than the header.
///
/// Under a password's name (`column -t` of a seed file's `password`) the
/// whole cell, to two blanks, if it is shaped like a password: its symbols
/// split it into words.
#[inline(never)]
pub(crate) fn aligned(b: &[u8], s: usize, e: usize, found: &mut Vec<Found>) {
    let v = &b[s..e];
    let key = v.len() >= 16 && (keylike(v) || hex_key(v)) && plain(v) && !path(v);
    // (The first word of a password has letters and something else, and
    // a cell follows another on its row: indented code's first word is
    // none.)
    let password = if key
        || !v.iter().any(u8::is_ascii_alphabetic)
        || v.iter().all(u8::is_ascii_alphabetic)
        || !after_cell(b, s)
    {
        None
    } else {
        cell_end(b, s).filter(|&end| password_shaped(&b[s..end]))
    };
    if !key && password.is_none() || !under_a_column(b, s) {
        return;
    }
    let Some(name) = aligned_header(b, s) else {
        return;
    };
    let end = match password {
        Some(end) if super::names::password(&name) => end,
        Some(_) => return,
        None => e,
    };
    let v = &b[s..end];
    let id = |kind| {
        (matches!(kind, super::NAMED_KEY | super::BARE_KEY) || super::names::access_key(&name))
            && super::values::key_id(v)
    };
    if secret_kind(&name).is_some_and(|kind| !id(kind)) && !name_word(v) && !super::label_word(v) {
        found.push(Found {
            start: s,
            end,
            kind: "secret-assignment",
        });
    }
}

/// Whether the word `w` after blanks may start what [`aligned`] masks: a
/// key's 16 bytes, or a password's letters and something else.
#[inline(always)]
pub(crate) fn may_be_aligned(w: &[u8]) -> bool {
    w.len() >= 16
        || (w.iter().any(|c| !c.is_ascii_alphabetic()) && w.iter().any(u8::is_ascii_alphabetic))
}

/// A cell that reads as a password, not a name, a word or an address: one
/// word of letters with digits or symbols (`Velvet_basil8037`,
/// `kettle-mistral-573*`, `9+ouFHzUNv^uf`; words joined with a number are a
/// passphrase under a password's name).
fn password_shaped(v: &[u8]) -> bool {
    (8..=64).contains(&v.len())
        && v.iter().all(|c| c.is_ascii_graphic())
        && v.iter().any(u8::is_ascii_alphabetic)
        && v.iter().any(|c| !c.is_ascii_alphabetic())
        && !v.contains(&b'@')
        && plain(v)
        && !path(v)
        && !super::values::number(v)
        && !super::values::dotted_code(v)
        && !super::values::uuid(v)
        && !super::values::dashed_identifier(v)
}

/// Whether the line above the value at `s` has a word starting at the same
/// column (or two bytes on: an agent's frame, `⎿`, is three bytes wide):
/// the cheap test before [`aligned`] reads the value and the lines above.
fn under_a_column(b: &[u8], s: usize) -> bool {
    let Some(row) = crate::line_start_within(b, s, MAX_ROW) else {
        return false;
    };
    if row == 0 {
        return false;
    }
    let above_end = row - 1;
    let floor = above_end.saturating_sub(MAX_ROW);
    let above = match memchr::memrchr(b'\n', &b[floor..above_end]) {
        Some(p) => floor + p + 1,
        None if floor == 0 => 0,
        None => return false,
    };
    starts_word(&b[above..above_end], &b[row..s])
}

/// Whether a word starts in `line` at the column where `before` (a row up
/// to a value) ends: in bytes where both are ASCII, else in columns (CJK
/// names before a value, an agent's `⎿` before the line above).
fn starts_word(line: &[u8], before: &[u8]) -> bool {
    let starts = |i: usize| i >= 1 && i < line.len() && line[i - 1] == b' ' && line[i] != b' ';
    let x = before.len();
    if starts(x) {
        return true;
    }
    // (All ASCII up to there: bytes are columns.)
    if before.is_ascii() && line[..x.min(line.len())].is_ascii() {
        return false;
    }
    let x = width(before);
    let mut seen = 0;
    for i in 0..line.len() {
        let w = char_width(line[i], line.get(i + 1).copied());
        if w > 0 && seen >= x {
            return seen == x && starts(i);
        }
        seen += w;
    }
    false
}

/// The name over the value at `s` in a table aligned by blanks with no
/// rule: in the nearest line above made of header words (within
/// [`MAX_ROWS`] rows and [`MAX_ABOVE`] bytes, what a stream keeps), the
/// name that starts at the value's column, its words joined by `_`.
fn aligned_header(b: &[u8], s: usize) -> Option<Vec<u8>> {
    let row = crate::line_start_within(b, s, MAX_ROW)?;
    // Columns in characters: an agent's frame before the header (`  ⎿  `)
    // is wider in bytes than the blanks before the rows under it.
    let x = width(&b[row..s]);
    if x < 2 || row == 0 {
        return None;
    }
    let floor = row.saturating_sub(MAX_ABOVE);
    let mut end = row - 1;
    for _ in 0..MAX_ROWS {
        let start = match memchr::memrchr(b'\n', &b[floor..end]) {
            Some(p) => floor + p + 1,
            None if floor == 0 => 0,
            None => return None,
        };
        let line = &b[start..end];
        if line.trim_ascii().is_empty() || rule(line) {
            return None;
        }
        if header_words(&line[frame_end(line)..]) {
            let name = name_at(line, x)?;
            return Some(
                name.iter()
                    .map(|&c| if c == b' ' { b'_' } else { c })
                    .collect(),
            );
        }
        end = start.checked_sub(1)?;
    }
    None
}

/// How many columns `t` takes on a terminal: a CJK character, a Hangul
/// syllable or an emoji two, any other character one (`column -t` pads
/// `박 서연` as nine columns).
fn width(t: &[u8]) -> usize {
    t.iter()
        .enumerate()
        .map(|(i, &c)| char_width(c, t.get(i + 1).copied()))
        .sum()
}

/// The columns of the character whose UTF-8 starts with `c` (`next` after
/// it): 0 for a continuation byte.
fn char_width(c: u8, next: Option<u8>) -> usize {
    match c {
        0x80..=0xBF => 0,
        // U+3000–U+D7FF: CJK, kana, Hangul; U+FF00–U+FF5F: full width.
        0xE3..=0xED => 2,
        0xEF if matches!(next, Some(0xBC | 0xBD)) => 2,
        0xF0..=0xF4 => 2,
        _ => 1,
    }
}

/// Where a line's text starts after an agent's frame: blanks, then one
/// `⎿`, `└` or `│` and blanks.
fn frame_end(line: &[u8]) -> usize {
    let mut i = line.iter().take_while(|&&c| c == b' ').count();
    for frame in ["⎿", "└", "│"] {
        if line[i..].starts_with(frame.as_bytes()) {
            i += frame.len();
            i += line[i..].iter().take_while(|&&c| c == b' ').count();
            break;
        }
    }
    i
}

/// Whether a line may be an aligned table's header: names of letters
/// (`User Name`, `Secret access key`, `ACCESS_TOKEN`), two columns or more
/// apart by blanks, nothing that a row of values or code would hold.
fn header_words(line: &[u8]) -> bool {
    line.len() <= MAX_ROW
        && line.first().is_some_and(u8::is_ascii_alphabetic)
        && line.windows(2).any(|w| w == b"  ")
        && line
            .iter()
            .all(|&c| c.is_ascii_alphabetic() || matches!(c, b' ' | b'_' | b'-' | b'.' | b'#'))
}

/// The header's name that starts at character `x` of its line: its words
/// up to two blanks (`Secret access key`), or its one word where the
/// header's columns are one blank apart (`User Name User ID` in
/// `influx`'s).
fn name_at(line: &[u8], x: usize) -> Option<&[u8]> {
    let mut seen = 0;
    let at = (0..line.len()).find(|&i| {
        let w = char_width(line[i], line.get(i + 1).copied());
        let here = w > 0 && seen == x;
        seen += w;
        here
    })?;
    if at == 0 || line[at - 1] != b' ' || !line[at].is_ascii_alphabetic() {
        return None;
    }
    let rest = &line[at..];
    let end = rest
        .windows(2)
        .position(|w| w == b"  ")
        .unwrap_or(rest.len());
    let name = &rest[..end];
    Some(if name.len() > 40 {
        &name[..name.iter().position(|&c| c == b' ').unwrap_or(name.len())]
    } else {
        name
    })
}

/// Where the cell whose value starts at `s` ends: at a border, two blanks,
/// the line's end, or the backtick that closes a code span opened right
/// before `s`. `None` where the cell holds words (a blank inside).
fn cell_end(b: &[u8], s: usize) -> Option<usize> {
    let code = s > 0 && b[s - 1] == b'`';
    let limit = (s + MAX_ROW).min(b.len());
    let mut i = s;
    while i < limit {
        match b[i] {
            b'\n' | b'\r' => break,
            b'`' if code => break,
            b' ' | b'\t' => {
                let next = b.get(i + 1).copied();
                if code
                    || !(matches!(next, Some(b' ' | b'\t' | b'\n' | b'\r') | None)
                        || super::bar(b, i + 1) > 0)
                {
                    return None;
                }
                break;
            }
            _ if super::bar(b, i) > 0 => break,
            _ => i += 1,
        }
    }
    (i > s).then_some(i)
}

/// Where the cell that `cut` is in starts, if it may hold a secret that
/// runs past `cut`: a row's cell under a header that names a secret. A
/// stream holds it back, as the whole text reads it to its end.
#[inline(never)]
pub(crate) fn open_at(b: &[u8], cut: usize) -> Option<usize> {
    let row = crate::line_start_within(b, cut, MAX_ROW)?;
    // The cell's start: after a border, two blanks or a backtick. (One
    // blank at the cut may be inside the cell: `Velvet_basil8037 (old)`
    // holds words, which the whole text reads so.)
    let mut s = cut;
    if s >= row + 2 && b[s - 1] == b' ' && b[s - 2] != b' ' {
        s -= 1;
    }
    while s > row
        && !matches!(b[s - 1], b' ' | b'\t' | b'`')
        && !(s >= row + 3 && super::bar(b, s - 3) == 3)
        && b[s - 1] != b'|'
    {
        s -= 1;
    }
    if s == cut || s == row {
        return None;
    }
    // A password's cell in a table aligned by blanks, no rule under its
    // header ([`aligned`]).
    if s >= row + 2
        && b[s - 1] == b' '
        && b[s - 2] == b' '
        && under_a_column(b, s)
        && aligned_header(b, s).is_some_and(|name| super::names::password(&name))
    {
        return Some(s);
    }
    if !(may_be_cell(b, s, None) || may_open_cell(b, s)) {
        return None;
    }
    let header = header_above(b, row)?;
    let name = column_name(b, header, row, s)?;
    secret_kind(name).is_some().then_some(s)
}

/// Whether the cell at `s` is under a header that says what its column
/// holds is no secret (`DIGEST` of `supabase secrets list` and `fly
/// secrets list`, `ID`, `Checksum`): the row's label names the secret, not
/// this value.
pub(super) fn under_a_header_that_says_otherwise(b: &[u8], s: usize) -> bool {
    let Some(row) = crate::line_start_within(b, s, MAX_ROW) else {
        return false;
    };
    match header_above(b, row) {
        Some(header) => {
            column_name(b, header, row, s).is_some_and(super::positions::says_what_it_is)
        }
        // A table aligned by blanks (`databricks secrets list-secrets`:
        // `Key  Last Updated Timestamp`).
        None => aligned_header(b, s).is_some_and(|name| super::positions::says_what_it_is(&name)),
    }
}

/// The header row of the table whose row starts at `row`: the line above
/// the table's rule, the rule within [`MAX_ROWS`] rows above.
fn header_above(b: &[u8], row: usize) -> Option<(usize, usize)> {
    let floor = row.saturating_sub(MAX_ABOVE);
    let mut end = row.checked_sub(1)?;
    for _ in 0..=MAX_ROWS {
        // Read no further back than `floor`: a line above may be long.
        let start = match memchr::memrchr(b'\n', &b[floor..end]) {
            Some(p) => floor + p + 1,
            None if floor == 0 => 0,
            None => return None,
        };
        let line = &b[start..end];
        if line.trim_ascii().is_empty() {
            return None;
        }
        if rule(line) {
            let header_end = start.checked_sub(1)?;
            let header = match memchr::memrchr(b'\n', &b[floor..header_end]) {
                Some(p) => floor + p + 1,
                None if floor == 0 => 0,
                None => return None,
            };
            return (header_end > header).then_some((header, header_end));
        }
        end = start.checked_sub(1)?;
    }
    None
}

/// A table's rule: dashes (or `═`, `─`) with only blanks, `+`, `|` and the
/// box-drawing crossings between them.
fn rule(line: &[u8]) -> bool {
    // (Most lines start with a letter or a digit: no rule.)
    if line
        .iter()
        .find(|&&c| c != b' ')
        .is_some_and(u8::is_ascii_alphanumeric)
    {
        return false;
    }
    let Ok(text) = std::str::from_utf8(line) else {
        return false;
    };
    let mut dashes = 0;
    for c in text.trim().chars() {
        match c {
            '-' | '─' | '━' | '═' => dashes += 1,
            ' ' | '+' | '|' | ':' | '┼' | '┬' | '┴' | '├' | '┤' | '│' | '╪' | '╋' | '┃' =>
                {}
            _ => return false,
        }
    }
    dashes >= 3
}

/// The header's name over the cell at `s` of the row starting at `row`.
fn column_name(b: &[u8], (hs, he): (usize, usize), row: usize, s: usize) -> Option<&[u8]> {
    let header = &b[hs..he];
    let before = &b[row..s];
    let borders = |t: &[u8]| count_borders(t);
    let name = if borders(before) > 0 {
        // The header cell after as many borders.
        let k = borders(before);
        let mut seen = 0;
        let mut i = 0;
        let mut cell_start = None;
        while i < header.len() {
            let n = super::bar(header, i);
            if n > 0 {
                seen += 1;
                i += n;
                if seen == k {
                    cell_start = Some(i);
                }
                if seen > k {
                    break;
                }
                continue;
            }
            i += 1;
        }
        let from = cell_start?;
        let to = (from..header.len())
            .find(|&j| super::bar(header, j) > 0)
            .unwrap_or(header.len());
        header[from..to].trim_ascii()
    } else {
        // The header word over the cell's first byte, or starting there.
        let x = s - row;
        if x >= header.len() {
            return None;
        }
        let mut a = x;
        while a > 0 && header[a - 1] != b' ' {
            a -= 1;
        }
        let mut z = x;
        while z < header.len() && header[z] != b' ' {
            z += 1;
        }
        header[a..z].trim_ascii()
    };
    (!name.is_empty() && name.len() <= 64).then_some(name)
}

/// Headers of the column that names a row.
const LABELS: [&[u8]; 5] = [b"key", b"name", b"keyname", b"field", b"property"];

/// The row's cell under a header named `Key`, `Name`, `KeyName`, `Field`
/// or `Property`, if the header has one (an aligned table's).
fn row_name(b: &[u8], (hs, he): (usize, usize), row: usize) -> Option<&[u8]> {
    let header = &b[hs..he];
    let mut x = 0;
    while x < header.len() {
        let z = (x..header.len())
            .find(|&j| header[j] == b' ')
            .unwrap_or(header.len());
        if LABELS.iter().any(|n| header[x..z].eq_ignore_ascii_case(n)) {
            let line = &b[row..];
            let line = &line[..memchr::memchr(b'\n', line).unwrap_or(line.len())];
            if x >= line.len() || (x > 0 && line[x - 1] != b' ') {
                return None;
            }
            // Up to two blanks: a cell may hold words (`Cluster Name`).
            let end = (x..line.len())
                .find(|&j| line[j] == b' ' && line.get(j + 1).is_none_or(|&c| c == b' '))
                .unwrap_or(line.len());
            return (end > x).then(|| &line[x..end]);
        }
        x = z;
        while x < header.len() && header[x] == b' ' {
            x += 1;
        }
    }
    None
}

/// How many cell borders (`|`, `│`, `┃`) `t` holds.
fn count_borders(t: &[u8]) -> usize {
    let mut i = 0;
    let mut n = 0;
    while i < t.len() {
        let k = super::bar(t, i);
        if k > 0 {
            n += 1;
            i += k;
        } else {
            i += 1;
        }
    }
    n
}
