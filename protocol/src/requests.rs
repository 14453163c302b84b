//! The run's other requests: its ACP session, its plugs' state, its agent's permission requests,
//! and the long polls' queries.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// `GET /v1/runner/offers?instance=…&wait_ms=…`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OffersQuery {
    pub instance: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_ms: Option<u64>,
    /// The sessions whose agents this instance keeps, comma-separated: Blaise
    /// answers which to let go ([`crate::Offers::release_agents`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept: Option<String>,
    /// The warm target this instance works to (the last
    /// [`crate::Offers::warm_agents`] it was told): Blaise answers at once
    /// when it is no longer the target. Sent only once Blaise has told one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warm: Option<u32>,
}

/// `GET /v1/runner/runs/{run}/directives?after=…&wait_ms=…`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirectivesQuery {
    /// The last `seq` the run has seen.
    #[serde(default)]
    pub after: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_ms: Option<u64>,
}

/// The runner, to `PUT …/acp-session`: the ACP session its agent opened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AcpSession {
    pub acp_session_id: String,
}

/// Blaise's answer to `GET …/plug-state`: the session's plug records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlugRecords {
    pub records: Vec<PlugRecord>,
}

/// One plug's persisted state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlugRecord {
    pub plug_id: String,
    pub entries: BTreeMap<String, String>,
    /// Whether the session's current plug chain has this plug.
    #[serde(default)]
    pub owned: bool,
    #[serde(default)]
    pub updated_at: i64,
}

/// The runner, to `PUT …/plug-state/{plug}`: the plug's whole record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PutPlugState {
    pub entries: BTreeMap<String, String>,
}

/// The runner, to `POST …/permissions`: what the agent asks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AskPermission {
    pub request_id: String,
    /// The message whose turn asked: the request ends with that turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    /// The tool call and the options, as the runner shows them.
    pub request: serde_json::Value,
}
