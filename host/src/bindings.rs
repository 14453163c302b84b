//! Host-side bindings of the current plug contract, `wit/plug.wit` (older
//! versions have theirs in `contract/`).

wasmtime::component::bindgen!({
    path: "../wit/plug.wit",
    world: "plug",
    imports: { default: async },
    exports: { default: async },
    // A plug's `describe` answer is kept beside its compiled artifact.
    additional_derives: [serde::Serialize, serde::Deserialize],
});

pub use blaise::plug::types::{
    Context, Contribution, EntryKind, Hook, Needs, PauseInfo, PlugError, PlugInfo, RunKind,
    TeardownInfo, TranscriptEntry,
};

impl blaise::plug::types::Host for crate::PlugCtx {}
