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
    /// What the agent said it used since the run's last usage report.
    Usage(UsageReport),
}

/// What an agent says it used, as the run reports it: each figure it did
/// not give is absent (unknown, not zero). Tokens are the turn's (an agent
/// gives them with its answer); the cost is what was spent since the run's
/// last report (the runner turns the agent's running total into steps);
/// the context is how full the window is now.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct UsageReport {
    /// The message whose turn it was used in, when a turn is open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    #[serde(default, skip_serializing_if = "Tokens::is_empty")]
    pub tokens: Tokens,
    /// Tokens in the agent's context window now, and its size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_used: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_size: Option<u64>,
    /// Spent since the run's last usage report, in the agent's currency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
}

/// Token counts by kind; a kind the agent does not report is `None`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Tokens {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_read: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_write: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
}

impl Tokens {
    pub fn is_empty(&self) -> bool {
        *self == Tokens::default()
    }

    /// Each kind, with its name (as metrics and views name it).
    pub fn kinds(&self) -> [(&'static str, Option<u64>); 6] {
        [
            ("input", self.input),
            ("output", self.output),
            ("cached_read", self.cached_read),
            ("cached_write", self.cached_write),
            ("thought", self.thought),
            ("total", self.total),
        ]
    }

    /// The sum of two counts, kind by kind: known where either is.
    pub fn add(&mut self, other: &Tokens) {
        let sum = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0).saturating_add(b.unwrap_or(0))),
        };
        self.input = sum(self.input, other.input);
        self.output = sum(self.output, other.output);
        self.cached_read = sum(self.cached_read, other.cached_read);
        self.cached_write = sum(self.cached_write, other.cached_write);
        self.thought = sum(self.thought, other.thought);
        self.total = sum(self.total, other.total);
    }
}

/// An amount of money (or of an agent's credits), in the unit the agent gives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cost {
    pub amount: f64,
    /// An ISO 4217 code (`USD`) as the agent reports it, or another unit (`credits`).
    pub currency: String,
}

impl Cost {
    /// The most one report may say was spent (no turn costs a million of anything): sums of
    /// reports stay finite.
    pub const MAX_AMOUNT: f64 = 1_000_000.0;

    /// What makes this cost unfit for a report, if anything: the field and why (never the
    /// value, which is the agent's). The runner leaves such a cost out; Blaise refuses it.
    pub fn problem(&self) -> Option<(&'static str, String)> {
        if !(0.0..=Cost::MAX_AMOUNT).contains(&self.amount) {
            return Some((
                "cost.amount",
                format!(
                    "`cost.amount` must be a number from 0 to {}",
                    Cost::MAX_AMOUNT
                ),
            ));
        }
        // A label of the metrics and a word of notices: a unit's name, short.
        let c = &self.currency;
        if c.is_empty() || c.len() > 16 || !c.bytes().all(|b| b.is_ascii_alphabetic()) {
            return Some((
                "cost.currency",
                "`cost.currency` must be 1 to 16 ASCII letters (`USD`, `credits`)".into(),
            ));
        }
        None
    }
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
            ReportBody::Usage(_) => "usage",
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
            ReportBody::Usage(UsageReport {
                message_id: Some("msg_1".into()),
                tokens: Tokens {
                    input: Some(2000),
                    output: Some(100),
                    ..Tokens::default()
                },
                context_used: Some(1501),
                context_size: Some(200_000),
                cost: Some(Cost {
                    amount: 0.00918,
                    currency: "USD".into(),
                }),
            }),
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
