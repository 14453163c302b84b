//! An in-memory state store, for the SDK's test harness and for `check`.

use std::collections::HashMap;
use std::sync::Mutex;

use async_trait::async_trait;

use super::{PlugState, StateChanges, StateError, StateStore, apply};

#[derive(Default)]
pub struct MemoryStateStore {
    states: Mutex<HashMap<(String, String), PlugState>>,
}

impl MemoryStateStore {
    /// The state of one plug in one session, as committed.
    pub fn snapshot(&self, session: &str, plug: &str) -> PlugState {
        let states = self.states.lock().unwrap();
        states
            .get(&(session.to_string(), plug.to_string()))
            .cloned()
            .unwrap_or_default()
    }
}

#[async_trait]
impl StateStore for MemoryStateStore {
    async fn load(&self, session: &str, plug: &str) -> Result<PlugState, StateError> {
        Ok(self.snapshot(session, plug))
    }

    async fn commit(
        &self,
        session: &str,
        plug: &str,
        changes: &StateChanges,
    ) -> Result<(), StateError> {
        let mut states = self.states.lock().unwrap();
        let state = states
            .entry((session.to_string(), plug.to_string()))
            .or_default();
        apply(state, changes);
        Ok(())
    }
}
