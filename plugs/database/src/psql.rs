//! `psql`, as the plug runs it: one place that knows the server and the
//! administrator's login, and turns psql's words into errors.
//!
//! Nothing from the config or the session reaches SQL as text: values go in
//! as psql variables and scripts use them quoted, `:"name"` for an
//! identifier and `:'name'` for a literal. Values travel in psql's
//! environment (read with `\getenv`, psql 15 and later), never its argv,
//! which any user of the machine can read: the admin password, and the
//! SCRAM verifier of a session's password, which with one overheard login
//! would be enough to log in.
//!
//! The plug's own scripts run with `search_path` set to `pg_catalog` alone:
//! a function a session's login (or a template's owner) made in a schema
//! anyone may create in cannot stand in for a built-in the administrator
//! calls.

use blaise_plug::process::{Command, Output};
use blaise_plug::{PlugError, secrets};

use crate::config::Server;

/// The secret with the administrator's password (optional: a server that
/// trusts the runner's machine asks for none).
pub const ADMIN_PASSWORD: &str = "admin-password";

/// How long one of the plug's own scripts may take (copying a large template
/// is the longest).
const SCRIPT_TIMEOUT_MS: u64 = 10 * 60 * 1000;

pub struct Psql {
    server: Server,
    password: Option<String>,
}

impl Psql {
    pub fn new(server: Server) -> Result<Psql, PlugError> {
        let password = secrets::get_if_granted(ADMIN_PASSWORD)?;
        Ok(Psql { server, password })
    }

    pub fn server(&self) -> &Server {
        &self.server
    }

    pub fn admin_password(&self) -> Option<&str> {
        self.password.as_deref()
    }

    /// libpq's connection string for `database` as the administrator, for
    /// the steps that prepare a template (their own search path): one
    /// argument, each value quoted (a database name with `=` in it stays a
    /// name).
    pub fn conninfo(&self, database: &str) -> String {
        let quote = |v: &str| format!("'{}'", v.replace('\\', "\\\\").replace('\'', "\\'"));
        format!(
            "host={} port={} user={} dbname={} connect_timeout=10 application_name=blaise-database",
            quote(&self.server.host),
            self.server.port,
            quote(&self.server.admin_user),
            quote(database)
        )
    }

    /// [`Psql::conninfo`] for the plug's own scripts: only `pg_catalog` on
    /// the search path (`\connect` keeps it).
    fn own_conninfo(&self, database: &str) -> String {
        format!(
            "{} options='-c search_path=pg_catalog,pg_temp'",
            self.conninfo(database)
        )
    }

    /// Runs `script` on `database`; `vars` are psql variables. What the
    /// script printed (unaligned, tuples only), or psql's error.
    pub fn run(
        &self,
        database: &str,
        vars: &[(&str, &str)],
        script: &str,
    ) -> Result<String, PlugError> {
        let out = self.output(database, vars, script)?;
        if out.success() {
            Ok(out.stdout_text())
        } else {
            Err(PlugError::new(failure(&out)))
        }
    }

    /// Like [`Psql::run`], whatever psql's exit status.
    pub fn output(
        &self,
        database: &str,
        vars: &[(&str, &str)],
        script: &str,
    ) -> Result<Output, PlugError> {
        let mut command = self
            .command("psql")
            .args([
                "--no-psqlrc",
                "--no-password",
                "--quiet",
                "--tuples-only",
                "--no-align",
            ])
            .args(["--set", "ON_ERROR_STOP=1"]);
        let mut text = String::new();
        for (name, value) in vars {
            let var = format!("BLAISE_PSQL_{}", name.to_ascii_uppercase());
            text.push_str(&format!("\\getenv {name} {var}\n"));
            command = command.env(var, *value);
        }
        text.push_str(script);
        command
            .args(["--dbname", &self.own_conninfo(database), "--file", "-"])
            .stdin(text.into_bytes())
            .timeout_ms(SCRIPT_TIMEOUT_MS)
            .run()
    }

    /// `program` with the admin password in its environment, if there is one.
    pub fn command(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        if let Some(password) = &self.password {
            command = command.env("PGPASSWORD", password.clone());
        }
        command
    }
}

/// What psql said when it failed, in a line or a few.
pub fn failure(out: &Output) -> String {
    let said = out.stderr_text();
    let said: Vec<&str> = said
        .lines()
        .map(|line| {
            // `psql:<stdin>:12: ERROR:  …`: where in our own script is noise.
            let line = line.strip_prefix("psql:").map_or(line, |rest| {
                rest.splitn(3, ':').nth(2).map_or(line, str::trim_start)
            });
            line.trim()
        })
        .filter(|line| !line.is_empty())
        .collect();
    match (said.is_empty(), out.status) {
        (false, _) => said.join("; "),
        (true, Some(code)) => format!("psql exited with {code} and said nothing"),
        (true, None) => "psql was stopped (its time ran out)".into(),
    }
}
