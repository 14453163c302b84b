//! The messages of the runner protocol, as documented in `docs/protocol.md`.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};

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

impl RunKindName {
    /// Its name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            RunKindName::Start => "start",
            RunKindName::Resume => "resume",
            RunKindName::Teardown => "teardown",
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct Offers {
    pub offers: Vec<Offer>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Offer {
    #[serde(deserialize_with = "id")]
    pub run_id: String,
    pub kind: RunKindName,
    #[serde(deserialize_with = "id")]
    pub session_id: String,
    pub agent: String,
    #[serde(deserialize_with = "id")]
    pub environment_id: String,
}

/// Longest id the runner takes from Blaise.
pub const MAX_ID: usize = 128;

/// Whether `s` is an id the runner may use as a file name, a container name
/// and a URL segment: 1 to [`MAX_ID`] ASCII letters, digits, `_` and `-`.
pub fn is_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= MAX_ID
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Run, session and environment ids name the run's directory
/// (`runs/<run>`), the workspace (`workspaces/<environment>`, removed at
/// teardown), containers and URL paths. The network is trusted with nothing:
/// an id like `../../home` or `/` is refused when the answer is read, before
/// anything uses it.
fn id<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let s = String::deserialize(d)?;
    if is_id(&s) {
        return Ok(s);
    }
    let shown: String = s.chars().take(64).collect();
    Err(serde::de::Error::custom(format!(
        "`{}` is not an id (1 to {MAX_ID} letters, digits, `_` and `-`)",
        shown.escape_debug()
    )))
}

/// What a run is, returned by `accept`.
#[derive(Debug, Clone, Deserialize)]
pub struct Assignment {
    #[serde(deserialize_with = "id")]
    pub run_id: String,
    pub kind: RunKindName,
    #[serde(deserialize_with = "id")]
    pub session_id: String,
    #[serde(deserialize_with = "id")]
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
    Started {
        /// How the agent's conversation was opened (a teardown run has none).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        conversation: Option<Conversation>,
    },
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
    /// What left the agent's network namespace through `blaise-egress`
    /// during the run (its whole tally), sent before the run's last report.
    Egress(EgressCounts),
}

/// `blaise-egress`'s tally, as it writes it on the runner's descriptor and
/// as the `egress` report carries it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct EgressCounts {
    pub reached: Vec<EgressReached>,
    /// Refused destinations, each once.
    pub refused: Vec<String>,
    /// Refusals of destinations past those listed.
    #[serde(default)]
    pub refused_more: u64,
}

/// One destination the agent reached, as `blaise-egress` counted it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct EgressReached {
    /// `host:port` as the client named it.
    pub destination: String,
    pub connections: u64,
    /// Bytes the agent sent.
    pub sent: u64,
    /// Bytes the agent received.
    pub received: u64,
}

/// How a run opened the agent's conversation.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Conversation {
    /// `session/new`: a start run, or a resume run whose agent could take up
    /// nothing of the old conversation (a transcript notice says so).
    New,
    /// `session/resume`: the agent took the conversation up again without replaying it.
    Resumed,
    /// `session/load`: the agent replayed the conversation (shown to the
    /// filters, not recorded again).
    Loaded,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn assignment(environment: &str, run: &str) -> serde_json::Value {
        serde_json::json!({
            "run_id": run,
            "kind": "teardown",
            "session_id": "ses_0123456789abcdef",
            "environment_id": environment,
            "agent": "script",
            "settings": {
                "inactivity_ms": 1000, "idle_policy": "pause",
                "paused_lifetime_ms": 1000, "timeout_ms": 1000
            },
            "acp_session_id": null,
            "teardown_reason": "closed",
            "heartbeat_interval_ms": 1000
        })
    }

    #[test]
    fn ids_that_would_be_paths_are_refused() {
        let ok: Assignment =
            serde_json::from_value(assignment("env_0123456789abcdef", "run_1-a")).unwrap();
        assert_eq!(ok.environment_id, "env_0123456789abcdef");
        // A teardown removes `workspaces/<environment>`: none of these may
        // name a directory outside it.
        for bad in [
            "../../home",
            "/",
            "",
            ".",
            "..",
            "a/b",
            "a\\b",
            "a b",
            "é",
            "x\0",
        ] {
            for (environment, run) in [(bad, "run_1"), ("env_1", bad)] {
                let err = serde_json::from_value::<Assignment>(assignment(environment, run))
                    .expect_err(bad)
                    .to_string();
                assert!(err.contains("is not an id"), "{bad:?}: {err}");
            }
        }
        let long = "a".repeat(MAX_ID + 1);
        assert!(serde_json::from_value::<Assignment>(assignment(&long, "run_1")).is_err());
        let offers = serde_json::json!({"offers": [{
            "run_id": "run_1", "kind": "start", "session_id": "../x",
            "agent": "script", "environment_id": "env_1"
        }]});
        assert!(serde_json::from_value::<Offers>(offers).is_err());
    }
}
