//! Heartbeats on Blaise's interval. A heartbeat that fails is sent again
//! soon (every [`RETRY`] at most), not at the next interval: contact is back
//! as soon as the network is, so an outage costs the run nothing as long as
//! it is shorter than Blaise's timeout less one interval. After failing for
//! 90 intervals the run stops with "Lost contact with Blaise" (Blaise
//! recovers the session as for a dead runner).

use std::time::{Duration, Instant};

use tokio::sync::watch;

use crate::protocol::Client;

pub const LOST_CONTACT: &str = "Lost contact with Blaise";

/// Intervals of failed heartbeats after which the run gives up.
pub const MAX_FAILURES: u32 = 90;

/// The longest wait before a failed heartbeat is sent again.
const RETRY: Duration = Duration::from_millis(250);

/// Sends heartbeats until dropped; the receiver turns true when contact is lost.
pub struct Heartbeat {
    task: tokio::task::JoinHandle<()>,
    pub lost: watch::Receiver<bool>,
}

impl Drop for Heartbeat {
    fn drop(&mut self) {
        self.task.abort();
    }
}

pub fn start(client: Client, run_id: String, interval: Duration) -> Heartbeat {
    let (tx, lost) = watch::channel(false);
    let interval = interval.max(Duration::from_millis(10));
    let give_up = interval * MAX_FAILURES;
    let task = tokio::spawn(async move {
        let mut failing_since: Option<Instant> = None;
        let mut failures = 0u32;
        let mut warned = Instant::now();
        let mut retry = Duration::from_millis(50);
        let mut tick = tokio::time::interval(interval);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            if failing_since.is_some() {
                tokio::time::sleep(retry).await;
                retry = (retry * 2).min(RETRY).min(interval);
                tick.reset();
            } else {
                tick.tick().await;
            }
            match client
                .heartbeat(&run_id, interval.max(Duration::from_secs(1)))
                .await
            {
                Ok(_) => {
                    if failures > 0 {
                        tracing::info!(run = %run_id, failures, "heartbeats answered again");
                    }
                    failing_since = None;
                    failures = 0;
                    retry = Duration::from_millis(50);
                }
                // Blaise says the run is over: a leftover process must not go on.
                Err(e) if e.is("run_finished") => {
                    tracing::warn!(run = %run_id, "Blaise says this run has finished; stopping");
                    let _ = tx.send(true);
                    return;
                }
                Err(e) => {
                    failures += 1;
                    let since = *failing_since.get_or_insert_with(Instant::now);
                    // One line per interval, not per try.
                    if failures == 1 || warned.elapsed() >= interval {
                        warned = Instant::now();
                        tracing::warn!(run = %run_id, failures, "heartbeat failed: {e}");
                    }
                    if since.elapsed() >= give_up {
                        let _ = tx.send(true);
                        return;
                    }
                }
            }
        }
    });
    Heartbeat { task, lost }
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead as _, BufReader, Read as _, Write as _};
    use std::net::TcpListener;
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    /// A Blaise that hangs up on the first `lose` heartbeats and answers the
    /// rest; when each arrived.
    fn flaky_blaise(lose: usize) -> (String, Arc<Mutex<Vec<Instant>>>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let arrivals = Arc::new(Mutex::new(Vec::new()));
        let seen = arrivals.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut length = 0;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0; length];
                let _ = reader.read_exact(&mut body);
                let n = {
                    let mut a = seen.lock().unwrap();
                    a.push(Instant::now());
                    a.len()
                };
                if n > lose {
                    let answer = r#"{"run_status":"running"}"#;
                    let _ = write!(
                        stream,
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{answer}",
                        answer.len()
                    );
                }
                // Otherwise dropping the stream hangs up: no answer.
            }
        });
        (url, arrivals)
    }

    /// After a failed heartbeat the next one goes within a few hundred
    /// milliseconds, not an interval later: a short outage ends as soon as
    /// the network is back, long before Blaise's timeout.
    #[tokio::test]
    async fn a_failed_heartbeat_is_sent_again_soon_not_an_interval_later() {
        let (url, arrivals) = flaky_blaise(3);
        let interval = Duration::from_secs(3);
        let beat = super::start(
            crate::protocol::Client::new(&url, "blr_test").unwrap(),
            "run_1".into(),
            interval,
        );
        let started = Instant::now();
        while arrivals.lock().unwrap().len() < 4 {
            assert!(
                started.elapsed() < interval * 2,
                "three failures and an answer within two intervals: {:?}",
                arrivals.lock().unwrap()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let a = arrivals.lock().unwrap().clone();
        assert!(
            a[3] - a[0] < Duration::from_secs(2),
            "the answered heartbeat came {:?} after the first failure",
            a[3] - a[0]
        );
        assert!(!*beat.lost.borrow(), "contact is not lost");
        // Answered again: back to one heartbeat an interval.
        tokio::time::sleep(Duration::from_millis(1500)).await;
        assert_eq!(arrivals.lock().unwrap().len(), 4);
    }
}
