//! The domain: agents, runners, sessions, runs, environments and what hangs off them.
//!
//! Every time is milliseconds since the Unix epoch ([`Millis`]); every duration is milliseconds.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

mod people;
mod webhooks;
pub use people::*;
pub use webhooks::*;

/// Milliseconds since the Unix epoch (for instants) or milliseconds (for durations).
pub type Millis = i64;

/// The wall clock, in [`Millis`].
pub fn now() -> Millis {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as Millis)
        .unwrap_or(0)
}

pub use blaise_protocol::{
    Conversation, DirectiveBody, EgressCounts as Egress, EgressReached, EntryKind, EnvironmentLeft,
    FailedPhase, IdlePolicy, RunKind, RunStatus, SessionState, StopDirective, StopReason, Tokens,
    TurnOutcome, UsageReport, string_enum,
};

/// The settings of an agent: the only place where timing lives.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct AgentSettings {
    pub inactivity_ms: Millis,
    pub idle_policy: IdlePolicy,
    pub paused_lifetime_ms: Millis,
    pub timeout_ms: Millis,
    /// Labels a runner must have (all of them) to take this agent's runs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requires_labels: Vec<String>,
    /// How long a paused session's agent may stay kept, frozen, by the runner
    /// instance that paused it (hot resume); 0: every pause is cold.
    #[serde(default)]
    pub hot_for_ms: Millis,
    /// How many of the agent's agents each runner instance that serves it
    /// keeps started ahead, so that a new session need not wait for one
    /// (warm starts); 0: none.
    #[serde(default)]
    pub warm_agents: u32,
    /// How long the agent may take to answer `initialize`, and then to open
    /// its conversation; past it the run stops the agent and pauses.
    #[serde(default = "defaults::start_timeout_ms")]
    pub start_timeout_ms: Millis,
    /// How long a cancelled turn may go on before the run stops the agent.
    #[serde(default = "defaults::cancel_grace_ms")]
    pub cancel_grace_ms: Millis,
    /// How long a turn may go without any output (a message, a thought, a
    /// tool call, a permission request) before Blaise cancels it.
    #[serde(default = "defaults::silent_turn_ms")]
    pub silent_turn_ms: Millis,
    /// How many turns may fail in a row (the agent answered with an error, or
    /// died during them) before Blaise stops the run: the session pauses, its
    /// environment kept, and the next message starts the agent again.
    #[serde(default = "defaults::max_failed_turns")]
    pub max_failed_turns: u32,
    /// What a session may spend (in the currency the agent reports) before
    /// Blaise stops it; `None`: no budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_budget: Option<f64>,
    /// What the agent's sessions may spend in a day (UTC); past it, new
    /// turns are refused until the next day.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub daily_budget: Option<f64>,
}

/// The defaults of the settings added after agents were first stored.
mod defaults {
    use super::Millis;
    pub fn start_timeout_ms() -> Millis {
        blaise_protocol::DEFAULT_START_TIMEOUT_MS as Millis
    }
    pub fn cancel_grace_ms() -> Millis {
        blaise_protocol::DEFAULT_CANCEL_GRACE_MS as Millis
    }
    pub fn silent_turn_ms() -> Millis {
        30 * 60_000
    }
    pub fn max_failed_turns() -> u32 {
        3
    }
}

impl AgentSettings {
    /// The settings as a runner reads them.
    pub fn wire(&self) -> blaise_protocol::AgentSettings {
        let ms = |v: Millis| v.max(0) as u64;
        blaise_protocol::AgentSettings {
            inactivity_ms: ms(self.inactivity_ms),
            idle_policy: self.idle_policy,
            paused_lifetime_ms: ms(self.paused_lifetime_ms),
            timeout_ms: ms(self.timeout_ms),
            requires_labels: self.requires_labels.clone(),
            hot_for_ms: ms(self.hot_for_ms),
            warm_agents: self.warm_agents,
            start_timeout_ms: ms(self.start_timeout_ms),
            cancel_grace_ms: ms(self.cancel_grace_ms),
        }
    }
}

impl Default for AgentSettings {
    fn default() -> Self {
        AgentSettings {
            inactivity_ms: 10 * 60_000,
            idle_policy: IdlePolicy::Pause,
            paused_lifetime_ms: 24 * 3_600_000,
            timeout_ms: 2 * 3_600_000,
            requires_labels: Vec::new(),
            hot_for_ms: 0,
            warm_agents: 0,
            start_timeout_ms: defaults::start_timeout_ms(),
            cancel_grace_ms: defaults::cancel_grace_ms(),
            silent_turn_ms: defaults::silent_turn_ms(),
            max_failed_turns: defaults::max_failed_turns(),
            session_budget: None,
            daily_budget: None,
        }
    }
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Agent {
    pub name: String,
    pub settings: AgentSettings,
    /// A disabled (archived) agent gets no new runs except teardown runs.
    pub disabled: bool,
    pub updated_at: Millis,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Runner {
    pub id: String,
    pub name: String,
    /// sha256 of the token, hex. The token itself is never stored.
    pub token_hash: String,
    pub created_at: Millis,
    pub revoked_at: Option<Millis>,
    /// The agents its token may serve; `None`: any (a runner added without `--agents`, as every
    /// runner added before tokens had a scope).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agents: Option<Vec<String>>,
    /// The labels its instances may claim; `None`: any. Labels route work to a runner; a scope
    /// makes them a grant, so a token copied from one machine cannot claim another's work.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<Vec<String>>,
}

impl Runner {
    pub fn revoked(&self) -> bool {
        self.revoked_at.is_some()
    }

    /// Whether its token may serve `agent`.
    pub fn may_serve(&self, agent: &str) -> bool {
        self.agents
            .as_ref()
            .is_none_or(|a| a.iter().any(|x| x == agent))
    }

    /// Whether its instances may claim `label`.
    pub fn may_claim(&self, label: &str) -> bool {
        self.labels
            .as_ref()
            .is_none_or(|l| l.iter().any(|x| x == label))
    }

    /// Whether `connection`, one of its instances, may take the runs of `agent`, which requires
    /// `required` labels: the instance says it serves the agent and has the labels, and the
    /// token's scope allows both (checked again here, since the scope may have narrowed since
    /// the instance connected).
    pub fn may_take_for(&self, connection: &Connection, agent: &str, required: &[String]) -> bool {
        connection.agents.iter().any(|a| a == agent)
            && self.may_serve(agent)
            && required
                .iter()
                .all(|l| connection.labels.contains(l) && self.may_claim(l))
    }
}

/// One process of a runner that connected with a runner's token. Instances sharing a token are
/// one runner.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Connection {
    pub runner_id: String,
    pub instance: String,
    pub agents: Vec<String>,
    pub last_seen: Millis,
    /// Most runs this instance takes at once (`None`: it did not say, no limit).
    #[serde(default)]
    pub capacity: Option<u32>,
    /// What this instance offers that an agent may require (`gpu`, `region-eu`, …).
    #[serde(default)]
    pub labels: Vec<String>,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Session {
    pub id: String,
    pub agent: String,
    pub state: SessionState,
    pub created_at: Millis,
    /// Last time anything happened: a message, a report from the run.
    pub last_activity: Millis,
    /// Prompts sent to the run whose response has not come back. Never idle while > 0.
    pub open_turns: u32,
    /// The current run is serving turns (started, not stopped): the idle clock runs.
    pub run_serving: bool,
    pub environment_id: Option<String>,
    /// The run that has not finished, if any (at most one at a time).
    pub current_run_id: Option<String>,
    pub paused_at: Option<Millis>,
    /// Fixed when the session pauses; later policy changes do not move it.
    pub expires_at: Option<Millis>,
    pub ended_at: Option<Millis>,
    pub end_reason: Option<String>,
    /// When the retention pruned the session's transcript, directives and
    /// reports (the session itself is kept).
    #[serde(default)]
    pub pruned_at: Option<Millis>,
    /// Runs that failed in a row without the agent starting; three and Blaise gives up.
    pub consecutive_failures: u32,
    /// A fresh start run follows once the current environment is torn down.
    pub recreate_environment: bool,
    /// Plug ids of the chain the latest run reported.
    pub plug_chain: Option<Vec<String>>,
    /// The ACP session the agent created, for `session/load` on resume.
    pub acp_session_id: Option<String>,
    /// Turns that failed in a row (an error answer, an agent that died in
    /// one); an answered turn starts the count again. At the agent's
    /// `max_failed_turns` Blaise stops the run (reason `failures`).
    #[serde(default)]
    pub failed_turns: u32,
    /// While a turn is open: when it began (its prompt was sent, or the turn
    /// before it ended) and when the agent last produced anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_started_at: Option<Millis>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_output_at: Option<Millis>,
    /// When Blaise cancelled the open turn for its silence (once a turn).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub silence_cancelled_at: Option<Millis>,
    /// Environments the session left behind, not torn down yet (it moved to a
    /// new one while they were orphaned): each gets teardown runs of its own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left_environments: Vec<String>,
    /// What its agent said it used, over all its runs.
    #[serde(default, skip_serializing_if = "Usage::is_empty")]
    pub usage: Usage,
    /// Its own budget, set when an operator raised it
    /// (`blaise session budget`); else the agent's `session_budget` holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<f64>,
    /// Who started it (see [`Actor::who`]); sessions from before people were recorded say none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_by: Option<String>,
}

impl Session {
    /// A session just opened for `agent`: active, no run, no environment yet.
    pub fn new(id: String, agent: &str, now: Millis) -> Session {
        Session {
            id,
            agent: agent.to_owned(),
            state: SessionState::Active,
            created_at: now,
            last_activity: now,
            open_turns: 0,
            run_serving: false,
            environment_id: None,
            current_run_id: None,
            paused_at: None,
            expires_at: None,
            ended_at: None,
            end_reason: None,
            pruned_at: None,
            consecutive_failures: 0,
            recreate_environment: false,
            plug_chain: None,
            acp_session_id: None,
            failed_turns: 0,
            turn_started_at: None,
            last_output_at: None,
            silence_cancelled_at: None,
            left_environments: Vec::new(),
            usage: Usage::default(),
            budget: None,
            started_by: None,
        }
    }
}

/// A person logged in to the dashboard: their cookie's id (kept hashed), who they are, when the
/// login ends, and the token every form they send must carry (CSRF).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Login {
    /// sha256 of the cookie's id, hex. The id itself is never stored.
    pub id_hash: String,
    /// Who logged in: `admin` (the admin token), a person's name (their token), or the email an
    /// identity provider vouched for.
    pub who: String,
    /// What they may do (logins from before roles were the admin's).
    #[serde(default = "admin_role")]
    pub role: Role,
    /// How they proved who they are; with an identity provider, their role is worked out again
    /// from the server's configuration on every request (`groups`: what the provider said).
    #[serde(default)]
    pub method: LoginMethod,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<String>,
    pub created_at: Millis,
    pub expires_at: Millis,
    /// Sent in every form of the pages this login sees, and checked on every form it posts.
    pub csrf: String,
}

fn admin_role() -> Role {
    Role::Admin
}

/// Who spends: the sessions of an agent (its daily budget holds them), or the runs of a
/// runner (so that an operator sees what each machine's work costs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spender {
    Agent,
    Runner,
}

/// What an agent's sessions, or a runner's runs, used in one day (UTC, `YYYY-MM-DD`).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
pub struct DayUsage {
    /// The agent's name, or the runner's id. Rows from before runners had usage call it `agent`.
    #[serde(alias = "agent")]
    pub of: String,
    pub day: String,
    #[serde(default)]
    pub usage: Usage,
}

impl DayUsage {
    pub fn empty(of: &str, day: &str) -> DayUsage {
        DayUsage {
            of: of.to_string(),
            day: day.to_string(),
            usage: Usage::default(),
        }
    }
}

/// The UTC day of `at`, as `YYYY-MM-DD` (days of usage and of daily budgets).
pub fn day_of(at: Millis) -> String {
    let days = at.div_euclid(86_400_000);
    // Civil from days (Howard Hinnant's algorithm): no calendar crate for a date.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// What an agent said it used (a run's, a session's, an agent's day): tokens by kind, money by
/// currency, and how full its context was last. What it never said is absent: unknown, not zero.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
pub struct Usage {
    #[serde(default, skip_serializing_if = "Tokens::is_empty")]
    pub tokens: Tokens,
    /// Spent, by currency (`USD`, or an agent's `credits`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub cost: BTreeMap<String, f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_used: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_size: Option<u64>,
}

impl Usage {
    pub fn is_empty(&self) -> bool {
        *self == Usage::default()
    }

    /// Adds a run's report: tokens and cost add up, the context is the latest.
    pub fn add(&mut self, report: &UsageReport) {
        self.tokens.add(&report.tokens);
        if let Some(cost) = &report.cost
            && cost.amount.is_finite()
            && cost.amount > 0.0
        {
            *self.cost.entry(cost.currency.clone()).or_default() += cost.amount;
        }
        self.context_used = report.context_used.or(self.context_used);
        self.context_size = report.context_size.or(self.context_size);
    }

    /// What was spent, in the currency most was spent in (a budget is in the
    /// currency the agent reports, and an agent reports one): the amount and the currency.
    pub fn spent(&self) -> Option<(f64, &str)> {
        self.cost
            .iter()
            .map(|(currency, amount)| (*amount, currency.as_str()))
            .max_by(|a, b| a.0.total_cmp(&b.0))
    }
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Run {
    pub id: String,
    pub session_id: String,
    pub environment_id: String,
    pub kind: RunKind,
    pub status: RunStatus,
    /// The runner that accepted the run.
    pub runner_id: Option<String>,
    pub instance: Option<String>,
    pub created_at: Millis,
    pub accepted_at: Option<Millis>,
    /// First request from the run itself (not the accept).
    pub first_contact_at: Option<Millis>,
    pub last_contact_at: Option<Millis>,
    pub started_at: Option<Millis>,
    pub ended_at: Option<Millis>,
    pub stop: Option<StopDirective>,
    pub stop_issued_at: Option<Millis>,
    pub plugs_can_resume: Option<bool>,
    pub plugs_that_cannot_resume: Vec<String>,
    /// The run said every plug keeps processes across a pause and it can hand
    /// its agent to a keeper (a hot pause may be asked of it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keeps_processes: bool,
    pub error: Option<String>,
    pub acp_session_id: Option<String>,
    /// The environment was recreated for this run (a notice is in the transcript).
    pub fresh_environment: bool,
    /// How the run opened the agent's conversation (from its `started` report).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation: Option<Conversation>,
    /// Since when no connected runner could take this offered run (the clock keeps it; a start
    /// run fails after `runner_wait_ms` of it).
    #[serde(default)]
    pub unmatched_since: Option<Millis>,
    /// The instance (`runner_id/instance`) this offered run is shown to alone until
    /// `reserved_until`, so that runners do not all race to accept one run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserved_for: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserved_until: Option<Millis>,
    /// What left the agent's network namespace (its `egress` report), when
    /// an egress policy held it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub egress: Option<Egress>,
    /// What its agent said it used.
    #[serde(default, skip_serializing_if = "Usage::is_empty")]
    pub usage: Usage,
}

string_enum!(
    EnvironmentState {
        Creating => "creating",
        Active => "active",
        Paused => "paused",
        TearingDown => "tearing_down",
        TornDown => "torn_down",
        Orphaned => "orphaned",
    }
);

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Environment {
    pub id: String,
    pub session_id: String,
    /// The runner whose plugs created it: resume and teardown runs go there.
    pub runner_id: Option<String>,
    pub state: EnvironmentState,
    pub created_at: Millis,
    pub updated_at: Millis,
    pub last_error: Option<String>,
    pub teardown_attempts: u32,
    pub next_teardown_at: Option<Millis>,
    /// While paused: the runner instance keeping the agent, frozen (hot
    /// resume), and until when it may.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept_agent: Option<KeptAgent>,
    /// The session's plug state as it stood for this environment when the
    /// session moved on to another one: a teardown run of this environment
    /// reads and writes it here, never the state of the session's current
    /// environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plug_state: Option<Vec<PlugRecord>>,
}

/// Where a paused session's agent is kept between runs.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct KeptAgent {
    pub runner_id: String,
    pub instance: String,
    pub until: Millis,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct TranscriptEntry {
    /// Position in the session's transcript, from 1.
    pub index: i64,
    pub session_id: String,
    pub run_id: Option<String>,
    /// The run's own sequence number (entries Blaise writes have none).
    pub seq: Option<i64>,
    pub kind: String,
    pub content: serde_json::Value,
    pub at: Millis,
}

string_enum!(
    MessageState { Waiting => "waiting", Delivered => "delivered", Answered => "answered" }
);

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Message {
    pub id: String,
    pub session_id: String,
    pub text: String,
    pub state: MessageState,
    /// The run it was last delivered to (kept when it goes back to waiting).
    pub run_id: Option<String>,
    pub created_at: Millis,
    /// How many runs it was delivered to: more than one means a run ended
    /// before answering it and it was sent again.
    #[serde(default)]
    pub deliveries: u32,
    /// How its turn ended, once it has (`answered` for messages answered
    /// before turns had outcomes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<TurnOutcome>,
    /// Why its turn failed or was cancelled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome_reason: Option<String>,
    /// The transcript's last entry when its turn ended: what a message source
    /// tells as this turn's answer ends there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at_index: Option<i64>,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Directive {
    pub run_id: String,
    pub seq: i64,
    #[serde(flatten)]
    pub body: DirectiveBody,
    pub created_at: Millis,
    pub delivered_at: Option<Millis>,
}

impl Directive {
    /// The directive as a run reads it.
    pub fn wire(self) -> blaise_protocol::Directive {
        blaise_protocol::Directive {
            seq: self.seq.max(0) as u64,
            body: self.body,
            run_id: self.run_id,
            created_at: self.created_at,
            delivered_at: self.delivered_at,
        }
    }
}

/// A plug's persisted state: opaque entries by key, scoped to (session, plug id).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct PlugRecord {
    pub session_id: String,
    pub plug_id: String,
    pub entries: BTreeMap<String, String>,
    pub updated_at: Millis,
}

string_enum!(
    /// `cancelled`: its turn ended (or its run) before anyone answered; nothing waits for an
    /// answer any more ([`PermissionRequest::ended`] says why).
    PermissionState { Pending => "pending", Answered => "answered", Cancelled => "cancelled" }
);

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct PermissionRequest {
    pub session_id: String,
    pub run_id: String,
    pub request_id: String,
    /// The message whose turn asked (runners before turns ended requests said none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    /// What the agent asks (tool call, options), as the runner sent it.
    pub request: serde_json::Value,
    pub state: PermissionState,
    pub answer: Option<String>,
    /// Who answered (`admin`, a source such as `linear:coder`), through what (`dashboard`,
    /// `cli`, `api`, `linear`), and when.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered_via: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered_at: Option<Millis>,
    pub created_at: Millis,
    /// Why a cancelled request can no longer be answered ("the turn was
    /// cancelled", "the turn ended: answered", "run … ended"), and when.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<Millis>,
}

impl PermissionRequest {
    /// What the agent asks to do, in its words: its tool call's title.
    pub fn asks(&self) -> &str {
        self.request["tool_call"]["title"]
            .as_str()
            .filter(|t| !t.trim().is_empty())
            .unwrap_or("a tool call")
    }
}

/// A conversation of a message source (a Linear agent session: `control/src/sources`) and the
/// Blaise session it is. What the source has been told is kept here, so that a restart of Blaise
/// neither loses nor repeats it: `delivered` is the last transcript entry answered there, `outbox`
/// the replies that wait to go out (a refusal, an acknowledgement), in order.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct SourceThread {
    /// Which source, and which of its connections (`linear:<app>`).
    pub source: String,
    /// The source's own id of the conversation (Linear's agent session id).
    pub thread: String,
    /// `None` while no session was opened for it (a conversation Blaise refused).
    pub session_id: Option<String>,
    /// What the source needs to answer there and to link back (the issue, its URL).
    pub meta: serde_json::Value,
    /// The index of the last transcript entry the source was told of.
    pub delivered: i64,
    pub outbox: Vec<serde_json::Value>,
    /// Failed attempts in a row to tell the source; the next is not before `retry_at`.
    pub attempts: u32,
    pub retry_at: Option<Millis>,
    pub created_at: Millis,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_day_is_the_utc_date() {
        for (at, day) in [
            (0, "1970-01-01"),
            (86_399_999, "1970-01-01"),
            (86_400_000, "1970-01-02"),
            (951_782_400_000, "2000-02-29"),
            (1_796_515_199_999, "2026-12-05"),
            (1_796_515_200_000, "2026-12-06"),
            (-1, "1969-12-31"),
        ] {
            assert_eq!(day_of(at), day, "{at}");
        }
    }

    #[test]
    fn usage_adds_up_and_what_was_never_said_stays_unknown() {
        let mut usage = Usage::default();
        let report = |input: Option<u64>, cost: Option<f64>, context: Option<u64>| UsageReport {
            tokens: Tokens {
                input,
                ..Tokens::default()
            },
            cost: cost.map(|amount| blaise_protocol::Cost {
                amount,
                currency: "USD".into(),
            }),
            context_used: context,
            ..UsageReport::default()
        };
        usage.add(&report(None, Some(0.5), Some(100)));
        usage.add(&report(Some(20), Some(0.25), None));
        usage.add(&report(Some(5), Some(f64::NAN), Some(300)));
        assert_eq!(usage.tokens.input, Some(25));
        assert_eq!(usage.tokens.output, None, "never said: unknown");
        assert_eq!(usage.cost.get("USD"), Some(&0.75));
        assert_eq!(usage.context_used, Some(300));
        assert_eq!(usage.spent(), Some((0.75, "USD")));
    }
}
