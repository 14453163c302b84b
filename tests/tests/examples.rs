//! The examples the docs show run as written: `examples/blaise.yml`, after
//! the `plug build` commands its header gives, passes `check` unchanged.

use std::process::Command;

use blaise_tests::blaise::runner_binary;
use blaise_tests::root;

#[test]
fn the_example_blaise_yml_is_checked_as_written() {
    let root = root();
    let example = std::fs::read_to_string(root.join("examples/blaise.yml")).unwrap();
    assert!(
        example.contains("for p in checkout sandbox docker redaction")
            && example.contains("plug build plugs/$p"),
        "the header says how to build the plugs:\n{example}"
    );
    for name in ["checkout", "docker", "sandbox", "redaction"] {
        let out = Command::new(runner_binary())
            .args(["plug", "build", &format!("plugs/{name}")])
            .current_dir(&root)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "plug build plugs/{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // Where the example's `source:` paths point.
        let built = String::from_utf8_lossy(&out.stdout);
        let expected = root.join(format!("target/plugs/wasm32-wasip2/release/{name}.wasm"));
        assert!(
            built.contains(&expected.display().to_string()),
            "plug build prints where it put the plug: {built}"
        );
    }
    let cache = tempfile::tempdir().unwrap();
    let out = Command::new(runner_binary())
        .arg("--cache-dir")
        .arg(cache.path())
        .args(["check", "--config", "examples/blaise.yml"])
        .current_dir(&root)
        .env_remove("GITHUB_TOKEN")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "check of examples/blaise.yml:\n{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("ok: 3 plug(s)"), "{stdout}");
    for id in ["checkout", "docker", "redaction"] {
        assert!(stdout.contains(id), "{id} in the table: {stdout}");
    }
}
