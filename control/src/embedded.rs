//! The control plane in another process's runtime (`blaise-runner dev`): a SQLite file, a fresh
//! admin token, the HTTP server and the clock on a task.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use crate::auth::{hash_token, new_token};
use crate::config::Config;
use crate::lifecycle::runners;
use crate::model::{Agent, AgentSettings, now};
use crate::names::check_name;
use crate::state::AppState;
use crate::store::StoreError;
use crate::store::sqlite::SqliteStore;

/// Why the embedded control plane could not start or do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum EmbeddedError {
    #[error("cannot open the database {}: {source}", path.display())]
    Database {
        path: std::path::PathBuf,
        source: StoreError,
    },
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        addr: SocketAddr,
        source: std::io::Error,
    },
    /// What the domain refused (a bad name) or failed at (the store).
    #[error(transparent)]
    Domain(#[from] crate::error::Error),
}

type Result<T, E = EmbeddedError> = std::result::Result<T, E>;

pub struct Embedded {
    /// `http://127.0.0.1:PORT`: the dashboard and both APIs.
    pub url: String,
    /// A new admin token for this start (its hash replaces the stored one).
    pub admin_token: String,
    pub state: AppState,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Embedded {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Embedded {
    /// Opens (creating and migrating) `db`, binds `listen` (port 0 picks one) and serves.
    pub async fn start(db: &Path, listen: SocketAddr, cfg: Config) -> Result<Embedded> {
        Self::start_with(db, listen, cfg, Default::default()).await
    }

    /// [`Embedded::start`], answering for message `sources` too (Linear apps).
    pub async fn start_with(
        db: &Path,
        listen: SocketAddr,
        cfg: Config,
        sources: crate::sources::Sources,
    ) -> Result<Embedded> {
        let store = SqliteStore::open(db).map_err(|source| EmbeddedError::Database {
            path: db.to_path_buf(),
            source,
        })?;
        let admin_token = new_token("bla_");
        let state = AppState::new(Arc::new(store), cfg).with_sources(sources);
        state
            .write(|ctx| crate::lifecycle::logins::set_admin_token(ctx, &hash_token(&admin_token)))
            .await?;
        let listen_error = |source| EmbeddedError::Listen {
            addr: listen,
            source,
        };
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(listen_error)?;
        let url = format!("http://{}", listener.local_addr().map_err(listen_error)?);
        let serving = state.clone();
        let task = tokio::spawn(async move {
            if let Err(e) = crate::http::serve(listener, serving).await {
                tracing::error!("the embedded control plane stopped: {e}");
            }
        });
        Ok(Embedded {
            url,
            admin_token,
            state,
            task,
        })
    }

    /// Creates or replaces an agent's settings (`name` follows [`crate::names::NAME_RULE`]).
    pub fn set_agent(&self, name: &str, settings: AgentSettings) -> Result<()> {
        check_name("name", name)?;
        self.state.write_blocking(|ctx| {
            let disabled = ctx.tx.agent(name)?.is_some_and(|a| a.disabled);
            Ok(ctx.tx.put_agent(&Agent {
                name: name.to_string(),
                settings: settings.clone(),
                disabled,
                updated_at: now(),
            })?)
        })?;
        Ok(())
    }

    /// A token for a runner named `name` (a new runner; a known name gets a new name with a
    /// suffix, since tokens are shown once). `name` follows [`crate::names::NAME_RULE`].
    pub fn runner_token(&self, name: &str) -> Result<String> {
        check_name("name", name)?;
        Ok(self.state.write_blocking(|ctx| {
            let mut candidate = name.to_string();
            let mut n = 1;
            while ctx.tx.runner_by_name(&candidate)?.is_some() {
                n += 1;
                candidate = format!("{name}-{n}");
            }
            Ok(runners::add(
                ctx,
                &crate::model::Actor::server(),
                &candidate,
                runners::Scope::default(),
            )?
            .1)
        })?)
    }
}
