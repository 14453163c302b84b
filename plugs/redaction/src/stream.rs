//! Streamed entries: a secret split across two chunks of one stream must
//! still be masked, so the end of a chunk that may be the start of a secret is
//! held back and put before the next chunk of the same stream.

use std::collections::HashMap;

use blaise_plug::TranscriptEntry;

use crate::detect::Redactor;

/// Held-back text per stream id.
#[derive(Debug, Default)]
pub struct Streams {
    held: HashMap<String, String>,
}

impl Streams {
    pub fn filter(&mut self, redactor: &Redactor, mut entry: TranscriptEntry) -> TranscriptEntry {
        let mut text = match self.held.remove(&entry.stream_id) {
            Some(mut held) => {
                held.push_str(&entry.text);
                held
            }
            None => std::mem::take(&mut entry.text),
        };
        let cut = if entry.last {
            text.len()
        } else {
            redactor.hold_back_from(&text)
        };
        let rest = text.split_off(cut);
        if !rest.is_empty() {
            self.held.insert(entry.stream_id.clone(), rest);
        }
        entry.text = match redactor.redact(&text) {
            std::borrow::Cow::Borrowed(_) => text,
            std::borrow::Cow::Owned(masked) => masked,
        };
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
        assert_eq!(a.text, "your token: ");
        assert_eq!(b.text, "[REDACTED:github-token] done");
        assert!(s.held.is_empty());
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
