//! `blaise-runner plug build`: a plug's sources to a component.
//!
//! A Rust crate: `cargo rustc --lib --release --target wasm32-wasip2 --crate-type cdylib`.
//! Any other language: the plug's `build.sh` (as `plug new --lang` writes
//! it), which builds the component and prints its path last.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, Result, bail};

/// The compilation target of plugs.
pub const TARGET: &str = "wasm32-wasip2";

/// Builds the plug crate in `dir` in release mode and returns the component.
/// `target_dir` overrides cargo's target directory (tests use their own, so
/// as not to wait on the lock of the build that runs them).
pub fn build_plug(dir: &Path, target_dir: Option<&Path>) -> Result<PathBuf> {
    let manifest = dir.join("Cargo.toml");
    if !manifest.is_file() {
        if dir.join(BUILD_SCRIPT).is_file() {
            return build_with_script(dir);
        }
        bail!(
            "{} has neither a Cargo.toml nor a {BUILD_SCRIPT}: give the plug's directory",
            dir.display()
        );
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(&cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--manifest-path",
        ])
        .arg(&manifest)
        .output()
        .context("running cargo metadata")?;
    if !output.status.success() {
        bail!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let meta: serde_json::Value = serde_json::from_slice(&output.stdout)?;
    let manifest_abs = manifest.canonicalize()?;
    let package = meta["packages"]
        .as_array()
        .and_then(|ps| {
            ps.iter().find(|p| {
                p["manifest_path"].as_str().map(PathBuf::from).as_deref()
                    == Some(manifest_abs.as_path())
            })
        })
        .context("cargo metadata does not list the plug's package")?;
    let name = package["name"].as_str().context("package without a name")?;
    // Components go to `<target>/plugs/`, apart from the crate's native
    // build (which its tests use): one place for `plug build`, `dev` and the
    // docs' examples, and no wait on the lock of a native build.
    let target_dir = match target_dir {
        Some(dir) => dir.to_path_buf(),
        None => PathBuf::from(
            meta["target_directory"]
                .as_str()
                .context("no target directory")?,
        )
        .join("plugs"),
    };

    let status = Command::new(&cargo)
        // `cargo rustc --crate-type cdylib` makes a component of any library
        // crate, so plug crates can stay plain rlibs natively (their unit
        // tests run on the host).
        .args([
            "rustc",
            "--lib",
            "--release",
            "--target",
            TARGET,
            "--crate-type",
            "cdylib",
            "--manifest-path",
        ])
        .arg(&manifest)
        .arg("--target-dir")
        .arg(&target_dir)
        // Plugs built from inside a test or a build script must not inherit the
        // host build's flags.
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .status()
        .context("running cargo build")?;
    if !status.success() {
        bail!(
            "building plug `{name}` failed (is the target installed? `rustup target add {TARGET}`)"
        );
    }
    let wasm = target_dir
        .join(TARGET)
        .join("release")
        .join(format!("{}.wasm", name.replace('-', "_")));
    if !wasm.is_file() {
        bail!("cargo built `{name}` but {} is missing", wasm.display());
    }
    Ok(wasm)
}

/// The build script of a plug in another language.
const BUILD_SCRIPT: &str = "build.sh";

/// Runs the plug's `build.sh`; the last line it prints is the component.
fn build_with_script(dir: &Path) -> Result<PathBuf> {
    let output = Command::new("sh")
        .arg(BUILD_SCRIPT)
        .current_dir(dir)
        .stderr(std::process::Stdio::inherit())
        .output()
        .with_context(|| format!("running {}", dir.join(BUILD_SCRIPT).display()))?;
    if !output.status.success() {
        bail!(
            "{} failed ({}; its errors are above)",
            dir.join(BUILD_SCRIPT).display(),
            output.status
        );
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let last = stdout.lines().last().unwrap_or_default().trim();
    let wasm = dir.join(last);
    if last.is_empty() || !wasm.is_file() {
        bail!(
            "{} must print the path of the component it built as its last line; it printed `{}`",
            dir.join(BUILD_SCRIPT).display(),
            crate::distribution::download::shown(last)
        );
    }
    Ok(wasm)
}
