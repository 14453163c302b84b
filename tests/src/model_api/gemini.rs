//! Google's Gemini API, as Gemini CLI calls it through `@google/genai`:
//! `POST /v1beta/models/{model}:streamGenerateContent?alt=sse` (one
//! `GenerateContentResponse` per event, the last with `finishReason`),
//! `:generateContent` (one JSON answer; when the CLI asks for JSON by a
//! schema, an object of that schema) and `:countTokens`. Tools:
//! `run_shell_command`, `write_todos`, `write_file`.

use axum::response::Response;
use serde_json::{Map, Value, json};

use super::script::{Conversation, Step};
use super::{Model, json, sse, text_of};

pub(super) fn answer(model: &Model, path: &str, request: &Value) -> Response {
    if path.ends_with(":countTokens") {
        return json(json!({ "totalTokens": 10 }));
    }
    let usage = json!({"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15});
    let config = &request["generationConfig"];
    if config["responseMimeType"] == "application/json" {
        // The CLI's own questions (who speaks next, which model): an answer
        // of the asked shape.
        let schema = if config["responseJsonSchema"].is_object() {
            &config["responseJsonSchema"]
        } else {
            &config["responseSchema"]
        };
        let text = of_schema(schema).to_string();
        return json(json!({
            "candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": usage,
        }));
    }
    let parts: Vec<Value> = model.answer(&read(request)).iter().map(part).collect();
    if !path.ends_with(":streamGenerateContent") {
        return json(json!({
            "candidates": [{"content": {"role": "model", "parts": parts},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": usage,
        }));
    }
    let last = parts.len().saturating_sub(1);
    let events = parts
        .into_iter()
        .enumerate()
        .map(|(i, part)| {
            let mut chunk = json!({"candidates": [{"content": {"role": "model", "parts": [part]},
                                                   "index": 0}]});
            if i == last {
                chunk["candidates"][0]["finishReason"] = json!("STOP");
                chunk["usageMetadata"] = usage.clone();
            }
            (None, chunk)
        })
        .collect();
    sse(events)
}

fn part(step: &Step) -> Value {
    let call = |name: &str, args: Value| json!({"functionCall": {"name": name, "args": args}});
    match step {
        Step::Say(text) => json!({"text": text}),
        // Gemini's thoughts open with a bold subject, which the CLI shows.
        Step::Think(text) => json!({"text": format!("**Thinking**\n\n{text}"), "thought": true}),
        Step::Shell(command) => call(
            "run_shell_command",
            json!({"command": command, "description": "Runs the command the user asked for"}),
        ),
        Step::Plan(steps) => call(
            "write_todos",
            json!({"todos": steps.iter().map(|s| json!({"description": s, "status": "pending"}))
                                  .collect::<Vec<_>>()}),
        ),
        Step::Write { path, content } => {
            call("write_file", json!({"file_path": path, "content": content}))
        }
    }
}

/// The user's prompts and the function responses after the last one. The
/// CLI puts its context before the first prompt, in the same text: the
/// prompt is what follows the context's closing tag.
fn read(request: &Value) -> Conversation {
    let mut conversation = Conversation::default();
    for content in request["contents"].as_array().into_iter().flatten() {
        if content["role"] != "user" {
            continue;
        }
        for part in content["parts"].as_array().into_iter().flatten() {
            if let Some(response) = part.get("functionResponse") {
                conversation.results.push(text_of(&response["response"]));
            } else if let Some(text) = part["text"].as_str() {
                let text = text.rsplit("</session_context>").next().unwrap_or(text);
                if !text.trim().is_empty() {
                    conversation.prompts.push(text.trim_start().to_owned());
                    conversation.results.clear();
                }
            }
        }
    }
    conversation
}

/// A value of the JSON schema: the first of an enum, `ok`, 1, false, and
/// objects with every property.
fn of_schema(schema: &Value) -> Value {
    if let Some(first) = schema["enum"].as_array().and_then(|e| e.first()) {
        return first.clone();
    }
    let kind = schema["type"]
        .as_str()
        .unwrap_or("object")
        .to_ascii_lowercase();
    match kind.as_str() {
        "string" => json!("ok"),
        "number" | "integer" => json!(1),
        "boolean" => json!(false),
        "array" => json!([]),
        _ => {
            let mut object = Map::new();
            if let Some(properties) = schema["properties"].as_object() {
                for (name, property) in properties {
                    object.insert(name.clone(), of_schema(property));
                }
            }
            Value::Object(object)
        }
    }
}
