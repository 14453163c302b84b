//! Errors in `blaise.yml`, pointing at file, line and column.

use std::fmt;
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub file: PathBuf,
    /// 1-based; 0 when the error is about the file as a whole.
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file.display(), self.message)
        } else {
            write!(
                f,
                "{}:{}:{}: {}",
                self.file.display(),
                self.line,
                self.column,
                self.message
            )
        }
    }
}

impl std::error::Error for ConfigError {}

impl ConfigError {
    /// A YAML file's parse error at its line and column (serde_yaml's own
    /// " at line L column C" suffix dropped: the location is printed first).
    pub fn from_yaml(path: &std::path::Path, err: &serde_yaml::Error) -> ConfigError {
        let (line, column) = err.location().map_or((0, 0), |l| (l.line(), l.column()));
        let text = err.to_string();
        let message = text.split(" at line ").next().unwrap_or(&text).to_string();
        ConfigError {
            file: path.to_path_buf(),
            line,
            column,
            message,
        }
    }
}
