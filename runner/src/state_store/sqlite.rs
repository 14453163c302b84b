//! The durable local state store: one SQLite file, one transaction per commit.

use std::path::Path;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use rusqlite::{Connection, params};

use super::{PlugState, StateChanges, StateError, StateStore};

pub struct SqliteStateStore {
    conn: Arc<Mutex<Connection>>,
}

impl SqliteStateStore {
    pub fn open(path: &Path) -> Result<SqliteStateStore, StateError> {
        let failed = |what: &str, e: &dyn std::fmt::Display| {
            StateError::Unavailable(format!("{what} {}: {e}", path.display()))
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| failed("creating the directory of", &e))?;
        }
        let conn =
            Connection::open(path).map_err(|e| failed("opening the plug state store", &e))?;
        conn.execute_batch(
            "PRAGMA journal_mode = WAL;
             PRAGMA synchronous = NORMAL;
             CREATE TABLE IF NOT EXISTS plug_state (
                 session TEXT NOT NULL,
                 plug    TEXT NOT NULL,
                 key     TEXT NOT NULL,
                 value   BLOB NOT NULL,
                 PRIMARY KEY (session, plug, key)
             );",
        )
        .map_err(|e| failed("preparing the plug state store", &e))?;
        Ok(SqliteStateStore {
            conn: Arc::new(Mutex::new(conn)),
        })
    }

    async fn with_conn<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T, StateError> {
        let conn = self.conn.clone();
        tokio::task::spawn_blocking(move || f(&mut conn.lock().unwrap()))
            .await
            .map_err(|e| StateError::Unavailable(format!("the plug state store: {e}")))?
            .map_err(|e| StateError::Unavailable(format!("the plug state store: {e}")))
    }
}

#[async_trait]
impl StateStore for SqliteStateStore {
    async fn load(&self, session: &str, plug: &str) -> Result<PlugState, StateError> {
        let (session, plug) = (session.to_string(), plug.to_string());
        self.with_conn(move |conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT key, value FROM plug_state WHERE session = ?1 AND plug = ?2",
            )?;
            let rows = stmt.query_map(params![session, plug], |row| {
                Ok((row.get::<_, String>(0)?, row.get::<_, Vec<u8>>(1)?))
            })?;
            rows.collect::<rusqlite::Result<PlugState>>()
        })
        .await
    }

    async fn commit(
        &self,
        session: &str,
        plug: &str,
        changes: &StateChanges,
    ) -> Result<(), StateError> {
        if changes.is_empty() {
            return Ok(());
        }
        let (session, plug, changes) = (session.to_string(), plug.to_string(), changes.clone());
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            for (key, value) in &changes {
                match value {
                    Some(v) => tx.execute(
                        "INSERT INTO plug_state (session, plug, key, value) VALUES (?1, ?2, ?3, ?4)
                         ON CONFLICT (session, plug, key) DO UPDATE SET value = excluded.value",
                        params![session, plug, key, v],
                    )?,
                    None => tx.execute(
                        "DELETE FROM plug_state WHERE session = ?1 AND plug = ?2 AND key = ?3",
                        params![session, plug, key],
                    )?,
                };
            }
            tx.commit()?;
            Ok(())
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn commits_survive_reopening_and_are_scoped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        {
            let store = SqliteStateStore::open(&path).unwrap();
            let mut changes = StateChanges::new();
            changes.insert("a".into(), Some(b"1".to_vec()));
            changes.insert("b".into(), Some(b"2".to_vec()));
            store.commit("s1", "p1", &changes).await.unwrap();
            let mut changes = StateChanges::new();
            changes.insert("b".into(), None);
            store.commit("s1", "p1", &changes).await.unwrap();
        }
        let store = SqliteStateStore::open(&path).unwrap();
        let state = store.load("s1", "p1").await.unwrap();
        assert_eq!(state.len(), 1);
        assert_eq!(state["a"], b"1");
        assert!(store.load("s1", "p2").await.unwrap().is_empty());
        assert!(store.load("s2", "p1").await.unwrap().is_empty());
    }
}
