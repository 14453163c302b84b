//! A TCP proxy between a runner and the control plane that the test can make
//! misbehave: refuse connections, hold them without answering, lose every
//! response after the request reached the server (so the request *was*
//! applied), delay traffic, or refuse a run's transcript as Blaise would. The
//! network's faults, without a restart.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// What the proxy does with traffic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Fault {
    /// Passes everything.
    None = 0,
    /// Cuts open connections and refuses new ones.
    Refuse = 1,
    /// Accepts, forwards nothing, answers nothing.
    BlackHole = 2,
    /// Forwards requests; drops every response and hangs up once the server
    /// has started to answer.
    LoseResponses = 3,
    /// Passes everything, each chunk 300 ms late.
    Delay = 4,
    /// Answers a run's transcript report (`POST …/transcript`) with Blaise's 409 refusal
    /// itself, without passing it on; passes everything else.
    RefuseTranscript = 5,
}

/// What Blaise answers a transcript it will not take (`docs/protocol.md`).
const TRANSCRIPT_REFUSED: &str = r#"{"error":{"code":"transcript_conflict","message":"entry 1 of the run was already recorded with other content (refused by the test's proxy)"}}"#;

/// Whether `chunk` starts a transcript report.
fn is_transcript_report(chunk: &[u8]) -> bool {
    let line = chunk.split(|&b| b == b'\n').next().unwrap_or_default();
    line.starts_with(b"POST /v1/runner/runs/") && line.windows(12).any(|w| w == b"/transcript ")
}

pub struct Proxy {
    pub addr: SocketAddr,
    fault: Arc<AtomicU8>,
    /// Bumped when open connections must be cut.
    cut: watch::Sender<u64>,
}

impl Proxy {
    pub async fn start(upstream: SocketAddr) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let fault = Arc::new(AtomicU8::new(Fault::None as u8));
        let (cut, _) = watch::channel(0u64);
        let (fault2, cut2) = (fault.clone(), cut.clone());
        tokio::spawn(async move {
            loop {
                let Ok((client, _)) = listener.accept().await else {
                    return;
                };
                let now = fault2.load(Ordering::SeqCst);
                if now == Fault::Refuse as u8 {
                    drop(client);
                    continue;
                }
                tokio::spawn(connection(
                    client,
                    upstream,
                    fault2.clone(),
                    cut2.subscribe(),
                ));
            }
        });
        Proxy { addr, fault, cut }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// From now on, `fault`; open connections are cut.
    pub fn set(&self, fault: Fault) {
        self.fault.store(fault as u8, Ordering::SeqCst);
        self.cut.send_modify(|n| *n += 1);
    }
}

async fn connection(
    client: TcpStream,
    upstream: SocketAddr,
    fault: Arc<AtomicU8>,
    mut cut: watch::Receiver<u64>,
) {
    let mode = fault.load(Ordering::SeqCst);
    if mode == Fault::BlackHole as u8 {
        let _ = cut.changed().await;
        return;
    }
    let Ok(server) = TcpStream::connect(upstream).await else {
        return;
    };
    let (mut cr, mut cw) = client.into_split();
    let (mut sr, mut sw) = server.into_split();
    let up = async {
        let mut buf = vec![0u8; 16 << 10];
        loop {
            let n = match cr.read(&mut buf).await {
                Ok(0) | Err(_) => return false,
                Ok(n) => n,
            };
            if fault.load(Ordering::SeqCst) == Fault::RefuseTranscript as u8
                && is_transcript_report(&buf[..n])
            {
                return true;
            }
            if fault.load(Ordering::SeqCst) == Fault::Delay as u8 {
                tokio::time::sleep(Duration::from_millis(300)).await;
            }
            if sw.write_all(&buf[..n]).await.is_err() {
                return false;
            }
        }
    };
    let down = async {
        let mut buf = vec![0u8; 16 << 10];
        loop {
            let n = match sr.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            };
            match fault.load(Ordering::SeqCst) {
                m if m == Fault::LoseResponses as u8 => return,
                m if m == Fault::Delay as u8 => {
                    tokio::time::sleep(Duration::from_millis(300)).await
                }
                _ => {}
            }
            if cw.write_all(&buf[..n]).await.is_err() {
                return;
            }
        }
    };
    let refused = tokio::select! {
        refused = up => refused,
        _ = down => false,
        _ = cut.changed() => false,
    };
    if refused {
        let answer = format!(
            "HTTP/1.1 409 Conflict\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{TRANSCRIPT_REFUSED}",
            TRANSCRIPT_REFUSED.len()
        );
        let _ = cw.write_all(answer.as_bytes()).await;
        let _ = cw.shutdown().await;
    }
}
