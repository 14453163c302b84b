//! The deployment files as shipped: each systemd unit in `deploy/systemd` passes `systemd-analyze
//! verify` with nothing to say (the built binary in its `ExecStart`), and its command line is one
//! the binary takes (a flag renamed in the code would fail here, not on an operator's machine).

use std::path::PathBuf;
use std::process::Command;

use blaise_tests::blaise::runner_binary;
use blaise_tests::root;
use blaise_tests::serve::blaise_binary;

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
