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
//! ```
//!
//! There are no timing keys: when a session is idle, how long it stays paused
//! and when a run times out are the agent's settings in the control plane.

mod error;
mod locate;
mod parse;
mod resolve;
mod timing;

pub use error::ConfigError;
pub use parse::{AgentConfig, Config, ConfigFile, LimitOverrides, PlugEntry};
pub use resolve::{
    ConfigCheck, LockUse, ResolvedPlug, cannot_resume, resolve, resolve_plugs, resolve_with,
};
