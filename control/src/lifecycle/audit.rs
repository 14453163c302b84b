//! The audit trail: each state change a person or a source makes is written, in the transaction
//! that makes it, with who made it, their role, through what, what and to what.

use super::Ctx;
use crate::error::Result;
use crate::model::*;

/// What a change is and what it was made to.
pub struct Change<'a> {
    pub action: AuditAction,
    /// A session's id, an agent's, runner's or person's name.
    pub target: &'a str,
    /// The session it concerns, if any.
    pub session_id: Option<&'a str>,
    /// What changed, in a few words.
    pub detail: String,
}

impl<'a> Change<'a> {
    /// A change to the session `id`.
    pub fn session(action: AuditAction, id: &'a str) -> Change<'a> {
        Change {
            action,
            target: id,
            session_id: Some(id),
            detail: String::new(),
        }
    }

    /// A change to something that is not a session (an agent, a runner, a person).
    pub fn of(action: AuditAction, target: &'a str) -> Change<'a> {
        Change {
            action,
            target,
            session_id: None,
            detail: String::new(),
        }
    }

    pub fn saying(mut self, detail: impl Into<String>) -> Change<'a> {
        self.detail = detail.into();
        self
    }
}

/// Records `change`, made by `by`, now.
pub fn record(ctx: &mut Ctx, by: &Actor, change: Change) -> Result<()> {
    let mut entry = AuditEntry {
        seq: 0,
        at: ctx.now,
        actor: by.who.clone(),
        role: by.role,
        via: by.via,
        action: change.action,
        target: change.target.to_owned(),
        session_id: change.session_id.map(str::to_owned),
        detail: change.detail,
    };
    ctx.tx.add_audit(&mut entry)?;
    Ok(())
}
