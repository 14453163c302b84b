//! SQLite's errors as the store's kinds.

use rusqlite::ErrorCode;

use crate::store::StoreError;

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        let text = e.to_string();
        match e.sqlite_error_code() {
            Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase) => StoreError::Corrupt(text),
            Some(
                ErrorCode::CannotOpen
                | ErrorCode::SystemIoFailure
                | ErrorCode::DiskFull
                | ErrorCode::ReadOnly
                | ErrorCode::DatabaseBusy
                | ErrorCode::DatabaseLocked,
            ) => StoreError::Unavailable(text),
            _ => StoreError::Failed(text),
        }
    }
}
