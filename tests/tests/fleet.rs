//! A fleet of real runners: each `blaise-runner start` says at connect how many runs it takes at
//! once (`--capacity` / `BLAISE_RUNNER_CAPACITY`) and which labels it has (`--labels` /
//! `BLAISE_RUNNER_LABELS`); an agent that requires labels runs only where they are, and a
//! runner at its capacity takes nothing more until a run ends. The agent is the script agent.

use std::time::Duration;

use blaise_tests::blaise::{Runner, write_script_config};
use blaise_tests::serve::Serve;
use serde_json::json;

const MINUTE: Duration = Duration::from_secs(60);

/// A `blaise.yml` in `dir` for the script agent, no plugs.
fn script_config(dir: &std::path::Path) -> std::path::PathBuf {
    let config = dir.join("blaise.yml");
    write_script_config(&config, "");
    config
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_runners_say_their_capacity_and_labels_and_offers_respect_both() {
    let tmp = tempfile::tempdir().unwrap();
    let serve = Serve::start(
        &tmp.path().join("blaise.db"),
        &["--check-interval", "100ms", "--runner-wait", "1h"],
    )
    .await;
    let api = serve.api();
    api.user
        .put(
            "/v1/agents/script",
            json!({ "inactivity_ms": 3_600_000, "requires_labels": ["gpu"] }),
        )
        .await
        .unwrap();
    let token = api.runner_token("fleet").await;
    let config = script_config(tmp.path());
    let start = |instance: &str, env: &[(&str, &str)]| {
        Runner::start_with_env(
            &serve.url(),
            &token,
            &config,
            &tmp.path().join(instance),
            &tmp.path().join("cache"),
            instance,
            env,
        )
    };

    // A runner without the label: the session waits, and says why.
    let plain = start("plain", &[("BLAISE_RUNNER_CAPACITY", "4")]);
    plain.wait_for_stderr("connected to Blaise", MINUTE).await;
    let first = api.new_session("script", "say one").await;
    let view = api
        .wait_for(&first, "the wait to be explained", MINUTE, |v| {
            v["waiting_for_runner"]["reason"]
                .as_str()
                .is_some_and(|r| r.contains("no runner with labels gpu is connected"))
        })
        .await;
    assert_eq!(view["runs"][0]["status"], "offered", "{view:#}");

    // A runner with it (and room for one run) answers; a second session waits for room.
    let gpu = start(
        "gpu-box",
        &[
            ("BLAISE_RUNNER_LABELS", "ssd,gpu"),
            ("BLAISE_RUNNER_CAPACITY", "1"),
        ],
    );
    api.wait_for_text(&first, "agent_message: one", MINUTE)
        .await;
    let second = api.new_session("script", "say two").await;
    let view = api
        .wait_for(
            &second,
            "the second session to wait for room",
            MINUTE,
            |v| {
                v["waiting_for_runner"]["reason"]
                    .as_str()
                    .is_some_and(|r| r.contains("busy"))
            },
        )
        .await;
    assert_eq!(view["runs"][0]["status"], "offered", "{view:#}");
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(
        api.show(&second).await["runs"][0]["status"],
        "offered",
        "a runner at its capacity takes nothing more"
    );

    // The first session ends: its run ends, and the second gets the room.
    api.close(&first).await.unwrap();
    api.wait_for_text(&second, "agent_message: two", MINUTE)
        .await;
    let stderr = gpu.stderr();
    assert!(
        stderr.contains("capacity=1") && stderr.contains("gpu"),
        "the runner logs what it said: {stderr}"
    );
    assert!(
        !plain.stderr().contains("accepted a run"),
        "the runner without the label took nothing"
    );
    api.close(&second).await.unwrap();
}

/// Blaise forgets a runner instance it has not seen for a week (a fleet that restarts leaves
/// many behind); a runner it forgot (a machine that slept) is told `not_connected` by its next
/// offers poll, says hello again and goes on taking runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runner_that_blaise_forgot_connects_again() {
    use blaise_control::store::Store;
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("blaise.db");
    let serve = Serve::start(&db, &["--check-interval", "100ms"]).await;
    let api = serve.api();
    api.user
        .put("/v1/agents/script", json!({ "inactivity_ms": 3_600_000 }))
        .await
        .unwrap();
    let token = api.runner_token("sleeper").await;
    let config = script_config(tmp.path());
    let runner = Runner::start_with_env(
        &serve.url(),
        &token,
        &config,
        &tmp.path().join("sleeper"),
        &tmp.path().join("cache"),
        "sleeper",
        &[],
    );
    runner.wait_for_stderr("connected to Blaise", MINUTE).await;
    // What the clock does to an instance not seen for a week, done now, from beside the server
    // (SQLite lets a second process write).
    let store = blaise_control::store::sqlite::SqliteStore::open(&db).unwrap();
    let mut tx = store.begin().unwrap();
    assert_eq!(tx.forget_connections(i64::MAX).unwrap(), 1);
    tx.commit().unwrap();
    drop(store);
    let id = api.new_session("script", "say again").await;
    api.wait_for_text(&id, "agent_message: again", MINUTE).await;
    assert!(
        runner
            .stderr()
            .contains("Blaise does not know this instance any more: connecting again"),
        "{}",
        runner.stderr()
    );
    api.close(&id).await.unwrap();
}
