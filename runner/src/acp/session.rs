//! The conversation: `session/new`, `session/load`, `session/prompt` and
//! `session/cancel`.

use agent_client_protocol::v1::schema::{
    CancelNotification, ContentBlock, LoadSessionRequest, NewSessionRequest, PromptRequest,
    TextContent,
};
use anyhow::bail;

use super::Agent;
use super::events::Transcript;

/// Ends what a call began in the transcript when the call is over, also when
/// its future is dropped half-way (a stop that no longer awaits the turn):
/// the open stream still gets its `last` entry.
struct Ends<'a>(&'a Agent, fn(&mut Transcript));

impl Drop for Ends<'_> {
    fn drop(&mut self) {
        (self.1)(&mut self.0.transcript());
    }
}

impl Agent {
    /// `session/new` in the agent's working directory: the new ACP session id.
    pub async fn new_session(&self) -> anyhow::Result<String> {
        let created = self
            .call("session/new", NewSessionRequest::new(self.cwd.clone()))
            .await?;
        Ok(created.session_id.0.to_string())
    }

    /// `session/load` of an earlier session. The agent's replay arrives as
    /// entries with `replay: true` (every stream ended by `last`) before this
    /// returns. An error if the agent did not advertise `loadSession`.
    pub async fn load_session(&self, session: &str) -> anyhow::Result<()> {
        if !self.load_session {
            bail!("the agent cannot load sessions (it does not advertise loadSession)");
        }
        self.transcript().set_replay(true);
        let _replay_ends = Ends(self, Transcript::replay_ended);
        self.call(
            "session/load",
            LoadSessionRequest::new(session.to_owned(), self.cwd.clone()),
        )
        .await
        .map(|_| ())
    }

    /// One turn: `session/prompt` with `text`. Returns the stop reason as ACP
    /// names it (`end_turn`, `cancelled`, `max_tokens`, `max_turn_requests`,
    /// `refusal`); the turn's updates arrive as events meanwhile, and its last
    /// stream is ended before this returns (or when this future is dropped).
    /// If the agent dies during the turn, the error says so, with its exit status.
    pub async fn prompt(&self, session: &str, text: &str) -> anyhow::Result<String> {
        let _turn_ends = Ends(self, Transcript::end_stream);
        let answered = self
            .call(
                "the prompt",
                PromptRequest::new(
                    session.to_owned(),
                    vec![ContentBlock::Text(TextContent::new(text))],
                ),
            )
            .await;
        let stop_reason = serde_json::to_value(answered?.stop_reason)?;
        Ok(stop_reason
            .as_str()
            .map_or_else(|| stop_reason.to_string(), str::to_owned))
    }

    /// `session/cancel`: the agent should end the current turn soon (its
    /// prompt then returns `cancelled`). The session's pending permission
    /// requests are answered "cancelled".
    pub async fn cancel(&self, session: &str) -> anyhow::Result<()> {
        self.cx
            .send_notification(CancelNotification::new(session.to_owned()))
            .map_err(|error| anyhow::anyhow!("could not send session/cancel: {error}"))?;
        self.permissions.cancel_session(session);
        Ok(())
    }
}
