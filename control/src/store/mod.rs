//! Where the control plane keeps its state.
//!
//! The domain logic talks to a [`Store`] only through [`Tx`]: narrow, record-level reads and
//! writes inside one transaction. SQLite ([`sqlite::SqliteStore`]) is the default, for one
//! instance; PostgreSQL ([`postgres::PostgresStore`]) serves several instances at once. Both
//! pass the conformance suite (`conformance::check`, with the `test-support` feature).

/// The suite every backend passes: for the crate's tests and, with the `test-support` feature,
/// for tests elsewhere (it is no part of a production build).
#[cfg(any(test, feature = "test-support"))]
pub mod conformance;
pub mod postgres;
pub mod sqlite;

use std::sync::Arc;

use crate::model::*;

/// Why the store did not do what a transaction asked. Each backend turns its own errors into
/// these kinds (`sqlite::errors`, `postgres::errors`).
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database refused the statement (the message is the backend's).
    #[error("store: {0}")]
    Failed(String),
    /// The database could not be reached, or the connection to it was lost.
    #[error("store: {0}")]
    Unavailable(String),
    /// What the database holds cannot be read back (a record's JSON, a damaged file).
    #[error("store: {0}")]
    Corrupt(String),
    /// A record a write expected is not there.
    #[error("store: not found: {0}")]
    NotFound(String),
    /// The transaction lost a race with another one (PostgreSQL's serialization failure or
    /// deadlock): nothing it did is kept, and running it again from the start is safe.
    #[error("store: a concurrent transaction conflicted: {0}")]
    Conflict(String),
    /// The database has had migrations this program does not know: a newer blaise wrote it.
    /// Nothing is read or written, since this program's queries may not match its tables.
    #[error(
        "store: the database is at schema version {found}, and this blaise knows versions up to \
         {known}: a newer blaise has migrated it. Run that version (or newer), or restore a backup \
         taken before the upgrade"
    )]
    TooNew { found: i64, known: i64 },
}

impl StoreError {
    pub fn is_conflict(&self) -> bool {
        matches!(self, StoreError::Conflict(_))
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(e: serde_json::Error) -> Self {
        StoreError::Corrupt(format!("corrupt record: {e}"))
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

/// Where each of the clock's limits stands: the oldest record each limit is counted from
/// (see [`Tx::next_due`]). `None`: no record is counted by that limit.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Oldest {
    /// When the first active session falls idle (its agent's inactivity limit added).
    pub idle_at: Option<Millis>,
    /// When the first paused session expires.
    pub expires_at: Option<Millis>,
    /// The oldest acceptance of a live run no runner has connected to.
    pub unconnected_since: Option<Millis>,
    /// The oldest last contact of a live run.
    pub silent_since: Option<Millis>,
    /// The oldest stop issued to a live run.
    pub stopping_since: Option<Millis>,
    /// The first teardown retry.
    pub teardown_at: Option<Millis>,
}

impl Oldest {
    /// When the first session falls idle, from each agent's inactivity limit and the last
    /// activity of its longest-idle session. Saturating: a limit near i64::MAX means never.
    pub fn first_idle(
        by_agent: impl IntoIterator<Item = (Millis, Option<Millis>)>,
    ) -> Option<Millis> {
        by_agent
            .into_iter()
            .filter_map(|(limit, since)| since.map(|t| t.saturating_add(limit)))
            .min()
    }
}

/// Opens the store `db` names: a `postgres://` or `postgresql://` URL, else a SQLite file.
pub fn open(db: &str) -> StoreResult<Arc<dyn Store>> {
    if is_postgres_url(db) {
        Ok(Arc::new(postgres::PostgresStore::open(db)?))
    } else {
        Ok(Arc::new(sqlite::SqliteStore::open(std::path::Path::new(
            db,
        ))?))
    }
}

pub fn is_postgres_url(db: &str) -> bool {
    db.starts_with("postgres://") || db.starts_with("postgresql://")
}

/// Called with what another instance announced (see [`Tx::announce`]); `"*"` means anything
/// may have changed (the listener was away and may have missed announcements).
pub type Deliver = Arc<dyn Fn(&str) + Send + Sync>;

pub trait Store: Send + Sync {
    /// Opens a transaction. Transactions are serialized with respect to each other for the same
    /// session (SQLite: all of them), so a session's transitions never interleave.
    fn begin(&self) -> StoreResult<Box<dyn Tx + '_>>;

    /// Opens a transaction that only reads: a consistent view that locks nothing and never
    /// waits for a transition (views, the dashboard). Writing in it fails.
    fn begin_read(&self) -> StoreResult<Box<dyn Tx + '_>>;

    /// A read of one statement (a token's lookup on every request): without a transaction
    /// around it where the store can do without one (PostgreSQL: one round trip, not three).
    /// A second statement in it is an error.
    fn begin_one(&self) -> StoreResult<Box<dyn Tx + '_>>;

    /// How many transactions that write may run at once (SQLite has one writer): the server
    /// lets that many requests begin one and keeps the others waiting as futures, not each
    /// holding a thread while it waits.
    fn writers(&self) -> usize;

    /// How many transactions that only read may run at once on connections of their own
    /// (SQLite's readers); `None` when they share the writers' connections (PostgreSQL's one
    /// pool), and so their turns.
    fn readers(&self) -> Option<usize>;

    /// `"sqlite"` or `"postgres"`, for the health answer and the logs.
    fn kind(&self) -> &'static str;

    /// Hands every announcement other instances sharing this store commit to `deliver`, from
    /// now on, for as long as the store lives. A store only one process can open has no others
    /// to hear from.
    fn listen(&self, deliver: Deliver);

    /// Whether this instance may run the clock now: takes the store's clock lease when it is
    /// free, and says whether it holds it. Exactly one instance holds it at a time; when that
    /// instance dies, the lease is free again. A store only one process can open always says yes.
    fn hold_clock(&self) -> StoreResult<bool>;
}

/// How many sessions and environments are in each state, and the runs that have not finished
/// (what `GET /metrics` shows of the store).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Census {
    /// (state, how many), states with none left out.
    pub sessions: Vec<(String, u64)>,
    pub environments: Vec<(String, u64)>,
    /// Runs offered, accepted or running: (status, how many, the oldest's `created_at`).
    pub runs: Vec<(String, u64, Millis)>,
}

/// Which sessions a page of the list holds (see [`Tx::sessions_page`]).
#[derive(Debug, Clone, Default)]
pub struct SessionPage {
    pub state: Option<SessionState>,
    pub agent: Option<String>,
    /// Only the sessions this person started ([`Session::started_by`]).
    pub started_by: Option<String>,
    /// The last session of the previous page: its `created_at` and id.
    pub after: Option<(Millis, String)>,
    pub limit: u32,
}

impl SessionPage {
    /// The filters that hold, as (column, value), in a fixed order: a statement per set of them,
    /// each walking its own index in the list's order.
    pub fn filters(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if let Some(state) = self.state {
            out.push(("state", state.as_str().to_owned()));
        }
        if let Some(agent) = &self.agent {
            out.push(("agent", agent.clone()));
        }
        if let Some(who) = &self.started_by {
            out.push(("started_by", who.clone()));
        }
        out
    }
}

/// Which entries a page of the audit trail holds (see [`Tx::audit_page`]).
#[derive(Debug, Clone, Default)]
pub struct AuditPage {
    pub actor: Option<String>,
    pub session_id: Option<String>,
    pub action: Option<AuditAction>,
    /// The `seq` of the previous page's last entry: this page holds older ones.
    pub before: Option<i64>,
    pub limit: u32,
}

impl AuditPage {
    /// The filters that hold, as (column, value), in a fixed order: a statement per set of them.
    pub fn filters(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if let Some(actor) = &self.actor {
            out.push(("actor", actor.clone()));
        }
        if let Some(session) = &self.session_id {
            out.push(("session_id", session.clone()));
        }
        if let Some(action) = self.action {
            out.push(("action", action.as_str().to_owned()));
        }
        out
    }
}

/// Something a transaction did that `GET /metrics` counts, once the transaction commits (see
/// [`Tx::note`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A session entered `to` (`from`: `None` for a new session).
    Session {
        from: Option<SessionState>,
        to: SessionState,
    },
    RunOffered(RunKind),
    /// A runner accepted a run `waited` ms after it was offered.
    RunAccepted {
        kind: RunKind,
        waited: Millis,
    },
    RunEnded {
        kind: RunKind,
        status: RunStatus,
    },
    EnvironmentOrphaned,
    /// A run reported what its agent used.
    Used {
        agent: String,
        /// The runner's name, when the run had one.
        runner: Option<String>,
        tokens: blaise_protocol::Tokens,
        cost: Option<blaise_protocol::Cost>,
    },
}

/// One transaction. Dropped without [`Tx::commit`], it rolls back.
pub trait Tx {
    fn commit(self: Box<Self>) -> StoreResult<()>;

    /// Tells the other instances sharing the store `what` changed, when (and only if) this
    /// transaction commits. Nothing to do where no other instance can be.
    fn announce(&mut self, what: &str) -> StoreResult<()>;

    fn admin_token_hash(&mut self) -> StoreResult<Option<String>>;
    fn set_admin_token_hash(&mut self, hash: &str) -> StoreResult<()>;

    /// A dashboard login by its id's hash (expired or not: the caller looks).
    fn login(&mut self, id_hash: &str) -> StoreResult<Option<Login>>;
    fn put_login(&mut self, login: &Login) -> StoreResult<()>;
    fn delete_login(&mut self, id_hash: &str) -> StoreResult<()>;
    /// Ends the logins that expire before `at` (`Millis::MAX`: every one).
    fn end_logins(&mut self, expiring_before: Millis) -> StoreResult<u64>;
    /// Ends every login of `who` ([`Login::who`]).
    fn end_logins_of(&mut self, who: &str) -> StoreResult<u64>;

    fn user(&mut self, name: &str) -> StoreResult<Option<User>>;
    fn user_by_token_hash(&mut self, hash: &str) -> StoreResult<Option<User>>;
    /// Whose the token of this hash is, in one statement: it is asked on every API request.
    fn token_owner(&mut self, hash: &str) -> StoreResult<Option<TokenOwner>>;
    /// Adds a person. One of the same name added meanwhile (by another instance) is a
    /// [`StoreError::Conflict`]: the transaction runs again and finds them.
    fn add_user(&mut self, user: &User) -> StoreResult<()>;
    /// Changes a person; [`StoreError::NotFound`] if they are gone (removed meanwhile: a change
    /// never brings them back).
    fn update_user(&mut self, user: &User) -> StoreResult<()>;
    fn delete_user(&mut self, name: &str) -> StoreResult<()>;
    /// Everyone, by name.
    fn users(&mut self) -> StoreResult<Vec<User>>;

    /// Keeps a sign-in under way, dropping those that expired.
    fn put_sign_in(&mut self, sign_in: &SignIn, now: Millis) -> StoreResult<()>;
    /// Takes (reads and deletes) the sign-in of a state's hash: each is finished once.
    fn take_sign_in(&mut self, state_hash: &str) -> StoreResult<Option<SignIn>>;

    fn webhook(&mut self, name: &str) -> StoreResult<Option<Webhook>>;
    fn put_webhook(&mut self, webhook: &Webhook) -> StoreResult<()>;
    /// Removes a webhook and the deliveries not yet made to it.
    fn delete_webhook(&mut self, name: &str) -> StoreResult<()>;
    /// Every webhook, by name.
    fn webhooks(&mut self) -> StoreResult<Vec<Webhook>>;
    /// Adds a delivery, setting its `id`; `false` (and nothing added) when the webhook has one
    /// of the same key already.
    fn add_delivery(&mut self, delivery: &mut Delivery) -> StoreResult<bool>;
    /// Whether the webhook has a delivery of this key (made, pending or given up on).
    fn has_delivery(&mut self, webhook: &str, key: &str) -> StoreResult<bool>;
    fn put_delivery(&mut self, delivery: &Delivery) -> StoreResult<()>;
    /// Pending deliveries due at `now`, the earliest first.
    fn due_deliveries(&mut self, now: Millis, limit: usize) -> StoreResult<Vec<Delivery>>;
    /// Forgets the deliveries made or given up on whose last attempt was before `before`.
    fn forget_webhook_deliveries(&mut self, before: Millis) -> StoreResult<usize>;
    /// A webhook's deliveries, newest first, older than `before` (an id).
    fn deliveries(
        &mut self,
        webhook: &str,
        before: Option<i64>,
        limit: usize,
    ) -> StoreResult<Vec<Delivery>>;

    /// Adds `entry` to the audit trail, setting its `seq`.
    fn add_audit(&mut self, entry: &mut AuditEntry) -> StoreResult<()>;
    /// A page of the audit trail, newest first (read from an index for each filter).
    fn audit_page(&mut self, page: &AuditPage) -> StoreResult<Vec<AuditEntry>>;

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
    /// The runner instances seen at `seen_since` or later (read from an index: instances come
    /// and go, and old ones are many).
    fn connections(&mut self, seen_since: Millis) -> StoreResult<Vec<Connection>>;
    /// Forgets the runner instances last seen before `seen_before`; returns how many.
    fn forget_connections(&mut self, seen_before: Millis) -> StoreResult<usize>;
    /// How many runs the instance has accepted and not finished.
    fn live_runs_of_instance(&mut self, runner_id: &str, instance: &str) -> StoreResult<usize>;
    /// Counts by state (see [`Census`]).
    fn census(&mut self) -> StoreResult<Census>;

    /// Notes `event` for the metrics; a transaction that records them (`changes::RecordingTx`)
    /// counts it when it commits, so a transaction run again after a conflict counts once.
    fn note(&mut self, event: Event);

    /// The session, locked until the transaction ends where other transactions could change it
    /// at the same time (PostgreSQL: `FOR UPDATE`): what a transition reads before it writes.
    fn session(&mut self, id: &str) -> StoreResult<Option<Session>>;
    /// The session as it is, without a lock: for reads that change nothing in it (offers).
    fn read_session(&mut self, id: &str) -> StoreResult<Option<Session>>;
    fn put_session(&mut self, session: &Session) -> StoreResult<()>;
    /// Newest first.
    fn sessions(&mut self) -> StoreResult<Vec<Session>>;
    /// A page of sessions, newest first: at most `page.limit` after `page.after` (in that order),
    /// of `page.state` and `page.agent` when given. Reads the page, not every session.
    fn sessions_page(&mut self, page: &SessionPage) -> StoreResult<Vec<Session>>;
    /// Sessions the clock must look at now: possibly idle, paused past their expiry, with a run
    /// past a limit, or with a teardown retry due. Always in one order, the store's choice:
    /// SQLite's is where the sessions are stored (sessions created together, which tend to fall
    /// due together, are then checked in one batch that rewrites neighbouring pages).
    fn due_sessions(&mut self, now: Millis, limits: &DueLimits) -> StoreResult<Vec<String>>;
    /// Where the clock's limits stand, each read from the start of its index: what the clock
    /// sleeps until. (A run's own timeout is not here: it depends on each run's agent, and is
    /// checked on the clock's interval.)
    fn oldest(&mut self) -> StoreResult<Oldest>;

    fn run(&mut self, id: &str) -> StoreResult<Option<Run>>;
    fn put_run(&mut self, run: &Run) -> StoreResult<()>;
    /// Reserves an offered run (see `lifecycle::offers`): writes `run`, whose reservation
    /// changed, only if the run is still offered and its reservation is still what it was when
    /// read (`before`); returns whether it wrote. No long poll waits for it.
    fn reserve_offer(&mut self, before: &Run, run: &Run) -> StoreResult<bool>;
    /// Oldest first.
    fn runs_of_session(&mut self, session_id: &str) -> StoreResult<Vec<Run>>;
    /// Runs waiting for a runner, oldest first.
    fn offered_runs(&mut self) -> StoreResult<Vec<Run>>;
    /// The offered runs not reserved at `now` for an instance other than `instance` (the
    /// reservation's key, see `lifecycle::offers`), oldest first.
    fn offerable_runs(&mut self, instance: &str, now: Millis) -> StoreResult<Vec<Run>>;

    fn environment(&mut self, id: &str) -> StoreResult<Option<Environment>>;
    /// The environment as it is, without its session's lock: for reads that change nothing in
    /// it (which runner an offered run goes to). With 100 runners polling, locking each
    /// offerable run's session made the polls queue behind each other and every transition.
    fn read_environment(&mut self, id: &str) -> StoreResult<Option<Environment>>;
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
    /// Appends `entries`, all of one session, in order: as [`Tx::append_transcript`] on each,
    /// in fewer statements where that is cheaper (a report carries many entries).
    fn append_transcript_all(&mut self, entries: &mut [TranscriptEntry]) -> StoreResult<()>;
    fn transcript(
        &mut self,
        session_id: &str,
        after_index: i64,
        limit: usize,
    ) -> StoreResult<Vec<TranscriptEntry>>;
    /// The index of the session's last transcript entry (0: none); indexes run from 1 without
    /// a gap, so the last `n` entries are those after `last - n`.
    fn last_transcript_index(&mut self, session_id: &str) -> StoreResult<i64>;

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
    /// Every permission request that waits for a person (pending), the oldest first.
    fn pending_permissions(&mut self) -> StoreResult<Vec<PermissionRequest>>;

    /// What an agent (by name) or a runner (by id) used in one day (UTC `YYYY-MM-DD`; empty
    /// when none was recorded), locked until the transaction ends where another could add to
    /// it at the same time.
    fn day_usage(&mut self, who: Spender, of: &str, day: &str) -> StoreResult<DayUsage>;
    fn put_day_usage(&mut self, who: Spender, usage: &DayUsage) -> StoreResult<()>;
    /// Every agent's (or runner's) usage of the days from `since` (`YYYY-MM-DD`) on.
    fn day_usages(&mut self, who: Spender, since: &str) -> StoreResult<Vec<DayUsage>>;

    /// A message source's conversation (see `crate::sources`), locked until the transaction ends
    /// where other transactions could change it at the same time.
    fn source_thread(&mut self, source: &str, thread: &str) -> StoreResult<Option<SourceThread>>;
    /// The conversation a session was opened for, if a source opened it.
    fn source_thread_of_session(&mut self, session_id: &str) -> StoreResult<Option<SourceThread>>;
    fn put_source_thread(&mut self, thread: &SourceThread) -> StoreResult<()>;
    /// Conversations with something to tell their source at `now`: a reply waiting, or entries
    /// in their session's transcript after the last one told; not before their `retry_at`.
    /// Soonest retry first (never retried first), at most `limit`.
    fn source_threads_due(&mut self, now: Millis, limit: usize) -> StoreResult<Vec<SourceThread>>;
    /// Records that the source's `delivery` was taken; `false`: it had been taken before (a
    /// source that sends one again is answered without acting again).
    fn take_delivery(&mut self, source: &str, delivery: &str, now: Millis) -> StoreResult<bool>;
    /// Forgets the deliveries taken before `before` (a source no longer sends them again);
    /// returns how many.
    fn forget_deliveries(&mut self, before: Millis) -> StoreResult<usize>;
}
