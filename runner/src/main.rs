//! `blaise-runner`: see `blaise_runner::cli`.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = blaise_runner::cli::Cli::parse();
    blaise_runner::cli::init_tracing();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(blaise_runner::cli::run(cli)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
