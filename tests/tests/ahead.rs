//! Environments prepared ahead, end to end: the control plane over HTTP, a
//! real `blaise-runner start` process, real git and the script agent. While
//! the runner is idle it runs the `on-prepare` of the plugs that prepare, in
//! the order of blaise.yml, in a scratch workspace of its own: the checkout
//! plug's mirror is made before any session asks, the plugs after it read
//! its clone, and the first session's start copies from the mirror instead
//! of cloning. A changed blaise.yml is prepared again; a failed preparation
//! is logged, naming its plug, and never keeps a session from starting.

use std::path::Path;
use std::time::Duration;

use blaise_control::model::IdlePolicy;
use blaise_tests::blaise::{Stage, settings};
use blaise_tests::plug;
use blaise_tests::tools::{have, origin_repo};

const MINUTE: Duration = Duration::from_secs(60);

/// The probe, granted storage, with these `on_prepare` actions.
fn probe_entry(on_prepare: &str) -> String {
    format!(
        "  - id: probe\n    source: {}\n    with:\n      on_prepare: {on_prepare}\n    allow:\n      storage: true\n",
        plug("tests/plugs/probe").display()
    )
}

fn checkout_entry(repo: &Path) -> String {
    format!(
        "  - id: checkout\n    source: {}\n    with:\n      repo: {}\n      branch: main\n    allow:\n      exec: [git]\n      storage: true\n",
        plug("plugs/checkout").display(),
        repo.display()
    )
}

/// The probe's notes: one line per `note` action.
fn notes(data: &Path) -> Vec<String> {
    std::fs::read_to_string(data.join("plug-storage/probe/notes.log"))
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

async fn notes_until(data: &Path, n: usize) -> Vec<String> {
    let start = std::time::Instant::now();
    while notes(data).len() < n {
        assert!(start.elapsed() < MINUTE, "{:?}", notes(data));
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    notes(data)
}

/// The preparations' scratch directories in the workspaces.
fn scratch_dirs(data: &Path) -> Vec<String> {
    std::fs::read_dir(data.join("workspaces"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("prp_"))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_runner_prepares_while_idle_and_the_first_session_finds_it_made() {
    if !have(&["git"]) {
        return;
    }
    let s = Stage::new(settings(600_000, IdlePolicy::Pause)).await;
    let origin = s.path().join("origin");
    origin_repo(&origin);
    let entries = format!(
        "{}{}",
        checkout_entry(&origin),
        probe_entry("[{note: ahead}]")
    );
    s.configure(&entries);
    let runner = s.runner("box");

    // Before any session: the mirror is made, and the probe (after the
    // checkout) saw the clone in the preparation's scratch workspace.
    let line = notes_until(&s.data, 1).await.remove(0);
    let fields: Vec<&str> = line.split(' ').collect();
    assert_eq!(&fields[..2], ["ahead", "prepare"], "{line}");
    assert!(fields[2].starts_with("prepare-"), "the prepare id: {line}");
    let scratch = Path::new(fields[3]);
    assert!(
        scratch.parent() == Some(&s.data.join("workspaces").canonicalize().unwrap())
            && scratch
                .file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("prp_"),
        "{line}"
    );
    assert_eq!(
        fields[4], "[repo]",
        "the checkout's clone was there: {line}"
    );
    let mirrors = s.data.join("plug-storage/checkout/mirrors");
    assert_eq!(std::fs::read_dir(&mirrors).unwrap().count(), 1);
    runner
        .wait_for_stderr("prepared ahead of the sessions", MINUTE)
        .await;
    // The daemon removes it once the preparation has ended.
    scratch_gone(&s.data).await;
    assert_eq!(runner.stderr().matches("made a mirror of").count(), 1);

    // The first session copies from the mirror; nothing is made again.
    let b = &s.blaise;
    let id = b
        .new_session("script", "run echo \"readme=$(cat README.md)\"")
        .await;
    b.wait_for_text(&id, "readme=second", MINUTE).await;
    // The preparation's clone said it once; the session's start says it too.
    runner
        .wait_for_stderr_count("from its mirror", 2, MINUTE)
        .await;
    let log = runner.stderr();
    assert_eq!(log.matches("made a mirror of").count(), 1, "{log}");
    assert_eq!(notes(&s.data).len(), 1, "prepared once");

    // A changed blaise.yml is prepared again, while the session goes on.
    s.configure(&format!("{entries}# changed\n"));
    let second = notes_until(&s.data, 2).await.remove(1);
    assert!(
        second.starts_with(&format!("ahead prepare {} ", fields[2])),
        "the same prepare id: {second}"
    );
    assert_eq!(b.show(&id).await["state"], "active");
    runner.stop().await;
    assert_eq!(scratch_dirs(&s.data), Vec::<String>::new());
}

async fn scratch_gone(data: &Path) {
    let start = std::time::Instant::now();
    while !scratch_dirs(data).is_empty() {
        assert!(start.elapsed() < MINUTE, "{:?}", scratch_dirs(data));
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failed_preparation_names_its_plug_is_not_retried_at_once_and_keeps_no_session_waiting() {
    let s = Stage::new(settings(600_000, IdlePolicy::Pause)).await;
    s.configure(&probe_entry(
        "[{note: tried}, {fail: \"the base image is not there\"}]",
    ));
    let runner = s.runner("box");
    let log = runner
        .wait_for_stderr("the preparation ahead failed", MINUTE)
        .await;
    assert!(
        log.contains("probe")
            && log.contains("on-prepare")
            && log.contains("the base image is not there"),
        "{log}"
    );
    scratch_gone(&s.data).await;

    // A session starts as it would have.
    let b = &s.blaise;
    let id = b.new_session("script", "say started anyway").await;
    b.wait_for_text(&id, "started anyway", MINUTE).await;

    // Not tried again while blaise.yml is the same (a failure waits ten
    // minutes); blaise.yml is read every 5 s.
    tokio::time::sleep(Duration::from_secs(12)).await;
    assert_eq!(notes(&s.data).len(), 1, "{:?}", notes(&s.data));
    runner.stop().await;
}
