//! Hostile plugs are contained: each misbehaviour fails the hook with an error
//! naming the plug, and the host (and the same plug, re-instantiated) keeps
//! working. Real wasmtime, real compiled plugs.

use std::time::{Duration, Instant};

use blaise_runner::host::bindings::RunKind;
use blaise_runner::host::{Allow, Failure, HookError, Limits};
use blaise_tests::{World, plug, setup};
use serde_json::{Value, json};

/// Runs `on_start` with the given actions; then proves the instance still
/// works by running a harmless `on_resume` on it.
async fn attack(w: &World, actions: Value, allow: Allow, limits: Limits) -> HookError {
    let probe = w.probe().await;
    let config = json!({"on_start": actions, "on_resume": [{"env": ["ALIVE", "yes"]}]});
    let s = setup("hostile", &probe, config, allow, limits);
    let mut p = w.instance(s, "s1", RunKind::Start).await;
    let err = p.on_start().await.unwrap_err();
    assert_eq!(err.plug_id, "hostile");
    assert!(
        err.to_string()
            .starts_with("plug `hostile` failed in on-start: "),
        "{err}"
    );
    let c = p
        .on_resume()
        .await
        .expect("the plug works again after being contained");
    assert_eq!(c.env, [("ALIVE".to_string(), "yes".to_string())]);
    err
}

fn limits(deadline_ms: u64, memory_mb: u64) -> Limits {
    Limits {
        hook_deadline: Duration::from_millis(deadline_ms),
        memory: memory_mb << 20,
        ..Limits::default()
    }
}

#[tokio::test]
async fn an_infinite_loop_is_stopped_at_the_deadline() {
    let w = World::new();
    let t = Instant::now();
    let err = attack(
        &w,
        json!([{"spin": null}]),
        Allow::default(),
        limits(300, 64),
    )
    .await;
    assert_eq!(err.failure, Failure::Deadline(Duration::from_millis(300)));
    assert!(err.to_string().contains("hook deadline of 300ms"), "{err}");
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "stopped promptly: {:?}",
        t.elapsed()
    );
}

#[tokio::test]
async fn a_memory_hog_hits_its_cap() {
    let w = World::new();
    let err = attack(
        &w,
        json!([{"alloc_mb": 512}]),
        Allow::default(),
        limits(10_000, 32),
    )
    .await;
    assert!(
        matches!(err.failure, Failure::MemoryCap { cap, .. } if cap == 32 << 20),
        "{err}"
    );
    assert!(err.to_string().contains("past its cap of 32MiB"), "{err}");
}

#[tokio::test]
async fn a_stack_overflow_is_contained() {
    let w = World::new();
    let err = attack(
        &w,
        json!([{"recurse": null}]),
        Allow::default(),
        limits(10_000, 64),
    )
    .await;
    // A Rust plug overflows its shadow stack in linear memory (a trap on an
    // out-of-bounds access) before wasmtime's own stack limit is reached.
    assert!(
        err.failure == Failure::StackOverflow || err.to_string().contains("stack overflow"),
        "{err}"
    );
}

#[tokio::test]
async fn a_panic_is_reported_with_its_message() {
    let w = World::new();
    let err = attack(
        &w,
        json!([{"panic": "something broke"}]),
        Allow::default(),
        Limits::default(),
    )
    .await;
    assert!(matches!(err.failure, Failure::Trap { .. }), "{err}");
    assert!(err.to_string().contains("something broke"), "{err}");
}

#[tokio::test]
async fn exec_needs_both_keys() {
    let w = World::new();
    // The plug asks for `echo` and `sh`; the operator grants `echo` only.
    let allow = Allow {
        exec: vec!["echo".into()],
        http: vec![],
        ..Allow::default()
    };
    let err = attack(
        &w,
        json!([{"exec": ["sh", "-c", "id"]}]),
        allow.clone(),
        Limits::default(),
    )
    .await;
    assert!(
        err.to_string()
            .contains("exec denied: `sh` is not granted to this plug (granted: echo)"),
        "{err}"
    );
    // Granted by the operator but never asked for by the plug: still denied.
    let allow_cat = Allow {
        exec: vec!["cat".into()],
        http: vec![],
        ..Allow::default()
    };
    let err = attack(
        &w,
        json!([{"exec": ["cat", "/etc/passwd"]}]),
        allow_cat,
        Limits::default(),
    )
    .await;
    assert!(err.to_string().contains("exec denied: `cat`"), "{err}");
    // A granted program runs, and a path is not the granted name.
    let err = attack(
        &w,
        json!([{"exec": ["/bin/echo", "x"]}]),
        allow.clone(),
        Limits::default(),
    )
    .await;
    assert!(
        err.to_string().contains("exec denied: `/bin/echo`"),
        "{err}"
    );

    let probe = w.probe().await;
    let s = setup(
        "granted",
        &probe,
        json!({"on_start": [{"exec": ["echo", "hello from the host"]}]}),
        allow,
        Limits::default(),
    );
    let mut p = w.instance(s, "s1", RunKind::Start).await;
    let c = p.on_start().await.unwrap();
    assert_eq!(
        c.env,
        [("EXEC_STDOUT".to_string(), "hello from the host".to_string())]
    );
}

#[tokio::test]
async fn files_outside_the_workspace_cannot_be_read() {
    let w = World::new();
    std::fs::write(w.workspace.join("inside.txt"), "mine").unwrap();
    let secret = w.tmp.path().join("outside.txt");
    std::fs::write(&secret, "not yours").unwrap();
    for path in [
        secret.to_string_lossy().into_owned(),
        "/etc/passwd".into(),
        format!("{}/../outside.txt", w.workspace.display()),
    ] {
        let err = attack(
            &w,
            json!([{"read_file": path}]),
            Allow::default(),
            Limits::default(),
        )
        .await;
        assert!(
            err.to_string().contains(&format!("cannot read {path}")),
            "{err}"
        );
    }
    let probe = w.probe().await;
    let inside = format!("{}/inside.txt", w.workspace.display());
    let s = setup(
        "reader",
        &probe,
        json!({"on_start": [{"read_file": inside}]}),
        Allow::default(),
        Limits::default(),
    );
    let mut p = w.instance(s, "s1", RunKind::Start).await;
    assert_eq!(
        p.on_start().await.unwrap().env,
        [("FILE".to_string(), "mine".to_string())]
    );
}

#[tokio::test]
async fn http_only_reaches_granted_hosts() {
    let w = World::new();
    // A real HTTP server on loopback, so that "granted" really connects.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        use std::io::{Read, Write};
        for stream in listener.incoming().take(1) {
            let mut stream = stream.unwrap();
            let mut buf = [0u8; 1024];
            let _ = stream.read(&mut buf);
            let _ = stream.write_all(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
        }
    });
    let url = format!("http://127.0.0.1:{port}/");
    // Asked for by the plug (127.0.0.1) but not granted by the operator.
    let err = attack(
        &w,
        json!([{"http": url}]),
        Allow::default(),
        Limits::default(),
    )
    .await;
    assert!(
        err.to_string()
            .contains(&format!("http denied: 127.0.0.1:{port} is not granted")),
        "{err}"
    );
    // Granted by the operator, never asked for by the plug.
    let other = Allow {
        exec: vec![],
        http: vec!["localhost".into()],
        ..Allow::default()
    };
    let err = attack(
        &w,
        json!([{"http": format!("http://localhost:{port}/")}]),
        other,
        Limits::default(),
    )
    .await;
    assert!(err.to_string().contains("http denied: localhost"), "{err}");
    // Both keys: the request goes through.
    let probe = w.probe().await;
    let allow = Allow {
        exec: vec![],
        http: vec!["127.0.0.1".into()],
        ..Allow::default()
    };
    let s = setup(
        "fetcher",
        &probe,
        json!({"on_start": [{"http": url}]}),
        allow,
        Limits::default(),
    );
    let mut p = w.instance(s, "s1", RunKind::Start).await;
    assert_eq!(
        p.on_start().await.unwrap().env,
        [("HTTP_STATUS".to_string(), "204".to_string())]
    );
    // A granted address, but a `Host` header naming another site: a shared
    // proxy would route it there. Refused before anything is sent (the
    // server above answers once and is gone).
    let allow = Allow {
        exec: vec![],
        http: vec!["127.0.0.1".into()],
        ..Allow::default()
    };
    let s = setup(
        "fronting",
        &probe,
        json!({"on_start": [{"http_header": [url, "HoSt", "admin.other.example"]}]}),
        allow,
        Limits::default(),
    );
    let mut p = w.instance(s, "s1", RunKind::Start).await;
    let err = p.on_start().await.unwrap_err().to_string();
    assert!(err.contains("http denied: the `HoSt` header"), "{err}");
}

#[tokio::test]
async fn a_log_flood_is_cut_short() {
    let w = World::new();
    let probe = w.probe().await;
    let lim = Limits {
        log_lines: 100,
        ..Limits::default()
    };
    let s = setup(
        "chatty",
        &probe,
        json!({"on_start": [{"log_flood": 200000}], "on_resume": []}),
        Allow::default(),
        lim,
    );
    let mut p = w.instance(s, "s1", RunKind::Start).await;
    let t = Instant::now();
    p.on_start()
        .await
        .expect("a flood is not an error, only cut");
    assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
    assert_eq!(
        p.last_call_dropped_logs(),
        300000 - 100,
        "every line past the budget is dropped"
    );
}

#[tokio::test]
async fn a_state_flood_hits_the_quota_and_writes_nothing() {
    let w = World::new();
    let lim = Limits {
        state_keys: 50,
        ..Limits::default()
    };
    let err = attack(&w, json!([{"state_flood": 10000}]), Allow::default(), lim).await;
    assert!(
        err.to_string()
            .contains("state: state quota exceeded: 51 keys"),
        "{err}"
    );
    assert!(
        w.state.snapshot("s1", "hostile").is_empty(),
        "a failed hook's writes are not kept"
    );
}

#[tokio::test]
async fn a_plug_for_another_contract_is_refused_naming_both_versions() {
    let w = World::new();
    let path = plug("tests/plugs/other-contract");
    let err = w
        .host
        .load(&path)
        .await
        .err()
        .expect("must be refused")
        .to_string();
    assert!(
        err.contains("was built for plug contract blaise:plug@0.4.0"),
        "{err}"
    );
    assert!(
        err.contains(
            "this runner implements blaise:plug@0.3.2 (it accepts blaise:plug@0.2.0 to blaise:plug@0.3.2)"
        ),
        "{err}"
    );
    // The host keeps working.
    w.host.load(&plug("plugs/redaction")).await.unwrap();
}

#[tokio::test]
async fn sockets_and_the_runners_environment_are_out_of_reach() {
    let w = World::new();
    // A listener the plug would reach if WASI sockets were open to it.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let err = attack(
        &w,
        json!([{"tcp_connect": addr}]),
        Allow::default(),
        Limits::default(),
    )
    .await;
    assert!(
        err.to_string()
            .contains(&format!("cannot connect to {addr}")),
        "{err}"
    );
    // Even with HTTP granted to that host: grants cover `http.send`, not raw sockets.
    let allow = Allow {
        exec: vec![],
        http: vec!["127.0.0.1".into()],
        ..Allow::default()
    };
    let err = attack(&w, json!([{"tcp_connect": addr}]), allow, Limits::default()).await;
    assert!(err.to_string().contains("cannot connect"), "{err}");
    // The runner's own environment is not inherited.
    assert!(std::env::var("PATH").is_ok());
    let err = attack(
        &w,
        json!([{"env_var": "PATH"}]),
        Allow::default(),
        Limits::default(),
    )
    .await;
    assert!(
        err.to_string().contains("no environment variable PATH"),
        "{err}"
    );
}

#[tokio::test]
async fn secrets_need_both_keys_and_are_masked_in_what_the_plug_says() {
    use blaise_runner::host::grants::SecretSource;
    let w = World::new();
    let value = "s3cr3t-Value-4f1a9c";
    let file = w.tmp.path().join("secret");
    std::fs::write(&file, format!("{value}\n")).unwrap();
    let allow = Allow {
        secrets: [
            ("probe-secret".into(), SecretSource::File(file)),
            (
                "missing-secret".into(),
                SecretSource::Env("BLAISE_TEST_UNSET_VARIABLE".into()),
            ),
        ]
        .into(),
        ..Allow::default()
    };

    // Granted and asked: read; the plug logs it and fails with it; both masked.
    let (logs, _guard) = blaise_tests::LogCapture::start();
    let err = attack(
        &w,
        json!([{"secret": "probe-secret"}]),
        allow.clone(),
        Limits::default(),
    )
    .await
    .to_string();
    assert!(
        err.contains("failing with [REDACTED:secret] in the message"),
        "{err}"
    );
    let said = logs.text();
    assert!(said.contains("the secret is [REDACTED:secret]"), "{said}");
    assert!(
        !err.contains(value) && !said.contains(value),
        "{err}\n{said}"
    );

    // Asked, not granted.
    let err = attack(
        &w,
        json!([{"secret": "probe-secret"}]),
        Allow::default(),
        Limits::default(),
    )
    .await
    .to_string();
    assert!(
        err.contains("`probe-secret` is not granted to this plug"),
        "{err}"
    );
    // Granted by the operator but never asked for by the plug.
    let err = attack(
        &w,
        json!([{"secret": "other"}]),
        allow.clone(),
        Limits::default(),
    )
    .await
    .to_string();
    assert!(err.contains("`other` is not granted"), "{err}");
    // Only asking for a secret it never declared is a warning; a declared one
    // the operator left out was reported by `check`, and the plug may go on.
    let warnings: Vec<String> = logs
        .text()
        .lines()
        .filter(|l| l.contains("WARN") && l.contains("secret="))
        .map(String::from)
        .collect();
    assert!(
        warnings
            .iter()
            .any(|l| l.contains("did not ask for") && l.contains("secret=other"))
            && !warnings.iter().any(|l| l.contains("secret=probe-secret")),
        "{warnings:#?}"
    );
    // Granted, but its source is empty: unavailable, with where it was looked for.
    let err = attack(
        &w,
        json!([{"secret": "missing-secret"}]),
        allow,
        Limits::default(),
    )
    .await
    .to_string();
    assert!(
        err.contains("BLAISE_TEST_UNSET_VARIABLE` is not set"),
        "{err}"
    );
}
