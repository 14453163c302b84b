//! Reading `blaise.yml` into typed settings, with file:line:column errors.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Deserializer};

use super::error::ConfigError;
use super::{locate, timing};
use crate::host::Allow;
use crate::host::grants::SecretSource;
use crate::units::{parse_duration, parse_size};

/// `blaise.yml` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub agent: AgentConfig,
    #[serde(default)]
    pub plugs: Vec<PlugEntry>,
    /// Public keys (PEM files, relative to this file): every plug from a
    /// registry or a URL must be signed by one of them. A plug's own
    /// `signed_by` replaces this list for that plug; local files are exempt.
    #[serde(default)]
    pub signed_by: Vec<String>,
}

/// How to start the agent (any program that speaks ACP over stdio).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentConfig {
    /// The agent's name in Blaise (`blaise agent set NAME`): whose runs this
    /// runner takes, and whose settings (the idle policy) it follows.
    #[serde(default = "default_agent")]
    pub name: String,
    #[serde(deserialize_with = "non_empty_command")]
    pub command: Vec<String>,
    /// The agent's environment (with `PATH`, and `HOME` unless given here):
    /// values written out, or read from a secret's source and masked.
    #[serde(default)]
    pub env: BTreeMap<String, EnvValue>,
}

/// A value of `agent.env`: written out, or read when a run starts the agent
/// from where the operator says (`{ env: VAR }`, `{ file: /path }`, as for a
/// plug's secrets) and masked from then on in every log line, report and
/// transcript entry.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(try_from = "serde_yaml::Value")]
pub enum EnvValue {
    Literal(String),
    Secret(SecretSource),
}

impl TryFrom<serde_yaml::Value> for EnvValue {
    type Error = String;

    fn try_from(written: serde_yaml::Value) -> Result<Self, String> {
        use serde_yaml::Value;
        match written {
            Value::String(text) => Ok(EnvValue::Literal(text)),
            // `PORT: 8080`, `DEBUG: true`: the text a user wrote.
            Value::Number(n) => Ok(EnvValue::Literal(n.to_string())),
            Value::Bool(b) => Ok(EnvValue::Literal(b.to_string())),
            Value::Null => Err("an agent.env value is empty: write a value, `{ env: VARIABLE }` or `{ file: /absolute/path }`".into()),
            other => SecretSource::try_from(other).map(EnvValue::Secret),
        }
    }
}

impl EnvValue {
    /// The value: a secret's is read now, refused if too short to be masked,
    /// and masked from now on.
    pub fn resolve(&self) -> Result<String, String> {
        match self {
            EnvValue::Literal(text) => Ok(text.clone()),
            EnvValue::Secret(source) => {
                let value = source.read()?;
                if value.len() < crate::secret_mask::MIN_SECRET {
                    return Err(format!(
                        "it is shorter than {} bytes, too short to be kept out of logs and transcripts",
                        crate::secret_mask::MIN_SECRET
                    ));
                }
                crate::secret_mask::remember(&value);
                Ok(value)
            }
        }
    }
}

/// One plug of the chain.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlugEntry {
    /// The plug's id: the key of its persisted state. Unique in the file.
    #[serde(deserialize_with = "plug_id")]
    pub id: String,
    /// Where the component is: a path (relative to `blaise.yml`), an
    /// `https://` URL, or an OCI reference (`registry/name:tag`, `…@sha256:…`).
    pub source: String,
    /// The component's (or OCI artifact's) `sha256:` digest: what is
    /// downloaded must match it.
    #[serde(default)]
    pub digest: Option<String>,
    /// Public keys (PEM files, relative to this file), one of which must have
    /// signed the plug (cosign format; OCI sources only).
    #[serde(default)]
    pub signed_by: Vec<String>,
    /// The plug's config, checked against the schema it describes.
    #[serde(default)]
    pub with: Option<serde_json::Value>,
    /// What the operator grants the plug.
    #[serde(default)]
    pub allow: Allow,
    #[serde(default)]
    pub limits: LimitOverrides,
}

/// Per-plug overrides of the runner's default limits.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitOverrides {
    /// e.g. `64MiB`.
    #[serde(default, deserialize_with = "size")]
    pub memory: Option<u64>,
    /// The wall time of one hook call, e.g. `30s`.
    #[serde(default, deserialize_with = "duration")]
    pub hook_deadline: Option<Duration>,
}

/// A parsed `blaise.yml` with where it came from, for errors and relative paths.
#[derive(Debug, Clone)]
pub struct ConfigFile {
    pub path: PathBuf,
    pub text: String,
    pub config: Config,
}

impl ConfigFile {
    pub fn load(path: &Path) -> Result<ConfigFile, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            file: path.to_path_buf(),
            line: 0,
            column: 0,
            message: format!("cannot read it: {e}"),
        })?;
        Self::parse(path, text)
    }

    pub fn parse(path: &Path, text: String) -> Result<ConfigFile, ConfigError> {
        // A key written twice in any mapping is an error, not "the last one
        // wins": `with:`, `agent.env` and `allow.secrets` are maps that
        // serde would otherwise fill silently (a second `literals:` would
        // drop the first list of secrets to mask).
        serde_yaml::from_str::<serde_yaml::Value>(&text).map_err(|e| yaml_error(path, &e))?;
        let config: Config = serde_yaml::from_str(&text).map_err(|e| yaml_error(path, &e))?;
        let file = ConfigFile {
            path: path.to_path_buf(),
            text,
            config,
        };
        file.check_unique_ids()?;
        Ok(file)
    }

    /// The sha256 of the file's text: which version of it was checked.
    pub fn digest(&self) -> String {
        crate::host::compile_cache::sha256_hex(self.text.as_bytes())
    }

    /// The directory relative sources are resolved against.
    pub fn dir(&self) -> &Path {
        self.path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
    }

    /// An error about the plug at `index`, pointing at `key` in its entry
    /// (or at its `id:` when the key is not written).
    pub fn plug_error(&self, index: usize, key: &str, message: String) -> ConfigError {
        let entry = &self.config.plugs[index];
        let nth = self.config.plugs[..index]
            .iter()
            .filter(|p| p.id == entry.id)
            .count();
        let (line, column) = locate::plug_id(&self.text, &entry.id, nth)
            .map(|pos| locate::key_in_entry(&self.text, pos, key))
            .unwrap_or((0, 0));
        ConfigError {
            file: self.path.clone(),
            line,
            column,
            message: format!("plug `{}`: {message}", entry.id),
        }
    }

    fn check_unique_ids(&self) -> Result<(), ConfigError> {
        for (i, plug) in self.config.plugs.iter().enumerate() {
            if let Some(first) = self.config.plugs[..i].iter().position(|p| p.id == plug.id) {
                let first_line = locate::plug_id(&self.text, &plug.id, 0).map_or(0, |p| p.0);
                let mut err = self.plug_error(
                    i,
                    "id",
                    format!(
                        "duplicate plug id (plug #{} on line {first_line} has it too); ids key the plugs' state and must be unique",
                        first + 1
                    ),
                );
                err.message = err.message.replacen("plug `", "plug id `", 1);
                return Err(err);
            }
        }
        Ok(())
    }
}

fn yaml_error(path: &Path, err: &serde_yaml::Error) -> ConfigError {
    let mut located = ConfigError::from_yaml(path, err);
    if let Some(key) = unknown_field(&located.message)
        && timing::is_timing_key(key)
    {
        located.message = timing::timing_message(key);
    }
    located
}

/// The key of an "unknown field `key`, expected …" error.
fn unknown_field(message: &str) -> Option<&str> {
    let rest = message.split("unknown field `").nth(1)?;
    rest.split('`').next()
}

fn default_agent() -> String {
    "default".into()
}

fn non_empty_command<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let command = Vec::<String>::deserialize(d)?;
    if command.is_empty() || command[0].trim().is_empty() {
        return Err(serde::de::Error::custom(
            "agent.command is empty: give the agent's program and its arguments, e.g. [my-agent, --acp]",
        ));
    }
    Ok(command)
}

fn plug_id<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let id = String::deserialize(d)?;
    let ok = !id.is_empty()
        && id.len() <= 64
        && id.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
    if !ok {
        return Err(serde::de::Error::custom(format!(
            "plug id `{id}` is not valid: use 1 to 64 lowercase letters, digits, `-` or `_`, starting with a letter or digit"
        )));
    }
    Ok(id)
}

fn size<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let text = String::deserialize(d)?;
    parse_size(&text)
        .map(Some)
        .map_err(serde::de::Error::custom)
}

fn duration<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
    let text = String::deserialize(d)?;
    parse_duration(&text)
        .map(Some)
        .map_err(serde::de::Error::custom)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_env_values_are_written_out_or_read_from_a_source() {
        let text = "agent:\n  command: [x]\n  env:\n    MODEL: sonnet\n    PORT: 8080\n    KEY: { env: THE_KEY }\n    FILE_KEY: { file: /run/key }\n";
        let file = ConfigFile::parse(Path::new("blaise.yml"), text.into()).unwrap();
        let env = &file.config.agent.env;
        assert_eq!(env["MODEL"], EnvValue::Literal("sonnet".into()));
        assert_eq!(env["PORT"], EnvValue::Literal("8080".into()));
        assert_eq!(
            env["KEY"],
            EnvValue::Secret(SecretSource::Env("THE_KEY".into()))
        );
        assert_eq!(
            env["FILE_KEY"],
            EnvValue::Secret(SecretSource::File("/run/key".into()))
        );
        for (bad, says, line) in [
            ("{ file: key.txt }", "must be an absolute path", 4),
            ("{ vault: x }", "unknown field `vault`", 4),
            ("!env THE_KEY", "write `{ env: THE_KEY }`", 4),
            ("", "is empty", 4),
        ] {
            let text = format!("agent:\n  command: [x]\n  env:\n    KEY: {bad}\n");
            let err = ConfigFile::parse(Path::new("blaise.yml"), text)
                .map(drop)
                .expect_err(bad);
            assert!(err.message.contains(says), "{bad}: {}", err.message);
            assert_eq!(err.line, line, "{bad}: {}", err.message);
        }
    }

    #[test]
    fn a_key_written_twice_is_an_error_with_its_line() {
        for (text, line) in [
            (
                "agent:\n  command: [x]\nplugs:\n  - id: r\n    source: r.wasm\n    with:\n      literals: [aaaaaaaa]\n      literals: [bbbbbbbb]\n",
                7,
            ),
            (
                "agent:\n  command: [x]\n  env:\n    A: one\n    A: two\n",
                4,
            ),
        ] {
            let err = ConfigFile::parse(Path::new("blaise.yml"), text.into())
                .map(drop)
                .expect_err(text);
            // serde_yaml points at the mapping that holds the key twice
            // (its first line) and names the key.
            assert!(err.message.contains("duplicate entry"), "{}", err.message);
            assert_eq!(err.line, line, "{}", err.message);
        }
    }
}
