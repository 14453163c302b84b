//! Running a granted program on the host.
//!
//! ```no_run
//! # fn f(ctx: &blaise_plug::Context) -> Result<(), blaise_plug::PlugError> {
//! let out = blaise_plug::process::Command::new("git")
//!     .args(["status", "--short"])
//!     .cwd(&ctx.workspace)
//!     .run()?;
//! if !out.success() { /* … */ }
//! # Ok(()) }
//! ```

use crate::PlugError;
use crate::bindings::blaise::plug::process as raw;

pub use raw::Output;

/// A program to run; only granted programs are allowed.
pub struct Command(raw::Command);

impl Command {
    pub fn new(program: &str) -> Command {
        Command(raw::Command {
            argv: vec![program.into()],
            env: Vec::new(),
            cwd: None,
            stdin: Vec::new(),
            timeout_ms: None,
        })
    }
    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        self.0.argv.push(arg.into());
        self
    }
    pub fn args<S: Into<String>>(mut self, args: impl IntoIterator<Item = S>) -> Self {
        self.0.argv.extend(args.into_iter().map(Into::into));
        self
    }
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.0.env.push((key.into(), value.into()));
        self
    }
    pub fn cwd(mut self, dir: impl Into<String>) -> Self {
        self.0.cwd = Some(dir.into());
        self
    }
    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.0.stdin = bytes.into();
        self
    }
    pub fn timeout_ms(mut self, ms: u64) -> Self {
        self.0.timeout_ms = Some(ms);
        self
    }

    /// Runs the program and waits for it. A denied or unstartable program is
    /// an error; a non-zero exit is not (check [`Output::success`]).
    pub fn run(self) -> Result<Output, PlugError> {
        raw::run(&self.0).map_err(|e| match e {
            raw::ProcessError::Denied(m) => PlugError::new(format!("exec denied: {m}")),
            raw::ProcessError::SpawnFailed(m) => PlugError::new(format!("exec failed: {m}")),
        })
    }
}

impl Output {
    pub fn success(&self) -> bool {
        self.status == Some(0)
    }
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}
