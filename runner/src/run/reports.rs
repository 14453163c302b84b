//! Lifecycle reports: each with an id, through the run's outbox (in order
//! with the transcript, sent again unchanged while Blaise does not answer).
//! If contact is lost before Blaise answers, the run exits rather than send
//! a contradictory report.

use super::outbox::{Ack, Item, Outbox, OutboxError};
use crate::protocol::{Client, ProtocolError, Report, ReportAnswer, ReportBody};

#[derive(Clone)]
pub struct Reporter {
    outbox: Outbox,
}

/// A report Blaise did not acknowledge.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// No answer before contact was lost: whether it took effect is unknown,
    /// so nothing that contradicts it may follow.
    #[error("report lost: {0}")]
    Lost(OutboxError),
    /// Blaise refused it (a 4xx): it changed nothing.
    #[error("report refused: {0}")]
    Refused(ProtocolError),
}

impl Reporter {
    pub fn new(outbox: Outbox) -> Reporter {
        Reporter { outbox }
    }

    /// Sends a report and waits until Blaise has it (and everything the run
    /// sent before it).
    pub async fn send(&self, body: ReportBody) -> Result<ReportAnswer, ReportError> {
        let report = report(body);
        let queued = match self.outbox.send(Item::Report(report.clone())).await {
            Ok(Ack::Report(answer)) => return Ok(answer),
            Ok(Ack::Done) => unreachable!("a report is answered with a report ack"),
            // The queue stopped: on this report or on an item before it ("transcript-report
            // failures fail the run", and the failure must be reported). Sent on its own; if
            // it was this report Blaise refused, it refuses it again.
            Err(e @ (OutboxError::Refused(_) | OutboxError::Full)) => e,
            Err(e) => return Err(ReportError::Lost(e)),
        };
        tracing::debug!("the run's queue to Blaise stopped ({queued}): the report goes alone");
        match self.outbox.send_alone(&report).await {
            Ok(answer) => Ok(answer),
            Err(OutboxError::Refused(e)) => Err(ReportError::Refused(e)),
            Err(e) => Err(ReportError::Lost(e)),
        }
    }

    /// Queues a report behind what the run sent before, without waiting.
    pub fn post(&self, body: ReportBody) {
        self.outbox.post(Item::Report(report(body)));
    }
}

fn report(body: ReportBody) -> Report {
    Report {
        report_id: new_id(),
        body,
    }
}

/// Sends one report from outside a run (the daemon, for a run whose process
/// could not start), repeated a few times while Blaise does not answer.
pub async fn report_once(
    client: &Client,
    run_id: &str,
    body: ReportBody,
) -> Result<ReportAnswer, ProtocolError> {
    let report = report(body);
    crate::protocol::repeat_while_lost(5, || client.report(run_id, &report)).await
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
