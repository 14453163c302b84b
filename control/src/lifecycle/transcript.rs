//! Transcript reports: entries numbered by the run from 1, appended in order, idempotent.

use serde::Deserialize;

use super::Ctx;
use super::offers::own_run;
use crate::error::{Error, Result};
use crate::model::*;

#[derive(Deserialize, Clone, Debug)]
#[serde(deny_unknown_fields)]
pub struct ReportedEntry {
    pub seq: i64,
    pub kind: String,
    pub content: serde_json::Value,
}

/// How many entries were new and how many repeated ones were ignored.
#[derive(serde::Serialize, Debug, PartialEq)]
pub struct TranscriptAck {
    pub appended: usize,
    pub duplicates: usize,
    pub last_seq: i64,
}

/// Appends the entries. A repeated entry (same seq, same content) is ignored; a gap, a reorder or
/// a repeated seq with other content refuses the whole batch.
pub fn report(
    ctx: &mut Ctx,
    runner: &Runner,
    run_id: &str,
    entries: &[ReportedEntry],
) -> Result<TranscriptAck> {
    let run = own_run(ctx, runner, run_id)?;
    if entries.is_empty() {
        return Err(Error::BadRequest("`entries` is empty".into()));
    }
    let mut last = ctx.tx.run_last_seq(run_id)?;
    let mut fresh = Vec::new();
    let mut duplicates = 0;
    for (i, entry) in entries.iter().enumerate() {
        crate::names::check_token(&format!("entries[{i}].kind"), &entry.kind)?;
        if entry.seq <= last {
            let known = match fresh.iter().find(|e: &&&ReportedEntry| e.seq == entry.seq) {
                Some(e) => Some((e.kind.clone(), e.content.clone())),
                None => ctx
                    .tx
                    .run_transcript_entry(run_id, entry.seq)?
                    .map(|e| (e.kind, e.content)),
            };
            match known {
                Some((kind, content)) if kind == entry.kind && content == entry.content => {
                    duplicates += 1
                }
                _ => {
                    return Err(Error::conflict(
                        "transcript_conflict",
                        format!(
                            "entry {} of run {run_id} was already recorded with other content",
                            entry.seq
                        ),
                    ));
                }
            }
        } else if entry.seq == last + 1 {
            last = entry.seq;
            fresh.push(entry);
        } else {
            return Err(Error::conflict(
                "transcript_gap",
                format!(
                    "run {run_id} sent entry {} but the next expected is {}; nothing was recorded",
                    entry.seq,
                    last + 1
                ),
            ));
        }
    }
    if !fresh.is_empty() && run.status.is_finished() {
        return Err(Error::conflict(
            "run_finished",
            format!(
                "run {run_id} has finished ({}); the entries were not recorded",
                run.status
            ),
        ));
    }
    let mut records: Vec<TranscriptEntry> = fresh
        .iter()
        .map(|entry| TranscriptEntry {
            index: 0,
            session_id: run.session_id.clone(),
            run_id: Some(run_id.to_string()),
            seq: Some(entry.seq),
            kind: entry.kind.clone(),
            content: entry.content.clone(),
            at: ctx.now,
        })
        .collect();
    ctx.tx.append_transcript_all(&mut records)?;
    if !fresh.is_empty() {
        let mut session = ctx.session(&run.session_id)?;
        session.last_activity = session.last_activity.max(ctx.now);
        ctx.tx.put_session(&session)?;
    }
    Ok(TranscriptAck {
        appended: fresh.len(),
        duplicates,
        last_seq: last,
    })
}
