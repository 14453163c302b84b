//! Ids the runner takes from Blaise. Run, session and environment ids name the run's directory
//! (`runs/<run>`), the workspace (`workspaces/<environment>`, removed at teardown), containers and
//! URL paths. The network is trusted with nothing: an id like `../../home` or `/` is refused when
//! the answer is read, before anything uses it.

use serde::{Deserialize, Deserializer};

/// Longest id the runner takes from Blaise.
pub const MAX_ID: usize = 128;

/// Whether `s` is an id the runner may use as a file name, a container name
/// and a URL segment: 1 to [`MAX_ID`] ASCII letters, digits, `_` and `-`.
pub fn is_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= MAX_ID
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Reads an id, refusing anything [`is_id`] refuses (for `#[serde(deserialize_with)]`).
pub fn id<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let s = String::deserialize(d)?;
    if is_id(&s) {
        return Ok(s);
    }
    let shown: String = s.chars().take(64).collect();
    Err(serde::de::Error::custom(format!(
        "`{}` is not an id (1 to {MAX_ID} letters, digits, `_` and `-`)",
        shown.escape_debug()
    )))
}
