//! Where plug state lives between runs: the host's stores (`blaise-host`),
//! plus the runner's own: SQLite on the runner's disk, and the control
//! plane's (so that a session resumes on any runner).

mod control;
mod sqlite;

pub use blaise_host::state_store::*;
pub use control::ControlStateStore;
pub use sqlite::SqliteStateStore;
