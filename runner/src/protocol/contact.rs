//! The run's contact with Blaise: a call Blaise does not answer (no
//! response, a 5xx, a 408/429 — a restart, an outage) is made again with a
//! growing delay for as long as the run has not lost contact (90 failed
//! heartbeats); any other answer is final.

use std::future::Future;
use std::time::Duration;

use tokio::sync::watch;

use super::ProtocolError;

/// The longest wait between two tries.
pub const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// Whether Blaise did not answer: the call is made again.
pub fn retryable(e: &ProtocolError) -> bool {
    match e.status {
        None => true,
        Some(status) => status >= 500 || matches!(status, 408 | 425 | 429),
    }
}

/// Makes `call` until Blaise answers it or contact is lost (then the last
/// error is returned).
pub async fn until_answered<T, F: Future<Output = Result<T, ProtocolError>>>(
    lost: &watch::Receiver<bool>,
    what: &str,
    mut call: impl FnMut() -> F,
) -> Result<T, ProtocolError> {
    let mut lost = lost.clone();
    let mut delay = Duration::from_millis(100);
    loop {
        match call().await {
            Err(e) if retryable(&e) && !*lost.borrow() => {
                tracing::warn!("{what}: no answer from Blaise ({e}); trying again in {delay:?}");
                tokio::select! {
                    _ = tokio::time::sleep(delay) => {}
                    _ = changed(&mut lost) => {}
                }
                delay = (delay * 2).min(MAX_BACKOFF);
            }
            other => return other,
        }
    }
}

/// Resolves when `lost` changes; never, once its sender is gone.
pub async fn changed(lost: &mut watch::Receiver<bool>) {
    if lost.changed().await.is_err() {
        std::future::pending::<()>().await;
    }
}
