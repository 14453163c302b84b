//! Every `blaise.yml` and `plug test` script the docs show is checked: each
//! YAML block of README.md, docs/*.md and the plugs' READMEs is extracted
//! and run through `blaise-runner check` (a blaise.yml) or `plug test` (a
//! script). The repository's plugs are the real ones, built; a plug the docs
//! only imagine (`hello`) is the probe test plug, whose config schema is open.
//! Where a block cannot run here as written, the test rewrites the least it
//! can and says why: a registry source becomes a local file (no registry
//! here), a missing `agent:` is added (a plug README shows only `plugs:`), a
//! GitHub URL becomes a local repository (no internet).

use std::path::{Path, PathBuf};
use std::process::Command;

use blaise_tests::blaise::runner_binary;
use blaise_tests::{plug, root, tools};

struct Snippet {
    /// `file:line` of the block, for failures.
    at: String,
    text: String,
}

/// The YAML blocks of the user-facing Markdown.
fn snippets() -> Vec<Snippet> {
    let root = root();
    let mut files = vec![root.join("README.md")];
    for dir in ["docs", "plugs"] {
        let mut found: Vec<PathBuf> = walk(&root.join(dir))
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect();
        found.sort();
        files.extend(found);
    }
    let mut snippets = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let mut block: Option<(usize, String)> = None;
        for (i, line) in text.lines().enumerate() {
            match &mut block {
                None if line.trim_start() == "```yaml" || line.trim_start() == "```yml" => {
                    block = Some((i + 1, String::new()))
                }
                Some((start, body)) if line.trim_start() == "```" => {
                    let rel = file.strip_prefix(&root).unwrap().display().to_string();
                    snippets.push(Snippet {
                        at: format!("{rel}:{start}"),
                        text: std::mem::take(body),
                    });
                    block = None;
                }
                Some((_, body)) => {
                    body.push_str(line);
                    body.push('\n');
                }
                None => {}
            }
        }
    }
    snippets
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() && !path.ends_with("target") {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// The component the docs mean by a plug's name.
fn component_for(name: &str) -> PathBuf {
    match name {
        "redaction" | "checkout" | "docker" | "sandbox" | "database" => {
            plug(&format!("plugs/{name}"))
        }
        _ => plug("tests/plugs/probe"),
    }
}

fn is_local(source: &str) -> bool {
    !source.contains("://") && !source.contains(':') && source.ends_with(".wasm")
}

/// A blaise.yml block, made whole and checkable here, in `dir`; the plug ids.
fn prepare_blaise_yml(snippet: &Snippet, dir: &Path) -> Vec<String> {
    let value: serde_yaml::Value = serde_yaml::from_str(&snippet.text)
        .unwrap_or_else(|e| panic!("{}: not YAML: {e}", snippet.at));
    let mut text = snippet.text.clone();
    if value.get("agent").is_none() {
        text = format!("agent:\n  command: [my-acp-agent]\n{text}");
    }
    let mut ids = Vec::new();
    let mut remote = false;
    for entry in value["plugs"].as_sequence().into_iter().flatten() {
        let id = entry["id"].as_str().unwrap().to_string();
        let source = entry["source"].as_str().unwrap();
        if is_local(source) {
            let stem = Path::new(source).file_stem().unwrap().to_str().unwrap();
            let place = dir.join(source);
            std::fs::create_dir_all(place.parent().unwrap()).unwrap();
            std::fs::copy(component_for(stem), &place).unwrap();
        } else {
            // No registry here: the plug is a local file, without the
            // digest and signature that belong to the registry's copy.
            remote = true;
            let local = format!("stub/{id}.wasm");
            std::fs::create_dir_all(dir.join("stub")).unwrap();
            std::fs::copy(component_for(&id), dir.join(&local)).unwrap();
            text = text
                .lines()
                .map(|l| {
                    if l.trim_start().starts_with("source:") && l.contains(source) {
                        format!("{}source: {local}", &l[..l.len() - l.trim_start().len()])
                    } else {
                        l.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join("\n");
        }
        ids.push(id);
    }
    if remote {
        text = text
            .lines()
            .filter(|l| {
                let t = l.trim_start();
                !t.starts_with("digest:") && !t.starts_with("signed_by:")
            })
            .collect::<Vec<_>>()
            .join("\n");
    }
    std::fs::write(dir.join("blaise.yml"), text).unwrap();
    ids
}

/// A `PATH` with an executable named as the agent's program of the
/// `blaise.yml` in `dir` (when it is a name, not a path) in front.
fn agent_on_path(dir: &Path) -> std::ffi::OsString {
    use std::os::unix::fs::PermissionsExt as _;
    let yaml: serde_yaml::Value =
        serde_yaml::from_str(&std::fs::read_to_string(dir.join("blaise.yml")).unwrap()).unwrap();
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    if let Some(program) = yaml["agent"]["command"][0].as_str()
        && !program.contains('/')
    {
        let stub = bin.join(program);
        std::fs::write(&stub, "#!/bin/sh\nexit 0\n").unwrap();
        std::fs::set_permissions(&stub, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let mut paths = vec![bin];
    paths.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(paths).unwrap()
}

#[test]
fn every_blaise_yml_in_the_docs_passes_check() {
    let snippets = snippets();
    let mut checked = Vec::new();
    for snippet in &snippets {
        let is_config = snippet
            .text
            .lines()
            .any(|l| l.starts_with("agent:") || l.starts_with("plugs:"));
        // A blaise.lock (`version:` and pins) is written by `plug lock`, not by hand.
        let is_lock = snippet.text.lines().any(|l| l.starts_with("version:"));
        if !is_config || is_lock {
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let ids = prepare_blaise_yml(snippet, dir.path());
        // `check` looks for the agent's program on PATH: the docs name
        // agents this machine need not have, so a stand-in of that name is.
        let path = agent_on_path(dir.path());
        let out = Command::new(runner_binary())
            .arg("--cache-dir")
            .arg(dir.path().join("cache"))
            .args(["check", "--config", "blaise.yml"])
            .current_dir(dir.path())
            .env_remove("GITHUB_TOKEN")
            .env("PATH", path)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{}: check failed:\n{}\n{stdout}{}",
            snippet.at,
            std::fs::read_to_string(dir.path().join("blaise.yml")).unwrap(),
            String::from_utf8_lossy(&out.stderr)
        );
        for id in &ids {
            assert!(
                stdout.contains(id.as_str()),
                "{}: {id} not in:\n{stdout}",
                snippet.at
            );
        }
        checked.push(snippet.at.clone());
    }
    // The blocks the docs show today: a block that stops being found (a
    // changed fence, a moved file) must not silently drop out of the test.
    for expected in [
        "README.md",
        "docs/using-plugs.md",
        "docs/writing-plugs.md",
        "plugs/checkout/README.md",
        "plugs/database/README.md",
        "plugs/docker/README.md",
        "plugs/redaction/README.md",
        "plugs/sandbox/README.md",
    ] {
        assert!(
            checked
                .iter()
                .any(|at| at.starts_with(&format!("{expected}:"))),
            "no blaise.yml checked from {expected}: {checked:?}"
        );
    }
    eprintln!("checked {} blaise.yml blocks: {checked:?}", checked.len());
}

#[test]
fn every_plug_test_script_in_the_docs_runs() {
    let have_git = tools::have(&["git"]);
    let mut ran = Vec::new();
    for snippet in snippets() {
        if !snippet.text.lines().any(|l| l.starts_with("steps:")) {
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let mut text = snippet.text.clone();
        // The plug a script is for: the checkout plug's names a repository;
        // the others are the template's (the probe stands in for it).
        let component = if text.contains("repo:") {
            if !have_git {
                continue;
            }
            // No internet here: the repository is a local one.
            let repo = dir.path().join("origin");
            tools::origin_repo(&repo);
            let origin = format!("file://{}", repo.display());
            let url = text
                .split('"')
                .find(|s| s.starts_with("https://"))
                .unwrap_or_else(|| panic!("{}: a quoted https:// repo", snippet.at))
                .to_string();
            text = text.replace(&url, &origin);
            component_for("checkout")
        } else {
            component_for("hello")
        };
        std::fs::write(dir.path().join("script.yml"), &text).unwrap();
        let out = Command::new(runner_binary())
            .arg("--cache-dir")
            .arg(dir.path().join("cache"))
            .arg("plug")
            .arg("test")
            .arg(&component)
            .args(["--script", "script.yml"])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}: plug test failed:\n{text}\n{}{}",
            snippet.at,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        ran.push(snippet.at);
    }
    assert!(
        ran.len() >= if have_git { 2 } else { 1 },
        "the scripts of docs/writing-plugs.md: {ran:?}"
    );
}
