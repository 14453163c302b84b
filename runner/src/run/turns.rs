//! Serving turns: directives in (prompts, cancellations, permission answers,
//! the stop), prompts to the agent one at a time, the agent's updates out
//! through the transcript relay. Ends with why the run must stop.
//!
//! A turn is the unit of failure: it ends answered, cancelled or failed, and
//! the run goes on. An error answer (a model that cannot be reached) fails the
//! turn alone. A cancel the agent ignores for the agent's cancel grace ends the
//! turn as cancelled and the run stops the agent; an agent that exits, between
//! turns or in one, is gone too: either way the run pauses on its own
//! ([`Ending::AgentLost`]), keeping the environment, and Blaise resumes it
//! for the next message.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot, watch};

use super::outbox::Outbox;
use super::reports::Reporter;
use super::signals::Signals;
use super::transcript::{Relay, RelayError};
use crate::acp::{AcpError, Agent, AgentEvent, Answered, PermissionAnswer, Used};
use crate::chain::PlugChain;
use crate::protocol::contact::until_answered;
use crate::protocol::{
    Client, Cost, DirectiveBody, ReportBody, StopDirective, StopReason, Tokens, TurnOutcome,
    UsageReport,
};

/// Far enough to stand for never.
const YEAR: Duration = Duration::from_secs(365 * 24 * 3600);

/// How long the agent must be silent before the filters are asked to release
/// what they hold back of its open streams (`docs/writing-plugs.md`).
pub const QUIET: Duration = Duration::from_secs(1);

/// Why the serving ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// Blaise's stop directive.
    Stop {
        reason: StopReason,
        may_resume: bool,
        /// Hand the agent to the keeper, frozen (a hot pause), if the chain
        /// and the agent allow it.
        keep_agent: bool,
    },
    /// SIGINT or SIGTERM.
    Signal,
    /// 90 heartbeats in a row failed.
    LostContact,
    /// The agent is gone (it exited, died in a turn, was stopped for
    /// ignoring a cancel, or did not start): why. The run pauses on its own,
    /// keeping the environment.
    AgentLost(String),
    /// The transcript could not be filtered or reported.
    Failed(String),
}

/// What the turns work with (the run's live parts, borrowed apart).
pub struct Turns<'a> {
    pub agent: &'a Agent,
    pub acp_session: &'a str,
    pub chain: &'a mut PlugChain,
    pub relay: &'a mut Relay,
    pub events: &'a mut mpsc::Receiver<AgentEvent>,
    pub reporter: &'a Reporter,
    pub outbox: &'a Outbox,
    pub client: &'a Client,
    pub run_id: &'a str,
    pub lost: watch::Receiver<bool>,
    pub signals: Signals,
    /// How long a cancelled turn may go on before the agent is stopped
    /// (the agent's `cancel_grace`, from Blaise).
    pub cancel_grace: Duration,
}

type TurnFuture<'a> = Pin<Box<dyn Future<Output = Result<Answered, AcpError>> + 'a>>;

/// A permission request waiting for its answer: where the answer goes, and
/// the option ids shown to Blaise with the agent's own.
struct Waiting {
    answer: oneshot::Sender<PermissionAnswer>,
    options: Vec<(String, String)>,
}

impl Waiting {
    /// Answers with the option shown as `shown` (cancelled if none was).
    fn answer(self, shown: &str) {
        let answer = match self.options.iter().find(|(id, _)| id == shown) {
            Some((_, agents)) => PermissionAnswer::Selected(agents.clone()),
            None => {
                tracing::warn!("an answer with an option the request did not offer: cancelled");
                PermissionAnswer::Cancelled
            }
        };
        let _ = self.answer.send(answer);
    }
}

impl<'a> Turns<'a> {
    pub async fn serve(mut self) -> Ending {
        let mut directives = poll_directives(self.client.clone(), self.run_id.to_string());
        let mut signals = self.signals.clone();
        let mut permissions: HashMap<String, Waiting> = HashMap::new();
        let mut queue: VecDeque<(String, String)> = VecDeque::new();
        let agent = self.agent;
        let session = self.acp_session;
        let mut turn: Option<TurnFuture<'a>> = None;
        // The message the open turn answers, and when a cancel of it must
        // have ended it.
        let mut current: Option<String> = None;
        let mut cancel_by: Option<tokio::time::Instant> = None;
        let mut lost = self.lost.clone();
        // Made once: its grace for the agent's last stderr runs on across the loop's passes
        // (made anew each pass, any event would start it again). Polled only between turns;
        // once it is ready the loop returns.
        let exited = agent.exited();
        tokio::pin!(exited);

        loop {
            if turn.is_none()
                && let Some((message_id, text)) = queue.pop_front()
            {
                // A turn's answer never continues what the agent left open
                // between turns (or at the end of a replay).
                if let Err(e) = self.relay.send(self.chain, agent.end_stream()).await {
                    return Ending::Failed(e.to_string());
                }
                current = Some(message_id);
                turn = Some(Box::pin(async move { agent.prompt(session, &text).await }));
            }
            let quiet = tokio::time::sleep(QUIET);
            tokio::pin!(quiet);
            let cancel_over = tokio::time::sleep_until(
                cancel_by.unwrap_or_else(|| tokio::time::Instant::now() + QUIET),
            );
            tokio::pin!(cancel_over);
            let ending = tokio::select! {
                directive = directives.recv() => match directive {
                    Some(DirectiveBody::Prompt { message_id, text }) => {
                        queue.push_back((message_id, text));
                        None
                    }
                    Some(DirectiveBody::Cancel) => {
                        if turn.is_some() {
                            cancel_permissions(&mut permissions);
                            if let Err(e) = agent.cancel(session).await {
                                tracing::warn!("cancelling the turn: {e:#}");
                            }
                            // A grace too long to add is as good as none running out.
                            let now = tokio::time::Instant::now();
                            cancel_by.get_or_insert(
                                now.checked_add(self.cancel_grace).unwrap_or(now + YEAR),
                            );
                        }
                        None
                    }
                    Some(DirectiveBody::PermissionAnswer { request_id, option_id }) => {
                        if let Some(waiting) = permissions.remove(&request_id) {
                            waiting.answer(&option_id);
                        }
                        None
                    }
                    Some(DirectiveBody::Stop(StopDirective { reason, may_resume, keep_agent })) => {
                        Some(Ending::Stop { reason, may_resume, keep_agent })
                    }
                    // The run is over for Blaise (the poller saw it finish).
                    None => Some(Ending::LostContact),
                },
                event = self.events.recv() => match event {
                    // Passing a permission request on waits for Blaise, also
                    // through an outage: a signal does not wait for it.
                    Some(event) => tokio::select! {
                        handled = self.handle(event, &mut permissions, current.as_deref()) => {
                            handled.err().map(|e| Ending::Failed(e.to_string()))
                        }
                        _ = signals.wait() => Some(Ending::Signal),
                    },
                    None => None,
                },
                result = async { turn.as_mut().expect("guarded").as_mut().await }, if turn.is_some() => {
                    turn = None;
                    cancel_by = None;
                    let message_id = current.take();
                    match self.finish_turn(&mut permissions).await {
                        Err(e) => Some(Ending::Failed(e.to_string())),
                        Ok(()) => self.turn_over(message_id, result).await,
                    }
                }
                _ = &mut cancel_over, if cancel_by.is_some() && turn.is_some() => {
                    // The agent ignores the cancel: the turn ends here, and
                    // the run stops the agent (the environment stays).
                    let grace = format!("{:?}", self.cancel_grace);
                    let why = format!("the agent did not stop within {grace} of the cancel, so the run stopped it");
                    tracing::warn!("{why}");
                    let _ = self.finish_turn(&mut permissions).await;
                    self.reporter.post(ReportBody::TurnEnded {
                        message_id: current.take(),
                        outcome: TurnOutcome::Cancelled,
                        error: Some(why),
                    });
                    return Ending::AgentLost(format!("The agent ignored a cancel for {grace} and was stopped"));
                }
                gone = &mut exited, if turn.is_none() => {
                    // Between turns: nothing was lost but the agent.
                    Some(Ending::AgentLost(format!("The agent exited between turns, with {gone}")))
                }
                _ = &mut quiet, if self.relay.has_unflushed() => {
                    // The agent has been quiet: filters release what they hold back.
                    self.relay.flush_quiet(self.chain).await.err().map(|e| Ending::Failed(e.to_string()))
                }
                failure = self.outbox.failed() => Some(Ending::Failed(format!("transcript report failed: {failure}"))),
                _ = signals.wait() => Some(Ending::Signal),
                _ = lost.changed() => (*lost.borrow()).then_some(Ending::LostContact),
            };
            if let Some(ending) = ending {
                // Stop the conversation: cancel the turn, answer what is pending as
                // cancelled, and give the agent a moment to wind down.
                cancel_permissions(&mut permissions);
                if let Some(mut future) = turn.take() {
                    if let Err(e) = agent.cancel(session).await {
                        tracing::warn!("cancelling the turn: {e:#}");
                    }
                    let wound_down = tokio::time::timeout(self.cancel_grace, async {
                        loop {
                            tokio::select! {
                                _ = future.as_mut() => break,
                                Some(event) = self.events.recv() => {
                                    if let AgentEvent::Permission { answer, .. } = event {
                                        let _ = answer.send(PermissionAnswer::Cancelled);
                                    } else if let Err(e) = self.handle(event, &mut permissions, None).await {
                                        tracing::warn!("{e}");
                                    }
                                }
                            }
                        }
                    })
                    .await;
                    if wound_down.is_ok() && ending != Ending::LostContact {
                        let _ = self.finish_turn(&mut permissions).await;
                        self.reporter.post(ReportBody::TurnEnded {
                            message_id: current.take(),
                            outcome: TurnOutcome::Cancelled,
                            error: None,
                        });
                    }
                }
                return ending;
            }
        }
    }

    /// A turn's answer came: reports how the turn ended. An error answer
    /// fails the turn alone; an agent that died in it is gone.
    async fn turn_over(
        &mut self,
        message_id: Option<String>,
        result: Result<Answered, AcpError>,
    ) -> Option<Ending> {
        if let Ok(Answered {
            tokens: Some(tokens),
            ..
        }) = &result
        {
            report_usage(self.reporter, message_id.as_deref(), None, *tokens);
        }
        let (outcome, error, gone) = match result {
            Ok(answered) if answered.stop_reason == "cancelled" => {
                (TurnOutcome::Cancelled, None, false)
            }
            Ok(_) => (TurnOutcome::Answered, None, false),
            // An error answer: what a real agent does while its model is
            // unreachable or over quota. The agent is still there.
            Err(e @ AcpError::Refused { .. }) => (TurnOutcome::Failed, Some(said(&e)), false),
            Err(e) => (TurnOutcome::Failed, Some(said(&e)), true),
        };
        // The error is the agent's text: filtered like its output.
        let error = match error {
            Some(error) => match self.relay.filter_text(self.chain, error).await {
                Ok(error) => Some(error),
                Err(e) => return Some(Ending::Failed(e.to_string())),
            },
            None => None,
        };
        if let Some(error) = &error {
            tracing::warn!("the turn failed: {error}");
        }
        // In order behind the turn's transcript; no need to wait.
        self.reporter.post(ReportBody::TurnEnded {
            message_id,
            outcome,
            error: error.clone(),
        });
        gone.then(|| Ending::AgentLost(capitalized(error.unwrap_or_default())))
    }

    /// Handles one event and everything else already waiting, as one batch
    /// (a permission request ends a batch: what came before it goes first).
    async fn handle(
        &mut self,
        first: AgentEvent,
        permissions: &mut HashMap<String, Waiting>,
        turn: Option<&str>,
    ) -> Result<(), RelayError> {
        let mut batch = Vec::new();
        let mut next = Some(first);
        while let Some(event) = next.take() {
            match event {
                AgentEvent::Permission { request, answer } => {
                    self.relay
                        .send(self.chain, std::mem::take(&mut batch))
                        .await?;
                    let Some(presented) = self.relay.permission(self.chain, &request).await? else {
                        // Withheld (a filter failed on it): nobody can answer it.
                        let _ = answer.send(PermissionAnswer::Cancelled);
                        next = self.events.try_recv().ok();
                        continue;
                    };
                    let asked = until_answered(&self.lost, "passing a permission request", || {
                        self.client.ask_permission(
                            self.run_id,
                            &request.request_id,
                            turn,
                            &presented.request,
                        )
                    })
                    .await;
                    match asked {
                        Ok(()) => {
                            permissions.insert(
                                request.request_id,
                                Waiting {
                                    answer,
                                    options: presented.options,
                                },
                            );
                        }
                        Err(e) => {
                            tracing::warn!("could not pass a permission request to Blaise: {e}");
                            let _ = answer.send(PermissionAnswer::Cancelled);
                        }
                    }
                }
                // Not the conversation: Blaise counts it (and holds the budget).
                AgentEvent::Usage(used) => {
                    report_usage(self.reporter, turn, Some(used), Tokens::default())
                }
                event => batch.push(event),
            }
            next = self.events.try_recv().ok();
        }
        self.relay.send(self.chain, batch).await
    }

    /// A turn is over: what the agent sent before its answer, then the end
    /// of the stream it left open.
    async fn finish_turn(
        &mut self,
        permissions: &mut HashMap<String, Waiting>,
    ) -> Result<(), RelayError> {
        if let Ok(event) = self.events.try_recv() {
            self.handle(event, permissions, None).await?;
        }
        self.relay.send(self.chain, self.agent.end_stream()).await
    }
}

/// Reports what the agent said it used (in order behind the turn's
/// transcript; no need to wait), in the turn of `message_id` if one is open.
pub fn report_usage(
    reporter: &Reporter,
    message_id: Option<&str>,
    used: Option<Used>,
    tokens: Tokens,
) {
    let (context_used, context_size, cost) = match used {
        Some(used) => (
            Some(used.context_used),
            Some(used.context_size),
            // Checked where it was read (`CostsSeen::step`): Blaise takes it.
            used.cost
                .map(|(amount, currency)| Cost { amount, currency }),
        ),
        None => (None, None, None),
    };
    reporter.post(ReportBody::Usage(UsageReport {
        message_id: message_id.map(str::to_owned),
        tokens,
        context_used,
        context_size,
        cost,
    }));
}

/// Most of an agent's error said in a report, a notice or a log line (an error answer's
/// message is the agent's, of any size): its head and its end.
const MAX_ERROR: usize = 4 << 10;

/// An agent's error, cut to [`MAX_ERROR`] before it is filtered and sent.
fn said(e: &AcpError) -> String {
    cut_error(&e.to_string())
}

/// A text that may hold the agent's (an error, its last words), cut to [`MAX_ERROR`].
pub(super) fn cut_error(text: &str) -> String {
    blaise_protocol::text::cut_middle(text, MAX_ERROR, 2)
}

/// "The agent exited…" from "the agent exited…".
fn capitalized(text: String) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => text,
    }
}

fn cancel_permissions(permissions: &mut HashMap<String, Waiting>) {
    for (_, waiting) in permissions.drain() {
        let _ = waiting.answer.send(PermissionAnswer::Cancelled);
    }
}

/// The directive stream: long polls in a task; dropping the receiver closes
/// the subscription. Ends (closes the channel) when Blaise says the run is over.
fn poll_directives(client: Client, run_id: String) -> mpsc::UnboundedReceiver<DirectiveBody> {
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut after = 0;
        let mut delay = Duration::from_millis(100);
        loop {
            tokio::select! {
                _ = tx.closed() => return,
                batch = client.directives(&run_id, after, Duration::from_secs(25)) => match batch {
                    Ok(batch) => {
                        delay = Duration::from_millis(100);
                        let finished = batch.directives.is_empty()
                            && !batch.run_status.is_live();
                        for directive in batch.directives {
                            after = after.max(directive.seq);
                            let stop = matches!(directive.body, DirectiveBody::Stop { .. });
                            if tx.send(directive.body).is_err() || stop {
                                return;
                            }
                        }
                        if finished {
                            return;
                        }
                    }
                    // Contact is the heartbeat's business; keep asking.
                    Err(e) => {
                        tracing::warn!(run = %run_id, "reading directives: {e}");
                        tokio::time::sleep(delay).await;
                        delay = (delay * 2).min(Duration::from_secs(5));
                    }
                },
            }
        }
    });
    rx
}
