//! Plug state kept by Blaise, so that any instance of the runner can resume or
//! tear down the session: read once per run, written through on every commit.
//! Values are base64 in Blaise's string map (the runner's choice; opaque to Blaise).

use std::collections::{BTreeMap, HashMap};

use async_trait::async_trait;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use tokio::sync::{Mutex, watch};

use super::{PlugState, StateChanges, StateError, StateStore, apply};
use crate::protocol::until_answered;
use crate::protocol::{Client, PlugRecord};

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
    /// `known`: the records Blaise sent with the assignment, if it did; the
    /// store then reads none of them over the network.
    pub fn new(
        client: Client,
        run_id: &str,
        session_id: &str,
        known: Option<&[PlugRecord]>,
        lost: watch::Receiver<bool>,
    ) -> ControlStateStore {
        // Records that do not decode are asked for again, and their error
        // met where a fetched one's would be (at the plug's `load`).
        let known = known.and_then(|records| decoded(records).ok());
        ControlStateStore {
            client,
            run_id: run_id.into(),
            session_id: session_id.into(),
            lost,
            records: Mutex::new(known),
        }
    }

    /// Whether the records are here already (nothing to prefetch).
    pub fn has_records(&self) -> bool {
        self.records.try_lock().is_ok_and(|r| r.is_some())
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
            *records = Some(decoded(&fetched.records)?);
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

/// The session's records by plug id.
fn decoded(records: &[PlugRecord]) -> Result<HashMap<String, PlugState>, StateError> {
    records
        .iter()
        .map(|r| Ok((r.plug_id.clone(), decode(&r.plug_id, &r.entries)?)))
        .collect()
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A store whose Blaise cannot be reached (nothing listens on the port)
    /// and whose run has lost contact: any call it makes fails at once.
    fn unreachable_store(known: Option<&[PlugRecord]>) -> ControlStateStore {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let client = Client::new(&format!("http://127.0.0.1:{port}"), "token").unwrap();
        let (_lost, lost) = watch::channel(true);
        ControlStateStore::new(client, "run_1", "ses_1", known, lost)
    }

    fn record(plug: &str, entries: &[(&str, &str)]) -> PlugRecord {
        PlugRecord {
            plug_id: plug.into(),
            entries: entries
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            owned: true,
            updated_at: 0,
        }
    }

    #[tokio::test]
    async fn records_sent_with_the_assignment_are_read_without_asking_blaise() {
        let known = [record("sandbox", &[("id", &STANDARD.encode("sbx-7"))])];
        let store = unreachable_store(Some(&known));
        assert!(store.has_records());
        let state = store.load("ses_1", "sandbox").await.unwrap();
        assert_eq!(state.get("id").map(Vec::as_slice), Some(&b"sbx-7"[..]));
        assert!(store.load("ses_1", "other").await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn without_them_the_store_asks_and_a_record_that_does_not_decode_is_asked_for_again() {
        let store = unreachable_store(None);
        assert!(!store.has_records());
        assert!(matches!(
            store.load("ses_1", "sandbox").await,
            Err(StateError::Unavailable(_))
        ));
        let corrupt = [record("sandbox", &[("id", "not base64!")])];
        let store = unreachable_store(Some(&corrupt));
        assert!(!store.has_records());
    }
}
