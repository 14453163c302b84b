//! The `with:` config of the docker plug, and the checks the schema cannot express.

use blaise_plug::{Context, PlugError};
use serde::Deserialize;

pub const SCHEMA: &str = r#"{
  "type": "object",
  "properties": {
    "image": {"type": "string", "minLength": 1, "description": "image of the container; it must already be on the Docker host (it is never pulled by a run)"},
    "network": {"type": "string", "minLength": 1, "description": "network mode: none (default), bridge, host, or a network's name"},
    "memory": {"type": "string", "pattern": "^[0-9]+[bkmgBKMG]?$", "description": "memory limit, e.g. 2g"},
    "cpus": {"type": "number", "exclusiveMinimum": 0, "description": "CPU limit, e.g. 1.5"},
    "pids_limit": {"type": "integer", "minimum": 1, "description": "most processes in the container"},
    "mounts": {"type": "array", "items": {"type": "string", "pattern": "^/[^:]*:/[^:]*(:(ro|rw))?$"}, "description": "extra bind mounts, SOURCE:TARGET[:ro]"},
    "env": {"type": "array", "items": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"}, "description": "names of the agent's environment variables to pass into the container"},
    "user": {"type": "string", "minLength": 1, "description": "user (name or uid[:gid]) the agent runs as"},
    "host": {"type": "string", "minLength": 1, "description": "Docker host (e.g. unix:///run/docker.sock); default: the docker CLI's"},
    "command": {"type": "array", "items": {"type": "string"}, "minItems": 1, "description": "what keeps the container alive between agent launches (default: sleep infinity)"},
    "stop_timeout": {"type": "integer", "minimum": 0, "description": "seconds docker waits on pause before killing (default 5)"}
  },
  "required": ["image"],
  "additionalProperties": false
}"#;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub image: String,
    #[serde(default = "default_network")]
    pub network: String,
    pub memory: Option<String>,
    pub cpus: Option<f64>,
    pub pids_limit: Option<u64>,
    #[serde(default)]
    pub mounts: Vec<String>,
    #[serde(default)]
    pub env: Vec<String>,
    pub user: Option<String>,
    pub host: Option<String>,
    #[serde(default = "default_command")]
    pub command: Vec<String>,
    #[serde(default = "default_stop_timeout")]
    pub stop_timeout: u64,
}

fn default_network() -> String {
    "none".into()
}

fn default_command() -> Vec<String> {
    vec!["sleep".into(), "infinity".into()]
}

fn default_stop_timeout() -> u64 {
    5
}

impl Config {
    pub fn read(ctx: &Context) -> Result<Config, PlugError> {
        let config: Config = ctx.config()?;
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
        Ok(config)
    }
}
