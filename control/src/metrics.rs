//! `GET /metrics`: what an operator scrapes and alerts on, in the Prometheus exposition format
//! (OpenMetrics text). Counters and histograms are this process's, added to as transactions
//! commit (a transaction run again after a conflict counts once); gauges are read from the store
//! at each scrape, so every instance sharing a PostgreSQL store shows the same totals. Every name
//! is in `docs/metrics.md`, with the alert rules to start from.

use std::sync::{LazyLock, Mutex};
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

use crate::model::{Millis, RunStatus};
use crate::store::{Census, Event};

/// The content type Prometheus asks for and is given.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct State {
    state: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Status {
    status: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Transition {
    from: String,
    to: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Kind {
    kind: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct AgentCurrency {
    agent: String,
    currency: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Agent {
    agent: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RunnerCurrency {
    runner: String,
    currency: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct AgentKind {
    agent: String,
    kind: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RunEnd {
    kind: String,
    status: String,
}

type Seconds = Gauge<f64, std::sync::atomic::AtomicU64>;

/// Every metric of this process, registered once.
pub struct Metrics {
    registry: Registry,
    session_transitions: Family<Transition, Counter>,
    runs_offered: Family<Kind, Counter>,
    runs_ended: Family<RunEnd, Counter>,
    run_wait: Histogram,
    write_seconds: Histogram,
    store_conflicts: Counter,
    environments_orphaned: Counter,
    reports: Family<Kind, Counter>,
    transcript_entries: Counter,
    clock_ticks: Counter,
    tick_seconds: Histogram,
    agent_cost: Family<AgentCurrency, Counter<f64, std::sync::atomic::AtomicU64>>,
    agent_tokens: Family<AgentKind, Counter>,
    runner_cost: Family<RunnerCurrency, Counter<f64, std::sync::atomic::AtomicU64>>,
    // Read from the store at each scrape.
    sessions: Family<State, Gauge>,
    environments: Family<State, Gauge>,
    runs_live: Family<Status, Gauge>,
    permission_requests_pending: Family<Agent, Gauge>,
    oldest_waiting: Seconds,
    instances_connected: Gauge,
    clock_held: Gauge,
    /// A scrape sets the gauges and encodes them as one (two at once would mix their reads).
    scrape: Mutex<()>,
}

pub static METRICS: LazyLock<Metrics> = LazyLock::new(Metrics::new);

impl Metrics {
    fn new() -> Metrics {
        let mut r = Registry::with_prefix("blaise");
        let session_transitions = Family::<Transition, Counter>::default();
        r.register(
            "session_transitions",
            "Sessions that entered a state (`from` is `new` for a session just opened)",
            session_transitions.clone(),
        );
        let runs_offered = Family::<Kind, Counter>::default();
        r.register(
            "runs_offered",
            "Runs offered to runners, by kind (start, resume, teardown)",
            runs_offered.clone(),
        );
        let runs_ended = Family::<RunEnd, Counter>::default();
        r.register(
            "runs_ended",
            "Runs that finished, by kind and final status",
            runs_ended.clone(),
        );
        let run_wait = Histogram::new(exponential_buckets(0.05, 2.0, 14));
        r.register(
            "run_wait_for_runner_seconds",
            "From a run's offer to a runner accepting it",
            run_wait.clone(),
        );
        let write_seconds = Histogram::new(exponential_buckets(0.0001, 2.0, 16));
        r.register(
            "store_write_seconds",
            "A transaction that changes state (a transition, a report), from its start to its commit",
            write_seconds.clone(),
        );
        let store_conflicts = Counter::default();
        r.register(
            "store_conflicts",
            "Transactions run again after a conflict with another (PostgreSQL; SQLite never conflicts)",
            store_conflicts.clone(),
        );
        let agent_cost =
            Family::<AgentCurrency, Counter<f64, std::sync::atomic::AtomicU64>>::default();
        r.register(
            "agent_cost",
            "What agents said their sessions spent, by agent and currency (as the agent reports it)",
            agent_cost.clone(),
        );
        let agent_tokens = Family::<AgentKind, Counter>::default();
        r.register(
            "agent_tokens",
            "Tokens agents said their sessions used, by agent and kind (input, output, cached_read, cached_write, thought, total)",
            agent_tokens.clone(),
        );
        let runner_cost =
            Family::<RunnerCurrency, Counter<f64, std::sync::atomic::AtomicU64>>::default();
        r.register(
            "runner_cost",
            "What agents said the runs of each runner spent, by runner and currency",
            runner_cost.clone(),
        );
        let environments_orphaned = Counter::default();
        r.register(
            "environments_orphaned",
            "Environments whose teardown gave up (or whose runner was revoked): an admin must retry",
            environments_orphaned.clone(),
        );
        let reports = Family::<Kind, Counter>::default();
        r.register(
            "reports",
            "Lifecycle reports applied, by kind (a report resent with its id counts once per send)",
            reports.clone(),
        );
        let transcript_entries = Counter::default();
        r.register(
            "transcript_entries",
            "Transcript entries runners sent",
            transcript_entries.clone(),
        );
        let clock_ticks = Counter::default();
        r.register(
            "clock_ticks",
            "Ticks of the clock run by this instance",
            clock_ticks.clone(),
        );
        let tick_seconds = Histogram::new(exponential_buckets(0.001, 2.0, 14));
        r.register(
            "clock_tick_seconds",
            "How long one tick of the clock took",
            tick_seconds.clone(),
        );
        let sessions = Family::<State, Gauge>::default();
        r.register("sessions", "Sessions by state", sessions.clone());
        let environments = Family::<State, Gauge>::default();
        r.register(
            "environments",
            "Environments by state (torn_down ones are kept until their session is pruned)",
            environments.clone(),
        );
        let runs_live = Family::<Status, Gauge>::default();
        r.register(
            "runs",
            "Runs that have not finished, by status (offered: waiting for a runner)",
            runs_live.clone(),
        );
        let oldest_waiting = Seconds::default();
        r.register(
            "oldest_run_waiting_seconds",
            "How long the oldest offered run has waited for a runner (0: none waits)",
            oldest_waiting.clone(),
        );
        let permission_requests_pending = Family::<Agent, Gauge>::default();
        r.register(
            "permission_requests_pending",
            "Permission requests waiting for a person's answer, by agent",
            permission_requests_pending.clone(),
        );
        let instances_connected = Gauge::default();
        r.register(
            "runner_instances_connected",
            "Runner instances that polled within the freshness window",
            instances_connected.clone(),
        );
        let clock_held = Gauge::default();
        r.register(
            "clock_held",
            "1 when this instance runs the clock (exactly one instance should)",
            clock_held.clone(),
        );
        Metrics {
            registry: r,
            session_transitions,
            runs_offered,
            runs_ended,
            run_wait,
            write_seconds,
            store_conflicts,
            environments_orphaned,
            reports,
            transcript_entries,
            clock_ticks,
            tick_seconds,
            agent_cost,
            agent_tokens,
            runner_cost,
            sessions,
            environments,
            runs_live,
            permission_requests_pending,
            oldest_waiting,
            instances_connected,
            clock_held,
            scrape: Mutex::new(()),
        }
    }
}

/// A write transaction committed after `took`, having done `events`.
pub fn committed(took: Duration, events: &[Event]) {
    let m = &*METRICS;
    m.write_seconds.observe(took.as_secs_f64());
    for event in events {
        match event {
            Event::Session { from, to } => {
                let from = from.map_or("new".to_string(), |f| f.to_string());
                m.session_transitions
                    .get_or_create(&Transition {
                        from,
                        to: to.to_string(),
                    })
                    .inc();
            }
            Event::RunOffered(kind) => {
                m.runs_offered
                    .get_or_create(&Kind {
                        kind: kind.to_string(),
                    })
                    .inc();
            }
            Event::RunAccepted { waited, .. } => {
                m.run_wait.observe(*waited as f64 / 1000.0);
            }
            Event::RunEnded { kind, status } => {
                m.runs_ended
                    .get_or_create(&RunEnd {
                        kind: kind.to_string(),
                        status: status.to_string(),
                    })
                    .inc();
            }
            Event::EnvironmentOrphaned => {
                m.environments_orphaned.inc();
            }
            Event::Used {
                agent,
                runner,
                tokens,
                cost,
            } => {
                if let Some(cost) = cost
                    && cost.amount.is_finite()
                    && cost.amount > 0.0
                {
                    m.agent_cost
                        .get_or_create(&AgentCurrency {
                            agent: agent.clone(),
                            currency: cost.currency.clone(),
                        })
                        .inc_by(cost.amount);
                    if let Some(runner) = runner {
                        m.runner_cost
                            .get_or_create(&RunnerCurrency {
                                runner: runner.clone(),
                                currency: cost.currency.clone(),
                            })
                            .inc_by(cost.amount);
                    }
                }
                for (kind, n) in tokens.kinds() {
                    if let Some(n) = n {
                        m.agent_tokens
                            .get_or_create(&AgentKind {
                                agent: agent.clone(),
                                kind: kind.to_string(),
                            })
                            .inc_by(n);
                    }
                }
            }
        }
    }
}

/// A transaction is run again after a conflict.
pub fn conflict() {
    METRICS.store_conflicts.inc();
}

/// Transactions run again after a conflict since this process started.
pub fn conflicts() -> u64 {
    METRICS.store_conflicts.get()
}

/// A report of `kind` was applied.
pub fn report(kind: &str) {
    METRICS
        .reports
        .get_or_create(&Kind {
            kind: kind.to_string(),
        })
        .inc();
}

/// A runner sent `n` transcript entries.
pub fn transcript_entries(n: usize) {
    METRICS.transcript_entries.inc_by(n as u64);
}

/// The clock ticked, for `took`.
pub fn tick(took: Duration) {
    METRICS.clock_ticks.inc();
    METRICS.tick_seconds.observe(took.as_secs_f64());
}

/// What the store holds now, as a scrape reads it.
pub struct Snapshot {
    pub census: Census,
    /// Permission requests waiting for a person, by agent (agents with none left out).
    pub pending_permission_requests: Vec<(String, u64)>,
    pub instances_connected: usize,
    pub clock_held: bool,
    pub now: Millis,
}

/// The exposition text, with the gauges set from `snapshot`.
pub fn render(snapshot: &Snapshot) -> String {
    let m = &*METRICS;
    let _one = m.scrape.lock().unwrap_or_else(|e| e.into_inner());
    let census = &snapshot.census;
    // States that emptied since the last scrape read 0, not their old count.
    for (family, counts) in [
        (&m.sessions, &census.sessions),
        (&m.environments, &census.environments),
    ] {
        family.clear();
        for (state, n) in counts {
            family
                .get_or_create(&State {
                    state: state.clone(),
                })
                .set(*n as i64);
        }
    }
    m.permission_requests_pending.clear();
    for (agent, n) in &snapshot.pending_permission_requests {
        m.permission_requests_pending
            .get_or_create(&Agent {
                agent: agent.clone(),
            })
            .set(*n as i64);
    }
    m.runs_live.clear();
    for (status, n, _) in &census.runs {
        m.runs_live
            .get_or_create(&Status {
                status: status.clone(),
            })
            .set(*n as i64);
    }
    let offered = RunStatus::Offered.to_string();
    let oldest = census
        .runs
        .iter()
        .find(|(s, _, _)| *s == offered)
        .map_or(0.0, |(_, _, at)| {
            snapshot.now.saturating_sub(*at).max(0) as f64 / 1000.0
        });
    m.oldest_waiting.set(oldest);
    m.instances_connected
        .set(snapshot.instances_connected as i64);
    m.clock_held.set(i64::from(snapshot.clock_held));
    let mut out = String::new();
    prometheus_client::encoding::text::encode(&mut out, &m.registry)
        .expect("writing to a String does not fail");
    out
}
