//! `blaise-runner plug new NAME`: a plug crate from the SDK template.

use std::process::ExitCode;

use anyhow::{Result, bail};

pub fn run(name: &str) -> Result<ExitCode> {
    bail!("`plug new {name}`: the SDK template is not available in this build yet")
}
