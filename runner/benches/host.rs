//! Plug host benchmarks: no-op hook dispatch, plug load (cold compile vs the
//! compile cache), instantiation per run, and redaction in the plug against
//! the same detection run natively. Prints medians; run with
//! `cargo bench -p blaise-runner --bench host`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use blaise_runner::host::bindings::{EntryKind, RunKind, TranscriptEntry};
use blaise_runner::host::{
    Allow, HostOptions, Limits, LoadedPlug, PlugHost, PlugInstance, PlugSetup, RunInfo, grants,
};
use blaise_runner::state_store::MemoryStateStore;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn build(dir: &str) -> PathBuf {
    blaise_runner::build::build_plug(&root().join(dir), Some(&root().join("target/plugs")))
        .expect("building a plug")
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn host(cache: &Path) -> PlugHost {
    PlugHost::new(&HostOptions {
        cache_dir: cache.to_path_buf(),
        ..HostOptions::default()
    })
    .unwrap()
}

fn setup(plug: &Arc<LoadedPlug>, config: &str) -> Arc<PlugSetup> {
    let report = grants::effective(&plug.info.needs, &Allow::default());
    Arc::new(PlugSetup::new(
        "p",
        plug.clone(),
        config.into(),
        report.effective,
        Limits::default(),
    ))
}

fn run_info(workspace: &Path) -> Arc<RunInfo> {
    Arc::new(RunInfo {
        session_id: "bench".into(),
        run_id: "r".into(),
        run_kind: RunKind::Start,
        processes_kept: false,
        workspace: workspace.to_path_buf(),
        plug_storage: workspace.with_file_name("plug-storage"),
        state: Arc::new(MemoryStateStore::default()),
    })
}

/// A transcript-like corpus: prose, code, logs, and a few secrets.
fn corpus(bytes: usize, entry_size: usize) -> Vec<String> {
    let parts = [
        "I'll look at the failing test first. The error says the connection was refused, so the server probably did not start before the client connected. ",
        "fn main() {\n    let listener = TcpListener::bind(\"127.0.0.1:8080\").unwrap();\n    for stream in listener.incoming() { handle(stream?); }\n}\n",
        "2026-11-30T06:12:59Z INFO request_id=7f3a2c path=/api/v1/sessions status=200 duration_ms=12\n",
        "Running `cargo test --release` now; 42 tests passed, 0 failed. The next step is to update the README and open a pull request. ",
        "export GITHUB_TOKEN=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789\n",
        "The database lives at postgres://app:s3cr3tPass@db.internal:5432/app and the cache at redis://cache:6379. ",
    ];
    let mut text = String::new();
    let mut i = 0usize;
    while text.len() < bytes {
        // Secrets are rare: one part in ten is a secret-bearing one.
        let pick = if i % 10 == 9 { 4 + (i / 10) % 2 } else { i % 4 };
        text.push_str(parts[pick]);
        i += 1;
    }
    text.as_bytes()
        .chunks(entry_size)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect()
}

fn main() {
    // Backtraces double the cost of traps and errors; none are expected here.
    unsafe { std::env::remove_var("RUST_BACKTRACE") };
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let noop = build("tests/plugs/noop");
        let redaction = build("plugs/redaction");
        let tmp = tempfile::tempdir().unwrap();
        let workspace = tmp.path().join("ws");
        std::fs::create_dir(&workspace).unwrap();
        let run = run_info(&workspace);
        // `-- redaction`, `-- dispatch` or `-- load`: only those figures (for profiling).
        let only = |part: &str| std::env::args().skip(1).any(|a| a == part);
        if only("redaction") {
            let h = host(&tmp.path().join("warm"));
            return redaction_benches(&h, &redaction, &run).await;
        }
        if only("load") {
            let h = host(&tmp.path().join("warm"));
            for _ in 0..10 {
                let took = cached_load(&h, &noop).await;
                println!("from the compile cache, tests/plugs/noop: {took:>10.2?}");
            }
            return;
        }
        if only("filter") {
            // A longer loop of the boundary's cost alone, for `perf`.
            let h = host(&tmp.path().join("warm"));
            let s = setup(&h.load(&redaction).await.unwrap(), "{}");
            for _ in 0..20 {
                filter_call_bench(&h, &s, &run).await;
            }
            return;
        }
        if only("dispatch") {
            let h = host(&tmp.path().join("warm"));
            let s = setup(&h.load(&noop).await.unwrap(), "{}");
            return dispatch_bench(&h, &s, &run).await;
        }

        // Plug load: cold (compile) vs from the compile cache.
        let mut cold = Vec::new();
        for i in 0..3 {
            let h = host(&tmp.path().join(format!("cold-{i}")));
            let t = Instant::now();
            h.load(&redaction).await.unwrap();
            cold.push(t.elapsed());
        }
        let h = host(&tmp.path().join("warm"));
        let cached = cached_load(&h, &redaction).await;
        let cold = median(cold);
        println!("plug load, cold compile (redaction):   {:>10.2?}", cold);
        println!(
            "plug load, from the compile cache:     {:>10.2?}   ({:.0}x faster; target <= 1ms)",
            cached,
            cold.as_secs_f64() / cached.as_secs_f64()
        );
        println!("  allocator: {:?}", h.allocator());
        for dir in [
            "plugs/checkout",
            "plugs/docker",
            "plugs/sandbox",
            "tests/plugs/noop",
        ] {
            let wasm = build(dir);
            let size = std::fs::metadata(&wasm).unwrap().len() >> 10;
            println!(
                "  from the compile cache, {dir} ({size} KiB): {:>10.2?}   (target <= 1ms)",
                cached_load(&h, &wasm).await
            );
        }

        // Instantiate per run.
        let noop_plug = h.load(&noop).await.unwrap();
        let s = setup(&noop_plug, "{}");
        let mut inst = Vec::new();
        for _ in 0..2000 {
            let t = Instant::now();
            let p = PlugInstance::new(&h, s.clone(), run.clone()).await.unwrap();
            inst.push(t.elapsed());
            drop(p);
        }
        println!(
            "instantiate per run (noop):            {:>10.2?}   (target <= 100us)",
            median(inst)
        );

        dispatch_bench(&h, &s, &run).await;
        redaction_benches(&h, &redaction, &run).await;
    });
}

/// A no-op hook's call, warm: what the host adds to every hook.
async fn dispatch_bench(h: &PlugHost, s: &Arc<PlugSetup>, run: &Arc<RunInfo>) {
    let mut p = PlugInstance::new(h, s.clone(), run.clone()).await.unwrap();
    let took = per_call(async || {
        p.on_resume().await.unwrap();
    })
    .await;
    println!("no-op hook dispatch, warm:             {took:>10.2?}   (target <= 3us)");
}

/// The median time of one call of `call`, warm: a thousand calls first,
/// then fifty batches of a thousand.
async fn per_call(mut call: impl AsyncFnMut()) -> Duration {
    for _ in 0..1000 {
        call().await;
    }
    let mut batches = Vec::new();
    for _ in 0..50 {
        let t = Instant::now();
        for _ in 0..1000 {
            call().await;
        }
        batches.push(t.elapsed() / 1000);
    }
    median(batches)
}

/// A transcript filter call with one short entry, warm: what crossing the
/// boundary costs a filter, apart from its work on the text.
async fn filter_call_bench(h: &PlugHost, s: &Arc<PlugSetup>, run: &Arc<RunInfo>) {
    let mut p = PlugInstance::new(h, s.clone(), run.clone()).await.unwrap();
    let entry = || {
        vec![TranscriptEntry {
            stream_id: "m1".into(),
            kind: EntryKind::AgentMessage,
            text: "nothing to mask".into(),
            last: true,
            replay: false,
        }]
    };
    let took = per_call(async || {
        p.filter(entry()).await.unwrap();
    })
    .await;
    println!("transcript filter call, one short entry (redaction), warm: {took:>10.2?}");
}

/// Redaction: the plug against the same detection natively, on transcript
/// entries of two sizes.
async fn redaction_benches(h: &PlugHost, redaction: &Path, run: &Arc<RunInfo>) {
    let redaction_plug = h.load(redaction).await.unwrap();
    filter_call_bench(h, &setup(&redaction_plug, "{}"), run).await;
    // The runner hands the filter what arrived together: one entry at a
    // time is the worst case, a batch the usual one under load.
    for (entry_size, batch) in [(4 << 10, 1), (4 << 10, 16), (64 << 10, 1)] {
        redaction_bench(h, &redaction_plug, run, entry_size, batch).await;
    }
}

/// Median load of a plug from the compile cache (compiled once first).
async fn cached_load(h: &PlugHost, wasm: &Path) -> Duration {
    h.load(wasm).await.unwrap();
    let mut cached = Vec::new();
    for _ in 0..200 {
        let t = Instant::now();
        let p = h.load(wasm).await.unwrap();
        cached.push(t.elapsed());
        assert_eq!(p.origin, blaise_runner::host::Origin::Cache);
    }
    median(cached)
}

async fn redaction_bench(
    h: &PlugHost,
    redaction_plug: &Arc<LoadedPlug>,
    run: &Arc<RunInfo>,
    entry_size: usize,
    batch: usize,
) {
    let chunks = corpus(4 << 20, entry_size);
    let total: usize = chunks.iter().map(|c| c.len()).sum();
    let rs = setup(redaction_plug, r#"{"literals":["correct-horse-battery"]}"#);
    let mut rp = PlugInstance::new(h, rs, run.clone()).await.unwrap();
    let native = redaction::detect::Redactor::new(&["correct-horse-battery".into()]);
    // The plug's instance is one session across the runs: what it found is
    // looked for again in later entries, and the native side does the same.
    let mut seen = redaction::detect::Seen::default();
    let mut wasm_runs = Vec::new();
    let mut native_runs = Vec::new();
    let mut wasm_out = Vec::new();
    let mut native_out = Vec::new();
    for _ in 0..21 {
        wasm_out.clear();
        native_out.clear();
        // The entries are made before the clock starts: what is timed is
        // the filter calls (the copy into the plug and out of it included),
        // not the bench naming streams.
        let calls: Vec<Vec<TranscriptEntry>> = chunks
            .chunks(batch)
            .enumerate()
            .map(|(b, group)| {
                group
                    .iter()
                    .enumerate()
                    .map(|(i, c)| TranscriptEntry {
                        stream_id: format!("m{b}-{i}"),
                        kind: EntryKind::AgentMessage,
                        text: c.clone(),
                        last: true,
                        replay: false,
                    })
                    .collect()
            })
            .collect();
        let t = Instant::now();
        for entries in calls {
            let out = rp.filter(entries).await.unwrap();
            wasm_out.extend(out.into_iter().map(|e| e.text));
        }
        wasm_runs.push(t.elapsed());
        // Natively, the same copy in and out that the plug boundary makes.
        let t = Instant::now();
        for c in &chunks {
            let c = c.clone();
            native_out.push(native.redact_knowing(&c, &mut seen).into_owned());
        }
        native_runs.push(t.elapsed());
    }
    assert_eq!(
        wasm_out, native_out,
        "both mask the same secrets the same way"
    );
    let masked_wasm: usize = wasm_out
        .iter()
        .map(|t| t.matches("[REDACTED:").count())
        .sum();
    let mb = total as f64 / (1 << 20) as f64;
    // The ratio is the median of each round's own (plug and native ran
    // back to back): the machine's drift between rounds reaches both sides.
    let mut ratios: Vec<f64> = native_runs
        .iter()
        .zip(&wasm_runs)
        .map(|(n, w)| n.as_secs_f64() / w.as_secs_f64())
        .collect();
    ratios.sort_by(f64::total_cmp);
    let ratio = ratios[ratios.len() / 2];
    let (w, n) = (median(wasm_runs), median(native_runs));
    let (wt, nt) = (mb / w.as_secs_f64(), mb / n.as_secs_f64());
    let what = format!("{} KiB entries, {batch:>2} per call", entry_size >> 10);
    println!(
        "redaction, {what}, in the plug:   {:>6.0} MiB/s  ({} secrets masked in {:.1} MiB)",
        wt, masked_wasm, mb
    );
    println!("redaction, {what}, natively:      {nt:>6.0} MiB/s  (same code)");
    println!(
        "redaction, {what}, plug / native: {ratio:>8.2}x   (target >= 0.5x; median of the rounds' ratios)"
    );
}
