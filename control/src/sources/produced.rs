//! What a session produced, read from its transcript, as a message source tells its users: the
//! agent's text as one piece between its actions (a thought while the turn goes on, the answer when
//! it ends), each tool call once it has ended, each permission request, Blaise's notices.
//!
//! Stateless: a source's conversation keeps only the index of the last entry it was told of.
//! Text of a turn still going on is left unread (its entries are read again next time), so that
//! nothing is told twice and nothing is lost across a restart.

use serde_json::Value;

use crate::model::TranscriptEntry;

#[derive(Clone, Debug, PartialEq)]
pub enum Produced {
    /// The agent's reasoning, or its text before an action: the turn goes on.
    Thought(String),
    /// The agent's text at the end of its turn.
    Answer(String),
    /// A tool call that ended.
    Action {
        /// What the call was (its title, `Run pytest`), with its command when it ran one.
        title: String,
        command: Option<String>,
        /// `completed` or `failed`.
        status: String,
        /// What it printed, when the runner recorded it.
        output: Option<String>,
    },
    /// The agent asks whether it may go on.
    Permission {
        request_id: String,
        /// What it asks to do (the tool call's title).
        title: String,
        /// `(option_id, name)`, in the agent's order.
        options: Vec<(String, String)>,
    },
    /// Blaise's own word on the session (a failure, a recreated environment).
    Notice(String),
}

/// What is ready to tell of `entries` (a page of a transcript, oldest first): each item with the
/// index of the last entry it accounts for; and the index up to which every entry is accounted
/// for (what the source may record as told once it has told the items).
///
/// Turns are kept apart: `turn_ends` are the indices at which turns ended (the transcript's last
/// entry when the run reported each end); the text up to one is that turn's answer, and a user's
/// message ends the text before it too. So an item always ends at the same entry, however late it
/// is told: told again after a restart, it is the same item (the same activity at the source),
/// never one glued to the next turn's.
///
/// `turn_open`: the agent is still on a turn, so its trailing text may grow and is not read yet;
/// `page_full`: more entries follow this page, so trailing text is told now as a thought (a turn
/// that streams more than a page must not stall).
pub fn read(
    entries: &[TranscriptEntry],
    turn_ends: &[i64],
    turn_open: bool,
    page_full: bool,
) -> Ready {
    let mut ready = Ready::default();
    // Text being joined: its kind, the text, the index of its last entry.
    let mut text: Option<(String, String, i64)> = None;
    let mut settled = entries.first().map(|e| e.index - 1).unwrap_or(0);
    let flush = |text: &mut Option<(String, String, i64)>, ready: &mut Ready, ends_turn: bool| {
        if let Some((kind, body, last)) = text.take()
            && !body.trim().is_empty()
        {
            let produced = if kind == "agent_message" && ends_turn {
                Produced::Answer(body)
            } else {
                Produced::Thought(body)
            };
            ready.items.push((produced, last));
        }
    };
    for e in entries {
        let s = |key: &str| e.content.get(key).and_then(Value::as_str);
        let ends_turn = turn_ends.contains(&e.index);
        match e.kind.as_str() {
            "agent_message" | "agent_thought" => {
                let chunk = s("text").unwrap_or("");
                match &mut text {
                    Some((kind, body, last)) if *kind == e.kind => {
                        body.push_str(chunk);
                        *last = e.index;
                    }
                    _ => {
                        flush(&mut text, &mut ready, false);
                        settled = e.index - 1;
                        text = Some((e.kind.clone(), chunk.to_string(), e.index));
                    }
                }
                if ends_turn {
                    flush(&mut text, &mut ready, true);
                    settled = e.index;
                }
                continue;
            }
            // The user's words: what the agent said before them is told apart from what it
            // says after.
            "user_message" => flush(&mut text, &mut ready, false),
            "tool_call" => {
                let call = &e.content["tool_call"];
                let status = call["status"].as_str().unwrap_or("");
                // The agent's text before an action is one piece, and what it says after another.
                flush(&mut text, &mut ready, false);
                if matches!(status, "completed" | "failed") {
                    let field = |k: &str| call[k].as_str().filter(|v| !v.is_empty());
                    ready.items.push((
                        Produced::Action {
                            title: field("title").unwrap_or("a tool call").to_string(),
                            command: field("command").map(str::to_string),
                            status: status.to_string(),
                            output: field("output").map(str::to_string),
                        },
                        e.index,
                    ));
                }
            }
            "permission_request" => {
                flush(&mut text, &mut ready, false);
                let p = &e.content["permission"];
                let options = p["options"]
                    .as_array()
                    .map(|o| {
                        o.iter()
                            .filter_map(|o| {
                                Some((
                                    o["option_id"].as_str()?.to_string(),
                                    o["name"].as_str()?.to_string(),
                                ))
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                ready.items.push((
                    Produced::Permission {
                        request_id: p["request_id"].as_str().unwrap_or("").to_string(),
                        title: p["tool_call"]["title"]
                            .as_str()
                            .filter(|t| !t.is_empty())
                            .unwrap_or("a tool call")
                            .to_string(),
                        options,
                    },
                    e.index,
                ));
            }
            // Blaise's own notices (a runner's have a run).
            "notice" if e.run_id.is_none() => {
                flush(&mut text, &mut ready, false);
                ready.items.push((
                    Produced::Notice(s("text").unwrap_or("").to_string()),
                    e.index,
                ));
            }
            // The user's own messages, a tool's output (told with its call), plans, a runner's
            // notices: nothing to tell.
            _ => {}
        }
        // A turn that ended here: what it said last is its answer.
        if ends_turn {
            flush(&mut text, &mut ready, true);
        }
        // A tool call's update before it ended, and the rest: accounted for by what follows.
        if text.is_none() {
            settled = e.index;
        }
    }
    match text {
        Some(_) if turn_open && !page_full => {}
        _ => {
            flush(&mut text, &mut ready, !turn_open);
            settled = entries.last().map(|e| e.index).unwrap_or(settled);
        }
    }
    ready.settled = settled;
    ready
}

#[derive(Debug, Default, PartialEq)]
pub struct Ready {
    pub items: Vec<(Produced, i64)>,
    pub settled: i64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(index: i64, kind: &str, content: Value) -> TranscriptEntry {
        TranscriptEntry {
            index,
            session_id: "ses_x".into(),
            run_id: (kind != "user_message" && kind != "notice").then(|| "run_x".into()),
            seq: None,
            kind: kind.into(),
            content,
            at: 0,
        }
    }

    fn chunk(index: i64, kind: &str, text: &str) -> TranscriptEntry {
        entry(
            index,
            kind,
            json!({ "text": text, "stream": "s", "last": false }),
        )
    }

    fn call(index: i64, status: &str) -> TranscriptEntry {
        entry(
            index,
            "tool_call",
            json!({ "text": "", "tool_call": { "id": "t1", "title": "Run tests", "status": status,
                    "command": "pytest -q", "output": "3 passed" } }),
        )
    }

    #[test]
    fn text_before_an_action_is_a_thought_and_the_turns_last_text_its_answer() {
        let entries = vec![
            entry(1, "user_message", json!({ "text": "run the tests" })),
            chunk(2, "agent_message", "I will "),
            chunk(3, "agent_message", "run them."),
            call(4, "in_progress"),
            call(5, "completed"),
            chunk(6, "agent_message", "All "),
            chunk(7, "agent_message", "passed."),
        ];
        let ready = read(&entries, &[], false, false);
        assert_eq!(
            ready.items,
            vec![
                (Produced::Thought("I will run them.".into()), 3),
                (
                    Produced::Action {
                        title: "Run tests".into(),
                        command: Some("pytest -q".into()),
                        status: "completed".into(),
                        output: Some("3 passed".into()),
                    },
                    5
                ),
                (Produced::Answer("All passed.".into()), 7),
            ]
        );
        assert_eq!(ready.settled, 7);
    }

    #[test]
    fn the_text_of_a_turn_still_going_on_waits_and_is_told_once() {
        let entries = vec![
            call(1, "completed"),
            chunk(2, "agent_message", "Half"),
            chunk(3, "agent_message", " done"),
        ];
        let ready = read(&entries, &[], true, false);
        assert_eq!(ready.items.len(), 1);
        assert_eq!(ready.settled, 1, "the text is read again next time");
        // Next time, from after what was settled, the turn has ended.
        let ready = read(&entries[1..], &[], false, false);
        assert_eq!(ready.items, vec![(Produced::Answer("Half done".into()), 3)]);
        assert_eq!(ready.settled, 3);
        // A full page of a turn that goes on is told as a thought, not held back for ever.
        let ready = read(&entries[1..], &[], true, true);
        assert_eq!(
            ready.items,
            vec![(Produced::Thought("Half done".into()), 3)]
        );
    }

    #[test]
    fn permission_requests_and_notices_are_told_and_the_rest_is_not() {
        let entries = vec![
            entry(
                1,
                "permission_request",
                json!({ "text": "", "permission": { "request_id": "p1",
                    "tool_call": { "title": "Delete build/" },
                    "options": [ { "option_id": "allow", "name": "Allow", "kind": "allow_once" },
                                 { "option_id": "deny", "name": "Reject", "kind": "reject_once" } ] } }),
            ),
            entry(2, "plan", json!({ "text": "1. x", "plan": [] })),
            entry(3, "tool_output", json!({ "text": "out" })),
            entry(
                4,
                "notice",
                json!({ "text": "The session failed: the runner died." }),
            ),
            chunk(5, "agent_thought", "thinking"),
        ];
        let ready = read(&entries, &[], true, false);
        assert_eq!(
            ready.items,
            vec![
                (
                    Produced::Permission {
                        request_id: "p1".into(),
                        title: "Delete build/".into(),
                        options: vec![
                            ("allow".into(), "Allow".into()),
                            ("deny".into(), "Reject".into())
                        ],
                    },
                    1
                ),
                (
                    Produced::Notice("The session failed: the runner died.".into()),
                    4
                ),
            ]
        );
        assert_eq!(ready.settled, 4);
        // A thought is a thought even at the end of a turn.
        let ready = read(&entries[4..], &[], false, false);
        assert_eq!(ready.items, vec![(Produced::Thought("thinking".into()), 5)]);
    }

    #[test]
    fn each_turn_is_told_apart_and_the_same_however_late() {
        let entries = vec![
            entry(1, "user_message", json!({ "text": "first" })),
            chunk(2, "agent_message", "ECHO: "),
            chunk(3, "agent_message", "first"),
            entry(4, "user_message", json!({ "text": "second" })),
            chunk(5, "agent_message", "ECHO: second"),
        ];
        // Both turns over, told at once (the source was away for both).
        let both = read(&entries, &[3, 5], false, false);
        assert_eq!(
            both.items,
            vec![
                (Produced::Answer("ECHO: first".into()), 3),
                (Produced::Answer("ECHO: second".into()), 5),
            ]
        );
        assert_eq!(both.settled, 5);
        // The first told while the second went on: the same item, at the same entry.
        let first = read(&entries[..4], &[3], true, false);
        assert_eq!(
            first.items,
            vec![(Produced::Answer("ECHO: first".into()), 3)]
        );
        // A message that came in the middle of a turn cuts what came before it.
        let queued = vec![
            chunk(1, "agent_message", "working "),
            entry(2, "user_message", json!({ "text": "and also" })),
            chunk(3, "agent_message", "done"),
        ];
        assert_eq!(
            read(&queued, &[3], false, false).items,
            vec![
                (Produced::Thought("working ".into()), 1),
                (Produced::Answer("done".into()), 3),
            ]
        );
    }
}
