//! A real OCI registry for tests: Debian's `docker-registry` (distribution
//! 2.8), one per test, on a free port of 127.0.0.1, with its storage and its
//! access log in a temporary directory; stopped when dropped.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const PROGRAM: &str = "/usr/bin/docker-registry";

pub struct Registry {
    /// `127.0.0.1:PORT`, the registry part of references.
    pub addr: String,
    pub dir: tempfile::TempDir,
    child: Child,
}

impl Registry {
    pub fn start() -> Registry {
        assert!(
            Path::new(PROGRAM).exists(),
            "{PROGRAM} is missing: `apt-get install docker-registry` (.ci/run does)"
        );
        let dir = tempfile::tempdir().unwrap();
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let addr = format!("127.0.0.1:{port}");
        let config = dir.path().join("config.yml");
        std::fs::write(
            &config,
            format!(
                "version: 0.1\nlog:\n  level: info\n  accesslog:\n    disabled: false\nstorage:\n  filesystem:\n    rootdirectory: {}\n  delete:\n    enabled: true\nhttp:\n  addr: {addr}\n",
                dir.path().join("data").display()
            ),
        )
        .unwrap();
        let log = std::fs::File::create(dir.path().join("registry.log")).unwrap();
        let child = Command::new(PROGRAM)
            .arg("serve")
            .arg(&config)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("starting docker-registry");
        let registry = Registry { addr, dir, child };
        let deadline = Instant::now() + Duration::from_secs(20);
        while registry.get("/v2/").map(|(status, _)| status) != Some(200) {
            assert!(
                Instant::now() < deadline,
                "the registry did not answer /v2/ within 20 s: {}",
                registry.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        registry
    }

    /// A reference in this registry: `127.0.0.1:PORT/NAME`.
    pub fn reference(&self, name: &str) -> String {
        format!("{}/{name}", self.addr)
    }

    /// The registry's log (its access log included).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("registry.log")).unwrap_or_default()
    }

    /// How many times the blob `digest` was downloaded (GET, not HEAD).
    pub fn blob_gets(&self, digest: &str) -> usize {
        let needle = format!("/blobs/{digest} ");
        self.log()
            .lines()
            .filter(|l| l.contains("\"GET /v2/") && l.contains(&needle))
            .count()
    }

    /// Where the registry keeps the bytes of blob `digest`.
    pub fn blob_file(&self, digest: &str) -> PathBuf {
        let hex = digest.strip_prefix("sha256:").unwrap();
        self.dir
            .path()
            .join("data/docker/registry/v2/blobs/sha256")
            .join(&hex[..2])
            .join(hex)
            .join("data")
    }

    /// A plain HTTP GET: status and body.
    pub fn get(&self, path: &str) -> Option<(u16, Vec<u8>)> {
        let mut stream = TcpStream::connect(&self.addr).ok()?;
        stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
        write!(
            stream,
            "GET {path} HTTP/1.0\r\nHost: {}\r\nAccept: application/vnd.oci.image.manifest.v1+json\r\n\r\n",
            self.addr
        )
        .ok()?;
        let mut response = Vec::new();
        stream.read_to_end(&mut response).ok()?;
        let split = response.windows(4).position(|w| w == b"\r\n\r\n")?;
        let head = String::from_utf8_lossy(&response[..split]).into_owned();
        let status = head.split(' ').nth(1)?.parse().ok()?;
        Some((status, response[split + 4..].to_vec()))
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
