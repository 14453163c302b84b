//! The conversation: `session/new`, `session/resume`, `session/load`,
//! `session/prompt` and `session/cancel`.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::{AcpError, Agent};
use crate::protocol::Tokens;
use agent_client_protocol::v1::schema::{
    CancelNotification, ContentBlock, LoadSessionRequest, NewSessionRequest, PromptRequest,
    PromptResponse, ResumeSessionRequest, TextContent,
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
    /// `refusal`) and the turn's tokens when the agent gives them; the turn's
    /// updates arrive as events meanwhile (the caller ends the last stream:
    /// [`Agent::end_stream`]). If the agent dies during the turn, the error
    /// says so, with its exit status.
    pub async fn prompt(&self, session: &str, text: &str) -> Result<Answered, AcpError> {
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
        let answered = answered?;
        let stop_reason =
            serde_json::to_value(answered.stop_reason).map_err(|error| AcpError::Refused {
                what: "the prompt".into(),
                error: format!("an unreadable stop reason: {error}"),
            })?;
        Ok(Answered {
            stop_reason: stop_reason
                .as_str()
                .map_or_else(|| stop_reason.to_string(), str::to_owned),
            tokens: tokens_of(&answered),
        })
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

/// An agent's answer to a prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answered {
    /// As ACP names it: `end_turn`, `cancelled`, `max_tokens`, …
    pub stop_reason: String,
    /// The turn's tokens, as far as the agent said (`None`: nothing).
    pub tokens: Option<Tokens>,
}

/// The turn's tokens in an answer: ACP's `usage` (Claude Code gives it: its
/// `inputTokens` are the uncached ones), or Gemini CLI's
/// `_meta.quota.token_count` (input with cached, output without thoughts).
fn tokens_of(answered: &PromptResponse) -> Option<Tokens> {
    if let Some(usage) = &answered.usage {
        return Some(Tokens {
            input: Some(usage.input_tokens),
            output: Some(usage.output_tokens),
            cached_read: usage.cached_read_tokens,
            cached_write: usage.cached_write_tokens,
            thought: usage.thought_tokens,
            total: Some(usage.total_tokens),
        });
    }
    let count = &answered.meta.as_ref()?.get("quota")?.get("token_count")?;
    let number = |key: &str| count.get(key).and_then(serde_json::Value::as_u64);
    let tokens = Tokens {
        input: number("input_tokens"),
        output: number("output_tokens"),
        ..Tokens::default()
    };
    (!tokens.is_empty()).then_some(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each agent's answer as it comes on the wire (read from each at its pinned version:
    /// docs/agents.md), and the turn's tokens read from it.
    #[test]
    fn the_turns_tokens_are_read_from_each_agents_answer() {
        let rows: &[(&str, serde_json::Value, Option<Tokens>)] = &[
            (
                "claude-agent-acp: ACP's usage",
                serde_json::json!({"stopReason": "end_turn", "usage": {"inputTokens": 2000,
                    "outputTokens": 100, "cachedReadTokens": 600, "cachedWriteTokens": 400,
                    "totalTokens": 3100}}),
                Some(Tokens {
                    input: Some(2000),
                    output: Some(100),
                    cached_read: Some(600),
                    cached_write: Some(400),
                    thought: None,
                    total: Some(3100),
                }),
            ),
            (
                "gemini-cli: _meta.quota",
                serde_json::json!({"stopReason": "end_turn", "_meta": {"quota": {"token_count":
                    {"input_tokens": 2000, "output_tokens": 100}, "model_usage": []}}}),
                Some(Tokens {
                    input: Some(2000),
                    output: Some(100),
                    ..Tokens::default()
                }),
            ),
            (
                "codex-acp: nothing",
                serde_json::json!({"stopReason": "end_turn"}),
                None,
            ),
            (
                "an unreadable usage is no usage",
                serde_json::json!({"stopReason": "end_turn", "usage": {"inputTokens": "many"},
                    "_meta": {"quota": "none"}}),
                None,
            ),
        ];
        for (what, wire, tokens) in rows {
            let answered: PromptResponse = serde_json::from_value(wire.clone()).unwrap();
            assert_eq!(tokens_of(&answered), *tokens, "{what}");
        }
    }
}
