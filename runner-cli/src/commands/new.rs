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

/// The language of a new plug.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Lang {
    /// A Rust crate on the `blaise-plug` SDK.
    Rust,
    /// A Python module built with componentize-py.
    Python,
    /// A JavaScript module built with componentize-js.
    Js,
}

/// The contract, for the plugs whose toolchains read WIT.
const PLUG_WIT: &str = include_str!("../../../wit/plug.wit");
const PYTHON_APP: &str = include_str!("template/python/app.py.tmpl");
const PYTHON_BUILD: &str = include_str!("template/python/build.sh.tmpl");
const JS_PLUG: &str = include_str!("template/js/plug.js.tmpl");
const JS_BUILD: &str = include_str!("template/js/build.sh.tmpl");
const PLUG_TEST_FILTER_YML: &str = include_str!("template/plug-test-filter.yml.tmpl");

pub fn run(name: &str, lang: Lang) -> Result<ExitCode> {
    let dir = create(Path::new("."), name, lang)?;
    println!("created plug `{name}` in {}", dir.display());
    println!(
        "  blaise-runner plug test {name}        # builds it and runs its hooks in the plug host"
    );
    match lang {
        Lang::Rust => println!(
            "  cd {name} && cargo test --release      # its lifecycle test (drives the blaise-runner on PATH)"
        ),
        Lang::Python => println!(
            "  (needs componentize-py: `pip install componentize-py==0.25.1`, or COMPONENTIZE_PY)"
        ),
        Lang::Js => println!(
            "  (needs componentize-js: `npm install @bytecodealliance/componentize-js@0.23.0`, or COMPONENTIZE_JS)"
        ),
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes the plug `name` under `parent`; fails if it exists. The files are
/// written beside it and moved into place whole: a failure leaves nothing.
pub fn create(parent: &Path, name: &str, lang: Lang) -> Result<PathBuf> {
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
    let patch = match lang {
        Lang::Rust => sdk_patch()?,
        _ => String::new(),
    };
    let contract = blaise_runner::contract::VERSION.to_string();
    let fill = |t: &str| {
        t.replace("{{name}}", name)
            .replace("{{contract}}", &contract)
            .replace("{{sdk_version}}", SDK_VERSION)
            .replace("{{sdk_patch}}", &patch)
    };
    let files: Vec<(&str, String)> = match lang {
        Lang::Rust => vec![
            ("Cargo.toml", fill(CARGO_TOML)),
            ("src/lib.rs", fill(LIB_RS)),
            ("tests/lifecycle.rs", fill(LIFECYCLE_RS)),
            ("plug-test.yml", fill(PLUG_TEST_YML)),
            (".gitignore", "target/\n".into()),
        ],
        Lang::Python => vec![
            ("src/app.py", fill(PYTHON_APP)),
            ("build.sh", fill(PYTHON_BUILD)),
            ("wit/plug.wit", PLUG_WIT.into()),
            ("plug-test.yml", fill(PLUG_TEST_FILTER_YML)),
            (".gitignore", "*.wasm\nbindings/\n__pycache__/\n".into()),
        ],
        Lang::Js => vec![
            ("src/plug.js", fill(JS_PLUG)),
            ("build.sh", fill(JS_BUILD)),
            ("wit/plug.wit", PLUG_WIT.into()),
            ("plug-test.yml", fill(PLUG_TEST_FILTER_YML)),
            (".gitignore", "*.wasm\n".into()),
        ],
    };
    let staging = tempfile::Builder::new()
        .prefix(&format!(".{name}.new-"))
        .tempdir_in(parent)
        .with_context(|| format!("creating a directory in {}", parent.display()))?;
    for (path, text) in &files {
        let file = staging.path().join(path);
        std::fs::create_dir_all(file.parent().expect("files are in the plug's directory"))?;
        std::fs::write(&file, text).with_context(|| format!("writing {}", file.display()))?;
        if path.ends_with(".sh") {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755))?;
        }
    }
    // Not `rename` over an existing directory: a plug made meanwhile is kept.
    if dir.exists() {
        bail!("{} already exists", dir.display());
    }
    std::fs::rename(staging.path(), &dir)
        .with_context(|| format!("moving the new plug to {}", dir.display()))?;
    // The staging directory is now the plug: do not remove it on drop.
    let _ = staging.keep();
    Ok(dir)
}
