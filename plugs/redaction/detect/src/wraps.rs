//! A secret split across lines by what printed it: a terminal's hard wrap
//! (the value runs to the end of a line as wide as a terminal, and goes on
//! at the start of the next), or a box table that wraps a long cell onto
//! the rows below it, their other cells blank (`doppler secrets`). The rest
//! of the value is masked where it continues, each line's part on its own
//! (the line breaks and borders between them stay).

use super::{Found, decorations};

/// Widths terminals wrap at: a line this long that a value ends may go on.
const WIDTHS: [usize; 6] = [80, 100, 120, 132, 160, 200];

/// Bytes a wrapped value is made of (base64 of both alphabets, hex, and
/// tokens' separators).
fn value_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=' | b'_' | b'-' | b'.' | b'~')
}

/// The continuations of each find in `found`, added to it.
pub(crate) fn continuations(b: &[u8], found: &mut Vec<Found>) {
    let mut i = 0;
    // Each continuation found is looked at in turn: a value may run on for
    // several lines or rows.
    while i < found.len() {
        let f = found[i];
        i += 1;
        if f.kind == "literal" || f.kind.starts_with('\0') || f.end <= f.start {
            continue;
        }
        if let Some(next) = hard_wrapped(b, f).or_else(|| cell_wrapped(b, f)) {
            found.push(next);
        }
    }
}

/// The value `f` ran to the end of a line as wide as a terminal: the run of
/// value bytes that is the whole next line.
fn hard_wrapped(b: &[u8], f: Found) -> Option<Found> {
    let line = crate::line_start_within(b, f.end - 1, 256)?;
    let eol = f.end + usize::from(b.get(f.end) == Some(&b'\r'));
    if b.get(eol) != Some(&b'\n') || !WIDTHS.contains(&(f.end - line)) || !value_byte(b[f.end - 1])
    {
        return None;
    }
    let start = eol + 1;
    let len = b[start..].iter().take_while(|&&c| value_byte(c)).count();
    let end = start + len;
    let ends_line = matches!(b.get(end), None | Some(b'\n' | b'\r'));
    // A short word alone on the next line (`Done`, `OK`) is the next
    // thing printed, not the value's end.
    let tail = &b[start..end];
    let word = tail.len() < 16 && tail.iter().all(u8::is_ascii_alphabetic);
    (len > 0 && len <= f.end - line && ends_line && !word).then_some(Found {
        start,
        end,
        kind: f.kind,
    })
}

/// The value `f` fills a box table's cell to its border: the run of value
/// bytes that starts the same cell of the next row, whose cells before it
/// are blank.
fn cell_wrapped(b: &[u8], f: Found) -> Option<Found> {
    let line = crate::line_start_within(b, f.start, 512)?;
    let row_end = memchr::memchr(b'\n', &b[f.end..]).map(|p| f.end + p)?;
    // Padding, then the cell's border.
    let after = &b[f.end..row_end];
    let pad = after.iter().take_while(|&&c| c == b' ').count();
    if decorations::border_at(after, pad) == 0 {
        return None;
    }
    let next = row_end + 1;
    let prefix = &b[line..f.start];
    let n = decorations::blank_cells_len(prefix, &b[next..])?;
    let start = next + n;
    let len = b[start..].iter().take_while(|&&c| value_byte(c)).count();
    let end = start + len;
    // What follows the run is not read: a stream holds a run back only to
    // its end, and must read it as the whole text does.
    (len > 0).then_some(Found {
        start,
        end,
        kind: f.kind,
    })
}
