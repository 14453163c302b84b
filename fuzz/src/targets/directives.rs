//! The runner's reading of what Blaise answers: directive batches,
//! assignments, offers, the connect answer, report and other answers, and
//! error bodies (`runner/src/protocol/`).

use arbitrary::{Arbitrary, Result, Unstructured};
use axum::http::StatusCode;
use blaise_runner::protocol::{
    Assignment, Connected, DirectiveBatch, DirectiveBody, HeartbeatAnswer, Offers, PlugRecords,
    ReportAnswer, StopDirective, TranscriptAnswer,
};
use serde_json::Value;

use super::{Outcome, Target};
use crate::shapes::{Field, Json, Number, Obj, Word, to_bytes};

pub struct Directives;

impl Target for Directives {
    fn name(&self) -> &'static str {
        "directives"
    }

    fn generate(&mut self, u: &mut Unstructured) -> Result<Vec<u8>> {
        Ok(to_bytes(&u.arbitrary::<Answer>()?.json()))
    }

    fn run(&mut self, input: &[u8]) -> Outcome {
        run(input);
        Outcome::Ok
    }
}

/// One answer body, read as every type the runner expects somewhere.
pub fn run(input: &[u8]) {
    // The client reads an empty success body as `null`.
    let body = if input.is_empty() {
        &b"null"[..]
    } else {
        input
    };
    if let Ok(batch) = serde_json::from_slice::<DirectiveBatch>(body) {
        let mut last = 0;
        for directive in &batch.directives {
            // What the run loop looks at: the seq it keeps and the body it acts on.
            last = last.max(directive.seq);
            match &directive.body {
                DirectiveBody::Prompt { message_id, text } => {
                    let _ = (message_id.len(), text.len());
                }
                DirectiveBody::Cancel => {}
                DirectiveBody::PermissionAnswer {
                    request_id,
                    option_id,
                } => {
                    let _ = (request_id.len(), option_id.len());
                }
                DirectiveBody::Stop(StopDirective {
                    reason,
                    may_resume,
                    keep_agent,
                }) => {
                    let _ = (reason.as_str(), may_resume, keep_agent);
                }
            }
        }
        let _ = (last, batch.run_status.is_finished());
    }
    let _ = serde_json::from_slice::<Assignment>(body);
    let _ = serde_json::from_slice::<Offers>(body);
    let _ = serde_json::from_slice::<Connected>(body);
    let _ = serde_json::from_slice::<ReportAnswer>(body);
    let _ = serde_json::from_slice::<TranscriptAnswer>(body);
    let _ = serde_json::from_slice::<HeartbeatAnswer>(body);
    let _ = serde_json::from_slice::<PlugRecords>(body);
    for status in [400, 401, 404, 409, 500, 502] {
        let status = StatusCode::from_u16(status).expect("a valid status");
        let error = blaise_runner::fuzzing::error_from(status, input);
        assert_eq!(error.status, Some(status.as_u16()));
        assert!(!error.answer_lost());
        if error.code.is_none() {
            // An unparsed body is quoted in the error, shortened.
            assert!(error.message.chars().count() <= 500, "{error}");
        }
        let _ = error.to_string();
    }
}

/// A plug state record: plug id, entries, owned.
type Record = (Field<Word>, Field<Vec<(Word, Word)>>, Field<bool>);

/// The shapes of Blaise's answers (docs/protocol.md), each field sometimes
/// missing or mistyped.
// One is built per input: the size of the largest variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Arbitrary)]
enum Answer {
    Batch {
        run_status: Field<Word>,
        directives: Field<Vec<Directive>>,
    },
    Assignment(Box<AssignmentShape>),
    Offers(Field<Vec<OfferShape>>),
    Connected {
        protocol_version: Field<Number>,
        runner: Field<Word>,
        agents: Field<Vec<Settings>>,
        heartbeat_interval_ms: Field<Number>,
        long_poll_max_ms: Field<Number>,
    },
    Report {
        duplicate: Field<bool>,
        run_status: Field<Word>,
        session_state: Field<Word>,
    },
    Transcript {
        appended: Field<Number>,
        duplicates: Field<Number>,
        last_seq: Field<Number>,
    },
    Heartbeat {
        run_status: Field<Word>,
        stop: Field<Directive>,
    },
    PlugRecords(Field<Vec<Record>>),
    Error {
        code: Field<Word>,
        message: Field<Word>,
        field: Option<Word>,
    },
    Raw(Json),
}

#[derive(Debug, Arbitrary)]
struct Directive {
    seq: Field<Number>,
    kind: Field<Kind>,
    message_id: Option<Field<Word>>,
    text: Field<Word>,
    request_id: Field<Word>,
    option_id: Field<Word>,
    reason: Field<Word>,
    may_resume: Field<bool>,
    created_at: Field<Number>,
    extra: Option<(Word, Json)>,
}

#[derive(Debug, Arbitrary)]
enum Kind {
    Prompt,
    Cancel,
    PermissionAnswer,
    Stop,
    Other(Word),
}

#[derive(Debug, Arbitrary)]
struct Settings {
    name: Field<Word>,
    inactivity_ms: Field<Number>,
    idle_policy: Field<Word>,
    paused_lifetime_ms: Field<Number>,
    timeout_ms: Field<Number>,
    disabled: Field<bool>,
}

#[derive(Debug, Arbitrary)]
struct AssignmentShape {
    run_id: Field<Word>,
    kind: Field<Word>,
    session_id: Field<Word>,
    environment_id: Field<Word>,
    agent: Field<Word>,
    settings: Field<Settings>,
    acp_session_id: Field<Option<Word>>,
    fresh_environment: Field<bool>,
    teardown_reason: Field<Option<Word>>,
    heartbeat_interval_ms: Field<Number>,
}

#[derive(Debug, Arbitrary)]
struct OfferShape {
    run_id: Field<Word>,
    kind: Field<Word>,
    session_id: Field<Word>,
    agent: Field<Word>,
    environment_id: Field<Word>,
}

fn word(w: &Word) -> Value {
    Value::from(w)
}

fn number(n: &Number) -> Value {
    n.0.clone()
}

fn boolean(b: &bool) -> Value {
    Value::Bool(*b)
}

fn list<T>(items: &[T], each: impl Fn(&T) -> Value) -> Value {
    Value::Array(items.iter().map(each).collect())
}

fn optional(w: &Option<Word>) -> Value {
    w.as_ref().map_or(Value::Null, Value::from)
}

impl Directive {
    fn json(&self) -> Value {
        let kind = |k: &Kind| match k {
            Kind::Prompt => "prompt".into(),
            Kind::Cancel => "cancel".into(),
            Kind::PermissionAnswer => "permission_answer".into(),
            Kind::Stop => "stop".into(),
            Kind::Other(w) => word(w),
        };
        let mut obj = Obj::new()
            .set("run_id", "run_0123456789abcdef")
            .field("seq", &self.seq, number)
            .field("kind", &self.kind, kind)
            .field("text", &self.text, word)
            .field("request_id", &self.request_id, word)
            .field("option_id", &self.option_id, word)
            .field("reason", &self.reason, word)
            .field("may_resume", &self.may_resume, boolean)
            .field("created_at", &self.created_at, number)
            .extra(&self.extra);
        if let Some(message_id) = &self.message_id {
            obj = obj.field("message_id", message_id, word);
        }
        obj.value()
    }
}

impl Settings {
    fn json(&self) -> Value {
        Obj::new()
            .field("name", &self.name, word)
            .field("inactivity_ms", &self.inactivity_ms, number)
            .field("idle_policy", &self.idle_policy, word)
            .field("paused_lifetime_ms", &self.paused_lifetime_ms, number)
            .field("timeout_ms", &self.timeout_ms, number)
            .field("disabled", &self.disabled, boolean)
            .value()
    }
}

impl Answer {
    fn json(&self) -> Value {
        match self {
            Answer::Batch {
                run_status,
                directives,
            } => Obj::new()
                .field("run_status", run_status, word)
                .field("directives", directives, |d| list(d, Directive::json))
                .value(),
            Answer::Assignment(a) => Obj::new()
                .field("run_id", &a.run_id, word)
                .field("kind", &a.kind, word)
                .field("session_id", &a.session_id, word)
                .field("environment_id", &a.environment_id, word)
                .field("agent", &a.agent, word)
                .field("settings", &a.settings, Settings::json)
                .field("acp_session_id", &a.acp_session_id, optional)
                .field("fresh_environment", &a.fresh_environment, boolean)
                .field("teardown_reason", &a.teardown_reason, optional)
                .field("heartbeat_interval_ms", &a.heartbeat_interval_ms, number)
                .value(),
            Answer::Offers(offers) => Obj::new()
                .field("offers", offers, |offers| {
                    list(offers, |o: &OfferShape| {
                        Obj::new()
                            .field("run_id", &o.run_id, word)
                            .field("kind", &o.kind, word)
                            .field("session_id", &o.session_id, word)
                            .field("agent", &o.agent, word)
                            .field("environment_id", &o.environment_id, word)
                            .value()
                    })
                })
                .value(),
            Answer::Connected {
                protocol_version,
                runner,
                agents,
                heartbeat_interval_ms,
                long_poll_max_ms,
            } => Obj::new()
                .field("protocol_version", protocol_version, number)
                .field("runner", runner, word)
                .field("agents", agents, |a| list(a, Settings::json))
                .field("heartbeat_interval_ms", heartbeat_interval_ms, number)
                .field("long_poll_max_ms", long_poll_max_ms, number)
                .value(),
            Answer::Report {
                duplicate,
                run_status,
                session_state,
            } => Obj::new()
                .field("duplicate", duplicate, boolean)
                .field("run_status", run_status, word)
                .field("session_state", session_state, word)
                .value(),
            Answer::Transcript {
                appended,
                duplicates,
                last_seq,
            } => Obj::new()
                .field("appended", appended, number)
                .field("duplicates", duplicates, number)
                .field("last_seq", last_seq, number)
                .value(),
            Answer::Heartbeat { run_status, stop } => Obj::new()
                .field("run_status", run_status, word)
                .field("stop", stop, Directive::json)
                .value(),
            Answer::PlugRecords(records) => Obj::new()
                .field("records", records, |records| {
                    list(records, |(plug_id, entries, owned): &Record| {
                        Obj::new()
                            .field("plug_id", plug_id, word)
                            .field("entries", entries, |entries| {
                                Value::Object(
                                    entries
                                        .iter()
                                        .map(|(k, v)| (k.0.clone(), word(v)))
                                        .collect(),
                                )
                            })
                            .field("owned", owned, boolean)
                            .value()
                    })
                })
                .value(),
            Answer::Error {
                code,
                message,
                field,
            } => {
                let mut error = Obj::new()
                    .field("code", code, word)
                    .field("message", message, word);
                if let Some(field) = field {
                    error = error.set("field", word(field));
                }
                Obj::new().set("error", error.value()).value()
            }
            Answer::Raw(json) => json.0.clone(),
        }
    }
}
