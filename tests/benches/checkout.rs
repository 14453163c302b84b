//! Start runs with the checkout plug on a repository of 100 MB of history,
//! served over HTTP by git's own `http-backend` (with a token, as a private
//! GitHub repository is): the time from the run accepted to the agent
//! spawned, as the runner logs it (`host_overhead_us`, which includes the
//! plugs' programs). Each session is closed (and torn down) before the next.
//!
//! Two configurations in the same run: without `storage` (every start clones
//! from the server) and with it (the first start makes a mirror; the later
//! ones fetch into it and copy the clone from it).
//!
//! `cargo bench -p blaise-tests --bench checkout`; prints medians.

use std::path::Path;
use std::time::Duration;

use blaise_control::model::IdlePolicy;
use blaise_tests::blaise::{Stage, settings};
use blaise_tests::git_http::GitHttp;
use blaise_tests::plug;
use blaise_tests::tools::{git, have};

const MINUTE: Duration = Duration::from_secs(60);
const TOKEN: &str = "glpat-Bench3xQw9vLm2Pq7Rt5";
const SESSIONS: usize = 7;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// A repository whose history holds about 100 MB: 200 commits, each
/// rewriting 4 of 40 files with 128 KiB that do not compress. Its work tree
/// is 5 MB.
fn big_repo(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "--quiet", "--initial-branch", "main"]);
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut noise = |n: usize| -> Vec<u8> {
        (0..n / 8)
            .flat_map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed.to_le_bytes()
            })
            .collect()
    };
    for commit in 0..200 {
        let files: Vec<usize> = if commit == 0 {
            (0..40).collect()
        } else {
            (0..4).map(|k| (commit * 4 + k) % 40).collect()
        };
        for f in files {
            std::fs::write(dir.join(format!("f{f:02}.bin")), noise(128 << 10)).unwrap();
        }
        git(dir, &["add", "."]);
        git(
            dir,
            &["commit", "--quiet", "-m", &format!("commit {commit}")],
        );
    }
    git(dir, &["gc", "--quiet"]);
}

/// Milliseconds from accepted to spawned of each of `SESSIONS` start runs.
async fn start_runs(repo_url: &str, storage: bool) -> Vec<f64> {
    let s = Stage::new(settings(600_000, IdlePolicy::Pause)).await;
    let token = s.path().join("git-token");
    std::fs::write(&token, TOKEN).unwrap();
    s.configure(&format!(
        "  - id: checkout\n    source: {}\n    with: {{ repo: '{repo_url}' }}\n    allow: {{ exec: [git], storage: {storage}, secrets: {{ git-token: {{ file: {} }} }} }}\n",
        plug("plugs/checkout").display(),
        token.display(),
    ));
    // Without preparing ahead: what is measured is each start's own clone
    // (a preparation would clone beside the first one).
    let runner = s.runner_with_env("bench", &[("BLAISE_RUNNER_NO_PREPARE_AHEAD", "true")]);
    runner.wait_for_stderr("connected to Blaise", MINUTE).await;
    for i in 0..SESSIONS {
        s.blaise.session_to_teardown(i).await;
    }
    let samples = runner
        .launch_fields(&["host_overhead_us"])
        .into_iter()
        .map(|f| f[0] / 1e3)
        .collect();
    runner.stop().await;
    samples
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    unsafe { std::env::remove_var("RUST_BACKTRACE") };
    if !have(&["git"]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let served = tmp.path().join("served");
    big_repo(&served.join("big.git"));
    let server = GitHttp::start(served.clone(), "x-access-token", TOKEN).await;
    let url = format!("{}big.git", server.url);
    let size = blaise_tests::tools::sh(&served, "du", &["-sm", "big.git/.git"]);
    println!(
        "repository: {} MB of git objects, 5 MB work tree, over HTTP with a token",
        size.split_whitespace().next().unwrap_or("?")
    );
    let clone = start_runs(&url, false).await;
    let mirror = start_runs(&url, true).await;
    let later = |v: &[f64]| median(v[1..].to_vec());
    println!(
        "start run, accepted -> agent spawned, no storage (clone each start): first {:8.1} ms, later median {:8.1} ms (n={})",
        clone[0],
        later(&clone),
        clone.len() - 1
    );
    println!(
        "start run, accepted -> agent spawned, with storage (mirror):         first {:8.1} ms, later median {:8.1} ms (n={}, {:.2}x the clone; target <= 500 ms)",
        mirror[0],
        later(&mirror),
        mirror.len() - 1,
        later(&mirror) / later(&clone)
    );
}
