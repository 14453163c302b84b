//! The agent's sessions: each one's conversation (kept on disk as it grows)
//! and the signal that cancels its current turn.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use tokio::sync::watch;

use crate::store::{Conversation, Record, Store};

/// One ACP session of this agent.
#[derive(Debug)]
pub struct Session {
    pub id: String,
    /// The session's `cwd` from `session/new` or `session/load`: where its
    /// commands run.
    pub cwd: PathBuf,
    store: Store,
    conversation: Mutex<Conversation>,
    cancelled: watch::Sender<bool>,
}

impl Session {
    fn new(id: String, cwd: PathBuf, store: Store, conversation: Conversation) -> Self {
        Self {
            id,
            cwd,
            store,
            conversation: Mutex::new(conversation),
            cancelled: watch::Sender::new(false),
        }
    }

    /// The records so far.
    pub fn records(&self) -> Vec<Record> {
        self.lock().records.clone()
    }

    /// The message id the next record will have: `m-<its index>`, the same
    /// live and in the replay.
    pub fn next_message_id(&self) -> String {
        format!("m-{}", self.lock().records.len())
    }

    /// Appends a record and saves the conversation.
    pub fn record(&self, record: Record) -> anyhow::Result<()> {
        let mut conversation = self.lock();
        conversation.records.push(record);
        self.store.save(&self.id, &conversation)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Conversation> {
        self.conversation
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A new turn starts: forget an earlier cancellation.
    pub fn start_turn(&self) {
        self.cancelled.send_replace(false);
    }

    /// `session/cancel`: the current turn is cancelled.
    pub fn cancel(&self) {
        self.cancelled.send_replace(true);
    }

    pub fn is_cancelled(&self) -> bool {
        *self.cancelled.borrow()
    }

    /// Resolves once the current turn is cancelled.
    pub async fn cancelled(&self) {
        let mut receiver = self.cancelled.subscribe();
        // The sender lives as long as `self`: `wait_for` cannot fail here.
        let _ = receiver.wait_for(|cancelled| *cancelled).await;
    }
}

/// Every session this process knows, and where they are kept.
#[derive(Debug)]
pub struct Sessions {
    pub working_dir: PathBuf,
    /// The client announced `clientCapabilities._meta.terminal_output`: a
    /// `run` streams what its command prints as it comes, as Claude Code's
    /// and Codex's adapters do.
    pub terminal_output: AtomicBool,
    store: Store,
    live: Mutex<HashMap<String, Arc<Session>>>,
    counter: AtomicU64,
}

impl Sessions {
    pub fn new(working_dir: PathBuf) -> Self {
        Self {
            store: Store::new(&working_dir),
            working_dir,
            terminal_output: AtomicBool::new(false),
            live: Mutex::new(HashMap::new()),
            counter: AtomicU64::new(0),
        }
    }

    /// A new session, saved at once so that it can be loaded even before its first prompt.
    pub fn create(&self, cwd: PathBuf) -> anyhow::Result<Arc<Session>> {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_nanos());
        let id = format!(
            "sa-{nanos:x}-{:x}-{}",
            std::process::id(),
            self.counter.fetch_add(1, Ordering::Relaxed)
        );
        let conversation = Conversation::default();
        self.store.save(&id, &conversation)?;
        Ok(self.insert(Session::new(id, cwd, self.store.clone(), conversation)))
    }

    /// A session saved earlier (by this process or another one).
    pub fn load(&self, id: &str, cwd: PathBuf) -> anyhow::Result<Arc<Session>> {
        let conversation = self.store.load(id)?;
        Ok(self.insert(Session::new(
            id.to_owned(),
            cwd,
            self.store.clone(),
            conversation,
        )))
    }

    pub fn get(&self, id: &str) -> Option<Arc<Session>> {
        self.lock().get(id).cloned()
    }

    fn insert(&self, session: Session) -> Arc<Session> {
        let session = Arc::new(session);
        self.lock().insert(session.id.clone(), session.clone());
        session
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Session>>> {
        self.live
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
