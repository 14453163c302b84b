//! `blaise-runner plug keygen NAME`: a signing key pair for `plug push --sign`
//! (`NAME.key`, private, and `NAME.pub` for operators' `signed_by`).

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;

use blaise_runner::distribution::signature;

pub fn run(name: &Path) -> Result<ExitCode> {
    let (key, public) = signature::generate(name)?;
    println!("private key: {} (keep it secret)", key.display());
    println!("public key:  {} (give it to operators)", public.display());
    Ok(ExitCode::SUCCESS)
}
