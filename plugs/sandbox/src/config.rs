//! The `with:` config of the sandbox plug, and the checks the schema cannot express.

use blaise_plug::{Context, PlugError};
use schemars::JsonSchema;
use serde::Deserialize;

/// The `with:` config; its JSON Schema is derived from it.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// share the host's network (default: false, only loopback)
    #[serde(default)]
    pub network: bool,
    /// more host paths the agent may read (e.g. where it is installed)
    #[serde(default)]
    #[schemars(inner(regex(pattern = "^/")))]
    pub read_only: Vec<String>,
    /// more host paths the agent may write
    #[serde(default)]
    #[schemars(inner(regex(pattern = "^/")))]
    pub read_write: Vec<String>,
    /// host name inside the sandbox (default: sandbox)
    #[serde(default = "default_hostname")]
    #[schemars(regex(pattern = r"^[A-Za-z0-9][A-Za-z0-9.-]{0,62}$"))]
    pub hostname: String,
}

fn default_hostname() -> String {
    "sandbox".into()
}

impl Config {
    pub fn read(ctx: &Context) -> Result<Config, PlugError> {
        let config: Config = ctx.config()?;
        for path in &config.read_write {
            if config.read_only.iter().any(|p| same(p, path)) {
                return Err(PlugError::field(
                    "read_write",
                    format!(
                        "`{path}` is also in `read_only`: a path is either read-only or writable"
                    ),
                ));
            }
        }
        for (field, paths) in [
            ("read_only", &config.read_only),
            ("read_write", &config.read_write),
        ] {
            if let Some(path) = paths
                .iter()
                .find(|p| !p.starts_with('/') || p.split('/').any(|c| c == ".."))
            {
                return Err(PlugError::field(
                    field,
                    format!("`{path}` must be an absolute path without `..`"),
                ));
            }
        }
        Ok(config)
    }
}

fn same(a: &str, b: &str) -> bool {
    a.trim_end_matches('/') == b.trim_end_matches('/')
}
