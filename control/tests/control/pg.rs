//! A database of its own for each test, on the test PostgreSQL
//! (`blaise_test_support::postgres::trusting`: Debian's server started for this process, or
//! `BLAISE_TEST_POSTGRES`'s; its role must be allowed to create databases).

#![allow(dead_code)]

use blaise_test_support::postgres::{self, Server};

pub use postgres::unavailable;

/// A database of one test, dropped with it.
pub struct TestDb {
    pub url: String,
    name: String,
}

impl TestDb {
    /// Ends every connection to this database, as an administrator or a failover would.
    pub fn terminate_connections(&self) {
        psql(&format!(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{}'",
            self.name
        ))
        .expect("ending the connections");
    }

    /// Whether the database takes new connections (as during a failover or maintenance).
    pub fn allow_connections(&self, allow: bool) {
        psql(&format!(
            "ALTER DATABASE {} ALLOW_CONNECTIONS {allow}",
            self.name
        ))
        .expect("changing ALLOW_CONNECTIONS");
    }

    /// Runs `sql` in this database, as an administrator at `psql` would.
    pub fn execute(&self, sql: &str) {
        server().psql(&self.name, sql).expect("running psql");
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        let _ = psql(&format!(
            "DROP DATABASE IF EXISTS {} WITH (FORCE)",
            self.name
        ));
    }
}

/// A fresh database on the test server, or `None` when this machine has no PostgreSQL (a
/// failure instead when `BLAISE_REQUIRE_TOOLS=1`, as in CI).
pub fn database() -> Option<TestDb> {
    postgres::trusting()?;
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let name = format!(
        "blaise_test_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    psql(&format!("CREATE DATABASE {name}")).expect("creating a test database");
    Some(TestDb {
        url: server().url(&name),
        name,
    })
}

fn server() -> &'static Server {
    postgres::trusting().expect("a test server")
}

fn psql(sql: &str) -> Result<String, String> {
    server().psql("postgres", sql)
}
