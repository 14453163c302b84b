//! `blaise-runner plug new NAME`: a plug crate from the SDK template, which
//! builds to a component and passes its own lifecycle test as generated.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, Result, bail};

const CARGO_TOML: &str = include_str!("template/Cargo.toml.tmpl");
const LIB_RS: &str = include_str!("template/lib.rs.tmpl");
const LIFECYCLE_RS: &str = include_str!("template/lifecycle.rs.tmpl");
const PLUG_TEST_YML: &str = include_str!("template/plug-test.yml.tmpl");
/// The SDK version a new plug asks for: the one this runner was built with.
const SDK_VERSION: &str = env!("CARGO_PKG_VERSION");

/// A local SDK to use instead of the published one (`BLAISE_SDK`: the `sdk`
/// directory of a checkout), written as a `[patch.crates-io]`.
fn sdk_patch() -> Result<String> {
    let Some(dir) = std::env::var_os("BLAISE_SDK") else {
        return Ok(String::new());
    };
    let dir = PathBuf::from(dir);
    let dir = dir.canonicalize().with_context(|| {
        format!(
            "BLAISE_SDK is {}, which is not there: set it to the `sdk` directory of a Blaise checkout",
            dir.display()
        )
    })?;
    if !dir.join("Cargo.toml").is_file() {
        bail!(
            "BLAISE_SDK is {}, which has no Cargo.toml: set it to the `sdk` directory of a Blaise checkout",
            dir.display()
        );
    }
    let path: String = dir
        .to_string_lossy()
        .chars()
        .map(|c| match c {
            // What a TOML basic string must escape.
            '"' | '\\' => format!("\\{c}"),
            c if c.is_control() => format!("\\u{:04X}", c as u32),
            c => c.to_string(),
        })
        .collect();
    Ok(format!(
        "\n# The SDK from a local checkout (BLAISE_SDK), instead of crates.io.\n[patch.crates-io]\nblaise-plug = {{ path = \"{path}\" }}\n"
    ))
}

pub fn run(name: &str) -> Result<ExitCode> {
    let dir = create(Path::new("."), name)?;
    println!("created plug `{name}` in {}", dir.display());
    println!(
        "  blaise-runner plug test {name}        # builds it and runs its hooks in the plug host"
    );
    println!(
        "  cd {name} && cargo test --release      # its lifecycle test (drives the blaise-runner on PATH)"
    );
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
    let patch = sdk_patch()?;
    let fill = |t: &str| {
        t.replace("{{name}}", name)
            .replace("{{sdk_version}}", SDK_VERSION)
            .replace("{{sdk_patch}}", &patch)
    };
    std::fs::create_dir_all(dir.join("src"))?;
    std::fs::create_dir_all(dir.join("tests"))?;
    std::fs::write(dir.join("Cargo.toml"), fill(CARGO_TOML))?;
    std::fs::write(dir.join("src/lib.rs"), fill(LIB_RS))?;
    std::fs::write(dir.join("tests/lifecycle.rs"), fill(LIFECYCLE_RS))?;
    std::fs::write(dir.join("plug-test.yml"), fill(PLUG_TEST_YML))?;
    std::fs::write(dir.join(".gitignore"), "target/\n")?;
    Ok(dir)
}
