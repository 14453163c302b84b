//! A real PostgreSQL for tests: Debian's `postgresql` server, started once per test process on a
//! free port of 127.0.0.1 with its own data directory.
//!
//! The server is stopped, and its directory removed, when the test process ends however it ends:
//! a shell holds the server and waits on a pipe only this process writes to; the pipe closes
//! with the process.
//!
//! Two kinds: [`trusting`] lets anyone on 127.0.0.1 in (the control plane's store tests;
//! `BLAISE_TEST_POSTGRES`, a URL, puts a server that is already running in its place), and
//! [`with_passwords`] asks every TCP login for its password (SCRAM), as a shared server would:
//! the database plug's tests, which check who may log in where.

use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// A server: its address and the superuser the tests connect as.
pub struct Server {
    pub host: String,
    pub port: u16,
    pub user: String,
    /// The superuser's password, if the server asks for one.
    pub password: Option<String>,
    /// Kept open for the life of the process (see the module's note); the shell is never
    /// waited for, it ends after this process.
    _lifeline: Option<Mutex<(Child, ChildStdin)>>,
}

/// The superuser's password of [`with_passwords`].
const SUPERUSER_PASSWORD: &str = "test-superuser-9d41c6b07e";

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

/// A server that trusts every login from 127.0.0.1, or `BLAISE_TEST_POSTGRES`'s; `None` when
/// this machine has none.
pub fn trusting() -> Option<&'static Server> {
    static SERVER: OnceLock<Option<Server>> = OnceLock::new();
    SERVER
        .get_or_init(|| {
            if let Ok(url) = std::env::var("BLAISE_TEST_POSTGRES") {
                return Some(from_url(&url));
            }
            Some(start(&bin_dir()?, None, false))
        })
        .as_ref()
}

/// A server that asks every TCP login for its password; `None` when this machine has none.
pub fn with_passwords() -> Option<&'static Server> {
    static SERVER: OnceLock<Option<Server>> = OnceLock::new();
    SERVER
        .get_or_init(|| Some(start(&bin_dir()?, Some(SUPERUSER_PASSWORD), false)))
        .as_ref()
}

/// Like [`with_passwords`], but durable as a real server is (`fsync`, full page writes and
/// synchronous commits on): for benchmarks, whose figures must hold on one.
pub fn durable_with_passwords() -> Option<&'static Server> {
    static SERVER: OnceLock<Option<Server>> = OnceLock::new();
    SERVER
        .get_or_init(|| Some(start(&bin_dir()?, Some(SUPERUSER_PASSWORD), true)))
        .as_ref()
}

fn from_url(url: &str) -> Server {
    let parsed = reqwest::Url::parse(url).expect("BLAISE_TEST_POSTGRES is a postgres:// URL");
    Server {
        host: parsed.host_str().unwrap_or("127.0.0.1").to_string(),
        port: parsed.port().unwrap_or(5432),
        user: match parsed.username() {
            "" => "postgres".to_string(),
            user => user.to_string(),
        },
        password: parsed.password().map(str::to_string),
        _lifeline: None,
    }
}

/// Where Debian's server programs are (`/usr/lib/postgresql/<version>/bin`), newest first.
pub fn bin_dir() -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path().join("bin")))
        .filter(|d| d.join("postgres").exists() && d.join("initdb").exists())
        .collect();
    dirs.sort();
    dirs.pop()
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

fn start(bin: &Path, password: Option<&str>, durable: bool) -> Server {
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
    let mut initdb = as_server_user(&bin.join("initdb"));
    initdb.args(["--username=postgres", "--encoding=UTF8", "--no-sync"]);
    match password {
        None => {
            initdb.arg("--auth=trust");
        }
        Some(password) => {
            let file = dir.join("superuser-password");
            std::fs::write(&file, password).unwrap();
            if is_root() {
                let _ = Command::new("chown")
                    .args(["postgres:postgres"])
                    .arg(&file)
                    .status();
            }
            initdb
                .args(["--auth-local=trust", "--auth-host=scram-sha-256"])
                .arg(format!("--pwfile={}", file.display()));
        }
    }
    let out = initdb
        .arg("-D")
        .arg(&data)
        .output()
        .expect("running initdb");
    assert!(
        out.status.success(),
        "initdb failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let port = crate::free_port();
    // The shell starts the server, waits for this process to end (its stdin closes), then stops
    // the server and removes the directory.
    // Tests need no durability: a crash of the machine loses a test server anyway.
    let speed = if durable {
        ""
    } else {
        "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    };
    let script = format!(
        r#"{setpriv}"$1/postgres" -D "$2" -p {port} -k "$3" -c listen_addresses=127.0.0.1 \
             {speed} -c max_connections=400 >"$3/server.log" 2>&1 &
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
    let server = Server {
        host: "127.0.0.1".into(),
        port,
        user: "postgres".into(),
        password: password.map(str::to_string),
        _lifeline: Some(Mutex::new((child, lifeline))),
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if server.psql("postgres", "SELECT 1").is_ok() {
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

impl Server {
    /// Runs `sql` on `database` as the superuser; what it printed (unaligned, tuples only),
    /// or psql's error.
    pub fn psql(&self, database: &str, sql: &str) -> Result<String, String> {
        self.psql_as(&self.user, self.password.as_deref(), database, sql)
    }

    /// Runs `sql` on `database` as `user` over TCP, as any client would.
    pub fn psql_as(
        &self,
        user: &str,
        password: Option<&str>,
        database: &str,
        sql: &str,
    ) -> Result<String, String> {
        let psql = bin_dir()
            .map(|b| b.join("psql"))
            .unwrap_or_else(|| "psql".into());
        let mut command = Command::new(psql);
        command.env_remove("PGPASSWORD");
        if let Some(password) = password {
            command.env("PGPASSWORD", password);
        }
        let out = command
            .args([
                "-X",
                "-q",
                "-A",
                "-t",
                "-w",
                "-v",
                "ON_ERROR_STOP=1",
                "-h",
                &self.host,
                "-p",
            ])
            .arg(self.port.to_string())
            .args(["-U", user, "-d", database, "-c", sql])
            .output()
            .map_err(|e| e.to_string())?;
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).trim_end().to_string())
        } else {
            Err(String::from_utf8_lossy(&out.stderr).into_owned())
        }
    }

    /// `postgres://…` for `database` as the superuser.
    pub fn url(&self, database: &str) -> String {
        let login = match &self.password {
            Some(p) => format!("{}:{p}", self.user),
            None => self.user.clone(),
        };
        format!("postgres://{login}@{}:{}/{database}", self.host, self.port)
    }
}
