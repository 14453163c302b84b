//! What a plug's store holds: its WASI context, its slice of the grants, its
//! view of its state, its log budget. Built per instance from the plug's
//! effective grants; a host capability only sees its own part.

use std::sync::Arc;
use std::time::Instant;

use wasmtime::component::ResourceTable;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use crate::grants::Grants;
use crate::limits::{Limits, MemoryLimiter};
use crate::log::LogSink;
use crate::state_store::{PlugState, StateChanges};

/// Who is calling, for logs and errors.
#[derive(Debug, Clone)]
pub struct PlugLabel {
    pub plug_id: Arc<str>,
    pub session_id: Arc<str>,
}

pub struct PlugCtx {
    pub wasi: WasiCtx,
    pub table: ResourceTable,
    pub memory: MemoryLimiter,
    pub label: PlugLabel,
    pub grants: Arc<Grants>,
    pub limits: Limits,
    pub state: StateView,
    pub log: Arc<LogSink>,
    pub http: reqwest::Client,
    /// The session workspace (a preopen; same path inside and out).
    pub workspace: String,
    /// The plug's storage directory, when granted (a preopen too).
    pub storage: Option<std::path::PathBuf>,
    /// When the current hook call must be over; host calls do not outlive it.
    pub deadline: Instant,
}

impl WasiView for PlugCtx {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

/// A plug's state as seen during one hook: the committed state plus the hook's
/// own pending writes, which are committed only if the hook succeeds.
#[derive(Debug, Default)]
pub struct StateView {
    pub committed: PlugState,
    pub pending: StateChanges,
}

impl StateView {
    pub fn get(&self, key: &str) -> Option<&Vec<u8>> {
        match self.pending.get(key) {
            Some(v) => v.as_ref(),
            None => self.committed.get(key),
        }
    }

    pub fn keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self
            .committed
            .keys()
            .filter(|k| !matches!(self.pending.get(*k), Some(None)))
            .cloned()
            .collect();
        keys.extend(
            self.pending
                .iter()
                .filter(|(k, v)| v.is_some() && !self.committed.contains_key(*k))
                .map(|(k, _)| k.clone()),
        );
        keys.sort();
        keys
    }

    /// Keys and bytes the state would hold with `key` set to a value of `len` bytes.
    pub fn usage_with(&self, key: &str, len: usize) -> (usize, usize) {
        let mut count = 0;
        let mut bytes = 0;
        for k in self.keys() {
            if k != key {
                count += 1;
                bytes += k.len() + self.get(&k).map_or(0, Vec::len);
            }
        }
        (count + 1, bytes + key.len() + len)
    }
}
