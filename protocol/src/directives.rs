//! What Blaise tells a run: `GET /v1/runner/runs/{run}/directives` (a long poll) and the
//! heartbeat's answer.

use serde::{Deserialize, Serialize};

use crate::enums::{RunStatus, StopReason};

/// Blaise's answer to `directives`: the run's status and the directives after `after`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DirectiveBatch {
    pub run_status: RunStatus,
    pub directives: Vec<Directive>,
}

/// One directive, numbered from 1 in the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Directive {
    pub seq: u64,
    #[serde(flatten)]
    pub body: DirectiveBody,
    /// The run it is for, when it was issued and first delivered (for readers of the stream;
    /// the runner acts on `seq` and `body`).
    #[serde(default)]
    pub run_id: String,
    #[serde(default)]
    pub created_at: i64,
    #[serde(default)]
    pub delivered_at: Option<i64>,
}

/// What flows to a run on its directive stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DirectiveBody {
    /// A message for the agent; its `turn_ended` report names `message_id`.
    Prompt { message_id: String, text: String },
    /// Cancel the agent's turn.
    Cancel,
    /// End the run.
    Stop(StopDirective),
    /// Someone answered the agent's permission request.
    PermissionAnswer {
        request_id: String,
        option_id: String,
    },
}

/// What Blaise sends a run to end it: the runner pauses its plugs, tears down unless
/// `may_resume`, reports and exits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StopDirective {
    pub reason: StopReason,
    pub may_resume: bool,
    /// Pause hot: hand the agent, frozen, to the runner instance's keeper
    /// (only with `may_resume`, and only when the run said its plugs keep
    /// processes). A run that cannot pauses cold.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keep_agent: bool,
}

/// Blaise's answer to a heartbeat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HeartbeatAnswer {
    pub run_status: RunStatus,
    /// The stop directive, if one was issued (it is also on the directive stream).
    #[serde(default)]
    pub stop: Option<StopDirective>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_is_flat_on_the_wire() {
        let d = Directive {
            seq: 4,
            body: DirectiveBody::Stop(StopDirective {
                reason: StopReason::Idle,
                may_resume: true,
                keep_agent: true,
            }),
            run_id: "run_1".into(),
            created_at: 1,
            delivered_at: None,
        };
        let v = serde_json::to_value(&d).unwrap();
        assert_eq!(v["kind"], "stop");
        assert_eq!(v["reason"], "idle");
        assert_eq!(v["may_resume"], true);
        assert_eq!(v["keep_agent"], true);
        assert_eq!(serde_json::from_value::<Directive>(v).unwrap(), d);
        // What an older Blaise sent still reads: a cold pause.
        let old: StopDirective =
            serde_json::from_str(r#"{"reason": "idle", "may_resume": true}"#).unwrap();
        assert!(!old.keep_agent);
        let bare: Directive = serde_json::from_str(
            r#"{"seq": 1, "kind": "prompt", "message_id": "m", "text": "hi"}"#,
        )
        .unwrap();
        assert_eq!(bare.run_id, "");
    }
}
