//! The store itself, on this binary's backend: the conformance suite, and transactions of one
//! session racing from two store handles (two instances' worth of connections on one database).

use std::sync::Arc;

use blaise_control::config::Config;
use blaise_control::lifecycle::{transact, transact_one};
use blaise_control::model::*;
use blaise_control::store::{Store, conformance};

use crate::support::open_store;

#[test]
fn the_store_conforms() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _db) = open_store(dir.path());
    conformance::check(&*store);
}

/// Every transition reads the session, changes it and appends to its transcript: run from
/// several threads on two handles at once, none may be lost or see another half-done (a
/// transaction that loses a race runs again from the start).
#[test]
fn racing_transitions_of_one_session_all_land_once_and_in_turn() {
    const THREADS: usize = 6;
    const EACH: usize = 25;
    let dir = tempfile::tempdir().unwrap();
    let (first, db) = open_store(dir.path());
    let second = second_handle(dir.path(), &db);
    let id = "ses_00000000000000aa";
    let cfg = Config::default();
    transact(&*first, &cfg, 0, |ctx| {
        Ok(ctx
            .tx
            .put_session(&conformance::session(id, SessionState::Active, 0))?)
    })
    .unwrap();

    std::thread::scope(|scope| {
        for t in 0..THREADS {
            let store = if t % 2 == 0 {
                first.clone()
            } else {
                second.clone()
            };
            let cfg = &cfg;
            scope.spawn(move || {
                for i in 0..EACH {
                    transact(&*store, cfg, 0, |ctx| {
                        let mut s = ctx.session(id)?;
                        let turn = s.open_turns;
                        s.open_turns += 1;
                        let mut entry = TranscriptEntry {
                            index: 0,
                            session_id: id.into(),
                            run_id: None,
                            seq: None,
                            kind: "notice".into(),
                            content: serde_json::json!({ "turn": turn, "by": [t, i] }),
                            at: 0,
                        };
                        ctx.tx.append_transcript(&mut entry)?;
                        ctx.tx.put_session(&s)?;
                        Ok(())
                    })
                    .unwrap_or_else(|e| panic!("thread {t}, transition {i}: {e}"));
                }
            });
        }
    });

    let (session, entries) = transact(&*first, &cfg, 0, |ctx| {
        Ok((ctx.session(id)?, ctx.tx.transcript(id, 0, 10_000)?))
    })
    .unwrap();
    let n = THREADS * EACH;
    assert_eq!(session.open_turns as usize, n, "no transition was lost");
    assert_eq!(entries.len(), n);
    for (k, e) in entries.iter().enumerate() {
        assert_eq!(e.index, k as i64 + 1, "indices run without gaps");
        // Each transition saw the one before it whole: the turn it read is its place.
        assert_eq!(
            e.content["turn"], k,
            "entry {k} read a stale session: {}",
            e.content
        );
    }
}

/// PostgreSQL ends every connection of the store (an administrator, a failover, a restart): the
/// next transactions open new ones instead of failing on the dead.
#[test]
fn transactions_go_on_after_postgresql_ends_the_stores_connections() {
    let dir = tempfile::tempdir().unwrap();
    let (store, db) = open_store(dir.path());
    let Some(db) = db else {
        return; // SQLite has no connections to lose.
    };
    let cfg = Config::default();
    let write = |hash: &str| {
        transact(&*store, &cfg, 0, |ctx| {
            Ok(ctx.tx.set_admin_token_hash(hash)?)
        })
        .unwrap()
    };
    // Several connections in the pool at once, then idle.
    let fill_pool = |prefix: &str| {
        std::thread::scope(|s| {
            for i in 0..4 {
                let write = &write;
                s.spawn(move || write(&format!("{prefix}{i}")));
            }
        })
    };
    fill_pool("h");
    db.terminate_connections();
    for i in 0..20 {
        write(&format!("after{i}"));
    }
    let hash = transact(&*store, &cfg, 0, |ctx| Ok(ctx.tx.admin_token_hash()?)).unwrap();
    assert_eq!(hash.as_deref(), Some("after19"));
    // Reads of one statement (no transaction around them) too.
    fill_pool("again");
    db.terminate_connections();
    for _ in 0..8 {
        let hash = transact_one(&*store, &cfg, 0, |ctx| Ok(ctx.tx.admin_token_hash()?)).unwrap();
        assert!(hash.is_some_and(|h| h.starts_with("again")));
    }
}

/// A read of one statement runs one: a second is refused, not run outside a transaction.
#[test]
fn a_read_of_one_statement_refuses_a_second() {
    let dir = tempfile::tempdir().unwrap();
    let (store, db) = open_store(dir.path());
    if db.is_none() {
        return; // SQLite reads in a transaction either way.
    }
    let mut tx = store.begin_one().unwrap();
    assert_eq!(tx.admin_token_hash().unwrap(), None);
    let second = tx.runner_by_token_hash("abc").unwrap_err();
    assert!(second.to_string().contains("second"), "{second}");
}

/// Reading a run in a transition waits while another transition holds its session, and then
/// sees what that one wrote.
#[test]
fn reading_a_run_waits_for_the_transition_that_holds_its_session() {
    let dir = tempfile::tempdir().unwrap();
    let (store, db) = open_store(dir.path());
    let second = second_handle(dir.path(), &db);
    let id = "ses_00000000000000bb";
    {
        let mut tx = store.begin().unwrap();
        tx.put_session(&conformance::session(id, SessionState::Active, 0))
            .unwrap();
        tx.put_run(&conformance::run(
            "run_00000000000000bb",
            id,
            RunStatus::Offered,
        ))
        .unwrap();
        tx.commit().unwrap();
    }
    let (held, release) = std::sync::mpsc::channel::<()>();
    let holder = {
        let store = store.clone();
        std::thread::spawn(move || {
            let mut tx = store.begin().unwrap();
            let mut run = tx.run("run_00000000000000bb").unwrap().unwrap();
            held.send(()).unwrap();
            std::thread::sleep(std::time::Duration::from_millis(400));
            run.status = RunStatus::Accepted;
            tx.put_run(&run).unwrap();
            tx.commit().unwrap();
        })
    };
    release.recv().unwrap();
    let started = std::time::Instant::now();
    let mut tx = second.begin().unwrap();
    let run = tx.run("run_00000000000000bb").unwrap().unwrap();
    let waited = started.elapsed();
    holder.join().unwrap();
    assert_eq!(
        run.status,
        RunStatus::Accepted,
        "it read what the holder wrote"
    );
    assert!(
        waited.as_millis() >= 300,
        "it waited for the holder: {waited:?}"
    );
}

/// A second handle on the test's database, as a second instance would have.
fn second_handle(dir: &std::path::Path, db: &Option<crate::pg::TestDb>) -> Arc<dyn Store> {
    match db {
        Some(db) => {
            Arc::new(blaise_control::store::postgres::PostgresStore::open(&db.url).unwrap())
        }
        None => Arc::new(
            blaise_control::store::sqlite::SqliteStore::open(&dir.join("blaise.db")).unwrap(),
        ),
    }
}

/// A write that fails fails its transaction, wherever the store says so: SQLite at the write,
/// PostgreSQL possibly only at the commit (a write whose answer nothing waits for goes with
/// the next statement). Nothing of the transaction is kept, and the commit does not pass for
/// done.
#[test]
fn a_transaction_whose_write_fails_keeps_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _db) = open_store(dir.path());
    let id = "ses_00000000000000aa";
    let entry = |seq| TranscriptEntry {
        index: 0,
        session_id: id.into(),
        run_id: Some("run_00000000000000aa".into()),
        seq: Some(seq),
        kind: "agent_message".into(),
        content: serde_json::json!({ "text": "hi" }),
        at: 0,
    };
    let outcome = (|| {
        let mut tx = store.begin()?;
        tx.put_session(&conformance::session(id, SessionState::Active, 0))?;
        // The same run number twice: the transcript's unique index refuses the second.
        tx.append_transcript_all(&mut [entry(1)])?;
        tx.append_transcript_all(&mut [entry(1)])?;
        tx.commit()
    })();
    assert!(
        outcome.is_err(),
        "a transaction with a failed write committed"
    );
    let mut tx = store.begin_read().unwrap();
    assert_eq!(
        tx.session(id).unwrap(),
        None,
        "the failed transaction's session was kept"
    );
    assert!(tx.transcript(id, 0, 10).unwrap().is_empty());
}

/// A database a newer blaise has migrated (as after an upgrade rolled back without restoring
/// the backup) is refused at open, saying which versions and what to do: this blaise's queries
/// may not match the newer tables, and a write through them could lose what the newer one wrote.
#[test]
fn a_database_a_newer_blaise_migrated_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (store, db) = open_store(dir.path());
    drop(store);
    let opened = match &db {
        Some(db) => {
            db.execute("INSERT INTO blaise_migrations (version, applied_at) VALUES (999, 0)");
            blaise_control::store::postgres::PostgresStore::open(&db.url).map(|_| ())
        }
        None => {
            let path = dir.path().join("blaise.db");
            rusqlite::Connection::open(&path)
                .unwrap()
                .pragma_update(None, "user_version", 999)
                .unwrap();
            blaise_control::store::sqlite::SqliteStore::open(&path).map(|_| ())
        }
    };
    let error = opened.expect_err("a newer schema is refused").to_string();
    assert!(
        error.contains("schema version 999") && error.contains("a newer blaise has migrated it"),
        "{error}"
    );
    // Refusing changed nothing: it is still refused, and still at 999.
    if db.is_none() {
        let path = dir.path().join("blaise.db");
        let version: i64 = rusqlite::Connection::open(&path)
            .unwrap()
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(version, 999);
    }
}
