//! Everything a run tells Blaise, in order, until Blaise has it: transcript
//! batches, lifecycle reports and the ACP session id go through one queue.
//!
//! An item Blaise did not *answer* (no response, a 5xx, a 408/429: a restart
//! or an outage) is sent again, unchanged — the same report id, the same
//! transcript seqs, so a repeat is harmless — with a growing delay, for as
//! long as the run has not lost contact (90 failed heartbeats). An item
//! Blaise *refused* (any other 4xx) stops the queue: the run must fail.
//! Nothing behind an unacknowledged item goes first, so the transcript never
//! has a gap and reports never contradict each other.
//!
//! The queue holds up to 8 MiB in memory ([`Limits`]); beyond that items
//! are appended to a file in the run's directory and read back in order.
//! Transcript beyond 512 MiB on disk is not taken: the run is told
//! (`OutboxError::Full`) and stops cleanly, its final report still queued
//! behind everything else. Nothing is dropped.

use std::collections::{HashMap, VecDeque};
use std::io::{BufRead as _, Seek as _, Write as _};
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, oneshot, watch};

use crate::protocol::contact::{MAX_BACKOFF, changed, retryable, until_answered};
use crate::protocol::{Client, ProtocolError, Report, ReportAnswer, TranscriptRecord};

/// How much the queue holds where.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Bytes of unacknowledged items kept in memory before the rest is spilled.
    pub memory: usize,
    /// Bytes of spilled transcript after which the run stops taking more.
    pub disk: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            memory: 8 << 20,
            disk: 512 << 20,
        }
    }
}
/// Most text a transcript request carries when a backlog is sent.
const BATCH_BYTES: usize = 512 << 10;

/// One thing to tell Blaise.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Item {
    Transcript(Vec<TranscriptRecord>),
    Report(Report),
    AcpSession(String),
}

impl Item {
    fn size(&self) -> usize {
        match self {
            Item::Transcript(records) => records
                .iter()
                .map(|r| 64 + r.content.to_string().len())
                .sum(),
            Item::Report(_) | Item::AcpSession(_) => 256,
        }
    }
}

/// Why an item will never be acknowledged.
#[derive(Debug, Clone, thiserror::Error)]
pub enum OutboxError {
    /// Blaise refused it (a 4xx): it changed nothing, and the run must fail.
    #[error("refused: {0}")]
    Refused(ProtocolError),
    /// Contact with Blaise was lost before it answered: whether it took
    /// effect is unknown, so nothing that contradicts it may follow.
    #[error("{}", super::heartbeat::LOST_CONTACT)]
    LostContact,
    /// The backlog is full (Blaise has not acknowledged `Limits::disk` bytes).
    #[error(
        "Blaise has not acknowledged the run's transcript backlog (its limit on disk is full): the run stops"
    )]
    Full,
}

/// What an acknowledged item brought back.
#[derive(Debug, Clone)]
pub enum Ack {
    Report(ReportAnswer),
    Done,
}

type Waiter = oneshot::Sender<Result<Ack, OutboxError>>;

enum Event {
    Answered(Result<Ack, ProtocolError>),
    Got(Option<(Item, Option<Waiter>)>),
    Slept,
}

async fn call(client: Client, run_id: String, item: Item) -> Result<Ack, ProtocolError> {
    match item {
        Item::Transcript(records) => client.transcript(&run_id, records).await.map(|_| Ack::Done),
        Item::Report(report) => client.report(&run_id, &report).await.map(Ack::Report),
        Item::AcpSession(id) => client.acp_session(&run_id, &id).await.map(|()| Ack::Done),
    }
}

struct Queued {
    id: u64,
    item: Item,
}

#[derive(Debug, Serialize, Deserialize)]
struct Spilled {
    id: u64,
    item: Item,
}

/// The sending side, cheap to clone.
#[derive(Clone)]
pub struct Outbox {
    tx: mpsc::UnboundedSender<(Item, Option<Waiter>)>,
    failed: watch::Receiver<Option<OutboxError>>,
    /// For a report sent on its own ([`Outbox::send_alone`]).
    client: Client,
    run_id: String,
    lost: watch::Receiver<bool>,
}

impl Outbox {
    /// Starts the queue's task for `run`; `lost` turns true when the run has
    /// lost contact; spilled items go to `dir`.
    pub fn start(
        client: Client,
        run_id: &str,
        lost: watch::Receiver<bool>,
        dir: PathBuf,
    ) -> Outbox {
        Self::start_with(client, run_id, lost, dir, Limits::default())
    }

    /// [`Outbox::start`] with other limits.
    pub fn start_with(
        client: Client,
        run_id: &str,
        lost: watch::Receiver<bool>,
        dir: PathBuf,
        limits: Limits,
    ) -> Outbox {
        let (tx, rx) = mpsc::unbounded_channel();
        let (failed_tx, failed) = watch::channel(None);
        let task = Task::new(
            client.clone(),
            run_id,
            lost.clone(),
            failed_tx,
            rx,
            dir,
            limits,
        );
        tokio::spawn(task.run());
        Outbox {
            tx,
            failed,
            client,
            run_id: run_id.to_string(),
            lost,
        }
    }

    /// Sends `report` on its own, not behind the queue: for a report once the queue has
    /// stopped (Blaise refused an item before it, or the backlog was full). What the queue held
    /// is not coming, and the run is failing: its last report must still reach Blaise, which
    /// would otherwise take the run for dead and start it again. Made again while Blaise does
    /// not answer, as the queue would; a report repeated is harmless (its id).
    pub async fn send_alone(&self, report: &Report) -> Result<ReportAnswer, OutboxError> {
        let what = "sending the run's report";
        until_answered(&self.lost, what, || {
            self.client.report(&self.run_id, report)
        })
        .await
        .map_err(|e| {
            if retryable(&e) {
                OutboxError::LostContact
            } else {
                OutboxError::Refused(e)
            }
        })
    }

    /// Queues `item` and returns at once; a refusal shows in [`Outbox::failed`].
    pub fn post(&self, item: Item) {
        let _ = self.tx.send((item, None));
    }

    /// Queues `item` and waits until Blaise has it (everything before it too).
    pub async fn send(&self, item: Item) -> Result<Ack, OutboxError> {
        let (done, answer) = oneshot::channel();
        if self.tx.send((item, Some(done))).is_err() {
            return Err(self.error().unwrap_or(OutboxError::LostContact));
        }
        answer
            .await
            .unwrap_or_else(|_| Err(self.error().unwrap_or(OutboxError::LostContact)))
    }

    /// Resolves when the queue has stopped for good (a refusal, a full backlog).
    pub async fn failed(&self) -> OutboxError {
        let mut failed = self.failed.clone();
        match failed.wait_for(Option::is_some).await {
            Ok(error) => error.clone().expect("waited for some"),
            Err(_) => std::future::pending().await,
        }
    }

    fn error(&self) -> Option<OutboxError> {
        self.failed.borrow().clone()
    }
}

struct Task {
    client: Client,
    run_id: String,
    lost: watch::Receiver<bool>,
    failed: watch::Sender<Option<OutboxError>>,
    rx: mpsc::UnboundedReceiver<(Item, Option<Waiter>)>,
    memory: VecDeque<Queued>,
    memory_bytes: usize,
    spill: Spill,
    /// Items that came after the spill while the disk refused them: kept
    /// here, behind the spill, so that nothing overtakes what was spilled.
    after_spill: VecDeque<Queued>,
    waiters: HashMap<u64, Waiter>,
    next_id: u64,
    /// Every `Outbox` is gone: nothing more will come.
    closed: bool,
    limits: Limits,
    /// Its depth, told to the runner's metrics.
    depth: crate::metrics::sink::OutboxGauge,
}

impl Task {
    fn new(
        client: Client,
        run_id: &str,
        lost: watch::Receiver<bool>,
        failed: watch::Sender<Option<OutboxError>>,
        rx: mpsc::UnboundedReceiver<(Item, Option<Waiter>)>,
        dir: PathBuf,
        limits: Limits,
    ) -> Task {
        Task {
            client,
            run_id: run_id.to_owned(),
            lost,
            failed,
            rx,
            memory: VecDeque::new(),
            memory_bytes: 0,
            spill: Spill::new(dir),
            after_spill: VecDeque::new(),
            waiters: HashMap::new(),
            next_id: 0,
            closed: false,
            limits,
            depth: Default::default(),
        }
    }

    async fn run(mut self) {
        loop {
            self.take_waiting();
            self.depth.set(
                self.memory.len() + self.after_spill.len(),
                self.memory_bytes,
                self.spill.bytes(),
            );
            let Some(front) = self.next() else {
                if self.closed {
                    return;
                }
                let got = self.rx.recv().await;
                self.got(got);
                continue;
            };
            match self.deliver(&front).await {
                Ok(ack) => {
                    if let Some(waiter) = self.waiters.remove(&front.id) {
                        let _ = waiter.send(Ok(ack));
                    }
                }
                Err(error) => {
                    self.stop(error, front);
                    return;
                }
            }
        }
    }

    /// Moves what was sent meanwhile into the queue (never blocks).
    fn take_waiting(&mut self) {
        loop {
            match self.rx.try_recv() {
                Ok((item, waiter)) => self.push(item, waiter),
                Err(mpsc::error::TryRecvError::Empty) => return,
                Err(mpsc::error::TryRecvError::Disconnected) => {
                    self.closed = true;
                    return;
                }
            }
        }
    }

    fn push(&mut self, item: Item, waiter: Option<Waiter>) {
        let id = self.next_id;
        self.next_id += 1;
        if let Some(waiter) = waiter {
            self.waiters.insert(id, waiter);
        }
        let size = item.size();
        let transcript = matches!(item, Item::Transcript(_));
        if !self.after_spill.is_empty() {
            // The disk refused an earlier item: this one waits behind it.
            self.memory_bytes += size;
            self.after_spill.push_back(Queued { id, item });
            return;
        }
        if self.spill.is_empty() && self.memory_bytes + size <= self.limits.memory {
            self.memory_bytes += size;
            self.memory.push_back(Queued { id, item });
            return;
        }
        if transcript && self.spill.bytes() >= self.limits.disk {
            tracing::error!(run = %self.run_id, "{}", OutboxError::Full);
            let _ = self.failed.send(Some(OutboxError::Full));
            if let Some(waiter) = self.waiters.remove(&id) {
                let _ = waiter.send(Err(OutboxError::Full));
            }
            return;
        }
        if let Err(e) = self.spill.append(&Spilled { id, item }) {
            // The disk refuses: keep it in memory rather than lose it, in its
            // place — behind what is already spilled, if anything is.
            tracing::warn!(run = %self.run_id, "spilling the outbox to disk: {e:#}");
            let Spilled { id, item } = *e.item;
            self.memory_bytes += size;
            if self.spill.is_empty() {
                self.memory.push_back(Queued { id, item });
            } else {
                self.after_spill.push_back(Queued { id, item });
            }
        }
    }

    /// The next item to send, with the transcript batches right behind it
    /// merged into it (a backlog goes in few requests).
    fn next(&mut self) -> Option<Queued> {
        if self.memory.is_empty() {
            for Spilled { id, item } in self.spill.read_some(self.limits.memory / 2) {
                self.memory_bytes += item.size();
                self.memory.push_back(Queued { id, item });
            }
            if self.spill.is_empty() {
                // Their turn: everything before them has been read back.
                self.memory.append(&mut self.after_spill);
            }
        }
        let mut front = self.memory.pop_front()?;
        self.memory_bytes -= front.item.size();
        if let Item::Transcript(records) = &mut front.item {
            let mut bytes: usize = records.iter().map(|r| r.content.to_string().len()).sum();
            while let Some(Queued {
                id,
                item: Item::Transcript(more),
            }) = self.memory.front()
            {
                let more_bytes: usize = more.iter().map(|r| r.content.to_string().len()).sum();
                // A waiter's item keeps its own identity.
                if bytes + more_bytes > BATCH_BYTES || self.waiters.contains_key(id) {
                    break;
                }
                bytes += more_bytes;
                let next = self.memory.pop_front().expect("looked at");
                self.memory_bytes -= next.item.size();
                if let Item::Transcript(more) = next.item {
                    records.extend(more);
                }
            }
        }
        Some(front)
    }

    /// Sends one item until Blaise answers it, contact is lost, or it is refused.
    async fn deliver(&mut self, queued: &Queued) -> Result<Ack, OutboxError> {
        let mut delay = Duration::from_millis(100);
        loop {
            if *self.lost.borrow() {
                return Err(OutboxError::LostContact);
            }
            let call = call(
                self.client.clone(),
                self.run_id.clone(),
                queued.item.clone(),
            );
            tokio::pin!(call);
            let sent = loop {
                // Keep taking items while a request is under way.
                let event = tokio::select! {
                    result = &mut call => Event::Answered(result),
                    got = self.rx.recv(), if !self.closed => Event::Got(got),
                };
                match event {
                    Event::Answered(result) => break result,
                    Event::Got(got) => self.got(got),
                    Event::Slept => {}
                }
            };
            match sent {
                Ok(ack) => return Ok(ack),
                Err(e) if !retryable(&e) => return Err(OutboxError::Refused(e)),
                Err(e) => {
                    tracing::warn!(run = %self.run_id, "no answer from Blaise ({e}); sending it again in {delay:?}");
                    let sleep = tokio::time::sleep(delay);
                    tokio::pin!(sleep);
                    loop {
                        let event = tokio::select! {
                            _ = &mut sleep => Event::Slept,
                            _ = changed(&mut self.lost) => Event::Slept,
                            got = self.rx.recv(), if !self.closed => Event::Got(got),
                        };
                        match event {
                            Event::Got(got) => self.got(got),
                            _ => break,
                        }
                    }
                    delay = (delay * 2).min(MAX_BACKOFF);
                }
            }
        }
    }

    /// What the channel gave: an item to queue, or its end.
    fn got(&mut self, got: Option<(Item, Option<Waiter>)>) {
        match got {
            Some((item, waiter)) => self.push(item, waiter),
            None => self.closed = true,
        }
    }

    /// The queue stops: everyone waiting, now or later, gets `error`.
    fn stop(mut self, error: OutboxError, front: Queued) {
        match &error {
            OutboxError::Refused(e) => {
                tracing::error!(run = %self.run_id, "Blaise refused what the run sent: {e}")
            }
            other => tracing::error!(run = %self.run_id, "{other}"),
        }
        let _ = self.failed.send(Some(error.clone()));
        if let Some(waiter) = self.waiters.remove(&front.id) {
            let _ = waiter.send(Err(error.clone()));
        }
        for (_, waiter) in self.waiters.drain() {
            let _ = waiter.send(Err(error.clone()));
        }
        self.rx.close();
        while let Ok((_, Some(waiter))) = self.rx.try_recv() {
            let _ = waiter.send(Err(error.clone()));
        }
        self.spill.remove();
    }
}

/// The part of the queue on disk: an append-only file of JSON lines, read
/// from the front; removed when it has been read to its end.
struct Spill {
    path: PathBuf,
    writer: Option<std::fs::File>,
    read_at: u64,
    written: u64,
    pending: usize,
}

/// A write to the spill file that failed, with the item it did not take.
#[derive(Debug, thiserror::Error)]
#[error("{error:#}")]
struct SpillError {
    error: anyhow::Error,
    item: Box<Spilled>,
}

impl Spill {
    fn new(dir: PathBuf) -> Spill {
        Spill {
            path: dir.join("outbox.jsonl"),
            writer: None,
            read_at: 0,
            written: 0,
            pending: 0,
        }
    }

    fn is_empty(&self) -> bool {
        self.pending == 0
    }

    fn bytes(&self) -> u64 {
        self.written - self.read_at
    }

    fn append(&mut self, item: &Spilled) -> Result<(), SpillError> {
        let mut line = match serde_json::to_vec(item) {
            Ok(line) => line,
            Err(e) => return Err(self.error(e.into(), item)),
        };
        line.push(b'\n');
        if self.writer.is_none() {
            // What the run has not yet told Blaise (the transcript before the
            // plugs' masking is the runner's to keep) is the runner's user's
            // alone: the directory 0700, the file 0600.
            use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _};
            if let Some(dir) = self.path.parent()
                && let Err(e) = std::fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(dir)
            {
                return Err(self.error(e.into(), item));
            }
            match std::fs::OpenOptions::new()
                .create(true)
                .truncate(true)
                .write(true)
                .mode(0o600)
                .open(&self.path)
            {
                Ok(file) => self.writer = Some(file),
                Err(e) => return Err(self.error(e.into(), item)),
            }
        }
        let writer = self.writer.as_mut().expect("opened above");
        if let Err(e) = writer.write_all(&line) {
            // A line half written (the disk filled up) is cut off again, so
            // that the next one does not read back glued to it.
            use std::io::Seek as _;
            let _ = writer.set_len(self.written);
            let _ = writer.seek(std::io::SeekFrom::Start(self.written));
            return Err(self.error(e.into(), item));
        }
        self.written += line.len() as u64;
        self.pending += 1;
        Ok(())
    }

    fn error(&self, error: anyhow::Error, item: &Spilled) -> SpillError {
        SpillError {
            error,
            item: Box::new(Spilled {
                id: item.id,
                item: item.item.clone(),
            }),
        }
    }

    /// Up to about `bytes` of items from the front of the file.
    fn read_some(&mut self, bytes: usize) -> Vec<Spilled> {
        let mut out = Vec::new();
        if self.pending == 0 {
            return out;
        }
        let Ok(mut file) = std::fs::File::open(&self.path) else {
            return out;
        };
        if file.seek(std::io::SeekFrom::Start(self.read_at)).is_err() {
            return out;
        }
        let mut reader = std::io::BufReader::new(file);
        let mut taken = 0;
        let mut line = String::new();
        while taken < bytes && self.pending > 0 {
            line.clear();
            match reader.read_line(&mut line) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    self.read_at += n as u64;
                    taken += n;
                    self.pending -= 1;
                    match serde_json::from_str::<Spilled>(&line) {
                        Ok(item) => out.push(item),
                        Err(e) => tracing::error!("a spilled outbox line does not read back: {e}"),
                    }
                }
            }
        }
        if self.pending == 0 {
            self.remove();
        }
        out
    }

    fn remove(&mut self) {
        self.writer = None;
        self.read_at = 0;
        self.written = 0;
        self.pending = 0;
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(dir: PathBuf) -> Task {
        let (_tx, rx) = mpsc::unbounded_channel();
        let (failed, _) = watch::channel(None);
        let (_, lost) = watch::channel(false);
        // The client is never called: these tests only queue and dequeue.
        let client = Client::new("http://127.0.0.1:9", "token").unwrap();
        // Room for one item in memory: the rest spills.
        let limits = Limits {
            memory: 300,
            disk: 1 << 20,
        };
        Task::new(client, "run_1", lost, failed, rx, dir, limits)
    }

    fn ids(task: &mut Task) -> Vec<String> {
        std::iter::from_fn(|| task.next())
            .map(|q| match q.item {
                Item::AcpSession(id) => id,
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[tokio::test]
    async fn when_the_disk_refuses_nothing_overtakes_what_was_spilled() {
        let dir = tempfile::tempdir().unwrap();
        let mut task = task(dir.path().join("run"));
        for i in 0..3 {
            task.push(Item::AcpSession(format!("item-{i}")), None);
        }
        assert!(!task.spill.is_empty(), "items 1 and 2 spilled");
        let mode = std::fs::metadata(&task.spill.path).unwrap().permissions();
        assert_eq!(
            std::os::unix::fs::PermissionsExt::mode(&mode) & 0o777,
            0o600,
            "the spill is the runner's user's alone"
        );
        // The disk refuses from now on (a real write error: the handle is
        // read-only; a full disk cannot be made here).
        task.spill.writer = Some(std::fs::File::open("/dev/null").unwrap());
        for i in 3..5 {
            task.push(Item::AcpSession(format!("item-{i}")), None);
        }
        assert_eq!(
            ids(&mut task),
            ["item-0", "item-1", "item-2", "item-3", "item-4"],
            "in the order they were posted"
        );
    }
}
