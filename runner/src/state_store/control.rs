//! Plug state kept by Blaise, so that any instance of the runner can resume or
//! tear down the session: read once per run, written through on every commit.
//! Values are base64 in Blaise's string map (the runner's choice; opaque to Blaise).

use std::collections::{BTreeMap, HashMap};

use async_trait::async_trait;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use tokio::sync::{Mutex, watch};

use super::{PlugState, StateChanges, StateError, StateStore, apply};
use crate::protocol::Client;
use crate::protocol::until_answered;

/// The plug state of one run's session, through the runner protocol.
pub struct ControlStateStore {
    client: Client,
    run_id: String,
    session_id: String,
    /// Turns true when the run has lost contact: calls Blaise does not answer
    /// are made again until then.
    lost: watch::Receiver<bool>,
    /// Every record of the session, fetched on first use.
    records: Mutex<Option<HashMap<String, PlugState>>>,
}

impl ControlStateStore {
    pub fn new(
        client: Client,
        run_id: &str,
        session_id: &str,
        lost: watch::Receiver<bool>,
    ) -> ControlStateStore {
        ControlStateStore {
            client,
            run_id: run_id.into(),
            session_id: session_id.into(),
            lost,
            records: Mutex::new(None),
        }
    }

    /// Fetches the records now, ahead of the first `load`. A failure is left
    /// for that `load` to meet (it fetches again).
    pub async fn prefetch(&self) {
        let _ = self.records().await;
    }

    async fn records(
        &self,
    ) -> Result<tokio::sync::MutexGuard<'_, Option<HashMap<String, PlugState>>>, StateError> {
        let mut records = self.records.lock().await;
        if records.is_none() {
            let fetched = until_answered(&self.lost, "reading plug state", || {
                self.client.plug_state(&self.run_id)
            })
            .await
            .map_err(unavailable)?;
            let mut map = HashMap::new();
            for record in fetched.records {
                map.insert(
                    record.plug_id.clone(),
                    decode(&record.plug_id, &record.entries)?,
                );
            }
            *records = Some(map);
        }
        Ok(records)
    }

    fn check_session(&self, session: &str) -> Result<(), StateError> {
        if session != self.session_id {
            return Err(StateError::WrongSession(format!(
                "plug state of session {session} asked through a run of session {}",
                self.session_id
            )));
        }
        Ok(())
    }
}

#[async_trait]
impl StateStore for ControlStateStore {
    async fn load(&self, session: &str, plug: &str) -> Result<PlugState, StateError> {
        self.check_session(session)?;
        let records = self.records().await?;
        Ok(records
            .as_ref()
            .and_then(|r| r.get(plug))
            .cloned()
            .unwrap_or_default())
    }

    async fn commit(
        &self,
        session: &str,
        plug: &str,
        changes: &StateChanges,
    ) -> Result<(), StateError> {
        self.check_session(session)?;
        let mut records = self.records().await?;
        let records = records.as_mut().expect("fetched above");
        let mut state = records.get(plug).cloned().unwrap_or_default();
        apply(&mut state, changes);
        if state.is_empty() {
            until_answered(&self.lost, "removing plug state", || {
                self.client.delete_plug_state(&self.run_id, plug)
            })
            .await
            .map_err(unavailable)?;
            records.remove(plug);
        } else {
            let entries = state
                .iter()
                .map(|(k, v)| (k.clone(), STANDARD.encode(v)))
                .collect();
            until_answered(&self.lost, "saving plug state", || {
                self.client.put_plug_state(&self.run_id, plug, &entries)
            })
            .await
            .map_err(unavailable)?;
            records.insert(plug.to_string(), state);
        }
        Ok(())
    }
}

fn unavailable(e: crate::protocol::ProtocolError) -> StateError {
    StateError::Unavailable(e.to_string())
}

fn decode(plug: &str, entries: &BTreeMap<String, String>) -> Result<PlugState, StateError> {
    entries
        .iter()
        .map(|(k, v)| {
            STANDARD
                .decode(v)
                .map(|bytes| (k.clone(), bytes))
                .map_err(|e| {
                    StateError::Corrupt(format!(
                        "plug state of `{plug}`, key `{k}`: not base64 ({e})"
                    ))
                })
        })
        .collect()
}
