//! Running git for the plug: never prompting, with the operator's token (when
//! granted) passed through the environment to a credential helper, so it is in
//! no argv, no remote URL and no file.

use blaise_plug::process::{Command, Output};
use blaise_plug::{PlugError, secrets};

/// The secret the plug asks for; the operator grants it under this name.
pub const TOKEN_SECRET: &str = "git-token";

/// Prints the credentials git asks for, from the environment of this git run.
const HELPER: &str = "credential.helper=!f() { test \"$1\" = get || return 0; echo \"username=$BLAISE_GIT_USERNAME\"; echo \"password=$BLAISE_GIT_TOKEN\"; }; f";

/// Settings that switch off every way a repository's config can name a
/// program: hooks, the fsmonitor, askpass, ssh command and transports other
/// than http(s), ssh and local files (upload-pack: see [`UPLOAD_PACK`]).
const HARDENING: &[&str] = &[
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.askPass=",
    "core.sshCommand=ssh",
    "core.gitProxy=",
    "protocol.allow=never",
    "protocol.https.allow=always",
    "protocol.http.allow=always",
    "protocol.ssh.allow=always",
    "protocol.file.allow=always",
];

/// The upload-pack a fetch runs, on the command line: git takes the *first*
/// `remote.origin.uploadpack` it reads (the repository's), so a `-c` setting
/// would not win.
pub const UPLOAD_PACK: &str = "--upload-pack=git-upload-pack";

/// How git reaches the repository.
pub struct Git {
    token: Option<String>,
    username: String,
}

impl Git {
    /// Reads the token if the operator granted it. Not granted means no
    /// credentials; granted but unreadable is an error.
    pub fn new(username: &str) -> Result<Git, PlugError> {
        let token = secrets::get_if_granted(TOKEN_SECRET)?;
        Ok(Git {
            token,
            username: username.into(),
        })
    }

    /// `git ARGS` in `cwd`; an error (with git's own words) unless it succeeds.
    pub fn run(&self, cwd: &str, args: &[&str]) -> Result<Output, PlugError> {
        let out = self.command(cwd, args).run()?;
        if out.success() {
            Ok(out)
        } else {
            Err(PlugError::new(format!(
                "`git {}` failed{}: {}",
                args.first().copied().unwrap_or_default(),
                out.status
                    .map_or(" (killed)".into(), |s| format!(" (exit {s})")),
                self.scrub(out.stderr_text().trim())
            )))
        }
    }

    /// Whether `git ARGS` succeeds (for questions, not work).
    pub fn check(&self, cwd: &str, args: &[&str]) -> bool {
        self.command(cwd, args).run().is_ok_and(|o| o.success())
    }

    fn command(&self, cwd: &str, args: &[&str]) -> Command {
        let mut cmd = Command::new("git")
            // No helper from the machine's git config, never a prompt.
            .args(["-c", "credential.helper="])
            // The clone's own `.git/config` is writable by the agent: nothing
            // in it may make this git (on the host, outside any sandbox) run
            // a program. Command-line settings win over the repository's.
            .args(HARDENING.iter().flat_map(|setting| ["-c", *setting]))
            .env("GIT_TERMINAL_PROMPT", "0")
            .cwd(cwd)
            .timeout_ms(30 * 60 * 1000);
        if let Some(token) = &self.token {
            cmd = cmd
                .args(["-c", HELPER])
                .env("BLAISE_GIT_USERNAME", &self.username)
                .env("BLAISE_GIT_TOKEN", token);
        }
        cmd.args(args.iter().copied())
    }

    /// git may echo what it was given; the token never leaves the plug.
    fn scrub(&self, text: &str) -> String {
        match &self.token {
            Some(token) => text.replace(token.as_str(), "[REDACTED:secret]"),
            None => text.to_owned(),
        }
    }
}
