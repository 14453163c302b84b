//! What left, per destination: connections and bytes each way; and what was
//! refused, each destination once. Bounded: an agent that asks for endless
//! names (`*.example.com` allows any subdomain) makes neither the tally nor
//! the log grow without end.

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

/// Most destinations counted one by one; the rest are counted together.
pub const MAX_DESTINATIONS: usize = 256;
/// Where the rest are counted.
pub const OTHERS: &str = "(other destinations)";

/// The counts of a run, shared by the proxy's connections.
#[derive(Debug, Default)]
pub struct Tally {
    reached: Mutex<BTreeMap<String, Counts>>,
    refused: Mutex<Refused>,
}

#[derive(Debug, Default)]
struct Refused {
    named: BTreeSet<String>,
    /// Refusals of destinations past the named ones.
    more: u64,
}

impl Tally {
    pub fn connected(&self, dest: &str) {
        let mut reached = lock(&self.reached);
        entry(&mut reached, dest).connections += 1;
    }

    pub fn moved(&self, dest: &str, sent: u64, received: u64) {
        let mut reached = lock(&self.reached);
        let c = entry(&mut reached, dest);
        c.sent += sent;
        c.received += received;
    }

    /// Records a refusal; true the first time for this destination (and
    /// false past [`MAX_DESTINATIONS`] of them: not told one by one).
    pub fn refused(&self, dest: &str) -> bool {
        let mut refused = lock(&self.refused);
        if refused.named.contains(dest) {
            return false;
        }
        if refused.named.len() >= MAX_DESTINATIONS {
            refused.more += 1;
            return false;
        }
        refused.named.insert(dest.to_string())
    }

    pub fn reached(&self) -> BTreeMap<String, Counts> {
        lock(&self.reached).clone()
    }

    pub fn refusals(&self) -> BTreeSet<String> {
        lock(&self.refused).named.clone()
    }

    /// Starts counting afresh (after a report that ended a run whose agent
    /// goes on in the next one: each run's record has its own counts).
    pub fn restart(&self) {
        *lock(&self.reached) = BTreeMap::new();
        *lock(&self.refused) = Refused::default();
    }

    /// Refusals of destinations past the named ones.
    pub fn refused_more(&self) -> u64 {
        lock(&self.refused).more
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
        let refused = lock(&self.refused);
        if !refused.named.is_empty() {
            let more = match refused.more {
                0 => String::new(),
                n => format!(", and {n} more refusals of other destinations"),
            };
            lines.push(format!(
                "refused: {}{more}",
                refused.named.iter().cloned().collect::<Vec<_>>().join(", ")
            ));
        }
        lines
    }
}

/// The counts of `dest`, or of all the others once there are enough.
/// Called for every chunk a connection moves: a name is copied only when it
/// is first counted.
fn entry<'a>(reached: &'a mut BTreeMap<String, Counts>, dest: &str) -> &'a mut Counts {
    let key = if reached.contains_key(dest) || reached.len() < MAX_DESTINATIONS {
        dest
    } else {
        OTHERS
    };
    if !reached.contains_key(key) {
        reached.insert(key.to_string(), Counts::default());
    }
    reached.get_mut(key).expect("inserted above")
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
    fn a_restart_counts_afresh_and_tells_a_refusal_again() {
        let t = Tally::default();
        t.connected("a:443");
        t.moved("a:443", 10, 20);
        assert!(t.refused("b:443"));
        t.restart();
        assert!(t.reached().is_empty() && t.refusals().is_empty());
        t.connected("a:443");
        assert_eq!(t.reached()["a:443"].connections, 1);
        assert!(t.refused("b:443"), "a new run's refusal is told");
    }

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

    #[test]
    fn endless_destinations_are_bounded() {
        let t = Tally::default();
        for i in 0..MAX_DESTINATIONS + 10 {
            t.connected(&format!("n{i}.example.com:443"));
            t.refused(&format!("r{i}.example.com:443"));
        }
        let reached = t.reached();
        assert_eq!(reached.len(), MAX_DESTINATIONS + 1);
        assert_eq!(reached[OTHERS].connections, 10);
        assert_eq!(t.refusals().len(), MAX_DESTINATIONS);
        assert!(
            t.summary()
                .last()
                .unwrap()
                .ends_with(", and 10 more refusals of other destinations")
        );
    }
}
