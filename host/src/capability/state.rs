//! The `state` import: get/set/delete/list over the plug's own state, with
//! quotas that count everything the hook holds pending (a delete included).
//! Writes stay pending until the hook returns `ok`.

use wasmtime::component::HasData;

use crate::bindings::blaise::plug::state::{Host, StateError};
use crate::ctx::{PlugCtx, PlugLabel, StateView};
use crate::limits::Limits;
use crate::units::format_size;

/// What the `state` import sees of the store: the plug's state and its
/// quotas, nothing of its grants.
pub struct StateCap<'a> {
    pub state: &'a mut StateView,
    pub limits: &'a Limits,
    pub label: &'a PlugLabel,
}

/// Links `state` with [`StateCap`].
pub struct State;

impl HasData for State {
    type Data<'a> = StateCap<'a>;
}

pub fn view(ctx: &mut PlugCtx) -> StateCap<'_> {
    StateCap {
        state: &mut ctx.state,
        limits: &ctx.limits,
        label: &ctx.label,
    }
}

impl Host for StateCap<'_> {
    async fn get(&mut self, key: String) -> Result<Option<Vec<u8>>, StateError> {
        Ok(self.state.get(&key).cloned())
    }

    async fn set(&mut self, key: String, value: Vec<u8>) -> Result<(), StateError> {
        let (keys, bytes) = self.state.usage_with(&key, value.len());
        let limits = *self.limits;
        if keys > limits.state_keys || bytes > limits.state_bytes {
            let why = format!(
                "state quota exceeded: {keys} keys / {} (limits: {} keys / {})",
                format_size(bytes as u64),
                limits.state_keys,
                format_size(limits.state_bytes as u64)
            );
            tracing::warn!(plug = %self.label.plug_id, session = %self.label.session_id, "{why}");
            return Err(StateError::QuotaExceeded(why));
        }
        self.state.pending.insert(key, Some(value));
        Ok(())
    }

    async fn delete(&mut self, key: String) -> Result<(), StateError> {
        // A delete is recorded only for a key the committed state holds (so
        // pending writes never outnumber the quota); deleting a key written in
        // this hook just forgets the write; any other delete changes nothing.
        if self.state.committed.contains_key(&key) {
            self.state.pending.insert(key, None);
        } else {
            self.state.pending.remove(&key);
        }
        Ok(())
    }

    async fn list_keys(&mut self) -> Result<Vec<String>, StateError> {
        Ok(self.state.keys())
    }
}
