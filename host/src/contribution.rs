//! A contribution is a capability: what a plug adds to the agent's launch is
//! checked against that plug's grants before it is used.
//!
//! - A `command-prefix` runs a program: its first word must be in the plug's
//!   effective exec grant, and is replaced by the absolute path it resolved to
//!   on the runner's own `PATH`.
//! - `env` passes `env_policy` (no `LD_PRELOAD`, `PATH`, `NODE_OPTIONS`…).
//! - `working-dir` lies in the workspace or the plug's storage.
//! - Nothing holds a NUL byte, and sizes are bounded, so that a bad
//!   contribution fails here, naming the plug, rather than at the launch.

use std::path::{Path, PathBuf};

use crate::bindings::Contribution;
use crate::env_policy;
use crate::grants::{ExecRefusal, Grants};
use crate::guard;

/// Most words a plug may put before the agent's command line.
pub const MAX_PREFIX_WORDS: usize = 1024;
/// Longest word of a prefix.
pub const MAX_WORD: usize = 32 << 10;
/// Most bytes one plug's prefix may hold in all (as its environment: the
/// kernel takes some 2 MiB of arguments and environment for the agent's exec).
pub const MAX_PREFIX_BYTES: usize = 256 << 10;

/// The contribution as it may be used (the prefix's program made absolute),
/// or what is wrong with it.
pub fn check(
    mut c: Contribution,
    grants: &Grants,
    roots: &[PathBuf],
) -> Result<Contribution, String> {
    env_policy::check_all(&c.env).map_err(|why| format!("env: {why}"))?;
    if let Some(dir) = &c.working_dir {
        c.working_dir = Some(working_dir(dir, roots)?);
    }
    if let Some(program) = c.command_prefix.first() {
        if c.command_prefix.len() > MAX_PREFIX_WORDS {
            return Err(format!(
                "command-prefix: {} words, more than {MAX_PREFIX_WORDS}",
                c.command_prefix.len()
            ));
        }
        let bytes: usize = c.command_prefix.iter().map(|w| w.len() + 1).sum();
        if bytes > MAX_PREFIX_BYTES {
            return Err(format!(
                "command-prefix: {bytes} bytes, more than the {MAX_PREFIX_BYTES} a plug may put before the agent"
            ));
        }
        if let Some(word) = c
            .command_prefix
            .iter()
            .find(|w| w.contains('\0') || w.len() > MAX_WORD)
        {
            return Err(format!(
                "command-prefix: the word {:?}… contains a NUL byte or is longer than {MAX_WORD} bytes",
                word.chars().take(40).collect::<String>()
            ));
        }
        let path = match grants.exec.program(program) {
            Ok(path) => path,
            Err(ExecRefusal::NotGranted) => {
                return Err(format!(
                    "command-prefix: it runs `{program}`, which is not in this plug's exec grant (granted: {}); a prefix is an exec",
                    crate::process::list_or_none(&grants.exec.names)
                ));
            }
            Err(ExecRefusal::NotFound) => {
                return Err(format!(
                    "command-prefix: `{program}` is granted but is not an executable on the runner's PATH"
                ));
            }
        };
        c.command_prefix[0] = path.to_string_lossy().into_owned();
    }
    Ok(c)
}

/// The agent's working directory, resolved (no symlinks) and inside `roots`.
pub fn working_dir(dir: &str, roots: &[PathBuf]) -> Result<String, String> {
    if dir.contains('\0') {
        return Err("working-dir contains a NUL byte".into());
    }
    if !Path::new(dir).is_absolute() {
        return Err(format!("working-dir `{dir}` is not an absolute path"));
    }
    let (_, real) = guard::open_dir_inside(Path::new(dir), roots).map_err(|why| {
        format!("working-dir {why}: the agent works in the workspace or the plug's storage")
    })?;
    Ok(real.to_string_lossy().into_owned())
}
