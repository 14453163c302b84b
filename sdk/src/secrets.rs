//! Secrets the operator granted (`allow: secrets:` in `blaise.yml`).
//!
//! Read a secret when you need it and hand it to a program through its
//! environment or stdin, never its argv. Do not store it in state or put it in
//! a contribution: the runner masks values it handed out in your logs and
//! errors, but it cannot follow them anywhere else.

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
