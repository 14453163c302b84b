//! Money is policy, like time (issue 53): what a run reports its agent used adds up per run, per
//! session and per agent per day, shown in the view, the agent's record, the CLI and `/metrics`;
//! what an agent never reported is absent, not zero. A session past its budget is stopped
//! (reason `budget`, its environment kept) and takes no message until it is raised; an agent past
//! its daily budget takes no new turn. On SQLite and PostgreSQL alike.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::support::*;

async fn used(run: &FakeRun, report: Value) {
    run.ok("usage", report).await;
}

/// Usage adds up: tokens and money across reports, the context as last said; the agent's day
/// holds it too, and `/metrics` counts it by agent, currency and kind. A session whose agent
/// says nothing shows nothing, not zero.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn usage_adds_up_per_run_session_and_agent_day() {
    let s = Server::start().await;
    // Names of their own: the metrics' counters are this test process's, shared by the tests.
    s.agent("spender-u1", json!({})).await;
    s.agent("quiet-u1", json!({})).await;
    let r = s.runner("spender-r1", &["spender-u1", "quiet-u1"]).await;
    let id = s.new_session("spender-u1", "hello").await;
    let run = r.take_started("start").await;
    let message = run.wait_directive("prompt").await["message_id"].clone();
    used(
        &run,
        json!({ "message_id": message, "context_used": 1501, "context_size": 200000,
                "cost": { "amount": 0.5, "currency": "USD" } }),
    )
    .await;
    used(
        &run,
        json!({ "message_id": message, "tokens": { "input": 2000, "output": 100, "cached_read": 600 },
                "context_used": 1800, "cost": { "amount": 0.25, "currency": "USD" } }),
    )
    .await;
    run.ok("turn_ended", json!({ "message_id": message })).await;

    let v = s.show(&id).await;
    let usage = &v["usage"];
    assert_eq!(
        usage["tokens"],
        json!({ "input": 2000, "output": 100, "cached_read": 600 })
    );
    assert_eq!(usage["cost"], json!({ "USD": 0.75 }), "{v:#}");
    assert_eq!(usage["context_used"], 1800);
    assert_eq!(usage["context_size"], 200000);
    assert_eq!(v["runs"][0]["usage"], *usage, "the run's own");
    let agent = s.ok(Method::GET, "/v1/agents/spender-u1", None).await;
    assert_eq!(agent["today"]["cost"], json!({ "USD": 0.75 }), "{agent}");
    let shown = ok(&s, &["session", "show", &id]);
    assert!(
        shown.contains("usage          0.7500 USD; 2,000 tokens in, 100 out, 600 cached; context 1,800 of 200,000"),
        "{shown}"
    );
    let agent_shown = ok(&s, &["agent", "show", "spender-u1"]);
    assert!(
        agent_shown.contains("today (UTC)      0.7500 USD; 2,000 tokens in, 100 out, 600 cached\n"),
        "{agent_shown}"
    );

    let metrics = reqwest::get(format!("{}/metrics", s.url))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    // The runner's day, in the API, the CLI and the dashboard.
    let runners = s.ok(Method::GET, "/v1/runners", None).await;
    let runner = runners["runners"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "spender-r1")
        .unwrap();
    assert_eq!(runner["today"]["cost"], json!({ "USD": 0.75 }), "{runner}");
    let runners_shown = ok(&s, &["runner", "list"]);
    assert!(
        runners_shown
            .contains("  spent today (UTC): 0.7500 USD; 2,000 tokens in, 100 out, 600 cached\n"),
        "{runners_shown}"
    );
    let page = s.page("/runners").await;
    assert!(
        page.contains("spent today (UTC): <span class=\"spent\">0.7500 USD; 2,000 tokens in"),
        "{page}"
    );

    for sample in [
        "blaise_agent_cost_total{agent=\"spender-u1\",currency=\"USD\"} 0.75",
        "blaise_runner_cost_total{runner=\"spender-r1\",currency=\"USD\"} 0.75",
        "blaise_agent_tokens_total{agent=\"spender-u1\",kind=\"input\"} 2000",
        "blaise_agent_tokens_total{agent=\"spender-u1\",kind=\"cached_read\"} 600",
    ] {
        assert!(metrics.contains(sample), "{sample} in:\n{metrics}");
    }
    assert!(
        !metrics.contains("blaise_agent_tokens_total{agent=\"spender-u1\",kind=\"thought\"}"),
        "a kind never reported is not a zero"
    );

    // An agent that says nothing: nothing, not zero.
    let quiet = s.new_session("quiet-u1", "hello").await;
    let v = s.show(&quiet).await;
    assert_eq!(v["usage"], json!({}), "{v:#}");
    let shown = ok(&s, &["session", "show", &quiet]);
    assert!(
        shown.contains("usage          not reported by the agent"),
        "{shown}"
    );
}

/// A session whose agent spends past its budget is stopped (reason `budget`, may resume), its
/// environment kept; a message is then refused naming the budget, until an operator raises it;
/// then the next message resumes it in the same environment.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_past_its_budget_is_stopped_until_its_budget_is_raised() {
    let s = Server::start().await;
    s.agent("a", json!({ "session_budget": 1.0 })).await;
    let r = s.runner("r", &["a"]).await;
    let id = s.new_session("a", "hello").await;
    let run = r.take_started("start").await;
    let env = s.show(&id).await["environment"]["id"].clone();
    let message = run.wait_directive("prompt").await["message_id"].clone();
    used(
        &run,
        json!({ "cost": { "amount": 0.6, "currency": "USD" } }),
    )
    .await;
    run.ok("turn_ended", json!({ "message_id": message })).await;
    assert!(
        run.directives_for(300)
            .await
            .iter()
            .all(|d| d["kind"] != "stop"),
        "under its budget"
    );
    s.send(&id, "more").await;
    let message = run.wait_directive("prompt").await["message_id"].clone();
    used(
        &run,
        json!({ "message_id": message, "cost": { "amount": 0.5, "currency": "USD" } }),
    )
    .await;
    let stop = run.wait_directive("stop").await;
    assert_eq!(stop["reason"], "budget", "{stop}");
    assert_eq!(stop["may_resume"], true, "{stop}");
    run.ok("paused", json!({})).await;
    let v = s.wait_state(&id, "paused").await;
    assert_eq!(env_state(&v), "paused", "the environment is kept: {v:#}");
    assert!(
        s.notices(&id)
            .await
            .iter()
            .any(|n| n.contains("spent 1.10 USD of its budget of 1.00 USD")),
    );
    let notices = s.notices(&id).await;
    assert!(
        !notices.iter().any(|n| n.contains("sent again")),
        "the turn the budget ran out in ends with it, not sent to a later run: {notices:?}"
    );
    assert!(
        r.offers(300).await.is_empty(),
        "no run resumes it past its budget"
    );
    let (status, refused) = s.send(&id, "and more").await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_eq!(refused["error"]["code"], "budget", "{refused}");
    let said = refused["error"]["message"].as_str().unwrap();
    assert!(
        said.contains("spent 1.10 USD of its budget of 1.00 USD")
            && said.contains(&format!("blaise session budget {id} AMOUNT")),
        "{said}"
    );
    // The dashboard's form: a bad amount is said, a good one set (and said in the transcript).
    let login = s.web_login().await;
    let path = format!("/sessions/{id}/budget");
    let (status, page) = login.post(&s.url, &path, &[("amount", "lots")]).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(page.contains("is not an amount"));
    let (status, _) = login.post(&s.url, &path, &[("amount", "2")]).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert_eq!(s.show(&id).await["budget"], 2.0);
    let raised = ok(&s, &["session", "budget", &id, "5"]);
    assert!(raised.contains("1.10 USD of a 5.00 USD budget"), "{raised}");
    assert!(
        s.notices(&id)
            .await
            .iter()
            .any(|n| n.contains("The session's budget is now 5.00 USD")),
    );
    let (status, v) = s.send(&id, "and more").await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let resume = r.take("resume").await;
    assert_eq!(resume.assignment["environment_id"], env);
}

/// An agent whose sessions spent its daily budget today takes no new session and no new
/// message; a bad usage report is refused naming the field.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_past_its_daily_budget_takes_no_new_turn() {
    let s = Server::start().await;
    s.agent("a", json!({ "daily_budget": 2.0 })).await;
    let r = s.runner("r", &["a"]).await;
    let id = s.new_session("a", "hello").await;
    let run = r.take_started("start").await;
    let message = run.wait_directive("prompt").await["message_id"].clone();
    for (report, field) in [
        (
            json!({ "cost": { "amount": -1.0, "currency": "USD" } }),
            "cost.amount",
        ),
        (
            json!({ "cost": { "amount": 2e6, "currency": "USD" } }),
            "cost.amount",
        ),
        (
            json!({ "cost": { "amount": 1e308, "currency": "USD" } }),
            "cost.amount",
        ),
        (
            json!({ "cost": { "amount": 1.0, "currency": "U$D" } }),
            "cost.currency",
        ),
        (
            json!({ "cost": { "amount": 1.0, "currency": "" } }),
            "cost.currency",
        ),
    ] {
        let (status, v) = run.report("usage", report).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(v["error"]["field"], field, "{v}");
    }
    // Currencies are bounded (each is a series of /metrics): a fifth one's cost is left out,
    // the rest of its report counted and the run left alone (a refused report fails a run).
    used(
        &run,
        json!({ "cost": { "amount": 0.5, "currency": "USD" } }),
    )
    .await;
    for currency in ["EUR", "GBP", "credits"] {
        used(
            &run,
            json!({ "cost": { "amount": 0.01, "currency": currency } }),
        )
        .await;
    }
    used(
        &run,
        json!({ "tokens": { "output": 7 }, "cost": { "amount": 1.0, "currency": "JPY" } }),
    )
    .await;
    let usage = &s.show(&id).await["usage"];
    assert!(usage["cost"].get("JPY").is_none(), "{usage}");
    assert_eq!(usage["tokens"]["output"], 7, "{usage}");
    // Past the daily budget, the work under way stops too.
    used(
        &run,
        json!({ "cost": { "amount": 2.0, "currency": "USD" } }),
    )
    .await;
    let stop = run.wait_directive("stop").await;
    assert_eq!(stop["reason"], "budget", "{stop}");
    assert!(s.notices(&id).await.iter().any(|n| {
        n.contains("spent 2.50 USD of its daily budget of 2.00 USD today")
            && n.contains("blaise agent set a --daily-budget AMOUNT")
    }),);
    run.ok("turn_ended", json!({ "message_id": message })).await;
    let (status, v) = s
        .admin(
            Method::POST,
            "/v1/sessions",
            Some(json!({ "agent": "a", "message": "another" })),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{v}");
    assert_eq!(v["error"]["code"], "daily_budget", "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("spent 2.50 USD of its daily budget of 2.00 USD today"),
        "{v}"
    );
    let (status, v) = s.send(&id, "more").await;
    assert_eq!(status, StatusCode::CONFLICT, "{v}");
    assert_eq!(v["error"]["code"], "daily_budget", "{v}");
    // Raised, it takes turns again.
    s.agent("a", json!({ "daily_budget": 10.0 })).await;
    assert_eq!(s.send(&id, "more").await.0, StatusCode::OK);
    // `none` lifts it.
    let agent = s.agent("a", json!({ "daily_budget": "none" })).await;
    assert!(agent["settings"].get("daily_budget").is_none(), "{agent}");
}
