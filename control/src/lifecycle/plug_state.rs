//! Plug state, by session and plug id, as a run reads and writes it. When a session moves to a
//! new environment while its old one still exists (orphaned with its runner, or waiting for its
//! teardown), the state goes with the old environment: a teardown run of that environment reads
//! and writes the environment's copy, and the new environment's plugs start with none. A
//! teardown of the old environment then never sees, nor destroys, what the new one made.

use super::Ctx;
use crate::error::Result;
use crate::model::*;

/// The environment `run` works on, when the session has left it.
fn left(ctx: &mut Ctx, run: &Run, session: &Session) -> Result<Option<Environment>> {
    if session.environment_id.as_deref() == Some(&run.environment_id) {
        return Ok(None);
    }
    ctx.environment(&run.environment_id).map(Some)
}

/// Every plug-state record `run` sees, each saying whether the session's current chain has its
/// plug.
pub fn records(
    ctx: &mut Ctx,
    run: &Run,
    session: &Session,
) -> Result<Vec<blaise_protocol::PlugRecord>> {
    let stored = match left(ctx, run, session)? {
        None => ctx.tx.plug_records(&session.id)?,
        // Left before environments kept their state: none, never the current one's.
        Some(environment) => environment.plug_state.unwrap_or_default(),
    };
    let chain = session.plug_chain.as_deref().unwrap_or_default();
    Ok(stored
        .into_iter()
        .map(|r| blaise_protocol::PlugRecord {
            owned: chain.contains(&r.plug_id),
            plug_id: r.plug_id,
            entries: r.entries,
            updated_at: r.updated_at,
        })
        .collect())
}

/// Replaces plug `plug_id`'s record as `run` sees it (`None`: deletes it).
pub fn put(
    ctx: &mut Ctx,
    run: &Run,
    session: &Session,
    plug_id: &str,
    entries: Option<std::collections::BTreeMap<String, String>>,
) -> Result<()> {
    let record = entries.map(|entries| PlugRecord {
        session_id: session.id.clone(),
        plug_id: plug_id.to_owned(),
        entries,
        updated_at: ctx.now,
    });
    match left(ctx, run, session)? {
        None => match record {
            Some(record) => ctx.tx.put_plug_record(&record)?,
            None => ctx.tx.delete_plug_record(&session.id, plug_id)?,
        },
        Some(mut environment) => {
            let state = environment.plug_state.get_or_insert_default();
            state.retain(|r| r.plug_id != plug_id);
            state.extend(record);
            environment.updated_at = ctx.now;
            ctx.tx.put_environment(&environment)?;
        }
    }
    Ok(())
}

/// The session leaves `environment` for a new one: the state its plugs keep goes with it.
pub fn leave(ctx: &mut Ctx, session: &Session, environment: &mut Environment) -> Result<()> {
    let records = ctx.tx.plug_records(&session.id)?;
    for record in &records {
        ctx.tx.delete_plug_record(&session.id, &record.plug_id)?;
    }
    environment.plug_state = Some(records);
    environment.updated_at = ctx.now;
    ctx.tx.put_environment(environment)?;
    Ok(())
}
