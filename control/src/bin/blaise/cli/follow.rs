//! Following a session's transcript: one line per entry (a streamed message's chunks on one),
//! the same in `session transcript`, `session new --wait`, `session send --wait` and
//! `blaise-runner dev`.

use std::io::Write;
use std::time::Duration;

use anyhow::{Result, bail};

use blaise_control::client::{Client, segment};
pub use blaise_control::follow::Printer;

/// The agent waits for a person: `--wait` stops and says how to answer (exit status 2, so a
/// script can tell it from an answer and from a failure).
#[derive(Debug, thiserror::Error)]
#[error("session {session}: the agent waits for a permission answer (above)")]
pub struct WaitsForAnswer {
    pub session: String,
}

/// Prints the entries of session `id` after `after` as they come, until its agent has answered
/// every message sent to it (none waits for a run, no turn is open). Stops early when a
/// permission request waits for an answer ([`WaitsForAnswer`]) or the session ends.
pub async fn until_answered(
    client: &Client,
    id: &str,
    mut after: i64,
    out: &mut (dyn Write + Send),
) -> Result<()> {
    let path = segment("session id", id)?;
    let mut state = "active";
    let mut printer = Printer::default();
    loop {
        // A second's long poll: a turn's end writes no entry, so the view is read again at
        // least that often.
        let page = client
            .get(&format!(
                "/v1/sessions/{path}/transcript?after={after}&wait_ms=1000&state={state}"
            ))
            .await?;
        for entry in page["entries"].as_array().into_iter().flatten() {
            after = entry["index"].as_i64().unwrap_or(after);
            printer.entry(entry, out)?;
        }
        let more = page["entries"].as_array().is_some_and(|a| !a.is_empty());
        if more {
            continue;
        }
        let view = client.get(&format!("/v1/sessions/{path}")).await?;
        let ended = !matches!(view["state"].as_str(), Some("active" | "paused"));
        // Into the next request's query: one of two words, whatever the view said (an ended
        // session's long poll answers at once anyway).
        state = if view["state"] == "paused" {
            "paused"
        } else {
            "active"
        };
        // Entries that came after the page above are printed before anything is decided.
        if view["last_index"].as_i64().is_some_and(|last| last > after) {
            continue;
        }
        // A stream still open stays on its line while the agent is quiet: only what ends the
        // wait ends the line.
        let waits = !super::show::pending(&view).is_empty();
        let answered =
            view["waiting_messages"].as_u64() == Some(0) && view["open_turns"].as_u64() == Some(0);
        if waits || answered || ended {
            printer.finish(out)?;
        }
        if super::show::pending_permissions(&view, super::human::now_ms(), out)? {
            out.flush()?;
            return Err(WaitsForAnswer {
                session: id.to_string(),
            }
            .into());
        }
        if answered {
            return Ok(());
        }
        if ended {
            bail!(
                "session {id} {} ({}) before its agent answered",
                super::human::printable(view["state"].as_str().unwrap_or("?"), false),
                super::human::printable(
                    view["end_reason"].as_str().unwrap_or("no reason recorded"),
                    false
                )
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::Printer;
    use serde_json::json;

    /// A streamed message reads as one line, whatever the chunking; an escape sequence the
    /// agent wrote reaches the terminal as text.
    #[test]
    fn chunks_join_on_one_line_and_escapes_are_shown_as_text() {
        let mut printer = Printer::default();
        let mut out = Vec::new();
        for entry in [
            json!({"index": 1, "kind": "user_message", "content": {"text": "hi"}}),
            json!({"index": 2, "kind": "agent_message", "content": {"text": "hel", "stream": "s1", "last": false}}),
            json!({"index": 3, "kind": "agent_message", "content": {"text": "lo\u{1b}[2J", "stream": "s1", "last": false}}),
            json!({"index": 4, "kind": "agent_message", "content": {"text": "!", "stream": "s1", "last": true}}),
            json!({"index": 5, "kind": "agent_message", "content": {"text": "cut", "stream": "s2", "last": false}}),
        ] {
            printer.entry(&entry, &mut out).unwrap();
        }
        printer.finish(&mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "[1] user_message: hi\n[2] agent_message: hello\\u{1b}[2J!\n[5] agent_message: cut\n"
        );
    }

    /// A tool call is printed once, when it says what it does, its output as it comes, its end
    /// under it; each state the runner recorded is not a line of its own.
    #[test]
    fn a_tool_call_is_printed_once_with_its_output_and_its_end() {
        let call = |index: i64, state: serde_json::Value| {
            json!({"index": index, "run_id": "run_1", "kind": "tool_call",
                   "content": {"text": "ignored", "tool_call": state}})
        };
        let output = |index: i64, text: &str, last: bool| {
            json!({"index": index, "run_id": "run_1", "kind": "tool_output",
                   "content": {"text": text, "stream": "tc-1/output", "last": last, "tool_call_id": "tc-1"}})
        };
        let mut printer = Printer::default();
        let mut out = Vec::new();
        for entry in [
            // Claude Code's bare first state, then its input, then its end.
            call(
                1,
                json!({"id": "tc-1", "title": "Terminal", "kind": "execute", "status": "pending", "command": "Terminal", "input": {}}),
            ),
            call(
                2,
                json!({"id": "tc-1", "title": "cargo test", "kind": "execute", "status": "pending", "command": "cargo test", "input": {"command": "cargo test"}}),
            ),
            call(
                3,
                json!({"id": "tc-1", "title": "cargo test", "kind": "execute", "status": "in_progress", "command": "cargo test", "input": {"command": "cargo test"}}),
            ),
            output(4, "running 1 test\n", false),
            output(5, "test a ... ok", false),
            output(6, "", true),
            call(
                7,
                json!({"id": "tc-1", "title": "cargo test", "kind": "execute", "status": "completed", "command": "cargo test", "exit_code": 0, "duration_ms": 3200, "output": "running 1 test\ntest a ... ok"}),
            ),
            call(
                8,
                json!({"id": "tc-2", "title": "Read lib.rs", "kind": "read", "status": "completed", "locations": [{"path": "lib.rs"}]}),
            ),
        ] {
            printer.entry(&entry, &mut out).unwrap();
        }
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "[2] tool_call: $ cargo test\n\
             [4] tool_output: running 1 test\ntest a ... ok\n\
             \x20   └ completed, exit 0, 3.2s\n\
             [8] tool_call: Read lib.rs [completed]\n"
        );
    }
}
