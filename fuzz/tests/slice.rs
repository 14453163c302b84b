//! The CI slice of the fuzz targets: every target for a fixed seed and a few
//! thousand executions, and every saved corpus file replayed. Any panic, or a
//! 5xx from the control plane, fails with the input that caused it.
//! (`scripts/fuzz` runs the long version.)

use blaise_fuzz::targets::{self, Outcome};
use blaise_fuzz::{Kind, Options, Summary, corpus, escaped, execute, run_target};

const SEED: u64 = 20_251_130;

fn slice(name: &str, runs: u64) -> Summary {
    let options = Options {
        runs,
        seed: SEED,
        save: false,
    };
    let summary = run_target(name, &options).expect("a known target");
    let report: Vec<String> = summary
        .findings
        .iter()
        .map(|f| {
            format!(
                "{:?} ×{}: {}\n  input: {}",
                f.kind,
                f.count,
                f.message,
                escaped(&f.input)
            )
        })
        .collect();
    assert!(
        summary.clean(),
        "{name}: {} panics, {} 5xx in {} executions (seed {SEED}):\n{}",
        summary.panics,
        summary.server_errors,
        summary.executions,
        report.join("\n")
    );
    assert_eq!(summary.executions, runs);
    assert_eq!(summary.distinct(Kind::Panic), 0);
    summary
}

#[test]
fn blaise_yml() {
    slice("blaise_yml", 20_000);
}

#[test]
fn directives() {
    slice("directives", 20_000);
}

#[test]
fn acp_messages() {
    slice("acp_messages", 20_000);
}

#[test]
fn control_requests() {
    slice("control_requests", 10_000);
}

#[test]
fn oci_manifest() {
    slice("oci_manifest", 20_000);
}

#[test]
fn plug_index() {
    slice("plug_index", 20_000);
}

#[test]
fn blaise_lock() {
    slice("blaise_lock", 20_000);
}

/// Each input is redacted whole and streamed five ways (texts of up to
/// 12 KiB): fewer executions.
#[test]
fn redaction_stream() {
    let summary = slice("redaction_stream", 2_000);
    // What it ran on must be what it is for: texts with secrets to mask, much of them in
    // multi-byte characters (the figures of the stats line, read back).
    let stats = summary.stats.expect("the target's figures");
    eprintln!("redaction_stream: {stats}");
    let percent = |after: &str| -> f64 {
        let (before, _) = stats
            .split_once(after)
            .unwrap_or_else(|| panic!("{after:?} in {stats}"));
        let number = before.rsplit(['(', ' ']).next().unwrap();
        number
            .parse()
            .unwrap_or_else(|_| panic!("{number:?} in {stats}"))
    };
    assert!(percent("% with a mask") >= 80.0, "{stats}");
    assert!(percent("% in multi-byte characters") >= 60.0, "{stats}");
}

/// Each seed and saved crash replays on its own without a panic or a 5xx
/// (control requests on a fresh control plane each time).
#[test]
fn saved_inputs_replay() {
    for name in targets::NAMES {
        let saved = corpus::seeds(name).into_iter().chain(crashes(name));
        for (file, input) in saved {
            let mut target = targets::by_name(name).expect("a known target");
            match execute(target.as_mut(), &input) {
                Ok(Outcome::Ok) => {}
                other => panic!("{name}/{file}: {other:?}\n  input: {}", escaped(&input)),
            }
        }
    }
}

/// Saved crashes, once fixed, stay as regression inputs.
fn crashes(name: &str) -> Vec<(String, Vec<u8>)> {
    let dir = corpus::root().join("crashes").join(name);
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<_> = entries.filter_map(|e| Some(e.ok()?.path())).collect();
    files.sort();
    files
        .into_iter()
        .filter_map(|p| Some((p.display().to_string(), std::fs::read(&p).ok()?)))
        .collect()
}

/// The seeds are what the real code reads: a seed that no longer parses
/// would only test error paths.
#[test]
fn seeds_are_real_inputs() {
    use agent_client_protocol::v1::schema::{RequestPermissionRequest, SessionNotification};
    use blaise_runner::config::ConfigFile;

    for (file, text) in corpus::seeds("blaise_yml") {
        let text = String::from_utf8(text).expect("UTF-8");
        let parsed = ConfigFile::parse(std::path::Path::new(&file), text);
        // A few seeds are refused on purpose: their errors are under test.
        let refused = ["timing_key.yml", "duplicate_ids.yml"].contains(&file.as_str());
        assert_eq!(parsed.is_err(), refused, "{file}: {:?}", parsed.err());
    }
    for (file, text) in corpus::seeds("acp_messages") {
        for line in text.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            let message: serde_json::Value = serde_json::from_slice(line).expect("JSON");
            let params = message.get("params").cloned().unwrap_or(message.clone());
            let ok = match message.get("method").and_then(|m| m.as_str()) {
                Some("session/update") | None if message.get("result").is_none() => {
                    serde_json::from_value::<SessionNotification>(params.clone()).is_ok()
                        || serde_json::from_value::<RequestPermissionRequest>(params).is_ok()
                }
                Some("session/request_permission") => {
                    serde_json::from_value::<RequestPermissionRequest>(params).is_ok()
                }
                _ => true,
            };
            assert!(ok, "{file}: {}", String::from_utf8_lossy(line));
        }
    }
    let control = corpus::seeds("control_requests");
    assert!(control.len() >= 40, "{} control seeds", control.len());
    // Multi-byte text (over a third of its bytes) with something to mask.
    let redactor = redaction::detect::Redactor::new(&[]);
    for (file, text) in corpus::seeds("redaction_stream") {
        let text = String::from_utf8(text).expect("UTF-8");
        let wide = text.bytes().filter(|b| !b.is_ascii()).count();
        assert!(wide * 3 > text.len(), "{file}: mostly ASCII");
        assert!(
            redactor.redact(&text).contains("[REDACTED:"),
            "{file}: nothing masked"
        );
    }
}
