//! The `with:` config of the docker plug, and the checks the schema cannot express.

use blaise_plug::{Context, PlugError};
use schemars::JsonSchema;
use serde::Deserialize;

/// The `with:` config; its JSON Schema is derived from it.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// image of the container; it must already be on the Docker host (it is never pulled by a run)
    #[schemars(length(min = 1), regex(pattern = r"^[^-]"))]
    pub image: String,
    /// network mode: none (default), bridge, host, a network's name, or
    /// `{allow: [...]}`: only the listed destinations, through `blaise-egress`
    #[serde(default)]
    pub network: Network,
    /// memory limit, e.g. 2g
    #[schemars(regex(pattern = r"^[0-9]+[bkmgBKMG]?$"))]
    pub memory: Option<String>,
    /// CPU limit, e.g. 1.5
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub cpus: Option<f64>,
    /// most processes in the container
    #[schemars(range(min = 1))]
    pub pids_limit: Option<u64>,
    /// extra bind mounts, SOURCE:TARGET[:ro]
    #[serde(default)]
    #[schemars(inner(regex(pattern = r"^/[^:]*:/[^:]*(:(ro|rw))?$")))]
    pub mounts: Vec<String>,
    /// names of the agent's environment variables to pass into the container
    #[serde(default)]
    #[schemars(inner(regex(pattern = r"^[A-Za-z_][A-Za-z0-9_]*$")))]
    pub env: Vec<String>,
    /// user (name or uid[:gid]) the agent runs as
    #[schemars(length(min = 1))]
    pub user: Option<String>,
    /// Docker host (e.g. unix:///run/docker.sock); default: the docker CLI's
    #[schemars(length(min = 1))]
    pub host: Option<String>,
    /// what keeps the container alive between agent launches (default: sleep infinity)
    #[serde(default = "default_command")]
    #[schemars(length(min = 1))]
    pub command: Vec<String>,
    /// seconds docker waits on pause before killing (default 5)
    #[serde(default = "default_stop_timeout")]
    pub stop_timeout: u64,
    /// steps run once on top of `image`; sessions start from the image they make
    pub prepare: Option<Prepare>,
}

/// What makes the prepared image: shell steps, run once per configuration.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Prepare {
    /// shell commands (`sh -c`), in order, as the image's own user; the first that fails stops the preparation
    #[schemars(length(min = 1), inner(length(min = 1)))]
    pub run: Vec<String>,
    /// network mode of the steps (default bridge: steps usually fetch packages)
    #[serde(default = "default_prepare_network")]
    #[schemars(length(min = 1))]
    pub network: String,
}

fn default_prepare_network() -> String {
    "bridge".into()
}

/// What the container may reach.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Network {
    /// A Docker network mode or a network's name.
    Mode(#[schemars(length(min = 1))] String),
    /// The listed destinations only.
    Egress(Egress),
}

impl Default for Network {
    fn default() -> Network {
        Network::Mode("none".into())
    }
}

impl Network {
    /// The `--network` the container is created with (with an egress policy,
    /// none: its only way out is the proxy).
    pub fn mode(&self) -> &str {
        match self {
            Network::Mode(mode) => mode,
            Network::Egress(_) => "none",
        }
    }
}

pub use blaise_egress::config::Egress;

fn default_command() -> Vec<String> {
    vec!["sleep".into(), "infinity".into()]
}

fn default_stop_timeout() -> u64 {
    5
}

impl Config {
    pub fn read(ctx: &Context) -> Result<Config, PlugError> {
        let config: Config = ctx.config()?;
        // The image is docker's one positional argument before the command:
        // one that starts with `-` would be read as an option (`--privileged`).
        if config.image.starts_with('-') {
            return Err(PlugError::field(
                "image",
                format!("`{}` is not an image reference", config.image),
            ));
        }
        let workspace = ctx.workspace.trim_end_matches('/');
        for mount in &config.mounts {
            let target = mount.split(':').nth(1).unwrap_or_default();
            let target = target.trim_end_matches('/');
            if target == workspace
                || target.starts_with(&format!("{workspace}/"))
                || workspace.starts_with(&format!("{target}/"))
            {
                return Err(PlugError::field(
                    "mounts",
                    format!(
                        "`{mount}` conflicts with the session's workspace, which is mounted at {workspace}"
                    ),
                ));
            }
        }
        if let Network::Egress(egress) = &config.network {
            if let Err((i, bad)) = egress.check() {
                return Err(PlugError::field(
                    format!("network.allow[{i}]"),
                    bad.to_string(),
                ));
            }
            // The proxy enters the container's network namespace through /proc.
            if config
                .host
                .as_deref()
                .is_some_and(|h| !h.starts_with("unix://"))
            {
                return Err(PlugError::field(
                    "network",
                    "an egress policy needs the Docker host on the runner's machine (a unix:// host): the proxy enters the container's network namespace",
                ));
            }
        }
        Ok(config)
    }
}
