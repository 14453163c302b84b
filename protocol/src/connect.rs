//! Connecting, offers and accepting a run: `POST /v1/runner/connect`, `GET /v1/runner/offers`,
//! `POST /v1/runner/runs/{run}/accept`.

use serde::{Deserialize, Serialize};

use crate::enums::{IdlePolicy, RunKind};
use crate::ids::id;

/// The runner, to `connect`: who this instance is and what it serves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConnectRequest {
    /// Names this process among the instances sharing the runner's token.
    pub instance: String,
    /// The agents this runner serves.
    pub agents: Vec<String>,
    /// Most runs this instance takes at once; without it, no limit.
    #[serde(default)]
    pub capacity: Option<u32>,
    /// What this instance offers that an agent may require (`gpu`, `region-eu`, …).
    #[serde(default)]
    pub labels: Vec<String>,
}

/// Blaise's answer to `connect`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Connected {
    pub protocol_version: u32,
    /// The runner's name (its token's).
    pub runner: String,
    /// Each agent the instance serves, with its settings.
    pub agents: Vec<AgentInfo>,
    pub heartbeat_interval_ms: u64,
    pub long_poll_max_ms: u64,
}

/// An agent as a runner learns it when it connects.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentInfo {
    pub name: String,
    #[serde(flatten)]
    pub settings: AgentSettings,
    /// A disabled (archived) agent gets no new runs except teardown runs.
    #[serde(default)]
    pub disabled: bool,
}

/// An agent's settings: the only place timing lives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentSettings {
    pub inactivity_ms: u64,
    pub idle_policy: IdlePolicy,
    pub paused_lifetime_ms: u64,
    pub timeout_ms: u64,
    /// Labels a runner must have (all of them) to take this agent's runs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requires_labels: Vec<String>,
    /// How long a paused session's agent may stay kept, frozen, by the runner
    /// instance that paused it (hot resume); 0: every pause is cold.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub hot_for_ms: u64,
    /// How many agents the instance should keep started ahead (warm
    /// starts), as of `connect`: 0 when the agent is disabled or the
    /// instance may not take its new sessions. Each offers answer says it
    /// afresh ([`Offers::warm_agents`]).
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub warm_agents: u32,
    /// How long the agent may take to start: to answer `initialize`, and
    /// then to open its conversation (`session/new`, `session/load` or
    /// `session/resume`), each. Past it the run stops the agent and pauses.
    #[serde(default = "default_start_timeout_ms")]
    pub start_timeout_ms: u64,
    /// How long a turn may go on after `session/cancel`; past it the run
    /// stops the agent (the turn ends as cancelled, the environment stays).
    #[serde(default = "default_cancel_grace_ms")]
    pub cancel_grace_ms: u64,
}

/// [`AgentSettings::start_timeout_ms`] when Blaise does not say.
pub const DEFAULT_START_TIMEOUT_MS: u64 = 60_000;
/// [`AgentSettings::cancel_grace_ms`] when Blaise does not say.
pub const DEFAULT_CANCEL_GRACE_MS: u64 = 10_000;

fn default_start_timeout_ms() -> u64 {
    DEFAULT_START_TIMEOUT_MS
}

fn default_cancel_grace_ms() -> u64 {
    DEFAULT_CANCEL_GRACE_MS
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

fn is_zero_u32(v: &u32) -> bool {
    *v == 0
}

/// Blaise's answer to `offers`: runs this instance may accept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Offers {
    pub offers: Vec<Offer>,
    /// Sessions whose agent this instance said it keeps and should let go
    /// now (their hot time is over, or they were resumed or ended elsewhere).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub release_agents: Vec<String>,
    /// How many agents this instance should keep started ahead for new
    /// sessions (warm starts): the agent's `warm_agents`, or 0 when it is
    /// disabled or this instance may not take its runs. An older Blaise
    /// leaves it out; the runner then keeps none and never sends `warm`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warm_agents: Option<u32>,
}

/// A run as offered to a runner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Offer {
    #[serde(deserialize_with = "id")]
    pub run_id: String,
    pub kind: RunKind,
    #[serde(deserialize_with = "id")]
    pub session_id: String,
    pub agent: String,
    #[serde(deserialize_with = "id")]
    pub environment_id: String,
}

/// The runner, to `accept`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AcceptRequest {
    pub instance: String,
}

/// Blaise's answer to `accept`: what a runner needs to do the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Assignment {
    #[serde(deserialize_with = "id")]
    pub run_id: String,
    pub kind: RunKind,
    #[serde(deserialize_with = "id")]
    pub session_id: String,
    #[serde(deserialize_with = "id")]
    pub environment_id: String,
    pub agent: String,
    pub settings: AgentSettings,
    /// For a resume run: the ACP session to take up again.
    pub acp_session_id: Option<String>,
    /// The environment was recreated (the transcript says so).
    #[serde(default)]
    pub fresh_environment: bool,
    /// For a teardown run: why the session ended.
    pub teardown_reason: Option<String>,
    pub heartbeat_interval_ms: u64,
    /// Every plug-state record of the session, as `GET …/plug-state` answers
    /// it: the run reads its plugs' state without another round trip. An
    /// older Blaise leaves it out, and the run asks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plug_state: Option<Vec<crate::PlugRecord>>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::MAX_ID;

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

    #[test]
    fn an_agent_reads_back_as_it_was_written() {
        let agent = AgentInfo {
            name: "claude".into(),
            settings: AgentSettings {
                inactivity_ms: 600_000,
                idle_policy: IdlePolicy::Pause,
                paused_lifetime_ms: 86_400_000,
                timeout_ms: 7_200_000,
                requires_labels: vec!["gpu".into()],
                hot_for_ms: 900_000,
                warm_agents: 1,
                start_timeout_ms: 30_000,
                cancel_grace_ms: 5_000,
            },
            disabled: false,
        };
        let text = serde_json::to_value(&agent).unwrap();
        assert_eq!(
            text["inactivity_ms"], 600_000,
            "settings are flattened: {text}"
        );
        assert_eq!(serde_json::from_value::<AgentInfo>(text).unwrap(), agent);
        // What an older Blaise sent: the runner's deadlines take their defaults.
        let old: AgentSettings = serde_json::from_value(serde_json::json!({
            "inactivity_ms": 1, "idle_policy": "pause", "paused_lifetime_ms": 1, "timeout_ms": 1
        }))
        .unwrap();
        assert_eq!(old.start_timeout_ms, DEFAULT_START_TIMEOUT_MS);
        assert_eq!(old.cancel_grace_ms, DEFAULT_CANCEL_GRACE_MS);
    }
}
