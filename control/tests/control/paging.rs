//! The sessions list reads a page at a time (issue 52): `GET /v1/sessions` answers at most
//! `limit` sessions, newest first, and `next`, the cursor of the page after; filters by state and
//! agent; the CLI pages the same. Every session is on exactly one page, in the order of the whole
//! list. On SQLite and PostgreSQL alike.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::support::*;

/// Every page of `GET /v1/sessions` with `query`, `limit` at a time: the ids of each page.
async fn pages(s: &Server, query: &str, limit: u32) -> Vec<Vec<String>> {
    let mut pages = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let mut path = format!("/v1/sessions?limit={limit}{query}");
        if let Some(cursor) = &after {
            path.push_str(&format!("&after={cursor}"));
        }
        let page = s.ok(Method::GET, &path, None).await;
        let ids: Vec<String> = page["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v["id"].as_str().unwrap().to_owned())
            .collect();
        assert!(ids.len() <= limit as usize, "{page}");
        pages.push(ids);
        match page["next"].as_str() {
            Some(cursor) => after = Some(cursor.to_owned()),
            None => break pages,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sessions_list_pages_through_every_session_once_newest_first() {
    let s = Server::start().await;
    s.agent("pages-a", json!({})).await;
    s.agent("pages-b", json!({})).await;
    let mut opened = Vec::new();
    for i in 0..130 {
        let agent = if i % 3 == 0 { "pages-b" } else { "pages-a" };
        opened.push((s.new_session(agent, "hello").await, agent));
    }
    // Some closed (no runner took their runs: they close at once).
    for (id, _) in opened.iter().step_by(10) {
        let (status, v) = s.close(id).await;
        assert!(status.is_success(), "{v}");
    }
    // The whole list, newest first, as one page holds it.
    let whole = s.ok(Method::GET, "/v1/sessions?limit=1000", None).await;
    assert_eq!(whole["next"], Value::Null);
    let whole: Vec<String> = whole["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(whole.len(), 130);

    // Pages of 50: 50, 50, 30; every session on exactly one, in the whole list's order.
    let paged = pages(&s, "", 50).await;
    assert_eq!(
        paged.iter().map(Vec::len).collect::<Vec<_>>(),
        vec![50, 50, 30]
    );
    assert_eq!(paged.concat(), whole);
    // A page size that divides the list: the last full page says there is no next.
    let paged = pages(&s, "", 65).await;
    assert_eq!(paged.iter().map(Vec::len).collect::<Vec<_>>(), vec![65, 65]);
    // The default page: 100.
    let first = s.ok(Method::GET, "/v1/sessions", None).await;
    assert_eq!(first["sessions"].as_array().unwrap().len(), 100);
    assert!(first["next"].is_string());

    // Filters, paged the same.
    for (query, expected) in [
        (
            "&agent=pages-b",
            opened.iter().filter(|(_, a)| *a == "pages-b").count(),
        ),
        ("&state=closed", 13),
        ("&state=active&agent=pages-a", {
            opened
                .iter()
                .enumerate()
                .filter(|(i, (_, a))| *a == "pages-a" && i % 10 != 0)
                .count()
        }),
    ] {
        let paged = pages(&s, query, 7).await.concat();
        assert_eq!(paged.len(), expected, "{query}");
        let in_order: Vec<&String> = whole.iter().filter(|id| paged.contains(id)).collect();
        assert_eq!(
            in_order,
            paged.iter().collect::<Vec<_>>(),
            "{query}: newest first"
        );
    }

    // What is not a page is refused, naming the field.
    for (query, field) in [
        ("limit=0", "limit"),
        ("limit=1001", "limit"),
        ("state=sleeping", "state"),
        ("agent=../x", "agent"),
        ("after=yesterday", "after"),
        ("after=12.ses_nothex", "after"),
    ] {
        let (status, body) = s
            .admin(Method::GET, &format!("/v1/sessions?{query}"), None)
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{query}: {body}");
        assert_eq!(body["error"]["field"], field, "{query}: {body}");
    }

    // The CLI: a page and how to get the next, or every page.
    let out = ok(&s, &["session", "list", "--limit", "40"]);
    assert_eq!(out.lines().filter(|l| l.starts_with("ses_")).count(), 40);
    let hint = out.lines().last().unwrap();
    assert!(
        hint.starts_with("… more: blaise session list --after "),
        "{out}"
    );
    let cursor = hint
        .trim_start_matches("… more: blaise session list --after ")
        .split(' ')
        .next()
        .unwrap();
    let second = ok(&s, &["session", "list", "--limit", "40", "--after", cursor]);
    let second_ids: Vec<&str> = second
        .lines()
        .filter(|l| l.starts_with("ses_"))
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    assert_eq!(
        second_ids,
        whole[40..80].iter().map(String::as_str).collect::<Vec<_>>()
    );
    let all = ok(&s, &["session", "list", "--limit", "40", "--all"]);
    assert_eq!(all.lines().filter(|l| l.starts_with("ses_")).count(), 130);
    assert!(!all.contains("… more"), "{all}");
    let closed = ok(&s, &["session", "list", "--state", "closed", "--json"]);
    let closed: Value = serde_json::from_str(&closed).unwrap();
    assert_eq!(closed.as_array().unwrap().len(), 13);

    // The dashboard: 50 a page, newest first, "Older" to the next, the count from the store.
    for (query, pages, count) in [
        ("", vec![50, 50, 30], "130 sessions"),
        ("?state=closed", vec![13], "13 sessions"),
        ("?agent=pages-b&q=hello", vec![44], "Sessions found"),
    ] {
        let mut shown = Vec::new();
        let mut sizes = Vec::new();
        let mut path = format!("/{query}");
        loop {
            let page = s.page(&path).await;
            assert!(page.contains(&format!("<h2>{count}</h2>")), "{path}");
            let ids: Vec<String> = page
                .split("<tr class=\"session\" data-session=\"")
                .skip(1)
                .map(|rest| rest.split('"').next().unwrap().to_owned())
                .collect();
            sizes.push(ids.len());
            shown.extend(ids);
            let Some(older) = page.split("<a href=\"").find_map(|a| {
                a.split_once("\" rel=\"next\">Older</a>")
                    .map(|(href, _)| href.replace("&amp;", "&"))
            }) else {
                break;
            };
            assert!(page.contains(">Newest</a>") || path == format!("/{query}"));
            path = older;
        }
        assert_eq!(sizes, pages, "{query}");
        let in_order: Vec<&String> = whole.iter().filter(|id| shown.contains(id)).collect();
        assert_eq!(in_order, shown.iter().collect::<Vec<_>>(), "{query}");
    }
}

/// The ids `GET /v1/sessions?{query}` lists for `token`.
async fn ids_for(s: &Server, token: &str, query: &str) -> Vec<String> {
    let (status, page) = s
        .call(
            Method::GET,
            &format!("/v1/sessions?{query}"),
            Some(token),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{query}: {page}");
    page["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["id"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_list_filters_by_runner_by_what_waits_and_by_who_started_each() {
    let s = Server::start().await;
    s.agent("rf-a", json!({})).await;
    s.agent("rf-lonely", json!({})).await;
    let r = s.runner("rf-r1", &["rf-a"]).await;
    s.runner("rf-r2", &["rf-a"]).await;
    let ann = s
        .ok(
            Method::POST,
            "/v1/users",
            Some(json!({ "name": "ann", "role": "operator" })),
        )
        .await["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let held = s.new_session("rf-a", "one").await;
    let _run = r.take_started("start").await;
    let lonely = s.new_session("rf-lonely", "anyone?").await;
    let (_, hers) = s
        .call(
            Method::POST,
            "/v1/sessions",
            Some(&ann),
            Some(json!({ "agent": "rf-a", "message": "mine" })),
        )
        .await;
    let hers = hers["id"].as_str().unwrap().to_owned();
    let her_run = r.take_started("start").await;
    crate::waiting_for_you::ask(&r, &her_run, crate::waiting_for_you::removal("perm-1")).await;

    let sorted = |mut v: Vec<String>| {
        v.sort();
        v
    };
    assert_eq!(
        sorted(ids_for(&s, ADMIN, "runner=rf-r1").await),
        sorted(vec![held.clone(), hers.clone()])
    );
    assert!(ids_for(&s, ADMIN, "runner=rf-r2").await.is_empty());
    assert_eq!(
        ids_for(&s, ADMIN, "waiting_for_runner=true").await,
        [lonely.as_str()]
    );
    assert_eq!(
        ids_for(&s, ADMIN, "waiting_for_you=true").await,
        [hers.as_str()]
    );
    // Each filter holds with the others: what waits for an answer, among what Ann started.
    assert_eq!(
        ids_for(&s, &ann, "waiting_for_you=true&mine=true").await,
        [hers.as_str()]
    );
    assert!(
        ids_for(&s, ADMIN, "waiting_for_you=true&mine=true")
            .await
            .is_empty()
    );
    assert_eq!(
        ids_for(&s, ADMIN, "runner=rf-r1&started_by=ann").await,
        [hers.as_str()]
    );
    for (query, field) in [
        ("runner=nobody", "runner"),
        ("runner=../x", "runner"),
        (
            "waiting_for_you=true&waiting_for_runner=true",
            "waiting_for_runner",
        ),
        ("mine=true&started_by=ann", "mine"),
    ] {
        let (status, body) = s
            .admin(Method::GET, &format!("/v1/sessions?{query}"), None)
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{query}: {body}");
        assert_eq!(body["error"]["field"], field, "{query}: {body}");
    }
    let out = ok(&s, &["session", "list", "--runner", "rf-r1"]);
    assert_eq!(
        out.lines().filter(|l| l.starts_with("ses_")).count(),
        2,
        "{out}"
    );
    let out = ok(&s, &["session", "list", "--waiting-for-runner"]);
    assert!(out.contains(&lonely) && !out.contains(&held), "{out}");
}
