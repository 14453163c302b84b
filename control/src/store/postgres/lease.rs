//! The clock's lease: a session-level advisory lock, held on a connection kept for it alone.
//! PostgreSQL releases it when that connection ends, so when the holder dies (its socket closes,
//! or the server's keepalive gives up on a vanished host) the next instance to ask takes it.
//!
//! The lease keeps the clock's work in one place; it is not what keeps that work correct. Each
//! rule runs in a transaction that holds its session's lock and reads the session afresh, so if
//! two instances ever both ticked (a holder cut off before it noticed), a session would still
//! change once.

use std::sync::Mutex;

use futures_executor::block_on;
use tokio_postgres::Client;

use super::pool::Driver;
use crate::store::StoreResult;

/// Any number, the same in every instance.
const CLOCK_LOCK: i64 = 0x626c_6169_7365_0002;

#[derive(Default)]
pub struct Lease {
    /// The lease's connection, and whether it holds the lock.
    held: Mutex<Option<(Client, bool)>>,
}

impl Lease {
    pub fn hold(&self, driver: &Driver, config: &tokio_postgres::Config) -> StoreResult<bool> {
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((client, holds)) = &*held {
            if client.is_closed() {
                *held = None;
            } else if *holds {
                return Ok(true);
            }
        }
        if held.is_none() {
            let client = driver.connect(config)?;
            // The server gives up on a vanished holder within about 20 s (not the system's
            // two hours), and the lease is free again.
            block_on(client.batch_execute(
                "SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 3;
                 SET tcp_keepalives_count = 3",
            ))?;
            *held = Some((client, false));
        }
        let (client, holds) = held.as_mut().expect("connected above");
        *holds =
            block_on(client.query_one("SELECT pg_try_advisory_lock($1)", &[&CLOCK_LOCK]))?.get(0);
        Ok(*holds)
    }
}
