//! A real server on loopback, an admin client, and a small protocol client standing in for a
//! runner.

#![allow(dead_code)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use blaise_control::auth::hash_token;
use blaise_control::config::Config;
use blaise_control::http::AppState;
use blaise_control::store::Store;
use blaise_control::store::postgres::PostgresStore;
use blaise_control::store::sqlite::SqliteStore;
use blaise_protocol::{
    AcceptRequest, Assignment, ConnectRequest, Connected, DirectiveBatch, EntryKind,
    HeartbeatAnswer, Offers, Report, ReportAnswer, ReportBody, TranscriptAnswer, TranscriptRecord,
};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

pub const ADMIN: &str = "bla_test_admin_token";

/// Short limits so the clock's rules play out in well under a second.
pub fn fast_config() -> Config {
    Config {
        check_interval_ms: 25,
        paused_lifetime_cap_ms: 3_600_000,
        connect_timeout_ms: 1_000,
        stop_grace_ms: 1_000,
        heartbeat_timeout_ms: 1_000,
        heartbeat_interval_ms: 50,
        teardown_backoff_ms: 100,
        teardown_attempts: 3,
        max_failures_in_a_row: 3,
        close_wait_ms: 1_000,
        long_poll_max_ms: 2_000,
        started_at: 0,
        retain_ended_ms: None,
        runner_wait_ms: 60_000,
        header_read_timeout_ms: 60_000,
        webhook_backoff_ms: 100,
        webhook_attempts: 10,
        // The tests' receivers listen on 127.0.0.1.
        webhooks_to_private_addresses: true,
        webhook_waits_every_ms: 50,
    }
}

/// The HTTP API of a server, as the admin sees it: of one started here ([`Server`] derefs to
/// it) or of a `blaise serve` process ([`ControlApi::at`]). The shared client, with what only
/// these tests need in [`ControlApi`].
pub use blaise_test_support::api::Api;

pub struct Server {
    pub api: Api,
    pub state: AppState,
    task: tokio::task::JoinHandle<()>,
    _dir: tempfile::TempDir,
    /// The PostgreSQL pass's database (dropped after the server).
    pub db: Option<crate::pg::TestDb>,
}

/// The store this test binary runs on: a SQLite file (`control`), or a database of its own on
/// the test PostgreSQL server (`control_postgres`).
pub fn open_store(dir: &std::path::Path) -> (Arc<dyn Store>, Option<crate::pg::TestDb>) {
    if !crate::backend::POSTGRES {
        return (
            Arc::new(SqliteStore::open(&dir.join("blaise.db")).unwrap()),
            None,
        );
    }
    let Some(db) = crate::pg::database() else {
        // No PostgreSQL on this machine (and it is not required): the whole pass is skipped.
        eprintln!("skipped: the PostgreSQL pass: {}", crate::pg::unavailable());
        std::process::exit(0);
    };
    let store = PostgresStore::open(&db.url).unwrap();
    (Arc::new(store), Some(db))
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl std::ops::Deref for Server {
    type Target = Api;
    fn deref(&self) -> &Api {
        &self.api
    }
}

impl Server {
    pub async fn start() -> Server {
        Server::with_config(fast_config()).await
    }

    pub async fn with_config(cfg: Config) -> Server {
        Server::with_sources(cfg, Default::default()).await
    }

    /// A server that answers for message `sources` too (Linear apps).
    pub async fn with_sources(cfg: Config, sources: blaise_control::sources::Sources) -> Server {
        Server::start_with(cfg, sources, |_| None).await
    }

    /// A server that signs people in with the identity provider `oidc` makes, given the
    /// server's URL (its callback is under it).
    pub async fn with_oidc(
        cfg: Config,
        oidc: impl FnOnce(&str) -> blaise_control::oidc::Oidc,
    ) -> Server {
        Server::start_with(cfg, Default::default(), |url| Some(oidc(url))).await
    }

    async fn start_with(
        cfg: Config,
        sources: blaise_control::sources::Sources,
        oidc: impl FnOnce(&str) -> Option<blaise_control::oidc::Oidc>,
    ) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let (store, db) = open_store(dir.path());
        {
            let mut tx = store.begin().unwrap();
            tx.set_admin_token_hash(&hash_token(ADMIN)).unwrap();
            tx.commit().unwrap();
        }
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let mut state = AppState::new(store, cfg).with_sources(sources);
        if let Some(oidc) = oidc(&url) {
            state = state.with_oidc(oidc);
        }
        let serving = state.clone();
        let task = tokio::spawn(async move {
            blaise_control::http::serve(listener, serving)
                .await
                .unwrap();
        });
        Server {
            api: Api::at(&url),
            state,
            task,
            _dir: dir,
            db,
        }
    }
}

impl Server {
    /// A dashboard page (`/runners`, `/sessions/ID`), as the admin sees it.
    pub async fn page(&self, path: &str) -> String {
        self.http
            .get(format!("{}{path}", self.url))
            .bearer_auth(ADMIN)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    }

    /// Logs in to the dashboard as a browser does (the login form's POST) with the admin token:
    /// the cookie it gets, and the CSRF token the pages then put in their forms.
    pub async fn web_login(&self) -> WebLogin {
        self.web_login_as(ADMIN).await
    }

    /// [`Server::web_login`] with `token` (a person's own).
    pub async fn web_login_as(&self, token: &str) -> WebLogin {
        let web = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let resp = web
            .post(format!("{}/login", self.url))
            .form(&[("token", token)])
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), StatusCode::SEE_OTHER);
        let set = resp.headers()["set-cookie"].to_str().unwrap();
        let cookie = set.split(';').next().unwrap().to_owned();
        let page = web
            .get(format!("{}/", self.url))
            .header("cookie", &cookie)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let csrf = page
            .split("name=\"csrf\" value=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .expect("the page's forms carry the login's CSRF token")
            .to_owned();
        WebLogin { web, cookie, csrf }
    }

    /// Stops this server (its clock and pump with it) and starts another on the same store, as a
    /// `blaise serve` killed and started again.
    pub async fn restart(&mut self, sources: blaise_control::sources::Sources) {
        self.task.abort();
        let _ = (&mut self.task).await;
        let state = AppState::new(self.state.store.clone(), (*self.state.cfg).clone())
            .with_sources(sources);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        self.api = Api::at(&format!("http://{}", listener.local_addr().unwrap()));
        let serving = state.clone();
        self.task = tokio::spawn(async move {
            blaise_control::http::serve(listener, serving)
                .await
                .unwrap();
        });
        self.state = state;
    }
}

/// What the control plane's own tests add to the shared client: the admin token they start
/// servers with, agents, fake runners, and answers as status and body.
#[allow(async_fn_in_trait)]
pub trait ControlApi {
    fn at(url: &str) -> Api;
    async fn agent(&self, name: &str, settings: Value) -> Value;
    async fn add_runner(&self, name: &str) -> String;
    async fn runner(&self, name: &str, agents: &[&str]) -> FakeRunner;
    async fn send(&self, session: &str, text: &str) -> (StatusCode, Value);
    async fn close(&self, session: &str) -> (StatusCode, Value);
    /// Polls `show` until `pred` holds, for up to 10 s.
    async fn wait_until(&self, session: &str, what: &str, pred: impl Fn(&Value) -> bool) -> Value;
    async fn wait_state(&self, session: &str, state: &str) -> Value;
}

impl ControlApi for Api {
    fn at(url: &str) -> Api {
        Api::new(url, ADMIN)
    }

    async fn agent(&self, name: &str, settings: Value) -> Value {
        self.ok(Method::PUT, &format!("/v1/agents/{name}"), Some(settings))
            .await
    }

    async fn add_runner(&self, name: &str) -> String {
        self.runner_token(name).await
    }

    async fn runner(&self, name: &str, agents: &[&str]) -> FakeRunner {
        let token = self.add_runner(name).await;
        let r = FakeRunner::at(&self.url, &token, &format!("{name}-1"));
        r.connect(agents).await;
        r
    }

    async fn send(&self, session: &str, text: &str) -> (StatusCode, Value) {
        self.admin(
            Method::POST,
            &format!("/v1/sessions/{session}/messages"),
            Some(json!({ "text": text })),
        )
        .await
    }

    async fn close(&self, session: &str) -> (StatusCode, Value) {
        self.admin(
            Method::POST,
            &format!("/v1/sessions/{session}/close"),
            Some(json!({})),
        )
        .await
    }

    async fn wait_until(&self, session: &str, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        self.wait_for(session, what, Duration::from_secs(10), pred)
            .await
    }

    async fn wait_state(&self, session: &str, state: &str) -> Value {
        self.wait_until(session, &format!("session state {state}"), |v| {
            v["state"] == state
        })
        .await
    }
}

pub fn runs(view: &Value) -> Vec<Value> {
    view["runs"].as_array().unwrap().clone()
}

pub fn last_run(view: &Value) -> Value {
    runs(view).last().unwrap().clone()
}

pub fn env_state(view: &Value) -> String {
    view["environment"]["state"]
        .as_str()
        .unwrap_or("none")
        .to_string()
}

/// One runner process (an instance of a runner token).
#[derive(Clone)]
pub struct FakeRunner {
    pub url: String,
    pub token: String,
    pub instance: String,
    http: reqwest::Client,
}

static REPORT_IDS: AtomicU64 = AtomicU64::new(1);

impl FakeRunner {
    pub fn new(server: &Server, token: &str, instance: &str) -> FakeRunner {
        FakeRunner {
            url: server.url.clone(),
            token: token.to_string(),
            instance: instance.to_string(),
            http: reqwest::Client::new(),
        }
    }

    /// A runner for a server that is not a [`Server`].
    pub fn at(url: &str, token: &str, instance: &str) -> FakeRunner {
        FakeRunner {
            url: url.to_string(),
            token: token.to_string(),
            instance: instance.to_string(),
            http: reqwest::Client::new(),
        }
    }

    /// Another instance sharing this runner's token.
    pub async fn instance(&self, instance: &str, agents: &[&str]) -> FakeRunner {
        let r = FakeRunner {
            instance: instance.to_string(),
            ..self.clone()
        };
        r.connect(agents).await;
        r
    }

    pub async fn call(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let mut req = self
            .http
            .request(method, format!("{}{path}", self.url))
            .bearer_auth(&self.token);
        if let Some(b) = body {
            req = req.json(&b);
        }
        let resp = req.send().await.unwrap();
        let status = resp.status();
        let text = resp.text().await.unwrap();
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        )
    }

    pub async fn connect(&self, agents: &[&str]) -> Value {
        let hello = ConnectRequest {
            instance: self.instance.clone(),
            agents: agents.iter().map(|a| a.to_string()).collect(),
            capacity: None,
            labels: vec![],
        };
        let v = self.connect_with(wire(&hello)).await;
        read_as::<Connected>("connect", &v);
        v
    }

    /// Connects with `hello`'s fields (`agents`, `capacity`, `labels`) and this instance.
    pub async fn connect_with(&self, mut hello: Value) -> Value {
        hello["instance"] = json!(self.instance);
        let (s, v) = self
            .call(Method::POST, "/v1/runner/connect", Some(hello))
            .await;
        assert_eq!(s, StatusCode::OK, "connect: {v}");
        v
    }

    pub async fn offers(&self, wait_ms: u64) -> Vec<Value> {
        let (s, v) = self
            .call(
                Method::GET,
                &format!(
                    "/v1/runner/offers?instance={}&wait_ms={wait_ms}",
                    self.instance
                ),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::OK, "offers: {v}");
        read_as::<Offers>("offers", &v);
        v["offers"].as_array().unwrap().clone()
    }

    pub async fn accept(&self, run_id: &str) -> (StatusCode, Value) {
        let accept = AcceptRequest {
            instance: self.instance.clone(),
        };
        let (s, v) = self
            .call(
                Method::POST,
                &format!("/v1/runner/runs/{run_id}/accept"),
                Some(wire(&accept)),
            )
            .await;
        if s == StatusCode::OK {
            read_as::<Assignment>("accept", &v);
        }
        (s, v)
    }

    /// Waits for an offer of `kind` and accepts it; the run then heartbeats until it dies.
    pub async fn take(&self, kind: &str) -> FakeRun {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let offers = self.offers(500).await;
            if let Some(o) = offers.iter().find(|o| o["kind"] == kind) {
                let (s, assignment) = self.accept(o["run_id"].as_str().unwrap()).await;
                assert_eq!(s, StatusCode::OK, "accept: {assignment}");
                return FakeRun::new(self.clone(), assignment);
            }
            assert!(
                Instant::now() < deadline,
                "no {kind} run was offered to {} (offers: {offers:?})",
                self.instance
            );
        }
    }

    /// A run accepted by hand (its `assignment`), heartbeating from now on.
    pub fn take_assigned(&self, assignment: Value) -> FakeRun {
        FakeRun::new(self.clone(), assignment)
    }

    /// Takes a start run and reports it started with a resumable chain.
    pub async fn take_started(&self, kind: &str) -> FakeRun {
        let run = self.take(kind).await;
        run.plugs(true, &["checkout", "sandbox"]).await;
        run.send(ReportBody::Started { conversation: None }).await;
        run
    }
}

pub struct FakeRun {
    pub runner: FakeRunner,
    pub id: String,
    pub assignment: Value,
    cursor: std::sync::Mutex<i64>,
    seq: AtomicU64,
    heart: std::sync::Mutex<Option<tokio::task::JoinHandle<()>>>,
}

impl Drop for FakeRun {
    fn drop(&mut self) {
        self.die();
    }
}

impl FakeRun {
    fn new(runner: FakeRunner, assignment: Value) -> FakeRun {
        let id = assignment["run_id"].as_str().unwrap().to_string();
        let beat = runner.clone();
        let path = format!("/v1/runner/runs/{id}/heartbeat");
        let heart = tokio::spawn(async move {
            loop {
                let (s, v) = beat.call(Method::POST, &path, Some(json!({}))).await;
                if s != StatusCode::OK {
                    return;
                }
                read_as::<HeartbeatAnswer>("heartbeat", &v);
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        });
        FakeRun {
            runner,
            id,
            assignment,
            cursor: std::sync::Mutex::new(0),
            seq: AtomicU64::new(1),
            heart: std::sync::Mutex::new(Some(heart)),
        }
    }

    /// The runner process dies: no more heartbeats.
    pub fn die(&self) {
        if let Some(h) = self.heart.lock().unwrap().take() {
            h.abort();
        }
    }

    pub async fn report_with_id(
        &self,
        report_id: &str,
        kind: &str,
        extra: Value,
    ) -> (StatusCode, Value) {
        let mut body = json!({ "report_id": report_id, "kind": kind });
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        self.runner
            .call(
                Method::POST,
                &format!("/v1/runner/runs/{}/reports", self.id),
                Some(body),
            )
            .await
    }

    pub async fn report(&self, kind: &str, extra: Value) -> (StatusCode, Value) {
        let id = format!("rep-{}", REPORT_IDS.fetch_add(1, Ordering::Relaxed));
        self.report_with_id(&id, kind, extra).await
    }

    pub async fn ok(&self, kind: &str, extra: Value) -> Value {
        let (s, v) = self.report(kind, extra).await;
        assert_eq!(s, StatusCode::OK, "{kind} report: {v}");
        read_as::<ReportAnswer>("a report", &v);
        v
    }

    /// Sends `body` as the runner does (a new report id) and expects it taken.
    pub async fn send(&self, body: ReportBody) -> Value {
        let report = Report {
            report_id: format!("rep-{}", REPORT_IDS.fetch_add(1, Ordering::Relaxed)),
            body,
        };
        let (s, v) = self
            .runner
            .call(
                Method::POST,
                &format!("/v1/runner/runs/{}/reports", self.id),
                Some(wire(&report)),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{} report: {v}", report.body.kind());
        read_as::<ReportAnswer>("a report", &v);
        v
    }

    pub async fn plugs(&self, can_resume: bool, chain: &[&str]) {
        let chain: Vec<String> = chain.iter().map(|p| p.to_string()).collect();
        let cannot = if can_resume {
            vec![]
        } else {
            vec![chain[0].clone()]
        };
        self.send(ReportBody::PlugsCanResume {
            can_resume,
            plugs_that_cannot: cannot,
            chain: Some(chain),
            keeps_processes: false,
        })
        .await;
    }

    pub async fn turn_ended(&self) {
        self.send(ReportBody::TurnEnded {
            message_id: None,
            outcome: Default::default(),
            error: None,
        })
        .await;
    }

    pub async fn transcript(&self, entries: Value) -> (StatusCode, Value) {
        self.runner
            .call(
                Method::POST,
                &format!("/v1/runner/runs/{}/transcript", self.id),
                Some(json!({ "entries": entries })),
            )
            .await
    }

    /// Says something as the agent (next sequence number).
    pub async fn say(&self, text: &str) {
        let entry = TranscriptRecord {
            seq: self.seq.fetch_add(1, Ordering::Relaxed),
            kind: EntryKind::AgentMessage,
            content: json!({ "text": text }),
        };
        let (s, v) = self.transcript(json!([wire(&entry)])).await;
        assert_eq!(s, StatusCode::OK, "transcript: {v}");
        read_as::<TranscriptAnswer>("transcript", &v);
    }

    /// The next directives (long poll).
    pub async fn directives(&self, wait_ms: u64) -> Vec<Value> {
        let after = *self.cursor.lock().unwrap();
        let (s, v) = self
            .runner
            .call(
                Method::GET,
                &format!(
                    "/v1/runner/runs/{}/directives?after={after}&wait_ms={wait_ms}",
                    self.id
                ),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::OK, "directives: {v}");
        read_as::<DirectiveBatch>("directives", &v);
        let list = v["directives"].as_array().unwrap().clone();
        if let Some(last) = list.last() {
            *self.cursor.lock().unwrap() = last["seq"].as_i64().unwrap();
        }
        list
    }

    /// Reads directives until one of `kind` arrives.
    pub async fn wait_directive(&self, kind: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            for d in self.directives(300).await {
                if d["kind"] == kind {
                    return d;
                }
            }
            assert!(
                Instant::now() < deadline,
                "no {kind} directive for run {}",
                self.id
            );
        }
    }

    /// Reads directives for `ms` and returns them all.
    pub async fn directives_for(&self, ms: u64) -> Vec<Value> {
        let deadline = Instant::now() + Duration::from_millis(ms);
        let mut out = Vec::new();
        while Instant::now() < deadline {
            out.extend(self.directives(50).await);
        }
        out
    }
}

/// `message` as JSON, as the runner sends it (the protocol's own type).
fn wire<T: serde::Serialize>(message: &T) -> Value {
    serde_json::to_value(message).unwrap()
}

/// Checks that Blaise's answer reads as the runner reads it (the protocol's own type): the fake
/// runner's requests and answers are the real runner's shapes, not a copy of them.
fn read_as<T: serde::de::DeserializeOwned>(what: &str, answer: &Value) -> T {
    serde_json::from_value(answer.clone()).unwrap_or_else(|e| {
        panic!("the answer to {what} is not what the runner reads: {e}: {answer}")
    })
}

/// A port nothing listens on now, for a `blaise serve` a test starts.
pub use blaise_test_support::free_port;

/// The `blaise` binary against `s`, as its admin: success, stdout, stderr.
pub fn blaise(s: &Server, args: &[&str]) -> (bool, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_blaise"))
        .args(args)
        .env("BLAISE_URL", &s.url)
        .env("BLAISE_TOKEN", ADMIN)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `blaise ARGS…`'s stdout; a failure fails the test.
pub fn ok(s: &Server, args: &[&str]) -> String {
    let (success, out, err) = blaise(s, args);
    assert!(success, "blaise {args:?} failed: {err}");
    out
}

/// A person logged in to the dashboard, as their browser holds it.
pub struct WebLogin {
    /// A client that does not follow redirects (a form's answer is a 303).
    pub web: reqwest::Client,
    /// `blaise_session=…`, to send as the `cookie` header.
    pub cookie: String,
    /// What the pages' forms carry in their `csrf` field.
    pub csrf: String,
}

impl WebLogin {
    /// Posts a dashboard form at `path` with `fields` and the login's CSRF token: the status and
    /// the page answered.
    pub async fn post(
        &self,
        url: &str,
        path: &str,
        fields: &[(&str, &str)],
    ) -> (StatusCode, String) {
        let mut form: Vec<(&str, &str)> = fields.to_vec();
        form.push(("csrf", &self.csrf));
        let resp = self
            .web
            .post(format!("{url}{path}"))
            .header("cookie", &self.cookie)
            .form(&form)
            .send()
            .await
            .unwrap();
        (resp.status(), resp.text().await.unwrap())
    }
}
