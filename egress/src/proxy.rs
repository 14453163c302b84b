//! The proxy: one thread per connection, `CONNECT` tunnels and plain HTTP,
//! each destination checked against the policy before anything is sent.

use std::collections::BTreeSet;
use std::fmt;
use std::io::{self, Read, Write};
use std::net::{IpAddr, Shutdown, SocketAddr, SocketAddrV4, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use crate::addresses::is_special;
use crate::policy::Policy;
use crate::request::{self, Destination, MAX_HEAD, Request};
use crate::tally::Tally;

/// How long a client may take to send its request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a destination may take to accept.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Bytes moved per read, each way.
const CHUNK: usize = 16 << 10;
/// A connection's thread holds little on its stack (its buffers are on the heap).
const STACK: usize = 128 << 10;
/// Most connections carried at once: past it a new one is turned away
/// (an agent cannot make the proxy, outside its sandbox, spawn threads without end).
pub const MAX_CONNECTIONS: usize = 256;

type Resolver = dyn Fn(&str, u16) -> io::Result<Vec<SocketAddr>> + Send + Sync;
type Log = dyn Fn(&str) + Send + Sync;

/// The proxy of one agent.
pub struct Proxy {
    policy: Policy,
    tally: Tally,
    resolve: Box<Resolver>,
    log: Box<Log>,
    /// Destinations that could not be reached, told once each.
    failed: Mutex<BTreeSet<String>>,
    /// Connections being carried.
    open: AtomicUsize,
}

/// Writes `blaise-egress: LINE` to stderr in one `write`: the agent writes
/// to the same pipe, and a line in pieces could be torn by its output.
pub fn tell(line: &str) {
    let _ = io::stderr().write_all(format!("blaise-egress: {line}\n").as_bytes());
}

/// Why a destination is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Not in the allow list (name or address, and port).
    NotListed,
    /// A listed name that resolves only to addresses a name may not lead to.
    OnlyLocal(Vec<IpAddr>),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::NotListed => f.write_str("not in this environment's allow list"),
            Refusal::OnlyLocal(ips) => write!(
                f,
                "it resolves only to local or private addresses ({}), which only an address in the allow list may name",
                ips.iter()
                    .map(IpAddr::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// How a connection begins once its destination is reached.
enum Start {
    /// `CONNECT`: the client is told, then the tunnel.
    Tunnel,
    /// Plain HTTP: this head goes first.
    Forward(Vec<u8>),
    /// A forwarded address: bytes as they come.
    Raw,
}

/// Where a destination leads, or why it may not be reached.
#[derive(Debug)]
pub enum Decision {
    Go(Vec<SocketAddr>),
    Refused(Refusal),
    Unresolved(String),
}

impl Proxy {
    /// A proxy for `policy`, resolving with the system's resolver and telling
    /// what it refuses on stderr.
    pub fn new(policy: Policy) -> Proxy {
        Proxy {
            policy,
            tally: Tally::default(),
            resolve: Box::new(|name, port| Ok((name, port).to_socket_addrs()?.collect())),
            log: Box::new(tell),
            failed: Mutex::default(),
            open: AtomicUsize::new(0),
        }
    }

    /// The same with another resolver (tests: a name that leads to loopback).
    pub fn with_resolver(
        mut self,
        resolve: impl Fn(&str, u16) -> io::Result<Vec<SocketAddr>> + Send + Sync + 'static,
    ) -> Proxy {
        self.resolve = Box::new(resolve);
        self
    }

    /// The same, telling its lines to `log`.
    pub fn with_log(mut self, log: impl Fn(&str) + Send + Sync + 'static) -> Proxy {
        self.log = Box::new(log);
        self
    }

    pub fn tally(&self) -> &Tally {
        &self.tally
    }

    /// A DNS lookup inside the namespace (answered `REFUSED` by
    /// [`crate::lookups`]): told once per name.
    pub fn refused_lookup(&self, name: &str, server: &str) {
        let dest = format!("{name} (DNS lookup)");
        if self.tally.refused(&dest) {
            (self.log)(&format!(
                "refused a DNS lookup of {name} (sent to {server}): the proxy resolves names (HTTPS_PROXY, HTTP_PROXY)"
            ));
        }
    }

    /// A connection the agent tried without the proxy (seen by
    /// [`crate::direct`]; it has already failed): told once, like a refusal.
    pub fn refused_directly(&self, dest: &str) {
        if self.tally.refused(dest) {
            (self.log)(&format!(
                "refused {dest}: a direct connection; only the proxy (HTTPS_PROXY, HTTP_PROXY) leads out"
            ));
        }
    }

    /// Serves `listener` until it fails, a thread per connection.
    pub fn serve(self: Arc<Self>, listener: TcpListener) {
        for client in listener.incoming() {
            let Ok(client) = client else { continue };
            self.carry(client, |proxy, client| proxy.handle(client));
        }
    }

    /// Runs `work` on `client` in a thread of its own, unless
    /// [`MAX_CONNECTIONS`] are already carried.
    fn carry(
        self: &Arc<Self>,
        mut client: TcpStream,
        work: impl FnOnce(&Proxy, TcpStream) + Send + 'static,
    ) {
        if self.open.fetch_add(1, Ordering::AcqRel) >= MAX_CONNECTIONS {
            self.open.fetch_sub(1, Ordering::AcqRel);
            if self.tally.refused("(too many connections at once)") {
                (self.log)(&format!(
                    "turned a connection away: {MAX_CONNECTIONS} are open at once"
                ));
            }
            reply(
                &mut client,
                503,
                "Service Unavailable",
                &format!("blaise-egress: {MAX_CONNECTIONS} connections are open at once"),
            );
            return;
        }
        let proxy = self.clone();
        let spawned = thread::Builder::new()
            .name("egress-conn".into())
            .stack_size(STACK)
            .spawn(move || {
                work(&proxy, client);
                proxy.open.fetch_sub(1, Ordering::AcqRel);
            });
        if let Err(e) = spawned {
            self.open.fetch_sub(1, Ordering::AcqRel);
            (self.log)(&format!("could not take a connection: {e}"));
        }
    }

    /// Where `dest` may lead under the policy.
    pub fn decide(&self, dest: &Destination) -> Decision {
        if let Some(ip) = dest.ip() {
            return if self.policy.allows_addr(ip, dest.port) {
                Decision::Go(vec![SocketAddr::new(ip, dest.port)])
            } else {
                Decision::Refused(Refusal::NotListed)
            };
        }
        if !self.policy.allows_name(&dest.host, dest.port) {
            return Decision::Refused(Refusal::NotListed);
        }
        let addrs = match (self.resolve)(&dest.host, dest.port) {
            Ok(addrs) if !addrs.is_empty() => addrs,
            Ok(_) => return Decision::Unresolved("no address".into()),
            Err(e) => return Decision::Unresolved(e.to_string()),
        };
        let (go, local): (Vec<SocketAddr>, Vec<SocketAddr>) = addrs
            .into_iter()
            .partition(|a| !is_special(a.ip()) || self.policy.allows_addr(a.ip(), dest.port));
        if go.is_empty() {
            let mut ips: Vec<IpAddr> = local.iter().map(SocketAddr::ip).collect();
            ips.dedup();
            return Decision::Refused(Refusal::OnlyLocal(ips));
        }
        Decision::Go(go)
    }

    /// Serves a forward: what reaches `listener` goes on to `to`, which
    /// the policy lists.
    pub fn relay(self: Arc<Self>, listener: TcpListener, to: SocketAddrV4) {
        for client in listener.incoming() {
            let Ok(client) = client else { continue };
            let dest = Destination {
                host: to.ip().to_string(),
                port: to.port(),
            };
            self.carry(client, move |proxy, client| {
                proxy.go(client, dest, Start::Raw, &[])
            });
        }
    }

    fn handle(&self, mut client: TcpStream) {
        let Some((head_len, buf)) = read_head(&mut client) else {
            return;
        };
        let (dest, start) = match request::parse(&buf[..head_len]) {
            Ok(Request::Connect(dest)) => (dest, Start::Tunnel),
            Ok(Request::Forward { to, head }) => (to, Start::Forward(head)),
            Err(why) => {
                reply(
                    &mut client,
                    400,
                    "Bad Request",
                    &format!("blaise-egress: {why}"),
                );
                return;
            }
        };
        self.go(client, dest, start, &buf[head_len..]);
    }

    /// Checks `dest`, connects, and moves bytes until both sides are done.
    /// `early`: what the client sent after its request head.
    fn go(&self, mut client: TcpStream, dest: Destination, start: Start, early: &[u8]) {
        let _ = client.set_nodelay(true);
        let shown = dest.to_string();
        let addrs = match self.decide(&dest) {
            Decision::Go(addrs) => addrs,
            Decision::Refused(why) => {
                if self.tally.refused(&shown) {
                    (self.log)(&format!("refused {shown}: {why}"));
                }
                reply(
                    &mut client,
                    403,
                    "Forbidden",
                    &format!("blaise-egress refused {shown}: {why}"),
                );
                return;
            }
            Decision::Unresolved(why) => {
                self.failed_once(&shown, &format!("{shown} does not resolve: {why}"));
                reply(
                    &mut client,
                    502,
                    "Bad Gateway",
                    &format!("blaise-egress: {shown} does not resolve: {why}"),
                );
                return;
            }
        };
        let mut server = match connect(&addrs) {
            Ok(server) => server,
            Err(e) => {
                self.failed_once(&shown, &format!("could not reach {shown}: {e}"));
                reply(
                    &mut client,
                    502,
                    "Bad Gateway",
                    &format!("blaise-egress could not reach {shown}: {e}"),
                );
                return;
            }
        };
        let _ = server.set_nodelay(true);
        self.tally.connected(&shown);
        let head: &[u8] = match &start {
            Start::Tunnel => {
                if client
                    .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
                    .is_err()
                {
                    return;
                }
                &[]
            }
            Start::Forward(head) => head,
            Start::Raw => &[],
        };
        if server
            .write_all(head)
            .and_then(|()| server.write_all(early))
            .is_err()
        {
            return;
        }
        let one_request = matches!(start, Start::Forward(_));
        // Counted as the bytes move: when the agent is stopped, a
        // connection it keeps open is in the tally too.
        self.tally
            .moved(&shown, (head.len() + early.len()) as u64, 0);
        pipe(
            client,
            server,
            one_request,
            &|n| self.tally.moved(&shown, n, 0),
            &|n| self.tally.moved(&shown, 0, n),
        );
    }

    fn failed_once(&self, dest: &str, line: &str) {
        let first = self
            .failed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(dest.to_string());
        if first {
            (self.log)(line);
        }
    }
}

/// The request head (its length, and the buffer holding it and whatever came
/// after it), or `None` when the client went away or sent too much.
fn read_head(client: &mut TcpStream) -> Option<(usize, Vec<u8>)> {
    let _ = client.set_read_timeout(Some(HEAD_TIMEOUT));
    let mut buf = vec![0; MAX_HEAD];
    let mut len = 0;
    let end = loop {
        let n = client.read(&mut buf[len..]).ok()?;
        if n == 0 {
            return None;
        }
        len += n;
        if let Some(end) = request::head_end(&buf[..len]) {
            break end;
        }
        if len == buf.len() {
            let why = format!(
                "blaise-egress: a request head longer than {} KiB",
                MAX_HEAD >> 10
            );
            reply(client, 431, "Request Header Fields Too Large", &why);
            return None;
        }
    };
    let _ = client.set_read_timeout(None);
    buf.truncate(len);
    Some((end, buf))
}

fn connect(addrs: &[SocketAddr]) -> io::Result<TcpStream> {
    let mut last = io::Error::new(io::ErrorKind::NotFound, "no address");
    for addr in addrs {
        match TcpStream::connect_timeout(addr, CONNECT_TIMEOUT) {
            Ok(s) => return Ok(s),
            Err(e) => last = io::Error::new(e.kind(), format!("{addr}: {e}")),
        }
    }
    Err(last)
}

/// Moves bytes both ways until both sides are done, telling `sent` and
/// `received` each chunk. `one_request`: once the server's answer ends the
/// connection is over (plain HTTP, forwarded with `Connection: close`).
fn pipe(
    client: TcpStream,
    server: TcpStream,
    one_request: bool,
    sent: &(dyn Fn(u64) + Sync),
    received: &(dyn Fn(u64) + Sync),
) {
    let (Ok(client_w), Ok(server_r)) = (client.try_clone(), server.try_clone()) else {
        return;
    };
    thread::scope(|scope| {
        let up = thread::Builder::new()
            .name("egress-up".into())
            .stack_size(STACK)
            .spawn_scoped(scope, move || {
                copy(&client, &server, sent);
                let _ = server.shutdown(Shutdown::Write);
            });
        copy(&server_r, &client_w, received);
        let _ = client_w.shutdown(if one_request {
            Shutdown::Both
        } else {
            Shutdown::Write
        });
        if let Ok(up) = up {
            let _ = up.join();
        }
    });
}

fn copy(mut from: &TcpStream, mut to: &TcpStream, moved: &(dyn Fn(u64) + Sync)) {
    let mut buf = vec![0; CHUNK];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        if to.write_all(&buf[..n]).is_err() {
            let _ = from.shutdown(Shutdown::Read);
            return;
        }
        moved(n as u64);
    }
}

fn reply(client: &mut TcpStream, code: u16, reason: &str, body: &str) {
    let body = format!("{body}\n");
    let _ = write!(
        client,
        "HTTP/1.1 {code} {reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = client.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proxy(entries: &[&str]) -> Proxy {
        Proxy::new(Policy::parse(entries).unwrap()).with_resolver(|name, port| {
            let ip = match name {
                "rebound.example" => "127.0.0.1",
                "metadata.example" => "169.254.169.254",
                "mixed.example" => "10.0.0.1",
                _ => "93.184.215.14",
            };
            let mut out = vec![SocketAddr::new(ip.parse().unwrap(), port)];
            if name == "mixed.example" {
                out.push(SocketAddr::new("93.184.215.15".parse().unwrap(), port));
            }
            Ok(out)
        })
    }

    fn dest(host: &str, port: u16) -> Destination {
        Destination {
            host: host.into(),
            port,
        }
    }

    #[test]
    fn a_listed_name_that_resolves_home_is_refused() {
        let p = proxy(&["rebound.example", "metadata.example", "mixed.example"]);
        match p.decide(&dest("rebound.example", 443)) {
            Decision::Refused(Refusal::OnlyLocal(ips)) => {
                assert_eq!(ips, ["127.0.0.1".parse::<IpAddr>().unwrap()]);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            p.decide(&dest("metadata.example", 80)),
            Decision::Refused(Refusal::OnlyLocal(_))
        ));
        // Only the public address of a name that has both is used.
        match p.decide(&dest("mixed.example", 443)) {
            Decision::Go(addrs) => assert_eq!(addrs, ["93.184.215.15:443".parse().unwrap()]),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn what_a_tunnel_carries_is_counted_while_it_is_open() {
        // An echo server, listed by address.
        let server = TcpListener::bind("127.0.0.1:0").unwrap();
        let to = server.local_addr().unwrap();
        std::thread::spawn(move || {
            let (mut conn, _) = server.accept().unwrap();
            let mut buf = [0u8; 1024];
            while let Ok(n) = conn.read(&mut buf) {
                if n == 0 || conn.write_all(&buf[..n]).is_err() {
                    break;
                }
            }
        });
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let p = Arc::new(proxy(&[&to.to_string()]));
        let serving = p.clone();
        std::thread::spawn(move || serving.serve(listener));
        let mut tunnel = TcpStream::connect(addr).unwrap();
        write!(tunnel, "CONNECT {to} HTTP/1.1\r\n\r\n").unwrap();
        let mut head = [0u8; 39];
        tunnel.read_exact(&mut head).unwrap();
        assert!(head.starts_with(b"HTTP/1.1 200"));
        tunnel.write_all(&[7u8; 1000]).unwrap();
        let mut echoed = [0u8; 1000];
        tunnel.read_exact(&mut echoed).unwrap();
        // Still open (an agent stopped mid-connection): already counted.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        let shown = to.to_string();
        loop {
            let c = p.tally().reached().get(&shown).copied().unwrap_or_default();
            if c.sent == 1000 && c.received == 1000 {
                assert_eq!(c.connections, 1);
                break;
            }
            assert!(std::time::Instant::now() < deadline, "{c:?}");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    #[test]
    fn connections_past_the_cap_are_turned_away_and_the_next_ones_taken() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let logged = Arc::new(Mutex::new(Vec::<String>::new()));
        let log = logged.clone();
        let p =
            Arc::new(proxy(&[]).with_log(move |line| log.lock().unwrap().push(line.to_string())));
        std::thread::spawn(move || p.serve(listener));
        // Each holds a thread, waiting for its request head.
        let held: Vec<TcpStream> = (0..MAX_CONNECTIONS)
            .map(|_| TcpStream::connect(addr).unwrap())
            .collect();
        let answer = |s: &mut TcpStream| {
            let mut text = String::new();
            let _ = s.read_to_string(&mut text);
            text
        };
        let mut turned = TcpStream::connect(addr).unwrap();
        assert!(
            answer(&mut turned).starts_with("HTTP/1.1 503"),
            "one past the cap"
        );
        drop(held);
        // Once they are gone, a request is judged again.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            let mut next = TcpStream::connect(addr).unwrap();
            next.write_all(b"CONNECT evil.example:443 HTTP/1.1\r\n\r\n")
                .unwrap();
            let text = answer(&mut next);
            if text.starts_with("HTTP/1.1 403") {
                break;
            }
            assert!(std::time::Instant::now() < deadline, "{text}");
            std::thread::sleep(Duration::from_millis(50));
        }
        let logged = logged.lock().unwrap();
        assert!(
            logged
                .iter()
                .any(|l| l.contains("turned a connection away")),
            "{logged:?}"
        );
    }

    #[test]
    fn a_private_address_is_reached_when_listed_as_one() {
        let p = proxy(&["rebound.example", "127.0.0.1:443"]);
        assert!(matches!(
            p.decide(&dest("rebound.example", 443)),
            Decision::Go(_)
        ));
        assert!(matches!(p.decide(&dest("127.0.0.1", 443)), Decision::Go(_)));
        assert!(matches!(
            p.decide(&dest("127.0.0.1", 8443)),
            Decision::Refused(Refusal::NotListed)
        ));
        assert!(matches!(
            p.decide(&dest("elsewhere.example", 443)),
            Decision::Refused(Refusal::NotListed)
        ));
    }
}
