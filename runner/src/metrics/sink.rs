//! The run process's side: what happens inside a run (hook calls, bytes through the filters, the
//! outbox), written as [`Sample`] lines to the pipe the daemon gave it (`run-one --metrics-fd`).
//! Best effort: a run never waits for its metrics, and a sample that does not fit in the pipe is
//! dropped.

use std::io::Write;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use super::Sample;

static SINK: OnceLock<Mutex<std::fs::File>> = OnceLock::new();

/// Sends this process's samples to descriptor `fd` from now on, and has the plug host tell of
/// every hook call.
pub fn open(fd: std::os::fd::RawFd) -> std::io::Result<()> {
    let file = crate::child_pipe::inherited_writer(fd)?;
    let _ = SINK.set(Mutex::new(file));
    blaise_host::observe_hooks(hook);
    Ok(())
}

fn send(sample: &Sample) {
    let Some(sink) = SINK.get() else {
        return;
    };
    let Ok(mut line) = serde_json::to_vec(sample) else {
        return;
    };
    line.push(b'\n');
    let mut file = sink.lock().unwrap_or_else(|e| e.into_inner());
    // One write of a line under PIPE_BUF is atomic: the daemon never reads half of one.
    let _ = file.write(&line);
}

fn hook(call: &blaise_host::HookCall) {
    send(&Sample::Hook {
        plug: call.plug.to_string(),
        hook: call.hook.to_string(),
        seconds: call.took.as_secs_f64(),
        ok: call.ok,
        bytes: call.bytes as u64,
    });
}

/// Tells the daemon what became of the warm agent this run took.
pub fn warm(outcome: super::WarmOutcome) {
    send(&Sample::Warm { outcome });
}

/// How often the outbox's depth is told while it changes (and at once when it empties).
const OUTBOX_EVERY: Duration = Duration::from_millis(500);

/// Tells the outbox's depth, at most every [`OUTBOX_EVERY`] unless it is empty.
#[derive(Default)]
pub struct OutboxGauge {
    last: Option<(Instant, (u64, u64, u64))>,
}

impl OutboxGauge {
    pub fn set(&mut self, items: usize, bytes: usize, spilled: u64) {
        let now = (items as u64, bytes as u64, spilled);
        let due = match self.last {
            None => now != (0, 0, 0),
            Some((at, last)) => last != now && (now.0 == 0 || at.elapsed() >= OUTBOX_EVERY),
        };
        if due {
            self.last = Some((Instant::now(), now));
            send(&Sample::Outbox {
                items: now.0,
                bytes: now.1,
                spilled: now.2,
            });
        }
    }
}
