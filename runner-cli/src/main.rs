//! `blaise-runner`: the runner's command line, over the `blaise-runner`
//! library (the daemon, runs, plugs) and `blaise-dev` (the embedded default).

mod cli;
mod commands;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    cli::init_tracing_for(&cli.command);
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(cli::run(cli));
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
