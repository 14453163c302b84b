//! The `with:` config of the checkout plug, and the checks the schema cannot
//! express.

use blaise_plug::{Context, PlugError};
use schemars::JsonSchema;
use serde::Deserialize;

/// The `with:` config; its JSON Schema is derived from it.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// URL (https://, ssh://, git@host:path, file://) or absolute local path of the repository
    #[schemars(length(min = 1))]
    pub repo: String,
    /// branch or tag to check out (default: the remote's default branch)
    #[schemars(length(min = 1))]
    pub branch: Option<String>,
    /// commit to check out, detached (instead of a branch)
    #[schemars(length(min = 4))]
    pub commit: Option<String>,
    /// shallow clone of this many commits
    #[schemars(range(min = 1))]
    pub depth: Option<u32>,
    /// directory of the clone inside the workspace (default: repo)
    #[serde(default = "default_path")]
    #[schemars(length(min = 1))]
    pub path: String,
    /// user name sent with the git-token secret (default: x-access-token)
    #[serde(default = "default_username")]
    #[schemars(length(min = 1))]
    pub username: String,
}

fn default_path() -> String {
    "repo".into()
}

fn default_username() -> String {
    "x-access-token".into()
}

impl Config {
    pub fn read(ctx: &Context) -> Result<Config, PlugError> {
        let config: Config = ctx.config()?;
        if config.branch.is_some() && config.commit.is_some() {
            return Err(PlugError::field(
                "commit",
                "`branch` and `commit` cannot both be set: check out a branch, or one commit",
            ));
        }
        if let Some(commit) = &config.commit
            && !commit.chars().all(|c| c.is_ascii_hexdigit())
        {
            return Err(PlugError::field(
                "commit",
                format!(
                    "`{commit}` is not a commit id (hexadecimal); use `branch` for a branch or tag"
                ),
            ));
        }
        check_path(&config.path)?;
        if config.repo.starts_with('-') || is_relative_local(&config.repo) {
            return Err(PlugError::field(
                "repo",
                format!("`{}` is neither a URL nor an absolute path", config.repo),
            ));
        }
        Ok(config)
    }

    /// Where the clone lives.
    pub fn dir(&self, ctx: &Context) -> String {
        in_workspace(ctx, &self.path)
    }

    /// Where the clone lives, from `path` alone: a teardown must work even
    /// when the rest of the config has changed since the start.
    pub fn dir_only(ctx: &Context) -> Result<String, PlugError> {
        let config: serde_json::Value = ctx.config()?;
        let path = config
            .get("path")
            .and_then(|p| p.as_str())
            .unwrap_or("repo");
        check_path(path)?;
        Ok(in_workspace(ctx, path))
    }

    /// The repository as git should be given it: git ignores `--depth` for a
    /// plain local path, so a shallow local clone goes through `file://`.
    pub fn source(&self) -> String {
        if self.depth.is_some() && self.repo.starts_with('/') {
            format!("file://{}", self.repo)
        } else {
            self.repo.clone()
        }
    }
}

fn in_workspace(ctx: &Context, path: &str) -> String {
    format!("{}/{path}", ctx.workspace.trim_end_matches('/'))
}

fn check_path(path: &str) -> Result<(), PlugError> {
    let relative = std::path::Path::new(path);
    if relative.is_absolute()
        || relative
            .components()
            .any(|c| !matches!(c, std::path::Component::Normal(_)))
    {
        return Err(PlugError::field(
            "path",
            format!("`{path}` must be a plain relative path inside the workspace"),
        ));
    }
    Ok(())
}

fn is_relative_local(repo: &str) -> bool {
    let url = repo.contains("://");
    let scp = repo
        .split_once(':')
        .is_some_and(|(host, _)| !host.contains('/') && host.contains('@'));
    !url && !scp && !repo.starts_with('/')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_local_paths_are_refused() {
        assert!(is_relative_local("my/repo"));
        assert!(!is_relative_local("/srv/git/app"));
        assert!(!is_relative_local("https://github.com/a/b.git"));
        assert!(!is_relative_local("git@github.com:a/b.git"));
        assert!(!is_relative_local("file:///srv/git/app"));
    }
}
