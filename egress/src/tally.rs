//! What left, per destination: connections and bytes each way; and what was
//! refused, each destination once.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;

/// Counts of one destination.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub connections: u64,
    /// Bytes the agent sent.
    pub sent: u64,
    /// Bytes the agent received.
    pub received: u64,
}

/// The counts of a run, shared by the proxy's connections.
#[derive(Debug, Default)]
pub struct Tally {
    reached: Mutex<BTreeMap<String, Counts>>,
    refused: Mutex<BTreeSet<String>>,
}

impl Tally {
    pub fn connected(&self, dest: &str) {
        lock(&self.reached)
            .entry(dest.to_string())
            .or_default()
            .connections += 1;
    }

    pub fn moved(&self, dest: &str, sent: u64, received: u64) {
        let mut reached = lock(&self.reached);
        let c = reached.entry(dest.to_string()).or_default();
        c.sent += sent;
        c.received += received;
    }

    /// Records a refusal; true the first time for this destination.
    pub fn refused(&self, dest: &str) -> bool {
        lock(&self.refused).insert(dest.to_string())
    }

    pub fn reached(&self) -> BTreeMap<String, Counts> {
        lock(&self.reached).clone()
    }

    pub fn refusals(&self) -> BTreeSet<String> {
        lock(&self.refused).clone()
    }

    /// The summary lines written when the agent exits.
    pub fn summary(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .reached()
            .iter()
            .map(|(dest, c)| {
                format!(
                    "reached {dest}: {} connection{}, {} sent, {} received",
                    c.connections,
                    if c.connections == 1 { "" } else { "s" },
                    bytes(c.sent),
                    bytes(c.received)
                )
            })
            .collect();
        let refused = self.refusals();
        if !refused.is_empty() {
            lines.push(format!(
                "refused: {}",
                refused.into_iter().collect::<Vec<_>>().join(", ")
            ));
        }
        lines
    }
}

fn bytes(n: u64) -> String {
    match n {
        n if n < 10 << 10 => format!("{n} B"),
        n if n < 10 << 20 => format!("{} KiB", n >> 10),
        n => format!("{} MiB", n >> 20),
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_destination_is_counted_and_each_refusal_told_once() {
        let t = Tally::default();
        t.connected("api.example.com:443");
        t.connected("api.example.com:443");
        t.moved("api.example.com:443", 300, 40_000);
        assert!(t.refused("evil.example:443"));
        assert!(!t.refused("evil.example:443"));
        assert_eq!(
            t.summary(),
            [
                "reached api.example.com:443: 2 connections, 300 B sent, 39 KiB received",
                "refused: evil.example:443",
            ]
        );
    }
}
