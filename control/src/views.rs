//! What users see of a session: `session show --json`, the API and the dashboard share it.

use serde::Serialize;

use crate::error::Result;
use crate::lifecycle::Ctx;
use crate::model::*;

#[derive(Serialize, Debug, Clone)]
pub struct RunView {
    pub id: String,
    pub kind: RunKind,
    pub status: RunStatus,
    /// The runner's name (the one that accepted it).
    pub runner: Option<String>,
    pub created_at: Millis,
    /// When a runner accepted it.
    pub accepted_at: Option<Millis>,
    pub ended_at: Option<Millis>,
    pub stop: Option<StopDirective>,
    /// When Blaise sent the stop directive.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_issued_at: Option<Millis>,
    pub plugs_can_resume: Option<bool>,
    /// How the run opened the agent's conversation: `new`, `resumed` or `loaded`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conversation: Option<Conversation>,
    pub error: Option<String>,
    /// What left the agent's network namespace, when an egress policy held it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub egress: Option<Egress>,
    /// What its agent said it used (absent: it said nothing).
    #[serde(skip_serializing_if = "Usage::is_empty")]
    pub usage: Usage,
}

#[derive(Serialize, Debug, Clone)]
pub struct PlugRecordView {
    pub plug_id: String,
    /// Whether the session's current plug chain has this plug; `false` is "owned by nothing".
    pub owned: bool,
    pub keys: Vec<String>,
    pub updated_at: Millis,
}

#[derive(Serialize, Debug, Clone)]
pub struct EnvironmentView {
    pub id: String,
    pub state: EnvironmentState,
    pub runner: Option<String>,
    pub last_error: Option<String>,
    pub teardown_attempts: u32,
    pub next_teardown_at: Option<Millis>,
}

#[derive(Serialize, Debug, Clone)]
pub struct SessionView {
    pub id: String,
    pub agent: String,
    /// Who started it (none for sessions from before people were recorded).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_by: Option<String>,
    pub state: SessionState,
    pub created_at: Millis,
    pub last_activity: Millis,
    pub open_turns: u32,
    pub expires_at: Option<Millis>,
    pub ended_at: Option<Millis>,
    pub end_reason: Option<String>,
    /// When the retention deleted its transcript, directives and reports.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pruned_at: Option<Millis>,
    pub environment: Option<EnvironmentView>,
    pub runs: Vec<RunView>,
    pub plug_records: Vec<PlugRecordView>,
    pub waiting_messages: usize,
    /// The index of the transcript's last entry (0 when it has none): what a follower asks
    /// `after` to see only what comes next.
    pub last_index: i64,
    pub permission_requests: Vec<PermissionRequest>,
    /// The current run waits for a runner: why, and when it fails if none comes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waiting_for_runner: Option<crate::lifecycle::waiting::WaitingView>,
    /// Paused with its environment gone (torn down when its runner stopped, or after a
    /// failure): the next message starts a new environment and the agent starts over; the
    /// transcript keeps what came before. See [`STARTS_FRESH`].
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub starts_fresh: bool,
    /// Where its messages come from when not from the web (a Linear agent session).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceView>,
    /// The turn the agent is on, when one is open.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turn: Option<TurnView>,
    /// What its agent said it used over all its runs: tokens by kind (a kind it never reported
    /// is absent: unknown, not zero), money by currency, and how full its context was last.
    pub usage: Usage,
    /// The budget that holds for it (its own, or its agent's), when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<f64>,
}

/// An agent with what its sessions used today (UTC).
#[derive(Serialize, Debug, Clone)]
pub struct AgentView {
    #[serde(flatten)]
    pub agent: Agent,
    pub today: Usage,
}

pub fn agent_view(ctx: &mut Ctx, agent: Agent) -> Result<AgentView> {
    let today = crate::lifecycle::usage::today_of(ctx, &agent.name)?;
    Ok(AgentView { agent, today })
}

/// Usage in words, as the CLI and the dashboard say it: `0.0184 USD of a 5.00 USD budget;
/// 2,000 tokens in, 100 out, 600 cached; context 1,501 of 200,000`; what the agent never
/// reported is left out, and a usage with nothing in it is `not reported by the agent`.
pub fn usage_text(usage: &Usage, budget: Option<f64>) -> String {
    let mut parts = spend_parts(usage, budget);
    if let (Some(used), Some(size)) = (usage.context_used, usage.context_size) {
        parts.push(format!(
            "context {} of {}",
            thousands(used),
            thousands(size)
        ));
    }
    said(parts)
}

/// What was spent over a day, in words: money and tokens (a context is a session's, not a
/// day's).
pub fn spend_text(usage: &Usage, budget: Option<f64>) -> String {
    said(spend_parts(usage, budget))
}

/// What a day's usage says: `nothing reported` when no run reported any.
pub fn day_text(usage: Option<&Usage>, budget: Option<f64>) -> String {
    match usage {
        Some(u) if !u.is_empty() => spend_text(u, budget),
        _ => "nothing reported".into(),
    }
}

fn said(parts: Vec<String>) -> String {
    if parts.is_empty() {
        "not reported by the agent".into()
    } else {
        parts.join("; ")
    }
}

/// The money (against `budget`, in the currency spent) and the tokens of `usage`.
fn spend_parts(usage: &Usage, budget: Option<f64>) -> Vec<String> {
    use crate::lifecycle::usage::money;
    let mut parts = Vec::new();
    let spent: Vec<String> = usage
        .cost
        .iter()
        .map(|(currency, amount)| money(*amount, currency))
        .collect();
    let currency = usage.spent().map(|(_, c)| c.to_owned());
    match (spent.is_empty(), budget) {
        (false, Some(b)) => parts.push(format!(
            "{} of a {} budget",
            spent.join(", "),
            money(b, currency.as_deref().unwrap_or_default()).trim_end()
        )),
        (false, None) => parts.push(spent.join(", ")),
        (true, Some(b)) => parts.push(format!("cost not reported (budget {b})")),
        (true, None) => {}
    }
    let t = &usage.tokens;
    let mut tokens = Vec::new();
    if let Some(v) = t.input {
        tokens.push(format!("{} tokens in", thousands(v)));
    }
    if let Some(v) = t.output {
        tokens.push(format!("{} out", thousands(v)));
    }
    let cached = match (t.cached_read, t.cached_write) {
        (None, None) => None,
        (r, w) => Some(r.unwrap_or(0) + w.unwrap_or(0)),
    };
    if let Some(v) = cached {
        tokens.push(format!("{} cached", thousands(v)));
    }
    if let Some(v) = t.thought {
        tokens.push(format!("{} thinking", thousands(v)));
    }
    if tokens.is_empty()
        && let Some(v) = t.total
    {
        tokens.push(format!("{} tokens", thousands(v)));
    }
    if !tokens.is_empty() {
        parts.push(tokens.join(", "));
    }
    parts
}

/// `1234567` as people read it: `1,234,567`.
fn thousands(v: u64) -> String {
    let digits = v.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The open turn of a session: since when the agent works on it, when it last produced
/// anything, and whether Blaise cancelled it for its silence.
#[derive(Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
pub struct TurnView {
    /// The message it answers.
    pub message_id: Option<String>,
    pub started_at: Millis,
    pub last_output_at: Option<Millis>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub silence_cancelled_at: Option<Millis>,
    /// Messages waiting behind it in the same run.
    #[serde(default)]
    pub queued: u32,
}

impl TurnView {
    /// `working for 4m, last output 3m ago` (or `no output yet`), as the CLI and the
    /// dashboard say it.
    pub fn describe(&self, now: Millis) -> String {
        let ago = |t: Millis| crate::duration::Human(crate::duration::rounded((now - t).max(0)));
        let output = match self.last_output_at {
            Some(t) if now - t < 1_000 => "output now".to_string(),
            Some(t) => format!("last output {} ago", ago(t)),
            None => "no output yet".to_string(),
        };
        let mut text = format!("working for {}, {output}", ago(self.started_at));
        if self.queued > 0 {
            text.push_str(&format!(", {} more waiting", self.queued));
        }
        if self.silence_cancelled_at.is_some() {
            text.push_str("; cancelled for its silence");
        }
        text
    }
}

/// A session's message source (`crate::sources`), and where its conversation lives there.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct SourceView {
    /// `linear`.
    pub kind: String,
    /// The connection it came through (`linear:coder`).
    pub name: String,
    /// The source's id of the conversation (Linear's agent session id).
    pub thread: String,
    /// What it is about, as the source names it (`ENG-123`), its title, and its address there.
    pub label: Option<String>,
    pub title: Option<String>,
    pub url: Option<String>,
}

fn source_view(thread: crate::model::SourceThread) -> SourceView {
    let issue = &thread.meta["issue"];
    let field = |k: &str| issue[k].as_str().map(str::to_string);
    SourceView {
        kind: thread
            .source
            .split_once(':')
            .map_or(thread.source.as_str(), |(k, _)| k)
            .to_string(),
        label: field("identifier"),
        title: field("title"),
        url: field("url").filter(|u| u.starts_with("https://")),
        name: thread.source,
        thread: thread.thread,
    }
}

/// What `starts_fresh` means, as the CLI and the dashboard say it.
pub const STARTS_FRESH: &str = "its environment is gone: the next message starts a new one, and the agent starts over (the transcript keeps what came before)";

#[derive(Serialize, Debug, Clone)]
pub struct SessionSummary {
    pub id: String,
    pub agent: String,
    /// Who started it (none for sessions from before people were recorded).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_by: Option<String>,
    pub state: SessionState,
    pub environment_state: Option<EnvironmentState>,
    pub created_at: Millis,
    pub last_activity: Millis,
    /// Permission requests of its agent that wait for a person to answer them.
    pub pending_permission_requests: usize,
}

pub use blaise_protocol::text::bytes;

fn runner_name(ctx: &mut Ctx, id: Option<&str>) -> Result<Option<String>> {
    Ok(match id {
        Some(id) => ctx.tx.runner(id)?.map(|r| r.name),
        None => None,
    })
}

pub fn environment_view(ctx: &mut Ctx, e: &Environment) -> Result<EnvironmentView> {
    Ok(EnvironmentView {
        id: e.id.clone(),
        state: e.state,
        runner: runner_name(ctx, e.runner_id.as_deref())?,
        last_error: e.last_error.clone(),
        teardown_attempts: e.teardown_attempts,
        next_teardown_at: e.next_teardown_at,
    })
}

pub fn session_view(ctx: &mut Ctx, id: &str) -> Result<SessionView> {
    let session = ctx.session(id)?;
    let environment = match ctx.session_environment(&session)? {
        Some(e) => Some(environment_view(ctx, &e)?),
        None => None,
    };
    let mut runs = Vec::new();
    for run in ctx.tx.runs_of_session(id)? {
        runs.push(RunView {
            runner: runner_name(ctx, run.runner_id.as_deref())?,
            id: run.id,
            kind: run.kind,
            status: run.status,
            created_at: run.created_at,
            accepted_at: run.accepted_at,
            ended_at: run.ended_at,
            stop: run.stop,
            stop_issued_at: run.stop_issued_at,
            plugs_can_resume: run.plugs_can_resume,
            conversation: run.conversation,
            error: run.error,
            egress: run.egress,
            usage: run.usage,
        });
    }
    let chain = session.plug_chain.clone().unwrap_or_default();
    let plug_records = ctx
        .tx
        .plug_records(id)?
        .into_iter()
        .map(|r| PlugRecordView {
            owned: chain.contains(&r.plug_id),
            keys: r.entries.keys().cloned().collect(),
            plug_id: r.plug_id,
            updated_at: r.updated_at,
        })
        .collect();
    let starts_fresh = session.state == SessionState::Paused
        && environment
            .as_ref()
            .is_some_and(|e| e.state == EnvironmentState::TornDown);
    let turn = match (session.open_turns, &session.current_run_id) {
        (0, _) | (_, None) => None,
        (open, Some(run_id)) => Some(TurnView {
            message_id: ctx
                .tx
                .messages(id, MessageState::Delivered)?
                .into_iter()
                .find(|m| m.run_id.as_deref() == Some(run_id))
                .map(|m| m.id),
            started_at: session.turn_started_at.unwrap_or(session.last_activity),
            last_output_at: session.last_output_at,
            silence_cancelled_at: session.silence_cancelled_at,
            queued: open - 1,
        }),
    };
    let agent = ctx.agent(&session.agent.clone())?;
    let budget = crate::lifecycle::usage::budget_of(&session, &agent);
    Ok(SessionView {
        turn,
        budget,
        usage: session.usage.clone(),
        source: ctx.tx.source_thread_of_session(id)?.map(source_view),
        starts_fresh,
        waiting_for_runner: crate::lifecycle::waiting::view(ctx, &session)?,
        waiting_messages: ctx.tx.messages(id, MessageState::Waiting)?.len(),
        last_index: ctx.tx.last_transcript_index(id)?,
        permission_requests: ctx.tx.permissions(id)?,
        id: session.id,
        agent: session.agent,
        started_by: session.started_by,
        state: session.state,
        created_at: session.created_at,
        last_activity: session.last_activity,
        open_turns: session.open_turns,
        expires_at: session.expires_at,
        ended_at: session.ended_at,
        end_reason: session.end_reason,
        pruned_at: session.pruned_at,
        environment,
        runs,
        plug_records,
    })
}

/// A page of the sessions list, newest first, and the cursor of the next page (`None`: this
/// was the last); see [`crate::session_search`].
pub fn session_summaries(
    ctx: &mut Ctx,
    search: &crate::session_search::Search,
) -> Result<(Vec<SessionSummary>, Option<String>)> {
    let pending = pending_by_session(ctx)?;
    let waiting = match search.waiting {
        Some(crate::session_search::Waiting::ForRunner) => waiting_sessions(ctx)?,
        _ => Vec::new(),
    };
    let for_runner: std::collections::HashSet<&str> =
        waiting.iter().map(|(id, _)| id.as_str()).collect();
    let waits = crate::session_search::Waits {
        pending: &pending,
        for_runner: &for_runner,
    };
    let (sessions, next) = crate::session_search::find(ctx, search, &waits)?;
    let mut out = Vec::new();
    for s in sessions {
        let environment_state = ctx.session_environment(&s)?.map(|e| e.state);
        out.push(SessionSummary {
            pending_permission_requests: pending.get(&s.id).map_or(0, Vec::len),
            id: s.id,
            agent: s.agent,
            started_by: s.started_by,
            state: s.state,
            environment_state,
            created_at: s.created_at,
            last_activity: s.last_activity,
        });
    }
    Ok((out, next))
}

/// A page cursor as [`session_summaries`] gives it (`CREATED_AT.ID`), read back.
pub fn page_cursor(text: &str) -> Option<(Millis, String)> {
    let (at, id) = text.split_once('.')?;
    let at: Millis = at.parse().ok()?;
    crate::names::is_id(&crate::names::SESSION, id).then(|| (at, id.to_owned()))
}

/// What waits for a person: the pending permission requests of each session, the oldest first
/// (read from the requests that wait, not from every session).
pub fn pending_by_session(
    ctx: &mut Ctx,
) -> Result<std::collections::BTreeMap<String, Vec<PermissionRequest>>> {
    let mut by_session = std::collections::BTreeMap::<String, Vec<PermissionRequest>>::new();
    for p in ctx.tx.pending_permissions()? {
        by_session.entry(p.session_id.clone()).or_default().push(p);
    }
    Ok(by_session)
}

/// A plug record no plug of its session's current chain owns: what a removed stateful plug left.
#[derive(Serialize, Debug, Clone)]
pub struct UnownedRecord {
    pub session_id: String,
    pub plug_id: String,
    pub updated_at: Millis,
}

pub fn unowned_records(ctx: &mut Ctx) -> Result<Vec<UnownedRecord>> {
    let mut out = Vec::new();
    let mut chain: Option<(String, Vec<String>)> = None;
    for r in ctx.tx.all_plug_records()? {
        if chain.as_ref().is_none_or(|(id, _)| *id != r.session_id) {
            let plugs = ctx.session(&r.session_id)?.plug_chain.unwrap_or_default();
            chain = Some((r.session_id.clone(), plugs));
        }
        if chain
            .as_ref()
            .is_some_and(|(_, plugs)| !plugs.contains(&r.plug_id))
        {
            out.push(UnownedRecord {
                session_id: r.session_id,
                plug_id: r.plug_id,
                updated_at: r.updated_at,
            });
        }
    }
    Ok(out)
}

pub use crate::lifecycle::waiting::waiting_sessions;

#[derive(Serialize)]
pub struct RunnerView {
    pub name: String,
    pub created_at: Millis,
    pub revoked_at: Option<Millis>,
    /// The agents its token may serve (`null`: any).
    pub agents: Option<Vec<String>>,
    /// The labels its instances may claim (`null`: any).
    pub labels: Option<Vec<String>>,
    /// Only in the answer to `add` and `token`: shown once, never stored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// Its processes seen in the last week, the latest first (only in `list`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instances: Option<Vec<InstanceView>>,
    /// What its runs used today (UTC; only in `list`): empty when nothing was reported.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub today: Option<Usage>,
}

/// One process of a runner, as it last said hello.
#[derive(Serialize)]
pub struct InstanceView {
    pub instance: String,
    /// Seen within the freshness window: offers go to it.
    pub connected: bool,
    pub last_seen: Millis,
    pub agents: Vec<String>,
    pub labels: Vec<String>,
    /// Most runs it takes at once (`null`: no limit).
    pub capacity: Option<u32>,
    /// Runs it accepted and has not finished.
    pub live_runs: usize,
}

impl RunnerView {
    pub fn of(r: Runner) -> RunnerView {
        RunnerView {
            name: r.name,
            created_at: r.created_at,
            revoked_at: r.revoked_at,
            agents: r.agents,
            labels: r.labels,
            token: None,
            instances: None,
            today: None,
        }
    }
}

/// Every runner, with its instances seen in the last week (the latest first).
pub fn runners(ctx: &mut Ctx) -> Result<Vec<RunnerView>> {
    let fresh = ctx.now.saturating_sub(ctx.cfg.connection_fresh_ms());
    let week = ctx
        .now
        .saturating_sub(crate::clock::FORGET_INSTANCES_AFTER_MS);
    let mut connections = ctx.tx.connections(week)?;
    connections.sort_by_key(|c| std::cmp::Reverse(c.last_seen));
    let today = day_of(ctx.now);
    let mut used_today = ctx.tx.day_usages(Spender::Runner, &today)?;
    let mut views = Vec::new();
    for r in ctx.tx.runners()? {
        let mut instances = Vec::new();
        for c in connections.iter().filter(|c| c.runner_id == r.id) {
            instances.push(InstanceView {
                instance: c.instance.clone(),
                connected: c.last_seen >= fresh,
                last_seen: c.last_seen,
                agents: c.agents.clone(),
                labels: c.labels.clone(),
                capacity: c.capacity,
                live_runs: ctx.tx.live_runs_of_instance(&r.id, &c.instance)?,
            });
        }
        let used = used_today
            .iter_mut()
            .find(|u| u.of == r.id && u.day == today)
            .map(|u| std::mem::take(&mut u.usage));
        let mut v = RunnerView::of(r);
        v.instances = Some(instances);
        v.today = Some(used.unwrap_or_default());
        views.push(v);
    }
    Ok(views)
}
