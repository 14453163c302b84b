//! Loading plugs: compiled once and cached, never loading an artifact the
//! runner did not write, and the plug's log tagged with its id and session.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;

use blaise_runner::host::bindings::RunKind;
use blaise_runner::host::{Allow, Limits, Origin};
use blaise_tests::{LogCapture, World, host_in, plug, setup};
use serde_json::json;

/// The files of the compile cache whose names contain `part`.
fn cached_files(cache: &std::path::Path, part: &str) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(cache.join("compiled"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().contains(part))
        .collect()
}

fn artifacts(cache: &std::path::Path) -> Vec<std::path::PathBuf> {
    cached_files(cache, ".cwasm")
}

#[tokio::test]
async fn a_plug_is_compiled_once_and_then_loaded_from_the_cache() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let wasm = plug("plugs/redaction");
    let first = host_in(&cache).load(&wasm).await.unwrap();
    assert_eq!(first.origin, Origin::Compiled);
    // A new runner process (a new host) with the same cache.
    let again = host_in(&cache).load(&wasm).await.unwrap();
    assert_eq!(again.origin, Origin::Cache);
    assert_eq!(again.info.name, "redaction");
    let files = artifacts(&cache);
    assert_eq!(files.len(), 1);
    let name = files[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with(&first.sha256),
        "keyed by the component's sha256: {name}"
    );
    let mode = std::fs::metadata(&files[0]).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "private to the runner's user");
}

#[tokio::test]
async fn a_plug_file_is_read_again_only_when_it_changed() {
    use blaise_runner::host::compile_cache::{SETTLED, sha256_hex};
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let path = tmp.path().join("plug.wasm");
    let noop = std::fs::read(plug("tests/plugs/noop")).unwrap();
    let redaction = std::fs::read(plug("plugs/redaction")).unwrap();
    std::fs::write(&path, &noop).unwrap();
    // Only a file whose times can tell a later write apart is recorded.
    std::thread::sleep(SETTLED + std::time::Duration::from_millis(100));
    let first = host_in(&cache).load(&path).await.unwrap();
    assert_eq!(first.origin, Origin::Compiled);
    let records = std::fs::read_dir(cache.join("compiled/digests"))
        .unwrap()
        .count();
    assert_eq!(records, 1, "its digest is recorded");
    let again = host_in(&cache).load(&path).await.unwrap();
    assert_eq!(again.origin, Origin::Cache);
    assert_eq!(again.sha256, first.sha256);

    // The record, not the file, names what is loaded while the file is unchanged: a record
    // naming another compiled plug (only the runner itself writes one) loads that plug.
    let other = host_in(&cache)
        .load(&plug("plugs/redaction"))
        .await
        .unwrap();
    let record = std::fs::read_dir(cache.join("compiled/digests"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| std::fs::read_to_string(p).unwrap().contains(&first.sha256))
        .unwrap();
    let text = std::fs::read_to_string(&record).unwrap();
    std::fs::write(&record, text.replace(&first.sha256, &other.sha256)).unwrap();
    let by_record = host_in(&cache).load(&path).await.unwrap();
    assert_eq!(by_record.info.name, "redaction", "the file was not read");
    std::fs::write(&record, text).unwrap();

    // Replaced by another plug: loaded as that one at once, never as the
    // one recorded for the path.
    std::fs::write(&path, &redaction).unwrap();
    let replaced = host_in(&cache).load(&path).await.unwrap();
    assert_eq!(replaced.info.name, "redaction");
    assert_eq!(replaced.sha256, sha256_hex(&redaction));
    std::fs::write(&path, &noop).unwrap();
    let back = host_in(&cache).load(&path).await.unwrap();
    assert_eq!((&back.sha256, back.origin), (&first.sha256, Origin::Cache));
}

/// The plug's answers to `describe` kept in the compile cache.
fn descriptions(cache: &std::path::Path) -> Vec<std::path::PathBuf> {
    cached_files(cache, ".describe-")
}

#[tokio::test]
async fn a_plug_is_asked_what_it_is_once_and_only_a_kept_answer_the_runner_wrote_is_trusted() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let wasm = plug("plugs/redaction");
    let first = host_in(&cache).load(&wasm).await.unwrap();
    assert_eq!(first.info_origin, Origin::Compiled, "asked the first time");
    let kept = descriptions(&cache);
    assert_eq!(kept.len(), 1, "its answer is kept beside its artifact");
    let name = kept[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with(&first.sha256), "{name}");
    let mode = std::fs::metadata(&kept[0]).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "private to the runner's user");

    // A new runner process with the same cache: the same answer, not asked.
    let again = host_in(&cache).load(&wasm).await.unwrap();
    assert_eq!(again.info_origin, Origin::Cache);
    let answer = |p: &blaise_runner::host::LoadedPlug| serde_json::to_value(&p.info).unwrap();
    assert_eq!(answer(&again), answer(&first));

    // An answer others could have written is not believed: the plug is asked again.
    std::fs::set_permissions(&kept[0], std::fs::Permissions::from_mode(0o666)).unwrap();
    let p = host_in(&cache).load(&wasm).await.unwrap();
    assert_eq!(p.info_origin, Origin::Compiled);
    assert_eq!(answer(&p), answer(&first));
    let mode = std::fs::metadata(&kept[0]).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "written again, privately");

    // Nor one that no longer reads (another build's record, a torn write).
    std::fs::write(&kept[0], b"{\"name\": \"redaction\"").unwrap();
    let p = host_in(&cache).load(&wasm).await.unwrap();
    assert_eq!(p.info_origin, Origin::Compiled);
    assert_eq!(answer(&p), answer(&first));
    assert_eq!(
        host_in(&cache).load(&wasm).await.unwrap().info_origin,
        Origin::Cache
    );

    // A plug whose `describe` fails leaves no answer: it is asked (and fails) every time.
    let slow = plug("tests/plugs/slow-describe");
    let limits = Limits {
        hook_deadline: std::time::Duration::from_millis(200),
        ..Limits::default()
    };
    for _ in 0..2 {
        let err = host_in(&cache)
            .load_with(&slow, limits)
            .await
            .err()
            .expect("its describe never answers");
        assert!(err.to_string().contains("describe"), "{err}");
    }
    assert_eq!(descriptions(&cache).len(), 1, "only the redaction plug's");
}

#[tokio::test]
async fn an_artifact_the_runner_did_not_write_is_never_loaded() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let wasm = plug("plugs/redaction");
    host_in(&cache).load(&wasm).await.unwrap();
    let artifact = artifacts(&cache).remove(0);

    // Writable by others: someone else may have written it.
    std::fs::set_permissions(&artifact, std::fs::Permissions::from_mode(0o666)).unwrap();
    let p = host_in(&cache).load(&wasm).await.unwrap();
    assert_eq!(
        p.origin,
        Origin::Compiled,
        "a group/other-writable artifact is recompiled"
    );

    // Garbage in our own file (a crash mid-write on another filesystem, say).
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(&artifact)
        .unwrap();
    f.write_all(b"\x7fELF not a wasmtime artifact").unwrap();
    drop(f);
    std::fs::set_permissions(&artifact, std::fs::Permissions::from_mode(0o600)).unwrap();
    let p = host_in(&cache).load(&wasm).await.unwrap();
    assert_eq!(
        p.origin,
        Origin::Compiled,
        "an invalid artifact is recompiled"
    );
    assert_eq!(
        host_in(&cache).load(&wasm).await.unwrap().origin,
        Origin::Cache
    );

    // A component is required: a core module or random bytes are refused clearly.
    let bogus = tmp.path().join("bogus.wasm");
    std::fs::write(&bogus, b"\0asm\x01\0\0\0").unwrap();
    let err = host_in(&cache)
        .load(&bogus)
        .await
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("is a core WebAssembly module, not a component"),
        "{err}"
    );
    std::fs::write(&bogus, b"#!/bin/sh\necho hi\n").unwrap();
    let err = host_in(&cache)
        .load(&bogus)
        .await
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("is not a WebAssembly component"), "{err}");
}

#[tokio::test]
async fn the_plugs_log_and_output_are_tagged_with_plug_and_session() {
    let (captured, _guard) = LogCapture::start();

    let w = World::new();
    let probe = w.probe().await;
    let limits = Limits {
        log_lines: 5,
        ..Limits::default()
    };
    let s = setup(
        "talker",
        &probe,
        json!({"on_start": [{"log_flood": 4}], "on_resume": [{"log_flood": 1000}]}),
        Allow::default(),
        limits,
    );
    let mut p = w.instance(s, "sess-42", RunKind::Start).await;
    p.on_start().await.unwrap();
    p.on_resume().await.unwrap();

    let text = captured.text();
    let line = |needle: &str| {
        text.lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no `{needle}` in:\n{text}"))
            .to_string()
    };
    let from_log = line("flood line 0");
    assert!(
        from_log.contains("plug=\"talker\"") || from_log.contains("plug=talker"),
        "{from_log}"
    );
    assert!(from_log.contains("sess-42"), "{from_log}");
    assert!(
        from_log.contains("source=\"log\"") || from_log.contains("source=log"),
        "{from_log}"
    );
    let from_stderr = line("stderr flood line 0");
    assert!(
        from_stderr.contains("talker")
            && from_stderr.contains("sess-42")
            && from_stderr.contains("stderr"),
        "{from_stderr}"
    );
    let cut = line("lines dropped");
    assert!(
        cut.contains("talker") && cut.contains("limit 5 per hook"),
        "{cut}"
    );
    assert!(!text.contains("flood line 999"), "the flood was cut");
}
