//! The contract evolves without breaking published plugs: a plug built for
//! contract 0.2.0 (`tests/plugs/older-contract`, plain wit-bindgen against
//! the frozen `wit/0.2/plug.wit`) loads, runs every hook and every import
//! through the runner's adapter, and is never told to keep processes; a
//! hot pause reaches only chains whose every plug keeps processes. Real
//! wasmtime, real compiled plugs.

use blaise_runner::chain::PlugChain;
use blaise_runner::host::bindings::{EntryKind, PauseInfo, RunKind, TeardownInfo, TranscriptEntry};
use blaise_runner::host::contract::{self, Version};
use blaise_runner::host::grants::SecretSource;
use blaise_runner::host::{Allow, Limits};
use blaise_tests::{World, setup};
use serde_json::json;

fn older_log(w: &World) -> Vec<String> {
    std::fs::read_to_string(w.workspace.join("older.log"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

fn calls(w: &World) -> Vec<String> {
    std::fs::read_to_string(w.workspace.join("calls.log"))
        .unwrap_or_default()
        .lines()
        .map(|l| l.split(' ').take(2).collect::<Vec<_>>().join(" "))
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

fn hot_pause() -> PauseInfo {
    PauseInfo {
        reason: "idle".into(),
        may_resume: true,
        keep_processes: true,
    }
}

#[tokio::test]
async fn a_plug_built_for_contract_0_2_runs_every_hook_and_import_through_the_adapter() {
    let w = World::new();
    let older = w
        .host
        .load(&blaise_tests::plug("tests/plugs/older-contract"))
        .await
        .unwrap();
    assert_eq!(older.contract, Version::parse("0.2.0").unwrap());
    assert!(contract::adapted(older.contract));
    assert!(
        older.imports.iter().any(|i| i == "blaise:plug/state@0.2.0"),
        "{:?}",
        older.imports
    );
    // `describe` crossed the adapter: everything it said, and the field 0.3
    // added read as "no".
    let info = &older.info;
    assert_eq!(
        (info.name.as_str(), info.stateful, info.can_resume),
        ("older", true, true)
    );
    assert!(info.filters_transcript && !info.keeps_processes);
    assert_eq!(info.hooks.len(), 4);
    assert_eq!(info.needs.exec, ["echo"]);
    assert_eq!(info.needs.secrets, ["OLDER_TOKEN"]);

    let token = w.tmp.path().join("token");
    std::fs::write(&token, "older-plug-token-value").unwrap();
    let allow = Allow {
        exec: vec!["echo".into()],
        secrets: [("OLDER_TOKEN".into(), SecretSource::File(token))].into(),
        ..Allow::default()
    };
    let setups = [setup(
        "older",
        &older,
        json!({}),
        allow.clone(),
        Limits::default(),
    )];

    // A start run, its filter, and a pause asked to keep processes: the
    // older plug cannot, so the pause reaches it cold.
    let mut chain = PlugChain::new(&w.host, &setups, w.run("s1", RunKind::Start))
        .await
        .unwrap();
    assert_eq!(chain.cannot_keep_processes(), ["older"]);
    let launch = chain.start().await.unwrap();
    assert_eq!(
        launch.env,
        [
            ("OLDER_PLUG".to_string(), "0.2".to_string()),
            ("OLDER_RUNS".to_string(), "1".to_string())
        ]
    );
    let out = chain
        .filter(vec![TranscriptEntry {
            stream_id: "m1".into(),
            kind: EntryKind::ToolOutput,
            text: "ls".into(),
            last: false,
            replay: true,
        }])
        .await
        .unwrap();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].text, "ls [seen by a 0.2 plug]");
    assert_eq!(
        (
            out[0].stream_id.as_str(),
            out[0].kind,
            out[0].last,
            out[0].replay
        ),
        ("m1", EntryKind::ToolOutput, false, true),
        "the entry's marks cross the adapter both ways"
    );
    let errors = chain.pause(&hot_pause()).await;
    assert!(errors.is_empty(), "{errors:?}");

    // The resume run: its state from the start run, and a plug error with
    // its field carried back.
    let mut chain = PlugChain::new(&w.host, &setups, w.resume_run("s1", true))
        .await
        .unwrap();
    let launch = chain.resume().await.unwrap();
    assert!(
        launch
            .env
            .contains(&("OLDER_RUNS".to_string(), "2".to_string())),
        "state kept across runs: {:?}",
        launch.env
    );
    let errors = chain
        .teardown(&TeardownInfo {
            reason: "closed".into(),
            right_after_pause: false,
        })
        .await;
    assert!(errors.is_empty(), "{errors:?}");

    let failing = [setup(
        "older",
        &older,
        json!({"fail_resume": true}),
        allow,
        Limits::default(),
    )];
    let mut chain = PlugChain::new(&w.host, &failing, w.run("s2", RunKind::Resume))
        .await
        .unwrap();
    let err = chain.resume().await.unwrap_err();
    assert_eq!(err.plug_id, "older");
    assert_eq!(
        err.to_string(),
        "plug `older` failed in on-resume: `with.fail_resume`: the older plug was told to fail its resume"
    );

    let log = older_log(&w);
    assert_eq!(
        log,
        [
            "on-start start config={}".to_string(),
            "imports start runs=1 echo=Some(0) run 1 secret=22 bytes http=denied".to_string(),
            "on-pause reason=idle may_resume=true".to_string(),
            "on-resume resume".to_string(),
            "imports resume runs=2 echo=Some(0) run 2 secret=22 bytes http=denied".to_string(),
            "on-teardown reason=closed right_after_pause=false".to_string(),
            "on-resume resume".to_string(),
        ],
        "every hook and import crossed the adapter"
    );
}

#[tokio::test]
async fn a_hot_pause_reaches_plugs_only_when_every_plug_of_the_chain_keeps_processes() {
    let w = World::new();
    let probe = w.probe().await;
    assert!(probe.info.keeps_processes);
    let older = w
        .host
        .load(&blaise_tests::plug("tests/plugs/older-contract"))
        .await
        .unwrap();

    // Only 0.3 plugs that keep processes: they are told, and the resume after
    // is told the processes were kept.
    let both = [
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
            recorder("b"),
            Allow::default(),
            Limits::default(),
        ),
    ];
    let mut chain = PlugChain::new(&w.host, &both, w.run("hot", RunKind::Start))
        .await
        .unwrap();
    assert!(chain.cannot_keep_processes().is_empty());
    chain.start().await.unwrap();
    assert!(chain.pause(&hot_pause()).await.is_empty());
    let mut chain = PlugChain::new(&w.host, &both, w.resume_run("hot", true))
        .await
        .unwrap();
    chain.resume().await.unwrap();
    assert_eq!(
        calls(&w),
        [
            "a start",
            "b start",
            "b pause:idle:true:kept",
            "a pause:idle:true:kept",
            "a resume:kept",
            "b resume:kept",
        ]
    );

    // The same pause asked of a chain with the 0.2 plug: nobody is told to
    // keep processes, the 0.3 plug included.
    std::fs::remove_file(w.workspace.join("calls.log")).unwrap();
    let mixed = [
        setup(
            "a",
            &probe,
            recorder("a"),
            Allow::default(),
            Limits::default(),
        ),
        setup(
            "older",
            &older,
            json!({}),
            Allow::default(),
            Limits::default(),
        ),
    ];
    let mut chain = PlugChain::new(&w.host, &mixed, w.run("cold", RunKind::Start))
        .await
        .unwrap();
    chain.start().await.unwrap();
    assert!(chain.pause(&hot_pause()).await.is_empty());
    assert_eq!(calls(&w), ["a start", "a pause:idle:true"]);

    // And a hot pause that may not resume is cold too.
    let mut chain = PlugChain::new(&w.host, &both, w.run("last", RunKind::Start))
        .await
        .unwrap();
    chain.start().await.unwrap();
    let pause = PauseInfo {
        may_resume: false,
        ..hot_pause()
    };
    assert!(chain.pause(&pause).await.is_empty());
    assert_eq!(
        calls(&w)[2..],
        [
            "a start",
            "b start",
            "b pause:idle:false",
            "a pause:idle:false"
        ]
    );
}

/// 0.3.1 only added an import (`secrets.mask`): a plug built for 0.3.0
/// (`tests/plugs/earlier-patch`) loads as it is, without the adapter, its
/// `secrets@0.3.0` import linked to today's capability and its
/// `hooks@0.3.0` export called as today's.
#[tokio::test]
async fn a_plug_built_for_contract_0_3_0_runs_on_0_3_1_as_it_is() {
    let w = World::new();
    let earlier = w
        .host
        .load(&blaise_tests::plug("tests/plugs/earlier-patch"))
        .await
        .unwrap();
    assert_eq!(earlier.contract, Version::parse("0.3.0").unwrap());
    assert!(!contract::adapted(earlier.contract));
    assert!(
        earlier
            .imports
            .iter()
            .any(|i| i == "blaise:plug/secrets@0.3.0"),
        "{:?}",
        earlier.imports
    );
    assert!(earlier.info.keeps_processes, "nothing of 0.3.0 is lost");
    let file = w.tmp.path().join("token");
    std::fs::write(&file, "tok-0c9e2a7f41d6b3").unwrap();
    let allow = Allow {
        secrets: [("token".into(), SecretSource::File(file))].into(),
        ..Allow::default()
    };
    let mut run = w
        .instance(
            setup("earlier", &earlier, json!({}), allow, Limits::default()),
            "s",
            RunKind::Start,
        )
        .await;
    let started = run.on_start().await.unwrap();
    assert_eq!(
        started.env,
        [("TOKEN".to_string(), "tok-0c9e2a7f41d6b3".to_string())]
    );
}

/// 0.3.2 added an optional export, `prepare`: a preparation calls
/// `on-prepare` of the plugs whose `prepares` says so, in the order of the
/// chain, with the prepare id and a workspace of its own; a plug built
/// without it (0.2 through the adapter, 0.3.0, or the SDK's plug that
/// defines no `on_prepare`) is never called, and a failure stops the
/// preparation naming its plug.
#[tokio::test]
async fn a_preparation_calls_only_the_plugs_that_prepare_in_order() {
    let w = World::new();
    let probe = w.probe().await;
    let load = |path: &'static str| {
        let host = w.host.clone();
        async move { host.load(&blaise_tests::plug(path)).await.unwrap() }
    };
    let (older, earlier, noop) = (
        load("tests/plugs/older-contract").await,
        load("tests/plugs/earlier-patch").await,
        load("tests/plugs/noop").await,
    );
    let preparing = |id: &str, actions: serde_json::Value| {
        setup(
            id,
            &probe,
            json!({ "on_prepare": actions, "on_start": [{"record": id}] }),
            Allow::default(),
            Limits::default(),
        )
    };
    let plain = |id: &str, plug| setup(id, plug, json!({}), Allow::default(), Limits::default());
    let chain_of = |setups: Vec<_>| {
        let host = w.host.clone();
        // A preparation's run: its run id is the prepare id.
        let run = std::sync::Arc::new(blaise_runner::host::RunInfo {
            run_id: "prepare-0123abcd".into(),
            ..(*w.run("prepare-0123abcd", RunKind::Start)).clone()
        });
        async move { PlugChain::new(&host, &setups, run).await.unwrap() }
    };

    let mut chain = chain_of(vec![
        plain("older", &older),
        preparing("a", json!([{"record": "a"}])),
        plain("earlier", &earlier),
        plain("noop", &noop),
        preparing("b", json!([{"record": "b"}])),
    ])
    .await;
    assert_eq!(chain.prepare().await.unwrap(), ["a", "b"]);
    let log = std::fs::read_to_string(w.workspace.join("calls.log")).unwrap();
    assert_eq!(
        log,
        "a prepare RunKind::Start prepare-0123abcd\nb prepare RunKind::Start prepare-0123abcd\n",
        "in order, each told the prepare id"
    );
    assert!(!older_log(&w).iter().any(|l| l.contains("prepare")));

    // The first failure stops it: the plugs after are not called.
    std::fs::remove_file(w.workspace.join("calls.log")).unwrap();
    let mut chain = chain_of(vec![
        preparing("a", json!([{"fail": "the base image is not there"}])),
        preparing("b", json!([{"record": "b"}])),
    ])
    .await;
    let err = chain.prepare().await.unwrap_err();
    assert_eq!((err.plug_id.as_str(), err.hook), ("a", "on-prepare"));
    assert!(
        err.to_string().contains("the base image is not there"),
        "{err}"
    );
    assert!(!w.workspace.join("calls.log").exists(), "b was not called");
}
