//! Linear's GraphQL API, as Blaise calls it: an activity in an agent session, the session's link
//! back to Blaise. Each call says whether a failure may pass if tried again (Linear away, a rate
//! limit: when to try) or will not (Linear refused what was sent).

use std::time::Duration;

use serde_json::{Value, json};

use crate::model::Millis;
use crate::sources::Failure;

const ACTIVITY: &str = "mutation AgentActivityCreate($input: AgentActivityCreateInput!) {
  agentActivityCreate(input: $input) { success agentActivity { id } }
}";

const SESSION_UPDATE: &str =
    "mutation AgentSessionUpdate($id: String!, $input: AgentSessionUpdateInput!) {
  agentSessionUpdate(id: $id, input: $input) { success }
}";

/// A call that takes longer fails (and is tried again): the pump must not hang on Linear.
const TIMEOUT: Duration = Duration::from_secs(10);

pub struct Api {
    http: reqwest::Client,
    url: String,
    /// The `Authorization` header: `Bearer <token>` for an OAuth token, a personal API key as it
    /// is (Linear takes those without `Bearer`).
    authorization: String,
}

impl Api {
    pub fn new(url: &str, token: &str) -> Api {
        let authorization = if token.starts_with("lin_api_") {
            token.to_string()
        } else {
            format!("Bearer {token}")
        };
        Api {
            http: reqwest::Client::builder()
                .timeout(TIMEOUT)
                .build()
                .expect("a client with a timeout builds"),
            url: url.to_string(),
            authorization,
        }
    }

    /// Creates an activity in the agent session `session`; `id` (a UUID) makes a retry of the
    /// same activity recognisable.
    pub async fn create_activity(
        &self,
        session: &str,
        id: &str,
        activity: &Value,
    ) -> Result<(), Failure> {
        let mut input = activity.clone();
        input["agentSessionId"] = json!(session);
        input["id"] = json!(id);
        let data = self.call(ACTIVITY, json!({ "input": input })).await?;
        match data["agentActivityCreate"]["success"].as_bool() {
            Some(true) => Ok(()),
            _ => Err(Failure::Refused(
                "Linear did not create the activity (success: false)".into(),
            )),
        }
    }

    /// Sets the agent session's links (`[{label, url}]`, replacing what it had).
    pub async fn set_links(&self, session: &str, links: &Value) -> Result<(), Failure> {
        let data = self
            .call(
                SESSION_UPDATE,
                json!({ "id": session, "input": { "externalUrls": links } }),
            )
            .await?;
        match data["agentSessionUpdate"]["success"].as_bool() {
            Some(true) => Ok(()),
            _ => Err(Failure::Refused(
                "Linear did not update the agent session (success: false)".into(),
            )),
        }
    }

    async fn call(&self, query: &str, variables: Value) -> Result<Value, Failure> {
        let response = self
            .http
            .post(&self.url)
            .header("authorization", &self.authorization)
            .json(&json!({ "query": query, "variables": variables }))
            .send()
            .await
            .map_err(|e| Failure::Retry {
                after: None,
                why: format!("Linear did not answer: {}", without_url(&e)),
            })?;
        let status = response.status();
        let reset = header_ms(&response, "x-ratelimit-requests-reset")
            .max(header_ms(&response, "x-ratelimit-complexity-reset"));
        let body: Value = response.json().await.unwrap_or(Value::Null);
        let errors = body["errors"].as_array().cloned().unwrap_or_default();
        let limited = status.as_u16() == 429
            || errors.iter().any(|e| {
                e["extensions"]["code"].as_str() == Some("RATELIMITED")
                    || e["extensions"]["type"].as_str() == Some("ratelimited")
            });
        if limited {
            return Err(Failure::Retry {
                after: reset,
                why: "Linear's rate limit".into(),
            });
        }
        if status.is_server_error() {
            return Err(Failure::Retry {
                after: None,
                why: format!("Linear answered {status}"),
            });
        }
        if status.as_u16() == 401 || status.as_u16() == 403 {
            // A token revoked or expired: nothing passes until an operator gives a new one, and
            // what waits must not be lost meanwhile.
            return Err(Failure::Retry {
                after: None,
                why: format!("Linear refused the access token ({status})"),
            });
        }
        if let Some(e) = errors.first() {
            let message = e["message"].as_str().unwrap_or("an error");
            return Err(Failure::Refused(format!(
                "Linear refused the call ({status}): {}",
                crate::names::shown(message)
            )));
        }
        if !status.is_success() {
            return Err(Failure::Refused(format!("Linear answered {status}")));
        }
        Ok(body["data"].clone())
    }
}

/// A rate limit's reset, an absolute time in ms since the epoch.
fn header_ms(response: &reqwest::Response, name: &str) -> Option<Millis> {
    response
        .headers()
        .get(name)?
        .to_str()
        .ok()?
        .trim()
        .parse::<f64>()
        .ok()
        .map(|v| v as Millis)
}

/// reqwest's error without the URL it names (the URL is the operator's own, but one error form
/// for every failure reads better in the log).
fn without_url(e: &reqwest::Error) -> String {
    let kind = if e.is_timeout() {
        "timed out"
    } else if e.is_connect() {
        "cannot connect"
    } else {
        "request failed"
    };
    kind.to_string()
}
