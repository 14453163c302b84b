//! The seed corpus (`fuzz/corpus/<target>/`) and saved crashes
//! (`fuzz/crashes/<target>/`).

use std::path::PathBuf;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The seeds of `target`, in file-name order (so runs repeat).
pub fn seeds(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = root().join("corpus").join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|entries| entries.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    files
        .into_iter()
        .filter(|path| path.is_file())
        .filter_map(|path| {
            let name = path.file_name()?.to_string_lossy().into_owned();
            Some((name, std::fs::read(&path).ok()?))
        })
        .collect()
}

/// Saves an input that broke `target`; returns where.
pub fn save_crash(target: &str, key: &str, input: &[u8]) -> std::io::Result<PathBuf> {
    let dir = root().join("crashes").join(target);
    std::fs::create_dir_all(&dir)?;
    let name: String = key
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let path = dir.join(format!("{}.bin", &name[..name.len().min(100)]));
    std::fs::write(&path, input)?;
    Ok(path)
}
