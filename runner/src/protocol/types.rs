//! The messages of the runner protocol, as documented in `docs/protocol.md`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize)]
pub struct ConnectRequest {
    pub instance: String,
    pub agents: Vec<String>,
    /// Most runs this instance takes at once.
    pub capacity: u32,
    /// What this instance offers that an agent may require.
    pub labels: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Connected {
    pub protocol_version: u32,
    pub runner: String,
    pub agents: Vec<AgentSettings>,
    pub heartbeat_interval_ms: u64,
    pub long_poll_max_ms: u64,
}

/// An agent's settings: the only place timing lives.
#[derive(Debug, Clone, Deserialize)]
pub struct AgentSettings {
    #[serde(default)]
    pub name: String,
    pub inactivity_ms: u64,
    pub idle_policy: IdlePolicy,
    pub paused_lifetime_ms: u64,
    pub timeout_ms: u64,
    #[serde(default)]
    pub disabled: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IdlePolicy {
    Pause,
    End,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunKindName {
    Start,
    Resume,
    Teardown,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Offers {
    pub offers: Vec<Offer>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Offer {
    pub run_id: String,
    pub kind: RunKindName,
    pub session_id: String,
    pub agent: String,
    pub environment_id: String,
}

/// What a run is, returned by `accept`.
#[derive(Debug, Clone, Deserialize)]
pub struct Assignment {
    pub run_id: String,
    pub kind: RunKindName,
    pub session_id: String,
    pub environment_id: String,
    pub agent: String,
    pub settings: AgentSettings,
    pub acp_session_id: Option<String>,
    #[serde(default)]
    pub fresh_environment: bool,
    pub teardown_reason: Option<String>,
    pub heartbeat_interval_ms: u64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct DirectiveBatch {
    pub run_status: String,
    pub directives: Vec<Directive>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Directive {
    pub seq: u64,
    #[serde(flatten)]
    pub body: DirectiveBody,
}

#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DirectiveBody {
    Prompt {
        #[serde(default)]
        message_id: Option<String>,
        text: String,
    },
    Cancel,
    PermissionAnswer {
        request_id: String,
        option_id: String,
    },
    Stop {
        reason: String,
        may_resume: bool,
    },
}

/// A lifecycle report. Its `report_id` makes a repeat harmless.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    pub report_id: String,
    #[serde(flatten)]
    pub body: ReportBody,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ReportBody {
    Accepted,
    PlugsCanResume {
        can_resume: bool,
        plugs_that_cannot: Vec<String>,
        chain: Vec<String>,
    },
    Started,
    TurnEnded {
        #[serde(skip_serializing_if = "Option::is_none")]
        message_id: Option<String>,
    },
    Paused,
    TornDown,
    Failed {
        phase: FailedPhase,
        error: String,
        environment: EnvironmentLeft,
        #[serde(skip_serializing_if = "Option::is_none")]
        teardown_error: Option<String>,
    },
    Cancelled {
        environment: EnvironmentLeft,
        #[serde(skip_serializing_if = "Option::is_none")]
        teardown_error: Option<String>,
    },
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FailedPhase {
    ProcessStart,
    BeforeAgentStart,
    Agent,
    Teardown,
}

/// What a run left of its environment.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum EnvironmentLeft {
    Intact,
    TornDown,
    TeardownFailed,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ReportAnswer {
    #[serde(default)]
    pub duplicate: bool,
    pub run_status: String,
    #[serde(default)]
    pub session_state: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct TranscriptBatch {
    pub entries: Vec<TranscriptRecord>,
}

/// One transcript entry as Blaise stores it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TranscriptRecord {
    pub seq: u64,
    pub kind: String,
    pub content: serde_json::Value,
}

#[derive(Debug, Clone, Deserialize)]
pub struct TranscriptAnswer {
    pub appended: u64,
    pub duplicates: u64,
    pub last_seq: u64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct HeartbeatAnswer {
    pub run_status: String,
    #[serde(default)]
    pub stop: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct PlugRecords {
    pub records: Vec<PlugRecord>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct PlugRecord {
    pub plug_id: String,
    pub entries: BTreeMap<String, String>,
    #[serde(default)]
    pub owned: bool,
}
