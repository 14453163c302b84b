//! Writing a user's file (blaise.yml, blaise.lock, an index) without ever
//! leaving half of it: a temporary file beside it, renamed over it.

use crate::error::{Context as _, Result};
use std::path::Path;

/// Replaces `path` with `text` atomically, keeping the old file's permissions.
pub fn write_atomically(path: &Path, text: &str) -> Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("writing {}", path.display()))?;
    std::io::Write::write_all(&mut tmp, text.as_bytes())?;
    if let Ok(meta) = std::fs::metadata(path) {
        let _ = tmp.as_file().set_permissions(meta.permissions());
    }
    tmp.persist(path)
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}
