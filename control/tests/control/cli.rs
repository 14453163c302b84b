//! The `blaise` binary against a live server: the commands and flags of ARCHITECTURE.md.

use std::process::Command;

use reqwest::Method;
use serde_json::{Value, json};

use crate::support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_drives_a_session() {
    let s = Server::start().await;
    let out = ok(
        &s,
        &[
            "agent",
            "set",
            "claude",
            "--inactivity",
            "5m",
            "--idle-policy",
            "end",
            "--paused-lifetime",
            "2h",
            "--timeout",
            "30s",
        ],
    );
    assert_eq!(
        out.trim(),
        "agent claude: inactivity 5m, idle policy end, paused lifetime 2h, timeout 30s"
    );
    let (success, _, err) = blaise(&s, &["agent", "set", "claude", "--inactivity", "5 minutes"]);
    assert!(!success);
    assert!(
        err.contains("unknown unit") || err.contains("500ms"),
        "{err}"
    );
    let token = ok(&s, &["runner", "add", "box-1"]);
    assert!(token.trim().starts_with("blr_"));
    let runner = FakeRunner::new(&s, token.trim(), "box-1-a");
    runner.connect(&["claude"]).await;
    let id = ok(
        &s,
        &[
            "session",
            "new",
            "--agent",
            "claude",
            "--message",
            "fix the build",
        ],
    )
    .trim()
    .to_string();
    assert!(id.starts_with("ses_"));
    let run = runner.take_started("start").await;
    run.say("on it").await;
    let list = ok(&s, &["session", "list"]);
    assert!(list.contains(&id) && list.contains("active"), "{list}");
    let listed: Value = serde_json::from_str(&ok(&s, &["session", "list", "--json"])).unwrap();
    assert_eq!(listed[0]["id"], id.as_str());
    let shown: Value = serde_json::from_str(&ok(&s, &["session", "show", &id, "--json"])).unwrap();
    assert_eq!(shown["state"], "active");
    assert_eq!(shown["environment"]["state"], "active");
    assert_eq!(shown["runs"][0]["kind"], "start");
    assert_eq!(shown["runs"][0]["status"], "running");
    assert_eq!(shown["runs"][0]["runner"], "box-1");
    assert!(shown["plug_records"].is_array());
    assert!(shown["environment"].get("last_error").is_some());
    let human = ok(&s, &["session", "show", &id]);
    assert!(
        human.contains("start") && human.contains("box-1"),
        "{human}"
    );
    let transcript = ok(&s, &["session", "transcript", &id]);
    assert!(
        transcript.contains("fix the build") && transcript.contains("on it"),
        "{transcript}"
    );
    let sent = ok(&s, &["session", "send", &id, "and the tests"]);
    assert!(sent.contains("delivered"), "{sent}");
    let (success, _, err) = blaise(&s, &["session", "close", &id]);
    assert!(
        !success,
        "no runner is reading the directives, so the close fails"
    );
    assert!(err.contains("nothing changed"), "{err}");
    let run = std::sync::Arc::new(run);
    let listener = run.clone();
    let stop = tokio::spawn(async move { listener.wait_directive("stop").await });
    let closer = {
        let url = s.url.clone();
        let id = id.clone();
        tokio::task::spawn_blocking(move || {
            Command::new(env!("CARGO_BIN_EXE_blaise"))
                .args(["session", "close", &id])
                .env("BLAISE_URL", url)
                .env("BLAISE_TOKEN", ADMIN)
                .output()
                .unwrap()
        })
    };
    let closed = closer.await.unwrap();
    assert!(
        closed.status.success(),
        "{}",
        String::from_utf8_lossy(&closed.stderr)
    );
    assert!(String::from_utf8_lossy(&closed.stdout).contains("closed"));
    stop.await.unwrap();
    let (success, _, err) = blaise(&s, &["session", "send", &id, "more"]);
    assert!(!success && err.contains("has ended"), "{err}");
    let (success, _, err) = blaise(&s, &["environment", "retry", "env_nope"]);
    assert!(!success && err.contains("env_nope"), "{err}");
    ok(&s, &["runner", "revoke", "box-1"]);
    let follow = ok(&s, &["session", "transcript", &id, "--follow"]);
    assert!(
        follow.contains("on it"),
        "--follow ends once the session has ended: {follow}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_commands_need_the_admin_token() {
    let s = Server::start().await;
    let out = Command::new(env!("CARGO_BIN_EXE_blaise"))
        .args(["session", "list"])
        .env("BLAISE_URL", &s.url)
        .env_remove("BLAISE_TOKEN")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("BLAISE_TOKEN"));
    let out = Command::new(env!("CARGO_BIN_EXE_blaise"))
        .args(["session", "list"])
        .env("BLAISE_URL", &s.url)
        .env("BLAISE_TOKEN", "bla_wrong")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("wrong admin token"));
}

/// `blaise serve` creates and migrates its database file, prints a new admin token once, and
/// keeps it (hashed) across restarts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_bootstraps_the_admin_token_and_keeps_its_database() {
    use std::io::{BufRead, BufReader};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("blaise.db");
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let url = format!("http://{listen}");
    let start = || {
        std::process::Command::new(env!("CARGO_BIN_EXE_blaise"))
            .args([
                "serve",
                "--db",
                db.to_str().unwrap(),
                "--listen",
                &listen,
                "--check-interval",
                "100ms",
            ])
            .env_remove("BLAISE_TOKEN")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    let first_line = |child: &mut std::process::Child| {
        let mut line = String::new();
        BufReader::new(child.stdout.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        line
    };
    let http = reqwest::Client::new();
    let wait_up = |token: String| {
        let http = http.clone();
        let url = url.clone();
        async move {
            for _ in 0..200 {
                if let Ok(resp) = http
                    .get(format!("{url}/v1/sessions"))
                    .bearer_auth(&token)
                    .send()
                    .await
                {
                    return resp.status();
                }
                tokio::time::sleep(std::time::Duration::from_millis(25)).await;
            }
            panic!("blaise serve did not come up on {url}");
        }
    };

    let mut server = start();
    let line = first_line(&mut server);
    let token = line
        .split_whitespace()
        .find(|w| w.starts_with("bla_"))
        .unwrap_or_else(|| panic!("no token printed: {line:?}"))
        .to_string();
    assert_eq!(wait_up(token.clone()).await, reqwest::StatusCode::OK);
    let client = blaise_control::client::Client::new(&url, &token);
    client
        .call(Method::PUT, "/v1/agents/a", Some(serde_json::json!({})))
        .await
        .unwrap();
    server.kill().unwrap();
    server.wait().unwrap();
    assert!(db.exists());

    let mut server = start();
    let line = first_line(&mut server);
    assert!(
        line.contains("stored in the database") && !line.contains("bla_"),
        "{line}"
    );
    assert_eq!(
        wait_up(token.clone()).await,
        reqwest::StatusCode::OK,
        "the same token works after a restart"
    );
    let agents = client.get("/v1/agents").await.unwrap();
    assert_eq!(
        agents["agents"][0]["name"], "a",
        "the data survived the restart"
    );
    assert_eq!(
        wait_up("bla_wrong".into()).await,
        reqwest::StatusCode::UNAUTHORIZED
    );
    // SIGTERM stops it cleanly.
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = server.wait().unwrap();
    assert!(
        status.success(),
        "blaise serve exited with {status} on SIGTERM"
    );
}

/// `blaise-runner dev` embeds the control plane: a file, a fresh admin token, an agent, a runner.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_control_plane_embeds_in_another_program() {
    use blaise_control::embedded::Embedded;
    use blaise_control::model::{AgentSettings, IdlePolicy};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join(".blaise").join("blaise.db");
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    let cp = Embedded::start(&db, "127.0.0.1:0".parse().unwrap(), fast_config())
        .await
        .unwrap();
    cp.set_agent(
        "script",
        AgentSettings {
            idle_policy: IdlePolicy::End,
            ..AgentSettings::default()
        },
    )
    .unwrap();
    let token = cp.runner_token("dev").unwrap();
    let again = cp.runner_token("dev").unwrap();
    assert_ne!(token, again);
    let client = blaise_control::client::Client::new(&cp.url, &cp.admin_token);
    let session = client
        .post(
            "/v1/sessions",
            serde_json::json!({ "agent": "script", "message": "hi" }),
        )
        .await
        .unwrap();
    let runner = FakeRunner::at(&cp.url, &token, "dev-1");
    let info = runner.connect(&["script"]).await;
    assert_eq!(info["agents"][0]["idle_policy"], "end");
    let run = runner.take("start").await;
    assert_eq!(run.assignment["session_id"], session["id"]);
}

/// `blaise serve`'s limits are flags, so end-to-end tests of a real runner can shorten them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_takes_its_limits_as_flags() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("blaise.db");
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}");
    let mut server = Command::new(env!("CARGO_BIN_EXE_blaise"))
        .args([
            "serve",
            "--db",
            db.to_str().unwrap(),
            "--listen",
            &format!("127.0.0.1:{port}"),
        ])
        .args([
            "--check-interval",
            "50ms",
            "--connect-timeout",
            "300ms",
            "--heartbeat-timeout",
            "300ms",
            "--stop-grace",
            "300ms",
        ])
        .args(["--teardown-backoff", "100ms", "--teardown-attempts", "2"])
        .env("BLAISE_TOKEN", ADMIN)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let client = blaise_control::client::Client::new(&url, ADMIN);
    for _ in 0..200 {
        if client.get("/v1/sessions").await.is_ok() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    client
        .call(Method::PUT, "/v1/agents/a", Some(serde_json::json!({})))
        .await
        .unwrap();
    let token = client
        .post("/v1/runners", serde_json::json!({ "name": "r" }))
        .await
        .unwrap()["token"]
        .as_str()
        .unwrap()
        .to_string();
    let runner = FakeRunner::at(&url, &token, "r-1");
    let hello = runner.connect(&["a"]).await;
    assert_eq!(hello["heartbeat_interval_ms"], 100);
    let session = client
        .post(
            "/v1/sessions",
            serde_json::json!({ "agent": "a", "message": "hi" }),
        )
        .await
        .unwrap();
    let id = session["id"].as_str().unwrap();
    let offer = runner.offers(2000).await.remove(0);
    runner.accept(offer["run_id"].as_str().unwrap()).await;
    // Never contacted: failed after the 300ms connect timeout, and another run is offered.
    let again = runner.offers(3000).await;
    assert_eq!(again.len(), 1, "{again:?}");
    let shown = client.get(&format!("/v1/sessions/{id}")).await.unwrap();
    assert_eq!(shown["runs"][0]["status"], "failed");
    server.kill().unwrap();
    server.wait().unwrap();
}

/// Issue 10: ids and names typed on the command line stay one URL path segment.
/// `session close '../runners/box/revoke?'` once revoked the runner `box`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_id_or_a_name_cannot_leave_its_path_segment() {
    let s = Server::start().await;
    let runner = agent_and_runner(&s, "script").await;
    let escape = "../runners/box/revoke?";
    for args in [
        vec!["session", "close", escape],
        vec!["session", "send", escape, "hi"],
        vec!["session", "show", escape],
        vec!["session", "transcript", escape],
        vec!["environment", "retry", "../../v1/runners/box/revoke?"],
    ] {
        let (success, out, err) = blaise(&s, &args);
        assert!(!success, "blaise {args:?} succeeded: {out}");
        assert!(
            err.contains("no session with id") || err.contains("no environment with id"),
            "blaise {args:?}: {err}"
        );
        assert!(err.contains("404"), "blaise {args:?}: {err}");
    }
    let (success, _, err) = blaise(&s, &["agent", "set", "../runners/box/revoke?"]);
    assert!(!success);
    assert!(
        err.contains("not a valid name") && err.contains("400"),
        "{err}"
    );
    let (success, _, err) = blaise(&s, &["runner", "revoke", "x/../box"]);
    assert!(!success);
    assert!(err.contains("not a valid name"), "{err}");
    // `.` and `..` would be resolved by the URL parser however they are written.
    for dots in [".", ".."] {
        let (success, _, err) = blaise(&s, &["session", "close", dots]);
        assert!(!success);
        assert!(err.contains("not a valid session id"), "{err}");
    }
    let runners = s.ok(Method::GET, "/v1/runners", None).await;
    assert_eq!(runners["runners"][0]["name"], "box");
    assert!(
        runners["runners"][0]["revoked_at"].is_null(),
        "box was revoked: {runners}"
    );
    runner.connect(&["script"]).await;
}

/// The fleet as an operator reads it, and what a session needs from the
/// command line: agents, runners with their instances, environments; a
/// permission request answered, a turn cancelled, a runner's token replaced.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_lists_the_fleet_and_answers_and_cancels() {
    let s = Server::start().await;
    ok(&s, &["agent", "set", "claude", "--inactivity", "5m"]);
    let agents = ok(&s, &["agent", "list"]);
    assert!(
        agents.contains("INACTIVITY") && agents.contains("claude") && agents.contains("5m"),
        "{agents}"
    );
    let listed: Value = serde_json::from_str(&ok(&s, &["agent", "list", "--json"])).unwrap();
    assert_eq!(listed[0]["name"], "claude");
    let shown = ok(&s, &["agent", "show", "claude"]);
    assert!(
        shown.contains("inactivity       5m") && shown.contains("idle policy      pause"),
        "{shown}"
    );
    assert!(
        shown.contains("warm agents      - (every new session starts its agent)"),
        "{shown}"
    );
    let set = ok(&s, &["agent", "set", "claude", "--warm", "2"]);
    assert!(set.contains(", 2 warm"), "{set}");
    assert!(
        ok(&s, &["agent", "show", "claude"]).contains("warm agents      2 on each runner instance")
    );
    let (success, _, err) = blaise(&s, &["agent", "set", "claude", "--warm", "17"]);
    assert!(
        !success && err.contains("`warm_agents` must be 0 to 16"),
        "{err}"
    );
    let log = ok(&s, &["audit"]);
    assert!(log.contains("warm_agents 0 → 2"), "{log}");
    ok(&s, &["agent", "set", "claude", "--warm", "0"]);

    let token = ok(&s, &["runner", "add", "box-1"]).trim().to_string();
    let runner = FakeRunner::new(&s, &token, "box-1-a");
    runner
        .connect_with(serde_json::json!({ "agents": ["claude"], "capacity": 3, "labels": ["gpu"] }))
        .await;
    let runners = ok(&s, &["runner", "list"]);
    assert!(
        runners.contains("runner box-1")
            && runners.contains("box-1-a")
            && runners.contains("connected")
            && runners.contains("gpu"),
        "{runners}"
    );
    let listed: Value = serde_json::from_str(&ok(&s, &["runner", "list", "--json"])).unwrap();
    let instance = &listed[0]["instances"][0];
    assert_eq!(instance["instance"], "box-1-a");
    assert_eq!(instance["connected"], true);
    assert_eq!(instance["capacity"], 3);
    assert!(listed[0].get("token").is_none(), "no token in a list");

    let id = ok(
        &s,
        &[
            "session",
            "new",
            "--agent",
            "claude",
            "--message",
            "clean up",
        ],
    )
    .trim()
    .to_string();
    let run = runner.take_started("start").await;
    let request = serde_json::json!({
        "request_id": "perm-1",
        "tool_call": { "id": "tc-1", "title": "Remove target/", "kind": "delete",
                       "status": "pending", "command": "rm -rf target\x1b]0;pwned\x07" },
        "options": [
            { "option_id": "allow", "name": "Allow", "kind": "allow_once" },
            { "option_id": "option-2", "name": "Reject", "kind": "reject_once" }
        ]
    });
    let (status, _) = runner
        .call(
            Method::POST,
            &format!("/v1/runner/runs/{}/permissions", run.id),
            Some(serde_json::json!({ "request_id": "perm-1", "request": request })),
        )
        .await;
    assert!(status.is_success());
    let human = ok(&s, &["session", "show", &id]);
    assert!(
        human.contains("permission requests waiting for an answer")
            && human.contains("perm-1  Remove target/")
            && human.contains("$ rm -rf target\\u{1b}]0;pwned\\u{7}")
            && !human.contains('\x1b')
            && human.contains("options: allow (Allow), option-2 (Reject)")
            && human.contains(&format!("blaise session answer {id} perm-1 <option>"))
            && human.contains("  created        20")
            && human.contains("(now)"),
        "{human}"
    );
    let (success, _, err) = blaise(&s, &["session", "answer", &id, "perm-1", "always"]);
    assert!(!success && err.contains("allow, option-2"), "{err}");
    let answered = ok(&s, &["session", "answer", &id, "perm-1", "option-2"]);
    assert!(answered.contains("answered: option-2"), "{answered}");
    assert_eq!(
        run.wait_directive("permission_answer").await["option_id"],
        "option-2"
    );
    let cancelled = ok(&s, &["session", "cancel", &id]);
    assert!(cancelled.contains("cancelled"), "{cancelled}");
    run.wait_directive("cancel").await;

    let environments = ok(&s, &["environment", "list"]);
    assert!(
        environments.contains("active") && environments.contains(&id),
        "{environments}"
    );
    let orphaned = ok(&s, &["environment", "list", "--state", "orphaned"]);
    assert_eq!(orphaned.lines().count(), 1, "only the header: {orphaned}");
    let (success, _, err) = blaise(&s, &["environment", "list", "--state", "gone"]);
    assert!(
        !success && err.contains("orphaned"),
        "names the states: {err}"
    );

    // A new token replaces the old one at once, and brings a revoked name back.
    let fresh = ok(&s, &["runner", "token", "box-1"]).trim().to_string();
    assert!(fresh.starts_with("blr_") && fresh != token);
    let (status, _) = FakeRunner::new(&s, &token, "box-1-b")
        .call(
            Method::POST,
            "/v1/runner/connect",
            Some(serde_json::json!({ "instance": "box-1-b", "agents": ["claude"] })),
        )
        .await;
    assert_eq!(status, reqwest::StatusCode::UNAUTHORIZED);
    ok(&s, &["runner", "revoke", "box-1"]);
    let again = ok(&s, &["runner", "token", "box-1"]).trim().to_string();
    FakeRunner::new(&s, &again, "box-1-c")
        .connect(&["claude"])
        .await;
    let listed: Value = serde_json::from_str(&ok(&s, &["runner", "list", "--json"])).unwrap();
    assert!(listed[0]["revoked_at"].is_null(), "{listed}");
}

/// `runner add --agents --labels` scopes a token, `runner set` changes the scope (one part at a
/// time, `--any-agent` lifts it), and `runner list` shows it in words.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runner_add_and_set_scope_a_token_and_list_shows_it() {
    let s = Server::start().await;
    s.agent("web", json!({})).await;
    s.agent("docs", json!({})).await;
    let token = ok(
        &s,
        &[
            "runner",
            "add",
            "gpu-box",
            "--agents",
            "web, docs",
            "--labels",
            "gpu",
        ],
    )
    .trim()
    .to_string();
    let r = FakeRunner::new(&s, &token, "gpu-box-1");
    let (status, v) = r
        .call(
            Method::POST,
            "/v1/runner/connect",
            Some(json!({ "instance": "gpu-box-1", "agents": ["web"], "labels": ["eu"] })),
        )
        .await;
    assert_eq!(status, reqwest::StatusCode::FORBIDDEN, "{v}");
    r.connect_with(json!({ "agents": ["web"], "labels": ["gpu"] }))
        .await;
    let listed = ok(&s, &["runner", "list"]);
    assert!(
        listed.contains("runner gpu-box")
            && listed.contains("may serve agents docs,web; claim labels gpu"),
        "{listed}"
    );

    let set = ok(&s, &["runner", "set", "gpu-box", "--agents", "docs"]);
    assert_eq!(
        set.trim(),
        "runner gpu-box: may serve agents docs; claim labels gpu",
        "labels kept"
    );
    let set = ok(
        &s,
        &["runner", "set", "gpu-box", "--any-agent", "--labels", ""],
    );
    assert_eq!(
        set.trim(),
        "runner gpu-box: may serve any agent; claim no label"
    );
    let (success, _, err) = blaise(&s, &["runner", "set", "gpu-box", "--agents", ""]);
    assert!(
        !success && err.contains("at least one agent") && err.contains("agents"),
        "{err}"
    );
    let (success, _, err) = blaise(
        &s,
        &["runner", "set", "gpu-box", "--agents", "a", "--any-agent"],
    );
    assert!(!success && err.contains("cannot be used with"), "{err}");
}

/// The log is plain text off a terminal (no colour codes in a log file) and
/// `BLAISE_LOG` filters it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_log_is_plain_text_off_a_terminal_and_blaise_log_filters_it() {
    use std::io::Read as _;
    let dir = tempfile::tempdir().unwrap();
    let serve = |filter: &str| {
        let port = free_port();
        let child = Command::new(env!("CARGO_BIN_EXE_blaise"))
            .args(["serve", "--listen", &format!("127.0.0.1:{port}"), "--db"])
            .arg(dir.path().join(format!("{filter}.db")))
            .env("BLAISE_LOG", filter)
            .env_remove("RUST_LOG")
            .env_remove("NO_COLOR")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        (child, format!("http://127.0.0.1:{port}/v1/health"))
    };
    for (filter, shows_info) in [("info", true), ("warn", false)] {
        let (mut child, health) = serve(filter);
        let mut up = false;
        for _ in 0..200 {
            if reqwest::get(&health)
                .await
                .is_ok_and(|r| r.status().is_success())
            {
                up = true;
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }
        assert!(up, "serve answers");
        child.kill().unwrap();
        child.wait().unwrap();
        let mut log = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut log)
            .unwrap();
        assert!(!log.contains('\x1b'), "no colour codes: {log:?}");
        assert_eq!(
            log.contains("INFO blaise_control::http: listening on"),
            shows_info,
            "BLAISE_LOG={filter}: {log}"
        );
    }
}

/// Issue "An operator's first day": "`blaise backup` restores into a working control plane".
/// The copy is taken while `serve` runs and writes; a server started on it has the sessions and
/// the agents, and the same admin token works.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_taken_while_serve_runs_restores_into_a_working_control_plane() {
    use std::io::{BufRead, BufReader};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("blaise.db");
    let copy = dir.path().join("backup-1.db");
    let serve = |db: &std::path::Path| {
        let port = free_port();
        let mut child = Command::new(env!("CARGO_BIN_EXE_blaise"))
            .args(["serve", "--db", db.to_str().unwrap()])
            .args(["--listen", &format!("127.0.0.1:{port}")])
            .env_remove("BLAISE_TOKEN")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        (child, format!("http://127.0.0.1:{port}"), line)
    };
    let up = |url: &str, token: &str| {
        let client = blaise_control::client::Client::new(url, token);
        async move {
            for _ in 0..200 {
                if let Ok(v) = client.get("/v1/sessions").await {
                    return (client, v);
                }
                tokio::time::sleep(std::time::Duration::from_millis(25)).await;
            }
            panic!("blaise serve did not come up");
        }
    };
    let (mut server, url, line) = serve(&db);
    let token = line
        .split_whitespace()
        .find(|w| w.starts_with("bla_"))
        .unwrap_or_else(|| panic!("no token printed: {line:?}"))
        .to_string();
    let (client, _) = up(&url, &token).await;
    client
        .call(
            Method::PUT,
            "/v1/agents/claude",
            Some(serde_json::json!({})),
        )
        .await
        .unwrap();
    let session = client
        .call(
            Method::POST,
            "/v1/sessions",
            Some(serde_json::json!({ "agent": "claude", "message": "fix the build" })),
        )
        .await
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();

    // While it runs.
    let backup = |to: &std::path::Path| {
        Command::new(env!("CARGO_BIN_EXE_blaise"))
            .args(["backup", "--db", db.to_str().unwrap()])
            .arg(to)
            .output()
            .unwrap()
    };
    let out = backup(&copy);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("1 session, schema version ") && stdout.contains("(integrity checked)"),
        "{stdout}"
    );
    // Never over a file; a PostgreSQL database is pg_dump's.
    let again = backup(&copy);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"));
    let pg = Command::new(env!("CARGO_BIN_EXE_blaise"))
        .args(["backup", "--db", "postgres://u@127.0.0.1/blaise", "x.db"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&pg.stderr).contains("pg_dump"));
    server.kill().unwrap();
    server.wait().unwrap();

    // Restored: a server on the copy.
    let (mut restored, url, line) = serve(&copy);
    assert!(
        !line.contains("bla_"),
        "the admin token is in the copy: {line}"
    );
    let (client, sessions) = up(&url, &token).await;
    assert_eq!(
        sessions["sessions"][0]["id"],
        session.as_str(),
        "{sessions}"
    );
    let agents = client.get("/v1/agents").await.unwrap();
    assert_eq!(agents["agents"][0]["name"], "claude");
    restored.kill().unwrap();
    restored.wait().unwrap();
}

/// `blaise serve --tls-cert --tls-key` with a certificate made with openssl, signed by a local
/// CA (the commands of docs/control-plane.md, "Serving HTTPS"): the API and the dashboard answer
/// over HTTPS and nothing over plain HTTP, the login cookie is `Secure`, and the CLI trusts the
/// CA through `BLAISE_CA_FILE` — without it, its error says to set it. A key that does not load
/// stops `serve` at once, naming the file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_speaks_https_with_a_locally_made_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let openssl = |args: &str| {
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("openssl {args}"))
            .current_dir(d)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "openssl {args}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    openssl(
        "req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.pem -days 2 -subj /CN=blaise-test-ca",
    );
    openssl(
        "req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout key.pem -out server.csr -subj /CN=localhost",
    );
    std::fs::write(
        d.join("server.ext"),
        "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n",
    )
    .unwrap();
    openssl(
        "x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out cert.pem -days 2 -extfile server.ext",
    );

    let port = free_port();
    let url = format!("https://127.0.0.1:{port}");
    let mut serve = Command::new(env!("CARGO_BIN_EXE_blaise"))
        .args(["serve", "--listen", &format!("127.0.0.1:{port}"), "--db"])
        .arg(d.join("blaise.db"))
        .arg("--tls-cert")
        .arg(d.join("cert.pem"))
        .arg("--tls-key")
        .arg(d.join("key.pem"))
        .env("BLAISE_TOKEN", ADMIN)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let ca = reqwest::Certificate::from_pem(&std::fs::read(d.join("ca.pem")).unwrap()).unwrap();
    let https = reqwest::Client::builder()
        .add_root_certificate(ca)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let mut up = false;
    for _ in 0..200 {
        if https
            .get(format!("{url}/v1/health"))
            .send()
            .await
            .is_ok_and(|r| r.status().is_success())
        {
            up = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(up, "serve answered over HTTPS");
    let plain = reqwest::get(format!("http://127.0.0.1:{port}/v1/health")).await;
    assert!(plain.is_err(), "nothing over plain HTTP: {plain:?}");
    let login = https
        .post(format!("{url}/login"))
        .form(&[("token", ADMIN)])
        .send()
        .await
        .unwrap();
    let cookie = login.headers()["set-cookie"].to_str().unwrap();
    assert!(cookie.contains("; Secure"), "{cookie}");

    let cli = |ca: bool, args: &[&str]| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_blaise"));
        c.args(args)
            .env("BLAISE_URL", &url)
            .env("BLAISE_TOKEN", ADMIN)
            .env_remove("BLAISE_CA_FILE");
        if ca {
            c.env("BLAISE_CA_FILE", d.join("ca.pem"));
        }
        c.output().unwrap()
    };
    let out = cli(true, &["agent", "set", "a", "--inactivity", "5m"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = cli(false, &["agent", "list"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("BLAISE_CA_FILE"),
        "the error says what to set: {err}"
    );
    serve.kill().unwrap();
    let _ = serve.wait();

    // A key that is not a key: `serve` stops at once and names the file.
    std::fs::write(d.join("bad.pem"), "not a key").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_blaise"))
        .args(["serve", "--listen", "127.0.0.1:0", "--db"])
        .arg(d.join("blaise.db"))
        .arg("--tls-cert")
        .arg(d.join("cert.pem"))
        .arg("--tls-key")
        .arg(d.join("bad.pem"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("bad.pem") && err.contains("private key"),
        "{err}"
    );
}

/// `blaise status` says whether a control plane is up without a token: not answering (and
/// exit 1) before `serve` starts; with `--wait` it asks until serve is up, as a script that
/// has just started serve (or a container's health check) needs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_says_whether_serve_is_up_and_waits_for_it() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("http://127.0.0.1:{}", free_port());
    let status = |args: &[&str]| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_blaise"));
        command
            .arg("status")
            .args(args)
            .env("BLAISE_URL", &url)
            .env_remove("BLAISE_TOKEN")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        command
    };
    let down = status(&[]).output().unwrap();
    let err = String::from_utf8_lossy(&down.stderr);
    assert!(
        !down.status.success() && err.contains(&format!("blaise at {url}: not answering")),
        "{err}"
    );

    let waiting = status(&["--wait", "30s"]).spawn().unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    let mut server = std::process::Command::new(env!("CARGO_BIN_EXE_blaise"))
        .args(["serve", "--db"])
        .arg(dir.path().join("blaise.db"))
        .args(["--listen", url.trim_start_matches("http://")])
        .env("BLAISE_TOKEN", "bla_status")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let waited = waiting.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&waited.stdout);
    assert!(
        waited.status.success() && said.contains("up, its sqlite store reachable"),
        "{said}{}",
        String::from_utf8_lossy(&waited.stderr)
    );
    let json = status(&["--json"]).output().unwrap();
    let health: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(
        (health["ok"].as_bool(), health["store"].as_str()),
        (Some(true), Some("sqlite"))
    );
    server.kill().unwrap();
    server.wait().unwrap();
}

/// `session new --wait` and `session send --wait` print the conversation as it comes and stop
/// when the agent has answered — not at its first words while the turn is open; `send` prints
/// only what follows its message; a permission request stops the wait with exit status 2 and
/// how to answer it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_and_send_wait_until_the_agent_has_answered() {
    let s = Server::start().await;
    let runner = agent_and_runner(&s, "claude").await;
    let spawn = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_blaise"))
            .args(args)
            .env("BLAISE_URL", &s.url)
            .env("BLAISE_TOKEN", crate::support::ADMIN)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let finish = |mut child: std::process::Child| {
        tokio::task::spawn_blocking(move || {
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
            while child.try_wait().unwrap().is_none() {
                assert!(std::time::Instant::now() < deadline, "the wait never ended");
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            child.wait_with_output().unwrap()
        })
    };

    let mut waiting = spawn(&[
        "session",
        "new",
        "--agent",
        "claude",
        "--message",
        "hello",
        "--wait",
    ]);
    let run = runner.take_started("start").await;
    run.wait_directive("prompt").await;
    run.say("hi there").await;
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    assert!(
        waiting.try_wait().unwrap().is_none(),
        "the wait ended while the turn was open"
    );
    run.turn_ended().await;
    let out = finish(waiting).await.unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    let id = said.lines().next().unwrap().to_string();
    assert!(
        out.status.success()
            && id.starts_with("ses_")
            && said.contains("] user_message: hello")
            && said.contains("] agent_message: hi there"),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let waiting = spawn(&["session", "send", &id, "remove target", "--wait"]);
    run.wait_directive("prompt").await;
    run.say("removing").await;
    let request = serde_json::json!({
        "request_id": "perm-1",
        "tool_call": { "id": "tc-1", "title": "Remove target/", "kind": "delete", "status": "pending" },
        "options": [{ "option_id": "allow", "name": "Allow", "kind": "allow_once" }]
    });
    let (status, _) = runner
        .call(
            Method::POST,
            &format!("/v1/runner/runs/{}/permissions", run.id),
            Some(serde_json::json!({ "request_id": "perm-1", "request": request })),
        )
        .await;
    assert!(status.is_success());
    let out = finish(waiting).await.unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{said}{err}");
    assert!(
        said.contains("] user_message: remove target")
            && said.contains("] agent_message: removing")
            && !said.contains("hi there")
            && said.contains(&format!("blaise session answer {id} perm-1 <option>"))
            && err.contains("waits for a permission answer"),
        "{said}{err}{:?}",
        s.transcript(&id).await
    );
}

/// Agent `agent` made with the CLI, and a runner `box` (its token from `runner add`) with one
/// instance connected for it.
async fn agent_and_runner(s: &Server, agent: &str) -> FakeRunner {
    ok(s, &["agent", "set", agent]);
    let token = ok(s, &["runner", "add", "box"]).trim().to_string();
    let runner = FakeRunner::new(s, &token, "box-a");
    runner.connect(&[agent]).await;
    runner
}

/// `blaise ARGS…` with `token` as `BLAISE_TOKEN`: whether it succeeded, stdout, stderr.
fn blaise_as(s: &Server, token: &str, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_blaise"))
        .args(args)
        .env("BLAISE_URL", &s.url)
        .env("BLAISE_TOKEN", token)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Issue 52: an admin adds people from the CLI; each acts with their own token, as what their
/// role allows, and `blaise audit` says who did what through the CLI.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn people_act_from_the_cli_with_their_own_tokens_and_the_audit_says_so() {
    let s = Server::start().await;
    s.agent("cli-people", json!({})).await;
    let added = ok(&s, &["user", "add", "ann", "--role", "operator"]);
    let ann = added.lines().next().unwrap().trim().to_owned();
    assert!(
        ann.starts_with("blu_"),
        "the token on its own first line: {added}"
    );
    assert!(added.contains("shown only now"), "{added}");
    let viewer = ok(&s, &["user", "add", "val", "--role", "viewer"]);
    let val = viewer.lines().next().unwrap().trim().to_owned();
    let (success, _, err) = blaise(&s, &["user", "add", "ann", "--role", "viewer"]);
    assert!(!success && err.contains("exists already"), "{err}");
    let (success, _, err) = blaise(&s, &["user", "add", "admin", "--role", "viewer"]);
    assert!(!success && err.contains("reserved"), "{err}");

    let list = ok(&s, &["user", "list"]);
    assert!(
        list.contains("ann") && list.contains("operator") && list.contains("by admin"),
        "{list}"
    );
    assert!(!list.contains("blu_"), "no token is listed: {list}");

    // Ann starts a session with her token; the admin starts another.
    let (success, id, err) = blaise_as(
        &s,
        &ann,
        &[
            "session",
            "new",
            "--agent",
            "cli-people",
            "--message",
            "hello",
        ],
    );
    assert!(success, "{err}");
    let id = id.trim().to_owned();
    ok(
        &s,
        &[
            "session",
            "new",
            "--agent",
            "cli-people",
            "--message",
            "the admin's",
        ],
    );
    let (_, mine, _) = blaise_as(&s, &ann, &["session", "list", "--mine"]);
    assert_eq!(
        mine.lines().count(),
        2,
        "a header and ann's session: {mine}"
    );
    assert!(mine.contains(&id), "{mine}");
    let shown = ok(&s, &["session", "show", &id]);
    assert!(shown.contains("by ann"), "{shown}");

    // The viewer reads, and is refused a change, told which role it needs.
    let (success, _, _) = blaise_as(&s, &val, &["session", "show", &id]);
    assert!(success);
    let (success, _, err) = blaise_as(&s, &val, &["session", "send", &id, "go on"]);
    assert!(!success);
    assert!(
        err.contains("needs the operator role; val is a viewer"),
        "{err}"
    );
    let (success, _, err) = blaise_as(&s, &ann, &["audit"]);
    assert!(!success && err.contains("needs the admin role"), "{err}");

    let trail = ok(&s, &["audit", "--actor", "ann"]);
    assert!(
        trail.contains("ann [operator] via cli: session.start"),
        "{trail}"
    );
    let (success, _, err) = blaise(&s, &["audit", "--action", "nope"]);
    assert!(!success && err.contains("`action` must be one of"), "{err}");

    // A removed person's token stops working at once.
    ok(&s, &["user", "remove", "ann"]);
    let (success, _, err) = blaise_as(&s, &ann, &["session", "list"]);
    assert!(!success && err.contains("wrong admin token"), "{err}");
    let trail = ok(&s, &["audit", "--action", "user.remove"]);
    assert!(
        trail.contains("admin [admin] via cli: user.remove ann"),
        "{trail}"
    );
}
