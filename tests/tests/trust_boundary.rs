//! The trust boundary, tried as a hostile plug author would: a plug written
//! with plain wit-bindgen (`tests/plugs/hostile`), its attacks chosen by its
//! `with:` config, run by real `blaise-runner start` processes against a real
//! control plane, with the script agent as the agent. Each test asserts that
//! nothing happened outside (no marker file, no process left, no secret in
//! any log line, report or transcript entry) and that the error names the plug.
//!
//! The property: no plug can make any program run on the host that is not in
//! its effective exec grant, make a granted program load code it supplied,
//! read or write outside its workspace and storage, keep anything running
//! after its hook, hold the run process past its end, or get a granted
//! secret value into any log, report or transcript entry.

use std::path::Path;
use std::time::{Duration, Instant};

use blaise_control::model::IdlePolicy;
use blaise_tests::blaise::{Runner, Stage, runner_binary, settings};
use blaise_tests::{plug, processes_with};
use serde_json::{Value, json};

const MINUTE: Duration = Duration::from_secs(60);

/// A stage whose `blaise.yml` holds the hostile plug with this config,
/// these grants and these limits, and a runner serving it.
struct Attack {
    stage: Stage,
    runner: Runner,
}

impl Attack {
    async fn new(with: Value, allow: Value, limits: Value) -> Attack {
        Self::with_env(with, allow, limits, 60_000, &[]).await
    }

    async fn with_env(
        with: Value,
        allow: Value,
        limits: Value,
        inactivity_ms: i64,
        env: &[(&str, &str)],
    ) -> Attack {
        let stage = Stage::new(settings(inactivity_ms, IdlePolicy::Pause)).await;
        stage.configure(&entry(&with, &allow, &limits));
        let runner = stage.runner_with_env("box-1", env);
        Attack { stage, runner }
    }

    /// Opens a session and waits for it to fail; returns every run's error.
    async fn fails(&self, message: &str) -> String {
        let b = &self.stage.blaise;
        let id = b.new_session("script", message).await;
        let view = b
            .wait_for(&id, "the session to fail", MINUTE, |v| {
                v["state"] == "failed"
            })
            .await;
        errors(&view)
    }

    /// Opens a session and waits for the agent's answer to contain `needle`.
    async fn answers(&self, message: &str, needle: &str) -> (String, String) {
        let b = &self.stage.blaise;
        let id = b.new_session("script", message).await;
        let text = b
            .wait_for_text(&id, &format!("agent_message: {needle}"), MINUTE)
            .await;
        (id, text)
    }

    /// What the plug recorded in the session's workspace.
    async fn hostile_log(&self, session: &str) -> String {
        let view = self.stage.blaise.show(session).await;
        let path = self.stage.workspace(&view).join("hostile.log");
        std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e}; the workspaces hold {:?}",
                path.display(),
                walk(&self.stage.data.join("workspaces"))
            )
        })
    }
}

fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        out.push(e.path().display().to_string());
        if e.path().is_dir() {
            out.extend(walk(&e.path()));
        }
    }
    out
}

fn entry(with: &Value, allow: &Value, limits: &Value) -> String {
    format!(
        "  - id: hostile\n    source: {}\n    with: {with}\n    allow: {allow}\n    limits: {limits}\n",
        plug("tests/plugs/hostile").display(),
    )
}

/// The errors of every run of a session, one per line.
fn errors(view: &Value) -> String {
    view["runs"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["error"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

fn assert_named(errors: &str, what: &str) {
    assert!(
        errors.contains("plug `hostile`") && errors.contains(what),
        "the error names the plug and `{what}`:\n{errors}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_command_prefix_is_an_exec_and_needs_the_grant() {
    let tmp = tempfile::tempdir().unwrap();
    let marker = tmp.path().join("prefix-ran");
    let shell = json!([
        "/bin/sh",
        "-c",
        format!("touch {}; exec \"$@\"", marker.display()),
        "sh"
    ]);
    // No grants at all: a shell as the agent's prefix is refused.
    let a = Attack::new(
        json!({"on_start": [{"prefix": shell}]}),
        json!({}),
        json!({}),
    )
    .await;
    let errors = a.fails("say hi").await;
    assert_named(&errors, "command-prefix");
    assert!(errors.contains("not in this plug's exec grant"), "{errors}");
    // A program the plug was granted under another name is refused as well.
    let a2 = Attack::new(
        json!({"on_start": [{"prefix": ["sh", "-c", format!("touch {}", marker.display())]}]}),
        json!({"exec": ["echo"]}),
        json!({}),
    )
    .await;
    assert_named(
        &a2.fails("say hi").await,
        "`sh`, which is not in this plug's exec grant",
    );
    assert!(!marker.exists(), "no prefix ran");

    // A granted one runs, from the runner's own PATH.
    let a3 = Attack::new(
        json!({"on_start": [{"prefix": ["echo"]}]}),
        json!({"exec": ["echo"]}),
        json!({}),
    )
    .await;
    // `echo` is no agent: it does not start (the environment is kept).
    let b = &a3.stage.blaise;
    let id = b.new_session("script", "say hi").await;
    b.wait_for_text(&id, "The agent did not start: ", MINUTE)
        .await;
    let log = a3.runner.stderr();
    let echo = blaise_runner::host::grants::find_program("echo").unwrap();
    assert!(
        log.contains(&format!("argv=[\"{}\"", echo.display())),
        "the prefix's program is the absolute path found on the runner's PATH:\n{log}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_environment_that_loads_code_is_refused_in_contributions() {
    let a = Attack::new(json!({}), json!({}), json!({})).await;
    for (name, value) in [
        ("LD_PRELOAD", "evil.so"),
        ("ld_preload", "evil.so"),
        ("LD_LIBRARY_PATH", "."),
        ("PATH", "."),
        ("BASH_ENV", "evil.sh"),
        ("NODE_OPTIONS", "--require ./evil.js"),
        ("PYTHONSTARTUP", "evil.py"),
        ("GIT_SSH_COMMAND", "sh evil.sh"),
        ("HOME", "."),
        ("BASH_FUNC_ls%%", "() { touch evil; }"),
        ("A=B", "x"),
    ] {
        let config = json!({"on_start": [
            {"write_file": ["evil.so", "not really a shared object"]},
            {"env": [name, value]},
        ]});
        a.stage.configure(&entry(&config, &json!({}), &json!({})));
        let errors = a.fails("say hi").await;
        assert_named(&errors, "env:");
        assert!(
            errors.contains(&format!("`{}`", name.escape_debug())),
            "{name}: {errors}"
        );
    }
    // What is big or broken fails here, naming the plug, not at the launch.
    // A prefix of words each within bounds, too many bytes in all (the
    // agent's exec would fail with E2BIG, naming nobody).
    let mut long_prefix = vec!["echo".to_string()];
    long_prefix.extend((0..12).map(|_| "y".repeat(30 << 10)));
    for action in [
        json!({"env_repeat": ["BIG", "x", 1 << 20]}),
        json!({"env_with_nul": "NUL"}),
        json!({"prefix_with_nul": "echo"}),
        json!({ "prefix": long_prefix }),
    ] {
        let config = json!({"on_start": [action]});
        a.stage
            .configure(&entry(&config, &json!({"exec": ["echo"]}), &json!({})));
        let errors = a.fails("say hi").await;
        assert_named(&errors, "refused");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_granted_program_cannot_be_made_to_load_other_code() {
    let a = Attack::new(json!({}), json!({}), json!({})).await;
    for (name, value) in [
        ("LD_PRELOAD", "evil.so".to_string()),
        ("PATH", "bin".to_string()),
        ("GIT_CONFIG_COUNT", "1".to_string()),
        ("GIT_EXEC_PATH", "bin".to_string()),
    ] {
        let config = json!({"on_start": [
            {"exec": {"argv": ["echo", "hi"], "env": [[name, value]]}},
        ]});
        a.stage.configure(&entry(
            &config,
            &json!({"exec": ["echo", "git"]}),
            &json!({}),
        ));
        let errors = a.fails("say hi").await;
        assert_named(&errors, "exec denied");
        assert!(errors.contains(&format!("`{name}`")), "{errors}");
    }

    // `git` granted; a `git` in a directory the plug controls (a symlink to
    // a shell, made through WASI) is never the one that runs: programs are
    // found on the runner's own PATH, and a plug cannot set PATH.
    let config = json!({"on_start": [
        {"symlink": ["../../../../../../../../../../bin/sh", "git"]},
        {"exec": {"argv": ["git", "--version"]}},
        {"exec": {"argv": ["git", "--version"], "cwd": "."}},
    ]});
    a.stage
        .configure(&entry(&config, &json!({"exec": ["git"]}), &json!({})));
    let (id, _) = a.answers("say checked", "checked").await;
    let log = a.hostile_log(&id).await;
    assert_eq!(
        log.matches("exec git: status=Some(0) timed_out=false")
            .count(),
        2,
        "{log}"
    );
    assert_eq!(
        log.matches("stdout=\"git version").count(),
        2,
        "the real git ran: {log}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_exec_grant_compares_names_exactly() {
    // The plug asks for `git` and `GIT`; the operator wrote `git`.
    let a = Attack::new(
        json!({"on_start": [{"exec": {"argv": ["GIT", "--version"]}}]}),
        json!({"exec": ["git"]}),
        json!({}),
    )
    .await;
    let errors = a.fails("say hi").await;
    assert_named(
        &errors,
        "exec denied: `GIT` is not granted to this plug (granted: git)",
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn programs_and_the_agent_stay_in_the_workspace() {
    let a = Attack::new(json!({}), json!({}), json!({})).await;
    for cwd in ["/", "/etc", "up", "up/etc", "/no/such/dir"] {
        let config = json!({"on_start": [
            {"symlink": ["../../../../../../../../../../", "up"]},
            {"exec": {"argv": ["echo", "hi"], "cwd": cwd}},
        ]});
        a.stage
            .configure(&entry(&config, &json!({"exec": ["echo"]}), &json!({})));
        let errors = a.fails("say hi").await;
        assert_named(&errors, "exec denied: cwd");
        assert!(errors.contains("outside the workspace"), "{cwd}: {errors}");
        // The plug is not told where its link led on the host, nor whether
        // a host path exists.
        assert!(!errors.contains("(it is"), "{cwd}: {errors}");
        assert!(!errors.contains("No such file"), "{cwd}: {errors}");
    }
    for dir in ["/", "/etc", "up", "/proc/self/cwd"] {
        let config = json!({"on_start": [
            {"symlink": ["../../../../../../../../../../", "up"]},
            {"workdir": dir},
        ]});
        a.stage.configure(&entry(&config, &json!({}), &json!({})));
        let errors = a.fails("say hi").await;
        assert_named(&errors, "working-dir");
    }
    // Reads through a symlink out of the workspace fail inside WASI.
    let config = json!({"on_start": [
        {"symlink": ["../../../../../../../../../../etc", "etc"]},
        {"read_file": "etc/passwd"},
        {"read_file": "/etc/passwd"},
        {"write_file": ["etc/evil", "x"]},
    ]});
    a.stage.configure(&entry(&config, &json!({}), &json!({})));
    let (id, _) = a.answers("say inside", "inside").await;
    let log = a.hostile_log(&id).await;
    assert!(
        log.lines()
            .filter(|l| l.starts_with("read ") || l.starts_with("write "))
            .all(|l| l.contains("Err(")),
        "no read or write outside the workspace:\n{log}"
    );
    assert!(!Path::new("/etc/evil").exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn nothing_a_program_starts_outlives_it() {
    let tmp = tempfile::tempdir().unwrap();
    let marker = tmp.path().join("late");
    let script = format!(
        "(sleep 2; touch {m}) & setsid sh -c 'sleep 313' & (setsid sh -c '(sleep 3; touch {m}.2) &' &) ; echo started",
        m = marker.display()
    );
    let a = Attack::new(
        json!({"on_start": [{"exec": {"argv": ["sh", "-c", script], "timeout_ms": 30000}}]}),
        json!({"exec": ["sh"]}),
        json!({}),
    )
    .await;
    let started = Instant::now();
    let (id, _) = a.answers("say up", "up").await;
    let log = a.hostile_log(&id).await;
    assert!(
        log.contains("stdout=\"started\""),
        "the output came back: {log}"
    );
    let ms: u64 = log
        .split("ms=")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!(
        ms < 1_500,
        "returned when the program exited, not its children: {ms} ms"
    );
    // Both markers were due 2 and 3 seconds after the program started.
    tokio::time::sleep(Duration::from_secs(5).saturating_sub(started.elapsed())).await;
    assert!(!marker.exists(), "a background child outlived the program");
    assert!(
        !Path::new(&format!("{}.2", marker.display())).exists(),
        "a double-forked daemon outlived the program"
    );
    assert_eq!(
        processes_with("sleep 313"),
        Vec::<String>::new(),
        "nothing left running"
    );

    // A program that outlives its timeout is killed with all it started.
    let config = json!({"on_start": [
        {"exec": {"argv": ["sh", "-c", "setsid sh -c 'sleep 317' & sleep 319"], "timeout_ms": 500}},
    ]});
    a.stage
        .configure(&entry(&config, &json!({"exec": ["sh"]}), &json!({})));
    let (id, _) = a.answers("say again", "again").await;
    let log = a.hostile_log(&id).await;
    assert!(log.contains("timed_out=true"), "{log}");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(processes_with("sleep 317"), Vec::<String>::new());
    assert_eq!(processes_with("sleep 319"), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread")]
async fn what_the_agent_starts_ends_with_its_run() {
    let a = Attack::with_env(json!({}), json!({}), json!({}), 1_000, &[]).await;
    let b = &a.stage.blaise;
    let id = b
        .new_session(
            "script",
            "run setsid sh -c 'sleep 331' >/dev/null 2>&1 & (setsid sh -c 'sleep 337 &' >/dev/null 2>&1 &) ; echo spawned",
        )
        .await;
    b.wait_for_text(&id, "tool_output: spawned", MINUTE).await;
    assert!(
        !processes_with("sleep 331").is_empty(),
        "the agent's daemon runs"
    );
    b.wait_for(&id, "the pause", MINUTE, |v| v["state"] == "paused")
        .await;
    let started = Instant::now();
    while !(processes_with("sleep 331").is_empty() && processes_with("sleep 337").is_empty()) {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the agent's daemons outlived its run"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_fifo_cannot_hold_a_hook_or_the_run_process() {
    // The agent makes a FIFO in the workspace; the plug opens it on pause.
    let a = Attack::with_env(
        json!({"on_pause": [{"open": "fifo"}]}),
        json!({}),
        json!({"hook_deadline": "1s"}),
        1_000,
        &[],
    )
    .await;
    let b = &a.stage.blaise;
    let id = b
        .new_session("script", "run mkfifo fifo && echo made")
        .await;
    b.wait_for_text(&id, "tool_output: made", MINUTE).await;
    let view = b
        .wait_for(&id, "the pause", MINUTE, |v| v["state"] == "paused")
        .await;
    let run = view["runs"][0]["id"].as_str().unwrap().to_owned();
    let started = Instant::now();
    while !processes_with(&run).is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "the run process exits though a blocking open is left behind"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let log = a.runner.stderr();
    assert!(
        log.contains("plug `hostile` failed in on-pause: stopped after its hook deadline of 1s"),
        "{log}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn deletes_count_against_the_state_quota() {
    // 100,000 distinct 4 KiB keys deleted: 400 MB if each were kept.
    let a = Attack::new(
        json!({"on_start": [{"delete_flood": {"count": 100000, "key_bytes": 4096}}]}),
        json!({}),
        json!({"hook_deadline": "60s"}),
    )
    .await;
    let (id, _) = a.answers("say done", "done").await;
    let log = a.hostile_log(&id).await;
    assert!(log.contains("deleted 100000 keys"), "{log}");
    let view = a.stage.blaise.show(&id).await;
    let run = view["runs"][0]["id"].as_str().unwrap();
    let pid = processes_with(run)
        .into_iter()
        .find(|p| {
            std::fs::read(format!("/proc/{p}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains("run-one"))
        })
        .expect("the run process");
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let peak_kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap();
    assert!(
        peak_kib < 300 << 10,
        "the run process peaked at {peak_kib} KiB"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_granted_secret_never_leaves_the_runner() {
    let secret = "hs-SeCrEt-4f9a1c77e2b8d0-Value";
    let config = json!({
        "on_start": [
            {"secret": {"name": "token", "into": "log"}},
            {"secret": {"name": "token", "into": "log_split"}},
            {"secret": {"name": "token", "into": "program_name"}},
            {"secret": {"name": "token", "into": "secret_name"}},
            {"secret": {"name": "token", "into": {"exec_arg": "echo"}}},
            {"secret": {"name": "token", "into": {"env": "AGENT_TOKEN"}}},
            {"secret": {"name": "token", "into": "state_key"}},
        ],
        "on_pause": [{"secret": {"name": "token", "into": "error"}}],
        "filter_log": true,
    });
    let a = Attack::with_env(
        config,
        json!({"exec": ["echo"], "secrets": {"token": {"env": "HOSTILE_TOKEN"}}}),
        json!({}),
        60_000,
        &[("HOSTILE_TOKEN", secret), ("RUST_LOG", "debug")],
    )
    .await;
    let b = &a.stage.blaise;
    // The agent was handed the token and prints it, whole and in pieces.
    let (id, _) = a
        .answers("env AGENT_TOKEN\nrun echo \"$AGENT_TOKEN\" | cut -c1-12; echo \"$AGENT_TOKEN\" | cut -c13-\nsay end", "end")
        .await;
    // While the environment lives, the session view lists the plug's state
    // keys: the key made of the secret is there, masked.
    let live = serde_json::to_string(&b.show(&id).await["plug_records"]).unwrap();
    assert!(live.contains("[REDACTED:secret]"), "{live}");
    b.close(&id).await.unwrap();
    let view = b
        .wait_for(&id, "the teardown", MINUTE, |v| {
            v["environment"]["state"] == "torn_down"
                || v["environment"]["state"] == "teardown_failed"
        })
        .await;
    let transcript = b.transcript_text(&id).await;
    let log = a.runner.stderr();
    let reports = serde_json::to_string(&view).unwrap();
    assert!(transcript.contains("[REDACTED:secret]"), "{transcript}");
    assert!(log.contains("[REDACTED:secret]"), "{log}");

    for (what, text) in [
        ("transcript", &transcript),
        ("logs", &log),
        ("session view", &reports),
        ("live session view", &live),
    ] {
        for window in secret.as_bytes().windows(8) {
            let piece = std::str::from_utf8(window).unwrap();
            assert!(
                !text.contains(piece),
                "`{piece}` of the secret is in the {what}:\n{text}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_oversized_filter_answer_is_withheld_naming_the_plug() {
    let a = Attack::new(json!({"filter_bytes": 4 << 20}), json!({}), json!({})).await;
    let b = &a.stage.blaise;
    let id = b.new_session("script", "say hi").await;
    let text = b
        .wait_for_text(
            &id,
            "withheld: plug `hostile` failed in transcript filter: refused",
            MINUTE,
        )
        .await;
    // Nothing of the agent's: its message cut off by the failure ends empty.
    assert!(
        text.lines()
            .filter(|l| l.starts_with("agent_message:"))
            .all(|l| l.trim_end() == "agent_message:"),
        "{text}"
    );
    // Once the turn is over (later batches could still fail the run), the session goes on.
    let view = b
        .wait_for(&id, "the turn's end", MINUTE, |v| v["open_turns"] == 0)
        .await;
    assert_ne!(view["state"], "failed", "{view:#}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_filter_rewrites_text_and_nothing_else() {
    // The filter marks every entry a replay (which the runner drops), the
    // user's, on a stream of its own: the entries arrive as the agent sent them.
    let a = Attack::new(json!({"filter_relabel": true}), json!({}), json!({})).await;
    // `answers` waits for an `agent_message` with the text: kept, as the agent's.
    let (id, _) = a.answers("say relabelled", "relabelled").await;
    let entries = a.stage.blaise.transcript(&id).await;
    assert!(
        entries.iter().all(|e| e["content"]["stream"] != "forged"),
        "{entries:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn describe_stops_at_the_configured_deadline() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("blaise.yml");
    std::fs::write(
        &config,
        format!(
            "agent:\n  command: [x]\nplugs:\n  - id: slow\n    source: {}\n    limits: {{hook_deadline: 1s}}\n",
            plug("tests/plugs/slow-describe").display()
        ),
    )
    .unwrap();
    let started = Instant::now();
    let out = std::process::Command::new(runner_binary())
        .arg("--cache-dir")
        .arg(tmp.path().join("cache"))
        .args(["check", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("plug `slow`"), "{stderr}");
    assert!(stderr.contains("hook deadline of 1s"), "{stderr}");
    // Compiling the plug takes its share; the describe itself stops at 1 s.
    assert!(took < Duration::from_secs(30), "{took:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_that_cannot_start_tells_blaise_at_once() {
    let a = Attack::new(json!({}), json!({}), json!({})).await;
    a.runner
        .wait_for_stderr("connected to Blaise", MINUTE)
        .await;
    // blaise.yml breaks after the runner started: each run process finds out.
    std::fs::write(
        &a.stage.config,
        "agent:\n  name: script\n  command: [x]\nplugs:\n  - id: gone\n    source: /nonexistent/plug.wasm\n",
    )
    .unwrap();
    let started = Instant::now();
    let errors = a.fails("say hi").await;
    assert!(errors.contains("could not start"), "{errors}");
    assert!(errors.contains("plug `gone`"), "{errors}");
    // Three runs in a row failed, each reported at once (the connection
    // timeout alone would take 10 s a run).
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
}
