//! `blaise-runner start`: connect to Blaise, learn the agent's idle policy
//! once, run the startup check, then take offered runs, each in a process of
//! its own (this binary, `run-one`), several sessions at once.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, anyhow};
use tokio::process::{Child, Command};
use tokio::signal::unix::{SignalKind, signal};

use crate::config::{ConfigCheck, ConfigFile, ResolvedPlug, resolve, resolve_with};
use crate::host::PlugHost;
use crate::metrics::RunnerMetrics;
use crate::protocol::{Client, EnvironmentLeft, FailedPhase, PROTOCOL_VERSION, ReportBody};
use crate::run::report_once;
use crate::tasks::AbortOnDrop;

/// The program started for each run (default: this binary, `run-one`): for
/// packaging the runner, and for tests of what happens when it cannot start.
pub const RUN_PROGRAM: &str = "BLAISE_RUN_PROGRAM";

/// The environment variable that gives a run process the digest of the
/// blaise.yml whose plug configs the daemon checked.
pub const CHECKED_CONFIG: &str = "BLAISE_CHECKED_CONFIG";

/// Where and how a runner works.
#[derive(Debug, Clone)]
pub struct RunnerOptions {
    pub url: String,
    pub token: String,
    pub config: PathBuf,
    pub data_dir: PathBuf,
    pub cache_dir: PathBuf,
    /// This process's name among the runner's instances.
    pub instance: String,
    /// Most runs this instance takes at once (see [`default_capacity`]).
    pub capacity: u32,
    /// What this instance offers that an agent may require (`gpu`, `region-eu`, …).
    pub labels: Vec<String>,
    /// Where to serve `GET /metrics` (none: no port is opened).
    pub metrics_listen: Option<std::net::SocketAddr>,
    /// Run the plugs' `on-prepare` while idle (see [`crate::ahead`]).
    pub prepare_ahead: bool,
}

/// How long after the last accepted run the runner counts as idle: a start
/// competes for the cores (and the Docker daemon) with a warm-up or a
/// preparation ahead, which wait for it.
pub(crate) const IDLE_AFTER: Duration = Duration::from_secs(1);

/// How often the warm pool is looked after (see [`crate::warm::Pool`]).
/// (Each looks at the agents' memory: a walk of their processes in `/proc`.)
const WARM_UPKEEP: Duration = Duration::from_millis(500);

/// Memory one live run is counted at when the capacity is not given: the run process is about
/// 25 MiB, the agent it starts (a Node or Python CLI) several hundred.
pub const MEMORY_PER_RUN: u64 = 512 << 20;
/// Runs per core when the capacity is not given: a live run mostly waits on its agent's model.
pub const RUNS_PER_CORE: u64 = 4;

/// The capacity an instance says when none is given: 4 runs per core, and no more than one per
/// 512 MiB of the machine's memory; at least 1.
pub fn default_capacity() -> u32 {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
    let memory = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| mem_total(&m))
        .unwrap_or(MEMORY_PER_RUN);
    capacity_for(cores, memory)
}

fn capacity_for(cores: u64, memory: u64) -> u32 {
    (cores * RUNS_PER_CORE)
        .min(memory / MEMORY_PER_RUN)
        .clamp(1, 100_000) as u32
}

/// `MemTotal` of `/proc/meminfo`, in bytes.
fn mem_total(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

impl RunnerOptions {
    pub fn default_instance() -> String {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|h| h.trim().to_string())
            .unwrap_or_else(|_| "runner".into());
        format!("{host}:{}", std::process::id())
    }
}

/// Why the daemon stopped, or a run process could not begin.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    /// blaise.yml cannot be read, a plug does not resolve, or the startup
    /// check refuses the chain.
    #[error("{0}")]
    Config(String),
    /// Blaise refused the runner, cannot be reached, or speaks another protocol.
    #[error("{0}")]
    Blaise(String),
    /// The machine: a port, a signal handler, a process.
    #[error("{0}")]
    System(String),
}

fn system(e: impl std::fmt::Display) -> DaemonError {
    DaemonError::System(e.to_string())
}

/// How long a starting runner keeps trying to reach a Blaise that does not
/// answer before it gives up.
pub const CONNECT_PATIENCE: Duration = Duration::from_secs(600);

/// Loads `blaise.yml` and its plugs, connects, and refuses to start when the
/// agent's idle policy is to pause and a plug cannot resume.
pub async fn connect(options: &RunnerOptions, host: &PlugHost) -> Result<Joined, DaemonError> {
    let config = |e: &dyn std::fmt::Display| DaemonError::Config(e.to_string());
    let file = ConfigFile::load(&options.config).map_err(|e| config(&e))?;
    let plugs = resolve(&file, host).await.map_err(|e| config(&e))?;
    // Said once, here, not by every run.
    for plug in &plugs {
        if let Some(notice) = &plug.notice {
            tracing::warn!(plug = %plug.setup.id, "{notice}");
        }
        for gap in plug
            .grants
            .not_granted
            .iter()
            .filter(|g| !g.starts_with("secret: "))
        {
            tracing::warn!(plug = %plug.setup.id, "the plug asks for `{gap}`, which blaise.yml does not grant: such calls will be denied");
        }
    }
    let client = Client::new(&options.url, &options.token).map_err(|e| config(&e))?;
    let agent = file.config.agent.name.clone();
    // Blaise may be restarting (or not up yet) when the runner starts: a
    // connect it does not answer is made again, for up to CONNECT_PATIENCE;
    // a refusal (a revoked token, a bad request) is final at once.
    let (give_up, patience) = tokio::sync::watch::channel(false);
    let timer = tokio::spawn(async move {
        tokio::time::sleep(CONNECT_PATIENCE).await;
        let _ = give_up.send(true);
    });
    let agents = std::slice::from_ref(&agent);
    let connected = crate::protocol::until_answered(&patience, "connecting to Blaise", || {
        hello(&client, options, agents)
    })
    .await;
    timer.abort();
    let connected = connected.map_err(|e| {
        DaemonError::Blaise(format!("connecting to Blaise at {}: {e}", options.url))
    })?;
    if connected.protocol_version != PROTOCOL_VERSION {
        return Err(DaemonError::Blaise(format!(
            "Blaise speaks runner protocol {}, this runner speaks {PROTOCOL_VERSION}",
            connected.protocol_version
        )));
    }
    let settings = connected
        .agents
        .iter()
        .find(|a| a.name == agent)
        .ok_or_else(|| {
            DaemonError::Blaise(format!(
                "Blaise did not return the settings of agent `{agent}`"
            ))
        })?;
    let policy = settings.settings.idle_policy;
    if let Some(problem) = crate::config::startup_check(&plugs, policy) {
        return Err(DaemonError::Config(format!("startup check: {problem}")));
    }
    tracing::info!(runner = %connected.runner, agent, ?policy, plugs = plugs.len(), capacity = options.capacity, labels = ?options.labels, "connected to Blaise");
    Ok(Joined {
        client,
        file,
        plugs,
        long_poll_ms: connected.long_poll_max_ms,
        warm_agents: settings.settings.warm_agents,
    })
}

/// What `connect` learnt and loaded.
pub struct Joined {
    pub client: Client,
    pub file: ConfigFile,
    pub plugs: Vec<ResolvedPlug>,
    pub long_poll_ms: u64,
    /// The agents to keep started ahead, as Blaise said at `connect` (an
    /// older Blaise says none: 0).
    pub warm_agents: u32,
}

/// Tells Blaise this instance serves `agents`, with its capacity and labels.
async fn hello(
    client: &Client,
    options: &RunnerOptions,
    agents: &[String],
) -> std::result::Result<crate::protocol::Connected, crate::protocol::ProtocolError> {
    client
        .connect(&options.instance, agents, options.capacity, &options.labels)
        .await
}

/// Serves offered runs until SIGINT/SIGTERM; then passes the signal on to the
/// runs in progress and waits for them to end. A run process is reaped the
/// moment it exits (no zombie waits for the next offers poll).
pub async fn serve(options: RunnerOptions, host: Arc<PlugHost>) -> Result<(), DaemonError> {
    let metrics = RunnerMetrics::new(options.capacity);
    if let Some(addr) = options.metrics_listen {
        let bound = crate::metrics::serve(addr, metrics.clone())
            .await
            .map_err(system)?;
        tracing::info!("metrics at http://{bound}/metrics");
    }
    let Joined {
        client,
        file,
        long_poll_ms,
        warm_agents,
        ..
    } = connect(&options, &host).await?;
    // The digest of the blaise.yml whose plug configs were last checked here.
    let mut checked = Some(file.digest());
    // Live run processes by run id (their pids); each is waited for by a task
    // of its own, which reports the exit here.
    let mut runs: HashMap<String, u32> = HashMap::new();
    let (exited_tx, mut exited) = tokio::sync::mpsc::unbounded_channel::<(String, String)>();
    let mut sigterm = signal(SignalKind::terminate()).map_err(system)?;
    let mut sigint = signal(SignalKind::interrupt()).map_err(system)?;
    let wait = Duration::from_millis(long_poll_ms.clamp(1000, 30_000));
    // Paused sessions' agents kept between runs (hot resume): they die with
    // this process.
    let keeper = crate::keeper::Keeper::start().map_err(system)?;
    // What runs killed with SIGKILL left (they could not remove it).
    let swept = crate::run::run_dir::sweep(&options.data_dir.join("runs"));
    if swept > 0 {
        tracing::info!(swept, "removed the directories of runs that died");
    }
    // Agents started ahead for new sessions (warm starts).
    crate::warm::Pool::sweep(&options);
    let mut pool = crate::warm::Pool::default();
    // What the plugs can make once for every session, made while idle.
    let mut ahead = crate::ahead::Ahead::default();
    let mut last_accept = Instant::now() - IDLE_AFTER;
    // Said at `connect` only by a Blaise that reads `warm` in offers polls.
    if warm_agents > 0 {
        pool.told(Some(warm_agents));
    }
    let mut upkeep = tokio::time::interval(WARM_UPKEEP);
    upkeep.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let offers = client.offers(&options.instance, wait, Vec::new(), None);
    tokio::pin!(offers);
    loop {
        tokio::select! {
            _ = upkeep.tick() => {
                // blaise.yml is read only when a warm agent is wanted.
                let config = pool
                    .short(&keeper)
                    .then(|| crate::warm::config_digest(&options.config))
                    .flatten();
                let idle = last_accept.elapsed() >= IDLE_AFTER;
                pool.upkeep(&options, &keeper, runs.len(), config.as_deref(), idle, &metrics);
                if options.prepare_ahead {
                    ahead.upkeep(&options, idle, &metrics);
                }
            }
            polled = &mut offers => {
                match polled {
                    Ok(polled) => {
                        metrics.offers_polled(true);
                        pool.told(polled.warm_agents);
                        for session in &polled.release_agents {
                            if keeper.release(session) {
                                tracing::info!(session, "Blaise let the kept agent go");
                            }
                        }
                        for offer in polled.offers {
                            match accept(&client, &offer.run_id, &options.instance).await {
                                Ok(_) => {
                                    last_accept = Instant::now();
                                    tracing::info!(run = %offer.run_id, kind = ?offer.kind, session = %offer.session_id, "accepted a run");
                                    // Only a resume takes a kept agent up; any other run of the
                                    // session makes it moot.
                                    if offer.kind != crate::protocol::RunKind::Resume && keeper.release(&offer.session_id) {
                                        tracing::info!(session = %offer.session_id, "let the kept agent go");
                                    }
                                    let digest = check_config(&options, &host, &mut checked).await;
                                    match spawn_run(&options, &offer.run_id, digest.as_deref(), &keeper) {
                                        Ok((child, samples)) => {
                                            if let Some(pid) = child.id() {
                                                runs.insert(offer.run_id.clone(), pid);
                                            }
                                            metrics.run_started(offer.kind.as_str());
                                            tokio::spawn(crate::metrics::read_samples(metrics.clone(), offer.run_id.clone(), samples));
                                            watch_exit(offer.run_id, child, exited_tx.clone(), metrics.clone());
                                        }
                                        Err(e) => {
                                            metrics.run_not_started();
                                            process_start_failed(&client, &offer.run_id, e).await
                                        }
                                    }
                                }
                                Err(e) => tracing::info!(run = %offer.run_id, "not taken: {e}"),
                            }
                        }
                    }
                    Err(e) if e.code.as_deref() == Some("not_connected") => {
                        metrics.offers_polled(false);
                        // Blaise forgot this instance (it forgets those it has not seen for a
                        // week: a machine that slept): it says hello again.
                        tracing::warn!("Blaise does not know this instance any more: connecting again");
                        let agents = std::slice::from_ref(&file.config.agent.name);
                        if let Err(e) = hello(&client, &options, agents).await {
                            tracing::warn!("connecting to Blaise again: {e}");
                            tokio::time::sleep(Duration::from_secs(1)).await;
                        }
                    }
                    Err(e) => {
                        metrics.offers_polled(false);
                        if e.status.is_some_and(|s| s == 400) && pool.target().is_some() {
                            // A Blaise that does not read `warm` (an older one
                            // came back): none is asked for any more.
                            pool.forget();
                        }
                        tracing::warn!("asking Blaise for runs: {e}");
                        tokio::time::sleep(Duration::from_secs(1)).await;
                    }
                }
                let mut kept = keeper.kept();
                // Capacity counts kept agents: what they hold is memory a run
                // would need. The oldest go first, cold.
                let budget = u64::from(options.capacity) * MEMORY_PER_RUN;
                for session in over_budget(&kept, runs.len(), budget) {
                    if keeper.release(&session) {
                        tracing::info!(session, "let a kept agent go: the runs need its memory");
                    }
                    kept.retain(|k| k.session != session);
                }
                metrics.kept_agents(kept.len(), kept.iter().map(|k| k.rss).sum());
                let kept: Vec<String> = kept.into_iter().map(|k| k.session).collect();
                offers.set(client.offers(&options.instance, wait, kept, pool.target()));
            }
            Some((run, status)) = exited.recv() => {
                runs.remove(&run);
                tracing::info!(run, %status, "run process ended");
            }
            _ = sigterm.recv() => break,
            _ = sigint.recv() => break,
        }
    }
    tracing::info!(
        runs = runs.len(),
        "stopping: the runs in progress end as cancelled"
    );
    // Forget the runs already reaped: their pids may belong to others now.
    while let Ok((run, status)) = exited.try_recv() {
        runs.remove(&run);
        tracing::info!(run, %status, "run process ended");
    }
    for pid in runs.values() {
        // SAFETY: kill with the pid of a run process that has not been reaped.
        unsafe { libc::kill(*pid as i32, libc::SIGTERM) };
    }
    // The runs first, then what was being made ahead, both at once: the
    // runs end meanwhile.
    tokio::join!(pool.stop(&options, &keeper), ahead.stop(&options));
    while !runs.is_empty() {
        match exited.recv().await {
            Some((run, status)) => {
                runs.remove(&run);
                tracing::info!(run, %status, "run process ended");
            }
            None => break,
        }
    }
    Ok(())
}

/// The kept agents to let go, oldest first, so that they and the live runs
/// (each counted at [`MEMORY_PER_RUN`]) fit in `budget` bytes.
fn over_budget(kept: &[crate::keeper::KeptAgent], live_runs: usize, budget: u64) -> Vec<String> {
    let mut used = live_runs as u64 * MEMORY_PER_RUN + kept.iter().map(|k| k.rss).sum::<u64>();
    let mut oldest: Vec<_> = kept.iter().collect();
    oldest.sort_by_key(|k| k.since);
    let mut release = Vec::new();
    for k in oldest {
        if used <= budget {
            break;
        }
        used -= k.rss;
        release.push(k.session.clone());
    }
    release
}

/// Waits for a run's process in a task of its own and says when it exits.
fn watch_exit(
    run: String,
    mut child: Child,
    exited: tokio::sync::mpsc::UnboundedSender<(String, String)>,
    metrics: Arc<RunnerMetrics>,
) {
    let started = std::time::Instant::now();
    tokio::spawn(async move {
        let status = match child.wait().await {
            Ok(status) => {
                metrics.run_ended(&run, status.code(), started.elapsed());
                status.to_string()
            }
            Err(e) => {
                metrics.run_ended(&run, None, started.elapsed());
                format!("could not be waited for: {e}")
            }
        };
        let _ = exited.send((run, status));
    });
}

/// Checks blaise.yml again if it changed since the last check (each run reads
/// it afresh); returns the digest of the file as checked, if it passed. A file
/// that does not pass is left to the run process, which reports the error.
async fn check_config(
    options: &RunnerOptions,
    host: &PlugHost,
    checked: &mut Option<String>,
) -> Option<String> {
    let file = ConfigFile::load(&options.config).ok()?;
    let digest = file.digest();
    if checked.as_deref() != Some(digest.as_str()) {
        *checked = resolve(&file, host).await.ok().map(|_| digest.clone());
    }
    checked.clone().filter(|c| *c == digest)
}

/// Starts the process of one run: this binary's hidden `run-one` command.
/// Starts the process of run `run_id`; returns it and the pipe it writes its metrics to.
fn spawn_run(
    options: &RunnerOptions,
    run_id: &str,
    checked_config: Option<&str>,
    keeper: &crate::keeper::Keeper,
) -> Result<(Child, std::io::PipeReader)> {
    let exe = run_program()?;
    let mut command = Command::new(exe);
    if let Some(digest) = checked_config {
        command.env(CHECKED_CONFIG, digest);
    }
    command
        .arg("--cache-dir")
        .arg(&options.cache_dir)
        .args([
            "run-one",
            "--run",
            run_id,
            "--instance",
            &options.instance,
            "--url",
            &options.url,
        ])
        .arg("--config")
        .arg(&options.config)
        .arg("--data-dir")
        .arg(&options.data_dir);
    let samples =
        crate::child_pipe::pipe_as_stdout(&mut command).context("a pipe for the run's metrics")?;
    command
        .args(["--metrics-fd", "1"])
        .env("BLAISE_RUNNER_TOKEN", &options.token)
        // For the run's own measure of the host's overhead (accepted → agent spawned).
        .env(
            crate::run::ACCEPTED_AT,
            crate::run::unix_micros().to_string(),
        )
        // Its standard input is its socket to the keeper (no `pre_exec`
        // needed to pass it: see `pipe_as_stdout`).
        .stdin(Stdio::from(
            keeper.connect_run().context("a socket to the keeper")?,
        ));
    let child = command.spawn().context("starting the run's process")?;
    // The run's copy is the only writer left: the reader ends when the run has exited.
    drop(command);
    Ok((child, samples))
}

/// The program a run (or a warm-up) is started with: [`RUN_PROGRAM`], or this binary.
pub(crate) fn run_program() -> Result<PathBuf> {
    match std::env::var_os(RUN_PROGRAM) {
        Some(program) => Ok(PathBuf::from(program)),
        None => std::env::current_exe().context("finding the runner's own binary"),
    }
}

/// A hidden helper command of this daemon (`warm-one`, `prepare-ahead`)
/// with `args` after its name, and the daemon's cache, blaise.yml and data
/// directory; its output discarded, killed if dropped. Its standard input is
/// the caller's to set.
pub(crate) fn helper_command(
    options: &RunnerOptions,
    args: &[&str],
) -> Result<tokio::process::Command> {
    let mut command = tokio::process::Command::new(run_program()?);
    command
        .arg("--cache-dir")
        .arg(&options.cache_dir)
        .args(args)
        .arg("--config")
        .arg(&options.config)
        .arg("--data-dir")
        .arg(&options.data_dir)
        .stdout(std::process::Stdio::null())
        .kill_on_drop(true);
    Ok(command)
}

/// Kills a helper (the daemon is stopping) and waits for it to exit, so
/// that its directory can be removed after it.
pub(crate) async fn stop_helper(child: &mut tokio::process::Child, what: &str) {
    let _ = child.start_kill();
    match tokio::time::timeout(Duration::from_secs(5), child.wait()).await {
        Ok(Ok(_)) => {}
        Ok(Err(e)) => tracing::warn!("waiting for {what}: {e}"),
        Err(_) => tracing::warn!("{what} did not exit 5 s after SIGKILL"),
    }
}

/// The exit status of a helper command, once it has exited (`what` names it
/// in the warning when it cannot be waited for).
pub(crate) fn helper_exited(
    child: &mut tokio::process::Child,
    what: &str,
) -> Option<std::process::ExitStatus> {
    match child.try_wait() {
        Ok(status) => status,
        Err(e) => {
            tracing::warn!("waiting for {what}: {e}");
            None
        }
    }
}

/// The runner could not start the process of a run it accepted: say so at once.
async fn process_start_failed(client: &Client, run_id: &str, error: anyhow::Error) {
    tracing::error!(run = run_id, "{error:#}");
    let report = ReportBody::Failed {
        phase: FailedPhase::ProcessStart,
        error: format!("{error:#}"),
        environment: EnvironmentLeft::Intact,
        teardown_error: None,
    };
    if let Err(e) = report_once(client, run_id, report).await {
        tracing::error!(run = run_id, "{e}");
    }
}

/// How long an `accept` is tried again while Blaise does not answer (a
/// restart): a run given up here is a failed run to Blaise, and three in a
/// row fail the session.
const ACCEPT_PATIENCE: Duration = Duration::from_secs(30);

/// `accept`, made again while Blaise does not answer, for [`ACCEPT_PATIENCE`].
/// Accepting again from the same instance returns the same assignment, so a
/// repeat of an accept whose answer was lost is safe.
async fn accept(
    client: &Client,
    run_id: &str,
    instance: &str,
) -> Result<crate::protocol::Assignment, crate::protocol::ProtocolError> {
    // Contact is not lost here: only the patience ends the tries.
    let (_contact, never_lost) = tokio::sync::watch::channel(false);
    let tries = crate::protocol::until_answered(&never_lost, "accepting a run", || {
        client.accept(run_id, instance)
    });
    tokio::time::timeout(ACCEPT_PATIENCE, tries)
        .await
        .unwrap_or_else(|_| {
            Err(crate::protocol::ProtocolError {
                status: None,
                code: None,
                message: format!("no answer from Blaise within {ACCEPT_PATIENCE:?}"),
            })
        })
}

/// `run-one`: the process of one accepted run. A failure before the run
/// could start (blaise.yml unreadable, a plug that does not resolve) is
/// reported to Blaise at once, so that it recovers the session without
/// waiting for the run to time out. Nothing any program or the agent started
/// outlives the run.
pub async fn run_one(options: RunnerOptions, run_id: &str) -> Result<i32, DaemonError> {
    if let Err(e) = crate::guard::become_subreaper() {
        tracing::warn!("cannot become the subreaper of the run's programs: {e}");
    }
    let client = Client::new(&options.url, &options.token)
        .map_err(|e| DaemonError::Config(e.to_string()))?;
    let prepared = match prepare_run(&options, run_id, &client).await {
        Ok(prepared) => prepared,
        Err(e) => {
            let error = anyhow!("the run could not start: {e:#}");
            process_start_failed(&client, run_id, error).await;
            return Ok(crate::run::Outcome::Failed(String::new()).exit_code());
        }
    };
    let outcome = crate::run::execute(prepared).await;
    crate::guard::sweep();
    tracing::info!(run = run_id, ?outcome, "run ended");
    if outcome == crate::run::Outcome::LostContact {
        eprintln!("{}", crate::run::LOST_CONTACT);
    }
    Ok(outcome.exit_code())
}

/// Everything a run needs before it starts: blaise.yml, its plugs, the assignment.
async fn prepare_run(
    options: &RunnerOptions,
    run_id: &str,
    client: &Client,
) -> Result<crate::run::RunContext> {
    let host = Arc::new(PlugHost::new(&crate::host::HostOptions {
        cache_dir: options.cache_dir.clone(),
        ..Default::default()
    })?);
    let file = ConfigFile::load(&options.config).map_err(|e| anyhow!("{e}"))?;
    let config_check = if std::env::var(CHECKED_CONFIG).ok() == Some(file.digest()) {
        ConfigCheck::AlreadyChecked
    } else {
        ConfigCheck::Check
    };
    // The assignment is read while the plugs load (the round trip to Blaise
    // overlaps their compile-cache loads).
    let mut assignment = {
        let (client, run_id, instance) =
            (client.clone(), run_id.to_owned(), options.instance.clone());
        AbortOnDrop::spawn(async move { accept(&client, &run_id, &instance).await })
    };
    let plugs = resolve_with(&file, &host, config_check)
        .await
        .map_err(|e| anyhow!("{e}"))?;
    let assignment = (&mut assignment.0)
        .await
        .context("reading the assignment")?
        .with_context(|| format!("reading the assignment of run {run_id}"))?;
    Ok(crate::run::RunContext {
        client: client.clone(),
        assignment,
        config: file,
        plugs,
        host,
        data_dir: options.data_dir.clone(),
        keeper: crate::keeper::KeeperClient::inherited().map(Arc::new),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_agents_give_way_to_runs_oldest_first() {
        let now = std::time::Instant::now();
        let kept = |session: &str, mib: u64, age_s: u64| crate::keeper::KeptAgent {
            session: session.into(),
            pid: 1,
            rss: mib << 20,
            since: now - Duration::from_secs(age_s),
        };
        let agents = [
            kept("young", 300, 10),
            kept("old", 300, 60),
            kept("middle", 300, 30),
        ];
        // Room for three runs: one live run and two kept agents (600 MiB) fit.
        assert!(over_budget(&agents[..2], 1, 3 * MEMORY_PER_RUN).is_empty());
        // Room for two: the oldest kept agents go until the rest fit.
        assert_eq!(
            over_budget(&agents, 1, 2 * MEMORY_PER_RUN),
            ["old", "middle"]
        );
        assert_eq!(
            over_budget(&agents, 2, 2 * MEMORY_PER_RUN),
            ["old", "middle", "young"]
        );
        assert!(
            over_budget(&[], 5, MEMORY_PER_RUN).is_empty(),
            "runs alone are Blaise's to count"
        );
    }

    #[test]
    fn the_default_capacity_is_four_runs_per_core_within_the_memory() {
        const GIB: u64 = 1 << 30;
        assert_eq!(capacity_for(2, 24 * GIB), 8, "this machine: cores decide");
        assert_eq!(capacity_for(64, 8 * GIB), 16, "memory decides");
        assert_eq!(capacity_for(1, 100 << 20), 1, "never below one");
        assert_eq!(
            mem_total("MemTotal:       24589104 kB\nMemFree: 1 kB\n"),
            Some(24589104 * 1024)
        );
        assert_eq!(mem_total("nothing"), None);
        assert!(default_capacity() >= 1);
    }
}
