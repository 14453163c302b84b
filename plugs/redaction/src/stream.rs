//! Streamed entries: a secret split across two chunks of one stream must
//! still be masked, so the end of a chunk that may be the start of a secret is
//! held back and put before the next chunk of the same stream. What was sent
//! of the current line is kept too and read again (never sent again): what
//! decides whether something is a secret, like the `<` of `<password>` or the
//! `?` before `token=`, may have left in an earlier chunk. When the stream
//! has been quiet a while the runner sends an empty chunk that is not `last`:
//! then what is held back goes out, masked as it stands.
//!
//! The session remembers the secrets it found ([`Seen`]): a later copy of
//! one is masked in any entry of any stream, and a chunk that ends with the
//! start of such a copy holds it back.

use std::collections::HashMap;

use blaise_plug::TranscriptEntry;

use crate::detect::{Found, MAX_HOLD, Redactor, Seen};

/// Most bytes kept as context: the current line, and the lines before it
/// that fit whole (a `resource "random_password"` above its `result`, a
/// `name:` above its `value:`).
const CONTEXT: usize = 1 << 10;

/// Open streams, by stream id.
#[derive(Debug, Default)]
pub struct Streams {
    open: HashMap<String, Open>,
    /// The values found so far in the session.
    seen: Seen,
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
        // No stream open (the common case): no lookup, no hashing of the id.
        let open = if self.open.is_empty() {
            None
        } else {
            self.open.remove(&entry.stream_id)
        };
        let Some(open) = open else {
            if entry.last {
                // A whole entry: the common case, without copies.
                if let std::borrow::Cow::Owned(masked) =
                    redactor.redact_knowing(&entry.text, &mut self.seen)
                {
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
        // An empty chunk that is not `last` is the runner's word that the
        // stream has been quiet: what is held back goes now, masked as it
        // stands; the stream goes on.
        let quiet = !entry.last && entry.text.is_empty();
        let mut cut = if entry.last || quiet {
            text.len()
        } else {
            redactor.hold_back_from(&text).max(from)
        };
        // What is sent is found in all the text there is, as the whole text
        // will be read: what follows the cut (`hunter22  2 days ago`) may
        // decide what comes before it, as it did where the cut was chosen.
        // A copy of a known value may start before the cut: held back from
        // there too, and the cut settled again for what it then ends on.
        // (The text is read once; only what it teaches depends on the cut.)
        let fresh = redactor.find_fresh(&text);
        let (found, learned) = loop {
            let (found, learned) =
                Redactor::with_repeats(&text, fresh.clone(), from..cut, &self.seen);
            if entry.last || quiet {
                break (found, learned);
            }
            // Nor is a find sent in two parts (a copy whole in the text that
            // the cut splits): it waits, within what a stream may hold.
            let floor = text.len().saturating_sub(MAX_HOLD);
            let split = found
                .iter()
                .filter(|f| f.start < cut && cut < f.end && f.start >= floor)
                .map(|f| f.start)
                .min();
            let back = self
                .seen
                .hold_back_from(&text, &learned)
                .min(split.unwrap_or(cut))
                .max(from);
            if back >= cut {
                break (found, learned);
            }
            cut = redactor.hold_back_from(&text[..back]).max(from);
        };
        entry.text = Redactor::mask_after(&text[..cut], from, &clipped(&found, cut));
        self.seen.learn(learned);
        if !entry.last {
            let line = text[..cut].rfind('\n').map_or(0, |p| p + 1);
            // On a char boundary (the first one at most CONTEXT bytes back):
            // `cut - CONTEXT` may fall inside a character (a box-drawn
            // table's `─`, CJK, emoji), and the text is sliced there.
            let floor = text.ceil_char_boundary(cut.saturating_sub(CONTEXT));
            let mut keep = if line <= floor {
                floor
            } else {
                // The first whole line within the budget.
                text[floor..line]
                    .find('\n')
                    .map_or(line, |p| floor + p + 1)
                    .min(line)
            };
            if floor == 0 {
                keep = 0;
            }
            // `floor`, `line` and the byte after a `\n` are all boundaries.
            debug_assert!(text.is_char_boundary(keep));
            let held = text[cut..].to_string();
            text.truncate(cut);
            text.drain(..keep);
            self.open
                .insert(entry.stream_id.clone(), Open { sent: text, held });
        }
        entry
    }
}

/// `found` up to `cut`: what is sent now (a find past it is masked with
/// the chunk that sends it).
fn clipped(found: &[Found], cut: usize) -> Vec<Found> {
    found
        .iter()
        .filter(|f| f.start < cut)
        .map(|f| Found {
            end: f.end.min(cut),
            ..*f
        })
        .collect()
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
    fn a_last_chunk_holds_nothing_back() {
        let r = Redactor::new(&[]);
        let mut s = Streams::default();
        let a = s.filter(
            &r,
            chunk("key: AKIAQX3NDBLT4VKM7J2P and then ghp_aBcD", true),
        );
        assert_eq!(a.text, "key: [REDACTED:aws-access-key] and then ghp_aBcD");
        assert!(s.open.is_empty());
        // Also after earlier chunks held something back.
        let a = s.filter(&r, chunk("export DB_PASSWORD=s3cr", false));
        let b = s.filter(&r, chunk("3t-P4ss", true));
        assert_eq!(a.text, "export ");
        assert_eq!(b.text, "DB_PASSWORD=[REDACTED:secret-assignment]");
        assert!(s.open.is_empty());
    }

    #[test]
    fn what_was_sent_of_the_line_still_decides() {
        let r = Redactor::new(&[]);
        let mut s = Streams::default();
        // The `<` and the `?` leave with their chunk; what follows still
        // reads as `<password>` and as a query parameter.
        let a = s.filter(&r, chunk("<user>bob</user><", false));
        let b = s.filter(&r, chunk("password>s3cr3t-P4ss</password>", false));
        let c = s.filter(&r, chunk(" GET /cb?code=1&", false));
        let d = s.filter(&r, chunk("client_secret=q_TKuaiGEiIdlNOn&state=x", true));
        assert_eq!(a.text, "<user>bob</user><");
        assert_eq!(b.text, "password>[REDACTED:secret-assignment]</password>");
        assert_eq!(c.text, " GET /cb?code=1&");
        assert_eq!(d.text, "client_secret=[REDACTED:secret-assignment]&state=x");
    }

    #[test]
    fn streams_are_apart() {
        let r = Redactor::new(&[]);
        let mut s = Streams::default();
        let mut other = chunk("ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789", true);
        other.stream_id = "m2".into();
        let a = s.filter(&r, chunk("see ghp_aBcDeFgHiJkL", false));
        let b = s.filter(&r, other);
        let c = s.filter(&r, chunk("mNoPqRsTuVwXyZ0123456789", true));
        assert_eq!(a.text, "see ");
        assert_eq!(b.text, "[REDACTED:github-token]");
        assert_eq!(c.text, "[REDACTED:github-token]");
    }

    #[test]
    fn a_quiet_stream_releases_what_it_holds_masked() {
        let r = Redactor::new(&[]);
        let mut s = Streams::default();
        let a = s.filter(&r, chunk("export DB_PASSWORD=s3cr3t-P4ssw0rd", false));
        assert_eq!(a.text, "export ");
        // Quiet: the runner's empty chunk that is not `last`.
        let b = s.filter(&r, chunk("", false));
        assert_eq!(b.text, "DB_PASSWORD=[REDACTED:secret-assignment]");
        assert!(!b.last, "the stream goes on");
        let c = s.filter(&r, chunk(" and more", true));
        assert_eq!(c.text, " and more");
        assert!(s.open.is_empty());
    }

    #[test]
    fn a_box_drawn_table_is_cut_between_characters() {
        // More than CONTEXT bytes of `─` (3 bytes each) with lines in them:
        // the context kept started inside a character.
        let r = Redactor::new(&[]);
        let rule = format!("├{}┼{}┤\n", "─".repeat(30), "─".repeat(40));
        let table = format!(
            "{}│ GITHUB_TOKEN │ ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789 │\n{rule}",
            rule.repeat(12)
        );
        let whole = r.redact(&table);
        for cut in (0..=table.len()).filter(|&c| table.is_char_boundary(c)) {
            let mut s = Streams::default();
            let a = s.filter(&r, chunk(&table[..cut], false)).text;
            let b = s.filter(&r, chunk(&table[cut..], true)).text;
            assert_eq!(a + &b, whole, "cut at {cut}");
        }
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
