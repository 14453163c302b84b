//! The words of a text: runs of token bytes ([`TOKEN`]) that may be or
//! name a secret. The text's token bytes are classified 64 at a time into a
//! bit mask ([`token_mask::mask64`]); a run's end is then the next bit that
//! differs, one count of trailing zeros. Most words are short and most gaps
//! one byte: read byte by byte, each costs a loop, and in the plug each
//! byte a table load and every few bytes the engine's deadline check.

use super::{MIN_WORD, assignments, token_mask};

/// The words of `b`, in order.
pub(crate) struct Words<'a> {
    b: &'a [u8],
    /// The window the mask covers starts here; the next run starts at or
    /// after it, before `base + 64`.
    base: usize,
    /// Bit `j`: `b[base + j]` is a token byte (bits past the text's end are
    /// clear).
    mask: u64,
    /// Where the next run of other bytes starts.
    at: usize,
}

impl<'a> Words<'a> {
    pub(crate) fn new(b: &'a [u8]) -> Words<'a> {
        Words {
            b,
            base: 0,
            mask: token_mask::mask64(b),
            at: 0,
        }
    }

    /// The next word that may be or name a secret, with its
    /// [`assignments::word_class`]: long enough to hold one ([`MIN_WORD`]),
    /// shaped like a name, or first on its line. `None` at the end of the text.
    ///
    /// In wasm a function of its own: inlined into the scan that calls it,
    /// its loop would share that function's spilled registers.
    #[cfg_attr(target_family = "wasm", inline(never))]
    #[cfg_attr(not(target_family = "wasm"), inline(always))]
    pub(crate) fn next_word(&mut self) -> Option<(usize, usize, u8)> {
        loop {
            let start = self.run_end(self.at, false);
            if start == self.b.len() {
                self.at = start;
                return None;
            }
            let end = self.run_end(start, true);
            self.at = end;
            let class = class_of(self.b, start, end);
            // A line's first word may be a value a command printed
            // (`assignments::command_output`), whatever its length.
            if end - start >= MIN_WORD
                || class != 0
                || assignments::command_output::may_start_line(self.b, start)
                || start == 0
                || assignments::call_arguments::may_be(self.b, start)
                || assignments::call_arguments::may_open_call(self.b, start)
                || assignments::columns::may_open_cell(self.b, start)
            {
                return Some((start, end, class));
            }
        }
    }

    /// Where the run of token bytes (`token`) or of other bytes (`!token`)
    /// that starts at `i` ends. Most runs end inside the window: no loop
    /// (in wasm, a loop header is a deadline check).
    #[inline(always)]
    fn run_end(&mut self, i: usize, token: bool) -> usize {
        let n = self.b.len();
        if i >= n {
            return n;
        }
        let bits = if token { !self.mask } else { self.mask } >> (i - self.base);
        if bits != 0 {
            // Past the end, `!mask` is all ones: a word ends there.
            return (i + bits.trailing_zeros() as usize).min(n);
        }
        // The run reaches the window's end: the next window (one in 64
        // bytes), and the windows after it out of line (a run longer than a
        // window is rare).
        match self.next_window(token) {
            Some(end) => end,
            None => self.run_end_in_next_windows(token),
        }
    }

    /// Moves the window on by 64 bytes: where the run ends in it (or the
    /// text's end), `None` when the run fills it too.
    #[inline(always)]
    fn next_window(&mut self, token: bool) -> Option<usize> {
        let n = self.b.len();
        self.base += 64;
        if self.base >= n {
            return Some(n);
        }
        self.mask = token_mask::mask64(&self.b[self.base..]);
        let bits = if token { !self.mask } else { self.mask };
        (bits != 0).then(|| (self.base + bits.trailing_zeros() as usize).min(n))
    }

    /// [`Words::run_end`] for a run that fills the next window too.
    #[cold]
    #[inline(never)]
    fn run_end_in_next_windows(&mut self, token: bool) -> usize {
        loop {
            if let Some(end) = self.next_window(token) {
                return end;
            }
        }
    }
}

/// The word's class ([`assignments::word_class`]); for a short word right
/// after a quote, whether it starts a value after a name too (`keyPassword
/// "2TQ#…"`: longer words are asked later).
#[inline(always)]
fn class_of(b: &[u8], start: usize, end: usize) -> u8 {
    let class = assignments::word_class(b, start, end);
    if end - start < MIN_WORD && start >= 3 && matches!(b[start - 1], b'"' | b'\'') {
        class | assignments::after_name(b, start, end)
    } else {
        class
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TOKEN;

    /// The words byte by byte, as the table says.
    fn reference(b: &[u8]) -> Vec<(usize, usize, u8)> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < b.len() {
            while i < b.len() && !TOKEN[b[i] as usize] {
                i += 1;
            }
            let start = i;
            while i < b.len() && TOKEN[b[i] as usize] {
                i += 1;
            }
            if start == i {
                break;
            }
            let class = class_of(b, start, i);
            if i - start >= MIN_WORD
                || class != 0
                || assignments::command_output::may_start_line(b, start)
                || start == 0
                || assignments::call_arguments::may_be(b, start)
                || assignments::call_arguments::may_open_call(b, start)
                || assignments::columns::may_open_cell(b, start)
            {
                out.push((start, i, class));
            }
        }
        out
    }

    fn words(b: &[u8]) -> Vec<(usize, usize, u8)> {
        let mut w = Words::new(b);
        std::iter::from_fn(|| w.next_word()).collect()
    }

    #[test]
    fn words_across_windows_match_a_byte_by_byte_reading() {
        // Runs of every length up to three windows, ending on and around
        // the windows' edges, with text and gaps of bytes above 0x7f.
        let mut next = crate::tests::xorshift(0x2545_f491_4f6c_dd1d);
        let alphabet = b"aZ9_-+/=.:@%~, \t\n\"'<>|{}\x1b\xc3\xa9password=";
        for len in 0..300 {
            for _ in 0..20 {
                let mut b: Vec<u8> = (0..len)
                    .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                    .collect();
                // Long runs too: a word or a gap the length of a window or more.
                if len > 0 && next().is_multiple_of(3) {
                    let from = (next() % len as u64) as usize;
                    let to = (from + 60 + (next() % 80) as usize).min(len);
                    let fill = if next().is_multiple_of(2) { b'k' } else { b' ' };
                    b[from..to].fill(fill);
                }
                assert_eq!(
                    words(&b),
                    reference(&b),
                    "{:?}",
                    String::from_utf8_lossy(&b)
                );
            }
        }
    }

    #[test]
    fn a_word_filling_whole_windows_is_one_word() {
        for len in [63, 64, 65, 127, 128, 129, 1000] {
            let b = vec![b'x'; len];
            assert_eq!(words(&b), [(0, len, assignments::word_class(&b, 0, len))]);
            let mut gap = vec![b' '; len];
            gap.extend_from_slice(b"ghp_token");
            assert_eq!(words(&gap).len(), 1, "after {len} spaces");
            assert_eq!(words(&gap)[0].0, len);
        }
    }
}
