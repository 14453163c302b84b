//! What a session produced, as Linear's agent activities (its "Developing the Agent Interaction"
//! guide): the agent's text between actions a `thought`, the end of a turn a `response`, a tool
//! call an `action` with its command and outcome, a permission request an `elicitation` offering
//! its options (`select`), Blaise's word on a failed session an `error`.

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::sources::produced::Produced;

/// Longest body Blaise sends in one activity; a longer one keeps its head and tail. (Linear
/// turns responses into comments; a tool's whole output belongs on the session's page.)
const MAX_BODY: usize = 16 * 1024;
const MAX_RESULT: usize = 4 * 1024;

/// The activity's input (without the session and id, which the caller adds).
pub fn of(item: &Produced, ended: bool) -> Value {
    match item {
        Produced::Thought(text) => {
            json!({ "content": { "type": "thought", "body": cut(text, MAX_BODY) } })
        }
        Produced::Answer(text) => {
            json!({ "content": { "type": "response", "body": cut(text, MAX_BODY) } })
        }
        Produced::Action {
            title,
            command,
            status,
            output,
        } => {
            let mut result = match output {
                Some(o) => code_block(&cut(o, MAX_RESULT)),
                None => String::new(),
            };
            if status == "failed" {
                result.insert_str(0, "Failed.\n");
            }
            let mut content = json!({
                "type": "action",
                "action": cut(title, 256),
                "parameter": cut(command.as_deref().unwrap_or(title), 1024),
            });
            if !result.is_empty() {
                content["result"] = json!(result.trim_end());
            }
            json!({ "content": content })
        }
        Produced::Permission { title, options, .. } => {
            let names: Vec<&str> = options.iter().map(|(_, name)| name.as_str()).collect();
            json!({
                "content": {
                    "type": "elicitation",
                    "body": format!(
                        "The agent asks permission: {}. Answer with one of: {}.",
                        cut(title, 512),
                        names.join(", ")
                    ),
                },
                "signal": "select",
                "signalMetadata": {
                    "options": options.iter().map(|(_, name)| json!({ "label": name, "value": name })).collect::<Vec<_>>()
                },
            })
        }
        Produced::Notice(text) if ended => {
            json!({ "content": { "type": "error", "body": cut(text, MAX_BODY) } })
        }
        Produced::Notice(text) => {
            json!({ "content": { "type": "thought", "body": cut(text, MAX_BODY) } })
        }
    }
}

pub fn thought(body: &str) -> Value {
    json!({ "content": { "type": "thought", "body": body } })
}

pub fn response(body: &str) -> Value {
    json!({ "content": { "type": "response", "body": body } })
}

pub fn error(body: &str) -> Value {
    json!({ "content": { "type": "error", "body": cut(body, MAX_BODY) } })
}

/// The id of the activity for a transcript entry: the same every time it is sent, so that a
/// retry after an answer Blaise did not receive names the activity Linear already has.
pub fn id_for(source: &str, thread: &str, index: i64) -> String {
    uuid(&Sha256::digest(format!("{source}\n{thread}\n{index}").as_bytes())[..16])
}

/// A fresh id for a reply.
pub fn new_id() -> String {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).expect("the system's random numbers");
    uuid(&b)
}

/// 16 bytes as a version 4 UUID (Linear's ids are UUIDs).
fn uuid(b: &[u8]) -> String {
    let mut b: [u8; 16] = b.try_into().expect("16 bytes");
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h = hex::encode(b);
    format!(
        "{}-{}-{}-{}-{}",
        &h[..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..]
    )
}

/// `text` as a Markdown code block, exactly as it is: its fence is longer than any run of
/// backticks inside it (CommonMark), so a fence the output holds is text, not the block's end.
fn code_block(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}\n{}\n{fence}", text.trim_end_matches('\n'))
}

/// `text` within `max` bytes: its head and tail, with what was left out said between them.
fn cut(text: &str, max: usize) -> String {
    blaise_protocol::text::cut_middle(text, max, 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_thing_a_session_produced_is_the_activity_linear_documents() {
        assert_eq!(
            of(&Produced::Answer("Done.".into()), false),
            json!({ "content": { "type": "response", "body": "Done." } })
        );
        let action = of(
            &Produced::Action {
                title: "Run tests".into(),
                command: Some("pytest -q".into()),
                status: "failed".into(),
                output: Some("1 failed".into()),
            },
            false,
        );
        assert_eq!(action["content"]["type"], "action");
        assert_eq!(action["content"]["parameter"], "pytest -q");
        assert_eq!(action["content"]["result"], "Failed.\n```\n1 failed\n```");
    }

    /// An output is shown as it is: a fence inside it (a README printed by `cat`) neither ends
    /// the block nor is changed.
    #[test]
    fn an_output_holding_fences_is_one_code_block_of_it_as_it_is() {
        for (output, fence) in [
            ("plain", "```"),
            ("```sh\nmake\n```", "````"),
            ("a ```` b ``` c", "`````"),
            ("`tick` and ``two``", "```"),
        ] {
            let action = of(
                &Produced::Action {
                    title: "cat".into(),
                    command: None,
                    status: "completed".into(),
                    output: Some(output.into()),
                },
                false,
            );
            assert_eq!(
                action["content"]["result"],
                format!("{fence}\n{output}\n{fence}"),
                "{output:?}"
            );
        }
        let ask = of(
            &Produced::Permission {
                request_id: "p1".into(),
                title: "Delete build/".into(),
                options: vec![
                    ("allow".into(), "Allow".into()),
                    ("deny".into(), "Reject".into()),
                ],
            },
            false,
        );
        assert_eq!(ask["signal"], "select");
        assert_eq!(ask["signalMetadata"]["options"][1]["value"], "Reject");
        assert_eq!(
            of(&Produced::Notice("x".into()), true)["content"]["type"],
            "error"
        );
        assert_eq!(
            of(&Produced::Notice("x".into()), false)["content"]["type"],
            "thought"
        );
    }

    #[test]
    fn long_text_keeps_its_head_and_tail_on_character_boundaries() {
        let text = "é".repeat(20_000);
        let out = cut(&text, MAX_BODY);
        assert!(out.len() < MAX_BODY + 64);
        assert!(out.starts_with('é') && out.ends_with('é'));
        assert!(out.contains("bytes cut"));
    }

    #[test]
    fn ids_are_uuids_and_an_entry_always_has_the_same_one() {
        let id = id_for("linear:coder", "t", 7);
        assert_eq!(id, id_for("linear:coder", "t", 7));
        assert_ne!(id, id_for("linear:coder", "t", 8));
        assert_eq!(id.len(), 36);
        assert_eq!(&id[14..15], "4");
        assert_ne!(new_id(), new_id());
    }
}
