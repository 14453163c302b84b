//! A session's transcript as a person follows it in a terminal: one line per
//! entry, a streamed message's chunks on one. `blaise session transcript`,
//! `session new --wait` and `blaise-runner dev` print with it.

use std::io::Write;

use serde_json::Value;

/// Entries as a person reads them in a terminal: `[index] kind: text`, what the agent wrote
/// without escape sequences (a multi-line text keeps its lines), the chunks of a streamed
/// message joined after its first one's line, as they come.
#[derive(Default)]
pub struct Printer {
    /// The stream whose chunks are being joined on the current line.
    open_stream: Option<String>,
}

impl Printer {
    pub fn entry(&mut self, entry: &Value, out: &mut dyn Write) -> std::io::Result<()> {
        let content = &entry["content"];
        let text = content["text"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| content.to_string());
        let text = printable(&text, true);
        let stream = content["stream"].as_str().map(str::to_string);
        if stream.is_some() && stream == self.open_stream {
            write!(out, "{text}")?;
        } else {
            self.finish(out)?;
            write!(
                out,
                "[{}] {}: {text}",
                entry["index"].as_i64().unwrap_or_default(),
                entry["kind"].as_str().unwrap_or_default(),
            )?;
        }
        self.open_stream = stream.filter(|_| content["last"].as_bool() == Some(false));
        if self.open_stream.is_none() {
            writeln!(out)?;
        }
        out.flush()
    }

    /// Ends the line of a stream that stopped before its last chunk.
    pub fn finish(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        if self.open_stream.take().is_some() {
            writeln!(out)?;
        }
        Ok(())
    }
}

/// `t` with its control characters escaped; line breaks and tabs kept when
/// `lines` (a transcript entry's text). What an agent wrote could hold escape
/// sequences that retitle the window, write the clipboard or hide what follows.
pub fn printable(t: &str, lines: bool) -> String {
    if !t.chars().any(char::is_control) {
        return t.to_string();
    }
    t.chars()
        .map(|c| match c {
            '\n' | '\t' if lines => c.to_string(),
            c if c.is_control() => c.escape_default().to_string(),
            c => c.to_string(),
        })
        .collect()
}
