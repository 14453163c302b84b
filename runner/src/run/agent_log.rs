//! The agent's stderr in the runner's log, at a bounded rate: an agent that floods its stderr
//! (10 MB of a stack trace in a loop) must not become the runner's log. Lines past the budget
//! are dropped before the filters see them (nothing of them leaves the runner), and counted; the
//! count is logged when lines are let through again, and at the end of the run.

use std::time::Instant;

/// Bytes of stderr logged per second, on average.
pub const RATE: usize = 32 << 10;
/// Bytes that may come at once (an agent's start, a stack trace) before the rate applies.
pub const BURST: usize = 256 << 10;

/// A token bucket of bytes, and what it dropped since it last said.
#[derive(Debug)]
pub struct Budget {
    tokens: f64,
    at: Instant,
    dropped_lines: u64,
    dropped_bytes: u64,
}

/// What was dropped, to be said in the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dropped {
    pub lines: u64,
    pub bytes: u64,
}

impl Budget {
    pub fn new(now: Instant) -> Budget {
        Budget {
            tokens: BURST as f64,
            at: now,
            dropped_lines: 0,
            dropped_bytes: 0,
        }
    }

    /// Whether a line of `bytes` may be logged at `now`; a line that may not is counted.
    pub fn admit(&mut self, bytes: usize, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.at).as_secs_f64();
        self.at = now;
        self.tokens = (self.tokens + elapsed * RATE as f64).min(BURST as f64);
        // A line counts at least a little: a flood of empty lines is a flood too.
        let cost = bytes.max(64) as f64;
        if self.tokens >= cost {
            self.tokens -= cost;
            true
        } else {
            self.dropped_lines += 1;
            self.dropped_bytes += bytes as u64;
            false
        }
    }

    /// What was dropped since this was last asked, if anything.
    pub fn take_dropped(&mut self) -> Option<Dropped> {
        if self.dropped_lines == 0 {
            return None;
        }
        let dropped = Dropped {
            lines: std::mem::take(&mut self.dropped_lines),
            bytes: std::mem::take(&mut self.dropped_bytes),
        };
        Some(dropped)
    }
}

/// Says in the log what the budget dropped (the runner's words: not the agent's text).
pub fn log_dropped(dropped: Dropped) {
    tracing::warn!(
        target: "blaise_runner::agent",
        lines = dropped.lines,
        bytes = dropped.bytes,
        "the agent's stderr came faster than {} KiB/s: {} lines ({} bytes) of it were not logged",
        RATE >> 10,
        dropped.lines,
        dropped.bytes
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_flood_is_cut_to_the_rate_and_its_drops_are_counted() {
        let start = Instant::now();
        let mut budget = Budget::new(start);
        // 10 MB in one second, lines of 1 KiB.
        let line = 1024;
        let lines = (10 << 20) / line;
        let mut logged = 0;
        for i in 0..lines {
            let now = start + Duration::from_secs_f64(i as f64 / lines as f64);
            if budget.admit(line, now) {
                logged += line;
            }
        }
        assert!(
            logged <= BURST + RATE + line,
            "{logged} bytes logged of a second's flood"
        );
        assert!(logged >= BURST, "the burst goes through: {logged}");
        let dropped = budget.take_dropped().unwrap();
        assert_eq!(dropped.lines as usize * line + logged, lines * line);
        assert_eq!(budget.take_dropped(), None, "said once");
        // Quiet for a while: lines go through again.
        assert!(budget.admit(line, start + Duration::from_secs(30)));
    }

    #[test]
    fn an_agent_that_writes_a_little_loses_nothing() {
        let start = Instant::now();
        let mut budget = Budget::new(start);
        // 100 lines of 200 bytes a second, for a minute.
        for i in 0..6_000u64 {
            let now = start + Duration::from_millis(i * 10);
            assert!(budget.admit(200, now), "line {i}");
        }
        assert_eq!(budget.take_dropped(), None);
    }
}
