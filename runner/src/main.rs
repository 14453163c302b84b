//! `blaise-runner`: see `blaise_runner::cli`.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = blaise_runner::cli::Cli::parse();
    blaise_runner::cli::init_tracing_for(&cli.command);
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(blaise_runner::cli::run(cli));
    // Never wait for a blocking task a plug left stuck (a WASI open of a
    // FIFO, abandoned at its hook's deadline): the command is over.
    runtime.shutdown_background();
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
