//! `blaise status`: whether a control plane answers and reaches its store — for a person
//! checking a server, a script waiting for one to start, and a container's health check (the
//! image has no shell and no curl). Needs no token: `/v1/health` says nothing about sessions.

use std::io::Write;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use serde_json::Value;

use super::StatusArgs;

pub async fn run(url: &str, args: &StatusArgs, out: &mut (dyn Write + Send)) -> Result<()> {
    let url = url.trim_end_matches('/');
    let http = blaise_control::client::trusting(reqwest::Client::builder())?
        .timeout(Duration::from_secs(10))
        .build()?;
    let deadline = Instant::now() + Duration::from_millis(args.wait.unwrap_or(0) as u64);
    loop {
        let problem = match ask(&http, url).await {
            Ok(health) => {
                if args.json {
                    writeln!(out, "{}", serde_json::to_string_pretty(&health)?)?;
                } else {
                    let clock = if health["clock"].as_bool() == Some(true) {
                        "holds the clock"
                    } else {
                        "does not hold the clock (another instance does)"
                    };
                    writeln!(
                        out,
                        "blaise at {url}: up, its {} store reachable; this instance {clock}",
                        store(&health)
                    )?;
                }
                return Ok(());
            }
            Err(problem) => problem,
        };
        if Instant::now() >= deadline {
            bail!("blaise at {url}: {problem}");
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The health record, or what is wrong, in words.
async fn ask(http: &reqwest::Client, url: &str) -> Result<Value, String> {
    let response = http
        .get(format!("{url}/v1/health"))
        .send()
        .await
        .map_err(|e| format!("not answering ({})", blaise_control::client::cause(&e)))?;
    let status = response.status();
    let health: Value = response
        .json()
        .await
        .map_err(|_| format!("answered {status}, not as a blaise control plane would"))?;
    if !status.is_success() || health["ok"].as_bool() != Some(true) {
        return Err(format!(
            "up, but its {} store is not reachable ({status}): see its log",
            store(&health)
        ));
    }
    Ok(health)
}

/// The store's kind as the server names it, for a terminal (whatever answers at the URL).
fn store(health: &Value) -> String {
    super::human::printable(health["store"].as_str().unwrap_or("?"), false)
}
