//! The `blaise` command line: its arguments (here), `serve` (`serve.rs`), and the client
//! commands (`commands.rs`) that call the user API through [`Client`].

mod backup;
mod commands;
pub mod follow;
mod human;
mod people;
mod serve;
mod show;
mod status;
mod webhooks;

use std::io::Write;
use std::net::SocketAddr;

use anyhow::Result;
use clap::{Args, Parser, Subcommand};

pub use blaise_control::client::Client;
pub use commands::client_command;

use blaise_control::duration;
use blaise_control::lifecycle::agents::{Budget, NoBudget};
use blaise_control::model::IdlePolicy;

#[derive(Parser, Debug)]
#[command(
    name = "blaise",
    version,
    about = "The Blaise control plane and its client"
)]
pub struct Cli {
    /// The control plane's URL (client commands).
    #[arg(
        long,
        global = true,
        env = "BLAISE_URL",
        default_value = "http://127.0.0.1:7777"
    )]
    pub url: String,
    #[command(subcommand)]
    pub command: Command,
}

/// The command line as `blaise` parses it: the client's global `--url` is
/// kept out of the help of the commands that never call the control plane
/// (`serve`, `backup`).
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    let unused_url = || clap::Arg::new("url").long("url").hide(true);
    Cli::command()
        .mut_subcommand("serve", |c| c.arg(unused_url()))
        .mut_subcommand("backup", |c| c.arg(unused_url()))
}

impl Cli {
    /// Parses the process's arguments with [`command`]; exits with clap's
    /// message when they are wrong.
    pub fn from_env() -> Cli {
        use clap::FromArgMatches;
        Cli::from_arg_matches_mut(&mut command().get_matches()).unwrap_or_else(|e| e.exit())
    }
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// The control plane with its dashboard.
    Serve(ServeArgs),
    /// Agents and their settings (the only place timing lives).
    #[command(subcommand)]
    Agent(AgentCommand),
    /// Runner tokens.
    #[command(subcommand)]
    Runner(RunnerCommand),
    /// Talk to and look at sessions.
    #[command(subcommand)]
    Session(SessionCommand),
    /// Environments.
    #[command(subcommand)]
    Environment(EnvironmentCommand),
    /// People: who may use Blaise, with what role, each with a token of their own.
    #[command(subcommand)]
    User(UserCommand),
    /// The audit trail: who changed what, when, and through what (admins).
    Audit(AuditArgs),
    /// Notifications: webhooks told when something needs a person (admins).
    #[command(subcommand)]
    Webhook(WebhookCommand),
    /// A consistent copy of the database, taken while `serve` runs.
    Backup(BackupArgs),
    /// Whether the control plane is up and reaches its database.
    ///
    /// Asks `--url` (no token needed) and exits non-zero when it is not up, saying why.
    Status(StatusArgs),
}

#[derive(Args, Debug)]
pub struct StatusArgs {
    /// Ask again until it is up, for at most this long (`30s`, `2m`): for a script that has
    /// just started `blaise serve`.
    #[arg(long, value_parser = parse_duration, value_name = "DURATION")]
    pub wait: Option<i64>,
    /// Print the health record as JSON for scripts.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
#[command(after_help = "\
Restore: stop `blaise serve` and start it with `--db` naming the copy (or move
the copy over the database after deleting its `-wal` and `-shm` files). The
admin and runner tokens are in the database: they work again as they were.")]
pub struct BackupArgs {
    /// The database `serve` uses (its `--db`): a SQLite file. Given a
    /// PostgreSQL URL, this says how to back it up with PostgreSQL's tools.
    #[arg(
        long,
        env = "BLAISE_DB",
        default_value = "blaise.db",
        hide_env_values = true
    )]
    pub db: String,
    /// The new file to write; an existing file is never replaced.
    pub to: std::path::PathBuf,
}

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Where state is kept: a SQLite file (one instance), or a PostgreSQL URL
    /// (`postgres://user:password@host/database`; several instances may share it). Created or
    /// migrated on start. Give a URL with a password through `BLAISE_DB`, not the command line.
    #[arg(
        long,
        env = "BLAISE_DB",
        default_value = "blaise.db",
        hide_env_values = true
    )]
    pub db: String,
    /// The address the APIs and the dashboard listen on: plain HTTP, or HTTPS with
    /// `--tls-cert` and `--tls-key` (or behind a TLS proxy; docs/control-plane.md).
    #[arg(long, env = "BLAISE_LISTEN", default_value = "127.0.0.1:7777")]
    pub listen: SocketAddr,
    /// Serve HTTPS with this PEM certificate chain (the server's certificate first).
    #[arg(
        long,
        env = "BLAISE_TLS_CERT",
        requires = "tls_key",
        value_name = "FILE"
    )]
    pub tls_cert: Option<std::path::PathBuf>,
    /// The PEM private key of `--tls-cert`.
    #[arg(
        long,
        env = "BLAISE_TLS_KEY",
        requires = "tls_cert",
        value_name = "FILE"
    )]
    pub tls_key: Option<std::path::PathBuf>,
    /// The clock acts when a limit falls due; this is how often it also looks at everything
    /// (a run's own timeout, runs waiting for a runner, the retention).
    #[arg(long, default_value = "5s", value_parser = parse_duration)]
    pub check_interval: i64,
    /// No agent's paused lifetime exceeds this.
    #[arg(long, default_value = "7d", value_parser = parse_duration)]
    pub paused_lifetime_cap: i64,
    /// An accepted run that never contacts Blaise within this is failed.
    #[arg(long, default_value = "1m", value_parser = parse_duration)]
    pub connect_timeout: i64,
    /// A run silent for this long (no heartbeat, no report) is timed out.
    #[arg(long, default_value = "1m", value_parser = parse_duration)]
    pub heartbeat_timeout: i64,
    /// A run that has not ended this long after its stop directive is failed.
    #[arg(long, default_value = "1m", value_parser = parse_duration)]
    pub stop_grace: i64,
    /// The delay before a failed teardown's first retry (it doubles with each attempt).
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub teardown_backoff: i64,
    /// Teardown attempts before the environment is orphaned.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..))]
    pub teardown_attempts: u32,
    /// Prune an ended session's transcript, directives and reports this long
    /// after it ended (e.g. `30d`); without it everything is kept.
    #[arg(long, value_parser = parse_duration)]
    pub retain_ended: Option<i64>,
    /// A new session's first run fails when no connected runner can take it (none serves its
    /// agent or has the labels the agent requires) for this long.
    #[arg(long, default_value = "10m", value_parser = parse_duration)]
    pub runner_wait: i64,
    /// Answer for the Linear apps this file names: their agent sessions become Blaise sessions
    /// (docs/linear.md).
    #[arg(long, env = "BLAISE_LINEAR", value_name = "FILE")]
    pub linear: Option<std::path::PathBuf>,
    /// Sign people in to the dashboard with the identity provider this file names (OpenID
    /// Connect), and let in the emails and groups it gives roles (docs/operators-guide.md).
    #[arg(long, env = "BLAISE_OIDC", value_name = "FILE")]
    pub oidc: Option<std::path::PathBuf>,
    /// Let webhooks be sent to loopback, private and link-local addresses (a receiver inside
    /// your network). Off, a webhook whose host leads there is refused when it is sent.
    #[arg(long, env = "BLAISE_WEBHOOKS_TO_PRIVATE_ADDRESSES")]
    pub webhooks_to_private_addresses: bool,
}

impl ServeArgs {
    pub fn config(&self) -> blaise_control::config::Config {
        blaise_control::config::Config {
            check_interval_ms: self.check_interval,
            paused_lifetime_cap_ms: self.paused_lifetime_cap,
            connect_timeout_ms: self.connect_timeout,
            heartbeat_timeout_ms: self.heartbeat_timeout,
            heartbeat_interval_ms: (self.heartbeat_timeout / 3).max(1),
            stop_grace_ms: self.stop_grace,
            teardown_backoff_ms: self.teardown_backoff,
            teardown_attempts: self.teardown_attempts,
            retain_ended_ms: self.retain_ended,
            runner_wait_ms: self.runner_wait,
            webhooks_to_private_addresses: self.webhooks_to_private_addresses,
            ..blaise_control::config::Config::default()
        }
    }
}

#[derive(Subcommand, Debug)]
pub enum AgentCommand {
    /// Creates or changes an agent; unset options keep their value.
    Set {
        /// The agent's name, as runners' `blaise.yml` give it (`agent.name`).
        name: String,
        /// How long a session may sit with no turn before the idle policy
        /// applies: a number and a unit, `500ms`, `30s`, `10m`, `2h`, `1d`
        /// (new agents: 10m).
        #[arg(long, value_parser = parse_duration)]
        inactivity: Option<i64>,
        /// What an idle session does: `pause` (keeps its environment, resumes
        /// on the next message) or `end` (closes it; new agents: pause).
        #[arg(long, value_parser = parse_policy)]
        idle_policy: Option<IdlePolicy>,
        /// How long a paused session waits for a message before it ends
        /// (`1d`, …; at most `serve --paused-lifetime-cap`).
        #[arg(long, value_parser = parse_duration)]
        paused_lifetime: Option<i64>,
        /// The longest a turn may take before it is cancelled (`30m`, …).
        #[arg(long, value_parser = parse_duration)]
        timeout: Option<i64>,
        /// How long a paused session's agent stays running, frozen, on the
        /// runner that paused it, so that the next message is answered at
        /// once (hot resume; `15m`, …; `0s`: never, the default). Runners
        /// whose plugs cannot keep processes pause cold regardless.
        #[arg(long, value_parser = parse_duration)]
        hot_for: Option<i64>,
        /// How many agents each runner instance serving this agent keeps
        /// started ahead, so that a new session is answered without waiting
        /// for its agent to start (warm starts; 0 to 16; `0`: none, the
        /// default). A warm agent serves one session only; runners give warm
        /// agents up before they refuse a run or run short of memory.
        #[arg(long, value_name = "N")]
        warm: Option<u32>,
        /// How long the agent may take to answer `initialize`, and then to
        /// open or load its conversation; past it the run stops the agent and
        /// the session pauses with its environment (new agents: 60s).
        #[arg(long, value_parser = parse_duration)]
        start_timeout: Option<i64>,
        /// How long a turn may go on after a cancel before the run stops the
        /// agent that ignores it; the turn ends as cancelled and the next
        /// message starts the agent again (new agents: 10s).
        #[arg(long, value_parser = parse_duration)]
        cancel_grace: Option<i64>,
        /// How long a turn may go without any output before Blaise cancels it
        /// (new agents: 30m).
        #[arg(long, value_parser = parse_duration)]
        silent_turn: Option<i64>,
        /// How many turns may fail in a row (an error answer, an agent that
        /// died) before Blaise pauses the session, its environment kept; the
        /// next message starts the agent again (new agents: 3).
        #[arg(long)]
        max_failed_turns: Option<u32>,
        /// What a session may spend, in the currency the agent reports (`5`,
        /// `12.50`), before Blaise stops it (its environment kept) until its
        /// budget is raised (`session budget`); `none`: no budget (new agents).
        #[arg(long, value_parser = parse_budget)]
        session_budget: Option<Budget>,
        /// What the agent's sessions may spend in a day (UTC) before new turns
        /// are refused until the next day; `none`: no budget (new agents).
        #[arg(long, value_parser = parse_budget)]
        daily_budget: Option<Budget>,
        /// Disable (archive) the agent: no new runs start for it, except teardown runs.
        #[arg(long, conflicts_with = "enable")]
        disable: bool,
        /// Enable a disabled agent.
        #[arg(long)]
        enable: bool,
        /// Labels a runner must have to take this agent's runs, comma-separated
        /// (`--requires-labels gpu,region-eu`; `""` requires none).
        #[arg(long)]
        requires_labels: Option<String>,
    },
    /// Lists the agents and their settings.
    List {
        /// Print JSON (times in milliseconds since the epoch) for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Shows one agent's settings.
    Show {
        /// The agent's name.
        name: String,
        /// Print JSON for scripts.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand, Debug)]
pub enum RunnerCommand {
    /// Adds a runner and prints its token (shown once). Without `--agents`
    /// or `--labels` the token may serve any agent and claim any label.
    Add {
        /// The runner's name (its instances connect with its token).
        name: String,
        /// The agents its token may serve, comma-separated (`--agents web,docs`);
        /// an instance that connects for another agent is refused.
        #[arg(long, value_name = "AGENTS")]
        agents: Option<String>,
        /// The labels its instances may claim, comma-separated (`--labels gpu,region-eu`;
        /// `""`: none); an instance that claims another label is refused.
        #[arg(long, value_name = "LABELS")]
        labels: Option<String>,
    },
    /// Changes what a runner's token may serve; unset options keep their value.
    /// It holds at once: its instances are offered only what the new scope
    /// allows, and one that connects claiming more is refused; a session
    /// whose environment it holds and whose agent it may no longer serve
    /// continues on another runner, in a fresh environment.
    Set {
        /// The runner's name.
        name: String,
        /// The agents its token may serve, comma-separated.
        #[arg(long, value_name = "AGENTS", conflicts_with = "any_agent")]
        agents: Option<String>,
        /// Let its token serve any agent.
        #[arg(long)]
        any_agent: bool,
        /// The labels its instances may claim, comma-separated (`""`: none).
        #[arg(long, value_name = "LABELS", conflicts_with = "any_label")]
        labels: Option<String>,
        /// Let its instances claim any label.
        #[arg(long)]
        any_label: bool,
    },
    /// Revokes a runner's token: its instances' calls are refused, their
    /// runs time out, sessions waiting for it go to other runners.
    Revoke {
        /// The runner's name (its instances connect with its token).
        name: String,
    },
    /// Gives a runner a new token and prints it (shown once): the old one
    /// stops working at once; a revoked runner is valid again, with its
    /// name and its environments.
    Token {
        /// The runner's name (its instances connect with its token).
        name: String,
    },
    /// Lists the runners, what their runs spent today (UTC), and their instances (seen in the
    /// last week): connected or not, agents, labels, capacity, live runs, last seen.
    List {
        /// Print JSON (times in milliseconds since the epoch) for scripts.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand, Debug)]
pub enum SessionCommand {
    /// Opens a session; prints its id.
    New {
        /// The agent that answers (`agent list`).
        #[arg(long)]
        agent: String,
        /// The first message.
        #[arg(long)]
        message: String,
        /// After the id, print the conversation as it comes until the agent has answered
        /// (exit status 2 when it asks for permission first, saying how to answer).
        #[arg(long)]
        wait: bool,
    },
    /// Sends a follow-up message.
    Send {
        /// The session's id (`ses_…`, as `session new` and `session list` print it).
        id: String,
        /// The message.
        text: String,
        /// Print the conversation as it comes until the agent has answered (exit status 2
        /// when it asks for permission first, saying how to answer).
        #[arg(long)]
        wait: bool,
    },
    /// Prints the conversation as it comes until the agent has answered every message sent.
    ///
    /// Exit status 0 once it has; 2 when it asks for permission first (printing how to
    /// answer); 1 when the session ends first.
    Wait {
        /// The session's id (`ses_…`, as `session new` and `session list` print it).
        id: String,
        /// Print only the entries after this index (`[N]` in what is printed; default: the
        /// whole conversation).
        #[arg(long, default_value_t = 0, value_name = "INDEX")]
        after: i64,
    },
    /// Closes a session (its environment is torn down).
    Close {
        /// The session's id (`ses_…`, as `session new` and `session list` print it).
        id: String,
    },
    /// Answers an agent's permission request with one of the options it
    /// offers (`session show` lists pending requests and their options).
    Answer {
        /// The session's id (`ses_…`, as `session new` and `session list` print it).
        id: String,
        /// The request, as `session show` names it (`perm-1`).
        request: String,
        /// The option's id (`allow`, `option-2`, …).
        option: String,
    },
    /// Sets the session's own budget (in the currency its agent reports): a
    /// session stopped for its budget takes messages again once under it.
    Budget {
        /// The session's id (`ses_…`, as `session new` and `session list` print it).
        id: String,
        /// The new budget (`5`, `12.50`).
        #[arg(value_parser = parse_amount)]
        amount: f64,
    },
    /// Cancels the turn in progress (the agent stops working on the
    /// message; the session stays open).
    Cancel {
        /// The session's id (`ses_…`, as `session new` and `session list` print it).
        id: String,
    },
    /// Lists the sessions, the latest first; a session whose agent waits for a person to
    /// answer its permission request shows as `waiting for you`.
    List {
        /// Only the sessions waiting for you (`session answer` answers them).
        #[arg(long)]
        waiting_for_you: bool,
        /// Only sessions in this state (active, paused, closed, completed, timed_out, failed,
        /// expired).
        #[arg(long)]
        state: Option<String>,
        /// Only this agent's sessions.
        #[arg(long)]
        agent: Option<String>,
        /// Only the sessions whose run waits for a runner to take it.
        #[arg(long, conflicts_with = "waiting_for_you")]
        waiting_for_runner: bool,
        /// Only the sessions whose environment this runner holds.
        #[arg(long)]
        runner: Option<String>,
        /// Only the sessions you started (with your token).
        #[arg(long, conflicts_with = "started_by")]
        mine: bool,
        /// Only the sessions this person started (a name, an email, `admin`, `linear:APP`).
        #[arg(long)]
        started_by: Option<String>,
        /// Sessions a page holds (1–1000).
        #[arg(long, default_value_t = 100)]
        limit: u32,
        /// The page after the one that said `--after CURSOR`.
        #[arg(long, conflicts_with = "all")]
        after: Option<String>,
        /// Every page, not only the first.
        #[arg(long)]
        all: bool,
        /// Print JSON (times in milliseconds since the epoch) for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Shows a session: its state and times, why a run waits, pending
    /// permission requests, waiting messages, its environment and runs.
    Show {
        /// The session's id (`ses_…`, as `session new` and `session list` print it).
        id: String,
        /// Print JSON for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Prints a session's transcript: what was said and what the agent did.
    Transcript {
        /// The session's id (`ses_…`, as `session new` and `session list` print it).
        id: String,
        /// Keep printing new entries until the session ends.
        #[arg(long)]
        follow: bool,
    },
}

/// A person's role: what they may do.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum RoleArg {
    /// Reads sessions, transcripts, agents, runners and environments.
    Viewer,
    /// Also starts sessions, sends, answers permission requests, cancels and closes.
    Operator,
    /// Also manages agents, runners, people and budgets, retries teardowns, reads the audit trail.
    Admin,
}

impl RoleArg {
    pub fn as_str(self) -> &'static str {
        match self {
            RoleArg::Viewer => "viewer",
            RoleArg::Operator => "operator",
            RoleArg::Admin => "admin",
        }
    }
}

#[derive(Subcommand, Debug)]
pub enum UserCommand {
    /// Adds a person and prints their token (shown once): they set it as `BLAISE_TOKEN`, or
    /// paste it in the dashboard's login page.
    Add {
        /// Their name (a-z, 0-9, `.`, `_`, `-`): the audit trail and the sessions they start say it.
        name: String,
        /// What they may do.
        #[arg(long, value_enum)]
        role: RoleArg,
    },
    /// Lists the people, their roles, who added them and when.
    List {
        /// Print JSON (times in milliseconds since the epoch) for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Changes a person's role; their dashboard logins end (they log in again as what they are now).
    Set {
        /// Their name.
        name: String,
        /// What they may do from now on.
        #[arg(long, value_enum)]
        role: RoleArg,
    },
    /// Gives a person a new token (printed once); the old one stops working at once.
    Token {
        /// Their name.
        name: String,
    },
    /// Removes a person: their token stops working and their dashboard logins end at once.
    /// What they did stays in the audit trail.
    Remove {
        /// Their name.
        name: String,
    },
}

#[derive(Subcommand, Debug)]
pub enum WebhookCommand {
    /// Adds (or replaces) a webhook: Blaise POSTs the events it names, signed with
    /// HMAC-SHA256 (`Blaise-Signature: v1=HEX` over `TIMESTAMP.BODY`), retrying until the
    /// receiver answers 2xx.
    Add {
        /// Its name (a-z, 0-9, `.`, `_`, `-`).
        name: String,
        // Not `url`: that id is the global `--url` (the control plane's), which it would set.
        /// Where events are POSTed (`https://…`).
        #[arg(value_name = "URL")]
        endpoint: String,
        /// Comma-separated: permission_requested, session_failed, environment_orphaned,
        /// waiting_for_runner.
        #[arg(long)]
        events: String,
        /// Where `blaise serve` reads the signing secret: `env:NAME` or `file:/path`.
        #[arg(long)]
        secret: String,
        /// Send a Slack incoming webhook's body (`{"text": …}`).
        #[arg(long)]
        slack: bool,
        /// For waiting_for_runner: how long a session waits before the webhook is told (`10m`).
        #[arg(long, value_parser = parse_duration)]
        waiting_longer_than: Option<i64>,
    },
    /// Lists the webhooks and how their latest delivery went.
    List {
        /// Print JSON (times in milliseconds since the epoch) for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Removes a webhook; deliveries not made yet go with it.
    Remove {
        /// Its name.
        name: String,
    },
    /// Sends a `ping` event now, to check the receiver and its signature check.
    Test {
        /// Its name.
        name: String,
    },
    /// The delivery log: each event sent to a webhook, its attempts and how the last went.
    Deliveries {
        /// Its name.
        name: String,
        /// Deliveries a page holds (1–1000).
        #[arg(long, default_value_t = 20)]
        limit: usize,
        /// The page after the one that said `--after CURSOR`.
        #[arg(long)]
        after: Option<i64>,
        /// Print JSON for scripts.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args, Debug)]
pub struct AuditArgs {
    /// Only what this person did (a name, an email, `admin`, `linear:APP`).
    #[arg(long)]
    pub actor: Option<String>,
    /// Only what was done to this session (`ses_…`).
    #[arg(long)]
    pub session: Option<String>,
    /// Only this action (`session.start`, `permission.answer`, `runner.revoke`, …).
    #[arg(long)]
    pub action: Option<String>,
    /// Entries a page holds (1–1000).
    #[arg(long, default_value_t = 100)]
    pub limit: u32,
    /// The page after the one that said `--after CURSOR`.
    #[arg(long)]
    pub after: Option<i64>,
    /// Print JSON (times in milliseconds since the epoch) for scripts.
    #[arg(long)]
    pub json: bool,
}

#[derive(Subcommand, Debug)]
pub enum EnvironmentCommand {
    /// Retries the teardown of an orphaned environment.
    Retry {
        /// The environment's id (`env_…`, as `environment list` prints it).
        id: String,
    },
    /// Lists environments: every state but `torn_down`, or one state.
    List {
        /// `creating`, `active`, `paused`, `tearing_down`, `torn_down` or
        /// `orphaned`.
        #[arg(long)]
        state: Option<String>,
        /// Print JSON (times in milliseconds since the epoch) for scripts.
        #[arg(long)]
        json: bool,
    },
}

fn parse_duration(text: &str) -> Result<i64, String> {
    duration::parse(text)
}

fn parse_amount(text: &str) -> Result<f64, String> {
    blaise_control::lifecycle::usage::parse_amount(text)
}

/// An amount, or `none`, as the API takes it.
fn parse_budget(text: &str) -> Result<Budget, String> {
    if text.trim() == "none" {
        return Ok(Budget::Off(NoBudget::None));
    }
    parse_amount(text)
        .map(Budget::Amount)
        .map_err(|e| format!("{e}, or none"))
}

fn parse_policy(text: &str) -> Result<IdlePolicy, String> {
    IdlePolicy::parse(text).ok_or_else(|| format!("{text:?}: the idle policy is `pause` or `end`"))
}

pub async fn run(cli: Cli, out: &mut (dyn Write + Send)) -> Result<()> {
    match cli.command {
        Command::Serve(args) => serve::serve(args, out).await,
        Command::Backup(args) => backup::run(&args, out),
        Command::Status(args) => status::run(&cli.url, &args, out).await,
        command => {
            let client = Client::from_env(&cli.url)?;
            client_command(&client, command, out).await
        }
    }
}

#[cfg(test)]
mod help_tests {
    /// Issue "An operator's first day": a command or flag added without a
    /// word of help fails here, naming it.
    #[test]
    fn every_command_and_flag_says_what_it_is() {
        let cmd = super::command();
        cmd.clone().debug_assert();
        let missing = blaise_test_support::help::undocumented(&cmd);
        assert!(
            missing.is_empty(),
            "without help text:\n  {}",
            missing.join("\n  ")
        );
    }

    #[test]
    fn the_servers_help_lists_only_what_it_takes() {
        let mut cmd = super::command();
        // As parsing does: global flags reach the subcommands.
        cmd.build();
        for name in ["serve", "backup"] {
            let help = cmd
                .find_subcommand_mut(name)
                .unwrap()
                .render_long_help()
                .to_string();
            assert!(
                !help.contains("--url"),
                "the client's --url in `{name} --help`:\n{help}"
            );
        }
        let help = cmd
            .find_subcommand_mut("session")
            .unwrap()
            .render_long_help()
            .to_string();
        assert!(help.contains("--url"), "{help}");
    }
}
