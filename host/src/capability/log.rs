//! The `log` import and the plug's stdout/stderr, into `tracing`, tagged with
//! the plug id and the session. A flood is cut at the plug's line budget per
//! hook call and reported once.

use std::pin::Pin;
use std::sync::Mutex;
use std::task::{Context, Poll};

use bytes::Bytes;
use tokio::io::AsyncWrite;
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};
use wasmtime_wasi::p2::{OutputStream, Pollable, StreamResult};

use crate::bindings::blaise::plug::log::{Host, Level};
use crate::ctx::{PlugCtx, PlugLabel};

/// Where a plug's log lines go, with the budget of the current hook call.
pub struct LogSink {
    label: PlugLabel,
    max_lines: usize,
    max_line_bytes: usize,
    budget: Mutex<Budget>,
}

#[derive(Default)]
struct Budget {
    lines: usize,
    dropped: usize,
    /// A transcript filter's call: what the plug writes may be the text it
    /// was handed (unfiltered agent output), so it is counted, not logged.
    sealed: bool,
    withheld: usize,
    /// The last line the plug wrote to stderr: a Rust plug's panic message.
    last_stderr: Option<String>,
}

impl LogSink {
    pub fn new(label: PlugLabel, max_lines: usize, max_line_bytes: usize) -> LogSink {
        LogSink {
            label,
            max_lines,
            max_line_bytes,
            budget: Mutex::new(Budget::default()),
        }
    }

    /// `text` with every secret handed out in this process masked (see
    /// [`crate::secret_mask`]): what a plug says never carries one.
    pub fn scrub<'a>(&self, text: &'a str) -> std::borrow::Cow<'a, str> {
        crate::secret_mask::scrub(text)
    }

    pub fn emit(&self, level: Level, source: &'static str, line: &str) {
        // A Rust plug's panic message is the last stderr line before the
        // hint line; it is kept even past the budget.
        let keeps_last = source == "stderr" && !line.trim().is_empty();
        let within = {
            let mut budget = self.budget.lock().unwrap();
            if budget.sealed {
                budget.withheld += 1;
                false
            } else if budget.lines < self.max_lines {
                budget.lines += 1;
                true
            } else {
                budget.dropped += 1;
                false
            }
        };
        // Past the budget a line costs a count, not a scrub.
        if !within && !keeps_last {
            return;
        }
        let line = &*self.scrub(line);
        if keeps_last && !line.starts_with("note: ") {
            self.budget.lock().unwrap().last_stderr = Some(truncate(line, 512).into_owned());
        }
        if !within {
            return;
        }
        let line = truncate(line, self.max_line_bytes);
        let (plug, session) = (&*self.label.plug_id, &*self.label.session_id);
        match level {
            Level::Trace => tracing::trace!(plug, session, source, "{line}"),
            Level::Debug => tracing::debug!(plug, session, source, "{line}"),
            Level::Info => tracing::info!(plug, session, source, "{line}"),
            Level::Warn => tracing::warn!(plug, session, source, "{line}"),
            Level::Error => tracing::error!(plug, session, source, "{line}"),
        }
    }

    /// Whose lines these are.
    pub fn label(&self) -> &PlugLabel {
        &self.label
    }

    /// Starts a hook call's budget afresh; `sealed`: a transcript filter's
    /// call, whose lines are counted and not logged.
    pub fn begin_call(&self, sealed: bool) {
        *self.budget.lock().unwrap() = Budget {
            sealed,
            ..Budget::default()
        };
    }

    /// The last line written to stderr during this call.
    pub fn last_stderr(&self) -> Option<String> {
        self.budget.lock().unwrap().last_stderr.clone()
    }

    /// Ends a hook call's budget: reports what was dropped. Returns the number
    /// of dropped lines.
    pub fn end_call(&self) -> usize {
        let withheld = std::mem::take(&mut self.budget.lock().unwrap().withheld);
        if withheld > 0 {
            tracing::warn!(
                plug = &*self.label.plug_id,
                session = &*self.label.session_id,
                "plug wrote {withheld} lines while it filtered the transcript: not logged (they may hold the text it was handed)"
            );
        }
        let dropped = std::mem::replace(&mut self.budget.lock().unwrap().dropped, 0);
        if dropped > 0 {
            tracing::warn!(
                plug = &*self.label.plug_id,
                session = &*self.label.session_id,
                "plug logged too much: {dropped} lines dropped (limit {} per hook)",
                self.max_lines
            );
        }
        dropped
    }
}

fn truncate(line: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if line.len() <= max {
        return line.into();
    }
    let mut end = max;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… [{} bytes cut]", &line[..end], line.len() - end).into()
}

/// What the `log` import sees of the store: the plug's log sink.
pub struct LogCap<'a> {
    pub sink: &'a LogSink,
}

/// Links `log` with [`LogCap`].
pub struct Log;

impl wasmtime::component::HasData for Log {
    type Data<'a> = LogCap<'a>;
}

pub fn view(ctx: &mut PlugCtx) -> LogCap<'_> {
    LogCap { sink: &ctx.log }
}

impl Host for LogCap<'_> {
    async fn log(&mut self, level: Level, message: String) {
        for line in message.lines() {
            self.sink.emit(level, "log", line);
        }
    }
}

/// A plug's stdout or stderr: split into lines and sent to its `LogSink`.
#[derive(Clone)]
pub struct OutputToLog {
    pub sink: std::sync::Arc<LogSink>,
    pub level: Level,
    pub source: &'static str,
}

impl IsTerminal for OutputToLog {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for OutputToLog {
    // Written synchronously (no adapter task), so that a panic message is in
    // the log before the hook's failure is classified.
    fn p2_stream(&self) -> Box<dyn OutputStream> {
        Box::new(self.writer())
    }

    fn async_stream(&self) -> Box<dyn AsyncWrite + Send + Sync> {
        Box::new(self.writer())
    }
}

impl OutputToLog {
    fn writer(&self) -> LineWriter {
        LineWriter {
            out: self.clone(),
            pending: Vec::new(),
        }
    }
}

struct LineWriter {
    out: OutputToLog,
    pending: Vec<u8>,
}

impl LineWriter {
    fn flush_lines(&mut self, all: bool) {
        // One pass over the buffer and one drain per write: a write of a
        // million newlines must cost a million lines, not a million copies of
        // the rest of the buffer (this runs on the host, where no epoch
        // deadline can stop it).
        let mut start = 0;
        while let Some(off) = self.pending[start..].iter().position(|&b| b == b'\n') {
            let end = start + off;
            let text = String::from_utf8_lossy(&self.pending[start..end]);
            self.out.sink.emit(self.out.level, self.out.source, &text);
            start = end + 1;
        }
        self.pending.drain(..start);
        // An unterminated line is kept until it ends, but never grows unbounded.
        if (all && !self.pending.is_empty()) || self.pending.len() > self.out.sink.max_line_bytes {
            let text = String::from_utf8_lossy(&self.pending).into_owned();
            self.pending.clear();
            self.out.sink.emit(self.out.level, self.out.source, &text);
        }
    }
}

impl OutputStream for LineWriter {
    fn write(&mut self, bytes: Bytes) -> StreamResult<()> {
        self.pending.extend_from_slice(&bytes);
        self.flush_lines(false);
        Ok(())
    }

    fn flush(&mut self) -> StreamResult<()> {
        Ok(())
    }

    fn check_write(&mut self) -> StreamResult<usize> {
        Ok(64 << 10)
    }
}

#[wasmtime_wasi::async_trait]
impl Pollable for LineWriter {
    async fn ready(&mut self) {}
}

impl AsyncWrite for LineWriter {
    fn poll_write(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        self.pending.extend_from_slice(buf);
        self.flush_lines(false);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        self.flush_lines(false);
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        self.flush_lines(true);
        Poll::Ready(Ok(()))
    }
}

impl Drop for LineWriter {
    fn drop(&mut self) {
        self.flush_lines(true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sink(max_lines: usize) -> std::sync::Arc<LogSink> {
        let label = PlugLabel {
            plug_id: "flood".into(),
            session_id: "ses_0000000000000000".into(),
        };
        std::sync::Arc::new(LogSink::new(label, max_lines, 4096))
    }

    #[test]
    fn one_write_of_many_lines_costs_each_line_once() {
        // A single WASI `write` is not held to `check-write`'s permit, so a
        // plug can hand over megabytes at once. Before the lines were cut in
        // one pass, 2 MiB of newlines copied ~2 TB and held the run process
        // for hours, past every deadline.
        let sink = sink(10);
        let out = OutputToLog {
            sink: sink.clone(),
            level: Level::Info,
            source: "stdout",
        };
        let mut writer = out.writer();
        let lines = 2 << 20;
        OutputStream::write(&mut writer, Bytes::from(vec![b'\n'; lines])).unwrap();
        OutputStream::write(&mut writer, Bytes::from_static(b"tail")).unwrap();
        assert_eq!(writer.pending, b"tail", "the unterminated tail is kept");
        drop(writer);
        assert_eq!(
            sink.end_call(),
            lines + 1 - 10,
            "all but the budget dropped"
        );
    }
}
