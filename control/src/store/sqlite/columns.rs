//! Writing a session or a run back with only the columns that changed.
//!
//! SQLite rewrites an index whenever its column is assigned, changed or not, and a run has seven
//! of them: an upsert that assigned every column dirtied about eight pages to stop one idle run.
//! A transaction reads a record before it writes it back, so the columns it read are kept
//! ([`Seen`]) and the write assigns only those that differ; a record not read in this
//! transaction is written with the upsert.

use std::collections::HashMap;
use std::fmt::Write;

use rusqlite::types::Value;
use rusqlite::{Connection, params_from_iter};

use crate::store::StoreResult;

/// A table kept as JSON in `data`, with the columns queries filter on beside it.
pub struct Table {
    pub name: &'static str,
    key: &'static str,
    pub columns: &'static [&'static str],
    /// Assigns every column: the key is `?1`, `data` `?2`, the columns `?3…` in order.
    upsert: &'static str,
}

pub const SESSIONS: Table = Table {
    name: "sessions",
    key: "id",
    columns: &[
        "agent",
        "state",
        "created_at",
        "last_activity",
        "open_turns",
        "run_serving",
        "expires_at",
        "ended_at",
        "pruned_at",
        "started_by",
    ],
    upsert: "INSERT INTO sessions (id, data, agent, state, created_at, last_activity, open_turns,
               run_serving, expires_at, ended_at, pruned_at, started_by)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
             ON CONFLICT (id) DO UPDATE SET data = excluded.data, agent = excluded.agent,
               state = excluded.state, created_at = excluded.created_at,
               last_activity = excluded.last_activity, open_turns = excluded.open_turns,
               run_serving = excluded.run_serving, expires_at = excluded.expires_at,
               ended_at = excluded.ended_at, pruned_at = excluded.pruned_at,
               started_by = excluded.started_by",
};

pub const RUNS: Table = Table {
    name: "runs",
    key: "id",
    columns: &[
        "session_id",
        "kind",
        "status",
        "created_at",
        "accepted_at",
        "first_contact_at",
        "last_contact_at",
        "stop_issued_at",
        "runner_id",
        "instance",
        "reserved_for",
        "reserved_until",
    ],
    upsert: "INSERT INTO runs (id, data, session_id, kind, status, created_at, accepted_at,
               first_contact_at, last_contact_at, stop_issued_at, runner_id, instance,
               reserved_for, reserved_until)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
             ON CONFLICT (id) DO UPDATE SET data = excluded.data,
               session_id = excluded.session_id, kind = excluded.kind, status = excluded.status,
               created_at = excluded.created_at, accepted_at = excluded.accepted_at,
               first_contact_at = excluded.first_contact_at,
               last_contact_at = excluded.last_contact_at,
               stop_issued_at = excluded.stop_issued_at, runner_id = excluded.runner_id,
               instance = excluded.instance, reserved_for = excluded.reserved_for,
               reserved_until = excluded.reserved_until",
};

/// The columns of the records this transaction read or wrote, as they are in the database now.
#[derive(Default)]
pub struct Seen(HashMap<(&'static str, String), Vec<Value>>);

impl Seen {
    /// `values` (in the order of `table`'s columns) are what the row of `key` holds.
    pub fn saw(&mut self, table: &Table, key: &str, values: Vec<Value>) {
        self.0.insert((table.name, key.to_string()), values);
    }

    /// The row of `key` was written some other way: what it holds is no longer known here.
    pub fn forget(&mut self, table: &Table, key: &str) {
        self.0.remove(&(table.name, key.to_string()));
    }

    /// Writes the row of `key`: `data` and the column `values`, in `table`'s order.
    pub fn put(
        &mut self,
        conn: &Connection,
        table: &Table,
        key: &str,
        data: String,
        values: Vec<Value>,
    ) -> StoreResult<()> {
        debug_assert_eq!(values.len(), table.columns.len());
        let id = (table.name, key.to_string());
        if let Some(old) = self.0.get(&id) {
            let changed: Vec<usize> = (0..values.len()).filter(|&i| old[i] != values[i]).collect();
            let mut sql = format!("UPDATE {} SET data = ?2", table.name);
            for (n, &i) in changed.iter().enumerate() {
                let _ = write!(sql, ", {} = ?{}", table.columns[i], n + 3);
            }
            let _ = write!(sql, " WHERE {} = ?1", table.key);
            let params = [Value::Text(key.to_string()), Value::Text(data.clone())]
                .into_iter()
                .chain(changed.iter().map(|&i| values[i].clone()));
            // No row: it was deleted in this transaction; the upsert writes it whole.
            if conn
                .prepare_cached(&sql)?
                .execute(params_from_iter(params))?
                == 1
            {
                self.0.insert(id, values);
                return Ok(());
            }
        }
        let params = [Value::Text(key.to_string()), Value::Text(data)]
            .into_iter()
            .chain(values.iter().cloned());
        conn.prepare_cached(table.upsert)?
            .execute(params_from_iter(params))?;
        self.0.insert(id, values);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each upsert names the key, `data` and the columns in the table's order.
    #[test]
    fn upserts_list_the_columns_in_order() {
        for t in [&SESSIONS, &RUNS] {
            let listed: String = t
                .upsert
                .split_once('(')
                .unwrap()
                .1
                .split_once(')')
                .unwrap()
                .0
                .split_whitespace()
                .collect();
            let expected = format!("{},data,{}", t.key, t.columns.join(","));
            assert_eq!(listed, expected, "{}", t.name);
        }
    }
}
