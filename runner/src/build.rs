//! A plug's sources to a component (`blaise-runner plug build`, `dev`, the tests).
//!
//! A Rust crate: `cargo rustc --lib --release --target wasm32-wasip2 --crate-type cdylib`,
//! with link-time optimisation and the flags of the crate's
//! `[package.metadata.blaise] rustc-args`.
//! Any other language: the plug's `build.sh` (as `plug new --lang` writes
//! it), which builds the component and prints its path last.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Why a plug did not build.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("{0} has neither a Cargo.toml nor a {BUILD_SCRIPT}: give the plug's directory")]
    NotAPlug(PathBuf),
    #[error("running {what}: {source}")]
    Spawn {
        what: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cargo metadata: {0}")]
    Metadata(String),
    #[error("{}: [package.metadata.blaise] rustc-args {problem}", manifest.display())]
    RustcArgs { manifest: PathBuf, problem: String },
    #[error("building plug `{0}` failed (is the target installed? `rustup target add {TARGET}`)")]
    Failed(String),
    #[error("cargo built `{name}` but {} is missing", wasm.display())]
    Missing { name: String, wasm: PathBuf },
    #[error("{} failed ({status}; its errors are above)", script.display())]
    Script {
        script: PathBuf,
        status: std::process::ExitStatus,
    },
    #[error(
        "{} must print the path of the component it built as its last line; it printed `{printed}`",
        script.display()
    )]
    ScriptOutput { script: PathBuf, printed: String },
}

type Result<T> = std::result::Result<T, BuildError>;

fn spawn(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> BuildError {
    let what = what.into();
    move |source| BuildError::Spawn { what, source }
}

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
        return Err(BuildError::NotAPlug(dir.to_path_buf()));
    }
    let manifest_abs = manifest.canonicalize().map_err(|source| BuildError::Io {
        path: manifest.clone(),
        source,
    })?;
    // Cargo runs in the plug's directory, as `cd DIR && cargo build` would:
    // the `.cargo/config.toml` above the plug (its target flags) applies
    // wherever `plug build` is run from.
    let plug_dir = manifest_abs.parent().expect("a file has a parent");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(&cargo)
        .current_dir(plug_dir)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--manifest-path",
        ])
        .arg(&manifest_abs)
        .output()
        .map_err(spawn("cargo metadata"))?;
    if !output.status.success() {
        return Err(BuildError::Metadata(
            String::from_utf8_lossy(&output.stderr).into_owned(),
        ));
    }
    let meta: serde_json::Value = serde_json::from_slice(&output.stdout)
        .map_err(|e| BuildError::Metadata(format!("unreadable output: {e}")))?;
    let package = meta["packages"]
        .as_array()
        .and_then(|ps| {
            ps.iter().find(|p| {
                p["manifest_path"].as_str().map(PathBuf::from).as_deref()
                    == Some(manifest_abs.as_path())
            })
        })
        .ok_or_else(|| BuildError::Metadata("it does not list the plug's package".into()))?;
    let name = package["name"]
        .as_str()
        .ok_or_else(|| BuildError::Metadata("a package without a name".into()))?;
    let rustc_args = rustc_args(package, &manifest)?;
    // Components go to `<target>/plugs/`, apart from the crate's native
    // build (which its tests use): one place for `plug build`, `dev` and the
    // docs' examples, and no wait on the lock of a native build.
    let target_dir = match target_dir {
        // Relative to where the caller stands, not to the plug.
        Some(dir) => std::path::absolute(dir).map_err(|source| BuildError::Io {
            path: dir.to_path_buf(),
            source,
        })?,
        None => PathBuf::from(
            meta["target_directory"]
                .as_str()
                .ok_or_else(|| BuildError::Metadata("no target directory".into()))?,
        )
        .join("plugs"),
    };

    let status = Command::new(&cargo)
        .current_dir(plug_dir)
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
        .arg(&manifest_abs)
        .arg("--target-dir")
        .arg(&target_dir)
        // Whole-program optimisation: the component is one program. LTO
        // makes it a tenth to a fifth smaller (faster to compile and load)
        // and its calls faster, for about the same build time (dependencies
        // are then not code-generated on their own). It overrides the
        // crate's own `lto` (docs/writing-plugs.md says so).
        .args(["--config", "profile.release.lto=true"])
        // The plug's own flags for that whole-program compile (the crate's
        // own, after `--`: with LTO its compile optimises every crate).
        .arg("--")
        .args(&rustc_args)
        // Plugs built from inside a test or a build script must not inherit the
        // host build's flags.
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .status()
        .map_err(spawn("cargo build"))?;
    if !status.success() {
        return Err(BuildError::Failed(name.to_string()));
    }
    let wasm = target_dir
        .join(TARGET)
        .join("release")
        .join(format!("{}.wasm", name.replace('-', "_")));
    if !wasm.is_file() {
        return Err(BuildError::Missing {
            name: name.to_string(),
            wasm,
        });
    }
    Ok(wasm)
}

/// `[package.metadata.blaise] rustc-args` of the plug's `Cargo.toml`: flags
/// for the compile of the plug's own crate, where link-time optimisation
/// compiles the whole component (`-C llvm-args=-inline-threshold=1000`).
fn rustc_args(package: &serde_json::Value, manifest: &Path) -> Result<Vec<String>> {
    let args = &package["metadata"]["blaise"]["rustc-args"];
    if args.is_null() {
        return Ok(Vec::new());
    }
    let problem = |problem: &str| BuildError::RustcArgs {
        manifest: manifest.to_path_buf(),
        problem: problem.to_string(),
    };
    args.as_array()
        .ok_or_else(|| problem(&format!("must be a list of strings, not `{args}`")))?
        .iter()
        .map(|a| {
            a.as_str()
                .map(str::to_string)
                .ok_or_else(|| problem(&format!("must hold only strings; `{a}` is not one")))
        })
        .collect()
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
        .map_err(spawn(dir.join(BUILD_SCRIPT).display().to_string()))?;
    if !output.status.success() {
        return Err(BuildError::Script {
            script: dir.join(BUILD_SCRIPT),
            status: output.status,
        });
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let last = stdout.lines().last().unwrap_or_default().trim();
    let wasm = dir.join(last);
    if last.is_empty() || !wasm.is_file() {
        return Err(BuildError::ScriptOutput {
            script: dir.join(BUILD_SCRIPT),
            printed: crate::distribution::download::shown(last),
        });
    }
    Ok(wasm)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args_of(metadata: serde_json::Value) -> Result<Vec<String>> {
        rustc_args(
            &serde_json::json!({ "name": "p", "metadata": metadata }),
            Path::new("p/Cargo.toml"),
        )
    }

    #[test]
    fn rustc_args_come_from_the_plugs_metadata() {
        assert_eq!(
            args_of(serde_json::Value::Null).unwrap(),
            Vec::<String>::new()
        );
        assert_eq!(
            args_of(serde_json::json!({ "other": { "rustc-args": ["-Cx"] } })).unwrap(),
            Vec::<String>::new()
        );
        assert_eq!(
            args_of(serde_json::json!({ "blaise": { "rustc-args": ["-C", "opt-level=s"] } }))
                .unwrap(),
            ["-C", "opt-level=s"]
        );
    }

    #[test]
    fn rustc_args_that_are_not_strings_are_refused_naming_the_manifest() {
        let err = args_of(serde_json::json!({ "blaise": { "rustc-args": "-C opt-level=s" } }))
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "p/Cargo.toml: [package.metadata.blaise] rustc-args must be a list of strings, not `\"-C opt-level=s\"`"
        );
        let err = args_of(serde_json::json!({ "blaise": { "rustc-args": ["-C", 3] } }))
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "p/Cargo.toml: [package.metadata.blaise] rustc-args must hold only strings; `3` is not one"
        );
    }
}
