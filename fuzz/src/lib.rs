//! Fuzzing on stable Rust: the parsers the runner and the control plane
//! expose to the outside, driven by structure-aware inputs (`arbitrary`) and
//! by byte-level mutations of a seed corpus of real inputs, each execution
//! under `catch_unwind`.
//!
//! Targets (`targets`): `blaise_yml`, `directives`, `acp_messages`,
//! `control_requests`, and `redaction_stream` (the redaction plug's stream
//! filter, whose chunked output must be the whole text's redaction).
//! `blaise-fuzz <target|all> --runs N --seed S` runs them (`scripts/fuzz`);
//! `tests/slice.rs` runs a short slice of each.

pub mod corpus;
pub mod driver;
pub mod mutate;
pub mod rng;
pub mod shapes;
pub mod targets;

pub use driver::{Finding, Kind, Options, Summary, escaped, execute, fuzz};

/// Runs the target called `name` from its seed corpus.
pub fn run_target(name: &str, options: &Options) -> Option<Summary> {
    let mut target = targets::by_name(name)?;
    let seeds: Vec<Vec<u8>> = corpus::seeds(name).into_iter().map(|(_, s)| s).collect();
    Some(fuzz(target.as_mut(), &seeds, options))
}
