//! A client of the user API (admin token): `blaise`'s client commands,
//! `blaise-runner dev` and the tests call the API through it.

use serde_json::Value;

/// Why a call of the user API failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClientError {
    /// The client could not be made: no `BLAISE_TOKEN`, an unreadable
    /// `BLAISE_CA_FILE`.
    #[error("{0}")]
    Setup(String),
    /// The control plane did not answer (down, wrong address, a certificate
    /// it does not trust).
    #[error("{0}")]
    Unreachable(String),
    /// It answered with an error: its message and the HTTP status.
    #[error("{message} ({status})")]
    Refused {
        status: reqwest::StatusCode,
        message: String,
    },
    /// What was to be sent cannot be: an id that is not one path segment.
    #[error("{0}")]
    Invalid(String),
}

type Result<T, E = ClientError> = std::result::Result<T, E>;

/// A client of the user API.
pub struct Client {
    url: String,
    token: String,
    http: reqwest::Client,
}

/// How the CLI introduces itself (`blaise-cli/VERSION`): Blaise records that an answer came
/// through it.
pub const USER_AGENT_NAME: &str = "blaise-cli/";

impl Client {
    pub fn new(url: &str, token: &str) -> Self {
        Client {
            url: url.trim_end_matches('/').to_string(),
            token: token.to_string(),
            http: reqwest::Client::builder()
                .user_agent(user_agent())
                .build()
                .unwrap_or_default(),
        }
    }

    pub fn from_env(url: &str) -> Result<Self> {
        let token = std::env::var("BLAISE_TOKEN").map_err(|_| {
            ClientError::Setup(
                "set BLAISE_TOKEN to the admin token (`blaise serve` prints it on first start)"
                    .into(),
            )
        })?;
        let http = trusting(reqwest::Client::builder().user_agent(user_agent()))?
            .build()
            .map_err(|e| ClientError::Setup(format!("the HTTP client: {e}")))?;
        Ok(Client {
            http,
            ..Client::new(url, &token)
        })
    }

    pub async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> Result<Value> {
        let mut req = self
            .http
            .request(method, format!("{}{path}", self.url))
            .bearer_auth(&self.token);
        if let Some(body) = body {
            req = req.json(&body);
        }
        let resp = req.send().await.map_err(|e| {
            ClientError::Unreachable(format!(
                "cannot reach the control plane at {}: {}",
                self.url,
                cause(&e)
            ))
        })?;
        let status = resp.status();
        let value: Value = resp.json().await.unwrap_or(Value::Null);
        if !status.is_success() {
            let message = value["error"]["message"].as_str().unwrap_or("no message");
            return Err(ClientError::Refused {
                status,
                message: message.to_string(),
            });
        }
        Ok(value)
    }

    pub async fn get(&self, path: &str) -> Result<Value> {
        self.call(reqwest::Method::GET, path, None).await
    }

    pub async fn post(&self, path: &str, body: Value) -> Result<Value> {
        self.call(reqwest::Method::POST, path, Some(body)).await
    }

    pub async fn put(&self, path: &str, body: Value) -> Result<Value> {
        self.call(reqwest::Method::PUT, path, Some(body)).await
    }

    pub async fn delete(&self, path: &str) -> Result<Value> {
        self.call(reqwest::Method::DELETE, path, None).await
    }
}

/// `value` (an id or a name someone typed) as one URL path segment: every byte but the unreserved
/// characters `A-Za-z0-9-._~` percent-encoded, so it cannot add a segment, a query or a fragment
/// (`../runners/box/revoke?` stays one segment, and the server finds no such session). `what` names
/// it in the error for what cannot be sent at all: nothing, `.` and `..`, which URL parsers resolve
/// as dot-segments even when they are written `%2E` or `%2E%2E`.
pub fn segment(what: &str, value: &str) -> Result<String> {
    if matches!(value, "" | "." | "..") {
        return Err(ClientError::Invalid(format!(
            "{value:?} is not a valid {what}"
        )));
    }
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    Ok(out)
}

/// The variable naming a PEM file of certificate authorities to trust besides the public ones:
/// for a `blaise serve --tls-cert` whose certificate a private CA signed.
/// Why a request got no answer, in the words of the layer that failed (the reason is deep in
/// the chain: reqwest → hyper → rustls), with what to do about a certificate it does not trust.
pub fn cause(e: &reqwest::Error) -> String {
    let mut deepest: &dyn std::error::Error = e;
    while let Some(source) = deepest.source() {
        deepest = source;
    }
    if format!("{e} {deepest}").contains("certificate") {
        format!(
            "{deepest} (a certificate it does not trust: if a private CA signed it, set {CA_FILE_VAR} to that CA's PEM file)"
        )
    } else {
        deepest.to_string()
    }
}

pub const CA_FILE_VAR: &str = "BLAISE_CA_FILE";

/// `builder`, also trusting the certificates in `$BLAISE_CA_FILE` when it is set.
fn user_agent() -> String {
    format!("{USER_AGENT_NAME}{}", env!("CARGO_PKG_VERSION"))
}

pub fn trusting(builder: reqwest::ClientBuilder) -> Result<reqwest::ClientBuilder> {
    let Some(file) = std::env::var_os(CA_FILE_VAR) else {
        return Ok(builder);
    };
    let pem = std::fs::read(&file).map_err(|e| {
        ClientError::Setup(format!(
            "{CA_FILE_VAR}={}: cannot read it: {e}",
            std::path::Path::new(&file).display()
        ))
    })?;
    let certs = reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| {
        ClientError::Setup(format!(
            "{CA_FILE_VAR}={}: not PEM certificates: {e}",
            std::path::Path::new(&file).display()
        ))
    })?;
    Ok(certs
        .into_iter()
        .fold(builder, |b, cert| b.add_root_certificate(cert)))
}

#[cfg(test)]
mod tests {
    use super::segment;

    #[test]
    fn a_segment_stays_one_segment() {
        assert_eq!(segment("id", "ses_01ab").unwrap(), "ses_01ab");
        assert_eq!(segment("id", "a.b-c_d~e").unwrap(), "a.b-c_d~e");
        assert_eq!(
            segment("id", "../runners/box/revoke?").unwrap(),
            "..%2Frunners%2Fbox%2Frevoke%3F"
        );
        assert_eq!(
            segment("id", "a b#c%d\\e\n").unwrap(),
            "a%20b%23c%25d%5Ce%0A"
        );
        assert_eq!(segment("id", "é").unwrap(), "%C3%A9");
        let url = reqwest::Url::parse(&format!(
            "http://h/v1/sessions/{}/close",
            segment("id", "../runners/box/revoke?x=1#f").unwrap()
        ))
        .unwrap();
        assert_eq!(
            url.path(),
            "/v1/sessions/..%2Frunners%2Fbox%2Frevoke%3Fx%3D1%23f/close"
        );
        assert_eq!((url.query(), url.fragment()), (None, None));
    }

    #[test]
    fn dot_segments_are_refused_because_no_encoding_survives() {
        for dots in ["", ".", ".."] {
            let e = segment("session id", dots).unwrap_err().to_string();
            assert!(e.contains("not a valid session id"), "{e}");
        }
        // Why: the URL parser resolves encoded dot-segments too.
        let url = reqwest::Url::parse("http://h/v1/sessions/%2E%2E/close").unwrap();
        assert_eq!(url.path(), "/v1/close");
        assert_eq!(segment("id", "...").unwrap(), "...");
        assert_eq!(segment("id", "%2E%2E").unwrap(), "%252E%252E");
    }
}
