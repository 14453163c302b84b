//! Tool calls as they stand: ACP's `tool_call` and `tool_call_update`
//! (and the tool call of a permission request) merged by `toolCallId` into
//! one [`ToolCall`], under an id of the runner's own; with what a running
//! command prints as it comes (`_meta.terminal_output`), its exit status
//! (`_meta.terminal_exit`, or the tool's raw output) and how long it took.

use std::collections::{HashMap, VecDeque};
use std::time::Instant;

use agent_client_protocol::v1::schema::{
    ContentBlock, EmbeddedResourceResource, Meta, ToolCall as AcpToolCall, ToolCallContent,
    ToolCallLocation, ToolCallUpdateFields,
};
use serde_json::Value;

use super::tool_output::OutputStream;
use crate::protocol::entries::{Location, ToolCall, ToolContent};

/// Most tool calls remembered at once: an agent that sends ever new ids
/// cannot grow the run (the oldest is forgotten; an update for it starts afresh).
const MAX_REMEMBERED: usize = 4096;

/// The tool calls of one agent, by the agent's id.
#[derive(Debug, Default)]
pub(crate) struct ToolCalls {
    calls: HashMap<String, Tracked>,
    order: VecDeque<String>,
    next: u64,
}

/// A call as recorded, and what the runner keeps of it beside.
#[derive(Debug)]
struct Tracked {
    call: ToolCall,
    /// When the runner first heard of it: its duration runs from here.
    seen: Instant,
    output: OutputStream,
}

/// What one update of a call made.
#[derive(Debug, Default)]
pub(crate) struct Changed {
    /// The call's runner id (`tc-N`).
    pub id: String,
    /// Output the command printed, to send now, in order; `true` marks the
    /// stream's last text (the call ended).
    pub output: Vec<(String, bool)>,
    /// The call as it now stands, when that changed.
    pub call: Option<ToolCall>,
}

impl ToolCalls {
    /// A `tool_call`: the call as the agent announces it (announced again,
    /// it replaces what was known, under the same runner id).
    pub fn announce(&mut self, call: AcpToolCall) -> Changed {
        let fields = ToolCallUpdateFields::new()
            .title(call.title)
            .kind(call.kind)
            .status(call.status)
            .content(call.content)
            .locations(call.locations)
            .raw_input(call.raw_input)
            .raw_output(call.raw_output);
        let id = call.tool_call_id.0.to_string();
        let (tracked, new) = self.entry(&id);
        let fresh = ToolCall {
            id: tracked.call.id.clone(),
            ..ToolCall::default()
        };
        let before = std::mem::replace(&mut tracked.call, fresh);
        Self::applied(tracked, Some(before), new, fields, call.meta.as_ref())
    }

    /// A `tool_call_update` (or a permission request's tool call): the given
    /// fields replace the known ones; its `_meta` may carry output and an
    /// exit status.
    pub fn update(
        &mut self,
        id: &str,
        fields: ToolCallUpdateFields,
        meta: Option<&Meta>,
    ) -> Changed {
        let (tracked, new) = self.entry(id);
        let output_only = !new
            && fields == ToolCallUpdateFields::default()
            && meta.is_none_or(|m| !m.contains_key("terminal_exit"));
        if output_only {
            // A running command's output, chunk after chunk: the call itself is unchanged.
            return Changed {
                id: tracked.call.id.clone(),
                output: printed(tracked, meta).into_iter().collect(),
                call: None,
            };
        }
        let before = (!new).then(|| tracked.call.clone());
        Self::applied(tracked, before, new, fields, meta)
    }

    /// `new`: the runner first hears of the call now (a call that ends at once has no duration
    /// of its own to tell).
    fn applied(
        tracked: &mut Tracked,
        before: Option<ToolCall>,
        new: bool,
        fields: ToolCallUpdateFields,
        meta: Option<&Meta>,
    ) -> Changed {
        let mut output: Vec<(String, bool)> = printed(tracked, meta).into_iter().collect();
        apply(
            &mut tracked.call,
            fields,
            meta,
            (!new).then_some(tracked.seen),
        );
        if tracked.call.has_ended()
            && let Some(last) = tracked.output.end()
        {
            output.push((last, true));
        }
        let call = (before.as_ref() != Some(&tracked.call)).then(|| tracked.call.clone());
        Changed {
            id: tracked.call.id.clone(),
            output,
            call,
        }
    }

    /// The call as it stands (a call never heard of: a new one).
    pub fn get(&mut self, id: &str) -> ToolCall {
        self.entry(id).0.call.clone()
    }

    /// The calls whose output is streaming, ended (the agent stopped
    /// answering): each one's runner id and the stream's last text.
    pub fn end_outputs(&mut self) -> Vec<(String, String)> {
        self.calls
            .values_mut()
            .filter_map(|t| Some((t.call.id.clone(), t.output.end()?)))
            .collect()
    }

    /// The call's state, and whether it is new.
    fn entry(&mut self, id: &str) -> (&mut Tracked, bool) {
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
                Tracked {
                    call: ToolCall {
                        id: format!("tc-{}", self.next),
                        title: "tool call".into(),
                        kind: "other".into(),
                        status: "pending".into(),
                        ..ToolCall::default()
                    },
                    seen: Instant::now(),
                    output: OutputStream::default(),
                },
            );
        }
        (self.calls.get_mut(id).expect("inserted above"), new)
    }
}

/// What the command printed that `meta` carries, to send now.
fn printed(tracked: &mut Tracked, meta: Option<&Meta>) -> Option<(String, bool)> {
    let data = meta?.get("terminal_output")?.get("data")?.as_str()?;
    Some((tracked.output.push(data)?, false))
}

/// Merges `fields` into `call` and derives its command, output, exit status
/// and duration (from `seen`, when the call was heard of before) again.
fn apply(
    call: &mut ToolCall,
    fields: ToolCallUpdateFields,
    meta: Option<&Meta>,
    seen: Option<Instant>,
) {
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
    if let Some(code) = exit_code(meta, call.raw_output.as_ref()) {
        call.exit_code = Some(code);
    }
    call.output = if call.has_ended() {
        if call.duration_ms.is_none()
            && let Some(seen) = seen
        {
            call.duration_ms = Some(seen.elapsed().as_millis().try_into().unwrap_or(u64::MAX));
        }
        output_of(call).map(unfenced)
    } else {
        None
    };
}

/// The command's exit status: the agent's `_meta.terminal_exit` (Claude Code,
/// Codex), or its raw output's `exit_code` (Codex without the capability).
fn exit_code(meta: Option<&Meta>, raw_output: Option<&Value>) -> Option<i64> {
    meta.and_then(|m| m.get("terminal_exit"))
        .and_then(|t| t.get("exit_code"))
        .or_else(|| raw_output?.get("exit_code"))
        .and_then(Value::as_i64)
}

/// An output the agent wrapped whole in one Markdown code fence (Claude Code's
/// `` ```console ``, Codex's `` ```sh ``) is the fence's text: the card is
/// the code block, not a fence shown inside one.
fn unfenced(text: String) -> String {
    let whole = text.trim();
    let Some((info, body)) = whole
        .strip_prefix("```")
        .and_then(|rest| rest.split_once('\n'))
    else {
        return text;
    };
    let one_word = !info.contains('`') && !info.trim().contains(char::is_whitespace);
    let Some(body) = body.strip_suffix("```").filter(|_| one_word) else {
        return text;
    };
    // A fence inside would have closed it: that text is not one block.
    if body.lines().any(|l| l.trim_start().starts_with("```")) {
        return text;
    }
    body.strip_suffix('\n').unwrap_or(body).to_owned()
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

    fn announce(calls: &mut ToolCalls, call: AcpToolCall) -> Option<ToolCall> {
        calls.announce(call).call
    }

    fn update(calls: &mut ToolCalls, id: &str, fields: ToolCallUpdateFields) -> Option<ToolCall> {
        calls.update(id, fields, None).call
    }

    fn text(text: &str) -> ToolCallContent {
        ToolCallContent::Content(Content::new(ContentBlock::Text(TextContent::new(text))))
    }

    #[test]
    fn updates_merge_into_one_call_with_its_command_and_output() {
        let mut calls = ToolCalls::default();
        // Claude Code: a bare announcement, the input in an update, the output at the end.
        let first = announce(
            &mut calls,
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
        let running = update(
            &mut calls,
            "toolu_1",
            ToolCallUpdateFields::new()
                .title("echo hi")
                .raw_input(json!({"command": "echo hi", "description": "says hi"}))
                .content(vec![text("says hi")]),
        )
        .unwrap();
        // An update with nothing the runner records (Claude's `_meta` only): nothing new.
        assert_eq!(
            update(&mut calls, "toolu_1", ToolCallUpdateFields::new()),
            None
        );
        assert_eq!(running.command.as_deref(), Some("echo hi"));
        assert_eq!(running.output, None, "no output before the call ends");
        let done = update(
            &mut calls,
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
        assert_eq!(
            done.output.as_deref(),
            Some("hi"),
            "the agent's fence is the card's code block, not text in it"
        );
        assert_eq!(done.input.as_ref().unwrap()["description"], "says hi");
    }

    #[test]
    fn the_output_comes_from_raw_output_when_the_content_has_none() {
        let mut calls = ToolCalls::default();
        // Codex: the command as a list of words, the output only in rawOutput.
        announce(
            &mut calls,
            AcpToolCall::new("call_1", "echo hi")
                .kind(ToolKind::Execute)
                .status(ToolCallStatus::InProgress)
                .raw_input(json!({"command": ["/bin/bash", "-lc", "echo 'hi there'"]})),
        );
        let done = update(&mut calls,
                "call_1",
                ToolCallUpdateFields::new()
                    .status(ToolCallStatus::Completed)
                    .raw_output(json!({"stdout": "hi there\n", "formatted_output": "hi there\n", "exit_code": 0})),
            )
            .unwrap();
        assert_eq!(done.command.as_deref(), Some("echo 'hi there'"));
        assert_eq!(done.output.as_deref(), Some("hi there\n"));
        // Gemini: no input at all; the title is the command.
        let gemini = announce(
            &mut calls,
            AcpToolCall::new("run_shell_command_1", "ls -a").kind(ToolKind::Execute),
        )
        .unwrap();
        assert_eq!(gemini.command.as_deref(), Some("ls -a"));
        assert_eq!(gemini.id, "tc-2");
        let words = update(
            &mut calls,
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
        let call = announce(
            &mut calls,
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
            update(&mut calls, &n.to_string(), ToolCallUpdateFields::new());
        }
        assert_eq!(calls.calls.len(), MAX_REMEMBERED);
        // Forgotten: starts afresh under a new id.
        assert_eq!(
            update(&mut calls, "0", ToolCallUpdateFields::new())
                .unwrap()
                .id,
            format!("tc-{}", MAX_REMEMBERED + 11)
        );
    }

    fn meta(value: Value) -> Meta {
        value.as_object().unwrap().clone()
    }

    /// Codex with the capability: the command announced running, its output in deltas as it
    /// comes, then the end with its exit status; the stream ends before the call's last state.
    #[test]
    fn a_running_commands_output_streams_and_its_end_has_exit_status_and_duration() {
        let mut calls = ToolCalls::default();
        let started = calls.announce(
            AcpToolCall::new("call_1", "cargo test")
                .kind(ToolKind::Execute)
                .status(ToolCallStatus::InProgress)
                .raw_input(json!({"command": ["bash", "-lc", "cargo test"]})),
        );
        assert!(started.output.is_empty());
        assert_eq!(started.call.unwrap().status, "in_progress");
        let mut printed = Vec::new();
        for line in ["running 2 tests\n", "test a ... ok\n", "test b ... ok\n"] {
            let delta = calls.update(
                "call_1",
                ToolCallUpdateFields::new(),
                Some(&meta(
                    json!({"terminal_output": {"terminal_id": "call_1", "data": line}}),
                )),
            );
            assert_eq!(delta.call, None, "output alone does not change the call");
            assert_eq!(delta.id, "tc-1");
            printed.extend(delta.output);
        }
        assert_eq!(
            printed,
            [
                ("running 2 tests\n".to_owned(), false),
                ("test a ... ok\n".to_owned(), false),
                ("test b ... ok\n".to_owned(), false)
            ]
        );
        let end = calls.update(
            "call_1",
            ToolCallUpdateFields::new()
                .status(ToolCallStatus::Failed)
                .raw_output(json!({"exit_code": 101, "formatted_output": "running 2 tests\n"})),
            Some(&meta(json!({"terminal_exit": {"terminal_id": "call_1", "exit_code": 101, "signal": null}}))),
        );
        assert_eq!(end.output, [(String::new(), true)], "the stream's end");
        let call = end.call.unwrap();
        assert_eq!(call.exit_code, Some(101));
        assert!(call.duration_ms.is_some());
        assert_eq!(call.output.as_deref(), Some("running 2 tests\n"));
        // Codex without the capability: the exit status from its raw output.
        let plain = calls.update(
            "call_2",
            ToolCallUpdateFields::new()
                .kind(ToolKind::Execute)
                .status(ToolCallStatus::Completed)
                .raw_output(json!({"exit_code": 0, "stdout": "ok"})),
            None,
        );
        assert!(
            plain.output.is_empty(),
            "nothing streamed: no stream to end"
        );
        let plain = plain.call.unwrap();
        assert_eq!(plain.exit_code, Some(0));
        assert_eq!(
            plain.duration_ms, None,
            "first heard of when it ended: no duration to tell"
        );
    }

    #[test]
    fn only_an_output_wrapped_whole_in_one_fence_is_unwrapped() {
        let rows: &[(&str, &str)] = &[
            ("```console\nhi\n```", "hi"),
            ("```sh\nline 1\nline 2\n```\n", "line 1\nline 2"),
            ("```\nplain\n```", "plain"),
            ("```\n\n```", ""),
            // Not one block: left as the agent wrote it.
            ("hi", "hi"),
            (
                "```rust\nfn a() {}\n```\nand then\n```rust\nfn b() {}\n```",
                "```rust\nfn a() {}\n```\nand then\n```rust\nfn b() {}\n```",
            ),
            ("```console\nunclosed", "```console\nunclosed"),
            ("```a b\nx\n```", "```a b\nx\n```"),
            ("see ```x``` here", "see ```x``` here"),
        ];
        for (text, unwrapped) in rows {
            assert_eq!(unfenced((*text).to_owned()), *unwrapped, "{text:?}");
        }
    }
}
