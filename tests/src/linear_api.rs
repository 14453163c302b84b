//! A stand-in for Linear's API, for tests and benchmarks (Linear cannot be reached from here),
//! as its published documents describe it ("Developing the Agent Interaction", "Signals",
//! "Webhooks", the OAuth guide, the SDK's `schema.graphql`): `agentActivityCreate` takes
//! `{agentSessionId, content, ephemeral?, signal?, signalMetadata?, id?}` and refuses a content of
//! the wrong shape, an ephemeral response, an unknown field or an id used before;
//! `agentSessionUpdate` takes `externalUrls: [{label, url}]`; the issue queries and `issueUpdate`
//! an agent uses to move a delegated issue; a rate limit is a GraphQL error with
//! `extensions.code: "RATELIMITED"` and the reset in `X-RateLimit-Requests-Reset` (ms since the
//! epoch); a token is sent as `Bearer`, an app token is given for client credentials (Basic auth,
//! `grant_type=client_credentials`), one valid at a time. Its webhooks are sent as Linear sends
//! them: the raw body signed in `Linear-Signature` (hex HMAC-SHA256 with the webhook secret), a
//! `Linear-Delivery` UUID, `webhookTimestamp` in ms.
//!
//! One file for both the control plane's tests (which include it by path) and `blaise-tests`.

#![allow(dead_code)]

use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode as AxumStatus};
use axum::response::IntoResponse;
use blaise_control::sources::Sources;
use blaise_control::sources::linear::App;
use blaise_control::sources::linear::config::{AppConfig, Auth};
use hmac::{Hmac, Mac};
use reqwest::StatusCode;
use serde_json::{Value, json};
use sha2::Sha256;

pub const SECRET: &str = "whsec-test-0123";
pub const TOKEN: &str = "lin_oauth_test_token";

#[derive(Default)]
pub struct Recorded {
    /// `(agentSessionId, input)` of each activity Linear took, in order.
    pub activities: Vec<(String, Value)>,
    /// `(agent session, externalUrls)`.
    pub links: Vec<(String, Value)>,
    pub ids: HashSet<String>,
    /// What the next calls are answered with instead: `429` (rate limited, reset in 300 ms) or
    /// another status.
    pub failures: VecDeque<u16>,
    /// Answer every call with 503 while set (Linear away).
    pub down: bool,
    /// When the last rate limit resets, and when the first call after it came.
    pub reset_at: Option<i64>,
    pub retried_at: Option<i64>,
    /// Issues by id: `{state: {id, type}, delegate: {id}|null, team: {id}}`.
    pub issues: std::collections::HashMap<String, Value>,
    /// `(id, state)` of each issueUpdate.
    pub moves: Vec<(String, String)>,
    /// The app token the client credentials were last given (the only one valid), and how
    /// many were asked for.
    pub app_token: Option<String>,
    pub tokens_given: usize,
}

#[derive(Clone)]
pub struct StandIn {
    pub url: String,
    pub seen: Arc<Mutex<Recorded>>,
}

pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

impl StandIn {
    pub async fn start() -> StandIn {
        let seen = Arc::new(Mutex::new(Recorded::default()));
        {
            let mut seen = seen.lock().unwrap();
            for (id, state, delegate) in [
                ("issue-1", "unstarted", None),
                ("issue-9", "unstarted", Some("app-user-1")),
                ("issue-10", "started", Some("app-user-1")),
            ] {
                seen.issues.insert(
                    id.into(),
                    json!({ "id": id, "state": { "id": format!("s-{state}"), "type": state },
                            "delegate": delegate.map(|d| json!({ "id": d })), "team": { "id": "team-1" } }),
                );
            }
        }
        let app = axum::Router::new()
            .route("/graphql", axum::routing::post(graphql))
            .route("/oauth/token", axum::routing::post(oauth_token))
            .with_state(seen.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/graphql", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        StandIn { url, seen }
    }

    pub fn app(&self, name: &str, agent: &str) -> Sources {
        Sources {
            linear: vec![Arc::new(App::new(AppConfig {
                name: name.into(),
                agent: agent.into(),
                webhook_secret: SECRET.into(),
                auth: Auth::Token(TOKEN.into()),
                public_url: Some("https://blaise.example.com".into()),
                api_url: self.url.clone(),
            }))],
        }
    }

    pub fn activities(&self, session: &str) -> Vec<Value> {
        let seen = self.seen.lock().unwrap();
        seen.activities
            .iter()
            .filter(|(s, _)| s == session)
            .map(|(_, a)| a.clone())
            .collect()
    }

    /// Waits for an activity of the agent session whose body contains `words`; returns it.
    pub async fn wait_body(&self, session: &str, words: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let got = self.activities(session);
            if let Some(a) = got.iter().find(|a| {
                a["content"]["body"]
                    .as_str()
                    .is_some_and(|b| b.contains(words))
            }) {
                return a.clone();
            }
            assert!(
                Instant::now() < deadline,
                "{session}: no activity says {words:?}: {got:#?}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Waits until the agent session has `n` activities; returns them.
    pub async fn wait_activities(&self, session: &str, n: usize) -> Vec<Value> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let got = self.activities(session);
            if got.len() >= n {
                return got;
            }
            assert!(
                Instant::now() < deadline,
                "{session}: {} activities, waited for {n}: {got:#?}",
                got.len()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

pub fn graphql_error(status: AxumStatus, message: &str, code: &str) -> axum::response::Response {
    (
        status,
        axum::Json(json!({ "errors": [{ "message": message, "extensions": { "code": code } }] })),
    )
        .into_response()
}

/// The activity input's rules, from "Developing the Agent Interaction" and "Signals".
pub fn check_activity(input: &Value) -> Result<(), String> {
    let allowed = [
        "agentSessionId",
        "content",
        "ephemeral",
        "signal",
        "signalMetadata",
        "id",
    ];
    for key in input.as_object().ok_or("input is not an object")?.keys() {
        if !allowed.contains(&key.as_str()) {
            return Err(format!("unknown field {key}"));
        }
    }
    input["agentSessionId"]
        .as_str()
        .ok_or("no agentSessionId")?;
    let id = input["id"].as_str().unwrap_or("");
    if !id.is_empty() && (id.len() != 36 || id.matches('-').count() != 4) {
        return Err(format!("id {id} is not a UUID"));
    }
    let c = &input["content"];
    let kind = c["type"].as_str().ok_or("content.type is missing")?;
    let text = |k: &str| c[k].as_str().is_some_and(|v| !v.is_empty());
    match kind {
        "thought" | "elicitation" | "response" | "error" if text("body") => {}
        "action" if text("action") && text("parameter") => {}
        "prompt" => return Err("an agent cannot create a prompt".into()),
        _ => return Err(format!("content of type {kind} is invalid: {c}")),
    }
    if input["ephemeral"].as_bool() == Some(true) && !matches!(kind, "thought" | "action") {
        return Err("only thoughts and actions may be ephemeral".into());
    }
    match input["signal"].as_str() {
        None => {}
        Some("select") => {
            let options = input["signalMetadata"]["options"]
                .as_array()
                .ok_or("select without signalMetadata.options")?;
            if options.iter().any(|o| o["value"].as_str().is_none()) {
                return Err("a select option without a value".into());
            }
        }
        Some("auth" | "continue") => {}
        Some(other) => return Err(format!("an agent cannot send the signal {other}")),
    }
    Ok(())
}

pub async fn graphql(
    State(seen): State<Arc<Mutex<Recorded>>>,
    headers: HeaderMap,
    axum::Json(body): axum::Json<Value>,
) -> axum::response::Response {
    let mut seen = seen.lock().unwrap();
    if seen.down {
        return AxumStatus::SERVICE_UNAVAILABLE.into_response();
    }
    if let (Some(reset), None) = (seen.reset_at, seen.retried_at) {
        seen.retried_at = Some(now_ms());
        let _ = reset;
    }
    match seen.failures.pop_front() {
        Some(429) => {
            let reset = now_ms() + 300;
            seen.reset_at = Some(reset);
            seen.retried_at = None;
            let mut r = graphql_error(
                AxumStatus::BAD_REQUEST,
                "Rate limit exceeded",
                "RATELIMITED",
            );
            r.headers_mut().insert(
                "x-ratelimit-requests-reset",
                reset.to_string().parse().unwrap(),
            );
            return r;
        }
        Some(status) => {
            return AxumStatus::from_u16(status).unwrap().into_response();
        }
        None => {}
    }
    let authorization = headers.get("authorization").and_then(|v| v.to_str().ok());
    let app_token = seen.app_token.as_ref().map(|t| format!("Bearer {t}"));
    if authorization != Some(&format!("Bearer {TOKEN}")) && authorization != app_token.as_deref() {
        return graphql_error(
            AxumStatus::UNAUTHORIZED,
            "Authentication required",
            "AUTHENTICATION_ERROR",
        );
    }
    let query = body["query"].as_str().unwrap_or("");
    let vars = &body["variables"];
    if query.contains("agentActivityCreate(input: $input)") {
        let input = &vars["input"];
        if let Err(e) = check_activity(input) {
            return graphql_error(AxumStatus::BAD_REQUEST, &e, "INVALID_INPUT");
        }
        let id = input["id"].as_str().unwrap_or("").to_string();
        if !id.is_empty() && !seen.ids.insert(id) {
            return graphql_error(
                AxumStatus::BAD_REQUEST,
                "Entity already exists",
                "INVALID_INPUT",
            );
        }
        let session = input["agentSessionId"].as_str().unwrap().to_string();
        seen.activities.push((session, input.clone()));
        return axum::Json(json!({ "data": { "agentActivityCreate": {
            "success": true, "agentActivity": { "id": input["id"] } } } }))
        .into_response();
    }
    if query.contains("agentSessionUpdate(id: $id, input: $input)") {
        let urls = &vars["input"]["externalUrls"];
        let ok = urls.as_array().is_some_and(|u| {
            u.iter()
                .all(|l| l["label"].as_str().is_some() && l["url"].as_str().is_some())
        });
        if !ok {
            return graphql_error(
                AxumStatus::BAD_REQUEST,
                "externalUrls: [{label, url}]",
                "INVALID_INPUT",
            );
        }
        let session = vars["id"].as_str().unwrap_or("").to_string();
        seen.links.push((session, urls.clone()));
        return axum::Json(json!({ "data": { "agentSessionUpdate": { "success": true } } }))
            .into_response();
    }
    if query.contains("issue(id: $id)") {
        let issue = seen.issues.get(vars["id"].as_str().unwrap_or("")).cloned();
        return match issue {
            Some(issue) => axum::Json(json!({ "data": { "issue": issue } })).into_response(),
            None => graphql_error(
                AxumStatus::BAD_REQUEST,
                "Entity not found: Issue",
                "INVALID_INPUT",
            ),
        };
    }
    if query.contains("team(id: $teamId)") && query.contains("type: { eq: \"started\" }") {
        // Not in position order, as Linear does not promise one.
        return axum::Json(json!({ "data": { "team": { "states": { "nodes": [
            { "id": "st-review", "name": "In Review", "position": 2.0 },
            { "id": "st-progress", "name": "In Progress", "position": 1.0 },
        ] } } } }))
        .into_response();
    }
    if query.contains("issueUpdate(id: $id, input: $input)") {
        let (id, state) = (
            vars["id"].as_str().unwrap_or("").to_string(),
            vars["input"]["stateId"].as_str().unwrap_or("").to_string(),
        );
        if let Some(issue) = seen.issues.get_mut(&id) {
            issue["state"] = json!({ "id": state, "type": "started" });
        }
        seen.moves.push((id, state));
        return axum::Json(json!({ "data": { "issueUpdate": { "success": true } } }))
            .into_response();
    }
    graphql_error(
        AxumStatus::BAD_REQUEST,
        "unknown operation",
        "GRAPHQL_VALIDATION_FAILED",
    )
}

/// Linear's token endpoint, for the client credentials grant: Basic auth with the client's id
/// and secret, `grant_type=client_credentials`; one app token valid at a time.
pub async fn oauth_token(
    State(seen): State<Arc<Mutex<Recorded>>>,
    headers: HeaderMap,
    body: String,
) -> axum::response::Response {
    use base64::Engine;
    let basic = base64::engine::general_purpose::STANDARD.encode("client-1:client-secret-1");
    let authorized = headers.get("authorization").and_then(|v| v.to_str().ok())
        == Some(&format!("Basic {basic}"));
    if !authorized
        || !body
            .split('&')
            .any(|p| p == "grant_type=client_credentials")
    {
        return (
            AxumStatus::BAD_REQUEST,
            axum::Json(json!({ "error": "invalid_client", "error_description": "Invalid client credentials" })),
        )
            .into_response();
    }
    let mut seen = seen.lock().unwrap();
    seen.tokens_given += 1;
    let token = format!("lin_app_token_{}", seen.tokens_given);
    seen.app_token = Some(token.clone());
    axum::Json(json!({ "access_token": token, "token_type": "Bearer", "expires_in": 2591999, "scope": "read write app:assignable app:mentionable" }))
        .into_response()
}

pub fn created(agent_session: &str, comment: &str) -> Value {
    created_on(agent_session, comment, "issue-1")
}

pub fn created_on(agent_session: &str, comment: &str, issue: &str) -> Value {
    json!({
        "type": "AgentSessionEvent",
        "action": "created",
        "createdAt": "2026-12-01T10:00:00.000Z",
        "organizationId": "org-1",
        "oauthClientId": "client-1",
        "appUserId": "app-user-1",
        "webhookId": "webhook-1",
        "webhookTimestamp": now_ms(),
        "agentSession": {
            "id": agent_session,
            "appUserId": "app-user-1",
            "status": "pending",
            "issue": {
                "id": issue,
                "identifier": "ENG-123",
                "title": "Fix the flaky parser test",
                "url": "https://linear.app/acme/issue/ENG-123/fix-the-flaky-parser-test",
                "teamId": "team-1",
                "team": { "id": "team-1", "key": "ENG", "name": "Engineering" }
            },
            "comment": { "id": "comment-1", "body": comment },
            "creator": { "id": "user-1", "name": "Ada" }
        },
        "promptContext": format!("<issue identifier=\"ENG-123\"><title>Fix the flaky parser test</title></issue>\n<primary-directive-thread><comment author=\"Ada\">{comment}</comment></primary-directive-thread>"),
        "previousComments": [],
        "guidance": []
    })
}

pub fn prompted(agent_session: &str, activity: &str, words: &str, signal: Option<&str>) -> Value {
    json!({
        "type": "AgentSessionEvent",
        "action": "prompted",
        "createdAt": "2026-12-01T10:01:00.000Z",
        "organizationId": "org-1",
        "oauthClientId": "client-1",
        "appUserId": "app-user-1",
        "webhookId": "webhook-1",
        "webhookTimestamp": now_ms(),
        "agentSession": { "id": agent_session, "status": "active" },
        "agentActivity": {
            "id": activity,
            "agentSessionId": agent_session,
            "content": { "type": "prompt", "body": words },
            "signal": signal,
            "userId": "user-1"
        }
    })
}

pub fn sign(body: &[u8], secret: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(body);
    hex::encode(mac.finalize().into_bytes())
}

pub static DELIVERIES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

pub fn delivery() -> String {
    let n = DELIVERIES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("00000000-0000-4000-8000-{n:012}")
}

/// Sends `event` as Linear does; returns the status Blaise answered with.
/// The Blaise session a Linear agent session opened (from the link Blaise gave Linear).
pub async fn session_of(linear: &StandIn, agent_session: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let link = linear
            .seen
            .lock()
            .unwrap()
            .links
            .iter()
            .find(|(s, _)| s == agent_session)
            .map(|(_, l)| l[0]["url"].as_str().unwrap().to_string());
        if let Some(url) = link {
            return url.rsplit('/').next().unwrap().to_string();
        }
        assert!(Instant::now() < deadline, "no link for {agent_session}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

pub fn kinds(activities: &[Value]) -> Vec<String> {
    activities
        .iter()
        .map(|a| a["content"]["type"].as_str().unwrap().to_string())
        .collect()
}

/// Sends `event` as Linear does to app `coder` of the server at `base`; returns its answer's status.
pub async fn post_webhook(
    http: &reqwest::Client,
    base: &str,
    event: &Value,
    delivery: &str,
    secret: &str,
) -> StatusCode {
    let body = serde_json::to_vec(event).unwrap();
    http.post(format!("{base}/v1/sources/linear/coder"))
        .header("content-type", "application/json; charset=utf-8")
        .header("linear-delivery", delivery)
        .header("linear-event", "AgentSessionEvent")
        .header("linear-signature", sign(&body, secret))
        .header("user-agent", "Linear-Webhook")
        .body(body)
        .send()
        .await
        .unwrap()
        .status()
}
