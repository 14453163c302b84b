//! One mirror per repository in the plug's storage, when the operator grants
//! it (`allow: { storage: true }`): made once, fetched (not cloned) at each
//! start, and each session's clone is copied from it. The copy shares no
//! file with the mirror (no hardlinks, no alternates): what an agent does to
//! its clone cannot reach the mirror or another session, and the clone works
//! where only the workspace is mounted (a sandbox, a container).
//!
//! Storage does not grow for ever: a mirror no start has used for
//! [`UNUSED_MIRROR`] is removed, and so is what a start that died mid-clone
//! left behind.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use blaise_plug::{Context, PlugError, log};

use crate::git::{Git, UPLOAD_PACK};

/// A partial mirror this old was left by a start that died mid-clone: no
/// clone runs this long (the hook's deadline ends it first).
const STALE_PARTIAL: Duration = Duration::from_secs(24 * 60 * 60);

/// A mirror no start has used for this long is removed (the next start of
/// its repository makes it again).
const UNUSED_MIRROR: Duration = Duration::from_secs(30 * 24 * 60 * 60);

/// The file in a mirror that says when a start last used it: seconds since
/// the Unix epoch, as text.
const LAST_USED: &str = "blaise-last-used";

/// A mirror, up to date with its repository as of this start.
pub struct Mirror {
    pub dir: String,
    /// Made by this start: its HEAD is the repository's default branch.
    pub made: bool,
}

impl Mirror {
    /// The mirror of `repo` brought up to date: made on first use, fetched
    /// after. `None` without storage, or when the mirror cannot be made or
    /// fetched: the start then clones from the repository itself, as it
    /// would without a mirror (and reports that clone's error, if any).
    pub fn updated(git: &Git, ctx: &Context, repo: &str) -> Option<Mirror> {
        let storage = ctx.storage.as_deref()?;
        let root = format!("{}/mirrors", storage.trim_end_matches('/'));
        let dir = format!("{root}/{:016x}.git", fnv1a(repo.as_bytes()));
        sweep(&root, &dir);
        if std::path::Path::new(&dir).is_dir() {
            let mirror = Self::fetch(git, dir, repo)?;
            mark_used(&mirror.dir);
            return Some(mirror);
        }
        if let Err(e) = std::fs::create_dir_all(&root) {
            log::warn(format!("no mirror: creating {root}: {e}"));
            return None;
        }
        // Made beside its place and moved there whole: a mirror is complete
        // or absent, also after a run that died mid-clone.
        let partial = format!("{root}/.partial-{}", safe_name(&ctx.run_id));
        let _ = std::fs::remove_dir_all(&partial);
        if let Err(e) = git.run(
            &root,
            &["clone", "--quiet", "--mirror", "--", repo, &partial],
        ) {
            let _ = std::fs::remove_dir_all(&partial);
            log::warn(format!("no mirror of {repo}: {}", e.message));
            return None;
        }
        if std::fs::rename(&partial, &dir).is_err() {
            // Another start made it meanwhile: it is as fresh as ours.
            let _ = std::fs::remove_dir_all(&partial);
        }
        mark_used(&dir);
        log::info(format!("made a mirror of {repo}"));
        Some(Mirror { dir, made: true })
    }

    fn fetch(git: &Git, dir: String, repo: &str) -> Option<Mirror> {
        // The name is a hash of the URL: make sure it is this repository's.
        let url = git
            .run(&dir, &["config", "--get", "remote.origin.url"])
            .map(|out| out.stdout_text().trim().to_owned());
        if url.ok().as_deref() != Some(repo) {
            log::warn(format!("not using {dir}: it mirrors another repository"));
            return None;
        }
        // A mirror's refspec is `+refs/*:refs/*`: with `--prune` its refs are
        // the repository's, branches deleted upstream included.
        match git.run(
            &dir,
            &["fetch", "--quiet", "--prune", UPLOAD_PACK, "origin"],
        ) {
            Ok(_) => Some(Mirror { dir, made: false }),
            Err(e) => {
                // A fetch running beside ours holds a ref lock, or the
                // network failed: a stale mirror must not make a stale clone.
                log::warn(format!("not using the mirror of {repo}: {}", e.message));
                None
            }
        }
    }

    /// The branch the repository's HEAD names now: what a clone from there
    /// would check out. A fetch leaves the mirror's own HEAD where the
    /// repository's was when the mirror was made (git before 2.48), and
    /// dangling once `--prune` removes that branch. `None` when HEAD names no
    /// branch (an empty repository).
    pub fn default_branch(&self, git: &Git) -> Result<Option<String>, PlugError> {
        let out = git.run(
            &self.dir,
            &["ls-remote", "--symref", UPLOAD_PACK, "origin", "HEAD"],
        )?;
        Ok(out.stdout_text().lines().find_map(|line| {
            let (branch, name) = line.strip_prefix("ref: refs/heads/")?.split_once('\t')?;
            (name == "HEAD" && !branch.is_empty()).then(|| branch.to_owned())
        }))
    }
}

/// Removes from `root` what no start will use: partial mirrors left by
/// starts that died mid-clone (each is named after its run, so no later
/// start would reuse it), and mirrors unused for [`UNUSED_MIRROR`], except
/// `ours`, the one this start is about to use.
fn sweep(root: &str, ours: &str) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = format!("{root}/{name}");
        let stale = if name.starts_with(".partial-") {
            entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age > STALE_PARTIAL)
        } else if name.ends_with(".git") && path != ours {
            match last_used(&path) {
                Some(used) => now_secs().saturating_sub(used) > UNUSED_MIRROR.as_secs(),
                // Made by an older version of the plug, which did not say:
                // taken as used now, so an upgrade removes nothing.
                None => {
                    mark_used(&path);
                    false
                }
            }
        } else {
            false
        };
        if stale {
            match std::fs::remove_dir_all(&path) {
                Ok(()) => log::info(format!("removed {path}: no start uses it")),
                Err(e) => log::warn(format!("removing {path}: {e}")),
            }
        }
    }
}

/// When a start last used the mirror in `dir` (seconds since the Unix
/// epoch), if the mirror says.
fn last_used(dir: &str) -> Option<u64> {
    std::fs::read_to_string(format!("{dir}/{LAST_USED}"))
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// Records that a start uses the mirror in `dir` now.
fn mark_used(dir: &str) {
    if let Err(e) = std::fs::write(format!("{dir}/{LAST_USED}"), now_secs().to_string()) {
        log::warn(format!("marking {dir} used: {e}"));
    }
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// FNV-1a, 64 bits: a stable file name for a repository URL (checked against
/// the mirror's own URL before use).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The run id as a file name: what the runner sent, kept to safe characters.
fn safe_name(run_id: &str) -> String {
    run_id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .take(64)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_stable_and_safe() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_ne!(fnv1a(b"https://a/b.git"), fnv1a(b"https://a/c.git"));
        assert_eq!(safe_name("run-1/../x"), "run-1x");
    }
}
