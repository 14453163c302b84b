//! The database plug's branch of a template, against what a user would
//! script instead, on a real PostgreSQL run durable (fsync on) as a server
//! is; and the start of a session with checkout + database against checkout
//! alone.
//!
//! For each template size (a table of rows with an index, sized by
//! `pg_database_size`):
//! - the plug's `on-start` (psql, the login, `CREATE DATABASE … STRATEGY
//!   FILE_COPY`, the ownership of every object, the password), in the plug
//!   host;
//! - the same copy by hand (`psql -c "CREATE DATABASE … TEMPLATE …"`), with
//!   FILE_COPY and with PostgreSQL 15's default, WAL_LOG;
//! - `pg_dump | psql` into a new database, as a script would do it;
//! - a `CHECKPOINT` alone: FILE_COPY starts with one, and on a small
//!   template it is most of the time.
//!
//! `cargo bench -p blaise-tests --bench database` (50 MB and 1 GB; about 10
//! minutes here) or `-- --quick` (50 MB only). Prints medians.

use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use blaise_control::model::IdlePolicy;
use blaise_runner::host::bindings::{RunKind, TeardownInfo};
use blaise_runner::host::grants::SecretSource;
use blaise_runner::host::{Allow, Limits, LoadedPlug, PlugInstance};
use blaise_test_support::postgres::{self, Server};
use blaise_tests::blaise::{Stage, settings};
use blaise_tests::tools::{have, origin_repo};
use blaise_tests::{World, plug, setup};
use serde_json::json;

const MINUTE: Duration = Duration::from_secs(60);

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// `psql` as the superuser, over TCP as any client; panics on an error.
fn psql(server: &Server, database: &str, sql: &str) -> String {
    server
        .psql(database, sql)
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// A template of about `mb` MiB: one table of rows and an index on it.
fn make_template(server: &Server, name: &str, mb: u64) -> u64 {
    psql(
        server,
        "postgres",
        &format!("DROP DATABASE IF EXISTS {name}"),
    );
    psql(server, "postgres", &format!("CREATE DATABASE {name}"));
    // A row with its index entry takes about 320 bytes on disk.
    let rows = mb * 1024 * 1024 / 320;
    psql(
        server,
        name,
        &format!(
            "CREATE TABLE items AS SELECT g AS id, md5(g::text) AS key, repeat(md5(g::text), 5) AS body \
             FROM generate_series(1, {rows}) g; CREATE INDEX ON items (key)"
        ),
    );
    psql(server, name, "VACUUM ANALYZE items");
    psql(server, "postgres", "CHECKPOINT");
    psql(
        server,
        "postgres",
        &format!("SELECT pg_database_size('{name}')"),
    )
    .parse()
    .unwrap()
}

/// A checkpoint and the kernel's writeback, so that the next measure does
/// not pay for what the one before wrote.
fn settle(server: &Server) {
    psql(server, "postgres", "CHECKPOINT");
    assert!(Command::new("sync").status().unwrap().success());
}

/// `CREATE DATABASE … TEMPLATE … STRATEGY …` from psql, timed; dropped after.
fn by_hand(server: &Server, template: &str, strategy: &str) -> Duration {
    let started = Instant::now();
    psql(
        server,
        "postgres",
        &format!("CREATE DATABASE bench_copy TEMPLATE {template} STRATEGY {strategy}"),
    );
    let took = started.elapsed();
    psql(server, "postgres", "DROP DATABASE bench_copy");
    took
}

/// A new database and `pg_dump | psql` of the template into it, timed; dropped after.
fn dump_and_restore(server: &Server, template: &str) -> Duration {
    let started = Instant::now();
    psql(server, "postgres", "CREATE DATABASE bench_restored");
    let conn = |db: &str| {
        format!(
            "host={} port={} user={} dbname={db}",
            server.host, server.port, server.user
        )
    };
    let ok = Command::new("sh")
        .args([
            "-c",
            "pg_dump --no-owner \"$1\" | psql -X -q -v ON_ERROR_STOP=1 \"$2\" >/dev/null",
            "sh",
            &conn(template),
            &conn("bench_restored"),
        ])
        .env("PGPASSWORD", server.password.as_deref().unwrap())
        .status()
        .unwrap()
        .success();
    assert!(ok, "pg_dump | psql");
    let took = started.elapsed();
    psql(server, "postgres", "DROP DATABASE bench_restored");
    took
}

/// The plug's `on-start` for a new session, timed; its teardown after.
async fn plug_branch(
    w: &World,
    plug: &Arc<LoadedPlug>,
    config: &serde_json::Value,
    allow: &Allow,
    session: &str,
) -> Duration {
    let instance = |kind| {
        let setup = setup("db", plug, config.clone(), allow.clone(), Limits::default());
        let run = blaise_tests::run(session, kind, &w.workspace, w.state.clone());
        PlugInstance::new(&w.host, setup, run)
    };
    let mut start = instance(RunKind::Start).await.unwrap();
    let started = Instant::now();
    start.on_start().await.unwrap();
    let took = started.elapsed();
    let mut teardown = instance(RunKind::Teardown).await.unwrap();
    teardown
        .on_teardown(TeardownInfo {
            reason: "closed".into(),
            right_after_pause: false,
        })
        .await
        .unwrap();
    took
}

fn allow(w: &World, server: &Server) -> Allow {
    let file = w.tmp.path().join("admin-password");
    std::fs::write(&file, server.password.as_deref().unwrap()).unwrap();
    Allow {
        exec: vec!["psql".into()],
        secrets: [("admin-password".into(), SecretSource::File(file))].into(),
        ..Allow::default()
    }
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    unsafe { std::env::remove_var("RUST_BACKTRACE") };
    let quick = std::env::args().any(|a| a == "--quick");
    let Some(server) = postgres::durable_with_passwords() else {
        eprintln!("{}", postgres::unavailable());
        return;
    };
    let w = World::new();
    let db = w.host.load(&plug("plugs/database")).await.unwrap();
    let allow = allow(&w, server);
    let sizes: &[u64] = if quick { &[50] } else { &[50, 1024] };
    for &mb in sizes {
        let template = format!("bench_template_{mb}");
        let made = Instant::now();
        let bytes = make_template(server, &template, mb);
        println!(
            "template of {:.0} MiB (pg_database_size), made in {:.1} s",
            bytes as f64 / (1 << 20) as f64,
            made.elapsed().as_secs_f64()
        );
        let n = if mb > 100 { 5 } else { 11 };
        let config = json!({ "host": server.host, "port": server.port, "template": template });
        let mut plug = Vec::new();
        let mut file_copy = Vec::new();
        let mut wal_log = Vec::new();
        // What any copy costs here whatever its size: the checkpoint that
        // FILE_COPY starts with, alone.
        let mut checkpoint = Vec::new();
        for i in 0..n {
            // Each from a settled server and disk: what the one before wrote
            // (a gigabyte of WAL, a dropped copy) is flushed first, untimed.
            settle(server);
            let started = Instant::now();
            psql(server, "postgres", "CHECKPOINT");
            checkpoint.push(ms(started.elapsed()));
            // The plug and the same copy by hand take turns going first.
            let session = format!("bench-{mb}-{i}");
            for turn in [i % 2, 1 - i % 2] {
                settle(server);
                if turn == 0 {
                    plug.push(ms(plug_branch(&w, &db, &config, &allow, &session).await));
                } else {
                    file_copy.push(ms(by_hand(server, &template, "FILE_COPY")));
                }
            }
            settle(server);
            wal_log.push(ms(by_hand(server, &template, "WAL_LOG")));
        }
        let restores = if mb > 100 { 1 } else { 3 };
        let restored: Vec<f64> = (0..restores)
            .map(|_| {
                settle(server);
                ms(dump_and_restore(server, &template))
            })
            .collect();
        let plug = median(plug);
        let file_copy = median(file_copy);
        let restored = median(restored);
        println!("  the plug's on-start (branch + login):          median {plug:9.1} ms (n={n})");
        println!(
            "  by hand, CREATE DATABASE … STRATEGY FILE_COPY: median {file_copy:9.1} ms ({:.2}x the plug)",
            file_copy / plug
        );
        println!(
            "  by hand, CREATE DATABASE … STRATEGY WAL_LOG:   median {:9.1} ms",
            median(wal_log)
        );
        println!(
            "  by hand, CHECKPOINT alone (psql):              median {:9.1} ms",
            median(checkpoint)
        );
        println!(
            "  pg_dump | psql into a new database:            median {restored:9.1} ms (n={restores}; {:.1}x the plug)",
            restored / plug
        );
        if mb > 100 {
            psql(server, "postgres", &format!("DROP DATABASE {template}"));
        }
    }
    session_starts(server, quick).await;
}

/// Start runs through a real runner process, accepted → agent spawned
/// (the runner's `host_overhead_us`), with checkout alone and with checkout
/// and the database plug on the 50 MB template.
async fn session_starts(server: &Server, quick: bool) {
    if !have(&["git"]) {
        return;
    }
    let runs = if quick { 5 } else { 11 };
    let mut medians = Vec::new();
    for with_database in [false, true] {
        let s = Stage::new(settings(600_000, IdlePolicy::Pause)).await;
        let origin = s.path().join("origin");
        origin_repo(&origin);
        let mut plugs = format!(
            "  - id: checkout\n    source: {}\n    with: {{ repo: {} }}\n    allow: {{ exec: [git] }}\n",
            plug("plugs/checkout").display(),
            origin.display()
        );
        if with_database {
            plugs.push_str(&format!(
                "  - id: db\n    source: {}\n    with: {{ host: {}, port: {}, template: bench_template_50 }}\n    allow:\n      exec: [psql]\n      secrets: {{ admin-password: {{ env: BENCH_PG_PASSWORD }} }}\n",
                plug("plugs/database").display(),
                server.host,
                server.port
            ));
        }
        s.configure(&plugs);
        let runner = s.runner_with_env(
            "bench",
            &[
                ("BENCH_PG_PASSWORD", server.password.as_deref().unwrap()),
                // Each start's own work, with no preparation beside it.
                ("BLAISE_RUNNER_NO_PREPARE_AHEAD", "true"),
            ],
        );
        runner.wait_for_stderr("connected to Blaise", MINUTE).await;
        for i in 0..runs {
            s.blaise.session_to_teardown(i).await;
        }
        let samples: Vec<f64> = runner
            .launch_fields(&["host_overhead_us"])
            .into_iter()
            .map(|f| f[0] / 1e3)
            .collect();
        runner.stop().await;
        medians.push((median(samples.clone()), samples.len()));
    }
    let ((alone, n1), (both, n2)) = (medians[0], medians[1]);
    println!(
        "start run, accepted -> agent spawned, checkout:            median {alone:8.1} ms (n={n1})"
    );
    println!(
        "start run, accepted -> agent spawned, checkout + database: median {both:8.1} ms (n={n2}; +{:.1} ms, {:.2}x)",
        both - alone,
        both / alone
    );
}
