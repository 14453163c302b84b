//! `blaise.yml`: the agent command and the plug chain of a runner.
//!
//! ```yaml
//! agent:
//!   command: [my-agent, --acp]
//! plugs:
//!   - id: redaction
//!     source: plugs/redaction.wasm     # relative to this file
//!     with: { literals: [hunter2] }     # checked against the plug's schema
//!     allow: { exec: [git], http: [api.github.com] }
//!     limits: { memory: 64MiB, hook_deadline: 30s }
//!   - id: hello                         # from a registry (see `crate::distribution`)
//!     source: ghcr.io/acme/hello:0.1.0
//!     digest: sha256:6ab5b0…            # optional pin
//!     signed_by: [keys/acme.pub]        # a cosign signature by one of these
//! signed_by: [keys/acme.pub]            # required of every plug from a registry
//! ```
//!
//! `blaise.lock` beside the file pins what each plug resolved to
//! (`blaise-runner plug lock`).
//!
//! There are no timing keys: when a session is idle, how long it stays paused
//! and when a run times out are the agent's settings in the control plane.

mod error;
mod locate;
mod parse;
mod resolve;
mod timing;

pub use error::ConfigError;
pub use parse::{AgentConfig, Config, ConfigFile, EnvValue, LimitOverrides, PlugEntry};
pub use resolve::{
    ConfigCheck, LockUse, ResolvedPlug, cannot_keep_processes, cannot_resume, check_config,
    resolve, resolve_plugs, resolve_with, startup_check,
};
