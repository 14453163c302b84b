//! The agent's home: `HOME` and the XDG base directories in the
//! environment's own directory, so that what an agent keeps for itself (its
//! settings, its conversations, its caches, the credentials it may write)
//! belongs to this environment: kept across pause and resume with the
//! workspace, removed with it at teardown, never the operator's home and
//! never shared with another session. Where the operator's `agent.env` sets
//! one of these variables, it wins; a plug's command prefix may set its own
//! inside a sandbox (the sandbox plug does).

use std::path::{Path, PathBuf};

/// The home's directory, in the workspace (which plugs mount at the same
/// path inside a container or a sandbox).
pub const DIR: &str = ".agent-home";

/// The variables and where each points inside the home.
const LAYOUT: [(&str, &str); 5] = [
    ("HOME", ""),
    ("XDG_CONFIG_HOME", ".config"),
    ("XDG_DATA_HOME", ".local/share"),
    ("XDG_STATE_HOME", ".local/state"),
    ("XDG_CACHE_HOME", ".cache"),
];

/// Makes the home in `workspace` (once; private to its owner) and returns the
/// variables for those of `HOME` and the XDG directories that `env` does not
/// already set.
pub fn prepare(
    workspace: &Path,
    env: &[(String, String)],
) -> std::io::Result<Vec<(String, String)>> {
    let home = workspace.join(DIR);
    let mut vars = Vec::new();
    for (name, sub) in LAYOUT {
        if env.iter().any(|(set, _)| set == name) {
            continue;
        }
        let dir: PathBuf = if sub.is_empty() {
            home.clone()
        } else {
            home.join(sub)
        };
        create_private(&dir)?;
        vars.push((name.to_owned(), dir.display().to_string()));
    }
    Ok(vars)
}

fn create_private(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    // Checked, not assumed: a plug could have left something else there.
    let meta = std::fs::symlink_metadata(dir)?;
    if !meta.is_dir() {
        return Err(std::io::Error::other(format!(
            "{} is not a directory",
            dir.display()
        )));
    }
    if meta.permissions().mode() & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_home_is_in_the_workspace_and_the_operator_wins() {
        let workspace = tempfile::tempdir().unwrap();
        let set = vec![("XDG_CACHE_HOME".to_string(), "/var/cache/agent".to_string())];
        let vars = prepare(workspace.path(), &set).unwrap();
        let home = workspace.path().join(DIR);
        assert_eq!(
            vars,
            [
                ("HOME".to_string(), home.display().to_string()),
                (
                    "XDG_CONFIG_HOME".into(),
                    home.join(".config").display().to_string()
                ),
                (
                    "XDG_DATA_HOME".into(),
                    home.join(".local/share").display().to_string()
                ),
                (
                    "XDG_STATE_HOME".into(),
                    home.join(".local/state").display().to_string()
                ),
            ]
        );
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&home).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        // Again on resume: the same home, what it holds kept.
        std::fs::write(home.join(".config/kept"), "x").unwrap();
        prepare(workspace.path(), &[]).unwrap();
        assert!(home.join(".config/kept").exists());
        // A file where the home should be is an error, not a home elsewhere.
        let other = tempfile::tempdir().unwrap();
        std::fs::write(other.path().join(DIR), "").unwrap();
        assert!(prepare(other.path(), &[]).is_err());
    }
}
