//! `blaise-runner dev`: the embedded default. The control plane in-process
//! (SQLite under `--data-dir`), one runner, the first-party plugs and the
//! script agent, the dashboard on 127.0.0.1; `--message` opens a session and
//! streams its transcript. Built for a checkout of this repository: what it
//! runs (the plugs, the script agent) is built with cargo on first use.

use std::net::SocketAddr;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context as _, Result, bail};
use blaise_control::embedded::Embedded;
use serde_json::json;

pub mod tools;

use blaise_runner::daemon::{self, RunnerOptions};
use blaise_runner::host::{HostOptions, PlugHost};
use tools::Tool;

/// The agent `dev` serves.
pub const AGENT: &str = "script";

/// Why `dev` stopped, by which part failed.
#[derive(Debug, thiserror::Error)]
pub enum DevError {
    /// Getting ready: the data directory, the generated blaise.yml, building
    /// the plugs and the script agent, the agent's image.
    #[error("{0}")]
    Setup(String),
    /// The embedded control plane, or talking to it.
    #[error("{0}")]
    Control(String),
    /// The plug host.
    #[error(transparent)]
    Host(#[from] blaise_runner::host::HostError),
    /// The runner.
    #[error(transparent)]
    Runner(#[from] daemon::DaemonError),
}

fn setup(e: anyhow::Error) -> DevError {
    DevError::Setup(format!("{e:#}"))
}

fn control(e: impl Into<anyhow::Error>) -> DevError {
    DevError::Control(format!("{:#}", e.into()))
}

pub async fn run(
    options: HostOptions,
    config: Option<PathBuf>,
    data_dir: PathBuf,
    listen: SocketAddr,
    message: Option<String>,
) -> Result<ExitCode, DevError> {
    let (data_dir, config, plugs) = prepare(&data_dir, config).map_err(setup)?;
    let embedded = Embedded::start(&data_dir.join("blaise.db"), listen, Default::default())
        .await
        .map_err(control)?;
    embedded
        .set_agent(AGENT, Default::default())
        .map_err(control)?;
    let token = embedded.runner_token("dev").map_err(control)?;
    println!(
        "Blaise dashboard: {}/  (log in with the admin token {})",
        embedded.url, embedded.admin_token
    );
    println!(
        "  blaise CLI:     BLAISE_TOKEN={} blaise --url {} session list",
        embedded.admin_token, embedded.url
    );
    println!("  runner config:  {}", config.display());
    if let Some(plugs) = plugs {
        println!("{plugs}");
    }

    let runner = RunnerOptions {
        url: embedded.url.clone(),
        token,
        config,
        data_dir: data_dir.clone(),
        cache_dir: options.cache_dir.clone(),
        instance: "dev".into(),
        capacity: daemon::default_capacity(),
        labels: Vec::new(),
        metrics_listen: None,
        prepare_ahead: true,
    };
    let host = Arc::new(PlugHost::new(&options)?);
    let mut serving = tokio::spawn(daemon::serve(runner, host));

    if let Some(message) = message {
        let user = blaise_control::client::Client::new(&embedded.url, &embedded.admin_token);
        let session = user
            .post(
                "/v1/sessions",
                json!({ "agent": AGENT, "message": message }),
            )
            .await
            .map_err(control)?;
        let id = session["id"]
            .as_str()
            .ok_or_else(|| DevError::Control("the new session has no id".into()))?
            .to_string();
        println!("session {id} (Ctrl-C to stop)");
        tokio::select! {
            result = follow(&user, &id) => result.map_err(control)?,
            served = &mut serving => return finish(served),
        }
    }
    println!("serving runs (Ctrl-C to stop)");
    finish(serving.await)
}

/// The data directory, made absolute, and the runner's blaise.yml: the
/// given one, or one written there (with what it holds, for the terminal).
fn prepare(data_dir: &Path, config: Option<PathBuf>) -> Result<(PathBuf, PathBuf, Option<String>)> {
    // It holds the database (every transcript) and the runner's state: its owner's only.
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(data_dir)?;
    let data_dir = data_dir.canonicalize()?;
    Ok(match config {
        Some(config) => (data_dir, config, None),
        None => {
            let (config, plugs) = write_default_config(&data_dir)?;
            (data_dir, config, Some(plugs))
        }
    })
}

fn finish(
    served: Result<Result<(), daemon::DaemonError>, tokio::task::JoinError>,
) -> Result<ExitCode, DevError> {
    served.map_err(|e| DevError::Setup(format!("the runner's task: {e}")))??;
    Ok(ExitCode::SUCCESS)
}

/// Prints the session's transcript as it grows, until the session ends, as `blaise session
/// transcript --follow` does.
async fn follow(user: &blaise_control::client::Client, session: &str) -> Result<()> {
    let mut after = 0;
    let mut printer = blaise_control::follow::Printer::default();
    let mut out = std::io::stdout();
    loop {
        let page = user
            .get(&format!(
                "/v1/sessions/{session}/transcript?after={after}&wait_ms=20000"
            ))
            .await?;
        for entry in page["entries"].as_array().into_iter().flatten() {
            after = entry["index"].as_u64().unwrap_or(after);
            printer.entry(entry, &mut out)?;
        }
        let state = page["session_state"].as_str().unwrap_or_default();
        if !matches!(state, "active" | "paused") {
            printer.finish(&mut out)?;
            println!("\nsession {session}: {state}");
            // Keep serving (the teardown run, the dashboard) until Ctrl-C.
            std::future::pending::<()>().await;
        }
    }
}

/// The repository this runner was built from.
fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("runner/ has a parent")
        .to_path_buf()
}

/// A `blaise.yml` for the script agent and the first-party plugs, built from
/// this checkout: the environment plugs whose tools work on this machine
/// (saying which were skipped and why), and redaction. Returns the file and
/// a line saying which plugs it has.
fn write_default_config(data_dir: &Path) -> Result<(PathBuf, String)> {
    let repo = repository();
    if !repo.join("Cargo.toml").is_file() {
        bail!(
            "`dev` without --config builds its plugs and agent from the repository it was built in ({}), which is not there",
            repo.display()
        );
    }
    let agent = script_agent(&repo)?;
    let build = |name: &str| {
        blaise_runner::build::build_plug(
            &repo.join("plugs").join(name),
            Some(&repo.join("target/plugs")),
        )
    };
    let mut plugs = String::new();
    let mut included = Vec::new();
    let mut skipped = Vec::new();
    let mut usable = |tool: Tool| match tool.check() {
        Ok(()) => true,
        Err(why) => {
            skipped.push(format!("{} ({why})", tool.name()));
            false
        }
    };
    let (git, bwrap, docker) = (usable(Tool::Git), usable(Tool::Bwrap), usable(Tool::Docker));
    let image = if docker {
        match tools::agent_image(&agent) {
            Ok(image) => Some(image),
            Err(e) => {
                skipped.push(format!("docker (no image for the agent: {e:#})"));
                None
            }
        }
    } else {
        None
    };
    if git {
        plugs += &format!(
            "  # The session's repository (this one) cloned into its workspace.\n  - id: checkout\n    source: {}\n    with: {{ repo: {} }}\n    allow: {{ exec: [git] }}\n",
            yaml_string(&build("checkout")?),
            yaml_string(&repo),
        );
        included.push("checkout");
    }
    if bwrap {
        let mut writable = String::new();
        if image.is_some() {
            // Here the sandbox wraps the docker client, which needs its socket.
            writable = ", read_write: [/var/run/docker.sock]".into();
        }
        plugs += &format!(
            "  # The agent in bubblewrap: read-only system, no network, a private home.\n  - id: sandbox\n    source: {}\n    with: {{ read_only: [{}]{writable} }}\n    allow: {{ exec: [bwrap], storage: true }}\n",
            yaml_string(&build("sandbox")?),
            yaml_string(agent.parent().context("the agent is in a directory")?),
        );
        included.push("sandbox");
    }
    if let Some(image) = &image {
        plugs += &format!(
            "  # A container per session; the agent runs inside it.\n  - id: docker\n    source: {}\n    with: {{ image: {image} }}\n    allow: {{ exec: [docker] }}\n",
            yaml_string(&build("docker")?),
        );
        included.push("docker");
    }
    plugs += &format!(
        "  # Masks secrets in everything the agent says.\n  - id: redaction\n    source: {}\n",
        yaml_string(&build("redaction")?),
    );
    included.push("redaction");
    let mut text =
        String::from("# Written by `blaise-runner dev`; edit a copy and pass it with --config.\n");
    for skip in &skipped {
        text += &format!("# skipped: {skip}\n");
    }
    text += &format!(
        "agent:\n  name: {AGENT}\n  command: [{agent}]\nplugs:\n{plugs}",
        agent = yaml_string(&agent),
    );
    let mut summary = format!("  plugs:          {}", included.join(", "));
    if !skipped.is_empty() {
        summary += &format!("\n  skipped:        {}", skipped.join("; "));
    }
    let path = data_dir.join("blaise.yml");
    std::fs::write(&path, text)?;
    Ok((path, summary))
}

/// The script agent binary, next to this one or built with cargo.
fn script_agent(repo: &Path) -> Result<PathBuf> {
    let beside = std::env::current_exe()?.with_file_name("blaise-script-agent");
    if beside.is_file() {
        return Ok(beside);
    }
    println!("building the script agent…");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = std::process::Command::new(cargo)
        .args([
            "build",
            "--release",
            "-p",
            "blaise-script-agent",
            "--manifest-path",
        ])
        .arg(repo.join("Cargo.toml"))
        .status()?;
    let built = repo.join("target/release/blaise-script-agent");
    if !status.success() || !built.is_file() {
        bail!("building the script agent failed");
    }
    Ok(built)
}

fn yaml_string(path: &Path) -> String {
    serde_json::to_string(&path.to_string_lossy()).expect("a string serializes")
}
