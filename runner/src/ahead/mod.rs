//! Environments prepared ahead: what the plugs can make once for every
//! session to come (a prepared image, a repository mirror, a database
//! template), made while the runner is idle, before the first session asks.
//!
//! A plug says it prepares (contract 0.3.2's `prepare.prepares`); its
//! `on-prepare` makes the thing where a session's `on-start` looks for it,
//! by a name derived from the config. A start still makes what no
//! preparation made, so preparing only ever moves work out of a session's
//! wait; it never decides whether a session can start.
//!
//! - `one`: the `prepare-ahead` process: the chain of blaise.yml in a
//!   scratch directory (`workspaces/prp_…`), `on-prepare` of each plug that prepares, in order; it
//!   holds a lock on the data directory meanwhile, so two daemons that
//!   share it never prepare at once (they would share the prepare id).
//! - `schedule`: the daemon's side: when to start one (blaise.yml new or
//!   changed, or the last preparation an hour old; the runner idle), and
//!   when to try again after a failure.

mod one;
mod schedule;

pub use one::{BUSY, NOTHING, PREPARE_AHEAD, Prepared, prepare_ahead, prepare_id};
pub use schedule::Ahead;
