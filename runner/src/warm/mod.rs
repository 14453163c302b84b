//! Warm starts: agents started ahead of the sessions that will take them.
//!
//! An agent's start does not depend on its session: node, the CLI, ACP
//! `initialize`, and even `session/new` (Claude Code starts its CLI there,
//! most of a new session's wait). So the daemon keeps the number Blaise asks
//! for (the agent's `warm_agents`) started ahead, each by a `warm-one`
//! process of its own (it reads secrets and must be able to fail alone):
//!
//! 1. a new *slot* (`workspaces/wrm_…`, see `run::workspace`), the
//!    directory the agent starts in, with its home inside it;
//! 2. the agent started through the keeper as a start run with no plug
//!    contribution would start it, `initialize`, and `session/new` in the
//!    slot;
//! 3. handed, frozen, to the keeper's warm pool.
//!
//! A start run takes the agent that waited longest, adopts its slot as the
//! session's workspace, runs the plugs' `on-start` there, and computes its
//! own launch. Only when that launch is the one the agent was started with
//! (the same program, arguments, environment and secrets, directory) does it
//! go on with it: its conversation is the session's (`warm`). Otherwise the
//! agent is killed and the run starts one cold, in the same workspace. A
//! warm agent serves one session: once taken it is that run's, and never
//! goes back to the pool.
//!
//! What the agent printed while it warmed up (its stderr, the updates of its
//! `session/new`) is dropped unread: it has not passed any filter, and it
//! says nothing about the session.
//!
//! - `one`: the `warm-one` process
//! - `pool`: the daemon's side: how many to keep, when to start one, which
//!   to give up

mod one;
mod pool;

pub use one::{MAY_WRAP, WARM_ONE, WarmError, warm_one};
pub use pool::{Pool, config_digest};
