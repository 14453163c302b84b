//! The fuzz targets: each takes any bytes and must never panic.

pub mod acp_messages;
pub mod blaise_yml;
pub mod control_requests;
pub mod directives;

use arbitrary::Unstructured;

/// What one input did, short of a panic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Ok,
    /// The control plane answered 5xx or logged an error: a bug.
    ServerError(String),
}

pub trait Target {
    fn name(&self) -> &'static str;

    /// A structure-aware input, built from `u`'s bytes.
    fn generate(&mut self, u: &mut Unstructured) -> arbitrary::Result<Vec<u8>>;

    fn run(&mut self, input: &[u8]) -> Outcome;

    /// Called after a panic: drop whatever state the panic may have broken.
    fn reset(&mut self) {}

    /// What the inputs reached, for the summary (the control plane's answers).
    fn stats(&self) -> Option<String> {
        None
    }
}

/// Every target, by name, in the order `all` runs them.
pub const NAMES: [&str; 4] = [
    "blaise_yml",
    "directives",
    "acp_messages",
    "control_requests",
];

pub fn by_name(name: &str) -> Option<Box<dyn Target>> {
    Some(match name {
        "blaise_yml" => Box::new(blaise_yml::BlaiseYml),
        "directives" => Box::new(directives::Directives),
        "acp_messages" => Box::new(acp_messages::AcpMessages),
        "control_requests" => Box::new(control_requests::ControlRequests::new()),
        _ => return None,
    })
}
