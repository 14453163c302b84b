//! The runner's metrics: `blaise-runner start --metrics-listen ADDR` serves `GET /metrics` in the
//! Prometheus exposition format (OpenMetrics text). The daemon counts its runs itself; each run
//! process tells it what happens inside (hook calls per plug, bytes through the filters, its
//! outbox) as [`Sample`] lines on a pipe of its own ([`sink`]). Every name is in
//! `docs/metrics.md`.

pub mod sink;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;
use serde::{Deserialize, Serialize};

/// One line a run process writes to its daemon.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "sample", rename_all = "snake_case")]
pub enum Sample {
    /// A plug's hook returned (or failed) after `seconds`; `bytes`: text a filter was given.
    Hook {
        plug: String,
        hook: String,
        seconds: f64,
        ok: bool,
        #[serde(default)]
        bytes: u64,
    },
    /// The run's outbox now: items and bytes waiting in memory, bytes spilled to disk.
    Outbox {
        items: u64,
        bytes: u64,
        spilled: u64,
    },
    /// What became of the warm agent a start run took (see [`WarmOutcome`]).
    Warm { outcome: WarmOutcome },
}

/// What became of a warm agent (`blaise_runner_warm_agent_outcomes_total{outcome}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WarmOutcome {
    /// A start run went on with it.
    Taken,
    /// The plugs' `on-start` changed the agent's launch (a sandbox, a
    /// container, a working directory): it was let go. Warming stops until
    /// blaise.yml changes.
    PlugsChangeLaunch,
    /// The launch differed otherwise (a secret's value changed since): it
    /// was let go.
    LaunchDiffers,
    /// It could not be taken up, or could not be started ahead.
    Failed,
}

impl WarmOutcome {
    fn as_str(self) -> &'static str {
        match self {
            WarmOutcome::Taken => "taken",
            WarmOutcome::PlugsChangeLaunch => "plugs_change_launch",
            WarmOutcome::LaunchDiffers => "launch_differs",
            WarmOutcome::Failed => "failed",
        }
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct HookLabels {
    plug: String,
    hook: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct PlugLabel {
    plug: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct KindLabel {
    kind: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OutcomeLabel {
    outcome: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ResultLabel {
    result: String,
}

fn hook_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.0005, 2.0, 18))
}

/// Most distinct plug/hook label pairs kept: the plugs of `blaise.yml` times the hooks are far
/// fewer; what is over is counted under plug `(other)`.
const MAX_SERIES: usize = 256;

/// The daemon's metrics, shared by its tasks.
pub struct RunnerMetrics {
    registry: Registry,
    runs_in_progress: Gauge,
    runs_started: Family<KindLabel, Counter>,
    runs_ended: Family<OutcomeLabel, Counter>,
    run_seconds: Histogram,
    hook_seconds: Family<HookLabels, Histogram, fn() -> Histogram>,
    hook_failures: Family<HookLabels, Counter>,
    filtered_bytes: Family<PlugLabel, Counter>,
    outbox_items: Gauge,
    outbox_bytes: Gauge,
    outbox_spilled: Gauge,
    offer_polls: Family<ResultLabel, Counter>,
    kept_agents: Gauge,
    kept_agent_bytes: Gauge,
    warm_agents: Gauge,
    warm_agent_bytes: Gauge,
    warm_outcomes: Family<OutcomeLabel, Counter>,
    preparations: Family<OutcomeLabel, Counter>,
    /// Warm agents let go because the plugs change the launch, and because
    /// it differed otherwise (the pool reads both: see `warm::Pool`).
    plugs_change_launch: std::sync::atomic::AtomicU64,
    launch_differs: std::sync::atomic::AtomicU64,
    /// The last outbox sample of each live run (the gauges are their sums).
    outboxes: Mutex<HashMap<String, (u64, u64, u64)>>,
    series: Mutex<std::collections::HashSet<(String, String)>>,
}

impl RunnerMetrics {
    pub fn new(capacity: u32) -> Arc<RunnerMetrics> {
        let mut r = Registry::with_prefix("blaise_runner");
        let runs_in_progress = Gauge::default();
        r.register(
            "runs_in_progress",
            "Run processes this instance started that have not exited",
            runs_in_progress.clone(),
        );
        let runs_started = Family::<KindLabel, Counter>::default();
        r.register(
            "runs_started",
            "Runs accepted and started, by kind (start, resume, teardown)",
            runs_started.clone(),
        );
        let runs_ended = Family::<OutcomeLabel, Counter>::default();
        r.register(
            "runs_ended",
            "Run processes that exited, by outcome (ok, failed, lost_contact, killed, not_started)",
            runs_ended.clone(),
        );
        let run_seconds = Histogram::new(exponential_buckets(0.5, 2.0, 16));
        r.register(
            "run_seconds",
            "How long a run process lived",
            run_seconds.clone(),
        );
        let hook_seconds = Family::<HookLabels, Histogram, fn() -> Histogram>::new_with_constructor(
            hook_histogram,
        );
        r.register(
            "hook_seconds",
            "One call of a plug's hook (on-start, on-resume, on-pause, on-teardown, transcript filter, describe), by plug",
            hook_seconds.clone(),
        );
        let hook_failures = Family::<HookLabels, Counter>::default();
        r.register(
            "hook_failures",
            "Hook calls that failed (an error, a trap, a deadline), by plug",
            hook_failures.clone(),
        );
        let filtered_bytes = Family::<PlugLabel, Counter>::default();
        r.register(
            "filtered_bytes",
            "Bytes of text a plug's transcript filter was given",
            filtered_bytes.clone(),
        );
        let outbox_items = Gauge::default();
        r.register(
            "outbox_items",
            "Reports and transcript batches the live runs have not yet delivered to Blaise",
            outbox_items.clone(),
        );
        let outbox_bytes = Gauge::default();
        r.register(
            "outbox_bytes",
            "Bytes of them held in memory",
            outbox_bytes.clone(),
        );
        let outbox_spilled = Gauge::default();
        r.register(
            "outbox_spilled_bytes",
            "Bytes of them spilled to disk (Blaise has been unreachable or slow)",
            outbox_spilled.clone(),
        );
        let offer_polls = Family::<ResultLabel, Counter>::default();
        r.register(
            "offer_polls",
            "Polls of Blaise for runs, by result (ok, error)",
            offer_polls.clone(),
        );
        let kept_agents = Gauge::default();
        r.register(
            "kept_agents",
            "Paused sessions' agents this instance keeps, frozen, for a hot resume",
            kept_agents.clone(),
        );
        let kept_agent_bytes = Gauge::default();
        r.register(
            "kept_agent_bytes",
            "Resident memory of the kept agents' process groups",
            kept_agent_bytes.clone(),
        );
        let warm_agents = Gauge::default();
        r.register(
            "warm_agents",
            "Agents this instance started ahead, frozen, waiting for a new session",
            warm_agents.clone(),
        );
        let warm_agent_bytes = Gauge::default();
        r.register(
            "warm_agent_bytes",
            "Resident memory of the warm agents' process groups",
            warm_agent_bytes.clone(),
        );
        let warm_outcomes = Family::<OutcomeLabel, Counter>::default();
        r.register(
            "warm_agent_outcomes",
            "Warm agents by what became of them: taken, plugs_change_launch, launch_differs, failed",
            warm_outcomes.clone(),
        );
        let preparations = Family::<OutcomeLabel, Counter>::default();
        r.register(
            "preparations",
            "Preparations ahead of the sessions (the plugs' on-prepare) by outcome: ok, failed",
            preparations.clone(),
        );
        let capacity_gauge = Gauge::<i64>::default();
        capacity_gauge.set(i64::from(capacity));
        r.register(
            "capacity",
            "Most runs this instance takes at once",
            capacity_gauge,
        );
        Arc::new(RunnerMetrics {
            registry: r,
            runs_in_progress,
            runs_started,
            runs_ended,
            run_seconds,
            hook_seconds,
            hook_failures,
            filtered_bytes,
            outbox_items,
            outbox_bytes,
            outbox_spilled,
            offer_polls,
            kept_agents,
            kept_agent_bytes,
            warm_agents,
            warm_agent_bytes,
            warm_outcomes,
            preparations,
            plugs_change_launch: Default::default(),
            launch_differs: Default::default(),
            outboxes: Mutex::new(HashMap::new()),
            series: Mutex::new(Default::default()),
        })
    }

    pub fn run_started(&self, kind: &str) {
        self.runs_started
            .get_or_create(&KindLabel {
                kind: kind.to_string(),
            })
            .inc();
        self.runs_in_progress.inc();
    }

    /// A run process exited after `lived` with `code` (`None`: killed by a signal).
    pub fn run_ended(&self, run: &str, code: Option<i32>, lived: Duration) {
        let outcome = match code {
            Some(0) => "ok",
            Some(3) => "lost_contact",
            Some(_) => "failed",
            None => "killed",
        };
        self.end(run, outcome);
        self.run_seconds.observe(lived.as_secs_f64());
    }

    /// An accepted run whose process could not be started.
    pub fn run_not_started(&self) {
        self.runs_ended
            .get_or_create(&OutcomeLabel {
                outcome: "not_started".into(),
            })
            .inc();
    }

    fn end(&self, run: &str, outcome: &str) {
        self.runs_ended
            .get_or_create(&OutcomeLabel {
                outcome: outcome.to_string(),
            })
            .inc();
        self.runs_in_progress.dec();
        self.forget_outbox(run);
    }

    /// Run `run` has exited: its outbox no longer counts.
    pub fn forget_outbox(&self, run: &str) {
        lock(&self.outboxes).remove(run);
        self.sum_outboxes();
    }

    /// The agents kept now, and the memory they hold.
    pub fn kept_agents(&self, count: usize, bytes: u64) {
        self.kept_agents.set(count as i64);
        self.kept_agent_bytes.set(bytes.min(i64::MAX as u64) as i64);
    }

    /// A preparation ahead ended (`ok` or `failed`).
    pub fn prepared(&self, ok: bool) {
        self.preparations
            .get_or_create(&OutcomeLabel {
                outcome: if ok { "ok" } else { "failed" }.into(),
            })
            .inc();
    }

    /// What became of a warm agent.
    pub fn warm_outcome(&self, outcome: WarmOutcome) {
        self.warm_outcomes
            .get_or_create(&OutcomeLabel {
                outcome: outcome.as_str().into(),
            })
            .inc();
        let count = match outcome {
            WarmOutcome::PlugsChangeLaunch => &self.plugs_change_launch,
            WarmOutcome::LaunchDiffers => &self.launch_differs,
            _ => return,
        };
        count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// How many warm agents were let go because the plugs change the
    /// launch, and because it differed otherwise.
    pub fn warm_launches_refused(&self) -> (u64, u64) {
        use std::sync::atomic::Ordering::Relaxed;
        (
            self.plugs_change_launch.load(Relaxed),
            self.launch_differs.load(Relaxed),
        )
    }

    /// The warm agents waiting now, and the memory they hold.
    pub fn warm_agents(&self, count: usize, bytes: u64) {
        self.warm_agents.set(count as i64);
        self.warm_agent_bytes.set(bytes.min(i64::MAX as u64) as i64);
    }

    pub fn offers_polled(&self, ok: bool) {
        self.offer_polls
            .get_or_create(&ResultLabel {
                result: if ok { "ok" } else { "error" }.into(),
            })
            .inc();
    }

    /// A sample run `run` sent.
    pub fn apply(&self, run: &str, sample: Sample) {
        match sample {
            Sample::Hook {
                plug,
                hook,
                seconds,
                ok,
                bytes,
            } => {
                let labels = self.bounded(plug, hook);
                self.hook_seconds
                    .get_or_create(&labels)
                    .observe(seconds.max(0.0));
                if !ok {
                    self.hook_failures.get_or_create(&labels).inc();
                }
                if bytes > 0 {
                    self.filtered_bytes
                        .get_or_create(&PlugLabel { plug: labels.plug })
                        .inc_by(bytes);
                }
            }
            Sample::Outbox {
                items,
                bytes,
                spilled,
            } => {
                lock(&self.outboxes).insert(run.to_string(), (items, bytes, spilled));
                self.sum_outboxes();
            }
            Sample::Warm { outcome } => self.warm_outcome(outcome),
        }
    }

    /// The labels of a hook sample, held to [`MAX_SERIES`] pairs and to the shape of a plug id
    /// and a hook name (a run is ours, but a label is forever: it is checked anyway).
    fn bounded(&self, plug: String, hook: String) -> HookLabels {
        let fits = |s: &str, extra: &str| {
            !s.is_empty()
                && s.len() <= 64
                && s.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || extra.contains(c))
        };
        let plug = if fits(&plug, "-_.") {
            plug
        } else {
            "(other)".into()
        };
        let hook = if fits(&hook, "- ") {
            hook
        } else {
            "(other)".into()
        };
        let mut series = lock(&self.series);
        if series.contains(&(plug.clone(), hook.clone())) || series.len() < MAX_SERIES {
            series.insert((plug.clone(), hook.clone()));
            HookLabels { plug, hook }
        } else {
            HookLabels {
                plug: "(other)".into(),
                hook,
            }
        }
    }

    fn sum_outboxes(&self) {
        let outboxes = lock(&self.outboxes);
        let (items, bytes, spilled) = outboxes
            .values()
            .fold((0u64, 0u64, 0u64), |(a, b, c), (i, by, s)| {
                (a + i, b + by, c + s)
            });
        self.outbox_items.set(items as i64);
        self.outbox_bytes.set(bytes as i64);
        self.outbox_spilled.set(spilled as i64);
    }

    /// The exposition text.
    pub fn render(&self) -> String {
        let mut out = String::new();
        prometheus_client::encoding::text::encode(&mut out, &self.registry)
            .expect("writing to a String does not fail");
        out
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Longest sample line read from a run (a hook sample is well under 1 KiB).
const MAX_SAMPLE_LINE: usize = 4096;

/// Reads run `run`'s samples from `reader` until the run process (and anything it passed the
/// pipe to) has exited; then its outbox leaves the sums (a sample read after the daemon saw the
/// process exit would otherwise keep a dead run's outbox in them).
pub async fn read_samples(metrics: Arc<RunnerMetrics>, run: String, reader: std::io::PipeReader) {
    let Ok(reader) = tokio::net::unix::pipe::Receiver::from_owned_fd(reader.into()) else {
        return;
    };
    let mut lines = crate::acp::BoundedLines::new(reader, MAX_SAMPLE_LINE);
    while let Some(line) = lines.next().await {
        match serde_json::from_str::<Sample>(&line) {
            Ok(sample) => metrics.apply(&run, sample),
            Err(e) => tracing::debug!(run, "a metrics line of the run was not read: {e}"),
        }
    }
    metrics.forget_outbox(&run);
}

/// Serves `GET /metrics` on `addr` until the process ends. Binding is done before this returns,
/// so a taken address fails `start` at once.
pub async fn serve(addr: SocketAddr, metrics: Arc<RunnerMetrics>) -> std::io::Result<SocketAddr> {
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| {
        std::io::Error::new(e.kind(), format!("listening for metrics on {addr}: {e}"))
    })?;
    let bound = listener.local_addr()?;
    let app = axum::Router::new().route(
        "/metrics",
        axum::routing::get(move || {
            let metrics = metrics.clone();
            async move {
                (
                    [(
                        axum::http::header::CONTENT_TYPE,
                        "application/openmetrics-text; version=1.0.0; charset=utf-8",
                    )],
                    metrics.render(),
                )
            }
        }),
    );
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            tracing::error!("the metrics endpoint stopped: {e}");
        }
    });
    Ok(bound)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(line: &str) -> Sample {
        serde_json::from_str(line).unwrap()
    }

    #[test]
    fn samples_become_series_with_bounded_labels_and_outboxes_add_up() {
        let m = RunnerMetrics::new(4);
        m.run_started("start");
        m.run_started("resume");
        m.apply(
            "run_a",
            sample(r#"{"sample":"hook","plug":"redaction","hook":"transcript filter","seconds":0.002,"ok":true,"bytes":120}"#),
        );
        m.apply(
            "run_a",
            sample(
                r#"{"sample":"hook","plug":"checkout","hook":"on-start","seconds":0.3,"ok":false}"#,
            ),
        );
        m.apply(
            "run_b",
            sample(r#"{"sample":"hook","plug":"Evil\"}\n# EOF","hook":"on-start","seconds":1,"ok":true}"#),
        );
        m.apply(
            "run_a",
            sample(r#"{"sample":"outbox","items":3,"bytes":900,"spilled":0}"#),
        );
        m.apply(
            "run_b",
            sample(r#"{"sample":"outbox","items":2,"bytes":100,"spilled":4096}"#),
        );
        let text = m.render();
        for line in [
            "blaise_runner_runs_in_progress 2",
            r#"blaise_runner_filtered_bytes_total{plug="redaction"} 120"#,
            r#"blaise_runner_hook_failures_total{plug="checkout",hook="on-start"} 1"#,
            r#"blaise_runner_hook_seconds_count{plug="(other)",hook="on-start"} 1"#,
            "blaise_runner_outbox_items 5",
            "blaise_runner_outbox_bytes 1000",
            "blaise_runner_outbox_spilled_bytes 4096",
            "blaise_runner_capacity 4",
        ] {
            assert!(text.contains(line), "{line} in:\n{text}");
        }
        assert!(
            !text.contains("Evil"),
            "a label outside a plug id's shape is not kept"
        );

        // A run that exits leaves the outbox sums and the runs in progress, also when its last
        // sample is read after the daemon saw it exit.
        m.run_ended("run_b", Some(0), Duration::from_secs(3));
        m.apply(
            "run_b",
            sample(r#"{"sample":"outbox","items":2,"bytes":100,"spilled":0}"#),
        );
        m.forget_outbox("run_b");
        m.run_ended("run_a", Some(3), Duration::from_secs(3));
        let text = m.render();
        for line in [
            "blaise_runner_runs_in_progress 0",
            "blaise_runner_outbox_items 0",
            r#"blaise_runner_runs_ended_total{outcome="ok"} 1"#,
            r#"blaise_runner_runs_ended_total{outcome="lost_contact"} 1"#,
        ] {
            assert!(text.contains(line), "{line} in:\n{text}");
        }
    }
}
