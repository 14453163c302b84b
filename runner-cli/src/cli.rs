//! The `blaise-runner` command line: its arguments, and which command runs.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use blaise_runner::host::{HostOptions, PlugHost};
use blaise_runner::logging::{DEFAULT_FILTER, init_tracing};
use clap::{Parser, Subcommand};

use crate::commands::{
    add, check, index, inspect, keygen, lock, new, plug_test, pull, push, search,
};

/// `--version`: the runner's version and the plug contracts it loads.
static VERSION_LINE: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    use blaise_runner::contract;
    let older: Vec<String> = contract::OLDER.iter().map(|v| v.to_string()).collect();
    format!(
        "{} (plug contract {}@{}{})",
        env!("CARGO_PKG_VERSION"),
        contract::PACKAGE,
        contract::VERSION,
        if older.is_empty() {
            String::new()
        } else {
            format!("; also loads plugs built for {}", older.join(", "))
        }
    )
});

#[derive(Debug, Parser)]
#[command(
    name = "blaise-runner",
    version = &**VERSION_LINE,
    about = "Runs coding-agent sessions with sandboxed WebAssembly plugs"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Where compiled plugs are cached.
    #[arg(long, global = true, env = "BLAISE_CACHE_DIR")]
    pub cache_dir: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// The embedded default: the control plane, one runner, the plugs and the
    /// script agent in one process, with the dashboard on 127.0.0.1.
    Dev {
        /// A runner configuration to use instead of the generated one.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Where the control plane's database and the workspaces live.
        #[arg(long, default_value = ".blaise")]
        data_dir: PathBuf,
        /// Where the dashboard and the APIs listen.
        #[arg(long, default_value = "127.0.0.1:7777")]
        listen: std::net::SocketAddr,
        /// Open a session with this message and stream its transcript.
        #[arg(long)]
        message: Option<String>,
    },
    /// Connect to Blaise and serve runs until stopped.
    Start {
        /// The runner's configuration: the agent and the plugs.
        #[arg(long, default_value = "blaise.yml")]
        config: PathBuf,
        /// The control plane (`blaise serve`).
        #[arg(long, env = "BLAISE_URL", default_value = "http://127.0.0.1:7777")]
        url: String,
        /// Where the session workspaces live.
        #[arg(long, env = "BLAISE_DATA_DIR", default_value = ".blaise-runner")]
        data_dir: PathBuf,
        /// This process's name among the runner's instances.
        #[arg(long)]
        instance: Option<String>,
        /// The runner token (`blaise runner add NAME` prints it); better given
        /// through the environment than on the command line.
        #[arg(long, env = "BLAISE_RUNNER_TOKEN", hide_env_values = true)]
        token: Option<String>,
        /// Most runs this instance takes at once [default: 4 per core, at most one per
        /// 512 MiB of memory].
        #[arg(long, env = "BLAISE_RUNNER_CAPACITY", value_parser = clap::value_parser!(u32).range(1..=100_000))]
        capacity: Option<u32>,
        /// Labels this instance offers, comma-separated (an agent may require some:
        /// `blaise agent set NAME --requires-labels gpu`).
        #[arg(long, env = "BLAISE_RUNNER_LABELS", value_delimiter = ',')]
        labels: Vec<String>,
        /// Serve Prometheus metrics at `http://ADDR/metrics` (`127.0.0.1:9464`): runs in
        /// progress, hook durations per plug, bytes through the filters, the outbox
        /// (docs/metrics.md). Without it, no port is opened.
        #[arg(long, env = "BLAISE_RUNNER_METRICS_LISTEN", value_name = "ADDR")]
        metrics_listen: Option<std::net::SocketAddr>,
        /// Do not prepare ahead: never run the plugs' `on-prepare` while idle, so each
        /// session's start makes what it needs (a metered network, a Docker host you
        /// keep quiet).
        #[arg(long, env = "BLAISE_RUNNER_NO_PREPARE_AHEAD")]
        no_prepare_ahead: bool,
    },
    /// The process of one accepted run (started by `start`).
    #[command(hide = true)]
    RunOne {
        #[arg(long)]
        run: String,
        #[arg(long)]
        instance: String,
        #[arg(long)]
        url: String,
        #[arg(long)]
        config: PathBuf,
        #[arg(long)]
        data_dir: PathBuf,
        #[arg(long, env = "BLAISE_RUNNER_TOKEN", hide_env_values = true)]
        token: String,
        /// The pipe its daemon reads the run's metrics from.
        #[arg(long)]
        metrics_fd: Option<i32>,
    },
    /// One agent started ahead for a new session (started by `start`).
    #[command(hide = true, name = "warm-one")]
    WarmOne {
        /// The slot (`wrm_…` in the workspaces) to start it in.
        #[arg(long)]
        slot: String,
        #[arg(long)]
        config: PathBuf,
        #[arg(long)]
        data_dir: PathBuf,
    },
    /// One preparation of the plugs ahead of the sessions (started by `start`).
    #[command(hide = true, name = "prepare-ahead")]
    PrepareAhead {
        /// The scratch directory (`prp_…` in the workspaces) to prepare in.
        #[arg(long)]
        scratch: String,
        #[arg(long)]
        config: PathBuf,
        #[arg(long)]
        data_dir: PathBuf,
    },
    /// Validate blaise.yml, load every plug, run the startup check, print a table.
    Check {
        /// The runner's configuration to check.
        #[arg(long, default_value = "blaise.yml")]
        config: PathBuf,
        /// The agent's idle policy to run the startup check against.
        #[arg(long, value_parser = ["pause", "end"], default_value = "pause")]
        idle_policy: String,
        /// Also start the agent (its command and `agent.env`, in a throwaway workspace) and
        /// wait for its answer to ACP `initialize`: a command that exists but is not an ACP
        /// agent fails here. Not done when a plug starts the agent (a sandbox, a container).
        #[arg(long)]
        probe: bool,
        /// How long `--probe` waits for the agent's answer: a number and a unit (`500ms`,
        /// `20s`, `1m`).
        #[arg(long, value_name = "DURATION", default_value = "20s", value_parser = parse_probe_timeout)]
        probe_timeout: std::time::Duration,
    },
    /// Work with plugs.
    Plug {
        #[command(subcommand)]
        command: PlugCommand,
    },
}

#[derive(Debug, Subcommand)]
pub enum PlugCommand {
    /// Show what a plug is: name, version, contract, hooks, config schema, imports.
    Inspect {
        /// The component (`.wasm`).
        file: PathBuf,
        /// Print it as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Build a plug crate to a component (`cargo build --target wasm32-wasip2 --release`).
    Build {
        /// The plug crate's directory.
        #[arg(default_value = ".")]
        dir: PathBuf,
    },
    /// Run a plug's hooks in the real plug host through a lifecycle (start,
    /// filter, pause, resume, teardown, or the steps of a script) and show
    /// what each did; exits non-zero when a step fails.
    Test {
        /// A component (`.wasm`, from any language) or a Rust plug crate's
        /// directory (built first).
        #[arg(default_value = ".")]
        plug: PathBuf,
        /// A YAML script: the plug's `with:`, `allow:` and `limits:` as in
        /// blaise.yml, and its `steps:` (docs/writing-plugs.md).
        #[arg(long)]
        script: Option<PathBuf>,
        /// Print the whole report as JSON.
        #[arg(long)]
        json: bool,
        /// Answer JSON lines on stdin, one step each (the SDK harness's mode).
        #[arg(long, conflicts_with_all = ["script", "json"])]
        serve: bool,
    },
    /// Create a new plug from a template: a small stateful plug that builds,
    /// with a `plug-test.yml` that `plug test` runs.
    New {
        /// The plug's name; it is created in a directory of that name.
        name: String,
        /// The language it is written in.
        #[arg(long, value_enum, default_value = "rust")]
        lang: new::Lang,
    },
    /// Publish a built plug to an OCI registry as a Wasm artifact; prints its digest.
    Push {
        /// The component (`blaise-runner plug build` prints its path).
        file: PathBuf,
        /// Where to push it: `registry/name:tag`.
        reference: String,
        /// Sign the artifact (cosign format) with this private key (PEM).
        #[arg(long, value_name = "KEY")]
        sign: Option<PathBuf>,
        /// The `org.opencontainers.image.source` annotation (the plug's repository).
        #[arg(long, value_name = "URL")]
        source_url: Option<String>,
        /// The `org.opencontainers.image.licenses` annotation (SPDX).
        #[arg(long, value_name = "SPDX")]
        licenses: Option<String>,
    },
    /// Fetch a plug (OCI reference or URL) into the cache and verify it; prints its digest.
    Pull {
        /// `registry/name:tag`, `registry/name@sha256:…` or an https:// URL.
        reference: String,
    },
    /// Resolve every plug of blaise.yml to a digest and write blaise.lock beside it.
    Lock {
        /// The runner's configuration; blaise.lock is written beside it.
        #[arg(long, default_value = "blaise.yml")]
        config: PathBuf,
    },
    /// List the plugs of an index whose name or description contains TERM.
    Search {
        /// Words of a plug's name or description.
        term: String,
        /// The index: an https:// URL or a file.
        #[arg(long, env = "BLAISE_INDEX")]
        index: String,
    },
    /// Append a plug from the index to blaise.yml, pinned by digest, with the
    /// grants it asks for written out for review.
    Add {
        /// `NAME` (the newest version this runner can run) or `NAME@VERSION`.
        name: String,
        /// The index: an https:// URL or a file.
        #[arg(long, env = "BLAISE_INDEX")]
        index: String,
        /// The runner's configuration to append the plug to.
        #[arg(long, default_value = "blaise.yml")]
        config: PathBuf,
        /// The plug's id in blaise.yml (default: its name).
        #[arg(long)]
        id: Option<String>,
    },
    /// Maintain an index file.
    Index {
        #[command(subcommand)]
        command: IndexCommand,
    },
    /// Make a signing key pair: NAME.key (private) and NAME.pub.
    Keygen {
        /// The key pair's path without its extension.
        name: PathBuf,
    },
}

#[derive(Debug, Subcommand)]
pub enum IndexCommand {
    /// Add (or update) the version of a pushed plug in an index file.
    Add {
        /// The index file (created if missing).
        index_file: PathBuf,
        /// The pushed artifact: `registry/name:tag`.
        reference: String,
        /// The publisher's public key (PEM), recorded for `plug add`.
        #[arg(long, value_name = "PUB")]
        key: Option<PathBuf>,
    },
}

pub async fn run(cli: Cli) -> Result<ExitCode> {
    let options = HostOptions {
        cache_dir: cli
            .cache_dir
            .clone()
            .unwrap_or_else(HostOptions::default_cache_dir),
        ..HostOptions::default()
    };
    match cli.command {
        Command::Dev {
            config,
            data_dir,
            listen,
            message,
        } => Ok(blaise_dev::run(options, config, data_dir, listen, message).await?),
        Command::Start {
            config,
            url,
            data_dir,
            instance,
            token,
            capacity,
            labels,
            metrics_listen,
            no_prepare_ahead,
        } => {
            let Some(token) = token.filter(|t| !t.is_empty()) else {
                anyhow::bail!(
                    "no runner token: set BLAISE_RUNNER_TOKEN (or give --token) to the token \
                     `blaise runner add NAME` printed"
                );
            };
            let runner = blaise_runner::daemon::RunnerOptions {
                url,
                token,
                config,
                data_dir: absolute(&data_dir)?,
                cache_dir: options.cache_dir.clone(),
                instance: instance
                    .unwrap_or_else(blaise_runner::daemon::RunnerOptions::default_instance),
                capacity: capacity.unwrap_or_else(blaise_runner::daemon::default_capacity),
                labels: labels.into_iter().filter(|l| !l.is_empty()).collect(),
                metrics_listen,
                prepare_ahead: !no_prepare_ahead,
            };
            let host = std::sync::Arc::new(PlugHost::new(&options)?);
            blaise_runner::daemon::serve(runner, host).await?;
            Ok(ExitCode::SUCCESS)
        }
        Command::RunOne {
            run,
            instance,
            url,
            config,
            data_dir,
            token,
            metrics_fd,
        } => {
            if let Some(fd) = metrics_fd
                && let Err(e) = blaise_runner::metrics::sink::open(fd)
            {
                tracing::warn!("the run's metrics will not reach the runner: {e}");
            }
            let runner = blaise_runner::daemon::RunnerOptions {
                url,
                token,
                config,
                data_dir,
                cache_dir: options.cache_dir.clone(),
                instance,
                // A run process does not connect: what its daemon said holds.
                capacity: 1,
                labels: Vec::new(),
                metrics_listen: None,
                prepare_ahead: false,
            };
            let code = blaise_runner::daemon::run_one(runner, &run).await?;
            Ok(ExitCode::from(code as u8))
        }
        Command::WarmOne {
            slot,
            config,
            data_dir,
        } => {
            let timeout =
                std::time::Duration::from_millis(blaise_runner::protocol::DEFAULT_START_TIMEOUT_MS);
            use blaise_runner::warm::{MAY_WRAP, WarmError};
            match blaise_runner::warm::warm_one(&config, &data_dir, &slot, timeout).await {
                Ok(()) => Ok(ExitCode::SUCCESS),
                Err(e @ WarmError::MayWrap(_)) => {
                    tracing::warn!("no warm agents until blaise.yml changes: {e}");
                    Ok(ExitCode::from(MAY_WRAP as u8))
                }
                Err(e) => {
                    tracing::warn!(slot, "no warm agent: {e}");
                    Ok(ExitCode::FAILURE)
                }
            }
        }
        Command::PrepareAhead {
            scratch,
            config,
            data_dir,
        } => {
            use blaise_runner::ahead::{BUSY, NOTHING, Prepared, prepare_ahead};
            match prepare_ahead(&config, &data_dir, &options.cache_dir, &scratch).await {
                Ok(Prepared::Plugs(plugs)) if plugs.is_empty() => Ok(ExitCode::from(NOTHING as u8)),
                Ok(Prepared::Plugs(plugs)) => {
                    tracing::info!(?plugs, "prepared ahead of the sessions");
                    Ok(ExitCode::SUCCESS)
                }
                Ok(Prepared::Busy) => {
                    tracing::info!("another runner of this data directory is preparing");
                    Ok(ExitCode::from(BUSY as u8))
                }
                Err(e) => {
                    tracing::warn!("preparing ahead of the sessions: {e:#}");
                    Ok(ExitCode::FAILURE)
                }
            }
        }
        Command::Check {
            config,
            idle_policy,
            probe,
            probe_timeout,
        } => {
            let probe = probe.then_some(probe_timeout);
            check::run(&PlugHost::new(&options)?, &config, &idle_policy, probe).await
        }
        Command::Plug { command } => match command {
            PlugCommand::Inspect { file, json } => {
                inspect::run(&PlugHost::new(&options)?, &file, json).await
            }
            PlugCommand::Build { dir } => {
                let wasm = blaise_runner::build::build_plug(&dir, None)?;
                println!("{}", wasm.display());
                Ok(ExitCode::SUCCESS)
            }
            PlugCommand::Test {
                plug,
                script,
                json,
                serve,
            } => {
                let args = plug_test::TestArgs {
                    plug,
                    script,
                    json,
                    serve,
                };
                // The entries are the author's own: what the filter writes is shown.
                let options = HostOptions {
                    log_filter_calls: true,
                    ..options
                };
                plug_test::run(
                    PlugHost::new(&options)?,
                    args,
                    plug_test::LogCapture::installed(),
                )
                .await
            }
            PlugCommand::New { name, lang } => new::run(&name, lang),
            PlugCommand::Push {
                file,
                reference,
                sign,
                source_url,
                licenses,
            } => {
                let push_options = push::PushOptions {
                    sign: sign.as_deref(),
                    source_url,
                    licenses,
                };
                push::run(&PlugHost::new(&options)?, &file, &reference, push_options).await
            }
            PlugCommand::Pull { reference } => {
                pull::run(&PlugHost::new(&options)?, &reference).await
            }
            PlugCommand::Lock { config } => lock::run(&PlugHost::new(&options)?, &config).await,
            PlugCommand::Search { term, index } => search::run(&term, &index).await,
            PlugCommand::Add {
                name,
                index,
                config,
                id,
            } => add::run(&name, &index, &config, id).await,
            PlugCommand::Index {
                command:
                    IndexCommand::Add {
                        index_file,
                        reference,
                        key,
                    },
            } => {
                index::add(
                    &PlugHost::new(&options)?,
                    &index_file,
                    &reference,
                    key.as_deref(),
                )
                .await
            }
            PlugCommand::Keygen { name } => keygen::run(&name),
        },
    }
}

/// Logging for a command: `dev` talks to a person on the terminal (only
/// warnings unless `RUST_LOG` says otherwise), `plug test` shows the plug's
/// lines with its steps, the rest log the runner's work.
pub fn init_tracing_for(command: &Command) {
    match command {
        Command::Dev { .. } => init_tracing("warn"),
        Command::Plug {
            command: PlugCommand::Test { .. },
        } => plug_test::init_tracing(),
        _ => init_tracing(DEFAULT_FILTER),
    }
}

/// `--probe-timeout`: `20s`, `500ms`, `1m`; more than nothing.
fn parse_probe_timeout(text: &str) -> Result<std::time::Duration, String> {
    match blaise_runner::units::parse_duration(text)? {
        d if d.is_zero() => Err("the probe needs some time: more than 0".into()),
        d => Ok(d),
    }
}

fn absolute(path: &std::path::Path) -> Result<PathBuf> {
    std::fs::create_dir_all(path)?;
    Ok(path.canonicalize()?)
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory as _;

    /// Issue "An operator's first day": a command or flag added without a
    /// word of help fails here, naming it.
    #[test]
    fn every_command_and_flag_says_what_it_is() {
        let cmd = super::Cli::command();
        cmd.clone().debug_assert();
        let missing = blaise_test_support::help::undocumented(&cmd);
        assert!(
            missing.is_empty(),
            "without help text:\n  {}",
            missing.join("\n  ")
        );
    }
}
