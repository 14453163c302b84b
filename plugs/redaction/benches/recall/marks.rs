//! Marked texts (`«secret»`), as the sets written apart hold them: shared
//! by the recall bench and the `score` example.

use std::ops::Range;

/// The text without its marks, and where each marked part is in it.
pub fn unmark(marked: &str) -> (String, Vec<Range<usize>>) {
    let mut text = String::with_capacity(marked.len());
    let mut spans = Vec::new();
    let mut open = None;
    for c in marked.chars() {
        match c {
            '«' => open = Some(text.len()),
            '»' => spans.extend(open.take().map(|s| s..text.len())),
            _ => text.push(c),
        }
    }
    (text, spans)
}
