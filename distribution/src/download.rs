//! HTTP reads from registries, indexes and plug URLs, none of which is
//! trusted: every body is read up to a cap fixed *before* the request (a
//! `Content-Length` or a manifest's `size` is a claim, checked, never a
//! capacity), a download has an idle timeout and a total deadline, and
//! redirects are followed by our rules, not the HTTP client's (see
//! [`Fetcher::get`]).
//!
//! The limits come from the environment, like the other registry settings:
//! `BLAISE_MAX_PLUG_SIZE` (default 128 MiB: a component made by
//! componentize-py is ~40 MB) and `BLAISE_DOWNLOAD_TIMEOUT` (default 10 min for
//! one download); a download that receives nothing for 30 s is cut.

use std::io::Write as _;
use std::net::IpAddr;
use std::time::{Duration, Instant};

use reqwest::header::{HeaderMap, LOCATION};
use reqwest::{Method, StatusCode, Url};
use sha2::{Digest as _, Sha256};

use super::reference::Digest;
use super::reference::is_insecure;
use crate::error::{Result, bail, err};
use blaise_host::units::{format_duration, format_size, parse_duration, parse_size};

/// What this module's failures are, unless one says otherwise.
const KIND: crate::error::Kind = crate::error::Kind::Fetch;

/// The largest plug (component) downloaded, unless `BLAISE_MAX_PLUG_SIZE` says.
pub const DEFAULT_MAX_PLUG: u64 = 128 << 20;
/// One download's whole time, unless `BLAISE_DOWNLOAD_TIMEOUT` says.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);
/// A download that receives nothing for this long is cut.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(30);
/// Redirects followed for one request.
const MAX_REDIRECTS: usize = 5;
/// What is kept of an error body, for the message.
const ERROR_BODY: usize = 4 << 10;

/// The limits downloads run under.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_plug: u64,
    pub timeout: Duration,
    pub idle: Duration,
}

impl Limits {
    /// From `BLAISE_MAX_PLUG_SIZE` and `BLAISE_DOWNLOAD_TIMEOUT`.
    pub fn from_env() -> Result<Limits> {
        let max_plug = match std::env::var("BLAISE_MAX_PLUG_SIZE") {
            Ok(text) => parse_size(&text).ok().filter(|&n| n > 0).ok_or_else(|| {
                err!(
                    BadInput,
                    "BLAISE_MAX_PLUG_SIZE=`{}` is not a size (e.g. `256MiB`)",
                    shown(&text)
                )
            })?,
            Err(_) => DEFAULT_MAX_PLUG,
        };
        let timeout = match std::env::var("BLAISE_DOWNLOAD_TIMEOUT") {
            Ok(text) => parse_duration(&text)
                .ok()
                .filter(|d| !d.is_zero())
                .ok_or_else(|| {
                    err!(
                        BadInput,
                        "BLAISE_DOWNLOAD_TIMEOUT=`{}` is not a duration (e.g. `10m`)",
                        shown(&text)
                    )
                })?,
            Err(_) => DEFAULT_TIMEOUT,
        };
        Ok(Limits {
            max_plug,
            timeout,
            idle: IDLE_TIMEOUT.min(timeout),
        })
    }
}

/// What a request fetches: it decides which redirects are followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Content named by its digest (a blob), or a plug file checked against
    /// its digest before use: may move to another host (a CDN), over HTTPS.
    Content,
    /// A manifest, a tag, a token, an index: what names content. Stays on
    /// the host it was asked of.
    Naming,
}

/// An HTTP client for untrusted servers.
pub struct Fetcher {
    client: reqwest::Client,
    pub limits: Limits,
}

impl Fetcher {
    pub fn new() -> Result<Fetcher> {
        let limits = Limits::from_env()?;
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(Duration::from_secs(10))
            .read_timeout(limits.idle)
            .user_agent(concat!("blaise-runner/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| err!("creating the HTTP client: {e}"))?;
        Ok(Fetcher { client, limits })
    }

    /// Sends a request and follows redirects by these rules: to the same
    /// origin always; to another origin only for [`Kind::Content`], only to
    /// `https://` and never to an address of this machine or its private
    /// networks named by IP; at most five. Credentials (`auth`) go to the
    /// first origin only. Any status is returned; the caller judges it.
    pub async fn get(
        &self,
        method: Method,
        url: Url,
        kind: Kind,
        headers: HeaderMap,
        auth: Option<&str>,
    ) -> Result<reqwest::Response> {
        let first = origin(&url);
        let mut url = url;
        let deadline = tokio::time::Instant::now() + self.limits.timeout;
        for _ in 0..=MAX_REDIRECTS {
            check_scheme(&url)?;
            let mut request = self
                .client
                .request(method.clone(), url.clone())
                .headers(headers.clone());
            if let Some(auth) = auth
                && origin(&url) == first
            {
                request = request.header(reqwest::header::AUTHORIZATION, auth);
            }
            let response = tokio::time::timeout_at(deadline, request.send())
                .await
                .map_err(|_| {
                    err!(
                        "{}: no answer within {}",
                        shown(url.as_str()),
                        format_duration(self.limits.timeout)
                    )
                })?
                .map_err(|e| err!("{}: {}", shown(url.as_str()), error_chain(&e)))?;
            if !response.status().is_redirection() || response.status() == StatusCode::NOT_MODIFIED
            {
                return Ok(response);
            }
            let location = response
                .headers()
                .get(LOCATION)
                .and_then(|l| l.to_str().ok())
                .ok_or_else(|| {
                    err!(
                        "{}: the server answered {} without a usable Location",
                        shown(url.as_str()),
                        response.status()
                    )
                })?;
            let next = url.join(location).map_err(|_| {
                err!(
                    "{}: redirected to `{}`, not a URL",
                    shown(url.as_str()),
                    shown(location)
                )
            })?;
            redirect_allowed(&url, &next, kind)?;
            url = next;
        }
        bail!(
            "{}: more than {MAX_REDIRECTS} redirects",
            shown(url.as_str())
        )
    }

    /// Reads a whole body of at most `cap` bytes; `what` names it in errors.
    pub async fn read_capped(
        &self,
        mut response: reqwest::Response,
        cap: u64,
        what: &str,
    ) -> Result<Vec<u8>> {
        if let Some(length) = response.content_length()
            && length > cap
        {
            bail!(
                Verify,
                "{what}: the server announces {} bytes, more than the {} allowed",
                length,
                format_size(cap)
            );
        }
        let deadline = tokio::time::Instant::now() + self.limits.timeout;
        let mut pace = Pace::new(IDLE_TIMEOUT, Instant::now());
        let mut bytes = Vec::new();
        while let Some(chunk) = self.chunk(&mut response, deadline, what).await? {
            pace.add(chunk.len(), Instant::now())
                .map_err(|why| err!("{what}: {why}: cut"))?;
            if bytes.len() as u64 + chunk.len() as u64 > cap {
                bail!(
                    Verify,
                    "{what}: the server sent more than the {} allowed",
                    format_size(cap)
                );
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok(bytes)
    }

    /// Streams a body into `file`, hashing it on the way: at most `cap`
    /// bytes, exactly `expected` when the sender declared a size. Returns the
    /// digest and the length. `bar` shows the progress.
    pub async fn stream_to(
        &self,
        mut response: reqwest::Response,
        file: &mut std::fs::File,
        cap: u64,
        expected: Option<u64>,
        what: &str,
        bar: &indicatif::ProgressBar,
    ) -> Result<(Digest, u64)> {
        let limit = expected.unwrap_or(cap).min(cap);
        match (response.content_length(), expected) {
            (Some(length), Some(declared)) if length != declared => bail!(
                Verify,
                "{what}: the registry sends {length} bytes, but the manifest declares {declared}: refused"
            ),
            (Some(length), _) if length > limit => bail!(
                Verify,
                "{what}: the server announces {}, more than the {} allowed (BLAISE_MAX_PLUG_SIZE)",
                format_size(length),
                format_size(limit)
            ),
            _ => {}
        }
        let deadline = tokio::time::Instant::now() + self.limits.timeout;
        let mut hasher = Sha256::new();
        let mut length = 0u64;
        let mut pace = Pace::new(IDLE_TIMEOUT, Instant::now());
        while let Some(chunk) = self.chunk(&mut response, deadline, what).await? {
            pace.add(chunk.len(), Instant::now())
                .map_err(|why| err!("{what}: {why}: cut"))?;
            length += chunk.len() as u64;
            if length > limit {
                match expected {
                    Some(declared) if declared <= cap => bail!(
                        Verify,
                        "{what}: the registry sent more than the {declared} bytes the manifest declares: refused"
                    ),
                    _ => bail!(
                        Verify,
                        "{what}: more than the {} allowed (BLAISE_MAX_PLUG_SIZE): refused",
                        format_size(cap)
                    ),
                }
            }
            hasher.update(&chunk);
            file.write_all(&chunk)
                .map_err(|e| err!(Disk, "{what}: writing it to the cache: {e}"))?;
            bar.inc(chunk.len() as u64);
        }
        if let Some(declared) = expected
            && length != declared
        {
            bail!(
                Verify,
                "{what}: the download ended after {length} of the {declared} bytes the manifest declares"
            );
        }
        file.sync_all()
            .map_err(|e| err!(Disk, "{what}: writing it to the cache: {e}"))?;
        Ok((Digest::from_hex(&hex::encode(hasher.finalize())), length))
    }

    /// The next piece of a body, within the download's deadline.
    async fn chunk(
        &self,
        response: &mut reqwest::Response,
        deadline: tokio::time::Instant,
        what: &str,
    ) -> Result<Option<bytes::Bytes>> {
        match tokio::time::timeout_at(deadline, response.chunk()).await {
            Err(_) => bail!(
                "{what}: the download took longer than {} (BLAISE_DOWNLOAD_TIMEOUT): cut",
                format_duration(self.limits.timeout)
            ),
            Ok(Err(e)) if e.is_timeout() => bail!(
                "{what}: nothing received for {}: cut",
                format_duration(self.limits.idle)
            ),
            Ok(Err(e)) => bail!("{what}: {}", error_chain(&e)),
            Ok(Ok(chunk)) => Ok(chunk),
        }
    }

    /// A short, printable excerpt of an error response, for messages.
    pub async fn error_text(&self, response: reqwest::Response) -> String {
        let status = response.status();
        let body = self
            .read_capped_lossy(response, ERROR_BODY as u64)
            .await
            .unwrap_or_default();
        // Registries answer `{"errors":[{"code":…,"message":…}]}`.
        let message = serde_json::from_slice::<serde_json::Value>(&body)
            .ok()
            .and_then(|v| {
                v.get("errors")?
                    .as_array()?
                    .first()?
                    .get("message")?
                    .as_str()
                    .map(str::to_string)
            });
        match message {
            Some(m) if !m.is_empty() => format!("{status}: {}", shown(&m)),
            _ => status.to_string(),
        }
    }

    async fn read_capped_lossy(
        &self,
        mut response: reqwest::Response,
        cap: u64,
    ) -> Option<Vec<u8>> {
        let mut bytes = Vec::new();
        let read = async {
            while let Ok(Some(chunk)) = response.chunk().await {
                let room = (cap as usize).saturating_sub(bytes.len());
                bytes.extend_from_slice(&chunk[..chunk.len().min(room)]);
                if bytes.len() as u64 >= cap {
                    break;
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(5), read)
            .await
            .ok()?;
        Some(bytes)
    }
}

/// The slowest a download may go: on average over each window of
/// [`IDLE_TIMEOUT`] (30 s), at least this many bytes a second. A server that trickles
/// (a byte now and then, never silent long enough for the idle timeout) is
/// cut within two windows, not at the whole-download deadline.
pub const MIN_RATE: u64 = 1 << 10;

/// Counts a download's bytes per window against [`MIN_RATE`].
struct Pace {
    window: Duration,
    since: Instant,
    bytes: u64,
}

impl Pace {
    fn new(window: Duration, now: Instant) -> Pace {
        Pace {
            window,
            since: now,
            bytes: 0,
        }
    }

    fn add(&mut self, n: usize, now: Instant) -> Result<(), String> {
        self.bytes += n as u64;
        let elapsed = now.saturating_duration_since(self.since);
        if elapsed < self.window {
            return Ok(());
        }
        if (self.bytes as u128) * 1000 < (MIN_RATE as u128) * elapsed.as_millis() {
            return Err(format!(
                "slower than {} a second for {}",
                format_size(MIN_RATE),
                format_duration(elapsed)
            ));
        }
        (self.since, self.bytes) = (now, 0);
        Ok(())
    }
}

/// `scheme://host:port`, what credentials are scoped to.
fn origin(url: &Url) -> String {
    format!(
        "{}://{}:{}",
        url.scheme(),
        url.host_str().unwrap_or(""),
        url.port_or_known_default().unwrap_or(0)
    )
}

/// Plain HTTP only to this machine (or `BLAISE_INSECURE_REGISTRIES`), as for
/// registries; no credentials in URLs.
fn check_scheme(url: &Url) -> Result<()> {
    match url.scheme() {
        "https" => {}
        "http" if is_insecure(&host_port(url)) => {}
        "http" => bail!(
            BadInput,
            "`{}`: plain http:// is only allowed to this machine; use https:// (or list the host in BLAISE_INSECURE_REGISTRIES)",
            shown(url.as_str())
        ),
        other => bail!(
            BadInput,
            "`{}`: `{other}://` is not fetched",
            shown(url.as_str())
        ),
    }
    if !url.username().is_empty() || url.password().is_some() {
        bail!(
            BadInput,
            "a URL with credentials in it is not fetched: give them in BLAISE_REGISTRY_USERNAME / BLAISE_REGISTRY_PASSWORD"
        );
    }
    Ok(())
}

fn host_port(url: &Url) -> String {
    match (url.host_str(), url.port()) {
        (Some(h), Some(p)) => format!("{h}:{p}"),
        (Some(h), None) => h.to_string(),
        _ => String::new(),
    }
}

pub(super) fn redirect_allowed(from: &Url, to: &Url, kind: Kind) -> Result<()> {
    if origin(from) == origin(to) {
        return Ok(());
    }
    let refuse = |why: &str| {
        err!(
            Verify,
            "{} redirected to {}: {why}; refused",
            shown(from.as_str()),
            shown(to.as_str())
        )
    };
    if kind == Kind::Naming {
        return Err(refuse(
            "a manifest, tag, token or index is only read from the host it was asked of",
        ));
    }
    if to.scheme() != "https" {
        return Err(refuse("content moves to another host only over https://"));
    }
    let private = match to.host() {
        Some(url::Host::Ipv4(ip)) => is_local(IpAddr::V4(ip)),
        Some(url::Host::Ipv6(ip)) => is_local(IpAddr::V6(ip)),
        Some(url::Host::Domain(d)) => {
            d.eq_ignore_ascii_case("localhost") || d.ends_with(".localhost")
        }
        None => true,
    };
    if private {
        return Err(refuse(
            "a server elsewhere may not send this machine to its own or private addresses",
        ));
    }
    Ok(())
}

/// Loopback, private, link-local, unspecified: addresses a remote server has
/// no business sending us to.
fn is_local(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(ip) => {
            ip.is_loopback()
                || ip.is_private()
                || ip.is_link_local()
                || ip.is_unspecified()
                || ip.is_broadcast()
                || ip.octets()[0] == 100 && ip.octets()[1] & 0xc0 == 64
        }
        IpAddr::V6(ip) => {
            ip.is_loopback()
                || ip.is_unspecified()
                || (ip.segments()[0] & 0xfe00) == 0xfc00
                || (ip.segments()[0] & 0xffc0) == 0xfe80
                || ip
                    .to_ipv4_mapped()
                    .is_some_and(|v4| is_local(IpAddr::V4(v4)))
        }
    }
}

/// An error and its causes, one line: reqwest's own `Display` hides the cause
/// ("error sending request") that says what happened.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    shown(&text)
}

/// A string from the network, made safe to print: control characters
/// escaped (no terminal escape sequences reach the operator's screen) and cut
/// to 200 characters.
pub fn shown(text: &str) -> String {
    blaise_protocol::text::shown(text, 200)
}

pub use blaise_protocol::text::printable;

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn naming_requests_stay_on_their_host_and_content_moves_only_to_public_https() {
        let from = url("http://127.0.0.1:5000/v2/p/blobs/sha256:aa");
        assert!(redirect_allowed(&from, &url("http://127.0.0.1:5000/other"), Kind::Naming).is_ok());
        assert!(redirect_allowed(&from, &url("http://127.0.0.1:5001/x"), Kind::Naming).is_err());
        assert!(redirect_allowed(&from, &url("http://127.0.0.1:5001/x"), Kind::Content).is_err());
        assert!(redirect_allowed(&from, &url("https://cdn.example.com/x"), Kind::Content).is_ok());
        let remote = url("https://ghcr.io/v2/p/blobs/sha256:aa");
        for local in [
            "https://127.0.0.1/x",
            "https://10.1.2.3/x",
            "https://169.254.169.254/latest",
            "https://[::1]/x",
            "https://[::ffff:127.0.0.1]/x",
            "https://localhost/x",
            "https://[fd00::1]/x",
        ] {
            assert!(
                redirect_allowed(&remote, &url(local), Kind::Content).is_err(),
                "{local}"
            );
        }
        assert!(
            redirect_allowed(&remote, &url("http://cdn.example.com/x"), Kind::Content).is_err()
        );
    }

    #[test]
    fn a_trickle_is_cut_and_a_slow_but_steady_download_is_not() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let window = Duration::from_secs(30);
        // A byte every second: fine until the window ends, then cut.
        let mut trickle = Pace::new(window, t0);
        for s in 1..30 {
            assert!(trickle.add(1, at(s * 1000)).is_ok());
        }
        let why = trickle.add(1, at(30_000)).unwrap_err();
        assert!(why.contains("slower than 1KiB a second"), "{why}");
        // 2 KiB a second for ten minutes: never cut.
        let mut steady = Pace::new(window, t0);
        for s in 1..600 {
            assert!(steady.add(2048, at(s * 1000)).is_ok(), "{s}");
        }
    }

    #[test]
    fn network_text_is_printable_and_short() {
        assert_eq!(shown("a\x1b[31mb\n"), "a\\u{1b}[31mb\\n");
        // A right-to-left override would make `evil.txt` read as `txt.live`.
        assert_eq!(
            printable("a\u{202E}b\u{2066}c\u{200B}"),
            "a\\u{202e}b\\u{2066}c\\u{200b}"
        );
        assert_eq!(shown(&"x".repeat(500)).chars().count(), 201);
        // Tables print whole cells, escaped.
        let cell = printable(&format!("{}\u{1b}]0;x\u{7}", "y".repeat(300)));
        assert_eq!(cell, format!("{}\\u{{1b}}]0;x\\u{{7}}", "y".repeat(300)));
    }

    #[test]
    fn credentials_in_urls_and_other_schemes_are_refused() {
        assert!(check_scheme(&url("https://u:p@example.com/x")).is_err());
        assert!(check_scheme(&url("ftp://example.com/x")).is_err());
        assert!(check_scheme(&url("http://example.com/x")).is_err());
        assert!(check_scheme(&url("http://127.0.0.1:9/x")).is_ok());
    }
}
