//! `blaise serve --linear FILE`: the Linear apps Blaise answers for.
//!
//! ```yaml
//! apps:
//!   - name: coder                  # its webhook: POST /v1/sources/linear/coder
//!     agent: coder                 # the Blaise agent its sessions use
//!     webhook_secret: { env: LINEAR_WEBHOOK_SECRET }
//!     access_token: { env: LINEAR_ACCESS_TOKEN }   # or client_id + client_secret
//!     public_url: https://blaise.example.com   # links from Linear to the session's page
//! ```
//!
//! Secrets are named by where to read them (`{ env: NAME }` or `{ file: PATH }`), never written
//! in the file. The file is read once, at start: a mistake stops `blaise serve` saying where.

use std::path::{Path, PathBuf};

use serde::Deserialize;

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct File {
    apps: Vec<AppFile>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct AppFile {
    name: String,
    agent: String,
    webhook_secret: serde_yaml::Value,
    #[serde(default)]
    access_token: Option<serde_yaml::Value>,
    #[serde(default)]
    client_id: Option<String>,
    #[serde(default)]
    client_secret: Option<serde_yaml::Value>,
    #[serde(default)]
    public_url: Option<String>,
    #[serde(default)]
    api_url: Option<String>,
}

/// Where a secret is read from: `{ env: NAME }` or `{ file: PATH }`.
#[derive(Debug, Clone)]
pub enum Secret {
    Env(String),
    File(PathBuf),
}

impl Secret {
    /// The secret `field` names (a mapping of the file).
    fn named(field: &str, value: serde_yaml::Value) -> Result<Secret, String> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Named {
            env: Option<String>,
            file: Option<PathBuf>,
        }
        if value.is_string() {
            return Err(format!(
                "{field}: a secret is not written in the file: name where to read it, `{{ env: NAME }}` or `{{ file: PATH }}`"
            ));
        }
        match serde_yaml::from_value::<Named>(value).map_err(|e| format!("{field}: {e}"))? {
            Named {
                env: Some(name),
                file: None,
            } => Ok(Secret::Env(name)),
            Named {
                env: None,
                file: Some(path),
            } => Ok(Secret::File(path)),
            _ => Err(format!(
                "{field}: name one place to read the secret, `{{ env: NAME }}` or `{{ file: PATH }}`"
            )),
        }
    }

    fn read(&self, field: &str) -> Result<String, String> {
        let value = match self {
            Secret::Env(name) => std::env::var(name)
                .map_err(|_| format!("{field}: the environment variable {name} is not set"))?,
            Secret::File(path) => std::fs::read_to_string(path)
                .map_err(|e| format!("{field}: cannot read {}: {e}", path.display()))?,
        };
        let value = value.trim().to_string();
        if value.is_empty() {
            return Err(format!("{field}: the secret is empty"));
        }
        Ok(value)
    }
}

/// One Linear app, its secrets read.
#[derive(Clone)]
pub struct AppConfig {
    pub name: String,
    pub agent: String,
    pub webhook_secret: String,
    pub auth: Auth,
    /// Blaise's address as Linear's users reach it, for the link to a session's page.
    pub public_url: Option<String>,
    pub api_url: String,
}

impl std::fmt::Debug for AppConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppConfig")
            .field("name", &self.name)
            .field("agent", &self.agent)
            .field("public_url", &self.public_url)
            .field("api_url", &self.api_url)
            .finish_non_exhaustive()
    }
}

/// How Blaise gets a token for Linear's API.
#[derive(Clone)]
pub enum Auth {
    /// A token given as it is (an `actor=app` installation's, or a personal API key).
    Token(String),
    /// The app's OAuth client credentials: Blaise asks Linear for an app token
    /// (`grant_type=client_credentials`, enabled in the app's settings) and asks again when it
    /// expires or is refused.
    ClientCredentials { id: String, secret: String },
}

/// Linear's GraphQL API.
pub const API_URL: &str = "https://api.linear.app/graphql";

/// Reads the apps of `path`. Errors say the file, and the app and field where one is wrong.
pub fn load(path: &Path) -> Result<Vec<AppConfig>, String> {
    let shown = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{shown}: {e}"))?;
    parse(&text).map_err(|e| format!("{shown}: {e}"))
}

pub fn parse(text: &str) -> Result<Vec<AppConfig>, String> {
    let file: File = serde_yaml::from_str(text).map_err(|e| match e.location() {
        Some(at) => format!("line {}: {e}", at.line()),
        None => e.to_string(),
    })?;
    if file.apps.is_empty() {
        return Err("`apps` is empty: name at least one Linear app".into());
    }
    let mut apps: Vec<AppConfig> = Vec::new();
    for (i, app) in file.apps.into_iter().enumerate() {
        let at = format!("apps[{i}]");
        crate::names::check_name(&format!("{at}.name"), &app.name).map_err(|e| e.to_string())?;
        crate::names::check_name(&format!("{at}.agent"), &app.agent).map_err(|e| e.to_string())?;
        if apps.iter().any(|a| a.name == app.name) {
            return Err(format!("{at}.name: another app is named {}", app.name));
        }
        let url = |field: &str, v: Option<String>| -> Result<Option<String>, String> {
            match v {
                Some(u) if !(u.starts_with("https://") || u.starts_with("http://")) => {
                    Err(format!("{at}.{field}: {u:?} is not an http(s) URL"))
                }
                v => Ok(v.map(|u| u.trim_end_matches('/').to_string())),
            }
        };
        apps.push(AppConfig {
            webhook_secret: secret(&format!("{at}.webhook_secret"), app.webhook_secret)?,
            auth: match (app.access_token, app.client_id, app.client_secret) {
                (Some(token), None, None) => {
                    Auth::Token(secret(&format!("{at}.access_token"), token)?)
                }
                (None, Some(id), Some(client_secret)) => Auth::ClientCredentials {
                    secret: secret(&format!("{at}.client_secret"), client_secret)?,
                    id,
                },
                _ => {
                    return Err(format!(
                        "{at}: give either `access_token`, or `client_id` and `client_secret` (the app's OAuth client credentials)"
                    ));
                }
            },
            public_url: url("public_url", app.public_url)?,
            api_url: url("api_url", app.api_url)?.unwrap_or_else(|| API_URL.to_string()),
            name: app.name,
            agent: app.agent,
        });
    }
    Ok(apps)
}

fn secret(field: &str, value: serde_yaml::Value) -> Result<String, String> {
    Secret::named(field, value)?.read(field)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `apps:` block of docs/linear.md is a file `serve --linear` takes (its secrets read
    /// from a file of this test and from variables it sets).
    #[test]
    fn the_files_the_guide_shows_are_taken() {
        let guide = include_str!("../../../../docs/linear.md");
        let dir = std::env::temp_dir().join(format!("blaise-linear-doc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let secret = dir.join("secret");
        std::fs::write(&secret, "from-a-file\n").unwrap();
        let mut blocks = 0;
        for block in guide.split("```yaml\n").skip(1) {
            let text = block.split("```").next().unwrap();
            if !text.starts_with("apps:") {
                continue;
            }
            let mut text = text.to_string();
            for line in text.clone().lines() {
                if let Some((_, rest)) = line.split_once("{ env: ") {
                    let name = rest.split(' ').next().unwrap();
                    // SAFETY: names of the guide's variables; no other test reads them.
                    unsafe { std::env::set_var(name, "from-the-environment") };
                }
                if let Some((_, rest)) = line.split_once("{ file: ") {
                    let path = rest.split(' ').next().unwrap();
                    text = text.replace(path, &secret.display().to_string());
                }
            }
            let apps = parse(&text).unwrap_or_else(|e| panic!("{e}:\n{text}"));
            assert!(
                matches!(&apps[0].auth, Auth::ClientCredentials { secret, .. } if secret == "from-a-file")
            );
            blocks += 1;
        }
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(blocks > 0, "docs/linear.md shows no `apps:` file");
    }

    #[test]
    fn secrets_are_read_from_where_they_are_named_and_mistakes_say_where() {
        // SAFETY: this test's own variable names; no other test reads them.
        unsafe {
            std::env::set_var("BLAISE_TEST_LINEAR_SECRET", "whsec");
            std::env::set_var("BLAISE_TEST_LINEAR_TOKEN", "lin_oauth_x");
        }
        let apps = parse(
            "apps:\n  - name: coder\n    agent: coder\n    webhook_secret: { env: BLAISE_TEST_LINEAR_SECRET }\n    access_token: { env: BLAISE_TEST_LINEAR_TOKEN }\n    public_url: https://blaise.example.com/\n",
        )
        .unwrap();
        assert_eq!(apps[0].webhook_secret, "whsec");
        assert!(matches!(&apps[0].auth, Auth::Token(t) if t == "lin_oauth_x"));
        assert_eq!(apps[0].api_url, API_URL);
        assert_eq!(
            apps[0].public_url.as_deref(),
            Some("https://blaise.example.com")
        );
        assert!(!format!("{:?}", apps[0]).contains("lin_oauth_x"));

        let literal = parse(
            "apps:\n  - name: coder\n    agent: coder\n    webhook_secret: whsec\n    access_token: { env: BLAISE_TEST_LINEAR_TOKEN }\n",
        )
        .unwrap_err();
        assert!(
            literal.starts_with("apps[0].webhook_secret: a secret is not written in the file"),
            "{literal}"
        );
        let unset = parse(
            "apps:\n  - name: coder\n    agent: coder\n    webhook_secret: { env: BLAISE_TEST_LINEAR_NOT_SET }\n    access_token: { env: BLAISE_TEST_LINEAR_TOKEN }\n",
        )
        .unwrap_err();
        assert!(
            unset.contains("apps[0].webhook_secret")
                && unset.contains("BLAISE_TEST_LINEAR_NOT_SET"),
            "{unset}"
        );
        let both = parse(
            "apps:\n  - name: coder\n    agent: coder\n    webhook_secret: { env: BLAISE_TEST_LINEAR_SECRET }\n    access_token: { env: BLAISE_TEST_LINEAR_TOKEN }\n    client_id: abc\n    client_secret: { env: BLAISE_TEST_LINEAR_TOKEN }\n",
        )
        .unwrap_err();
        assert!(both.contains("either `access_token`"), "{both}");
        let credentials = parse(
            "apps:\n  - name: coder\n    agent: coder\n    webhook_secret: { env: BLAISE_TEST_LINEAR_SECRET }\n    client_id: abc\n    client_secret: { env: BLAISE_TEST_LINEAR_TOKEN }\n",
        )
        .unwrap();
        assert!(
            matches!(&credentials[0].auth, Auth::ClientCredentials { id, secret } if id == "abc" && secret == "lin_oauth_x")
        );
        let name = parse(
            "apps:\n  - name: ../x\n    agent: coder\n    webhook_secret: { env: BLAISE_TEST_LINEAR_SECRET }\n    access_token: { env: BLAISE_TEST_LINEAR_TOKEN }\n",
        )
        .unwrap_err();
        assert!(name.contains("apps[0].name"), "{name}");
    }
}
