//! What every [`Store`] must do, as one function a backend's tests call
//! (`conformance::check(&MyStore::new())`). The SQLite store runs it in its tests.

use std::collections::BTreeMap;

use super::{DueLimits, Oldest, Store};
use crate::model::*;

/// A session record for tests: agent `a`, serving, no run.
pub fn session(id: &str, state: SessionState, last_activity: Millis) -> Session {
    Session {
        state,
        last_activity,
        run_serving: true,
        ..Session::new(id.into(), "a", 0)
    }
}

/// A start run record for tests, in environment `e`.
pub fn run(id: &str, session_id: &str, status: RunStatus) -> Run {
    Run {
        unmatched_since: None,
        reserved_for: None,
        reserved_until: None,
        egress: None,
        usage: Usage::default(),
        id: id.into(),
        session_id: session_id.into(),
        environment_id: "e".into(),
        kind: RunKind::Start,
        status,
        runner_id: None,
        instance: None,
        created_at: 0,
        accepted_at: None,
        first_contact_at: None,
        last_contact_at: None,
        started_at: None,
        ended_at: None,
        stop: None,
        stop_issued_at: None,
        plugs_can_resume: None,
        plugs_that_cannot_resume: vec![],
        keeps_processes: false,
        error: None,
        acp_session_id: None,
        fresh_environment: false,
        conversation: None,
    }
}

/// Panics with a message naming the first rule the store breaks.
pub fn check(store: &dyn Store) {
    let limits = DueLimits {
        connect_timeout_ms: 60_000,
        heartbeat_timeout_ms: 60_000,
        stop_grace_ms: 60_000,
    };
    let now: Millis = 10_000_000;
    let mut tx = store.begin().unwrap();
    let settings = AgentSettings {
        inactivity_ms: 1_000,
        timeout_ms: 100_000,
        ..AgentSettings::default()
    };
    tx.put_agent(&Agent {
        name: "a".into(),
        settings: settings.clone(),
        disabled: false,
        updated_at: 0,
    })
    .unwrap();

    // Idle: serving, no open turn, past the agent's inactivity limit.
    tx.put_session(&session("idle", SessionState::Active, now - 1_000))
        .unwrap();
    tx.put_session(&session("fresh", SessionState::Active, now - 999))
        .unwrap();
    // In a turn: never idle, however long; due once the turn has been
    // silent for the agent's silent-turn limit.
    tx.put_session(&Session {
        open_turns: 1,
        ..session(
            "in-turn",
            SessionState::Active,
            now - settings.silent_turn_ms + 1,
        )
    })
    .unwrap();
    tx.put_session(&Session {
        open_turns: 2,
        ..session(
            "silent-turn",
            SessionState::Active,
            now - settings.silent_turn_ms,
        )
    })
    .unwrap();
    tx.put_session(&Session {
        run_serving: false,
        ..session("not-serving", SessionState::Active, 0)
    })
    .unwrap();
    tx.put_session(&session("ended", SessionState::Closed, 0))
        .unwrap();
    // Each agent's own limits: a quicker agent's session is idle sooner, and its shorter
    // timeout does not make another agent's run due.
    tx.put_agent(&Agent {
        name: "quick".into(),
        settings: AgentSettings {
            inactivity_ms: 100,
            timeout_ms: 10,
            ..AgentSettings::default()
        },
        disabled: false,
        updated_at: 0,
    })
    .unwrap();
    tx.put_session(&Session {
        agent: "quick".into(),
        ..session("idle-quick", SessionState::Active, now - 500)
    })
    .unwrap();
    tx.put_session(&Session {
        run_serving: false,
        ..session("patient-run", SessionState::Active, now)
    })
    .unwrap();
    tx.put_run(&Run {
        accepted_at: Some(now - 50_000),
        first_contact_at: Some(now - 50_000),
        last_contact_at: Some(now),
        ..run("r-patient", "patient-run", RunStatus::Running)
    })
    .unwrap();
    // Paused past / before its expiry.
    tx.put_session(&Session {
        expires_at: Some(now),
        ..session("expired", SessionState::Paused, 0)
    })
    .unwrap();
    tx.put_session(&Session {
        expires_at: Some(now + 1),
        ..session("waiting", SessionState::Paused, 0)
    })
    .unwrap();
    // Runs past a limit.
    for id in [
        "silent",
        "never-connected",
        "stop-ignored",
        "too-long",
        "healthy",
    ] {
        tx.put_session(&Session {
            run_serving: false,
            ..session(id, SessionState::Active, now)
        })
        .unwrap();
    }
    tx.put_run(&Run {
        last_contact_at: Some(now - 60_000),
        first_contact_at: Some(0),
        accepted_at: Some(now - 1),
        ..run("r1", "silent", RunStatus::Running)
    })
    .unwrap();
    tx.put_run(&Run {
        accepted_at: Some(now - 60_000),
        ..run("r2", "never-connected", RunStatus::Accepted)
    })
    .unwrap();
    tx.put_run(&Run {
        stop_issued_at: Some(now - 60_000),
        accepted_at: Some(now - 1),
        first_contact_at: Some(now),
        last_contact_at: Some(now),
        ..run("r3", "stop-ignored", RunStatus::Running)
    })
    .unwrap();
    tx.put_run(&Run {
        accepted_at: Some(now - 100_000),
        first_contact_at: Some(now),
        last_contact_at: Some(now),
        ..run("r4", "too-long", RunStatus::Running)
    })
    .unwrap();
    tx.put_run(&Run {
        accepted_at: Some(now - 1),
        first_contact_at: Some(now),
        last_contact_at: Some(now),
        ..run("r5", "healthy", RunStatus::Running)
    })
    .unwrap();
    tx.put_run(&Run {
        accepted_at: Some(0),
        ..run("r6", "healthy", RunStatus::Failed)
    })
    .unwrap();
    // A teardown retry due.
    tx.put_session(&session("retry-due", SessionState::Failed, 0))
        .unwrap();
    tx.put_environment(&Environment {
        id: "e-retry".into(),
        session_id: "retry-due".into(),
        runner_id: None,
        state: EnvironmentState::TearingDown,
        created_at: 0,
        updated_at: 0,
        last_error: Some("boom".into()),
        teardown_attempts: 1,
        next_teardown_at: Some(now),
        kept_agent: None,
        plug_state: None,
    })
    .unwrap();

    let mut due = tx.due_sessions(now, &limits).unwrap();
    due.sort();
    let mut expected = vec![
        "expired",
        "idle",
        "idle-quick",
        "never-connected",
        "retry-due",
        "silent",
        "silent-turn",
        "stop-ignored",
        "too-long",
    ];
    expected.sort();
    assert_eq!(due, expected, "due_sessions");
    // Where each limit stands: the clock sleeps until the first of them.
    let oldest = Oldest {
        idle_at: Some(now - 400),
        expires_at: Some(now),
        unconnected_since: Some(now - 60_000),
        silent_since: Some(now - 60_000),
        stopping_since: Some(now - 60_000),
        teardown_at: Some(now),
    };
    assert_eq!(tx.oldest().unwrap(), oldest, "oldest");

    // A limit of i64::MAX means "never": nothing is due by it, and the query does not fail
    // (one agent's setting must not stop the clock for every session).
    let never = DueLimits {
        connect_timeout_ms: Millis::MAX,
        heartbeat_timeout_ms: Millis::MAX,
        stop_grace_ms: Millis::MAX,
    };
    let mut patient = tx.agent("a").unwrap().unwrap();
    patient.settings.inactivity_ms = Millis::MAX;
    patient.settings.timeout_ms = Millis::MAX;
    patient.settings.silent_turn_ms = Millis::MAX;
    tx.put_agent(&patient).unwrap();
    let mut due = tx.due_sessions(now, &never).unwrap();
    due.sort();
    assert_eq!(
        due,
        ["expired", "idle-quick", "retry-due"],
        "due_sessions with limits of i64::MAX (agent quick keeps its own)"
    );
    assert_eq!(
        tx.oldest().unwrap(),
        oldest,
        "oldest with a limit of i64::MAX"
    );
    patient.settings = settings.clone();
    tx.put_agent(&patient).unwrap();

    // Records read back as written; later puts replace.
    assert_eq!(
        tx.session("idle").unwrap().unwrap(),
        session("idle", SessionState::Active, now - 1_000),
        "session round trip"
    );
    let mut s = tx.session("idle").unwrap().unwrap();
    s.state = SessionState::Paused;
    tx.put_session(&s).unwrap();
    assert_eq!(
        tx.session("idle").unwrap().unwrap().state,
        SessionState::Paused,
        "put replaces"
    );
    assert_eq!(
        tx.runs_of_session("healthy").unwrap().len(),
        2,
        "runs_of_session"
    );
    assert!(tx.offered_runs().unwrap().is_empty(), "offered_runs");
    assert_eq!(
        tx.environments_in(EnvironmentState::TearingDown)
            .unwrap()
            .len(),
        1,
        "environments_in"
    );

    // Directives are numbered per run from 1.
    assert_eq!(
        tx.add_directive("r5", &DirectiveBody::Cancel, now).unwrap(),
        1
    );
    assert_eq!(
        tx.add_directive("r5", &DirectiveBody::Cancel, now).unwrap(),
        2
    );
    assert_eq!(
        tx.add_directive("r4", &DirectiveBody::Cancel, now).unwrap(),
        1,
        "directive seq per run"
    );
    assert_eq!(
        tx.directives_after("r5", 1).unwrap().len(),
        1,
        "directives_after"
    );
    tx.delete_directive("r5", 2).unwrap();
    assert!(
        tx.directives_after("r5", 1).unwrap().is_empty(),
        "delete_directive"
    );

    // Reports by (run, id).
    tx.add_report("r5", "x", "started", now).unwrap();
    assert_eq!(tx.report("r5", "x").unwrap().as_deref(), Some("started"));
    assert_eq!(
        tx.report("r4", "x").unwrap(),
        None,
        "report ids are per run"
    );

    // The transcript is numbered per session, and found by (run, seq).
    for (i, run_id) in [Some("r5"), None, Some("r5")].into_iter().enumerate() {
        let mut e = TranscriptEntry {
            index: 0,
            session_id: "healthy".into(),
            run_id: run_id.map(Into::into),
            seq: run_id.map(|_| i as i64 + 1),
            kind: "k".into(),
            content: serde_json::json!(i),
            at: now,
        };
        tx.append_transcript(&mut e).unwrap();
        assert_eq!(e.index, i as i64 + 1, "transcript index");
    }
    assert_eq!(tx.run_last_seq("r5").unwrap(), 3);
    assert_eq!(
        tx.run_transcript_entry("r5", 3).unwrap().unwrap().content,
        serde_json::json!(2)
    );
    assert_eq!(
        tx.transcript("healthy", 1, 1).unwrap()[0].index,
        2,
        "transcript after/limit"
    );
    // Several at once: numbered on from the last, in order; read back as written.
    let mut more: Vec<TranscriptEntry> = (4..7)
        .map(|seq| TranscriptEntry {
            index: 0,
            session_id: "healthy".into(),
            run_id: Some("r5".into()),
            seq: Some(seq),
            kind: "k".into(),
            content: serde_json::json!({ "text": format!("entry {seq}") }),
            at: now,
        })
        .collect();
    tx.append_transcript_all(&mut more).unwrap();
    assert_eq!(
        more.iter().map(|e| e.index).collect::<Vec<_>>(),
        [4, 5, 6],
        "indices of entries appended together"
    );
    assert_eq!(tx.transcript("healthy", 3, 10).unwrap(), more);
    assert_eq!(tx.run_last_seq("r5").unwrap(), 6);
    tx.append_transcript_all(&mut []).unwrap();
    assert_eq!(tx.last_transcript_index("healthy").unwrap(), 6);
    assert_eq!(tx.last_transcript_index("no-such-session").unwrap(), 0);

    // Plug records by (session, plug id).
    let record = PlugRecord {
        session_id: "healthy".into(),
        plug_id: "p".into(),
        entries: BTreeMap::from([("k".into(), "v".into())]),
        updated_at: now,
    };
    tx.put_plug_record(&record).unwrap();
    assert_eq!(tx.plug_records("healthy").unwrap(), vec![record.clone()]);
    assert_eq!(tx.all_plug_records().unwrap(), vec![record]);
    tx.delete_plug_record("healthy", "p").unwrap();
    assert!(tx.plug_records("healthy").unwrap().is_empty());

    tx.commit().unwrap();

    // Rolled back when dropped.
    {
        let mut tx = store.begin().unwrap();
        tx.put_session(&session("ghost", SessionState::Active, 0))
            .unwrap();
    }
    let mut tx = store.begin().unwrap();
    assert!(
        tx.session("ghost").unwrap().is_none(),
        "a dropped transaction rolls back"
    );
    drop(tx);
    check_retention(store, now);
    check_connections(store);
    check_census(store);
    check_sources(store);
    check_webhooks(store);
    check_people(store);
}

/// People: found by their token's hash; a change to someone removed meanwhile fails rather than
/// bringing them back; a name is added once. A sign-in is taken once, and one that expired is
/// dropped when another begins.
fn check_people(store: &dyn Store) {
    let ann = User {
        name: "ann".into(),
        role: Role::Viewer,
        token_hash: "h1".into(),
        created_at: 0,
        created_by: "admin".into(),
    };
    let mut tx = store.begin().unwrap();
    tx.add_user(&ann).unwrap();
    assert_eq!(tx.user_by_token_hash("h1").unwrap().unwrap().name, "ann");
    assert_eq!(
        tx.token_owner("h1").unwrap(),
        Some(TokenOwner::Person(ann.clone()))
    );
    tx.set_admin_token_hash("hadmin").unwrap();
    assert_eq!(
        tx.token_owner("hadmin").unwrap(),
        Some(TokenOwner::BuiltInAdmin)
    );
    assert_eq!(tx.token_owner("nobody").unwrap(), None);
    let ann2 = User {
        role: Role::Operator,
        token_hash: "h2".into(),
        ..ann.clone()
    };
    tx.update_user(&ann2).unwrap();
    assert!(
        tx.user_by_token_hash("h1").unwrap().is_none(),
        "the old token is gone"
    );
    assert_eq!(tx.user("ann").unwrap().unwrap().role, Role::Operator);
    tx.commit().unwrap();
    {
        let mut tx = store.begin().unwrap();
        assert!(tx.add_user(&ann).is_err(), "a name is added once");
    }
    let mut tx = store.begin().unwrap();
    tx.delete_user("ann").unwrap();
    assert!(
        matches!(tx.update_user(&ann2), Err(super::StoreError::NotFound(_))),
        "a removed person is not brought back"
    );
    assert!(tx.user("ann").unwrap().is_none());

    let sign_in = |state: &str, expires_at: Millis| SignIn {
        state_hash: state.into(),
        verifier: "v".into(),
        nonce: "n".into(),
        next: None,
        expires_at,
    };
    tx.put_sign_in(&sign_in("old", 10), 0).unwrap();
    tx.put_sign_in(&sign_in("new", 100), 50).unwrap();
    assert!(
        tx.take_sign_in("old").unwrap().is_none(),
        "expired, dropped"
    );
    assert_eq!(tx.take_sign_in("new").unwrap().unwrap().state_hash, "new");
    assert!(tx.take_sign_in("new").unwrap().is_none(), "taken once");
    tx.commit().unwrap();
}

/// A webhook's deliveries: made once per key, claimed when due, and those over forgotten after a
/// while (never one still pending); removing the webhook drops what it was still owed.
fn check_webhooks(store: &dyn Store) {
    let hook = Webhook {
        name: "ops".into(),
        url: "https://hooks.example.com/x".into(),
        events: vec![WebhookEvent::PermissionRequested],
        secret: "env:HOOK".into(),
        format: WebhookFormat::Blaise,
        waiting_longer_than_ms: 0,
        created_at: 0,
        created_by: "admin".into(),
    };
    let delivery = |key: &str, next_at: Millis| Delivery {
        id: 0,
        webhook: "ops".into(),
        event: WebhookEvent::PermissionRequested,
        key: key.into(),
        payload: serde_json::json!({ "text": key }),
        state: DeliveryState::Pending,
        attempts: 0,
        next_at,
        created_at: 0,
        last_attempt_at: None,
        last_status: None,
        last_error: None,
        delivered_at: None,
    };
    let mut tx = store.begin().unwrap();
    tx.put_webhook(&hook).unwrap();
    let mut old = delivery("old", 10);
    assert!(tx.add_delivery(&mut old).unwrap());
    assert!(
        !tx.add_delivery(&mut delivery("old", 10)).unwrap(),
        "once per key"
    );
    assert!(tx.has_delivery("ops", "old").unwrap());
    assert!(!tx.has_delivery("ops", "never").unwrap());
    let mut owed = delivery("owed", 20);
    assert!(tx.add_delivery(&mut owed).unwrap());
    assert_eq!(
        tx.due_deliveries(15, 10)
            .unwrap()
            .iter()
            .map(|d| d.id)
            .collect::<Vec<_>>(),
        [old.id]
    );
    old.state = DeliveryState::Delivered;
    tx.put_delivery(&old).unwrap();
    let mut failed = delivery("failed", 10);
    assert!(tx.add_delivery(&mut failed).unwrap());
    failed.state = DeliveryState::Failed;
    tx.put_delivery(&failed).unwrap();
    assert!(
        tx.due_deliveries(15, 10).unwrap().is_empty(),
        "what was delivered or given up on is not due"
    );
    assert_eq!(
        tx.forget_webhook_deliveries(100).unwrap(),
        2,
        "the two over"
    );
    let left = tx.deliveries("ops", None, 10).unwrap();
    assert_eq!(
        left.iter().map(|d| d.key.as_str()).collect::<Vec<_>>(),
        ["owed"]
    );
    tx.delete_webhook("ops").unwrap();
    assert!(tx.deliveries("ops", None, 10).unwrap().is_empty());
    assert!(tx.webhooks().unwrap().is_empty());
    tx.commit().unwrap();
}

/// Message sources' threads and deliveries (`crate::sources`).
fn check_sources(store: &dyn Store) {
    let mut tx = store.begin().unwrap();
    tx.put_session(&session("src-session", SessionState::Active, 0))
        .unwrap();
    let thread = SourceThread {
        source: "linear:coder".into(),
        thread: "as-1".into(),
        session_id: Some("src-session".into()),
        meta: serde_json::json!({ "issue": { "identifier": "ENG-1" } }),
        delivered: 0,
        outbox: vec![],
        attempts: 0,
        retry_at: None,
        created_at: 3,
    };
    tx.put_source_thread(&thread).unwrap();
    let refused = SourceThread {
        thread: "as-2".into(),
        session_id: None,
        ..thread.clone()
    };
    tx.put_source_thread(&refused).unwrap();
    assert_eq!(
        tx.source_thread("linear:coder", "as-1").unwrap(),
        Some(thread.clone()),
        "round trip"
    );
    assert_eq!(tx.source_thread("linear:other", "as-1").unwrap(), None);
    assert_eq!(
        tx.source_thread_of_session("src-session").unwrap(),
        Some(thread.clone())
    );
    assert!(
        tx.source_threads_due(10, 10).unwrap().is_empty(),
        "nothing to tell: no reply waits, no entry after the last told"
    );
    let mut entry = TranscriptEntry {
        index: 0,
        session_id: "src-session".into(),
        run_id: None,
        seq: None,
        kind: "notice".into(),
        content: serde_json::json!({ "text": "x" }),
        at: 4,
    };
    tx.append_transcript(&mut entry).unwrap();
    let due = |tx: &mut Box<dyn super::Tx + '_>, now| -> Vec<String> {
        tx.source_threads_due(now, 10)
            .unwrap()
            .into_iter()
            .map(|t| t.thread)
            .collect()
    };
    assert_eq!(due(&mut tx, 10), ["as-1"], "an entry after the last told");
    tx.put_source_thread(&SourceThread {
        delivered: entry.index,
        ..thread.clone()
    })
    .unwrap();
    assert!(due(&mut tx, 10).is_empty(), "told up to the last entry");
    tx.put_source_thread(&SourceThread {
        outbox: vec![serde_json::json!({ "id": "r" })],
        retry_at: Some(20),
        attempts: 2,
        ..refused.clone()
    })
    .unwrap();
    assert!(due(&mut tx, 10).is_empty(), "a reply waits for its retry");
    assert_eq!(due(&mut tx, 20), ["as-2"], "a reply, its retry due");
    tx.put_source_thread(&SourceThread {
        outbox: vec![serde_json::json!({ "id": "s" })],
        ..thread.clone()
    })
    .unwrap();
    assert_eq!(due(&mut tx, 20), ["as-1", "as-2"], "never retried first");
    assert_eq!(tx.source_threads_due(20, 1).unwrap().len(), 1, "the limit");

    assert!(tx.take_delivery("linear:coder", "d1", 5).unwrap());
    assert!(
        !tx.take_delivery("linear:coder", "d1", 6).unwrap(),
        "taken before"
    );
    assert!(
        tx.take_delivery("linear:other", "d1", 6).unwrap(),
        "another source's"
    );
    assert_eq!(tx.forget_deliveries(6).unwrap(), 1, "the one taken at 5");
    assert!(
        tx.take_delivery("linear:coder", "d1", 7).unwrap(),
        "forgotten"
    );
    tx.commit().unwrap();
}

/// The counts by state `GET /metrics` reads: what a transaction adds shows in its own census.
fn check_census(store: &dyn Store) {
    let mut tx = store.begin().unwrap();
    let count = |pairs: &[(String, u64)], state: &str| {
        pairs
            .iter()
            .find(|(s, _)| s == state)
            .map_or(0, |(_, n)| *n)
    };
    let before = tx.census().unwrap();
    for (id, state) in [
        ("census-1", SessionState::Paused),
        ("census-2", SessionState::Paused),
        ("census-3", SessionState::Failed),
    ] {
        tx.put_session(&session(id, state, 0)).unwrap();
    }
    for (id, status, created_at) in [
        ("census-r1", RunStatus::Offered, 70),
        ("census-r2", RunStatus::Offered, 50),
        ("census-r3", RunStatus::Running, 60),
        ("census-r4", RunStatus::Failed, 10),
    ] {
        tx.put_run(&Run {
            created_at,
            ..run(id, "census-1", status)
        })
        .unwrap();
    }
    tx.put_environment(&Environment {
        id: "census-e".into(),
        session_id: "census-1".into(),
        runner_id: None,
        state: EnvironmentState::Orphaned,
        created_at: 0,
        updated_at: 0,
        last_error: None,
        teardown_attempts: 0,
        next_teardown_at: None,
        kept_agent: None,
        plug_state: None,
    })
    .unwrap();
    let after = tx.census().unwrap();
    assert_eq!(
        count(&after.sessions, "paused") - count(&before.sessions, "paused"),
        2
    );
    assert_eq!(
        count(&after.sessions, "failed") - count(&before.sessions, "failed"),
        1
    );
    assert_eq!(
        count(&after.environments, "orphaned") - count(&before.environments, "orphaned"),
        1
    );
    let runs = |c: &super::Census, status: &str| {
        c.runs
            .iter()
            .find(|(s, _, _)| s == status)
            .map(|(_, n, oldest)| (*n, *oldest))
    };
    let offered_before = runs(&before, "offered").map_or(0, |r| r.0);
    let (offered, oldest) = runs(&after, "offered").unwrap();
    assert_eq!(offered - offered_before, 1 + 1);
    assert!(oldest <= 50, "the oldest offered run's creation: {oldest}");
    assert!(
        after.runs.iter().all(|(s, _, _)| s != "failed"),
        "finished runs are not counted: {after:?}"
    );
}

/// What the retention may prune, and that pruning takes one session's
/// records in batches and nothing else.
fn check_retention(store: &dyn Store, now: Millis) {
    let mut tx = store.begin().unwrap();
    let ended = |id: &str, at: Millis| Session {
        ended_at: Some(at),
        run_serving: false,
        ..session(id, SessionState::Closed, 0)
    };
    tx.put_session(&ended("old-1", now - 2_000)).unwrap();
    tx.put_session(&ended("old-2", now - 3_000)).unwrap();
    tx.put_session(&ended("recent", now - 10)).unwrap();
    tx.put_session(&Session {
        pruned_at: Some(now - 1),
        ..ended("done", now - 5_000)
    })
    .unwrap();
    // Ended, but a teardown run is still going: not yet.
    tx.put_session(&ended("tearing-down", now - 5_000)).unwrap();
    tx.put_run(&run("td", "tearing-down", RunStatus::Running))
        .unwrap();
    // Active: never, however old.
    tx.put_session(&session("alive", SessionState::Active, 0))
        .unwrap();
    for (session_id, run_id) in [("old-1", "old-run"), ("alive", "alive-run")] {
        tx.put_run(&run(run_id, session_id, RunStatus::TornDown))
            .unwrap();
        for seq in 1..=3 {
            tx.add_directive(run_id, &DirectiveBody::Cancel, now)
                .unwrap();
            tx.add_report(run_id, &format!("rep-{seq}"), "started", now)
                .unwrap();
            let mut e = TranscriptEntry {
                index: 0,
                session_id: session_id.into(),
                run_id: Some(run_id.into()),
                seq: Some(seq),
                kind: "agent_message".into(),
                content: serde_json::json!({ "text": "t" }),
                at: now,
            };
            tx.append_transcript(&mut e).unwrap();
        }
    }
    assert_eq!(
        tx.sessions_to_prune(now - 1_000, 10).unwrap(),
        ["old-2", "old-1"],
        "ended long enough ago, oldest first; not pruned, not with a run going, not active"
    );
    assert_eq!(
        tx.sessions_to_prune(now - 1_000, 1).unwrap(),
        ["old-2"],
        "limit"
    );
    // 9 records (3 entries, 3 directives, 3 reports), in batches of 4.
    assert_eq!(tx.prune_session_records("old-1", 4).unwrap(), 4);
    assert_eq!(tx.prune_session_records("old-1", 4).unwrap(), 4);
    assert_eq!(tx.prune_session_records("old-1", 4).unwrap(), 1, "the rest");
    assert_eq!(tx.prune_session_records("old-1", 4).unwrap(), 0);
    assert!(tx.transcript("old-1", 0, 100).unwrap().is_empty());
    assert!(tx.directives_after("old-run", 0).unwrap().is_empty());
    assert_eq!(tx.report("old-run", "rep-1").unwrap(), None);
    // Nothing of another session.
    assert_eq!(tx.transcript("alive", 0, 100).unwrap().len(), 3);
    assert_eq!(tx.directives_after("alive-run", 0).unwrap().len(), 3);
    assert_eq!(
        tx.report("alive-run", "rep-1").unwrap().as_deref(),
        Some("started")
    );
    // Marked pruned, it is not found again.
    let mut old = tx.session("old-1").unwrap().unwrap();
    old.pruned_at = Some(now);
    tx.put_session(&old).unwrap();
    assert_eq!(tx.sessions_to_prune(now - 1_000, 10).unwrap(), ["old-2"]);
    tx.commit().unwrap();
}

/// Runner instances, and the live runs each holds (what capacity counts).
fn check_connections(store: &dyn Store) {
    let mut tx = store.begin().unwrap();
    let connection = |runner: &str, instance: &str| Connection {
        runner_id: runner.into(),
        instance: instance.into(),
        agents: vec!["a".into()],
        last_seen: 5,
        capacity: Some(3),
        labels: vec!["gpu".into()],
    };
    tx.put_connection(&connection("rb", "i1")).unwrap();
    tx.put_connection(&connection("ra", "i2")).unwrap();
    tx.put_connection(&connection("ra", "i1")).unwrap();
    let mut again = connection("ra", "i1");
    again.last_seen = 9;
    tx.put_connection(&again).unwrap();
    let all = tx.connections(0).unwrap();
    let keys: Vec<(&str, &str, Millis)> = all
        .iter()
        .map(|c| (c.runner_id.as_str(), c.instance.as_str(), c.last_seen))
        .collect();
    assert_eq!(keys, [("ra", "i1", 9), ("ra", "i2", 5), ("rb", "i1", 5)]);
    assert_eq!(all[0], again, "connection round trip");
    // Only those seen since a time; the ones seen before another are forgotten.
    assert_eq!(tx.connections(6).unwrap(), [again.clone()], "seen since 6");
    tx.put_connection(&Connection {
        last_seen: 2,
        ..connection("rc", "old")
    })
    .unwrap();
    assert_eq!(tx.forget_connections(5).unwrap(), 1, "the one seen at 2");
    assert_eq!(tx.connections(0).unwrap().len(), 3);
    assert_eq!(tx.connection("rc", "old").unwrap(), None);

    // Runs belong to a session (a store may reach a run through it).
    tx.put_session(&session("capacity-session", SessionState::Active, 0))
        .unwrap();
    for (id, status, instance) in [
        ("c-accepted", RunStatus::Accepted, "i1"),
        ("c-running", RunStatus::Running, "i1"),
        ("c-done", RunStatus::TornDown, "i1"),
        ("c-offered", RunStatus::Offered, "i1"),
        ("c-other", RunStatus::Running, "i2"),
    ] {
        let mut r = run(id, "capacity-session", status);
        if status != RunStatus::Offered {
            r.runner_id = Some("ra".into());
            r.instance = Some(instance.into());
        }
        tx.put_run(&r).unwrap();
    }
    assert_eq!(tx.live_runs_of_instance("ra", "i1").unwrap(), 2);
    assert_eq!(tx.live_runs_of_instance("ra", "i2").unwrap(), 1);
    assert_eq!(tx.live_runs_of_instance("rb", "i1").unwrap(), 0);
    // A run that ends leaves the count.
    let mut r = tx.run("c-running").unwrap().unwrap();
    r.status = RunStatus::Failed;
    tx.put_run(&r).unwrap();
    assert_eq!(tx.live_runs_of_instance("ra", "i1").unwrap(), 1);

    // A reservation is written only over the one it was read with, and only while offered.
    let before = tx.run("c-offered").unwrap().unwrap();
    let mine = Run {
        reserved_for: Some("ra/i1".into()),
        reserved_until: Some(100),
        ..before.clone()
    };
    assert!(tx.reserve_offer(&before, &mine).unwrap());
    assert_eq!(tx.run("c-offered").unwrap().unwrap(), mine);
    // Offerable: not reserved for another instance at that time.
    let offerable = |tx: &mut Box<dyn crate::store::Tx + '_>, instance: &str, now: Millis| {
        let runs = tx.offerable_runs(instance, now).unwrap();
        runs.iter().any(|r| r.id == "c-offered")
    };
    assert!(offerable(&mut tx, "ra/i1", 99), "reserved for it");
    assert!(!offerable(&mut tx, "ra/i2", 99), "reserved for another");
    assert!(offerable(&mut tx, "ra/i2", 100), "the reservation ran out");
    let theirs = Run {
        reserved_for: Some("rb/i1".into()),
        ..before.clone()
    };
    assert!(
        !tx.reserve_offer(&before, &theirs).unwrap(),
        "read before the other reservation: not written"
    );
    assert_eq!(tx.run("c-offered").unwrap().unwrap(), mine);
    let mut taken = mine.clone();
    taken.status = RunStatus::Accepted;
    tx.put_run(&taken).unwrap();
    let late = Run {
        reserved_until: Some(200),
        ..mine.clone()
    };
    assert!(
        !tx.reserve_offer(&mine, &late).unwrap(),
        "accepted meanwhile"
    );
    assert_eq!(
        tx.run("c-offered").unwrap().unwrap().status,
        RunStatus::Accepted
    );
    tx.commit().unwrap();
}
