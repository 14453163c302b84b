//! One instance of the control plane: its store, settings and wake-ups, whether it runs the
//! clock, the message sources it answers for; the transactions and long polls every request,
//! page and source goes through. Nothing here knows HTTP (`crate::http` serves it).

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use crate::config::Config;
use crate::error::Result;
use crate::lifecycle::{Ctx, transact_read};
use crate::model::{Millis, now};
use crate::store::Store;
use crate::wakeups::{Changes, Notifying, ROOM, RecordingTx, Topic, announcement};

mod close;
pub mod pump;
mod receivers;
pub mod webhooks;

/// How a long poll checks: in a transaction that may write (noting what it touches), in one
/// that only reads, or as a runner's offers poll (it may write, and is also woken alone).
#[derive(Clone, Copy)]
enum Check<'a> {
    Writes,
    Reads,
    Offers { runner_id: &'a str },
}

#[derive(Clone)]
pub struct AppState {
    pub store: Arc<dyn Store>,
    pub cfg: Arc<Config>,
    /// Wakes the long polls a transaction concerns.
    changes: Arc<Changes>,
    /// Whether this instance runs the clock (see [`Store::hold_clock`]).
    pub clock_held: Arc<AtomicBool>,
    /// Turns to begin a transaction that writes ([`Store::writers`] at once). A request
    /// waits for its turn here, as a future, and so never blocks a worker thread on the
    /// store's writer: with SQLite's one writer, a worker waiting for the writer the other
    /// worker held stopped every other request on it too (the server used one core of two).
    turns: Arc<tokio::sync::Semaphore>,
    /// Turns to begin a transaction that only reads ([`Store::readers`]; the same turns as
    /// writes when they share connections: on PostgreSQL a read waiting for a pooled
    /// connection held a worker thread too).
    read_turns: Arc<tokio::sync::Semaphore>,
    /// The message sources this instance answers for, besides the web (`crate::sources`).
    pub sources: Arc<crate::sources::Sources>,
    /// The identity provider people sign in to the dashboard with, if one is configured.
    pub oidc: Option<Arc<crate::oidc::Oidc>>,
}

impl AppState {
    /// The state of one instance; with a store other instances share, their changes wake this
    /// one's long polls.
    pub fn new(store: Arc<dyn Store>, mut cfg: Config) -> Self {
        cfg.started_at = now();
        let changes = Arc::new(Changes::default());
        let hears = changes.clone();
        store.listen(Arc::new(move |what| hears.deliver(what)));
        let turns = Arc::new(tokio::sync::Semaphore::new(store.writers()));
        let read_turns = match store.readers() {
            Some(n) => Arc::new(tokio::sync::Semaphore::new(n)),
            None => turns.clone(),
        };
        AppState {
            turns,
            read_turns,
            store,
            cfg: Arc::new(cfg),
            changes,
            clock_held: Arc::default(),
            sources: Arc::default(),
            oidc: None,
        }
    }

    /// This state, signing people in with `oidc` too.
    pub fn with_oidc(mut self, oidc: crate::oidc::Oidc) -> Self {
        self.oidc = Some(Arc::new(oidc));
        self
    }

    /// This state, answering for `sources` too.
    pub fn with_sources(mut self, sources: crate::sources::Sources) -> Self {
        self.sources = Arc::new(sources);
        self
    }

    /// What wakes long polls, the clock and the sources' pump.
    pub fn changes(&self) -> &Arc<Changes> {
        &self.changes
    }

    /// One read-only transaction.
    pub async fn read<T>(&self, f: impl FnMut(&mut Ctx) -> Result<T>) -> Result<T> {
        let _turn = turn(&self.read_turns).await;
        transact_read(&*self.store, &self.cfg, now(), f)
    }

    /// A read of one statement ([`Store::begin_one`]).
    pub async fn read_one<T>(&self, f: impl FnMut(&mut Ctx) -> Result<T>) -> Result<T> {
        let _turn = turn(&self.read_turns).await;
        crate::lifecycle::transact_one(&*self.store, &self.cfg, now(), f)
    }

    /// Runs `f` in one transaction, noting the topics it touches; commits if it succeeds. When
    /// `wakes(&out)`, what it touched is announced to the other instances with the commit.
    async fn recorded<T>(
        &self,
        f: impl FnMut(&mut Ctx) -> Result<T>,
        wakes: impl Fn(&T) -> bool,
    ) -> Result<(T, Vec<Topic>)> {
        let _turn = turn(&self.turns).await;
        self.record_now(f, wakes)
    }

    fn record_now<T>(
        &self,
        mut f: impl FnMut(&mut Ctx) -> Result<T>,
        wakes: impl Fn(&T) -> bool,
    ) -> Result<(T, Vec<Topic>)> {
        crate::lifecycle::retrying(|| {
            let mut recording = RecordingTx::new(self.store.begin()?);
            let out = f(&mut Ctx {
                tx: &mut recording,
                cfg: &self.cfg,
                now: now(),
            })?;
            let RecordingTx {
                mut inner,
                touched,
                events,
                started,
                ..
            } = recording;
            if !touched.is_empty() && wakes(&out) {
                inner.announce(&announcement(&touched))?;
            }
            inner.commit()?;
            crate::metrics::committed(started.elapsed(), &events);
            Ok((out, touched))
        })
    }

    /// One transaction that may change state; wakes the long polls waiting on what it touched,
    /// here and in the other instances.
    pub async fn write<T>(&self, f: impl FnMut(&mut Ctx) -> Result<T>) -> Result<T> {
        let (out, touched) = self.recorded(f, |_| true).await?;
        self.changes.notify(&touched);
        Ok(out)
    }

    /// [`AppState::write`] outside a request (the embedded default's setup): waits for the
    /// writer on this thread.
    pub fn write_blocking<T>(&self, f: impl FnMut(&mut Ctx) -> Result<T>) -> Result<T> {
        let (out, touched) = self.record_now(f, |_| true)?;
        self.changes.notify(&touched);
        Ok(out)
    }

    /// Runs `f` until it returns something or `wait_ms` passes, waking when `topic` changes.
    pub async fn long_poll<T>(
        &self,
        topic: Topic,
        wait_ms: Option<Millis>,
        f: impl FnMut(&mut Ctx) -> Result<Option<T>>,
    ) -> Result<Option<T>> {
        self.poll(topic, Check::Writes, wait_ms, f).await
    }

    /// A long poll whose check only reads (a follower's): it runs in a read-only transaction,
    /// which on SQLite does not wait for the writer.
    pub async fn long_poll_read<T>(
        &self,
        topic: Topic,
        wait_ms: Option<Millis>,
        f: impl FnMut(&mut Ctx) -> Result<Option<T>>,
    ) -> Result<Option<T>> {
        self.poll(topic, Check::Reads, wait_ms, f).await
    }

    /// The long poll for offers of runner `runner_id`: it wakes when who may take offers
    /// changes, alone when a run is offered (`Changes::wake_offer`), and when a run of this
    /// runner ends (`Changes::wake_room`: a run may be waiting for its room).
    pub async fn long_poll_offers<T>(
        &self,
        runner_id: &str,
        wait_ms: Option<Millis>,
        f: impl FnMut(&mut Ctx) -> Result<Option<T>>,
    ) -> Result<Option<T>> {
        self.poll(Topic::Offers, Check::Offers { runner_id }, wait_ms, f)
            .await
    }

    async fn poll<T>(
        &self,
        topic: Topic,
        check: Check<'_>,
        wait_ms: Option<Millis>,
        mut f: impl FnMut(&mut Ctx) -> Result<Option<T>>,
    ) -> Result<Option<T>> {
        let wait = wait_ms.unwrap_or(0).clamp(0, self.cfg.long_poll_max_ms);
        let deadline = tokio::time::Instant::now() + Duration::from_millis(wait as u64);
        let mut rx = self.changes.subscribe(&topic);
        let mut woken_for_offer: Option<u32> = None;
        loop {
            rx.borrow_and_update();
            // Queued before the check, so that a run offered during it is not missed.
            let mut next_offer = match check {
                Check::Offers { runner_id } => Some(self.changes.wait_offer(runner_id)),
                Check::Writes | Check::Reads => None,
            };
            // Only an answer wakes others: a check that found nothing changed nothing anyone
            // waits for (else polls on one topic would wake each other forever).
            let (found, touched) = match check {
                Check::Reads => (self.read(&mut f).await?, Vec::new()),
                Check::Writes | Check::Offers { .. } => {
                    self.recorded(&mut f, Option::is_some).await?
                }
            };
            if let Some(v) = found {
                self.changes.notify(&touched);
                // A wake that came during the check may be for a run this poll did not take.
                if let Some(Ok(hops)) = next_offer.as_mut().map(|r| r.try_recv())
                    && hops != ROOM
                {
                    self.changes.wake_offer(hops);
                }
                return Ok(Some(v));
            }
            // A wake for room was for this runner only: nobody else looks.
            if let Some(hops) = woken_for_offer.take()
                && hops != ROOM
            {
                self.changes.pass_offer(hops + 1);
            }
            let offered = async {
                match next_offer {
                    Some(r) => r.await.ok(),
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = rx.changed() => {}
                Some(hops) = offered => woken_for_offer = Some(hops),
                _ = tokio::time::sleep_until(deadline) => return Ok(None),
            }
        }
    }

    /// Starts the clock on this state.
    pub fn spawn_clock(&self) -> tokio::task::JoinHandle<()> {
        let store = Notifying {
            store: self.store.clone(),
            changes: self.changes.clone(),
        };
        crate::clock::spawn(
            Arc::new(store),
            self.cfg.clone(),
            self.clock_held.clone(),
            self.changes.clone(),
        )
    }
}

/// Waits, as a future, for a turn to begin a transaction (see [`AppState`]'s `turns`).
async fn turn(turns: &tokio::sync::Semaphore) -> tokio::sync::SemaphorePermit<'_> {
    turns.acquire().await.expect("the turns are never closed")
}
