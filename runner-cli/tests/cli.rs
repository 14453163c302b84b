//! The `blaise-runner` binary as an operator uses it: `plug inspect` and
//! `check`, with errors that point at the line.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn redaction_wasm() -> PathBuf {
    static WASM: OnceLock<PathBuf> = OnceLock::new();
    WASM.get_or_init(|| {
        blaise_runner::build::build_plug(
            &root().join("plugs/redaction"),
            Some(&root().join("target/plugs")),
        )
        .expect("building the redaction plug")
    })
    .clone()
}

fn runner(args: &[&str], cache: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_blaise-runner"))
        .args(args)
        .env("BLAISE_CACHE_DIR", cache)
        .env("RUST_LOG", "error")
        .output()
        .unwrap()
}

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

#[test]
fn inspect_shows_the_redaction_plug() {
    let tmp = tempfile::tempdir().unwrap();
    let wasm = redaction_wasm();
    let out = runner(
        &["plug", "inspect", wasm.to_str().unwrap(), "--json"],
        tmp.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["name"], "redaction");
    assert_eq!(v["version"], "0.1.0");
    assert_eq!(v["contract"], "blaise:plug@0.3.2");
    assert_eq!(v["contract_adapted"], false);
    assert_eq!(v["stateful"], false);
    assert_eq!(v["can_resume"], true);
    // It checks its config on start and resume: a bad one fails closed.
    assert_eq!(v["hooks"], serde_json::json!(["on-start", "on-resume"]));
    assert_eq!(v["filters_transcript"], true);
    assert_eq!(
        v["config_schema"]["properties"]["literals"]["type"],
        "array"
    );
    let imports: Vec<&str> = v["imports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i.as_str().unwrap())
        .collect();
    // A component imports only what it uses: redaction never runs programs,
    // makes requests or keeps state, and `inspect` shows it.
    assert!(imports.contains(&"blaise:plug/types@0.3.2"), "{imports:?}");
    assert!(imports.contains(&"wasi:cli/stderr@0.2.6"), "{imports:?}");
    for absent in [
        "blaise:plug/process",
        "blaise:plug/http",
        "blaise:plug/state",
    ] {
        assert!(
            !imports.iter().any(|i| i.starts_with(absent)),
            "{absent} in {imports:?}"
        );
    }

    let out = runner(&["plug", "inspect", wasm.to_str().unwrap()], tmp.path());
    let shown = text(&out.stdout);
    assert!(shown.starts_with("redaction 0.1.0\n"), "{shown}");
    assert!(shown.contains("filters transcript: yes"), "{shown}");
}

/// A plug built for the frozen contract 0.2.0, as published before 0.3.0.
fn older_wasm() -> PathBuf {
    static WASM: OnceLock<PathBuf> = OnceLock::new();
    WASM.get_or_init(|| {
        blaise_runner::build::build_plug(
            &root().join("tests/plugs/older-contract"),
            Some(&root().join("target/plugs")),
        )
        .expect("building the older-contract plug")
    })
    .clone()
}

#[test]
fn a_plug_built_for_an_older_contract_is_shown_as_adapted_and_checked_with_a_note() {
    let tmp = tempfile::tempdir().unwrap();
    let wasm = older_wasm();
    let out = runner(
        &["plug", "inspect", wasm.to_str().unwrap(), "--json"],
        tmp.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["contract"], "blaise:plug@0.2.0");
    assert_eq!(v["contract_adapted"], true);
    assert_eq!(v["keeps_processes"], false);
    let out = runner(&["plug", "inspect", wasm.to_str().unwrap()], tmp.path());
    let shown = text(&out.stdout);
    assert!(
        shown.contains("  contract:           blaise:plug@0.2.0 (older: loaded through this runner's adapter; blaise:plug@0.3.2 is current)\n"),
        "{shown}"
    );
    assert!(shown.contains("  keeps processes:    no\n"), "{shown}");

    let (ok, stdout, stderr) = check(&format!(
        "agent:\n  command: [sh]\nplugs:\n  - id: redact\n    source: WASM\n  - id: legacy\n    source: {}\n    allow: {{ exec: [echo] }}\n",
        wasm.display()
    ));
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("legacy  older 0.1.0      0.2.0     yes       yes"),
        "{stdout}"
    );
    let notes: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("built for plug contract"))
        .collect();
    assert_eq!(
        notes,
        [
            "note: plug `legacy` was built for plug contract blaise:plug@0.2.0, which this runner still loads through an adapter (blaise:plug@0.3.2 is current): it is never told to keep the agent's processes across a pause, so sessions with it always resume cold; rebuild it with a current blaise-plug SDK to lift that"
        ],
        "one note, for the older plug only: {stdout}"
    );

    let out = runner(&["--version"], tmp.path());
    assert_eq!(
        text(&out.stdout),
        "blaise-runner 0.1.0 (plug contract blaise:plug@0.3.2; also loads plugs built for 0.2.0)\n"
    );
}

fn check(yaml: &str) -> (bool, String, String) {
    let tmp = tempfile::tempdir().unwrap();
    let yaml = yaml.replace("WASM", redaction_wasm().to_str().unwrap());
    let file = tmp.path().join("blaise.yml");
    std::fs::write(&file, yaml).unwrap();
    let out = runner(
        &["check", "--config", file.to_str().unwrap()],
        &tmp.path().join("cache"),
    );
    let stderr = text(&out.stderr).replace(file.to_str().unwrap(), "blaise.yml");
    (out.status.success(), text(&out.stdout), stderr)
}

#[test]
fn check_accepts_a_good_file_and_prints_the_chain() {
    let (ok, stdout, stderr) = check(
        "agent:\n  command: [sh]\nplugs:\n  - id: redact\n    source: WASM\n    with: { literals: [abcdefgh] }\n",
    );
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("redact  redaction 0.1.0  0.3.2     no        yes"),
        "{stdout}"
    );
    assert!(stdout.contains("startup check passed"), "{stdout}");
}

#[test]
fn check_points_at_the_line_of_each_mistake() {
    let cases = [
        // Not YAML.
        ("agent:\n  command: [agent\nplugs: []\n", "blaise.yml:3:"),
        // A timing key, at the top level and in a plug.
        (
            "agent:\n  command: [sh]\nidle_timeout: 5m\n",
            "blaise.yml:3:1: `idle_timeout` looks like a timing setting",
        ),
        (
            "agent:\n  command: [sh]\nplugs:\n  - id: redact\n    source: WASM\n    pause_lifetime: 1h\n",
            "blaise.yml:6:5: `pause_lifetime` looks like a timing setting",
        ),
        // Two plugs with one id.
        (
            "agent:\n  command: [sh]\nplugs:\n  - id: redact\n    source: WASM\n  - id: redact\n    source: WASM\n",
            "blaise.yml:6:5: plug id `redact`: duplicate plug id",
        ),
        // Config that does not match the plug's schema.
        (
            "agent:\n  command: [sh]\nplugs:\n  - id: redact\n    source: WASM\n    with:\n      literals: [ab]\n",
            "blaise.yml:6:5: plug `redact`: with.literals.0:",
        ),
        // A missing plug file.
        (
            "agent:\n  command: [sh]\nplugs:\n  - id: redact\n    source: /nonexistent.wasm\n",
            "blaise.yml:5:5: plug `redact`: reading plug /nonexistent.wasm",
        ),
        // A bad limit.
        (
            "agent:\n  command: [sh]\nplugs:\n  - id: redact\n    source: WASM\n    limits: { memory: 64MB }\n",
            "blaise.yml:6:",
        ),
    ];
    for (yaml, want) in cases {
        let (ok, _, stderr) = check(yaml);
        assert!(!ok, "accepted:\n{yaml}");
        assert!(
            stderr.contains(want),
            "for:\n{yaml}\nwant `{want}` in:\n{stderr}"
        );
    }
}

/// What would fail every session is an error of `check`, and a grant with
/// no effect is said.
#[test]
fn check_catches_a_missing_agent_and_a_grant_that_does_nothing() {
    let (ok, _, stderr) = check("agent:\n  command: [no-such-agent-acp, --acp]\nplugs: []\n");
    assert!(!ok, "a missing agent passes");
    assert!(
        stderr.contains("agent.command: `no-such-agent-acp` is not on PATH")
            && stderr.contains("every session would fail"),
        "{stderr}"
    );
    let (ok, _, stderr) = check("agent:\n  command: [/nonexistent/agent]\nplugs: []\n");
    assert!(!ok);
    assert!(
        stderr.contains("`/nonexistent/agent` is not an executable file"),
        "{stderr}"
    );
    let (ok, stdout, stderr) = check(
        "agent:\n  command: [sh]\nplugs:\n  - id: redact\n    source: WASM\n    allow: { exec: [docker] }\n",
    );
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains(
            "warning: plug `redact`: blaise.yml grants `exec: docker`, which the plug does not ask for: it has no effect"
        ),
        "{stdout}"
    );
}

#[test]
fn timing_errors_say_where_timing_belongs() {
    let (_, _, stderr) = check("agent:\n  command: [sh]\n  inactivity: 10m\n");
    assert!(
        stderr.contains("timing belongs to the agent's settings in the control plane"),
        "{stderr}"
    );
    assert!(stderr.contains("blaise agent set"), "{stderr}");
}

#[test]
fn start_without_a_token_names_the_variable_and_where_a_token_comes_from() {
    let cache = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_blaise-runner"))
        .arg("start")
        .env_remove("BLAISE_RUNNER_TOKEN")
        .env("BLAISE_CACHE_DIR", cache.path())
        .current_dir(cache.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("set BLAISE_RUNNER_TOKEN (or give --token)")
            && stderr.contains("blaise runner add NAME"),
        "{stderr}"
    );
}
