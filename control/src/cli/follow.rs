//! Following a session's transcript: one line per entry, the same in `session transcript`,
//! `session new --wait`, `session send --wait` and `blaise-runner dev`.

use std::io::Write;
use std::time::Duration;

use anyhow::{Result, bail};
use serde_json::Value;

use super::Client;
use super::client::segment;

/// An entry as a person reads it in a terminal: `[index] kind: text`, what the agent wrote
/// without escape sequences (a multi-line text keeps its lines).
pub fn entry_line(entry: &Value) -> String {
    let content = &entry["content"];
    let text = content["text"]
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| content.to_string());
    format!(
        "[{}] {}: {}",
        entry["index"].as_i64().unwrap_or_default(),
        entry["kind"].as_str().unwrap_or_default(),
        super::human::printable(&text, true)
    )
}

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
    let mut state = String::from("active");
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
            writeln!(out, "{}", entry_line(entry))?;
        }
        out.flush()?;
        let more = page["entries"].as_array().is_some_and(|a| !a.is_empty());
        if more {
            continue;
        }
        let view = client.get(&format!("/v1/sessions/{path}")).await?;
        state = view["state"].as_str().unwrap_or("active").to_string();
        // Entries that came after the page above are printed before anything is decided.
        if view["last_index"].as_i64().is_some_and(|last| last > after) {
            continue;
        }
        if super::show::pending_permissions(&view, super::human::now_ms(), out)? {
            out.flush()?;
            return Err(WaitsForAnswer {
                session: id.to_string(),
            }
            .into());
        }
        if view["waiting_messages"].as_u64() == Some(0) && view["open_turns"].as_u64() == Some(0) {
            return Ok(());
        }
        if !matches!(state.as_str(), "active" | "paused") {
            bail!(
                "session {id} {state} ({}) before its agent answered",
                view["end_reason"].as_str().unwrap_or("no reason recorded")
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
