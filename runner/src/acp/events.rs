//! From ACP `session/update` notifications (and permission requests) to
//! [`AgentEvent`]s: which chunks make one stream and where a stream ends,
//! tool calls merged by id, plans.

use agent_client_protocol::v1::schema::{
    ContentChunk, PlanEntry, RequestPermissionRequest, SessionUpdate, ToolCallUpdateFields,
};

use super::AgentEvent;
use super::tool_calls::{Changed, ToolCalls, block_text};
use crate::host::bindings::{EntryKind, TranscriptEntry};
use crate::protocol::entries::{Permission, PermissionChoice, PlanStep};

/// The stream being written, if any.
#[derive(Debug)]
struct OpenStream {
    id: String,
    kind: EntryKind,
    message_id: Option<String>,
    replay: bool,
}

/// Turns an agent's updates into events, in the order they happened. It
/// sends nothing itself: each call returns the events it made, and the
/// caller sends them on (awaiting room in the bounded channel).
#[derive(Debug, Default)]
pub(crate) struct Transcript {
    open: Option<OpenStream>,
    streams: u64,
    replay: bool,
    tool_calls: ToolCalls,
    permissions: u64,
    /// The agent's running cost as it last said it, by currency (for this
    /// process: a kept agent's goes on with it).
    pub(super) cost_seen: CostsSeen,
}

impl Transcript {
    /// Entries from now on are (or are no longer) the replay of
    /// `session/load`. Either way the open stream ends first: a live answer
    /// never continues a replayed message.
    pub fn set_replay(&mut self, replay: bool) -> Option<AgentEvent> {
        let ended = self.end_stream();
        self.replay = replay;
        ended
    }

    /// One `session/update`.
    pub fn update(&mut self, update: SessionUpdate) -> Vec<AgentEvent> {
        let mut out = Vec::new();
        match update {
            // The user's words are recorded by Blaise when they are sent: what
            // an agent sends as the user's is a replay or an echo, never new.
            SessionUpdate::UserMessageChunk(chunk) => {
                self.chunk(EntryKind::UserMessage, chunk, true, &mut out)
            }
            SessionUpdate::AgentMessageChunk(chunk) => {
                self.chunk(EntryKind::AgentMessage, chunk, self.replay, &mut out)
            }
            SessionUpdate::AgentThoughtChunk(chunk) => {
                self.chunk(EntryKind::AgentThought, chunk, self.replay, &mut out)
            }
            SessionUpdate::ToolCall(call) => {
                let changed = self.tool_calls.announce(call);
                self.tool_call(changed, &mut out);
            }
            SessionUpdate::ToolCallUpdate(update) => {
                let id = update.tool_call_id.0.to_string();
                let changed = self
                    .tool_calls
                    .update(&id, update.fields, update.meta.as_ref());
                self.tool_call(changed, &mut out);
            }
            SessionUpdate::Plan(plan) => {
                out.extend(self.end_stream());
                out.push(AgentEvent::Plan {
                    steps: plan.entries.iter().map(plan_step).collect(),
                    replay: self.replay,
                });
            }
            // What it used: not the conversation, and not counted again when
            // a load replays it.
            SessionUpdate::UsageUpdate(usage) => {
                let cost = usage
                    .cost
                    .and_then(|c| self.cost_seen.step(c.amount, c.currency));
                // A replay's is not counted again; its total is where the count goes on from.
                if !self.replay {
                    out.push(AgentEvent::Usage(super::Used {
                        context_used: usage.used,
                        context_size: usage.size,
                        cost,
                    }));
                }
            }
            // Commands, modes, session info: the agent's state, not the
            // conversation. Only the kind is logged: the rest is agent text.
            other => tracing::trace!(
                update = update_name(&other),
                "an agent update that is not a transcript entry"
            ),
        }
        out
    }

    /// A tool call's update: what its command printed (the call's output
    /// stream, its last text before the call's end), then the call as it now
    /// stands. Either ends the open message stream.
    fn tool_call(&mut self, changed: Changed, out: &mut Vec<AgentEvent>) {
        if changed.output.is_empty() && changed.call.is_none() {
            return;
        }
        out.extend(self.end_stream());
        for (text, last) in changed.output {
            out.push(AgentEvent::Chunk(TranscriptEntry {
                stream_id: output_stream(&changed.id),
                kind: EntryKind::ToolOutput,
                text,
                last,
                replay: self.replay,
            }));
        }
        if let Some(call) = changed.call {
            out.push(AgentEvent::ToolCall {
                call,
                replay: self.replay,
            });
        }
    }

    /// Output streams of calls that never ended (the turn is over, or the
    /// agent gone): each gets its last text.
    pub fn end_outputs(&mut self) -> Vec<AgentEvent> {
        let replay = self.replay;
        self.tool_calls
            .end_outputs()
            .into_iter()
            .map(|(id, text)| {
                AgentEvent::Chunk(TranscriptEntry {
                    stream_id: output_stream(&id),
                    kind: EntryKind::ToolOutput,
                    text,
                    last: true,
                    replay,
                })
            })
            .collect()
    }

    /// A permission request: the tool call it is about (merged with what
    /// the agent said of that call before), and the choices it offers.
    /// Returns the events that come before the request (the open stream's
    /// end, the tool call as it now stands if the request changed it) and
    /// the request.
    pub fn permission(
        &mut self,
        request: &RequestPermissionRequest,
    ) -> (Vec<AgentEvent>, Permission) {
        let mut before: Vec<AgentEvent> = self.end_stream().into_iter().collect();
        let id = request.tool_call.tool_call_id.0.to_string();
        let fields: ToolCallUpdateFields = request.tool_call.fields.clone();
        let changed = self
            .tool_calls
            .update(&id, fields, request.tool_call.meta.as_ref());
        let call = self.tool_calls.get(&id);
        self.tool_call(changed, &mut before);
        self.permissions += 1;
        let permission = Permission {
            request_id: format!("perm-{}", self.permissions),
            tool_call: call,
            options: request
                .options
                .iter()
                .map(|option| PermissionChoice {
                    option_id: option.option_id.0.to_string(),
                    name: option.name.clone(),
                    kind: wire_name(&option.kind),
                })
                .collect(),
        };
        (before, permission)
    }

    /// Ends the open stream, if any: its empty `last` entry.
    pub fn end_stream(&mut self) -> Option<AgentEvent> {
        let open = self.open.take()?;
        Some(AgentEvent::Chunk(TranscriptEntry {
            stream_id: open.id,
            kind: open.kind,
            text: String::new(),
            last: true,
            replay: open.replay,
        }))
    }

    /// A chunk of a message: it continues the open stream when that has the
    /// same kind, message id and replay mark; otherwise the open stream ends
    /// and a new one starts.
    fn chunk(
        &mut self,
        kind: EntryKind,
        chunk: ContentChunk,
        replay: bool,
        out: &mut Vec<AgentEvent>,
    ) {
        let message_id = chunk.message_id.map(|id| id.0.to_string());
        let continues = self.open.as_ref().is_some_and(|open| {
            open.kind == kind && open.message_id == message_id && open.replay == replay
        });
        if !continues {
            out.extend(self.end_stream());
            self.streams += 1;
            self.open = Some(OpenStream {
                id: format!("s{}", self.streams),
                kind,
                message_id,
                replay,
            });
        }
        let id = self.open.as_ref().map(|o| o.id.clone()).unwrap_or_default();
        out.push(AgentEvent::Chunk(TranscriptEntry {
            stream_id: id,
            kind,
            text: block_text(&chunk.content),
            last: false,
            replay,
        }));
    }
}

/// An agent's running costs as it last gave them, by currency: what it reports is turned into
/// what was spent since.
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct CostsSeen(std::collections::BTreeMap<String, f64>);

/// Most currencies one agent's costs are counted in (an agent reports one).
const MAX_CURRENCIES: usize = 4;

impl CostsSeen {
    /// What was spent since the agent last gave its running cost `total` in `currency`: the
    /// first total counts whole; a total that went down (the agent started counting again)
    /// counts from zero. A total that is no amount (not finite, negative, past what a report
    /// may carry) or in no currency a report may carry is left out, the count kept where it
    /// was: the next good total is counted from there, never twice.
    pub fn step(&mut self, total: f64, currency: String) -> Option<(f64, String)> {
        let cost = blaise_protocol::Cost {
            amount: total,
            currency,
        };
        if let Some((_, why)) = cost.problem() {
            tracing::warn!("the agent's cost is left out: {why}");
            return None;
        }
        let blaise_protocol::Cost {
            amount: total,
            currency,
        } = cost;
        let seen = self.0.get(&currency).copied();
        if seen.is_none() && self.0.len() >= MAX_CURRENCIES {
            tracing::warn!(
                "the agent's cost is left out: it reported more than {MAX_CURRENCIES} currencies"
            );
            return None;
        }
        let step = match seen {
            Some(seen) if total >= seen => total - seen,
            _ => total,
        };
        self.0.insert(currency.clone(), total);
        Some((step, currency))
    }
}

/// The stream of a call's output: `tc-N/output` (one stream per call).
pub(crate) fn output_stream(call_id: &str) -> String {
    format!("{call_id}/output")
}

fn plan_step(entry: &PlanEntry) -> PlanStep {
    PlanStep {
        content: entry.content.clone(),
        priority: wire_name(&entry.priority),
        status: wire_name(&entry.status),
    }
}

/// A closed ACP enum's wire name (`allow_once`, `in_progress`).
fn wire_name(value: &impl serde::Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(name)) => name,
        _ => "other".into(),
    }
}

/// The `sessionUpdate` tag of an update, for the log.
fn update_name(update: &SessionUpdate) -> String {
    serde_json::to_value(update)
        .ok()
        .and_then(|v| v.get("sessionUpdate")?.as_str().map(str::to_owned))
        .unwrap_or_else(|| "unknown".into())
}

#[cfg(test)]
mod tests {
    use agent_client_protocol::v1::schema::{
        ContentBlock, MessageId, PermissionOption, PermissionOptionKind, Plan, PlanEntryPriority,
        PlanEntryStatus, TextContent, ToolCall, ToolCallUpdate, ToolKind,
    };

    use super::*;

    fn text_chunk(text: &str, message_id: Option<&str>) -> ContentChunk {
        let chunk = ContentChunk::new(ContentBlock::Text(TextContent::new(text)));
        match message_id {
            Some(id) => chunk.message_id(MessageId::new(id)),
            None => chunk,
        }
    }

    type Row = (String, EntryKind, String, bool, bool);

    fn rows(events: Vec<AgentEvent>) -> Vec<Row> {
        events
            .into_iter()
            .map(|event| match event {
                AgentEvent::Chunk(e) => (e.stream_id, e.kind, e.text, e.last, e.replay),
                AgentEvent::ToolCall { call, replay } => (
                    call.id,
                    EntryKind::ToolCall,
                    format!("{} {}", call.title, call.status),
                    true,
                    replay,
                ),
                AgentEvent::Plan { steps, replay } => (
                    "plan".into(),
                    EntryKind::AgentThought,
                    steps.len().to_string(),
                    true,
                    replay,
                ),
                other => panic!("unexpected {other:?}"),
            })
            .collect()
    }

    fn e(id: &str, kind: EntryKind, text: &str, last: bool) -> Row {
        (id.into(), kind, text.into(), last, false)
    }

    #[test]
    fn chunks_of_one_message_share_a_stream_ended_by_last() {
        let mut t = Transcript::default();
        let mut all = Vec::new();
        for update in [
            SessionUpdate::AgentMessageChunk(text_chunk("Hel", None)),
            SessionUpdate::AgentMessageChunk(text_chunk("lo", None)),
            SessionUpdate::AgentThoughtChunk(text_chunk("hmm", None)),
            SessionUpdate::AgentMessageChunk(text_chunk("a", Some("m-1"))),
            SessionUpdate::AgentMessageChunk(text_chunk("b", Some("m-1"))),
            SessionUpdate::AgentMessageChunk(text_chunk("c", Some("m-2"))),
        ] {
            all.extend(t.update(update));
        }
        all.extend(t.end_stream());
        all.extend(t.end_stream());
        assert_eq!(
            rows(all),
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
    fn tool_calls_end_the_open_stream_and_come_whole_on_every_update() {
        let mut t = Transcript::default();
        let mut all = t.update(SessionUpdate::AgentMessageChunk(text_chunk(
            "running", None,
        )));
        all.extend(t.update(SessionUpdate::ToolCall(
            ToolCall::new("t1", "ls -a").kind(ToolKind::Execute),
        )));
        all.extend(
            t.update(SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
                "t1",
                ToolCallUpdateFields::new()
                    .status(agent_client_protocol::v1::schema::ToolCallStatus::Completed),
            ))),
        );
        all.extend(t.update(SessionUpdate::AgentMessageChunk(text_chunk("done", None))));
        all.extend(t.end_stream());
        assert_eq!(
            rows(all),
            [
                e("s1", EntryKind::AgentMessage, "running", false),
                e("s1", EntryKind::AgentMessage, "", true),
                e("tc-1", EntryKind::ToolCall, "ls -a pending", true),
                e("tc-1", EntryKind::ToolCall, "ls -a completed", true),
                e("s2", EntryKind::AgentMessage, "done", false),
                e("s2", EntryKind::AgentMessage, "", true),
            ]
        );
    }

    #[test]
    fn replay_is_marked_and_a_live_answer_never_joins_a_replayed_message() {
        let mut t = Transcript::default();
        let mut all: Vec<AgentEvent> = t.set_replay(true).into_iter().collect();
        all.extend(t.update(SessionUpdate::UserMessageChunk(text_chunk("hi", None))));
        all.extend(t.update(SessionUpdate::AgentMessageChunk(text_chunk("hello", None))));
        all.extend(t.set_replay(false));
        all.extend(t.update(SessionUpdate::AgentMessageChunk(text_chunk("live", None))));
        let rows = rows(all);
        let replay = |id: &str, kind, text: &str, last| (id.into(), kind, text.into(), last, true);
        assert_eq!(
            rows,
            [
                replay("s1", EntryKind::UserMessage, "hi", false),
                replay("s1", EntryKind::UserMessage, "", true),
                replay("s2", EntryKind::AgentMessage, "hello", false),
                replay("s2", EntryKind::AgentMessage, "", true),
                e("s3", EntryKind::AgentMessage, "live", false),
            ]
        );
    }

    #[test]
    fn what_the_agent_sends_as_the_users_words_is_never_recorded_as_new() {
        let mut t = Transcript::default();
        let mut all = t.update(SessionUpdate::UserMessageChunk(text_chunk("echo", None)));
        all.extend(t.update(SessionUpdate::AgentMessageChunk(text_chunk("answer", None))));
        let rows = rows(all);
        assert!(rows[0].4 && rows[1].4, "{rows:?}");
        assert_eq!(rows[2], e("s2", EntryKind::AgentMessage, "answer", false));
    }

    #[test]
    fn a_permission_request_brings_its_tool_call_and_runner_ids() {
        let mut t = Transcript::default();
        let mut all = t.update(SessionUpdate::AgentMessageChunk(text_chunk("may I?", None)));
        let request = RequestPermissionRequest::new(
            "ses",
            ToolCallUpdate::new(
                "agent-chosen-id",
                ToolCallUpdateFields::new()
                    .title("rm -rf target")
                    .kind(ToolKind::Execute),
            ),
            vec![
                PermissionOption::new("allow", "Allow", PermissionOptionKind::AllowOnce),
                PermissionOption::new("deny", "Deny", PermissionOptionKind::RejectOnce),
            ],
        );
        let (before, permission) = t.permission(&request);
        all.extend(before);
        assert_eq!(
            rows(all),
            [
                e("s1", EntryKind::AgentMessage, "may I?", false),
                e("s1", EntryKind::AgentMessage, "", true),
                e("tc-1", EntryKind::ToolCall, "rm -rf target pending", true),
            ]
        );
        assert_eq!(permission.request_id, "perm-1");
        assert_eq!(
            permission.tool_call.command.as_deref(),
            Some("rm -rf target")
        );
        assert_eq!(permission.options[1].kind, "reject_once");
        assert_eq!(t.permission(&request).1.request_id, "perm-2");
    }

    #[test]
    fn a_plan_is_whole() {
        let mut t = Transcript::default();
        let events = t.update(SessionUpdate::Plan(Plan::new(vec![
            PlanEntry::new("read", PlanEntryPriority::High, PlanEntryStatus::Completed),
            PlanEntry::new("write", PlanEntryPriority::Low, PlanEntryStatus::InProgress),
        ])));
        match &events[..] {
            [
                AgentEvent::Plan {
                    steps,
                    replay: false,
                },
            ] => {
                assert_eq!(steps[1].status, "in_progress");
                assert_eq!(steps[0].priority, "high");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_running_cost_is_reported_as_steps() {
        use agent_client_protocol::v1::schema::{Cost, UsageUpdate};
        let usage = |total: Option<f64>, currency: &str| {
            let mut u = UsageUpdate::new(1501, 200_000);
            u.cost = total.map(|t| Cost::new(t, currency));
            SessionUpdate::UsageUpdate(u)
        };
        let mut t = Transcript::default();
        // (the agent's running total, its currency) → the step reported.
        type Row<'a> = (Option<f64>, &'a str, Option<(f64, &'a str)>);
        let rows: &[Row] = &[
            (Some(0.5), "USD", Some((0.5, "USD"))),
            (None, "USD", None),
            (Some(1.25), "USD", Some((0.75, "USD"))),
            (Some(1.25), "USD", Some((0.0, "USD"))),
            // It started counting again (a new process): from zero.
            (Some(0.1), "USD", Some((0.1, "USD"))),
            // Another unit counts on its own, and switching back does not count twice.
            (Some(7.0), "credits", Some((7.0, "credits"))),
            (Some(0.3), "USD", Some((0.2, "USD"))),
            // No amount, or no currency: left out, the count kept where it was.
            (Some(f64::NAN), "credits", None),
            (Some(-1.0), "credits", None),
            (Some(f64::INFINITY), "credits", None),
            (Some(8.0), "credits", Some((1.0, "credits"))),
            (Some(9.0), "c$", None),
            (Some(9.0), "", None),
        ];
        for (total, currency, step) in rows {
            let events = t.update(usage(*total, currency));
            let [AgentEvent::Usage(used)] = &events[..] else {
                panic!("{events:?}");
            };
            assert_eq!(used.context_used, 1501);
            assert_eq!(used.context_size, 200_000);
            let got = used.cost.as_ref().map(|(a, c)| (*a, c.as_str()));
            let want = step.map(|(a, c)| (a, c));
            match (got, want) {
                (Some((a, c)), Some((b, d))) => {
                    assert!(
                        (a - b).abs() < 1e-9 && c == d,
                        "{total:?}: {got:?} != {want:?}"
                    )
                }
                (got, want) => assert_eq!(got, want, "{total:?}"),
            }
        }
        // A replay's usage is not counted again: its total is where the count goes on from.
        t.set_replay(true);
        assert!(t.update(usage(Some(9.0), "USD")).is_empty());
        t.set_replay(false);
        let events = t.update(usage(Some(9.5), "USD"));
        let [AgentEvent::Usage(used)] = &events[..] else {
            panic!("{events:?}");
        };
        assert_eq!(used.cost, Some((0.5, "USD".to_owned())));
    }
}
