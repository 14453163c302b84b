//! PostgreSQL's errors as the store's kinds: the races a transaction may lose (serialization
//! failures, deadlocks, two writers of one new key) are conflicts, run again from the start.

use tokio_postgres::error::SqlState;

use crate::store::StoreError;

impl From<tokio_postgres::Error> for StoreError {
    fn from(e: tokio_postgres::Error) -> Self {
        match e.code() {
            Some(c) if *c == SqlState::T_R_SERIALIZATION_FAILURE => StoreError::Conflict(
                e.as_db_error()
                    .map_or(e.to_string(), |d| d.message().into()),
            ),
            Some(c) if *c == SqlState::T_R_DEADLOCK_DETECTED => {
                StoreError::Conflict("deadlock detected".into())
            }
            // Two transactions numbered a new record alike (the next transcript index, the
            // next directive) or wrote the same new key: the one that lost starts over.
            Some(c) if *c == SqlState::UNIQUE_VIOLATION => StoreError::Conflict(
                e.as_db_error()
                    .map_or(e.to_string(), |d| d.message().into()),
            ),
            // The server went away or the socket closed: nothing was done.
            None if e.is_closed() => StoreError::Unavailable(format!("postgres: {e}")),
            _ => StoreError::Failed(match e.as_db_error() {
                Some(db) => format!("postgres: {} ({})", db.message(), db.code().code()),
                None => format!("postgres: {e}"),
            }),
        }
    }
}
