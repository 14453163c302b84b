//! Who must wake up after a transaction: long polls wait on a [`Topic`], and a transaction run
//! through [`RecordingTx`] notes the topics its writes touch, so a change wakes only the polls
//! that care (a transcript report does not wake every run's directive stream).

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use tokio::sync::{oneshot, watch};

use crate::model::*;
use crate::store::{DueLimits, Store, StoreResult, Tx};

/// What a long poll waits for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Topic {
    /// Who may take the offered runs changed (an agent or a runner changed): every offers poll
    /// looks again.
    Offers,
    /// A run was offered: one offers poll looks (see [`Changes::wake_offer`]).
    Offered,
    /// A run only this runner may take was offered, or a run that held room on it ended (a run
    /// may be waiting for that room): the runner's offers polls look again.
    Room(String),
    /// A run's directives or status.
    Run(String),
    /// A session's transcript or state.
    Session(String),
}

#[derive(Default)]
pub struct Changes {
    topics: Mutex<HashMap<Topic, watch::Sender<u64>>>,
    /// Offers polls waiting for a run to be offered, longest waiting first. A new run wakes one
    /// of them, not all: an offer is reserved for the instance it is shown to, so every other
    /// poll would look for nothing (with 100 runners, 99 wasted checks per run).
    offer_waiters: Mutex<VecDeque<OfferWaiter>>,
    /// Told when a session or a run changed, here or in another instance: the change may have
    /// set a limit that falls due before the clock's next tick.
    clock: tokio::sync::Notify,
    /// Told when a session changed: its message sources may have something to tell
    /// (`crate::sources::pump`).
    sources: tokio::sync::Notify,
    /// Told when a session or a run changed: a webhook delivery may have been made
    /// (`crate::state::webhooks`).
    webhooks: tokio::sync::Notify,
}

struct OfferWaiter {
    runner_id: String,
    wake: oneshot::Sender<u32>,
}

/// What a poll woken for its runner alone ([`Topic::Room`]) is told: no other runner looks.
pub const ROOM: u32 = u32::MAX;

/// Past this many waiters, the ones that left are swept out.
const OFFER_WAITERS_SWEEP: usize = 1024;

impl Changes {
    pub fn subscribe(&self, topic: &Topic) -> watch::Receiver<u64> {
        let mut topics = self.topics.lock().unwrap_or_else(|p| p.into_inner());
        if topics.len() > 1024 {
            topics.retain(|_, tx| tx.receiver_count() > 0);
        }
        topics
            .entry(topic.clone())
            .or_insert_with(|| watch::channel(0).0)
            .subscribe()
    }

    /// Queues an offers poll for the next run offered; the receiver gets how many polls the
    /// wake has been passed through before (see [`Changes::pass_offer`]).
    pub fn wait_offer(&self, runner_id: &str) -> oneshot::Receiver<u32> {
        let (wake, rx) = oneshot::channel();
        let mut waiters = self.offer_waiters.lock().unwrap_or_else(|p| p.into_inner());
        if waiters.len() > OFFER_WAITERS_SWEEP {
            waiters.retain(|w| !w.wake.is_closed());
        }
        waiters.push_back(OfferWaiter {
            runner_id: runner_id.to_string(),
            wake,
        });
        rx
    }

    /// Wakes the waiting offers polls of one runner, told [`ROOM`] ([`Topic::Room`]).
    pub fn wake_room(&self, runner_id: &str) {
        let mut waiters = self.offer_waiters.lock().unwrap_or_else(|p| p.into_inner());
        let (theirs, others): (VecDeque<_>, VecDeque<_>) =
            waiters.drain(..).partition(|w| w.runner_id == runner_id);
        *waiters = others;
        for w in theirs {
            let _ = w.wake.send(ROOM);
        }
    }

    /// Wakes the offers poll that has waited longest (skipping those that left).
    pub fn wake_offer(&self, hops: u32) {
        let mut waiters = self.offer_waiters.lock().unwrap_or_else(|p| p.into_inner());
        while let Some(w) = waiters.pop_front() {
            if w.wake.send(hops).is_ok() {
                return;
            }
        }
    }

    /// A poll woken for an offer found nothing it may take (another agent, labels, room): the
    /// next one looks, until every waiting poll has (`hops` counts those that did).
    pub fn pass_offer(&self, hops: u32) {
        let waiting = self
            .offer_waiters
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .len();
        if (hops as usize) < waiting {
            self.wake_offer(hops);
        }
    }

    /// Resolves after a session or a run changed (at once if one changed since the last call).
    pub async fn limits_moved(&self) {
        self.clock.notified().await
    }

    /// Wakes the polls waiting on `touched`, and the clock if a session or a run changed.
    pub fn notify<'a>(&self, touched: impl IntoIterator<Item = &'a Topic> + Clone) {
        if touched
            .clone()
            .into_iter()
            .any(|t| matches!(t, Topic::Session(_) | Topic::Run(_)))
        {
            self.clock.notify_one();
            self.sources.notify_one();
            self.webhooks.notify_one();
        }
        self.wake_polls(touched);
    }

    /// Wakes the polls waiting on `touched`, not the clock: for the clock's own writes (it read
    /// where its limits stand after making them).
    pub fn wake_polls<'a>(&self, touched: impl IntoIterator<Item = &'a Topic>) {
        let mut topics = self.topics.lock().unwrap_or_else(|p| p.into_inner());
        for topic in touched {
            if *topic == Topic::Offered {
                self.wake_offer(0);
                continue;
            }
            if let Topic::Room(runner_id) = topic {
                self.wake_room(runner_id);
                continue;
            }
            if let Some(tx) = topics.get(topic) {
                if tx.receiver_count() == 0 {
                    topics.remove(topic);
                } else {
                    tx.send_modify(|n| *n += 1);
                }
            }
        }
    }

    /// Wakes the polls waiting on what another instance announced (see [`announcement`]).
    pub fn deliver(&self, what: &str) {
        if what == "*" {
            return self.notify_all();
        }
        let topics: Vec<Topic> = what
            .split(' ')
            .filter_map(|t| match t.split_once(':') {
                None if t == "offers" => Some(Topic::Offers),
                None if t == "offered" => Some(Topic::Offered),
                Some(("run", id)) => Some(Topic::Run(id.to_string())),
                Some(("session", id)) => Some(Topic::Session(id.to_string())),
                Some(("room", id)) => Some(Topic::Room(id.to_string())),
                _ => None,
            })
            .collect();
        self.notify(&topics);
    }

    /// Wakes every poll (another instance's announcements may have been missed).
    /// Waits until a session changed (or a source asked: [`Changes::wake_sources`]).
    pub async fn sources_changed(&self) {
        self.sources.notified().await
    }

    pub fn wake_sources(&self) {
        self.sources.notify_one();
    }

    /// Waits until a session or a run changed (a webhook delivery may have been made).
    pub async fn webhooks_changed(&self) {
        self.webhooks.notified().await
    }

    pub fn wake_webhooks(&self) {
        self.webhooks.notify_one();
    }

    pub fn notify_all(&self) {
        self.clock.notify_one();
        self.sources.notify_one();
        self.webhooks.notify_one();
        let topics = self.topics.lock().unwrap_or_else(|p| p.into_inner());
        for tx in topics.values() {
            tx.send_modify(|n| *n += 1);
        }
    }
}

/// What a transaction that touched `topics` tells the other instances (read by
/// [`Changes::deliver`]): the topics, space-separated. Ids are Blaise's own (no spaces).
pub fn announcement(topics: &[Topic]) -> String {
    let words: Vec<String> = topics
        .iter()
        .map(|t| match t {
            Topic::Offers => "offers".to_string(),
            Topic::Offered => "offered".to_string(),
            Topic::Run(id) => format!("run:{id}"),
            Topic::Session(id) => format!("session:{id}"),
            Topic::Room(id) => format!("room:{id}"),
        })
        .collect();
    words.join(" ")
}

/// A [`Tx`] that passes everything through and notes the topics its writes touch.
pub struct RecordingTx<'a> {
    pub inner: Box<dyn Tx + 'a>,
    pub touched: Vec<Topic>,
    /// What the metrics count once it commits ([`Tx::note`]).
    pub events: Vec<crate::store::Event>,
    /// When it began (the metrics time write transactions).
    pub started: std::time::Instant,
    /// Set when the recording commits itself ([`Notifying`]): what it touched is announced
    /// with the commit and woken here after it.
    changes: Option<&'a Changes>,
}

impl<'a> RecordingTx<'a> {
    /// Records `inner`; its owner commits `inner` and wakes what it touched.
    pub fn new(inner: Box<dyn Tx + 'a>) -> Self {
        RecordingTx {
            inner,
            touched: Vec::new(),
            events: Vec::new(),
            started: std::time::Instant::now(),
            changes: None,
        }
    }

    fn touch(&mut self, topic: Topic) {
        if !self.touched.contains(&topic) {
            self.touched.push(topic);
        }
    }
}

/// The clock's store: its transactions wake, when they commit, the long polls waiting on what
/// they wrote, here and in the other instances (the clock would otherwise have to wake every
/// poll), but not the clock itself.
pub struct Notifying {
    pub store: std::sync::Arc<dyn Store>,
    pub changes: std::sync::Arc<Changes>,
}

impl Store for Notifying {
    fn begin(&self) -> StoreResult<Box<dyn Tx + '_>> {
        Ok(Box::new(RecordingTx {
            changes: Some(&self.changes),
            ..RecordingTx::new(self.store.begin()?)
        }))
    }
    fn begin_read(&self) -> StoreResult<Box<dyn Tx + '_>> {
        self.store.begin_read()
    }
    fn begin_one(&self) -> StoreResult<Box<dyn Tx + '_>> {
        self.store.begin_one()
    }
    fn writers(&self) -> usize {
        self.store.writers()
    }
    fn readers(&self) -> Option<usize> {
        self.store.readers()
    }
    fn kind(&self) -> &'static str {
        self.store.kind()
    }
    fn listen(&self, deliver: crate::store::Deliver) {
        self.store.listen(deliver)
    }
    fn hold_clock(&self) -> StoreResult<bool> {
        self.store.hold_clock()
    }
}

impl Tx for RecordingTx<'_> {
    fn commit(self: Box<Self>) -> StoreResult<()> {
        let RecordingTx {
            mut inner,
            touched,
            events,
            started,
            changes,
        } = *self;
        let Some(changes) = changes else {
            unreachable!("the owner of the inner transaction commits it")
        };
        if !touched.is_empty() {
            inner.announce(&announcement(&touched))?;
        }
        inner.commit()?;
        crate::metrics::committed(started.elapsed(), &events);
        changes.wake_polls(&touched);
        Ok(())
    }
    fn announce(&mut self, what: &str) -> StoreResult<()> {
        self.inner.announce(what)
    }
    fn admin_token_hash(&mut self) -> StoreResult<Option<String>> {
        self.inner.admin_token_hash()
    }
    fn set_admin_token_hash(&mut self, hash: &str) -> StoreResult<()> {
        self.inner.set_admin_token_hash(hash)
    }
    fn login(&mut self, id_hash: &str) -> StoreResult<Option<Login>> {
        self.inner.login(id_hash)
    }
    fn put_login(&mut self, login: &Login) -> StoreResult<()> {
        self.inner.put_login(login)
    }
    fn delete_login(&mut self, id_hash: &str) -> StoreResult<()> {
        self.inner.delete_login(id_hash)
    }
    fn end_logins(&mut self, expiring_before: Millis) -> StoreResult<u64> {
        self.inner.end_logins(expiring_before)
    }
    fn end_logins_of(&mut self, who: &str) -> StoreResult<u64> {
        self.inner.end_logins_of(who)
    }
    fn user(&mut self, name: &str) -> StoreResult<Option<User>> {
        self.inner.user(name)
    }
    fn user_by_token_hash(&mut self, hash: &str) -> StoreResult<Option<User>> {
        self.inner.user_by_token_hash(hash)
    }
    fn has_delivery(&mut self, webhook: &str, key: &str) -> StoreResult<bool> {
        self.inner.has_delivery(webhook, key)
    }
    fn token_owner(&mut self, hash: &str) -> StoreResult<Option<TokenOwner>> {
        self.inner.token_owner(hash)
    }
    fn add_user(&mut self, user: &User) -> StoreResult<()> {
        self.inner.add_user(user)
    }

    fn update_user(&mut self, user: &User) -> StoreResult<()> {
        self.inner.update_user(user)
    }
    fn delete_user(&mut self, name: &str) -> StoreResult<()> {
        self.inner.delete_user(name)
    }
    fn users(&mut self) -> StoreResult<Vec<User>> {
        self.inner.users()
    }
    fn put_sign_in(&mut self, sign_in: &SignIn, now: Millis) -> StoreResult<()> {
        self.inner.put_sign_in(sign_in, now)
    }
    fn take_sign_in(&mut self, state_hash: &str) -> StoreResult<Option<SignIn>> {
        self.inner.take_sign_in(state_hash)
    }
    fn webhook(&mut self, name: &str) -> StoreResult<Option<Webhook>> {
        self.inner.webhook(name)
    }
    fn put_webhook(&mut self, webhook: &Webhook) -> StoreResult<()> {
        self.inner.put_webhook(webhook)
    }
    fn delete_webhook(&mut self, name: &str) -> StoreResult<()> {
        self.inner.delete_webhook(name)
    }
    fn webhooks(&mut self) -> StoreResult<Vec<Webhook>> {
        self.inner.webhooks()
    }
    fn add_delivery(&mut self, delivery: &mut Delivery) -> StoreResult<bool> {
        self.inner.add_delivery(delivery)
    }
    fn put_delivery(&mut self, delivery: &Delivery) -> StoreResult<()> {
        self.inner.put_delivery(delivery)
    }
    fn due_deliveries(&mut self, now: Millis, limit: usize) -> StoreResult<Vec<Delivery>> {
        self.inner.due_deliveries(now, limit)
    }
    fn forget_webhook_deliveries(&mut self, before: Millis) -> StoreResult<usize> {
        self.inner.forget_webhook_deliveries(before)
    }
    fn deliveries(
        &mut self,
        webhook: &str,
        before: Option<i64>,
        limit: usize,
    ) -> StoreResult<Vec<Delivery>> {
        self.inner.deliveries(webhook, before, limit)
    }
    fn add_audit(&mut self, entry: &mut AuditEntry) -> StoreResult<()> {
        self.inner.add_audit(entry)
    }
    fn audit_page(&mut self, page: &crate::store::AuditPage) -> StoreResult<Vec<AuditEntry>> {
        self.inner.audit_page(page)
    }
    fn agent(&mut self, name: &str) -> StoreResult<Option<Agent>> {
        self.inner.agent(name)
    }
    fn put_agent(&mut self, agent: &Agent) -> StoreResult<()> {
        self.touch(Topic::Offers);
        self.inner.put_agent(agent)
    }
    fn agents(&mut self) -> StoreResult<Vec<Agent>> {
        self.inner.agents()
    }
    fn runner(&mut self, id: &str) -> StoreResult<Option<Runner>> {
        self.inner.runner(id)
    }
    fn runner_by_name(&mut self, name: &str) -> StoreResult<Option<Runner>> {
        self.inner.runner_by_name(name)
    }
    fn runner_by_token_hash(&mut self, hash: &str) -> StoreResult<Option<Runner>> {
        self.inner.runner_by_token_hash(hash)
    }
    fn put_runner(&mut self, runner: &Runner) -> StoreResult<()> {
        self.touch(Topic::Offers);
        self.inner.put_runner(runner)
    }
    fn runners(&mut self) -> StoreResult<Vec<Runner>> {
        self.inner.runners()
    }
    fn connection(&mut self, runner_id: &str, instance: &str) -> StoreResult<Option<Connection>> {
        self.inner.connection(runner_id, instance)
    }
    fn put_connection(&mut self, connection: &Connection) -> StoreResult<()> {
        self.inner.put_connection(connection)
    }
    fn connections(&mut self, seen_since: Millis) -> StoreResult<Vec<Connection>> {
        self.inner.connections(seen_since)
    }
    fn forget_connections(&mut self, seen_before: Millis) -> StoreResult<usize> {
        self.inner.forget_connections(seen_before)
    }
    fn live_runs_of_instance(&mut self, runner_id: &str, instance: &str) -> StoreResult<usize> {
        self.inner.live_runs_of_instance(runner_id, instance)
    }
    fn census(&mut self) -> StoreResult<crate::store::Census> {
        self.inner.census()
    }
    fn note(&mut self, event: crate::store::Event) {
        self.events.push(event);
    }
    fn session(&mut self, id: &str) -> StoreResult<Option<Session>> {
        self.inner.session(id)
    }
    fn read_session(&mut self, id: &str) -> StoreResult<Option<Session>> {
        self.inner.read_session(id)
    }
    fn put_session(&mut self, session: &Session) -> StoreResult<()> {
        self.touch(Topic::Session(session.id.clone()));
        self.inner.put_session(session)
    }
    fn sessions(&mut self) -> StoreResult<Vec<Session>> {
        self.inner.sessions()
    }
    fn sessions_page(&mut self, page: &crate::store::SessionPage) -> StoreResult<Vec<Session>> {
        self.inner.sessions_page(page)
    }
    fn due_sessions(&mut self, now: Millis, limits: &DueLimits) -> StoreResult<Vec<String>> {
        self.inner.due_sessions(now, limits)
    }
    fn oldest(&mut self) -> StoreResult<crate::store::Oldest> {
        self.inner.oldest()
    }
    fn run(&mut self, id: &str) -> StoreResult<Option<Run>> {
        self.inner.run(id)
    }
    fn put_run(&mut self, run: &Run) -> StoreResult<()> {
        if run.status == RunStatus::Offered {
            // A resume or teardown goes to the runner that holds its environment: its polls
            // look, not the longest waiting one (which would pass the wake on, poll by poll).
            let topic = match crate::lifecycle::offers::environment_owner(&mut *self.inner, run)? {
                Some(owner) => Topic::Room(owner),
                None => Topic::Offered,
            };
            self.touch(topic);
        }
        if run.status.is_finished()
            && let Some(runner_id) = &run.runner_id
        {
            self.touch(Topic::Room(runner_id.clone()));
        }
        self.touch(Topic::Run(run.id.clone()));
        self.inner.put_run(run)
    }
    fn reserve_offer(&mut self, before: &Run, run: &Run) -> StoreResult<bool> {
        // Wakes nobody: the other runners must not race for what is now reserved.
        self.inner.reserve_offer(before, run)
    }
    fn runs_of_session(&mut self, session_id: &str) -> StoreResult<Vec<Run>> {
        self.inner.runs_of_session(session_id)
    }
    fn offered_runs(&mut self) -> StoreResult<Vec<Run>> {
        self.inner.offered_runs()
    }
    fn offerable_runs(&mut self, instance: &str, now: Millis) -> StoreResult<Vec<Run>> {
        self.inner.offerable_runs(instance, now)
    }
    fn read_environment(&mut self, id: &str) -> StoreResult<Option<Environment>> {
        self.inner.read_environment(id)
    }
    fn environment(&mut self, id: &str) -> StoreResult<Option<Environment>> {
        self.inner.environment(id)
    }
    fn put_environment(&mut self, environment: &Environment) -> StoreResult<()> {
        self.touch(Topic::Session(environment.session_id.clone()));
        self.inner.put_environment(environment)
    }
    fn environments_in(&mut self, state: EnvironmentState) -> StoreResult<Vec<Environment>> {
        self.inner.environments_in(state)
    }
    fn add_directive(
        &mut self,
        run_id: &str,
        body: &DirectiveBody,
        now: Millis,
    ) -> StoreResult<i64> {
        self.touch(Topic::Run(run_id.to_string()));
        self.inner.add_directive(run_id, body, now)
    }
    fn directives_after(&mut self, run_id: &str, after: i64) -> StoreResult<Vec<Directive>> {
        self.inner.directives_after(run_id, after)
    }
    fn put_directive(&mut self, directive: &Directive) -> StoreResult<()> {
        self.touch(Topic::Run(directive.run_id.clone()));
        self.inner.put_directive(directive)
    }
    fn delete_directive(&mut self, run_id: &str, seq: i64) -> StoreResult<()> {
        self.touch(Topic::Run(run_id.to_string()));
        self.inner.delete_directive(run_id, seq)
    }
    fn report(&mut self, run_id: &str, report_id: &str) -> StoreResult<Option<String>> {
        self.inner.report(run_id, report_id)
    }
    fn add_report(
        &mut self,
        run_id: &str,
        report_id: &str,
        kind: &str,
        now: Millis,
    ) -> StoreResult<()> {
        self.inner.add_report(run_id, report_id, kind, now)
    }
    fn run_transcript_entry(
        &mut self,
        run_id: &str,
        seq: i64,
    ) -> StoreResult<Option<TranscriptEntry>> {
        self.inner.run_transcript_entry(run_id, seq)
    }
    fn run_last_seq(&mut self, run_id: &str) -> StoreResult<i64> {
        self.inner.run_last_seq(run_id)
    }
    fn append_transcript(&mut self, entry: &mut TranscriptEntry) -> StoreResult<()> {
        self.touch(Topic::Session(entry.session_id.clone()));
        self.inner.append_transcript(entry)
    }
    fn append_transcript_all(&mut self, entries: &mut [TranscriptEntry]) -> StoreResult<()> {
        for e in entries.iter() {
            self.touch(Topic::Session(e.session_id.clone()));
        }
        self.inner.append_transcript_all(entries)
    }
    fn transcript(
        &mut self,
        session_id: &str,
        after_index: i64,
        limit: usize,
    ) -> StoreResult<Vec<TranscriptEntry>> {
        self.inner.transcript(session_id, after_index, limit)
    }
    fn last_transcript_index(&mut self, session_id: &str) -> StoreResult<i64> {
        self.inner.last_transcript_index(session_id)
    }
    fn sessions_to_prune(
        &mut self,
        ended_before: Millis,
        limit: usize,
    ) -> StoreResult<Vec<String>> {
        self.inner.sessions_to_prune(ended_before, limit)
    }
    fn prune_session_records(&mut self, session_id: &str, limit: usize) -> StoreResult<usize> {
        self.touch(Topic::Session(session_id.to_string()));
        self.inner.prune_session_records(session_id, limit)
    }
    fn message(&mut self, id: &str) -> StoreResult<Option<Message>> {
        self.inner.message(id)
    }
    fn put_message(&mut self, message: &Message) -> StoreResult<()> {
        self.inner.put_message(message)
    }
    fn messages(&mut self, session_id: &str, state: MessageState) -> StoreResult<Vec<Message>> {
        self.inner.messages(session_id, state)
    }
    fn plug_records(&mut self, session_id: &str) -> StoreResult<Vec<PlugRecord>> {
        self.inner.plug_records(session_id)
    }
    fn all_plug_records(&mut self) -> StoreResult<Vec<PlugRecord>> {
        self.inner.all_plug_records()
    }
    fn put_plug_record(&mut self, record: &PlugRecord) -> StoreResult<()> {
        self.inner.put_plug_record(record)
    }
    fn delete_plug_record(&mut self, session_id: &str, plug_id: &str) -> StoreResult<()> {
        self.inner.delete_plug_record(session_id, plug_id)
    }
    fn permission(
        &mut self,
        run_id: &str,
        request_id: &str,
    ) -> StoreResult<Option<PermissionRequest>> {
        self.inner.permission(run_id, request_id)
    }
    fn put_permission(&mut self, request: &PermissionRequest) -> StoreResult<()> {
        // The session's page shows its requests: one asked, answered or ended wakes it.
        self.touch(Topic::Session(request.session_id.clone()));
        self.inner.put_permission(request)
    }
    fn permissions(&mut self, session_id: &str) -> StoreResult<Vec<PermissionRequest>> {
        self.inner.permissions(session_id)
    }
    fn pending_permissions(&mut self) -> StoreResult<Vec<PermissionRequest>> {
        self.inner.pending_permissions()
    }
    fn day_usage(&mut self, who: Spender, of: &str, day: &str) -> StoreResult<DayUsage> {
        self.inner.day_usage(who, of, day)
    }
    fn put_day_usage(&mut self, who: Spender, usage: &DayUsage) -> StoreResult<()> {
        self.inner.put_day_usage(who, usage)
    }
    fn day_usages(&mut self, who: Spender, since: &str) -> StoreResult<Vec<DayUsage>> {
        self.inner.day_usages(who, since)
    }
    fn source_thread(&mut self, source: &str, thread: &str) -> StoreResult<Option<SourceThread>> {
        self.inner.source_thread(source, thread)
    }
    fn source_thread_of_session(&mut self, session_id: &str) -> StoreResult<Option<SourceThread>> {
        self.inner.source_thread_of_session(session_id)
    }
    fn put_source_thread(&mut self, thread: &SourceThread) -> StoreResult<()> {
        self.inner.put_source_thread(thread)
    }
    fn source_threads_due(&mut self, now: Millis, limit: usize) -> StoreResult<Vec<SourceThread>> {
        self.inner.source_threads_due(now, limit)
    }
    fn take_delivery(&mut self, source: &str, delivery: &str, now: Millis) -> StoreResult<bool> {
        self.inner.take_delivery(source, delivery, now)
    }
    fn forget_deliveries(&mut self, before: Millis) -> StoreResult<usize> {
        self.inner.forget_deliveries(before)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_wakes_only_its_topic() {
        let changes = Changes::default();
        let mut a = changes.subscribe(&Topic::Run("a".into()));
        let b = changes.subscribe(&Topic::Run("b".into()));
        changes.notify(&[Topic::Run("a".into()), Topic::Session("s".into())]);
        assert!(a.has_changed().unwrap());
        assert!(!b.has_changed().unwrap());
        a.borrow_and_update();
        changes.notify_all();
        assert!(a.has_changed().unwrap() && b.has_changed().unwrap());
    }

    /// A run offered wakes the offers poll that waited longest, one only; one that left is
    /// skipped; a wake passed on goes round the waiting polls once, not forever.
    #[test]
    fn an_offer_wakes_one_poll_and_a_passed_wake_goes_round_once() {
        let changes = Changes::default();
        let mut first = changes.wait_offer("rnr_a");
        let gone = changes.wait_offer("rnr_a");
        let mut second = changes.wait_offer("rnr_b");
        let mut third = changes.wait_offer("rnr_c");
        drop(gone);
        changes.notify(&[Topic::Offered]);
        assert_eq!(first.try_recv(), Ok(0));
        assert!(second.try_recv().is_err() && third.try_recv().is_err());
        // The first could not take it: the wake goes on, skipping the poll that left.
        changes.pass_offer(1);
        assert_eq!(second.try_recv(), Ok(1));
        assert!(third.try_recv().is_err());
        // Every waiting poll has looked (2 passes, 1 waiting): it stops.
        changes.pass_offer(2);
        assert!(third.try_recv().is_err());
        // Who may take offers changed: every poll looks (through the topic, not the queue).
        let all = changes.subscribe(&Topic::Offers);
        changes.notify(&[Topic::Offers]);
        assert!(all.has_changed().unwrap());
        assert_eq!(
            announcement(&[Topic::Offered, Topic::Offers]),
            "offered offers"
        );
        let mut fourth = changes.wait_offer("rnr_d");
        changes.deliver("offered");
        assert_eq!(
            third.try_recv(),
            Ok(0),
            "another instance's offer wakes one poll here"
        );
        assert!(fourth.try_recv().is_err());
    }

    /// A run of a runner ended: that runner's waiting offers polls look (told they are the only
    /// ones to), and no other runner's; from another instance too.
    #[test]
    fn a_run_that_ends_wakes_its_runners_offers_polls_only() {
        let changes = Changes::default();
        let mut a1 = changes.wait_offer("rnr_a");
        let mut b = changes.wait_offer("rnr_b");
        let mut a2 = changes.wait_offer("rnr_a");
        changes.notify(&[Topic::Room("rnr_a".into())]);
        assert_eq!((a1.try_recv(), a2.try_recv()), (Ok(ROOM), Ok(ROOM)));
        assert!(b.try_recv().is_err());
        // b still waits, first in line for the next offer.
        changes.notify(&[Topic::Offered]);
        assert_eq!(b.try_recv(), Ok(0));
        let mut b = changes.wait_offer("rnr_b");
        assert_eq!(announcement(&[Topic::Room("rnr_b".into())]), "room:rnr_b");
        changes.deliver("room:rnr_b");
        assert_eq!(b.try_recv(), Ok(ROOM));
    }

    /// A resume or teardown run goes to the runner holding its environment: offering it wakes
    /// that runner's polls, not the longest waiting poll of any runner (which would pass the
    /// wake on, poll by poll, until the owner's looked). A start run, or one whose owner was
    /// revoked, may go to anyone.
    #[test]
    fn a_run_bound_to_its_environments_runner_wakes_that_runner() {
        use crate::store::conformance::run;
        use crate::store::sqlite::SqliteStore;
        let store = SqliteStore::in_memory().unwrap();
        let mut tx = store.begin().unwrap();
        tx.put_runner(&Runner {
            id: "rnr_a".into(),
            name: "a".into(),
            token_hash: "h".into(),
            created_at: 0,
            revoked_at: None,
            agents: None,
            labels: None,
        })
        .unwrap();
        tx.put_environment(&Environment {
            id: "e".into(),
            session_id: "s".into(),
            runner_id: Some("rnr_a".into()),
            state: EnvironmentState::Paused,
            created_at: 0,
            updated_at: 0,
            last_error: None,
            teardown_attempts: 0,
            next_teardown_at: None,
            kept_agent: None,
            plug_state: None,
        })
        .unwrap();
        let mut recording = RecordingTx::new(tx);
        let offered = |recording: &mut RecordingTx, id: &str, kind: RunKind| {
            recording.touched.clear();
            let run = Run {
                kind,
                ..run(id, "s", RunStatus::Offered)
            };
            recording.put_run(&run).unwrap();
            recording.touched.clone()
        };
        let resume = offered(&mut recording, "run_1", RunKind::Resume);
        assert!(resume.contains(&Topic::Room("rnr_a".into())), "{resume:?}");
        assert!(!resume.contains(&Topic::Offered), "{resume:?}");
        let teardown = offered(&mut recording, "run_2", RunKind::Teardown);
        assert!(
            teardown.contains(&Topic::Room("rnr_a".into())),
            "{teardown:?}"
        );
        assert!(offered(&mut recording, "run_3", RunKind::Start).contains(&Topic::Offered));
        recording
            .put_runner(&Runner {
                id: "rnr_a".into(),
                name: "a".into(),
                token_hash: "h".into(),
                created_at: 0,
                revoked_at: Some(1),
                agents: None,
                labels: None,
            })
            .unwrap();
        let orphan = offered(&mut recording, "run_4", RunKind::Resume);
        assert!(orphan.contains(&Topic::Offered), "{orphan:?}");
        assert!(!orphan.contains(&Topic::Room("rnr_a".into())), "{orphan:?}");
    }
}
