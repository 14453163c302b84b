//! Signing people in to the dashboard with an identity provider (OpenID Connect: Google, Okta,
//! Entra ID, Keycloak, Dex, …): the authorization code flow with PKCE, the ID token checked
//! (signature against the provider's keys, issuer, audience, expiry, nonce) by the
//! `openidconnect` crate. Who may enter, and as what, comes from the server's configuration:
//! emails, or a groups claim, mapped to roles.
//!
//! ```yaml
//! issuer: https://accounts.example.com
//! client_id: blaise
//! client_secret: env:BLAISE_OIDC_CLIENT_SECRET   # or file:/run/secrets/oidc
//! redirect_url: https://blaise.example.com/login/oidc/callback
//! label: Example SSO
//! people:
//!   ann@example.com: admin
//! groups_claim: groups
//! groups:
//!   platform: admin
//!   eng: operator
//! ```

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use openidconnect::core::{CoreAuthenticationFlow, CoreClient, CoreProviderMetadata};
use openidconnect::{
    AuthorizationCode, ClientId, ClientSecret, CsrfToken, IssuerUrl, Nonce, OAuth2TokenResponse,
    PkceCodeChallenge, PkceCodeVerifier, RedirectUrl, Scope, TokenResponse,
};
use serde::Deserialize;

use crate::auth::{hash_token, random_hex};
use crate::model::{Millis, Role, SignIn};

/// The configuration `serve --oidc FILE` reads.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct OidcConfig {
    /// The provider's issuer URL (its discovery document is under it).
    pub issuer: String,
    pub client_id: String,
    /// Where the client secret is read: `env:NAME` or `file:PATH`.
    pub client_secret: String,
    /// This server's callback, as registered with the provider: `…/login/oidc/callback`.
    pub redirect_url: String,
    /// The sign-in button's name for the provider ("Sign in with …").
    #[serde(default)]
    pub label: Option<String>,
    /// Emails that may enter, and their roles.
    #[serde(default)]
    pub people: BTreeMap<String, Role>,
    /// The claim that lists a person's groups.
    #[serde(default = "groups_claim")]
    pub groups_claim: String,
    /// Groups whose members may enter, and their roles (the highest of a person's wins).
    #[serde(default)]
    pub groups: BTreeMap<String, Role>,
    /// Scopes asked for besides `openid` and `email` (`groups`, `profile`, …).
    #[serde(default)]
    pub scopes: Vec<String>,
}

fn groups_claim() -> String {
    "groups".into()
}

/// How long a sign-in may take, from the redirect to the provider to the callback.
pub const SIGN_IN_MS: Millis = 10 * 60_000;
/// How long the provider's discovery document (and keys) is kept before it is read again.
const DISCOVERY_TTL: Duration = Duration::from_secs(3600);

impl OidcConfig {
    /// Reads and checks `path`; an error names the file, and the line or the field.
    pub fn load(path: &Path) -> Result<OidcConfig, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("{}: cannot read it: {e}", path.display()))?;
        let mut config: OidcConfig =
            serde_yaml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        config
            .check()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        config.people = std::mem::take(&mut config.people)
            .into_iter()
            .map(|(email, role)| (email.trim().to_lowercase(), role))
            .collect();
        Ok(config)
    }

    fn check(&self) -> Result<(), String> {
        for (field, url) in [
            ("issuer", &self.issuer),
            ("redirect_url", &self.redirect_url),
        ] {
            let parsed = reqwest::Url::parse(url)
                .map_err(|e| format!("`{field}` is not a URL ({e}): {url:?}"))?;
            // Plain http only to this machine (a provider under test): elsewhere anyone on the
            // way could change the provider's keys.
            let local = parsed
                .host_str()
                .is_some_and(|h| matches!(h, "localhost" | "127.0.0.1" | "[::1]"));
            if !(parsed.scheme() == "https" || (parsed.scheme() == "http" && local)) {
                return Err(format!(
                    "`{field}` must be an https:// URL (http:// only to localhost): {url:?}"
                ));
            }
        }
        if !self.redirect_url.ends_with("/login/oidc/callback") {
            return Err(format!(
                "`redirect_url` must be this server's `…/login/oidc/callback` (as registered with the provider), not {:?}",
                self.redirect_url
            ));
        }
        if self.client_id.trim().is_empty() {
            return Err("`client_id` is empty".into());
        }
        if !crate::secret_ref::is_valid(&self.client_secret) {
            return Err(format!(
                "`client_secret` says where the secret is read: {}",
                crate::secret_ref::SHAPE
            ));
        }
        if self.people.is_empty() && self.groups.is_empty() {
            return Err(
                "nobody may enter: give `people` (emails and their roles) or `groups` (groups and their roles)"
                    .into(),
            );
        }
        Ok(())
    }

    /// What a person with `email`, in `groups`, may do: the highest role their email or any of
    /// their groups gives; `None`: they may not enter.
    pub fn role_of(&self, email: &str, groups: &[String]) -> Option<Role> {
        let by_email = self.people.get(&email.trim().to_lowercase()).copied();
        groups
            .iter()
            .filter_map(|g| self.groups.get(g).copied())
            .chain(by_email)
            .max_by_key(|r| Role::ALL.iter().position(|x| x == r))
    }

    /// The sign-in button's name for the provider.
    pub fn label(&self) -> String {
        self.label.clone().unwrap_or_else(|| {
            reqwest::Url::parse(&self.issuer)
                .ok()
                .and_then(|u| u.host_str().map(str::to_owned))
                .unwrap_or_else(|| self.issuer.clone())
        })
    }
}

/// Why a sign-in failed, as the login page says it.
#[derive(Debug, thiserror::Error)]
pub enum OidcError {
    /// The provider could not be reached or answered wrongly (its discovery, the token request).
    #[error("the identity provider: {0}")]
    Provider(String),
    /// What came back does not hold (the ID token, the state, the email).
    #[error("{0}")]
    Refused(String),
    /// The person is who they say, and nobody let them in.
    #[error(
        "{0} may not enter Blaise: an admin adds them, or a group of theirs, to the sign-in configuration"
    )]
    NotAllowed(String),
}

/// Who the provider says signed in.
#[derive(Debug, Clone)]
pub struct Person {
    pub email: String,
    pub groups: Vec<String>,
}

/// The identity provider, as this server talks to it.
pub struct Oidc {
    pub config: OidcConfig,
    http: reqwest::Client,
    discovered: tokio::sync::Mutex<Option<(Instant, CoreProviderMetadata)>>,
}

impl Oidc {
    pub fn new(config: OidcConfig) -> Result<Oidc, String> {
        // No redirects: each request goes where discovery said (as the crate advises).
        let http = crate::client::trusting(
            reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .timeout(Duration::from_secs(15)),
        )
        .map_err(|e| e.to_string())?
        .build()
        .map_err(|e| e.to_string())?;
        Ok(Oidc {
            config,
            http,
            discovered: tokio::sync::Mutex::new(None),
        })
    }

    /// The provider's metadata and keys, read again once an hour (keys rotate).
    async fn metadata(&self, again: bool) -> Result<CoreProviderMetadata, OidcError> {
        let mut discovered = self.discovered.lock().await;
        if let Some((at, metadata)) = discovered.as_ref()
            && !again
            && at.elapsed() < DISCOVERY_TTL
        {
            return Ok(metadata.clone());
        }
        let issuer = IssuerUrl::new(self.config.issuer.clone())
            .map_err(|e| OidcError::Provider(format!("the issuer URL: {e}")))?;
        let metadata = CoreProviderMetadata::discover_async(issuer, &self.http)
            .await
            .map_err(|e| {
                OidcError::Provider(format!(
                    "its discovery at {} failed: {}",
                    self.config.issuer,
                    chain(&e)
                ))
            })?;
        *discovered = Some((Instant::now(), metadata.clone()));
        Ok(metadata)
    }

    fn client(
        &self,
        metadata: CoreProviderMetadata,
    ) -> Result<
        CoreClient<
            openidconnect::EndpointSet,
            openidconnect::EndpointNotSet,
            openidconnect::EndpointNotSet,
            openidconnect::EndpointNotSet,
            openidconnect::EndpointMaybeSet,
            openidconnect::EndpointMaybeSet,
        >,
        OidcError,
    > {
        let secret = crate::secret_ref::read(&self.config.client_secret)
            .map_err(|e| OidcError::Provider(format!("the client secret: {e}")))?;
        let redirect = RedirectUrl::new(self.config.redirect_url.clone())
            .map_err(|e| OidcError::Provider(format!("the redirect URL: {e}")))?;
        Ok(CoreClient::from_provider_metadata(
            metadata,
            ClientId::new(self.config.client_id.clone()),
            Some(ClientSecret::new(secret)),
        )
        .set_redirect_uri(redirect))
    }

    /// Begins a sign-in: where to send the browser, the state it carries (the browser keeps it
    /// in a cookie, to show the callback it is the same browser) and what the callback needs.
    pub async fn begin(
        &self,
        next: Option<&str>,
        now: Millis,
    ) -> Result<(String, String, SignIn), OidcError> {
        let client = self.client(self.metadata(false).await?)?;
        let state = random_hex(24);
        let nonce = random_hex(24);
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let mut request = client
            .authorize_url(
                CoreAuthenticationFlow::AuthorizationCode,
                {
                    let state = state.clone();
                    move || CsrfToken::new(state)
                },
                {
                    let nonce = nonce.clone();
                    move || Nonce::new(nonce)
                },
            )
            .add_scope(Scope::new("email".into()))
            .set_pkce_challenge(challenge);
        for scope in &self.config.scopes {
            request = request.add_scope(Scope::new(scope.clone()));
        }
        let (url, _, _) = request.url();
        let sign_in = SignIn {
            state_hash: hash_token(&state),
            verifier: verifier.secret().clone(),
            nonce,
            next: next.map(str::to_owned),
            expires_at: now.saturating_add(SIGN_IN_MS),
        };
        Ok((url.to_string(), state, sign_in))
    }

    /// Finishes a sign-in with the code the provider sent back: the person, once the ID token
    /// holds and their email is verified.
    pub async fn finish(&self, code: &str, sign_in: &SignIn) -> Result<Person, OidcError> {
        let metadata = self.metadata(false).await?;
        let userinfo_url = metadata.userinfo_endpoint().map(|u| u.url().clone());
        let client = self.client(metadata)?;
        let token = client
            .exchange_code(AuthorizationCode::new(code.to_owned()))
            .map_err(|e| OidcError::Provider(format!("no token endpoint: {e}")))?
            .set_pkce_verifier(PkceCodeVerifier::new(sign_in.verifier.clone()))
            .request_async(&self.http)
            .await
            .map_err(|e| OidcError::Provider(format!("the code exchange failed: {}", chain(&e))))?;
        let id_token = token
            .id_token()
            .ok_or_else(|| OidcError::Refused("the provider sent no ID token".into()))?;
        let nonce = Nonce::new(sign_in.nonce.clone());
        let verified = match id_token.claims(&client.id_token_verifier(), &nonce) {
            Ok(claims) => claims.clone(),
            // Keys rotate: once, with the provider's keys read again.
            Err(_) => {
                let client = self.client(self.metadata(true).await?)?;
                id_token
                    .claims(&client.id_token_verifier(), &nonce)
                    .map_err(|e| {
                        OidcError::Refused(format!("the ID token does not hold: {}", chain(&e)))
                    })?
                    .clone()
            }
        };
        // The token's signature is checked: its payload may now be read for the groups claim,
        // which the crate's claims type does not carry.
        let mut claims = payload(&id_token.to_string()).unwrap_or_default();
        let needs_more = verified.email().is_none()
            || (!self.config.groups.is_empty() && claims.get(&self.config.groups_claim).is_none());
        if needs_more && let Some(url) = userinfo_url {
            let info = self.userinfo(url, token.access_token().secret()).await?;
            // UserInfo's `sub` must be the ID token's (OpenID Connect Core 5.3.2).
            if info.get("sub").and_then(|s| s.as_str()) != Some(verified.subject().as_str()) {
                return Err(OidcError::Refused(
                    "the provider's user info is of another subject than its ID token".into(),
                ));
            }
            for (k, v) in info {
                claims.entry(k).or_insert(v);
            }
        }
        let email = verified
            .email()
            .map(|e| e.as_str().to_owned())
            .or_else(|| {
                claims
                    .get("email")
                    .and_then(|e| e.as_str())
                    .map(str::to_owned)
            })
            .ok_or_else(|| {
                OidcError::Refused(
                    "the provider gave no email for this person (ask it for the `email` scope)"
                        .into(),
                )
            })?;
        let email_verified = verified
            .email_verified()
            .or_else(|| claims.get("email_verified").and_then(|v| v.as_bool()));
        // Only an email the provider says it verified: one that says nothing may let people
        // set their own address (and so take the role of anyone the file names).
        if email_verified != Some(true) {
            return Err(OidcError::Refused(format!(
                "the provider has not said it verified {email} (`email_verified`)"
            )));
        }
        let groups = match claims.get(&self.config.groups_claim) {
            Some(serde_json::Value::Array(items)) => items
                .iter()
                .filter_map(|g| g.as_str().map(str::to_owned))
                .collect(),
            Some(serde_json::Value::String(one)) => vec![one.clone()],
            _ => Vec::new(),
        };
        let email = email.trim().to_lowercase();
        if !crate::names::is_person(&email) || !email.contains('@') {
            return Err(OidcError::Refused(format!(
                "the provider's email for this person is not one: {}",
                crate::names::shown(&email)
            )));
        }
        // Only the groups the configuration gives a role matter: a provider that lists thousands
        // of them (Entra ID can) keeps none of the others in each login.
        let groups: Vec<String> = groups
            .into_iter()
            .filter(|g| self.config.groups.contains_key(g))
            .collect();
        Ok(Person { email, groups })
    }

    async fn userinfo(
        &self,
        url: reqwest::Url,
        access_token: &str,
    ) -> Result<serde_json::Map<String, serde_json::Value>, OidcError> {
        let resp = self
            .http
            .get(url)
            .bearer_auth(access_token)
            .header(reqwest::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|e| {
                OidcError::Provider(format!("its user info: {}", crate::client::cause(&e)))
            })?;
        if !resp.status().is_success() {
            return Err(OidcError::Provider(format!(
                "its user info answered {}",
                resp.status()
            )));
        }
        resp.json()
            .await
            .map_err(|e| OidcError::Provider(format!("its user info is not JSON: {e}")))
    }
}

/// A JWT's payload (its second part), read once its signature has been checked.
fn payload(jwt: &str) -> Option<serde_json::Map<String, serde_json::Value>> {
    use base64::Engine as _;
    let part = jwt.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(part.trim_end_matches('='))
        .ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// An error and its causes, on one line.
fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(yaml: &str) -> Result<OidcConfig, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oidc.yml");
        std::fs::write(&path, yaml).unwrap();
        OidcConfig::load(&path)
    }

    const BASE: &str = "issuer: https://id.example.com\nclient_id: blaise\nclient_secret: env:OIDC_SECRET\nredirect_url: https://blaise.example.com/login/oidc/callback\n";

    #[test]
    fn a_persons_role_is_the_highest_their_email_or_groups_give() {
        let c = config(&format!(
            "{BASE}people:\n  Ann@Example.com: viewer\ngroups:\n  eng: operator\n  platform: admin\n"
        ))
        .unwrap();
        let groups = |g: &[&str]| g.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        for (email, in_groups, role) in [
            ("ann@example.com", groups(&[]), Some(Role::Viewer)),
            ("ANN@example.com", groups(&["eng"]), Some(Role::Operator)),
            (
                "bob@example.com",
                groups(&["eng", "platform"]),
                Some(Role::Admin),
            ),
            ("bob@example.com", groups(&["sales"]), None),
            ("eve@example.com", groups(&[]), None),
        ] {
            assert_eq!(c.role_of(email, &in_groups), role, "{email} {in_groups:?}");
        }
    }

    #[test]
    fn a_bad_configuration_is_refused_naming_the_file_and_what_is_wrong() {
        for (yaml, says) in [
            (BASE.to_string(), "nobody may enter"),
            (
                format!("{BASE}people:\n  a@b.c: boss\n"),
                "unknown variant `boss`",
            ),
            (
                format!("{BASE}people:\n  a@b.c: admin\ncolour: red\n"),
                "unknown field `colour`",
            ),
            (
                BASE.replace("env:OIDC_SECRET", "hunter2") + "people:\n  a@b.c: admin\n",
                "`client_secret` says where",
            ),
            (
                BASE.replace("/login/oidc/callback", "/cb") + "people:\n  a@b.c: admin\n",
                "`redirect_url` must be",
            ),
            (
                BASE.replace("https://id.example.com", "http://id.example.com")
                    + "people:\n  a@b.c: admin\n",
                "`issuer` must be an https:// URL (http:// only to localhost)",
            ),
        ] {
            let e = config(&yaml).unwrap_err();
            assert!(e.contains("oidc.yml") && e.contains(says), "{says}: {e}");
        }
    }
}
