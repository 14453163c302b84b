//! Checkpoints off the writer's path. SQLite copies the write-ahead log back into the database
//! (a checkpoint, with two `fsync`s) in whichever commit crosses 1,000 pages: that commit, and
//! every request waiting for the store behind it, pays for all the writes before it. Here a
//! thread of its own, on its own connection, checkpoints soon after commits; a `PASSIVE`
//! checkpoint never waits for the writer nor makes it wait.
//!
//! The writer still checkpoints itself when the log reaches [`WRITER_PAGES`] (the thread fell
//! behind, or commits never paused long enough for it to catch up): by then the thread has
//! copied most of it, and the writer's checkpoint, which nothing can write during, finishes the
//! log so that the next transaction starts it again from the beginning.

use std::path::Path;
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::time::Duration;

use crate::store::{StoreError, StoreResult};

/// Log pages at which the writer checkpoints itself (SQLite's default is 1,000).
pub const WRITER_PAGES: i64 = 4_000;

/// How long the thread lets commits gather before a checkpoint: fewer `fsync`s under load.
const GATHER: Duration = Duration::from_millis(50);

pub struct Checkpointer {
    // Dropping the store drops the sender, which ends the thread.
    tell: SyncSender<()>,
}

impl Checkpointer {
    /// Starts the thread for the database at `path`; `writer` is the store's connection.
    pub fn start(path: &Path, writer: &Mutex<rusqlite::Connection>) -> StoreResult<Self> {
        let conn = rusqlite::Connection::open(path)?;
        conn.busy_timeout(Duration::from_secs(5))?;
        writer
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .pragma_update(None, "wal_autocheckpoint", WRITER_PAGES)?;
        // One waiting signal is enough: the checkpoint covers every commit before it.
        let (tell, told) = sync_channel(1);
        std::thread::Builder::new()
            .name("sqlite-checkpoint".into())
            .spawn(move || checkpoints(conn, told))
            .map_err(|e| StoreError::Failed(format!("starting the checkpoint thread: {e}")))?;
        Ok(Checkpointer { tell })
    }

    /// A transaction committed: the log has grown.
    pub fn committed(&self) {
        // Full: a checkpoint is asked for already. Disconnected: the thread ended (cannot
        // happen while the store holds the sender), and the writer checkpoints itself.
        let _: Result<(), TrySendError<()>> = self.tell.try_send(());
    }
}

fn checkpoints(conn: rusqlite::Connection, told: Receiver<()>) {
    while told.recv().is_ok() {
        std::thread::sleep(GATHER);
        // What came while it slept is in this checkpoint.
        while told.try_recv().is_ok() {}
        if let Err(e) = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())) {
            // The writer's own checkpoints still keep the log bounded.
            tracing::warn!("sqlite checkpoint: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use crate::store::Store;
    use crate::store::conformance::session;
    use crate::store::sqlite::SqliteStore;

    /// Commits far below the writer's own threshold still reach the database file: the thread
    /// checkpointed them.
    #[test]
    fn commits_are_checkpointed_by_the_thread() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("blaise.db");
        let store = SqliteStore::open(&path).unwrap();
        let size = || std::fs::metadata(&path).unwrap().len();
        let empty = size();
        for i in 0..200 {
            let mut tx = store.begin().unwrap();
            let id = format!("ses_{i:016x}");
            tx.put_session(&session(&id, crate::model::SessionState::Active, 0))
                .unwrap();
            tx.commit().unwrap();
        }
        let deadline = Instant::now() + std::time::Duration::from_secs(10);
        while size() == empty {
            assert!(
                Instant::now() < deadline,
                "nothing was checkpointed into the database file ({empty} bytes)"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        // All of it, and the writer did not have to: its log stayed under its threshold.
        let wal = std::fs::metadata(path.with_extension("db-wal"))
            .unwrap()
            .len();
        assert!(
            wal < super::WRITER_PAGES as u64 * 4096,
            "log of {wal} bytes"
        );
    }
}
