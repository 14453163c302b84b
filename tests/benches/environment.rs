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
    start_runs_with(plugs, n, Ahead::Off).await
}

/// Whether the runner prepares ahead (the plugs' `on-prepare` while idle).
#[derive(Clone, Copy, PartialEq)]
enum Ahead {
    /// `--no-prepare-ahead`: each start makes what it needs (and the
    /// figures are the start runs' alone, with nothing beside them).
    Off,
    /// The sessions are asked for once the runner has prepared.
    Done,
}

async fn start_runs_with(
    plugs: impl FnOnce(&Stage) -> String,
    n: usize,
    ahead: Ahead,
) -> Vec<(f64, f64)> {
    let s = Stage::new(settings(600_000, IdlePolicy::Pause)).await;
    s.configure(&plugs(&s));
    let runner = match ahead {
        Ahead::Off => s.runner_with_env("bench", &[("BLAISE_RUNNER_NO_PREPARE_AHEAD", "true")]),
        Ahead::Done => s.runner("bench"),
    };
    runner.wait_for_stderr("connected to Blaise", MINUTE).await;
    if ahead == Ahead::Done {
        runner
            .wait_for_stderr("prepared ahead of the sessions", MINUTE)
            .await;
    }
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
    // `-- prepare`: only the docker plug's prepared image.
    if std::env::args().skip(1).any(|a| a == "prepare") {
        return prepared_image_starts(&image, runs).await;
    }
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
    prepared_image_starts(&image, runs).await;
}

/// The docker plug alone: its image as it is, against the same image with
/// `prepare` steps (a 2 s stand-in for installing tools), whose first start
/// prepares the image and whose later ones start from it.
async fn prepared_image_starts(base: &str, runs: usize) {
    // A base of its own: a configuration no earlier run prepared, and
    // what this run prepared found by its label afterwards.
    let image = format!("blaise-bench/prepare-{}:1", std::process::id());
    docker_cli(&["tag", base, &image]);
    let docker = |with: String| {
        let image = image.clone();
        move |_: &Stage| {
            format!(
                "  - id: docker\n    source: {}\n    with: {{ image: {image}{with} }}\n    allow: {{ exec: [docker] }}\n",
                plug("plugs/docker").display(),
            )
        }
    };
    let prepare = ", prepare: { run: [\"sleep 2; echo prepared > /prepared\"], network: none }";
    let plain = start_runs(docker(String::new()), runs).await;
    let prepared = start_runs(docker(prepare.into()), runs + 1).await;
    let plain = median(plain.iter().map(|s| s.0).collect());
    let first = prepared[0].0;
    let later = median(prepared[1..].iter().map(|s| s.0).collect());
    // The same steps with the runner preparing ahead: another base name, so
    // that nothing is prepared yet when the runner starts.
    let ahead_image = format!("{image}-ahead");
    docker_cli(&["tag", base, &ahead_image]);
    let ahead = start_runs_with(
        move |_: &Stage| {
            format!(
                "  - id: docker\n    source: {}\n    with: {{ image: {ahead_image}{prepare} }}\n    allow: {{ exec: [docker] }}\n",
                plug("plugs/docker").display(),
            )
        },
        runs,
        Ahead::Done,
    )
    .await;
    let ahead_first = ahead[0].0;
    let ahead_later = median(ahead[1..].iter().map(|s| s.0).collect());
    println!(
        "docker plug, start run, accepted -> agent spawned, the image as it is: median {plain:7.2} ms (n={runs})"
    );
    println!(
        "  with prepare steps (2 s), the first start, which prepares:               {first:7.2} ms"
    );
    println!(
        "  with prepare steps (2 s), later starts, from the prepared image: median {later:7.2} ms (n={runs}, {:.2}x the image as it is)",
        later / plain
    );
    println!(
        "  prepared ahead by the idle runner, the first start:                      {ahead_first:7.2} ms ({:.3}x the first start that prepares)",
        ahead_first / first
    );
    println!(
        "  prepared ahead by the idle runner, later starts:                  median {ahead_later:7.2} ms (n={})",
        runs - 1
    );
    for base in [image.clone(), format!("{image}-ahead")] {
        let made = docker_cli(&[
            "images",
            "--quiet",
            "--filter",
            &format!("label=blaise.prepared.from={base}"),
        ]);
        for id in made.split_whitespace() {
            docker_cli(&["rmi", "--force", id]);
        }
        docker_cli(&["rmi", &base]);
    }
}

fn docker_cli(args: &[&str]) -> String {
    let out = std::process::Command::new("docker")
        .args(args)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}
