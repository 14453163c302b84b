//! The one way out for what the agent produces: every chunk, tool call,
//! plan, permission request, stderr line and error text passes the
//! filtering plugs (then, at the protocol client, the secret mask) before it
//! is recorded, sent to Blaise or logged. Replays are shown to the plugs but
//! not recorded; the rest is numbered once and queued in the run's outbox
//! (which sends it until Blaise has it). Streams still open get a flush hint
//! when quiet and their `last` chunk at the end.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use serde_json::{Value, json};

use super::fields::{self, Field};
use super::outbox::{Item, Outbox};
use crate::acp::AgentEvent;
use crate::chain::PlugChain;
use crate::host::HookError;
use crate::host::bindings::{EntryKind, TranscriptEntry};
use crate::protocol::entries::{Permission, PlanStep, Text, ToolCall, plan_text};
use crate::protocol::{EntryKind as Kind, TranscriptRecord};

/// How many batches in a row a failing filter may withhold before the run
/// gives up on it (a filter that fails on everything makes a transcript of
/// notices, not a session).
const WITHHELD_IN_A_ROW: u32 = 3;

pub struct Relay {
    outbox: Outbox,
    /// Batches withheld in a row because a filter failed on them.
    withheld_in_a_row: u32,
    seq: u64,
    /// Streams that had a chunk but not yet their `last` one, with their kind
    /// and whether they have had a chunk since their last flush hint.
    open: HashMap<String, (EntryKind, bool)>,
    /// Numbers the filters' streams of fields, stderr lines and errors.
    presented: u64,
    /// Each tool call's output as last recorded (a hash): an output is
    /// recorded as a `tool_output` entry when it first comes and when it changes.
    outputs: HashMap<String, u64>,
    /// Tool calls whose output was streamed as it came: their output is not
    /// recorded again whole when they end.
    streamed: HashSet<String>,
    /// Streams that were open when a filter failed: the fresh instance never
    /// saw how they began (a secret's first half may have been in what was
    /// withheld), so the rest of each is left out, up to its `last` chunk.
    cut_off: HashSet<String>,
    /// How much of the agent's stderr may still be logged.
    stderr: super::agent_log::Budget,
}

#[derive(Debug, thiserror::Error)]
pub enum RelayError {
    /// A filter failed: the entries must not leave unfiltered.
    #[error("transcript filter failed: {0}")]
    Filter(HookError),
}

/// A permission request as it may leave the runner.
#[derive(Debug)]
pub struct Presented {
    /// The request for Blaise: filtered, with option ids it can answer with.
    pub request: Value,
    /// The option ids shown, each with the agent's own.
    pub options: Vec<(String, String)>,
}

/// One thing the agent produced, with where its texts are in the filters' batch.
enum Piece {
    Chunk(Range<usize>),
    Structured {
        record: Kind,
        stream: String,
        value: Value,
        fields: Vec<(Field, Range<usize>)>,
        replay: bool,
    },
    Stderr(Range<usize>),
}

/// What the filters are handed in one call.
#[derive(Default)]
struct Batch(Vec<TranscriptEntry>);

impl Batch {
    /// Adds an entry, its text cut into chunks of one stream if long: where they are.
    fn push(&mut self, entry: TranscriptEntry) -> Range<usize> {
        let from = self.0.len();
        self.0.extend(split_long(vec![entry]));
        from..self.0.len()
    }
}

/// The filtered texts of a range, joined.
fn joined(filtered: &[TranscriptEntry], range: Range<usize>) -> String {
    filtered[range].iter().map(|e| e.text.as_str()).collect()
}

impl Relay {
    pub fn new(outbox: Outbox) -> Relay {
        Relay {
            outbox,
            withheld_in_a_row: 0,
            seq: 0,
            open: HashMap::new(),
            presented: 0,
            outputs: HashMap::new(),
            streamed: HashSet::new(),
            cut_off: HashSet::new(),
            stderr: super::agent_log::Budget::new(std::time::Instant::now()),
        }
    }

    /// Filters what the agent produced, in one call of the filters, and
    /// then: queues what is not a replay, numbered once (the outbox sends it
    /// in order until Blaise has it), and logs stderr lines. Permission
    /// requests go through [`Relay::permission`].
    pub async fn send(
        &mut self,
        chain: &mut PlugChain,
        events: impl IntoIterator<Item = AgentEvent>,
    ) -> Result<(), RelayError> {
        let events: Vec<AgentEvent> = events.into_iter().collect();
        if events.is_empty() {
            return Ok(());
        }
        let mut batch = Batch::default();
        let mut pieces = Vec::with_capacity(events.len());
        for event in events {
            pieces.push(match event {
                AgentEvent::Chunk(entry) if self.cut_off.contains(&entry.stream_id) => {
                    if entry.last {
                        self.cut_off.remove(&entry.stream_id);
                    }
                    continue;
                }
                AgentEvent::Chunk(entry) => {
                    if entry.kind == EntryKind::ToolOutput
                        && let Some(call) = entry.stream_id.strip_suffix("/output")
                    {
                        self.streamed.insert(call.to_owned());
                    }
                    if entry.last {
                        self.open.remove(&entry.stream_id);
                    } else {
                        self.open
                            .insert(entry.stream_id.clone(), (entry.kind, true));
                    }
                    Piece::Chunk(batch.push(entry))
                }
                AgentEvent::ToolCall { call, replay } => {
                    let stream = call.id.clone();
                    self.structured(
                        &mut batch,
                        Kind::ToolCall,
                        stream,
                        &call,
                        EntryKind::ToolCall,
                        replay,
                    )
                }
                AgentEvent::Plan { steps, replay } => {
                    self.presented += 1;
                    let stream = format!("plan-{}", self.presented);
                    self.structured(
                        &mut batch,
                        Kind::Plan,
                        stream,
                        &steps,
                        EntryKind::AgentThought,
                        replay,
                    )
                }
                AgentEvent::Stderr(line) => {
                    // Past the budget a line is dropped before the filters: nothing of it leaves.
                    if !self.stderr.admit(line.len(), std::time::Instant::now()) {
                        continue;
                    }
                    if let Some(dropped) = self.stderr.take_dropped() {
                        super::agent_log::log_dropped(dropped);
                    }
                    Piece::Stderr(self.text(&mut batch, "stderr", line))
                }
                // Not the conversation (the caller reports it).
                AgentEvent::Usage(_) => continue,
                AgentEvent::Permission { answer, .. } => {
                    // Not here: `permission` presents it. Answered, not lost.
                    tracing::warn!("a permission request reached the transcript: cancelled");
                    let _ = answer.send(crate::acp::PermissionAnswer::Cancelled);
                    continue;
                }
            });
        }
        let Some(filtered) = self.filtered(chain, batch.0).await? else {
            return Ok(());
        };
        let mut records = Vec::new();
        for piece in pieces {
            match piece {
                Piece::Chunk(range) => {
                    for e in &filtered[range] {
                        if !e.replay && (!e.text.is_empty() || ends_output(e)) {
                            let mut content =
                                json!({ "text": e.text, "stream": e.stream_id, "last": e.last });
                            if let Some(call) = output_of_call(e) {
                                // A command's output as it comes: its call's.
                                content["tool_call_id"] = json!(call);
                            }
                            records.push((wire_kind(e.kind), content));
                        }
                    }
                }
                Piece::Structured {
                    record,
                    stream,
                    mut value,
                    fields,
                    replay,
                } => {
                    for (field, range) in &fields {
                        fields::put_back(&mut value, field, joined(&filtered, range.clone()));
                    }
                    if !replay {
                        let output = self.new_output(&record, &stream, &value);
                        let content = content_of(&record, stream.clone(), value);
                        records.push((record, content));
                        if let Some(text) = output {
                            // For readers of text, as before tool calls had a
                            // structure: the output is its own entry.
                            let content = json!({ "text": text, "stream": format!("{stream}/output"),
                                                  "last": true, "tool_call_id": stream });
                            records.push((Kind::ToolOutput, content));
                        }
                    }
                }
                Piece::Stderr(range) => {
                    tracing::info!(target: "blaise_runner::agent", "{}", joined(&filtered, range));
                }
            }
        }
        self.queue(records);
        Ok(())
    }

    /// A permission request, filtered: recorded in the transcript, and made
    /// ready for Blaise. Option ids the filters or the secret mask changed
    /// (they are the agent's text) are shown as `option-N`.
    /// `None` when a filter failed on it: it was withheld, and the agent is
    /// answered "cancelled".
    pub async fn permission(
        &mut self,
        chain: &mut PlugChain,
        request: &Permission,
    ) -> Result<Option<Presented>, RelayError> {
        let mut batch = Batch::default();
        let mut value = serde_json::to_value(request).unwrap_or(Value::Null);
        let fields = self.fields_of(
            &mut batch,
            &request.request_id,
            &value,
            EntryKind::PermissionRequest,
            false,
        );
        let Some(filtered) = self.filtered(chain, batch.0).await? else {
            return Ok(None);
        };
        for (field, range) in &fields {
            fields::put_back(&mut value, field, joined(&filtered, range.clone()));
        }
        let agents: Vec<&str> = request
            .options
            .iter()
            .map(|o| o.option_id.as_str())
            .collect();
        let mut shown: Vec<String> = value["options"]
            .as_array()
            .map(|options| {
                options
                    .iter()
                    .map(|o| {
                        let id = o["option_id"].as_str().unwrap_or_default();
                        crate::secret_mask::scrub(id).into_owned()
                    })
                    .collect()
            })
            .unwrap_or_default();
        let unique = shown.iter().collect::<std::collections::HashSet<_>>().len() == shown.len();
        if shown.len() != agents.len() || !unique || shown.iter().zip(&agents).any(|(s, a)| s != a)
        {
            shown = (1..=agents.len()).map(|n| format!("option-{n}")).collect();
            if let Some(options) = value["options"].as_array_mut() {
                for (option, id) in options.iter_mut().zip(&shown) {
                    option["option_id"] = Value::String(id.clone());
                }
            }
        }
        let content = content_of(
            &Kind::PermissionRequest,
            request.request_id.clone(),
            value.clone(),
        );
        self.queue(vec![(Kind::PermissionRequest, content)]);
        Ok(Some(Presented {
            request: value,
            options: shown
                .into_iter()
                .zip(agents.into_iter().map(str::to_owned))
                .collect(),
        }))
    }

    /// A text of the agent's that leaves by another way (an error it
    /// answered with, its stderr in a failure), filtered like its output.
    pub async fn filter_text(
        &mut self,
        chain: &mut PlugChain,
        text: String,
    ) -> Result<String, RelayError> {
        let mut filtered = self.filter_texts(chain, vec![text]).await?;
        Ok(filtered.pop().unwrap_or_default())
    }

    /// Texts of the agent's, filtered in one call of the filters, each on its own.
    pub async fn filter_texts(
        &mut self,
        chain: &mut PlugChain,
        texts: Vec<String>,
    ) -> Result<Vec<String>, RelayError> {
        let mut batch = Batch::default();
        let ranges: Vec<Range<usize>> = texts
            .into_iter()
            .map(|text| self.text(&mut batch, "error", text))
            .collect();
        let Some(filtered) = self.filtered(chain, batch.0).await? else {
            return Ok(ranges.iter().map(|_| WITHHELD.to_owned()).collect());
        };
        Ok(ranges
            .into_iter()
            .map(|range| joined(&filtered, range))
            .collect())
    }

    /// The filters' answer, or `None` when one failed: then nothing of the
    /// batch leaves (it is withheld), a notice says so, and the next batch
    /// goes to a fresh instance of the plug (the host instantiates a plug
    /// anew after a trap). [`WITHHELD_IN_A_ROW`] failed batches in a row fail
    /// the run. The error never carries the plug's last words.
    async fn filtered(
        &mut self,
        chain: &mut PlugChain,
        batch: Vec<TranscriptEntry>,
    ) -> Result<Option<Vec<TranscriptEntry>>, RelayError> {
        let entries = batch.len();
        match chain.filter(batch).await {
            Ok(filtered) => {
                self.withheld_in_a_row = 0;
                Ok(Some(filtered))
            }
            // The host leaves out the plug's last words (its panic message
            // may quote the text it was handed).
            Err(e) => {
                self.withheld_in_a_row += 1;
                if self.withheld_in_a_row >= WITHHELD_IN_A_ROW {
                    return Err(RelayError::Filter(e));
                }
                tracing::warn!("{e}: {entries} entries of the agent's output withheld");
                let text = format!(
                    "Part of the agent's output was withheld: {e}. Nothing of it left the runner, nor the rest of a message it was part of; the session goes on."
                );
                let stream = format!("withheld-{}", super::reports::new_id());
                let mut records = vec![(
                    Kind::Notice,
                    json!({ "text": text, "stream": stream, "last": true }),
                )];
                let open = std::mem::take(&mut self.open);
                records.extend(self.cut(open));
                self.queue(records);
                Ok(None)
            }
        }
    }

    /// Streams under way when a filter failed: ended here for their readers (an empty `last`
    /// chunk holds nothing of the agent's), and the rest of each left out.
    fn cut(&mut self, open: HashMap<String, (EntryKind, bool)>) -> Vec<(Kind, Value)> {
        open.into_iter()
            .map(|(stream, (kind, _))| {
                let record = json!({ "text": "", "stream": stream, "last": true });
                self.cut_off.insert(stream);
                (wire_kind(kind), record)
            })
            .collect()
    }

    /// The outbox the entries go to.
    pub fn outbox(&self) -> &Outbox {
        &self.outbox
    }

    /// Whether a stream has had a chunk since its last flush hint.
    pub fn has_unflushed(&self) -> bool {
        self.open.values().any(|(_, fresh)| *fresh)
    }

    /// The streams have been quiet: an empty chunk that is not `last` tells
    /// the filters to release what they hold back (masked); the streams go on.
    pub async fn flush_quiet(&mut self, chain: &mut PlugChain) -> Result<(), RelayError> {
        let hints: Vec<AgentEvent> = self
            .open
            .iter_mut()
            .filter(|(_, (_, fresh))| *fresh)
            .map(|(stream, (kind, fresh))| {
                *fresh = false;
                AgentEvent::Chunk(chunk(stream, *kind, false))
            })
            .collect();
        tracing::debug!(
            streams = hints.len(),
            "quiet streams: the filters release what they hold"
        );
        self.send_hints(chain, hints).await
    }

    /// The run ends: every open stream gets its `last` chunk through the
    /// filters, so nothing a filter held back is lost.
    pub async fn close_streams(&mut self, chain: &mut PlugChain) -> Result<(), RelayError> {
        if let Some(dropped) = self.stderr.take_dropped() {
            super::agent_log::log_dropped(dropped);
        }
        let last: Vec<AgentEvent> = self
            .open
            .drain()
            .map(|(stream, (kind, _))| AgentEvent::Chunk(chunk(&stream, kind, true)))
            .collect();
        self.send_hints(chain, last).await
    }

    async fn send_hints(
        &mut self,
        chain: &mut PlugChain,
        entries: Vec<AgentEvent>,
    ) -> Result<(), RelayError> {
        if entries.is_empty() {
            return Ok(());
        }
        // These chunks do not reopen their streams.
        let open = std::mem::take(&mut self.open);
        let cut_before = self.cut_off.len();
        let sent = self.send(chain, entries).await;
        if self.cut_off.len() > cut_before || (sent.is_ok() && self.withheld_in_a_row > 0) {
            // The filter failed on the hints: the streams they were for are cut off too.
            let records = self.cut(open);
            self.queue(records);
        } else {
            self.open = open;
        }
        sent
    }

    /// A tool call's output (filtered, cut) when it is new or changed since
    /// it was last recorded.
    fn new_output(&mut self, record: &Kind, stream: &str, value: &Value) -> Option<String> {
        use std::hash::{Hash, Hasher};
        if self.streamed.contains(stream) {
            return None;
        }
        let output = value["output"].as_str().filter(|o| !o.is_empty());
        let output = output.filter(|_| *record == Kind::ToolCall)?;
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        output.hash(&mut hasher);
        let hash = hasher.finish();
        (self.outputs.insert(stream.to_owned(), hash) != Some(hash)).then(|| output.to_owned())
    }

    /// A structured entry, its fields added to the batch.
    fn structured<T: serde::Serialize>(
        &mut self,
        batch: &mut Batch,
        record: Kind,
        stream: String,
        what: &T,
        kind: EntryKind,
        replay: bool,
    ) -> Piece {
        let value = serde_json::to_value(what).unwrap_or(Value::Null);
        let fields = self.fields_of(batch, &stream, &value, kind, replay);
        Piece::Structured {
            record,
            stream,
            value,
            fields,
            replay,
        }
    }

    /// Each text field of `value` as a whole entry (a stream of its own) of the batch.
    fn fields_of(
        &mut self,
        batch: &mut Batch,
        stream: &str,
        value: &Value,
        kind: EntryKind,
        replay: bool,
    ) -> Vec<(Field, Range<usize>)> {
        self.presented += 1;
        let n = self.presented;
        fields::fields(value)
            .into_iter()
            .map(|field| {
                let range = batch.push(TranscriptEntry {
                    stream_id: format!("{stream}#{n}{}", field.pointer),
                    kind: field.kind(kind),
                    text: field.text.clone(),
                    last: true,
                    replay,
                });
                (field, range)
            })
            .collect()
    }

    /// A text that is not the transcript's, as a whole entry of the batch.
    fn text(&mut self, batch: &mut Batch, what: &str, text: String) -> Range<usize> {
        self.presented += 1;
        batch.push(TranscriptEntry {
            stream_id: format!("{what}-{}", self.presented),
            kind: EntryKind::Notice,
            text,
            last: true,
            replay: false,
        })
    }

    /// Numbers the records once and hands them to the outbox, in requests
    /// well under Blaise's body limit.
    fn queue(&mut self, records: Vec<(Kind, Value)>) {
        let records: Vec<TranscriptRecord> = records
            .into_iter()
            .map(|(kind, content)| {
                self.seq += 1;
                TranscriptRecord {
                    seq: self.seq,
                    kind,
                    content,
                }
            })
            .collect();
        for batch in by_size(records) {
            if !batch.is_empty() {
                self.outbox.post(Item::Transcript(batch));
            }
        }
    }
}

/// A structured record's content: its text form for readers of text, and
/// the structure under its kind's name (`tool_call`, `plan`, `permission`).
fn content_of(record: &Kind, stream: String, value: Value) -> Value {
    let (key, text) = match record {
        Kind::ToolCall => (
            "tool_call",
            serde_json::from_value::<ToolCall>(value.clone()).map(|c| c.text()),
        ),
        Kind::Plan => (
            "plan",
            serde_json::from_value::<Vec<PlanStep>>(value.clone()).map(|s| plan_text(&s)),
        ),
        _ => (
            "permission",
            serde_json::from_value::<Permission>(value.clone()).map(|p| p.text()),
        ),
    };
    // The shapes are the runner's own: they read back (a JSON field a filter
    // broke is kept as a string, which the shapes allow).
    let text = text.unwrap_or_else(|e| format!("[{record}: {e}]"));
    json!({ "text": fields::cut_long(text), "stream": stream, "last": true, key: value })
}

/// The tool call whose output stream `e` is part of.
fn output_of_call(e: &TranscriptEntry) -> Option<&str> {
    (e.kind == EntryKind::ToolOutput)
        .then(|| e.stream_id.strip_suffix("/output"))
        .flatten()
}

/// Whether `e` is the (possibly empty) end of a command's output: recorded, so
/// that readers know the output is complete.
fn ends_output(e: &TranscriptEntry) -> bool {
    e.last && output_of_call(e).is_some()
}

/// An empty chunk of `stream`.
fn chunk(stream: &str, kind: EntryKind, last: bool) -> TranscriptEntry {
    TranscriptEntry {
        stream_id: stream.to_owned(),
        kind,
        text: String::new(),
        last,
        replay: false,
    }
}

/// Longest chunk of the agent's text handed to the filters: the agent is not
/// trusted to keep its chunks small, and a filter's answer is capped.
pub const MAX_CHUNK: usize = 64 << 10;

/// Most bytes of content sent to Blaise in one request.
const MAX_BATCH: usize = 512 << 10;

/// Entries with their long texts cut into chunks of one stream (the pieces
/// before the last are not `last`), on character boundaries.
fn split_long(entries: Vec<TranscriptEntry>) -> Vec<TranscriptEntry> {
    if entries.iter().all(|e| e.text.len() <= MAX_CHUNK) {
        return entries;
    }
    let mut out = Vec::with_capacity(entries.len());
    for entry in entries {
        if entry.text.len() <= MAX_CHUNK {
            out.push(entry);
            continue;
        }
        let mut rest = entry.text.as_str();
        while !rest.is_empty() {
            let mut cut = rest.len().min(MAX_CHUNK);
            while !rest.is_char_boundary(cut) {
                cut -= 1;
            }
            let (piece, tail) = rest.split_at(cut);
            out.push(TranscriptEntry {
                text: piece.to_owned(),
                last: entry.last && tail.is_empty(),
                stream_id: entry.stream_id.clone(),
                ..entry
            });
            rest = tail;
        }
    }
    out
}

/// Records in consecutive batches of at most [`MAX_BATCH`] bytes of content.
fn by_size(records: Vec<TranscriptRecord>) -> Vec<Vec<TranscriptRecord>> {
    let mut batches = vec![Vec::new()];
    let mut size = 0;
    for record in records {
        let len = record.content.to_string().len();
        if size + len > MAX_BATCH && !batches.last().is_some_and(Vec::is_empty) {
            batches.push(Vec::new());
            size = 0;
        }
        size += len;
        batches.last_mut().expect("one batch at least").push(record);
    }
    batches
}

/// What stands for an agent's text a failed filter withheld.
const WITHHELD: &str = "[withheld: the transcript filter failed on it]";

/// A notice from the runner for the transcript (filtered like everything else).
pub fn notice(text: &str) -> AgentEvent {
    AgentEvent::Chunk(TranscriptEntry {
        stream_id: format!("notice-{}", super::reports::new_id()),
        kind: EntryKind::Notice,
        text: text.into(),
        last: true,
        replay: false,
    })
}

/// The kind a plug's entry is recorded as.
pub fn wire_kind(kind: EntryKind) -> Kind {
    match kind {
        EntryKind::UserMessage => Kind::UserMessage,
        EntryKind::AgentMessage => Kind::AgentMessage,
        EntryKind::AgentThought => Kind::AgentThought,
        EntryKind::ToolCall => Kind::ToolCall,
        EntryKind::ToolOutput => Kind::ToolOutput,
        EntryKind::PermissionRequest => Kind::PermissionRequest,
        EntryKind::Notice => Kind::Notice,
    }
}
