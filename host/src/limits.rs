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
///
/// The cap is on the *sum* of the store's linear memories: a component holds
/// several core instances, each may have its own memory, and a cap per memory
/// would let a plug have a multiple of it.
pub struct MemoryLimiter {
    cap: u64,
    /// Bytes of linear memory the store holds, all memories together.
    memory: u64,
    /// Table elements the store holds, all tables together.
    table_elements: usize,
    hit: Option<u64>,
}

/// Table elements a store may hold in all (a few MiB of host memory).
const MAX_TABLE_ELEMENTS: usize = 1 << 20;

/// Per store, what the pooling allocator allows per component
/// (`engine::config`), so that both allocators hold a plug to the same shape.
pub const MAX_CORE_INSTANCES: usize = 32;
pub const MAX_MEMORIES: usize = 8;
pub const MAX_TABLES: usize = 16;

impl MemoryLimiter {
    pub fn new(cap: u64) -> MemoryLimiter {
        MemoryLimiter {
            cap,
            memory: 0,
            table_elements: 0,
            hit: None,
        }
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
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        // A new memory arrives with `current` 0, so the sum counts it too.
        let total =
            (self.memory - (current as u64).min(self.memory)).saturating_add(desired as u64);
        if total > self.cap {
            self.hit = Some(total);
            return Ok(false);
        }
        self.memory = total;
        Ok(true)
    }

    fn table_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let total =
            (self.table_elements - current.min(self.table_elements)).saturating_add(desired);
        if total > MAX_TABLE_ELEMENTS {
            return Ok(false);
        }
        self.table_elements = total;
        Ok(true)
    }

    fn instances(&self) -> usize {
        MAX_CORE_INSTANCES
    }

    fn memories(&self) -> usize {
        MAX_MEMORIES
    }

    fn tables(&self) -> usize {
        MAX_TABLES
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasmtime::ResourceLimiter;

    #[test]
    fn the_cap_is_on_all_memories_together() {
        let mut limiter = MemoryLimiter::new(100);
        assert!(
            limiter.memory_growing(0, 60, None).unwrap(),
            "a first memory"
        );
        assert!(
            !limiter.memory_growing(0, 60, None).unwrap(),
            "a second memory that would take the store over the cap"
        );
        assert_eq!(limiter.take_hit(), Some(120));
        assert!(
            limiter.memory_growing(0, 40, None).unwrap(),
            "one that fits"
        );
        assert!(limiter.memory_growing(60, 60, None).unwrap(), "no growth");
        assert!(
            !limiter.memory_growing(40, 41, None).unwrap(),
            "one byte over"
        );
    }

    #[test]
    fn table_elements_are_counted_over_all_tables() {
        let mut limiter = MemoryLimiter::new(100);
        let half = MAX_TABLE_ELEMENTS / 2;
        assert!(limiter.table_growing(0, half, None).unwrap());
        assert!(limiter.table_growing(0, half, None).unwrap());
        assert!(!limiter.table_growing(0, 1, None).unwrap());
        assert!(limiter.table_growing(half, half - 1, None).unwrap());
        assert!(limiter.table_growing(0, 1, None).unwrap());
    }
}
