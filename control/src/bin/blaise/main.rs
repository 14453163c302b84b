//! `blaise`: the control plane (`serve`) and its client. The command line lives here, in the
//! binary (`cli/`); the library is the control plane itself.

mod cli;

fn main() {
    let cli = cli::Cli::from_env();
    // A transaction holds the thread it runs on while it waits: on SQLite for microseconds, on
    // PostgreSQL for network round trips. Serving on PostgreSQL, enough threads that the
    // store's connections (16), not the threads, bound how many transactions run at once.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let workers = match &cli.command {
        cli::Command::Serve(args) if blaise_control::store::is_postgres_url(&args.db) => {
            cores + blaise_control::store::postgres::POOL_SIZE as usize
        }
        _ => cores,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .expect("starting the runtime");
    runtime.block_on(run(cli));
}

async fn run(cli: cli::Cli) {
    use std::io::IsTerminal as _;
    // `BLAISE_LOG` filters the log of both binaries (`RUST_LOG` too, when it
    // is not set); colours only on a terminal, and never with `NO_COLOR`.
    let filter = tracing_subscriber::EnvFilter::try_from_env("BLAISE_LOG")
        .or_else(|_| tracing_subscriber::EnvFilter::try_from_default_env())
        .unwrap_or_else(|_| "info".into());
    let colour = std::io::stderr().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(colour)
        .with_writer(std::io::stderr)
        .init();
    let mut out = std::io::stdout();
    if let Err(e) = cli::run(cli, &mut out).await {
        eprintln!("error: {e:#}");
        let waits = e.is::<cli::follow::WaitsForAnswer>();
        std::process::exit(if waits { 2 } else { 1 });
    }
}
