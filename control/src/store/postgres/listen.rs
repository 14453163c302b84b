//! What other instances changed: each committed transaction that touched something a long poll
//! waits on sends `NOTIFY blaise_changes, '<instance> <what>'` (PostgreSQL delivers it only if
//! the transaction commits); every instance LISTENs on a connection of its own and hands what
//! the others announced to its long polls.

use std::time::Duration;

use tokio_postgres::{AsyncMessage, NoTls};

use crate::store::Deliver;

pub const CHANNEL: &str = "blaise_changes";

/// The most a payload may carry (PostgreSQL refuses 8000 bytes or more); a longer one is sent
/// as `*`, which wakes every poll.
pub const MAX_PAYLOAD: usize = 7_000;

/// Listens until the runtime it runs on shuts down, connecting again after a failure. After
/// each (re)connection it delivers `*`: announcements made while it was away are lost.
pub async fn run(config: tokio_postgres::Config, instance: String, deliver: Deliver) {
    let mut backoff = Duration::from_millis(100);
    loop {
        match listen_once(&config, &instance, &deliver).await {
            Ok(()) => backoff = Duration::from_millis(100),
            Err(e) => {
                tracing::warn!("postgres: listening for other instances' changes: {e}");
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(5));
            }
        }
    }
}

async fn listen_once(
    config: &tokio_postgres::Config,
    instance: &str,
    deliver: &Deliver,
) -> Result<(), tokio_postgres::Error> {
    let (client, mut connection) = config.connect(NoTls).await?;
    // The connection must be polled for LISTEN to be answered, and it is where notifications
    // arrive: a task polls it and passes the notifications on.
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    let socket = tokio::spawn(async move {
        loop {
            match std::future::poll_fn(|cx| connection.poll_message(cx)).await {
                Some(Ok(AsyncMessage::Notification(n))) => {
                    if tx.send(n.payload().to_string()).is_err() {
                        return Ok(());
                    }
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(e),
                None => return Ok(()),
            }
        }
    });
    client.batch_execute(&format!("LISTEN {CHANNEL}")).await?;
    deliver("*");
    while let Some(payload) = rx.recv().await {
        match payload.split_once(' ') {
            Some((from, _)) if from == instance => {}
            Some((_, what)) => deliver(what),
            None => deliver("*"),
        }
    }
    drop(client);
    match socket.await {
        Ok(result) => result,
        Err(_) => Ok(()),
    }
}
