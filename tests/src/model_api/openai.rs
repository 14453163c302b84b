//! OpenAI's Responses API (`POST /v1/responses`, streamed), as Codex calls
//! it: `response.created`, then each output item (`response.output_item.added`,
//! its deltas, `response.output_item.done`), then `response.completed`.
//! Tools: `exec_command`, `update_plan`, `apply_patch` (a custom tool whose
//! input is the patch).

use axum::response::Response;
use serde_json::{Value, json};

use super::script::{Conversation, Step};
use super::{Model, id, sse, text_of};

pub(super) fn answer(model: &Model, request: &Value) -> Response {
    let steps = model.answer(&read(request));
    let response_id = id("resp");
    let mut events = vec![(
        Some("response.created"),
        json!({"type": "response.created", "response": {
            "id": response_id, "object": "response", "status": "in_progress", "output": []}}),
    )];
    let mut done = Vec::new();
    for (index, step) in steps.iter().enumerate() {
        let (item, deltas) = item(step);
        let added = match item["type"].as_str() {
            Some("message") => json!({"type": "message", "id": item["id"], "role": "assistant",
                                       "status": "in_progress", "content": []}),
            Some("reasoning") => json!({"type": "reasoning", "id": item["id"], "summary": []}),
            _ => item.clone(),
        };
        events.push((
            Some("response.output_item.added"),
            json!({"type": "response.output_item.added", "output_index": index, "item": added}),
        ));
        for (name, mut delta) in deltas {
            delta["item_id"] = item["id"].clone();
            delta["output_index"] = json!(index);
            delta["type"] = json!(name);
            events.push((Some(name), delta));
        }
        events.push((
            Some("response.output_item.done"),
            json!({"type": "response.output_item.done", "output_index": index, "item": item}),
        ));
        done.push(item);
    }
    events.push((
        Some("response.completed"),
        json!({"type": "response.completed", "response": {
            "id": response_id, "object": "response", "status": "completed", "output": done,
            "usage": {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                      "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
                      "total_tokens": 15}}}),
    ));
    sse(events)
}

/// An output item, and the delta events before its `done`.
fn item(step: &Step) -> (Value, Vec<(&'static str, Value)>) {
    let call = |name: &str, arguments: Value| {
        json!({"type": "function_call", "id": id("fc"), "call_id": id("call"), "name": name,
               "arguments": arguments.to_string(), "status": "completed"})
    };
    match step {
        Step::Say(text) => (
            json!({"type": "message", "id": id("msg"), "role": "assistant", "status": "completed",
                   "content": [{"type": "output_text", "text": text, "annotations": []}]}),
            vec![(
                "response.output_text.delta",
                json!({"content_index": 0, "delta": text}),
            )],
        ),
        Step::Think(text) => (
            json!({"type": "reasoning", "id": id("rs"),
                   "summary": [{"type": "summary_text", "text": text}]}),
            vec![
                (
                    "response.reasoning_summary_part.added",
                    json!({"summary_index": 0, "part": {"type": "summary_text", "text": ""}}),
                ),
                (
                    "response.reasoning_summary_text.delta",
                    json!({"summary_index": 0, "delta": text}),
                ),
            ],
        ),
        Step::Shell(command) => (call("exec_command", json!({"cmd": command})), vec![]),
        Step::Plan(steps) => (
            call(
                "update_plan",
                json!({"plan": steps.iter().map(|s| json!({"step": s, "status": "pending"}))
                                     .collect::<Vec<_>>()}),
            ),
            vec![],
        ),
        Step::Write { path, content } => {
            let added: String = content.lines().map(|l| format!("+{l}\n")).collect();
            let patch = format!("*** Begin Patch\n*** Add File: {path}\n{added}*** End Patch");
            (
                json!({"type": "custom_tool_call", "id": id("ctc"), "call_id": id("call"),
                       "name": "apply_patch", "input": patch, "status": "completed"}),
                vec![],
            )
        }
    }
}

/// The user's prompts (not Codex's own context, which starts with a tag)
/// and the outputs of the tools called since the last one.
fn read(request: &Value) -> Conversation {
    let mut conversation = Conversation::default();
    for item in request["input"].as_array().into_iter().flatten() {
        match item["type"].as_str() {
            Some("function_call_output" | "custom_tool_call_output") => {
                conversation.results.push(text_of(&item["output"]))
            }
            Some("message") if item["role"] == "user" => {
                let text = text_of(&item["content"]);
                if !super::is_agents_own(&text) {
                    conversation.prompts.push(text);
                    conversation.results.clear();
                }
            }
            _ => {}
        }
    }
    conversation
}
