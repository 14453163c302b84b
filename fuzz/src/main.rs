//! `blaise-fuzz <target|all> --runs N --seed S`: runs fuzz targets and prints
//! what they did; exits non-zero on any panic or 5xx.

use std::process::ExitCode;

use blaise_fuzz::{Kind, Options, escaped, run_target, targets};
use clap::Parser;

#[derive(Parser)]
#[command(about = "Fuzz the runner's and the control plane's parsers")]
struct Args {
    /// A target (blaise_yml, directives, acp_messages, control_requests) or `all`.
    target: String,
    /// Executions per target.
    #[arg(long, default_value_t = 10_000)]
    runs: u64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Do not save failing inputs under fuzz/crashes/.
    #[arg(long)]
    no_save: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let names: Vec<&str> = match args.target.as_str() {
        "all" => targets::NAMES.to_vec(),
        name if targets::NAMES.contains(&name) => vec![name],
        other => {
            eprintln!(
                "no target {other:?}: use one of {:?} or all",
                targets::NAMES
            );
            return ExitCode::from(2);
        }
    };
    let options = Options {
        runs: args.runs,
        seed: args.seed,
        save: !args.no_save,
    };
    println!(
        "{:<18} {:>12} {:>7} {:>6} {:>9} {:>9}",
        "target", "executions", "panics", "5xx", "time", "exec/s"
    );
    let mut failed = false;
    let mut findings = Vec::new();
    for name in names {
        let summary = run_target(name, &options).expect("a known target");
        let server_errors = if name == "control_requests" {
            summary.server_errors.to_string()
        } else {
            "-".into()
        };
        println!(
            "{:<18} {:>12} {:>7} {:>6} {:>8.1}s {:>9.0}",
            name,
            summary.executions,
            summary.distinct(Kind::Panic),
            server_errors,
            summary.elapsed.as_secs_f64(),
            summary.per_second()
        );
        if let Some(stats) = &summary.stats {
            println!("  {stats}");
        }
        failed |= !summary.clean();
        findings.extend(summary.findings.into_iter().map(|f| (name, f)));
    }
    println!(
        "seed {}; panics are distinct panics, 5xx all 5xx answers",
        args.seed
    );
    for (name, finding) in &findings {
        println!(
            "\n{name}: {:?} ×{}: {}\n  input: {}",
            finding.kind,
            finding.count,
            finding.message,
            escaped(&finding.input)
        );
        if let Some(path) = &finding.saved {
            println!("  saved: {}", path.display());
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
