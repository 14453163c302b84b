//! A registry, an index or a download server is a stranger: whatever it
//! sends, the real `blaise-runner` CLI refuses it with a message that says
//! what was wrong, never aborts, and leaves nothing in its cache. The server
//! is [`FakeRegistry`] (a real registry cannot be made to lie); the same
//! well-formed artifact from it pulls fine, so each refusal is the lie's doing.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use blaise_tests::fake_registry::{Body, FakeRegistry, Reply, sha256};
use blaise_tests::plug;
use serde_json::json;

struct Cli {
    dir: tempfile::TempDir,
}

impl Cli {
    fn new() -> Cli {
        // Built (once) before anything is timed.
        blaise_tests::blaise::runner_binary();
        Cli {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn cache(&self) -> std::path::PathBuf {
        self.dir.path().join("cache")
    }

    fn run(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut command = Command::new(blaise_tests::blaise::runner_binary());
        command
            .arg("--cache-dir")
            .arg(self.cache())
            .args(args)
            .current_dir(self.dir.path())
            .env_remove("RUST_LOG")
            .env_remove("BLAISE_MAX_PLUG_SIZE")
            .env_remove("BLAISE_DOWNLOAD_TIMEOUT");
        for (k, v) in env {
            command.env(k, v);
        }
        command.output().unwrap()
    }

    /// Runs a command that must be refused: exit code 1 (not a crash), and
    /// nothing left in the cache. Returns stderr.
    fn refused(&self, args: &[&str], env: &[(&str, &str)]) -> String {
        let out = self.run(args, env);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(
            out.status.code(),
            Some(1),
            "blaise-runner {args:?} should fail cleanly, not {:?}:\n{stderr}",
            out.status
        );
        assert_eq!(
            self.cached(),
            Vec::<String>::new(),
            "after {args:?}: {stderr}"
        );
        stderr
    }

    fn pull_ok(&self, reference: &str) -> String {
        let out = self.run(&["plug", "pull", reference], &[]);
        assert!(
            out.status.success(),
            "pull {reference}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// `check` of a blaise.yml with one plug, `id`, from `source` (plus
    /// `extra` lines of its entry); must be refused. Returns stderr.
    fn check_refused(&self, id: &str, source: &str, extra: &str) -> String {
        let config = self.dir.path().join("blaise.yml");
        std::fs::write(
            &config,
            format!(
                "agent:\n  command: [my-agent]\nplugs:\n  - id: {id}\n    source: {source}\n{extra}"
            ),
        )
        .unwrap();
        self.refused(&["check", "--config", config.to_str().unwrap()], &[])
    }

    /// The files of the plug cache (fetch locks aside).
    fn cached(&self) -> Vec<String> {
        cached_in(&self.cache())
    }
}

fn cached_in(cache: &Path) -> Vec<String> {
    std::fs::read_dir(cache.join("plugs"))
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| !n.ends_with(".lock"))
                .collect()
        })
        .unwrap_or_default()
}

fn noop() -> Vec<u8> {
    std::fs::read(plug("tests/plugs/noop")).unwrap()
}

fn contains_all(text: &str, parts: &[&str]) {
    for part in parts {
        assert!(text.contains(part), "`{part}` missing from:\n{text}");
    }
}

#[test]
fn a_well_formed_artifact_from_the_fake_registry_is_pulled() {
    let registry = FakeRegistry::start();
    let wasm = noop();
    let artifact = registry.artifact("plugs/noop", "1", &wasm, |_| {});
    let cli = Cli::new();
    let digest = cli.pull_ok(&registry.reference("plugs/noop:1"));
    assert_eq!(digest, artifact.digest);
    let mut cached = cli.cached();
    cached.sort();
    assert_eq!(cached.len(), 2, "{cached:?}");
    assert!(cached.iter().any(|f| f.ends_with(".wasm")), "{cached:?}");

    // A same-origin redirect of a blob is fine.
    let registry = FakeRegistry::start();
    let artifact = registry.artifact("plugs/noop", "1", &wasm, |_| {});
    registry.route(
        &format!("/v2/plugs/noop/blobs/{}", artifact.layer_digest),
        Reply::redirect("/storage/layer"),
    );
    registry.route("/storage/layer", Reply::ok(wasm));
    Cli::new().pull_ok(&registry.reference("plugs/noop:1"));
}

#[test]
fn credentials_go_only_to_the_registry_they_are_for() {
    let wasm = noop();
    let asking = |registry: &FakeRegistry| {
        registry.artifact("plugs/noop", "1", &wasm, |_| {});
        registry.route(
            "/v2/plugs/noop/manifests/1",
            Reply::status(401).header("WWW-Authenticate", "Basic realm=\"any\""),
        );
    };
    let login = [
        ("BLAISE_REGISTRY_USERNAME", "me"),
        ("BLAISE_REGISTRY_PASSWORD", "hunter2-secret"),
    ];
    // For another registry: this one asks, and gets nothing.
    let registry = FakeRegistry::start();
    asking(&registry);
    let cli = Cli::new();
    let mut env = login.to_vec();
    env.push(("BLAISE_REGISTRY_HOST", "registry.example:5000"));
    let reference = registry.reference("plugs/noop:1");
    cli.refused(&["plug", "pull", &reference], &env);
    assert_eq!(
        registry.requests_for("Authorization"),
        0,
        "{:?}",
        registry.requests()
    );
    // For no registry in particular: refused, saying what to set.
    let stderr = cli.refused(&["plug", "pull", &reference], &login);
    assert!(stderr.contains("BLAISE_REGISTRY_HOST"), "{stderr}");
    assert_eq!(registry.requests_for("Authorization"), 0);
    // For this registry: it gets them.
    let mut env = login.to_vec();
    let host = reference.split('/').next().unwrap().to_string();
    env.push(("BLAISE_REGISTRY_HOST", &host));
    cli.refused(&["plug", "pull", &reference], &env);
    assert!(
        registry.requests_for("Authorization: Basic ") > 0,
        "{:?}",
        registry.requests()
    );
}

#[test]
fn sizes_from_the_registry_are_checked_before_and_while_downloading() {
    let wasm = noop();
    let cli = Cli::new();

    // The manifest declares a petabyte: refused before any download.
    let registry = FakeRegistry::start();
    let artifact = registry.artifact("plugs/big", "1", &wasm, |m| {
        m["layers"][0]["size"] = json!(1_000_000_000_000_000u64)
    });
    let reference = registry.reference("plugs/big:1");
    let err = cli.refused(&["plug", "pull", &reference], &[]);
    contains_all(
        &err,
        &[
            "1000000000000000 bytes",
            "BLAISE_MAX_PLUG_SIZE",
            "not downloaded",
        ],
    );
    assert_eq!(registry.requests_for(&artifact.layer_digest), 0);

    // A negative or zero size.
    let registry = FakeRegistry::start();
    registry.artifact("plugs/neg", "1", &wasm, |m| {
        m["layers"][0]["size"] = json!(-1)
    });
    let err = cli.refused(&["plug", "pull", &registry.reference("plugs/neg:1")], &[]);
    contains_all(&err, &["size of -1 bytes"]);

    // Within the default limit but over the operator's.
    let registry = FakeRegistry::start();
    registry.artifact("plugs/noop", "1", &wasm, |_| {});
    let err = cli.refused(
        &["plug", "pull", &registry.reference("plugs/noop:1")],
        &[("BLAISE_MAX_PLUG_SIZE", "1KiB")],
    );
    contains_all(&err, &["more than the 1KiB"]);

    // A Content-Length of a petabyte for a blob the manifest says is small.
    let registry = FakeRegistry::start();
    let artifact = registry.artifact("plugs/noop", "1", &wasm, |_| {});
    registry.route(
        &format!("/v2/plugs/noop/blobs/{}", artifact.layer_digest),
        Reply::ok(wasm.clone()).body(Body::Bytes(wasm.clone()), Some(1_000_000_000_000_000)),
    );
    let err = cli.refused(&["plug", "pull", &registry.reference("plugs/noop:1")], &[]);
    contains_all(
        &err,
        &[
            "1000000000000000 bytes",
            &format!("declares {}", wasm.len()),
        ],
    );

    // A body that does not end where the manifest says.
    let registry = FakeRegistry::start();
    let artifact = registry.artifact("plugs/noop", "1", &wasm, |_| {});
    registry.route(
        &format!("/v2/plugs/noop/blobs/{}", artifact.layer_digest),
        Reply::ok(Vec::new()).body(Body::Endless, None),
    );
    let err = cli.refused(&["plug", "pull", &registry.reference("plugs/noop:1")], &[]);
    contains_all(
        &err,
        &[&format!(
            "more than the {} bytes the manifest declares",
            wasm.len()
        )],
    );

    // A body that stops short.
    let registry = FakeRegistry::start();
    let artifact = registry.artifact("plugs/noop", "1", &wasm, |_| {});
    registry.route(
        &format!("/v2/plugs/noop/blobs/{}", artifact.layer_digest),
        Reply::ok(Vec::new()).body(Body::Bytes(wasm[..100].to_vec()), None),
    );
    let err = cli.refused(&["plug", "pull", &registry.reference("plugs/noop:1")], &[]);
    contains_all(
        &err,
        &[&format!("ended after 100 of the {} bytes", wasm.len())],
    );

    // A manifest that never ends.
    let registry = FakeRegistry::start();
    registry.route(
        "/v2/plugs/endless/manifests/1",
        Reply::ok(Vec::new())
            .header("Docker-Content-Digest", &sha256(b"x"))
            .body(Body::Endless, None),
    );
    registry.route(
        &format!("/v2/plugs/endless/manifests/{}", sha256(b"x")),
        Reply::ok(Vec::new()).body(Body::Endless, None),
    );
    let err = cli.refused(
        &["plug", "pull", &registry.reference("plugs/endless:1")],
        &[],
    );
    contains_all(&err, &["manifest", "more than the 4MiB allowed"]);
}

#[test]
fn a_slow_body_is_cut_at_the_download_deadline() {
    let wasm = noop();
    let registry = FakeRegistry::start();
    let artifact = registry.artifact("plugs/slow", "1", &wasm, |_| {});
    registry.route(
        &format!("/v2/plugs/slow/blobs/{}", artifact.layer_digest),
        Reply::ok(Vec::new()).body(
            Body::Trickle(wasm.clone(), Duration::from_millis(100)),
            Some(wasm.len() as u64),
        ),
    );
    let cli = Cli::new();
    let started = Instant::now();
    let err = cli.refused(
        &["plug", "pull", &registry.reference("plugs/slow:1")],
        &[("BLAISE_DOWNLOAD_TIMEOUT", "2s")],
    );
    contains_all(&err, &["took longer than 2s", "BLAISE_DOWNLOAD_TIMEOUT"]);
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );

    // Without a deadline of the operator's: a byte every 100 ms is never
    // silent long enough for the idle timeout, and is cut for its pace
    // within two 30 s windows, not after the 10 minutes a download may take.
    let started = Instant::now();
    let err = cli.refused(&["plug", "pull", &registry.reference("plugs/slow:1")], &[]);
    contains_all(&err, &["slower than 1KiB a second", "cut"]);
    assert!(
        started.elapsed() < Duration::from_secs(65),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn redirects_elsewhere_are_refused() {
    let wasm = noop();
    let elsewhere = FakeRegistry::start();
    elsewhere.route("/layer", Reply::ok(wasm.clone()));
    elsewhere.route("/manifest", Reply::ok(b"{}".to_vec()));
    let cli = Cli::new();

    // A blob sent to another host over plain http.
    let registry = FakeRegistry::start();
    let artifact = registry.artifact("plugs/noop", "1", &wasm, |_| {});
    registry.route(
        &format!("/v2/plugs/noop/blobs/{}", artifact.layer_digest),
        Reply::redirect(&format!("http://{}/layer", elsewhere.addr)),
    );
    let err = cli.refused(&["plug", "pull", &registry.reference("plugs/noop:1")], &[]);
    contains_all(
        &err,
        &[
            "redirected to",
            &elsewhere.addr,
            "only over https://",
            "refused",
        ],
    );
    assert_eq!(elsewhere.requests_for("/layer"), 0, "not followed");

    // A manifest sent anywhere else.
    let registry = FakeRegistry::start();
    registry.route(
        "/v2/plugs/noop/manifests/1",
        Reply::redirect(&format!("http://{}/manifest", elsewhere.addr)),
    );
    let err = cli.refused(&["plug", "pull", &registry.reference("plugs/noop:1")], &[]);
    contains_all(&err, &["only read from the host it was asked of"]);
    assert_eq!(elsewhere.requests_for("/manifest"), 0, "not followed");

    // A redirect loop.
    let registry = FakeRegistry::start();
    let artifact = registry.artifact("plugs/noop", "1", &wasm, |_| {});
    let layer = format!("/v2/plugs/noop/blobs/{}", artifact.layer_digest);
    registry.route(&layer, Reply::redirect(&layer));
    let err = cli.refused(&["plug", "pull", &registry.reference("plugs/noop:1")], &[]);
    contains_all(&err, &["more than 5 redirects"]);
}

#[test]
fn what_is_not_a_wasm_artifact_is_named_and_not_kept() {
    let wasm = noop();
    let cli = Cli::new();
    type Tweak = Box<dyn FnOnce(&mut serde_json::Value)>;
    let cases: Vec<(&str, Tweak, &str)> = vec![
        (
            "image-config",
            Box::new(|m| {
                m["config"]["mediaType"] = json!("application/vnd.oci.image.config.v1+json")
            }),
            "its config is `application/vnd.oci.image.config.v1+json`",
        ),
        (
            "tar-layer",
            Box::new(|m| {
                m["layers"][0]["mediaType"] = json!("application/vnd.oci.image.layer.v1.tar+gzip")
            }),
            "not one `application/wasm` layer",
        ),
        (
            "two-layers",
            Box::new(|m| {
                let layer = m["layers"][0].clone();
                m["layers"].as_array_mut().unwrap().push(layer);
            }),
            "it has 2 layer(s)",
        ),
        (
            "docker-image",
            Box::new(|m| {
                m["mediaType"] = json!("application/vnd.docker.distribution.manifest.v2+json")
            }),
            "a container image, not a Wasm artifact",
        ),
        (
            "escape",
            Box::new(|m| m["config"]["mediaType"] = json!("\u{1b}[2J\u{1b}[31mgotcha")),
            "its config is `\\u{1b}[2J\\u{1b}[31mgotcha`",
        ),
    ];
    for (name, tweak, expected) in cases {
        let registry = FakeRegistry::start();
        let artifact = registry.artifact(&format!("plugs/{name}"), "1", &wasm, tweak);
        let err = cli.refused(
            &[
                "plug",
                "pull",
                &registry.reference(&format!("plugs/{name}:1")),
            ],
            &[],
        );
        contains_all(&err, &[expected]);
        assert!(
            !err.contains('\u{1b}'),
            "no terminal escapes reach the operator: {err:?}"
        );
        assert_eq!(
            registry.requests_for(&artifact.layer_digest),
            0,
            "{name}: not downloaded"
        );
    }

    // An image index (manifest list).
    let registry = FakeRegistry::start();
    let index = serde_json::to_vec(&json!({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.index.v1+json",
        "manifests": [{"mediaType": "application/vnd.oci.image.manifest.v1+json",
            "digest": sha256(b"a"), "size": 1, "platform": {"os": "wasip2", "architecture": "wasm"}}],
    }))
    .unwrap();
    registry.serve_manifest("plugs/multi", "1", &index);
    let err = cli.refused(&["plug", "pull", &registry.reference("plugs/multi:1")], &[]);
    contains_all(&err, &["image index", "not a Wasm artifact"]);

    // Bytes that match their digest but are not a component: downloaded,
    // refused when loaded, and removed.
    let registry = FakeRegistry::start();
    registry.artifact("plugs/text", "1", b"#!/bin/sh\necho hello\n", |_| {});
    let err = cli.refused(&["plug", "pull", &registry.reference("plugs/text:1")], &[]);
    contains_all(
        &err,
        &["not a WebAssembly component", "not kept in the cache"],
    );

    // The same through `check` of a blaise.yml.
    let err = cli.check_refused("text", &registry.reference("plugs/text:1"), "");
    contains_all(
        &err,
        &[
            "plug `text`",
            "not a WebAssembly component",
            "removed from the cache",
        ],
    );

    // A manifest that is not the digest the tag said.
    let registry = FakeRegistry::start();
    let artifact = registry.artifact("plugs/swap", "1", &wasm, |_| {});
    let other = registry.artifact("plugs/swap", "2", &wasm, |m| {
        m["annotations"] = json!({"x": "y"})
    });
    registry.route(
        &format!("/v2/plugs/swap/manifests/{}", artifact.digest),
        Reply::ok(other.manifest.clone()),
    );
    let err = cli.refused(&["plug", "pull", &registry.reference("plugs/swap:1")], &[]);
    contains_all(&err, &["whose digest is", &other.digest, &artifact.digest]);
}

#[test]
fn a_signature_of_another_artifact_does_not_sign_this_one() {
    let wasm = noop();
    let registry = FakeRegistry::start();
    let artifact = registry.artifact("plugs/signed", "1", &wasm, |_| {});
    // The signature tag of this artifact holds a payload naming another one.
    let other = sha256(b"another artifact");
    let payload = serde_json::to_vec(&json!({
        "critical": {
            "identity": {"docker-reference": registry.reference("plugs/signed")},
            "image": {"docker-manifest-digest": other},
            "type": "cosign container image signature",
        },
        "optional": null,
    }))
    .unwrap();
    let payload_digest = sha256(&payload);
    let sig_manifest = serde_json::to_vec(&json!({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": sha256(b"{}"), "size": 2},
        "layers": [{
            "mediaType": "application/vnd.dev.cosign.simplesigning.v1+json",
            "digest": payload_digest,
            "size": payload.len(),
            "annotations": {"dev.cosignproject.cosign/signature": "MEUCIQDnotarealsignature=="},
        }],
    }))
    .unwrap();
    let hex = artifact.digest.trim_start_matches("sha256:");
    registry.serve_manifest("plugs/signed", &format!("sha256-{hex}.sig"), &sig_manifest);
    registry.route(
        &format!("/v2/plugs/signed/blobs/{payload_digest}"),
        Reply::ok(payload),
    );

    let cli = Cli::new();
    let keys = cli.run(&["plug", "keygen", "publisher"], &[]);
    assert!(
        keys.status.success(),
        "{}",
        String::from_utf8_lossy(&keys.stderr)
    );
    let err = cli.check_refused(
        "signed",
        &registry.reference("plugs/signed:1"),
        "    signed_by: [publisher.pub]\n",
    );
    contains_all(
        &err,
        &[
            "plug `signed`",
            // The line of `signed_by:`.
            "blaise.yml:6:",
            "sign another artifact",
            &other,
        ],
    );
    assert_eq!(
        registry.requests_for(&artifact.layer_digest),
        0,
        "not downloaded"
    );

    // No signature at all: refused the same way, nothing downloaded or kept.
    let registry = FakeRegistry::start();
    let artifact = registry.artifact("plugs/signed", "1", &wasm, |_| {});
    let err = cli.check_refused(
        "signed",
        &registry.reference("plugs/signed:1"),
        "    signed_by: [publisher.pub]\n",
    );
    contains_all(&err, &["is not signed"]);
    assert_eq!(
        registry.requests_for(&artifact.layer_digest),
        0,
        "not downloaded"
    );
}

#[test]
fn an_index_is_read_under_caps_and_its_text_is_checked() {
    let cli = Cli::new();
    let server = FakeRegistry::start();
    let plugs: Vec<_> = (0..100_000)
        .map(|i| json!({"name": format!("p{i}"), "versions": []}))
        .collect();
    let huge = serde_json::to_vec(&json!({"schema": 1, "plugs": plugs})).unwrap();
    server.route("/index.json", Reply::ok(huge.clone()));
    let url = format!("http://{}/index.json", server.addr);
    let err = cli.refused(&["plug", "search", "p", "--index", &url], &[]);
    contains_all(&err, &["more than 10000 plugs"]);
    let file = cli.dir.path().join("index.json");
    std::fs::write(&file, &huge).unwrap();
    let err = cli.refused(
        &["plug", "search", "p", "--index", file.to_str().unwrap()],
        &[],
    );
    contains_all(&err, &["more than 10000 plugs"]);

    // An endless index.
    server.route(
        "/endless.json",
        Reply::ok(Vec::new()).body(Body::Endless, None),
    );
    let err = cli.refused(
        &[
            "plug",
            "search",
            "p",
            "--index",
            &format!("http://{}/endless.json", server.addr),
        ],
        &[],
    );
    contains_all(&err, &["more than the 16MiB allowed"]);

    // A description that would drive the operator's terminal.
    let hostile = serde_json::to_vec(&json!({"schema": 1, "plugs": [
        {"name": "ok", "description": "fine", "versions": []},
        {"name": "evil", "description": "\u{1b}]8;;http://x\u{7}click\u{1b}]8;;\u{7}", "versions": []},
    ]}))
    .unwrap();
    server.route("/hostile.json", Reply::ok(hostile));
    let err = cli.refused(
        &[
            "plug",
            "search",
            "e",
            "--index",
            &format!("http://{}/hostile.json", server.addr),
        ],
        &[],
    );
    contains_all(&err, &["plugs[1].description", "control characters"]);
    assert!(!err.contains('\u{1b}'), "{err:?}");

    // An index behind a redirect to another host.
    server.route(
        "/moved.json",
        Reply::redirect("http://127.0.0.1:1/index.json"),
    );
    let err = cli.refused(
        &[
            "plug",
            "search",
            "e",
            "--index",
            &format!("http://{}/moved.json", server.addr),
        ],
        &[],
    );
    contains_all(&err, &["only read from the host it was asked of"]);
}

#[test]
fn a_plug_url_is_downloaded_under_the_same_caps() {
    let wasm = noop();
    let server = FakeRegistry::start();
    server.route("/plug.wasm", Reply::ok(wasm.clone()));
    server.route(
        "/endless.wasm",
        Reply::ok(Vec::new()).body(Body::Endless, None),
    );
    server.route(
        "/liar.wasm",
        Reply::ok(Vec::new()).body(Body::Bytes(wasm.clone()), Some(1 << 40)),
    );
    let cli = Cli::new();
    let digest = cli.pull_ok(&format!("http://{}/plug.wasm", server.addr));
    assert_eq!(digest, sha256(&wasm));

    let cli = Cli::new();
    let err = cli.refused(
        &[
            "plug",
            "pull",
            &format!("http://{}/endless.wasm", server.addr),
        ],
        &[("BLAISE_MAX_PLUG_SIZE", "4MiB")],
    );
    contains_all(&err, &["more than the 4MiB allowed"]);
    let err = cli.refused(
        &["plug", "pull", &format!("http://{}/liar.wasm", server.addr)],
        &[],
    );
    contains_all(&err, &["announces 1024GiB"]);
}

#[test]
fn unusable_references_and_settings_are_worded_for_a_person() {
    let cli = Cli::new();
    let err = cli.refused(&["plug", "pull", "127.0.0.1:99999/plugs/x:1"], &[]);
    contains_all(&err, &["port `99999` is not a port"]);
    assert!(!err.contains("Generic error"), "{err}");

    let registry = FakeRegistry::start();
    let missing = format!("sha256:{}", "ab".repeat(32));
    let reference = format!("{}/plugs/x@{missing}", registry.addr);
    let err = cli.refused(&["plug", "pull", &reference], &[]);
    contains_all(&err, &["is not in the registry"]);
    assert_eq!(err.matches(&missing).count(), 1, "the digest once: {err}");

    let err = cli.refused(
        &["plug", "pull", &registry.reference("plugs/x:1")],
        &[("BLAISE_MAX_PLUG_SIZE", "lots")],
    );
    contains_all(&err, &["BLAISE_MAX_PLUG_SIZE=`lots` is not a size"]);
}
