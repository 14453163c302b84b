//! The `with:` config of the database plug, and the checks the schema cannot express.

use std::collections::BTreeMap;

use blaise_plug::{Context, PlugError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The `with:` config; its JSON Schema is derived from it.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// the server: a host name, an address, or the directory of its unix socket
    #[schemars(length(min = 1), regex(pattern = r"^[^-\s][^\s]*$"))]
    pub host: String,
    /// the server's port (default 5432)
    #[serde(default = "default_port")]
    #[schemars(range(min = 1))]
    pub port: u16,
    /// the login the plug works as: it creates databases and roles (a
    /// superuser, or a role with CREATEDB and CREATEROLE). Its password, if
    /// the server asks for one, is the granted secret `admin-password`
    #[serde(default = "default_admin_user")]
    #[schemars(length(min = 1, max = 63))]
    pub admin_user: String,
    /// the database the plug connects to for its own work (default postgres)
    #[serde(default = "default_admin_database")]
    #[schemars(length(min = 1, max = 63))]
    pub admin_database: String,
    /// an existing database every session's branch is copied from; no one
    /// may be connected to it while a session starts
    #[schemars(length(min = 1, max = 63))]
    pub template: Option<String>,
    /// steps that make the template once; it is made again when a step or
    /// a file it reads changes (instead of `template`)
    pub prepare: Option<Prepare>,
    /// the host the agent connects to, when it differs from `host` (e.g.
    /// host.docker.internal from a container)
    #[schemars(length(min = 1), regex(pattern = r"^[^\s]+$"))]
    pub agent_host: Option<String>,
    /// the agent's variables and what each holds (default: DATABASE_URL: url,
    /// PGHOST: host, PGPORT: port, PGDATABASE: database, PGUSER: user,
    /// PGPASSWORD: password)
    #[serde(default = "default_env")]
    #[schemars(length(min = 1), extend("propertyNames" = { "pattern": "^[A-Za-z_][A-Za-z0-9_]*$" }))]
    pub env: BTreeMap<String, Part>,
}

/// What a variable of the agent's holds (`url`:
/// `postgresql://USER:PASSWORD@HOST:PORT/DATABASE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Part {
    Url,
    Host,
    Port,
    Database,
    User,
    Password,
}

/// How the template is made.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Prepare {
    /// the directory the steps run in and read their files from, relative to
    /// the session's workspace (e.g. `repo`, the checkout plug's clone);
    /// default: the workspace
    #[serde(default)]
    pub dir: String,
    /// the steps, in order, on an empty database; the first that fails stops
    /// the preparation
    #[schemars(length(min = 1))]
    pub steps: Vec<Step>,
}

/// One step of the preparation.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Step {
    Sql(SqlStep),
    Restore(RestoreStep),
    Run(RunStep),
}

/// `sql: FILE`: a file of SQL, run by `psql`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SqlStep {
    #[schemars(length(min = 1))]
    pub sql: String,
}

/// `restore: FILE`: a dump, plain SQL (`psql`) or custom format (`pg_restore`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RestoreStep {
    #[schemars(length(min = 1))]
    pub restore: String,
}

/// `run: COMMAND`: a shell command (`sh -c`), e.g. a migration tool, with
/// `DATABASE_URL` and `PG*` set to the template being made; `inputs` are the
/// files and directories whose change makes the template again.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunStep {
    #[schemars(length(min = 1))]
    pub run: String,
    #[serde(default)]
    pub inputs: Vec<String>,
}

fn default_port() -> u16 {
    5432
}

fn default_admin_user() -> String {
    "postgres".into()
}

fn default_admin_database() -> String {
    "postgres".into()
}

fn default_env() -> BTreeMap<String, Part> {
    [
        ("DATABASE_URL", Part::Url),
        ("PGHOST", Part::Host),
        ("PGPORT", Part::Port),
        ("PGDATABASE", Part::Database),
        ("PGUSER", Part::User),
        ("PGPASSWORD", Part::Password),
    ]
    .into_iter()
    .map(|(name, part)| (name.into(), part))
    .collect()
}

/// Where the plug's own connections go: what teardown needs, read alone so
/// that a teardown works when the rest of the config has changed.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Server {
    pub host: String,
    #[serde(default = "default_port")]
    pub port: u16,
    #[serde(default = "default_admin_user")]
    pub admin_user: String,
    #[serde(default = "default_admin_database")]
    pub admin_database: String,
}

impl Server {
    /// The server fields of the config; the others are not read.
    pub fn read(ctx: &Context) -> Result<Server, PlugError> {
        ctx.config()
    }
}

impl Config {
    pub fn read(ctx: &Context) -> Result<Config, PlugError> {
        let config: Config = ctx.config()?;
        match (&config.template, &config.prepare) {
            (Some(_), Some(_)) => {
                return Err(PlugError::field(
                    "prepare",
                    "give `template` (an existing database) or `prepare` (steps that make one), not both",
                ));
            }
            (None, None) => {
                return Err(PlugError::field(
                    "template",
                    "name the database sessions branch from (`template`), or the steps that make it (`prepare`)",
                ));
            }
            _ => {}
        }
        if let Some(prepare) = &config.prepare {
            if !prepare.dir.is_empty() {
                check_relative(&prepare.dir).map_err(|why| PlugError::field("prepare.dir", why))?;
            }
            for (i, step) in prepare.steps.iter().enumerate() {
                let (field, paths): (&str, Vec<&String>) = match step {
                    Step::Sql(s) => ("sql", vec![&s.sql]),
                    Step::Restore(s) => ("restore", vec![&s.restore]),
                    Step::Run(s) => ("inputs", s.inputs.iter().collect()),
                };
                for (j, path) in paths.into_iter().enumerate() {
                    let at = if field == "inputs" {
                        format!("prepare.steps[{i}].inputs[{j}]")
                    } else {
                        format!("prepare.steps[{i}].{field}")
                    };
                    check_relative(path).map_err(|why| PlugError::field(at, why))?;
                }
            }
        }
        Ok(config)
    }

    pub fn server(&self) -> Server {
        Server {
            host: self.host.clone(),
            port: self.port,
            admin_user: self.admin_user.clone(),
            admin_database: self.admin_database.clone(),
        }
    }
}

/// A path the steps read: relative, and never out of their directory.
fn check_relative(path: &str) -> Result<(), String> {
    if path.starts_with('/') {
        return Err(format!(
            "`{path}` is absolute: paths are relative to the workspace (`prepare.dir`)"
        ));
    }
    if path.split('/').any(|part| part == "..") {
        return Err(format!("`{path}` leaves the workspace (`..`)"));
    }
    if path.contains('\0') {
        return Err("a path holds a NUL byte".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_outside_the_workspace_is_refused() {
        for bad in ["/etc/passwd", "../other/schema.sql", "db/../../x", "a\0b"] {
            assert!(check_relative(bad).is_err(), "{bad}");
        }
        for good in ["db/schema.sql", "migrations", "./seed.sql", "a..b/c"] {
            assert!(check_relative(good).is_ok(), "{good}");
        }
    }

    #[test]
    fn the_agents_variables_default_to_a_url_and_libpqs_own() {
        let names: Vec<String> = default_env().into_keys().collect();
        assert_eq!(
            names,
            [
                "DATABASE_URL",
                "PGDATABASE",
                "PGHOST",
                "PGPASSWORD",
                "PGPORT",
                "PGUSER"
            ]
        );
    }
}
