//! The conversations the agent keeps on disk, one JSON file per ACP session
//! under `<working directory>/.blaise-script-agent/`.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use serde::{Deserialize, Serialize};

/// The directory, under the agent's working directory, that holds the conversations.
pub const DIR: &str = ".blaise-script-agent";

/// One record of a conversation, in the order it happened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Record {
    /// A prompt's text.
    User { text: String },
    /// One agent message (a `say`, a whole `stream`, an answer…).
    Agent { text: String },
    /// One agent thought.
    Thought { text: String },
    /// A shell command the agent ran, with its output and exit code (none
    /// when it could not run or was cancelled).
    Tool {
        title: String,
        output: String,
        exit_code: Option<i32>,
    },
}

/// The conversation of one session.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct Conversation {
    pub records: Vec<Record>,
}

/// Where conversations live.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
}

impl Store {
    pub fn new(working_dir: &Path) -> Self {
        Self {
            dir: working_dir.join(DIR),
        }
    }

    fn path(&self, session_id: &str) -> anyhow::Result<PathBuf> {
        let valid = !session_id.is_empty()
            && session_id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !valid {
            bail!("`{session_id}` is not a session id of this agent");
        }
        Ok(self.dir.join(format!("{session_id}.json")))
    }

    /// Reads a session's conversation; an error if it was never saved.
    pub fn load(&self, session_id: &str) -> anyhow::Result<Conversation> {
        let path = self.path(session_id)?;
        let text = std::fs::read_to_string(&path).with_context(|| {
            format!(
                "no conversation for session {session_id} at {}",
                path.display()
            )
        })?;
        serde_json::from_str(&text)
            .with_context(|| format!("{} is not a conversation", path.display()))
    }

    /// Writes a session's conversation whole (atomically: a temporary file, then a rename).
    pub fn save(&self, session_id: &str, conversation: &Conversation) -> anyhow::Result<()> {
        let path = self.path(session_id)?;
        std::fs::create_dir_all(&self.dir)
            .with_context(|| format!("could not create {}", self.dir.display()))?;
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, serde_json::to_vec_pretty(conversation)?)
            .with_context(|| format!("could not write {}", tmp.display()))?;
        std::fs::rename(&tmp, &path)
            .with_context(|| format!("could not write {}", path.display()))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_conversation_loads_back() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        let conversation = Conversation {
            records: vec![
                Record::User {
                    text: "say hi".into(),
                },
                Record::Agent { text: "hi".into() },
                Record::Tool {
                    title: "ls".into(),
                    output: "a\n".into(),
                    exit_code: Some(0),
                },
            ],
        };
        store.save("sa-1", &conversation).unwrap();
        assert_eq!(store.load("sa-1").unwrap().records, conversation.records);
        assert!(dir.path().join(DIR).join("sa-1.json").is_file());
    }

    #[test]
    fn unknown_and_malformed_ids_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        assert!(store.load("sa-2").is_err());
        for id in ["../escape", "", "a/b", "x.json"] {
            let error = store.load(id).unwrap_err().to_string();
            assert!(error.contains("not a session id"), "{id}: {error}");
        }
    }
}
