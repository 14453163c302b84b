//! What left the agent's network namespace during a run, as the runner's
//! `egress` report tells it (`blaise-egress`'s counts), kept on the run.
//!
//! A runner's report is held to the same bounds `blaise-egress` keeps (256
//! destinations counted one by one, the rest together), cut rather than
//! refused like an error text: the same cut every time, so a resent report
//! is still a duplicate. Two reports in one run add up.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::{Egress, EgressReached};

/// Most destinations counted one by one, and refused destinations listed.
pub const MAX_DESTINATIONS: usize = 256;
/// Where the destinations past [`MAX_DESTINATIONS`] are counted (the name
/// `blaise-egress` uses too).
pub const OTHERS: &str = "(other destinations)";
/// Longest destination kept (a DNS name is at most 253 bytes, and a port).
pub const MAX_DESTINATION: usize = 300;

/// The counts kept on a run, held to their bounds (`Egress` is the protocol's type).
pub trait Tally {
    /// The report with every destination shown safely and within bounds.
    fn bounded(self) -> Self;
    /// Adds `other`'s counts to these, destination by destination.
    fn add(&mut self, other: Self);
}

impl Tally for Egress {
    fn bounded(self) -> Egress {
        let mut bounded = Egress::default();
        bounded.add(self);
        bounded
    }

    fn add(&mut self, other: Egress) {
        let mut reached: BTreeMap<String, EgressReached> = std::mem::take(&mut self.reached)
            .into_iter()
            .map(|r| (r.destination.clone(), r))
            .collect();
        for r in other.reached {
            let mut name = shown(&r.destination);
            if !reached.contains_key(&name) && reached.len() >= MAX_DESTINATIONS {
                name = OTHERS.to_string();
            }
            let counts = reached.entry(name.clone()).or_insert(EgressReached {
                destination: name,
                connections: 0,
                sent: 0,
                received: 0,
            });
            counts.connections = counts.connections.saturating_add(r.connections);
            counts.sent = counts.sent.saturating_add(r.sent);
            counts.received = counts.received.saturating_add(r.received);
        }
        self.reached = reached.into_values().collect();
        let mut refused: BTreeSet<String> = std::mem::take(&mut self.refused).into_iter().collect();
        self.refused_more = self.refused_more.saturating_add(other.refused_more);
        for name in other.refused {
            let name = shown(&name);
            if refused.contains(&name) {
                continue;
            }
            if refused.len() >= MAX_DESTINATIONS {
                self.refused_more = self.refused_more.saturating_add(1);
            } else {
                refused.insert(name);
            }
        }
        self.refused = refused.into_iter().collect();
    }
}

/// A destination as it is kept: control characters escaped, cut at
/// [`MAX_DESTINATION`] bytes. It is the agent's text: it reaches a page and
/// a terminal (escaped there too) and never forges a line.
fn shown(name: &str) -> String {
    let mut shown: String = if name.chars().any(char::is_control) {
        name.escape_debug().collect()
    } else {
        name.to_string()
    };
    if shown.len() > MAX_DESTINATION {
        let mut end = MAX_DESTINATION;
        while !shown.is_char_boundary(end) {
            end -= 1;
        }
        shown.truncate(end);
        shown.push('…');
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reached(destination: &str, connections: u64) -> EgressReached {
        EgressReached {
            destination: destination.into(),
            connections,
            sent: 10 * connections,
            received: 100 * connections,
        }
    }

    #[test]
    fn reports_add_up_by_destination() {
        let mut e = Egress {
            reached: vec![reached("api.example.com:443", 2)],
            refused: vec!["evil.example:443".into()],
            refused_more: 0,
        }
        .bounded();
        e.add(Egress {
            reached: vec![
                reached("api.example.com:443", 1),
                reached("10.0.0.7:5432", 1),
            ],
            refused: vec!["evil.example:443".into(), "other.example:80".into()],
            refused_more: 3,
        });
        assert_eq!(
            e.reached,
            [
                reached("10.0.0.7:5432", 1),
                reached("api.example.com:443", 3)
            ]
        );
        assert_eq!(e.refused, ["evil.example:443", "other.example:80"]);
        assert_eq!(e.refused_more, 3);
    }

    #[test]
    fn a_hostile_report_is_held_to_its_bounds_and_shown_safely() {
        let e = Egress {
            reached: (0..MAX_DESTINATIONS + 5)
                .map(|i| reached(&format!("n{i}.example.com:443"), 1))
                .collect(),
            refused: (0..MAX_DESTINATIONS + 7)
                .map(|i| format!("r{i}.example.com:443"))
                .chain(["line\nforged: yes".into(), "x".repeat(10_000)])
                .collect(),
            refused_more: u64::MAX,
        }
        .bounded();
        assert_eq!(e.reached.len(), MAX_DESTINATIONS + 1);
        let others = e.reached.iter().find(|r| r.destination == OTHERS).unwrap();
        assert_eq!(others.connections, 5);
        assert_eq!(e.refused.len(), MAX_DESTINATIONS);
        assert_eq!(e.refused_more, u64::MAX, "saturates");
        let bounded = Egress {
            reached: vec![],
            refused: vec!["line\nforged: yes".into(), "x".repeat(10_000)],
            refused_more: 0,
        }
        .bounded();
        assert_eq!(bounded.refused[0], "line\\nforged: yes");
        assert!(bounded.refused[1].len() <= MAX_DESTINATION + 3);
        // The same report bounded twice is the same: a resend is a duplicate.
        assert_eq!(bounded.clone().bounded(), bounded);
    }
}
