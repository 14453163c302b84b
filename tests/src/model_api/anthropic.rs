//! Anthropic's Messages API (`POST /v1/messages`), as Claude Code calls it:
//! streamed (`message_start`, `content_block_start`/`_delta`/`_stop` with
//! `text_delta`, `thinking_delta` + `signature_delta`, `input_json_delta`,
//! `message_delta` with the stop reason, `message_stop`), or one JSON
//! message when `stream` is not set. Tools: `Bash`, `TodoWrite`, `Write`.

use axum::response::Response;
use serde_json::{Value, json};

use super::script::{Conversation, Step};
use super::{Model, id, json, sse, text_of};

pub(super) fn answer(model: &Model, path: &str, request: &Value) -> Response {
    if path.ends_with("/count_tokens") {
        return json(json!({ "input_tokens": 10 }));
    }
    let steps = model.answer(&read(request));
    let model_name = request["model"].as_str().unwrap_or("claude");
    let cwd = working_directory(request);
    let blocks: Vec<Value> = steps.iter().map(|step| block(step, &cwd)).collect();
    let stop = if steps.iter().any(Step::is_tool) {
        "tool_use"
    } else {
        "end_turn"
    };
    // As the API reports it: the prompt cache's counts are always there (Claude Code adds them
    // up into the context it reports, and prices the whole).
    let usage = json!({ "input_tokens": 10, "output_tokens": 5,
                        "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0 });
    if request["stream"].as_bool() != Some(true) {
        return json(json!({
            "id": id("msg"), "type": "message", "role": "assistant", "model": model_name,
            "content": blocks, "stop_reason": stop, "stop_sequence": null, "usage": usage,
        }));
    }
    let mut events = vec![(
        Some("message_start"),
        json!({"type": "message_start", "message": {
            "id": id("msg"), "type": "message", "role": "assistant", "model": model_name,
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 10, "output_tokens": 1,
                      "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}}),
    )];
    for (index, block) in blocks.into_iter().enumerate() {
        let (start, deltas) = match block["type"].as_str() {
            Some("text") => (
                json!({"type": "text", "text": ""}),
                vec![json!({"type": "text_delta", "text": block["text"]})],
            ),
            Some("thinking") => (
                json!({"type": "thinking", "thinking": "", "signature": ""}),
                vec![
                    json!({"type": "thinking_delta", "thinking": block["thinking"]}),
                    json!({"type": "signature_delta", "signature": block["signature"]}),
                ],
            ),
            _ => (
                json!({"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}),
                vec![
                    json!({"type": "input_json_delta", "partial_json": block["input"].to_string()}),
                ],
            ),
        };
        events.push((
            Some("content_block_start"),
            json!({"type": "content_block_start", "index": index, "content_block": start}),
        ));
        for delta in deltas {
            events.push((
                Some("content_block_delta"),
                json!({"type": "content_block_delta", "index": index, "delta": delta}),
            ));
        }
        events.push((
            Some("content_block_stop"),
            json!({"type": "content_block_stop", "index": index}),
        ));
    }
    events.push((
        Some("message_delta"),
        json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
               "usage": {"output_tokens": 5}}),
    ));
    events.push((Some("message_stop"), json!({"type": "message_stop"})));
    sse(events)
}

fn block(step: &Step, cwd: &str) -> Value {
    let tool = |name: &str, input: Value| json!({"type": "tool_use", "id": id("toolu"), "name": name, "input": input});
    match step {
        Step::Say(text) => json!({"type": "text", "text": text}),
        Step::Think(text) => {
            json!({"type": "thinking", "thinking": text, "signature": "c3RhbmQtaW4="})
        }
        Step::Shell(command) => tool(
            "Bash",
            json!({"command": command, "description": "Runs the command the user asked for"}),
        ),
        Step::Plan(steps) => tool(
            "TodoWrite",
            json!({"todos": steps.iter().map(|s| json!({
                "content": s, "status": "pending", "activeForm": s
            })).collect::<Vec<_>>()}),
        ),
        Step::Write { path, content } => {
            let path = if path.starts_with('/') {
                path.clone()
            } else {
                format!("{cwd}/{path}")
            };
            tool("Write", json!({"file_path": path, "content": content}))
        }
    }
}

/// The user's prompts (their texts, not the agent's reminders, which
/// start with a tag) and the tool results after the last one.
fn read(request: &Value) -> Conversation {
    let mut conversation = Conversation::default();
    for message in request["messages"].as_array().into_iter().flatten() {
        if message["role"] != "user" {
            continue;
        }
        let blocks = match &message["content"] {
            Value::String(text) => vec![json!({"type": "text", "text": text})],
            Value::Array(blocks) => blocks.clone(),
            _ => continue,
        };
        for block in blocks {
            match block["type"].as_str() {
                Some("tool_result") => conversation.results.push(text_of(&block["content"])),
                Some("text") => {
                    let text = block["text"].as_str().unwrap_or_default();
                    if !super::is_agents_own(text) {
                        conversation.prompts.push(text.to_owned());
                        conversation.results.clear();
                    }
                }
                _ => {}
            }
        }
    }
    conversation
}

/// Claude Code tells the model its working directory in the system prompt.
fn working_directory(request: &Value) -> String {
    let system = text_of(&request["system"]);
    system
        .split("Working directory: ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or("/tmp")
        .to_owned()
}
