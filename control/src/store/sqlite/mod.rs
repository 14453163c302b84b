//! The default store: one SQLite file, created and migrated on open.

use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use rusqlite::types::Value;
use rusqlite::{OptionalExtension, params};
use serde::Serialize;
use serde::de::DeserializeOwned;

pub mod backup;
mod checkpoint;
mod columns;
mod errors;
mod private;

use super::{Census, DueLimits, Oldest, Store, StoreError, StoreResult, Tx};
use crate::model::*;

/// Migrations, in order; `PRAGMA user_version` records how many have run.
const MIGRATIONS: &[&str] = &[
    include_str!("schema.sql"),
    include_str!("retention.sql"),
    include_str!("capacity.sql"),
    include_str!("clock.sql"),
    include_str!("connections.sql"),
    include_str!("sources.sql"),
    include_str!("turns.sql"),
    include_str!("usage.sql"),
    include_str!("runner_usage.sql"),
    include_str!("pending.sql"),
    include_str!("logins.sql"),
    include_str!("session_pages.sql"),
    include_str!("people.sql"),
    include_str!("webhooks.sql"),
    include_str!("sign_ins.sql"),
];

/// `seq IS NOT NULL` is what lets SQLite read `transcript_by_run` (a partial index): without
/// it, every transcript report scanned the whole transcript table.
const RUN_LAST_SEQ: &str =
    "SELECT COALESCE(MAX(seq), 0) FROM transcript WHERE run_id = ?1 AND seq IS NOT NULL";

/// Conversations of message sources with something to tell (see `Tx::source_threads_due`).
const SOURCE_THREADS_DUE: &str = "SELECT data FROM source_threads t
   WHERE (t.retry_at IS NULL OR t.retry_at <= ?1)
     AND (t.pending > 0 OR (t.session_id IS NOT NULL AND EXISTS
           (SELECT 1 FROM transcript x WHERE x.session_id = t.session_id AND x.idx > t.delivered)))
   ORDER BY t.retry_at IS NOT NULL, t.retry_at LIMIT ?2";

/// A page of a session's transcript (see `transcript`).
const TRANSCRIPT_PAGE: &str =
    "SELECT data FROM transcript WHERE session_id = ?1 AND idx > ?2 ORDER BY idx";

/// Each branch reads one of the clock's partial indexes (clock.sql) from its oldest entry up to
/// the limit: only records past a limit are read. The sessions come in the order they are
/// stored (`rowid`), so that the clock's batches rewrite neighbouring pages: stopping 5,000 idle
/// runs wrote 73 MiB in id order, 35 MiB in this one. `INDEXED BY`, because without statistics
/// SQLite prefers the equality on `state`/`status`, which reads every active session and every
/// live run; `CROSS JOIN` keeps the agents outside, so each agent's limit bounds its range.
const DUE_SESSIONS: &str = "SELECT s.id FROM (
   SELECT s.id AS id FROM agents a CROSS JOIN sessions s INDEXED BY sessions_idle ON s.agent = a.name
   WHERE s.state = 'active' AND s.run_serving = 1 AND s.open_turns = 0
     AND s.last_activity <= ?1 - a.inactivity_ms
 UNION
 SELECT id FROM sessions INDEXED BY sessions_expiring
   WHERE state = 'paused' AND expires_at <= ?1
 UNION
 SELECT session_id FROM runs INDEXED BY runs_unconnected
   WHERE status IN ('accepted', 'running') AND first_contact_at IS NULL AND accepted_at <= ?1 - ?2
 UNION
 SELECT session_id FROM runs INDEXED BY runs_silent
   WHERE status IN ('accepted', 'running') AND last_contact_at <= ?1 - ?3
 UNION
 SELECT session_id FROM runs INDEXED BY runs_stopping
   WHERE status IN ('accepted', 'running') AND stop_issued_at <= ?1 - ?4
 UNION
 SELECT r.session_id FROM runs r INDEXED BY runs_timing JOIN sessions s ON s.id = r.session_id
                                 JOIN agents a ON a.name = s.agent
   WHERE r.status IN ('accepted', 'running') AND r.kind != 'teardown'
     AND r.stop_issued_at IS NULL
     AND r.accepted_at <= ?1 - (SELECT COALESCE(MIN(timeout_ms), 0) FROM agents)
     AND r.accepted_at <= ?1 - a.timeout_ms
 UNION
 SELECT s.id FROM sessions s INDEXED BY sessions_in_turn JOIN agents a ON a.name = s.agent
   WHERE s.state = 'active' AND s.open_turns > 0 AND s.last_activity <= ?1 - a.silent_turn_ms
 UNION
 SELECT session_id FROM environments
   WHERE state = 'tearing_down' AND next_teardown_at <= ?1
 ) AS d CROSS JOIN sessions s ON s.id = d.id ORDER BY s.rowid";

/// The start of each of the clock's indexes (clock.sql): `MIN` over an index's leading column
/// reads one entry.
const IDLE_BY_AGENT: &str = "SELECT a.inactivity_ms, (SELECT MIN(s.last_activity)
     FROM sessions s INDEXED BY sessions_idle
    WHERE s.agent = a.name AND s.state = 'active' AND s.run_serving = 1 AND s.open_turns = 0)
   FROM agents a";
const OLDEST: &str = "SELECT
   (SELECT MIN(expires_at) FROM sessions INDEXED BY sessions_expiring WHERE state = 'paused'),
   (SELECT MIN(accepted_at) FROM runs INDEXED BY runs_unconnected
     WHERE status IN ('accepted', 'running') AND first_contact_at IS NULL),
   (SELECT MIN(last_contact_at) FROM runs INDEXED BY runs_silent
     WHERE status IN ('accepted', 'running')),
   (SELECT MIN(stop_issued_at) FROM runs INDEXED BY runs_stopping
     WHERE status IN ('accepted', 'running')),
   (SELECT MIN(next_teardown_at) FROM environments WHERE state = 'tearing_down')";

pub struct SqliteStore {
    /// The one connection that writes: SQLite's writers take turns anyway.
    conn: Mutex<rusqlite::Connection>,
    /// Connections for transactions that only read ([`Store::begin_read`]): with the WAL they
    /// read a snapshot while the writer writes, instead of waiting for it. None in memory.
    readers: Vec<Mutex<rusqlite::Connection>>,
    next_reader: std::sync::atomic::AtomicUsize,
    /// Told after each commit; `None` for a database in memory (it has no WAL).
    checkpoints: Option<checkpoint::Checkpointer>,
}

/// A page of the sessions list (`?1`, `?2`: the cursor; `?3`: the limit; then the state and
/// the agent, when filtered by them).
fn session_page_sql(filters: &[(&str, String)]) -> String {
    let mut sql = String::from("SELECT data FROM sessions WHERE ");
    for (i, (column, _)) in filters.iter().enumerate() {
        sql.push_str(&format!("{column} = ?{} AND ", i + 4));
    }
    sql.push_str(
        "(created_at < ?1 OR (created_at = ?1 AND id < ?2)) \
         ORDER BY created_at DESC, id DESC LIMIT ?3",
    );
    sql
}

fn audit_page_sql(filters: &[(&str, String)]) -> String {
    let mut sql = String::from("SELECT seq, data FROM audit WHERE ");
    for (i, (column, _)) in filters.iter().enumerate() {
        sql.push_str(&format!("{column} = ?{} AND ", i + 3));
    }
    sql.push_str("seq < ?1 ORDER BY seq DESC LIMIT ?2");
    sql
}

/// Connections that read: as many as requests can usefully read at once on a small server.
const READERS: usize = 4;

impl SqliteStore {
    /// Opens (creating if needed) the database file and migrates it.
    pub fn open(path: &Path) -> StoreResult<Self> {
        private::prepare(path)
            .map_err(|e| StoreError::Unavailable(format!("{}: {e}", path.display())))?;
        let conn = rusqlite::Connection::open(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        let mut store = Self::with_connection(conn)?;
        store.checkpoints = Some(checkpoint::Checkpointer::start(path, &store.conn)?);
        for _ in 0..READERS {
            let reader = rusqlite::Connection::open(path)?;
            reader.busy_timeout(std::time::Duration::from_secs(5))?;
            reader.set_prepared_statement_cache_capacity(128);
            // A small cache: SQLite drops a reader's whole cache whenever another connection
            // committed, which with 8 MiB of pages cost more than reading them again.
            reader.pragma_update(None, "cache_size", -1_024)?;
            // A write here would be a bug: make it fail, not wait for the writer.
            reader.pragma_update(None, "query_only", true)?;
            store.readers.push(Mutex::new(reader));
        }
        Ok(store)
    }

    /// A private in-memory database (tests, benchmarks).
    pub fn in_memory() -> StoreResult<Self> {
        Self::with_connection(rusqlite::Connection::open_in_memory()?)
    }

    fn with_connection(conn: rusqlite::Connection) -> StoreResult<Self> {
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        // Room for every statement the store prepares (about 60): with rusqlite's default of
        // 16 they pushed each other out and were parsed and planned again on most calls.
        conn.set_prepared_statement_cache_capacity(128);
        // 32 MiB of pages in memory (the default is 2 MiB): a busy server reads its indexes
        // from here, not with a system call per page.
        conn.pragma_update(None, "cache_size", -32_768)?;
        let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
        if version > MIGRATIONS.len() as i64 {
            return Err(StoreError::TooNew {
                found: version,
                known: MIGRATIONS.len() as i64,
            });
        }
        for (i, migration) in MIGRATIONS.iter().enumerate().skip(version as usize) {
            conn.execute_batch(&format!(
                "BEGIN; {migration}; PRAGMA user_version = {}; COMMIT;",
                i + 1
            ))?;
        }
        Ok(SqliteStore {
            conn: Mutex::new(conn),
            readers: Vec::new(),
            next_reader: Default::default(),
            checkpoints: None,
        })
    }
}

impl Store for SqliteStore {
    fn kind(&self) -> &'static str {
        "sqlite"
    }

    fn begin_one(&self) -> StoreResult<Box<dyn Tx + '_>> {
        self.begin_read()
    }

    fn writers(&self) -> usize {
        1
    }

    /// One process opens the file: there are no other instances to hear from.
    fn listen(&self, deliver: super::Deliver) {
        let _ = deliver;
    }

    /// One process opens the file: it always holds the clock.
    fn hold_clock(&self) -> StoreResult<bool> {
        Ok(true)
    }

    fn readers(&self) -> Option<usize> {
        (!self.readers.is_empty()).then_some(self.readers.len())
    }

    fn begin_read(&self) -> StoreResult<Box<dyn Tx + '_>> {
        let n = self.readers.len();
        if n == 0 {
            return self.begin();
        }
        // A free reader if there is one, else wait for the next in turn.
        let first = self
            .next_reader
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let conn = (0..n)
            .find_map(|i| self.readers[(first + i) % n].try_lock().ok())
            .unwrap_or_else(|| {
                self.readers[first % n]
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
            });
        conn.prepare_cached("BEGIN")?.execute([])?;
        Ok(Box::new(SqliteTx::new(conn, None, false)))
    }

    fn begin(&self) -> StoreResult<Box<dyn Tx + '_>> {
        let conn = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        // Prepared once: a statement parsed on every transaction cost more than the transaction.
        conn.prepare_cached("BEGIN IMMEDIATE")?.execute([])?;
        Ok(Box::new(SqliteTx::new(
            conn,
            self.checkpoints.as_ref(),
            true,
        )))
    }
}

struct SqliteTx<'a> {
    conn: MutexGuard<'a, rusqlite::Connection>,
    done: bool,
    checkpoints: Option<&'a checkpoint::Checkpointer>,
    /// The columns of what this transaction read, for writing back (see columns.rs); not kept
    /// in a transaction that only reads.
    seen: columns::Seen,
    writes: bool,
}

impl Drop for SqliteTx<'_> {
    fn drop(&mut self) {
        if !self.done {
            let _ = self
                .conn
                .prepare_cached("ROLLBACK")
                .and_then(|mut s| s.execute([]));
        }
    }
}

fn to_json<T: Serialize>(value: &T) -> StoreResult<String> {
    Ok(serde_json::to_string(value)?)
}

/// A session's columns, in the order of [`columns::SESSIONS`].
fn session_columns(s: &Session) -> Vec<Value> {
    vec![
        s.agent.clone().into(),
        s.state.as_str().to_string().into(),
        s.created_at.into(),
        s.last_activity.into(),
        s.open_turns.into(),
        s.run_serving.into(),
        s.expires_at.into(),
        s.ended_at.filter(|_| s.state.is_ended()).into(),
        s.pruned_at.into(),
        s.started_by.clone().into(),
    ]
}

/// A run's columns, in the order of [`columns::RUNS`].
fn run_columns(r: &Run) -> Vec<Value> {
    vec![
        r.session_id.clone().into(),
        r.kind.as_str().to_string().into(),
        r.status.as_str().to_string().into(),
        r.created_at.into(),
        r.accepted_at.into(),
        r.first_contact_at.into(),
        r.last_contact_at.into(),
        r.stop_issued_at.into(),
        r.runner_id.clone().into(),
        r.instance.clone().into(),
        r.reserved_for.clone().into(),
        r.reserved_until.into(),
    ]
}

impl<'a> SqliteTx<'a> {
    /// A transaction begun on `conn`; `checkpoints` is told when it commits.
    fn new(
        conn: MutexGuard<'a, rusqlite::Connection>,
        checkpoints: Option<&'a checkpoint::Checkpointer>,
        writes: bool,
    ) -> Self {
        SqliteTx {
            conn,
            done: false,
            checkpoints,
            seen: columns::Seen::default(),
            writes,
        }
    }

    fn one<T: DeserializeOwned>(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
    ) -> StoreResult<Option<T>> {
        let text: Option<String> = self
            .conn
            .prepare_cached(sql)?
            .query_row(params, |r| r.get(0))
            .optional()?;
        Ok(match text {
            Some(t) => Some(serde_json::from_str(&t)?),
            None => None,
        })
    }

    fn many<T: DeserializeOwned>(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
    ) -> StoreResult<Vec<T>> {
        let mut stmt = self.conn.prepare_cached(sql)?;
        let rows = stmt.query_map(params, |r| r.get::<_, String>(0))?;
        let mut out = Vec::new();
        for row in rows {
            out.push(serde_json::from_str(&row?)?);
        }
        Ok(out)
    }

    /// Deliveries a query answers as (id, data).
    fn deliveries_of(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
    ) -> StoreResult<Vec<Delivery>> {
        let mut stmt = self.conn.prepare_cached(sql)?;
        let rows = stmt.query_map(params, |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (id, data) = row?;
            let mut d: Delivery = serde_json::from_str(&data)?;
            d.id = id;
            out.push(d);
        }
        Ok(out)
    }

    fn exec(&self, sql: &str, params: impl rusqlite::Params) -> StoreResult<()> {
        self.conn.prepare_cached(sql)?.execute(params)?;
        Ok(())
    }
}

impl Tx for SqliteTx<'_> {
    fn commit(mut self: Box<Self>) -> StoreResult<()> {
        self.conn.prepare_cached("COMMIT")?.execute([])?;
        self.done = true;
        if let Some(c) = self.checkpoints {
            c.committed();
        }
        Ok(())
    }

    fn admin_token_hash(&mut self) -> StoreResult<Option<String>> {
        // Cached: it is read on every request the admin makes.
        Ok(self
            .conn
            .prepare_cached("SELECT value FROM meta WHERE key = 'admin_token_hash'")?
            .query_row([], |r| r.get(0))
            .optional()?)
    }

    fn set_admin_token_hash(&mut self, hash: &str) -> StoreResult<()> {
        self.exec(
            "INSERT OR REPLACE INTO meta (key, value) VALUES ('admin_token_hash', ?1)",
            params![hash],
        )
    }

    fn login(&mut self, id_hash: &str) -> StoreResult<Option<Login>> {
        self.one(
            "SELECT data FROM logins WHERE id_hash = ?1",
            params![id_hash],
        )
    }

    fn put_login(&mut self, l: &Login) -> StoreResult<()> {
        self.exec(
            "INSERT OR REPLACE INTO logins (id_hash, expires_at, who, data)
             VALUES (?1, ?2, ?3, ?4)",
            params![l.id_hash, l.expires_at, l.who, to_json(l)?],
        )
    }

    fn delete_login(&mut self, id_hash: &str) -> StoreResult<()> {
        self.exec("DELETE FROM logins WHERE id_hash = ?1", params![id_hash])
    }

    fn end_logins(&mut self, expiring_before: Millis) -> StoreResult<u64> {
        Ok(self.conn.execute(
            "DELETE FROM logins WHERE expires_at < ?1",
            params![expiring_before],
        )? as u64)
    }

    fn end_logins_of(&mut self, who: &str) -> StoreResult<u64> {
        Ok(self
            .conn
            .execute("DELETE FROM logins WHERE who = ?1", params![who])? as u64)
    }

    fn user(&mut self, name: &str) -> StoreResult<Option<User>> {
        self.one("SELECT data FROM users WHERE name = ?1", params![name])
    }

    fn user_by_token_hash(&mut self, hash: &str) -> StoreResult<Option<User>> {
        self.one(
            "SELECT data FROM users WHERE token_hash = ?1",
            params![hash],
        )
    }

    fn token_owner(&mut self, hash: &str) -> StoreResult<Option<TokenOwner>> {
        let found: Option<Option<String>> = self
            .conn
            .prepare_cached(
                "SELECT NULL FROM meta WHERE key = 'admin_token_hash' AND value = ?1
                 UNION ALL SELECT data FROM users WHERE token_hash = ?1 LIMIT 1",
            )?
            .query_row(params![hash], |r| r.get(0))
            .optional()?;
        Ok(match found {
            None => None,
            Some(None) => Some(TokenOwner::BuiltInAdmin),
            Some(Some(data)) => Some(TokenOwner::Person(serde_json::from_str(&data)?)),
        })
    }

    fn add_user(&mut self, u: &User) -> StoreResult<()> {
        self.exec(
            "INSERT INTO users (name, token_hash, data) VALUES (?1, ?2, ?3)",
            params![u.name, u.token_hash, to_json(u)?],
        )
    }

    fn update_user(&mut self, u: &User) -> StoreResult<()> {
        let changed = self
            .conn
            .prepare_cached("UPDATE users SET token_hash = ?2, data = ?3 WHERE name = ?1")?
            .execute(params![u.name, u.token_hash, to_json(u)?])?;
        if changed == 0 {
            return Err(StoreError::NotFound(format!("user {}", u.name)));
        }
        Ok(())
    }

    fn delete_user(&mut self, name: &str) -> StoreResult<()> {
        self.exec("DELETE FROM users WHERE name = ?1", params![name])
    }

    fn users(&mut self) -> StoreResult<Vec<User>> {
        self.many("SELECT data FROM users ORDER BY name", [])
    }

    fn put_sign_in(&mut self, sign_in: &SignIn, now: Millis) -> StoreResult<()> {
        self.exec("DELETE FROM sign_ins WHERE expires_at < ?1", params![now])?;
        self.exec(
            "INSERT OR REPLACE INTO sign_ins (state_hash, expires_at, data) VALUES (?1, ?2, ?3)",
            params![sign_in.state_hash, sign_in.expires_at, to_json(sign_in)?],
        )
    }

    fn take_sign_in(&mut self, state_hash: &str) -> StoreResult<Option<SignIn>> {
        let found = self.one(
            "SELECT data FROM sign_ins WHERE state_hash = ?1",
            params![state_hash],
        )?;
        self.exec(
            "DELETE FROM sign_ins WHERE state_hash = ?1",
            params![state_hash],
        )?;
        Ok(found)
    }

    fn webhook(&mut self, name: &str) -> StoreResult<Option<Webhook>> {
        self.one("SELECT data FROM webhooks WHERE name = ?1", params![name])
    }

    fn put_webhook(&mut self, w: &Webhook) -> StoreResult<()> {
        self.exec(
            "INSERT OR REPLACE INTO webhooks (name, data) VALUES (?1, ?2)",
            params![w.name, to_json(w)?],
        )
    }

    fn delete_webhook(&mut self, name: &str) -> StoreResult<()> {
        self.exec("DELETE FROM webhooks WHERE name = ?1", params![name])?;
        self.exec(
            "DELETE FROM webhook_deliveries WHERE webhook = ?1 AND state = 'pending'",
            params![name],
        )
    }

    fn webhooks(&mut self) -> StoreResult<Vec<Webhook>> {
        self.many("SELECT data FROM webhooks ORDER BY name", [])
    }

    fn add_delivery(&mut self, d: &mut Delivery) -> StoreResult<bool> {
        let added = self
            .conn
            .prepare_cached(
                "INSERT INTO webhook_deliveries (webhook, key, state, next_at, data)
                 VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (webhook, key) DO NOTHING",
            )?
            .execute(params![
                d.webhook,
                d.key,
                d.state.as_str(),
                d.next_at,
                to_json(d)?
            ])?;
        if added == 1 {
            d.id = self.conn.last_insert_rowid();
        }
        Ok(added == 1)
    }

    fn has_delivery(&mut self, webhook: &str, key: &str) -> StoreResult<bool> {
        Ok(self
            .conn
            .prepare_cached("SELECT 1 FROM webhook_deliveries WHERE webhook = ?1 AND key = ?2")?
            .query_row(params![webhook, key], |_| Ok(()))
            .optional()?
            .is_some())
    }

    fn put_delivery(&mut self, d: &Delivery) -> StoreResult<()> {
        self.exec(
            "UPDATE webhook_deliveries SET state = ?2, next_at = ?3, data = ?4 WHERE id = ?1",
            params![d.id, d.state.as_str(), d.next_at, to_json(d)?],
        )
    }

    fn due_deliveries(&mut self, now: Millis, limit: usize) -> StoreResult<Vec<Delivery>> {
        self.deliveries_of(
            "SELECT id, data FROM webhook_deliveries WHERE state = 'pending' AND next_at <= ?1
             ORDER BY next_at LIMIT ?2",
            params![now, limit as i64],
        )
    }

    fn forget_webhook_deliveries(&mut self, before: Millis) -> StoreResult<usize> {
        // `next_at` of a delivery that is over: its last attempt's claim.
        Ok(self.conn.prepare_cached(
            "DELETE FROM webhook_deliveries WHERE state IN ('delivered', 'failed') AND next_at < ?1",
        )?
        .execute(params![before])?)
    }

    fn deliveries(
        &mut self,
        webhook: &str,
        before: Option<i64>,
        limit: usize,
    ) -> StoreResult<Vec<Delivery>> {
        self.deliveries_of(
            "SELECT id, data FROM webhook_deliveries WHERE webhook = ?1 AND id < ?2
             ORDER BY id DESC LIMIT ?3",
            params![webhook, before.unwrap_or(i64::MAX), limit as i64],
        )
    }

    fn add_audit(&mut self, e: &mut AuditEntry) -> StoreResult<()> {
        self.exec(
            "INSERT INTO audit (actor, action, session_id, data) VALUES (?1, ?2, ?3, ?4)",
            params![e.actor, e.action.as_str(), e.session_id, to_json(e)?],
        )?;
        e.seq = self.conn.last_insert_rowid();
        Ok(())
    }

    fn audit_page(&mut self, page: &super::AuditPage) -> StoreResult<Vec<AuditEntry>> {
        let filters = page.filters();
        let sql = audit_page_sql(&filters);
        let mut values: Vec<rusqlite::types::Value> = vec![
            page.before.unwrap_or(i64::MAX).into(),
            i64::from(page.limit).into(),
        ];
        values.extend(filters.into_iter().map(|(_, v)| v.into()));
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let rows = stmt.query_map(rusqlite::params_from_iter(values), |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (seq, data) = row?;
            let mut entry: AuditEntry = serde_json::from_str(&data)?;
            entry.seq = seq;
            out.push(entry);
        }
        Ok(out)
    }

    fn agent(&mut self, name: &str) -> StoreResult<Option<Agent>> {
        self.one("SELECT data FROM agents WHERE name = ?1", params![name])
    }

    fn put_agent(&mut self, a: &Agent) -> StoreResult<()> {
        self.exec(
            "INSERT OR REPLACE INTO agents (name, inactivity_ms, timeout_ms, silent_turn_ms, data)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                a.name,
                a.settings.inactivity_ms,
                a.settings.timeout_ms,
                a.settings.silent_turn_ms,
                to_json(a)?
            ],
        )
    }

    fn agents(&mut self) -> StoreResult<Vec<Agent>> {
        self.many("SELECT data FROM agents ORDER BY name", [])
    }

    fn runner(&mut self, id: &str) -> StoreResult<Option<Runner>> {
        self.one("SELECT data FROM runners WHERE id = ?1", params![id])
    }

    fn runner_by_name(&mut self, name: &str) -> StoreResult<Option<Runner>> {
        self.one("SELECT data FROM runners WHERE name = ?1", params![name])
    }

    fn runner_by_token_hash(&mut self, hash: &str) -> StoreResult<Option<Runner>> {
        self.one(
            "SELECT data FROM runners WHERE token_hash = ?1",
            params![hash],
        )
    }

    fn put_runner(&mut self, r: &Runner) -> StoreResult<()> {
        self.exec(
            "INSERT OR REPLACE INTO runners (id, name, token_hash, data) VALUES (?1, ?2, ?3, ?4)",
            params![r.id, r.name, r.token_hash, to_json(r)?],
        )
    }

    fn runners(&mut self) -> StoreResult<Vec<Runner>> {
        self.many("SELECT data FROM runners ORDER BY name", [])
    }

    fn connection(&mut self, runner_id: &str, instance: &str) -> StoreResult<Option<Connection>> {
        self.one(
            "SELECT data FROM connections WHERE runner_id = ?1 AND instance = ?2",
            params![runner_id, instance],
        )
    }

    fn put_connection(&mut self, c: &Connection) -> StoreResult<()> {
        self.exec(
            "INSERT OR REPLACE INTO connections (runner_id, instance, data, last_seen)
             VALUES (?1, ?2, ?3, ?4)",
            params![c.runner_id, c.instance, to_json(c)?, c.last_seen],
        )
    }

    fn connections(&mut self, seen_since: Millis) -> StoreResult<Vec<Connection>> {
        self.many(
            "SELECT data FROM connections WHERE last_seen >= ?1 ORDER BY runner_id, instance",
            params![seen_since],
        )
    }

    fn forget_connections(&mut self, seen_before: Millis) -> StoreResult<usize> {
        Ok(self
            .conn
            .prepare_cached("DELETE FROM connections WHERE last_seen < ?1")?
            .execute(params![seen_before])?)
    }

    fn live_runs_of_instance(&mut self, runner_id: &str, instance: &str) -> StoreResult<usize> {
        let n: i64 = self
            .conn
            .prepare_cached(
                "SELECT COUNT(*) FROM runs WHERE runner_id = ?1 AND instance = ?2
                   AND status IN ('accepted', 'running')",
            )?
            .query_row(params![runner_id, instance], |r| r.get(0))?;
        Ok(n as usize)
    }

    fn census(&mut self) -> StoreResult<Census> {
        let counts = |sql: &str| -> StoreResult<Vec<(String, u64)>> {
            let mut stmt = self.conn.prepare_cached(sql)?;
            let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?;
            Ok(rows
                .collect::<rusqlite::Result<Vec<_>>>()?
                .into_iter()
                .map(|(s, n)| (s, n as u64))
                .collect())
        };
        let sessions =
            counts("SELECT state, COUNT(*) FROM sessions GROUP BY state ORDER BY state")?;
        let environments =
            counts("SELECT state, COUNT(*) FROM environments GROUP BY state ORDER BY state")?;
        let mut stmt = self.conn.prepare_cached(
            "SELECT status, COUNT(*), MIN(created_at) FROM runs
              WHERE status IN ('offered', 'accepted', 'running') GROUP BY status ORDER BY status",
        )?;
        let runs = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, i64>(1)? as u64,
                    r.get::<_, i64>(2)?,
                ))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(Census {
            sessions,
            environments,
            runs,
        })
    }

    /// One writer at a time: nothing else can change the session, so a read is a lock.
    fn read_session(&mut self, id: &str) -> StoreResult<Option<Session>> {
        self.session(id)
    }

    fn read_environment(&mut self, id: &str) -> StoreResult<Option<Environment>> {
        self.environment(id)
    }

    /// One process opens the file: nobody else to tell.
    fn announce(&mut self, what: &str) -> StoreResult<()> {
        let _ = what;
        Ok(())
    }

    /// The metrics count what [`crate::wakeups::RecordingTx`] noted; the store keeps nothing.
    fn note(&mut self, event: crate::store::Event) {
        let _ = event;
    }

    fn session(&mut self, id: &str) -> StoreResult<Option<Session>> {
        let session: Option<Session> =
            self.one("SELECT data FROM sessions WHERE id = ?1", params![id])?;
        if let Some(s) = session.as_ref().filter(|_| self.writes) {
            self.seen.saw(&columns::SESSIONS, id, session_columns(s));
        }
        Ok(session)
    }

    fn put_session(&mut self, s: &Session) -> StoreResult<()> {
        let data = to_json(s)?;
        self.seen.put(
            &self.conn,
            &columns::SESSIONS,
            &s.id,
            data,
            session_columns(s),
        )
    }

    fn sessions(&mut self) -> StoreResult<Vec<Session>> {
        self.many(
            "SELECT data FROM sessions ORDER BY created_at DESC, id DESC",
            [],
        )
    }

    fn sessions_page(&mut self, page: &super::SessionPage) -> StoreResult<Vec<Session>> {
        // One statement per set of filters, so that each walks its own index in the list's order.
        let (after_at, after_id) = page.after.clone().unwrap_or((Millis::MAX, String::new()));
        let filters = page.filters();
        let sql = session_page_sql(&filters);
        let mut values: Vec<rusqlite::types::Value> = vec![
            after_at.into(),
            after_id.into(),
            i64::from(page.limit).into(),
        ];
        values.extend(filters.into_iter().map(|(_, v)| v.into()));
        self.many(&sql, rusqlite::params_from_iter(values))
    }

    fn due_sessions(&mut self, now: Millis, l: &DueLimits) -> StoreResult<Vec<String>> {
        // `at <= now - limit`, never `at + limit <= now`: a limit may be i64::MAX ("never"),
        // and PostgreSQL fails a whole query on an overflowing sum (SQLite turns it to a float).
        let mut stmt = self.conn.prepare_cached(DUE_SESSIONS)?;
        let rows = stmt.query_map(
            params![
                now,
                l.connect_timeout_ms,
                l.heartbeat_timeout_ms,
                l.stop_grace_ms
            ],
            |r| r.get::<_, String>(0),
        )?;
        let mut out = Vec::new();
        for row in rows {
            out.push(row?);
        }
        Ok(out)
    }

    fn oldest(&mut self) -> StoreResult<Oldest> {
        let idle_at = Oldest::first_idle(
            self.conn
                .prepare_cached(IDLE_BY_AGENT)?
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<Vec<_>, _>>()?,
        );
        let oldest = self.conn.prepare_cached(OLDEST)?.query_row([], |r| {
            Ok(Oldest {
                idle_at,
                expires_at: r.get(0)?,
                unconnected_since: r.get(1)?,
                silent_since: r.get(2)?,
                stopping_since: r.get(3)?,
                teardown_at: r.get(4)?,
            })
        })?;
        Ok(oldest)
    }

    fn run(&mut self, id: &str) -> StoreResult<Option<Run>> {
        let run: Option<Run> = self.one("SELECT data FROM runs WHERE id = ?1", params![id])?;
        if let Some(r) = run.as_ref().filter(|_| self.writes) {
            self.seen.saw(&columns::RUNS, id, run_columns(r));
        }
        Ok(run)
    }

    fn put_run(&mut self, r: &Run) -> StoreResult<()> {
        let data = to_json(r)?;
        self.seen
            .put(&self.conn, &columns::RUNS, &r.id, data, run_columns(r))
    }

    fn reserve_offer(&mut self, before: &Run, r: &Run) -> StoreResult<bool> {
        let n = self
            .conn
            .prepare_cached(
                "UPDATE runs SET data = ?2, reserved_for = ?3, reserved_until = ?4
               WHERE id = ?1 AND status = 'offered'
                 AND reserved_for IS ?5 AND reserved_until IS ?6",
            )?
            .execute(params![
                r.id,
                to_json(r)?,
                r.reserved_for,
                r.reserved_until,
                before.reserved_for,
                before.reserved_until
            ])?;
        // Written here, not by `put_run`: a later write of this run assigns every column.
        self.seen.forget(&columns::RUNS, &r.id);
        Ok(n == 1)
    }

    fn runs_of_session(&mut self, session_id: &str) -> StoreResult<Vec<Run>> {
        self.many(
            "SELECT data FROM runs WHERE session_id = ?1 ORDER BY created_at, rowid",
            params![session_id],
        )
    }

    fn offerable_runs(&mut self, instance: &str, now: Millis) -> StoreResult<Vec<Run>> {
        self.many(
            "SELECT data FROM runs WHERE status = 'offered'
               AND (reserved_until IS NULL OR reserved_until <= ?2 OR reserved_for = ?1)
             ORDER BY created_at, rowid",
            params![instance, now],
        )
    }

    fn offered_runs(&mut self) -> StoreResult<Vec<Run>> {
        self.many(
            "SELECT data FROM runs WHERE status = 'offered' ORDER BY created_at, rowid",
            [],
        )
    }

    fn environment(&mut self, id: &str) -> StoreResult<Option<Environment>> {
        self.one("SELECT data FROM environments WHERE id = ?1", params![id])
    }

    fn put_environment(&mut self, e: &Environment) -> StoreResult<()> {
        self.exec(
            "INSERT OR REPLACE INTO environments (id, session_id, state, next_teardown_at, data) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![e.id, e.session_id, e.state.as_str(), e.next_teardown_at, to_json(e)?],
        )
    }

    fn environments_in(&mut self, state: EnvironmentState) -> StoreResult<Vec<Environment>> {
        self.many(
            "SELECT data FROM environments WHERE state = ?1 ORDER BY rowid",
            params![state.as_str()],
        )
    }

    fn add_directive(
        &mut self,
        run_id: &str,
        body: &DirectiveBody,
        now: Millis,
    ) -> StoreResult<i64> {
        let seq: i64 = self
            .conn
            .prepare_cached("SELECT COALESCE(MAX(seq), 0) + 1 FROM directives WHERE run_id = ?1")?
            .query_row(params![run_id], |r| r.get(0))?;
        let directive = Directive {
            run_id: run_id.to_string(),
            seq,
            body: body.clone(),
            created_at: now,
            delivered_at: None,
        };
        self.put_directive(&directive)?;
        Ok(seq)
    }

    fn directives_after(&mut self, run_id: &str, after: i64) -> StoreResult<Vec<Directive>> {
        self.many(
            "SELECT data FROM directives WHERE run_id = ?1 AND seq > ?2 ORDER BY seq",
            params![run_id, after],
        )
    }

    fn put_directive(&mut self, d: &Directive) -> StoreResult<()> {
        self.exec(
            "INSERT OR REPLACE INTO directives (run_id, seq, data) VALUES (?1, ?2, ?3)",
            params![d.run_id, d.seq, to_json(d)?],
        )
    }

    fn delete_directive(&mut self, run_id: &str, seq: i64) -> StoreResult<()> {
        self.exec(
            "DELETE FROM directives WHERE run_id = ?1 AND seq = ?2",
            params![run_id, seq],
        )
    }

    fn report(&mut self, run_id: &str, report_id: &str) -> StoreResult<Option<String>> {
        Ok(self
            .conn
            .prepare_cached("SELECT kind FROM reports WHERE run_id = ?1 AND report_id = ?2")?
            .query_row(params![run_id, report_id], |r| r.get(0))
            .optional()?)
    }

    fn add_report(
        &mut self,
        run_id: &str,
        report_id: &str,
        kind: &str,
        now: Millis,
    ) -> StoreResult<()> {
        self.exec(
            "INSERT INTO reports (run_id, report_id, kind, at) VALUES (?1, ?2, ?3, ?4)",
            params![run_id, report_id, kind, now],
        )
    }

    fn run_transcript_entry(
        &mut self,
        run_id: &str,
        seq: i64,
    ) -> StoreResult<Option<TranscriptEntry>> {
        self.one(
            "SELECT data FROM transcript WHERE run_id = ?1 AND seq = ?2",
            params![run_id, seq],
        )
    }

    fn run_last_seq(&mut self, run_id: &str) -> StoreResult<i64> {
        Ok(self
            .conn
            .prepare_cached(RUN_LAST_SEQ)?
            .query_row(params![run_id], |r| r.get(0))?)
    }

    fn append_transcript_all(&mut self, entries: &mut [TranscriptEntry]) -> StoreResult<()> {
        entries
            .iter_mut()
            .try_for_each(|e| self.append_transcript(e))
    }

    fn append_transcript(&mut self, e: &mut TranscriptEntry) -> StoreResult<()> {
        e.index = self
            .conn
            .prepare_cached(
                "SELECT COALESCE(MAX(idx), 0) + 1 FROM transcript WHERE session_id = ?1",
            )?
            .query_row(params![e.session_id], |r| r.get(0))?;
        self.exec(
            "INSERT INTO transcript (session_id, idx, run_id, seq, data) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![e.session_id, e.index, e.run_id, e.seq, to_json(e)?],
        )
    }

    fn last_transcript_index(&mut self, session_id: &str) -> StoreResult<i64> {
        Ok(self
            .conn
            .prepare_cached("SELECT COALESCE(MAX(idx), 0) FROM transcript WHERE session_id = ?1")?
            .query_row(params![session_id], |r| r.get(0))?)
    }

    fn transcript(
        &mut self,
        session_id: &str,
        after: i64,
        limit: usize,
    ) -> StoreResult<Vec<TranscriptEntry>> {
        // The limit is applied here, not as `LIMIT ?3`: SQLite prepares a statement with a
        // bound LIMIT again on every run (a follow's check spent most of its time parsing).
        let mut stmt = self.conn.prepare_cached(TRANSCRIPT_PAGE)?;
        let rows = stmt.query_map(params![session_id, after], |r| r.get::<_, String>(0))?;
        let mut out = Vec::new();
        for row in rows.take(limit) {
            out.push(serde_json::from_str(&row?)?);
        }
        Ok(out)
    }

    fn sessions_to_prune(
        &mut self,
        ended_before: Millis,
        limit: usize,
    ) -> StoreResult<Vec<String>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT s.id FROM sessions s
               WHERE s.pruned_at IS NULL AND s.ended_at <= ?1
                 AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.session_id = s.id
                                   AND r.status IN ('offered', 'accepted', 'running'))
               ORDER BY s.ended_at, s.id LIMIT ?2",
        )?;
        let rows = stmt.query_map(params![ended_before, limit as i64], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn prune_session_records(&mut self, session_id: &str, limit: usize) -> StoreResult<usize> {
        // Each statement deletes at most what is left of the batch: one
        // transaction never holds the lock for a long delete.
        let mut left = limit as i64;
        for sql in [
            "DELETE FROM transcript WHERE rowid IN
               (SELECT rowid FROM transcript WHERE session_id = ?1 LIMIT ?2)",
            "DELETE FROM directives WHERE rowid IN
               (SELECT d.rowid FROM directives d JOIN runs r ON r.id = d.run_id
                 WHERE r.session_id = ?1 LIMIT ?2)",
            "DELETE FROM reports WHERE rowid IN
               (SELECT p.rowid FROM reports p JOIN runs r ON r.id = p.run_id
                 WHERE r.session_id = ?1 LIMIT ?2)",
        ] {
            if left == 0 {
                break;
            }
            let deleted = self
                .conn
                .prepare_cached(sql)?
                .execute(params![session_id, left])?;
            left -= deleted as i64;
        }
        Ok(limit - left as usize)
    }

    fn message(&mut self, id: &str) -> StoreResult<Option<Message>> {
        self.one("SELECT data FROM messages WHERE id = ?1", params![id])
    }

    fn put_message(&mut self, m: &Message) -> StoreResult<()> {
        self.exec(
            "INSERT OR REPLACE INTO messages (id, session_id, state, created_at, data) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![m.id, m.session_id, m.state.as_str(), m.created_at, to_json(m)?],
        )
    }

    fn messages(&mut self, session_id: &str, state: MessageState) -> StoreResult<Vec<Message>> {
        self.many(
            "SELECT data FROM messages WHERE session_id = ?1 AND state = ?2 ORDER BY created_at, rowid",
            params![session_id, state.as_str()],
        )
    }

    fn plug_records(&mut self, session_id: &str) -> StoreResult<Vec<PlugRecord>> {
        self.many(
            "SELECT data FROM plug_records WHERE session_id = ?1 ORDER BY plug_id",
            params![session_id],
        )
    }

    fn all_plug_records(&mut self) -> StoreResult<Vec<PlugRecord>> {
        self.many(
            "SELECT data FROM plug_records ORDER BY session_id, plug_id",
            [],
        )
    }

    fn put_plug_record(&mut self, p: &PlugRecord) -> StoreResult<()> {
        self.exec(
            "INSERT OR REPLACE INTO plug_records (session_id, plug_id, data) VALUES (?1, ?2, ?3)",
            params![p.session_id, p.plug_id, to_json(p)?],
        )
    }

    fn delete_plug_record(&mut self, session_id: &str, plug_id: &str) -> StoreResult<()> {
        self.exec(
            "DELETE FROM plug_records WHERE session_id = ?1 AND plug_id = ?2",
            params![session_id, plug_id],
        )
    }

    fn permission(
        &mut self,
        run_id: &str,
        request_id: &str,
    ) -> StoreResult<Option<PermissionRequest>> {
        self.one(
            "SELECT data FROM permissions WHERE run_id = ?1 AND request_id = ?2",
            params![run_id, request_id],
        )
    }

    fn put_permission(&mut self, p: &PermissionRequest) -> StoreResult<()> {
        self.exec(
            "INSERT OR REPLACE INTO permissions (run_id, request_id, session_id, created_at, data, pending) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                p.run_id,
                p.request_id,
                p.session_id,
                p.created_at,
                to_json(p)?,
                p.state == PermissionState::Pending
            ],
        )
    }

    fn pending_permissions(&mut self) -> StoreResult<Vec<PermissionRequest>> {
        self.many(
            "SELECT data FROM permissions WHERE pending = 1 ORDER BY created_at, rowid",
            [],
        )
    }

    fn permissions(&mut self, session_id: &str) -> StoreResult<Vec<PermissionRequest>> {
        self.many(
            "SELECT data FROM permissions WHERE session_id = ?1 ORDER BY created_at, rowid",
            params![session_id],
        )
    }

    fn day_usage(&mut self, who: Spender, of: &str, day: &str) -> StoreResult<DayUsage> {
        let sql = match who {
            Spender::Agent => "SELECT data FROM agent_usage WHERE agent = ?1 AND day = ?2",
            Spender::Runner => "SELECT data FROM runner_usage WHERE runner_id = ?1 AND day = ?2",
        };
        let found: Option<DayUsage> = self.one(sql, params![of, day])?;
        Ok(found.unwrap_or_else(|| DayUsage::empty(of, day)))
    }

    fn put_day_usage(&mut self, who: Spender, u: &DayUsage) -> StoreResult<()> {
        let sql = match who {
            Spender::Agent => {
                "INSERT OR REPLACE INTO agent_usage (agent, day, data) VALUES (?1, ?2, ?3)"
            }
            Spender::Runner => {
                "INSERT OR REPLACE INTO runner_usage (runner_id, day, data) VALUES (?1, ?2, ?3)"
            }
        };
        self.exec(sql, params![u.of, u.day, to_json(u)?])
    }

    fn day_usages(&mut self, who: Spender, since: &str) -> StoreResult<Vec<DayUsage>> {
        let sql = match who {
            Spender::Agent => "SELECT data FROM agent_usage WHERE day >= ?1 ORDER BY agent, day",
            Spender::Runner => {
                "SELECT data FROM runner_usage WHERE day >= ?1 ORDER BY runner_id, day"
            }
        };
        self.many(sql, params![since])
    }

    fn source_thread(&mut self, source: &str, thread: &str) -> StoreResult<Option<SourceThread>> {
        self.one(
            "SELECT data FROM source_threads WHERE source = ?1 AND thread = ?2",
            params![source, thread],
        )
    }

    fn source_thread_of_session(&mut self, session_id: &str) -> StoreResult<Option<SourceThread>> {
        self.one(
            "SELECT data FROM source_threads WHERE session_id = ?1",
            params![session_id],
        )
    }

    fn put_source_thread(&mut self, t: &SourceThread) -> StoreResult<()> {
        self.exec(
            "INSERT OR REPLACE INTO source_threads
               (source, thread, session_id, delivered, pending, retry_at, data)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                t.source,
                t.thread,
                t.session_id,
                t.delivered,
                t.outbox.len() as i64,
                t.retry_at,
                to_json(t)?
            ],
        )
    }

    fn source_threads_due(&mut self, now: Millis, limit: usize) -> StoreResult<Vec<SourceThread>> {
        self.many(SOURCE_THREADS_DUE, params![now, limit as i64])
    }

    fn take_delivery(&mut self, source: &str, delivery: &str, now: Millis) -> StoreResult<bool> {
        let added = self
            .conn
            .prepare_cached(
                "INSERT OR IGNORE INTO source_deliveries (source, delivery, at) VALUES (?1, ?2, ?3)",
            )?
            .execute(params![source, delivery, now])?;
        Ok(added == 1)
    }

    fn forget_deliveries(&mut self, before: Millis) -> StoreResult<usize> {
        Ok(self
            .conn
            .prepare_cached("DELETE FROM source_deliveries WHERE at < ?1")?
            .execute(params![before])?)
    }
}

#[cfg(test)]
mod tests {

    /// The query plan of `sql` with `params`, its steps joined.
    fn plan(conn: &rusqlite::Connection, sql: &str, params: Vec<Value>) -> String {
        let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
        let steps: Vec<String> = stmt
            .query_map(rusqlite::params_from_iter(params), |r| {
                r.get::<_, String>(3)
            })
            .unwrap()
            .map(Result::unwrap)
            .collect();
        steps.join(" / ")
    }

    /// Every subset of `filters` (column, value).
    fn subsets(filters: &[(&'static str, &str)]) -> Vec<Vec<(&'static str, String)>> {
        (0..1u32 << filters.len())
            .map(|mask| {
                (0..filters.len())
                    .filter(|i| mask & (1 << i) != 0)
                    .map(|i| (filters[i].0, filters[i].1.to_owned()))
                    .collect()
            })
            .collect()
    }

    /// A page of the sessions list walks an index in the list's order and stops at the page's
    /// end, with or without its filters: never every session, never a sort of them.
    #[test]
    fn a_page_of_sessions_walks_an_index_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("blaise.db")).unwrap();
        let conn = store.conn.lock().unwrap();
        let all = [("state", "active"), ("agent", "a"), ("started_by", "ann")];
        for filters in subsets(&all) {
            let mut params = vec![
                Value::Integer(1),
                Value::Text("ses_0".into()),
                Value::Integer(100),
            ];
            params.extend(filters.iter().map(|(_, v)| Value::Text(v.clone())));
            let plan = plan(&conn, &session_page_sql(&filters), params);
            assert!(
                plan.contains("USING INDEX sessions_newest"),
                "{filters:?}: {plan}"
            );
            assert!(!plan.contains("TEMP B-TREE"), "{filters:?}: {plan}");
        }
    }

    /// So does a page of the audit trail, by its `seq`.
    #[test]
    fn a_page_of_the_audit_trail_walks_an_index_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("blaise.db")).unwrap();
        let conn = store.conn.lock().unwrap();
        let all = [
            ("actor", "ann"),
            ("session_id", "ses_0"),
            ("action", "session.send"),
        ];
        for filters in subsets(&all) {
            let mut params = vec![Value::Integer(i64::MAX), Value::Integer(100)];
            params.extend(filters.iter().map(|(_, v)| Value::Text(v.clone())));
            let plan = plan(&conn, &audit_page_sql(&filters), params);
            assert!(!plan.contains("TEMP B-TREE"), "{filters:?}: {plan}");
            assert!(
                plan.contains("USING INDEX audit_by") || plan.contains("USING INTEGER PRIMARY KEY"),
                "{filters:?}: {plan}"
            );
        }
    }
    use super::*;

    #[test]
    fn a_reopened_file_keeps_its_records_and_is_not_migrated_twice() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("blaise.db");
        {
            let store = SqliteStore::open(&path).unwrap();
            let mut tx = store.begin().unwrap();
            tx.set_admin_token_hash("abc").unwrap();
            tx.commit().unwrap();
        }
        let store = SqliteStore::open(&path).unwrap();
        let mut tx = store.begin().unwrap();
        assert_eq!(tx.admin_token_hash().unwrap().as_deref(), Some("abc"));
    }

    #[test]
    fn a_database_of_the_first_schema_is_migrated_with_its_ended_sessions_and_held_runs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("blaise.db");
        {
            // The database as the first schema left it: one ended session.
            let conn = rusqlite::Connection::open(&path).unwrap();
            conn.execute_batch(&format!(
                "BEGIN; {}; PRAGMA user_version = 1; COMMIT;",
                MIGRATIONS[0]
            ))
            .unwrap();
            conn.execute(
                "INSERT INTO sessions (id, agent, state, created_at, last_activity, open_turns, run_serving, expires_at, data)
                 VALUES ('old', 'a', 'closed', 0, 0, 0, 0, NULL, ?1)",
                params![r#"{"id":"old","agent":"a","state":"closed","created_at":0,"last_activity":0,"open_turns":0,"run_serving":false,"environment_id":null,"current_run_id":null,"paused_at":null,"expires_at":null,"ended_at":1000,"end_reason":"closed","consecutive_failures":0,"recreate_environment":false,"plug_chain":null,"acp_session_id":null}"#],
            )
            .unwrap();
        }
        {
            // And a run a runner holds, as the first schema kept it (no runner columns).
            let conn = rusqlite::Connection::open(&path).unwrap();
            let mut run = crate::store::conformance::run("r1", "old", RunStatus::Running);
            run.runner_id = Some("ra".into());
            run.instance = Some("i1".into());
            conn.execute(
                "INSERT INTO runs (id, session_id, kind, status, created_at, data)
                 VALUES ('r1', 'old', 'start', 'running', 0, ?1)",
                params![serde_json::to_string(&run).unwrap()],
            )
            .unwrap();
        }
        let store = SqliteStore::open(&path).unwrap();
        let mut tx = store.begin().unwrap();
        assert_eq!(
            tx.live_runs_of_instance("ra", "i1").unwrap(),
            1,
            "the runner columns are filled from the records"
        );
        assert_eq!(
            tx.sessions_to_prune(1000, 10).unwrap(),
            Vec::<String>::new()
        );
        let mut run = tx.run("r1").unwrap().unwrap();
        run.status = RunStatus::TornDown;
        tx.put_run(&run).unwrap();
        assert_eq!(tx.sessions_to_prune(1000, 10).unwrap(), ["old"]);
        assert_eq!(tx.sessions_to_prune(999, 10).unwrap(), Vec::<String>::new());
        assert_eq!(tx.session("old").unwrap().unwrap().pruned_at, None);
    }

    /// The statements run on every report and every clock tick read an index, never a whole
    /// table.
    #[test]
    fn hot_statements_read_indexes() {
        let store = SqliteStore::in_memory().unwrap();
        let conn = store.conn.lock().unwrap();
        for (sql, n) in [
            (RUN_LAST_SEQ, 1),
            (DUE_SESSIONS, 4),
            (IDLE_BY_AGENT, 0),
            (OLDEST, 0),
        ] {
            let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
            let args: Vec<i64> = (0..n).collect();
            let plan: Vec<String> = stmt
                .query_map(rusqlite::params_from_iter(args), |r| r.get::<_, String>(3))
                .unwrap()
                .map(Result::unwrap)
                .collect();
            for line in &plan {
                let whole_table = (line.starts_with("SCAN ") || line.starts_with("SEARCH "))
                    && !line.contains("INDEX")
                    && !line.ends_with(" a")
                    && line != "SCAN d"
                    && line != "SCAN CONSTANT ROW"
                    && line != "SEARCH agents";
                assert!(!whole_table, "{sql}\nreads a whole table: {plan:#?}");
            }
        }
    }

    /// A session or run written back assigns only the columns that changed (columns.rs): after
    /// reads, writes, a write twice in one transaction and a reservation, every column still
    /// says what the record says.
    #[test]
    fn written_back_records_keep_their_columns_true() {
        use crate::store::conformance::{run, session};
        let store = SqliteStore::in_memory().unwrap();
        let columns_of = |table: &columns::Table, id: &str| -> Vec<Value> {
            let conn = store.conn.lock().unwrap();
            let sql = format!(
                "SELECT {} FROM {} WHERE id = ?1",
                table.columns.join(", "),
                table.name
            );
            conn.query_row(&sql, params![id], |r| {
                (0..table.columns.len())
                    .map(|i| r.get::<_, Value>(i))
                    .collect()
            })
            .unwrap()
        };
        let s = session("ses_00000000000000a1", SessionState::Active, 5);
        let r = run("run_00000000000000a1", &s.id, RunStatus::Offered);
        let mut tx = store.begin().unwrap();
        tx.put_session(&s).unwrap();
        tx.put_run(&r).unwrap();
        tx.commit().unwrap();

        let mut tx = store.begin().unwrap();
        let mut s = tx.session(&s.id).unwrap().unwrap();
        s.open_turns = 1;
        s.last_activity = 9;
        tx.put_session(&s).unwrap();
        // Twice in one transaction: the second write compares with the first.
        s.state = SessionState::Paused;
        s.expires_at = Some(100);
        s.open_turns = 0;
        tx.put_session(&s).unwrap();
        let before = tx.run(&r.id).unwrap().unwrap();
        let reserved = Run {
            reserved_for: Some("runner i".into()),
            reserved_until: Some(50),
            ..before.clone()
        };
        assert!(tx.reserve_offer(&before, &reserved).unwrap());
        // Written after the reservation: the reservation's columns change back as well.
        let accepted = Run {
            status: RunStatus::Accepted,
            accepted_at: Some(20),
            runner_id: Some("rnr".into()),
            ..before.clone()
        };
        tx.put_run(&accepted).unwrap();
        tx.commit().unwrap();
        assert_eq!(columns_of(&columns::SESSIONS, &s.id), session_columns(&s));
        assert_eq!(columns_of(&columns::RUNS, &r.id), run_columns(&accepted));
        let mut tx = store.begin().unwrap();
        assert_eq!(tx.run(&r.id).unwrap().unwrap(), accepted);
        assert_eq!(tx.session(&s.id).unwrap().unwrap(), s);
    }

    /// The statements every request runs are parsed once, not again on each run (SQLite
    /// prepares a statement again whenever a bound value may change its plan, e.g. a LIMIT).
    #[test]
    fn hot_statements_are_prepared_once() {
        let store = SqliteStore::in_memory().unwrap();
        for after in 0..5 {
            let mut tx = store.begin().unwrap();
            tx.transcript("ses_00000000000000a1", after, 10).unwrap();
            tx.admin_token_hash().unwrap();
            tx.commit().unwrap();
        }
        let conn = store.conn.lock().unwrap();
        for sql in [
            TRANSCRIPT_PAGE,
            "SELECT value FROM meta WHERE key = 'admin_token_hash'",
            "BEGIN IMMEDIATE",
            "COMMIT",
        ] {
            let stmt = conn.prepare_cached(sql).unwrap();
            assert_eq!(
                stmt.get_status(rusqlite::StatementStatus::RePrepare),
                0,
                "{sql}"
            );
            assert!(
                stmt.get_status(rusqlite::StatementStatus::VmStep) > 0,
                "{sql} was not cached"
            );
        }
    }

    #[test]
    fn conforms() {
        super::super::conformance::check(&SqliteStore::in_memory().unwrap());
    }

    #[test]
    fn a_dropped_transaction_rolls_back() {
        let store = SqliteStore::in_memory().unwrap();
        {
            let mut tx = store.begin().unwrap();
            tx.set_admin_token_hash("abc").unwrap();
        }
        let mut tx = store.begin().unwrap();
        assert_eq!(tx.admin_token_hash().unwrap(), None);
    }
}
