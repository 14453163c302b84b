//! Text hygiene, the same on both sides: long text cut within a size, saying how much was left
//! out (cuts fall on character boundaries), and a stranger's text made safe to print or quote.

/// `text` within about `max` bytes: `head` parts of every four of `max` from its start, the rest
/// from its end (where errors usually are), and between them how many bytes were cut.
pub fn cut_middle(text: &str, max: usize, head_quarters: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let head = floor(text, max * head_quarters.min(4) / 4);
    let tail = ceil(text, text.len() - (max - max * head_quarters.min(4) / 4));
    format!(
        "{}\n… [{} bytes cut] …\n{}",
        &text[..head],
        tail - head,
        &text[tail.max(head)..]
    )
}

/// `text` within `max` bytes and a note: its start, then how many bytes were cut.
pub fn cut_end(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if text.len() <= max {
        return text.into();
    }
    let end = floor(text, max);
    format!("{}… [{} bytes cut]", &text[..end], text.len() - end).into()
}

/// The largest character boundary of `s` at or before `i`.
pub fn floor(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The smallest character boundary of `s` at or after `i`.
pub fn ceil(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// A size as people read it: `512 B`, `40 KiB`, `12 MiB`, `3 GiB`.
pub fn bytes(n: u64) -> String {
    match n {
        n if n < 10 << 10 => format!("{n} B"),
        n if n < 10 << 20 => format!("{} KiB", n >> 10),
        n if n < 10 << 30 => format!("{} MiB", n >> 20),
        n => format!("{} GiB", n >> 30),
    }
}

/// How many characters of a value an error message or a log line quotes.
pub const QUOTED_MAX: usize = 64;

/// `value` quoted for an error message or a log line: in quotes, control characters escaped,
/// cut at `max_chars` characters, so what a client sent can neither forge lines nor flood.
pub fn quoted(value: &str, max_chars: usize) -> String {
    match value.char_indices().nth(max_chars) {
        Some((end, _)) => format!("{:?}…", &value[..end]),
        None => format!("{value:?}"),
    }
}

/// A string from the network, made safe to print: [`printable`], cut to `max_chars`
/// characters.
pub fn shown(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((at, _)) => printable(&text[..at]) + "…",
        None => printable(text),
    }
}

/// A stranger's text with its control characters escaped, whole; so are the invisible
/// characters that reorder or hide what a terminal shows (bidi embeddings, overrides and
/// isolates, zero-width marks, the BOM).
pub fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let invisible = matches!(c,
            '\u{061C}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2069}' | '\u{FEFF}');
        if c.is_control() || invisible {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_keep_whole_characters_and_say_how_much_went() {
        let text = "é".repeat(100); // 200 bytes
        let cut = cut_middle(&text, 101, 2);
        assert!(cut.starts_with(&"é".repeat(25)), "{cut}");
        assert!(cut.ends_with(&format!("…\n{}", "é".repeat(25))), "{cut}");
        assert!(cut.contains("[100 bytes cut]"), "{cut}");
        assert_eq!(cut_middle("short", 10, 3), "short");
        assert_eq!(cut_end(&text, 3), "é… [198 bytes cut]");
        assert_eq!(cut_end("short", 10), "short");
    }

    #[test]
    fn strangers_text_cannot_forge_lines_or_hide_itself() {
        assert_eq!(
            printable("a\nb\u{1b}[2J\u{202e}c"),
            "a\\nb\\u{1b}[2J\\u{202e}c"
        );
        assert_eq!(shown("abcdef", 3), "abc…");
        assert_eq!(quoted("a\nb", 64), "\"a\\nb\"");
        assert_eq!(
            quoted(&"x".repeat(70), 64),
            format!("{:?}…", "x".repeat(64))
        );
    }
}
