//! The closed sets of the protocol: written as snake_case strings on the wire, typed on both sides.

use serde::{Deserialize, Serialize};

/// An enum written on the wire as one of a fixed set of strings, with `ALL`, `as_str`, `parse`
/// and `Display`. The control plane declares its own domain enums with it too.
#[macro_export]
macro_rules! string_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(::serde::Serialize, ::serde::Deserialize, Clone, Copy, PartialEq, Eq, Debug, Hash)]
        #[serde(rename_all = "snake_case")]
        pub enum $name { $($(#[$vm])* $variant),+ }
        impl $name {
            /// Every value, in the order declared.
            #[allow(dead_code)]
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];
            pub fn as_str(self) -> &'static str { match self { $(Self::$variant => $text),+ } }
            pub fn parse(text: &str) -> Option<Self> { match text { $($text => Some(Self::$variant),)+ _ => None } }
        }
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { f.write_str(self.as_str()) }
        }
    };
}

string_enum!(
    /// Whether an idle session pauses (keeping its environment) or ends.
    IdlePolicy { Pause => "pause", End => "end" }
);

string_enum!(
    /// What a run is for.
    RunKind { Start => "start", Resume => "resume", Teardown => "teardown" }
);

string_enum!(
    /// Where a run stands, as Blaise keeps it.
    RunStatus {
        Offered => "offered",
        Accepted => "accepted",
        Running => "running",
        Paused => "paused",
        TornDown => "torn_down",
        Failed => "failed",
        Cancelled => "cancelled",
        TimedOut => "timed_out",
        Withdrawn => "withdrawn",
    }
);

impl RunStatus {
    pub fn is_finished(self) -> bool {
        !matches!(
            self,
            RunStatus::Offered | RunStatus::Accepted | RunStatus::Running
        )
    }
    /// Accepted by a runner and not finished.
    pub fn is_live(self) -> bool {
        matches!(self, RunStatus::Accepted | RunStatus::Running)
    }
}

string_enum!(
    /// Where a session stands.
    SessionState {
        Active => "active",
        Paused => "paused",
        Closed => "closed",
        Completed => "completed",
        TimedOut => "timed_out",
        Failed => "failed",
        Expired => "expired",
    }
);

impl SessionState {
    /// The endings: a session in one of these states takes no more messages.
    pub fn is_ended(self) -> bool {
        !matches!(self, SessionState::Active | SessionState::Paused)
    }
}

string_enum!(
    /// Why Blaise stops a run. `failures`: the agent's turns failed too many
    /// times in a row (its `max_failed_turns`); the session pauses and the
    /// next message starts the agent again. `budget`: the session spent its
    /// budget (or the agent its daily one); the session pauses, and takes
    /// messages again once the budget is raised.
    StopReason {
        Idle => "idle",
        Timeout => "timeout",
        Closed => "closed",
        Failures => "failures",
        Budget => "budget",
    }
);

string_enum!(
    /// How a turn ended: `answered` (the agent answered the prompt),
    /// `cancelled` (someone cancelled it, or Blaise did for its silence; the
    /// agent stopped, or the run stopped the agent when it would not), or
    /// `failed` (the agent answered with an error, or died during it).
    #[derive(Default)]
    TurnOutcome { #[default] Answered => "answered", Cancelled => "cancelled", Failed => "failed" }
);

impl TurnOutcome {
    pub fn is_answered(&self) -> bool {
        *self == TurnOutcome::Answered
    }
}

string_enum!(
    /// How a run opened the agent's conversation: `new` (`session/new`: a
    /// start run, or a resume whose agent could take up nothing of it),
    /// `resumed` (`session/resume`, nothing replayed), `loaded`
    /// (`session/load`, replayed to the filters and not recorded again) or
    /// `kept` (the agent kept frozen since the pause went on: the same
    /// process and connection, nothing asked of it but the next prompt) or
    /// `warm` (a start run took an agent started ahead, its new conversation
    /// already opened in what became the session's workspace).
    Conversation { New => "new", Resumed => "resumed", Loaded => "loaded", Kept => "kept", Warm => "warm" }
);

string_enum!(
    /// Where a run failed.
    FailedPhase {
        /// The runner could not start the process for the run it accepted.
        ProcessStart => "process_start",
        /// Preparing the plugs (`on-start` / `on-resume`), before the agent started.
        BeforeAgentStart => "before_agent_start",
        /// With the agent running.
        Agent => "agent",
        /// Tearing the environment down (a teardown run, or after a stop).
        Teardown => "teardown",
    }
);

/// What a run left of its environment.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug, Hash, Default)]
#[serde(rename_all = "snake_case")]
pub enum EnvironmentLeft {
    /// Left as it was (nothing torn down).
    #[default]
    Intact,
    TornDown,
    TeardownFailed,
}

/// What a transcript entry is. The runner writes the kinds named here; the protocol leaves the
/// set open (`kind` is free text to Blaise, which stores and shows what it does not know), so a
/// kind of a newer runner is [`EntryKind::Other`].
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug, Hash)]
#[serde(from = "String", into = "String")]
pub enum EntryKind {
    UserMessage,
    AgentMessage,
    AgentThought,
    ToolCall,
    ToolOutput,
    Plan,
    PermissionRequest,
    Notice,
    Other(String),
}

impl EntryKind {
    /// The kinds the runner writes.
    pub const KNOWN: &'static [EntryKind] = &[
        EntryKind::UserMessage,
        EntryKind::AgentMessage,
        EntryKind::AgentThought,
        EntryKind::ToolCall,
        EntryKind::ToolOutput,
        EntryKind::Plan,
        EntryKind::PermissionRequest,
        EntryKind::Notice,
    ];

    pub fn as_str(&self) -> &str {
        match self {
            EntryKind::UserMessage => "user_message",
            EntryKind::AgentMessage => "agent_message",
            EntryKind::AgentThought => "agent_thought",
            EntryKind::ToolCall => "tool_call",
            EntryKind::ToolOutput => "tool_output",
            EntryKind::Plan => "plan",
            EntryKind::PermissionRequest => "permission_request",
            EntryKind::Notice => "notice",
            EntryKind::Other(kind) => kind,
        }
    }

    pub fn parse(text: &str) -> EntryKind {
        EntryKind::KNOWN
            .iter()
            .find(|k| k.as_str() == text)
            .cloned()
            .unwrap_or_else(|| EntryKind::Other(text.to_string()))
    }
}

impl From<String> for EntryKind {
    fn from(text: String) -> EntryKind {
        match EntryKind::parse(&text) {
            EntryKind::Other(_) => EntryKind::Other(text),
            known => known,
        }
    }
}

impl From<EntryKind> for String {
    fn from(kind: EntryKind) -> String {
        match kind {
            EntryKind::Other(text) => text,
            known => known.as_str().to_string(),
        }
    }
}

impl std::fmt::Display for EntryKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<str> for EntryKind {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_reads_back_from_its_name() {
        for s in RunStatus::ALL {
            let text = serde_json::to_string(s).unwrap();
            assert_eq!(text, format!("\"{}\"", s.as_str()));
            assert_eq!(serde_json::from_str::<RunStatus>(&text).unwrap(), *s);
        }
        for k in EntryKind::KNOWN {
            let text = serde_json::to_string(k).unwrap();
            assert_eq!(serde_json::from_str::<EntryKind>(&text).unwrap(), *k);
        }
        let other: EntryKind = serde_json::from_str("\"hologram\"").unwrap();
        assert_eq!(other, EntryKind::Other("hologram".into()));
        assert_eq!(serde_json::to_string(&other).unwrap(), "\"hologram\"");
        assert!(serde_json::from_str::<StopReason>("\"bored\"").is_err());
    }
}
