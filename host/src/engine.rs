//! The one `wasmtime::Engine` of a runner process, and the epoch ticker that
//! gives every hook call its deadline.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use anyhow::{Context as _, Result};
use wasmtime::{Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig};

/// How often the engine's epoch advances: the granularity of hook deadlines.
pub const EPOCH_TICK: Duration = Duration::from_millis(10);

/// Which instance allocator the engine ended up with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allocator {
    Pooling,
    OnDemand,
}

/// The engine and the thread that ticks its epoch. Dropping it stops the ticker.
pub struct PlugEngine {
    pub engine: Engine,
    pub allocator: Allocator,
    stop: Arc<AtomicBool>,
}

impl PlugEngine {
    /// Builds the engine. `max_memory` is the largest memory cap any plug may
    /// get: pooling slots are sized for it.
    pub fn new(max_memory: u64) -> Result<PlugEngine, crate::HostError> {
        Self::build(max_memory).map_err(|e| crate::HostError::of(crate::HostError::Setup, &e))
    }

    fn build(max_memory: u64) -> Result<PlugEngine> {
        // The pool reserves address space up front; where that is not allowed
        // (an `ulimit -v`, a small 32-bit space) fall back to on-demand.
        let (engine, allocator) = match Engine::new(&config(Some(max_memory))) {
            Ok(engine) if address_space_unlimited() => (engine, Allocator::Pooling),
            Ok(_) => (
                Engine::new(&config(None))
                    .map_err(anyhow::Error::from)
                    .context("creating the wasm engine")?,
                Allocator::OnDemand,
            ),
            Err(err) => {
                tracing::info!(%err, "pooling allocator unavailable; using on-demand allocation");
                (
                    Engine::new(&config(None))
                        .map_err(anyhow::Error::from)
                        .context("creating the wasm engine")?,
                    Allocator::OnDemand,
                )
            }
        };
        let stop = Arc::new(AtomicBool::new(false));
        let ticker_engine = engine.weak();
        let ticker_stop = stop.clone();
        thread::Builder::new()
            .name("blaise-epoch".into())
            .spawn(move || {
                while !ticker_stop.load(Ordering::Relaxed) {
                    thread::sleep(EPOCH_TICK);
                    match ticker_engine.upgrade() {
                        Some(engine) => engine.increment_epoch(),
                        None => break,
                    }
                }
            })
            .context("starting the epoch ticker")?;
        Ok(PlugEngine {
            engine,
            allocator,
            stop,
        })
    }

    /// Epoch ticks for a deadline, rounded up, at least one.
    pub fn ticks(deadline: Duration) -> u64 {
        (deadline.as_micros().div_ceil(EPOCH_TICK.as_micros()) as u64).max(1)
    }
}

impl Drop for PlugEngine {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn config(pool_memory: Option<u64>) -> Config {
    let mut config = Config::new();
    config.wasm_component_model(true);
    config.epoch_interruption(true);
    config.wasm_backtrace_max_frames(None);
    // A plug's guest stack: deep enough for real code, small enough that a
    // runaway recursion traps quickly.
    config.max_wasm_stack(1 << 20);
    // For profiling plugs with `perf` (docs/benchmarks.md): names the
    // compiled wasm functions in /tmp/perf-<pid>.map.
    if std::env::var_os("BLAISE_PERFMAP").is_some_and(|v| v == "1") {
        config.profiler(wasmtime::ProfilingStrategy::PerfMap);
    }
    if let Some(max_memory) = pool_memory {
        let mut pool = PoolingAllocationConfig::default();
        // Per-component limits cover the core instances, memories and tables
        // *inside* a component (a Rust wasip2 plug has several).
        pool.total_component_instances(128)
            .total_core_instances(1024)
            .total_memories(256)
            .total_tables(512)
            .max_memories_per_component(crate::limits::MAX_MEMORIES as u32)
            .max_tables_per_component(crate::limits::MAX_TABLES as u32)
            .max_core_instances_per_component(crate::limits::MAX_CORE_INSTANCES as u32)
            .max_memory_size(max_memory as usize)
            .total_stacks(128);
        config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    }
    config
}

fn address_space_unlimited() -> bool {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into the struct we pass.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } == 0;
    ok && limit.rlim_cur == libc::RLIM_INFINITY
}
