//! The `with:` config of the sandbox plug, and the checks the schema cannot express.

use blaise_plug::{Context, PlugError};
use schemars::JsonSchema;
use serde::Deserialize;

/// The `with:` config; its JSON Schema is derived from it.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// `false` (default): only a private loopback; `true`: the host's whole
    /// network; `{allow: [...]}`: only the listed destinations, through
    /// `blaise-egress`
    #[serde(default)]
    pub network: Network,
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

/// What the agent may reach.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Network {
    /// None of it, or all of it.
    All(bool),
    /// The listed destinations only.
    Egress(Egress),
}

impl Default for Network {
    fn default() -> Network {
        Network::All(false)
    }
}

pub use blaise_egress::config::Egress;

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
        if let Network::Egress(egress) = &config.network
            && let Err((i, bad)) = egress.check()
        {
            return Err(PlugError::field(
                format!("network.allow[{i}]"),
                bad.to_string(),
            ));
        }
        Ok(config)
    }
}

fn same(a: &str, b: &str) -> bool {
    a.trim_end_matches('/') == b.trim_end_matches('/')
}
