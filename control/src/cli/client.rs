//! A client of the user API (admin token).

use anyhow::{Context, Result, anyhow, bail};
use serde_json::Value;

/// A client of the user API.
pub struct Client {
    url: String,
    token: String,
    http: reqwest::Client,
}

impl Client {
    pub fn new(url: &str, token: &str) -> Self {
        Client {
            url: url.trim_end_matches('/').to_string(),
            token: token.to_string(),
            http: reqwest::Client::new(),
        }
    }

    pub fn from_env(url: &str) -> Result<Self> {
        let token = std::env::var("BLAISE_TOKEN").map_err(|_| {
            anyhow!("set BLAISE_TOKEN to the admin token (`blaise serve` prints it on first start)")
        })?;
        Ok(Client::new(url, &token))
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
        let resp = req
            .send()
            .await
            .with_context(|| format!("cannot reach the control plane at {}", self.url))?;
        let status = resp.status();
        let value: Value = resp.json().await.unwrap_or(Value::Null);
        if !status.is_success() {
            let message = value["error"]["message"].as_str().unwrap_or("no message");
            bail!("{message} ({status})");
        }
        Ok(value)
    }

    pub async fn get(&self, path: &str) -> Result<Value> {
        self.call(reqwest::Method::GET, path, None).await
    }

    pub async fn post(&self, path: &str, body: Value) -> Result<Value> {
        self.call(reqwest::Method::POST, path, Some(body)).await
    }
}
