//! `blaise-runner`: see `blaise_runner::cli`.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = blaise_runner::cli::Cli::parse();
    // `dev` talks to a person on the terminal: only warnings unless RUST_LOG says otherwise.
    let quiet = matches!(cli.command, blaise_runner::cli::Command::Dev { .. });
    blaise_runner::cli::init_tracing(if quiet {
        "warn"
    } else {
        "warn,blaise_runner=info,sigstore=error"
    });
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
