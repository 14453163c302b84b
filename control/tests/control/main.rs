//! The control plane driven over HTTP, with a protocol client standing in for the runner.
//! Each test names the seed sentence or table row it checks (see docs/control-plane.md).

mod bad_input;
mod cli;
mod dashboard;
mod decisions;
mod failures;
mod lifecycle;
mod retention;
mod support;
mod walkthrough;
