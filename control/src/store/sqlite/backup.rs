//! `blaise backup`: a consistent copy of the SQLite database, taken while
//! `blaise serve` runs.
//!
//! Copying `blaise.db` alone is not a backup: in WAL mode the latest commits
//! live in `blaise.db-wal` until a checkpoint moves them, and a file copied
//! during a checkpoint is torn. `VACUUM INTO` reads the database in one read
//! transaction (a WAL reader neither waits for the writer nor makes it wait)
//! and writes a compact file of its own: everything committed before that
//! transaction began, nothing after. The copy is checked before it takes its
//! name, so a failed backup leaves nothing behind.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

/// What a backup holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub bytes: u64,
    pub sessions: i64,
    /// Migrations the copy has had (`PRAGMA user_version`).
    pub schema_version: i64,
}

#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error("no database at {0} (give `--db`, or run where `blaise serve` keeps it)")]
    NoDatabase(PathBuf),
    #[error("{0} already exists: a backup never replaces a file; give a new name")]
    Exists(PathBuf),
    #[error("{0} is not a Blaise database (no `sessions` table)")]
    NotBlaise(PathBuf),
    #[error("the copy failed its integrity check ({0}); nothing was written")]
    Corrupt(String),
    #[error("{path}: {source}")]
    Sqlite {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Copies the database at `from` to a new file `to`.
pub fn backup(from: &Path, to: &Path) -> Result<Summary, BackupError> {
    if !from.is_file() {
        return Err(BackupError::NoDatabase(from.to_path_buf()));
    }
    if to.exists() {
        return Err(BackupError::Exists(to.to_path_buf()));
    }
    let sqlite = |path: &Path| {
        let path = path.to_path_buf();
        move |source| BackupError::Sqlite { path, source }
    };
    let source = Connection::open_with_flags(from, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(sqlite(from))?;
    source
        .busy_timeout(std::time::Duration::from_secs(10))
        .map_err(sqlite(from))?;
    let is_blaise: bool = source
        .query_row(
            "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'sessions'",
            [],
            |r| r.get(0),
        )
        .map_err(sqlite(from))?;
    if !is_blaise {
        return Err(BackupError::NotBlaise(from.to_path_buf()));
    }
    // Beside its final name (the same file system: the rename is atomic).
    let name = to
        .file_name()
        .map_or_else(|| "backup".into(), |n| n.to_string_lossy().into_owned());
    let partial = to.with_file_name(format!(".{name}.partial"));
    let _ = std::fs::remove_file(&partial);
    // Only the owner may read the copy, from its first byte (VACUUM INTO fills an empty file).
    super::private::create_new(&partial).map_err(|source| BackupError::Io {
        path: partial.clone(),
        source,
    })?;
    let copied = copy_and_check(&source, &partial);
    let summary = match copied {
        Ok(summary) => summary,
        Err(e) => {
            let _ = std::fs::remove_file(&partial);
            return Err(e);
        }
    };
    std::fs::rename(&partial, to).map_err(|source| BackupError::Io {
        path: to.to_path_buf(),
        source,
    })?;
    Ok(summary)
}

fn copy_and_check(source: &Connection, partial: &Path) -> Result<Summary, BackupError> {
    let sqlite = |source| BackupError::Sqlite {
        path: partial.to_path_buf(),
        source,
    };
    source
        .execute("VACUUM INTO ?1", [partial.to_string_lossy()])
        .map_err(sqlite)?;
    let copy =
        Connection::open_with_flags(partial, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(sqlite)?;
    let check: String = copy
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .map_err(sqlite)?;
    if check != "ok" {
        return Err(BackupError::Corrupt(check));
    }
    let sessions = copy
        .query_row("SELECT count(*) FROM sessions", [], |r| r.get(0))
        .map_err(sqlite)?;
    let schema_version = copy
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .map_err(sqlite)?;
    drop(copy);
    let bytes = std::fs::metadata(partial)
        .map_err(|source| BackupError::Io {
            path: partial.to_path_buf(),
            source,
        })?
        .len();
    Ok(Summary {
        bytes,
        sessions,
        schema_version,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::sqlite::SqliteStore;

    #[test]
    fn a_backup_is_a_whole_database_and_never_replaces_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("blaise.db");
        // Open, as `serve` keeps it: in WAL mode, the latest commits in the log.
        let store = SqliteStore::open(&db).unwrap();
        let to = dir.path().join("copy.db");
        let summary = backup(&db, &to).unwrap();
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&to).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "a backup is its owner's only");
        assert_eq!(summary.sessions, 0);
        assert!(summary.schema_version > 0);
        assert!(summary.bytes > 0);
        drop(store);
        // The copy opens as a store: its migrations are all there.
        SqliteStore::open(&to).unwrap();
        assert!(matches!(backup(&db, &to), Err(BackupError::Exists(_))));
        assert!(matches!(
            backup(&dir.path().join("none.db"), &dir.path().join("x.db")),
            Err(BackupError::NoDatabase(_))
        ));
        let other = dir.path().join("other.db");
        Connection::open(&other)
            .unwrap()
            .execute_batch("CREATE TABLE t (x)")
            .unwrap();
        assert!(matches!(
            backup(&other, &dir.path().join("y.db")),
            Err(BackupError::NotBlaise(_))
        ));
        // Nothing half-written is left by the failures.
        let mut names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| !n.starts_with("blaise.db") && !n.starts_with("copy.db"))
            .collect();
        names.sort();
        assert_eq!(names, ["other.db"]);
    }
}
