//! The contract round-trips through every hook, in the right order, with
//! best-effort pause and teardown and isolated state. Real wasmtime, real
//! compiled plugs (`tests/plugs/probe`).

use std::sync::Arc;

use blaise_runner::chain::{Launch, PlugChain};
use blaise_runner::host::bindings::{EntryKind, PauseInfo, RunKind, TeardownInfo, TranscriptEntry};
use blaise_runner::host::{Allow, Failure, Limits, PlugInstance};
use blaise_runner::state_store::{SqliteStateStore, StateStore};
use blaise_tests::{World, run, setup};
use serde_json::json;

fn calls(workspace: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(workspace.join("calls.log"))
        .unwrap_or_default()
        .lines()
        .map(|l| {
            let mut parts = l.split(' ');
            format!("{} {}", parts.next().unwrap(), parts.next().unwrap())
        })
        .collect()
}

fn recorder(id: &str) -> serde_json::Value {
    json!({
        "on_start": [{"record": id}],
        "on_resume": [{"record": id}],
        "on_pause": [{"record": id}],
        "on_teardown": [{"record": id}],
    })
}

#[tokio::test]
async fn every_hook_round_trips_and_the_chain_keeps_its_order() {
    let w = World::new();
    let probe = w.probe().await;

    let mut a = recorder("a");
    a["on_start"].as_array_mut().unwrap().extend([
        json!({"env": ["SHARED", "from-a"]}),
        json!({"env": ["A", "1"]}),
        json!({"workdir": w.workspace.display().to_string()}),
        json!({"prefix": ["echo", "--flag"]}),
    ]);
    let mut b = recorder("b");
    b["on_start"].as_array_mut().unwrap().extend([
        json!({"env": ["SHARED", "from-b"]}),
        json!({"prefix": ["sh"]}),
    ]);
    b["filter_tag"] = json!("+b");
    let mut c = recorder("c");
    c["on_start"]
        .as_array_mut()
        .unwrap()
        .push(json!({"workdir": w.workspace.join("sub").display().to_string()}));
    c["filter_tag"] = json!("+c");
    // A prefix runs a program: each plug is granted the one it puts first.
    let exec = |program: &str| Allow {
        exec: vec![program.into()],
        ..Allow::default()
    };
    let setups = [
        setup("a", &probe, a, exec("echo"), Limits::default()),
        setup("b", &probe, b, exec("sh"), Limits::default()),
        setup("c", &probe, c, Allow::default(), Limits::default()),
    ];
    std::fs::create_dir(w.workspace.join("sub")).unwrap();
    let absolute = |program: &str| {
        blaise_runner::host::grants::find_program(program)
            .unwrap()
            .to_string_lossy()
            .into_owned()
    };

    let mut chain = PlugChain::new(&w.host, &setups, w.run("s1", RunKind::Start))
        .await
        .unwrap();
    let launch = chain.start().await.unwrap();
    assert_eq!(
        launch,
        Launch {
            env: vec![("A".into(), "1".into()), ("SHARED".into(), "from-b".into())],
            working_dir: Some(w.workspace.join("sub").to_string_lossy().into_owned()),
            working_dir_from: Some("c".into()),
            command_prefix: vec![absolute("echo"), "--flag".into(), absolute("sh")],
        }
    );
    assert_eq!(
        launch.command(&["agent".into()]),
        [
            absolute("echo"),
            "--flag".into(),
            absolute("sh"),
            "agent".into()
        ]
    );

    let entry = |text: &str, kind| TranscriptEntry {
        stream_id: "m".into(),
        kind,
        text: text.into(),
        last: true,
        replay: false,
    };
    let out = chain
        .filter(vec![
            entry("hi", EntryKind::AgentMessage),
            entry("note", EntryKind::Notice),
        ])
        .await
        .unwrap();
    let texts: Vec<&str> = out.iter().map(|e| e.text.as_str()).collect();
    assert_eq!(
        texts,
        ["hi+b+c", "NOTE+B+C"],
        "filters run in declaration order, over a batch in order"
    );

    let errors = chain
        .pause(&PauseInfo {
            reason: "idle".into(),
            may_resume: false,
            keep_processes: false,
        })
        .await;
    assert!(errors.is_empty(), "{errors:?}");
    let errors = chain
        .teardown(&TeardownInfo {
            reason: "closed".into(),
            right_after_pause: true,
        })
        .await;
    assert!(errors.is_empty(), "{errors:?}");

    assert_eq!(
        calls(&w.workspace),
        [
            "a start",
            "b start",
            "c start",
            "c pause:idle:false",
            "b pause:idle:false",
            "a pause:idle:false",
            "c teardown:closed:true",
            "b teardown:closed:true",
            "a teardown:closed:true",
        ]
    );
    let log = std::fs::read_to_string(w.workspace.join("calls.log")).unwrap();
    assert!(
        log.lines().all(|l| l.contains("Start")),
        "context carries the run kind: {log}"
    );
}

#[tokio::test]
async fn pause_and_teardown_are_best_effort_and_name_the_failing_plug() {
    let w = World::new();
    let probe = w.probe().await;

    let mut b = recorder("b");
    b["on_pause"] = json!([{"record": "b"}, {"fail": "cannot stop the widget"}]);
    b["on_teardown"] = json!([{"panic": "teardown exploded"}]);
    let setups = [
        setup(
            "a",
            &probe,
            recorder("a"),
            Allow::default(),
            Limits::default(),
        ),
        setup("b", &probe, b, Allow::default(), Limits::default()),
        setup(
            "c",
            &probe,
            recorder("c"),
            Allow::default(),
            Limits::default(),
        ),
    ];
    let mut chain = PlugChain::new(&w.host, &setups, w.run("s1", RunKind::Resume))
        .await
        .unwrap();
    chain.resume().await.unwrap();
    let errors = chain
        .pause(&PauseInfo {
            reason: "timeout".into(),
            may_resume: false,
            keep_processes: false,
        })
        .await;
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].plug_id, "b");
    assert_eq!(
        errors[0].to_string(),
        "plug `b` failed in on-pause: cannot stop the widget"
    );
    let errors = chain
        .teardown(&TeardownInfo {
            reason: "failed".into(),
            right_after_pause: true,
        })
        .await;
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0]
            .to_string()
            .starts_with("plug `b` failed in on-teardown: crashed (panic or abort)"),
        "{}",
        errors[0]
    );
    assert!(
        errors[0].to_string().contains("teardown exploded"),
        "the panic message is reported: {}",
        errors[0]
    );
    assert_eq!(
        calls(&w.workspace),
        [
            "a resume",
            "b resume",
            "c resume",
            "c pause:timeout:false",
            "b pause:timeout:false",
            "a pause:timeout:false",
            "c teardown:failed:true",
            "a teardown:failed:true",
        ]
    );
}

#[tokio::test]
async fn start_stops_at_the_first_failure_naming_plug_and_field() {
    let w = World::new();
    let probe = w.probe().await;
    let setups = [
        setup(
            "a",
            &probe,
            recorder("a"),
            Allow::default(),
            Limits::default(),
        ),
        setup(
            "b",
            &probe,
            json!({"on_start": [{"fail_field": ["repo", "no such repository"]}]}),
            Allow::default(),
            Limits::default(),
        ),
        setup(
            "c",
            &probe,
            recorder("c"),
            Allow::default(),
            Limits::default(),
        ),
    ];
    let mut chain = PlugChain::new(&w.host, &setups, w.run("s1", RunKind::Start))
        .await
        .unwrap();
    let err = chain.start().await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "plug `b` failed in on-start: `with.repo`: no such repository"
    );
    assert_eq!(calls(&w.workspace), ["a start"]);
}

#[tokio::test]
async fn state_is_isolated_by_plug_and_session_and_kept_only_on_success() {
    let w = World::new();
    let probe = w.probe().await;
    let db = w.tmp.path().join("state.db");
    let state: Arc<dyn StateStore> = Arc::new(SqliteStateStore::open(&db).unwrap());

    let writer = |value: &str| {
        json!({
            "on_start": [{"set": ["box", value]}, {"env_from_state": "box"}],
            "on_resume": [{"env_from_state": "box"}],
            "on_pause": [{"set": ["box", "overwritten"]}, {"fail": "pause failed after writing"}],
        })
    };
    // Two plugs of session s1 with their own values, and the same plug id in s2.
    for (session, id, value) in [
        ("s1", "one", "1"),
        ("s1", "two", "2"),
        ("s2", "one", "other-session"),
    ] {
        let s = setup(
            id,
            &probe,
            writer(value),
            Allow::default(),
            Limits::default(),
        );
        let mut p = PlugInstance::new(
            &w.host,
            s,
            run(session, RunKind::Start, &w.workspace, state.clone()),
        )
        .await
        .unwrap();
        let c = p.on_start().await.unwrap();
        assert_eq!(
            c.env,
            [("box".to_string(), value.to_string())],
            "reads see the hook's own writes"
        );
        let err = p
            .on_pause(PauseInfo {
                reason: "idle".into(),
                may_resume: true,
                keep_processes: false,
            })
            .await
            .unwrap_err();
        assert!(matches!(err.failure, Failure::Plug { .. }));
    }
    // A resume in a fresh store (as another runner process would) sees only
    // its own committed value: the failed pause's write was dropped.
    let reopened: Arc<dyn StateStore> = Arc::new(SqliteStateStore::open(&db).unwrap());
    for (session, id, value) in [
        ("s1", "one", "1"),
        ("s1", "two", "2"),
        ("s2", "one", "other-session"),
        ("s3", "one", "-"),
    ] {
        let s = setup(
            id,
            &probe,
            writer("unused"),
            Allow::default(),
            Limits::default(),
        );
        let mut p = PlugInstance::new(
            &w.host,
            s,
            run(session, RunKind::Resume, &w.workspace, reopened.clone()),
        )
        .await
        .unwrap();
        let c = p.on_resume().await.unwrap();
        assert_eq!(
            c.env,
            [("box".to_string(), value.to_string())],
            "{session}/{id}"
        );
    }
}

#[tokio::test]
async fn pausing_a_plug_that_cannot_resume_warns_naming_it_and_pauses_anyway() {
    let (captured, _guard) = blaise_tests::LogCapture::start();
    let w = World::new();
    let probe = w.probe().await;
    let oneshot = w
        .host
        .load(&blaise_tests::plug("tests/plugs/no-resume"))
        .await
        .unwrap();
    let setups = [
        setup(
            "oneshot",
            &oneshot,
            json!({}),
            Allow::default(),
            Limits::default(),
        ),
        setup(
            "probe",
            &probe,
            recorder("probe"),
            Allow::default(),
            Limits::default(),
        ),
    ];
    let mut chain = PlugChain::new(&w.host, &setups, w.run("s1", RunKind::Start))
        .await
        .unwrap();
    assert_eq!(chain.cannot_resume(), ["oneshot"]);
    chain.start().await.unwrap();
    let errors = chain
        .pause(&PauseInfo {
            reason: "idle".into(),
            may_resume: true,
            keep_processes: false,
        })
        .await;
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(
        calls(&w.workspace),
        ["probe start", "probe pause:idle:true"],
        "paused anyway"
    );
    let log = captured.text();
    let warning = log
        .lines()
        .find(|l| l.contains("pausing a plug that cannot resume"))
        .unwrap_or_else(|| panic!("no warning in:\n{log}"));
    assert!(
        warning.contains("WARN") && warning.contains("oneshot"),
        "{warning}"
    );
}
