//! Lifecycle reports: each with an id, repeated (same id) while its answer is
//! lost; if the answer never comes, the run exits rather than send a
//! contradictory report.

use crate::protocol::{Client, ProtocolError, Report, ReportAnswer, ReportBody, repeat_while_lost};

/// How often a report whose answer was lost is sent again (same id).
const RETRIES: u32 = 5;

#[derive(Clone)]
pub struct Reporter {
    client: Client,
    run_id: String,
}

/// A report Blaise did not acknowledge.
#[derive(Debug)]
pub enum ReportError {
    /// No answer, even after repeating it: whether it took effect is unknown,
    /// so nothing that contradicts it may follow.
    Lost(ProtocolError),
    /// Blaise refused it (a 4xx): it changed nothing.
    Refused(ProtocolError),
}

impl std::fmt::Display for ReportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReportError::Lost(e) => write!(f, "report lost: {e}"),
            ReportError::Refused(e) => write!(f, "report refused: {e}"),
        }
    }
}

impl Reporter {
    pub fn new(client: Client, run_id: &str) -> Reporter {
        Reporter {
            client,
            run_id: run_id.into(),
        }
    }

    pub async fn send(&self, body: ReportBody) -> Result<ReportAnswer, ReportError> {
        let report = Report {
            report_id: new_id(),
            body,
        };
        match repeat_while_lost(RETRIES, || self.client.report(&self.run_id, &report)).await {
            Ok(answer) => Ok(answer),
            Err(e) if e.answer_lost() => Err(ReportError::Lost(e)),
            Err(e) => Err(ReportError::Refused(e)),
        }
    }
}

/// A unique id for a report (time and randomness; Blaise only needs it unique per run).
pub fn new_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!(
        "rep-{:x}-{:x}-{}",
        nanos,
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}
