//! A secret given by where it is, never by value: `env:NAME` (a variable of `blaise serve`) or
//! `file:/absolute/path` (its first line; a regular file, of at most [`MAX_FILE`] bytes).
//! Configuration and the database hold the reference; the secret is read when it is used.

/// Whether `reference` is one: `env:NAME` (letters, digits, `_`, not starting with a digit) or
/// `file:/absolute/path`.
pub fn is_valid(reference: &str) -> bool {
    match reference.split_once(':') {
        Some(("env", name)) => {
            !name.is_empty()
                && name.len() <= 128
                && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                && !name.as_bytes()[0].is_ascii_digit()
        }
        Some(("file", path)) => {
            path.starts_with('/') && path.len() <= 4096 && !path.chars().any(char::is_control)
        }
        _ => false,
    }
}

/// What a reference says where to find it: `env:NAME` or `file:/absolute/path`.
pub const SHAPE: &str = "`env:NAME` (a variable of `blaise serve`) or `file:/absolute/path`";

/// The secret `reference` names, trimmed; an error says which reference and why.
pub fn read(reference: &str) -> Result<String, String> {
    let value =
        match reference.split_once(':') {
            Some(("env", name)) if is_valid(reference) => std::env::var(name)
                .map_err(|_| format!("the secret's variable {name} is not set"))?,
            Some(("file", path)) if is_valid(reference) => first_line(path)
                .map_err(|e| format!("the secret's file {path} cannot be read: {e}"))?,
            _ => return Err(format!("{reference:?} is not {SHAPE}")),
        };
    let value = value.trim();
    if value.is_empty() {
        return Err(format!("the secret at {reference} is empty"));
    }
    Ok(value.to_owned())
}

/// The most of a secret's file read: a key, not a disk.
pub const MAX_FILE: u64 = 4096;

/// The first line of the regular file at `path` (a FIFO or a device would block the reader or
/// never end).
fn first_line(path: &str) -> std::io::Result<String> {
    use std::io::Read;
    let file = std::fs::File::open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut text = String::new();
    file.take(MAX_FILE).read_to_string(&mut text)?;
    Ok(text.lines().next().unwrap_or_default().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_say_where_never_what() {
        for ok in ["env:BLAISE_HOOK", "env:_X1", "file:/run/secrets/hook"] {
            assert!(is_valid(ok), "{ok}");
        }
        for bad in [
            "hunter2",
            "env:",
            "env:1X",
            "env:A-B",
            "file:relative",
            "file:",
            "vault:x",
        ] {
            assert!(!is_valid(bad), "{bad}");
        }
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s");
        std::fs::write(&file, "  s3cret\n").unwrap();
        assert_eq!(read(&format!("file:{}", file.display())).unwrap(), "s3cret");
        std::fs::write(&file, "s3cret\nnot this line\n").unwrap();
        assert_eq!(read(&format!("file:{}", file.display())).unwrap(), "s3cret");
        assert!(
            read("file:/dev/zero")
                .unwrap_err()
                .contains("not a regular file")
        );
        std::fs::write(&file, "\n").unwrap();
        assert!(
            read(&format!("file:{}", file.display()))
                .unwrap_err()
                .contains("empty")
        );
        assert!(
            read("env:BLAISE_SURELY_UNSET_VARIABLE")
                .unwrap_err()
                .contains("not set")
        );
    }
}
