//! The runner's handling of what the agent sends over ACP: `session/update`
//! notifications and `session/request_permission` requests, parsed as the
//! `agent-client-protocol` v1 types and fed through the transcript builder
//! (`runner/src/acp/events.rs`), whose entries are then checked.

use agent_client_protocol::v1::schema::{RequestPermissionRequest, SessionNotification};
use arbitrary::{Arbitrary, Result, Unstructured};
use blaise_runner::acp::AgentEvent;
use blaise_runner::fuzzing::Transcript;
use blaise_runner::host::bindings::EntryKind;
use serde_json::{Value, json};

use super::{Outcome, Target};
use crate::shapes::{Field, Json, Obj, Word};

pub struct AcpMessages;

impl Target for AcpMessages {
    fn name(&self) -> &'static str {
        "acp_messages"
    }

    fn generate(&mut self, u: &mut Unstructured) -> Result<Vec<u8>> {
        let messages: Vec<Message> = u.arbitrary()?;
        let mut out = Vec::new();
        for (id, message) in messages.iter().enumerate() {
            out.extend(serde_json::to_vec(&message.json(id)).unwrap_or_default());
            out.push(b'\n');
        }
        Ok(out)
    }

    fn run(&mut self, input: &[u8]) -> Outcome {
        run(input);
        Outcome::Ok
    }
}

/// One stdio stream from the agent: JSON-RPC messages, one a line.
pub fn run(input: &[u8]) {
    let mut transcript = Transcript::default();
    let mut permissions = Vec::new();
    for line in input.split(|&b| b == b'\n') {
        // The JSON-RPC layer drops what is not JSON; so do we.
        let Ok(message) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        let params = message.get("params").cloned();
        match message.get("method").and_then(Value::as_str) {
            Some("session/update") => {
                if let Some(Ok(notification)) =
                    params.map(serde_json::from_value::<SessionNotification>)
                {
                    transcript.update(notification.update);
                }
            }
            Some("session/request_permission") => {
                if let Some(Ok(request)) =
                    params.map(serde_json::from_value::<RequestPermissionRequest>)
                {
                    permissions.push(permission(&mut transcript, &message, &request));
                }
            }
            // The runner's own `session/load` (echoed in a stream): what
            // follows is the replay, until an answer comes.
            Some("session/load") => transcript.set_replay(true),
            Some(_) => {}
            // An answer to one of the runner's calls: a prompt or a load ended.
            None if message.get("result").is_some() || message.get("error").is_some() => {
                transcript.set_replay(false)
            }
            None => {
                // Bare params, as a test or a log would hold them.
                if let Ok(notification) = serde_json::from_slice::<SessionNotification>(line) {
                    transcript.update(notification.update);
                }
                if let Ok(request) = serde_json::from_slice::<RequestPermissionRequest>(line) {
                    permissions.push(permission(&mut transcript, &message, &request));
                }
            }
        }
    }
    transcript.end_stream();
    check(transcript.drain(), &permissions);
}

/// What `acp::permission::handle` does with a request before it waits.
fn permission(
    transcript: &mut Transcript,
    _message: &Value,
    request: &RequestPermissionRequest,
) -> String {
    transcript.permission(request)
}

/// Whether `id` is `PREFIX-N`: the runner's own id, no text of the agent's.
fn runners_id(id: &str, prefix: &str) -> bool {
    id.strip_prefix(prefix)
        .and_then(|n| n.strip_prefix('-'))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// The transcript's promises (`runner/src/acp/mod.rs`): one stream open at a
/// time, one kind per stream, every stream ended by a `last` entry, ids never
/// reused; tool calls and permission requests under the runner's own ids,
/// a permission request's tool call announced before it.
fn check(events: Vec<AgentEvent>, permissions: &[String]) {
    let mut open: Option<(String, EntryKind)> = None;
    let mut ended: Vec<String> = Vec::new();
    let mut asked = permissions.iter();
    let mut announced: Vec<String> = Vec::new();
    for event in events {
        match event {
            AgentEvent::Chunk(entry) => {
                assert!(
                    !ended.contains(&entry.stream_id),
                    "stream {} continued after its last entry",
                    entry.stream_id
                );
                if let Some((id, kind)) = &open {
                    assert_eq!(
                        id, &entry.stream_id,
                        "stream {} began while {id} was open",
                        entry.stream_id
                    );
                    assert_eq!(*kind, entry.kind, "stream {id} changed its kind");
                }
                if entry.last {
                    ended.push(entry.stream_id.clone());
                    open = None;
                } else {
                    open = Some((entry.stream_id.clone(), entry.kind));
                }
            }
            AgentEvent::ToolCall { call, .. } => {
                assert!(open.is_none(), "a tool call while a stream is open");
                assert!(runners_id(&call.id, "tc"), "tool call id {:?}", call.id);
                announced.push(call.id);
            }
            AgentEvent::Plan { .. } => {
                assert!(open.is_none(), "a plan while a stream is open");
            }
            AgentEvent::Permission { request, .. } => {
                assert_eq!(
                    Some(&request.request_id),
                    asked.next(),
                    "permission events in order"
                );
                assert!(runners_id(&request.request_id, "perm"));
                assert!(
                    announced.contains(&request.tool_call.id),
                    "the request's tool call was announced before it"
                );
            }
            AgentEvent::Stderr(_) => unreachable!("no stderr here"),
            // What the agent used: never negative, whatever it sent.
            AgentEvent::Usage(used) => {
                if let Some((step, _)) = used.cost {
                    assert!(step >= 0.0 && step.is_finite(), "a cost step of {step}");
                }
            }
        }
    }
    assert!(open.is_none(), "a stream was left open: {open:?}");
    assert!(asked.next().is_none(), "a permission request sent no event");
}

/// An option of a permission request: id, name, kind.
type PermissionOption = (Field<Word>, Field<Word>, Field<OptionKind>);

/// What an agent may send.
#[derive(Debug, Arbitrary)]
enum Message {
    Update {
        session: Field<Word>,
        update: Update,
    },
    Permission {
        session: Field<Word>,
        tool_call_id: Field<Word>,
        title: Option<Word>,
        content: Option<Vec<ToolContent>>,
        options: Field<Vec<PermissionOption>>,
    },
    Answer {
        stop_reason: Word,
    },
    Load,
    Raw(Json),
}

#[derive(Debug, Arbitrary)]
enum Update {
    UserChunk(Chunk),
    AgentChunk(Chunk),
    ThoughtChunk(Chunk),
    ToolCall {
        id: Field<Word>,
        title: Field<Word>,
        kind: Option<Word>,
        status: Option<Status>,
        content: Option<Vec<ToolContent>>,
        raw_input: Option<Json>,
    },
    ToolProgress {
        id: Field<Word>,
        title: Option<Word>,
        status: Option<Status>,
        content: Option<Field<Vec<ToolContent>>>,
    },
    Plan(Vec<(Word, Word, Status)>),
    Commands(Vec<(Word, Word)>),
    Mode(Word),
    Other(Word, Json),
}

#[derive(Debug, Arbitrary)]
struct Chunk {
    content: Field<Content>,
    message_id: Option<Field<Word>>,
}

#[derive(Debug, Arbitrary)]
enum Content {
    Text(Word),
    Image(Word, Word),
    Audio(Word, Word),
    Link(Word, Word),
    TextResource(Word, Word),
    BlobResource(Word, Word),
    Unknown(Word, Json),
}

#[derive(Debug, Arbitrary)]
enum ToolContent {
    Content(Field<Content>),
    Diff {
        path: Field<Word>,
        old: Option<Word>,
        new: Field<Word>,
    },
    Terminal(Field<Word>),
    Unknown(Json),
}

#[derive(Debug, Arbitrary)]
enum Status {
    Pending,
    InProgress,
    Completed,
    Failed,
    Other(Word),
}

#[derive(Debug, Arbitrary)]
enum OptionKind {
    AllowOnce,
    AllowAlways,
    RejectOnce,
    RejectAlways,
    Other(Word),
}

fn word(w: &Word) -> Value {
    Value::from(w)
}

impl Status {
    fn json(&self) -> Value {
        match self {
            Status::Pending => "pending".into(),
            Status::InProgress => "in_progress".into(),
            Status::Completed => "completed".into(),
            Status::Failed => "failed".into(),
            Status::Other(w) => word(w),
        }
    }
}

impl Content {
    fn json(&self) -> Value {
        match self {
            Content::Text(text) => json!({"type": "text", "text": text.0}),
            Content::Image(data, mime) => {
                json!({"type": "image", "data": data.0, "mimeType": mime.0})
            }
            Content::Audio(data, mime) => {
                json!({"type": "audio", "data": data.0, "mimeType": mime.0})
            }
            Content::Link(uri, name) => {
                json!({"type": "resource_link", "uri": uri.0, "name": name.0})
            }
            Content::TextResource(uri, text) => {
                json!({"type": "resource", "resource": {"uri": uri.0, "text": text.0}})
            }
            Content::BlobResource(uri, blob) => {
                json!({"type": "resource", "resource": {"uri": uri.0, "blob": blob.0}})
            }
            Content::Unknown(kind, extra) => json!({"type": kind.0, "value": extra.0}),
        }
    }
}

impl ToolContent {
    fn json(&self) -> Value {
        match self {
            ToolContent::Content(content) => Obj::new()
                .set("type", "content")
                .field("content", content, Content::json)
                .value(),
            ToolContent::Diff { path, old, new } => {
                let mut diff = Obj::new()
                    .set("type", "diff")
                    .field("path", path, word)
                    .field("newText", new, word);
                if let Some(old) = old {
                    diff = diff.set("oldText", word(old));
                }
                diff.value()
            }
            ToolContent::Terminal(id) => Obj::new()
                .set("type", "terminal")
                .field("terminalId", id, word)
                .value(),
            ToolContent::Unknown(json) => json.0.clone(),
        }
    }
}

fn contents(items: &[ToolContent]) -> Value {
    Value::Array(items.iter().map(ToolContent::json).collect())
}

impl Update {
    fn json(&self) -> Value {
        let chunk = |tag: &str, chunk: &Chunk| {
            let mut obj = Obj::new().set("sessionUpdate", tag).field(
                "content",
                &chunk.content,
                Content::json,
            );
            if let Some(id) = &chunk.message_id {
                obj = obj.field("messageId", id, word);
            }
            obj.value()
        };
        match self {
            Update::UserChunk(c) => chunk("user_message_chunk", c),
            Update::AgentChunk(c) => chunk("agent_message_chunk", c),
            Update::ThoughtChunk(c) => chunk("agent_thought_chunk", c),
            Update::ToolCall {
                id,
                title,
                kind,
                status,
                content,
                raw_input,
            } => {
                let mut obj = Obj::new()
                    .set("sessionUpdate", "tool_call")
                    .field("toolCallId", id, word)
                    .field("title", title, word);
                if let Some(kind) = kind {
                    obj = obj.set("kind", word(kind));
                }
                if let Some(status) = status {
                    obj = obj.set("status", status.json());
                }
                if let Some(content) = content {
                    obj = obj.set("content", contents(content));
                }
                if let Some(raw) = raw_input {
                    obj = obj.set("rawInput", raw.0.clone());
                }
                obj.value()
            }
            Update::ToolProgress {
                id,
                title,
                status,
                content,
            } => {
                let mut obj = Obj::new().set("sessionUpdate", "tool_call_update").field(
                    "toolCallId",
                    id,
                    word,
                );
                if let Some(title) = title {
                    obj = obj.set("title", word(title));
                }
                if let Some(status) = status {
                    obj = obj.set("status", status.json());
                }
                if let Some(content) = content {
                    obj = obj.field("content", content, |c| contents(c));
                }
                obj.value()
            }
            Update::Plan(entries) => json!({
                "sessionUpdate": "plan",
                "entries": entries.iter().map(|(content, priority, status)| json!({
                    "content": content.0, "priority": priority.0, "status": status.json()
                })).collect::<Vec<_>>()
            }),
            Update::Commands(commands) => json!({
                "sessionUpdate": "available_commands_update",
                "availableCommands": commands.iter().map(|(name, description)| json!({
                    "name": name.0, "description": description.0
                })).collect::<Vec<_>>()
            }),
            Update::Mode(mode) => {
                json!({"sessionUpdate": "current_mode_update", "currentModeId": mode.0})
            }
            Update::Other(tag, extra) => {
                json!({"sessionUpdate": tag.0, "value": extra.0})
            }
        }
    }
}

impl Message {
    fn json(&self, id: usize) -> Value {
        match self {
            Message::Update { session, update } => json!({
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": Obj::new()
                    .field("sessionId", session, word)
                    .set("update", update.json())
                    .value(),
            }),
            Message::Permission {
                session,
                tool_call_id,
                title,
                content,
                options,
            } => {
                let mut tool_call = Obj::new().field("toolCallId", tool_call_id, word);
                if let Some(title) = title {
                    tool_call = tool_call.set("title", word(title));
                }
                if let Some(content) = content {
                    tool_call = tool_call.set("content", contents(content));
                }
                let kind = |k: &OptionKind| match k {
                    OptionKind::AllowOnce => "allow_once".into(),
                    OptionKind::AllowAlways => "allow_always".into(),
                    OptionKind::RejectOnce => "reject_once".into(),
                    OptionKind::RejectAlways => "reject_always".into(),
                    OptionKind::Other(w) => word(w),
                };
                json!({
                    "jsonrpc": "2.0",
                    "id": id,
                    "method": "session/request_permission",
                    "params": Obj::new()
                        .field("sessionId", session, word)
                        .set("toolCall", tool_call.value())
                        .field("options", options, |options| {
                            Value::Array(options.iter().map(|(option_id, name, k)| {
                                Obj::new()
                                    .field("optionId", option_id, word)
                                    .field("name", name, word)
                                    .field("kind", k, kind)
                                    .value()
                            }).collect())
                        })
                        .value(),
                })
            }
            Message::Answer { stop_reason } => {
                json!({"jsonrpc": "2.0", "id": id, "result": {"stopReason": stop_reason.0}})
            }
            Message::Load => json!({
                "jsonrpc": "2.0", "id": id, "method": "session/load",
                "params": {"sessionId": "acp-1", "cwd": "/work", "mcpServers": []}
            }),
            Message::Raw(json) => json.0.clone(),
        }
    }
}
