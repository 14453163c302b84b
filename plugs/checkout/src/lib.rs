//! The checkout plug: the session's repository in its workspace.
//!
//! Stateless: everything it needs (where the clone is) follows from its config
//! and the workspace, on any run. Start clones (or, after a start that was
//! interrupted, reuses a complete clone); resume fetches and never touches the
//! work in progress; teardown removes the clone. Ahead of the sessions it
//! keeps the mirror up to date and clones into the preparation's scratch
//! workspace, where the plugs after it read the repository (migrations for
//! the database plug's template).

mod config;
mod git;
mod mirror;

use blaise_plug::{
    Context, Contribution, Plug, PlugError, PlugInfo, PrepareContext, TeardownInfo, log,
};

use config::Config;
use git::{Git, UPLOAD_PACK};
use mirror::Mirror;

struct Checkout;

#[blaise_plug::plug]
impl Plug for Checkout {
    fn describe() -> PlugInfo {
        PlugInfo::builder("checkout", env!("CARGO_PKG_VERSION"))
            .description("Clones the session's repository into its workspace; fetches on resume; removes it on teardown")
            .stateful(false)
            .can_resume(true)
            // Nothing of it runs the agent: a hot pause leaves the clone as it is.
            .keeps_processes(true)
            .config::<config::Config>()
            .exec(&["git"])
            .secrets(&[git::TOKEN_SECRET])
            // Where it keeps a mirror of each repository (optional).
            .storage(true)
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

    fn on_prepare(ctx: &PrepareContext) -> Result<(), PlugError> {
        // A start's clone, in the scratch workspace: it makes or fetches the
        // mirror (when storage is granted), so the first session copies
        // from a fresh one instead of cloning the repository.
        let ctx = ctx.as_start();
        let config = Config::read(&ctx)?;
        let git = Git::new(&config.username)?;
        let dir = config.dir(&ctx);
        remove(&dir)?;
        clone(&git, &config, &ctx, &dir)
    }
}

fn clone(git: &Git, config: &Config, ctx: &Context, dir: &str) -> Result<(), PlugError> {
    // A shallow clone of one commit takes only what it needs from the
    // repository: a mirror would fetch everything for it.
    let shallow_commit = config.commit.is_some() && config.depth.is_some();
    if !shallow_commit && let Some(mirror) = Mirror::updated(git, ctx, &config.repo) {
        match from_mirror(git, config, ctx, dir, &mirror) {
            Ok(()) => return Ok(()),
            Err(e) if e.field.is_some() => {
                let _ = remove(dir);
                return Err(e);
            }
            Err(e) => {
                log::warn(format!(
                    "copying from the mirror failed, cloning {}: {}",
                    config.repo, e.message
                ));
                remove(dir)?;
            }
        }
    }
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

/// The session's clone, copied from the mirror (fresh as of this start) and
/// pointed at the repository: it is then what a clone from there would be.
fn from_mirror(
    git: &Git,
    config: &Config,
    ctx: &Context,
    dir: &str,
    mirror: &Mirror,
) -> Result<(), PlugError> {
    let source = config.source();
    // `--no-hardlinks`: the clone shares no file with the mirror. A shallow
    // clone goes through `file://` (git ignores `--depth` for a local path).
    let depth = config.depth.map(|d| d.to_string());
    let from = match depth {
        Some(_) => format!("file://{}", mirror.dir),
        None => mirror.dir.clone(),
    };
    // No branch asked for: the repository's default branch as it is now,
    // which a mirror made earlier may no longer know.
    let default_branch = match (&config.commit, &config.branch, mirror.made) {
        (None, None, false) => mirror.default_branch(git)?,
        _ => None,
    };
    let mut args = vec!["clone", "--quiet", "--no-hardlinks"];
    match (&config.commit, &config.branch, &default_branch) {
        (Some(_), _, _) => args.push("--no-checkout"),
        (None, Some(branch), _) | (None, None, Some(branch)) => args.extend(["--branch", branch]),
        (None, None, None) => {}
    }
    if let Some(depth) = &depth {
        args.extend(["--depth", depth]);
    }
    args.extend(["--", &from, dir]);
    git.run(&ctx.workspace, &args).map_err(|e| {
        if config.branch.is_some() && e.message.contains("not found in upstream") {
            PlugError::field("branch", e.message)
        } else {
            e
        }
    })?;
    git.run(dir, &["remote", "set-url", "origin", &source])?;
    if let Some(commit) = &config.commit {
        // Not in the mirror (on no branch or tag): fetch it from the repository.
        if !git.check(dir, &["checkout", "--quiet", "--detach", commit]) {
            git.run(dir, &["fetch", "--quiet", UPLOAD_PACK, "origin", commit])
                .map_err(|e| {
                    if e.message.contains("not our ref")
                        || e.message.contains("couldn't find remote ref")
                    {
                        PlugError::field("commit", e.message)
                    } else {
                        e
                    }
                })?;
            git.run(dir, &["checkout", "--quiet", "--detach", "FETCH_HEAD"])?;
        }
    }
    log::info(format!("cloned {} into {dir} from its mirror", config.repo));
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
