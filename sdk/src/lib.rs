//! Write a Blaise plug in Rust.
//!
//! A plug is a WebAssembly component that helps the runner set up, pause,
//! resume and tear down the environment of a coding-agent session. Implement
//! [`Plug`] (every hook has a default) and put `#[blaise_plug::plug]` on the
//! `impl`: it exports the type as the component's plug and declares exactly
//! the hooks the `impl` defines, so the runner calls what the plug does and
//! nothing else. The `with:` schema comes from the config type
//! ([`PlugInfoBuilder::config`]). Build with `blaise-runner plug build`.
//!
//! ```no_run
//! use blaise_plug::{Context, Contribution, Plug, PlugError, PlugInfo, state};
//!
//! /// The `with:` config; its JSON Schema is derived from it.
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! #[serde(deny_unknown_fields)]
//! struct Config {
//!     /// What the agent is greeted with.
//!     greeting: String,
//! }
//!
//! struct Hello;
//!
//! #[blaise_plug::plug]
//! impl Plug for Hello {
//!     fn describe() -> PlugInfo {
//!         PlugInfo::builder("hello", env!("CARGO_PKG_VERSION"))
//!             .description("Greets the agent")
//!             .stateful(true)
//!             .can_resume(true)
//!             .config::<Config>()
//!             .build()
//!     }
//!
//!     fn on_start(ctx: &Context) -> Result<Contribution, PlugError> {
//!         let config: Config = ctx.config()?;
//!         state::set("runs", &1u32)?;
//!         Ok(Contribution::default().env("GREETING", &config.greeting))
//!     }
//!
//!     fn on_resume(ctx: &Context) -> Result<Contribution, PlugError> {
//!         let runs: u32 = state::get("runs")?.unwrap_or(0);
//!         state::set("runs", &(runs + 1))?;
//!         let config: Config = ctx.config()?;
//!         Ok(Contribution::default().env("GREETING", &config.greeting))
//!     }
//! }
//! ```
//!
//! Test the compiled plug with the `harness` feature (see `harness`), or run
//! its hooks from the command line with `blaise-runner plug test`.

#[doc(hidden)]
pub mod bindings {
    wit_bindgen::generate!({
        path: "wit",
        // Every plug exports `prepare`; `prepares` says whether it does.
        world: "preparing-plug",
        pub_export_macro: true,
        default_bindings_module: "blaise_plug::bindings",
        export_macro_name: "__export_plug_world",
    });
}

mod contribution;
mod error;
mod info;

pub mod http;
pub mod log;
pub mod process;
pub mod secrets;
pub mod state;

#[cfg(all(feature = "harness", not(target_arch = "wasm32")))]
pub mod harness;

pub use bindings::blaise::plug::types::{
    Context, Contribution, EntryKind, Hook, Needs, PauseInfo, PlugError, PlugInfo, RunKind,
    TeardownInfo, TranscriptEntry,
};
pub use bindings::exports::blaise::plug::prepare::PrepareContext;
pub use blaise_plug_macros::plug;
pub use info::PlugInfoBuilder;

/// A plug. Every hook has a default that does nothing and succeeds. Put
/// `#[blaise_plug::plug]` on the `impl`: the hooks it defines are the ones the
/// runner calls (`describe` declares them), and the transcript filter is
/// called when it defines `filter`.
pub trait Plug {
    /// What the plug is and needs. Called once when the plug is loaded, with
    /// no session: do not use state, process or http here.
    fn describe() -> PlugInfo;

    /// Create what the session needs.
    fn on_start(_ctx: &Context) -> Result<Contribution, PlugError> {
        Ok(Contribution::default())
    }

    /// Re-attach to what `on_start` created.
    fn on_resume(_ctx: &Context) -> Result<Contribution, PlugError> {
        Ok(Contribution::default())
    }

    /// The run is stopping; `info.may_resume` says whether a resume can follow.
    fn on_pause(_ctx: &Context, _info: &PauseInfo) -> Result<(), PlugError> {
        Ok(())
    }

    /// Destroy what the plug created. Must tolerate resources already gone.
    fn on_teardown(_ctx: &Context, _info: &TeardownInfo) -> Result<(), PlugError> {
        Ok(())
    }

    /// Make once, ahead of the sessions, what each of their starts would
    /// otherwise make (a prepared image, a mirror, a template), where
    /// `on_start` finds it. Called by the runner while it is idle when the
    /// `impl` defines it; there is no session and no state. `on_start` must
    /// still make it when no preparation did.
    fn on_prepare(_ctx: &PrepareContext) -> Result<(), PlugError> {
        Ok(())
    }

    /// Filter one transcript entry (called when the `impl` defines it).
    /// Entries arrive in order; a batch from the runner is handed over one
    /// entry at a time.
    fn filter(_ctx: &Context, entry: TranscriptEntry) -> TranscriptEntry {
        entry
    }
}

impl PrepareContext {
    /// The plug's `with:` config, deserialized, as [`Context::config`].
    pub fn config<T: serde::de::DeserializeOwned>(&self) -> Result<T, PlugError> {
        serde_json::from_str(&self.config).map_err(|e| PlugError::new(format!("bad config: {e}")))
    }

    /// The context of a start in the preparation's scratch workspace, with
    /// the prepare id as its session and run id: for a plug whose
    /// preparation is what its `on_start` does first (and whose names for
    /// leftovers derive from the session id, which this keeps stable).
    pub fn as_start(&self) -> Context {
        Context {
            session_id: self.prepare_id.clone(),
            run_id: self.prepare_id.clone(),
            run_kind: RunKind::Start,
            plug_id: self.plug_id.clone(),
            config: self.config.clone(),
            workspace: self.workspace.clone(),
            storage: self.storage.clone(),
            processes_kept: false,
        }
    }
}

impl Context {
    /// The plug's `with:` config, deserialized. The runner has already checked
    /// it against the schema from `describe`.
    pub fn config<T: serde::de::DeserializeOwned>(&self) -> Result<T, PlugError> {
        serde_json::from_str(&self.config).map_err(|e| PlugError::new(format!("bad config: {e}")))
    }
}

#[doc(hidden)]
pub mod __private {
    /// What `#[blaise_plug::plug]` read from the `impl`: the hooks it defines.
    pub trait Implemented {
        const HOOKS: &'static [crate::Hook];
        const FILTERS_TRANSCRIPT: bool;
        const PREPARES: bool;
    }
}

/// Exports a type as the plug of this component; `#[blaise_plug::plug]` calls it.
#[doc(hidden)]
#[macro_export]
macro_rules! __export_plug {
    ($plug:ty) => {
        #[doc(hidden)]
        pub struct __BlaisePlugExport;

        impl $crate::bindings::exports::blaise::plug::hooks::Guest for __BlaisePlugExport {
            fn describe() -> $crate::PlugInfo {
                let mut info = <$plug as $crate::Plug>::describe();
                // What the runner calls is what the `impl` defines.
                info.hooks = <$plug as $crate::__private::Implemented>::HOOKS.to_vec();
                info.filters_transcript =
                    <$plug as $crate::__private::Implemented>::FILTERS_TRANSCRIPT;
                info
            }
            fn on_start(ctx: $crate::Context) -> Result<$crate::Contribution, $crate::PlugError> {
                <$plug as $crate::Plug>::on_start(&ctx)
            }
            fn on_resume(ctx: $crate::Context) -> Result<$crate::Contribution, $crate::PlugError> {
                <$plug as $crate::Plug>::on_resume(&ctx)
            }
            fn on_pause(ctx: $crate::Context, info: $crate::PauseInfo) -> Result<(), $crate::PlugError> {
                <$plug as $crate::Plug>::on_pause(&ctx, &info)
            }
            fn on_teardown(
                ctx: $crate::Context,
                info: $crate::TeardownInfo,
            ) -> Result<(), $crate::PlugError> {
                <$plug as $crate::Plug>::on_teardown(&ctx, &info)
            }
        }

        impl $crate::bindings::exports::blaise::plug::prepare::Guest for __BlaisePlugExport {
            fn prepares() -> bool {
                <$plug as $crate::__private::Implemented>::PREPARES
            }
            fn on_prepare(ctx: $crate::PrepareContext) -> Result<(), $crate::PlugError> {
                <$plug as $crate::Plug>::on_prepare(&ctx)
            }
        }

        impl $crate::bindings::exports::blaise::plug::transcript::Guest for __BlaisePlugExport {
            fn filter(
                ctx: $crate::Context,
                entries: Vec<$crate::TranscriptEntry>,
            ) -> Vec<$crate::TranscriptEntry> {
                entries
                    .into_iter()
                    .map(|entry| <$plug as $crate::Plug>::filter(&ctx, entry))
                    .collect()
            }
        }

        $crate::bindings::__export_plug_world!(__BlaisePlugExport with_types_in $crate::bindings);
    };
}
