//! What a run reports: `POST /v1/runner/runs/{run}/reports` and Blaise's answer.

use serde::{Deserialize, Serialize};

use crate::enums::{
    Conversation, EnvironmentLeft, FailedPhase, RunStatus, SessionState, TurnOutcome,
};

/// A lifecycle report. Its `report_id` makes a repeat harmless.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub report_id: String,
    #[serde(flatten)]
    pub body: ReportBody,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ReportBody {
    Accepted,
    /// The plugs are ready and the agent started (a teardown run: the teardown began).
    Started {
        /// How the agent's conversation was opened (a teardown run has none).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        conversation: Option<Conversation>,
    },
    /// Whether every plug of the run's chain can resume, and the chain's plug ids.
    PlugsCanResume {
        can_resume: bool,
        #[serde(default)]
        plugs_that_cannot: Vec<String>,
        /// The chain's plug ids (a runner before chains were reported sent none).
        #[serde(default)]
        chain: Option<Vec<String>>,
        /// Whether every plug keeps the agent's processes across a pause
        /// (contract 0.3), and the run could hand its agent to a keeper: a
        /// hot pause may be asked for.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        keeps_processes: bool,
    },
    /// A turn is over (answered, cancelled or failed): the idle clock runs again.
    TurnEnded {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message_id: Option<String>,
        /// How it ended (an older runner said nothing: answered).
        #[serde(default, skip_serializing_if = "TurnOutcome::is_answered")]
        outcome: TurnOutcome,
        /// Why a failed turn failed: the agent's error, filtered like its
        /// output (the transcript has a notice with it too).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// The run paused its plugs and is exiting.
    Paused {
        /// The agent was handed, frozen, to the keeper of the instance that
        /// ran it: a resume there continues it.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        agent_kept: bool,
        /// The run paused on its own because its agent is gone (it exited,
        /// died in a turn, ignored a cancel and was stopped, or did not
        /// start): why. The environment is intact; the next message resumes it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent_lost: Option<String>,
    },
    /// The run tore the environment down and is exiting.
    TornDown,
    Failed {
        phase: FailedPhase,
        error: String,
        #[serde(default)]
        environment: EnvironmentLeft,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        teardown_error: Option<String>,
    },
    /// SIGINT/SIGTERM: the run stopped the conversation and is exiting.
    Cancelled {
        #[serde(default)]
        environment: EnvironmentLeft,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        teardown_error: Option<String>,
    },
    /// What left the agent's network namespace through `blaise-egress`
    /// during the run (its whole tally), sent before the run's last report.
    Egress(EgressCounts),
}

impl ReportBody {
    /// Its `kind` on the wire.
    pub fn kind(&self) -> &'static str {
        match self {
            ReportBody::Accepted => "accepted",
            ReportBody::Started { .. } => "started",
            ReportBody::PlugsCanResume { .. } => "plugs_can_resume",
            ReportBody::TurnEnded { .. } => "turn_ended",
            ReportBody::Paused { .. } => "paused",
            ReportBody::TornDown => "torn_down",
            ReportBody::Failed { .. } => "failed",
            ReportBody::Cancelled { .. } => "cancelled",
            ReportBody::Egress(_) => "egress",
        }
    }
}

/// `blaise-egress`'s tally, as it writes it on the runner's descriptor and
/// as the `egress` report carries it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct EgressCounts {
    /// Each destination reached (`host:port` as the agent named it), and
    /// `(other destinations)` past 256 of them.
    pub reached: Vec<EgressReached>,
    /// Refused destinations, each once.
    pub refused: Vec<String>,
    /// Refusals of destinations past those listed.
    #[serde(default)]
    pub refused_more: u64,
}

/// One destination the agent reached, as `blaise-egress` counted it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EgressReached {
    /// `host:port` as the client named it.
    pub destination: String,
    pub connections: u64,
    /// Bytes the agent sent.
    pub sent: u64,
    /// Bytes the agent received.
    pub received: u64,
}

/// Blaise's answer to a report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportAnswer {
    /// The report id was seen before: nothing was changed.
    #[serde(default)]
    pub duplicate: bool,
    pub run_status: RunStatus,
    pub session_state: SessionState,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_read_back_as_written() {
        for body in [
            ReportBody::Accepted,
            ReportBody::Started {
                conversation: Some(Conversation::Loaded),
            },
            ReportBody::Failed {
                phase: FailedPhase::BeforeAgentStart,
                error: "no".into(),
                environment: EnvironmentLeft::TeardownFailed,
                teardown_error: Some("busy".into()),
            },
            ReportBody::Egress(EgressCounts::default()),
            ReportBody::Paused {
                agent_kept: true,
                agent_lost: None,
            },
            ReportBody::Paused {
                agent_kept: false,
                agent_lost: Some("the agent exited between turns, with exit status: 1".into()),
            },
            ReportBody::TurnEnded {
                message_id: Some("msg_1".into()),
                outcome: TurnOutcome::Failed,
                error: Some("overloaded".into()),
            },
            ReportBody::Started {
                conversation: Some(Conversation::Kept),
            },
        ] {
            let report = Report {
                report_id: "r-1".into(),
                body,
            };
            let v = serde_json::to_value(&report).unwrap();
            assert_eq!(v["kind"], report.body.kind());
            assert_eq!(serde_json::from_value::<Report>(v).unwrap(), report);
        }
        // What an older runner sent still reads.
        let old: ReportBody =
            serde_json::from_str(r#"{"kind": "plugs_can_resume", "can_resume": true}"#).unwrap();
        assert_eq!(
            old,
            ReportBody::PlugsCanResume {
                can_resume: true,
                plugs_that_cannot: vec![],
                chain: None,
                keeps_processes: false,
            }
        );
        let old: ReportBody = serde_json::from_str(r#"{"kind": "paused"}"#).unwrap();
        assert_eq!(
            old,
            ReportBody::Paused {
                agent_kept: false,
                agent_lost: None
            }
        );
        let old: ReportBody =
            serde_json::from_str(r#"{"kind": "turn_ended", "message_id": "m"}"#).unwrap();
        assert_eq!(
            old,
            ReportBody::TurnEnded {
                message_id: Some("m".into()),
                outcome: TurnOutcome::Answered,
                error: None
            }
        );
        // An answered turn is written as before.
        let v = serde_json::to_value(&old).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"kind": "turn_ended", "message_id": "m"})
        );
    }
}
