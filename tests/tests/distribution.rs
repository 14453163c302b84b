//! Plug distribution against a real registry (Debian's `docker-registry` on
//! 127.0.0.1, one per test), real compiled plugs and the real CLI: push → pull
//! → load → hooks; a tag moved after locking; a tampered blob; required
//! signatures; the index; concurrent resolves downloading once.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use blaise_runner::chain::PlugChain;
use blaise_runner::config::{ConfigFile, resolve};
use blaise_runner::contract::VERSION as CONTRACT;
use blaise_runner::distribution::download::Fetcher;
use blaise_runner::distribution::oci;
use blaise_runner::distribution::{Digest, OciReference};
use blaise_runner::host::bindings::{PauseInfo, RunKind, TeardownInfo};
use blaise_tests::registry::Registry;
use blaise_tests::{World, plug};

/// `blaise-runner ARGS` with its own cache, in `dir`.
fn cli(dir: &Path, cache: &Path, args: &[&str]) -> Output {
    Command::new(blaise_tests::blaise::runner_binary())
        .arg("--cache-dir")
        .arg(cache)
        .args(args)
        .current_dir(dir)
        .env_remove("RUST_LOG")
        .output()
        .unwrap()
}

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

/// Runs the CLI and expects success; returns its stdout.
fn ok(dir: &Path, cache: &Path, args: &[&str]) -> String {
    let out = cli(dir, cache, args);
    assert!(
        out.status.success(),
        "blaise-runner {args:?} failed:\n{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// Runs the CLI and expects failure; returns its stderr.
fn fails(dir: &Path, cache: &Path, args: &[&str]) -> String {
    let out = cli(dir, cache, args);
    assert!(
        !out.status.success(),
        "blaise-runner {args:?} should have failed:\n{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stderr)
}

fn push(dir: &Path, cache: &Path, wasm: &Path, reference: &str, extra: &[&str]) -> String {
    let mut args = vec!["plug", "push", wasm.to_str().unwrap(), reference];
    args.extend_from_slice(extra);
    ok(dir, cache, &args).trim().to_string()
}

fn write_config(dir: &Path, plugs: &str) -> PathBuf {
    let path = dir.join("blaise.yml");
    std::fs::write(&path, format!("agent:\n  command: [sh]\n{plugs}")).unwrap();
    path
}

fn cached_files(cache: &Path) -> Vec<String> {
    std::fs::read_dir(cache.join("plugs"))
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| !n.ends_with(".lock"))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn a_pushed_plug_is_pulled_loaded_and_runs_its_hooks() {
    let registry = Registry::start();
    let w = World::new();
    let dir = w.tmp.path();
    let cache = dir.join("cli-cache");
    let reference = registry.reference("plugs/probe:0.1.0");
    let digest = push(
        dir,
        &cache,
        &plug("tests/plugs/probe"),
        &reference,
        &[
            "--source-url",
            "https://example.invalid/probe",
            "--licenses",
            "Apache-2.0",
        ],
    );
    Digest::parse(&digest).expect("push prints the digest");

    // A standard Wasm OCI artifact, annotated from the plug's describe().
    let (_, manifest) = oci::pull_manifest(
        &Fetcher::new().unwrap(),
        &OciReference::parse(&reference).unwrap(),
        &Digest::parse(&digest).unwrap(),
    )
    .await
    .unwrap();
    assert_eq!(
        manifest.config.media_type,
        "application/vnd.wasm.config.v0+json"
    );
    assert_eq!(manifest.layers.len(), 1);
    assert_eq!(manifest.layers[0].media_type, "application/wasm");
    let annotations = manifest.annotations.clone().unwrap();
    assert_eq!(annotations["org.opencontainers.image.version"], "0.1.0");
    assert_eq!(
        annotations["org.opencontainers.image.description"],
        "test plug"
    );
    assert_eq!(
        annotations["org.opencontainers.image.source"],
        "https://example.invalid/probe"
    );
    assert_eq!(
        annotations["org.opencontainers.image.licenses"],
        "Apache-2.0"
    );
    assert_eq!(
        annotations["dev.blaise.plug.contract"],
        CONTRACT.to_string()
    );

    // Pull into a fresh cache: the same digest, the component cached by its digest.
    let pulled = ok(dir, &cache, &["plug", "pull", &reference]);
    assert_eq!(pulled.trim(), digest);
    let layer = &manifest.layers[0].digest;
    assert!(
        cached_files(&cache).contains(&format!("sha256-{}.wasm", &layer[7..])),
        "{:?}",
        cached_files(&cache)
    );

    // blaise.yml naming it by reference: `check` accepts it…
    let config = write_config(
        dir,
        &format!(
            "plugs:\n  - id: probe\n    source: {reference}\n    with:\n      on_start: [{{record: a}}]\n      on_pause: [{{record: a}}]\n      on_teardown: [{{record: a}}]\n"
        ),
    );
    let checked = ok(
        dir,
        &cache,
        &["check", "--config", config.to_str().unwrap()],
    );
    assert!(checked.contains("probe 0.1.0"), "{checked}");

    // …and so does the library, whose plugs then run their hooks.
    let file = ConfigFile::load(&config).unwrap();
    let plugs = resolve(&file, &w.host).await.unwrap();
    assert_eq!(plugs[0].digest.as_str(), digest);
    let setups = [plugs[0].setup.clone()];
    let mut chain = PlugChain::new(&w.host, &setups, w.run("s1", RunKind::Start))
        .await
        .unwrap();
    chain.start().await.unwrap();
    let pause = PauseInfo {
        reason: "closed".into(),
        may_resume: false,
        keep_processes: false,
    };
    assert!(chain.pause(&pause).await.is_empty());
    let teardown = TeardownInfo {
        reason: "closed".into(),
        right_after_pause: true,
    };
    assert!(chain.teardown(&teardown).await.is_empty());
    let calls = std::fs::read_to_string(w.workspace.join("calls.log")).unwrap();
    let hooks: Vec<&str> = calls
        .lines()
        .map(|l| l.split(' ').nth(1).unwrap())
        .collect();
    assert_eq!(
        hooks,
        ["start", "pause:closed:false", "teardown:closed:true"],
        "{calls}"
    );

    // The same component from a URL (the registry's blob URL), pinned by digest.
    let url = format!("http://{}/v2/plugs/probe/blobs/{layer}", registry.addr);
    let config = write_config(
        dir,
        &format!("plugs:\n  - id: probe\n    source: {url}\n    digest: {layer}\n"),
    );
    ok(
        dir,
        &cache,
        &["check", "--config", config.to_str().unwrap()],
    );
}

#[test]
fn a_tag_moved_after_locking_is_refused_until_locked_again() {
    let registry = Registry::start();
    let tmp = tempfile::tempdir().unwrap();
    let (dir, cache) = (tmp.path(), tmp.path().join("cache"));
    let reference = registry.reference("plugs/chain:stable");
    let first = push(dir, &cache, &plug("tests/plugs/probe"), &reference, &[]);
    let config = write_config(
        dir,
        &format!("plugs:\n  - id: chain\n    source: {reference}\n"),
    );
    let config = config.to_str().unwrap();

    let locked = ok(dir, &cache, &["plug", "lock", "--config", config]);
    assert!(locked.contains(&first), "{locked}");
    let lock = std::fs::read_to_string(dir.join("blaise.lock")).unwrap();
    assert!(lock.contains(&format!("digest: {first}")), "{lock}");
    ok(dir, &cache, &["check", "--config", config]);

    // The publisher moves the tag to another artifact.
    let second = push(dir, &cache, &plug("tests/plugs/noop"), &reference, &[]);
    assert_ne!(first, second);
    let refused = fails(dir, &cache, &["check", "--config", config]);
    assert!(refused.contains("plug `chain`"), "{refused}");
    assert!(
        refused.contains(&first) && refused.contains(&second),
        "{refused}"
    );
    assert!(refused.contains("blaise-runner plug lock"), "{refused}");

    // The operator reviews and accepts the new artifact.
    ok(dir, &cache, &["plug", "lock", "--config", config]);
    let lock = std::fs::read_to_string(dir.join("blaise.lock")).unwrap();
    assert!(lock.contains(&second) && !lock.contains(&first), "{lock}");
    let checked = ok(dir, &cache, &["check", "--config", config]);
    assert!(checked.contains("noop"), "{checked}");

    // A plug added to blaise.yml after locking is refused too.
    let config_with_more = format!(
        "{}  - id: other\n    source: {reference}\n",
        std::fs::read_to_string(config).unwrap()
    );
    std::fs::write(config, &config_with_more).unwrap();
    let refused = fails(dir, &cache, &["check", "--config", config]);
    assert!(
        refused.contains("plug `other`") && refused.contains("not in"),
        "{refused}"
    );
}

#[test]
fn a_pinned_plug_whose_tag_moved_runs_the_pin_and_says_so_once() {
    let registry = Registry::start();
    let tmp = tempfile::tempdir().unwrap();
    let (dir, cache) = (tmp.path(), tmp.path().join("cache"));
    let reference = registry.reference("plugs/pinned:stable");
    let first = push(dir, &cache, &plug("tests/plugs/probe"), &reference, &[]);
    // As `plug add` writes an entry: pinned by `digest:`.
    let config = write_config(
        dir,
        &format!("plugs:\n  - id: pinned\n    source: {reference}\n    digest: {first}\n"),
    );
    let config = config.to_str().unwrap();
    let checked = ok(dir, &cache, &["check", "--config", config]);
    assert!(!checked.contains("moved"), "{checked}");

    let second = push(dir, &cache, &plug("tests/plugs/noop"), &reference, &[]);
    let notice = format!("tag moved to {second}; running the pinned {first}");
    let checked = ok(dir, &cache, &["check", "--config", config]);
    assert_eq!(checked.matches(&notice).count(), 1, "said once:\n{checked}");
    assert!(
        checked.contains("probe"),
        "the pinned plug is what runs: {checked}"
    );
    assert!(!checked.contains("noop"), "{checked}");

    // `plug lock` keeps the pin, and says so.
    let locked = ok(dir, &cache, &["plug", "lock", "--config", config]);
    assert_eq!(locked.matches(&notice).count(), 1, "said once:\n{locked}");
    let lock = std::fs::read_to_string(dir.join("blaise.lock")).unwrap();
    assert!(lock.contains(&first) && !lock.contains(&second), "{lock}");

    // A registry that cannot be asked says nothing; the pin runs.
    drop(registry);
    let checked = ok(dir, &cache, &["check", "--config", config]);
    assert!(
        !checked.contains("moved") && checked.contains("probe"),
        "{checked}"
    );
}

#[test]
fn a_tampered_blob_is_refused_and_nothing_is_cached() {
    let registry = Registry::start();
    let tmp = tempfile::tempdir().unwrap();
    let (dir, cache) = (tmp.path(), tmp.path().join("cache"));
    let reference = registry.reference("plugs/probe:1");
    let wasm = plug("tests/plugs/probe");
    push(dir, &cache, &wasm, &reference, &[]);
    let layer = Digest::of(&std::fs::read(&wasm).unwrap()).to_string();

    // Someone with access to the registry's storage changes the component.
    let blob = registry.blob_file(&layer);
    let mut bytes = std::fs::read(&blob).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    std::fs::write(&blob, &bytes).unwrap();
    let actual = Digest::of(&bytes).to_string();

    let fresh = dir.join("fresh-cache");
    let config = write_config(
        dir,
        &format!("plugs:\n  - id: probe\n    source: {reference}\n"),
    );
    let refused = fails(
        dir,
        &fresh,
        &["check", "--config", config.to_str().unwrap()],
    );
    assert!(refused.contains("plug `probe`"), "{refused}");
    assert!(refused.contains(&format!("expected {layer}")), "{refused}");
    assert!(refused.contains(&format!("got {actual}")), "{refused}");
    assert!(refused.contains("nothing was cached"), "{refused}");
    assert_eq!(cached_files(&fresh), Vec::<String>::new(), "nothing cached");

    let refused = fails(dir, &fresh, &["plug", "pull", &reference]);
    assert!(refused.contains(&actual), "{refused}");
    assert_eq!(cached_files(&fresh), Vec::<String>::new(), "nothing cached");
}

#[test]
fn a_required_signature_must_be_there_and_made_with_a_trusted_key() {
    let registry = Registry::start();
    let tmp = tempfile::tempdir().unwrap();
    let (dir, cache) = (tmp.path(), tmp.path().join("cache"));
    ok(dir, &cache, &["plug", "keygen", "keys/alice"]);
    ok(dir, &cache, &["plug", "keygen", "keys/mallory"]);
    let unsigned = registry.reference("plugs/probe:1");
    let signed = registry.reference("plugs/noop:1");
    push(dir, &cache, &plug("tests/plugs/probe"), &unsigned, &[]);
    push(
        dir,
        &cache,
        &plug("tests/plugs/noop"),
        &signed,
        &["--sign", "keys/alice.key"],
    );
    let check = |plugs: &str| {
        let config = write_config(dir, plugs);
        cli(
            dir,
            &cache,
            &["check", "--config", config.to_str().unwrap()],
        )
    };

    // Required by this plug's entry, missing.
    let out = check(&format!(
        "plugs:\n  - id: probe\n    source: {unsigned}\n    signed_by: [keys/alice.pub]\n"
    ));
    let err = text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("plug `probe`") && err.contains("is not signed"),
        "{err}"
    );
    assert!(err.contains("keys/alice.pub"), "{err}");

    // Signed, but with another key than the ones trusted.
    let out = check(&format!(
        "plugs:\n  - id: noop\n    source: {signed}\n    signed_by: [keys/mallory.pub]\n"
    ));
    let err = text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("plug `noop`") && err.contains("by none of the keys"),
        "{err}"
    );

    // Signed with a trusted key: accepted, per plug and globally.
    let out = check(&format!(
        "plugs:\n  - id: noop\n    source: {signed}\n    signed_by: [keys/mallory.pub, keys/alice.pub]\n"
    ));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = check(&format!(
        "signed_by: [keys/alice.pub]\nplugs:\n  - id: noop\n    source: {signed}\n"
    ));
    assert!(out.status.success(), "{}", text(&out.stderr));

    // The global requirement covers every plug from a registry.
    let out = check(&format!(
        "signed_by: [keys/alice.pub]\nplugs:\n  - id: noop\n    source: {signed}\n  - id: probe\n    source: {unsigned}\n"
    ));
    let err = text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("plug `probe`") && err.contains("is not signed"),
        "{err}"
    );
}

#[test]
fn index_search_and_add_write_a_config_that_check_accepts() {
    let registry = Registry::start();
    let tmp = tempfile::tempdir().unwrap();
    let (dir, cache) = (tmp.path(), tmp.path().join("cache"));
    ok(dir, &cache, &["plug", "keygen", "publisher"]);
    let reference = registry.reference("plugs/probe:0.1.0");
    let digest = push(
        dir,
        &cache,
        &plug("tests/plugs/probe"),
        &reference,
        &["--sign", "publisher.key"],
    );
    ok(
        dir,
        &cache,
        &[
            "plug",
            "index",
            "add",
            "index.json",
            &reference,
            "--key",
            "publisher.pub",
        ],
    );
    let index: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("index.json")).unwrap()).unwrap();
    let version = &index["plugs"][0]["versions"][0];
    assert_eq!(version["digest"], digest.as_str());
    assert_eq!(version["contract"], CONTRACT.to_string());
    assert_eq!(version["needs"]["exec"], serde_json::json!(["echo", "sh"]));

    let found = ok(
        dir,
        &cache,
        &["plug", "search", "PROB", "--index", "index.json"],
    );
    assert!(
        found.contains("probe") && found.contains("0.1.0") && found.contains("test plug"),
        "{found}"
    );
    let none = ok(
        dir,
        &cache,
        &["plug", "search", "nothing-like-it", "--index", "index.json"],
    );
    assert!(none.contains("no plug matches"), "{none}");

    // The operator's file, with its comments and a local plug, is appended to.
    let noop = plug("tests/plugs/noop");
    let original = format!(
        "# The operator's runner.\nagent:\n  command: [sh]   # the ACP agent\nplugs:\n  # A local plug.\n  - id: noop\n    source: {}\n",
        noop.display()
    );
    std::fs::write(dir.join("blaise.yml"), &original).unwrap();
    let added = ok(
        dir,
        &cache,
        &["plug", "add", "probe", "--index", "index.json"],
    );
    assert!(added.contains("review the grants"), "{added}");
    let config = std::fs::read_to_string(dir.join("blaise.yml")).unwrap();
    assert!(config.starts_with(&original), "the text is kept:\n{config}");
    assert!(config.contains(&format!("digest: {digest}")), "{config}");
    assert!(
        config.contains("signed_by: [\"keys/probe.pub\"]"),
        "{config}"
    );
    assert!(config.contains("exec: [\"echo\",\"sh\"]"), "{config}");
    let checked = ok(dir, &cache, &["check"]);
    assert!(
        checked.contains("probe 0.1.0") && checked.contains("exec:echo"),
        "{checked}"
    );

    // A version built for another contract is refused before any download.
    let mut index = index.clone();
    let mut future = index["plugs"][0]["versions"][0].clone();
    future["version"] = "0.9.0".into();
    future["contract"] = "0.9.0".into();
    index["plugs"][0]["versions"]
        .as_array_mut()
        .unwrap()
        .push(future);
    std::fs::write(dir.join("index.json"), index.to_string()).unwrap();
    let refused = fails(
        dir,
        &cache,
        &[
            "plug",
            "add",
            "probe@0.9.0",
            "--id",
            "later",
            "--index",
            "index.json",
        ],
    );
    assert!(
        refused.contains("blaise:plug@0.9.0")
            && refused.contains(&format!("blaise:plug@{CONTRACT}")),
        "{refused}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("blaise.yml")).unwrap(),
        config
    );
}

#[test]
fn concurrent_resolves_of_one_plug_download_it_once() {
    let registry = Registry::start();
    let tmp = tempfile::tempdir().unwrap();
    let (dir, cache) = (tmp.path(), tmp.path().join("cache"));
    let reference = registry.reference("plugs/probe:1");
    let wasm = plug("tests/plugs/probe");
    let digest = push(dir, &cache, &wasm, &reference, &[]);
    let layer = Digest::of(&std::fs::read(&wasm).unwrap()).to_string();
    assert_eq!(registry.blob_gets(&layer), 0, "push does not download");

    let shared = dir.join("shared-cache");
    let children: Vec<_> = (0..4)
        .map(|_| {
            Command::new(blaise_tests::blaise::runner_binary())
                .arg("--cache-dir")
                .arg(&shared)
                .args(["plug", "pull", &reference])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout).trim(), digest);
    }
    assert_eq!(
        registry.blob_gets(&layer),
        1,
        "four processes, one download:\n{}",
        registry.log()
    );
}

#[tokio::test]
async fn a_locked_cached_plug_resolves_without_the_registry() {
    let registry = Registry::start();
    let w = World::new();
    let dir = w.tmp.path();
    let cache = w.tmp.path().join("cache");
    let reference = registry.reference("plugs/probe:1");
    let digest = push(dir, &cache, &plug("tests/plugs/probe"), &reference, &[]);
    let config = write_config(
        dir,
        &format!("plugs:\n  - id: probe\n    source: {reference}\n"),
    );
    ok(
        dir,
        &cache,
        &["plug", "lock", "--config", config.to_str().unwrap()],
    );
    ok(
        dir,
        &cache,
        &["check", "--config", config.to_str().unwrap()],
    );

    // The registry goes away.
    drop(registry);

    // A run of the checked file takes the locked digest from the cache: no
    // network (the same host as the CLI's: `World`'s cache is `cache`).
    let file = ConfigFile::load(&config).unwrap();
    let plugs = blaise_runner::config::resolve_with(
        &file,
        &w.host,
        blaise_runner::config::ConfigCheck::AlreadyChecked,
    )
    .await
    .unwrap();
    assert_eq!(plugs[0].digest.as_str(), digest);

    // `check` cannot ask the registry whether the tag moved: it says so and
    // goes on with the locked, cached artifact.
    let out = cli(
        dir,
        &cache,
        &["check", "--config", config.to_str().unwrap()],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("using the locked"),
        "{}",
        text(&out.stderr)
    );
}

#[tokio::test]
async fn an_artifact_for_another_contract_is_refused_before_its_download() {
    let registry = Registry::start();
    let tmp = tempfile::tempdir().unwrap();
    let (dir, cache) = (tmp.path(), tmp.path().join("cache"));
    let wasm = std::fs::read(plug("tests/plugs/noop")).unwrap();
    let layer = Digest::of(&wasm).to_string();
    // Published by a newer toolchain: its annotation says contract 0.9.0.
    let reference = registry.reference("plugs/future:1");
    oci::push(
        &OciReference::parse(&reference).unwrap(),
        oci::Artifact {
            wasm,
            annotations: [(oci::CONTRACT_ANNOTATION.to_string(), "0.9.0".to_string())].into(),
            exports: vec![],
            imports: vec![],
        },
    )
    .await
    .unwrap();
    let config = write_config(
        dir,
        &format!("plugs:\n  - id: future\n    source: {reference}\n"),
    );
    let refused = fails(
        dir,
        &cache,
        &["check", "--config", config.to_str().unwrap()],
    );
    assert!(refused.contains("plug `future`"), "{refused}");
    assert!(
        refused.contains("blaise:plug@0.9.0")
            && refused.contains(&format!("blaise:plug@{CONTRACT}")),
        "{refused}"
    );
    assert_eq!(registry.blob_gets(&layer), 0, "not downloaded");
    assert_eq!(cached_files(&cache), Vec::<String>::new());
}
