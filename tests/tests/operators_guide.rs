//! `docs/operators-guide.md` as a newcomer types it: every `sh` block, in order, in one `bash`
//! (`set -euo pipefail`) started at the repository's root with `HOME` a new empty directory —
//! `blaise serve`, the admin token, the agent, the runner's token, `blaise.yml`, `check`, `start`,
//! the first session and a follow-up answered by the real Claude Code (`claude-agent-acp` from
//! npm), the close and the stop.
//!
//! What cannot be real here is changed, the least it can be: the `sh install` block is not run
//! (the binaries this test built and the agents `scripts/agents` installed are put on `PATH`);
//! the port is a free one instead of 7777 (tests run side by side); Anthropic's API cannot be
//! reached, so `blaise.yml` gets one more line, `ANTHROPIC_BASE_URL`, naming the local stand-in
//! (`tests/src/model_api`, Anthropic's published wire format), and the key pasted is a test key.

use std::io::Write as _;
use std::os::unix::fs::PermissionsExt as _;
use std::os::unix::process::CommandExt as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use blaise_tests::agents;
use blaise_tests::blaise::runner_binary;
use blaise_tests::model_api::ModelApi;
use blaise_tests::root;
use blaise_tests::serve::{blaise_binary, free_port};

/// The line of the guide's `blaise.yml` after which the stand-in's address goes.
const KEY_LINE: &str = "    ANTHROPIC_API_KEY: { file: $HOME/blaise/anthropic.key }\n";

const KEY: &str = "sk-ant-api03-guideTestKey0123456789abcdefghijklmnop";

/// The guide's `sh` blocks in order, each with its fence's words after `sh`.
fn blocks(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut open: Option<(String, String)> = None;
    for line in text.lines() {
        match &mut open {
            None => {
                if let Some(info) = line.strip_prefix("```sh") {
                    open = Some((info.trim().to_string(), String::new()));
                }
            }
            Some(_) if line.trim_end() == "```" => out.push(open.take().unwrap()),
            Some((_, body)) => {
                body.push_str(line);
                body.push('\n');
            }
        }
    }
    assert!(open.is_none(), "an sh block is not closed");
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn the_operators_guide_runs_as_written() {
    let Some(installed) = agents::installed() else {
        return;
    };
    let guide = std::fs::read_to_string(root().join("docs/operators-guide.md")).unwrap();
    let blocks = blocks(&guide);
    let install: Vec<_> = blocks
        .iter()
        .filter(|(info, _)| info == "install")
        .collect();
    assert_eq!(install.len(), 1, "one `sh install` block");
    assert!(
        blocks
            .iter()
            .all(|(info, _)| info.is_empty() || info == "install"),
        "an sh block this test does not know how to run: {blocks:?}"
    );

    let model = ModelApi::start("no-secret-in-this-test").await;
    let port = free_port();
    let mut script = String::from("set -euo pipefail\n");
    for (info, body) in &blocks {
        if info.is_empty() {
            script.push_str(body);
        }
    }
    assert!(
        script.contains(KEY_LINE),
        "the guide's blaise.yml names its key file"
    );
    let script = script
        .replace("127.0.0.1:7777", &format!("127.0.0.1:{port}"))
        .replace(
            KEY_LINE,
            &format!("{KEY_LINE}    ANTHROPIC_BASE_URL: {}\n", model.url),
        );

    let home = tempfile::tempdir().unwrap();
    let script_file = home.path().join("guide.sh");
    std::fs::write(&script_file, &script).unwrap();
    let real_home = std::env::var("HOME").unwrap_or_default();
    let binaries = [blaise_binary(), runner_binary()];
    let path = format!(
        "{}:{}:{}:{}",
        binaries[0].parent().unwrap().display(),
        binaries[1].parent().unwrap().display(),
        installed.path,
        std::env::var("PATH").unwrap_or_default()
    );
    let mut command = Command::new("bash");
    command
        .arg(&script_file)
        .current_dir(root())
        .env("HOME", home.path())
        .env("PATH", path)
        // `plug build` runs cargo: the toolchain stays where it is installed.
        .env(
            "RUSTUP_HOME",
            std::env::var("RUSTUP_HOME").unwrap_or(format!("{real_home}/.rustup")),
        )
        .env(
            "CARGO_HOME",
            std::env::var("CARGO_HOME").unwrap_or(format!("{real_home}/.cargo")),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group: whatever it leaves running can be found and stopped.
        .process_group(0);
    for (name, _) in std::env::vars() {
        if name.starts_with("BLAISE_") && name != "BLAISE_REQUIRE_TOOLS" {
            command.env_remove(name);
        }
    }
    let mut child = command.spawn().unwrap();
    let group = child.id() as i32;
    // The key, pasted at the guide's `read`.
    child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("{KEY}\n").as_bytes())
        .unwrap();
    let out = tokio::task::spawn_blocking(move || {
        let deadline = Instant::now() + Duration::from_secs(300);
        while child.try_wait().unwrap().is_none() {
            if Instant::now() > deadline {
                let _ = Command::new("kill")
                    .args(["-KILL", "--", &format!("-{group}")])
                    .status();
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let work = home.path().join("blaise");
    let log = |name: &str| std::fs::read_to_string(work.join(name)).unwrap_or_default();
    let said = format!(
        "stdout:\n{stdout}\nstderr:\n{stderr}\nserve.log:\n{}\nrunner.log:\n{}",
        log("serve.log"),
        log("runner.log")
    );
    assert!(
        out.status.success(),
        "the guide failed: {:?}\n{said}",
        out.status
    );

    // Nothing it started is left running (`serve`, the runner, their runs, the agent).
    let left = Command::new("kill")
        .args(["-0", "--", &format!("-{group}")])
        .stderr(Stdio::null())
        .status()
        .unwrap();
    if left.success() {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{group}")])
            .status();
        panic!("processes of the guide were left running\n{said}");
    }

    assert!(
        stdout.contains(&format!("blaise at http://127.0.0.1:{port}: up")),
        "{said}"
    );
    assert!(
        stdout.contains("claude "),
        "agent list shows the agent\n{said}"
    );
    assert!(
        stdout.contains("ok: 1 plug(s)")
            && stdout.contains("probe: the agent answered ACP `initialize`"),
        "check --probe passed\n{said}"
    );
    // The stand-in answers a message with no command in it `ECHO: <its last line>`: both
    // answers came through the real agent, the runner and Blaise.
    for message in [
        "Hello! Which directory are you working in?",
        "Thanks. Reply with one word: ready?",
    ] {
        assert!(
            stdout.contains(&format!("agent_message: ECHO: {message}")),
            "no answer to {message:?}\n{said}"
        );
    }
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("http://127.0.0.1:") && l.ends_with('/'))
            && !stdout.contains("token="),
        "the dashboard's address\n{said}"
    );
    // The key reached the model and nothing else: not the database, not a log.
    assert!(
        model
            .seen()
            .iter()
            .any(|seen| seen.key.as_deref() == Some(KEY)),
        "the agent used the key from its file"
    );
    for (what, text) in [
        ("stdout", stdout.to_string()),
        ("stderr", stderr.to_string()),
        ("serve.log", log("serve.log")),
        ("runner.log", log("runner.log")),
        (
            "blaise.db",
            String::from_utf8_lossy(&std::fs::read(work.join("blaise.db")).unwrap()).into_owned(),
        ),
    ] {
        assert!(!text.contains(KEY), "the key is in {what}");
    }
    // The secrets the guide wrote are readable by their owner alone.
    for file in ["admin.env", "build-box.token", "anthropic.key"] {
        let mode = std::fs::metadata(work.join(file))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o077, 0, "{file} is mode {mode:o}");
    }
}
