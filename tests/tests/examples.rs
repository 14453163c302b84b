//! The examples the docs show run as written: each `examples/*.yml`, after
//! the `plug build` commands its header gives, passes `check` unchanged.
//! (`tests/database.rs` also runs `examples/database.yml`'s sessions.)

use std::process::Command;

use blaise_tests::blaise::runner_binary;
use blaise_tests::root;

/// `examples/FILE`: its header builds `plugs` (in this order), and `check`
/// passes with `ids` in its table.
fn checked_as_written(file: &str, plugs: &[&str], ids: &[&str]) {
    let root = root();
    let example = std::fs::read_to_string(root.join("examples").join(file)).unwrap();
    assert!(
        example.contains(&format!("for p in {}", plugs.join(" ")))
            && example.contains("plug build plugs/$p"),
        "the header says how to build the plugs:\n{example}"
    );
    for name in plugs {
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
        .args(["check", "--config", &format!("examples/{file}")])
        .current_dir(&root)
        .env_remove("GITHUB_TOKEN")
        .env_remove("PGADMIN_PASSWORD")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "check of examples/{file}:\n{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(&format!("ok: {} plug(s)", ids.len())),
        "{stdout}"
    );
    for id in ids {
        assert!(stdout.contains(id), "{id} in the table: {stdout}");
    }
}

#[test]
fn the_example_blaise_yml_is_checked_as_written() {
    checked_as_written(
        "blaise.yml",
        &["checkout", "sandbox", "docker", "redaction"],
        &["checkout", "docker", "redaction"],
    );
}

#[test]
fn the_database_example_is_checked_as_written() {
    checked_as_written(
        "database.yml",
        &["checkout", "database", "sandbox"],
        &["checkout", "db", "sandbox"],
    );
}
