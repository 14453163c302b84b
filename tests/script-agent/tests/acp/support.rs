//! Launching the script agent through `blaise_runner::acp`, and reading what it says.

use std::future::Future;
use std::path::Path;
use std::time::Duration;

use blaise_runner::acp::{Agent, AgentCommand, AgentEvent, PermissionAnswer};
use blaise_runner::host::bindings::EntryKind;
use blaise_runner::protocol::entries::Permission;
use tokio::sync::{mpsc, oneshot};

pub const AGENT: &str = env!("CARGO_BIN_EXE_blaise-script-agent");

/// Long enough for a loaded machine, short enough that a hang fails the test.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// Awaits `future`, failing the test if it takes longer than [`PATIENCE`].
pub async fn soon<T>(what: &str, future: impl Future<Output = T>) -> T {
    tokio::time::timeout(PATIENCE, future)
        .await
        .unwrap_or_else(|_| panic!("{what} took longer than {PATIENCE:?}"))
}

/// The script agent in `dir` with `env` as its whole environment.
pub fn command(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> AgentCommand {
    AgentCommand {
        argv: std::iter::once(AGENT.to_owned())
            .chain(args.iter().map(|arg| (*arg).to_owned()))
            .collect(),
        env: env
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect(),
        cwd: dir.to_path_buf(),
        cwd_within: Vec::new(),
        egress_report: false,
    }
}

pub type Events = mpsc::Receiver<AgentEvent>;

pub async fn launch(command: AgentCommand) -> (Agent, Events) {
    let (events, received) = mpsc::channel(blaise_runner::acp::EVENTS);
    let agent = soon("launch", Agent::launch(command, events, None))
        .await
        .expect("the script agent launches and initializes");
    (agent, received)
}

/// One message of the transcript: its stream's chunks joined; a tool call
/// as it stood last (its title, then its output as a message of its own).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub kind: EntryKind,
    pub text: String,
    pub replay: bool,
}

pub fn message(kind: EntryKind, text: &str) -> Message {
    Message {
        kind,
        text: text.to_owned(),
        replay: false,
    }
}

pub fn replayed(kind: EntryKind, text: &str) -> Message {
    Message {
        kind,
        text: text.to_owned(),
        replay: true,
    }
}

/// Every event received so far (none may be a permission request; stderr
/// lines are skipped), and the end of the stream the agent left open,
/// checked for the stream rules: see [`messages`].
pub fn received(agent: &Agent, events: &mut Events) -> (Vec<Message>, Vec<AgentEvent>) {
    let mut all = Vec::new();
    while let Ok(event) = events.try_recv() {
        match event {
            AgentEvent::Permission { request, .. } => {
                panic!("unexpected permission request {}", request.request_id)
            }
            AgentEvent::Stderr(_) => {}
            event => all.push(event),
        }
    }
    all.extend(agent.end_stream());
    (messages(&all), all)
}

/// The messages of `events`: the entries of a stream are consecutive, share
/// kind and replay flag, and the stream is ended by exactly one `last`
/// entry; tool calls are merged by id where they first appeared.
pub fn messages(events: &[AgentEvent]) -> Vec<Message> {
    let mut messages: Vec<Message> = Vec::new();
    let mut ended: Vec<String> = Vec::new();
    let mut open: Option<String> = None;
    let mut calls: Vec<(String, usize)> = Vec::new();
    for event in events {
        let entry = match event {
            AgentEvent::Chunk(entry) => entry,
            AgentEvent::ToolCall { call, replay } => {
                assert!(open.is_none(), "a tool call while stream {open:?} is open");
                let at = match calls.iter().find(|(id, _)| *id == call.id) {
                    Some((_, at)) => *at,
                    None => {
                        calls.push((call.id.clone(), messages.len()));
                        messages.push(Message {
                            kind: EntryKind::ToolCall,
                            text: String::new(),
                            replay: *replay,
                        });
                        messages.len() - 1
                    }
                };
                messages[at].text = call.title.clone();
                let output = call.output.clone().unwrap_or_default();
                let has_output = messages
                    .get(at + 1)
                    .is_some_and(|m| m.kind == EntryKind::ToolOutput);
                match (has_output, output.is_empty()) {
                    (true, _) => messages[at + 1].text = output,
                    (false, false) => messages.insert(
                        at + 1,
                        Message {
                            kind: EntryKind::ToolOutput,
                            text: output,
                            replay: *replay,
                        },
                    ),
                    (false, true) => {}
                }
                continue;
            }
            AgentEvent::Plan { steps, replay } => {
                messages.push(Message {
                    kind: EntryKind::AgentThought,
                    text: blaise_runner::protocol::entries::plan_text(steps),
                    replay: *replay,
                });
                continue;
            }
            AgentEvent::Permission { .. } | AgentEvent::Stderr(_) | AgentEvent::Usage(_) => {
                continue;
            }
        };
        assert!(
            !ended.contains(&entry.stream_id),
            "an entry of stream {} after its last entry",
            entry.stream_id
        );
        if open.as_ref() == Some(&entry.stream_id) {
            let current = messages.last_mut().expect("an open stream has a message");
            assert_eq!((current.kind, current.replay), (entry.kind, entry.replay));
            current.text.push_str(&entry.text);
        } else {
            assert!(
                open.is_none(),
                "stream {open:?} was not ended before stream {} began",
                entry.stream_id
            );
            messages.push(Message {
                kind: entry.kind,
                text: entry.text.clone(),
                replay: entry.replay,
            });
        }
        if entry.last {
            ended.push(entry.stream_id.clone());
            open = None;
        } else {
            open = Some(entry.stream_id.clone());
        }
    }
    assert!(open.is_none(), "stream {open:?} was never ended");
    messages
}

/// The chunk an event is (the test expected one).
pub fn chunk(event: &AgentEvent) -> &blaise_runner::host::bindings::TranscriptEntry {
    match event {
        AgentEvent::Chunk(entry) => entry,
        other => panic!("a chunk expected, got {other:?}"),
    }
}

/// A permission request that arrived, and where its answer goes.
pub struct Asked {
    pub request: Permission,
    pub answer: oneshot::Sender<PermissionAnswer>,
}

/// Waits for the next permission request (what comes before it is skipped).
pub async fn next_permission(events: &mut Events) -> Asked {
    loop {
        match soon("a permission request", events.recv()).await {
            Some(AgentEvent::Permission { request, answer }) => {
                return Asked { request, answer };
            }
            Some(_) => {}
            None => panic!("the agent's events ended without a permission request"),
        }
    }
}

/// Waits for a chunk whose text contains `text`; returns the events up to it.
pub async fn entry_containing(events: &mut Events, text: &str) -> Vec<AgentEvent> {
    let mut taken = Vec::new();
    loop {
        match soon("an entry", events.recv()).await {
            Some(AgentEvent::Permission { request, .. }) => {
                panic!("unexpected permission request {}", request.request_id)
            }
            Some(AgentEvent::Chunk(entry)) => {
                let found = entry.text.contains(text);
                taken.push(AgentEvent::Chunk(entry));
                if found {
                    return taken;
                }
            }
            Some(event) => taken.push(event),
            None => panic!("the agent's events ended before an entry with {text:?}"),
        }
    }
}

/// Whether a process with this id is alive (a zombie nobody reaped is not:
/// in a container, orphans may stay zombies for a while).
pub fn process_exists(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command name in parentheses.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with(['Z', 'X'])),
        Err(_) => false,
    }
}

/// Waits until the process is gone.
pub async fn gone(pid: u32) {
    soon("the process to be gone", async {
        while process_exists(pid) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
}
