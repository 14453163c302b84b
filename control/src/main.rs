//! `blaise`: the control plane (`serve`) and its client.

use clap::Parser;

#[tokio::main]
async fn main() {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("BLAISE_LOG")
                .unwrap_or_else(|_| "info".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = blaise_control::cli::Cli::parse();
    let mut out = std::io::stdout();
    if let Err(e) = blaise_control::cli::run(cli, &mut out).await {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
