//! Cutting long text the same way on both sides: a field, an error, a log line kept within a
//! size, saying how much was left out. Cuts fall on character boundaries.

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
}
