//! Finding a page of sessions, newest first, for the API's list and the dashboard's: by state,
//! agent and who started them from the store's indexes; waiting for a person or for a runner from
//! what waits (few); by the runner holding their environment and by the words of their first
//! message by reading on, a bounded number of sessions at a time.

use std::collections::{BTreeMap, HashSet};

use crate::error::Result;
use crate::lifecycle::Ctx;
use crate::model::{Millis, PermissionRequest, Session};
use crate::store::SessionPage;

/// Only sessions that wait: for a person's answer, or for a runner to take their run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Waiting {
    ForYou,
    ForRunner,
}

/// What a page of the list holds.
#[derive(Debug, Clone, Default)]
pub struct Search {
    /// State, agent, who started them, the cursor and how many.
    pub page: SessionPage,
    pub waiting: Option<Waiting>,
    /// Only sessions whose environment this runner (its id) holds.
    pub runner_id: Option<String>,
    /// Only sessions whose id or first message holds these words (case aside).
    pub words: Option<String>,
}

/// Sessions read from the store at a time while a filter that reads more than the session looks
/// for a page's worth, and the most one page reads before it answers what it found (with a
/// cursor to go on from).
const BATCH: u32 = 200;
const MOST_READ: usize = 10_000;

/// What waits: the sessions whose agent waits for an answer (`pending`), and those whose run
/// waits for a runner (`for_runner`).
pub struct Waits<'a> {
    pub pending: &'a BTreeMap<String, Vec<PermissionRequest>>,
    pub for_runner: &'a HashSet<&'a str>,
}

/// A page of sessions, newest first, and the cursor of the next (`CREATED_AT.ID`; `None`: the
/// last page).
pub fn find(ctx: &mut Ctx, q: &Search, waits: &Waits) -> Result<(Vec<Session>, Option<String>)> {
    let limit = q.page.limit as usize;
    let mut found = Vec::new();
    let mut cursor_at = None;
    if let Some(waiting) = q.waiting {
        let ids: Vec<String> = match waiting {
            Waiting::ForYou => waits.pending.keys().cloned().collect(),
            Waiting::ForRunner => waits.for_runner.iter().map(|s| s.to_string()).collect(),
        };
        let mut sessions = Vec::new();
        for id in ids {
            sessions.extend(ctx.tx.read_session(&id)?);
        }
        let p = &q.page;
        sessions.retain(|s| {
            p.after
                .as_ref()
                .is_none_or(|(at, id)| (s.created_at, &s.id) < (*at, id))
                && p.state.is_none_or(|st| s.state == st)
                && p.agent.as_ref().is_none_or(|a| *a == s.agent)
                && p.started_by
                    .as_ref()
                    .is_none_or(|w| s.started_by.as_ref() == Some(w))
                && (waiting != Waiting::ForRunner || !s.state.is_ended())
        });
        sessions.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(b.id.cmp(&a.id)));
        for s in sessions {
            if found.len() > limit {
                break;
            }
            if keeps(ctx, q, &s)? {
                found.push(s);
            }
        }
    } else {
        let reads_more = q.runner_id.is_some() || q.words.is_some();
        let mut page = q.page.clone();
        page.limit = if reads_more {
            BATCH
        } else {
            q.page.limit.saturating_add(1)
        };
        let mut read = 0;
        loop {
            let batch = ctx.tx.sessions_page(&page)?;
            let last: Option<(Millis, String)> = batch.last().map(|s| (s.created_at, s.id.clone()));
            let ended = batch.len() < page.limit as usize;
            for s in batch {
                if found.len() > limit {
                    break;
                }
                read += 1;
                let at = (s.created_at, s.id.clone());
                if keeps(ctx, q, &s)? {
                    found.push(s);
                }
                cursor_at = Some(at);
            }
            if ended || found.len() > limit {
                cursor_at = None;
                break;
            }
            if read >= MOST_READ {
                // Read enough for one answer: the next page goes on from here.
                break;
            }
            page.after = last;
        }
    }
    if found.len() > limit {
        found.truncate(limit);
        let last = found.last().expect("a full page");
        let next = format!("{}.{}", last.created_at, last.id);
        return Ok((found, Some(next)));
    }
    Ok((found, cursor_at.map(|(at, id)| format!("{at}.{id}"))))
}

/// Whether session `s` passes the filters that read more than the session (its environment's
/// runner, its first message).
fn keeps(ctx: &mut Ctx, q: &Search, s: &Session) -> Result<bool> {
    if let Some(runner_id) = &q.runner_id {
        let holder = ctx.session_environment(s)?.and_then(|e| e.runner_id);
        if holder.as_ref() != Some(runner_id) {
            return Ok(false);
        }
    }
    if let Some(words) = &q.words {
        let words = words.to_lowercase();
        if !s.id.contains(&words) && !first_message(ctx, &s.id)?.to_lowercase().contains(&words) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The message that opened session `id` (empty when pruned).
pub fn first_message(ctx: &mut Ctx, id: &str) -> Result<String> {
    Ok(ctx
        .tx
        .transcript(id, 0, 1)?
        .into_iter()
        .find(|e| e.kind == "user_message")
        .and_then(|e| e.content["text"].as_str().map(str::to_string))
        .unwrap_or_default())
}
