//! The deployment files as shipped: each systemd unit in `deploy/systemd` passes `systemd-analyze
//! verify` with nothing to say (the built binary in its `ExecStart`), and its command line is one
//! the binary takes (a flag renamed in the code would fail here, not on an operator's machine);
//! the container images `deploy/container/build-image` makes build against the local dockerd
//! (nothing pulled), hold nothing but their binary, and serve a session together.

use std::path::PathBuf;
use std::process::Command;

use std::time::{Duration, Instant};

use blaise_tests::blaise::{Api, runner_binary, script_agent};
use blaise_tests::root;
use blaise_tests::serve::{blaise_binary, free_port};

fn have_systemd_analyze() -> bool {
    if Command::new("systemd-analyze")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return true;
    }
    if std::env::var_os("BLAISE_REQUIRE_TOOLS").is_some_and(|v| v != "0") {
        panic!(
            "systemd-analyze is missing (BLAISE_REQUIRE_TOOLS is set): `bash .ci/run` installs it"
        );
    }
    eprintln!("SKIPPED: needs systemd-analyze (Debian's systemd)");
    false
}

#[test]
fn the_systemd_units_verify_and_their_command_lines_are_the_binaries_own() {
    if !have_systemd_analyze() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for (unit, installed, built) in [
        ("blaise.service", "/usr/local/bin/blaise ", blaise_binary()),
        (
            "blaise-runner.service",
            "/usr/local/bin/blaise-runner ",
            runner_binary(),
        ),
    ] {
        let text = std::fs::read_to_string(root().join("deploy/systemd").join(unit)).unwrap();
        let exec = text
            .lines()
            .find_map(|l| l.strip_prefix("ExecStart="))
            .unwrap_or_else(|| panic!("{unit} has no ExecStart"));
        let args = exec
            .strip_prefix(installed)
            .unwrap_or_else(|| panic!("{unit} starts {exec}, not {installed}"));
        let here: PathBuf = dir.path().join(unit);
        std::fs::write(
            &here,
            text.replace(installed, &format!("{} ", built.display())),
        )
        .unwrap();
        let verified = Command::new("systemd-analyze")
            .arg("verify")
            .arg(&here)
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&verified.stderr);
        assert!(
            verified.status.success() && said.trim().is_empty(),
            "systemd-analyze verify {unit}: {said}"
        );
        // The same arguments, with --help: clap refuses an unknown flag even then.
        let taken = Command::new(&built)
            .args(args.split_whitespace())
            .arg("--help")
            .output()
            .unwrap();
        assert!(
            taken.status.success(),
            "{unit}: {} {args} is refused: {}",
            built.display(),
            String::from_utf8_lossy(&taken.stderr)
        );
    }
}

/// Runs `docker args`; its stdout, or a panic with its stderr.
fn docker(args: &[&str]) -> String {
    let out = Command::new("docker").args(args).output().unwrap();
    assert!(
        out.status.success(),
        "docker {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Removes what the test made, however it ends: containers (with their volumes), then images.
struct Made {
    containers: Vec<String>,
    images: Vec<String>,
}

impl Drop for Made {
    fn drop(&mut self) {
        for c in &self.containers {
            let _ = Command::new("docker").args(["rm", "-f", "-v", c]).output();
        }
        for i in &self.images {
            let _ = Command::new("docker").args(["rmi", "-f", i]).output();
        }
    }
}

/// Both images built as an operator would (`build-image BINARY TAG`, no base image, nothing
/// pulled): each answers `--version` as the binary does and has no shell; the control plane's
/// passes its own health check (`blaise status`) and a runner in the other connects to it and
/// answers a session whose agent (the script agent, a program of the machine's libc, which the
/// image carries) is mounted with its `blaise.yml`.
#[tokio::test(flavor = "multi_thread")]
async fn the_container_images_hold_their_binary_alone_and_serve_a_session() {
    if !blaise_tests::tools::have(&["docker"]) {
        return;
    }
    let build = root().join("deploy/container/build-image");
    let tag = |name: &str| format!("{name}-test-{}:latest", std::process::id());
    let mut made = Made {
        containers: Vec::new(),
        images: Vec::new(),
    };
    let mut images = Vec::new();
    for (name, binary) in [
        ("blaise", blaise_binary()),
        ("blaise-runner", runner_binary()),
    ] {
        let image = tag(name);
        made.images.push(image.clone());
        let out = Command::new(&build)
            .arg(&binary)
            .arg(&image)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "build-image {name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let version = Command::new(&binary).arg("--version").output().unwrap();
        assert_eq!(
            docker(&["run", "--rm", &image, "--version"]),
            String::from_utf8_lossy(&version.stdout).trim(),
            "{name}'s image answers --version as the binary does"
        );
        let shell = Command::new("docker")
            .args([
                "run",
                "--rm",
                "--entrypoint",
                "/bin/sh",
                &image,
                "-c",
                "true",
            ])
            .output()
            .unwrap();
        assert!(!shell.status.success(), "{name}'s image has a shell");
        // The binary and what it links: not a distribution's worth of files.
        let size: u64 = docker(&["image", "inspect", "-f", "{{.Size}}", &image])
            .parse()
            .unwrap();
        let binary_size = std::fs::metadata(&binary).unwrap().len();
        assert!(
            size < binary_size + 24 * 1024 * 1024,
            "{name}'s image is {size} bytes for a binary of {binary_size}"
        );
        images.push(image);
    }

    // The control plane on the host's network, on a port of its own.
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}");
    let token = format!("bla_container_{}", std::process::id());
    let control = format!("blaise-test-{}", std::process::id());
    docker(&[
        "run",
        "-d",
        "--name",
        &control,
        "--network",
        "host",
        "-e",
        &format!("BLAISE_TOKEN={token}"),
        "-e",
        &format!("BLAISE_LISTEN=127.0.0.1:{port}"),
        "-e",
        &format!("BLAISE_URL={url}"),
        &images[0],
    ]);
    made.containers.push(control.clone());
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let health = docker(&["inspect", "-f", "{{.State.Health.Status}}", &control]);
        if health == "healthy" {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the control plane's container is {health} after 60 s: {}",
            docker(&["logs", &control])
        );
        std::thread::sleep(Duration::from_millis(250));
    }

    let api = Api::new(&url, &token);
    let agent: serde_json::Value = reqwest::Client::new()
        .put(format!("{url}/v1/agents/script"))
        .bearer_auth(&token)
        .json(&serde_json::json!({}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(agent["name"], "script", "{agent}");
    let runner_token = api.runner_token("boxed").await;

    // blaise.yml and the agent, readable by the image's user (65532).
    let config = tempfile::tempdir().unwrap();
    std::fs::copy(script_agent(), config.path().join("script-agent")).unwrap();
    std::fs::write(
        config.path().join("blaise.yml"),
        "agent:\n  name: script\n  command: [/etc/blaise/script-agent]\nplugs: []\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    for (path, mode) in [
        (config.path().to_path_buf(), 0o755),
        (config.path().join("blaise.yml"), 0o644),
        (config.path().join("script-agent"), 0o755),
    ] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    let runner = format!("blaise-runner-test-{}", std::process::id());
    docker(&[
        "run",
        "-d",
        "--name",
        &runner,
        "--network",
        "host",
        "-v",
        &format!("{}:/etc/blaise:ro", config.path().display()),
        "-e",
        &format!("BLAISE_URL={url}"),
        "-e",
        &format!("BLAISE_RUNNER_TOKEN={runner_token}"),
        &images[1],
    ]);
    made.containers.push(runner.clone());

    let session = api
        .new_session("script", "say hello from a container")
        .await;
    let text = api
        .wait_for_text(
            &session,
            "agent_message: hello from a container",
            Duration::from_secs(60),
        )
        .await;
    assert!(
        text.contains("agent_message: hello from a container"),
        "{text}\nrunner: {}",
        docker(&["logs", &runner])
    );
    api.close(&session).await.unwrap();
    let view = api
        .wait_for(&session, "its teardown", Duration::from_secs(60), |v| {
            v["environment"]["state"] == "torn_down"
        })
        .await;
    assert_eq!(view["state"], "closed", "{view}");
}
