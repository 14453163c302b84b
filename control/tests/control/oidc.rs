//! Signing in to the dashboard with an identity provider (issue 52), in a real browser against a
//! real OpenID provider: panva's certified `oidc-provider` from npm (`scripts/oidc-provider`
//! installs it), run on 127.0.0.1 with its development login and consent pages. Who may enter,
//! and as what, comes from Blaise's configuration: an email, or a group.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use blaise_control::model::Role;
use blaise_control::oidc::{Oidc, OidcConfig};
use reqwest::Method;
use serde_json::Value;

use crate::browser::Browser;
use crate::support::*;

/// The provider's process, stopped when dropped.
struct Provider {
    child: Child,
    issuer: String,
}

impl Drop for Provider {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Where `scripts/oidc-provider` put the provider's script, or why the test cannot run (a
/// failure when `BLAISE_REQUIRE_TOOLS=1`, as in CI).
fn provider_script() -> Option<PathBuf> {
    let script = std::env::var_os("BLAISE_OIDC_PROVIDER")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/oidc-provider/provider.mjs")
        });
    if script.exists() {
        return Some(script);
    }
    let why = format!(
        "no OpenID provider at {}: run scripts/oidc-provider (.ci/run does)",
        script.display()
    );
    assert!(
        std::env::var("BLAISE_REQUIRE_TOOLS").as_deref() != Ok("1"),
        "{why}"
    );
    eprintln!("skipped: {why}");
    None
}

/// Starts the provider for a client whose callback is `redirect`; `groups`: each person's.
fn provider(script: &PathBuf, redirect: &str, secret: &str, groups: &str) -> Provider {
    let mut child = Command::new("node")
        .arg(script)
        .env("PROVIDER_PORT", "0")
        .env("CLIENT_ID", "blaise")
        .env("CLIENT_SECRET", secret)
        .env("REDIRECT_URI", redirect)
        .env("PROVIDER_GROUPS", groups)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("node runs");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    // Read on, to the end: the provider writes notices as it works, and a closed pipe would stop it.
    std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    let issuer = line
        .trim()
        .strip_prefix("listening ")
        .unwrap_or_else(|| panic!("the provider says where it listens: {line:?}"))
        .to_owned();
    Provider { child, issuer }
}

/// Signs `login` in from the login page: Blaise's button, the provider's login page (any
/// password), its consent page when it shows one; waits until the browser is back at Blaise.
async fn sign_in(b: &mut Browser, base: &str, provider: &str, login: &str) {
    b.call("Network.clearBrowserCookies", serde_json::json!({}))
        .await;
    b.open(&format!("{base}/login?next=/")).await;
    assert_eq!(
        b.eval("document.querySelector('#sso').textContent").await,
        "Sign in with Test SSO"
    );
    b.navigates("document.querySelector('#sso').click()").await;
    assert!(
        b.eval("location.href")
            .await
            .as_str()
            .unwrap()
            .starts_with(provider),
        "at the provider"
    );
    b.navigates(&format!(
        "document.querySelector('input[name=login]').value = {login:?};
         document.querySelector('input[name=password]').value = 'anything';
         document.querySelector('form').requestSubmit()"
    ))
    .await;
    // Its consent page, the first time this browser signs in to this client.
    for _ in 0..3 {
        if !b
            .eval("location.href")
            .await
            .as_str()
            .unwrap()
            .starts_with(provider)
        {
            break;
        }
        b.navigates("document.querySelector('form').requestSubmit()")
            .await;
    }
    // The callback's page goes on to where the sign-in began.
    b.until(
        &format!(
            "location.href.startsWith({base:?}) && !location.pathname.startsWith('/login/oidc') || document.querySelector('#problem, .error') !== null"
        ),
        Duration::from_secs(10),
    )
    .await;
    b.settle().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn people_sign_in_through_a_real_openid_provider_as_the_configuration_says() {
    let Some(script) = provider_script() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let secret_file = dir.path().join("client-secret");
    std::fs::write(&secret_file, "an-oidc-client-secret").unwrap();
    let groups = r#"{"bob":["eng"],"cat":["sales"]}"#;
    let mut started = None;
    let s = Server::with_oidc(fast_config(), |url| {
        let p = provider(
            &script,
            &format!("{url}/login/oidc/callback"),
            "an-oidc-client-secret",
            groups,
        );
        let config = OidcConfig {
            issuer: p.issuer.clone(),
            client_id: "blaise".into(),
            client_secret: format!("file:{}", secret_file.display()),
            redirect_url: format!("{url}/login/oidc/callback"),
            label: Some("Test SSO".into()),
            people: BTreeMap::from([
                ("ann@example.com".to_string(), Role::Admin),
                ("unverified-ann@example.com".to_string(), Role::Admin),
            ]),
            groups_claim: "groups".into(),
            groups: BTreeMap::from([("eng".to_string(), Role::Operator)]),
            scopes: vec!["groups".into()],
        };
        started = Some(p);
        Oidc::new(config).unwrap()
    })
    .await;
    let provider = started.unwrap();
    let profile = tempfile::tempdir().unwrap();
    let mut b = Browser::start(profile.path()).await;

    // Ann is let in by her email, as an admin.
    sign_in(&mut b, &s.url, &provider.issuer, "ann").await;
    assert_eq!(b.eval("location.pathname").await, "/");
    assert_eq!(
        b.eval("document.querySelector('#who').textContent").await,
        "ann@example.com · admin"
    );
    b.screenshot("oidc-signed-in").await;
    // The cookie is a login's random id, HttpOnly and SameSite=Strict: no token, no claim.
    let cookies = b.call("Network.getAllCookies", serde_json::json!({})).await;
    let session = cookies["cookies"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "blaise_session")
        .cloned()
        .expect("the dashboard's cookie");
    assert!(
        session["value"].as_str().unwrap().starts_with("bls_"),
        "{session}"
    );
    assert_eq!(session["httpOnly"], true);
    assert_eq!(session["sameSite"], "Strict");
    assert!(
        !cookies.to_string().contains("eyJ"),
        "no JWT is kept in a cookie: {cookies}"
    );

    // Bob is let in by his group, as an operator: the page shows him no admin's form.
    sign_in(&mut b, &s.url, &provider.issuer, "bob").await;
    assert_eq!(
        b.eval("document.querySelector('#who').textContent").await,
        "bob@example.com · operator"
    );
    assert_eq!(
        b.eval("document.querySelector('a[href=\"/audit\"]')").await,
        Value::Null
    );

    // Cat is who she says, and nobody let her in.
    sign_in(&mut b, &s.url, &provider.issuer, "cat").await;
    let problem = b.eval("document.querySelector('.error').textContent").await;
    assert!(
        problem
            .as_str()
            .unwrap()
            .contains("cat@example.com may not enter Blaise"),
        "{problem}"
    );
    b.screenshot("oidc-not-allowed").await;

    // An email the provider does not say it verified lets nobody in, even one the file names.
    sign_in(&mut b, &s.url, &provider.issuer, "unverified-ann").await;
    let problem = b.eval("document.querySelector('.error').textContent").await;
    assert!(
        problem
            .as_str()
            .unwrap()
            .contains("has not said it verified unverified-ann@example.com"),
        "{problem}"
    );

    // The trail says who signed in, as what, through the dashboard.
    let trail = s.ok(Method::GET, "/v1/audit?action=login", None).await;
    let logins: Vec<(String, String)> = trail["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["actor"].as_str().unwrap().to_owned(),
                e["role"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        logins,
        [
            ("bob@example.com".to_string(), "operator".to_string()),
            ("ann@example.com".to_string(), "admin".to_string())
        ]
    );

    assert!(
        trail["entries"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["detail"] == "oidc"),
        "each says how they signed in: {trail}"
    );

    // A callback with a state this browser did not begin changes nothing.
    let resp = reqwest::get(format!(
        "{}/login/oidc/callback?code=stolen&state=not-mine",
        s.url
    ))
    .await
    .unwrap();
    assert_eq!(resp.status(), reqwest::StatusCode::BAD_REQUEST);
    assert!(resp.text().await.unwrap().contains("another browser"));
}
