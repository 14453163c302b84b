//! Where the control plane keeps its state.
//!
//! The domain logic talks to a [`Store`] only through [`Tx`]: narrow, record-level reads and
//! writes inside one transaction. SQLite ([`sqlite::SqliteStore`]) is the default; a Postgres
//! backend implements the same two traits (`begin` takes a connection and opens a
//! `SERIALIZABLE` transaction, `session_for_update` becomes `SELECT … FOR UPDATE`).

pub mod conformance;
pub mod sqlite;

use crate::model::*;

#[derive(Debug, thiserror::Error)]
#[error("store: {0}")]
pub struct StoreError(pub String);

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        StoreError(e.to_string())
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(e: serde_json::Error) -> Self {
        StoreError(format!("corrupt record: {e}"))
    }
}

pub type StoreResult<T> = Result<T, StoreError>;

/// The limits the clock checks, for [`Tx::due_sessions`].
#[derive(Clone, Copy, Debug)]
pub struct DueLimits {
    pub connect_timeout_ms: Millis,
    pub heartbeat_timeout_ms: Millis,
    pub stop_grace_ms: Millis,
}

pub trait Store: Send + Sync {
    /// Opens a transaction. Transactions are serialized with respect to each other for the same
    /// session (SQLite: all of them), so a session's transitions never interleave.
    fn begin(&self) -> StoreResult<Box<dyn Tx + '_>>;
}

/// One transaction. Dropped without [`Tx::commit`], it rolls back.
pub trait Tx {
    fn commit(self: Box<Self>) -> StoreResult<()>;

    fn admin_token_hash(&mut self) -> StoreResult<Option<String>>;
    fn set_admin_token_hash(&mut self, hash: &str) -> StoreResult<()>;

    fn agent(&mut self, name: &str) -> StoreResult<Option<Agent>>;
    fn put_agent(&mut self, agent: &Agent) -> StoreResult<()>;
    fn agents(&mut self) -> StoreResult<Vec<Agent>>;

    fn runner(&mut self, id: &str) -> StoreResult<Option<Runner>>;
    fn runner_by_name(&mut self, name: &str) -> StoreResult<Option<Runner>>;
    fn runner_by_token_hash(&mut self, hash: &str) -> StoreResult<Option<Runner>>;
    fn put_runner(&mut self, runner: &Runner) -> StoreResult<()>;
    fn runners(&mut self) -> StoreResult<Vec<Runner>>;
    fn connection(&mut self, runner_id: &str, instance: &str) -> StoreResult<Option<Connection>>;
    fn put_connection(&mut self, connection: &Connection) -> StoreResult<()>;

    fn session(&mut self, id: &str) -> StoreResult<Option<Session>>;
    fn put_session(&mut self, session: &Session) -> StoreResult<()>;
    /// Newest first.
    fn sessions(&mut self) -> StoreResult<Vec<Session>>;
    /// Sessions the clock must look at now: possibly idle, paused past their expiry, with a run
    /// past a limit, or with a teardown retry due.
    fn due_sessions(&mut self, now: Millis, limits: &DueLimits) -> StoreResult<Vec<String>>;

    fn run(&mut self, id: &str) -> StoreResult<Option<Run>>;
    fn put_run(&mut self, run: &Run) -> StoreResult<()>;
    /// Oldest first.
    fn runs_of_session(&mut self, session_id: &str) -> StoreResult<Vec<Run>>;
    /// Runs waiting for a runner, oldest first.
    fn offered_runs(&mut self) -> StoreResult<Vec<Run>>;

    fn environment(&mut self, id: &str) -> StoreResult<Option<Environment>>;
    fn put_environment(&mut self, environment: &Environment) -> StoreResult<()>;
    fn environments_in(&mut self, state: EnvironmentState) -> StoreResult<Vec<Environment>>;

    /// Appends a directive to the run's stream and returns its sequence number (from 1).
    fn add_directive(
        &mut self,
        run_id: &str,
        body: &DirectiveBody,
        now: Millis,
    ) -> StoreResult<i64>;
    fn directives_after(&mut self, run_id: &str, after: i64) -> StoreResult<Vec<Directive>>;
    fn put_directive(&mut self, directive: &Directive) -> StoreResult<()>;
    fn delete_directive(&mut self, run_id: &str, seq: i64) -> StoreResult<()>;

    /// The kind of a report already received with this id, if any.
    fn report(&mut self, run_id: &str, report_id: &str) -> StoreResult<Option<String>>;
    fn add_report(
        &mut self,
        run_id: &str,
        report_id: &str,
        kind: &str,
        now: Millis,
    ) -> StoreResult<()>;

    fn run_transcript_entry(
        &mut self,
        run_id: &str,
        seq: i64,
    ) -> StoreResult<Option<TranscriptEntry>>;
    fn run_last_seq(&mut self, run_id: &str) -> StoreResult<i64>;
    /// Appends at the end of the session's transcript; sets `entry.index`.
    fn append_transcript(&mut self, entry: &mut TranscriptEntry) -> StoreResult<()>;
    fn transcript(
        &mut self,
        session_id: &str,
        after_index: i64,
        limit: usize,
    ) -> StoreResult<Vec<TranscriptEntry>>;

    /// Ended sessions whose records the retention may prune: ended at or
    /// before `ended_before`, not pruned yet, no run of theirs unfinished.
    /// Oldest ending first, at most `limit`.
    fn sessions_to_prune(&mut self, ended_before: Millis, limit: usize)
    -> StoreResult<Vec<String>>;
    /// Deletes at most `limit` of the session's transcript entries,
    /// directives and reports; returns how many it deleted (fewer than
    /// `limit`: none are left).
    fn prune_session_records(&mut self, session_id: &str, limit: usize) -> StoreResult<usize>;

    fn message(&mut self, id: &str) -> StoreResult<Option<Message>>;
    fn put_message(&mut self, message: &Message) -> StoreResult<()>;
    /// Oldest first.
    fn messages(&mut self, session_id: &str, state: MessageState) -> StoreResult<Vec<Message>>;

    fn plug_records(&mut self, session_id: &str) -> StoreResult<Vec<PlugRecord>>;
    /// Every session's plug records (for the dashboard's list of records nothing owns).
    fn all_plug_records(&mut self) -> StoreResult<Vec<PlugRecord>>;
    fn put_plug_record(&mut self, record: &PlugRecord) -> StoreResult<()>;
    fn delete_plug_record(&mut self, session_id: &str, plug_id: &str) -> StoreResult<()>;

    fn permission(
        &mut self,
        run_id: &str,
        request_id: &str,
    ) -> StoreResult<Option<PermissionRequest>>;
    fn put_permission(&mut self, request: &PermissionRequest) -> StoreResult<()>;
    fn permissions(&mut self, session_id: &str) -> StoreResult<Vec<PermissionRequest>>;
}
