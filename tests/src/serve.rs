//! A real `blaise serve` process on a fixed loopback port and database, that
//! a test can kill (SIGKILL, at any moment) and start again on the same
//! database and port, as an operator's restart or a crash would.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::blaise::{Api, binary};

pub fn blaise_binary() -> PathBuf {
    binary("blaise-control", "blaise")
}

pub use blaise_test_support::free_port;

pub struct Serve {
    child: Option<tokio::process::Child>,
    pub db: PathBuf,
    pub addr: SocketAddr,
    pub token: String,
    /// The server's extra arguments (timing), kept for restarts.
    args: Vec<String>,
    /// How long each start took until the API answered.
    pub starts: Vec<Duration>,
}

impl Serve {
    /// Starts `blaise serve` on `db` (created if new) and waits until it answers.
    pub async fn start(db: &Path, args: &[&str]) -> Serve {
        let mut serve = Serve {
            child: None,
            db: db.to_path_buf(),
            addr: SocketAddr::from(([127, 0, 0, 1], free_port())),
            token: "bla_fault_test_admin_token".into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            starts: Vec::new(),
        };
        serve.restart().await;
        serve
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn api(&self) -> Api {
        Api::new(&self.url(), &self.token)
    }

    /// Starts the process again on the same database and port, and waits
    /// until it answers (the time it took is recorded in `starts`).
    pub async fn restart(&mut self) {
        assert!(self.child.is_none(), "already running");
        let program = blaise_binary();
        let started = Instant::now();
        let child = tokio::process::Command::new(program)
            .arg("serve")
            .arg("--db")
            .arg(&self.db)
            .arg("--listen")
            .arg(self.addr.to_string())
            .args(&self.args)
            .env("BLAISE_TOKEN", &self.token)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("starting blaise serve");
        self.child = Some(child);
        let api = self.api();
        loop {
            if api.user.get("/v1/agents").await.is_ok() {
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "blaise serve did not answer within 30 s"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        self.starts.push(started.elapsed());
    }

    /// SIGKILL: no shutdown, no flush, as a crash or an OOM kill.
    pub async fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.start_kill();
            let _ = child.wait().await;
        }
    }

    /// Kills it, waits `outage`, starts it again.
    pub async fn bounce(&mut self, outage: Duration) {
        self.kill().await;
        tokio::time::sleep(outage).await;
        self.restart().await;
    }
}
