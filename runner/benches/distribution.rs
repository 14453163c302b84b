//! What plug distribution adds to a run's start: resolving a plug named by an
//! OCI reference, locked in `blaise.lock` and already cached, against the same
//! plug named by a local path (the baseline, measured in the same run). Both
//! go through the whole resolution a run does (read blaise.yml, resolve with
//! the checked-config shortcut, load from the compile cache). The registry
//! host does not exist (`registry.invalid`): a network access would fail.
//! Run with `cargo bench -p blaise-runner --bench distribution`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use base64::Engine as _;
use blaise_runner::config::{ConfigCheck, ConfigFile, resolve_with};
use blaise_runner::distribution::oci::{WASM_CONFIG_MEDIA_TYPE, WASM_LAYER_MEDIA_TYPE};
use blaise_runner::distribution::signature::{self, Evidence};
use blaise_runner::distribution::{Digest, LockFile, LockedPlug, PlugCache};
use blaise_runner::host::{HostOptions, PlugHost};
use oci_client::client::{Config, ImageLayer};
use oci_client::manifest::OciImageManifest;
use sigstore::cosign::SignatureLayer;
use sigstore::cosign::constraint::{Constraint as _, PrivateKeySigner};
use sigstore::crypto::SigningScheme;
use sigstore::crypto::signing_key::SigStoreKeyPair;

const REFERENCE: &str = "registry.invalid:5000/plugs/noop:1";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// Puts the artifact in the cache as `plug pull` leaves it; returns its digest.
fn cache_artifact(cache: &PlugCache, wasm: &[u8]) -> Digest {
    let layers = vec![ImageLayer::new(
        wasm.to_vec(),
        WASM_LAYER_MEDIA_TYPE.into(),
        None,
    )];
    let config = Config::new(b"{}".to_vec(), WASM_CONFIG_MEDIA_TYPE.into(), None);
    let manifest = OciImageManifest::build(&layers, &config, Some(BTreeMap::new()));
    let bytes = serde_json::to_vec(&manifest).unwrap();
    let digest = Digest::of(&bytes);
    cache.store_component(&Digest::of(wasm), wasm).unwrap();
    cache.store_manifest(&digest, &bytes).unwrap();
    digest
}

/// A signature by the key `name.key` over `digest`, cached as `resolve` finds it.
fn cache_signature(cache: &PlugCache, digest: &Digest, name: &Path) {
    signature::generate(name).unwrap();
    let pair =
        SigStoreKeyPair::from_pem(&std::fs::read(name.with_extension("key")).unwrap()).unwrap();
    let signer = pair
        .to_sigstore_signer(&SigningScheme::ECDSA_P256_SHA256_ASN1)
        .unwrap();
    let image = format!("registry.invalid:5000/plugs/noop@{digest}")
        .parse()
        .unwrap();
    let mut layer = SignatureLayer::new_unsigned(&image, digest.as_str()).unwrap();
    assert!(
        PrivateKeySigner::new_with_signer(signer)
            .add_constraint(&mut layer)
            .unwrap()
    );
    let evidence = vec![Evidence {
        payload: base64::engine::general_purpose::STANDARD.encode(&layer.raw_data),
        signature: layer.signature.unwrap(),
    }];
    cache
        .store_signatures(digest, &serde_json::to_vec(&evidence).unwrap())
        .unwrap();
}

async fn resolve_once(host: &PlugHost, config: &Path) -> Duration {
    let t = Instant::now();
    let file = ConfigFile::load(config).unwrap();
    let plugs = resolve_with(&file, host, ConfigCheck::AlreadyChecked)
        .await
        .unwrap();
    let elapsed = t.elapsed();
    assert_eq!(plugs.len(), 1);
    elapsed
}

fn main() {
    unsafe { std::env::remove_var("RUST_BACKTRACE") };
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let wasm_path = blaise_runner::build::build_plug(
            &root().join("tests/plugs/noop"),
            Some(&root().join("target/plugs")),
        )
        .unwrap();
        let wasm = std::fs::read(&wasm_path).unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let cache_dir = tmp.path().join("cache");
        let host = PlugHost::new(&HostOptions {
            cache_dir: cache_dir.clone(),
            ..HostOptions::default()
        })
        .unwrap();
        let cache = PlugCache::open(&cache_dir).unwrap();
        let digest = cache_artifact(&cache, &wasm);
        // Compiled once beforehand: both sides load from the compile cache.
        host.load(&wasm_path).await.unwrap();

        let local = tmp.path().join("local");
        let locked = tmp.path().join("locked");
        let signed = tmp.path().join("signed");
        for dir in [&local, &locked, &signed] {
            std::fs::create_dir(dir).unwrap();
        }
        let agent = "agent:\n  command: [agent]\n";
        std::fs::write(
            local.join("blaise.yml"),
            format!("{agent}plugs:\n  - id: noop\n    source: {}\n", wasm_path.display()),
        )
        .unwrap();
        cache_signature(&cache, &digest, &signed.join("publisher"));
        for (dir, extra) in [(&locked, ""), (&signed, "    signed_by: [publisher.pub]\n")] {
            std::fs::write(
                dir.join("blaise.yml"),
                format!("{agent}plugs:\n  - id: noop\n    source: {REFERENCE}\n{extra}"),
            )
            .unwrap();
            LockFile::new(vec![LockedPlug {
                id: "noop".into(),
                source: REFERENCE.into(),
                digest: digest.to_string(),
            }])
            .write(&dir.join("blaise.lock"))
            .unwrap();
        }

        // The first resolution in a process pays one-time costs (lazily
        // built parsers, cold file caches): shown apart.
        let configs = [
            ("local path (baseline)", local.join("blaise.yml")),
            ("OCI, locked + cached", locked.join("blaise.yml")),
            ("OCI, locked + cached + signature", signed.join("blaise.yml")),
        ];
        let mut first = Vec::new();
        for (_, config) in &configs {
            first.push(resolve_once(&host, config).await);
        }
        let mut samples = vec![Vec::new(), Vec::new(), Vec::new()];
        for _ in 0..300 {
            // Interleaved, so that noise hits all three alike.
            for (i, (_, config)) in configs.iter().enumerate() {
                samples[i].push(resolve_once(&host, config).await);
            }
        }
        let medians: Vec<Duration> = samples.into_iter().map(median).collect();
        let base = medians[0];
        for (i, (name, _)) in configs.iter().enumerate() {
            let added = medians[i].as_secs_f64() - base.as_secs_f64();
            println!(
                "resolve + load, {name:<34} median {:>9.2?}  first {:>9.2?}  added {:>+8.1} µs  ({:.2}x baseline)",
                medians[i],
                first[i],
                added * 1e6,
                medians[i].as_secs_f64() / base.as_secs_f64()
            );
        }
        println!("target: a locked, cached plug adds <= 1 ms to a run's start");
    });
}
