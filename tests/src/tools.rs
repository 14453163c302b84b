//! The real tools the environment plugs drive (git, docker, bubblewrap), and
//! what the tests build with them: repositories, a git server that wants a
//! token, a container image holding the script agent.
//!
//! A test that needs a missing tool says so on stderr and returns, unless
//! `BLAISE_REQUIRE_TOOLS=1` (set by `.ci/run`, which installs them all): there a
//! missing tool fails the test.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// Whether `tool` works here (`git`, `docker`: a reachable daemon, `bwrap`: a
/// sandbox can be made), with why not.
pub fn check(tool: &str) -> Result<(), String> {
    let probe: &[&str] = match tool {
        "git" => &["git", "--version"],
        "docker" => &["docker", "info", "--format", "{{.ServerVersion}}"],
        "bwrap" => &[
            "bwrap",
            "--unshare-all",
            "--ro-bind",
            "/",
            "/",
            "--",
            "/bin/true",
        ],
        other => panic!("unknown tool {other}"),
    };
    match Command::new(probe[0]).args(&probe[1..]).output() {
        Err(e) => Err(format!("`{}` cannot be run: {e}", probe[0])),
        Ok(o) if !o.status.success() => Err(format!(
            "`{}` failed: {}",
            probe.join(" "),
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Ok(_) => Ok(()),
    }
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

/// Containers on the Docker host with `label` (`key=value`), by name.
pub fn containers_labelled(label: &str) -> Vec<String> {
    let out = sh(
        Path::new("/"),
        "docker",
        &[
            "ps",
            "--all",
            "--filter",
            &format!("label={label}"),
            "--format",
            "{{.Names}} {{.State}}",
        ],
    );
    out.lines().map(str::to_owned).collect()
}

/// A local image holding busybox and the script agent (with the libraries it
/// links, at their host paths), so the agent can run inside a container. No
/// registry is reachable: it is made with `docker import`. Tagged by the
/// agent's content, built once.
pub fn agent_image() -> String {
    static IMAGE: OnceLock<String> = OnceLock::new();
    IMAGE
        .get_or_init(|| {
            let agent = crate::blaise::script_agent();
            let bytes = std::fs::read(&agent).unwrap();
            let digest = blaise_runner::host::compile_cache::sha256_hex(&bytes);
            let tag = format!("blaise-test/agent:{}", &digest[..12]);
            let have = Command::new("docker")
                .args(["image", "inspect", &tag])
                .output()
                .is_ok_and(|o| o.status.success());
            if !have {
                build_agent_image(&agent, &tag);
            }
            tag
        })
        .clone()
}

fn build_agent_image(agent: &Path, tag: &str) {
    let stage = tempfile::tempdir().unwrap();
    let root = stage.path().join("rootfs");
    for dir in ["bin", "tmp", "etc", "proc", "sys", "dev"] {
        std::fs::create_dir_all(root.join(dir)).unwrap();
    }
    let busybox = ["/bin/busybox", "/usr/bin/busybox"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
        .expect("busybox (Debian: busybox-static) for the test image");
    std::fs::copy(&busybox, root.join("bin/busybox")).unwrap();
    for applet in sh(&root, &busybox.to_string_lossy(), &["--list"]).lines() {
        let link = root.join("bin").join(applet);
        if !link.exists() {
            std::os::unix::fs::symlink("/bin/busybox", link).unwrap();
        }
    }
    // The agent and the shared libraries it needs, at the same paths.
    let mut files = vec![agent.to_path_buf()];
    for line in sh(Path::new("/"), "ldd", &[&agent.to_string_lossy()]).lines() {
        if let Some(path) = line.split_whitespace().find(|w| w.starts_with('/')) {
            files.push(PathBuf::from(path));
        }
    }
    for file in files {
        let to = root.join(file.strip_prefix("/").unwrap());
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(std::fs::canonicalize(&file).unwrap(), &to).unwrap();
    }
    std::fs::write(root.join("etc/passwd"), "root:x:0:0:root:/root:/bin/sh\n").unwrap();
    let tar = stage.path().join("rootfs.tar");
    sh(&root, "tar", &["-cf", &tar.to_string_lossy(), "."]);
    sh(
        Path::new("/"),
        "docker",
        &["import", &tar.to_string_lossy(), tag],
    );
}
