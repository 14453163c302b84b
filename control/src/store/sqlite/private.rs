//! The database holds every transcript, permission request and token hash: only the user
//! Blaise runs as may read it. A new database file is made `0600` before SQLite opens it (its
//! `-wal` and `-shm` files take the database's mode), one made readable by others by an older
//! Blaise or by hand is narrowed when opened, and a backup is made `0600` before anything is
//! copied into it.

use std::fs::{OpenOptions, Permissions};
use std::io;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Only the owner reads and writes.
pub const MODE: u32 = 0o600;

/// Makes `path` an empty file only its owner can read, unless it exists; narrows an existing
/// database and its `-wal` and `-shm` files to the owner. (A name for a temporary or in-memory
/// database, empty or `:memory:`, is left to SQLite.)
pub fn prepare(path: &Path) -> io::Result<()> {
    if path.as_os_str().is_empty() || path.as_os_str() == ":memory:" {
        return Ok(());
    }
    match OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(MODE)
        .open(path)
    {
        Ok(_) => return Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    for file in [
        path.to_path_buf(),
        sibling(path, "-wal"),
        sibling(path, "-shm"),
    ] {
        narrow(&file)?;
    }
    Ok(())
}

/// Makes a new empty file at `path` only its owner can read (an existing one is an error).
pub fn create_new(path: &Path) -> io::Result<()> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(MODE)
        .open(path)
        .map(drop)
}

/// Takes the group's and others' access away from `file`, if it exists and has any.
fn narrow(file: &Path) -> io::Result<()> {
    let mode = match std::fs::metadata(file) {
        Ok(m) => m.permissions().mode(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    if mode & 0o077 == 0 {
        return Ok(());
    }
    tracing::warn!(
        file = %file.display(),
        mode = format!("{:o}", mode & 0o777),
        "the database was readable by other users: it is made readable by its owner only (0600)"
    );
    std::fs::set_permissions(file, Permissions::from_mode(mode & 0o700))
}

/// `path` with `suffix` added to its file name (`blaise.db-wal`).
fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn a_new_database_is_the_owners_and_an_open_one_is_narrowed() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("blaise.db");
        prepare(&db).unwrap();
        assert_eq!(mode(&db), 0o600);
        // Made by an older Blaise under a umask of 022, with its WAL beside it.
        let wal = sibling(&db, "-wal");
        std::fs::write(&wal, b"").unwrap();
        for file in [&db, &wal] {
            std::fs::set_permissions(file, Permissions::from_mode(0o644)).unwrap();
        }
        prepare(&db).unwrap();
        assert_eq!(mode(&db), 0o600);
        assert_eq!(mode(&wal), 0o600);
        // SQLite makes the WAL and shared memory with the database's mode.
        let opened = dir.path().join("opened.db");
        let store = super::super::SqliteStore::open(&opened).unwrap();
        for file in [
            opened.clone(),
            sibling(&opened, "-wal"),
            sibling(&opened, "-shm"),
        ] {
            assert_eq!(mode(&file), 0o600, "{}", file.display());
        }
        drop(store);
        // What an operator narrowed further is kept.
        std::fs::set_permissions(&db, Permissions::from_mode(0o400)).unwrap();
        prepare(&db).unwrap();
        assert_eq!(mode(&db), 0o400);
    }
}
