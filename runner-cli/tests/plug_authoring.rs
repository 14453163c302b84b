//! A plug author's tools, used as a third-party author uses them: `plug new`
//! in a directory outside this repository, the new plug's own tests (the SDK
//! harness drives the real `blaise-runner`), and `plug test` running a plug's
//! hooks from a script.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn runner(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_blaise-runner"))
        .args(args)
        .current_dir(dir)
        .env("BLAISE_CACHE_DIR", dir.join("cache"))
        // The new plug resolves the SDK from this checkout (the documented override).
        .env("BLAISE_SDK", root().join("sdk"))
        .env_remove("RUST_LOG")
        .output()
        .unwrap()
}

/// `plug test WASM --script SCRIPT --json`, run in `dir`.
fn plug_test_json(wasm: &Path, script: &Path, dir: &Path) -> Output {
    runner(
        &[
            "plug",
            "test",
            wasm.to_str().unwrap(),
            "--script",
            script.to_str().unwrap(),
            "--json",
        ],
        dir,
    )
}

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

fn redaction_wasm() -> PathBuf {
    blaise_runner::build::build_plug(
        &root().join("plugs/redaction"),
        Some(&root().join("target/plugs")),
    )
    .expect("building the redaction plug")
}

#[test]
fn a_new_plug_made_outside_the_repository_passes_its_own_tests() {
    let tmp = tempfile::tempdir().unwrap();
    assert!(!tmp.path().starts_with(root()));
    let out = runner(&["plug", "new", "hello-plug"], tmp.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let dir = tmp.path().join("hello-plug");
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    // A dependency a stranger can resolve: a version, never a path into
    // this runner's build; the checkout only through the written override.
    assert!(
        manifest.contains(&format!("blaise-plug = \"{}\"", env!("CARGO_PKG_VERSION"))),
        "{manifest}"
    );
    assert!(
        manifest.contains("[patch.crates-io]") && manifest.contains("BLAISE_SDK"),
        "{manifest}"
    );
    assert!(!dir.join("Cargo.lock").exists(), "no lock file is copied");

    // The harness blocks, and works inside an async test too (it makes no
    // runtime of its own): the author's second test file is a tokio one.
    let manifest = manifest.replace(
        "[dev-dependencies]\n",
        "[dev-dependencies]\ntokio = { version = \"1\", features = [\"macros\", \"rt\"] }\n",
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::write(
        dir.join("tests/in_tokio.rs"),
        r#"use blaise_plug::harness::Harness;

#[tokio::test]
async fn the_harness_runs_inside_a_tokio_test() {
    let wasm = Harness::build(env!("CARGO_MANIFEST_DIR")).unwrap();
    let mut plug = Harness::load(&wasm)
        .unwrap()
        .with_config(serde_json::json!({ "greeting": "from tokio" }));
    let launch = plug.start().unwrap();
    assert_eq!(launch.env, [("GREETING".to_string(), "from tokio".to_string())]);
    assert_eq!(plug.logs()[0].message, "run 1 of session plug-test-session");
    // A config the schema refuses fails the next run, naming the field.
    let mut bad = Harness::load(&wasm).unwrap().with_config(serde_json::json!({ "greeting": 1 }));
    let err = bad.start().unwrap_err();
    assert!(err.message.contains("with.greeting"), "{err}");
}
"#,
    )
    .unwrap();

    // Its tests, as its author runs them, with a cold target directory: the
    // harness drives the `blaise-runner` binary, so no plug host is built.
    let runner_bin = Path::new(env!("CARGO_BIN_EXE_blaise-runner"));
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["test", "--release"])
        .current_dir(&dir)
        .env("BLAISE_RUNNER", runner_bin)
        .env("BLAISE_CACHE_DIR", tmp.path().join("cache"))
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the new plug's tests failed:\n{}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    for test in [
        "test start_pause_resume_teardown ... ok",
        "test the_harness_runs_inside_a_tokio_test ... ok",
    ] {
        assert!(text(&out.stdout).contains(test), "{}", text(&out.stdout));
    }

    // `plug test DIR` builds it and runs the crate's own script.
    let out = runner(&["plug", "test", "hello-plug"], tmp.path());
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.contains("env GREETING=hello"), "{stdout}");
    assert!(stdout.contains("state set runs = 2"), "{stdout}");
    assert!(stdout.contains("state deleted runs"), "{stdout}");
    assert!(stdout.contains("all 5 steps as expected"), "{stdout}");

    // What the plug declares is what it implements (no `on-pause` here).
    let out = runner(&["plug", "build", "hello-plug"], tmp.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let wasm = text(&out.stdout).trim().to_string();
    let out = runner(&["plug", "inspect", &wasm, "--json"], tmp.path());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["name"], "hello-plug");
    assert_eq!(
        v["hooks"],
        serde_json::json!(["on-start", "on-resume", "on-teardown"])
    );
    assert_eq!(v["filters_transcript"], false);
    // The schema is derived from the `Config` type, doc comment included.
    let greeting = &v["config_schema"]["properties"]["greeting"];
    assert_eq!(greeting["type"], "string");
    assert_eq!(greeting["description"], "What the agent is greeted with.");
    assert_eq!(v["config_schema"]["additionalProperties"], false);

    // The plug's own compile flags (`[package.metadata.blaise] rustc-args`)
    // reach its crate: here a cfg the crate cannot build without.
    let manifest_path = dir.join("Cargo.toml");
    let manifest = std::fs::read_to_string(&manifest_path).unwrap();
    let lib = dir.join("src/lib.rs");
    let source = std::fs::read_to_string(&lib).unwrap();
    std::fs::write(
        &lib,
        format!(
            "{source}\n#[cfg(not(hello_flag))]\ncompile_error!(\"built without hello_flag\");\n"
        ),
    )
    .unwrap();
    let with_args = |args: &str| {
        std::fs::write(
            &manifest_path,
            format!("{manifest}\n[package.metadata.blaise]\nrustc-args = {args}\n"),
        )
        .unwrap();
        runner(&["plug", "build", "hello-plug"], tmp.path())
    };
    let out = with_args(r#"["--cfg", "hello_flag", "--check-cfg", "cfg(hello_flag)"]"#);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = with_args(r#"["--check-cfg", "cfg(hello_flag)"]"#);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("built without hello_flag"),
        "{}",
        text(&out.stderr)
    );
    // Not a list of strings: refused before cargo runs, naming the file.
    let out = with_args(r#""--cfg hello_flag""#);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr)
            .contains("hello-plug/Cargo.toml: [package.metadata.blaise] rustc-args must be a list of strings, not `\"--cfg hello_flag\"`"),
        "{}",
        text(&out.stderr)
    );
    // The plug's own `.cargo/config.toml` applies, as to `cargo build` run
    // in its directory, though `plug build` runs from its parent.
    std::fs::write(
        &lib,
        format!(
            "{source}\n#[cfg(not(hello_config))]\ncompile_error!(\"built without hello_config\");\n"
        ),
    )
    .unwrap();
    std::fs::create_dir(dir.join(".cargo")).unwrap();
    std::fs::write(
        dir.join(".cargo/config.toml"),
        "[target.wasm32-wasip2]\nrustflags = [\"--cfg\", \"hello_config\", \"--check-cfg\", \"cfg(hello_config)\"]\n",
    )
    .unwrap();
    let out = with_args("[]");
    assert!(out.status.success(), "{}", text(&out.stderr));
    std::fs::remove_dir_all(dir.join(".cargo")).unwrap();
    std::fs::write(&manifest_path, manifest).unwrap();
    std::fs::write(&lib, source).unwrap();

    // A second `new` with the same name refuses to overwrite it.
    let out = runner(&["plug", "new", "hello-plug"], tmp.path());
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("already exists"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn plug_test_runs_a_scripted_lifecycle_and_reports_each_hook() {
    let tmp = tempfile::tempdir().unwrap();
    let wasm = redaction_wasm();
    let script = tmp.path().join("script.yml");
    std::fs::write(
        &script,
        "with: { literals: [hunter2-literal] }\n\
         steps:\n\
         \x20 - start\n\
         \x20 - filter: [\"the password is hunter2-literal\", { text: \"ok\", kind: tool-output, stream: s2 }]\n\
         \x20 - pause\n\
         \x20 - resume\n\
         \x20 - teardown\n",
    )
    .unwrap();
    let out = plug_test_json(&wasm, &script, tmp.path());
    assert!(
        out.status.success(),
        "{}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["ok"], true);
    assert_eq!(report["plug"]["name"], "redaction");
    let steps = report["steps"].as_array().unwrap();
    let names: Vec<&str> = steps.iter().map(|s| s["step"].as_str().unwrap()).collect();
    assert_eq!(names, ["start", "filter", "pause", "resume", "teardown"]);
    let entries = &steps[1]["entries"];
    assert_eq!(entries[0]["text"], "the password is [REDACTED:literal]");
    assert_eq!(entries[1]["text"], "ok");
    assert_eq!(entries[1]["kind"], "tool-output");
    assert!(steps.iter().all(|s| s["millis"].as_f64().is_some()));

    // A config the plug refuses fails its hook and the command, naming the field.
    std::fs::write(
        &script,
        "with: { patterns: [{ name: mine, regex: 'x[', test: x }] }\nsteps: [start, teardown]\n",
    )
    .unwrap();
    let args = [
        "plug",
        "test",
        wasm.to_str().unwrap(),
        "--script",
        script.to_str().unwrap(),
    ];
    let out = runner(&args, tmp.path());
    let stdout = text(&out.stdout);
    assert!(!out.status.success(), "{stdout}");
    assert!(stdout.contains("start      FAILED"), "{stdout}");
    assert!(stdout.contains("(with.patterns.0.regex)"), "{stdout}");
    assert!(stdout.contains("1 of 2 steps failed"), "{stdout}");

    // ... unless the script expects it to.
    std::fs::write(
        &script,
        "with: { patterns: [{ name: mine, regex: 'x[', test: x }] }\n\
         steps: [{ start: { expect_error: 'not a valid regular expression' } }]\n",
    )
    .unwrap();
    let out = runner(&args, tmp.path());
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.contains("failed as expected"), "{stdout}");

    // A config the schema refuses is an error before any hook, naming the field.
    std::fs::write(&script, "with: { literals: [abc] }\nsteps: [start]\n").unwrap();
    let out = runner(&args, tmp.path());
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(stderr.contains("with.literals.0"), "{stderr}");
    assert!(
        !stderr.contains("abc"),
        "a config value may be a secret: {stderr}"
    );

    // A misspelt step is named with where it is.
    std::fs::write(&script, "steps: [start, paws]\n").unwrap();
    let out = runner(&args, tmp.path());
    let stderr = text(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("steps[1]: unknown step `paws`"), "{stderr}");

    // A script that is not YAML of the right shape is named with its line
    // and column, once.
    std::fs::write(&script, "steps: [start]\nwith: [unclosed\n").unwrap();
    let out = runner(&args, tmp.path());
    let stderr = text(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("script.yml:"), "{stderr}");
    assert!(!stderr.contains(" at line "), "{stderr}");

    // An entry kind is one of the contract's, spelt as there.
    std::fs::write(
        &script,
        "with: { literals: [hunter2-literal] }\nsteps: [{ filter: [{ text: x, kind: agent_message }] }]\n",
    )
    .unwrap();
    let out = runner(&args, tmp.path());
    let stdout = text(&out.stdout);
    assert!(!out.status.success(), "{stdout}");
    assert!(
        stdout.contains("unknown entry kind `agent_message`") && stdout.contains("agent-message"),
        "{stdout}"
    );
}

#[test]
fn plug_test_pauses_hot_only_a_plug_that_keeps_processes() {
    let tmp = tempfile::tempdir().unwrap();
    let probe = blaise_runner::build::build_plug(
        &root().join("tests/plugs/probe"),
        Some(&root().join("target/plugs")),
    )
    .expect("building the probe plug");
    let script = tmp.path().join("script.yml");
    // The probe marks in its state each hook it runs, with what it was told.
    std::fs::write(
        &script,
        "with: { on_start: [mark], on_pause: [mark], on_resume: [mark] }\n\
         steps: [start, { pause: { keep_processes: true } }, resume, pause, resume]\n",
    )
    .unwrap();
    let run = |wasm: &Path| plug_test_json(wasm, &script, tmp.path());
    let out = run(&probe);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let marks: Vec<Vec<String>> = report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let set = s["state_changes"]["set"].as_object().cloned();
            set.unwrap_or_default().keys().cloned().collect()
        })
        .collect();
    assert_eq!(
        marks,
        [
            vec!["start"],
            vec!["pause:idle:true:kept"],
            vec!["resume:kept"],
            vec!["pause:idle:true"],
            vec!["resume"],
        ],
        "only the resume right after the hot pause is told processes were kept: {report:#}"
    );

    // A plug built for contract 0.2.0 never says it keeps processes: a hot
    // pause of it is a mistake in the script, said as such.
    std::fs::write(
        &script,
        "steps: [start, { pause: { keep_processes: true } }]\n",
    )
    .unwrap();
    let older = blaise_runner::build::build_plug(
        &root().join("tests/plugs/older-contract"),
        Some(&root().join("target/plugs")),
    )
    .expect("building the older-contract plug");
    let out = run(&older);
    let stdout = text(&out.stdout);
    assert!(!out.status.success(), "{stdout}");
    assert!(
        stdout.contains("the plug does not say `keeps-processes`"),
        "{stdout}"
    );
}

/// `COMPONENTIZE_PY` and `COMPONENTIZE_JS` from `scripts/plug-toolchains`
/// (which installs them from PyPI and npm, once), or `None` when this machine
/// has no python3 or node and the tools are not required.
fn foreign_toolchains() -> Option<Vec<(String, String)>> {
    let out = Command::new(root().join("scripts/plug-toolchains"))
        .stderr(std::process::Stdio::inherit())
        .output()
        .unwrap();
    if !out.status.success() {
        let required = std::env::var_os("BLAISE_REQUIRE_TOOLS").is_some_and(|v| v != "0");
        assert!(
            !required,
            "scripts/plug-toolchains failed (BLAISE_REQUIRE_TOOLS is set)"
        );
        eprintln!("SKIPPED: scripts/plug-toolchains could not install componentize-py/-js here");
        return None;
    }
    Some(
        text(&out.stdout)
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    )
}

#[test]
fn python_and_javascript_plugs_run_their_whole_lifecycle_in_the_real_host() {
    let Some(toolchains) = foreign_toolchains() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    for lang in ["python", "js"] {
        let name = format!("hello-{lang}");
        let out = runner(&["plug", "new", &name, "--lang", lang], tmp.path());
        assert!(out.status.success(), "{}", text(&out.stderr));
        // `plug test DIR` builds it with its build.sh and runs its own script:
        // start, a filter over a word cut between two chunks, pause, resume,
        // the last pause and the teardown.
        let out = Command::new(env!("CARGO_BIN_EXE_blaise-runner"))
            .args(["plug", "test", &name, "--json"])
            .current_dir(tmp.path())
            .env("BLAISE_CACHE_DIR", tmp.path().join("cache"))
            .envs(toolchains.iter().map(|(k, v)| (k, v)))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{lang}: {}\n{}",
            text(&out.stdout),
            text(&out.stderr)
        );
        let report: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{lang}: {e}: {}", text(&out.stdout)));
        assert_eq!(report["plug"]["name"], name.as_str());
        assert_eq!(report["plug"]["filters_transcript"], true, "{lang}");
        assert_eq!(
            report["plug"]["hooks"],
            serde_json::json!(["on-start", "on-resume", "on-pause", "on-teardown"]),
            "{lang}"
        );
        let steps = report["steps"].as_array().unwrap();
        let names: Vec<&str> = steps.iter().map(|s| s["step"].as_str().unwrap()).collect();
        assert_eq!(
            names,
            ["start", "filter", "pause", "resume", "pause", "teardown"],
            "{lang}"
        );
        assert_eq!(
            steps[0]["contribution"]["env"],
            serde_json::json!([["GREETING", "hello"]]),
            "{lang}"
        );
        assert_eq!(steps[0]["state"]["runs"], "1", "{lang}");
        let filtered: String = steps[1]["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["text"].as_str().unwrap())
            .collect();
        assert_eq!(filtered, "my [hidden] is safe", "{lang}");
        assert!(
            steps[2]["logs"][0]["message"]
                .as_str()
                .is_some_and(|m| m.contains("pausing (idle")),
            "{lang}: {}",
            steps[2]
        );
        assert_eq!(steps[3]["state"]["runs"], "2", "{lang}");
        assert_eq!(steps[5]["state"], serde_json::json!({}), "{lang}");
        assert_eq!(
            steps[5]["state_changes"]["deleted"],
            serde_json::json!(["runs"])
        );
    }
}

#[test]
fn plug_test_never_prints_a_secret_the_plug_was_given() {
    let tmp = tempfile::tempdir().unwrap();
    let probe = blaise_runner::build::build_plug(
        &root().join("tests/plugs/probe"),
        Some(&root().join("target/plugs")),
    )
    .expect("building the probe plug");
    let script = tmp.path().join("script.yml");
    // The probe logs the secret and fails with it in its error.
    std::fs::write(
        &script,
        "with: { on_start: [{ secret: probe-secret }] }\n\
         allow: { secrets: { probe-secret: { env: PROBE_SECRET_FOR_TEST } } }\n\
         steps: [{ start: { expect_error: 'failing with' } }]\n",
    )
    .unwrap();
    let secret = "s3cr3t-7f1e9c2ab44d";
    for json in [false, true] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_blaise-runner"));
        cmd.args(["plug", "test"])
            .arg(&probe)
            .arg("--script")
            .arg(&script)
            .env("BLAISE_CACHE_DIR", tmp.path().join("cache"))
            .env("PROBE_SECRET_FOR_TEST", secret);
        if json {
            cmd.arg("--json");
        }
        let out = cmd.output().unwrap();
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert!(out.status.success(), "{stdout}\n{stderr}");
        assert!(stdout.contains("[REDACTED:secret]"), "{stdout}");
        for piece in [secret, &secret[..8], &secret[8..16]] {
            assert!(
                !stdout.contains(piece) && !stderr.contains(piece),
                "`{piece}` printed:\n{stdout}\n{stderr}"
            );
        }
    }
}

/// `prepare` in a script runs `on-prepare` as a runner's idle preparation
/// does: no session, no state kept, a scratch workspace of its own. A plug
/// that does not prepare is said to, not silently passed.
#[test]
fn plug_test_prepares_a_plug_that_prepares_and_says_so_of_one_that_does_not() {
    let tmp = tempfile::tempdir().unwrap();
    let steps = "steps: [prepare, { prepare: { expect_error: \"does not prepare\" } }]\n";
    let run = |plug: &str, with: &str| {
        let script = tmp.path().join("script.yml");
        std::fs::write(&script, format!("{with}{steps}")).unwrap();
        let wasm = blaise_runner::build::build_plug(
            &root().join(plug),
            Some(&root().join("target/plugs")),
        )
        .expect("building the plug");
        let out = plug_test_json(&wasm, &script, tmp.path());
        let report: serde_json::Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", text(&out.stderr)));
        report["steps"].as_array().unwrap().clone()
    };
    let probe = run(
        "tests/plugs/probe",
        "with: { on_prepare: [{ set: [k, v] }, { record: ahead }] }\n",
    );
    assert_eq!(probe[0]["ok"], true, "{probe:#?}");
    assert_eq!(probe[0]["state"], serde_json::json!({}), "no state is kept");
    // It prepares: the second step's expected error does not come.
    assert_eq!(probe[1]["ok"], false, "{probe:#?}");
    let noop = run("tests/plugs/noop", "");
    assert_eq!(noop[0]["ok"], false, "{noop:#?}");
    let said = noop[0]["error"]["message"].as_str().unwrap();
    assert!(said.contains("the plug does not prepare"), "{said}");
    assert_eq!(noop[1]["ok"], true, "{noop:#?}");
}
