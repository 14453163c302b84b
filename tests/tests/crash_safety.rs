//! Crash safety of the environment plugs together (checkout, sandbox, docker):
//! the runner is killed with SIGKILL in the middle of a start and in the
//! middle of a pause; a teardown run in a fresh runner process then removes
//! everything, checked by listing the real resources: no container, no
//! sandbox home, no workspace.

use std::path::Path;
use std::time::{Duration, Instant};

use blaise_control::model::IdlePolicy;
use blaise_tests::blaise::{Stage, settings};
use blaise_tests::plug;

use blaise_tests::tools::{agent_image, containers_labelled, have, origin_repo};
use sha2::{Digest, Sha256};

const MINUTE: Duration = Duration::from_secs(60);

/// checkout → sandbox (around the docker client) → docker (the agent in the
/// container). `keepalive` is the container's main command.
fn configure(s: &Stage, keepalive: &str) {
    let origin = s.path().join("origin");
    origin_repo(&origin);
    s.configure(&format!(
        "  - id: checkout\n    source: {checkout}\n    with: {{ repo: {origin} }}\n    allow: {{ exec: [git] }}\n  - id: sandbox\n    source: {sandbox}\n    with: {{ read_write: [/var/run/docker.sock] }}\n    allow: {{ exec: [bwrap], storage: true }}\n  - id: docker\n    source: {docker}\n    with: {{ image: {image}, command: {keepalive}, stop_timeout: 30 }}\n    allow: {{ exec: [docker] }}\n",
        checkout = plug("plugs/checkout").display(),
        sandbox = plug("plugs/sandbox").display(),
        docker = plug("plugs/docker").display(),
        origin = origin.display(),
        image = agent_image(),
    ));
}

/// What the session left on this machine: containers, sandbox homes, the workspace.
fn leftovers(s: &Stage, session: &str, workspace: &Path) -> Vec<String> {
    let mut left: Vec<String> = containers_labelled(&format!("blaise.session={session}"))
        .into_iter()
        .map(|c| format!("container {c}"))
        .collect();
    if let Ok(homes) = std::fs::read_dir(s.data.join("plug-storage/sandbox/homes")) {
        left.extend(
            homes
                .flatten()
                .map(|h| format!("sandbox home {}", h.path().display())),
        );
    }
    if workspace.exists() {
        left.push(format!("workspace {}", workspace.display()));
    }
    left
}

/// Waits until a process runs whose argv contains all of `words`.
async fn wait_for_process(words: &[&str], timeout: Duration) {
    let start = Instant::now();
    loop {
        let found = std::fs::read_dir("/proc").unwrap().flatten().any(|e| {
            std::fs::read(e.path().join("cmdline")).is_ok_and(|raw| {
                let argv: Vec<String> = raw
                    .split(|b| *b == 0)
                    .map(|a| String::from_utf8_lossy(a).into_owned())
                    .collect();
                words.iter().all(|w| argv.iter().any(|a| a == w))
            })
        });
        if found {
            return;
        }
        assert!(start.elapsed() < timeout, "no process ran {words:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// After the kill: Blaise times the run out; the session is closed; a fresh
/// runner process takes the teardown.
async fn close_and_tear_down_in_a_fresh_process(s: &Stage, id: &str) {
    s.blaise
        .wait_for(id, "the killed run to time out", MINUTE, |v| {
            v["runs"][0]["status"] == "timed_out"
        })
        .await;
    s.tear_down_in_a_fresh_process(id).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_runner_killed_during_start_leaks_nothing() {
    if !have(&["git", "bwrap", "docker"]) {
        return;
    }
    let s = Stage::new(settings(3_600_000, IdlePolicy::Pause)).await;
    configure(&s, "[sleep, infinity]");
    let runner = s.runner("box-1");
    let id = s.blaise.new_session("script", "say hello").await;
    // Killed as the container is being made: the checkout and the sandbox are
    // there, the docker plug's `on-start` has not returned.
    wait_for_process(&["create", &format!("blaise-docker-{id}")], MINUTE).await;
    runner.kill_all().await;
    let workspace = s.workspace(&s.blaise.show(&id).await);
    assert!(
        workspace.join("repo").exists(),
        "the start got as far as the clone"
    );

    close_and_tear_down_in_a_fresh_process(&s, &id).await;
    assert_eq!(leftovers(&s, &id, &workspace), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_runner_killed_during_pause_leaks_nothing() {
    if !have(&["git", "bwrap", "docker"]) {
        return;
    }
    let s = Stage::new(settings(1_000, IdlePolicy::Pause)).await;
    // A main process that ignores SIGTERM: `docker stop` takes its full timeout,
    // which is when the runner is killed.
    configure(&s, "[sh, -c, \"trap '' TERM; while :; do sleep 1; done\"]");
    let runner = s.runner("box-1");
    let id = s
        .blaise
        .new_session("script", "run echo \"in $(hostname)\"")
        .await;
    s.blaise
        .wait_for_text(&id, "tool_output: in ", MINUTE)
        .await;
    let workspace = s.workspace(&s.blaise.show(&id).await);
    wait_for_process(&["stop", &format!("blaise-docker-{id}")], MINUTE).await;
    runner.kill_all().await;
    assert!(
        !leftovers(&s, &id, &workspace).is_empty(),
        "the environment was there when the runner died"
    );

    close_and_tear_down_in_a_fresh_process(&s, &id).await;
    assert_eq!(leftovers(&s, &id, &workspace), Vec::<String>::new());
}

/// The database plug: a runner killed while it prepares the template, or
/// after it made the session's branch (a plug after it still starting),
/// leaves a database on the server; the teardown in a fresh process removes
/// it, and the session's login, though no state of the run may say so.
#[tokio::test(flavor = "multi_thread")]
async fn a_runner_killed_during_a_database_start_leaks_nothing() {
    use blaise_test_support::postgres;
    let Some(server) = postgres::with_passwords() else {
        eprintln!("skipped: {}", postgres::unavailable());
        return;
    };
    // (where it is killed, the steps of its template, what runs after it)
    let cases = [
        ("preparing the template", "sleep 45", ""),
        (
            "after the branch was made",
            "psql -X -q -c 'CREATE TABLE t (x int)'",
            "  - id: after\n    source: {probe}\n    with: { on_start: [{ exec: [sh, -c, \"sleep 44.9\"] }] }\n    allow: { exec: [sh] }\n",
        ),
    ];
    for (at, step, after) in cases {
        let s = Stage::new(settings(3_600_000, IdlePolicy::Pause)).await;
        let plug_id = format!("db{}", std::process::id());
        // A file, as an operator's secret is: the fresh process reads it too.
        let secret = s.path().join("pg-admin");
        std::fs::write(&secret, server.password.as_deref().unwrap()).unwrap();
        s.configure(&format!(
            "  - id: {plug_id}\n    source: {db}\n    with:\n      host: {host}\n      port: {port}\n      prepare: {{ steps: [{{ run: \"{step}\" }}] }}\n    allow:\n      exec: [psql, sh]\n      secrets: {{ admin-password: {{ file: {secret} }} }}\n{after}",
            db = plug("plugs/database").display(),
            host = server.host,
            port = server.port,
            after = after.replace("{probe}", &plug("tests/plugs/probe").display().to_string()),
            secret = secret.display(),
        ));
        let runner = s.runner("box-1");
        let id = s.blaise.new_session("script", "say hello").await;
        // A template being built carries the digest of who builds it: this
        // session's start, or the runner's preparation ahead (which an idle
        // runner starts, and whose leftover the next preparation clears).
        // Only this session's is the session's.
        let mine: String = Sha256::digest(id.as_bytes())[..4]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let ours = || {
            server
                .psql(
                    "postgres",
                    &format!(
                        "SELECT coalesce(string_agg(datname, ','), '') FROM pg_database WHERE datname LIKE '%{plug_id}%' \
                         AND datname !~ '^blaise_tpl_[a-z0-9_]+_[0-9a-f]{{16}}$' \
                         AND NOT (datname ~ '^blaise_tpl_[a-z0-9_]+_[0-9a-f]{{16}}_[0-9a-f]{{8}}$' \
                                  AND datname NOT LIKE '%\\_{mine}') UNION ALL \
                         SELECT coalesce(string_agg(rolname, ','), '') FROM pg_roles WHERE rolname LIKE '%{plug_id}%'"
                    ),
                )
                .unwrap()
        };
        if after.is_empty() {
            wait_for_process(&["-c", step], MINUTE).await;
        } else {
            wait_for_process(&["-c", "sleep 44.9"], MINUTE).await;
        }
        // The preparation ahead, which an idle runner starts at once, runs
        // the same step: the process seen may be its. Wait for the session's
        // own start to have made its template (it then sleeps in the step).
        let start = Instant::now();
        while !ours().contains(&plug_id) && start.elapsed() < MINUTE {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        runner.kill_all().await;
        let left = ours();
        assert!(
            left.contains(&plug_id),
            "{at}: the start made something: {left:?}"
        );
        close_and_tear_down_in_a_fresh_process(&s, &id).await;
        assert_eq!(ours().trim(), "", "{at}: nothing of the session is left");
    }
}
