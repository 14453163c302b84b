//! The control plane's parsing of reports and user requests, end to end in
//! process: the real router over a real SQLite store, one request per input
//! through `tower::ServiceExt::oneshot`. State accumulates across inputs
//! (that is the point): a scenario of valid calls keeps a live session, run,
//! environment and permission request around for the inputs to aim at.
//!
//! An input is a request in a small text form:
//!
//! ```text
//! POST /v1/runner/runs/{run}/reports runner
//! content-type: application/json
//!
//! {"report_id": "r-1", "kind": "started"}
//! ```
//!
//! The first line is the method, the path and who asks (`runner`, `admin`,
//! `cookie`, `none`, or the literal `Authorization` value); header lines
//! follow up to a blank line, then the body. `{run}`, `{session}`, `{env}`,
//! `{request}`, `{agent}`, `{runner}`, `{old_run}`, `{old_session}`,
//! `{admin}` and `{csrf}` (the dashboard login's form token) are replaced by
//! the real values of the moment.

use std::sync::{Arc, Mutex};

use arbitrary::{Arbitrary, Result, Unstructured};
use axum::Router;
use axum::body::Body;
use axum::http::{HeaderName, HeaderValue, Method, Request, StatusCode, Uri};
use blaise_control::auth::{hash_token, new_token};
use blaise_control::config::Config;
use blaise_control::http::{AppState, router};
use blaise_control::store::sqlite::SqliteStore;
use serde_json::{Value, json};
use tower::ServiceExt as _;

use super::{Outcome, Target};
use crate::shapes::{Field, Json, Number, Obj, Word, words};

/// The agent every scenario session runs.
const AGENT: &str = "fuzz";
/// Scenario calls between inputs: often enough that most inputs meet a live
/// run, rarely enough that inputs also meet what earlier inputs left.
const REFRESH_EVERY: u64 = 40;

pub struct ControlRequests {
    harness: Option<Harness>,
    inputs: u64,
}

impl ControlRequests {
    pub fn new() -> ControlRequests {
        ControlRequests {
            harness: None,
            inputs: 0,
        }
    }
}

impl Default for ControlRequests {
    fn default() -> Self {
        ControlRequests::new()
    }
}

impl Target for ControlRequests {
    fn name(&self) -> &'static str {
        "control_requests"
    }

    fn generate(&mut self, u: &mut Unstructured) -> Result<Vec<u8>> {
        Ok(u.arbitrary::<RequestShape>()?.render())
    }

    fn run(&mut self, input: &[u8]) -> Outcome {
        let harness = self.harness.get_or_insert_with(Harness::new);
        if self.inputs.is_multiple_of(REFRESH_EVERY) {
            harness.refresh(self.inputs / REFRESH_EVERY);
        }
        self.inputs += 1;
        let mut problems = harness.take_problems();
        if let Some(problem) = harness.send_input(input) {
            problems.push(problem);
        }
        if problems.is_empty() {
            Outcome::Ok
        } else {
            Outcome::ServerError(problems.join("\n"))
        }
    }

    fn reset(&mut self) {
        // After a panic the store may hold a half-made state; start again.
        self.harness = None;
    }

    fn stats(&self) -> Option<String> {
        let harness = self.harness.as_ref()?;
        let answers: Vec<String> = harness
            .answers
            .iter()
            .map(|(status, n)| format!("{status}×{n}"))
            .collect();
        Some(format!(
            "answers: {}; scenario sessions started: {}",
            answers.join(" "),
            harness.sessions_started
        ))
    }
}

/// The real values placeholders stand for.
#[derive(Debug, Clone, Default)]
struct Ids {
    run: String,
    session: String,
    env: String,
    request: String,
    old_run: String,
    old_session: String,
}

struct Harness {
    rt: tokio::runtime::Runtime,
    state: AppState,
    router: Router,
    admin: String,
    /// The dashboard login's cookie id, and its CSRF token.
    login: String,
    csrf: String,
    runner: String,
    runner_token: String,
    runners_made: u32,
    ids: Ids,
    /// Errors the control plane logged (the clock's, a store's) since the
    /// last input: the log is the only place they show.
    logged: Arc<Mutex<Vec<String>>>,
    /// Problems of the scenario calls, reported with the next input.
    problems: Vec<String>,
    /// The inputs' answers by status, and how often the scenario got a run
    /// started: evidence that inputs reach the handlers.
    answers: std::collections::BTreeMap<u16, u64>,
    sessions_started: u64,
    _dir: tempfile::TempDir,
}

impl Harness {
    fn new() -> Harness {
        // tmpfs when there is one: the store's fsyncs are not under test.
        let dir = match std::path::Path::new("/dev/shm").is_dir() {
            true => tempfile::tempdir_in("/dev/shm"),
            false => tempfile::tempdir(),
        }
        .expect("a temporary directory");
        let store = SqliteStore::open(&dir.path().join("blaise.db")).expect("a SQLite store");
        // Long polls and close's wait answer at once: inputs must not sleep.
        let cfg = Config {
            long_poll_max_ms: 0,
            close_wait_ms: 0,
            ..Config::default()
        };
        let state = AppState::new(Arc::new(store), cfg);
        let admin = new_token("bla_");
        state
            .write_blocking(|ctx| Ok(ctx.tx.set_admin_token_hash(&hash_token(&admin))?))
            .expect("the admin token is stored");
        // A person logged in to the dashboard: inputs with the cookie send its id, and `{csrf}`
        // in a body is its forms' token.
        let (login, csrf) = state
            .write_blocking(|ctx| {
                let admin = blaise_control::model::Actor::new(
                    blaise_control::model::BUILT_IN_ADMIN,
                    blaise_control::model::Role::Admin,
                    blaise_control::model::Channel::Dashboard,
                );
                blaise_control::lifecycle::logins::begin(
                    ctx,
                    &admin,
                    blaise_control::model::LoginMethod::Token,
                    &[],
                )
                .map(|(id, l)| (id, l.csrf))
            })
            .expect("a dashboard login");
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime");
        let logged = Arc::new(Mutex::new(Vec::new()));
        let mut harness = Harness {
            rt,
            router: router(state.clone()),
            state,
            admin,
            login,
            csrf,
            runner: String::new(),
            runner_token: String::new(),
            runners_made: 0,
            ids: Ids::default(),
            logged,
            problems: Vec::new(),
            answers: Default::default(),
            sessions_started: 0,
            _dir: dir,
        };
        harness.new_runner();
        // A runner name inputs may revoke without stopping the scenario.
        harness.call("POST", "/v1/runners", Auth::Admin, json!({"name": "spare"}));
        harness
    }

    fn take_problems(&mut self) -> Vec<String> {
        let mut problems = std::mem::take(&mut self.problems);
        problems.extend(self.logged.lock().expect("log").drain(..));
        problems
    }

    fn new_runner(&mut self) {
        self.runners_made += 1;
        let name = format!("fuzz-runner-{}", self.runners_made);
        let (_, answer) = self.call("POST", "/v1/runners", Auth::Admin, json!({ "name": name }));
        if let Some(token) = answer["token"].as_str() {
            self.runner = name;
            self.runner_token = token.to_string();
        }
    }

    /// A valid request of the scenario; its 5xx are bugs like any other.
    fn call(&mut self, method: &str, path: &str, auth: Auth, body: Value) -> (StatusCode, Value) {
        let mut request = Request::builder()
            .method(method)
            .uri(path)
            .header("content-type", "application/json");
        match auth {
            Auth::Admin => {
                request = request.header("authorization", format!("Bearer {}", self.admin))
            }
            Auth::Runner => {
                request = request.header("authorization", format!("Bearer {}", self.runner_token))
            }
        }
        let body = if body.is_null() {
            Body::empty()
        } else {
            Body::from(body.to_string())
        };
        let (status, bytes) = self.send(request.body(body).expect("a valid request"));
        if status.is_server_error() {
            self.problems.push(format!(
                "scenario: {method} {path} answered {status}: {}",
                String::from_utf8_lossy(&bytes)
            ));
        }
        (
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
    }

    fn send(&self, request: Request<Body>) -> (StatusCode, Vec<u8>) {
        let logged = self.logged.clone();
        let _log = tracing::subscriber::set_default(ErrorLog(logged));
        self.rt.block_on(async {
            let response = match self.router.clone().oneshot(request).await {
                Ok(response) => response,
                Err(never) => match never {},
            };
            let status = response.status();
            let body = axum::body::to_bytes(response.into_body(), 4 << 20)
                .await
                .map(|b| b.to_vec())
                .unwrap_or_else(|e| format!("<unreadable body: {e}>").into_bytes());
            (status, body)
        })
    }

    /// Keeps a live session and run around: the agent enabled, a runner that
    /// is not revoked and connected, a new session whose run is accepted and
    /// started, with an ACP session, plug state, a transcript and a pending
    /// permission request. Now and then the clock runs, later and later.
    fn refresh(&mut self, round: u64) {
        self.call(
            "PUT",
            &format!("/v1/agents/{AGENT}"),
            Auth::Admin,
            json!({"disabled": false, "idle_policy": "pause", "inactivity_ms": 600000,
                   "paused_lifetime_ms": 86400000, "timeout_ms": 7200000}),
        );
        let (status, _) = self.call(
            "GET",
            "/v1/runner/offers?instance=fuzz-1",
            Auth::Runner,
            Value::Null,
        );
        if status == StatusCode::UNAUTHORIZED {
            self.new_runner();
        }
        self.call(
            "POST",
            "/v1/runner/connect",
            Auth::Runner,
            json!({"instance": "fuzz-1", "agents": [AGENT]}),
        );
        let (_, session) = self.call(
            "POST",
            "/v1/sessions",
            Auth::Admin,
            json!({"agent": AGENT, "message": "fix the build"}),
        );
        let Some(session) = session["id"].as_str().map(str::to_string) else {
            return;
        };
        let (_, offers) = self.call(
            "GET",
            "/v1/runner/offers?instance=fuzz-1",
            Auth::Runner,
            Value::Null,
        );
        let mut run = None;
        // Take every offer: resume and teardown runs of older sessions too.
        for offer in offers["offers"].as_array().cloned().unwrap_or_default() {
            let Some(id) = offer["run_id"].as_str() else {
                continue;
            };
            let (_, assignment) = self.call(
                "POST",
                &format!("/v1/runner/runs/{id}/accept"),
                Auth::Runner,
                json!({"instance": "fuzz-1"}),
            );
            if offer["session_id"].as_str() == Some(session.as_str()) {
                run = Some((
                    id.to_string(),
                    assignment["environment_id"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string(),
                ));
            }
        }
        let Some((run, env)) = run else {
            return;
        };
        let at = |path: &str| format!("/v1/runner/runs/{run}/{path}");
        for (n, report) in [
            json!({"kind": "accepted"}),
            json!({"kind": "plugs_can_resume", "can_resume": true, "plugs_that_cannot": [], "chain": ["checkout", "redaction"]}),
            json!({"kind": "started"}),
        ]
        .into_iter()
        .enumerate()
        {
            let mut report = report;
            report["report_id"] = format!("setup-{round}-{n}").into();
            self.call("POST", &at("reports"), Auth::Runner, report);
        }
        self.call(
            "PUT",
            &at("acp-session"),
            Auth::Runner,
            json!({"acp_session_id": format!("acp-{round}")}),
        );
        self.call(
            "PUT",
            &at("plug-state/checkout"),
            Auth::Runner,
            json!({"entries": {"workspace": "/work/ses", "commit": "6ab5b0"}}),
        );
        self.call(
            "POST",
            &at("transcript"),
            Auth::Runner,
            json!({"entries": [
                {"seq": 1, "kind": "agent_message", "content": {"text": "Looking at the build"}},
                {"seq": 2, "kind": "tool_call", "content": {"text": "cargo build"}}]}),
        );
        self.call(
            "POST",
            &at("permissions"),
            Auth::Runner,
            json!({"request_id": "perm-1", "request": {"sessionId": "acp-1",
                   "toolCall": {"toolCallId": "t1", "title": "rm -rf target"},
                   "options": [{"optionId": "allow", "name": "Allow", "kind": "allow_once"}]}}),
        );
        self.call(
            "GET",
            &format!("/v1/runner/runs/{run}/directives?after=0"),
            Auth::Runner,
            Value::Null,
        );
        self.sessions_started += 1;
        self.ids = Ids {
            old_run: std::mem::take(&mut self.ids.run),
            old_session: std::mem::take(&mut self.ids.session),
            run,
            session,
            env,
            request: "perm-1".into(),
        };
        if round % 4 == 3 {
            // Later and later: runs time out, sessions idle, pause and expire.
            let ahead = [
                61_000,
                11 * 60_000,
                2 * 3_600_000 + 1,
                25 * 3_600_000,
                8 * 86_400_000,
            ];
            let now = blaise_control::model::now() + ahead[(round / 4) as usize % ahead.len()];
            let logged = self.logged.clone();
            let _log = tracing::subscriber::set_default(ErrorLog(logged));
            if let Err(e) = blaise_control::clock::tick(&*self.state.store, &self.state.cfg, now) {
                self.problems.push(format!("clock tick: {e}"));
            }
        }
    }

    fn substitute(&self, bytes: &[u8]) -> Vec<u8> {
        let ids = &self.ids;
        let pairs: [(&str, &str); 10] = [
            ("{run}", &ids.run),
            ("{session}", &ids.session),
            ("{env}", &ids.env),
            ("{request}", &ids.request),
            ("{old_run}", &ids.old_run),
            ("{old_session}", &ids.old_session),
            ("{agent}", AGENT),
            ("{runner}", &self.runner),
            ("{admin}", &self.admin),
            ("{csrf}", &self.csrf),
        ];
        let mut out = bytes.to_vec();
        for (from, to) in pairs {
            out = replace(&out, from.as_bytes(), to.as_bytes());
        }
        out
    }

    /// Sends one input; a 5xx or a panic is a bug.
    fn send_input(&mut self, input: &[u8]) -> Option<String> {
        let parsed = Parsed::from(input);
        let method = Method::from_bytes(&parsed.method).ok()?;
        let path = percent_encode(&self.substitute(&parsed.path));
        let uri = Uri::try_from(path.as_str()).ok()?;
        let mut request = Request::builder().method(method.clone()).uri(uri);
        let mut content_type = false;
        for (name, value) in &parsed.headers {
            let (Ok(name), Ok(value)) = (
                HeaderName::from_bytes(name),
                HeaderValue::from_bytes(&self.substitute(value)),
            ) else {
                continue;
            };
            // Framing is the HTTP server's business, before any handler.
            if name == "content-length" || name == "transfer-encoding" || name == "host" {
                continue;
            }
            content_type |= name == "content-type";
            request = request.header(name, value);
        }
        if !content_type {
            request = request.header("content-type", "application/json");
        }
        let authorization = match parsed.auth.as_slice() {
            b"runner" => Some(format!("Bearer {}", self.runner_token).into_bytes()),
            b"admin" => Some(format!("Bearer {}", self.admin).into_bytes()),
            b"cookie" => {
                let cookie = format!("blaise_session={}", self.login);
                request = request.header("cookie", cookie);
                None
            }
            b"none" | b"" => None,
            other => Some(self.substitute(other)),
        };
        if let Some(Ok(value)) = authorization.map(|a| HeaderValue::from_bytes(&a)) {
            request = request.header("authorization", value);
        }
        let request = request
            .body(Body::from(self.substitute(&parsed.body)))
            .ok()?;
        let (status, body) = self.send(request);
        *self.answers.entry(status.as_u16()).or_default() += 1;
        status.is_server_error().then(|| {
            format!(
                "{method} {path} answered {status}: {}",
                String::from_utf8_lossy(&body)
            )
        })
    }
}

#[derive(Clone, Copy)]
enum Auth {
    Admin,
    Runner,
}

/// Collects the ERROR events the control plane logs while a call runs.
struct ErrorLog(Arc<Mutex<Vec<String>>>);

impl tracing::Subscriber for ErrorLog {
    fn enabled(&self, metadata: &tracing::Metadata<'_>) -> bool {
        *metadata.level() == tracing::Level::ERROR
    }

    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }

    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}

    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}

    fn event(&self, event: &tracing::Event<'_>) {
        struct Text(String);
        impl tracing::field::Visit for Text {
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                self.0.push_str(&format!(" {}={value:?}", field.name()));
            }
        }
        let mut text = Text(format!("logged error at {}:", event.metadata().target()));
        event.record(&mut text);
        self.0.lock().expect("log").push(text.0);
    }

    fn enter(&self, _: &tracing::span::Id) {}

    fn exit(&self, _: &tracing::span::Id) {}
}

/// An input split into its parts (see the module's doc).
struct Parsed {
    method: Vec<u8>,
    path: Vec<u8>,
    auth: Vec<u8>,
    headers: Vec<(Vec<u8>, Vec<u8>)>,
    body: Vec<u8>,
}

impl Parsed {
    fn from(input: &[u8]) -> Parsed {
        let (head, body) = match find(input, b"\n\n") {
            Some(at) => (&input[..at], &input[at + 2..]),
            None => (input, &b""[..]),
        };
        let mut lines = head.split(|&b| b == b'\n');
        let first = lines.next().unwrap_or_default();
        let mut parts = first.splitn(3, |&b| b == b' ');
        let method = parts.next().unwrap_or_default().to_vec();
        let path = parts.next().unwrap_or_default().to_vec();
        let auth = parts.next().unwrap_or_default().to_vec();
        let headers = lines
            .filter_map(|line| {
                let at = line.iter().position(|&b| b == b':')?;
                Some((line[..at].to_vec(), line[at + 1..].trim_ascii().to_vec()))
            })
            .collect();
        Parsed {
            method,
            path,
            auth,
            headers,
            body: body.to_vec(),
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn replace(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut rest = bytes;
    while let Some(at) = find(rest, from) {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(to);
        rest = &rest[at + from.len()..];
    }
    out.extend_from_slice(rest);
    out
}

/// The path as a client would send it: what a URI cannot carry is
/// percent-encoded, and it starts with `/`.
fn percent_encode(path: &[u8]) -> String {
    let mut out = String::with_capacity(path.len() + 1);
    if path.first() != Some(&b'/') {
        out.push('/');
    }
    for &b in path {
        if b.is_ascii_graphic() && !b"\"<>\\^`{|}#".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// One request, aimed at a route, with a body of the route's kind (or
/// another route's: a mismatch is a good test too).
#[derive(Debug, Arbitrary)]
struct RequestShape {
    method: MethodShape,
    route: Route,
    auth: AuthShape,
    body: BodyShape,
    content_type: Option<ContentType>,
}

#[derive(Debug, Arbitrary)]
enum MethodShape {
    /// The route's own method.
    Right,
    Get,
    Post,
    Put,
    Delete,
    Patch,
    Head,
    Options,
    Other(Word),
}

#[derive(Debug, Arbitrary)]
enum AuthShape {
    Runner,
    Admin,
    Cookie,
    None,
    Garbage(Word),
}

#[derive(Debug, Arbitrary)]
enum ContentType {
    Json,
    Form,
    Text,
    Other(Word),
}

#[derive(Debug, Arbitrary)]
enum Id {
    Run,
    OldRun,
    Session,
    OldSession,
    Env,
    Request,
    Agent,
    Runner,
    Spare,
    Raw(Word),
}

#[derive(Debug, Arbitrary)]
enum Route {
    Connect,
    Offers(Option<Word>, Option<Number>),
    Accept(Id),
    Directives(Id, Option<Number>, Option<Number>),
    Reports(Id),
    Transcript(Id),
    Heartbeat(Id),
    AcpSession(Id),
    PlugStates(Id),
    PlugState(Id, Word),
    Permissions(Id),
    Permission(Id, Id),
    Agents,
    Agent(Id),
    Runners,
    Revoke(Id),
    Sessions,
    Session(Id),
    Messages(Id),
    Close(Id),
    Cancel(Id),
    SessionTranscript(Id, Option<Number>, Option<Number>),
    Answer(Id, Id),
    Environments(Option<Word>),
    Retry(Id),
    Dashboard,
    DashboardSession(Id),
    DashboardRetry(Id),
    DashboardMessage(Id),
    DashboardClose(Id),
    Login(Option<Word>, Option<Word>),
    Raw(Word),
    Scope(Id),
    DashboardPage(u8, Option<Word>),
    DashboardNewSession,
    DashboardSetAgent,
    DashboardAddRunner,
    DashboardRunner(Id, u8),
    DashboardCancel(Id),
    Logout,
}

// One is built per input: the size of the largest variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Arbitrary)]
enum BodyShape {
    Report(Report),
    Transcript(Field<Vec<Entry>>),
    Connect {
        instance: Field<Word>,
        agents: Field<Vec<Id>>,
    },
    Accept(Field<Word>),
    AcpSession(Field<Word>),
    Permission {
        request_id: Field<Word>,
        request: Field<Json>,
    },
    PlugState(Field<Vec<(Word, Word)>>),
    Agent {
        inactivity_ms: Field<Number>,
        idle_policy: Field<Word>,
        paused_lifetime_ms: Field<Number>,
        timeout_ms: Field<Number>,
        disabled: Field<bool>,
    },
    Runner(Field<Word>),
    Session {
        agent: Field<Id>,
        message: Field<Word>,
    },
    Message(Field<Word>),
    Answer(Field<Word>),
    Form(Vec<(Word, Word)>),
    Empty,
    Raw(Json),
}

#[derive(Debug, Arbitrary)]
struct Report {
    report_id: Field<Word>,
    kind: Field<ReportKind>,
    can_resume: Field<bool>,
    plugs_that_cannot: Field<Vec<Word>>,
    chain: Field<Option<Vec<Word>>>,
    message_id: Field<Option<Word>>,
    phase: Field<Word>,
    error: Field<Word>,
    environment: Field<Word>,
    teardown_error: Field<Option<Word>>,
    reached: Field<Vec<Reached>>,
    refused: Field<Vec<Word>>,
    refused_more: Field<Number>,
    extra: Option<(Word, Json)>,
}

/// A destination of an `egress` report.
#[derive(Debug, Arbitrary)]
struct Reached {
    destination: Field<Word>,
    connections: Field<Number>,
    sent: Field<Number>,
    received: Field<Number>,
}

#[derive(Debug, Arbitrary)]
enum ReportKind {
    Accepted,
    Started,
    PlugsCanResume,
    TurnEnded,
    Paused,
    TornDown,
    Failed,
    Cancelled,
    Egress,
    Other(Word),
}

#[derive(Debug, Arbitrary)]
struct Entry {
    seq: Field<Number>,
    kind: Field<Word>,
    content: Field<Json>,
}

impl Id {
    fn text(&self) -> String {
        match self {
            Id::Run => "{run}".into(),
            Id::OldRun => "{old_run}".into(),
            Id::Session => "{session}".into(),
            Id::OldSession => "{old_session}".into(),
            Id::Env => "{env}".into(),
            Id::Request => "{request}".into(),
            Id::Agent => "{agent}".into(),
            Id::Runner => "{runner}".into(),
            Id::Spare => "spare".into(),
            Id::Raw(w) => w.0.clone(),
        }
    }
}

fn query(pairs: &[(&str, Option<String>)]) -> String {
    let parts: Vec<String> = pairs
        .iter()
        .filter_map(|(k, v)| v.as_ref().map(|v| format!("{k}={v}")))
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!("?{}", parts.join("&"))
    }
}

fn num(n: &Option<Number>) -> Option<String> {
    n.as_ref().map(|n| n.0.to_string())
}

impl Route {
    /// The route's method and path.
    fn target(&self) -> (&'static str, String) {
        let run = |id: &Id, rest: &str| format!("/v1/runner/runs/{}/{rest}", id.text());
        let session = |id: &Id, rest: &str| format!("/v1/sessions/{}/{rest}", id.text());
        match self {
            Route::Connect => ("POST", "/v1/runner/connect".into()),
            Route::Offers(instance, wait) => (
                "GET",
                format!(
                    "/v1/runner/offers{}",
                    query(&[
                        ("instance", instance.as_ref().map(|w| w.0.clone())),
                        ("wait_ms", num(wait))
                    ])
                ),
            ),
            Route::Accept(id) => ("POST", run(id, "accept")),
            Route::Directives(id, after, wait) => (
                "GET",
                run(id, "directives") + &query(&[("after", num(after)), ("wait_ms", num(wait))]),
            ),
            Route::Reports(id) => ("POST", run(id, "reports")),
            Route::Transcript(id) => ("POST", run(id, "transcript")),
            Route::Heartbeat(id) => ("POST", run(id, "heartbeat")),
            Route::AcpSession(id) => ("PUT", run(id, "acp-session")),
            Route::PlugStates(id) => ("GET", run(id, "plug-state")),
            Route::PlugState(id, plug) => ("PUT", run(id, &format!("plug-state/{}", plug.0))),
            Route::Permissions(id) => ("POST", run(id, "permissions")),
            Route::Permission(id, request) => {
                ("GET", run(id, &format!("permissions/{}", request.text())))
            }
            Route::Agents => ("GET", "/v1/agents".into()),
            Route::Agent(name) => ("PUT", format!("/v1/agents/{}", name.text())),
            Route::Runners => ("POST", "/v1/runners".into()),
            Route::Revoke(name) => ("POST", format!("/v1/runners/{}/revoke", name.text())),
            Route::Scope(name) => ("POST", format!("/v1/runners/{}/scope", name.text())),
            Route::DashboardPage(which, query) => (
                "GET",
                format!(
                    "{}?{}",
                    ["/agents", "/runners", "/environments", "/"][*which as usize % 4],
                    query.as_ref().map(|w| w.0.clone()).unwrap_or_default()
                ),
            ),
            Route::DashboardNewSession => ("POST", "/sessions".into()),
            Route::DashboardSetAgent => ("POST", "/agents".into()),
            Route::DashboardAddRunner => ("POST", "/runners".into()),
            Route::DashboardRunner(name, action) => (
                "POST",
                format!(
                    "/runners/{}/{}",
                    name.text(),
                    ["scope", "token", "revoke"][*action as usize % 3]
                ),
            ),
            Route::DashboardCancel(id) => ("POST", format!("/sessions/{}/cancel", id.text())),
            Route::Logout => ("POST", "/logout".into()),
            Route::Sessions => ("POST", "/v1/sessions".into()),
            Route::Session(id) => ("GET", format!("/v1/sessions/{}", id.text())),
            Route::Messages(id) => ("POST", session(id, "messages")),
            Route::Close(id) => ("POST", session(id, "close")),
            Route::Cancel(id) => ("POST", session(id, "cancel")),
            Route::SessionTranscript(id, after, wait) => (
                "GET",
                session(id, "transcript")
                    + &query(&[("after", num(after)), ("wait_ms", num(wait))]),
            ),
            Route::Answer(id, request) => (
                "POST",
                session(id, &format!("permissions/{}/answer", request.text())),
            ),
            Route::Environments(state) => (
                "GET",
                format!(
                    "/v1/environments{}",
                    query(&[("state", state.as_ref().map(|w| w.0.clone()))])
                ),
            ),
            Route::Retry(id) => ("POST", format!("/v1/environments/{}/retry", id.text())),
            Route::Dashboard => ("GET", "/".into()),
            Route::DashboardSession(id) => ("GET", format!("/sessions/{}", id.text())),
            Route::DashboardRetry(id) => ("POST", format!("/environments/{}/retry", id.text())),
            Route::DashboardMessage(id) => ("POST", format!("/sessions/{}/messages", id.text())),
            Route::DashboardClose(id) => ("POST", format!("/sessions/{}/close", id.text())),
            Route::Login(token, next) => (
                "GET",
                format!(
                    "/login{}",
                    query(&[
                        (
                            "token",
                            token
                                .as_ref()
                                .map(|w| w.0.clone())
                                .or(Some("{admin}".into()))
                        ),
                        ("next", next.as_ref().map(|w| w.0.clone()))
                    ])
                ),
            ),
            Route::Raw(path) => ("GET", path.0.clone()),
        }
    }
}

fn word(w: &Word) -> Value {
    Value::from(w)
}

fn number(n: &Number) -> Value {
    n.0.clone()
}

fn boolean(b: &bool) -> Value {
    Value::Bool(*b)
}

fn optional_words(w: &Option<Vec<Word>>) -> Value {
    w.as_deref().map_or(Value::Null, words)
}

fn optional_word(w: &Option<Word>) -> Value {
    w.as_ref().map_or(Value::Null, Value::from)
}

impl BodyShape {
    /// The body, and whether it is a form rather than JSON.
    fn render(&self) -> (Vec<u8>, bool) {
        let json = |v: Value| (v.to_string().into_bytes(), false);
        match self {
            BodyShape::Report(r) => {
                let kind = |k: &ReportKind| -> Value {
                    match k {
                        ReportKind::Accepted => "accepted".into(),
                        ReportKind::Started => "started".into(),
                        ReportKind::PlugsCanResume => "plugs_can_resume".into(),
                        ReportKind::TurnEnded => "turn_ended".into(),
                        ReportKind::Paused => "paused".into(),
                        ReportKind::TornDown => "torn_down".into(),
                        ReportKind::Failed => "failed".into(),
                        ReportKind::Cancelled => "cancelled".into(),
                        ReportKind::Egress => "egress".into(),
                        ReportKind::Other(w) => word(w),
                    }
                };
                json(
                    Obj::new()
                        .field("report_id", &r.report_id, word)
                        .field("kind", &r.kind, kind)
                        .field("can_resume", &r.can_resume, boolean)
                        .field("plugs_that_cannot", &r.plugs_that_cannot, |w| words(w))
                        .field("chain", &r.chain, optional_words)
                        .field("message_id", &r.message_id, optional_word)
                        .field("phase", &r.phase, word)
                        .field("error", &r.error, word)
                        .field("environment", &r.environment, word)
                        .field("teardown_error", &r.teardown_error, optional_word)
                        .field("reached", &r.reached, |reached| {
                            Value::Array(
                                reached
                                    .iter()
                                    .map(|d| {
                                        Obj::new()
                                            .field("destination", &d.destination, word)
                                            .field("connections", &d.connections, number)
                                            .field("sent", &d.sent, number)
                                            .field("received", &d.received, number)
                                            .value()
                                    })
                                    .collect(),
                            )
                        })
                        .field("refused", &r.refused, |w| words(w))
                        .field("refused_more", &r.refused_more, number)
                        .extra(&r.extra)
                        .value(),
                )
            }
            BodyShape::Transcript(entries) => json(
                Obj::new()
                    .field("entries", entries, |entries| {
                        Value::Array(
                            entries
                                .iter()
                                .map(|e| {
                                    Obj::new()
                                        .field("seq", &e.seq, number)
                                        .field("kind", &e.kind, word)
                                        .field("content", &e.content, |j| j.0.clone())
                                        .value()
                                })
                                .collect(),
                        )
                    })
                    .value(),
            ),
            BodyShape::Connect { instance, agents } => json(
                Obj::new()
                    .field("instance", instance, word)
                    .field("agents", agents, |ids| {
                        Value::Array(ids.iter().map(|id| id.text().into()).collect())
                    })
                    .value(),
            ),
            BodyShape::Accept(instance) => {
                json(Obj::new().field("instance", instance, word).value())
            }
            BodyShape::AcpSession(id) => json(Obj::new().field("acp_session_id", id, word).value()),
            BodyShape::Permission {
                request_id,
                request,
            } => json(
                Obj::new()
                    .field("request_id", request_id, word)
                    .field("request", request, |j| j.0.clone())
                    .value(),
            ),
            BodyShape::PlugState(entries) => json(
                Obj::new()
                    .field("entries", entries, |entries| {
                        Value::Object(
                            entries
                                .iter()
                                .map(|(k, v)| (k.0.clone(), word(v)))
                                .collect(),
                        )
                    })
                    .value(),
            ),
            BodyShape::Agent {
                inactivity_ms,
                idle_policy,
                paused_lifetime_ms,
                timeout_ms,
                disabled,
            } => json(
                Obj::new()
                    .field("inactivity_ms", inactivity_ms, number)
                    .field("idle_policy", idle_policy, word)
                    .field("paused_lifetime_ms", paused_lifetime_ms, number)
                    .field("timeout_ms", timeout_ms, number)
                    .field("disabled", disabled, boolean)
                    .value(),
            ),
            BodyShape::Runner(name) => json(Obj::new().field("name", name, word).value()),
            BodyShape::Session { agent, message } => json(
                Obj::new()
                    .field("agent", agent, |id| id.text().into())
                    .field("message", message, word)
                    .value(),
            ),
            BodyShape::Message(text) => json(Obj::new().field("text", text, word).value()),
            BodyShape::Answer(option) => json(Obj::new().field("option_id", option, word).value()),
            BodyShape::Form(pairs) => {
                let form: Vec<String> = pairs
                    .iter()
                    .map(|(k, v)| format!("{}={}", form_encode(&k.0), form_encode(&v.0)))
                    .collect();
                (form.join("&").into_bytes(), true)
            }
            BodyShape::Empty => (Vec::new(), false),
            BodyShape::Raw(j) => json(j.0.clone()),
        }
    }
}

fn form_encode(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

impl RequestShape {
    fn render(&self) -> Vec<u8> {
        let (right, path) = self.route.target();
        let method = match &self.method {
            MethodShape::Right => right.to_string(),
            MethodShape::Get => "GET".into(),
            MethodShape::Post => "POST".into(),
            MethodShape::Put => "PUT".into(),
            MethodShape::Delete => "DELETE".into(),
            MethodShape::Patch => "PATCH".into(),
            MethodShape::Head => "HEAD".into(),
            MethodShape::Options => "OPTIONS".into(),
            MethodShape::Other(w) => w.0.clone(),
        };
        let auth = match &self.auth {
            AuthShape::Runner => "runner".to_string(),
            AuthShape::Admin => "admin".into(),
            AuthShape::Cookie => "cookie".into(),
            AuthShape::None => "none".into(),
            AuthShape::Garbage(w) => w.0.replace('\n', " "),
        };
        let (body, form) = self.body.render();
        let content_type = match &self.content_type {
            None if form => "application/x-www-form-urlencoded".to_string(),
            None | Some(ContentType::Json) => "application/json".into(),
            Some(ContentType::Form) => "application/x-www-form-urlencoded".into(),
            Some(ContentType::Text) => "text/plain".into(),
            Some(ContentType::Other(w)) => w.0.replace('\n', " "),
        };
        let mut out = format!(
            "{method} {} {auth}\ncontent-type: {content_type}\n\n",
            path.replace(' ', "%20")
        )
        .into_bytes();
        out.extend(body);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_input_splits_into_its_parts() {
        let p = Parsed::from(b"POST /v1/x runner\ncontent-type: a/b\n\n{\"a\":\n\n1}");
        assert_eq!(p.method, b"POST");
        assert_eq!(p.path, b"/v1/x");
        assert_eq!(p.auth, b"runner");
        assert_eq!(p.headers, vec![(b"content-type".to_vec(), b"a/b".to_vec())]);
        assert_eq!(p.body, b"{\"a\":\n\n1}");
        assert_eq!(percent_encode(b"a b/\xff"), "/a%20b/%FF");
        assert_eq!(replace(b"{run}/{run}", b"{run}", b"r1"), b"r1/r1");
    }
}
