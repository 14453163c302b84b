//! Blaise owns the clock: on a fixed interval it checks every limit and acts.

pub mod rules;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use crate::config::Config;
use crate::error::Result;
use crate::lifecycle::{transact, transact_read, waiting};
use crate::model::{Millis, now};
use crate::store::{Oldest, Store};
use crate::wakeups::Changes;

/// What one tick did.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct TickReport {
    /// Sessions the store said were due.
    pub checked: usize,
    /// Sessions a rule acted on.
    pub acted: usize,
    /// Records (transcript entries, directives, reports) the retention pruned.
    pub pruned: usize,
    /// Sessions the retention finished pruning (marked `pruned_at`).
    pub pruned_sessions: usize,
    /// The next time a limit falls due, if one is known (see [`next_due`]).
    pub next_due: Option<Millis>,
}

/// Most records one transaction of the retention deletes: short enough that
/// requests and runs never wait long on the store's lock.
pub const PRUNE_BATCH: usize = 500;
/// Most records one tick prunes; what is left waits for the next tick.
pub const PRUNE_PER_TICK: usize = 10_000;
/// Most sessions one tick looks at for pruning.
pub const PRUNE_SESSIONS_PER_TICK: usize = 100;

/// A runner instance not seen for this long is forgotten (each runner process is an instance of
/// its own, so a fleet that restarts leaves many behind); one that comes back connects again.
pub const FORGET_INSTANCES_AFTER_MS: Millis = 7 * 86_400_000;
/// How often the clock forgets them.
const FORGET_EVERY_MS: Millis = 60_000;

/// Forgets the runner instances not seen for [`FORGET_INSTANCES_AFTER_MS`].
pub fn forget_instances(store: &dyn Store, cfg: &Config, now: Millis) -> Result<usize> {
    let before = now.saturating_sub(FORGET_INSTANCES_AFTER_MS);
    transact(store, cfg, now, |ctx| {
        Ok(ctx.tx.forget_connections(before)?)
    })
}

/// How long a run is offered before the clock looks at why it waits.
pub const WAITING_AFTER_MS: Millis = 1_000;

/// Most due sessions one transaction of the clock checks: a transaction costs more than a rule
/// (stopping 5,000 idle runs one transaction each took seconds), and a batch still holds its
/// locks only for a few milliseconds.
pub const CHECK_BATCH: usize = 128;

/// Checks every session that may be due at `now`, [`CHECK_BATCH`] to a transaction. When a
/// batch fails, its sessions are checked again one transaction each, so one session's failure
/// neither stops nor undoes the others'.
pub fn tick(store: &dyn Store, cfg: &Config, now: Millis) -> Result<TickReport> {
    let due = transact(store, cfg, now, |ctx| {
        Ok(ctx.tx.due_sessions(now, &cfg.due_limits())?)
    })?;
    // In the store's order (see `Tx::due_sessions`): a batch of sessions stored side by side
    // writes a few pages, not one per session.
    let mut report = TickReport {
        checked: due.len(),
        ..TickReport::default()
    };
    for batch in due.chunks(CHECK_BATCH) {
        let checked = transact(store, cfg, now, |ctx| {
            let mut acted = 0;
            for session_id in batch {
                acted += usize::from(rules::check_session(ctx, session_id)?);
            }
            Ok(acted)
        });
        match checked {
            Ok(acted) => report.acted += acted,
            Err(_) => {
                for session_id in batch {
                    match transact(store, cfg, now, |ctx| rules::check_session(ctx, session_id)) {
                        Ok(true) => report.acted += 1,
                        Ok(false) => {}
                        Err(e) => tracing::error!(session = %session_id, "clock: {e}"),
                    }
                }
            }
        }
    }
    // Runs waiting for a runner: noted, forgotten, or (a new session's first) failed. A run
    // offered less than a second ago is about to be taken: under load, looking at each one on
    // every tick would cost more than everything else the tick does.
    let offered = transact(store, cfg, now, |ctx| Ok(ctx.tx.offered_runs()?))?;
    for run in offered
        .into_iter()
        .filter(|r| now - r.created_at >= WAITING_AFTER_MS)
    {
        match transact(store, cfg, now, |ctx| waiting::check_offered(ctx, &run.id)) {
            Ok(true) => report.acted += 1,
            Ok(false) => {}
            Err(e) => tracing::error!(run = %run.id, "clock: waiting for a runner: {e}"),
        }
    }
    // The retention's failure is logged, not returned: it must not hide what
    // the rules did.
    match prune(store, cfg, now) {
        Ok((records, sessions)) => {
            report.pruned = records;
            report.pruned_sessions = sessions;
        }
        Err(e) => tracing::error!("clock: retention: {e}"),
    }
    let oldest = transact_read(store, cfg, now, |ctx| Ok(ctx.tx.oldest()?))?;
    report.next_due = next_due(&oldest, cfg, now);
    Ok(report)
}

/// The earliest time after `now` at which one of the limits in `oldest` falls due, counted as
/// the rules count it (silence from this server's start at the earliest). A limit already due
/// at `now` is left out: this tick checked it, and whatever it left (a session it could not
/// check) waits for the interval rather than waking the clock again at once.
pub fn next_due(oldest: &Oldest, cfg: &Config, now: Millis) -> Option<Millis> {
    let since =
        |t: Option<Millis>, limit: Millis| t.map(|t| cfg.since_start(t).saturating_add(limit));
    [
        oldest.idle_at,
        oldest.expires_at,
        since(oldest.unconnected_since, cfg.connect_timeout_ms),
        since(oldest.silent_since, cfg.heartbeat_timeout_ms),
        since(oldest.stopping_since, cfg.stop_grace_ms),
        oldest.teardown_at,
    ]
    .into_iter()
    .flatten()
    .filter(|&at| at > now)
    .min()
}

/// The retention (`retain_ended_ms`): the transcript, directives and reports
/// of sessions ended longer ago than that are deleted, in batches of
/// [`PRUNE_BATCH`] (each its own transaction), at most [`PRUNE_PER_TICK`]
/// per tick; a session whose records are all gone is marked pruned.
/// Returns how many records it deleted and how many sessions it marked.
pub fn prune(store: &dyn Store, cfg: &Config, now: Millis) -> Result<(usize, usize)> {
    let Some(retain) = cfg.retain_ended_ms else {
        return Ok((0, 0));
    };
    let cutoff = now.saturating_sub(retain);
    let sessions = transact(store, cfg, now, |ctx| {
        Ok(ctx.tx.sessions_to_prune(cutoff, PRUNE_SESSIONS_PER_TICK)?)
    })?;
    let (mut pruned, mut marked) = (0, 0);
    for session_id in sessions {
        loop {
            let batch = PRUNE_BATCH.min(PRUNE_PER_TICK - pruned);
            if batch == 0 {
                return Ok((pruned, marked));
            }
            let (deleted, done) = transact(store, cfg, now, |ctx| {
                let deleted = ctx.tx.prune_session_records(&session_id, batch)?;
                let done = deleted < batch;
                if done {
                    let mut session = ctx.session(&session_id)?;
                    session.pruned_at = Some(now);
                    ctx.tx.put_session(&session)?;
                }
                Ok((deleted, done))
            })?;
            pruned += deleted;
            if done {
                marked += 1;
                break;
            }
        }
    }
    Ok((pruned, marked))
}

/// After a change woke the clock, how long it lets more changes gather before it reads where
/// the limits stand: under load, at most this often.
const RECHECK_GAP: Duration = Duration::from_millis(20);

/// Runs the clock while this instance holds the store's clock lease (`held` says whether it
/// does): when a limit falls due ([`TickReport::next_due`]; a change to a session or a run,
/// here or in another instance, makes it look again, [`Changes::limits_moved`]), and at least
/// every `check_interval` (a run's own timeout, runs waiting for a runner, the retention, and
/// a session whose check failed are looked at then). The store should wake the long polls its
/// transactions touch ([`crate::wakeups::Notifying`]).
pub fn spawn(
    store: Arc<dyn Store>,
    cfg: Arc<Config>,
    held: Arc<AtomicBool>,
    changes: Arc<Changes>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let interval = Duration::from_millis(cfg.check_interval_ms.max(1) as u64);
        let mut cfg = cfg;
        let mut forgot: Millis = 0;
        loop {
            let started = tokio::time::Instant::now();
            let ticked_at = now();
            let next = tick_if_held(&store, &mut cfg, &held, &mut forgot).await;
            let mut wake = started + interval;
            if let Some(at) = next {
                wake = wake.min(instant_of(at));
            }
            loop {
                tokio::select! {
                    _ = tokio::time::sleep_until(wake) => break,
                    _ = changes.limits_moved() => {}
                }
                if !held.load(Relaxed) {
                    continue;
                }
                tokio::time::sleep_until(wake.min(tokio::time::Instant::now() + RECHECK_GAP)).await;
                let (store, tick_cfg) = (store.clone(), cfg.clone());
                let oldest = tokio::task::spawn_blocking(move || {
                    transact_read(&*store, &tick_cfg, now(), |ctx| Ok(ctx.tx.oldest()?))
                })
                .await;
                match oldest {
                    // Limits that fell due since the tick wake it now; those it left do not.
                    Ok(Ok(oldest)) => {
                        if let Some(at) = next_due(&oldest, &cfg, ticked_at) {
                            wake = wake.min(instant_of(at));
                        }
                    }
                    Ok(Err(e)) => tracing::error!("clock: reading the limits: {e}"),
                    Err(e) => tracing::error!("clock: reading the limits panicked: {e}"),
                }
            }
        }
    })
}

/// The moment of the wall-clock time `at`, a millisecond after it: woken a little early, the
/// limit would not be due yet.
fn instant_of(at: Millis) -> tokio::time::Instant {
    let wait = at.saturating_sub(now()).max(0) as u64 + 1;
    tokio::time::Instant::now() + Duration::from_millis(wait.min(86_400_000))
}

/// One tick, if this instance holds the clock (taking it when it is free); returns when a limit
/// falls due next. `cfg` changes when the clock is taken: that counts as a start of Blaise.
async fn tick_if_held(
    store: &Arc<dyn Store>,
    cfg: &mut Arc<Config>,
    held: &Arc<AtomicBool>,
    forgot: &mut Millis,
) -> Option<Millis> {
    let last_forgot = *forgot;
    // The tick is blocking store work: keep it off the threads that serve requests.
    let (store, was_held, holds) = (store.clone(), held.load(Relaxed), held.clone());
    let mut tick_cfg = cfg.clone();
    let ticked = tokio::task::spawn_blocking(move || -> Result<Option<_>> {
        if !store.hold_clock()? {
            return Ok(None);
        }
        // Said at once: the first tick after a takeover may have much to do.
        holds.store(true, Relaxed);
        if !was_held {
            // Taking the clock counts as a start of Blaise: runs that were talking to an
            // instance that died get their limits again from now.
            tick_cfg = Arc::new(Config {
                started_at: now(),
                ..(*tick_cfg).clone()
            });
        }
        let started = std::time::Instant::now();
        let r = tick(&*store, &tick_cfg, now())?;
        crate::metrics::tick(started.elapsed());
        let mut forgot = last_forgot;
        if now() - last_forgot >= FORGET_EVERY_MS {
            forgot = now();
            match forget_instances(&*store, &tick_cfg, forgot) {
                Ok(0) => {}
                Ok(n) => {
                    tracing::info!(instances = n, "forgot runner instances not seen for a week")
                }
                Err(e) => tracing::error!("clock: forgetting old runner instances: {e}"),
            }
        }
        Ok(Some((r, tick_cfg, forgot)))
    })
    .await;
    match ticked {
        Ok(Ok(Some((r, tick_cfg, forgot_at)))) => {
            if !was_held {
                tracing::info!("this instance runs the clock");
            }
            *cfg = tick_cfg;
            *forgot = forgot_at;
            if r.acted > 0 || r.pruned > 0 || r.pruned_sessions > 0 {
                tracing::debug!(acted = r.acted, pruned = r.pruned, "clock tick");
            }
            r.next_due
        }
        Ok(Ok(None)) => {
            if was_held {
                tracing::warn!("another instance runs the clock now");
            }
            held.store(false, Relaxed);
            None
        }
        Ok(Err(e)) => {
            tracing::error!("clock tick failed: {e}");
            None
        }
        Err(e) => {
            tracing::error!("clock tick panicked: {e}");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::*;
    use crate::store::conformance::{run, session};
    use crate::store::sqlite::SqliteStore;

    const NOW: Millis = 10_000_000;
    // Session ids of the shape Blaise makes (others are refused as unknown).
    // big: more than a batch; exact: a batch; recent: too recent; huge: a tick's budget.

    /// A session that ended at `ended_at` with `entries` transcript entries.
    fn ended(store: &dyn Store, id: &str, ended_at: Millis, entries: usize) {
        let mut tx = store.begin().unwrap();
        tx.put_session(&Session {
            ended_at: Some(ended_at),
            ..session(id, SessionState::Closed, 0)
        })
        .unwrap();
        tx.put_run(&run(&format!("{id}-run"), id, RunStatus::TornDown))
            .unwrap();
        for seq in 0..entries {
            let mut e = TranscriptEntry {
                index: 0,
                session_id: id.into(),
                run_id: Some(format!("{id}-run")),
                seq: Some(seq as i64 + 1),
                kind: "agent_message".into(),
                content: serde_json::json!({ "text": "t" }),
                at: 0,
            };
            tx.append_transcript(&mut e).unwrap();
        }
        tx.commit().unwrap();
    }

    fn pruned_at(store: &dyn Store, id: &str) -> Option<Millis> {
        store
            .begin()
            .unwrap()
            .session(id)
            .unwrap()
            .unwrap()
            .pruned_at
    }

    fn config() -> Config {
        Config {
            retain_ended_ms: Some(1_000),
            ..Config::default()
        }
    }

    /// A session whose check fails does not stop or undo the others of its batch.
    #[test]
    fn a_failing_session_leaves_the_rest_of_its_batch_checked() {
        let store = SqliteStore::in_memory().unwrap();
        let cfg = Config::default();
        let mut tx = store.begin().unwrap();
        tx.put_agent(&Agent {
            name: "a".into(),
            settings: AgentSettings::default(),
            disabled: false,
            updated_at: 0,
        })
        .unwrap();
        // Paused past their expiry; the middle one names an agent that does not exist.
        for (id, agent) in [
            ("ses_00000000000000a1", "a"),
            ("ses_00000000000000a2", "ghost"),
            ("ses_00000000000000a3", "a"),
        ] {
            tx.put_session(&Session {
                agent: agent.into(),
                expires_at: Some(NOW - 1),
                paused_at: Some(0),
                ..session(id, SessionState::Paused, 0)
            })
            .unwrap();
        }
        tx.commit().unwrap();
        let report = tick(&store, &cfg, NOW).unwrap();
        assert_eq!((report.checked, report.acted), (3, 2));
        let state = |id: &str| store.begin().unwrap().session(id).unwrap().unwrap().state;
        assert_eq!(state("ses_00000000000000a1"), SessionState::Expired);
        assert_eq!(state("ses_00000000000000a2"), SessionState::Paused);
        assert_eq!(state("ses_00000000000000a3"), SessionState::Expired);
    }

    /// The clock wakes at the first limit still ahead, counted as the rules count it; limits
    /// already due (this tick left them) wake nothing.
    #[test]
    fn next_due_is_the_first_limit_still_ahead() {
        let cfg = Config {
            started_at: NOW - 10_000,
            ..Config::default()
        };
        assert_eq!(next_due(&Oldest::default(), &cfg, NOW), None);
        let oldest = Oldest {
            idle_at: Some(NOW + 5_000),
            expires_at: Some(NOW + 4_000),
            teardown_at: Some(NOW - 1),
            ..Oldest::default()
        };
        assert_eq!(next_due(&oldest, &cfg, NOW), Some(NOW + 4_000));
        // Silence is counted from the start at the earliest: a run last heard of long before
        // it is due a heartbeat timeout after the start, not at once.
        let silent = Oldest {
            silent_since: Some(0),
            ..Oldest::default()
        };
        assert_eq!(
            next_due(&silent, &cfg, NOW),
            Some(NOW - 10_000 + cfg.heartbeat_timeout_ms)
        );
        let stopping = Oldest {
            stopping_since: Some(NOW - 5_000),
            ..Oldest::default()
        };
        assert_eq!(
            next_due(&stopping, &cfg, NOW),
            Some(NOW - 5_000 + cfg.stop_grace_ms)
        );
        let unconnected = Oldest {
            unconnected_since: Some(NOW),
            ..Oldest::default()
        };
        assert_eq!(
            next_due(&unconnected, &cfg, NOW),
            Some(NOW + cfg.connect_timeout_ms)
        );
        // Never: a limit of i64::MAX does not wrap into the past.
        let never = Config {
            heartbeat_timeout_ms: Millis::MAX,
            ..cfg
        };
        assert_eq!(
            next_due(
                &Oldest {
                    silent_since: Some(NOW),
                    ..Oldest::default()
                },
                &never,
                NOW
            ),
            Some(Millis::MAX)
        );
    }

    /// Runner instances not seen for a week are forgotten; one seen since is kept.
    #[test]
    fn instances_not_seen_for_a_week_are_forgotten() {
        let store = SqliteStore::in_memory().unwrap();
        let seen = |instance: &str, last_seen: Millis| Connection {
            runner_id: "rnr_a".into(),
            instance: instance.into(),
            agents: vec!["a".into()],
            last_seen,
            capacity: None,
            labels: Vec::new(),
        };
        let week_ago = NOW - FORGET_INSTANCES_AFTER_MS;
        let mut tx = store.begin().unwrap();
        tx.put_connection(&seen("slept", week_ago - 1)).unwrap();
        tx.put_connection(&seen("awake", week_ago)).unwrap();
        tx.commit().unwrap();
        assert_eq!(
            forget_instances(&store, &Config::default(), NOW).unwrap(),
            1
        );
        let mut tx = store.begin().unwrap();
        assert_eq!(tx.connection("rnr_a", "slept").unwrap(), None);
        assert!(tx.connection("rnr_a", "awake").unwrap().is_some());
    }

    #[test]
    fn prune_goes_in_batches_marks_what_it_finished_and_keeps_the_rest_for_later() {
        let store = SqliteStore::in_memory().unwrap();
        // "exact": the last batch is full and the next one finds nothing.
        ended(
            &store,
            "ses_00000000000000b1",
            NOW - 5_000,
            PRUNE_BATCH * 2 + 7,
        );
        ended(&store, "ses_00000000000000e1", NOW - 4_000, PRUNE_BATCH);
        ended(&store, "ses_00000000000000a1", NOW - 10, 3);
        ended(&store, "ses_00000000000000c1", NOW - 3_000, PRUNE_PER_TICK);
        let cfg = config();

        let (records, sessions) = prune(&store, &cfg, NOW).unwrap();
        assert_eq!(records, PRUNE_PER_TICK, "one tick's budget");
        assert_eq!(sessions, 2, "big and exact are done");
        assert_eq!(pruned_at(&store, "ses_00000000000000b1"), Some(NOW));
        assert_eq!(pruned_at(&store, "ses_00000000000000e1"), Some(NOW));
        assert_eq!(
            pruned_at(&store, "ses_00000000000000c1"),
            None,
            "not finished this tick"
        );
        assert_eq!(pruned_at(&store, "ses_00000000000000a1"), None);
        let left = |id: &str| {
            store
                .begin()
                .unwrap()
                .transcript(id, 0, PRUNE_PER_TICK * 2)
                .unwrap()
                .len()
        };
        assert_eq!(left("ses_00000000000000b1"), 0);
        assert_eq!(left("ses_00000000000000a1"), 3);
        assert_eq!(
            left("ses_00000000000000c1"),
            PRUNE_BATCH * 3 + 7,
            "what the budget left waits"
        );

        // The next tick finishes it; without a retention nothing happens.
        assert_eq!(
            prune(&store, &cfg, NOW + 1).unwrap(),
            (PRUNE_BATCH * 3 + 7, 1)
        );
        assert_eq!(left("ses_00000000000000c1"), 0);
        assert_eq!(prune(&store, &cfg, NOW + 2).unwrap(), (0, 0));
        let keep = Config::default();
        assert_eq!(prune(&store, &keep, NOW * 10).unwrap(), (0, 0));
        assert_eq!(left("ses_00000000000000a1"), 3);
    }
}
