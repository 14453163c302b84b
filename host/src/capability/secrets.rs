//! The `secrets` import: a granted secret's value, read from where the
//! operator said (`allow: secrets:`), and masked from then on in everything
//! that leaves the runner (see [`crate::secret_mask`]); and a secret the plug
//! made itself, masked the same way.

use crate::bindings::blaise::plug::secrets::{Host, SecretError};
use crate::ctx::{PlugCtx, PlugLabel};
use crate::grants::SecretGrant;
use crate::process::list_or_none;
use crate::secret_mask::MIN_SECRET;

/// What the `secrets` import sees of the store: the plug's secret grant and
/// the secrets the operator declined.
pub struct SecretsCap<'a> {
    pub grant: &'a SecretGrant,
    pub declined: &'a [String],
    pub label: &'a PlugLabel,
}

/// Bounds of `mask`. A value must look like a secret, not like text (masking
/// "the agent ran rm" would hide those words, and every 8 bytes of them,
/// wherever anyone wrote them): at least [`MASK_MIN`] bytes, no whitespace,
/// at least [`MASK_DISTINCT`] different bytes. Each masked value costs every
/// later scrub a little: at most [`MASK_MAX`] bytes, [`MASK_MOST`] values per
/// plug in a run (a run is one process: a fresh instance after a trap counts
/// on).
pub const MASK_MIN: usize = 16;
pub const MASK_DISTINCT: usize = 8;
pub const MASK_MAX: usize = 4096;
pub const MASK_MOST: usize = 64;

/// Counts one more value masked by `plug` (by id) in this process, and
/// returns how many it has masked, unless it already masked [`MASK_MOST`].
fn take_one(plug: &str) -> Option<usize> {
    let mut counts = counts().lock().unwrap_or_else(|e| e.into_inner());
    let count = counts.entry(plug.to_string()).or_default();
    (*count < MASK_MOST).then(|| {
        *count += 1;
        *count
    })
}

/// No whitespace, and at least [`MASK_DISTINCT`] different bytes.
fn looks_like_a_secret(value: &str) -> bool {
    let mut seen = [false; 256];
    value.bytes().for_each(|b| seen[b as usize] = true);
    !value.chars().any(char::is_whitespace) && seen.iter().filter(|s| **s).count() >= MASK_DISTINCT
}

fn counts() -> &'static std::sync::Mutex<std::collections::HashMap<String, usize>> {
    static COUNTS: std::sync::OnceLock<std::sync::Mutex<std::collections::HashMap<String, usize>>> =
        std::sync::OnceLock::new();
    COUNTS.get_or_init(Default::default)
}

/// Links `secrets` with [`SecretsCap`].
pub struct Secrets;

impl wasmtime::component::HasData for Secrets {
    type Data<'a> = SecretsCap<'a>;
}

pub fn view(ctx: &mut PlugCtx) -> SecretsCap<'_> {
    SecretsCap {
        grant: &ctx.grants.secrets,
        declined: &ctx.grants.secrets_declined,
        label: &ctx.label,
    }
}

impl Host for SecretsCap<'_> {
    async fn get(&mut self, name: String) -> Result<String, SecretError> {
        let Some(source) = self.grant.0.get(&name) else {
            let (plug, session) = (&self.label.plug_id, &self.label.session_id);
            if self.declined.contains(&name) {
                // Declared and left out by the operator (`check` said so): the
                // plug carries on without it.
                tracing::debug!(%plug, %session, secret = %name, "a secret not granted");
            } else {
                tracing::warn!(%plug, %session, secret = %name, "denied: a secret the plug did not ask for");
            }
            let granted: Vec<String> = self.grant.0.keys().cloned().collect();
            return Err(SecretError::Denied(format!(
                "`{name}` is not granted to this plug (granted: {})",
                list_or_none(&granted)
            )));
        };
        let value = source.read().map_err(SecretError::Unavailable)?;
        if value.len() < MIN_SECRET {
            // Masking it would mask ordinary words: fail closed.
            return Err(SecretError::Unavailable(format!(
                "`{name}` is shorter than {MIN_SECRET} bytes, too short to be kept out of logs and transcripts"
            )));
        }
        crate::secret_mask::remember(&value);
        Ok(value)
    }

    async fn mask(&mut self, value: String) -> Result<(), String> {
        let (plug, session) = (&self.label.plug_id, &self.label.session_id);
        // The shape first (the bytes are read only once the size is bounded),
        // then this plug's count, checked and taken under one lock.
        let counted = if value.len() < MASK_MIN {
            Err(format!(
                "a value of {} bytes is shorter than {MASK_MIN}: masking it could hide ordinary words",
                value.len()
            ))
        } else if value.len() > MASK_MAX {
            Err(format!(
                "a value of {} bytes is longer than {MASK_MAX}",
                value.len()
            ))
        } else if !looks_like_a_secret(&value) {
            Err(format!(
                "the value does not look like a secret (whitespace, or fewer than {MASK_DISTINCT} different bytes): masking it could hide ordinary text"
            ))
        } else {
            take_one(plug)
                .ok_or_else(|| format!("this plug already masked {MASK_MOST} values in this run"))
        };
        let masked = match counted {
            Ok(masked) => masked,
            Err(why) => {
                tracing::warn!(%plug, %session, "secrets.mask refused: {why}");
                return Err(why);
            }
        };
        crate::secret_mask::remember(&value);
        // Never the value: the count says what the plug did.
        tracing::debug!(%plug, %session, masked, "a secret the plug made is masked");
        Ok(())
    }
}
