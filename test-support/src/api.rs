//! One client of Blaise's user API for every crate's tests: calls with or
//! without the admin token, a session's view and whole transcript, and the
//! waits that poll them (a timed-out wait panics with what it saw).

use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// The user API of one control plane, as its admin.
#[derive(Clone)]
pub struct Api {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    pub token: String,
    pub http: reqwest::Client,
}

impl Api {
    pub fn new(url: &str, admin_token: &str) -> Api {
        Api {
            url: url.trim_end_matches('/').to_string(),
            token: admin_token.to_string(),
            http: reqwest::Client::new(),
        }
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// Any call: with `token` (or none), with a JSON body (or none). The
    /// answer's status and body (JSON, or the text as a string).
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let mut req = self.http.request(method, format!("{}{path}", self.url));
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        if let Some(b) = body {
            req = req.json(&b);
        }
        let resp = req
            .send()
            .await
            .unwrap_or_else(|e| panic!("{} does not answer: {e}", self.url));
        let status = resp.status();
        let text = resp.text().await.unwrap_or_default();
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        )
    }

    /// A call as the admin.
    pub async fn admin(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        self.call(method, path, Some(&self.token), body).await
    }

    /// A successful admin call's body; any other answer panics, showing it.
    pub async fn ok(&self, method: Method, path: &str, body: Option<Value>) -> Value {
        let (status, v) = self.admin(method.clone(), path, body).await;
        assert!(status.is_success(), "{method} {path}: {status} {v}");
        v
    }

    /// Opens a session of `agent` with its first message; its id.
    pub async fn new_session(&self, agent: &str, message: &str) -> String {
        let v = self
            .ok(
                Method::POST,
                "/v1/sessions",
                Some(json!({ "agent": agent, "message": message })),
            )
            .await;
        v["id"].as_str().expect("a session id").to_string()
    }

    /// Adds a runner named `name`; its token.
    pub async fn runner_token(&self, name: &str) -> String {
        let v = self
            .ok(Method::POST, "/v1/runners", Some(json!({ "name": name })))
            .await;
        v["token"].as_str().expect("a runner token").to_string()
    }

    pub async fn show(&self, session: &str) -> Value {
        self.ok(Method::GET, &format!("/v1/sessions/{session}"), None)
            .await
    }

    /// The whole transcript (Blaise answers it a page at a time).
    pub async fn transcript(&self, session: &str) -> Vec<Value> {
        let mut all: Vec<Value> = Vec::new();
        loop {
            let after = all.last().and_then(|e| e["index"].as_u64()).unwrap_or(0);
            let page = self
                .ok(
                    Method::GET,
                    &format!("/v1/sessions/{session}/transcript?after={after}&wait_ms=0"),
                    None,
                )
                .await;
            let entries = page["entries"].as_array().cloned().unwrap_or_default();
            if entries.is_empty() {
                return all;
            }
            all.extend(entries);
        }
    }

    /// Answers the session's permission request nobody has answered yet with its `allow_once`
    /// option: the request answered, or `None` when none is pending (or it offers no such
    /// option).
    pub async fn allow_pending(&self, session: &str) -> Option<Value> {
        let view = self.show(session).await;
        let asked = view["permission_requests"]
            .as_array()?
            .iter()
            .find(|p| p["state"] == "pending")?
            .clone();
        let allow = asked["request"]["options"]
            .as_array()?
            .iter()
            .find(|o| o["kind"] == "allow_once")?["option_id"]
            .clone();
        let path = format!(
            "/v1/sessions/{session}/permissions/{}/answer",
            asked["request_id"].as_str()?
        );
        self.ok(Method::POST, &path, Some(json!({ "option_id": allow })))
            .await;
        Some(asked)
    }

    /// The texts of the transcript's notices (Blaise's and the runner's), in order.
    pub async fn notices(&self, session: &str) -> Vec<String> {
        self.transcript(session)
            .await
            .iter()
            .filter(|e| e["kind"] == "notice")
            .map(|e| e["content"]["text"].as_str().unwrap_or("").to_string())
            .collect()
    }

    /// The transcript's text, one line per entry: `kind: text`, chunks of a
    /// stream joined.
    pub async fn transcript_text(&self, session: &str) -> String {
        let mut out = String::new();
        let mut open: Option<String> = None;
        for e in self.transcript(session).await {
            let text = e["content"]["text"].as_str().unwrap_or_default();
            let stream = e["content"]["stream"].as_str().map(str::to_string);
            if stream.is_some() && stream == open {
                out.push_str(text);
            } else {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(&format!(
                    "{}: {text}",
                    e["kind"].as_str().unwrap_or_default()
                ));
            }
            open = if e["content"]["last"].as_bool() == Some(false) {
                stream
            } else {
                None
            };
        }
        out
    }

    /// Polls the session view until `ready` holds; panics with the view and
    /// the transcript after `timeout`.
    pub async fn wait_for(
        &self,
        session: &str,
        what: &str,
        timeout: Duration,
        ready: impl Fn(&Value) -> bool,
    ) -> Value {
        let start = Instant::now();
        loop {
            let view = self.show(session).await;
            if ready(&view) {
                return view;
            }
            if start.elapsed() > timeout {
                panic!(
                    "timed out waiting for {what}; session:\n{}\ntranscript:\n{}",
                    serde_json::to_string_pretty(&view).unwrap_or_default(),
                    self.transcript_text(session).await
                );
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Waits until the transcript contains `needle`; the transcript's text.
    pub async fn wait_for_text(&self, session: &str, needle: &str, timeout: Duration) -> String {
        let start = Instant::now();
        loop {
            let text = self.transcript_text(session).await;
            if text.contains(needle) {
                return text;
            }
            if start.elapsed() > timeout {
                panic!("timed out waiting for `{needle}` in the transcript:\n{text}");
            }
            tokio::time::sleep(POLL_TRANSCRIPT).await;
        }
    }
}

/// How often a wait reads the session's view again: often enough for the
/// control tests' millisecond timings, cheap against a local server.
const POLL: Duration = Duration::from_millis(20);

/// How often a wait reads the whole transcript again (many pages, for a long one).
const POLL_TRANSCRIPT: Duration = Duration::from_millis(100);
