//! The real tools the environment plugs drive (git, docker, bubblewrap), and
//! what the tests build with them: repositories, a git server that wants a
//! token, a container image holding the script agent.
//!
//! A test that needs a missing tool says so on stderr and returns, unless
//! `BLAISE_REQUIRE_TOOLS=1` (set by `.ci/run`, which installs them all): there a
//! missing tool fails the test.

use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

use blaise_dev::tools::{self as dev_tools, Tool};

/// Whether `tool` (`git`, `docker`, `bwrap`) works here, and if not, why.
pub fn check(tool: &str) -> Result<(), String> {
    let tool = match tool {
        "git" => Tool::Git,
        "docker" => Tool::Docker,
        "bwrap" => Tool::Bwrap,
        other => panic!("unknown tool {other}"),
    };
    tool.check()
}

/// Whether every tool is there; if not, and the tools are not required, the
/// caller returns early (the reason is on stderr).
pub fn have(tools: &[&str]) -> bool {
    let missing: Vec<String> = tools
        .iter()
        .filter_map(|t| check(t).err().map(|why| format!("{t}: {why}")))
        .collect();
    if missing.is_empty() {
        return true;
    }
    let why = missing.join("; ");
    if std::env::var_os("BLAISE_REQUIRE_TOOLS").is_some_and(|v| v != "0") {
        panic!("required tools are missing (BLAISE_REQUIRE_TOOLS is set): {why}");
    }
    eprintln!(
        "SKIPPED: needs {} ({why}); `bash .ci/run` installs them",
        tools.join(", ")
    );
    false
}

/// Runs `program args` in `dir`; panics with its stderr if it fails.
pub fn sh(dir: &Path, program: &str, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    assert!(
        out.status.success(),
        "`{program} {}` in {}: {}",
        args.join(" "),
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `git` with an identity, so commits work on any machine.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let mut all = vec![
        "-c",
        "user.name=Blaise Tests",
        "-c",
        "user.email=tests@blaise.invalid",
    ];
    all.extend(args);
    sh(dir, "git", &all)
}

/// A repository at `dir` with `README.md` on `main` and `feature.txt` on
/// branch `feature`; returns the first commit of `main`.
pub fn origin_repo(dir: &Path) -> String {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "--quiet", "--initial-branch", "main"]);
    std::fs::write(dir.join("README.md"), "first\n").unwrap();
    git(dir, &["add", "README.md"]);
    git(dir, &["commit", "--quiet", "-m", "first"]);
    let first = git(dir, &["rev-parse", "HEAD"]).trim().to_owned();
    std::fs::write(dir.join("README.md"), "second\n").unwrap();
    git(dir, &["commit", "--quiet", "-am", "second"]);
    git(dir, &["checkout", "--quiet", "-b", "feature"]);
    std::fs::write(dir.join("feature.txt"), "feature\n").unwrap();
    git(dir, &["add", "feature.txt"]);
    git(dir, &["commit", "--quiet", "-m", "feature"]);
    git(dir, &["checkout", "--quiet", "main"]);
    first
}

/// Containers on the Docker host with `label` (`key=value`): "NAME STATE".
pub fn containers_labelled(label: &str) -> Vec<String> {
    containers(&format!("label={label}"))
}

/// Containers on the Docker host, running or not, that `docker ps --filter
/// FILTER` lists (`name=PART`, `label=K=V`): "NAME STATE".
pub fn containers(filter: &str) -> Vec<String> {
    let out = sh(
        Path::new("/"),
        "docker",
        &[
            "ps",
            "--all",
            "--filter",
            filter,
            "--format",
            "{{.Names}} {{.State}}",
        ],
    );
    out.lines().map(str::to_owned).collect()
}

/// A local image holding busybox and the script agent, built once (see
/// `blaise-runner dev`, which makes the same one).
pub fn agent_image() -> String {
    static IMAGE: OnceLock<String> = OnceLock::new();
    IMAGE
        .get_or_init(|| {
            dev_tools::agent_image(&crate::blaise::script_agent())
                .unwrap_or_else(|e| panic!("{e:#}"))
        })
        .clone()
}
