//! The HTTP server: shared state, authentication, long polls, and the routes of the runner
//! protocol, the user API and the dashboard.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use axum::Router;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use crate::auth::{bearer, hash_token};
use crate::changes::{Changes, Notifying, ROOM, RecordingTx, Topic, announcement};
use crate::config::Config;
use crate::error::{Error, Result};
use crate::lifecycle::{Ctx, transact_read};
use crate::model::{Millis, Runner, now};
use crate::store::Store;

/// How a long poll checks: in a transaction that may write (noting what it touches), in one
/// that only reads, or as a runner's offers poll (it may write, and is also woken alone).
#[derive(Clone, Copy)]
enum Check<'a> {
    Writes,
    Reads,
    Offers { runner_id: &'a str },
}

#[derive(Clone)]
pub struct AppState {
    pub store: Arc<dyn Store>,
    pub cfg: Arc<Config>,
    /// Wakes the long polls a transaction concerns.
    changes: Arc<Changes>,
    /// Whether this instance runs the clock (see [`Store::hold_clock`]).
    pub clock_held: Arc<AtomicBool>,
    /// Turns to begin a transaction that writes ([`Store::writers`] at once). A request
    /// waits for its turn here, as a future, and so never blocks a worker thread on the
    /// store's writer: with SQLite's one writer, a worker waiting for the writer the other
    /// worker held stopped every other request on it too (the server used one core of two).
    turns: Arc<tokio::sync::Semaphore>,
    /// Turns to begin a transaction that only reads ([`Store::readers`]; the same turns as
    /// writes when they share connections: on PostgreSQL a read waiting for a pooled
    /// connection held a worker thread too).
    read_turns: Arc<tokio::sync::Semaphore>,
    /// The message sources this instance answers for, besides the web (`crate::sources`).
    pub sources: Arc<crate::sources::Sources>,
}

impl AppState {
    /// The state of one instance; with a store other instances share, their changes wake this
    /// one's long polls.
    pub fn new(store: Arc<dyn Store>, mut cfg: Config) -> Self {
        cfg.started_at = now();
        let changes = Arc::new(Changes::default());
        let hears = changes.clone();
        store.listen(Arc::new(move |what| hears.deliver(what)));
        let turns = Arc::new(tokio::sync::Semaphore::new(store.writers()));
        let read_turns = match store.readers() {
            Some(n) => Arc::new(tokio::sync::Semaphore::new(n)),
            None => turns.clone(),
        };
        AppState {
            turns,
            read_turns,
            store,
            cfg: Arc::new(cfg),
            changes,
            clock_held: Arc::default(),
            sources: Arc::default(),
        }
    }

    /// This state, answering for `sources` too.
    pub fn with_sources(mut self, sources: crate::sources::Sources) -> Self {
        self.sources = Arc::new(sources);
        self
    }

    /// What wakes long polls, the clock and the sources' pump.
    pub fn changes(&self) -> &Arc<Changes> {
        &self.changes
    }

    /// One read-only transaction.
    pub async fn read<T>(&self, f: impl FnMut(&mut Ctx) -> Result<T>) -> Result<T> {
        let _turn = turn(&self.read_turns).await;
        transact_read(&*self.store, &self.cfg, now(), f)
    }

    /// A read of one statement ([`Store::begin_one`]).
    pub async fn read_one<T>(&self, f: impl FnMut(&mut Ctx) -> Result<T>) -> Result<T> {
        let _turn = turn(&self.read_turns).await;
        crate::lifecycle::transact_one(&*self.store, &self.cfg, now(), f)
    }

    /// Runs `f` in one transaction, noting the topics it touches; commits if it succeeds. When
    /// `wakes(&out)`, what it touched is announced to the other instances with the commit.
    async fn recorded<T>(
        &self,
        f: impl FnMut(&mut Ctx) -> Result<T>,
        wakes: impl Fn(&T) -> bool,
    ) -> Result<(T, Vec<Topic>)> {
        let _turn = turn(&self.turns).await;
        self.record_now(f, wakes)
    }

    fn record_now<T>(
        &self,
        mut f: impl FnMut(&mut Ctx) -> Result<T>,
        wakes: impl Fn(&T) -> bool,
    ) -> Result<(T, Vec<Topic>)> {
        crate::lifecycle::retrying(|| {
            let mut recording = RecordingTx::new(self.store.begin()?);
            let out = f(&mut Ctx {
                tx: &mut recording,
                cfg: &self.cfg,
                now: now(),
            })?;
            let RecordingTx {
                mut inner,
                touched,
                events,
                started,
                ..
            } = recording;
            if !touched.is_empty() && wakes(&out) {
                inner.announce(&announcement(&touched))?;
            }
            inner.commit()?;
            crate::metrics::committed(started.elapsed(), &events);
            Ok((out, touched))
        })
    }

    /// One transaction that may change state; wakes the long polls waiting on what it touched,
    /// here and in the other instances.
    pub async fn write<T>(&self, f: impl FnMut(&mut Ctx) -> Result<T>) -> Result<T> {
        let (out, touched) = self.recorded(f, |_| true).await?;
        self.changes.notify(&touched);
        Ok(out)
    }

    /// [`AppState::write`] outside a request (the embedded default's setup): waits for the
    /// writer on this thread.
    pub fn write_blocking<T>(&self, f: impl FnMut(&mut Ctx) -> Result<T>) -> Result<T> {
        let (out, touched) = self.record_now(f, |_| true)?;
        self.changes.notify(&touched);
        Ok(out)
    }

    /// Runs `f` until it returns something or `wait_ms` passes, waking when `topic` changes.
    pub async fn long_poll<T>(
        &self,
        topic: Topic,
        wait_ms: Option<Millis>,
        f: impl FnMut(&mut Ctx) -> Result<Option<T>>,
    ) -> Result<Option<T>> {
        self.poll(topic, Check::Writes, wait_ms, f).await
    }

    /// A long poll whose check only reads (a follower's): it runs in a read-only transaction,
    /// which on SQLite does not wait for the writer.
    pub async fn long_poll_read<T>(
        &self,
        topic: Topic,
        wait_ms: Option<Millis>,
        f: impl FnMut(&mut Ctx) -> Result<Option<T>>,
    ) -> Result<Option<T>> {
        self.poll(topic, Check::Reads, wait_ms, f).await
    }

    /// The long poll for offers of runner `runner_id`: it wakes when who may take offers
    /// changes, alone when a run is offered (`Changes::wake_offer`), and when a run of this
    /// runner ends (`Changes::wake_room`: a run may be waiting for its room).
    pub async fn long_poll_offers<T>(
        &self,
        runner_id: &str,
        wait_ms: Option<Millis>,
        f: impl FnMut(&mut Ctx) -> Result<Option<T>>,
    ) -> Result<Option<T>> {
        self.poll(Topic::Offers, Check::Offers { runner_id }, wait_ms, f)
            .await
    }

    async fn poll<T>(
        &self,
        topic: Topic,
        check: Check<'_>,
        wait_ms: Option<Millis>,
        mut f: impl FnMut(&mut Ctx) -> Result<Option<T>>,
    ) -> Result<Option<T>> {
        let wait = wait_ms.unwrap_or(0).clamp(0, self.cfg.long_poll_max_ms);
        let deadline = tokio::time::Instant::now() + Duration::from_millis(wait as u64);
        let mut rx = self.changes.subscribe(&topic);
        let mut woken_for_offer: Option<u32> = None;
        loop {
            rx.borrow_and_update();
            // Queued before the check, so that a run offered during it is not missed.
            let mut next_offer = match check {
                Check::Offers { runner_id } => Some(self.changes.wait_offer(runner_id)),
                Check::Writes | Check::Reads => None,
            };
            // Only an answer wakes others: a check that found nothing changed nothing anyone
            // waits for (else polls on one topic would wake each other forever).
            let (found, touched) = match check {
                Check::Reads => (self.read(&mut f).await?, Vec::new()),
                Check::Writes | Check::Offers { .. } => {
                    self.recorded(&mut f, Option::is_some).await?
                }
            };
            if let Some(v) = found {
                self.changes.notify(&touched);
                // A wake that came during the check may be for a run this poll did not take.
                if let Some(Ok(hops)) = next_offer.as_mut().map(|r| r.try_recv())
                    && hops != ROOM
                {
                    self.changes.wake_offer(hops);
                }
                return Ok(Some(v));
            }
            // A wake for room was for this runner only: nobody else looks.
            if let Some(hops) = woken_for_offer.take()
                && hops != ROOM
            {
                self.changes.pass_offer(hops + 1);
            }
            let offered = async {
                match next_offer {
                    Some(r) => r.await.ok(),
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = rx.changed() => {}
                Some(hops) = offered => woken_for_offer = Some(hops),
                _ = tokio::time::sleep_until(deadline) => return Ok(None),
            }
        }
    }

    /// Starts the clock on this state.
    pub fn spawn_clock(&self) -> tokio::task::JoinHandle<()> {
        let store = Notifying {
            store: self.store.clone(),
            changes: self.changes.clone(),
        };
        crate::clock::spawn(
            Arc::new(store),
            self.cfg.clone(),
            self.clock_held.clone(),
            self.changes.clone(),
        )
    }
}

/// Waits, as a future, for a turn to begin a transaction (see [`AppState`]'s `turns`).
async fn turn(turns: &tokio::sync::Semaphore) -> tokio::sync::SemaphorePermit<'_> {
    turns.acquire().await.expect("the turns are never closed")
}

/// A JSON body; malformed or mistyped JSON is a 400 that says what is wrong.
pub struct Body<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Body<T> {
    type Rejection = Error;

    async fn from_request(req: Request, state: &S) -> Result<Self> {
        match axum::Json::<T>::from_request(req, state).await {
            Ok(axum::Json(v)) => Ok(Body(v)),
            Err(e) => Err(Error::BadRequest(format!(
                "invalid JSON body: {}",
                e.body_text()
            ))),
        }
    }
}

fn header_token(parts: &Parts) -> Option<String> {
    bearer(
        parts
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok()),
    )
    .map(str::to_string)
}

/// The runner a request comes from (its token is `Authorization: Bearer …`).
pub struct RunnerAuth(pub Runner);

impl FromRequestParts<AppState> for RunnerAuth {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self> {
        let token = header_token(parts).ok_or_else(|| {
            Error::Unauthorized("a runner token is required (Authorization: Bearer …)".into())
        })?;
        let hash = hash_token(&token);
        let runner = state
            .read_one(|ctx| Ok(ctx.tx.runner_by_token_hash(&hash)?))
            .await?;
        match runner {
            Some(r) if !r.revoked() => Ok(RunnerAuth(r)),
            Some(r) => Err(Error::Unauthorized(format!(
                "runner {} was revoked",
                r.name
            ))),
            None => Err(Error::Unauthorized("unknown runner token".into())),
        }
    }
}

/// The cookie the dashboard keeps the admin token in.
pub const DASHBOARD_COOKIE: &str = "blaise_token";

fn cookie_token(parts: &Parts) -> Option<String> {
    let cookies = parts.headers.get("cookie")?.to_str().ok()?;
    cookies.split(';').find_map(|c| {
        c.trim()
            .strip_prefix(&format!("{DASHBOARD_COOKIE}="))
            .map(str::to_string)
    })
}

pub async fn is_admin(state: &AppState, token: &str) -> Result<bool> {
    let hash = hash_token(token);
    Ok(state
        .read_one(|ctx| Ok(ctx.tx.admin_token_hash()?))
        .await?
        .is_some_and(|h| h == hash))
}

/// Whether a request that changes something comes from this server's own
/// pages. A browser sends the dashboard's cookie with any request a page makes
/// it send, and `SameSite` does not look at the port: a page on another port
/// of this host (a dev server an agent started) is the same *site*. Browsers
/// say where a request comes from (`Sec-Fetch-Site`, and `Origin` on every
/// cross-origin POST); a client that says neither is not a browser page.
fn same_origin(parts: &Parts) -> bool {
    if parts.method.is_safe() {
        return true;
    }
    if let Some(site) = parts.headers.get("sec-fetch-site") {
        return site == "same-origin";
    }
    let Some(origin) = parts.headers.get(axum::http::header::ORIGIN) else {
        return true;
    };
    let host = parts.headers.get(axum::http::header::HOST);
    let origin_host = origin
        .to_str()
        .ok()
        .and_then(|o| o.split_once("://"))
        .map(|(_, host)| host.as_bytes());
    origin_host.is_some() && origin_host == host.map(|h| h.as_bytes())
}

/// A request with the admin token (header, or the dashboard's cookie).
pub struct AdminAuth;

impl FromRequestParts<AppState> for AdminAuth {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self> {
        let token = match header_token(parts) {
            Some(token) => token,
            None => {
                let token = cookie_token(parts).ok_or_else(|| {
                    Error::Unauthorized(
                        "the admin token is required (Authorization: Bearer $BLAISE_TOKEN)".into(),
                    )
                })?;
                if !same_origin(parts) {
                    return Err(Error::Forbidden(
                        "a change made with the dashboard's cookie must come from the dashboard's own pages"
                            .into(),
                    ));
                }
                token
            }
        };
        if is_admin(state, &token).await? {
            Ok(AdminAuth)
        } else {
            Err(Error::Unauthorized("wrong admin token".into()))
        }
    }
}

pub fn router(state: AppState) -> Router {
    Router::new()
        .merge(crate::protocol::routes())
        .merge(crate::api::routes())
        .merge(crate::dashboard::routes())
        .route(
            "/v1/sources/linear/{app}",
            axum::routing::post(crate::sources::linear::webhook::receive),
        )
        .route("/v1/health", axum::routing::get(health))
        .route("/metrics", axum::routing::get(metrics))
        .fallback(|| async { Error::NotFound("no such endpoint".into()) })
        .with_state(state)
}

/// For Prometheus: the metrics of `crate::metrics`, the gauges read now in one read-only
/// transaction. Needs no token, like `/v1/health`: it holds counts by state and kind, no names,
/// ids or text.
async fn metrics(
    axum::extract::State(state): axum::extract::State<AppState>,
) -> Result<axum::response::Response> {
    use axum::response::IntoResponse;
    let fresh_ms = state.cfg.connection_fresh_ms();
    let (census, instances, now) = state
        .read(|ctx| {
            let census = ctx.tx.census()?;
            let instances = ctx.tx.connections(ctx.now.saturating_sub(fresh_ms))?.len();
            Ok((census, instances, ctx.now))
        })
        .await?;
    let text = crate::metrics::render(&crate::metrics::Snapshot {
        census,
        instances_connected: instances,
        clock_held: state.clock_held.load(std::sync::atomic::Ordering::Relaxed),
        now,
    });
    Ok((
        [(
            axum::http::header::CONTENT_TYPE,
            crate::metrics::CONTENT_TYPE,
        )],
        text,
    )
        .into_response())
}

/// For load balancers and operators: answers 200 while the store answers (503 otherwise), and
/// says which store this instance uses and whether it runs the clock. Needs no token.
async fn health(
    axum::extract::State(state): axum::extract::State<AppState>,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let (store, cfg) = (state.store.clone(), state.cfg.clone());
    // A statement that reaches the database (a transaction's BEGIN alone may send nothing),
    // run again on another connection if a pooled one turns out dead, as any request's is; on
    // a thread of its own: with the database down, the pool waits for a connection.
    let reachable = tokio::task::spawn_blocking(move || {
        crate::lifecycle::transact_one(&*store, &cfg, now(), |ctx| Ok(ctx.tx.admin_token_hash()?))
    })
    .await
    .is_ok_and(|r| r.is_ok());
    let status = if reachable {
        axum::http::StatusCode::OK
    } else {
        axum::http::StatusCode::SERVICE_UNAVAILABLE
    };
    let body = serde_json::json!({
        "ok": reachable,
        "store": state.store.kind(),
        "clock": state.clock_held.load(std::sync::atomic::Ordering::Relaxed),
        "conflicts_retried": crate::lifecycle::conflicts_retried(),
    });
    (status, axum::Json(body)).into_response()
}

/// Serves on `listener` with the clock running, until the future is dropped (the clock stops
/// with it).
pub async fn serve(listener: tokio::net::TcpListener, state: AppState) -> std::io::Result<()> {
    serve_with(listener, state, None).await
}

/// [`serve`], over TLS when `tls` is given (every connection: nothing is served in plain HTTP).
pub async fn serve_with(
    listener: tokio::net::TcpListener,
    state: AppState,
    tls: Option<Arc<tokio_rustls::rustls::ServerConfig>>,
) -> std::io::Result<()> {
    struct StopOnDrop(tokio::task::JoinHandle<()>);
    impl Drop for StopOnDrop {
        fn drop(&mut self) {
            self.0.abort();
        }
    }
    let _clock = StopOnDrop(state.spawn_clock());
    let _sources = StopOnDrop(tokio::spawn(crate::sources::pump::run(state.clone())));
    // How long a client may take to send a request's head (its line and
    // headers), also the next one on a kept-alive connection: a connection
    // that sends no complete request in this time is closed, so that opening
    // connections and never finishing a request cannot use up the server's
    // file descriptors. A long poll is not affected: it waits in its
    // handler, after the head. A TLS handshake gets the same time.
    let header_read_timeout = Duration::from_millis(state.cfg.header_read_timeout_ms.max(1) as u64);
    let app = router(state);
    // Dropped with this future: every connection then finishes the request
    // it is serving and closes (as `axum::serve` does), so that a stopped
    // server stops answering on kept-alive connections too.
    let (_serving, stopped) = tokio::sync::watch::channel(());
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(header_read_timeout);
    let acceptor = tls.map(tokio_rustls::TlsAcceptor::from);
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of file descriptors (or a connection reset before it was
                // taken): wait for some to close rather than spin.
                tracing::warn!("accepting a connection: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let (http, app, stopped) = (http.clone(), app.clone(), stopped.clone());
        match &acceptor {
            None => {
                let service = hyper_util::service::TowerToHyperService::new(app);
                tokio::spawn(serve_connection(http, stream, service, stopped));
            }
            Some(acceptor) => {
                let acceptor = acceptor.clone();
                tokio::spawn(async move {
                    let stream =
                        match tokio::time::timeout(header_read_timeout, acceptor.accept(stream))
                            .await
                        {
                            Ok(Ok(stream)) => stream,
                            // A client that speaks plain HTTP, or no TLS we accept: it is its
                            // own connection that ends.
                            Ok(Err(e)) => return tracing::debug!("a TLS handshake failed: {e}"),
                            Err(_) => return tracing::debug!("a TLS handshake took too long"),
                        };
                    let app = tower::ServiceExt::map_request(
                        app,
                        |mut r: hyper::Request<hyper::body::Incoming>| {
                            r.extensions_mut().insert(crate::tls::OverTls);
                            r
                        },
                    );
                    let service = hyper_util::service::TowerToHyperService::new(app);
                    serve_connection(http, stream, service, stopped).await
                });
            }
        }
    }
}

/// Serves one connection until the client ends it, or the server stops (it then finishes the
/// request in progress).
async fn serve_connection<I, S>(
    http: hyper::server::conn::http1::Builder,
    io: I,
    service: S,
    mut stopped: tokio::sync::watch::Receiver<()>,
) where
    I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
    S: hyper::service::Service<
            hyper::Request<hyper::body::Incoming>,
            Response = axum::response::Response,
            Error = std::convert::Infallible,
        > + Send
        + 'static,
    S::Future: Send + 'static,
{
    let connection = http.serve_connection(hyper_util::rt::TokioIo::new(io), service);
    // A client that goes away or sends garbage ends its own connection.
    let mut connection = std::pin::pin!(connection);
    tokio::select! {
        _ = connection.as_mut() => {}
        _ = stopped.changed() => {
            connection.as_mut().graceful_shutdown();
            let _ = connection.await;
        }
    }
}

/// Binds `addr` and serves (for `blaise serve`), over TLS when `tls` is given.
pub async fn bind_and_serve(
    addr: SocketAddr,
    state: AppState,
    tls: Option<Arc<tokio_rustls::rustls::ServerConfig>>,
) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen on {addr}: {e}"))?;
    let scheme = if tls.is_some() { "https" } else { "http" };
    tracing::info!("listening on {scheme}://{}", listener.local_addr()?);
    tokio::select! {
        served = serve_with(listener, state, tls) => served?,
        _ = shutdown_signal() => tracing::info!("shutting down"),
    }
    Ok(())
}

/// SIGINT or SIGTERM. Every transition is committed when its request is answered, so stopping
/// between requests loses nothing.
async fn shutdown_signal() {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = async {
            match term.as_mut() {
                Some(t) => { t.recv().await; }
                None => std::future::pending::<()>().await,
            }
        } => {}
    }
}
