//! One turn: the commands of a prompt, carried out in order, each reported
//! to the client as `session/update` notifications.

use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    Content, ContentBlock, ContentChunk, Diff, MessageId, PermissionOption, PermissionOptionKind,
    Plan, PlanEntry, PlanEntryPriority, PlanEntryStatus, RequestPermissionOutcome,
    RequestPermissionRequest, SessionNotification, SessionUpdate, StopReason, Terminal,
    TextContent, ToolCall, ToolCallContent, ToolCallLocation, ToolCallStatus, ToolCallUpdate,
    ToolCallUpdateFields, ToolKind,
};

use crate::script::{self, Command};
use crate::session::{Session, Sessions};
use crate::store::Record;

/// The exit status of `crash`.
pub const CRASH_STATUS: i32 = 101;
/// The exit status of `exit`, once the turn is answered.
pub const EXIT_STATUS: i32 = 3;

/// Set by `exit`: the process exits once the turn is answered.
pub static EXIT_AFTER_TURN: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Tool call ids, unique within the process.
static TOOL_CALLS: AtomicU64 = AtomicU64::new(0);

/// A turn in progress.
struct Turn<'a> {
    sessions: &'a Sessions,
    session: &'a Session,
    cx: &'a ConnectionTo<Client>,
}

/// Carries out the prompt's commands and returns the turn's stop reason.
/// The user's text has already been recorded.
pub async fn run(
    sessions: Arc<Sessions>,
    session: Arc<Session>,
    cx: ConnectionTo<Client>,
    prompt: String,
) -> anyhow::Result<StopReason> {
    let turn = Turn {
        sessions: &sessions,
        session: &session,
        cx: &cx,
    };
    for command in script::parse(&prompt) {
        if session.is_cancelled() {
            return Ok(StopReason::Cancelled);
        }
        turn.carry_out(command).await?;
    }
    Ok(if session.is_cancelled() {
        StopReason::Cancelled
    } else {
        StopReason::EndTurn
    })
}

impl Turn<'_> {
    async fn carry_out(&self, command: Command) -> anyhow::Result<()> {
        match command {
            Command::Say(text) => self.say(text),
            Command::Think(text) => {
                let id = self.session.next_message_id();
                self.update(SessionUpdate::AgentThoughtChunk(chunk(&id, text.clone())))?;
                self.session.record(Record::Thought { text })
            }
            Command::Stream(count, text) => {
                let id = self.session.next_message_id();
                for part in script::chunks(&text, count) {
                    self.update(SessionUpdate::AgentMessageChunk(chunk(&id, part)))?;
                    tokio::task::yield_now().await;
                }
                self.session.record(Record::Agent { text })
            }
            Command::Drip(ms, count, text) => {
                let id = self.session.next_message_id();
                for (n, part) in script::chunks(&text, count).into_iter().enumerate() {
                    if n > 0 {
                        tokio::time::sleep(Duration::from_millis(ms)).await;
                    }
                    self.update(SessionUpdate::AgentMessageChunk(chunk(&id, part)))?;
                }
                self.session.record(Record::Agent { text })
            }
            Command::Run(command) => self.run_command(command).await,
            Command::Flood(count, rate) => {
                let mut tick =
                    tokio::time::interval(Duration::from_secs_f64(1.0 / f64::from(rate)));
                tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
                for n in 0..count {
                    if self.session.is_cancelled() {
                        break;
                    }
                    tick.tick().await;
                    let sent = std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0, |d| d.as_micros());
                    // A message each (not recorded: a flood is load, not conversation).
                    let id = format!("{}-flood-{n}", self.session.next_message_id());
                    self.update(SessionUpdate::AgentMessageChunk(chunk(
                        &id,
                        format!("sent_us={sent}"),
                    )))?;
                }
                Ok(())
            }
            Command::Env(name) => self.say(match std::env::var(&name) {
                Ok(value) => format!("{name}={value}"),
                Err(_) => format!("{name} is not set"),
            }),
            Command::Ask(title) => self.ask(title).await,
            Command::Wait => {
                self.session.cancelled().await;
                Ok(())
            }
            Command::Sleep(duration) => {
                tokio::select! {
                    () = tokio::time::sleep(duration) => {}
                    () = self.session.cancelled() => {}
                }
                Ok(())
            }
            Command::Crash => crash().await,
            Command::Hang => std::future::pending().await,
            Command::Exit => {
                EXIT_AFTER_TURN.store(true, Ordering::Release);
                Ok(())
            }
            Command::Spew(bytes) => tokio::task::spawn_blocking(move || spew(bytes)).await?,
            Command::Leak(text) => self.leak(expand(text)).await,
            Command::Fail(text) => Err(anyhow::anyhow!(expand(text))),
            Command::Echo(line) => self.say(format!("You said: {line}")),
        }
    }

    /// One agent message, in one chunk.
    fn say(&self, text: String) -> anyhow::Result<()> {
        let id = self.session.next_message_id();
        self.update(SessionUpdate::AgentMessageChunk(chunk(&id, text.clone())))?;
        self.session.record(Record::Agent { text })
    }

    fn update(&self, update: SessionUpdate) -> anyhow::Result<()> {
        send_update(self.cx, &self.session.id, update)
            .map_err(|error| anyhow::anyhow!("could not send a session update: {error}"))
    }

    /// `run CMD`: a tool call, in progress until `sh -c CMD` has ended,
    /// then completed (exit status 0) or failed, with its output. When the
    /// client announced `terminal_output`, what the command prints is sent
    /// as it comes (`_meta.terminal_output`) and its end carries
    /// `_meta.terminal_exit`, as Claude Code's and Codex's adapters do.
    async fn run_command(&self, command: String) -> anyhow::Result<()> {
        let id = format!("tool-{}", TOOL_CALLS.fetch_add(1, Ordering::Relaxed));
        let streams = self.sessions.terminal_output.load(Ordering::Relaxed);
        self.update(SessionUpdate::ToolCall(
            ToolCall::new(id.clone(), command.clone())
                .kind(ToolKind::Execute)
                .status(ToolCallStatus::InProgress)
                .raw_input(serde_json::json!({ "command": command })),
        ))?;
        let child = tokio::process::Command::new("sh")
            .arg("-c")
            .arg(&command)
            .current_dir(if self.session.cwd.is_dir() {
                &self.session.cwd
            } else {
                &self.sessions.working_dir
            })
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn();
        let (output, exit_code) = match child {
            Err(error) => (format!("could not run sh: {error}\n"), None),
            Ok(child) => tokio::select! {
                ran = self.printed(child, &id, streams) => ran?,
                () = self.session.cancelled() => ("cancelled\n".to_owned(), None),
            },
        };
        // The whole output again at the end, streamed or not, as Codex's formatted output.
        let end = ToolCallUpdateFields::new()
            .status(tool_status(exit_code))
            .content(vec![ToolCallContent::Content(Content::new(text_block(
                output.clone(),
            )))])
            .raw_output(serde_json::json!({ "exit_code": exit_code }));
        let mut update = ToolCallUpdate::new(id.clone(), end);
        if streams {
            update = update.meta(meta(serde_json::json!({
                "terminal_exit": { "terminal_id": id, "exit_code": exit_code, "signal": null }
            })));
        }
        self.update(SessionUpdate::ToolCallUpdate(update))?;
        self.session.record(Record::Tool {
            title: command,
            output,
            exit_code,
        })
    }

    /// What `child` prints (stdout and stderr, in the order read) and its
    /// exit status; each piece sent as it comes when `streams`.
    async fn printed(
        &self,
        mut child: tokio::process::Child,
        id: &str,
        streams: bool,
    ) -> anyhow::Result<(String, Option<i32>)> {
        use tokio::io::{AsyncRead, AsyncReadExt};
        let (pieces, mut read) = tokio::sync::mpsc::unbounded_channel::<Vec<u8>>();
        let pipes: [Box<dyn AsyncRead + Unpin + Send>; 2] = [
            Box::new(child.stdout.take().expect("piped")),
            Box::new(child.stderr.take().expect("piped")),
        ];
        for mut pipe in pipes {
            let pieces = pieces.clone();
            tokio::spawn(async move {
                // A read may end inside a character: its first bytes wait for the rest, so that
                // each piece is whole characters of one pipe.
                let mut buf = [0u8; 4096];
                let mut held = Vec::new();
                while let Ok(n @ 1..) = pipe.read(&mut buf).await {
                    held.extend_from_slice(&buf[..n]);
                    let whole = complete_utf8(&held);
                    if whole > 0 && pieces.send(held.drain(..whole).collect()).is_err() {
                        return;
                    }
                }
                if !held.is_empty() {
                    let _ = pieces.send(held);
                }
            });
        }
        drop(pieces);
        let mut bytes = Vec::new();
        while let Some(piece) = read.recv().await {
            if streams {
                let data = String::from_utf8_lossy(&piece).into_owned();
                let update = ToolCallUpdate::new(id.to_owned(), ToolCallUpdateFields::new()).meta(
                    meta(serde_json::json!({
                        "terminal_output": { "terminal_id": id, "data": data }
                    })),
                );
                self.update(SessionUpdate::ToolCallUpdate(update))?;
            }
            bytes.extend_from_slice(&piece);
        }
        let status = child.wait().await?;
        Ok((String::from_utf8_lossy(&bytes).into_owned(), status.code()))
    }

    /// `ask TITLE`: `session/request_permission` with the options `allow`
    /// and `deny`; then says what the client chose.
    async fn ask(&self, title: String) -> anyhow::Result<()> {
        let id = format!("tool-{}", TOOL_CALLS.fetch_add(1, Ordering::Relaxed));
        let request = RequestPermissionRequest::new(
            self.session.id.clone(),
            ToolCallUpdate::new(id, ToolCallUpdateFields::new().title(title)),
            vec![
                PermissionOption::new("allow", "Allow", PermissionOptionKind::AllowOnce),
                PermissionOption::new("deny", "Deny", PermissionOptionKind::RejectOnce),
            ],
        );
        let answer = match self.cx.send_request(request).block_task().await {
            Ok(response) => match response.outcome {
                RequestPermissionOutcome::Selected(selected) => {
                    format!("Option chosen: {}", selected.option_id)
                }
                RequestPermissionOutcome::Cancelled => "Permission request cancelled".to_owned(),
                other => format!("Permission request answered with {other:?}"),
            },
            Err(error) => format!("Permission request failed: {error}"),
        };
        self.say(answer)
    }
}

impl Turn<'_> {
    /// `leak TEXT`: TEXT in every field of ACP an agent fills — a user
    /// message chunk (an echo), a message, a thought, a plan, a tool call
    /// (id, title, input, content, a diff, locations, raw output, a
    /// terminal), a permission request (its tool call, option ids and
    /// names) and a line of stderr — then says what was chosen.
    async fn leak(&self, text: String) -> anyhow::Result<()> {
        let id = self.session.next_message_id();
        self.update(SessionUpdate::UserMessageChunk(chunk(
            &id,
            format!("echo {text}"),
        )))?;
        self.say(format!("message {text}"))?;
        self.update(SessionUpdate::AgentThoughtChunk(chunk(
            &self.session.next_message_id(),
            format!("thought {text}"),
        )))?;
        self.update(SessionUpdate::Plan(Plan::new(vec![PlanEntry::new(
            format!("step {text}"),
            PlanEntryPriority::High,
            PlanEntryStatus::InProgress,
        )])))?;
        eprintln!("stderr {text}");
        // TEXT stands as a word of its own in each field (after a space or
        // a `/`), as an agent would print it.
        let call = format!("call {text}");
        self.update(SessionUpdate::ToolCall(
            ToolCall::new(call.clone(), format!("title {text}"))
                .kind(ToolKind::Edit)
                .status(ToolCallStatus::InProgress)
                .raw_input(serde_json::json!({ format!("key {text}"): format!("input {text}") }))
                .locations(vec![ToolCallLocation::new(format!("/w/{text}")).line(1)])
                .content(vec![
                    ToolCallContent::Content(Content::new(text_block(format!("content {text}")))),
                    ToolCallContent::Diff(
                        Diff::new(format!("/w/{text}"), format!("new {text}"))
                            .old_text(format!("old {text}")),
                    ),
                    ToolCallContent::Terminal(Terminal::new(format!("term {text}"))),
                ]),
        ))?;
        self.update(SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
            call.clone(),
            ToolCallUpdateFields::new()
                .status(ToolCallStatus::Completed)
                .raw_output(serde_json::json!({ "output": format!("raw {text}") })),
        )))?;
        let request = RequestPermissionRequest::new(
            self.session.id.clone(),
            ToolCallUpdate::new(
                format!("ask {text}"),
                ToolCallUpdateFields::new()
                    .title(format!("ask {text}"))
                    .kind(ToolKind::Execute)
                    .raw_input(serde_json::json!({ "command": format!("rm {text}") })),
            ),
            vec![
                PermissionOption::new(
                    format!("yes {text}"),
                    format!("Yes {text}"),
                    PermissionOptionKind::AllowOnce,
                ),
                PermissionOption::new("no", format!("No {text}"), PermissionOptionKind::RejectOnce),
            ],
        );
        let answer = match self.cx.send_request(request).block_task().await {
            Ok(response) => match response.outcome {
                RequestPermissionOutcome::Selected(selected) => {
                    format!("Option chosen: {}", selected.option_id)
                }
                _ => "Permission request cancelled".to_owned(),
            },
            Err(error) => format!("Permission request failed: {error}"),
        };
        self.say(answer)
    }
}

/// `$NAME`: the value of the agent's environment variable NAME (what the
/// agent has and the user did not write); any other text as it is.
fn expand(text: String) -> String {
    match text.strip_prefix('$').map(std::env::var) {
        Some(Ok(value)) => value,
        _ => text,
    }
}

/// `crash`: exits with status 101 in the middle of the turn. The short pause
/// first lets the updates already sent reach the client.
/// `spew BYTES`: lines of about 1 KiB on stderr, `BYTES` in all.
fn spew(bytes: usize) -> anyhow::Result<()> {
    use std::io::Write;
    let line = format!("{}\n", "spew ".repeat(200));
    let mut stderr = std::io::stderr().lock();
    let mut written = 0;
    while written < bytes {
        let part = &line.as_bytes()[..line.len().min(bytes - written)];
        stderr.write_all(part)?;
        written += part.len();
    }
    stderr.flush()?;
    Ok(())
}

async fn crash() -> anyhow::Result<()> {
    tokio::time::sleep(Duration::from_millis(50)).await;
    eprintln!("blaise-script-agent: crashing, as the script asked");
    std::process::exit(CRASH_STATUS);
}

pub fn send_update(
    cx: &ConnectionTo<Client>,
    session_id: &str,
    update: SessionUpdate,
) -> Result<(), agent_client_protocol::Error> {
    cx.send_notification(SessionNotification::new(session_id.to_owned(), update))
}

/// Completed when the command exited with 0, failed otherwise.
pub fn tool_status(exit_code: Option<i32>) -> ToolCallStatus {
    if exit_code == Some(0) {
        ToolCallStatus::Completed
    } else {
        ToolCallStatus::Failed
    }
}

pub fn text_block(text: String) -> ContentBlock {
    ContentBlock::Text(TextContent::new(text))
}

/// A chunk of the message `message_id`.
pub fn chunk(message_id: &str, text: String) -> ContentChunk {
    ContentChunk::new(text_block(text)).message_id(MessageId::new(message_id))
}

/// A `_meta` object.
fn meta(value: serde_json::Value) -> agent_client_protocol::v1::schema::Meta {
    match value {
        serde_json::Value::Object(map) => map,
        _ => agent_client_protocol::v1::schema::Meta::new(),
    }
}

/// How much of `bytes` is whole characters: all but a character cut at the end. Invalid bytes
/// are not waited for (they are shown as U+FFFD).
fn complete_utf8(bytes: &[u8]) -> usize {
    match std::str::from_utf8(bytes) {
        Ok(_) => bytes.len(),
        Err(e) if e.error_len().is_none() => e.valid_up_to(),
        Err(_) => bytes.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::complete_utf8;

    #[test]
    fn a_character_cut_at_the_end_waits_for_its_rest() {
        let text = "a─b🔑".as_bytes();
        for cut in 0..=text.len() {
            let n = complete_utf8(&text[..cut]);
            assert!(std::str::from_utf8(&text[..n]).is_ok(), "cut at {cut}");
            assert!(cut - n < 4, "cut at {cut}");
        }
        assert_eq!(complete_utf8("a─".as_bytes()), 4);
        assert_eq!(complete_utf8(&"a─".as_bytes()[..2]), 1);
        assert_eq!(
            complete_utf8(b"ok\xff"),
            3,
            "invalid bytes are not waited for"
        );
    }
}
