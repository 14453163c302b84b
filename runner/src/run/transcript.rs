//! The transcript on its way out: every entry through the filtering plugs,
//! replays shown to the plugs but not recorded, the rest numbered and sent.
//! A transcript report that fails fails the run.

use serde_json::json;

use crate::chain::PlugChain;
use crate::host::HookError;
use crate::host::bindings::{EntryKind, TranscriptEntry};
use crate::protocol::{Client, ProtocolError, TranscriptRecord, repeat_while_lost};

pub struct Relay {
    client: Client,
    run_id: String,
    seq: u64,
}

#[derive(Debug)]
pub enum RelayError {
    /// A filter failed: the entries must not leave unfiltered.
    Filter(HookError),
    /// Blaise did not take the entries.
    Report(ProtocolError),
}

impl std::fmt::Display for RelayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RelayError::Filter(e) => write!(f, "transcript filter failed: {e}"),
            RelayError::Report(e) => write!(f, "transcript report failed: {e}"),
        }
    }
}

impl Relay {
    pub fn new(client: Client, run_id: &str) -> Relay {
        Relay {
            client,
            run_id: run_id.into(),
            seq: 0,
        }
    }

    /// Filters a batch and records what is not a replay.
    pub async fn send(
        &mut self,
        chain: &mut PlugChain,
        entries: Vec<TranscriptEntry>,
    ) -> Result<(), RelayError> {
        if entries.is_empty() {
            return Ok(());
        }
        let filtered = chain
            .filter(split_long(entries))
            .await
            .map_err(RelayError::Filter)?;
        let records: Vec<TranscriptRecord> = filtered
            .into_iter()
            .filter(|e| !e.replay && !e.text.is_empty())
            .map(|e| {
                self.seq += 1;
                TranscriptRecord {
                    seq: self.seq,
                    kind: kind_name(e.kind).into(),
                    content: json!({ "text": e.text, "stream": e.stream_id, "last": e.last }),
                }
            })
            .collect();
        if records.is_empty() {
            return Ok(());
        }
        // Entries carry their seq, so repeating a batch whose answer was lost
        // is harmless. Requests stay well under Blaise's body limit.
        for batch in by_size(records) {
            repeat_while_lost(3, || self.client.transcript(&self.run_id, batch.clone()))
                .await
                .map_err(RelayError::Report)?;
        }
        Ok(())
    }
}

/// Longest chunk of the agent's text handed to the filters: the agent is not
/// trusted to keep its chunks small, and a filter's answer is capped.
pub const MAX_CHUNK: usize = 64 << 10;

/// Most text bytes sent to Blaise in one request.
const MAX_BATCH: usize = 512 << 10;

/// Entries with their long texts cut into chunks of one stream (the pieces
/// before the last are not `last`), on character boundaries.
fn split_long(entries: Vec<TranscriptEntry>) -> Vec<TranscriptEntry> {
    if entries.iter().all(|e| e.text.len() <= MAX_CHUNK) {
        return entries;
    }
    let mut out = Vec::with_capacity(entries.len());
    for entry in entries {
        if entry.text.len() <= MAX_CHUNK {
            out.push(entry);
            continue;
        }
        let mut rest = entry.text.as_str();
        while !rest.is_empty() {
            let mut cut = rest.len().min(MAX_CHUNK);
            while !rest.is_char_boundary(cut) {
                cut -= 1;
            }
            let (piece, tail) = rest.split_at(cut);
            out.push(TranscriptEntry {
                text: piece.to_owned(),
                last: entry.last && tail.is_empty(),
                stream_id: entry.stream_id.clone(),
                ..entry
            });
            rest = tail;
        }
    }
    out
}

/// Records in consecutive batches of at most [`MAX_BATCH`] text bytes.
fn by_size(records: Vec<TranscriptRecord>) -> Vec<Vec<TranscriptRecord>> {
    let mut batches = vec![Vec::new()];
    let mut size = 0;
    for record in records {
        let len = record.content["text"].as_str().map_or(0, str::len);
        if size + len > MAX_BATCH && !batches.last().is_some_and(Vec::is_empty) {
            batches.push(Vec::new());
            size = 0;
        }
        size += len;
        batches.last_mut().expect("one batch at least").push(record);
    }
    batches
}

/// A notice from the runner for the transcript (filtered like everything else).
pub fn notice(text: &str) -> TranscriptEntry {
    TranscriptEntry {
        stream_id: format!("notice-{}", super::reports::new_id()),
        kind: EntryKind::Notice,
        text: text.into(),
        last: true,
        replay: false,
    }
}

pub fn kind_name(kind: EntryKind) -> &'static str {
    match kind {
        EntryKind::UserMessage => "user_message",
        EntryKind::AgentMessage => "agent_message",
        EntryKind::AgentThought => "agent_thought",
        EntryKind::ToolCall => "tool_call",
        EntryKind::ToolOutput => "tool_output",
        EntryKind::PermissionRequest => "permission_request",
        EntryKind::Notice => "notice",
    }
}
