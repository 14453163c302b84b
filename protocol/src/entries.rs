//! The structured content of transcript entries (`docs/protocol.md`,
//! "Transcript entries"): what an agent did, beside the text form that every
//! entry carries for readers that only read text.
//!
//! Every string in these shapes that came from the agent has passed the
//! transcript filters and the secret mask before it leaves the runner; the
//! ids (`tc-N`, `perm-N`) are the runner's own, and `kind`, `status`, `type`
//! and `priority` are ACP's closed sets.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A tool call as it stands, every update the agent sent for it merged
/// (by its ACP `toolCallId`). Each update is recorded as a new entry with the
/// whole call: the last entry of an id within a run is the call's state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The runner's id for the call, unique within its run (`tc-1`, `tc-2`…).
    pub id: String,
    /// What the agent calls it now (its last `title`).
    pub title: String,
    /// ACP's tool kind: `read`, `edit`, `delete`, `move`, `search`,
    /// `execute`, `think`, `fetch`, `switch_mode`, `other`.
    pub kind: String,
    /// `pending`, `in_progress`, `completed` or `failed`.
    pub status: String,
    /// For an `execute` call, the command line it runs (from its input, or
    /// its title when the agent sends no input).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The tool's input as the agent sent it (ACP `rawInput`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Value>,
    /// Files the call touches.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub locations: Vec<Location>,
    /// What the agent shows of the call (its last `content`): text, diffs, terminals.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub content: Vec<ToolContent>,
    /// What the call printed or returned, once it has ended: the text of its
    /// content, or else of its raw output (a Markdown fence the agent put
    /// around it taken off). Long outputs keep their head and tail. While a
    /// command runs, what it prints is the call's `tool_output` stream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// The command's exit status, when the agent says it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    /// How long the call took, from when the runner first heard of it to its
    /// end (`completed` or `failed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// The tool's output as the agent sent it (ACP `rawOutput`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_output: Option<Value>,
}

impl ToolCall {
    /// Whether the call is over (`completed` or `failed`).
    pub fn has_ended(&self) -> bool {
        matches!(self.status.as_str(), "completed" | "failed")
    }
}

/// A duration as a call's line says it: `850ms`, `3.2s`, `1m 1.5s`.
pub fn took(ms: u64) -> String {
    match ms {
        ms if ms < 1_000 => format!("{ms}ms"),
        ms if ms < 60_000 => format!("{:.1}s", ms as f64 / 1000.0),
        ms => format!("{}m {:.1}s", ms / 60_000, (ms % 60_000) as f64 / 1000.0),
    }
}

/// A file a tool call touches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

/// One part of what a tool call shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolContent {
    /// Text (a non-text block is named in brackets: `[image]`).
    Text { text: String },
    /// A change to a file: its text before (none for a new file) and after.
    Diff {
        path: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        old_text: Option<String>,
        new_text: String,
    },
    /// A terminal the agent runs the command in (the client's terminal:
    /// this runner offers none, so this is only named).
    Terminal { terminal_id: String },
}

/// One step of the agent's plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanStep {
    pub content: String,
    /// `high`, `medium` or `low`.
    pub priority: String,
    /// `pending`, `in_progress` or `completed`.
    pub status: String,
}

/// A permission request: the tool call the agent wants to make and the
/// choices it offers. Blaise stores this (not the agent's raw request).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Permission {
    /// The runner's id for the request (`perm-1`…), unique within its run.
    pub request_id: String,
    pub tool_call: ToolCall,
    pub options: Vec<PermissionChoice>,
}

/// One answer a permission request offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PermissionChoice {
    /// What to answer with (`POST …/permissions/{request_id}/answer {"option_id"}`).
    pub option_id: String,
    pub name: String,
    /// `allow_once`, `allow_always`, `reject_once` or `reject_always`.
    pub kind: String,
}
