//! Linear's GraphQL API, as Blaise calls it: an activity in an agent session, the session's link
//! back to Blaise. Each call says whether a failure may pass if tried again (Linear away, a rate
//! limit: when to try) or will not (Linear refused what was sent).

use std::time::Duration;

use serde_json::{Value, json};

use super::config::Auth;
use crate::model::Millis;
use crate::sources::Failure;

const ACTIVITY: &str = "mutation AgentActivityCreate($input: AgentActivityCreateInput!) {
  agentActivityCreate(input: $input) { success agentActivity { id } }
}";

const SESSION_UPDATE: &str =
    "mutation AgentSessionUpdate($id: String!, $input: AgentSessionUpdateInput!) {
  agentSessionUpdate(id: $id, input: $input) { success }
}";

const ISSUE: &str = "query IssueState($id: String!) {
  issue(id: $id) { id state { id type } delegate { id } team { id } }
}";

const STARTED_STATES: &str = "query TeamStartedStatuses($teamId: String!) {
  team(id: $teamId) { states(filter: { type: { eq: \"started\" } }) { nodes { id name position } } }
}";

const ISSUE_UPDATE: &str = "mutation IssueUpdate($id: String!, $input: IssueUpdateInput!) {
  issueUpdate(id: $id, input: $input) { success }
}";

/// A call that takes longer fails (and is tried again): the pump must not hang on Linear.
const TIMEOUT: Duration = Duration::from_secs(10);

pub struct Api {
    http: reqwest::Client,
    url: String,
    auth: Auth,
    /// The `Authorization` header in use, and when it expires (client credentials' tokens do).
    authorization: tokio::sync::Mutex<Option<(String, Option<std::time::Instant>)>>,
}

/// The scopes an agent's app token asks for (Linear's "Getting started" with agents).
const SCOPES: &str = "read,write,app:assignable,app:mentionable";

impl Api {
    pub fn new(url: &str, auth: &Auth) -> Api {
        Api {
            http: reqwest::Client::builder()
                .timeout(TIMEOUT)
                .build()
                .expect("a client with a timeout builds"),
            url: url.to_string(),
            auth: auth.clone(),
            authorization: tokio::sync::Mutex::new(None),
        }
    }

    /// Linear's OAuth token endpoint, beside its GraphQL endpoint.
    fn token_url(&self) -> String {
        match self.url.strip_suffix("/graphql") {
            Some(base) => format!("{base}/oauth/token"),
            None => format!("{}/oauth/token", self.url.trim_end_matches('/')),
        }
    }

    /// The `Authorization` header: `Bearer <token>` for an OAuth token, a personal API key as it
    /// is (Linear takes those without `Bearer`). With client credentials, a token is asked for
    /// when there is none, when it is about to expire, and after Linear refused it (`stale`).
    async fn authorization(&self, stale: bool) -> Result<String, Failure> {
        let (id, secret) = match &self.auth {
            Auth::Token(token) if token.starts_with("lin_api_") => return Ok(token.clone()),
            Auth::Token(token) => return Ok(format!("Bearer {token}")),
            Auth::ClientCredentials { id, secret } => (id, secret),
        };
        let mut held = self.authorization.lock().await;
        if let Some((header, expires)) = held.as_ref()
            && !stale
            && expires.is_none_or(|e| e > std::time::Instant::now())
        {
            return Ok(header.clone());
        }
        let response = self
            .http
            .post(self.token_url())
            .basic_auth(id, Some(secret))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(format!(
                "grant_type=client_credentials&scope={}",
                SCOPES.replace(',', "%2C").replace(':', "%3A")
            ))
            .send()
            .await
            .map_err(|e| Failure::Retry {
                after: None,
                why: format!(
                    "Linear's token endpoint did not answer: {}",
                    without_url(&e)
                ),
            })?;
        let status = response.status();
        let body: Value = response.json().await.unwrap_or(Value::Null);
        let Some(token) = body["access_token"]
            .as_str()
            .filter(|_| status.is_success())
        else {
            // Client credentials not enabled, a secret rotated: an operator must act, and what
            // waits is kept meanwhile.
            return Err(Failure::Retry {
                after: None,
                why: format!(
                    "Linear gave no app token for the client credentials ({status}: {})",
                    crate::names::shown(body["error_description"].as_str().unwrap_or(""))
                ),
            });
        };
        // Asked for again a minute before it expires.
        let expires = body["expires_in"]
            .as_u64()
            .map(|s| std::time::Instant::now() + Duration::from_secs(s.saturating_sub(60)));
        let header = format!("Bearer {token}");
        *held = Some((header.clone(), expires));
        Ok(header)
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

    /// Linear's advice for an agent starting on an issue delegated to it: an issue not yet
    /// started (nor completed, nor canceled) moves to its team's first `started` state (the one
    /// of lowest position). An issue the app was only mentioned in stays where it is.
    pub async fn start_issue(&self, issue: &str, app_user: &str) -> Result<(), Failure> {
        let data = self.call(ISSUE, json!({ "id": issue })).await?;
        let i = &data["issue"];
        let delegated = i["delegate"]["id"].as_str() == Some(app_user);
        let state = i["state"]["type"].as_str().unwrap_or("");
        if !delegated || matches!(state, "started" | "completed" | "canceled") {
            return Ok(());
        }
        let Some(team) = i["team"]["id"].as_str() else {
            return Ok(());
        };
        let data = self.call(STARTED_STATES, json!({ "teamId": team })).await?;
        let first = data["team"]["states"]["nodes"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|n| Some((n["position"].as_f64()?, n["id"].as_str()?)))
            .min_by(|a, b| a.0.total_cmp(&b.0));
        let Some((_, state_id)) = first else {
            return Ok(());
        };
        let data = self
            .call(
                ISSUE_UPDATE,
                json!({ "id": issue, "input": { "stateId": state_id } }),
            )
            .await?;
        match data["issueUpdate"]["success"].as_bool() {
            Some(true) => Ok(()),
            _ => Err(Failure::Refused(
                "Linear did not move the issue (success: false)".into(),
            )),
        }
    }

    async fn call(&self, query: &str, variables: Value) -> Result<Value, Failure> {
        let body = json!({ "query": query, "variables": variables });
        let mut response = self.send(&body, false).await?;
        if response.status().as_u16() == 401 && matches!(self.auth, Auth::ClientCredentials { .. })
        {
            // The app token expired or was replaced: ask for another, once.
            response = self.send(&body, true).await?;
        }
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

impl Api {
    async fn send(&self, body: &Value, stale: bool) -> Result<reqwest::Response, Failure> {
        self.http
            .post(&self.url)
            .header("authorization", self.authorization(stale).await?)
            .json(body)
            .send()
            .await
            .map_err(|e| Failure::Retry {
                after: None,
                why: format!("Linear did not answer: {}", without_url(&e)),
            })
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
