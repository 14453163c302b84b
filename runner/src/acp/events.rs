//! From ACP `session/update` notifications to transcript entries: which
//! chunks make one stream, and the `last` entry that ends every stream.

use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, EmbeddedResourceResource, RequestPermissionRequest, SessionUpdate,
    ToolCallContent,
};
use tokio::sync::mpsc::UnboundedSender;

use super::AgentEvent;
use crate::host::bindings::{EntryKind, TranscriptEntry};

/// The stream being written, if any.
#[derive(Debug)]
struct OpenStream {
    id: String,
    kind: EntryKind,
    message_id: Option<String>,
}

/// Turns an agent's updates into transcript entries and sends them, with
/// the other [`AgentEvent`]s, in the order they happened.
#[derive(Debug)]
pub(crate) struct Transcript {
    events: UnboundedSender<AgentEvent>,
    open: Option<OpenStream>,
    streams: u64,
    replay: bool,
}

impl Transcript {
    pub fn new(events: UnboundedSender<AgentEvent>) -> Self {
        Self {
            events,
            open: None,
            streams: 0,
            replay: false,
        }
    }

    /// Entries from now on are (or are no longer) the replay of `session/load`.
    /// Either way the open stream ends first.
    pub fn set_replay(&mut self, replay: bool) {
        self.end_stream();
        self.replay = replay;
    }

    /// The replay is over: its last stream ends.
    pub fn replay_ended(&mut self) {
        self.set_replay(false);
    }

    /// One `session/update`.
    pub fn update(&mut self, update: SessionUpdate) {
        match update {
            SessionUpdate::UserMessageChunk(chunk) => self.chunk(EntryKind::UserMessage, chunk),
            SessionUpdate::AgentMessageChunk(chunk) => self.chunk(EntryKind::AgentMessage, chunk),
            SessionUpdate::AgentThoughtChunk(chunk) => self.chunk(EntryKind::AgentThought, chunk),
            SessionUpdate::ToolCall(call) => {
                self.whole(EntryKind::ToolCall, call.title);
                let output = tool_output(&call.content);
                if !output.is_empty() {
                    self.whole(EntryKind::ToolOutput, output);
                }
            }
            SessionUpdate::ToolCallUpdate(update) => {
                let output = update.fields.content.as_deref().map(tool_output);
                if let Some(output) = output.filter(|output| !output.is_empty()) {
                    self.whole(EntryKind::ToolOutput, output);
                }
            }
            other => {
                tracing::trace!(update = ?other, "an agent update that is not a transcript entry")
            }
        }
    }

    /// A permission request: one entry (its title and options), then the event.
    pub fn permission(&mut self, request: &RequestPermissionRequest, event: AgentEvent) {
        let title = request
            .tool_call
            .fields
            .title
            .as_deref()
            .unwrap_or("permission");
        let options: Vec<String> = request
            .options
            .iter()
            .map(|option| format!("{} ({})", option.name, option.option_id))
            .collect();
        self.whole(
            EntryKind::PermissionRequest,
            format!("{title} [{}]", options.join(", ")),
        );
        self.send(event);
    }

    /// Ends the open stream, if any, with an empty `last` entry.
    pub fn end_stream(&mut self) {
        if let Some(open) = self.open.take() {
            self.entry(open.id, open.kind, String::new(), true);
        }
    }

    /// A chunk of a message: it continues the open stream when that has the
    /// same kind and message id; otherwise the open stream ends and a new one starts.
    fn chunk(&mut self, kind: EntryKind, chunk: ContentChunk) {
        let message_id = chunk.message_id.map(|id| id.0.to_string());
        let continues = self
            .open
            .as_ref()
            .is_some_and(|open| open.kind == kind && open.message_id == message_id);
        if !continues {
            self.end_stream();
            let id = self.next_stream_id();
            self.open = Some(OpenStream {
                id,
                kind,
                message_id,
            });
        }
        let id = self
            .open
            .as_ref()
            .map(|open| open.id.clone())
            .unwrap_or_default();
        self.entry(id, kind, content_text(&chunk.content), false);
    }

    /// An entry that is a stream by itself.
    fn whole(&mut self, kind: EntryKind, text: String) {
        self.end_stream();
        let id = self.next_stream_id();
        self.entry(id, kind, text, true);
    }

    fn next_stream_id(&mut self) -> String {
        self.streams += 1;
        format!("s{}", self.streams)
    }

    fn entry(&self, stream_id: String, kind: EntryKind, text: String, last: bool) {
        self.send(AgentEvent::Entry(TranscriptEntry {
            stream_id,
            kind,
            text,
            last,
            replay: self.replay,
        }));
    }

    fn send(&self, event: AgentEvent) {
        if self.events.send(event).is_err() {
            tracing::trace!("nobody listens to the agent's events any more");
        }
    }
}

/// The text of a content block; what is not text is named in brackets.
fn content_text(content: &ContentBlock) -> String {
    match content {
        ContentBlock::Text(text) => text.text.clone(),
        ContentBlock::Image(_) => "[image]".to_owned(),
        ContentBlock::Audio(_) => "[audio]".to_owned(),
        ContentBlock::ResourceLink(link) => format!("[{}]", link.uri),
        ContentBlock::Resource(resource) => match &resource.resource {
            EmbeddedResourceResource::TextResourceContents(text) => text.text.clone(),
            EmbeddedResourceResource::BlobResourceContents(blob) => format!("[{}]", blob.uri),
            _ => "[resource]".to_owned(),
        },
        _ => "[content]".to_owned(),
    }
}

/// The text of a tool call's content, one part per line.
fn tool_output(content: &[ToolCallContent]) -> String {
    content
        .iter()
        .map(|part| match part {
            ToolCallContent::Content(content) => content_text(&content.content),
            ToolCallContent::Diff(diff) => {
                format!("[diff of {}]\n{}", diff.path.display(), diff.new_text)
            }
            ToolCallContent::Terminal(terminal) => format!("[terminal {}]", terminal.terminal_id),
            _ => "[content]".to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use agent_client_protocol::v1::schema::{
        Content, MessageId, PermissionOption, PermissionOptionKind, TextContent, ToolCall,
        ToolCallUpdate, ToolCallUpdateFields,
    };
    use tokio::sync::mpsc;

    use super::*;

    fn text_chunk(text: &str, message_id: Option<&str>) -> ContentChunk {
        let chunk = ContentChunk::new(ContentBlock::Text(TextContent::new(text)));
        match message_id {
            Some(id) => chunk.message_id(MessageId::new(id)),
            None => chunk,
        }
    }

    fn entries(
        rx: &mut mpsc::UnboundedReceiver<AgentEvent>,
    ) -> Vec<(String, EntryKind, String, bool, bool)> {
        let mut out = Vec::new();
        while let Ok(event) = rx.try_recv() {
            match event {
                AgentEvent::Entry(entry) => {
                    out.push((
                        entry.stream_id,
                        entry.kind,
                        entry.text,
                        entry.last,
                        entry.replay,
                    ));
                }
                AgentEvent::Permission { request_id, .. } => {
                    out.push((
                        request_id,
                        EntryKind::Notice,
                        "<permission event>".into(),
                        true,
                        false,
                    ));
                }
            }
        }
        out
    }

    fn e(
        id: &str,
        kind: EntryKind,
        text: &str,
        last: bool,
    ) -> (String, EntryKind, String, bool, bool) {
        (id.into(), kind, text.into(), last, false)
    }

    #[test]
    fn chunks_of_one_message_share_a_stream_ended_by_last() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let mut transcript = Transcript::new(tx);
        transcript.update(SessionUpdate::AgentMessageChunk(text_chunk("Hel", None)));
        transcript.update(SessionUpdate::AgentMessageChunk(text_chunk("lo", None)));
        transcript.update(SessionUpdate::AgentThoughtChunk(text_chunk("hmm", None)));
        transcript.update(SessionUpdate::AgentMessageChunk(text_chunk(
            "a",
            Some("m-1"),
        )));
        transcript.update(SessionUpdate::AgentMessageChunk(text_chunk(
            "b",
            Some("m-1"),
        )));
        transcript.update(SessionUpdate::AgentMessageChunk(text_chunk(
            "c",
            Some("m-2"),
        )));
        transcript.end_stream();
        transcript.end_stream();
        assert_eq!(
            entries(&mut rx),
            [
                e("s1", EntryKind::AgentMessage, "Hel", false),
                e("s1", EntryKind::AgentMessage, "lo", false),
                e("s1", EntryKind::AgentMessage, "", true),
                e("s2", EntryKind::AgentThought, "hmm", false),
                e("s2", EntryKind::AgentThought, "", true),
                e("s3", EntryKind::AgentMessage, "a", false),
                e("s3", EntryKind::AgentMessage, "b", false),
                e("s3", EntryKind::AgentMessage, "", true),
                e("s4", EntryKind::AgentMessage, "c", false),
                e("s4", EntryKind::AgentMessage, "", true),
            ]
        );
    }

    #[test]
    fn tool_calls_end_the_open_stream_and_stand_alone() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let mut transcript = Transcript::new(tx);
        transcript.update(SessionUpdate::AgentMessageChunk(text_chunk(
            "running", None,
        )));
        transcript.update(SessionUpdate::ToolCall(ToolCall::new("t1", "ls -a")));
        transcript.update(SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
            "t1",
            ToolCallUpdateFields::new(),
        )));
        transcript.update(SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
            "t1",
            ToolCallUpdateFields::new().content(vec![ToolCallContent::Content(Content::new(
                ContentBlock::Text(TextContent::new(".\n..\n")),
            ))]),
        )));
        transcript.update(SessionUpdate::AgentMessageChunk(text_chunk("done", None)));
        transcript.end_stream();
        assert_eq!(
            entries(&mut rx),
            [
                e("s1", EntryKind::AgentMessage, "running", false),
                e("s1", EntryKind::AgentMessage, "", true),
                e("s2", EntryKind::ToolCall, "ls -a", true),
                e("s3", EntryKind::ToolOutput, ".\n..\n", true),
                e("s4", EntryKind::AgentMessage, "done", false),
                e("s4", EntryKind::AgentMessage, "", true),
            ]
        );
    }

    #[test]
    fn replay_is_marked_and_ends_its_streams() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let mut transcript = Transcript::new(tx);
        transcript.set_replay(true);
        transcript.update(SessionUpdate::UserMessageChunk(text_chunk("hi", None)));
        transcript.update(SessionUpdate::AgentMessageChunk(text_chunk("hello", None)));
        transcript.set_replay(false);
        transcript.update(SessionUpdate::AgentMessageChunk(text_chunk("live", None)));
        let all = entries(&mut rx);
        let replayed: Vec<_> = all.iter().filter(|entry| entry.4).cloned().collect();
        assert_eq!(
            replayed,
            [
                (
                    "s1".into(),
                    EntryKind::UserMessage,
                    "hi".into(),
                    false,
                    true
                ),
                (
                    "s1".into(),
                    EntryKind::UserMessage,
                    String::new(),
                    true,
                    true
                ),
                (
                    "s2".into(),
                    EntryKind::AgentMessage,
                    "hello".into(),
                    false,
                    true
                ),
                (
                    "s2".into(),
                    EntryKind::AgentMessage,
                    String::new(),
                    true,
                    true
                ),
            ]
        );
        assert_eq!(all[4], e("s3", EntryKind::AgentMessage, "live", false));
    }

    #[test]
    fn a_permission_request_is_an_entry_then_the_event() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let mut transcript = Transcript::new(tx);
        transcript.update(SessionUpdate::AgentMessageChunk(text_chunk("may I?", None)));
        let request = RequestPermissionRequest::new(
            "ses",
            ToolCallUpdate::new("t", ToolCallUpdateFields::new().title("Delete files")),
            vec![
                PermissionOption::new("allow", "Allow", PermissionOptionKind::AllowOnce),
                PermissionOption::new("deny", "Deny", PermissionOptionKind::RejectOnce),
            ],
        );
        let (answer, _answered) = tokio::sync::oneshot::channel();
        transcript.permission(
            &request,
            AgentEvent::Permission {
                request_id: "perm-0".into(),
                request: serde_json::Value::Null,
                answer,
            },
        );
        assert_eq!(
            entries(&mut rx),
            [
                e("s1", EntryKind::AgentMessage, "may I?", false),
                e("s1", EntryKind::AgentMessage, "", true),
                e(
                    "s2",
                    EntryKind::PermissionRequest,
                    "Delete files [Allow (allow), Deny (deny)]",
                    true
                ),
                e("perm-0", EntryKind::Notice, "<permission event>", true),
            ]
        );
    }
}
