//! Host-side bindings of the current plug contract, `wit/plug.wit` (older
//! versions have theirs in `contract/`).

// The world with every export a plug may have; `contract::exports` finds
// each interface on its own, as a plug built for `plug` has no `prepare`.
wasmtime::component::bindgen!({
    path: "../wit/plug.wit",
    world: "preparing-plug",
    imports: { default: async },
    exports: { default: async },
    // A plug's `describe` answer is kept beside its compiled artifact.
    additional_derives: [serde::Serialize, serde::Deserialize],
});

pub use blaise::plug::types::{
    Context, Contribution, EntryKind, Hook, Needs, PauseInfo, PlugError, PlugInfo, RunKind,
    TeardownInfo, TranscriptEntry,
};

pub use exports::blaise::plug::prepare::PrepareContext;

impl blaise::plug::types::Host for crate::PlugCtx {}
