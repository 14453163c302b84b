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

/// The last lines of what a failed program said (at most 20 lines, 2 KiB),
/// enough to see why, for an error message.
pub fn tail(text: &str) -> String {
    const LINES: usize = 20;
    const BYTES: usize = 2048;
    let text = text.trim_end();
    let lines: Vec<&str> = text.lines().collect();
    let mut kept = lines[lines.len().saturating_sub(LINES)..].join("\n");
    if kept.len() > BYTES {
        let mut cut = kept.len() - BYTES;
        while !kept.is_char_boundary(cut) {
            cut += 1;
        }
        kept = format!("…{}", &kept[cut..]);
    }
    if kept.is_empty() {
        "(it printed nothing)".into()
    } else {
        kept
    }
}

#[cfg(test)]
mod tests {
    use super::tail;

    #[test]
    fn what_a_program_said_is_cut_to_its_end() {
        let long: String = (0..100).map(|i| format!("line {i}\n")).collect();
        let kept = tail(&long);
        assert!(
            kept.starts_with("line 80\n") && kept.ends_with("line 99"),
            "{kept}"
        );
        assert_eq!(tail("  \n"), "(it printed nothing)");
        let wide = "é".repeat(3000);
        let kept = tail(&wide);
        assert!(kept.starts_with('…') && kept.len() <= 2048 + '…'.len_utf8());
    }
}
