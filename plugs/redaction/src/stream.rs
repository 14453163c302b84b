//! Streamed entries: a secret split across two chunks of one stream must
//! still be masked, so the end of a chunk that may be the start of a secret is
//! held back and put before the next chunk of the same stream. What was sent
//! of the current line is kept too and read again (never sent again): what
//! decides whether something is a secret, like the `<` of `<password>` or the
//! `?` before `token=`, may have left in an earlier chunk.

use std::collections::HashMap;

use blaise_plug::TranscriptEntry;

use crate::detect::Redactor;

/// Most bytes of the current line kept as context.
const CONTEXT: usize = 1 << 10;

/// Open streams, by stream id.
#[derive(Debug, Default)]
pub struct Streams {
    open: HashMap<String, Open>,
}

#[derive(Debug, Default)]
struct Open {
    /// The end of the current line, as far as it was sent.
    sent: String,
    /// Text not sent yet.
    held: String,
}

impl Streams {
    pub fn filter(&mut self, redactor: &Redactor, mut entry: TranscriptEntry) -> TranscriptEntry {
        let Some(open) = self.open.remove(&entry.stream_id) else {
            if entry.last {
                // A whole entry: the common case, without copies.
                if let std::borrow::Cow::Owned(masked) = redactor.redact(&entry.text) {
                    entry.text = masked;
                }
                return entry;
            }
            return self.chunk(redactor, Open::default(), entry);
        };
        self.chunk(redactor, open, entry)
    }

    fn chunk(
        &mut self,
        redactor: &Redactor,
        open: Open,
        mut entry: TranscriptEntry,
    ) -> TranscriptEntry {
        let mut text = open.sent;
        let from = text.len();
        text.push_str(&open.held);
        text.push_str(&entry.text);
        let cut = if entry.last {
            text.len()
        } else {
            redactor.hold_back_from(&text).max(from)
        };
        entry.text = redactor.redact_after(&text[..cut], from);
        if !entry.last {
            let line = text[..cut].rfind('\n').map_or(0, |p| p + 1);
            let mut keep = line.max(cut.saturating_sub(CONTEXT));
            while !text.is_char_boundary(keep) {
                keep += 1;
            }
            let held = text[cut..].to_string();
            text.truncate(cut);
            text.drain(..keep);
            self.open
                .insert(entry.stream_id.clone(), Open { sent: text, held });
        }
        entry
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use blaise_plug::EntryKind;

    fn chunk(text: &str, last: bool) -> TranscriptEntry {
        TranscriptEntry {
            stream_id: "m1".into(),
            kind: EntryKind::AgentMessage,
            text: text.into(),
            last,
            replay: false,
        }
    }

    #[test]
    fn secret_split_across_chunks_is_masked() {
        let r = Redactor::new(&[]);
        let mut s = Streams::default();
        let a = s.filter(&r, chunk("your token: ghp_aBcDeFgHiJkL", false));
        let b = s.filter(&r, chunk("mNoPqRsTuVwXyZ0123456789 done", true));
        // `token:` may name what follows: it waits for its value.
        assert_eq!(a.text, "your ");
        assert_eq!(b.text, "token: [REDACTED:github-token] done");
        assert!(s.open.is_empty());
    }

    #[test]
    fn nothing_is_lost_between_chunks() {
        let r = Redactor::new(&[]);
        let mut s = Streams::default();
        let parts = ["Hello, ", "wor", "ld! How ", "are you", ""];
        let out: String = parts
            .iter()
            .enumerate()
            .map(|(i, p)| s.filter(&r, chunk(p, i == parts.len() - 1)).text)
            .collect();
        assert_eq!(out, "Hello, world! How are you");
    }
}
