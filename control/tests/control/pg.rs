//! A real PostgreSQL for tests: Debian's `postgresql` server, started once per test process on a
//! free port of 127.0.0.1 with its own data directory, each test in a database of its own.
//!
//! The server is stopped, and its directory removed, when the test process ends however it ends:
//! a shell holds the server and waits on a pipe only this process writes to; the pipe closes
//! with the process. `BLAISE_TEST_POSTGRES` (a URL) uses a server that is already running (its
//! role must be allowed to create databases).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// A server: its address and the superuser the tests connect as.
struct PgServer {
    host: String,
    port: u16,
    user: String,
    /// `BLAISE_TEST_POSTGRES`'s password, if it has one (for `psql` and the test URLs).
    password: Option<String>,
    /// Kept open for the life of the process (see the module's note); the shell is never
    /// waited for, it ends after this process.
    _lifeline: Option<Mutex<(Child, ChildStdin)>>,
}

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
        psql_on(server().expect("a test server"), &self.name, sql).expect("running psql");
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

/// Where Debian's server programs are (`/usr/lib/postgresql/<version>/bin`), newest first.
fn bin_dir() -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path().join("bin")))
        .filter(|d| d.join("postgres").exists() && d.join("initdb").exists())
        .collect();
    dirs.sort();
    dirs.pop()
}

/// A fresh database on the test server, or `None` when this machine has no PostgreSQL (a
/// failure instead when `BLAISE_REQUIRE_TOOLS=1`, as in CI).
pub fn database() -> Option<TestDb> {
    server()?;
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let name = format!(
        "blaise_test_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    psql(&format!("CREATE DATABASE {name}")).expect("creating a test database");
    let s = server().unwrap();
    let login = match &s.password {
        Some(p) => format!("{}:{p}", s.user),
        None => s.user.clone(),
    };
    Some(TestDb {
        url: format!("postgres://{login}@{}:{}/{name}", s.host, s.port),
        name,
    })
}

/// Says why the PostgreSQL tests cannot run here, or panics if they must.
pub fn unavailable() -> String {
    let why = "no PostgreSQL server programs under /usr/lib/postgresql and no BLAISE_TEST_POSTGRES: \
               `apt-get install postgresql` (.ci/run does)";
    assert!(
        std::env::var("BLAISE_REQUIRE_TOOLS").as_deref() != Ok("1"),
        "{why}"
    );
    why.to_string()
}

fn server() -> Option<&'static PgServer> {
    static SERVER: OnceLock<Option<PgServer>> = OnceLock::new();
    SERVER
        .get_or_init(|| {
            if let Ok(url) = std::env::var("BLAISE_TEST_POSTGRES") {
                let config: tokio_postgres::Config = url.parse().expect("BLAISE_TEST_POSTGRES");
                let host = match &config.get_hosts()[0] {
                    tokio_postgres::config::Host::Tcp(h) => h.clone(),
                    tokio_postgres::config::Host::Unix(p) => p.display().to_string(),
                };
                return Some(PgServer {
                    host,
                    port: config.get_ports().first().copied().unwrap_or(5432),
                    user: config.get_user().unwrap_or("postgres").to_string(),
                    password: config
                        .get_password()
                        .map(|p| String::from_utf8_lossy(p).into_owned()),
                    _lifeline: None,
                });
            }
            Some(start(&bin_dir()?))
        })
        .as_ref()
}

fn is_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    // `/proc/self` belongs to the process's effective user.
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// `program args…` as the `postgres` user when we are root (the server refuses to run as root).
fn as_server_user(program: &Path) -> Command {
    if is_root() {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=postgres", "--regid=postgres", "--init-groups"])
            .arg(program);
        c
    } else {
        Command::new(program)
    }
}

fn start(bin: &Path) -> PgServer {
    let dir = tempfile::Builder::new()
        .prefix("blaise-test-pg")
        .tempdir()
        .unwrap()
        .keep();
    let data = dir.join("data");
    if is_root() {
        let ok = Command::new("chown")
            .args(["postgres:postgres"])
            .arg(&dir)
            .status()
            .unwrap()
            .success();
        assert!(ok, "chown of the test server's directory");
    }
    let out = as_server_user(&bin.join("initdb"))
        .args([
            "--auth=trust",
            "--username=postgres",
            "--encoding=UTF8",
            "--no-sync",
            "-D",
        ])
        .arg(&data)
        .output()
        .expect("running initdb");
    assert!(
        out.status.success(),
        "initdb failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    // The shell starts the server, waits for this process to end (its stdin closes), then stops
    // the server and removes the directory.
    let script = format!(
        r#"{setpriv}"$1/postgres" -D "$2" -p {port} -k "$3" -c listen_addresses=127.0.0.1 \
             -c fsync=off -c synchronous_commit=off -c full_page_writes=off \
             -c max_connections=400 >"$3/server.log" 2>&1 &
           read _
           kill -INT "$(head -n 1 "$2/postmaster.pid")" 2>/dev/null
           wait
           rm -rf "$3""#,
        setpriv = if is_root() {
            "setpriv --reuid=postgres --regid=postgres --init-groups "
        } else {
            ""
        },
    );
    let mut child = Command::new("sh")
        .args(["-c", &script, "pg"])
        .arg(bin)
        .arg(&data)
        .arg(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("starting postgres");
    let lifeline = child.stdin.take().unwrap();
    let server = PgServer {
        host: "127.0.0.1".into(),
        port,
        user: "postgres".into(),
        password: None,
        _lifeline: Some(Mutex::new((child, lifeline))),
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if psql_on(&server, "postgres", "SELECT 1").is_ok() {
            return server;
        }
        assert!(
            Instant::now() < deadline,
            "the test PostgreSQL did not answer within 30 s: {}",
            std::fs::read_to_string(dir.join("server.log")).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn psql(sql: &str) -> Result<(), String> {
    psql_on(server().expect("a test server"), "postgres", sql)
}

fn psql_on(s: &PgServer, database: &str, sql: &str) -> Result<(), String> {
    let psql = bin_dir()
        .map(|b| b.join("psql"))
        .unwrap_or_else(|| "psql".into());
    let mut command = Command::new(psql);
    if let Some(password) = &s.password {
        command.env("PGPASSWORD", password);
    }
    let out = command
        .args(["-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", &s.host, "-p"])
        .arg(s.port.to_string())
        .args(["-U", &s.user, "-d", database, "-c", sql])
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}
