//! The fuzz targets: each takes any bytes and must never panic.

pub mod acp_messages;
pub mod blaise_lock;
pub mod blaise_yml;
pub mod control_requests;
pub mod directives;
pub mod oci_manifest;
pub mod plug_index;
pub mod redaction_stream;

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
pub const NAMES: [&str; 8] = [
    "blaise_yml",
    "directives",
    "acp_messages",
    "control_requests",
    "oci_manifest",
    "plug_index",
    "blaise_lock",
    "redaction_stream",
];

pub fn by_name(name: &str) -> Option<Box<dyn Target>> {
    Some(match name {
        "blaise_yml" => Box::new(blaise_yml::BlaiseYml),
        "directives" => Box::new(directives::Directives),
        "acp_messages" => Box::new(acp_messages::AcpMessages),
        "control_requests" => Box::new(control_requests::ControlRequests::new()),
        "oci_manifest" => Box::new(oci_manifest::OciManifest),
        "plug_index" => Box::new(plug_index::PlugIndex),
        "blaise_lock" => Box::new(blaise_lock::BlaiseLock),
        "redaction_stream" => Box::new(redaction_stream::RedactionStream::new()),
        _ => return None,
    })
}
