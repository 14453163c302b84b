//! A headless Chromium a test drives as a user would, over the DevTools protocol: load a page,
//! run a line of JavaScript in it (fill a field, click, read the DOM), size the window. The
//! protocol's few messages used here are written out; the WebSocket is tokio-tungstenite's.

use std::path::Path;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

pub const CHROMIUM: &str = "/usr/bin/chromium";

/// Headless, in a container (no sandbox, no GPU, a small /dev/shm), and quiet (nothing fetched
/// from Google).
pub const HEADLESS: [&str; 8] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
];

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// One browser with one page (tab).
pub struct Browser {
    _child: tokio::process::Child,
    page: Socket,
    next_id: u64,
}

impl Browser {
    pub async fn start(profile: &Path) -> Browser {
        assert!(
            Path::new(CHROMIUM).exists(),
            "{CHROMIUM} is missing: the dashboard test needs headless Chromium; run control/ci-setup.sh (as root) first"
        );
        let port = crate::support::free_port();
        let child = tokio::process::Command::new(CHROMIUM)
            .args(HEADLESS)
            .arg(format!("--remote-debugging-port={port}"))
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("about:blank")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("starting chromium");
        let http = reqwest::Client::new();
        let started = Instant::now();
        let page = loop {
            let listed = http
                .get(format!("http://127.0.0.1:{port}/json/list"))
                .send()
                .await;
            if let Ok(resp) = listed
                && let Ok(targets) = resp.json::<Vec<Value>>().await
                && let Some(url) = targets
                    .iter()
                    .find(|t| t["type"] == "page")
                    .and_then(|t| t["webSocketDebuggerUrl"].as_str())
            {
                break url.to_string();
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "chromium's DevTools did not answer"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        let (page, _) = tokio_tungstenite::connect_async(page.as_str())
            .await
            .expect("connecting to the page");
        let mut browser = Browser {
            _child: child,
            page,
            next_id: 0,
        };
        browser.call("Page.enable", json!({})).await;
        browser
    }

    /// Sends a DevTools command and waits for its answer (events on the way are skipped).
    pub async fn call(&mut self, method: &str, params: Value) -> Value {
        let answer = self.try_call(method, params).await;
        assert!(answer["error"].is_null(), "{method}: {answer}");
        answer["result"].clone()
    }

    /// [`Browser::call`], its answer whole: `error` set when Chromium refused (a page that is
    /// navigating has no context to evaluate in).
    async fn try_call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let message = json!({ "id": id, "method": method, "params": params });
        self.page
            .send(Message::Text(message.to_string().into()))
            .await
            .expect("sending to chromium");
        tokio::time::timeout(Duration::from_secs(30), async {
            loop {
                let Some(Ok(Message::Text(text))) = self.page.next().await else {
                    panic!("chromium closed the page's connection");
                };
                let v: Value = serde_json::from_str(text.as_str()).unwrap();
                if v["id"] == id {
                    return v;
                }
            }
        })
        .await
        .unwrap_or_else(|_| panic!("chromium did not answer {method}"))
    }

    /// The value of `expression` in the page (awaited if it is a promise).
    pub async fn eval(&mut self, expression: &str) -> Value {
        let r = self
            .call(
                "Runtime.evaluate",
                json!({ "expression": expression, "awaitPromise": true, "returnByValue": true }),
            )
            .await;
        assert!(
            r["exceptionDetails"].is_null(),
            "{expression}: {}",
            r["exceptionDetails"]
        );
        r["result"]["value"].clone()
    }

    /// Loads `url` and waits until its document is complete.
    pub async fn open(&mut self, url: &str) {
        self.call("Page.navigate", json!({ "url": url })).await;
        self.settle().await;
    }

    /// Logs in to the dashboard at `base` as a person does: the admin token typed into the login
    /// page's form (the cookie stays with this browser); lands on `next`, a path.
    pub async fn log_in(&mut self, base: &str, token: &str, next: &str) {
        let next: String = next
            .bytes()
            .map(|b| match b {
                b'&' | b'?' | b'#' | b'%' | b'=' | b'+' => format!("%{b:02X}"),
                _ => (b as char).to_string(),
            })
            .collect();
        self.open(&format!("{base}/login?next={next}")).await;
        self.navigates(&format!(
            "document.querySelector('#login input[name=token]').value = {token:?};
             document.querySelector('#login').requestSubmit()"
        ))
        .await;
    }

    /// The page's markup as it stands (after its script ran).
    pub async fn dom(&mut self) -> String {
        self.eval("document.documentElement.outerHTML")
            .await
            .as_str()
            .expect("a document")
            .to_owned()
    }

    /// Waits until the page (after a navigation or a form's submit) is loaded.
    pub async fn settle(&mut self) {
        tokio::time::sleep(Duration::from_millis(50)).await;
        self.until(
            "document.readyState === 'complete'",
            Duration::from_secs(20),
        )
        .await;
    }

    /// Runs `js` (a form's submit, a click) and waits until the browser has loaded the page it
    /// led to (even when that is the same URL).
    pub async fn navigates(&mut self, js: &str) {
        self.eval("window.__before_navigation = true").await;
        self.eval(js).await;
        self.until(
            "window.__before_navigation === undefined && document.readyState === 'complete'",
            Duration::from_secs(20),
        )
        .await;
    }

    /// Waits until `condition` is true in the page; returns how long that took.
    pub async fn until(&mut self, condition: &str, limit: Duration) -> Duration {
        let started = Instant::now();
        loop {
            // While a page is replaced there is nothing to evaluate in: not yet.
            let ok = self
                .try_call(
                    "Runtime.evaluate",
                    json!({ "expression": condition, "returnByValue": true }),
                )
                .await;
            if ok["result"]["result"]["value"] == true {
                return started.elapsed();
            }
            assert!(
                started.elapsed() < limit,
                "the page never had {condition} (at {})",
                self.eval("location.href").await
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Saves what the page looks like as `name.png` in `$BLAISE_SCREENSHOTS`, when that is set
    /// (for people to look at; nothing is checked).
    pub async fn screenshot(&mut self, name: &str) {
        let Some(dir) = std::env::var_os("BLAISE_SCREENSHOTS") else {
            return;
        };
        use base64::Engine as _;
        let shot = self
            .call(
                "Page.captureScreenshot",
                json!({ "format": "png", "captureBeyondViewport": true }),
            )
            .await;
        let png = base64::engine::general_purpose::STANDARD
            .decode(shot["data"].as_str().unwrap())
            .unwrap();
        std::fs::write(Path::new(&dir).join(format!("{name}.png")), png).unwrap();
    }

    /// Sizes the page as a phone's screen `width` CSS pixels wide.
    pub async fn width(&mut self, width: u32) {
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": 800, "deviceScaleFactor": 1, "mobile": true }),
        )
        .await;
    }
}
