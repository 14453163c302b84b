//! Tool calls as they stand: ACP's `tool_call` and `tool_call_update`
//! (and the tool call of a permission request) merged by `toolCallId` into
//! one [`ToolCall`], under an id of the runner's own.

use std::collections::{HashMap, VecDeque};

use agent_client_protocol::v1::schema::{
    ContentBlock, EmbeddedResourceResource, ToolCall as AcpToolCall, ToolCallContent,
    ToolCallLocation, ToolCallUpdateFields,
};
use serde_json::Value;

use crate::protocol::entries::{Location, ToolCall, ToolContent};

/// Most tool calls remembered at once: an agent that sends ever new ids
/// cannot grow the run (the oldest is forgotten; an update for it starts afresh).
const MAX_REMEMBERED: usize = 4096;

/// The tool calls of one agent, by the agent's id.
#[derive(Debug, Default)]
pub(crate) struct ToolCalls {
    calls: HashMap<String, ToolCall>,
    order: VecDeque<String>,
    next: u64,
}

impl ToolCalls {
    /// A `tool_call`: the call as the agent announces it (announced again,
    /// it replaces what was known, under the same runner id). `None` when
    /// that changes nothing of what is known.
    pub fn announce(&mut self, call: AcpToolCall) -> Option<ToolCall> {
        let fields = ToolCallUpdateFields::new()
            .title(call.title)
            .kind(call.kind)
            .status(call.status)
            .content(call.content)
            .locations(call.locations)
            .raw_input(call.raw_input)
            .raw_output(call.raw_output);
        let id = call.tool_call_id.0.to_string();
        let (state, new) = self.entry(&id);
        let before = (!new).then(|| state.clone());
        *state = ToolCall {
            id: state.id.clone(),
            ..ToolCall::default()
        };
        apply(state, fields);
        (before.as_ref() != Some(state)).then(|| state.clone())
    }

    /// A `tool_call_update` (or a permission request's tool call): the given
    /// fields replace the known ones. `None` when that changes nothing
    /// (an update that only carries what the runner does not record).
    pub fn update(&mut self, id: &str, fields: ToolCallUpdateFields) -> Option<ToolCall> {
        let (state, new) = self.entry(id);
        let before = (!new).then(|| state.clone());
        apply(state, fields);
        (before.as_ref() != Some(state)).then(|| state.clone())
    }

    /// The call as it stands (a call never heard of: a new one).
    pub fn get(&mut self, id: &str) -> ToolCall {
        self.entry(id).0.clone()
    }

    /// The call's state, and whether it is new.
    fn entry(&mut self, id: &str) -> (&mut ToolCall, bool) {
        let new = !self.calls.contains_key(id);
        if new {
            if self.calls.len() >= MAX_REMEMBERED
                && let Some(oldest) = self.order.pop_front()
            {
                self.calls.remove(&oldest);
            }
            self.next += 1;
            self.order.push_back(id.to_owned());
            self.calls.insert(
                id.to_owned(),
                ToolCall {
                    id: format!("tc-{}", self.next),
                    title: "tool call".into(),
                    kind: "other".into(),
                    status: "pending".into(),
                    ..ToolCall::default()
                },
            );
        }
        (self.calls.get_mut(id).expect("inserted above"), new)
    }
}

/// Merges `fields` into `call` and derives its command and output again.
fn apply(call: &mut ToolCall, fields: ToolCallUpdateFields) {
    if let Some(title) = fields.title {
        call.title = title;
    }
    if let Some(kind) = fields.kind {
        call.kind = name_of(&kind);
    }
    if let Some(status) = fields.status {
        call.status = name_of(&status);
    }
    if let Some(content) = fields.content {
        call.content = content.iter().filter_map(tool_content).collect();
    }
    if let Some(locations) = fields.locations {
        call.locations = locations.iter().map(location).collect();
    }
    if let Some(input) = fields.raw_input {
        call.input = Some(input);
    }
    if let Some(output) = fields.raw_output {
        call.raw_output = Some(output);
    }
    call.command = (call.kind == "execute").then(|| {
        call.input
            .as_ref()
            .and_then(command_of)
            .unwrap_or_else(|| call.title.clone())
    });
    call.output = if matches!(call.status.as_str(), "completed" | "failed") {
        output_of(call)
    } else {
        None
    };
}

/// A closed ACP enum's wire name (`in_progress`, `switch_mode`).
fn name_of(value: &impl serde::Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(Value::String(name)) => name,
        _ => "other".into(),
    }
}

fn location(location: &ToolCallLocation) -> Location {
    Location {
        path: location.path.display().to_string(),
        line: location.line,
    }
}

fn tool_content(content: &ToolCallContent) -> Option<ToolContent> {
    Some(match content {
        ToolCallContent::Content(content) => ToolContent::Text {
            text: block_text(&content.content),
        },
        ToolCallContent::Diff(diff) => ToolContent::Diff {
            path: diff.path.display().to_string(),
            old_text: diff.old_text.clone(),
            new_text: diff.new_text.clone(),
        },
        ToolCallContent::Terminal(terminal) => ToolContent::Terminal {
            terminal_id: terminal.terminal_id.0.to_string(),
        },
        _ => return None,
    })
}

/// The text of a content block; what is not text is named in brackets.
pub(crate) fn block_text(content: &ContentBlock) -> String {
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

/// The command line in a tool's input: `command` or `cmd`, a string or a
/// list of words (`[bash, -lc, SCRIPT]` is SCRIPT).
fn command_of(input: &Value) -> Option<String> {
    let value = input.get("command").or_else(|| input.get("cmd"))?;
    match value {
        Value::String(command) => Some(command.clone()),
        Value::Array(words) => {
            let words: Vec<&str> = words.iter().filter_map(Value::as_str).collect();
            match words.as_slice() {
                [shell, flag, script]
                    if is_shell(shell) && matches!(*flag, "-c" | "-lc" | "-ic") =>
                {
                    Some((*script).to_owned())
                }
                [] => None,
                words => Some(
                    words
                        .iter()
                        .map(|w| quoted(w))
                        .collect::<Vec<_>>()
                        .join(" "),
                ),
            }
        }
        _ => None,
    }
}

fn is_shell(program: &str) -> bool {
    let name = program.rsplit('/').next().unwrap_or(program);
    matches!(name, "sh" | "bash" | "zsh" | "dash")
}

/// A word as a shell would need it to read it back as one word.
fn quoted(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// What an ended call printed: the text of its content, or else of its raw
/// output (a string, or an object's `formatted_output`, `aggregated_output`,
/// `output` or `stdout`, or the object itself as JSON).
fn output_of(call: &ToolCall) -> Option<String> {
    let texts: Vec<&str> = call
        .content
        .iter()
        .filter_map(|part| match part {
            ToolContent::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    if !texts.is_empty() {
        return Some(texts.join("\n"));
    }
    match call.raw_output.as_ref()? {
        Value::Null => None,
        Value::String(text) => Some(text.clone()),
        Value::Object(fields) => {
            let named = ["formatted_output", "aggregated_output", "output", "stdout"]
                .iter()
                .find_map(|key| fields.get(*key).and_then(Value::as_str));
            Some(named.map_or_else(|| Value::Object(fields.clone()).to_string(), str::to_owned))
        }
        other => Some(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use agent_client_protocol::v1::schema::{Content, Diff, TextContent, ToolCallStatus, ToolKind};
    use serde_json::json;

    use super::*;

    fn text(text: &str) -> ToolCallContent {
        ToolCallContent::Content(Content::new(ContentBlock::Text(TextContent::new(text))))
    }

    #[test]
    fn updates_merge_into_one_call_with_its_command_and_output() {
        let mut calls = ToolCalls::default();
        // Claude Code: a bare announcement, the input in an update, the output at the end.
        let first = calls
            .announce(
                AcpToolCall::new("toolu_1", "Terminal")
                    .kind(ToolKind::Execute)
                    .raw_input(json!({})),
            )
            .unwrap();
        assert_eq!(
            (
                first.id.as_str(),
                first.title.as_str(),
                first.status.as_str()
            ),
            ("tc-1", "Terminal", "pending")
        );
        let running = calls
            .update(
                "toolu_1",
                ToolCallUpdateFields::new()
                    .title("echo hi")
                    .raw_input(json!({"command": "echo hi", "description": "says hi"}))
                    .content(vec![text("says hi")]),
            )
            .unwrap();
        // An update with nothing the runner records (Claude's `_meta` only): nothing new.
        assert_eq!(calls.update("toolu_1", ToolCallUpdateFields::new()), None);
        assert_eq!(running.command.as_deref(), Some("echo hi"));
        assert_eq!(running.output, None, "no output before the call ends");
        let done = calls
            .update(
                "toolu_1",
                ToolCallUpdateFields::new()
                    .status(ToolCallStatus::Completed)
                    .raw_output(json!("hi"))
                    .content(vec![text("```console\nhi\n```")]),
            )
            .unwrap();
        assert_eq!(done.id, "tc-1");
        assert_eq!(done.title, "echo hi");
        assert_eq!(done.kind, "execute");
        assert_eq!(done.status, "completed");
        assert_eq!(done.output.as_deref(), Some("```console\nhi\n```"));
        assert_eq!(done.input.as_ref().unwrap()["description"], "says hi");
    }

    #[test]
    fn the_output_comes_from_raw_output_when_the_content_has_none() {
        let mut calls = ToolCalls::default();
        // Codex: the command as a list of words, the output only in rawOutput.
        calls.announce(
            AcpToolCall::new("call_1", "echo hi")
                .kind(ToolKind::Execute)
                .status(ToolCallStatus::InProgress)
                .raw_input(json!({"command": ["/bin/bash", "-lc", "echo 'hi there'"]})),
        );
        let done = calls
            .update(
                "call_1",
                ToolCallUpdateFields::new()
                    .status(ToolCallStatus::Completed)
                    .raw_output(json!({"stdout": "hi there\n", "formatted_output": "hi there\n", "exit_code": 0})),
            )
            .unwrap();
        assert_eq!(done.command.as_deref(), Some("echo 'hi there'"));
        assert_eq!(done.output.as_deref(), Some("hi there\n"));
        // Gemini: no input at all; the title is the command.
        let gemini = calls
            .announce(AcpToolCall::new("run_shell_command_1", "ls -a").kind(ToolKind::Execute))
            .unwrap();
        assert_eq!(gemini.command.as_deref(), Some("ls -a"));
        assert_eq!(gemini.id, "tc-2");
        let words = calls
            .update(
                "x",
                ToolCallUpdateFields::new()
                    .kind(ToolKind::Execute)
                    .raw_input(json!({"cmd": ["git", "commit", "-m", "a b"]})),
            )
            .unwrap();
        assert_eq!(words.command.as_deref(), Some("git commit -m 'a b'"));
    }

    #[test]
    fn diffs_and_locations_are_kept() {
        let mut calls = ToolCalls::default();
        let call = calls
            .announce(
                AcpToolCall::new("e", "Edit src/lib.rs")
                    .kind(ToolKind::Edit)
                    .locations(vec![ToolCallLocation::new("/w/src/lib.rs").line(3)])
                    .content(vec![ToolCallContent::Diff(
                        Diff::new("/w/src/lib.rs", "new\n").old_text("old\n".to_string()),
                    )]),
            )
            .unwrap();
        assert_eq!(call.command, None);
        assert_eq!(
            call.locations,
            [Location {
                path: "/w/src/lib.rs".into(),
                line: Some(3)
            }]
        );
        assert_eq!(
            call.content,
            [ToolContent::Diff {
                path: "/w/src/lib.rs".into(),
                old_text: Some("old\n".into()),
                new_text: "new\n".into()
            }]
        );
    }

    #[test]
    fn an_agent_cannot_grow_the_map_without_bound() {
        let mut calls = ToolCalls::default();
        for n in 0..MAX_REMEMBERED + 10 {
            calls.update(&n.to_string(), ToolCallUpdateFields::new());
        }
        assert_eq!(calls.calls.len(), MAX_REMEMBERED);
        // Forgotten: starts afresh under a new id.
        assert_eq!(
            calls.update("0", ToolCallUpdateFields::new()).unwrap().id,
            format!("tc-{}", MAX_REMEMBERED + 11)
        );
    }
}
