//! Metrics as an operator gets them: a real Prometheus (Debian's `prometheus`) scrapes the
//! `blaise serve` binary's `/metrics` and a runner daemon's (`blaise-runner start
//! --metrics-listen`) while a real session runs (the script agent, the redaction plug filtering
//! its transcript), and the values are read back through Prometheus's query API.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use blaise_tests::blaise::{Runner, redaction_plug, write_script_config};
use blaise_tests::serve::{Serve, free_port};
use serde_json::{Value, json};

const MINUTE: Duration = Duration::from_secs(60);

/// Whether Prometheus is installed; if not, and tools are not required, the test is skipped.
fn have_prometheus() -> bool {
    let found = std::process::Command::new("prometheus")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if found {
        return true;
    }
    if std::env::var_os("BLAISE_REQUIRE_TOOLS").is_some_and(|v| v != "0") {
        panic!("prometheus is missing (BLAISE_REQUIRE_TOOLS is set): `bash .ci/run` installs it");
    }
    eprintln!("SKIPPED: needs prometheus (apt install prometheus); `bash .ci/run` installs it");
    false
}

/// A Prometheus scraping `targets` (job name, address) every 200 ms, its data in `dir`.
struct Prometheus {
    _child: tokio::process::Child,
    url: String,
}

impl Prometheus {
    async fn start(dir: &Path, targets: &[(&str, String)]) -> Prometheus {
        let mut config = String::from(
            "global:\n  scrape_interval: 200ms\n  scrape_timeout: 200ms\nscrape_configs:\n",
        );
        for (job, addr) in targets {
            config.push_str(&format!(
                "  - job_name: {job}\n    static_configs:\n      - targets: ['{addr}']\n"
            ));
        }
        let file = dir.join("prometheus.yml");
        std::fs::write(&file, config).unwrap();
        let port = free_port();
        let child = tokio::process::Command::new("prometheus")
            .arg(format!("--config.file={}", file.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.join("data").display()
            ))
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("starting prometheus");
        let url = format!("http://127.0.0.1:{port}");
        let started = Instant::now();
        while !reqwest::get(format!("{url}/-/ready"))
            .await
            .is_ok_and(|r| r.status().is_success())
        {
            assert!(started.elapsed() < MINUTE, "prometheus did not get ready");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Prometheus { _child: child, url }
    }

    /// The value of the instant query `query` (one series), once `ok` holds for it.
    async fn wait_for(&self, query: &str, ok: impl Fn(f64) -> bool) -> f64 {
        let started = Instant::now();
        loop {
            let answer: Value = reqwest::Client::new()
                .get(format!("{}/api/v1/query", self.url))
                .query(&[("query", query)])
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            let value = answer["data"]["result"][0]["value"][1]
                .as_str()
                .and_then(|v| v.parse::<f64>().ok());
            if let Some(v) = value.filter(|v| ok(*v)) {
                return v;
            }
            assert!(
                started.elapsed() < MINUTE,
                "prometheus never gave a fitting value for {query}: {answer}"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prometheus_scrapes_the_control_plane_and_a_runner() {
    if !have_prometheus() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let serve = Serve::start(
        &tmp.path().join("blaise.db"),
        &["--check-interval", "100ms"],
    )
    .await;
    let api = serve.api();
    api.user
        .put("/v1/agents/script", json!({ "inactivity_ms": 3_600_000 }))
        .await
        .unwrap();
    let token = api.runner_token("box").await;
    let config = tmp.path().join("blaise.yml");
    write_script_config(&config, &redaction_plug());
    let metrics_addr = format!("127.0.0.1:{}", free_port());
    let runner = Runner::start_with_env(
        &serve.url(),
        &token,
        &config,
        &tmp.path().join("data"),
        &tmp.path().join("cache"),
        "box-1",
        &[("BLAISE_RUNNER_METRICS_LISTEN", metrics_addr.as_str())],
    );
    runner
        .wait_for_stderr(&format!("metrics at http://{metrics_addr}/metrics"), MINUTE)
        .await;

    let session = api.new_session("script", "say hello").await;
    api.wait_for_text(&session, "agent_message: hello", MINUTE)
        .await;

    let prometheus = Prometheus::start(
        tmp.path(),
        &[
            ("blaise", serve.addr.to_string()),
            ("runner", metrics_addr.clone()),
        ],
    )
    .await;
    assert_eq!(
        prometheus
            .wait_for(r#"up{job="blaise"}"#, |v| v == 1.0)
            .await,
        1.0
    );
    assert_eq!(
        prometheus
            .wait_for(r#"up{job="runner"}"#, |v| v == 1.0)
            .await,
        1.0
    );
    prometheus
        .wait_for(r#"blaise_sessions{state="active"}"#, |v| v == 1.0)
        .await;
    prometheus
        .wait_for("blaise_runner_instances_connected", |v| v == 1.0)
        .await;
    prometheus
        .wait_for(r#"blaise_runs{status="running"}"#, |v| v == 1.0)
        .await;
    prometheus
        .wait_for(
            r#"blaise_session_transitions_total{from="new",to="active"}"#,
            |v| v == 1.0,
        )
        .await;
    prometheus
        .wait_for(r#"blaise_reports_total{kind="started"}"#, |v| v >= 1.0)
        .await;
    // Inside the run: the redaction plug's hooks, timed, and the text its filter was given.
    prometheus
        .wait_for("blaise_runner_runs_in_progress", |v| v == 1.0)
        .await;
    prometheus
        .wait_for(r#"blaise_runner_runs_started_total{kind="start"}"#, |v| {
            v == 1.0
        })
        .await;
    prometheus
        .wait_for(
            r#"blaise_runner_hook_seconds_count{plug="redaction",hook="transcript filter"}"#,
            |v| v >= 1.0,
        )
        .await;
    prometheus
        .wait_for(
            r#"blaise_runner_filtered_bytes_total{plug="redaction"}"#,
            |v| v >= 5.0,
        )
        .await;
    prometheus
        .wait_for(r#"blaise_runner_outbox_items"#, |v| v == 0.0)
        .await;

    // The session closes: its run tears down and exits, and both sides count it.
    api.close(&session).await.unwrap();
    prometheus
        .wait_for(r#"blaise_sessions{state="closed"}"#, |v| v == 1.0)
        .await;
    prometheus
        .wait_for(r#"blaise_runner_runs_ended_total{outcome="ok"}"#, |v| {
            v >= 1.0
        })
        .await;
    prometheus
        .wait_for("blaise_runner_runs_in_progress", |v| v == 0.0)
        .await;
    prometheus
        .wait_for(
            r#"blaise_runner_hook_seconds_count{plug="redaction",hook="on-start"}"#,
            |v| v == 1.0,
        )
        .await;

    // Every metric either process shows is in docs/metrics.md.
    let documented = std::fs::read_to_string(blaise_tests::root().join("docs/metrics.md")).unwrap();
    for url in [
        format!("{}/metrics", serve.url()),
        format!("http://{metrics_addr}/metrics"),
    ] {
        let text = reqwest::get(&url).await.unwrap().text().await.unwrap();
        for line in text.lines().filter(|l| l.starts_with("# TYPE ")) {
            let name = line.split_whitespace().nth(2).unwrap();
            let shown = if line.ends_with(" counter") {
                format!("`{name}_total`")
            } else {
                format!("`{name}`")
            };
            assert!(
                documented.contains(&shown),
                "{shown} is not in docs/metrics.md"
            );
        }
    }
    runner.stop().await;
}

/// The scrape configuration and the alert rules docs/metrics.md gives are valid as written
/// (`promtool check`), so an operator can start from them.
#[test]
fn the_scrape_config_and_alert_rules_in_the_docs_are_valid() {
    if !have_prometheus() {
        return;
    }
    let doc = std::fs::read_to_string(blaise_tests::root().join("docs/metrics.md")).unwrap();
    let blocks: Vec<String> = doc
        .split("```yaml\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap().to_string())
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let mut checked = Vec::new();
    for block in &blocks {
        let (what, file) = if block.contains("scrape_configs:") {
            ("config", "prometheus.yml")
        } else if block.contains("groups:") {
            ("rules", "rules.yml")
        } else {
            continue;
        };
        let path = dir.path().join(file);
        std::fs::write(&path, block).unwrap();
        let out = std::process::Command::new("promtool")
            .args(["check", what])
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "promtool check {what} refuses docs/metrics.md's block:\n{block}\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        checked.push(what);
    }
    assert_eq!(checked, ["config", "rules"], "both blocks were found");
}
