//! What `dev` can put in its example environment: which of the tools the
//! environment plugs drive work on this machine, and a local image that holds
//! the script agent (no registry needed: it is made with `docker import`).

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, Result, bail};

/// A tool an environment plug drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    Git,
    Docker,
    Bwrap,
}

impl Tool {
    pub fn name(self) -> &'static str {
        match self {
            Tool::Git => "git",
            Tool::Docker => "docker",
            Tool::Bwrap => "bwrap",
        }
    }

    /// Whether the tool works here (`docker`: a daemon answers; `bwrap`: a
    /// sandbox can be made), and if not, why.
    pub fn check(self) -> Result<(), String> {
        let probe: &[&str] = match self {
            Tool::Git => &["git", "--version"],
            Tool::Docker => &["docker", "info", "--format", "{{.ServerVersion}}"],
            Tool::Bwrap => &[
                "bwrap",
                "--unshare-all",
                "--ro-bind",
                "/",
                "/",
                "--",
                "/bin/true",
            ],
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
}

/// An image holding busybox and `agent` (with the shared libraries it links,
/// at their host paths), tagged by the agent's path and content (the path is
/// where `agent.command` finds it); built unless present.
pub fn agent_image(agent: &Path) -> Result<String, crate::DevError> {
    image_for(agent).map_err(|e| crate::DevError::Setup(format!("{e:#}")))
}

fn image_for(agent: &Path) -> Result<String> {
    // The layout's version first: an image built by an older runner is not reused.
    let mut bytes = b"layout 2\0".to_vec();
    bytes.extend(agent.as_os_str().as_encoded_bytes());
    bytes.push(0);
    bytes.extend(std::fs::read(agent).with_context(|| format!("reading {}", agent.display()))?);
    let digest = blaise_runner::host::compile_cache::sha256_hex(&bytes);
    let tag = format!("blaise-dev/agent:{}", &digest[..12]);
    let present = Command::new("docker")
        .args(["image", "inspect", &tag])
        .output()
        .is_ok_and(|o| o.status.success());
    if !present {
        build_agent_image(agent, &tag).with_context(|| format!("building the image {tag}"))?;
    }
    Ok(tag)
}

fn build_agent_image(agent: &Path, tag: &str) -> Result<()> {
    let stage = tempfile::tempdir()?;
    let root = stage.path().join("rootfs");
    for dir in ["bin", "tmp", "etc", "proc", "sys", "dev", "root"] {
        std::fs::create_dir_all(root.join(dir))?;
    }
    // The agent runs as root, whose home is /root (private); /tmp is for all.
    std::fs::set_permissions(root.join("root"), std::fs::Permissions::from_mode(0o700))?;
    std::fs::set_permissions(root.join("tmp"), std::fs::Permissions::from_mode(0o1777))?;
    let busybox = ["/bin/busybox", "/usr/bin/busybox"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
        .context("busybox is not installed (Debian: busybox-static)")?;
    std::fs::copy(&busybox, root.join("bin/busybox"))?;
    for applet in output(&root, &busybox.to_string_lossy(), &["--list"])?.lines() {
        let link = root.join("bin").join(applet);
        if !link.exists() {
            std::os::unix::fs::symlink("/bin/busybox", link)?;
        }
    }
    // The agent and the libraries it needs, where the loader looks for them.
    let mut files = vec![agent.to_path_buf()];
    for line in output(Path::new("/"), "ldd", &[&agent.to_string_lossy()])?.lines() {
        if let Some(path) = line.split_whitespace().find(|w| w.starts_with('/')) {
            files.push(PathBuf::from(path));
        }
    }
    for file in files {
        let to = root.join(file.strip_prefix("/")?);
        std::fs::create_dir_all(to.parent().context("a file has a parent")?)?;
        std::fs::copy(std::fs::canonicalize(&file)?, &to)
            .with_context(|| format!("copying {}", file.display()))?;
    }
    std::fs::write(root.join("etc/passwd"), "root:x:0:0:root:/root:/bin/sh\n")?;
    let tar = stage.path().join("rootfs.tar");
    output(&root, "tar", &["-cf", &tar.to_string_lossy(), "."])?;
    output(
        Path::new("/"),
        "docker",
        &["import", &tar.to_string_lossy(), tag],
    )?;
    Ok(())
}

fn output(dir: &Path, program: &str, args: &[&str]) -> Result<String> {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .with_context(|| format!("running {program}"))?;
    if !out.status.success() {
        bail!(
            "`{program} {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
