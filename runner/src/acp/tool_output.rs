//! What a running command prints, as it comes: agents that stream a command's
//! output (`_meta.terminal_output` chunks of a `tool_call_update`, announced by
//! the runner's `terminal_output` client capability) have it recorded as the
//! call's `tool_output` stream while the command runs. Bounded: the first
//! [`LIVE_HEAD`] bytes go out as they come; past them the runner keeps only the
//! last [`KEPT_TAIL`] bytes and sends them, with how much was left out, when
//! the call ends.

use blaise_protocol::text::{bytes, ceil, floor};

/// Bytes of a call's output sent as they come.
pub const LIVE_HEAD: usize = 256 << 10;
/// Bytes of the end of a long output kept and sent when the call ends.
pub const KEPT_TAIL: usize = 32 << 10;

/// One call's output stream.
#[derive(Debug, Default)]
pub(crate) struct OutputStream {
    /// Bytes sent as they came.
    sent: usize,
    /// The end of what came past the head.
    tail: String,
    /// Bytes that came past the head and were dropped from the tail.
    dropped: u64,
    /// Whether any output came (the stream is open until it ends).
    started: bool,
    ended: bool,
}

impl OutputStream {
    /// `data` printed by the command: what to send now (nothing past the head).
    pub fn push(&mut self, data: &str) -> Option<String> {
        if self.ended || data.is_empty() {
            return None;
        }
        self.started = true;
        let room = LIVE_HEAD.saturating_sub(self.sent);
        let (now, later) = data.split_at(floor(data, room));
        self.sent += now.len();
        if !later.is_empty() {
            // Only the end of `later` can be kept; the tail is cut back when it has grown to
            // twice what is kept, so that a long output is copied a bounded number of times.
            let from = ceil(later, later.len().saturating_sub(KEPT_TAIL));
            self.dropped += from as u64;
            self.tail.push_str(&later[from..]);
            if self.tail.len() >= 2 * KEPT_TAIL {
                self.trim_tail();
            }
        }
        (!now.is_empty()).then(|| now.to_owned())
    }

    /// The tail cut back to the last [`KEPT_TAIL`] bytes.
    fn trim_tail(&mut self) {
        let from = ceil(&self.tail, self.tail.len().saturating_sub(KEPT_TAIL));
        self.dropped += from as u64;
        self.tail.drain(..from);
    }

    /// The call ended: the stream's last text (what was kept of the end, and
    /// how much was left out), or `None` when no output was streamed.
    pub fn end(&mut self) -> Option<String> {
        if !self.started || self.ended {
            return None;
        }
        self.ended = true;
        self.trim_tail();
        let tail = std::mem::take(&mut self.tail);
        Some(match self.dropped {
            0 => tail,
            dropped => {
                let newline = if tail.starts_with('\n') { "" } else { "\n" };
                format!(
                    "\n[… {} not shown: the output's first {} KiB and last {} KiB are kept …]{newline}{tail}",
                    bytes(dropped),
                    LIVE_HEAD >> 10,
                    KEPT_TAIL >> 10
                )
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_output_goes_out_as_it_comes_and_ends_with_nothing_more() {
        let mut s = OutputStream::default();
        assert_eq!(s.end(), None, "no output: no stream");
        let mut s = OutputStream::default();
        assert_eq!(s.push("line 1\n").as_deref(), Some("line 1\n"));
        assert_eq!(s.push("").as_deref(), None);
        assert_eq!(s.end().as_deref(), Some(""));
        assert_eq!(s.end(), None, "ended once");
        assert_eq!(s.push("late").as_deref(), None);
    }

    #[test]
    fn a_long_output_keeps_its_head_live_and_its_tail_for_the_end() {
        let mut s = OutputStream::default();
        // Multi-byte lines, so that the cuts fall inside characters.
        let line = "│ ok ─ ✓ test passed │\n";
        let mut sent = String::new();
        let mut all = String::new();
        for _ in 0..40_000 {
            all.push_str(line);
            if let Some(now) = s.push(line) {
                sent.push_str(&now);
            }
        }
        assert!(sent.len() <= LIVE_HEAD && sent.len() > LIVE_HEAD - line.len());
        assert!(all.starts_with(&sent));
        let end = s.end().unwrap();
        let (said, tail) = end.split_once("…]\n").unwrap();
        assert!(said.contains("not shown"), "{said}");
        assert!(tail.len() <= KEPT_TAIL && tail.len() > KEPT_TAIL - 4);
        assert!(all.ends_with(tail));
        let dropped = all.len() - sent.len() - tail.len();
        assert!(
            said.contains(&format!("{} KiB not shown", dropped >> 10)),
            "{said}"
        );
    }
}
