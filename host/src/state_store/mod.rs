//! Where plug state lives between runs: keyed by (session, plug id), owned by
//! the host, never by the plug.

mod memory;

use std::collections::BTreeMap;

use async_trait::async_trait;

pub use memory::MemoryStateStore;

/// All state of one plug in one session.
pub type PlugState = BTreeMap<String, Vec<u8>>;

/// The writes of one successful hook: `None` deletes the key.
pub type StateChanges = BTreeMap<String, Option<Vec<u8>>>;

/// A durable home for plug state. `commit` applies all changes of one hook
/// atomically, or none of them.
#[async_trait]
pub trait StateStore: Send + Sync {
    async fn load(&self, session: &str, plug: &str) -> Result<PlugState, StateError>;
    async fn commit(
        &self,
        session: &str,
        plug: &str,
        changes: &StateChanges,
    ) -> Result<(), StateError>;
}

/// Why a state store could not load or commit: the hook fails, and its changes are not kept.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// The store could not be reached or did not take the operation (a database's error,
    /// Blaise refusing or away).
    #[error("{0}")]
    Unavailable(String),
    /// What the store holds cannot be read back.
    #[error("{0}")]
    Corrupt(String),
    /// The store was asked for another session than the one it serves.
    #[error("{0}")]
    WrongSession(String),
}

/// Applies changes to a state map (shared by the stores and the host's view).
pub fn apply(state: &mut PlugState, changes: &StateChanges) {
    for (key, value) in changes {
        match value {
            Some(v) => {
                state.insert(key.clone(), v.clone());
            }
            None => {
                state.remove(key);
            }
        }
    }
}
