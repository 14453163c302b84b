//! The conversation: `session/new`, `session/resume`, `session/load`,
//! `session/prompt` and `session/cancel`.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::{AcpError, Agent};
use agent_client_protocol::v1::schema::{
    CancelNotification, ContentBlock, LoadSessionRequest, NewSessionRequest, PromptRequest,
    ResumeSessionRequest, TextContent,
};

/// Counts a prompt as under way until it is answered; a prompt whose future
/// is dropped before its answer stays counted (the agent may still be at it).
struct Turn<'a> {
    turns: &'a AtomicUsize,
    answered: bool,
}

impl<'a> Turn<'a> {
    fn begin(turns: &'a AtomicUsize) -> Self {
        turns.fetch_add(1, Ordering::AcqRel);
        Turn {
            turns,
            answered: false,
        }
    }
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        if self.answered {
            self.turns.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

impl Agent {
    /// `session/new` in the agent's working directory: the new ACP session id.
    pub async fn new_session(&self) -> Result<String, AcpError> {
        let created = self
            .call("session/new", NewSessionRequest::new(self.cwd.clone()))
            .await?;
        Ok(created.session_id.0.to_string())
    }

    /// `session/resume` of an earlier session: the agent takes it up again
    /// without replaying it. An error if the agent did not advertise
    /// `sessionCapabilities.resume`.
    pub async fn resume_session(&self, session: &str) -> Result<(), AcpError> {
        if !self.resume_session {
            return Err(AcpError::Unsupported(
                "the agent cannot resume sessions (it does not advertise sessionCapabilities.resume)"
                    .into(),
            ));
        }
        self.call(
            "session/resume",
            ResumeSessionRequest::new(session.to_owned(), self.cwd.clone()),
        )
        .await
        .map(|_| ())
    }

    /// `session/load` of an earlier session. The agent replays it as
    /// updates, which the caller marks as the replay beforehand
    /// ([`Agent::set_replay`]) and ends when the replay is over: an agent may
    /// go on replaying after it has answered. An error if the agent did not
    /// advertise `loadSession`.
    pub async fn load_session(&self, session: &str) -> Result<(), AcpError> {
        if !self.load_session {
            return Err(AcpError::Unsupported(
                "the agent cannot load sessions (it does not advertise loadSession)".into(),
            ));
        }
        self.call(
            "session/load",
            LoadSessionRequest::new(session.to_owned(), self.cwd.clone()),
        )
        .await
        .map(|_| ())
    }

    /// One turn: `session/prompt` with `text`. Returns the stop reason as ACP
    /// names it (`end_turn`, `cancelled`, `max_tokens`, `max_turn_requests`,
    /// `refusal`); the turn's updates arrive as events meanwhile (the caller
    /// ends the last stream: [`Agent::end_stream`]). If the agent dies
    /// during the turn, the error says so, with its exit status.
    pub async fn prompt(&self, session: &str, text: &str) -> Result<String, AcpError> {
        let mut turn = Turn::begin(&self.turns);
        let answered = self
            .call(
                "the prompt",
                PromptRequest::new(
                    session.to_owned(),
                    vec![ContentBlock::Text(TextContent::new(text))],
                ),
            )
            .await;
        turn.answered = true;
        let stop_reason =
            serde_json::to_value(answered?.stop_reason).map_err(|error| AcpError::Refused {
                what: "the prompt".into(),
                error: format!("an unreadable stop reason: {error}"),
            })?;
        Ok(stop_reason
            .as_str()
            .map_or_else(|| stop_reason.to_string(), str::to_owned))
    }

    /// `session/cancel`: the agent should end the current turn soon (its
    /// prompt then returns `cancelled`). The session's pending permission
    /// requests are answered "cancelled".
    pub async fn cancel(&self, session: &str) -> Result<(), AcpError> {
        self.cx
            .send_notification(CancelNotification::new(session.to_owned()))
            .map_err(|error| AcpError::Gone(format!("could not send session/cancel: {error}")))?;
        self.permissions.cancel_session(session);
        Ok(())
    }
}
