//! The checkout plug: the session's repository in its workspace.
//!
//! Stateless: everything it needs (where the clone is) follows from its config
//! and the workspace, on any run. Start clones (or, after a start that was
//! interrupted, reuses a complete clone); resume fetches and never touches the
//! work in progress; teardown removes the clone.

mod config;
mod git;

use blaise_plug::{Context, Contribution, Plug, PlugError, PlugInfo, TeardownInfo, log};

use config::Config;
use git::{Git, UPLOAD_PACK};

struct Checkout;

#[blaise_plug::plug]
impl Plug for Checkout {
    fn describe() -> PlugInfo {
        PlugInfo::builder("checkout", env!("CARGO_PKG_VERSION"))
            .description("Clones the session's repository into its workspace; fetches on resume; removes it on teardown")
            .stateful(false)
            .can_resume(true)
            .config::<config::Config>()
            .exec(&["git"])
            .secrets(&[git::TOKEN_SECRET])
            .build()
    }

    fn on_start(ctx: &Context) -> Result<Contribution, PlugError> {
        let config = Config::read(ctx)?;
        let git = Git::new(&config.username)?;
        let dir = config.dir(ctx);
        if is_clone(&git, &dir) {
            // A start that was interrupted after cloning: the clone is complete.
            log::info(format!("reusing the clone in {dir}"));
        } else {
            remove(&dir)?;
            clone(&git, &config, ctx, &dir)?;
        }
        Ok(Contribution::default().working_dir(dir))
    }

    fn on_resume(ctx: &Context) -> Result<Contribution, PlugError> {
        let config = Config::read(ctx)?;
        let git = Git::new(&config.username)?;
        let dir = config.dir(ctx);
        if !is_clone(&git, &dir) {
            return Err(PlugError::new(format!(
                "the clone in {dir} is gone: the environment cannot be resumed"
            )));
        }
        // New commits become visible; the work tree, the index and the
        // checked-out branch stay exactly as the agent left them.
        if let Err(e) = git.run(&dir, &["fetch", "--quiet", UPLOAD_PACK, "origin"]) {
            log::warn(format!(
                "fetch failed, resuming with what is there: {}",
                e.message
            ));
        }
        Ok(Contribution::default().working_dir(dir))
    }

    fn on_teardown(ctx: &Context, _info: &TeardownInfo) -> Result<(), PlugError> {
        remove(&Config::dir_only(ctx)?)
    }
}

fn clone(git: &Git, config: &Config, ctx: &Context, dir: &str) -> Result<(), PlugError> {
    let source = config.source();
    let depth = config.depth.map(|d| d.to_string());
    let in_repo =
        |e: PlugError| PlugError::field("repo", format!("cloning {}: {}", config.repo, e.message));
    match &config.commit {
        None => {
            let mut args = vec!["clone", "--quiet"];
            if let Some(branch) = &config.branch {
                args.extend(["--branch", branch]);
            }
            if let Some(depth) = &depth {
                args.extend(["--depth", depth]);
            }
            args.extend(["--", &source, dir]);
            git.run(&ctx.workspace, &args).map_err(|e| {
                if config.branch.is_some() && e.message.contains("not found in upstream") {
                    PlugError::field("branch", e.message)
                } else {
                    in_repo(e)
                }
            })?;
        }
        Some(commit) => {
            // Fetch exactly the commit (shallow if asked), then detach on it.
            git.run(&ctx.workspace, &["init", "--quiet", dir])?;
            git.run(dir, &["remote", "add", "origin", &source])?;
            let mut fetch = vec!["fetch", "--quiet", UPLOAD_PACK];
            if let Some(depth) = &depth {
                fetch.extend(["--depth", depth]);
            }
            fetch.extend(["origin", commit]);
            git.run(dir, &fetch).map_err(|e| {
                let _ = remove(dir);
                if e.message.contains("not our ref")
                    || e.message.contains("couldn't find remote ref")
                {
                    PlugError::field("commit", e.message)
                } else {
                    in_repo(e)
                }
            })?;
            git.run(dir, &["checkout", "--quiet", "--detach", "FETCH_HEAD"])?;
        }
    }
    log::info(format!("cloned {} into {dir}", config.repo));
    Ok(())
}

/// Whether `dir` holds a complete clone (a checked-out HEAD).
fn is_clone(git: &Git, dir: &str) -> bool {
    std::path::Path::new(dir).join(".git").exists()
        && git.check(dir, &["rev-parse", "--verify", "--quiet", "HEAD"])
}

fn remove(dir: &str) -> Result<(), PlugError> {
    match std::fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(PlugError::new(format!("removing {dir}: {e}")))
        }
        _ => Ok(()),
    }
}
