//! Every transition of a session, each inside one transaction ([`Ctx`]).
//!
//! One file per kind of event: a message arrives ([`messages`]), someone closes a session
//! ([`close`]), a runner takes a run ([`offers`]), a run reports ([`reports`], [`transcript`],
//! what left its agent's network in [`egress`]),
//! a run dies or a limit passes ([`recovery`], and the clock in `crate::clock`). Runs are created
//! and ended in [`runs`]; the environment's teardown and its retries live in [`environment`];
//! someone answers a permission request in [`permissions`]; a turn ends, or the run's agent is
//! gone, in [`turns`].

pub mod agents;
pub mod audit;
pub mod close;
pub mod egress;
pub mod environment;
pub mod logins;
pub mod messages;
pub mod offers;
pub mod permissions;
pub mod plug_state;
pub mod recovery;
pub mod reports;
pub mod runners;
pub mod runs;
pub mod transcript;
pub mod turns;
pub mod usage;
pub mod users;
pub mod waiting;
pub mod webhooks;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::model::*;
use crate::names::{ENVIRONMENT, RUN, SESSION, check_id};
use crate::store::{Event, Store, Tx};

/// One transaction, with the server's limits and the time it runs at.
pub struct Ctx<'a> {
    pub tx: &'a mut dyn Tx,
    pub cfg: &'a Config,
    pub now: Millis,
}

/// Runs `f` in one transaction; commits only if it succeeds. A transaction that lost a race
/// with another (see [`retrying`]) runs again from the start, so `f` may run more than once.
pub fn transact<T>(
    store: &dyn Store,
    cfg: &Config,
    now: Millis,
    f: impl FnMut(&mut Ctx) -> Result<T>,
) -> Result<T> {
    run_in(|| store.begin(), cfg, now, f)
}

/// Runs `f` in one transaction that only reads ([`Store::begin_read`]).
pub fn transact_read<T>(
    store: &dyn Store,
    cfg: &Config,
    now: Millis,
    f: impl FnMut(&mut Ctx) -> Result<T>,
) -> Result<T> {
    run_in(|| store.begin_read(), cfg, now, f)
}

/// Runs `f`, which reads with one statement, as [`Store::begin_one`] allows.
pub fn transact_one<T>(
    store: &dyn Store,
    cfg: &Config,
    now: Millis,
    f: impl FnMut(&mut Ctx) -> Result<T>,
) -> Result<T> {
    run_in(|| store.begin_one(), cfg, now, f)
}

fn run_in<'s, T>(
    begin: impl Fn() -> crate::store::StoreResult<Box<dyn Tx + 's>>,
    cfg: &Config,
    now: Millis,
    mut f: impl FnMut(&mut Ctx) -> Result<T>,
) -> Result<T> {
    retrying(|| {
        let mut tx = begin()?;
        let out = f(&mut Ctx {
            tx: &mut *tx,
            cfg,
            now,
        })?;
        tx.commit()?;
        Ok(out)
    })
}

/// Most times one transaction is attempted.
const ATTEMPTS: u32 = 20;

/// Transactions run again after a conflict, since this process started (`GET /v1/health`).
pub fn conflicts_retried() -> u64 {
    crate::metrics::conflicts()
}

/// Runs `attempt` again while it fails with a [`StoreError::Conflict`](crate::store::StoreError):
/// with PostgreSQL, two transactions that slipped past the session locks (two new records racing
/// for one number, a deadlock between instances) fail one of them, which must start again and
/// see what the other did. SQLite never conflicts (its writers take turns). The wait between
/// attempts is short, random and growing, so racers part.
pub fn retrying<T>(mut attempt: impl FnMut() -> Result<T>) -> Result<T> {
    let mut tries = 1;
    loop {
        match attempt() {
            Err(Error::Store(e)) if e.is_conflict() && tries < ATTEMPTS => {
                crate::metrics::conflict();
                let cap_us = 200u64 << tries.min(8);
                let mut r = [0u8; 2];
                let _ = getrandom::fill(&mut r);
                let jitter = u16::from_le_bytes(r) as u64 % cap_us;
                std::thread::sleep(std::time::Duration::from_micros(jitter));
                tries += 1;
            }
            out => return out,
        }
    }
}

impl Ctx<'_> {
    // Ids come from requests: one that cannot exist is not found without a query.
    pub fn session(&mut self, id: &str) -> Result<Session> {
        check_id(&SESSION, id)?;
        self.tx
            .session(id)?
            .ok_or_else(|| Error::not_found("session", id))
    }

    pub fn run(&mut self, id: &str) -> Result<Run> {
        check_id(&RUN, id)?;
        self.tx.run(id)?.ok_or_else(|| Error::not_found("run", id))
    }

    pub fn environment(&mut self, id: &str) -> Result<Environment> {
        check_id(&ENVIRONMENT, id)?;
        self.tx
            .environment(id)?
            .ok_or_else(|| Error::not_found("environment", id))
    }

    pub fn agent(&mut self, name: &str) -> Result<Agent> {
        self.tx.agent(name)?.ok_or_else(|| {
            Error::NotFound(format!(
                "no agent named {name:?}; create it with `blaise agent set {name}`"
            ))
        })
    }

    /// The session's current environment, if it has one.
    pub fn session_environment(&mut self, session: &Session) -> Result<Option<Environment>> {
        match &session.environment_id {
            Some(id) => Ok(Some(self.environment(id)?)),
            None => Ok(None),
        }
    }

    /// The run that has not finished, if any.
    pub fn current_run(&mut self, session: &Session) -> Result<Option<Run>> {
        match &session.current_run_id {
            Some(id) => Ok(Some(self.run(id)?)),
            None => Ok(None),
        }
    }

    /// Moves the session to `to`, noted for the metrics when it is a change.
    pub fn enter(&mut self, session: &mut Session, to: SessionState) {
        if session.state != to {
            self.tx.note(Event::Session {
                from: Some(session.state),
                to,
            });
            session.state = to;
        }
    }

    /// Adds a line from Blaise itself to the session's transcript.
    pub fn notice(&mut self, session_id: &str, text: &str) -> Result<()> {
        let mut entry = TranscriptEntry {
            index: 0,
            session_id: session_id.to_string(),
            run_id: None,
            seq: None,
            kind: "notice".into(),
            content: serde_json::json!({ "text": text }),
            at: self.now,
        };
        self.tx.append_transcript(&mut entry)?;
        Ok(())
    }

    /// Ends the session in `state` (no-op if it has ended already). Messages
    /// still waiting for a run are named: they will not be answered.
    pub fn end_session(
        &mut self,
        session: &mut Session,
        state: SessionState,
        reason: &str,
    ) -> Result<()> {
        if session.state.is_ended() {
            return Ok(());
        }
        for message in self.tx.messages(&session.id, MessageState::Waiting)? {
            self.notice(
                &session.id,
                &format!(
                    "Your message {} will not be answered: the session ended ({reason}).",
                    runs::quote(&message.text)
                ),
            )?;
        }
        tracing::info!(session = %session.id, %state, reason, "session ended");
        self.enter(session, state);
        if state == SessionState::Failed {
            webhooks::session_failed(self, session, reason)?;
        }
        session.ended_at = Some(self.now);
        session.end_reason = Some(reason.to_string());
        session.run_serving = false;
        session.recreate_environment = false;
        session.expires_at = None;
        Ok(())
    }
}
