//! Several `blaise serve` processes on one PostgreSQL database: a runner talks to one, a user to
//! another, long polls wake on the other instance's changes, the clock runs in exactly one of
//! them and moves when that one is killed.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};

use crate::support::*;

/// The clock's interval in these tests.
const CHECK: Duration = Duration::from_millis(300);

struct Instance {
    api: Api,
    child: Child,
}

impl Drop for Instance {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Instance {
    /// `blaise serve --db <url>` (given through `BLAISE_DB`, as an operator would with a
    /// password) on a free port, once it answers its health check.
    async fn start(db: &str) -> Instance {
        let port = free_port();
        let child = Command::new(env!("CARGO_BIN_EXE_blaise"))
            .args(["serve", "--listen", &format!("127.0.0.1:{port}")])
            .args(["--check-interval", &format!("{}ms", CHECK.as_millis())])
            .env("BLAISE_DB", db)
            .env("BLAISE_TOKEN", ADMIN)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let instance = Instance {
            api: Api::at(&format!("http://127.0.0.1:{port}")),
            child,
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        while instance.health().await.is_none() {
            assert!(Instant::now() < deadline, "blaise serve did not answer");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        instance
    }

    async fn health(&self) -> Option<Value> {
        let resp = self
            .api
            .http
            .get(format!("{}/v1/health", self.api.url))
            .send()
            .await
            .ok()?;
        if !resp.status().is_success() {
            return None;
        }
        resp.json().await.ok()
    }

    async fn runs_clock(&self) -> bool {
        self.health()
            .await
            .is_some_and(|h| h["clock"] == true && h["store"] == "postgres")
    }

    /// Waits until this instance runs the clock; returns how long that took.
    async fn wait_for_clock(&self, within: Duration) -> Duration {
        let start = Instant::now();
        while !self.runs_clock().await {
            assert!(
                start.elapsed() < within,
                "the clock did not come to {} within {within:?}",
                self.api.url
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        start.elapsed()
    }
}

/// The whole life of a session across two instances, and the clock moving when its holder dies.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_serve_one_session_and_the_clock_moves_when_its_holder_dies() {
    let Some(db) = crate::pg::database() else {
        eprintln!("skipped: {}", crate::pg::unavailable());
        return;
    };
    let a = Instance::start(&db.url).await;
    a.wait_for_clock(Duration::from_secs(10)).await;
    let b = Instance::start(&db.url).await;
    tokio::time::sleep(CHECK * 3).await;
    assert!(a.runs_clock().await, "the first instance keeps the clock");
    assert!(!b.runs_clock().await, "exactly one instance runs the clock");

    // The admin sets things up on one instance; the runner talks only to the other.
    a.api
        .agent(
            "script",
            json!({ "inactivity_ms": 2_000, "idle_policy": "pause" }),
        )
        .await;
    let token = a.api.add_runner("box").await;
    let runner = FakeRunner::at(&b.api.url, &token, "box-1");
    runner.connect(&["script"]).await;

    // The runner's long poll on B wakes when A offers a run: well before the poll would end.
    let polling = {
        let runner = runner.clone();
        tokio::spawn(async move {
            let start = Instant::now();
            let offers = runner.offers(20_000).await;
            (offers, start.elapsed())
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let id = a.api.new_session("script", "hello").await;
    let (offers, waited) = polling.await.unwrap();
    assert_eq!(offers.len(), 1, "{offers:?}");
    assert!(
        waited < Duration::from_secs(10),
        "an offer made on A woke the poll on B only after {waited:?}"
    );
    let run = std::sync::Arc::new(runner.take("start").await);
    run.ok("started", json!({})).await;
    assert_eq!(run.wait_directive("prompt").await["text"], "hello");

    // The user's follow of the transcript on A wakes when the runner's report lands on B.
    let after = a.api.transcript(&id).await.last().unwrap()["index"]
        .as_i64()
        .unwrap();
    let follow = {
        let (api, id) = (Api::at(&a.api.url), id.clone());
        tokio::spawn(async move {
            let start = Instant::now();
            let (_, page) = api
                .admin(
                    Method::GET,
                    &format!("/v1/sessions/{id}/transcript?after={after}&wait_ms=20000"),
                    None,
                )
                .await;
            (page, start.elapsed())
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    run.say("hi from the agent").await;
    let (page, waited) = follow.await.unwrap();
    assert_eq!(
        page["entries"][0]["content"]["text"], "hi from the agent",
        "{page}"
    );
    assert!(
        waited < Duration::from_secs(10),
        "a report on B woke the follow on A only after {waited:?}"
    );
    run.turn_ended().await;

    // A message sent on A wakes the run's directive stream on B.
    let prompt = {
        let run = run.clone();
        tokio::spawn(async move {
            let start = Instant::now();
            (run.directives(20_000).await, start.elapsed())
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (status, body) = a.api.send(&id, "and a second thing").await;
    assert!(status.is_success(), "{body}");
    let (directives, waited) = prompt.await.unwrap();
    assert_eq!(
        directives[0]["text"], "and a second thing",
        "{directives:?}"
    );
    assert!(
        waited < Duration::from_secs(10),
        "a message on A woke the directives on B only after {waited:?}"
    );
    run.say("the second answer").await;
    run.turn_ended().await;

    // The instance that runs the clock dies; the other takes the clock within about one
    // interval, and its clock pauses the idle session.
    let mut a = a;
    a.child.kill().unwrap();
    a.child.wait().unwrap();
    let took = b.wait_for_clock(CHECK * 10).await;
    eprintln!("the clock moved {took:?} after its holder was killed (interval {CHECK:?})");
    let stop = run.wait_directive("stop").await;
    assert_eq!(stop["reason"], "idle", "{stop}");
    run.ok("paused", json!({})).await;
    drop(run);
    b.api.wait_state(&id, "paused").await;

    // The user goes on through B: the session resumes on the same runner and is closed.
    let (status, body) = b.api.send(&id, "and now?").await;
    assert!(status.is_success(), "{body}");
    let resume = runner.take("resume").await;
    resume.ok("started", json!({})).await;
    resume.say("resumed").await;
    resume.turn_ended().await;
    // A close waits until the runner has the stop: it reads its directives on B.
    let resume = std::sync::Arc::new(resume);
    let stop = {
        let resume = resume.clone();
        tokio::spawn(async move { resume.wait_directive("stop").await })
    };
    let (status, body) = b.api.close(&id).await;
    assert!(status.is_success(), "{body}");
    let stop = stop.await.unwrap();
    assert_eq!(stop["may_resume"], false, "{stop}");
    resume.ok("torn_down", json!({})).await;
    drop(resume);
    let view = b.api.wait_state(&id, "closed").await;

    // Nothing ran twice: one start and one resume, each ended once; the transcript is whole.
    let kinds: Vec<Value> = runs(&view).iter().map(|r| r["kind"].clone()).collect();
    assert_eq!(kinds, [json!("start"), json!("resume")], "{view:#}");
    let transcript = b.api.transcript(&id).await;
    let indices: Vec<i64> = transcript
        .iter()
        .map(|e| e["index"].as_i64().unwrap())
        .collect();
    assert_eq!(indices, (1..=indices.len() as i64).collect::<Vec<_>>());
    for text in [
        "hello",
        "hi from the agent",
        "and a second thing",
        "the second answer",
        "and now?",
        "resumed",
    ] {
        let n = transcript
            .iter()
            .filter(|e| e["content"]["text"] == text)
            .count();
        assert_eq!(n, 1, "{text:?} appears {n} times: {transcript:#?}");
    }
}

/// `GET /v1/health` is what a load balancer asks: it must say 503 while the database cannot be
/// reached (it reaches the database with a statement: a transaction's `BEGIN` alone sends
/// nothing), and 200 when it can, even when the connections it had were ended.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_says_when_the_database_cannot_be_reached() {
    let s = Server::start().await;
    let db = s.db.as_ref().expect("the PostgreSQL pass");
    let health = || async {
        s.http
            .get(format!("{}/v1/health", s.url))
            .timeout(Duration::from_secs(30))
            .send()
            .await
            .unwrap()
            .status()
    };
    assert_eq!(health().await, 200);
    // Its pooled connections ended (a restart, a failover): still healthy, at the first ask,
    // as the database takes new ones.
    db.terminate_connections();
    assert_eq!(
        health().await,
        200,
        "a dead pooled connection is not the database"
    );
    db.allow_connections(false);
    db.terminate_connections();
    assert_eq!(health().await, 503, "the database refuses connections");
    db.allow_connections(true);
    let deadline = Instant::now() + Duration::from_secs(20);
    while health().await != 200 {
        assert!(
            Instant::now() < deadline,
            "healthy again once it can connect"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
