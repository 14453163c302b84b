//! The host's share of a start run with the environment plugs (checkout,
//! sandbox, docker, redaction), end to end: a real control plane, a real
//! runner process, real git, bubblewrap and dockerd.
//!
//! For each start run the runner logs, when it launches the agent, the time
//! since the run was accepted (`host_overhead_us`) and the part of it spent
//! waiting for the plugs' programs (`programs_us`: git, docker, bwrap). The
//! host's share is the rest over the whole. Baseline in the same run: the same
//! start with no plugs at all.
//!
//! `cargo bench -p blaise-tests --bench environment`; prints medians.

use std::time::Duration;

use blaise_control::model::IdlePolicy;
use blaise_tests::blaise::{Stage, settings};
use blaise_tests::plug;
use blaise_tests::tools::{agent_image, have, origin_repo};

const MINUTE: Duration = Duration::from_secs(60);

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// (wall ms, programs ms) of `n` start runs.
async fn start_runs(plugs: impl FnOnce(&Stage) -> String, n: usize) -> Vec<(f64, f64)> {
    let s = Stage::new(settings(600_000, IdlePolicy::Pause)).await;
    s.configure(&plugs(&s));
    let runner = s.runner("bench");
    runner.wait_for_stderr("connected to Blaise", MINUTE).await;
    for i in 0..n {
        s.blaise.session_to_teardown(i).await;
    }
    let samples = runner
        .launch_fields(&["host_overhead_us", "programs_us"])
        .into_iter()
        .map(|f| (f[0] / 1e3, f[1] / 1e3))
        .collect();
    runner.stop().await;
    samples
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    unsafe { std::env::remove_var("RUST_BACKTRACE") };
    if !have(&["git", "bwrap", "docker"]) {
        return;
    }
    let image = agent_image();
    let runs = 15;
    let base = start_runs(|_| "  []\n".into(), runs).await;
    let all = start_runs(
        |s| {
            let origin = s.path().join("origin");
            origin_repo(&origin);
            format!(
                "  - id: checkout\n    source: {}\n    with: {{ repo: {} }}\n    allow: {{ exec: [git] }}\n  - id: sandbox\n    source: {}\n    with: {{ read_write: [/var/run/docker.sock] }}\n    allow: {{ exec: [bwrap], storage: true }}\n  - id: docker\n    source: {}\n    with: {{ image: {image} }}\n    allow: {{ exec: [docker] }}\n  - id: redaction\n    source: {}\n",
                plug("plugs/checkout").display(),
                origin.display(),
                plug("plugs/sandbox").display(),
                plug("plugs/docker").display(),
                plug("plugs/redaction").display(),
            )
        },
        runs,
    )
    .await;
    let base_wall = median(base.iter().map(|s| s.0).collect());
    let wall = median(all.iter().map(|s| s.0).collect());
    let programs = median(all.iter().map(|s| s.1).collect());
    let share = median(all.iter().map(|(w, p)| (w - p) / w).collect());
    let host = median(all.iter().map(|(w, p)| w - p).collect());
    println!(
        "start run, accepted -> agent spawned, no plugs:                     median {base_wall:7.2} ms (n={})",
        base.len()
    );
    println!(
        "start run, accepted -> agent spawned, checkout+sandbox+docker+redaction: median {wall:7.2} ms (n={})",
        all.len()
    );
    println!(
        "  in git, bwrap and docker themselves:                               median {programs:7.2} ms"
    );
    println!(
        "  in the host (the rest):                                            median {host:7.2} ms ({:.2}x the no-plug baseline)",
        host / base_wall
    );
    println!(
        "  host share of the run's wall time:                                 median {:6.2} %  (target <= 5 %)",
        share * 100.0
    );
}
