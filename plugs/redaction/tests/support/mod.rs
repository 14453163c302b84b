//! What the test files share: a text sent through the plug's stream filter
//! the way the runner sends an agent's chunks.

use blaise_plug::{EntryKind, TranscriptEntry};
use redaction::detect::Redactor;
use redaction::stream::Streams;

/// One chunk of stream `m`.
pub fn chunk(text: &str, last: bool) -> TranscriptEntry {
    TranscriptEntry {
        stream_id: "m".into(),
        kind: EntryKind::AgentMessage,
        text: text.into(),
        last,
        replay: false,
    }
}

/// The text sent as one stream, cut at `cuts` (ascending char boundaries).
pub fn streamed(r: &Redactor, text: &str, cuts: &[usize]) -> String {
    let mut streams = Streams::default();
    let mut out = String::new();
    let mut from = 0;
    for &cut in cuts {
        out.push_str(&streams.filter(r, chunk(&text[from..cut], false)).text);
        from = cut;
    }
    out.push_str(&streams.filter(r, chunk(&text[from..], true)).text);
    out
}
