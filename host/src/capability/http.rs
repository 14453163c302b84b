//! The `http` import: outbound requests to granted hosts only. Redirects are
//! not followed (one could lead to a host that is not granted).

use std::time::{Duration, Instant};

use reqwest::{Method, Url};

use crate::bindings::blaise::plug::http::{Host, HttpError, Request, Response};
use crate::ctx::{PlugCtx, PlugLabel};
use crate::grants::HttpGrant;
use crate::process::list_or_none;

/// Most bytes of a response body handed to a plug.
const MAX_BODY: usize = 16 << 20;

/// What the `http` import sees of the store: the plug's HTTP grant, the
/// client, and the hook's deadline.
pub struct HttpCap<'a> {
    pub grant: &'a HttpGrant,
    pub client: &'a reqwest::Client,
    pub deadline: Instant,
    pub label: &'a PlugLabel,
}

/// Links `http` with [`HttpCap`].
pub struct Http;

impl wasmtime::component::HasData for Http {
    type Data<'a> = HttpCap<'a>;
}

pub fn view(ctx: &mut PlugCtx) -> HttpCap<'_> {
    HttpCap {
        grant: &ctx.grants.http,
        client: &ctx.http,
        deadline: ctx.deadline,
        label: &ctx.label,
    }
}

impl Host for HttpCap<'_> {
    async fn send(&mut self, req: Request) -> Result<Response, HttpError> {
        let url =
            Url::parse(&req.url).map_err(|e| HttpError::InvalidUrl(format!("{}: {e}", req.url)))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(HttpError::InvalidUrl(format!(
                "{}: only http and https",
                req.url
            )));
        }
        let host = url.host_str().unwrap_or_default().to_string();
        let port = url.port_or_known_default().unwrap_or(0);
        if !self.grant.allows(&host, port) {
            tracing::warn!(
                plug = %self.label.plug_id, session = %self.label.session_id,
                host, port, "denied: HTTP to a host not granted"
            );
            return Err(HttpError::Denied(format!(
                "{host}:{port} is not granted to this plug (granted: {})",
                list_or_none(&self.grant.0)
            )));
        }
        // The grant is checked on the URL's host; a `Host` header of the
        // plug's would send the request to another site behind the same
        // address (a shared proxy or CDN routes by it).
        if let Some((name, _)) = req
            .headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("host"))
        {
            return Err(HttpError::Denied(format!(
                "the `{name}` header is set from the URL; the grant is checked against the URL's host"
            )));
        }
        let method = Method::from_bytes(req.method.as_bytes())
            .map_err(|_| HttpError::InvalidUrl(format!("bad method `{}`", req.method)))?;
        let left = self.deadline.saturating_duration_since(Instant::now());
        let timeout = req
            .timeout_ms
            .map_or(left, |ms| Duration::from_millis(ms).min(left));
        let mut builder = self
            .client
            .request(method, url)
            .timeout(timeout)
            .body(req.body);
        for (name, value) in &req.headers {
            builder = builder.header(name, value);
        }
        let mut resp = builder
            .send()
            .await
            .map_err(|e| HttpError::Failed(with_causes(&e)))?;
        let status = resp.status().as_u16();
        let headers = resp
            .headers()
            .iter()
            .map(|(k, v)| {
                (
                    k.to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect();
        let mut body = Vec::new();
        while let Some(chunk) = resp
            .chunk()
            .await
            .map_err(|e| HttpError::Failed(e.to_string()))?
        {
            if body.len() + chunk.len() > MAX_BODY {
                return Err(HttpError::Failed(format!(
                    "response body larger than {} MiB",
                    MAX_BODY >> 20
                )));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(Response {
            status,
            headers,
            body,
        })
    }
}

/// An error and what caused it (reqwest's own text names only the URL; a
/// refused resolution is in its causes).
fn with_causes(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let more = cause.to_string();
        if !text.contains(&more) {
            text = format!("{text}: {more}");
        }
        source = cause.source();
    }
    text
}

/// The client shared by all plugs of a runner: names resolve to public
/// addresses only ([`crate::public_dns`]).
pub fn client() -> Result<reqwest::Client, crate::HostError> {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .dns_resolver(std::sync::Arc::new(crate::public_dns::PublicOnly))
        .user_agent(concat!("blaise-runner/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| crate::HostError::Setup(format!("building the HTTP client: {e}")))
}
