//! Per-plug limits: the hook deadline, the memory cap and the quotas that keep
//! a hostile plug from flooding the log or the state store.

use std::time::Duration;

use serde::Serialize;

/// Limits of one plug; defaults here, overrides per plug in `blaise.yml`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Limits {
    /// Wall time one hook call may take before it is stopped (traps).
    pub hook_deadline: Duration,
    /// Largest linear memory the plug's store may grow to.
    pub memory: u64,
    /// Keys a plug may keep in its state.
    pub state_keys: usize,
    /// Total bytes (keys + values) a plug may keep in its state.
    pub state_bytes: usize,
    /// Log lines (log import + stdout + stderr) kept per hook call; the rest
    /// is counted and reported in one line.
    pub log_lines: usize,
    /// Longest log line kept; longer ones are cut.
    pub log_line_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            hook_deadline: Duration::from_secs(60),
            memory: 128 << 20,
            state_keys: 1024,
            state_bytes: 4 << 20,
            log_lines: 1000,
            log_line_bytes: 4096,
        }
    }
}

/// Caps a store's memory and remembers whether the cap was hit, so that the
/// resulting trap (a Rust guest aborts with `unreachable`) can be reported as
/// what it is.
pub struct MemoryLimiter {
    cap: u64,
    hit: Option<u64>,
}

impl MemoryLimiter {
    pub fn new(cap: u64) -> MemoryLimiter {
        MemoryLimiter { cap, hit: None }
    }

    /// The size the plug asked for when it hit the cap, if it did.
    pub fn take_hit(&mut self) -> Option<u64> {
        self.hit.take()
    }

    pub fn cap(&self) -> u64 {
        self.cap
    }
}

impl wasmtime::ResourceLimiter for MemoryLimiter {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired as u64 > self.cap {
            self.hit = Some(desired as u64);
            return Ok(false);
        }
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= 1 << 20)
    }
}
