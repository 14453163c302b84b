//! Serving turns: directives in (prompts, cancellations, permission answers,
//! the stop), prompts to the agent one at a time, the agent's updates out
//! through the transcript relay. Ends with why the run must stop.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot, watch};

use super::outbox::Outbox;
use super::reports::Reporter;
use super::signals::Signals;
use super::transcript::{Relay, RelayError};
use crate::acp::{Agent, AgentEvent, PermissionAnswer};
use crate::chain::PlugChain;
use crate::protocol::contact::until_answered;
use crate::protocol::{Client, DirectiveBody, ReportBody, StopDirective, StopReason};

/// How long a cancelled turn may take to wind down before the run goes on without it.
const CANCEL_GRACE: Duration = Duration::from_secs(10);

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
    /// The agent died, or the transcript could not be filtered or reported.
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
}

type TurnFuture<'a> = Pin<Box<dyn Future<Output = Result<String, crate::acp::AcpError>> + 'a>>;

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
        let mut turn: Option<(Option<String>, TurnFuture<'a>)> = None;
        let mut lost = self.lost.clone();

        loop {
            if turn.is_none()
                && let Some((message_id, text)) = queue.pop_front()
            {
                // A turn's answer never continues what the agent left open
                // between turns (or at the end of a replay).
                if let Err(e) = self.relay.send(self.chain, agent.end_stream()).await {
                    return Ending::Failed(e.to_string());
                }
                turn = Some((
                    Some(message_id),
                    Box::pin(async move { agent.prompt(session, &text).await }),
                ));
            }
            let quiet = tokio::time::sleep(QUIET);
            tokio::pin!(quiet);
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
                        handled = self.handle(event, &mut permissions) => {
                            handled.err().map(|e| Ending::Failed(e.to_string()))
                        }
                        _ = signals.wait() => Some(Ending::Signal),
                    },
                    None => None,
                },
                result = async { turn.as_mut().expect("guarded").1.as_mut().await }, if turn.is_some() => {
                    let (message_id, _) = turn.take().expect("guarded");
                    if let Err(e) = self.finish_turn(&mut permissions).await {
                        Some(Ending::Failed(e.to_string()))
                    } else {
                        match result {
                            Ok(_) => {
                                // In order behind the turn's transcript; no need to wait.
                                self.reporter.post(ReportBody::TurnEnded { message_id });
                                None
                            }
                            Err(e) => Some(Ending::Failed(format!("the agent failed: {e:#}"))),
                        }
                    }
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
                if let Some((message_id, mut future)) = turn.take() {
                    if let Err(e) = agent.cancel(session).await {
                        tracing::warn!("cancelling the turn: {e:#}");
                    }
                    let wound_down = tokio::time::timeout(CANCEL_GRACE, async {
                        loop {
                            tokio::select! {
                                _ = future.as_mut() => break,
                                Some(event) = self.events.recv() => {
                                    if let AgentEvent::Permission { answer, .. } = event {
                                        let _ = answer.send(PermissionAnswer::Cancelled);
                                    } else if let Err(e) = self.handle(event, &mut permissions).await {
                                        tracing::warn!("{e}");
                                    }
                                }
                            }
                        }
                    })
                    .await;
                    if wound_down.is_ok() && ending != Ending::LostContact {
                        let _ = self.finish_turn(&mut permissions).await;
                        self.reporter.post(ReportBody::TurnEnded { message_id });
                    }
                }
                return ending;
            }
        }
    }

    /// Handles one event and everything else already waiting, as one batch
    /// (a permission request ends a batch: what came before it goes first).
    async fn handle(
        &mut self,
        first: AgentEvent,
        permissions: &mut HashMap<String, Waiting>,
    ) -> Result<(), RelayError> {
        let mut batch = Vec::new();
        let mut next = Some(first);
        while let Some(event) = next.take() {
            match event {
                AgentEvent::Permission { request, answer } => {
                    self.relay
                        .send(self.chain, std::mem::take(&mut batch))
                        .await?;
                    let presented = self.relay.permission(self.chain, &request).await?;
                    let asked = until_answered(&self.lost, "passing a permission request", || {
                        self.client.ask_permission(
                            self.run_id,
                            &request.request_id,
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
            self.handle(event, permissions).await?;
        }
        self.relay.send(self.chain, self.agent.end_stream()).await
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
