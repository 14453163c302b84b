//! The sandbox plug against real bubblewrap: the agent runs inside it (no host
//! files outside the workspace, no network, its own PID namespace), its
//! private home survives a pause and is found again from the plug's state by
//! another runner process, and is removed at teardown.

use std::time::Duration;

use blaise_control::model::IdlePolicy;
use blaise_runner::host::bindings::RunKind;
use blaise_runner::host::{Allow, Limits};
use blaise_tests::blaise::{Stage, script_agent, settings};
use blaise_tests::destinations::{TlsServer, http_server};
use blaise_tests::tools::have;
use blaise_tests::{World, plug, setup};
use serde_json::json;

const MINUTE: Duration = Duration::from_secs(60);

fn homes(data: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(data.join("plug-storage/sandbox/homes"))
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_agent_runs_sandboxed_with_a_private_home_that_survives_pauses() {
    if !have(&["bwrap"]) {
        return;
    }
    let s = Stage::new(settings(1_500, IdlePolicy::Pause)).await;
    let outside = s.path().join("host-only.txt");
    std::fs::write(&outside, "host secret").unwrap();
    s.configure(&format!(
        "  - id: sandbox\n    source: {}\n    with:\n      read_only: [{}]\n    allow:\n      exec: [bwrap]\n      storage: true\n",
        plug("plugs/sandbox").display(),
        script_agent().parent().unwrap().display(),
    ));
    let b = &s.blaise;
    let runner = s.runner("box-1");
    let port = b.url().rsplit(':').next().unwrap().to_owned();

    let id = b
        .new_session(
            "script",
            &format!(
                "run echo \"pwd=$(pwd) home=$HOME pid1=$(cat /proc/1/comm) host=$(hostname)\"; cat {} || printf 'no-%s\\n' host-file; perl -MIO::Socket::INET -e 'IO::Socket::INET->new(PeerAddr => \"127.0.0.1:{port}\", Timeout => 2) ? print \"net-\", \"open\\n\" : printf \"no-%s\\n\", \"network\"'; echo private > ~/note; touch /usr/x 2>/dev/null || printf 'read-only-%s\\n' system",
                outside.display(),
            ),
        )
        .await;
    let text = b.wait_for_text(&id, "read-only-system", MINUTE).await;
    let view = b.show(&id).await;
    let workspace = s.workspace(&view);
    assert!(
        text.contains(&format!(
            "pwd={} home=/home/agent pid1=bwrap host=sandbox",
            workspace.display()
        )),
        "the agent runs in the sandbox, in the workspace, with its own PID namespace:\n{text}"
    );
    assert!(
        text.contains("no-host-file") && !text.contains("host secret"),
        "{text}"
    );
    assert!(
        text.contains("no-network") && !text.contains("reached"),
        "{text}"
    );
    let made = homes(&s.data);
    assert_eq!(made.len(), 2, "one home and its marker: {made:?}");

    b.wait_for(&id, "the pause", MINUTE, |v| v["state"] == "paused")
        .await;
    // The sandbox id is in the plug's state, as Blaise keeps it.
    let record = b.show(&id).await["plug_records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["plug_id"] == "sandbox")
        .cloned()
        .expect("the sandbox's record");
    assert!(
        record["keys"].to_string().contains("sandbox-id"),
        "{record}"
    );

    // Another process resumes: the same home, found from the state.
    runner.stop().await;
    let runner = s.runner("box-2");
    b.send(&id, "run echo \"note=$(cat ~/note)\"")
        .await
        .unwrap();
    b.wait_for_text(&id, "note=private\n", MINUTE).await;
    assert_eq!(homes(&s.data), made, "no second home");
    b.wait_for(&id, "the second pause", MINUTE, |v| v["state"] == "paused")
        .await;

    // The teardown run, in yet another process, removes the home.
    runner.stop().await;
    s.tear_down_in_a_fresh_process(&id).await;
    assert_eq!(homes(&s.data), Vec::<String>::new(), "the home is removed");
}

#[tokio::test]
async fn bad_config_fails_on_start_naming_the_plug_and_the_field() {
    if !have(&["bwrap"]) {
        return;
    }
    let w = World::new();
    let sandbox = w.host.load(&plug("plugs/sandbox")).await.unwrap();
    let storage = Allow {
        exec: vec!["bwrap".into()],
        storage: true,
        ..Allow::default()
    };
    // The start's error for `config`.
    let fails = |config: serde_json::Value| {
        let (w, sandbox, storage) = (&w, &sandbox, storage.clone());
        async move {
            let plug_setup = setup("my-sandbox", sandbox, config, storage, Limits::default());
            let mut run = w.instance(plug_setup, "s", RunKind::Start).await;
            run.on_start().await.unwrap_err().to_string()
        }
    };
    let err = fails(json!({ "read_only": ["/opt/tools"], "read_write": ["/opt/tools/"] })).await;
    assert!(
        err.contains("my-sandbox")
            && err.contains("with.read_write")
            && err.contains("also in `read_only`"),
        "{err}"
    );
    // An egress entry that is not one is named, with what is wrong.
    let err = fails(json!({ "network": { "allow": ["api.example.com:443", "git*.com"] } })).await;
    assert!(
        err.contains("my-sandbox")
            && err.contains("with.network.allow[1]")
            && err.contains("`git*.com`: `*` only as a whole first label"),
        "{err}"
    );

    // Without its storage granted it says which grant is missing.
    let no_storage = Allow {
        exec: vec!["bwrap".into()],
        ..Allow::default()
    };
    let mut run = w
        .instance(
            setup(
                "my-sandbox",
                &sandbox,
                json!({}),
                no_storage,
                Limits::default(),
            ),
            "s",
            RunKind::Start,
        )
        .await;
    let err = run.on_start().await.unwrap_err().to_string();
    assert!(
        err.contains("my-sandbox") && err.contains("storage: true"),
        "{err}"
    );
    assert!(run.committed_state().is_empty(), "nothing recorded");
}

#[tokio::test]
async fn a_home_whose_id_never_reached_the_state_is_still_torn_down() {
    if !have(&["bwrap"]) {
        return;
    }
    use blaise_runner::host::PlugInstance;
    use blaise_runner::host::bindings::TeardownInfo;
    use blaise_runner::state_store::MemoryStateStore;
    let w = World::new();
    let sandbox = w.host.load(&plug("plugs/sandbox")).await.unwrap();
    let allow = Allow {
        exec: vec!["bwrap".into()],
        storage: true,
        ..Allow::default()
    };
    let plug_setup = setup(
        "sandbox",
        &sandbox,
        json!({ "network": true }),
        allow,
        Limits::default(),
    );
    let mut start = w
        .instance(plug_setup.clone(), "s-crash", RunKind::Start)
        .await;
    let launch = start.on_start().await.unwrap();
    assert!(
        launch.command_prefix.contains(&"--share-net".to_string()),
        "network: true shares it"
    );
    let homes = w.tmp.path().join("plug-storage/sandbox/homes");
    assert_eq!(
        std::fs::read_dir(&homes).unwrap().count(),
        2,
        "a home and its marker"
    );

    // Another session's sandbox, which must survive.
    let mut other = w
        .instance(plug_setup.clone(), "s-other", RunKind::Start)
        .await;
    other.on_start().await.unwrap();

    // The runner died before the state was written: the teardown starts from none.
    let no_state = blaise_tests::run(
        "s-crash",
        RunKind::Teardown,
        &w.workspace,
        std::sync::Arc::new(MemoryStateStore::default()),
    );
    let mut teardown = PlugInstance::new(&w.host, plug_setup, no_state)
        .await
        .unwrap();
    let info = TeardownInfo {
        reason: "closed".into(),
        right_after_pause: false,
    };
    teardown.on_teardown(info).await.unwrap();
    // Found by its marker and removed; the other session's home and marker stay.
    let left: Vec<String> = std::fs::read_dir(&homes)
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap_or_else(|_| "(home)".into()))
        .collect();
    assert_eq!(left.len(), 2, "{left:?}");
    assert!(left.contains(&"s-other".to_string()), "{left:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn with_an_egress_policy_the_agent_reaches_the_listed_destinations_only() {
    if !have(&["bwrap"]) {
        return;
    }
    let s = Stage::new(settings(1_500, IdlePolicy::Pause)).await;
    let allowed = http_server("hello-from-the-allowed-server");
    let other_port = http_server("this-must-not-be-read");
    let tls = TlsServer::start(s.path());
    s.configure(&format!(
        "  - id: sandbox\n    source: {}\n    with:\n      read_only: [{}]\n      network:\n        allow: [\"127.0.0.1:{allowed}\", \"127.0.0.1:{}\", \"*.listed.example\"]\n    allow:\n      exec: [bwrap, blaise-egress]\n      storage: true\n",
        plug("plugs/sandbox").display(),
        script_agent().parent().unwrap().display(),
        tls.port,
    ));
    let b = &s.blaise;
    let runner = s.runner("box-1");
    // Each line prints a marker and the client's exit code (28 would be a
    // timeout: a refusal is at once).
    let script = [
        format!("curl -sS -m 20 http://127.0.0.1:{allowed}/; echo \" direct=$?\""),
        format!(
            "curl -sS -m 20 --noproxy '' -x \"$HTTP_PROXY\" http://127.0.0.1:{allowed}/; echo \" proxied=$?\""
        ),
        format!(
            "curl -sSk -m 20 --noproxy '' -x \"$HTTPS_PROXY\" -o /dev/null -w 'tls-%{{http_code}}' https://127.0.0.1:{}/; echo \" connect=$?\"",
            tls.port
        ),
        "curl -sS -m 20 --noproxy '' -x \"$HTTPS_PROXY\" https://not-listed.example/ 2>&1; echo \" name=$?\"".into(),
        format!(
            "curl -sS -m 20 --noproxy '' -x \"$HTTP_PROXY\" http://127.0.0.1:{other_port}/ 2>&1; echo \" port=$?\""
        ),
        format!("curl -sS -m 20 http://127.0.0.1:{other_port}/ 2>&1; echo \" port-direct=$?\""),
        "curl -sS -m 20 --noproxy '' -x \"$HTTPS_PROXY\" https://203.0.113.9/ 2>&1; echo \" raw-ip=$?\"".into(),
        "curl -sS -m 20 --noproxy '*' http://203.0.113.9/ 2>&1; echo \" raw-ip-direct=$?\"".into(),
        // A datagram goes nowhere: its answer is the namespace's own "port unreachable".
        "perl -MIO::Socket::INET -e 'alarm 20; my $s = IO::Socket::INET->new(PeerAddr => \"203.0.113.9:5353\", Proto => \"udp\") or die \"udp-failed: $!\\n\"; $s->send(\"x\"); my $r = $s->recv(my $b, 10); print defined($r) && length($b) ? \"udp-answered\\n\" : \"udp-refused: $!\\n\"'".into(),
        "timeout 20 getent hosts example.com; echo \" dns=$?\"".into(),
        // The runner's descriptor for the counts is not the agent's to write.
        "echo \"report-var=${BLAISE_EGRESS_REPORT_FD-unset}\"".into(),
        "echo all-done-$((40 + 2))".into(),
    ]
    .join("; ");
    let id = b.new_session("script", &format!("run {script}")).await;
    let text = b.wait_for_text(&id, "all-done-42", MINUTE).await;
    for expected in [
        "hello-from-the-allowed-server direct=0",
        "hello-from-the-allowed-server proxied=0",
        "tls-200 connect=0",
        "CONNECT tunnel failed, response 403",
        " name=56",
        "blaise-egress refused 127.0.0.1:{other_port}: not in this environment's allow list",
        " port=0",
        " port-direct=7",
        " raw-ip=56",
        " raw-ip-direct=7",
        "udp-refused: Connection refused",
        " dns=2",
        "report-var=unset",
    ] {
        let expected = expected.replace("{other_port}", &other_port.to_string());
        assert!(text.contains(&expected), "`{expected}` in:\n{text}");
    }
    assert!(!text.contains("this-must-not-be-read"), "{text}");

    // The log tells each refusal, naming the destination, with the session.
    let log = runner
        .wait_for_stderr("refused a DNS lookup of example.com", MINUTE)
        .await;
    let line = log
        .lines()
        .find(|l| l.contains("refused not-listed.example:443"))
        .unwrap();
    assert!(line.contains(&format!("session={id}")), "{line}");
    for dest in [
        format!("refused 127.0.0.1:{other_port}: not in"),
        "refused 203.0.113.9:443: not in".into(),
        // Direct attempts, which never reach the proxy, are named too.
        "refused 203.0.113.9:80: a direct connection".into(),
        "refused 203.0.113.9:5353/udp: a direct connection".into(),
        // A lookup is answered at once (REFUSED), and named.
        "refused a DNS lookup of example.com (sent to ".into(),
    ] {
        assert!(log.contains(&dest), "{dest} in:\n{log}");
    }
    // What left is counted per destination when the agent stops.
    b.wait_for(&id, "the pause", MINUTE, |v| v["state"] == "paused")
        .await;
    let log = runner
        .wait_for_stderr(
            &format!("reached 127.0.0.1:{allowed}: 2 connections"),
            MINUTE,
        )
        .await;
    assert!(
        log.contains(&format!("reached 127.0.0.1:{}: 1 connection,", tls.port)),
        "{log}"
    );
    // And in the run's record, from blaise-egress itself (not the agent's stderr).
    let egress = &b.show(&id).await["runs"][0]["egress"];
    let reached = |dest: String| {
        egress["reached"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["destination"] == dest.as_str())
            .unwrap_or_else(|| panic!("{dest} in {egress}"))
            .clone()
    };
    let direct = reached(format!("127.0.0.1:{allowed}"));
    assert_eq!(direct["connections"], 2, "{egress}");
    assert!(direct["received"].as_u64().unwrap() > 29, "{egress}");
    assert_eq!(reached(format!("127.0.0.1:{}", tls.port))["connections"], 1);
    let refused = egress["refused"].as_array().unwrap();
    for dest in [
        "not-listed.example:443".to_string(),
        format!("127.0.0.1:{other_port}"),
        "203.0.113.9:443".into(),
        "203.0.113.9:80".into(),
        "203.0.113.9:5353/udp".into(),
        "example.com (DNS lookup)".into(),
    ] {
        assert!(
            refused.contains(&dest.as_str().into()),
            "{dest} in {egress}"
        );
    }
    runner.stop().await;
    s.tear_down_in_a_fresh_process(&id).await;
}
