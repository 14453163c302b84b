//! The HTTP layer: the routes of the runner protocol (`runner`), the user API (`api`), the
//! dashboard and the message sources' webhooks (`sources`), what requests must carry
//! (`extract`), errors as responses (`error`), and serving them. The work is the domain's
//! ([`crate::state::AppState`] and what it calls).

pub mod api;
pub mod dashboard;
pub mod error;
pub mod extract;
pub mod runner;
mod sources;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;

use crate::error::{Error, Result};
use crate::model::now;
pub use crate::state::AppState;
pub use extract::{AsAdmin, AsOperator, AsViewer, Body, DASHBOARD_COOKIE, Params, RunnerAuth};

pub fn router(state: AppState) -> Router {
    Router::new()
        .merge(runner::routes())
        .merge(api::routes())
        .merge(dashboard::routes(state.clone()))
        .route(
            "/v1/sources/linear/{app}",
            axum::routing::post(sources::linear),
        )
        .route("/v1/health", axum::routing::get(health))
        .route("/metrics", axum::routing::get(metrics))
        .fallback(|| async { Error::NotFound("no such endpoint".into()) })
        .with_state(state)
}

/// For Prometheus: the metrics of `crate::metrics`, the gauges read now in one read-only
/// transaction. Needs no token, like `/v1/health`: it holds counts by state and kind (and agents'
/// names), no ids or text.
async fn metrics(
    axum::extract::State(state): axum::extract::State<AppState>,
) -> Result<axum::response::Response> {
    use axum::response::IntoResponse;
    let fresh_ms = state.cfg.connection_fresh_ms();
    let (census, instances, pending, now) = state
        .read(|ctx| {
            let census = ctx.tx.census()?;
            let instances = ctx.tx.connections(ctx.now.saturating_sub(fresh_ms))?.len();
            let mut pending = std::collections::BTreeMap::<String, u64>::new();
            for (session, requests) in crate::views::pending_by_session(ctx)? {
                if let Some(s) = ctx.tx.read_session(&session)? {
                    *pending.entry(s.agent).or_default() += requests.len() as u64;
                }
            }
            Ok((census, instances, pending, ctx.now))
        })
        .await?;
    let text = crate::metrics::render(&crate::metrics::Snapshot {
        census,
        pending_permission_requests: pending.into_iter().collect(),
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
    let _sources = StopOnDrop(tokio::spawn(crate::state::pump::run(state.clone())));
    let _webhooks = StopOnDrop(tokio::spawn(crate::state::webhooks::run(state.clone())));
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
) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| std::io::Error::new(e.kind(), format!("cannot listen on {addr}: {e}")))?;
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
