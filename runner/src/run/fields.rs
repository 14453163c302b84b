//! How a structured entry (a tool call, a plan, a permission request) meets
//! the transcript filters, which only read text: every string in it is a
//! field of its own, found by its JSON pointer, and put back where it came
//! from once filtered. A value the agent sent as JSON (a tool's input or raw
//! output) is one field, its JSON text: a filter sees its keys and values
//! together, as they would be printed, and what it returns is read back as
//! JSON (or kept as the text it returned, when it no longer is JSON).
//!
//! Nothing is left out but what cannot hold the agent's words: the runner's
//! own ids and ACP's closed sets ([`NOT_TEXT`]).

use serde_json::Value;

use crate::host::bindings::EntryKind;

/// Keys whose values are the runner's ids or one of ACP's closed sets.
const NOT_TEXT: [&str; 6] = ["id", "request_id", "kind", "status", "type", "priority"];

/// Keys whose values the agent sent as free JSON: one field each.
const AS_JSON: [&str; 2] = ["input", "raw_output"];

/// Keys of what a tool printed or returned (the rest of a tool call is what
/// it is and does).
const OUTPUT: [&str; 3] = ["output", "raw_output", "content"];

/// Longest text kept in one field once filtered: a longer one keeps its
/// head and its tail.
pub const MAX_FIELD: usize = 64 << 10;

/// One text of a structured entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// Where it is (`/title`, `/options/0/name`).
    pub pointer: String,
    pub text: String,
    /// Whether `text` is a JSON value's text, to be read back as JSON.
    pub json: bool,
}

impl Field {
    /// The kind of entry the filters see this field as: output of a tool
    /// call is `tool-output`, the rest of it `tool-call`; every field of
    /// another entry has the entry's kind.
    pub fn kind(&self, entry: EntryKind) -> EntryKind {
        let top = self.pointer.split('/').nth(1).unwrap_or("");
        if entry == EntryKind::ToolCall && OUTPUT.contains(&top) {
            EntryKind::ToolOutput
        } else {
            entry
        }
    }
}

/// The fields of `value`, in document order.
pub fn fields(value: &Value) -> Vec<Field> {
    let mut out = Vec::new();
    walk(value, String::new(), false, &mut out);
    out
}

fn walk(value: &Value, pointer: String, as_json: bool, out: &mut Vec<Field>) {
    match value {
        Value::String(text) => out.push(Field {
            pointer,
            text: text.clone(),
            json: false,
        }),
        _ if as_json => out.push(Field {
            pointer,
            text: value.to_string(),
            json: true,
        }),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                walk(item, format!("{pointer}/{i}"), false, out);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                if NOT_TEXT.contains(&key.as_str()) {
                    continue;
                }
                let at = format!("{pointer}/{}", key.replace('~', "~0").replace('/', "~1"));
                walk(item, at, AS_JSON.contains(&key.as_str()), out);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// Puts a field's filtered text back where it came from, cut to
/// [`MAX_FIELD`].
pub fn put_back(value: &mut Value, field: &Field, filtered: String) {
    let Some(slot) = value.pointer_mut(&field.pointer) else {
        return;
    };
    let cut = filtered.len() > MAX_FIELD;
    *slot = match serde_json::from_str::<Value>(&filtered) {
        Ok(json) if field.json && !cut => json,
        _ => Value::String(cut_long(filtered)),
    };
}

/// `text` with its middle cut out when it is longer than [`MAX_FIELD`]: the
/// head and the tail (where errors usually are) stay, the cut says how much.
pub fn cut_long(text: String) -> String {
    if text.len() <= MAX_FIELD {
        return text;
    }
    blaise_protocol::text::cut_middle(&text, MAX_FIELD, 3)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_string_is_a_field_but_ids_and_closed_sets() {
        let call = json!({
            "id": "tc-1", "title": "curl", "kind": "execute", "status": "completed",
            "command": "curl -H 'token: x'",
            "input": {"command": ["curl"], "secret/key~": "v"},
            "locations": [{"path": "/w/a.rs", "line": 3}],
            "content": [{"type": "diff", "path": "/w/a.rs", "old_text": "a", "new_text": "b"}],
            "output": "done",
        });
        let mut found: Vec<(String, bool)> = fields(&call)
            .into_iter()
            .map(|f| (f.pointer, f.json))
            .collect();
        found.sort();
        assert_eq!(
            found,
            [
                ("/command".to_string(), false),
                ("/content/0/new_text".into(), false),
                ("/content/0/old_text".into(), false),
                ("/content/0/path".into(), false),
                ("/input".into(), true),
                ("/locations/0/path".into(), false),
                ("/output".into(), false),
                ("/title".into(), false),
            ]
        );
        let input = fields(&call).into_iter().find(|f| f.json).unwrap();
        assert_eq!(input.text, r#"{"command":["curl"],"secret/key~":"v"}"#);
        assert_eq!(
            input.kind(EntryKind::ToolCall),
            EntryKind::ToolCall,
            "the input is what the call does"
        );
        let output = fields(&call).into_iter().find(|f| f.pointer == "/output");
        assert_eq!(
            output.unwrap().kind(EntryKind::ToolCall),
            EntryKind::ToolOutput
        );
        let diff = fields(&call)
            .into_iter()
            .find(|f| f.pointer == "/content/0/new_text");
        assert_eq!(
            diff.unwrap().kind(EntryKind::ToolCall),
            EntryKind::ToolOutput
        );
    }

    #[test]
    fn filtered_texts_go_back_where_they_came_from() {
        let mut call = json!({"title": "t", "input": {"a": "sk-1"}, "options": [{"name": "x"}]});
        for field in fields(&call.clone()) {
            let masked = field.text.replace("sk-1", "[MASKED]").replace('x', "y");
            put_back(&mut call, &field, masked);
        }
        assert_eq!(
            call,
            json!({"title": "t", "input": {"a": "[MASKED]"}, "options": [{"name": "y"}]})
        );
        // A filter that breaks the JSON: its text is kept as text.
        let mut call = json!({"input": {"a": "b"}});
        let field = fields(&call).remove(0);
        put_back(&mut call, &field, "{\"a\": [MASK".into());
        assert_eq!(call, json!({"input": "{\"a\": [MASK"}));
    }

    #[test]
    fn long_texts_keep_their_head_and_tail() {
        let text = format!("{}{}", "h".repeat(MAX_FIELD), "t".repeat(MAX_FIELD));
        let cut = cut_long(text);
        assert!(cut.len() < MAX_FIELD + 100, "{}", cut.len());
        assert!(cut.starts_with("hhh") && cut.ends_with("ttt"));
        assert!(cut.contains(&format!("[{} bytes cut]", 2 * MAX_FIELD - MAX_FIELD)));
        let short = "é".repeat(10);
        assert_eq!(cut_long(short.clone()), short);
    }
}
