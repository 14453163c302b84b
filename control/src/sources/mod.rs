//! Message sources: where people talk to sessions besides the web (dashboard, CLI, API).
//!
//! A source turns its events into Blaise's own operations ([`Operation`], applied by [`apply`]
//! inside the transaction that records the event) and tells its users what their sessions produce
//! ([`produced`], sent by [`pump`]). The lifecycle does not know where a message came from: a
//! refusal (an ended session, an orphaned environment) is the lifecycle's own error, which the
//! source answers there. Each conversation of a source is a [`SourceThread`]: the session it is
//! and what it has been told. Linear ([`linear`]) is the first source; another (GitHub, Slack)
//! is a module beside it, with no change to the lifecycle.

pub mod linear;
pub mod produced;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::lifecycle::{Ctx, messages, permissions};
use crate::model::*;
use produced::Produced;

/// The sources this instance answers for (`blaise serve --linear FILE`).
#[derive(Default, Clone)]
pub struct Sources {
    pub linear: Vec<Arc<linear::App>>,
}

impl Sources {
    /// The source whose threads are stored under `name`.
    pub fn get(&self, name: &str) -> Option<Arc<dyn Source>> {
        self.linear
            .iter()
            .find(|a| a.source_name() == name)
            .map(|a| a.clone() as Arc<dyn Source>)
    }

    pub fn is_empty(&self) -> bool {
        self.linear.is_empty()
    }
}

/// What a source is told of one of its threads.
pub enum Told<'a> {
    /// A reply it queued itself when it took an event (an acknowledgement, a refusal).
    Reply(&'a Value),
    /// What the session produced; `ended`: the session has ended.
    Produced {
        item: &'a Produced,
        index: i64,
        ended: bool,
    },
}

/// Why a source could not be told something.
#[derive(Debug)]
pub enum Failure {
    /// It may pass later (the source is away, a rate limit): not before `after` (ms since the
    /// epoch) when the source said when.
    Retry { after: Option<Millis>, why: String },
    /// The source refused it: telling it again would not help. Logged and passed over, so that
    /// one bad item does not hold back the rest of the conversation.
    Refused(String),
}

pub type Telling<'a> = Pin<Box<dyn Future<Output = std::result::Result<(), Failure>> + Send + 'a>>;

/// The outgoing side of a source: tells its users, in order, what their sessions produced.
pub trait Source: Send + Sync {
    /// The name its threads are stored under (`linear:<app>`).
    fn source_name(&self) -> String;
    fn tell<'a>(&'a self, thread: &'a SourceThread, told: Told<'a>) -> Telling<'a>;
}

/// What a source's event asks of Blaise.
#[derive(Debug, Clone, PartialEq)]
pub enum Operation {
    /// A new conversation: a session of `agent`, opened with its first message.
    Open { agent: String, text: String },
    /// A message in the conversation.
    Send { text: String },
    /// Stop what the agent is doing (the session stays open).
    Cancel,
    /// Answer a permission request with one of its options.
    Answer {
        request_id: String,
        option_id: String,
    },
}

/// How an operation went, for the source to answer there.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Done,
    /// Blaise refused it (`code`, and a message that says why and what to do).
    Refused {
        code: &'static str,
        message: String,
    },
}

/// Applies `op` to the thread's session. A refusal of the lifecycle (a conflict, something not
/// found, a bad message) is an outcome to tell the source, not an error: the event was taken. A
/// store's failure is an error: nothing was done and the source may send the event again.
pub fn apply(ctx: &mut Ctx, thread: &mut SourceThread, op: Operation) -> Result<Outcome> {
    // A source acts as an operator would, under its own name (`linear:coder`).
    let by = Actor::new(thread.source.clone(), Role::Operator, Channel::Linear);
    let done = match (&op, thread.session_id.clone()) {
        (Operation::Open { agent, text }, None) => {
            messages::new_session(ctx, &by, agent, text).map(|s| thread.session_id = Some(s.id))
        }
        // Opened already (the source sent its opening event again under another delivery).
        (Operation::Open { .. }, Some(_)) => Ok(()),
        (_, None) => Err(Error::conflict(
            "no_session",
            "Blaise has no session for this conversation (it refused to open one): start a new one",
        )),
        (Operation::Send { text }, Some(id)) => messages::send(ctx, &by, &id, text).map(drop),
        (Operation::Cancel, Some(id)) => messages::cancel_turn(ctx, &by, &id).map(drop),
        (
            Operation::Answer {
                request_id,
                option_id,
            },
            Some(id),
        ) => permissions::answer(ctx, &id, request_id, option_id, &by).map(drop),
    };
    match done {
        Ok(()) => Ok(Outcome::Done),
        Err(Error::Store(e)) => Err(Error::Store(e)),
        Err(e) => Ok(Outcome::Refused {
            code: e.code(),
            message: e.to_string(),
        }),
    }
}

/// The permission request of the thread's session that waits for an answer, if one does (a
/// source that cannot tell an answer from a message reads its user's words against its options).
pub fn waiting_permission(
    ctx: &mut Ctx,
    thread: &SourceThread,
) -> Result<Option<PermissionRequest>> {
    let Some(id) = &thread.session_id else {
        return Ok(None);
    };
    Ok(ctx
        .tx
        .permissions(id)?
        .into_iter()
        .rev()
        .find(|p| p.state == PermissionState::Pending))
}
