//! The docker CLI, as the plug runs it: one place that knows the Docker host
//! and turns docker's own words into errors.

use blaise_plug::PlugError;
use blaise_plug::process::{Command, Output};

pub struct Docker {
    host: Option<String>,
}

/// What docker says about a container that does not exist.
pub fn is_missing(text: &str) -> bool {
    let text = text.to_ascii_lowercase();
    text.contains("no such container") || text.contains("no such object")
}

impl Docker {
    pub fn new(host: Option<&str>) -> Docker {
        Docker {
            host: host.map(str::to_owned),
        }
    }

    /// The words that start a docker command line for this host.
    pub fn words(&self) -> Vec<String> {
        let mut words = vec!["docker".to_owned()];
        if let Some(host) = &self.host {
            words.extend(["--host".to_owned(), host.clone()]);
        }
        words
    }

    /// `docker ARGS`, whatever its exit status.
    pub fn output(&self, args: &[String]) -> Result<Output, PlugError> {
        let words = self.words();
        Command::new(&words[0])
            .args(words[1..].iter().cloned())
            .args(args.iter().cloned())
            .timeout_ms(10 * 60 * 1000)
            .run()
    }

    /// `docker ARGS`; an error with docker's words unless it succeeds.
    pub fn run(&self, args: &[String]) -> Result<String, PlugError> {
        let out = self.output(args)?;
        if out.success() {
            Ok(out.stdout_text())
        } else {
            Err(PlugError::new(format!(
                "`docker {}` failed: {}",
                args.first().map_or("", String::as_str),
                out.stderr_text().trim()
            )))
        }
    }

    /// Whether the container exists, and if so what it is doing.
    pub fn state(&self, name: &str) -> Result<Option<State>, PlugError> {
        let out = self.output(&strings(&[
            "container",
            "inspect",
            "--format",
            "{{.State.Status}}",
            name,
        ]))?;
        if out.success() {
            Ok(Some(State::from_status(out.stdout_text().trim())))
        } else if is_missing(&out.stderr_text()) {
            Ok(None)
        } else {
            Err(PlugError::new(format!(
                "`docker container inspect {name}` failed: {}",
                out.stderr_text().trim()
            )))
        }
    }
}

/// What a container is doing, as far as the plug cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Its processes run (`running`, `restarting`).
    Running,
    /// Its processes are frozen (`docker pause`): kept across a hot pause.
    Paused,
    /// Nothing runs in it (`created`, `exited`, `dead`, …).
    Stopped,
}

impl State {
    /// From `{{.State.Status}}`. (`{{.State.Running}}` is also true for a
    /// paused container, into which nothing can be exec'd.)
    pub fn from_status(status: &str) -> State {
        match status {
            "running" | "restarting" => State::Running,
            "paused" => State::Paused,
            _ => State::Stopped,
        }
    }
}

pub fn strings(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::State;

    #[test]
    fn a_paused_container_is_neither_running_nor_stopped() {
        assert_eq!(State::from_status("paused"), State::Paused);
        assert_eq!(State::from_status("running"), State::Running);
        assert_eq!(State::from_status("restarting"), State::Running);
        for stopped in ["created", "exited", "dead", "removing"] {
            assert_eq!(State::from_status(stopped), State::Stopped);
        }
    }
}
