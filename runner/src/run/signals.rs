//! SIGINT and SIGTERM for the whole of a run. Once a handler is in, the
//! default action (die on the spot, reporting nothing, leaving what the plugs
//! made) is gone for the process, so the handlers go in when the run begins
//! and every phase looks at them: a start or resume run stopped at any moment
//! ends its conversation, tears down what it made and reports `cancelled`; a
//! teardown run finishes the teardown it began (each hook has its deadline).

use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::watch;

/// Whether SIGINT or SIGTERM has arrived; cheap to clone.
#[derive(Clone)]
pub struct Signals(watch::Receiver<bool>);

impl Signals {
    pub fn install() -> Signals {
        let mut term = signal(SignalKind::terminate()).expect("installing the SIGTERM handler");
        let mut int = signal(SignalKind::interrupt()).expect("installing the SIGINT handler");
        let (tx, rx) = watch::channel(false);
        tokio::spawn(async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
            tracing::warn!("a signal arrived: the run stops");
            let _ = tx.send(true);
            // Later signals change nothing: the run is already stopping.
            std::future::pending::<()>().await
        });
        Signals(rx)
    }

    pub fn arrived(&self) -> bool {
        *self.0.borrow()
    }

    /// Resolves once a signal has arrived (at once if one already has).
    pub async fn wait(&mut self) {
        until_true(&mut self.0).await
    }
}

/// Resolves once `flag` is true; never if its sender goes away first.
pub async fn until_true(flag: &mut watch::Receiver<bool>) {
    if flag.wait_for(|set| *set).await.is_err() {
        std::future::pending::<()>().await
    }
}
