//! Host-side bindings of the plug contract in `wit/`.

wasmtime::component::bindgen!({
    path: "../wit",
    world: "plug",
    imports: { default: async },
    exports: { default: async },
});

pub use blaise::plug::types::{
    Context, Contribution, EntryKind, Hook, Needs, PauseInfo, PlugError, PlugInfo, RunKind,
    TeardownInfo, TranscriptEntry,
};

impl blaise::plug::types::Host for crate::PlugCtx {}
