//! HTTP calls of the runner protocol, with the errors Blaise answers.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::types::*;

/// A failed protocol call.
#[derive(Debug, Clone)]
pub struct ProtocolError {
    /// The HTTP status Blaise answered, or none when no answer came (the
    /// request or its response was lost).
    pub status: Option<u16>,
    /// Blaise's stable error code (`run_finished`, `transcript_gap`, …).
    pub code: Option<String>,
    pub message: String,
}

impl ProtocolError {
    /// True when Blaise never answered: the call may or may not have taken effect.
    pub fn answer_lost(&self) -> bool {
        self.status.is_none()
    }

    pub fn is(&self, code: &str) -> bool {
        self.code.as_deref() == Some(code)
    }
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.status, &self.code) {
            (Some(status), Some(code)) => {
                write!(f, "Blaise answered {status} {code}: {}", self.message)
            }
            (Some(status), None) => write!(f, "Blaise answered {status}: {}", self.message),
            _ => write!(f, "no answer from Blaise: {}", self.message),
        }
    }
}

impl std::error::Error for ProtocolError {}

/// The client could not be made: `BLAISE_CA_FILE` unreadable, no TLS.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct ClientSetupError(pub String);

type Result<T> = std::result::Result<T, ProtocolError>;

/// Repeats `call` as is while Blaise's answer is lost, up to `retries` more
/// times with a doubling delay: every call a run repeats carries what makes
/// the repeat harmless (a report id, transcript seqs). A refusal (a 4xx) is
/// final at once.
pub async fn repeat_while_lost<T, F: Future<Output = Result<T>>>(
    retries: u32,
    mut call: impl FnMut() -> F,
) -> Result<T> {
    let mut delay = Duration::from_millis(100);
    let mut attempt = 0;
    loop {
        match call().await {
            Err(e) if e.answer_lost() && attempt < retries => {
                tracing::warn!("no answer from Blaise ({e}); sending it again");
                tokio::time::sleep(delay).await;
                delay *= 2;
                attempt += 1;
            }
            other => return other,
        }
    }
}

/// A runner's connection to Blaise.
#[derive(Clone)]
pub struct Client {
    http: reqwest::Client,
    base: String,
    token: String,
}

impl Client {
    pub fn new(url: &str, token: &str) -> std::result::Result<Client, ClientSetupError> {
        let http = trusting(
            reqwest::Client::builder()
                .user_agent(concat!("blaise-runner/", env!("CARGO_PKG_VERSION")))
                .connect_timeout(Duration::from_secs(10)),
        )?
        .build()
        .map_err(|e| ClientSetupError(format!("the HTTP client: {e}")))?;
        Ok(Client {
            http,
            base: url.trim_end_matches('/').to_string(),
            token: token.to_string(),
        })
    }

    async fn call<B: Serialize, T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: Option<&B>,
        timeout: Duration,
    ) -> Result<T> {
        self.call_scrubbed(method, path, body, timeout, true).await
    }

    /// `call`, with every string of the body scrubbed of handed-out secrets
    /// when `scrub` (all but plug state, which is opaque bytes the plug owns).
    async fn call_scrubbed<B: Serialize, T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: Option<&B>,
        timeout: Duration,
        scrub: bool,
    ) -> Result<T> {
        let mut request = self
            .http
            .request(method, format!("{}/v1/runner{path}", self.base))
            .bearer_auth(&self.token)
            .timeout(timeout);
        if let Some(body) = body {
            request = if scrub && crate::secret_mask::is_active() {
                // Nothing a plug was handed leaves in a report, a transcript
                // entry or a permission request.
                let mut value = serde_json::to_value(body).map_err(|e| ProtocolError {
                    status: None,
                    code: None,
                    message: format!("encoding the request: {e}"),
                })?;
                crate::secret_mask::scrub_json(&mut value);
                request.json(&value)
            } else {
                request.json(body)
            };
        }
        let lost = |e: reqwest::Error| ProtocolError {
            status: None,
            code: None,
            message: e.to_string(),
        };
        let response = request.send().await.map_err(lost)?;
        let status = response.status();
        let bytes = response.bytes().await.map_err(lost)?;
        if status.is_success() {
            return serde_json::from_slice(if bytes.is_empty() { b"null" } else { &bytes })
                .map_err(|e| ProtocolError {
                    status: Some(status.as_u16()),
                    code: None,
                    message: format!(
                        "unexpected answer ({e}): {}",
                        String::from_utf8_lossy(&bytes)
                    ),
                });
        }
        Err(error_from(status, &bytes))
    }

    const CALL: Duration = Duration::from_secs(30);

    pub async fn connect(
        &self,
        instance: &str,
        agents: &[String],
        capacity: u32,
        labels: &[String],
    ) -> Result<Connected> {
        let body = ConnectRequest {
            instance: instance.into(),
            agents: agents.to_vec(),
            capacity: Some(capacity),
            labels: labels.to_vec(),
        };
        self.call(Method::POST, "/connect", Some(&body), Self::CALL)
            .await
    }

    /// Runs this instance may take; `kept` names the sessions whose agents it
    /// keeps (Blaise answers which to let go).
    pub async fn offers(
        &self,
        instance: &str,
        wait: Duration,
        kept: Vec<String>,
        warm: Option<u32>,
    ) -> Result<Offers> {
        let mut path = format!(
            "/offers?instance={}&wait_ms={}",
            encode(instance),
            wait.as_millis()
        );
        if !kept.is_empty() {
            path.push_str(&format!("&kept={}", encode(&kept.join(","))));
        }
        if let Some(warm) = warm {
            path.push_str(&format!("&warm={warm}"));
        }
        self.call::<(), _>(Method::GET, &path, None, wait + Self::CALL)
            .await
    }

    pub async fn accept(&self, run: &str, instance: &str) -> Result<Assignment> {
        let body = AcceptRequest {
            instance: instance.into(),
        };
        self.call(
            Method::POST,
            &format!("/runs/{run}/accept"),
            Some(&body),
            Self::CALL,
        )
        .await
    }

    pub async fn directives(
        &self,
        run: &str,
        after: u64,
        wait: Duration,
    ) -> Result<DirectiveBatch> {
        let path = format!(
            "/runs/{run}/directives?after={after}&wait_ms={}",
            wait.as_millis()
        );
        self.call::<(), _>(Method::GET, &path, None, wait + Self::CALL)
            .await
    }

    pub async fn report(&self, run: &str, report: &Report) -> Result<ReportAnswer> {
        self.call(
            Method::POST,
            &format!("/runs/{run}/reports"),
            Some(report),
            Self::CALL,
        )
        .await
    }

    pub async fn transcript(
        &self,
        run: &str,
        entries: Vec<TranscriptRecord>,
    ) -> Result<TranscriptAnswer> {
        let body = TranscriptBatch { entries };
        self.call(
            Method::POST,
            &format!("/runs/{run}/transcript"),
            Some(&body),
            Self::CALL,
        )
        .await
    }

    pub async fn heartbeat(&self, run: &str, timeout: Duration) -> Result<HeartbeatAnswer> {
        let body = serde_json::json!({});
        self.call(
            Method::POST,
            &format!("/runs/{run}/heartbeat"),
            Some(&body),
            timeout,
        )
        .await
    }

    pub async fn acp_session(&self, run: &str, acp_session_id: &str) -> Result<()> {
        let body = AcpSession {
            acp_session_id: acp_session_id.into(),
        };
        self.call::<_, serde_json::Value>(
            Method::PUT,
            &format!("/runs/{run}/acp-session"),
            Some(&body),
            Self::CALL,
        )
        .await
        .map(drop)
    }

    pub async fn plug_state(&self, run: &str) -> Result<PlugRecords> {
        self.call::<(), _>(
            Method::GET,
            &format!("/runs/{run}/plug-state"),
            None,
            Self::CALL,
        )
        .await
    }

    pub async fn put_plug_state(
        &self,
        run: &str,
        plug: &str,
        entries: &BTreeMap<String, String>,
    ) -> Result<()> {
        // Values are the plug's opaque bytes and go as they are; keys are
        // shown to Blaise's users (the session view lists them), so a key
        // made of a handed-out secret arrives masked like every other string.
        let entries = entries
            .iter()
            .map(|(key, value)| (crate::secret_mask::scrub(key).into_owned(), value.clone()))
            .collect();
        let body = PutPlugState { entries };
        self.call_scrubbed::<_, serde_json::Value>(
            Method::PUT,
            &format!("/runs/{run}/plug-state/{plug}"),
            Some(&body),
            Self::CALL,
            false,
        )
        .await
        .map(drop)
    }

    pub async fn delete_plug_state(&self, run: &str, plug: &str) -> Result<()> {
        let result = self
            .call::<(), serde_json::Value>(
                Method::DELETE,
                &format!("/runs/{run}/plug-state/{plug}"),
                None,
                Self::CALL,
            )
            .await;
        match result {
            Err(e) if e.status == Some(404) => Ok(()),
            other => other.map(drop),
        }
    }

    pub async fn ask_permission(
        &self,
        run: &str,
        request_id: &str,
        message_id: Option<&str>,
        request: &serde_json::Value,
    ) -> Result<()> {
        let body = AskPermission {
            request_id: request_id.into(),
            message_id: message_id.map(str::to_owned),
            request: request.clone(),
        };
        self.call::<_, serde_json::Value>(
            Method::POST,
            &format!("/runs/{run}/permissions"),
            Some(&body),
            Self::CALL,
        )
        .await
        .map(drop)
    }
}

pub(crate) fn error_from(status: StatusCode, bytes: &[u8]) -> ProtocolError {
    #[derive(serde::Deserialize)]
    struct Body {
        error: Inner,
    }
    #[derive(serde::Deserialize)]
    struct Inner {
        code: String,
        message: String,
    }
    match serde_json::from_slice::<Body>(bytes) {
        Ok(body) => ProtocolError {
            status: Some(status.as_u16()),
            code: Some(body.error.code),
            message: body.error.message,
        },
        Err(_) => ProtocolError {
            status: Some(status.as_u16()),
            code: None,
            message: String::from_utf8_lossy(bytes).chars().take(500).collect(),
        },
    }
}

/// Percent-encodes a query value.
fn encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `builder`, also trusting the certificate authorities in the PEM file `BLAISE_CA_FILE` names
/// (a Blaise served over HTTPS with a certificate a private CA signed; `blaise` reads the same).
fn trusting(
    builder: reqwest::ClientBuilder,
) -> std::result::Result<reqwest::ClientBuilder, ClientSetupError> {
    let Some(file) = std::env::var_os("BLAISE_CA_FILE") else {
        return Ok(builder);
    };
    let shown = std::path::Path::new(&file).display().to_string();
    let pem = std::fs::read(&file)
        .map_err(|e| ClientSetupError(format!("BLAISE_CA_FILE={shown}: cannot read it: {e}")))?;
    let certs = reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| {
        ClientSetupError(format!("BLAISE_CA_FILE={shown}: not PEM certificates: {e}"))
    })?;
    Ok(certs
        .into_iter()
        .fold(builder, |b, cert| b.add_root_certificate(cert)))
}
