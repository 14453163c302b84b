//! Typed plug state (serde JSON), scoped by the runner to this session and this
//! plug id. Writes are kept only if the hook returns `Ok`.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::PlugError;
use crate::bindings::blaise::plug::state as raw;

fn error(e: raw::StateError) -> PlugError {
    match e {
        raw::StateError::QuotaExceeded(m) => PlugError::new(format!("state: {m}")),
        raw::StateError::Unavailable(m) => PlugError::new(format!("state unavailable: {m}")),
    }
}

/// The value stored under `key`, if any.
pub fn get<T: DeserializeOwned>(key: &str) -> Result<Option<T>, PlugError> {
    match raw::get(key).map_err(error)? {
        None => Ok(None),
        Some(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| PlugError::new(format!("state `{key}` does not decode: {e}"))),
    }
}

/// Stores `value` under `key`.
pub fn set<T: Serialize + ?Sized>(key: &str, value: &T) -> Result<(), PlugError> {
    let bytes =
        serde_json::to_vec(value).map_err(|e| PlugError::new(format!("state `{key}`: {e}")))?;
    raw::set(key, &bytes).map_err(error)
}

/// The raw bytes under `key`.
pub fn get_bytes(key: &str) -> Result<Option<Vec<u8>>, PlugError> {
    raw::get(key).map_err(error)
}

/// Stores raw bytes under `key`.
pub fn set_bytes(key: &str, value: &[u8]) -> Result<(), PlugError> {
    raw::set(key, value).map_err(error)
}

pub fn delete(key: &str) -> Result<(), PlugError> {
    raw::delete(key).map_err(error)
}

/// All keys, sorted.
pub fn keys() -> Result<Vec<String>, PlugError> {
    raw::list_keys().map_err(error)
}
