//! The `blaise-runner` command line: argument parsing here, the work in the library.

mod build;
mod check;
mod inspect;
mod new;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};

use crate::host::{HostOptions, PlugHost};

#[derive(Debug, Parser)]
#[command(
    name = "blaise-runner",
    version,
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
    /// Validate blaise.yml, load every plug, run the startup check, print a table.
    Check {
        #[arg(long, default_value = "blaise.yml")]
        config: PathBuf,
        /// The agent's idle policy to run the startup check against.
        #[arg(long, value_parser = ["pause", "end"], default_value = "pause")]
        idle_policy: String,
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
        file: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Build a plug crate to a component (`cargo build --target wasm32-wasip2 --release`).
    Build {
        /// The plug crate's directory.
        #[arg(default_value = ".")]
        dir: PathBuf,
    },
    /// Run a plug crate's tests (the SDK harness runs the compiled plug in the
    /// real plug host): `cargo test --release` in its directory.
    Test {
        /// The plug crate's directory.
        #[arg(default_value = ".")]
        dir: PathBuf,
    },
    /// Create a new plug crate from the SDK template.
    New {
        /// The plug's name; the crate is created in a directory of that name.
        name: String,
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
        Command::Check {
            config,
            idle_policy,
        } => check::run(&PlugHost::new(&options)?, &config, &idle_policy).await,
        Command::Plug { command } => match command {
            PlugCommand::Inspect { file, json } => {
                inspect::run(&PlugHost::new(&options)?, &file, json).await
            }
            PlugCommand::Build { dir } => {
                let wasm = build::build_plug(&dir, None)?;
                println!("{}", wasm.display());
                Ok(ExitCode::SUCCESS)
            }
            PlugCommand::Test { dir } => build::test_plug(&dir),
            PlugCommand::New { name } => new::run(&name),
        },
    }
}

/// Logs to stderr; `RUST_LOG` filters (default: warnings, and info from the runner).
pub fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,blaise_runner=info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}

pub use build::build_plug;
