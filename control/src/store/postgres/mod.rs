//! The PostgreSQL store, for a fleet: several `blaise serve` instances share one database.
//!
//! **Locking, not retrying.** A transition is a `READ COMMITTED` transaction that locks the
//! session it concerns before it reads anything of it: reading a session takes its row lock
//! (`SELECT … FOR UPDATE`), and reading a run, an environment, a message or a permission request
//! takes the lock of the session it belongs to, then reads the record again (a statement of a
//! `READ COMMITTED` transaction sees what was committed before it started). So two
//! transitions of one session never run at the same time, on any instance: the second waits,
//! then reads what the first wrote. Transitions of different sessions do not wait for each other.
//! What slips past the locks (two new records racing for one number, a deadlock between two
//! instances) fails with [`StoreError::Conflict`] and runs again (`crate::lifecycle::retrying`).
//! Reads that change nothing (`Store::begin_read`: views, the dashboard) run in a
//! `REPEATABLE READ READ ONLY` snapshot and lock nothing.
//!
//! The domain logic is synchronous; the connections are not. A transaction waits on its
//! client's requests from whatever thread it runs on, and drives its connection's socket there
//! meanwhile (`pool::PgConn::drive`); the store's own small runtime only watches the sockets
//! (its I/O driver) and runs the connections that wait on their own (the listener, the lease).
//! So the store works the same from a request handler, the clock's blocking thread or a plain
//! test, and a round trip costs no thread switch of ours.

mod errors;
mod lease;
mod listen;
mod pool;

use std::collections::HashMap;

use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio_postgres::error::SqlState;
use tokio_postgres::types::ToSql;
use tokio_postgres::{Row, Statement};

use super::{Census, DueLimits, Oldest, Store, StoreError, StoreResult, Tx};
use crate::model::*;
use pool::{Conn, PgConn, Pool};

pub use pool::{POOL_SIZE, redacted};

/// Migrations, in order; `blaise_migrations` records the ones that ran.
const MIGRATIONS: &[&str] = &[
    include_str!("schema.sql"),
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

/// Any number, the same in every instance: the advisory lock migrations run under, so two
/// instances starting at once do not both migrate.
const MIGRATION_LOCK: i64 = 0x626c_6169_7365_0001;

pub struct PostgresStore {
    pool: Pool,
    /// Names this process in its announcements, so it skips its own.
    instance: String,
    lease: lease::Lease,
}

impl PostgresStore {
    /// Connects to `url` (`postgres://user:password@host:port/database`, or the key=value form)
    /// and runs the migrations this database has not had.
    pub fn open(url: &str) -> StoreResult<Self> {
        let pool = Pool::new(url)?;
        let mut id = [0u8; 8];
        getrandom::fill(&mut id)
            .map_err(|e| StoreError::Failed(format!("the system's random source: {e}")))?;
        let store = PostgresStore {
            pool,
            instance: hex::encode(id),
            lease: lease::Lease::default(),
        };
        store.migrate()?;
        Ok(store)
    }

    fn migrate(&self) -> StoreResult<()> {
        let conn = self.pool.get()?;
        let client = conn.client();
        conn.drive(client.batch_execute(&format!(
            "BEGIN; SELECT pg_advisory_xact_lock({MIGRATION_LOCK});
             CREATE TABLE IF NOT EXISTS blaise_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL);"
        )))?;
        let done: i32 = conn
            .drive(client.query_one(
                "SELECT COALESCE(MAX(version), 0) FROM blaise_migrations",
                &[],
            ))?
            .get(0);
        if done as usize > MIGRATIONS.len() {
            conn.drive(client.batch_execute("ROLLBACK"))?;
            return Err(StoreError::TooNew {
                found: done.into(),
                known: MIGRATIONS.len() as i64,
            });
        }
        for (i, migration) in MIGRATIONS.iter().enumerate().skip(done as usize) {
            conn.drive(client.batch_execute(migration))?;
            conn.drive(client.execute(
                "INSERT INTO blaise_migrations (version, applied_at) VALUES ($1, $2)",
                &[&(i as i32 + 1), &now()],
            ))?;
        }
        conn.drive(client.batch_execute("COMMIT"))?;
        Ok(())
    }

    /// A transaction on a pooled connection. Its `BEGIN` goes with its first statement (one
    /// round trip fewer); a pooled connection that died while idle shows there, as a lost
    /// connection, and the transaction runs again on another (see `note`).
    fn open_tx(&self, begin: &'static str, locking: bool) -> StoreResult<Box<dyn Tx + '_>> {
        let conn = self.live_connection()?;
        let mut tx = PostgresTx::new(conn, &self.instance, locking, None);
        tx.begin = Some(begin);
        Ok(Box::new(tx))
    }

    /// A pooled connection not known to be closed: after a server restart every idle one is,
    /// and the pool only drops them as they come back (dropped here, they do).
    fn live_connection(&self) -> StoreResult<Conn> {
        for _ in 0..pool::POOL_SIZE {
            let conn = self.pool.get()?;
            if !conn.client().is_closed() {
                return Ok(conn);
            }
        }
        self.pool.get()
    }
}

impl Store for PostgresStore {
    fn begin(&self) -> StoreResult<Box<dyn Tx + '_>> {
        self.open_tx("BEGIN ISOLATION LEVEL READ COMMITTED", true)
    }

    fn begin_read(&self) -> StoreResult<Box<dyn Tx + '_>> {
        self.open_tx("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", false)
    }

    fn begin_one(&self) -> StoreResult<Box<dyn Tx + '_>> {
        // No transaction: a connection that died unseen shows on the statement (see `note`).
        let conn = self.live_connection()?;
        Ok(Box::new(PostgresTx::new(
            conn,
            &self.instance,
            false,
            Some(false),
        )))
    }

    fn kind(&self) -> &'static str {
        "postgres"
    }

    fn writers(&self) -> usize {
        POOL_SIZE as usize
    }

    /// Readers share the writers' pool, and so their turns.
    fn readers(&self) -> Option<usize> {
        None
    }

    fn listen(&self, deliver: super::Deliver) {
        self.pool.driver.handle().spawn(listen::run(
            self.pool.config.clone(),
            self.instance.clone(),
            deliver,
        ));
    }

    fn hold_clock(&self) -> StoreResult<bool> {
        self.lease.hold(&self.pool.driver, &self.pool.config)
    }
}

/// Whether `e` says the connection is gone (closed, or the server is ending it) rather than
/// that the statement failed.
fn lost(e: &tokio_postgres::Error, conn: &Conn) -> bool {
    e.is_closed()
        || conn.client().is_closed()
        || e.code().is_some_and(|c| {
            *c == SqlState::ADMIN_SHUTDOWN
                || *c == SqlState::CRASH_SHUTDOWN
                || *c == SqlState::CANNOT_CONNECT_NOW
        })
}

/// A statement found its connection dead (the server restarted or ended it, maybe while the
/// connection was idle in the pool) before the transaction's `COMMIT` was sent: nothing was
/// committed, and running it again on another connection is safe, as after a conflict.
fn lost_before_commit() -> StoreError {
    StoreError::Conflict("the connection was lost before the commit; running again".into())
}

struct PostgresTx<'a> {
    conn: Conn,
    done: bool,
    /// The first statement that failed (PostgreSQL refuses the rest of the transaction).
    failed: Option<String>,
    /// A transition: reads lock the session they concern (see the module's note).
    locking: bool,
    /// The sessions this transaction holds the lock of, each with its record as last read or
    /// written here: nobody else can change it while the lock is held, so reading it again
    /// costs no round trip.
    locked: HashMap<String, String>,
    /// The `BEGIN` not sent yet: it goes with the first statement.
    begin: Option<&'static str>,
    /// The last transcript index of sessions this transaction holds the lock of, once read: the
    /// next entries are numbered from it without asking again.
    last_index: HashMap<String, i64>,
    /// Writes whose answer nothing waits for (see [`PostgresTx::defer`]): sent with the next
    /// statement or the `COMMIT`, in the same round trip.
    unsent: Vec<(Statement, Vec<Param>)>,
    instance: &'a str,
    /// What [`Tx::announce`] was asked to send: sent with the COMMIT.
    announcements: Vec<String>,
    /// A read of one statement outside a transaction ([`Store::begin_one`]): whether it ran.
    single: Option<bool>,
}

/// Tells the other instances what a transaction changed (delivered when it commits).
const NOTIFY: &str = "SELECT pg_notify('blaise_changes', $1)";

impl Drop for PostgresTx<'_> {
    fn drop(&mut self) {
        // A transaction whose BEGIN was never sent has nothing to roll back.
        if !self.done
            && self.single.is_none()
            && self.begin.is_none()
            && !self.conn.client().is_closed()
        {
            // A connection whose rollback fails is broken; the pool drops broken ones.
            let _ = self
                .conn
                .drive(self.conn.client().batch_execute("ROLLBACK"));
        }
    }
}

fn to_json<T: Serialize>(value: &T) -> StoreResult<String> {
    Ok(serde_json::to_string(value)?)
}

type Params<'a> = &'a [&'a (dyn ToSql + Sync)];

/// Deliveries as rows of (id, data).
fn deliveries_of(rows: Vec<Row>) -> StoreResult<Vec<Delivery>> {
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let mut d: Delivery = serde_json::from_str(row.get::<_, &str>(1))?;
        d.id = row.get(0);
        out.push(d);
    }
    Ok(out)
}

/// A statement made of `head`, a condition per filter (`condition` writes the `i`th) and `tail`,
/// kept for the life of the process: statements are prepared once per connection and named by
/// their text, and a list's filters make few sets (a handful of columns).
fn interned(
    filters: &[(&'static str, String)],
    condition: impl Fn(&mut String, usize, &str),
    head: &str,
    tail: &str,
) -> &'static str {
    static MADE: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());
    let mut sql = String::from(head);
    for (i, (column, _)) in filters.iter().enumerate() {
        condition(&mut sql, i, column);
    }
    sql.push_str(tail);
    let mut made = MADE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(known) = made.iter().find(|known| **known == sql) {
        return known;
    }
    let leaked: &'static str = Box::leak(sql.into_boxed_str());
    made.push(leaked);
    leaked
}
/// A parameter of a write sent later ([`PostgresTx::defer`]).
type Param = Box<dyn ToSql + Sync + Send>;

/// Owned parameters for [`PostgresTx::defer`].
macro_rules! owned_params {
    ($($value:expr),* $(,)?) => {
        vec![$(Box::new($value) as Param),*]
    };
}

/// One round trip: the `BEGIN` and the writes not sent yet (taken), then `last`, sent together
/// (PostgreSQL runs them in order); the first error, in that order, is the answer.
fn pipelined<T>(
    conn: &PgConn,
    begin: &mut Option<&'static str>,
    unsent: &mut Vec<(Statement, Vec<Param>)>,
    last: impl std::future::Future<Output = Result<T, tokio_postgres::Error>>,
) -> Result<T, tokio_postgres::Error> {
    let (begin, unsent) = (begin.take(), std::mem::take(unsent));
    let client = conn.client();
    // Each request is sent when its future is first polled, and `join` polls them in order.
    conn.drive(async {
        let begun = async {
            match begin {
                Some(sql) => client.batch_execute(sql).await,
                None => Ok(()),
            }
        };
        let writes =
            futures_util::future::join_all(unsent.iter().map(|(stmt, params)| async move {
                let refs: Vec<&(dyn ToSql + Sync)> =
                    params.iter().map(|p| &**p as &(dyn ToSql + Sync)).collect();
                client.execute(stmt, &refs).await
            }));
        let (begun, written, out) = futures_util::future::join3(begun, writes, last).await;
        begun?;
        for w in written {
            w?;
        }
        out
    })
}

impl<'a> PostgresTx<'a> {
    fn new(conn: Conn, instance: &'a str, locking: bool, single: Option<bool>) -> Self {
        PostgresTx {
            conn,
            done: false,
            failed: None,
            locked: Default::default(),
            begin: None,
            last_index: HashMap::new(),
            unsent: Vec::new(),
            locking,
            instance,
            announcements: Vec::new(),
            single,
        }
    }

    fn statement(&mut self, sql: &'static str) -> StoreResult<Statement> {
        if let Some(ran) = &mut self.single {
            if *ran {
                return Err(StoreError::Failed(format!(
                    "a read of one statement ran a second one: {sql}"
                )));
            }
            *ran = true;
        }
        let prepared = self.conn.statement(sql);
        self.note(prepared)
    }

    /// Notes a failed statement (see `commit`). A connection lost before the `COMMIT` was sent
    /// committed nothing (PostgreSQL rolls back what it had begun): that is a conflict, so that
    /// the transaction runs again on another connection.
    fn note<T>(&mut self, result: Result<T, tokio_postgres::Error>) -> StoreResult<T> {
        result.map_err(|e| {
            if lost(&e, &self.conn) {
                self.failed.get_or_insert_with(|| e.to_string());
                return lost_before_commit();
            }
            let e = StoreError::from(e);
            if self.failed.is_none() {
                self.failed = Some(e.to_string());
            }
            e
        })
    }

    fn rows(&mut self, sql: &'static str, params: Params) -> StoreResult<Vec<Row>> {
        let stmt = self.statement(sql)?;
        let client = self.conn.client();
        let rows = pipelined(
            &self.conn,
            &mut self.begin,
            &mut self.unsent,
            client.query(&stmt, params),
        );
        self.note(rows)
    }

    /// A write whose answer nothing waits for: sent with the next statement or the `COMMIT`
    /// (a failure there fails the transaction all the same, as PostgreSQL refuses every
    /// statement after a failed one).
    fn defer(&mut self, sql: &'static str, params: Vec<Param>) -> StoreResult<()> {
        let stmt = self.statement(sql)?;
        self.unsent.push((stmt, params));
        Ok(())
    }

    /// A record of a session: `read` returns the record's data. In a transition, reading it
    /// takes the session's lock first (`lock`: the session's id and record, `FOR UPDATE`, from
    /// the same parameters), in the same round trip: they run in order, so the read's snapshot
    /// is taken after the lock is held and sees what the last holder of the lock left.
    fn owned<T: DeserializeOwned>(
        &mut self,
        lock: &'static str,
        read: &'static str,
        params: Params,
    ) -> StoreResult<Option<T>> {
        if !self.locking {
            return self.one(read, params);
        }
        let lock = self.statement(lock)?;
        let again = self.statement(read)?;
        let client = self.conn.client();
        let both = pipelined(&self.conn, &mut self.begin, &mut self.unsent, async {
            let (locked, rows) = futures_util::future::join(
                client.query(&lock, params),
                client.query(&again, params),
            )
            .await;
            Ok((locked?, rows?))
        });
        let (locked, rows) = self.note(both)?;
        if let Some(session) = locked.first() {
            self.locked.insert(session.get(0), session.get(1));
        }
        match rows.first() {
            Some(row) => Ok(Some(serde_json::from_str(row.get::<_, &str>(0))?)),
            None => Ok(None),
        }
    }

    /// The last transcript index of `session_id` (see `last_index`).
    fn transcript_end(&mut self, session_id: &str) -> StoreResult<i64> {
        if let Some(&last) = self.last_index.get(session_id) {
            return Ok(last);
        }
        let last = self.int(
            "SELECT COALESCE(MAX(idx), 0) FROM transcript WHERE session_id = $1",
            &[&session_id],
        )?;
        if self.locked.contains_key(session_id) {
            self.last_index.insert(session_id.to_string(), last);
        }
        Ok(last)
    }

    /// Notes that `session_id`'s transcript now ends at `last` (when it is known here).
    fn appended(&mut self, session_id: &str, last: i64) {
        if let Some(known) = self.last_index.get_mut(session_id) {
            *known = last;
        }
    }

    fn one<T: DeserializeOwned>(
        &mut self,
        sql: &'static str,
        params: Params,
    ) -> StoreResult<Option<T>> {
        match self.rows(sql, params)?.first() {
            Some(row) => Ok(Some(serde_json::from_str(row.get::<_, &str>(0))?)),
            None => Ok(None),
        }
    }

    fn many<T: DeserializeOwned>(
        &mut self,
        sql: &'static str,
        params: Params,
    ) -> StoreResult<Vec<T>> {
        let rows = self.rows(sql, params)?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            out.push(serde_json::from_str(row.get::<_, &str>(0))?);
        }
        Ok(out)
    }

    fn ids(&mut self, sql: &'static str, params: Params) -> StoreResult<Vec<String>> {
        Ok(self.rows(sql, params)?.iter().map(|r| r.get(0)).collect())
    }

    fn exec(&mut self, sql: &'static str, params: Params) -> StoreResult<u64> {
        let stmt = self.statement(sql)?;
        let client = self.conn.client();
        let done = pipelined(
            &self.conn,
            &mut self.begin,
            &mut self.unsent,
            client.execute(&stmt, params),
        );
        self.note(done)
    }

    fn int(&mut self, sql: &'static str, params: Params) -> StoreResult<i64> {
        let stmt = self.statement(sql)?;
        let client = self.conn.client();
        let row = pipelined(
            &self.conn,
            &mut self.begin,
            &mut self.unsent,
            client.query_one(&stmt, params),
        );
        Ok(self.note(row)?.get(0))
    }
}

impl Tx for PostgresTx<'_> {
    fn commit(mut self: Box<Self>) -> StoreResult<()> {
        // PostgreSQL answers COMMIT of a transaction a statement failed in with ROLLBACK, not
        // an error: such a transaction must not pass for committed (the one who swallowed the
        // statement's error would believe its writes were kept).
        if let Some(failed) = self.failed.take() {
            return Err(StoreError::Failed(format!(
                "not committed: a statement of the transaction failed ({failed})"
            )));
        }
        if self.single.is_some() {
            // Nothing to commit: the statement was its own transaction.
            self.done = true;
            return Ok(());
        }
        let mut announcements = std::mem::take(&mut self.announcements);
        let last = announcements.pop();
        for payload in &announcements {
            self.exec(NOTIFY, &[payload])?;
        }
        let notify = match last {
            Some(payload) => Some((self.statement(NOTIFY)?, payload)),
            None => None,
        };
        // Marked done first: a failed COMMIT has ended the transaction all the same.
        self.done = true;
        // A transaction that sent nothing has nothing to commit.
        if self.begin.is_some() && self.unsent.is_empty() && notify.is_none() {
            return Ok(());
        }
        if self.conn.client().is_closed() {
            // Nothing can be sent on it: nothing was committed.
            return Err(lost_before_commit());
        }
        let this = &mut *self;
        let client = this.conn.client();
        // The writes not sent yet and the (last) announcement go with the COMMIT, in one round
        // trip: sent together, they run in order. If one fails, the transaction is aborted and
        // PostgreSQL answers the COMMIT with a rollback: that is an error here.
        let committed = pipelined(&this.conn, &mut this.begin, &mut this.unsent, async {
            let announce = async {
                match &notify {
                    Some((stmt, payload)) => client.execute(stmt, &[payload]).await.map(drop),
                    None => Ok(()),
                }
            };
            let (announced, committed) =
                futures_util::future::join(announce, client.batch_execute("COMMIT")).await;
            announced.and(committed)
        });
        committed.map_err(|e| {
            let e = StoreError::from(e);
            match e {
                StoreError::Conflict(_) => e,
                _ => StoreError::Failed(format!("not committed: {e}")),
            }
        })
    }

    /// The metrics count what [`crate::wakeups::RecordingTx`] noted; the store keeps nothing.
    fn note(&mut self, event: crate::store::Event) {
        let _ = event;
    }

    fn announce(&mut self, what: &str) -> StoreResult<()> {
        let what = if what.len() > listen::MAX_PAYLOAD {
            "*"
        } else {
            what
        };
        self.announcements.push(format!("{} {what}", self.instance));
        Ok(())
    }

    fn admin_token_hash(&mut self) -> StoreResult<Option<String>> {
        let rows = self.rows("SELECT value FROM meta WHERE key = 'admin_token_hash'", &[])?;
        Ok(rows.first().map(|r| r.get(0)))
    }

    fn set_admin_token_hash(&mut self, hash: &str) -> StoreResult<()> {
        self.exec(
            "INSERT INTO meta (key, value) VALUES ('admin_token_hash', $1)
             ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            &[&hash],
        )?;
        Ok(())
    }

    fn login(&mut self, id_hash: &str) -> StoreResult<Option<Login>> {
        self.one("SELECT data FROM logins WHERE id_hash = $1", &[&id_hash])
    }

    fn put_login(&mut self, l: &Login) -> StoreResult<()> {
        self.exec(
            "INSERT INTO logins (id_hash, expires_at, who, data) VALUES ($1, $2, $3, $4)
             ON CONFLICT (id_hash) DO UPDATE SET expires_at = EXCLUDED.expires_at,
               who = EXCLUDED.who, data = EXCLUDED.data",
            &[&l.id_hash, &l.expires_at, &l.who, &to_json(l)?],
        )?;
        Ok(())
    }

    fn delete_login(&mut self, id_hash: &str) -> StoreResult<()> {
        self.exec("DELETE FROM logins WHERE id_hash = $1", &[&id_hash])?;
        Ok(())
    }

    fn end_logins(&mut self, expiring_before: Millis) -> StoreResult<u64> {
        self.exec(
            "DELETE FROM logins WHERE expires_at < $1",
            &[&expiring_before],
        )
    }

    fn end_logins_of(&mut self, who: &str) -> StoreResult<u64> {
        self.exec("DELETE FROM logins WHERE who = $1", &[&who])
    }

    fn user(&mut self, name: &str) -> StoreResult<Option<User>> {
        self.one("SELECT data FROM users WHERE name = $1", &[&name])
    }

    fn user_by_token_hash(&mut self, hash: &str) -> StoreResult<Option<User>> {
        self.one("SELECT data FROM users WHERE token_hash = $1", &[&hash])
    }

    fn token_owner(&mut self, hash: &str) -> StoreResult<Option<TokenOwner>> {
        let rows = self.rows(
            "SELECT NULL::text FROM meta WHERE key = 'admin_token_hash' AND value = $1
             UNION ALL SELECT data FROM users WHERE token_hash = $1 LIMIT 1",
            &[&hash],
        )?;
        Ok(match rows.first().map(|r| r.get::<_, Option<&str>>(0)) {
            None => None,
            Some(None) => Some(TokenOwner::BuiltInAdmin),
            Some(Some(data)) => Some(TokenOwner::Person(serde_json::from_str(data)?)),
        })
    }

    fn add_user(&mut self, u: &User) -> StoreResult<()> {
        self.exec(
            "INSERT INTO users (name, token_hash, data) VALUES ($1, $2, $3)",
            &[&u.name, &u.token_hash, &to_json(u)?],
        )?;
        Ok(())
    }

    fn update_user(&mut self, u: &User) -> StoreResult<()> {
        // READ COMMITTED: an UPDATE that meets a row another transaction deleted changes
        // nothing, so a person removed meanwhile is not brought back with a new token.
        let changed = self.exec(
            "UPDATE users SET token_hash = $2, data = $3 WHERE name = $1",
            &[&u.name, &u.token_hash, &to_json(u)?],
        )?;
        if changed == 0 {
            return Err(StoreError::NotFound(format!("user {}", u.name)));
        }
        Ok(())
    }

    fn delete_user(&mut self, name: &str) -> StoreResult<()> {
        self.exec("DELETE FROM users WHERE name = $1", &[&name])?;
        Ok(())
    }

    fn users(&mut self) -> StoreResult<Vec<User>> {
        self.many("SELECT data FROM users ORDER BY name", &[])
    }

    fn put_sign_in(&mut self, sign_in: &SignIn, now: Millis) -> StoreResult<()> {
        self.exec("DELETE FROM sign_ins WHERE expires_at < $1", &[&now])?;
        self.exec(
            "INSERT INTO sign_ins (state_hash, expires_at, data) VALUES ($1, $2, $3)
             ON CONFLICT (state_hash) DO UPDATE SET expires_at = EXCLUDED.expires_at,
               data = EXCLUDED.data",
            &[&sign_in.state_hash, &sign_in.expires_at, &to_json(sign_in)?],
        )?;
        Ok(())
    }

    fn take_sign_in(&mut self, state_hash: &str) -> StoreResult<Option<SignIn>> {
        self.one(
            "DELETE FROM sign_ins WHERE state_hash = $1 RETURNING data",
            &[&state_hash],
        )
    }

    fn webhook(&mut self, name: &str) -> StoreResult<Option<Webhook>> {
        self.one("SELECT data FROM webhooks WHERE name = $1", &[&name])
    }

    fn put_webhook(&mut self, w: &Webhook) -> StoreResult<()> {
        self.exec(
            "INSERT INTO webhooks (name, data) VALUES ($1, $2)
             ON CONFLICT (name) DO UPDATE SET data = EXCLUDED.data",
            &[&w.name, &to_json(w)?],
        )?;
        Ok(())
    }

    fn delete_webhook(&mut self, name: &str) -> StoreResult<()> {
        self.exec("DELETE FROM webhooks WHERE name = $1", &[&name])?;
        self.exec(
            "DELETE FROM webhook_deliveries WHERE webhook = $1 AND state = 'pending'",
            &[&name],
        )?;
        Ok(())
    }

    fn webhooks(&mut self) -> StoreResult<Vec<Webhook>> {
        self.many("SELECT data FROM webhooks ORDER BY name", &[])
    }

    fn add_delivery(&mut self, d: &mut Delivery) -> StoreResult<bool> {
        let rows = self.rows(
            "INSERT INTO webhook_deliveries (webhook, key, state, next_at, data)
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (webhook, key) DO NOTHING RETURNING id",
            &[
                &d.webhook,
                &d.key,
                &d.state.as_str(),
                &d.next_at,
                &to_json(d)?,
            ],
        )?;
        match rows.first() {
            Some(row) => {
                d.id = row.get(0);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn has_delivery(&mut self, webhook: &str, key: &str) -> StoreResult<bool> {
        let rows = self.rows(
            "SELECT 1 FROM webhook_deliveries WHERE webhook = $1 AND key = $2",
            &[&webhook, &key],
        )?;
        Ok(!rows.is_empty())
    }

    fn put_delivery(&mut self, d: &Delivery) -> StoreResult<()> {
        self.exec(
            "UPDATE webhook_deliveries SET state = $2, next_at = $3, data = $4 WHERE id = $1",
            &[&d.id, &d.state.as_str(), &d.next_at, &to_json(d)?],
        )?;
        Ok(())
    }

    fn due_deliveries(&mut self, now: Millis, limit: usize) -> StoreResult<Vec<Delivery>> {
        let limit = limit as i64;
        let rows = self.rows(
            "SELECT id, data FROM webhook_deliveries WHERE state = 'pending' AND next_at <= $1
             ORDER BY next_at LIMIT $2",
            &[&now, &limit],
        )?;
        deliveries_of(rows)
    }

    fn forget_webhook_deliveries(&mut self, before: Millis) -> StoreResult<usize> {
        // `next_at` of a delivery that is over: its last attempt's claim.
        Ok(self.exec(
            "DELETE FROM webhook_deliveries WHERE state IN ('delivered', 'failed') AND next_at < $1",
            &[&before],
        )? as usize)
    }

    fn deliveries(
        &mut self,
        webhook: &str,
        before: Option<i64>,
        limit: usize,
    ) -> StoreResult<Vec<Delivery>> {
        let (before, limit) = (before.unwrap_or(i64::MAX), limit as i64);
        let rows = self.rows(
            "SELECT id, data FROM webhook_deliveries WHERE webhook = $1 AND id < $2
             ORDER BY id DESC LIMIT $3",
            &[&webhook, &before, &limit],
        )?;
        deliveries_of(rows)
    }

    fn add_audit(&mut self, e: &mut AuditEntry) -> StoreResult<()> {
        e.seq = self.int(
            "INSERT INTO audit (actor, action, session_id, data) VALUES ($1, $2, $3, $4)
             RETURNING seq",
            &[&e.actor, &e.action.as_str(), &e.session_id, &to_json(e)?],
        )?;
        Ok(())
    }

    fn audit_page(&mut self, page: &super::AuditPage) -> StoreResult<Vec<AuditEntry>> {
        let filters = page.filters();
        let sql = interned(
            &filters,
            |sql, i, column| sql.push_str(&format!("{column} = ${} AND ", i + 3)),
            "SELECT seq, data FROM audit WHERE ",
            "seq < $1 ORDER BY seq DESC LIMIT $2",
        );
        let before = page.before.unwrap_or(i64::MAX);
        let limit = i64::from(page.limit);
        let mut params: Vec<&(dyn ToSql + Sync)> = vec![&before, &limit];
        params.extend(filters.iter().map(|(_, v)| v as &(dyn ToSql + Sync)));
        let rows = self.rows(sql, &params)?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let mut entry: AuditEntry = serde_json::from_str(row.get::<_, &str>(1))?;
            entry.seq = row.get(0);
            out.push(entry);
        }
        Ok(out)
    }

    fn agent(&mut self, name: &str) -> StoreResult<Option<Agent>> {
        self.one("SELECT data FROM agents WHERE name = $1", &[&name])
    }

    fn put_agent(&mut self, a: &Agent) -> StoreResult<()> {
        self.exec(
            "INSERT INTO agents (name, inactivity_ms, timeout_ms, silent_turn_ms, data)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (name) DO UPDATE SET inactivity_ms = EXCLUDED.inactivity_ms,
               timeout_ms = EXCLUDED.timeout_ms, silent_turn_ms = EXCLUDED.silent_turn_ms,
               data = EXCLUDED.data",
            &[
                &a.name,
                &a.settings.inactivity_ms,
                &a.settings.timeout_ms,
                &a.settings.silent_turn_ms,
                &to_json(a)?,
            ],
        )?;
        Ok(())
    }

    fn agents(&mut self) -> StoreResult<Vec<Agent>> {
        self.many("SELECT data FROM agents ORDER BY name", &[])
    }

    fn runner(&mut self, id: &str) -> StoreResult<Option<Runner>> {
        self.one("SELECT data FROM runners WHERE id = $1", &[&id])
    }

    fn runner_by_name(&mut self, name: &str) -> StoreResult<Option<Runner>> {
        self.one("SELECT data FROM runners WHERE name = $1", &[&name])
    }

    fn runner_by_token_hash(&mut self, hash: &str) -> StoreResult<Option<Runner>> {
        self.one("SELECT data FROM runners WHERE token_hash = $1", &[&hash])
    }

    fn put_runner(&mut self, r: &Runner) -> StoreResult<()> {
        self.exec(
            "INSERT INTO runners (id, name, token_hash, data) VALUES ($1, $2, $3, $4)
             ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name,
               token_hash = EXCLUDED.token_hash, data = EXCLUDED.data",
            &[&r.id, &r.name, &r.token_hash, &to_json(r)?],
        )?;
        Ok(())
    }

    fn runners(&mut self) -> StoreResult<Vec<Runner>> {
        self.many("SELECT data FROM runners ORDER BY name", &[])
    }

    fn connection(&mut self, runner_id: &str, instance: &str) -> StoreResult<Option<Connection>> {
        self.one(
            "SELECT data FROM connections WHERE runner_id = $1 AND instance = $2",
            &[&runner_id, &instance],
        )
    }

    fn put_connection(&mut self, c: &Connection) -> StoreResult<()> {
        self.exec(
            "INSERT INTO connections (runner_id, instance, data, last_seen) VALUES ($1, $2, $3, $4)
             ON CONFLICT (runner_id, instance)
             DO UPDATE SET data = EXCLUDED.data, last_seen = EXCLUDED.last_seen",
            &[&c.runner_id, &c.instance, &to_json(c)?, &c.last_seen],
        )?;
        Ok(())
    }

    fn connections(&mut self, seen_since: Millis) -> StoreResult<Vec<Connection>> {
        self.many(
            "SELECT data FROM connections WHERE last_seen >= $1 ORDER BY runner_id, instance",
            &[&seen_since],
        )
    }

    fn forget_connections(&mut self, seen_before: Millis) -> StoreResult<usize> {
        Ok(self.exec(
            "DELETE FROM connections WHERE last_seen < $1",
            &[&seen_before],
        )? as usize)
    }

    fn live_runs_of_instance(&mut self, runner_id: &str, instance: &str) -> StoreResult<usize> {
        Ok(self.int(
            "SELECT COUNT(*) FROM runs WHERE runner_id = $1 AND instance = $2
               AND status IN ('accepted', 'running')",
            &[&runner_id, &instance],
        )? as usize)
    }

    fn read_session(&mut self, id: &str) -> StoreResult<Option<Session>> {
        self.one("SELECT data FROM sessions WHERE id = $1", &[&id])
    }

    fn census(&mut self) -> StoreResult<Census> {
        let counts = |rows: Vec<Row>| -> Vec<(String, u64)> {
            rows.iter()
                .map(|r| (r.get::<_, String>(0), r.get::<_, i64>(1) as u64))
                .collect()
        };
        let sessions = counts(self.rows(
            "SELECT state, COUNT(*) FROM sessions GROUP BY state ORDER BY state",
            &[],
        )?);
        let environments = counts(self.rows(
            "SELECT state, COUNT(*) FROM environments GROUP BY state ORDER BY state",
            &[],
        )?);
        let runs = self
            .rows(
                "SELECT status, COUNT(*), MIN(created_at) FROM runs
                  WHERE status IN ('offered', 'accepted', 'running') GROUP BY status ORDER BY status",
                &[],
            )?
            .iter()
            .map(|r| (r.get::<_, String>(0), r.get::<_, i64>(1) as u64, r.get(2)))
            .collect();
        Ok(Census {
            sessions,
            environments,
            runs,
        })
    }

    fn session(&mut self, id: &str) -> StoreResult<Option<Session>> {
        if let Some(data) = self.locked.get(id) {
            return Ok(Some(serde_json::from_str(data)?));
        }
        // The row lock is what keeps one session's transitions apart across instances.
        let sql = if self.locking {
            "SELECT data FROM sessions WHERE id = $1 FOR UPDATE"
        } else {
            "SELECT data FROM sessions WHERE id = $1"
        };
        let data: Option<String> = self.rows(sql, &[&id])?.first().map(|r| r.get(0));
        if self.locking
            && let Some(data) = &data
        {
            self.locked.insert(id.to_string(), data.clone());
        }
        Ok(data.map(|d| serde_json::from_str(&d)).transpose()?)
    }

    fn put_session(&mut self, s: &Session) -> StoreResult<()> {
        let data = to_json(s)?;
        if let Some(known) = self.locked.get_mut(&s.id) {
            known.clone_from(&data);
        }
        self.defer(
            "INSERT INTO sessions (id, agent, state, created_at, last_activity, open_turns,
               run_serving, expires_at, data, ended_at, pruned_at, started_by)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
             ON CONFLICT (id) DO UPDATE SET agent = EXCLUDED.agent, state = EXCLUDED.state,
               created_at = EXCLUDED.created_at, last_activity = EXCLUDED.last_activity,
               open_turns = EXCLUDED.open_turns, run_serving = EXCLUDED.run_serving,
               expires_at = EXCLUDED.expires_at, data = EXCLUDED.data,
               ended_at = EXCLUDED.ended_at, pruned_at = EXCLUDED.pruned_at,
               started_by = EXCLUDED.started_by",
            owned_params![
                s.id.clone(),
                s.agent.clone(),
                s.state.as_str(),
                s.created_at,
                s.last_activity,
                s.open_turns as i64,
                s.run_serving,
                s.expires_at,
                data,
                s.ended_at.filter(|_| s.state.is_ended()),
                s.pruned_at,
                s.started_by.clone(),
            ],
        )
    }

    fn sessions(&mut self) -> StoreResult<Vec<Session>> {
        self.many(
            "SELECT data FROM sessions ORDER BY created_at DESC, id DESC",
            &[],
        )
    }

    fn sessions_page(&mut self, page: &super::SessionPage) -> StoreResult<Vec<Session>> {
        // One statement per set of filters, so that each walks its own index in the list's order.
        let (after_at, after_id) = page.after.clone().unwrap_or((Millis::MAX, String::new()));
        let limit = i64::from(page.limit);
        let filters = page.filters();
        let sql = interned(
            &filters,
            |sql, i, column| sql.push_str(&format!("{column} = ${} AND ", i + 4)),
            "SELECT data FROM sessions WHERE ",
            "(created_at, id) < ($1, $2) ORDER BY created_at DESC, id DESC LIMIT $3",
        );
        let mut params: Vec<&(dyn ToSql + Sync)> = vec![&after_at, &after_id, &limit];
        params.extend(filters.iter().map(|(_, v)| v as &(dyn ToSql + Sync)));
        self.many(sql, &params)
    }

    fn due_sessions(&mut self, now: Millis, l: &DueLimits) -> StoreResult<Vec<String>> {
        // `at <= now - limit`, never `at + limit <= now`: a limit may be i64::MAX ("never"),
        // and PostgreSQL fails a whole query on an overflowing sum (SQLite turns it to a float).
        self.ids(
            "SELECT s.id FROM agents a JOIN sessions s ON s.agent = a.name
               WHERE s.state = 'active' AND s.run_serving AND s.open_turns = 0
                 AND s.last_activity <= $1 - a.inactivity_ms
             UNION
             SELECT id FROM sessions WHERE state = 'paused' AND expires_at <= $1
             UNION
             SELECT session_id FROM runs WHERE status IN ('accepted', 'running')
               AND first_contact_at IS NULL AND accepted_at <= $1 - $2
             UNION
             SELECT session_id FROM runs WHERE status IN ('accepted', 'running')
               AND last_contact_at <= $1 - $3
             UNION
             SELECT session_id FROM runs WHERE status IN ('accepted', 'running')
               AND stop_issued_at <= $1 - $4
             UNION
             SELECT r.session_id FROM runs r JOIN sessions s ON s.id = r.session_id
                                             JOIN agents a ON a.name = s.agent
               WHERE r.status IN ('accepted', 'running') AND r.kind != 'teardown'
                 AND r.stop_issued_at IS NULL
                 AND r.accepted_at <= $1 - (SELECT COALESCE(MIN(timeout_ms), 0) FROM agents)
                 AND r.accepted_at <= $1 - a.timeout_ms
             UNION
             SELECT s.id FROM agents a JOIN sessions s ON s.agent = a.name
               WHERE s.state = 'active' AND s.open_turns > 0
                 AND s.last_activity <= $1 - a.silent_turn_ms
             UNION
             SELECT session_id FROM environments
               WHERE state = 'tearing_down' AND next_teardown_at <= $1
             ORDER BY 1",
            &[
                &now,
                &l.connect_timeout_ms,
                &l.heartbeat_timeout_ms,
                &l.stop_grace_ms,
            ],
        )
    }

    fn oldest(&mut self) -> StoreResult<Oldest> {
        let by_agent = self.rows(
            "SELECT a.inactivity_ms, (SELECT MIN(s.last_activity) FROM sessions s
               WHERE s.agent = a.name AND s.state = 'active' AND s.run_serving
                 AND s.open_turns = 0)
             FROM agents a",
            &[],
        )?;
        let idle_at = Oldest::first_idle(by_agent.iter().map(|r| (r.get(0), r.get(1))));
        let rows = self.rows(
            "SELECT
               (SELECT MIN(expires_at) FROM sessions WHERE state = 'paused'),
               (SELECT MIN(accepted_at) FROM runs
                 WHERE status IN ('accepted', 'running') AND first_contact_at IS NULL),
               (SELECT MIN(last_contact_at) FROM runs WHERE status IN ('accepted', 'running')),
               (SELECT MIN(stop_issued_at) FROM runs WHERE status IN ('accepted', 'running')),
               (SELECT MIN(next_teardown_at) FROM environments WHERE state = 'tearing_down')",
            &[],
        )?;
        let r = &rows[0];
        Ok(Oldest {
            idle_at,
            expires_at: r.get(0),
            unconnected_since: r.get(1),
            silent_since: r.get(2),
            stopping_since: r.get(3),
            teardown_at: r.get(4),
        })
    }

    fn run(&mut self, id: &str) -> StoreResult<Option<Run>> {
        self.owned(
            "SELECT id, data FROM sessions
              WHERE id = (SELECT session_id FROM runs WHERE id = $1) FOR UPDATE",
            "SELECT data FROM runs WHERE id = $1",
            &[&id],
        )
    }

    fn put_run(&mut self, r: &Run) -> StoreResult<()> {
        self.defer(
            "INSERT INTO runs (id, session_id, kind, status, created_at, accepted_at,
               first_contact_at, last_contact_at, stop_issued_at, data, runner_id, instance,
               reserved_for, reserved_until)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
             ON CONFLICT (id) DO UPDATE SET session_id = EXCLUDED.session_id,
               kind = EXCLUDED.kind, status = EXCLUDED.status, created_at = EXCLUDED.created_at,
               accepted_at = EXCLUDED.accepted_at, first_contact_at = EXCLUDED.first_contact_at,
               last_contact_at = EXCLUDED.last_contact_at,
               stop_issued_at = EXCLUDED.stop_issued_at, data = EXCLUDED.data,
               runner_id = EXCLUDED.runner_id, instance = EXCLUDED.instance,
               reserved_for = EXCLUDED.reserved_for, reserved_until = EXCLUDED.reserved_until",
            owned_params![
                r.id.clone(),
                r.session_id.clone(),
                r.kind.as_str(),
                r.status.as_str(),
                r.created_at,
                r.accepted_at,
                r.first_contact_at,
                r.last_contact_at,
                r.stop_issued_at,
                to_json(r)?,
                r.runner_id.clone(),
                r.instance.clone(),
                r.reserved_for.clone(),
                r.reserved_until,
            ],
        )
    }

    fn reserve_offer(&mut self, before: &Run, r: &Run) -> StoreResult<bool> {
        // Written without the session's lock (offers lock nothing), so only while the run is
        // still offered and still reserved as it was read: a reservation never undoes an
        // accept or a withdrawal, and two instances polling at once do not both get the run.
        let n = self.exec(
            "UPDATE runs SET data = $2, reserved_for = $3, reserved_until = $4
               WHERE id = $1 AND status = 'offered'
                 AND reserved_for IS NOT DISTINCT FROM $5
                 AND reserved_until IS NOT DISTINCT FROM $6",
            &[
                &r.id,
                &to_json(r)?,
                &r.reserved_for,
                &r.reserved_until,
                &before.reserved_for,
                &before.reserved_until,
            ],
        )?;
        Ok(n == 1)
    }

    fn runs_of_session(&mut self, session_id: &str) -> StoreResult<Vec<Run>> {
        self.many(
            "SELECT data FROM runs WHERE session_id = $1 ORDER BY created_at, n",
            &[&session_id],
        )
    }

    fn offerable_runs(&mut self, instance: &str, now: Millis) -> StoreResult<Vec<Run>> {
        self.many(
            "SELECT data FROM runs WHERE status = 'offered'
               AND (reserved_until IS NULL OR reserved_until <= $2 OR reserved_for = $1)
             ORDER BY created_at, n",
            &[&instance, &now],
        )
    }

    fn offered_runs(&mut self) -> StoreResult<Vec<Run>> {
        self.many(
            "SELECT data FROM runs WHERE status = 'offered' ORDER BY created_at, n",
            &[],
        )
    }

    fn read_environment(&mut self, id: &str) -> StoreResult<Option<Environment>> {
        self.one("SELECT data FROM environments WHERE id = $1", &[&id])
    }

    fn environment(&mut self, id: &str) -> StoreResult<Option<Environment>> {
        self.owned(
            "SELECT id, data FROM sessions
              WHERE id = (SELECT session_id FROM environments WHERE id = $1) FOR UPDATE",
            "SELECT data FROM environments WHERE id = $1",
            &[&id],
        )
    }

    fn put_environment(&mut self, e: &Environment) -> StoreResult<()> {
        self.exec(
            "INSERT INTO environments (id, session_id, state, next_teardown_at, data)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (id) DO UPDATE SET session_id = EXCLUDED.session_id,
               state = EXCLUDED.state, next_teardown_at = EXCLUDED.next_teardown_at,
               data = EXCLUDED.data",
            &[
                &e.id,
                &e.session_id,
                &e.state.as_str(),
                &e.next_teardown_at,
                &to_json(e)?,
            ],
        )?;
        Ok(())
    }

    fn environments_in(&mut self, state: EnvironmentState) -> StoreResult<Vec<Environment>> {
        self.many(
            "SELECT data FROM environments WHERE state = $1 ORDER BY n",
            &[&state.as_str()],
        )
    }

    fn add_directive(
        &mut self,
        run_id: &str,
        body: &DirectiveBody,
        now: Millis,
    ) -> StoreResult<i64> {
        let seq = self.int(
            "SELECT COALESCE(MAX(seq), 0) + 1 FROM directives WHERE run_id = $1",
            &[&run_id],
        )?;
        self.put_directive(&Directive {
            run_id: run_id.to_string(),
            seq,
            body: body.clone(),
            created_at: now,
            delivered_at: None,
        })?;
        Ok(seq)
    }

    fn directives_after(&mut self, run_id: &str, after: i64) -> StoreResult<Vec<Directive>> {
        self.many(
            "SELECT data FROM directives WHERE run_id = $1 AND seq > $2 ORDER BY seq",
            &[&run_id, &after],
        )
    }

    fn put_directive(&mut self, d: &Directive) -> StoreResult<()> {
        self.exec(
            "INSERT INTO directives (run_id, seq, data) VALUES ($1, $2, $3)
             ON CONFLICT (run_id, seq) DO UPDATE SET data = EXCLUDED.data",
            &[&d.run_id, &d.seq, &to_json(d)?],
        )?;
        Ok(())
    }

    fn delete_directive(&mut self, run_id: &str, seq: i64) -> StoreResult<()> {
        self.exec(
            "DELETE FROM directives WHERE run_id = $1 AND seq = $2",
            &[&run_id, &seq],
        )?;
        Ok(())
    }

    fn report(&mut self, run_id: &str, report_id: &str) -> StoreResult<Option<String>> {
        let rows = self.rows(
            "SELECT kind FROM reports WHERE run_id = $1 AND report_id = $2",
            &[&run_id, &report_id],
        )?;
        Ok(rows.first().map(|r| r.get(0)))
    }

    fn add_report(
        &mut self,
        run_id: &str,
        report_id: &str,
        kind: &str,
        now: Millis,
    ) -> StoreResult<()> {
        self.exec(
            "INSERT INTO reports (run_id, report_id, kind, at) VALUES ($1, $2, $3, $4)",
            &[&run_id, &report_id, &kind, &now],
        )?;
        Ok(())
    }

    fn run_transcript_entry(
        &mut self,
        run_id: &str,
        seq: i64,
    ) -> StoreResult<Option<TranscriptEntry>> {
        self.one(
            "SELECT data FROM transcript WHERE run_id = $1 AND seq = $2",
            &[&run_id, &seq],
        )
    }

    fn run_last_seq(&mut self, run_id: &str) -> StoreResult<i64> {
        // The session's last index comes along: a report appends next (one round trip fewer).
        let rows = self.rows(
            "SELECT COALESCE((SELECT MAX(seq) FROM transcript
                               WHERE run_id = $1 AND seq IS NOT NULL), 0),
                    r.session_id,
                    COALESCE((SELECT MAX(idx) FROM transcript WHERE session_id = r.session_id), 0)
               FROM runs r WHERE r.id = $1",
            &[&run_id],
        )?;
        let Some(row) = rows.first() else {
            return Ok(0);
        };
        let session: String = row.get(1);
        if self.locked.contains_key(&session) {
            self.last_index.insert(session, row.get(2));
        }
        Ok(row.get(0))
    }

    fn append_transcript(&mut self, e: &mut TranscriptEntry) -> StoreResult<()> {
        e.index = self.transcript_end(&e.session_id)? + 1;
        self.exec(
            "INSERT INTO transcript (session_id, idx, run_id, seq, data) VALUES ($1, $2, $3, $4, $5)",
            &[&e.session_id, &e.index, &e.run_id, &e.seq, &to_json(e)?],
        )?;
        self.appended(&e.session_id, e.index);
        Ok(())
    }

    fn append_transcript_all(&mut self, entries: &mut [TranscriptEntry]) -> StoreResult<()> {
        // Every row in one statement (one per entry each cost a round trip), sent with the
        // next; the last index is known already when the report read its run's last number.
        let Some(first) = entries.first() else {
            return Ok(());
        };
        let session_id = first.session_id.clone();
        let last = self.transcript_end(&session_id)?;
        let (mut idx, mut run_ids, mut seqs, mut data) = (vec![], vec![], vec![], vec![]);
        if let Some(other) = entries.iter().find(|e| e.session_id != session_id) {
            return Err(StoreError::Failed(format!(
                "entries of sessions {session_id} and {} appended together",
                other.session_id
            )));
        }
        for (i, e) in entries.iter_mut().enumerate() {
            e.index = last + 1 + i as i64;
            idx.push(e.index);
            run_ids.push(e.run_id.clone());
            seqs.push(e.seq);
            data.push(to_json(e)?);
        }
        self.defer(
            "INSERT INTO transcript (session_id, idx, run_id, seq, data)
             SELECT $1, t.idx, t.run_id, t.seq, t.data
               FROM UNNEST($2::bigint[], $3::text[], $4::bigint[], $5::text[])
                    AS t(idx, run_id, seq, data)",
            owned_params![session_id.clone(), idx, run_ids, seqs, data],
        )?;
        self.appended(&session_id, last + entries.len() as i64);
        Ok(())
    }

    fn last_transcript_index(&mut self, session_id: &str) -> StoreResult<i64> {
        self.int(
            "SELECT COALESCE(MAX(idx), 0) FROM transcript WHERE session_id = $1",
            &[&session_id],
        )
    }

    fn transcript(
        &mut self,
        session_id: &str,
        after: i64,
        limit: usize,
    ) -> StoreResult<Vec<TranscriptEntry>> {
        self.many(
            "SELECT data FROM transcript WHERE session_id = $1 AND idx > $2 ORDER BY idx LIMIT $3",
            &[&session_id, &after, &(limit as i64)],
        )
    }

    fn sessions_to_prune(
        &mut self,
        ended_before: Millis,
        limit: usize,
    ) -> StoreResult<Vec<String>> {
        self.ids(
            "SELECT s.id FROM sessions s
               WHERE s.pruned_at IS NULL AND s.ended_at <= $1
                 AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.session_id = s.id
                                   AND r.status IN ('offered', 'accepted', 'running'))
               ORDER BY s.ended_at, s.id LIMIT $2",
            &[&ended_before, &(limit as i64)],
        )
    }

    fn prune_session_records(&mut self, session_id: &str, limit: usize) -> StoreResult<usize> {
        self.last_index.remove(session_id);
        // Each statement deletes at most what is left of the batch: one transaction never
        // holds its locks for a long delete.
        let mut left = limit as i64;
        for sql in [
            "DELETE FROM transcript WHERE (session_id, idx) IN
               (SELECT session_id, idx FROM transcript WHERE session_id = $1 LIMIT $2)",
            "DELETE FROM directives WHERE (run_id, seq) IN
               (SELECT d.run_id, d.seq FROM directives d JOIN runs r ON r.id = d.run_id
                 WHERE r.session_id = $1 LIMIT $2)",
            "DELETE FROM reports WHERE (run_id, report_id) IN
               (SELECT p.run_id, p.report_id FROM reports p JOIN runs r ON r.id = p.run_id
                 WHERE r.session_id = $1 LIMIT $2)",
        ] {
            if left == 0 {
                break;
            }
            left -= self.exec(sql, &[&session_id, &left])? as i64;
        }
        Ok(limit - left as usize)
    }

    fn message(&mut self, id: &str) -> StoreResult<Option<Message>> {
        self.owned(
            "SELECT id, data FROM sessions
              WHERE id = (SELECT session_id FROM messages WHERE id = $1) FOR UPDATE",
            "SELECT data FROM messages WHERE id = $1",
            &[&id],
        )
    }

    fn put_message(&mut self, m: &Message) -> StoreResult<()> {
        self.exec(
            "INSERT INTO messages (id, session_id, state, created_at, data) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (id) DO UPDATE SET session_id = EXCLUDED.session_id,
               state = EXCLUDED.state, created_at = EXCLUDED.created_at, data = EXCLUDED.data",
            &[
                &m.id,
                &m.session_id,
                &m.state.as_str(),
                &m.created_at,
                &to_json(m)?,
            ],
        )?;
        Ok(())
    }

    fn messages(&mut self, session_id: &str, state: MessageState) -> StoreResult<Vec<Message>> {
        self.many(
            "SELECT data FROM messages WHERE session_id = $1 AND state = $2 ORDER BY created_at, n",
            &[&session_id, &state.as_str()],
        )
    }

    fn plug_records(&mut self, session_id: &str) -> StoreResult<Vec<PlugRecord>> {
        self.many(
            "SELECT data FROM plug_records WHERE session_id = $1 ORDER BY plug_id",
            &[&session_id],
        )
    }

    fn all_plug_records(&mut self) -> StoreResult<Vec<PlugRecord>> {
        self.many(
            "SELECT data FROM plug_records ORDER BY session_id, plug_id",
            &[],
        )
    }

    fn put_plug_record(&mut self, p: &PlugRecord) -> StoreResult<()> {
        self.exec(
            "INSERT INTO plug_records (session_id, plug_id, data) VALUES ($1, $2, $3)
             ON CONFLICT (session_id, plug_id) DO UPDATE SET data = EXCLUDED.data",
            &[&p.session_id, &p.plug_id, &to_json(p)?],
        )?;
        Ok(())
    }

    fn delete_plug_record(&mut self, session_id: &str, plug_id: &str) -> StoreResult<()> {
        self.exec(
            "DELETE FROM plug_records WHERE session_id = $1 AND plug_id = $2",
            &[&session_id, &plug_id],
        )?;
        Ok(())
    }

    fn permission(
        &mut self,
        run_id: &str,
        request_id: &str,
    ) -> StoreResult<Option<PermissionRequest>> {
        self.owned(
            "SELECT id, data FROM sessions
              WHERE id = (SELECT session_id FROM permissions
                           WHERE run_id = $1 AND request_id = $2) FOR UPDATE",
            "SELECT data FROM permissions WHERE run_id = $1 AND request_id = $2",
            &[&run_id, &request_id],
        )
    }

    fn put_permission(&mut self, p: &PermissionRequest) -> StoreResult<()> {
        self.exec(
            "INSERT INTO permissions (run_id, request_id, session_id, created_at, data, pending)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (run_id, request_id) DO UPDATE SET session_id = EXCLUDED.session_id,
               created_at = EXCLUDED.created_at, data = EXCLUDED.data,
               pending = EXCLUDED.pending",
            &[
                &p.run_id,
                &p.request_id,
                &p.session_id,
                &p.created_at,
                &to_json(p)?,
                &(p.state == PermissionState::Pending),
            ],
        )?;
        Ok(())
    }

    fn pending_permissions(&mut self) -> StoreResult<Vec<PermissionRequest>> {
        self.many(
            "SELECT data FROM permissions WHERE pending ORDER BY created_at, n",
            &[],
        )
    }

    fn permissions(&mut self, session_id: &str) -> StoreResult<Vec<PermissionRequest>> {
        self.many(
            "SELECT data FROM permissions WHERE session_id = $1 ORDER BY created_at, n",
            &[&session_id],
        )
    }

    fn day_usage(&mut self, who: Spender, of: &str, day: &str) -> StoreResult<DayUsage> {
        let empty = DayUsage::empty(of, day);
        // Made first if missing, so that the row exists to be locked: two instances adding to
        // one day take turns instead of one overwriting the other.
        let (make, lock) = match who {
            Spender::Agent => (
                "INSERT INTO agent_usage (agent, day, data) VALUES ($1, $2, $3)
                 ON CONFLICT (agent, day) DO NOTHING",
                "SELECT data FROM agent_usage WHERE agent = $1 AND day = $2 FOR UPDATE",
            ),
            Spender::Runner => (
                "INSERT INTO runner_usage (runner_id, day, data) VALUES ($1, $2, $3)
                 ON CONFLICT (runner_id, day) DO NOTHING",
                "SELECT data FROM runner_usage WHERE runner_id = $1 AND day = $2 FOR UPDATE",
            ),
        };
        self.exec(make, &[&of, &day, &to_json(&empty)?])?;
        let found: Option<DayUsage> = self.one(lock, &[&of, &day])?;
        Ok(found.unwrap_or(empty))
    }

    fn put_day_usage(&mut self, who: Spender, u: &DayUsage) -> StoreResult<()> {
        let sql = match who {
            Spender::Agent => {
                "INSERT INTO agent_usage (agent, day, data) VALUES ($1, $2, $3)
                 ON CONFLICT (agent, day) DO UPDATE SET data = EXCLUDED.data"
            }
            Spender::Runner => {
                "INSERT INTO runner_usage (runner_id, day, data) VALUES ($1, $2, $3)
                 ON CONFLICT (runner_id, day) DO UPDATE SET data = EXCLUDED.data"
            }
        };
        self.exec(sql, &[&u.of, &u.day, &to_json(u)?])?;
        Ok(())
    }

    fn day_usages(&mut self, who: Spender, since: &str) -> StoreResult<Vec<DayUsage>> {
        let sql = match who {
            Spender::Agent => "SELECT data FROM agent_usage WHERE day >= $1 ORDER BY agent, day",
            Spender::Runner => {
                "SELECT data FROM runner_usage WHERE day >= $1 ORDER BY runner_id, day"
            }
        };
        self.many(sql, &[&since])
    }

    fn source_thread(&mut self, source: &str, thread: &str) -> StoreResult<Option<SourceThread>> {
        self.one(
            "SELECT data FROM source_threads WHERE source = $1 AND thread = $2 FOR UPDATE",
            &[&source, &thread],
        )
    }

    fn source_thread_of_session(&mut self, session_id: &str) -> StoreResult<Option<SourceThread>> {
        self.one(
            "SELECT data FROM source_threads WHERE session_id = $1",
            &[&session_id],
        )
    }

    fn put_source_thread(&mut self, t: &SourceThread) -> StoreResult<()> {
        self.exec(
            "INSERT INTO source_threads
               (source, thread, session_id, delivered, pending, retry_at, data)
             VALUES ($1, $2, $3, $4, $5, $6, $7)
             ON CONFLICT (source, thread) DO UPDATE SET session_id = EXCLUDED.session_id,
               delivered = EXCLUDED.delivered, pending = EXCLUDED.pending,
               retry_at = EXCLUDED.retry_at, data = EXCLUDED.data",
            &[
                &t.source,
                &t.thread,
                &t.session_id,
                &t.delivered,
                &(t.outbox.len() as i64),
                &t.retry_at,
                &to_json(t)?,
            ],
        )?;
        Ok(())
    }

    fn source_threads_due(&mut self, now: Millis, limit: usize) -> StoreResult<Vec<SourceThread>> {
        self.many(
            "SELECT data FROM source_threads t
              WHERE (t.retry_at IS NULL OR t.retry_at <= $1)
                AND (t.pending > 0 OR (t.session_id IS NOT NULL AND EXISTS
                      (SELECT 1 FROM transcript x
                        WHERE x.session_id = t.session_id AND x.idx > t.delivered)))
              ORDER BY t.retry_at NULLS FIRST LIMIT $2",
            &[&now, &(limit as i64)],
        )
    }

    fn take_delivery(&mut self, source: &str, delivery: &str, now: Millis) -> StoreResult<bool> {
        Ok(self.exec(
            "INSERT INTO source_deliveries (source, delivery, at) VALUES ($1, $2, $3)
             ON CONFLICT DO NOTHING",
            &[&source, &delivery, &now],
        )? == 1)
    }

    fn forget_deliveries(&mut self, before: Millis) -> StoreResult<usize> {
        Ok(self.exec("DELETE FROM source_deliveries WHERE at < $1", &[&before])? as usize)
    }
}
