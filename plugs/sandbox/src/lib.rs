//! The sandbox plug: the agent inside bubblewrap.
//!
//! Stateful: the sandbox's id is kept in the plug's state, and its private
//! home (in the plug's own storage) is found from it on every later run, on
//! any runner instance that shares the storage. The host system is read-only,
//! the workspace and the home are writable, there is no network unless the
//! config allows it, the agent gets its own PID namespace and dies with the
//! run that launched it.

mod config;
mod home;

use blaise_plug::process::Command;
use blaise_plug::{Context, Contribution, Plug, PlugError, PlugInfo, TeardownInfo, log, state};

use config::{Config, Network};
use home::Homes;

/// The state key of the sandbox's id.
const SANDBOX_ID: &str = "sandbox-id";
/// Where the private home appears inside the sandbox.
const HOME: &str = "/home/agent";
/// The host system, read-only. Missing ones are skipped (`-try`).
const SYSTEM: [&str; 8] = [
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
];

struct Sandbox;

#[blaise_plug::plug]
impl Plug for Sandbox {
    fn describe() -> PlugInfo {
        PlugInfo::builder("sandbox", env!("CARGO_PKG_VERSION"))
            .description("Wraps the agent in bubblewrap: read-only system, writable workspace, a private home kept across pauses, no network by default")
            .stateful(true)
            .can_resume(true)
            // It does nothing at a pause: a hot pause keeps the sandboxed agent
            // (bubblewrap and what runs in it) frozen with the agent.
            .keeps_processes(true)
            .config::<config::Config>()
            .exec(&["bwrap", "blaise-egress"])
            .storage(true)
            .build()
    }

    fn on_start(ctx: &Context) -> Result<Contribution, PlugError> {
        let config = Config::read(ctx)?;
        let homes = Homes::new(ctx)?;
        check_bwrap()?;
        let id = match state::get::<String>(SANDBOX_ID)? {
            // The start of this environment ran before and got this far.
            Some(id) if homes.exists(&id) => id,
            _ => {
                let id = format!("sbx-{}", ctx.run_id);
                homes.create(&id, &ctx.session_id)?;
                state::set(SANDBOX_ID, &id)?;
                log::info(format!("created sandbox {id}"));
                id
            }
        };
        Ok(launch(ctx, &config, &homes.path(&id)))
    }

    fn on_resume(ctx: &Context) -> Result<Contribution, PlugError> {
        let config = Config::read(ctx)?;
        let homes = Homes::new(ctx)?;
        let id = state::get::<String>(SANDBOX_ID)?.ok_or_else(|| {
            PlugError::new("no sandbox id in this plug's state: the environment cannot be resumed")
        })?;
        if !homes.exists(&id) {
            return Err(PlugError::new(format!(
                "the home of sandbox {id} is gone ({}): the environment cannot be resumed",
                homes.path(&id)
            )));
        }
        Ok(launch(ctx, &config, &homes.path(&id)))
    }

    fn on_teardown(ctx: &Context, _info: &TeardownInfo) -> Result<(), PlugError> {
        let homes = Homes::new(ctx)?;
        let mut ids = homes.of_session(&ctx.session_id);
        if let Some(id) = state::get::<String>(SANDBOX_ID)? {
            ids.push(id);
        }
        ids.sort();
        ids.dedup();
        for id in &ids {
            homes.remove(id)?;
        }
        state::delete(SANDBOX_ID)?;
        Ok(())
    }
}

/// Fails early, with bubblewrap's own words, where it cannot make a sandbox
/// (not installed, user namespaces disabled), rather than at the agent's launch.
fn check_bwrap() -> Result<(), PlugError> {
    let out = Command::new("bwrap")
        .args([
            "--unshare-all",
            "--die-with-parent",
            "--ro-bind",
            "/",
            "/",
            "--",
            "/bin/true",
        ])
        .timeout_ms(30_000)
        .run()?;
    if out.success() {
        Ok(())
    } else {
        Err(PlugError::new(format!(
            "bubblewrap cannot make a sandbox on this machine: {}",
            out.stderr_text().trim()
        )))
    }
}

/// The `bwrap …` words before the agent's command line (after
/// `blaise-egress --allow … --` with an egress policy: bubblewrap then shares
/// the namespace it made, whose only way out is its proxy).
fn launch(ctx: &Context, config: &Config, home: &str) -> Contribution {
    let mut args: Vec<String> = match &config.network {
        Network::Egress(egress) => egress.prefix(&[]),
        Network::All(_) => Vec::new(),
    };
    args.extend(
        [
            "bwrap",
            "--die-with-parent",
            "--new-session",
            "--unshare-all",
        ]
        .map(String::from),
    );
    if !matches!(config.network, Network::All(false)) {
        args.push("--share-net".into());
    }
    args.extend(["--hostname".into(), config.hostname.clone()]);
    for dir in SYSTEM {
        args.extend(["--ro-bind-try".into(), dir.into(), dir.into()]);
    }
    args.extend(["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"].map(String::from));
    for path in &config.read_only {
        args.extend(["--ro-bind".into(), path.clone(), path.clone()]);
    }
    for path in &config.read_write {
        args.extend(["--bind".into(), path.clone(), path.clone()]);
    }
    let workspace = ctx.workspace.trim_end_matches('/');
    args.extend(["--bind".into(), workspace.into(), workspace.into()]);
    args.extend(["--bind".into(), home.into(), HOME.into()]);
    // The agent's home and its XDG directories are the sandbox's (the
    // runner's, in the workspace, would hold what the agent keeps apart
    // from the home kept in the plug's storage).
    for (name, dir) in [
        ("HOME", ""),
        ("XDG_CONFIG_HOME", "/.config"),
        ("XDG_DATA_HOME", "/.local/share"),
        ("XDG_STATE_HOME", "/.local/state"),
        ("XDG_CACHE_HOME", "/.cache"),
    ] {
        args.extend(["--setenv".into(), name.into(), format!("{HOME}{dir}")]);
    }
    args.push("--".into());
    Contribution::default().command_prefix(args)
}
