//! `psql`, as the plug runs it: one place that knows the server and the
//! administrator's login, and turns psql's words into errors.
//!
//! Nothing from the config or the session reaches SQL as text: values go in
//! as psql variables (`-v name=value`) and scripts use them quoted, `:"name"`
//! for an identifier and `:'name'` for a literal. The admin password goes
//! in psql's environment, never its argv.

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

    /// libpq's connection string for `database` as the administrator: one
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
        for (name, value) in vars {
            command = command.arg("--set").arg(format!("{name}={value}"));
        }
        command
            .args(["--dbname", &self.conninfo(database), "--file", "-"])
            .stdin(script.as_bytes().to_vec())
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
