//! Tells each source's threads what their sessions produced, in order, outside any transaction:
//! a source that is slow or away delays only its own threads, never a session's transitions.
//!
//! Runs on the instance that holds the clock (one at a time, so nothing is told twice by two
//! instances). Wakes when a session changes, and looks anyway every [`TICK`]. What was told is
//! recorded after each item: a restart tells at most the item it was telling again.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use futures_util::StreamExt;

use super::AppState;
use crate::model::*;
use crate::sources::produced::{self, Produced};
use crate::sources::{Failure, Source, Told};

/// How often the pump looks when nothing woke it (a change the clock made, a retry falling due).
const TICK: Duration = Duration::from_millis(1_000);
/// Threads looked at in one pass, and how many are told at once.
const BATCH: usize = 200;
const AT_ONCE: usize = 8;
/// Entries of a transcript read at a time.
const PAGE: usize = 200;
/// Longest wait before trying a source again.
const MAX_BACKOFF_MS: Millis = 5 * 60_000;
/// Deliveries are remembered this long (Linear tries a webhook again for up to six hours).
const KEEP_DELIVERIES_MS: Millis = 7 * 86_400_000;

/// Runs until dropped. Does nothing while no source is configured.
pub async fn run(state: AppState) {
    if state.sources.is_empty() {
        return;
    }
    let mut last_forget: Millis = 0;
    loop {
        let woken = state.changes().sources_changed();
        if state.clock_held.load(Ordering::Relaxed) {
            match pass(&state).await {
                // A full batch: more may be due now.
                Ok(n) if n == BATCH => continue,
                Ok(_) => {}
                Err(e) => tracing::warn!("message sources: {e}"),
            }
            let now = crate::model::now();
            if now - last_forget > 3_600_000 {
                last_forget = now;
                let _ = state
                    .write(|ctx| Ok(ctx.tx.forget_deliveries(ctx.now - KEEP_DELIVERIES_MS)?))
                    .await;
            }
        }
        tokio::select! {
            _ = woken => {}
            _ = tokio::time::sleep(TICK) => {}
        }
    }
}

/// Tells every thread that is due; returns how many were.
async fn pass(state: &AppState) -> crate::error::Result<usize> {
    let due = state
        .read(|ctx| Ok(ctx.tx.source_threads_due(ctx.now, BATCH)?))
        .await?;
    let n = due.len();
    futures_util::stream::iter(due)
        .for_each_concurrent(AT_ONCE, |thread| async move {
            // A source no longer configured: its threads wait for it to come back.
            if let Some(source) = state.sources.get(&thread.source) {
                tell_thread(state, &*source, thread).await
            }
        })
        .await;
    Ok(n)
}

async fn tell_thread(state: &AppState, source: &dyn Source, thread: SourceThread) {
    for reply in &thread.outbox {
        match source.tell(&thread, Told::Reply(reply)).await {
            Ok(()) => {}
            Err(Failure::Refused(why)) => {
                tracing::warn!(source = %thread.source, thread = %thread.thread, "a reply was refused and is dropped: {why}");
            }
            Err(Failure::Retry { after, why }) => {
                return backoff(state, &thread, after, &why).await;
            }
        }
        let sent = reply.clone();
        let _ = update(state, &thread, move |t| {
            if t.outbox.first() == Some(&sent) {
                t.outbox.remove(0);
            }
        })
        .await;
    }
    let Some(session_id) = thread.session_id.clone() else {
        return;
    };
    let after = thread.delivered;
    let read = state
        .read(|ctx| {
            let entries = ctx.tx.transcript(&session_id, after, PAGE)?;
            let session = ctx.tx.read_session(&session_id)?;
            // Where the turns of this page ended: each turn's answer is told apart.
            let last = entries.last().map_or(after, |e| e.index);
            let turn_ends: Vec<i64> = ctx
                .tx
                .messages(&session_id, MessageState::Answered)?
                .into_iter()
                .filter_map(|m| m.ended_at_index)
                .filter(|i| (after + 1..=last).contains(i))
                .collect();
            Ok((entries, session, turn_ends))
        })
        .await;
    let Ok((entries, Some(session), turn_ends)) = read else {
        return;
    };
    let ended = session.state.is_ended();
    let turn_open = session.open_turns > 0 && !ended;
    let ready = produced::read(&entries, &turn_ends, turn_open, entries.len() == PAGE);
    for (item, index) in &ready.items {
        let told = Told::Produced {
            item,
            index: *index,
            ended,
        };
        match source.tell(&thread, told).await {
            Ok(()) => {}
            Err(Failure::Refused(why)) => {
                tracing::warn!(source = %thread.source, thread = %thread.thread, entry = index, "{} was refused and is passed over: {why}", what(item));
            }
            Err(Failure::Retry { after, why }) => {
                return backoff(state, &thread, after, &why).await;
            }
        }
        let index = *index;
        let _ = update(state, &thread, move |t| {
            t.delivered = t.delivered.max(index)
        })
        .await;
    }
    let settled = ready.settled;
    if settled > thread.delivered || thread.attempts > 0 {
        let _ = update(state, &thread, move |t| {
            t.delivered = t.delivered.max(settled);
            t.attempts = 0;
            t.retry_at = None;
        })
        .await;
    }
}

fn what(item: &Produced) -> &'static str {
    match item {
        Produced::Thought(_) => "a thought",
        Produced::Answer(_) => "an answer",
        Produced::Action { .. } => "an action",
        Produced::Permission { .. } => "a permission request",
        Produced::Notice(_) => "a notice",
    }
}

async fn backoff(state: &AppState, thread: &SourceThread, after: Option<Millis>, why: &str) {
    tracing::warn!(source = %thread.source, thread = %thread.thread, attempts = thread.attempts + 1, "telling the source failed, tried again later: {why}");
    let _ = update(state, thread, move |t| {
        t.attempts += 1;
        let now = crate::model::now();
        let wait = (250i64 << t.attempts.min(16)).min(MAX_BACKOFF_MS);
        t.retry_at = Some(
            after
                .filter(|a| *a > now)
                .unwrap_or(now + wait)
                .min(now + MAX_BACKOFF_MS),
        );
    })
    .await;
}

/// Changes the thread as it is now (a webhook may have changed it while the pump was telling).
async fn update(
    state: &AppState,
    thread: &SourceThread,
    change: impl Fn(&mut SourceThread) + Send,
) -> crate::error::Result<()> {
    let (source, id) = (thread.source.clone(), thread.thread.clone());
    let change = Arc::new(change);
    state
        .write(|ctx| {
            if let Some(mut t) = ctx.tx.source_thread(&source, &id)? {
                change(&mut t);
                ctx.tx.put_source_thread(&t)?;
            }
            Ok(())
        })
        .await
}
