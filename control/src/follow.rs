//! A session's transcript as a person follows it in a terminal: one line per
//! entry, a streamed message's chunks on one, a tool call once (with its end
//! under it). `blaise session transcript`, `session new --wait` and
//! `blaise-runner dev` print with it.

use std::collections::HashMap;
use std::io::Write;

use serde_json::Value;

/// Entries as a person reads them in a terminal: `[index] kind: text`, what the agent wrote
/// without escape sequences (a multi-line text keeps its lines), the chunks of a streamed
/// message joined after its first one's line, as they come. A tool call is printed once, when
/// it says what it does (its first bare state, `Terminal` with no input, is not), with its
/// command; what the command prints follows as it comes, and its end (status, exit status,
/// how long it took) is a line under it.
#[derive(Default)]
pub struct Printer {
    /// The stream whose chunks are being joined on the current line.
    open_stream: Option<String>,
    /// Tool calls printed (by run and id), and whether their end was.
    calls: HashMap<(String, String), bool>,
}

impl Printer {
    pub fn entry(&mut self, entry: &Value, out: &mut dyn Write) -> std::io::Result<()> {
        if entry["kind"] == "tool_call" {
            return self.tool_call(entry, out);
        }
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

    fn tool_call(&mut self, entry: &Value, out: &mut dyn Write) -> std::io::Result<()> {
        let call = &entry["content"]["tool_call"];
        let s = |k: &str| call[k].as_str().unwrap_or_default();
        let key = (
            entry["run_id"].as_str().unwrap_or_default().to_owned(),
            s("id").to_owned(),
        );
        let ended = matches!(s("status"), "completed" | "failed");
        match self.calls.get(&key) {
            Some(true) => return Ok(()),
            Some(false) if !ended => return Ok(()),
            Some(false) => {
                self.finish(out)?;
                writeln!(out, "    └ {}", end_of(call))?;
            }
            None => {
                if bare(call) {
                    return Ok(());
                }
                self.finish(out)?;
                let title = printable(s("title"), false);
                let command = printable(s("command"), true);
                let head = match (title.as_str(), command.as_str()) {
                    (_, "") => title.clone(),
                    (t, c) if t == c => format!("$ {c}"),
                    (t, c) => format!("{t}\n    $ {c}"),
                };
                write!(
                    out,
                    "[{}] tool_call: {head}",
                    entry["index"].as_i64().unwrap_or_default()
                )?;
                if ended {
                    write!(out, " [{}]", end_of(call))?;
                }
                writeln!(out)?;
            }
        }
        self.calls.insert(key, ended);
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

/// A call's first state before the agent says what it does: pending, with no input (an empty
/// object), no content and no files — Claude Code's `Terminal` as the model starts writing it.
fn bare(call: &Value) -> bool {
    call["status"] == "pending"
        && call["input"].as_object().is_none_or(|i| i.is_empty())
        && call["content"].as_array().is_none_or(|c| c.is_empty())
        && call["locations"].as_array().is_none_or(|l| l.is_empty())
}

/// How a call ended: `completed, exit 0, 3.2s`.
fn end_of(call: &Value) -> String {
    let mut parts = vec![call["status"].as_str().unwrap_or_default().to_owned()];
    if let Some(code) = call["exit_code"].as_i64() {
        parts.push(format!("exit {code}"));
    }
    if let Some(ms) = call["duration_ms"].as_u64() {
        parts.push(blaise_protocol::entries::took(ms));
    }
    parts.join(", ")
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
