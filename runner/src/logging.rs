//! The runner's log lines: to stderr, filtered by `BLAISE_LOG`, coloured only
//! on a terminal, and scrubbed of every secret value handed to plugs.

/// Logs to stderr; `BLAISE_LOG` filters (as for `blaise`; `RUST_LOG` when
/// it is not set), else `default`. Colours only on a terminal, never with
/// `NO_COLOR`. Every line is scrubbed of the secret values handed to plugs,
/// whatever field or level.
pub fn init_tracing(default: &str) {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(log_filter(default))
        .with_ansi(log_colour())
        .with_writer(|| crate::secret_mask::ScrubbingStderr)
        .try_init();
}

/// `BLAISE_LOG`, else `RUST_LOG`, else `default`.
pub fn log_filter(default: &str) -> tracing_subscriber::EnvFilter {
    tracing_subscriber::EnvFilter::try_from_env("BLAISE_LOG")
        .or_else(|_| tracing_subscriber::EnvFilter::try_from_default_env())
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default))
}

/// Whether the log is coloured: on a terminal, without `NO_COLOR`.
pub fn log_colour() -> bool {
    use std::io::IsTerminal as _;
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// The filter of the runner's own commands: its work at info, the rest at warn.
pub const DEFAULT_FILTER: &str = "warn,blaise_runner=info,blaise_distribution=info,sigstore=error";
