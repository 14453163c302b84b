//! Connections to PostgreSQL: an r2d2 pool of tokio-postgres clients, each with the statements
//! it has prepared. A pooled connection's socket is driven by the thread that waits for its
//! answer ([`PgConn::drive`]), not by a task of the store's runtime: a round trip handed to
//! another thread and back cost two thread switches on top of PostgreSQL's own, and on this
//! class of machine thread switches were half of the server's time. The store's runtime keeps
//! the sockets' readiness (its I/O driver) and the connections that wait on their own (the
//! listener, the clock's lease).

use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use futures_executor::block_on;
use futures_util::future::Either;
use tokio_postgres::config::Host;
use tokio_postgres::tls::NoTlsStream;
use tokio_postgres::{Client, NoTls, Statement};

use crate::store::{StoreError, StoreResult};

/// Most connections one instance holds: a transaction holds one while it runs.
pub const POOL_SIZE: u32 = 16;
/// How long a transaction waits for a free connection before it fails.
const CHECKOUT_TIMEOUT: Duration = Duration::from_secs(10);

/// The runtime the connections' tasks run on. Shut down without waiting when dropped, so the
/// last handle may be dropped anywhere, even on a runtime's thread.
pub struct Driver(Option<tokio::runtime::Runtime>);

impl Driver {
    fn new() -> StoreResult<Self> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("blaise-postgres")
            .enable_all()
            .build()
            .map_err(|e| StoreError::Failed(format!("cannot start the postgres driver: {e}")))?;
        Ok(Driver(Some(rt)))
    }

    pub fn handle(&self) -> &tokio::runtime::Handle {
        self.0
            .as_ref()
            .expect("the driver runs until dropped")
            .handle()
    }

    /// Opens a connection whose socket the caller drives ([`PgConn::drive`]).
    pub fn open(&self, config: &tokio_postgres::Config) -> StoreResult<(Client, Connection)> {
        let config = config.clone();
        // Connected on this runtime: the socket registers with its I/O driver.
        let task = self
            .handle()
            .spawn(async move { config.connect(NoTls).await });
        match block_on(task) {
            Ok(opened) => Ok(opened?),
            Err(e) => Err(StoreError::Unavailable(format!(
                "postgres connect task: {e}"
            ))),
        }
    }

    /// Opens a connection and leaves its socket to a task of this runtime.
    pub fn connect(&self, config: &tokio_postgres::Config) -> StoreResult<Client> {
        let (client, connection) = self.open(config)?;
        self.handle().spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!("postgres connection closed: {e}");
            }
        });
        Ok(client)
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        if let Some(rt) = self.0.take() {
            rt.shutdown_background();
        }
    }
}

/// A connection's socket and protocol state: polled by whoever waits on its client.
pub type Connection = tokio_postgres::Connection<tokio_postgres::Socket, NoTlsStream>;

/// One connection and the statements it has prepared (a statement is prepared once per
/// connection, then only executed).
pub struct PgConn {
    client: Client,
    /// `None` once it ended (the server closed it, or the socket failed).
    connection: RefCell<Option<Pin<Box<Connection>>>>,
    statements: HashMap<&'static str, Statement>,
}

pub struct Manager {
    config: tokio_postgres::Config,
    driver: Arc<Driver>,
}

impl r2d2::ManageConnection for Manager {
    type Connection = PgConn;
    type Error = StoreError;

    fn connect(&self) -> Result<PgConn, StoreError> {
        let (client, connection) = self.driver.open(&self.config)?;
        Ok(PgConn {
            client,
            connection: RefCell::new(Some(Box::pin(connection))),
            statements: HashMap::new(),
        })
    }

    fn is_valid(&self, conn: &mut PgConn) -> Result<(), StoreError> {
        conn.drive(conn.client.simple_query(""))
            .map(drop)
            .map_err(StoreError::from)
    }

    fn has_broken(&self, conn: &mut PgConn) -> bool {
        conn.client.is_closed() || conn.connection.borrow().is_none()
    }
}

/// Says why the pool could not open a connection (r2d2 only says it timed out).
#[derive(Debug)]
struct LogErrors;

impl r2d2::HandleError<StoreError> for LogErrors {
    fn handle_error(&self, error: StoreError) {
        tracing::warn!("postgres: cannot open a connection: {error}");
    }
}

pub type Conn = r2d2::PooledConnection<Manager>;

impl PgConn {
    pub fn client(&self) -> &Client {
        &self.client
    }

    pub fn statement(&mut self, sql: &'static str) -> Result<Statement, tokio_postgres::Error> {
        if let Some(s) = self.statements.get(sql) {
            return Ok(s.clone());
        }
        let s = self.drive(self.client.prepare(sql))?;
        self.statements.insert(sql, s.clone());
        Ok(s)
    }

    /// Waits for `work` (requests on this connection's client) on this thread, driving the
    /// socket meanwhile: the requests are written here, and the answers read here when the
    /// store's runtime says the socket is readable. Every wait on a pooled client goes through
    /// here: a request nobody drives is never sent.
    pub fn drive<T>(&self, work: impl Future<Output = T>) -> T {
        let mut slot = self.connection.borrow_mut();
        let mut work = Box::pin(work);
        let Some(connection) = slot.as_mut() else {
            // It ended: the client answers every request with an error at once.
            return block_on(work);
        };
        // Unconstrained: on a thread of the server's runtime, tokio's budget for the task
        // would run out inside this one poll and never be given back.
        let done = block_on(tokio::task::unconstrained(async {
            match futures_util::future::select(connection.as_mut(), work.as_mut()).await {
                Either::Left((result, _)) => {
                    if let Err(e) = result {
                        tracing::debug!("postgres connection closed: {e}");
                    }
                    None
                }
                Either::Right((out, _)) => Some(out),
            }
        }));
        match done {
            Some(out) => out,
            None => {
                // The connection ended first. Dropped before the work is awaited again: that
                // closes the client, and what it waits for (a request that was never sent, or
                // an answer that will never come) fails at once instead of waiting forever.
                *slot = None;
                block_on(work)
            }
        }
    }
}

pub struct Pool {
    pool: r2d2::Pool<Manager>,
    pub config: tokio_postgres::Config,
    pub driver: Arc<Driver>,
}

impl Pool {
    /// Checks `url` and connects once (so a wrong address or password is said now, with
    /// PostgreSQL's reason); the pool opens the rest when they are needed.
    pub fn new(url: &str) -> StoreResult<Self> {
        let config: tokio_postgres::Config = url.parse().map_err(|e| {
            StoreError::Failed(format!("{} is not a PostgreSQL URL: {e}", redacted(url)))
        })?;
        let driver = Arc::new(Driver::new()?);
        let first = driver.connect(&config).map_err(|e| {
            StoreError::Unavailable(format!("cannot connect to {}: {e}", redacted(url)))
        })?;
        let manager = Manager {
            config: config.clone(),
            driver: driver.clone(),
        };
        let pool = r2d2::Pool::builder()
            .max_size(POOL_SIZE)
            .min_idle(Some(0))
            .connection_timeout(CHECKOUT_TIMEOUT)
            // A closed connection is seen by `has_broken`; a round trip per checkout is not paid.
            .test_on_check_out(false)
            .error_handler(Box::new(LogErrors))
            .build_unchecked(manager);
        drop(first);
        Ok(Pool {
            pool,
            config,
            driver,
        })
    }

    /// A connection that is not known to be closed.
    pub fn get(&self) -> StoreResult<Conn> {
        self.pool.get().map_err(|e| {
            StoreError::Failed(format!(
                "no PostgreSQL connection within {CHECKOUT_TIMEOUT:?}: {e}"
            ))
        })
    }
}

/// `url` without its password, for messages: `postgres://user@host:port/database`.
pub fn redacted(url: &str) -> String {
    let Ok(config) = url.parse::<tokio_postgres::Config>() else {
        return "the database URL".into();
    };
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .zip(config.get_ports().iter().chain(std::iter::repeat(&5432)))
        .map(|(h, p)| match h {
            Host::Tcp(name) => format!("{name}:{p}"),
            Host::Unix(path) => format!("{}:{p}", path.display()),
        })
        .collect();
    format!(
        "postgres://{}@{}/{}",
        config.get_user().unwrap_or(""),
        hosts.join(","),
        config.get_dbname().unwrap_or("")
    )
}
