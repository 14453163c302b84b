//! Where plug state lives between runs: keyed by (session, plug id), owned by
//! the host, never by the plug.

mod memory;

use std::collections::BTreeMap;

use anyhow::Result;
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
    async fn load(&self, session: &str, plug: &str) -> Result<PlugState>;
    async fn commit(&self, session: &str, plug: &str, changes: &StateChanges) -> Result<()>;
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
