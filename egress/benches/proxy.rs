//! What the egress proxy costs, measured on loopback against the real
//! `blaise-egress` binary: throughput of a CONNECT tunnel against a direct
//! connection, added latency of a plain HTTP request (a new connection each,
//! as the proxy forwards one request per connection), and the proxy's
//! memory while it carries eight transfers at once.
//!
//! `cargo bench -p blaise-egress --bench proxy` (as root: the agent's side is
//! a thread of this bench in a network namespace of its own, which the proxy
//! enters with `--netns` as for a container; both take CAP_SYS_ADMIN, a
//! plug's run needs no such thing). Figures are medians of alternating
//! rounds, with the ratio to the direct baseline of the same run.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const EGRESS: &str = env!("CARGO_BIN_EXE_blaise-egress");
const BULK: usize = 256 << 20;
const ROUNDS: usize = 7;
const REQUESTS: usize = 2_000;

fn main() {
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("the bench runs the proxy in its own namespace with --netns: run it as root");
        std::process::exit(1);
    }
    let sink = sink();
    let http = http_server();
    let port = free_port();
    let agent = AgentSide::new();
    let egress = Egress::start(&agent, port, &[sink, http]);

    // Throughput: the same upload, direct and through a tunnel, alternating.
    let (mut direct, mut tunnel) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        direct.push(upload(TcpStream::connect(("127.0.0.1", sink)).unwrap()));
        tunnel.push(upload(agent.run(move || connect_through(port, sink))));
    }
    let (d, t) = (median(&mut direct), median(&mut tunnel));
    println!(
        "throughput (upload of {} MiB, median of {ROUNDS}): direct {:.0} MiB/s, through the proxy {:.0} MiB/s, ratio {:.2}",
        BULK >> 20,
        d,
        t,
        t / d
    );

    // Latency: a plain HTTP request on a new connection, direct and proxied
    // (from the agent's side), in alternating blocks.
    let (mut direct, mut proxied) = (Vec::new(), Vec::new());
    for _ in 0..10 {
        for _ in 0..REQUESTS / 10 {
            direct.push(request(
                ("127.0.0.1", http),
                &format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{http}\r\n\r\n"),
            ));
        }
        proxied.extend(agent.run(move || {
            (0..REQUESTS / 10)
                .map(|_| {
                    request(
                        ("127.0.0.1", port),
                        &format!("GET http://127.0.0.1:{http}/ HTTP/1.1\r\nHost: 127.0.0.1:{http}\r\n\r\n"),
                    )
                })
                .collect::<Vec<_>>()
        }));
    }
    let (d50, p50) = (percentile(&mut direct, 50), percentile(&mut proxied, 50));
    let (d99, p99) = (percentile(&mut direct, 99), percentile(&mut proxied, 99));
    println!(
        "latency per request ({REQUESTS} each): direct p50 {:.0} µs p99 {:.0} µs, proxied p50 {:.0} µs p99 {:.0} µs, added p50 {:.0} µs",
        d50,
        d99,
        p50,
        p99,
        p50 - d50
    );

    // Memory: the proxy's peak while eight uploads run at once.
    let idle = egress.rss_kib("VmRSS");
    let tunnels = agent.run(move || {
        (0..8)
            .map(|_| connect_through(port, sink))
            .collect::<Vec<_>>()
    });
    let uploads: Vec<_> = tunnels
        .into_iter()
        .map(|t| std::thread::spawn(move || upload(t)))
        .collect();
    for u in uploads {
        u.join().unwrap();
    }
    println!(
        "memory: {} KiB resident idle, {} KiB at most with 8 tunnels at once",
        idle,
        egress.rss_kib("VmHWM")
    );
    egress.stop();
}

type Job = Box<dyn FnOnce() + Send>;

/// The agent's side: a thread in a network namespace of its own, as a
/// container's, which runs jobs there (a socket stays in the namespace it
/// was made in, whichever thread uses it afterwards).
struct AgentSide {
    jobs: mpsc::Sender<Job>,
    netns: String,
}

impl AgentSide {
    fn new() -> AgentSide {
        let (jobs, taken) = mpsc::channel::<Job>();
        let (tid, told) = mpsc::channel();
        std::thread::spawn(move || {
            assert_eq!(unsafe { libc::unshare(libc::CLONE_NEWNET) }, 0, "unshare");
            tid.send(unsafe { libc::gettid() }).unwrap();
            for job in taken {
                job();
            }
        });
        let tid = told.recv().unwrap();
        AgentSide {
            jobs,
            netns: format!("/proc/{}/task/{tid}/ns/net", std::process::id()),
        }
    }

    fn run<T: Send + 'static>(&self, f: impl FnOnce() -> T + Send + 'static) -> T {
        let (done, result) = mpsc::channel();
        self.jobs
            .send(Box::new(move || done.send(f()).unwrap()))
            .unwrap();
        result.recv().unwrap()
    }
}

struct Egress(Child);

impl Egress {
    fn start(agent: &AgentSide, port: u16, allowed: &[u16]) -> Egress {
        let mut cmd = Command::new(EGRESS);
        cmd.args(["--port", &port.to_string()]);
        // As a range: the servers are reached through the proxy, by address.
        for p in allowed {
            cmd.args(["--allow", &format!("127.0.0.0/8:{p}")]);
        }
        let ns = agent.netns.clone();
        // Its command is `cat` on a pipe from here: it ends when the bench
        // lets go, and holds none of the bench's output open.
        let mut child = cmd
            .args(["--netns", &ns, "--", "cat"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        for _ in 0..200 {
            if agent.run(move || TcpStream::connect(("127.0.0.1", port)).is_ok()) {
                return Egress(child);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = child.kill();
        let _ = child.wait();
        panic!("blaise-egress did not listen on {port}");
    }

    fn rss_kib(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.0.id())).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{field}:")))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap()
    }

    fn stop(mut self) {
        drop(self.0.stdin.take());
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Reads each connection to its end, then answers one byte.
fn sink() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let mut conn = conn.unwrap();
            std::thread::spawn(move || {
                let mut buf = vec![0; 64 << 10];
                while conn.read(&mut buf).unwrap_or(0) > 0 {}
                let _ = conn.write_all(b"k");
            });
        }
    });
    port
}

/// Answers each request with a small response and closes.
fn http_server() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let mut conn = conn.unwrap();
            let mut reader = BufReader::new(conn.try_clone().unwrap());
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap_or(0) > 2 {
                line.clear();
            }
            let _ = conn
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok");
        }
    });
    port
}

/// A tunnel to `to` through the proxy on `port`.
fn connect_through(port: u16, to: u16) -> TcpStream {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(s, "CONNECT 127.0.0.1:{to} HTTP/1.1\r\n\r\n").unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8];
    while !head.ends_with(b"\r\n\r\n") {
        s.read_exact(&mut byte).unwrap();
        head.push(byte[0]);
    }
    assert!(
        head.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&head)
    );
    s
}

/// MiB/s of sending `BULK` bytes and getting the sink's answer.
fn upload(mut s: TcpStream) -> f64 {
    let chunk = vec![7u8; 64 << 10];
    let start = Instant::now();
    let mut sent = 0;
    while sent < BULK {
        s.write_all(&chunk).unwrap();
        sent += chunk.len();
    }
    s.shutdown(Shutdown::Write).unwrap();
    let mut answer = [0u8];
    s.read_exact(&mut answer).unwrap();
    (BULK >> 20) as f64 / start.elapsed().as_secs_f64()
}

/// µs from connecting to the end of the response.
fn request(to: (&str, u16), head: &str) -> f64 {
    let start = Instant::now();
    let mut s = TcpStream::connect(to).unwrap();
    s.set_nodelay(true).unwrap();
    s.write_all(head.as_bytes()).unwrap();
    let mut response = Vec::new();
    s.read_to_end(&mut response).unwrap();
    assert!(
        response.ends_with(b"ok"),
        "{}",
        String::from_utf8_lossy(&response)
    );
    start.elapsed().as_secs_f64() * 1e6
}

fn median(v: &mut [f64]) -> f64 {
    percentile(v, 50)
}

fn percentile(v: &mut [f64], p: usize) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[(v.len() - 1) * p / 100]
}
