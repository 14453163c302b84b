//! People, roles and the audit trail (issue 52): every person acts as themself, with a role that
//! bounds what they can do; every change is recorded with who made it, their role, through what,
//! what and when, in the transaction that made it. On SQLite and PostgreSQL alike.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::support::*;
use crate::waiting_for_you::{ask, removal};

/// A person added by the admin: their name and token.
struct Person {
    name: &'static str,
    token: String,
}

async fn add_person(s: &Server, name: &'static str, role: &str) -> Person {
    let v = s
        .ok(
            Method::POST,
            "/v1/users",
            Some(json!({ "name": name, "role": role })),
        )
        .await;
    assert_eq!(v["role"], role, "{v}");
    assert!(
        v.get("token_hash").is_none(),
        "the API never shows a hash: {v}"
    );
    let token = v["token"]
        .as_str()
        .expect("the token, shown once")
        .to_owned();
    Person { name, token }
}

/// The audit trail's entries for `query`, newest first.
async fn audit(s: &Server, query: &str) -> Vec<Value> {
    s.ok(Method::GET, &format!("/v1/audit{query}"), None).await["entries"]
        .as_array()
        .unwrap()
        .clone()
}

/// One change through the API: the role it needs and the action the trail records for it.
struct Change {
    method: Method,
    path: String,
    body: Value,
    needs: &'static str,
    action: &'static str,
}

fn change(
    method: Method,
    path: String,
    body: Value,
    needs: &'static str,
    action: &'static str,
) -> Change {
    Change {
        method,
        path,
        body,
        needs,
        action,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_role_does_what_it_may_and_every_change_is_recorded_with_who_made_it() {
    let s = Server::start().await;
    s.agent("ppl-a", json!({})).await;
    s.agent("ppl-nobody-serves", json!({})).await;
    let r = s.runner("ppl-r1", &["ppl-a"]).await;
    let vic = add_person(&s, "vic", "viewer").await;
    let ola = add_person(&s, "ola", "operator").await;
    let ada = add_person(&s, "ada", "admin").await;

    // The operator starts a session; it says who started it.
    let (status, started) = s
        .call(
            Method::POST,
            "/v1/sessions",
            Some(&ola.token),
            Some(json!({ "agent": "ppl-a", "message": "clean up" })),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{started}");
    assert_eq!(started["started_by"], "ola");
    let id = started["id"].as_str().unwrap().to_owned();
    let run = r.take_started("start").await;
    ask(&r, &run, removal("perm-1")).await;
    // A session no runner serves: closing it is at once (its run is only offered).
    let idle = s.new_session("ppl-nobody-serves", "wait").await;

    let changes = [
        change(
            Method::POST,
            "/v1/sessions".into(),
            json!({ "agent": "ppl-nobody-serves", "message": "hi" }),
            "operator",
            "session.start",
        ),
        change(
            Method::POST,
            format!("/v1/sessions/{id}/messages"),
            json!({ "text": "and the docs" }),
            "operator",
            "session.send",
        ),
        change(
            Method::POST,
            format!("/v1/sessions/{id}/permissions/perm-1/answer"),
            json!({ "option_id": "allow" }),
            "operator",
            "permission.answer",
        ),
        change(
            Method::POST,
            format!("/v1/sessions/{id}/cancel"),
            json!({}),
            "operator",
            "session.cancel",
        ),
        change(
            Method::POST,
            format!("/v1/sessions/{idle}/close"),
            json!({}),
            "operator",
            "session.close",
        ),
        change(
            Method::POST,
            format!("/v1/sessions/{id}/budget"),
            json!({ "amount": 5 }),
            "admin",
            "session.budget",
        ),
        change(
            Method::PUT,
            "/v1/agents/ppl-b".into(),
            json!({ "timeout_ms": 60000 }),
            "admin",
            "agent.set",
        ),
        change(
            Method::POST,
            "/v1/runners".into(),
            json!({ "name": "ppl-r2" }),
            "admin",
            "runner.add",
        ),
        change(
            Method::POST,
            "/v1/runners/ppl-r2/scope".into(),
            json!({ "agents": ["ppl-a"] }),
            "admin",
            "runner.scope",
        ),
        change(
            Method::POST,
            "/v1/runners/ppl-r2/token".into(),
            json!({}),
            "admin",
            "runner.token",
        ),
        change(
            Method::POST,
            "/v1/runners/ppl-r2/revoke".into(),
            json!({}),
            "admin",
            "runner.revoke",
        ),
        change(
            Method::POST,
            "/v1/users".into(),
            json!({ "name": "tom", "role": "viewer" }),
            "admin",
            "user.add",
        ),
        change(
            Method::PUT,
            "/v1/users/tom".into(),
            json!({ "role": "operator" }),
            "admin",
            "user.set",
        ),
        change(
            Method::POST,
            "/v1/users/tom/token".into(),
            json!({}),
            "admin",
            "user.token",
        ),
        change(
            Method::DELETE,
            "/v1/users/tom".into(),
            Value::Null,
            "admin",
            "user.remove",
        ),
    ];
    for c in &changes {
        let body = (!c.body.is_null()).then(|| c.body.clone());
        // Everyone below the role is refused, told the role it needs and what they are.
        let below: &[&Person] = match c.needs {
            "operator" => &[&vic],
            _ => &[&vic, &ola],
        };
        for p in below {
            let before = audit(&s, "").await.len();
            let (status, v) = s
                .call(c.method.clone(), &c.path, Some(&p.token), body.clone())
                .await;
            assert_eq!(
                status,
                StatusCode::FORBIDDEN,
                "{} {} as {}: {v}",
                c.method,
                c.path,
                p.name
            );
            let message = v["error"]["message"].as_str().unwrap();
            assert!(
                message.contains(&format!("needs the {} role", c.needs))
                    && message.contains(p.name),
                "{} {}: {message}",
                c.method,
                c.path
            );
            assert_eq!(
                audit(&s, "").await.len(),
                before,
                "a refusal changes nothing"
            );
        }
        // The role it needs does it, and the trail says who did, as what, through what.
        let doer = if c.needs == "operator" { &ola } else { &ada };
        let (status, v) = s
            .call(c.method.clone(), &c.path, Some(&doer.token), body)
            .await;
        assert_eq!(
            status,
            StatusCode::OK,
            "{} {} as {}: {v}",
            c.method,
            c.path,
            doer.name
        );
        let latest = &audit(&s, "?limit=1").await[0];
        assert_eq!(latest["action"], c.action, "{latest}");
        assert_eq!(latest["actor"], doer.name, "{latest}");
        assert_eq!(latest["role"], c.needs, "{latest}");
        assert_eq!(latest["via"], "api", "{latest}");
    }

    // Reading is everyone's; the trail and the people are the admins'.
    for path in [
        "/v1/sessions".to_string(),
        format!("/v1/sessions/{id}"),
        format!("/v1/sessions/{id}/transcript"),
        "/v1/agents".into(),
        "/v1/runners".into(),
        "/v1/environments".into(),
    ] {
        let (status, v) = s.call(Method::GET, &path, Some(&vic.token), None).await;
        assert_eq!(status, StatusCode::OK, "GET {path} as a viewer: {v}");
    }
    for path in ["/v1/audit", "/v1/users"] {
        let (status, _) = s.call(Method::GET, path, Some(&ola.token), None).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "GET {path} as an operator");
    }
    let (status, _) = s
        .call(Method::GET, "/v1/sessions", Some("blu_nobody"), None)
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    // The answer names who gave it: on the request, in the transcript, in the trail.
    let view = s.show(&id).await;
    let answered = &view["permission_requests"][0];
    assert_eq!(answered["answered_by"], "ola", "{answered}");
    assert_eq!(answered["answered_via"], "api", "{answered}");
    let transcript = s.transcript(&id).await;
    let said = transcript
        .iter()
        .find(|e| e["kind"] == "permission_answer")
        .expect("the answer is in the transcript");
    assert_eq!(said["content"]["by"], "ola", "{said}");
    assert_eq!(said["content"]["option_id"], "allow", "{said}");
    let sent = transcript
        .iter()
        .find(|e| e["kind"] == "user_message" && e["content"]["text"] == "and the docs")
        .unwrap();
    assert_eq!(sent["content"]["by"], "ola", "{sent}");

    // The trail filters by person, session and action, and pages without repeating itself.
    let of_session = audit(&s, &format!("?session={id}")).await;
    let actions: Vec<&str> = of_session
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    assert_eq!(
        actions,
        [
            "session.budget",
            "session.cancel",
            "permission.answer",
            "session.send",
            "session.start"
        ],
        "newest first"
    );
    let olas = audit(&s, "?actor=ola").await;
    let actions: Vec<&str> = olas.iter().map(|e| e["action"].as_str().unwrap()).collect();
    assert!(
        olas.iter().all(|e| e["actor"] == "ola") && actions.contains(&"session.start"),
        "only ola's, and hers are there: {actions:?}"
    );
    let adds = audit(&s, "?action=user.add").await;
    let added: Vec<&str> = adds.iter().map(|e| e["target"].as_str().unwrap()).collect();
    assert_eq!(added, ["tom", "ada", "ola", "vic"]);
    let mut seen = Vec::new();
    let mut query = "?limit=3".to_string();
    loop {
        let page = s.ok(Method::GET, &format!("/v1/audit{query}"), None).await;
        seen.extend(
            page["entries"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["seq"].as_i64().unwrap()),
        );
        match page["next"].as_i64() {
            Some(next) => query = format!("?limit=3&after={next}"),
            None => break,
        }
    }
    let all: Vec<i64> = audit(&s, "?limit=1000")
        .await
        .iter()
        .map(|e| e["seq"].as_i64().unwrap())
        .collect();
    assert_eq!(
        seen, all,
        "pages of 3 walk the whole trail once, newest first"
    );
    let (status, v) = s
        .admin(Method::GET, "/v1/audit?action=session.explode", None)
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("`action` must be one of"),
        "{v}"
    );

    // Sessions filter by who started them; `mine` is the caller's.
    let mine = s
        .call(
            Method::GET,
            "/v1/sessions?mine=true",
            Some(&ola.token),
            None,
        )
        .await
        .1;
    let ids: Vec<&str> = mine["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 2, "the two ola started: {mine}");
    assert!(ids.contains(&id.as_str()));
    let by_admin = s
        .ok(Method::GET, "/v1/sessions?started_by=admin", None)
        .await;
    assert_eq!(
        by_admin["sessions"].as_array().unwrap().len(),
        1,
        "{by_admin}"
    );
    assert_eq!(by_admin["sessions"][0]["id"], idle.as_str());
}

async fn get_page(web: &reqwest::Client, cookie: &str, url: &str) -> (StatusCode, String) {
    let resp = web.get(url).header("cookie", cookie).send().await.unwrap();
    (resp.status(), resp.text().await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_shows_each_person_what_their_role_allows_and_removing_them_ends_it() {
    let s = Server::start().await;
    s.agent("web-a", json!({})).await;
    let r = s.runner("web-r1", &["web-a"]).await;
    let vic = add_person(&s, "vic", "viewer").await;
    let ola = add_person(&s, "ola", "operator").await;
    let id = s.new_session("web-a", "clean up").await;
    let run = r.take_started("start").await;
    ask(&r, &run, removal("perm-1")).await;

    // A viewer sees the session and what it asks, and no form that would change anything.
    let viewer = s.web_login_as(&vic.token).await;
    let (status, page) = get_page(
        &viewer.web,
        &viewer.cookie,
        &format!("{}/sessions/{id}", s.url),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("Remove target/"), "the request shows");
    for hidden in [
        "/messages\"",
        "/answer\"",
        "/close\"",
        "/cancel\"",
        "/budget\"",
        "href=\"/audit\"",
    ] {
        assert!(!page.contains(hidden), "a viewer's page has no {hidden}");
    }
    let (status, front) = get_page(&viewer.web, &viewer.cookie, &format!("{}/", s.url)).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        !front.contains("id=\"new-session\""),
        "no form to start a session"
    );
    // Sent anyway (an old page), the form is refused, saying why.
    let (status, page) = viewer
        .post(
            &s.url,
            &format!("/sessions/{id}/permissions/perm-1/answer"),
            &[("option_id", "allow")],
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(
        page.contains("needs the operator role; vic is a viewer"),
        "{page}"
    );
    let (status, _) = get_page(&viewer.web, &viewer.cookie, &format!("{}/audit", s.url)).await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    // An operator answers from the dashboard; the page and the trail name them.
    let operator = s.web_login_as(&ola.token).await;
    let (_, page) = get_page(
        &operator.web,
        &operator.cookie,
        &format!("{}/sessions/{id}", s.url),
    )
    .await;
    assert!(
        page.contains("/answer\"") && page.contains("/messages\""),
        "an operator's forms"
    );
    assert!(!page.contains("/budget\""), "the budget is the admins'");
    let (status, _) = operator
        .post(
            &s.url,
            &format!("/sessions/{id}/permissions/perm-1/answer"),
            &[("option_id", "allow")],
        )
        .await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    let entry = &audit(&s, "?action=permission.answer").await[0];
    assert_eq!(
        (&entry["actor"], &entry["role"], &entry["via"]),
        (&json!("ola"), &json!("operator"), &json!("dashboard"))
    );
    let admin = s.web_login().await;
    let (status, trail) = get_page(
        &admin.web,
        &admin.cookie,
        &format!("{}/audit?actor=ola", s.url),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    // (The filter's own list names every action: the rows are read, not the page.)
    for action in ["permission.answer", "login"] {
        assert!(
            trail.contains(&format!("class=\"audit-entry\" data-action=\"{action}\"")),
            "a row of {action}: {trail}"
        );
    }
    assert!(
        trail.contains("id=\"people\"") && trail.contains(">vic</a>"),
        "the people are listed"
    );

    // A new role ends their logins (they log in again as what they are now); removing a person
    // ends their token and their logins at once.
    s.ok(
        Method::PUT,
        "/v1/users/ola",
        Some(json!({ "role": "viewer" })),
    )
    .await;
    let (status, _) = get_page(&operator.web, &operator.cookie, &format!("{}/", s.url)).await;
    assert_eq!(
        status,
        StatusCode::UNAUTHORIZED,
        "the login ended with the role change"
    );
    s.ok(Method::DELETE, "/v1/users/vic", None).await;
    let (status, _) = get_page(&viewer.web, &viewer.cookie, &format!("{}/", s.url)).await;
    assert_eq!(
        status,
        StatusCode::UNAUTHORIZED,
        "the login ended with the person"
    );
    let (status, _) = s
        .call(Method::GET, "/v1/sessions", Some(&vic.token), None)
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "and their token");
    // The admin's own login is untouched by either.
    let (status, _) = get_page(&admin.web, &admin.cookie, &format!("{}/", s.url)).await;
    assert_eq!(status, StatusCode::OK);
    let removed = &audit(&s, "?action=user.remove").await[0];
    assert_eq!(removed["target"], "vic");
    assert_eq!(removed["actor"], "admin");
}
