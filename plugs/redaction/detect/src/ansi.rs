//! Terminal escape sequences (colours from `bat`, `jq -C`, `grep --color`,
//! `ls`, test runners): the detectors read the text without them, so a
//! colour code between a name and its value, inside a name or right before a
//! token changes nothing, and the mask is put on the text as it came.

/// The text without its escape sequences, and for each byte kept where it
/// was; `None` when there is none (the common case, found by one `memchr`).
pub(super) fn strip(text: &str) -> Option<(String, Vec<u32>)> {
    let b = text.as_bytes();
    let first = memchr::memchr(0x1b, b)?;
    let mut out = Vec::with_capacity(b.len());
    let mut map = Vec::with_capacity(b.len());
    out.extend_from_slice(&b[..first]);
    map.extend(0..first as u32);
    let mut i = first;
    while i < b.len() {
        if b[i] == 0x1b {
            i = sequence_end(b, i);
            continue;
        }
        out.push(b[i]);
        map.push(i as u32);
        i += 1;
    }
    // Only whole sequences (all ASCII) are taken out: still UTF-8.
    let out = String::from_utf8(out).ok()?;
    Some((out, map))
}

/// Where the escape sequence that starts at `i` (an ESC) ends: a CSI
/// (`ESC [ params final`), an OSC (`ESC ] … BEL` or `ESC ] … ESC \`), or
/// `ESC` and one byte. An unfinished sequence runs to the end of the text.
pub(super) fn sequence_end(b: &[u8], i: usize) -> usize {
    let n = b.len();
    match b.get(i + 1) {
        Some(b'[') => {
            let mut j = i + 2;
            while j < n && (0x20..=0x3f).contains(&b[j]) {
                j += 1;
            }
            if j < n && (0x40..=0x7e).contains(&b[j]) {
                j + 1
            } else {
                j.min(n)
            }
        }
        Some(b']') => {
            let mut j = i + 2;
            while j < n {
                if b[j] == 0x07 {
                    return j + 1;
                }
                if b[j] == 0x1b && b.get(j + 1) == Some(&b'\\') {
                    return j + 2;
                }
                j += 1;
            }
            n
        }
        Some(&c) if (0x20..=0x7e).contains(&c) => i + 2,
        _ => (i + 1).min(n),
    }
}

/// Where an escape sequence still open at the end of `b` starts: the next
/// chunk finishes it.
pub(super) fn open_at_end(b: &[u8]) -> Option<usize> {
    let lo = b.len().saturating_sub(256);
    let esc = lo + memchr::memrchr(0x1b, &b[lo..])?;
    let end = sequence_end(b, esc);
    let finished = match b.get(esc + 1) {
        Some(b'[') => end > esc + 2 && (0x40..=0x7e).contains(&b[end - 1]),
        Some(b']') => end >= 2 && (b[end - 1] == 0x07 || b[end - 2..end] == *b"\x1b\\"),
        Some(_) => true,
        None => false,
    };
    (!finished).then_some(esc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequences_are_taken_out_and_bytes_mapped_back() {
        let t = "\x1b[38;5;203mKEY\x1b[0m=\x1b[32mvalue\x1b[m\x1b[K!";
        let (s, map) = strip(t).unwrap();
        assert_eq!(s, "KEY=value!");
        let v = s.find("value").unwrap();
        assert_eq!(&t[map[v] as usize..map[v + 4] as usize + 1], "value");
        assert!(strip("plain").is_none());
        assert_eq!(
            strip("\x1b]8;;http://x\x07link\x1b]8;;\x1b\\").unwrap().0,
            "link"
        );
    }

    #[test]
    fn an_unfinished_sequence_is_open() {
        assert_eq!(open_at_end(b"abc\x1b[38;5"), Some(3));
        assert_eq!(open_at_end(b"abc\x1b"), Some(3));
        assert_eq!(open_at_end(b"abc\x1b[0m"), None);
        assert_eq!(open_at_end(b"abc"), None);
    }
}
