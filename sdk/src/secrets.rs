//! Secrets the operator granted (`allow: secrets:` in `blaise.yml`).
//!
//! Read a secret when you need it and hand it to a program through its
//! environment or stdin, never its argv. Do not store it in state: the runner
//! masks values it handed out in your logs, errors and the transcript, but it
//! cannot follow them anywhere else. A secret your plug makes itself (a
//! password it generates for the agent) is masked the same way once you pass
//! it to [`mask`].

use crate::PlugError;
use crate::bindings::blaise::plug::secrets as raw;

/// The value of the secret `name`. Ask for it in `describe`
/// ([`crate::PlugInfoBuilder::secrets`]).
pub fn get(name: &str) -> Result<String, PlugError> {
    raw::get(name).map_err(|e| match e {
        raw::SecretError::Denied(m) => PlugError::new(format!("secret `{name}` denied: {m}")),
        raw::SecretError::Unavailable(m) => {
            PlugError::new(format!("secret `{name}` unavailable: {m}"))
        }
    })
}

/// Like [`get`], but `None` when the operator did not grant the secret: for
/// plugs that work without it (e.g. a public repository needs no token).
pub fn get_if_granted(name: &str) -> Result<Option<String>, PlugError> {
    match raw::get(name) {
        Ok(value) => Ok(Some(value)),
        Err(raw::SecretError::Denied(_)) => Ok(None),
        Err(raw::SecretError::Unavailable(m)) => {
            Err(PlugError::new(format!("secret `{name}` unavailable: {m}")))
        }
    }
}

/// Masks `value`, a secret the plug made (a generated password, say), as a
/// granted secret is masked: in every log line, report and transcript entry
/// that leaves the run, from now on. Call it before the value goes anywhere.
/// A value is masked for the rest of the run only: a plug that hands it out
/// again in a later run (a resume) calls `mask` again there, so derive it
/// from a granted secret rather than store it. Refused: a value that does not
/// look like a secret (fewer than 16 bytes, whitespace, fewer than 8
/// different bytes), more than 4096 bytes, or more than 64 values from one
/// plug in a run.
pub fn mask(value: &str) -> Result<(), PlugError> {
    raw::mask(value).map_err(|why| PlugError::new(format!("a secret could not be masked: {why}")))
}
