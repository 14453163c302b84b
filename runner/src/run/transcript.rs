//! The transcript on its way out: every entry through the filtering plugs,
//! replays shown to the plugs but not recorded, the rest numbered once and
//! queued in the run's outbox (which sends it until Blaise has it). Streams
//! still open get a flush hint when quiet and their `last` chunk at the end.

use std::collections::HashMap;

use serde_json::json;

use super::outbox::{Item, Outbox};
use crate::chain::PlugChain;
use crate::host::HookError;
use crate::host::bindings::{EntryKind, TranscriptEntry};
use crate::protocol::TranscriptRecord;

pub struct Relay {
    outbox: Outbox,
    seq: u64,
    /// Streams that had a chunk but not yet their `last` one, with their kind
    /// and whether they have had a chunk since their last flush hint.
    open: HashMap<String, (EntryKind, bool)>,
}

#[derive(Debug)]
pub enum RelayError {
    /// A filter failed: the entries must not leave unfiltered.
    Filter(HookError),
}

impl std::fmt::Display for RelayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RelayError::Filter(e) => write!(f, "transcript filter failed: {e}"),
        }
    }
}

impl Relay {
    pub fn new(outbox: Outbox) -> Relay {
        Relay {
            outbox,
            seq: 0,
            open: HashMap::new(),
        }
    }

    /// Filters a batch and queues what is not a replay, numbered once: the
    /// outbox sends it in order until Blaise has it.
    pub async fn send(
        &mut self,
        chain: &mut PlugChain,
        entries: Vec<TranscriptEntry>,
    ) -> Result<(), RelayError> {
        if entries.is_empty() {
            return Ok(());
        }
        for entry in &entries {
            if entry.last {
                self.open.remove(&entry.stream_id);
            } else {
                self.open
                    .insert(entry.stream_id.clone(), (entry.kind, true));
            }
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
        // Requests stay well under Blaise's body limit.
        for batch in by_size(records) {
            if !batch.is_empty() {
                self.outbox.post(Item::Transcript(batch));
            }
        }
        Ok(())
    }

    /// The outbox the entries go to.
    pub fn outbox(&self) -> &Outbox {
        &self.outbox
    }

    /// Whether a stream has had a chunk since its last flush hint.
    pub fn has_unflushed(&self) -> bool {
        self.open.values().any(|(_, fresh)| *fresh)
    }

    /// The streams have been quiet: an empty chunk that is not `last` tells
    /// the filters to release what they hold back (masked); the streams go on.
    pub async fn flush_quiet(&mut self, chain: &mut PlugChain) -> Result<(), RelayError> {
        let hints: Vec<TranscriptEntry> = self
            .open
            .iter_mut()
            .filter(|(_, (_, fresh))| *fresh)
            .map(|(stream, (kind, fresh))| {
                *fresh = false;
                chunk(stream, *kind, false)
            })
            .collect();
        tracing::debug!(
            streams = hints.len(),
            "quiet streams: the filters release what they hold"
        );
        self.send_hints(chain, hints).await
    }

    /// The run ends: every open stream gets its `last` chunk through the
    /// filters, so nothing a filter held back is lost.
    pub async fn close_streams(&mut self, chain: &mut PlugChain) -> Result<(), RelayError> {
        let last: Vec<TranscriptEntry> = self
            .open
            .drain()
            .map(|(stream, (kind, _))| chunk(&stream, kind, true))
            .collect();
        self.send_hints(chain, last).await
    }

    async fn send_hints(
        &mut self,
        chain: &mut PlugChain,
        entries: Vec<TranscriptEntry>,
    ) -> Result<(), RelayError> {
        if entries.is_empty() {
            return Ok(());
        }
        // Not through `send`: these chunks do not reopen their streams.
        let open = std::mem::take(&mut self.open);
        let sent = self.send(chain, entries).await;
        self.open = open;
        sent
    }
}

/// An empty chunk of `stream`.
fn chunk(stream: &str, kind: EntryKind, last: bool) -> TranscriptEntry {
    TranscriptEntry {
        stream_id: stream.to_owned(),
        kind,
        text: String::new(),
        last,
        replay: false,
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
