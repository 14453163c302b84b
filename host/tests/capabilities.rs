//! Each host capability's host side, called directly through the view it is
//! linked with: no plug is compiled. A view holds only its capability's
//! slice of the store, so these tests build exactly that slice.

use std::io::{Read as _, Write as _};
use std::time::{Duration, Instant};

use blaise_host::bindings::blaise::plug::http::{Host as _, HttpError, Request};
use blaise_host::bindings::blaise::plug::log::{Host as _, Level};
use blaise_host::bindings::blaise::plug::process::{Command, Host as _, ProcessError};
use blaise_host::bindings::blaise::plug::secrets::{Host as _, SecretError};
use blaise_host::bindings::blaise::plug::state::{Host as _, StateError};
use blaise_host::capability::http::HttpCap;
use blaise_host::capability::log::{LogCap, LogSink};
use blaise_host::capability::process::ProcessCap;
use blaise_host::capability::secrets::SecretsCap;
use blaise_host::capability::state::StateCap;
use blaise_host::ctx::{PlugLabel, StateView};
use blaise_host::grants::{ExecGrant, HttpGrant, SecretGrant, SecretSource};
use blaise_host::limits::Limits;

fn label() -> PlugLabel {
    PlugLabel {
        plug_id: "p".into(),
        session_id: "s".into(),
    }
}

#[tokio::test]
async fn state_keeps_writes_pending_and_counts_the_quota_with_them() {
    let label = label();
    let limits = Limits {
        state_keys: 2,
        ..Limits::default()
    };
    let mut view = StateView::default();
    view.committed.insert("kept".into(), b"1".to_vec());
    let mut cap = StateCap {
        state: &mut view,
        limits: &limits,
        label: &label,
    };
    cap.set("new".into(), b"2".to_vec()).await.unwrap();
    assert_eq!(cap.get("new".into()).await.unwrap(), Some(b"2".to_vec()));
    // A third key is over the quota of two, pending writes included.
    match cap.set("third".into(), b"3".to_vec()).await {
        Err(StateError::QuotaExceeded(why)) => assert!(why.contains("3 keys"), "{why}"),
        other => panic!("{other:?}"),
    }
    // Deleting an absent key changes nothing; deleting a committed one is
    // pending, and frees its place.
    cap.delete("absent".into()).await.unwrap();
    cap.delete("kept".into()).await.unwrap();
    assert_eq!(cap.list_keys().await.unwrap(), ["new"]);
    cap.set("third".into(), b"3".to_vec()).await.unwrap();
    assert_eq!(cap.list_keys().await.unwrap(), ["new", "third"]);
    // Nothing is committed by the capability itself.
    assert_eq!(view.committed.get("kept"), Some(&b"1".to_vec()));
    assert_eq!(view.pending.get("kept"), Some(&None));
}

#[tokio::test]
async fn log_cuts_a_flood_at_the_hook_budget() {
    let sink = LogSink::new(label(), 3, 16);
    sink.begin_call(false);
    let mut cap = LogCap { sink: &sink };
    cap.log(Level::Info, "one\ntwo\nthree\nfour\nfive".into())
        .await;
    assert_eq!(sink.end_call(), 2, "lines past the budget of 3 are dropped");
    sink.begin_call(false);
    cap.log(Level::Warn, "x".repeat(100)).await;
    assert_eq!(sink.end_call(), 0, "a long line is cut, not dropped");
}

/// What a transcript filter writes during its call is counted, not logged: it is handed the
/// agent's unfiltered text, and may write it. Its last stderr line is still kept (what a trap
/// is classified by), for the host to leave out of the error.
#[tokio::test]
async fn a_filters_lines_are_not_logged() {
    let sink = LogSink::new(label(), 3, 64);
    sink.begin_call(true);
    let mut cap = LogCap { sink: &sink };
    cap.log(Level::Warn, "saw ghp_unfilteredTextOfTheAgent".into())
        .await;
    sink.emit(Level::Warn, "stderr", "panicked at the text ghp_unfiltered");
    assert_eq!(
        sink.last_stderr().as_deref(),
        Some("panicked at the text ghp_unfiltered")
    );
    assert_eq!(sink.end_call(), 0, "withheld, not dropped for the budget");
    // The next call of another hook logs again.
    sink.begin_call(false);
    cap.log(Level::Info, "on-pause says hi".into()).await;
    assert_eq!(sink.end_call(), 0);
}

#[tokio::test]
async fn secrets_gives_only_granted_values_and_masks_them_from_then_on() {
    let label = label();
    // SAFETY: tests in this file do not read these variables concurrently.
    unsafe {
        std::env::set_var("BLAISE_HOST_TEST_TOKEN", "tok-3f9a1c77e2b4");
        std::env::set_var("BLAISE_HOST_TEST_SHORT", "abc");
    }
    let grant = SecretGrant(
        [
            ("token", "BLAISE_HOST_TEST_TOKEN"),
            ("short", "BLAISE_HOST_TEST_SHORT"),
            ("unset", "BLAISE_HOST_TEST_UNSET"),
        ]
        .into_iter()
        .map(|(name, var)| (name.to_string(), SecretSource::Env(var.into())))
        .collect(),
    );
    let declined = vec!["declined".to_string()];
    let mut cap = SecretsCap {
        grant: &grant,
        declined: &declined,
        label: &label,
    };
    let value = cap.get("token".into()).await.unwrap();
    assert_eq!(value, "tok-3f9a1c77e2b4");
    let logged = blaise_host::secret_mask::scrub("the token is tok-3f9a1c77e2b4.");
    assert!(!logged.contains("3f9a1c77"), "{logged}");
    for (name, denied) in [
        ("other", true),
        ("declined", true),
        ("short", false),
        ("unset", false),
    ] {
        match cap.get(name.into()).await {
            Err(SecretError::Denied(why)) if denied => {
                assert!(why.contains("not granted"), "{why}")
            }
            Err(SecretError::Unavailable(why)) if !denied => assert!(!why.contains("abc"), "{why}"),
            other => panic!("{name}: {other:?}"),
        }
    }
}

#[tokio::test]
async fn secrets_masks_a_value_the_plug_made_within_bounds() {
    let label = PlugLabel {
        plug_id: "masker".into(),
        session_id: "s".into(),
    };
    let grant = SecretGrant::default();
    let mut cap = SecretsCap {
        grant: &grant,
        declined: &[],
        label: &label,
    };
    let made = "pw-5e0c8a91d2f34b7a";
    cap.mask(made.into()).await.unwrap();
    let logged = blaise_host::secret_mask::scrub("PGPASSWORD=pw-5e0c8a91d2f34b7a ok");
    assert_eq!(logged, "PGPASSWORD=[REDACTED:secret] ok");
    // Text, a short value, a huge one: each refused, and nothing of it masked.
    for (value, why) in [
        ("password".to_string(), "shorter than 16"),
        ("x".repeat(4097), "longer than 4096"),
        (
            "the agent ran rm -rf".to_string(),
            "does not look like a secret",
        ),
        (
            "aaaaaaaaaaaaaaaaaaaabbbbb".to_string(),
            "does not look like a secret",
        ),
    ] {
        let refused = cap.mask(value.clone()).await.unwrap_err();
        assert!(refused.contains(why), "{refused}");
        assert_eq!(blaise_host::secret_mask::scrub(&value), value);
    }
    // At most 64 per plug in a run, however many instances it takes.
    for i in 1..64 {
        let mut fresh = SecretsCap {
            grant: &grant,
            declined: &[],
            label: &label,
        };
        fresh.mask(format!("Zq{i:04}-k3Y9-mN7x")).await.unwrap();
    }
    let refused = cap.mask("one-more-VALUE-9x7".into()).await.unwrap_err();
    assert!(refused.contains("already masked 64"), "{refused}");
}

fn process_cap<'a>(
    exec: &'a ExecGrant,
    workspace: &'a str,
    label: &'a PlugLabel,
) -> ProcessCap<'a> {
    ProcessCap {
        exec,
        workspace,
        storage: None,
        deadline: Instant::now() + Duration::from_secs(30),
        label,
    }
}

fn command(argv: &[&str]) -> Command {
    Command {
        argv: argv.iter().map(|s| s.to_string()).collect(),
        env: Vec::new(),
        cwd: None,
        stdin: Vec::new(),
        timeout_ms: None,
    }
}

#[tokio::test]
async fn process_runs_only_granted_programs_inside_the_workspace() {
    let label = label();
    let workspace = tempfile::tempdir().unwrap();
    let ws = workspace.path().to_str().unwrap();
    let exec = ExecGrant::resolve(vec!["echo".into(), "sleep".into()]);
    let mut cap = process_cap(&exec, ws, &label);

    let out = cap.run(command(&["echo", "hi"])).await.unwrap();
    assert_eq!(out.stdout, b"hi\n");
    assert_eq!(out.status, Some(0));

    for argv in [&["sh", "-c", "id"][..], &["/bin/echo", "x"], &["ECHO", "x"]] {
        match cap.run(command(argv)).await {
            Err(ProcessError::Denied(why)) => assert!(why.contains("not granted"), "{why}"),
            other => panic!("{argv:?}: {other:?}"),
        }
    }
    let mut loader = command(&["echo", "x"]);
    loader.env = vec![("LD_PRELOAD".into(), "/tmp/x.so".into())];
    assert!(matches!(
        cap.run(loader).await,
        Err(ProcessError::Denied(_))
    ));
    let mut outside = command(&["echo", "x"]);
    outside.cwd = Some("/etc".into());
    assert!(matches!(
        cap.run(outside).await,
        Err(ProcessError::Denied(_))
    ));

    let mut slow = command(&["sleep", "30"]);
    slow.timeout_ms = Some(200);
    let started = Instant::now();
    let out = cap.run(slow).await.unwrap();
    assert!(out.timed_out);
    assert!(started.elapsed() < Duration::from_secs(5));
}

/// Answers one HTTP request with `response`, on 127.0.0.1.
fn one_answer(response: &'static str) -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().unwrap();
        let mut buf = [0u8; 4096];
        let _ = conn.read(&mut buf);
        conn.write_all(response.as_bytes()).unwrap();
    });
    port
}

fn request(url: String) -> Request {
    Request {
        method: "GET".into(),
        url,
        headers: Vec::new(),
        body: Vec::new(),
        timeout_ms: Some(5_000),
    }
}

#[tokio::test]
async fn http_reaches_only_granted_hosts_and_never_follows_a_redirect() {
    let label = label();
    let client = blaise_host::http::client().unwrap();
    let port = one_answer(
        "HTTP/1.1 302 Found\r\nLocation: http://not-granted.example/\r\nContent-Length: 0\r\n\r\n",
    );
    let grant = HttpGrant(vec![format!("127.0.0.1:{port}")]);
    let mut cap = HttpCap {
        grant: &grant,
        client: &client,
        deadline: Instant::now() + Duration::from_secs(30),
        label: &label,
    };
    let resp = cap
        .send(request(format!("http://127.0.0.1:{port}/")))
        .await
        .unwrap();
    assert_eq!(
        resp.status, 302,
        "the redirect is handed back, not followed"
    );

    // Granted by address: the same server by another name is not.
    match cap.send(request(format!("http://localhost:{port}/"))).await {
        Err(HttpError::Denied(why)) => assert!(why.contains("not granted"), "{why}"),
        other => panic!("{other:?}"),
    }
    match cap.send(request("file:///etc/passwd".into())).await {
        Err(HttpError::InvalidUrl(_)) => {}
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_granted_name_that_resolves_to_the_host_is_refused_unless_granted_as_the_address() {
    let label = label();
    let client = blaise_host::http::client().unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    // `localhost` resolves, through the system's resolver, to 127.0.0.1: a
    // name whose DNS someone else controls could do the same.
    let grant = HttpGrant(vec![format!("localhost:{port}")]);
    let mut cap = HttpCap {
        grant: &grant,
        client: &client,
        deadline: Instant::now() + Duration::from_secs(30),
        label: &label,
    };
    match cap.send(request(format!("http://localhost:{port}/"))).await {
        Err(HttpError::Failed(why)) => assert!(
            why.contains("`localhost` resolves only to local or private addresses (127.0.0.1"),
            "{why}"
        ),
        other => panic!("{other:?}"),
    }
    assert!(
        listener.accept().is_err(),
        "nothing reached the server behind the name"
    );
}
