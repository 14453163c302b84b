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
        let filtered = chain.filter(entries).await.map_err(RelayError::Filter)?;
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
        // Entries carry their seq, so repeating a batch whose answer was lost is harmless.
        repeat_while_lost(3, || self.client.transcript(&self.run_id, records.clone()))
            .await
            .map(drop)
            .map_err(RelayError::Report)
    }
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
