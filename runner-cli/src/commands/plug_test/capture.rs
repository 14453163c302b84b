//! The plug's log lines during a step, for `plug test` to show: a `tracing`
//! layer that keeps every event the host logs on the plug's behalf (they
//! carry a `plug` field), already scrubbed and cut as the runner logs them.

use std::sync::{Arc, Mutex, OnceLock};

use serde::Serialize;
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context, Layer};

#[derive(Debug, Clone, Serialize)]
pub struct Captured {
    pub level: String,
    /// `log` (the log import), `stdout`, `stderr`, or empty for the host's
    /// own lines about the plug (a denied program, a quota).
    pub source: String,
    pub message: String,
}

/// The lines captured since the last `take`.
#[derive(Clone, Default)]
pub struct LogCapture(Arc<Mutex<Vec<Captured>>>);

static INSTALLED: OnceLock<LogCapture> = OnceLock::new();

impl LogCapture {
    /// The capture `init_tracing` installed (an idle one if none was).
    pub fn installed() -> LogCapture {
        INSTALLED.get_or_init(LogCapture::default).clone()
    }

    pub fn take(&self) -> Vec<Captured> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

#[derive(Default)]
struct Fields {
    plug: bool,
    source: String,
    message: String,
    rest: Vec<String>,
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        match field.name() {
            "source" => self.source = value.into(),
            "message" => self.message = value.into(),
            "plug" => self.plug = true,
            "session" => {}
            name => self.rest.push(format!("{name}={value}")),
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.record_str(field, &format!("{value:?}"));
    }
}

impl<S: tracing::Subscriber> Layer<S> for LogCapture {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        let mut fields = Fields::default();
        event.record(&mut fields);
        if !fields.plug {
            return;
        }
        let mut message = fields.message;
        if !fields.rest.is_empty() {
            message = format!("{message} ({})", fields.rest.join(", "));
        }
        let message = blaise_runner::secret_mask::scrub(&message).into_owned();
        self.0.lock().unwrap().push(Captured {
            level: event.metadata().level().as_str().to_ascii_lowercase(),
            source: fields.source,
            message,
        });
    }
}

/// Logging for `plug test`: the plug's lines (debug and up) are captured and
/// shown with the step that wrote them; the rest go to stderr as usual
/// (`RUST_LOG` filters, warnings by default).
pub fn init_tracing() {
    use tracing_subscriber::filter::{EnvFilter, LevelFilter, filter_fn};
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    let capture = LogCapture::installed();
    let env: EnvFilter = blaise_runner::logging::log_filter("warn");
    let not_the_plugs = filter_fn(|meta| meta.fields().field("plug").is_none());
    let stderr = tracing_subscriber::fmt::layer()
        .with_ansi(blaise_runner::logging::log_colour())
        .with_writer(|| blaise_runner::secret_mask::ScrubbingStderr)
        .with_filter(env)
        .with_filter(not_the_plugs);
    let _ = tracing_subscriber::registry()
        .with(stderr)
        .with(capture.with_filter(LevelFilter::DEBUG))
        .try_init();
}
