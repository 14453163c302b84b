//! The Blaise plug host: one engine, plugs loaded once (compile cache,
//! contract check, `InstancePre`), and instances that run hooks under a
//! deadline and a memory cap with only their granted capabilities; the chain
//! of a run's plugs; where plug state lives. It knows nothing of the control
//! plane or of plug distribution: the runner, `plug test` and the SDK's
//! harness (through `plug test`) all run plugs with it.
//!
//! One file per concern: `engine`, `compile_cache`, `load` (a plug from a
//! file), `instance` (hook calls and their failures), `grants`, `limits`,
//! and one file per host capability of `wit/` under `capability/`, each
//! linked with a view of only its own slice of the store (`ctx`).

pub mod bindings;
pub mod capability;
pub mod chain;
pub mod compile_cache;
pub mod contract;
pub mod contribution;
pub mod ctx;
pub mod engine;
pub mod env_policy;
pub mod error;
pub mod failure;
pub mod grants;
pub mod guard;
pub mod instance;
pub mod limits;
pub mod load;
pub mod public_dns;
pub mod secret_mask;
pub mod state_store;
pub mod units;

pub use capability::{http, log, process, secrets, state};

use std::path::PathBuf;

use anyhow::Result;
use wasmtime::component::Linker;

pub use compile_cache::Origin;
pub use ctx::PlugCtx;
pub use engine::Allocator;
pub use error::HostError;
pub use failure::{Failure, HookError};
pub use grants::{Allow, GrantReport, Grants};
pub use instance::{HookCall, HookObserver, PlugInstance, PlugSetup, RunInfo, observe_hooks};
pub use limits::Limits;
pub use load::LoadedPlug;

use compile_cache::CompileCache;
use engine::PlugEngine;

/// Settings of a plug host.
#[derive(Debug, Clone)]
pub struct HostOptions {
    /// Where compiled plugs are cached.
    pub cache_dir: PathBuf,
    /// The largest memory cap any plug may be given (sizes the instance pool).
    pub max_memory: u64,
    /// Log what a transcript filter writes during its calls, and keep its
    /// last words in its errors. A runner never does (a filter is handed
    /// the agent's unfiltered text, and may write it); `plug test` does
    /// (the entries are the plug author's own).
    pub log_filter_calls: bool,
}

impl HostOptions {
    /// The runner's default cache directory: `$XDG_CACHE_HOME/blaise` or `~/.cache/blaise`.
    pub fn default_cache_dir() -> PathBuf {
        std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
            .unwrap_or_else(std::env::temp_dir)
            .join("blaise")
    }
}

impl Default for HostOptions {
    fn default() -> Self {
        HostOptions {
            cache_dir: Self::default_cache_dir(),
            max_memory: 1 << 30,
            log_filter_calls: false,
        }
    }
}

/// Links each interface of the contract to the capability that serves it,
/// with a view of only that capability's slice of the store.
fn link_capabilities(linker: &mut Linker<PlugCtx>) -> wasmtime::Result<()> {
    use bindings::blaise::plug as contract;
    // `types` holds only types: nothing of the store is reachable through it.
    contract::types::add_to_linker::<PlugCtx, wasmtime::component::HasSelf<PlugCtx>>(
        linker,
        |ctx| ctx,
    )?;
    contract::state::add_to_linker::<PlugCtx, state::State>(linker, state::view)?;
    contract::log::add_to_linker::<PlugCtx, log::Log>(linker, log::view)?;
    contract::secrets::add_to_linker::<PlugCtx, secrets::Secrets>(linker, secrets::view)?;
    contract::process::add_to_linker::<PlugCtx, process::Process>(linker, process::view)?;
    contract::http::add_to_linker::<PlugCtx, http::Http>(linker, http::view)?;
    // Plugs built for an older contract import the same capabilities under
    // that version's names.
    crate::contract::v0_2::link(linker)?;
    Ok(())
}

/// Hosts plugs. One per runner process; cheap to share behind an `Arc`.
pub struct PlugHost {
    engine: PlugEngine,
    linker: Linker<PlugCtx>,
    cache: CompileCache,
    http: reqwest::Client,
    max_memory: u64,
    cache_dir: PathBuf,
    log_filter_calls: bool,
}

impl PlugHost {
    pub fn new(options: &HostOptions) -> Result<PlugHost, HostError> {
        let engine = PlugEngine::new(options.max_memory)?;
        let mut linker = Linker::new(&engine.engine);
        let setup = |what: &str, e: wasmtime::Error| HostError::Setup(format!("{what}: {e:#}"));
        wasmtime_wasi::p2::add_to_linker_async(&mut linker)
            .map_err(|e| setup("linking WASI", e))?;
        link_capabilities(&mut linker).map_err(|e| setup("linking the plug contract", e))?;
        let cache = CompileCache::open(&options.cache_dir.join("compiled"), &engine.engine)?;
        Ok(PlugHost {
            engine,
            linker,
            cache,
            http: http::client()?,
            max_memory: options.max_memory,
            cache_dir: options.cache_dir.clone(),
            log_filter_calls: options.log_filter_calls,
        })
    }

    pub fn allocator(&self) -> Allocator {
        self.engine.allocator
    }

    /// The runner's cache directory (compiled plugs, downloaded plugs).
    pub fn cache_dir(&self) -> &std::path::Path {
        &self.cache_dir
    }

    /// The largest memory cap this host can give a plug.
    pub fn max_memory(&self) -> u64 {
        self.max_memory
    }
}
