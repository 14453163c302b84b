//! Transcript reports: entries numbered by the run from 1, appended in order, idempotent.

use super::Ctx;
use super::offers::own_run;
use crate::error::{Error, Result};
use crate::model::*;
pub use blaise_protocol::{TranscriptAnswer, TranscriptRecord};

/// Appends the entries. A repeated entry (same seq, same content) is ignored; a gap, a reorder or
/// a repeated seq with other content refuses the whole batch.
pub fn report(
    ctx: &mut Ctx,
    runner: &Runner,
    run_id: &str,
    entries: &[TranscriptRecord],
) -> Result<TranscriptAnswer> {
    let run = own_run(ctx, runner, run_id)?;
    if entries.is_empty() {
        return Err(Error::BadRequest("`entries` is empty".into()));
    }
    let mut last = ctx.tx.run_last_seq(run_id)?;
    let mut fresh = Vec::new();
    let mut duplicates = 0;
    for (i, entry) in entries.iter().enumerate() {
        crate::names::check_token(&format!("entries[{i}].kind"), entry.kind.as_str())?;
        let seq = i64::try_from(entry.seq).map_err(|_| {
            Error::BadRequest(format!("`entries[{i}].seq` is too large: {}", entry.seq))
        })?;
        if seq <= last {
            let known = match fresh
                .iter()
                .find(|e: &&&TranscriptRecord| e.seq == entry.seq)
            {
                Some(e) => Some((e.kind.to_string(), e.content.clone())),
                None => ctx
                    .tx
                    .run_transcript_entry(run_id, seq)?
                    .map(|e| (e.kind, e.content)),
            };
            match known {
                Some((kind, content)) if entry.kind == *kind && content == entry.content => {
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
        } else if seq == last + 1 {
            last = seq;
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
            seq: Some(entry.seq as i64),
            kind: entry.kind.to_string(),
            content: entry.content.clone(),
            at: ctx.now,
        })
        .collect();
    ctx.tx.append_transcript_all(&mut records)?;
    if !fresh.is_empty() {
        let mut session = ctx.session(&run.session_id)?;
        session.last_activity = session.last_activity.max(ctx.now);
        if session.open_turns > 0 && session.current_run_id.as_deref() == Some(run_id) {
            session.last_output_at = Some(ctx.now);
        }
        ctx.tx.put_session(&session)?;
    }
    Ok(TranscriptAnswer {
        appended: fresh.len() as u64,
        duplicates,
        last_seq: last as u64,
    })
}
