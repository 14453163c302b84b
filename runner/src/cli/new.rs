//! `blaise-runner plug new NAME`: a plug crate from the SDK template, which
//! builds to a component and passes its own lifecycle test as generated.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, Result, bail};

const CARGO_TOML: &str = include_str!("template/Cargo.toml.tmpl");
const LIB_RS: &str = include_str!("template/lib.rs.tmpl");
const LIFECYCLE_RS: &str = include_str!("template/lifecycle.rs.tmpl");
/// The versions the SDK was built and tested with, so that a new plug
/// resolves to the same ones.
const CARGO_LOCK: &str = include_str!("../../../Cargo.lock");

/// Where the SDK crate is: `BLAISE_SDK`, or the SDK this runner was built beside.
fn sdk_dir() -> Result<PathBuf> {
    let dir = std::env::var_os("BLAISE_SDK")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../sdk"));
    dir.canonicalize().with_context(|| {
        format!(
            "the blaise-plug SDK is not at {}: set BLAISE_SDK to its directory",
            dir.display()
        )
    })
}

pub fn run(name: &str) -> Result<ExitCode> {
    let dir = create(Path::new("."), name)?;
    println!("created plug `{name}` in {}", dir.display());
    println!(
        "  cd {name} && cargo test --release      # builds the component and runs its lifecycle test"
    );
    println!("  blaise-runner plug build {name}       # builds the component");
    Ok(ExitCode::SUCCESS)
}

/// Writes the plug crate `name` under `parent`; fails if it exists.
pub fn create(parent: &Path, name: &str) -> Result<PathBuf> {
    let valid = name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !valid {
        bail!(
            "`{name}` is not a valid plug name: use lowercase letters, digits and `-`, starting with a letter"
        );
    }
    let dir = parent.join(name);
    if dir.exists() {
        bail!("{} already exists", dir.display());
    }
    let sdk = sdk_dir()?;
    let fill = |t: &str| {
        t.replace("{{name}}", name)
            .replace("{{sdk}}", &sdk.to_string_lossy())
    };
    std::fs::create_dir_all(dir.join("src"))?;
    std::fs::create_dir_all(dir.join("tests"))?;
    std::fs::write(dir.join("Cargo.toml"), fill(CARGO_TOML))?;
    std::fs::write(dir.join("src/lib.rs"), fill(LIB_RS))?;
    std::fs::write(dir.join("tests/lifecycle.rs"), fill(LIFECYCLE_RS))?;
    std::fs::write(dir.join("Cargo.lock"), CARGO_LOCK)?;
    std::fs::write(dir.join(".gitignore"), "target/\n")?;
    Ok(dir)
}
