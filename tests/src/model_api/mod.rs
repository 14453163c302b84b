//! A stand-in for the model APIs that real coding agents call, on
//! 127.0.0.1: Anthropic's Messages API (Claude Code), OpenAI's Responses
//! API (Codex) and Google's Gemini API (Gemini CLI). The real APIs cannot be
//! reached from where the tests run; this answers as they do on the wire
//! (the published request and streaming shapes), with a scripted "model"
//! ([`script`]) instead of a real one. Everything else about each agent is
//! real: its npm package, its tools, its ACP adapter.

mod anthropic;
mod gemini;
mod openai;
pub mod script;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

/// One request the stand-in answered.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    pub path: String,
    /// The API key the agent sent (`x-api-key`, `Authorization: Bearer`,
    /// `x-goog-api-key` or `?key=`).
    pub key: Option<String>,
}

#[derive(Clone)]
struct Shared {
    secret: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    down: Arc<AtomicBool>,
}

/// The running stand-in; stops when dropped.
pub struct ModelApi {
    /// `http://127.0.0.1:PORT`
    pub url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    down: Arc<AtomicBool>,
    server: tokio::task::JoinHandle<()>,
}

impl ModelApi {
    /// Starts the stand-in on a free port; `secret` is what `@secret@`
    /// stands for in prompts.
    pub async fn start(secret: &str) -> ModelApi {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let down = Arc::new(AtomicBool::new(false));
        let shared = Shared {
            secret: secret.to_owned(),
            seen: seen.clone(),
            down: down.clone(),
        };
        let app = Router::new().fallback(answer).with_state(shared);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        ModelApi {
            url,
            seen,
            down,
            server,
        }
    }

    /// An outage (`true`) or its end: while it lasts every model request is
    /// answered with the API's own "overloaded" error (what each API
    /// documents for it: Anthropic's 529 `overloaded_error`, OpenAI's 503
    /// `server_error`, Gemini's 503 `UNAVAILABLE`), as a real model API over
    /// capacity answers.
    pub fn set_down(&self, down: bool) {
        self.down.store(down, Ordering::Release);
    }

    /// The requests answered so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

impl Drop for ModelApi {
    fn drop(&mut self) {
        self.server.abort();
    }
}

async fn answer(State(shared): State<Shared>, request: Request) -> Response {
    let method = request.method().to_string();
    let uri = request.uri().clone();
    let headers = request.headers().clone();
    let body = axum::body::to_bytes(request.into_body(), 64 << 20)
        .await
        .unwrap_or_default();
    let path = uri.path().to_owned();
    let key = api_key(&headers, uri.query());
    shared.seen.lock().unwrap().push(Seen {
        method: method.clone(),
        path: path.clone(),
        key: key.clone(),
    });
    let key = key.unwrap_or_default();
    if method == "HEAD" || method == "GET" {
        // Claude Code's reachability check (`HEAD /`).
        return StatusCode::OK.into_response();
    }
    if shared.down.load(Ordering::Acquire) {
        return overloaded(&path);
    }
    let Ok(request) = serde_json::from_slice::<Value>(&body) else {
        return (StatusCode::BAD_REQUEST, "not JSON").into_response();
    };
    let model = Model {
        secret: &shared.secret,
        key: &key,
    };
    if path.starts_with("/v1/messages") {
        anthropic::answer(&model, &path, &request)
    } else if path.starts_with("/v1/responses") {
        openai::answer(&model, &request)
    } else if path.starts_with("/v1beta/models/") {
        gemini::answer(&model, &path, &request)
    } else {
        (StatusCode::NOT_FOUND, format!("no stand-in for {path}")).into_response()
    }
}

/// Each API's documented answer when it is over capacity.
fn overloaded(path: &str) -> Response {
    let (status, body) = if path.starts_with("/v1/messages") {
        (
            529,
            serde_json::json!({ "type": "error",
                "error": { "type": "overloaded_error", "message": "Overloaded" } }),
        )
    } else if path.starts_with("/v1beta/models/") {
        (
            503,
            serde_json::json!({ "error": { "code": 503,
                "message": "The model is overloaded. Please try again later.",
                "status": "UNAVAILABLE" } }),
        )
    } else {
        (
            503,
            serde_json::json!({ "error": { "message": "The server is overloaded.",
                "type": "server_error", "param": null, "code": null } }),
        )
    };
    (
        StatusCode::from_u16(status).expect("a status"),
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// What the answers are made with: the secrets the prompts may name.
struct Model<'a> {
    secret: &'a str,
    key: &'a str,
}

impl Model<'_> {
    fn answer(&self, conversation: &script::Conversation) -> Vec<script::Step> {
        script::answer(conversation, self.secret, self.key)
    }
}

fn api_key(headers: &HeaderMap, query: Option<&str>) -> Option<String> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    header("x-api-key")
        .or_else(|| header("x-goog-api-key"))
        .or_else(|| {
            header(header::AUTHORIZATION.as_str())
                .and_then(|v| v.strip_prefix("Bearer ").map(str::to_owned))
        })
        .or_else(|| {
            query?
                .split('&')
                .find_map(|kv| kv.strip_prefix("key=").map(str::to_owned))
        })
}

/// A server-sent event stream, whole (the clients read it as it comes).
fn sse(events: Vec<(Option<&str>, Value)>) -> Response {
    let mut body = String::new();
    for (name, data) in events {
        if let Some(name) = name {
            body.push_str("event: ");
            body.push_str(name);
            body.push('\n');
        }
        body.push_str("data: ");
        body.push_str(&data.to_string());
        body.push_str("\n\n");
    }
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Bytes::from(body),
    )
        .into_response()
}

fn json(value: Value) -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        value.to_string(),
    )
        .into_response()
}

/// A tool result as text: a string, or the texts in a list of blocks, or JSON.
fn text_of(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Array(items) => items
            .iter()
            .map(|item| match item.get("text").and_then(Value::as_str) {
                Some(text) => text.to_owned(),
                None => text_of(item),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// A unique enough id for tool calls and messages.
fn id(prefix: &str) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    format!("{prefix}_{:08}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// Whether a user-role text is the agent's own (Claude Code's `<system-reminder>`, Codex's
/// `<environment_context>`: a tag first) rather than the user's prompt. Linear's prompt context
/// also starts with a tag (`<issue …>`), and it is the user's.
fn is_agents_own(text: &str) -> bool {
    let text = text.trim_start();
    text.starts_with('<') && !text.starts_with("<issue")
}
