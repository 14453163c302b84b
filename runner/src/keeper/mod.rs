//! The keeper: what holds a paused session's agent between two runs (hot
//! resume). It belongs to the runner instance (the daemon), not to a run: a
//! run process still exits at a pause, as every run does.
//!
//! A run whose agent may be kept starts it *through* the keeper, so that the
//! agent is the daemon's child, not the run's: the run gets its stdin, stdout
//! and stderr over a socket (`SCM_RIGHTS`) and works with them as with any
//! agent. At a hot pause the run hands the descriptors back and exits; the
//! keeper freezes the agent's process group (`SIGSTOP`: no CPU) and holds
//! them. The session's next run takes them, continues the group, and talks
//! to the same process over the same pipes: no start, no `session/load`, no
//! replay. Whatever goes wrong on the way (the agent exited while frozen, the
//! keeper let it go, the runner restarted) leaves the resume cold.
//!
//! - `wire`: the messages and descriptor passing
//! - `freeze`: stopping and continuing everything below an agent's guard
//! - `service`: the daemon's side ([`Keeper`])
//! - `client`: a run's side ([`KeeperClient`])

mod client;
mod freeze;
mod service;
pub mod wire;

pub use client::{Handed, KeepFor, KeeperClient};
pub use freeze::{descendants, freeze, kill, thaw};
pub use service::{Keeper, KeptAgent, WarmAgent};

#[cfg(test)]
mod tests;
