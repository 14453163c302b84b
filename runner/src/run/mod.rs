//! One run, in its own process: the phases of a start, resume or teardown run,
//! one file each.
//!
//! - `prepare`: the plug chain for the run, and the `plugs_can_resume` report
//! - `agent_start`: `on-start`/`on-resume`, the agent launched with the plugs'
//!   contributions, its ACP session created or loaded, `started`
//! - `turns`: directives in, prompts to the agent, the transcript out
//! - `stop`: the end of a run that had an agent: cancel, close, pause, tear down, report
//! - `teardown`: a teardown run (no agent)
//! - `egress`: what left the agent's network namespace, for the run's record
//! - `reports`, `transcript`, `heartbeat`, `workspace`: what the phases share
//! - `fields`: how a structured entry meets the text filters
//! - `agent_home`: `HOME` and the XDG directories of the agent, in the workspace
//! - `agent_log`: the agent's stderr in the runner's log, at a bounded rate
//! - `outbox`, `contact`: what the run tells Blaise, in order, until Blaise has it
//! - `signals`: SIGINT/SIGTERM, watched from the first moment of the run
//! - `run_dir`: the run's own directory, held while it lives, swept when it died

mod agent_home;
mod agent_log;
pub(crate) mod agent_start;
mod egress;
mod fields;
mod heartbeat;
mod outbox;
mod prepare;
mod reports;
pub(crate) mod run_dir;
mod signals;
mod stop;
mod teardown;
pub(crate) mod transcript;
mod turns;
pub(crate) mod workspace;

use std::path::PathBuf;
use std::sync::Arc;

use crate::config::{ConfigFile, ResolvedPlug};
use crate::host::PlugHost;
use crate::protocol::{Assignment, Client, RunKind};

/// The environment variable that tells a run process when its run was accepted (the daemon
/// sets it; the run measures its own start from it).
pub const ACCEPTED_AT: &str = "BLAISE_RUN_ACCEPTED_AT_US";

/// Microseconds since the Unix epoch ([`ACCEPTED_AT`]'s unit).
pub fn unix_micros() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros())
}

// `blaise-runner check --probe` starts the agent as a run would; `plug test`
// names a plug's entries as a run records them.
pub use agent_start::agent_command;
pub use heartbeat::LOST_CONTACT;
pub use outbox::{Item, Limits as OutboxLimits, Outbox, OutboxError};
pub use reports::{ReportError, Reporter, report_once};
pub use transcript::wire_kind;

/// Everything a run process needs.
pub struct RunContext {
    pub client: Client,
    pub assignment: Assignment,
    pub config: ConfigFile,
    pub plugs: Vec<ResolvedPlug>,
    pub host: Arc<PlugHost>,
    /// Where the runner keeps its workspaces (`<data-dir>/workspaces/<environment>`).
    pub data_dir: PathBuf,
    /// The daemon's keeper, when the run was started by one (hot resume).
    pub keeper: Option<Arc<crate::keeper::KeeperClient>>,
}

impl RunContext {
    /// The keeper, when this run may keep its agent across a pause: the
    /// agent's settings allow a hot pause and the daemon has a keeper.
    pub fn hot_keeper(&self) -> Option<&Arc<crate::keeper::KeeperClient>> {
        self.keeper
            .as_ref()
            .filter(|_| self.assignment.settings.hot_for_ms > 0)
    }
}

impl RunContext {
    /// The run's own directory (`<data-dir>/runs/<run id>`): what the outbox
    /// spills to disk. Removed when the run ends (see `run_dir`).
    pub fn run_dir(&self) -> PathBuf {
        self.data_dir.join("runs").join(&self.assignment.run_id)
    }
}

/// How a run ended, for the process's exit status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Paused,
    TornDown,
    Failed(String),
    Cancelled,
    /// Blaise could not be reached: the run stopped without a final report.
    LostContact,
}

impl Outcome {
    pub fn exit_code(&self) -> i32 {
        match self {
            Outcome::Paused | Outcome::TornDown | Outcome::Cancelled => 0,
            Outcome::Failed(_) => 1,
            Outcome::LostContact => 3,
        }
    }
}

/// Runs an accepted run to its end. Everything it logs names the session
/// and the run (a runner's log interleaves its runs').
pub async fn execute(ctx: RunContext) -> Outcome {
    use tracing::Instrument;
    let span = tracing::info_span!(
        "run",
        session = %ctx.assignment.session_id,
        run = %ctx.assignment.run_id
    );
    // Held until the run ends (removed then); a run killed with SIGKILL
    // leaves it for the daemon's sweep.
    let dir = run_dir::RunDir::claim(ctx.run_dir());
    // From here on a signal is the run's to handle (see `signals`); a
    // teardown run only lets it finish its teardown.
    let signals = signals::Signals::install();
    let outcome = async move {
        match ctx.assignment.kind {
            RunKind::Start | RunKind::Resume => agent_start::run(ctx, signals).await,
            RunKind::Teardown => teardown::run(ctx).await,
        }
    }
    .instrument(span)
    .await;
    drop(dir);
    outcome
}
