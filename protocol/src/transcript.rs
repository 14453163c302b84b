//! A run's transcript: `POST /v1/runner/runs/{run}/transcript`.

use serde::{Deserialize, Serialize};

use crate::enums::EntryKind;

/// The runner, to `transcript`: entries in order, numbered by the run from 1.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TranscriptBatch {
    pub entries: Vec<TranscriptRecord>,
}

/// One transcript entry as the runner reports it (its structured `content`: [`crate::entries`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TranscriptRecord {
    pub seq: u64,
    pub kind: EntryKind,
    pub content: serde_json::Value,
}

/// Blaise's answer: how many entries were new and how many repeated ones were ignored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TranscriptAnswer {
    pub appended: u64,
    pub duplicates: u64,
    pub last_seq: u64,
}
