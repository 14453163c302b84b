//! The `blaise` command line: `serve`, and the client commands that call the user API.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result, anyhow, bail};
use clap::{Args, Parser, Subcommand};
use serde_json::{Value, json};

use crate::auth::{hash_token, new_token};
use crate::config::Config;
use crate::duration::{self, Human};
use crate::model::IdlePolicy;
use crate::server::AppState;
use crate::store::Store;
use crate::store::sqlite::SqliteStore;

#[derive(Parser, Debug)]
#[command(
    name = "blaise",
    version,
    about = "The Blaise control plane and its client"
)]
pub struct Cli {
    /// The control plane's URL (client commands).
    #[arg(
        long,
        global = true,
        env = "BLAISE_URL",
        default_value = "http://127.0.0.1:7777"
    )]
    pub url: String,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// The control plane with its dashboard.
    Serve(ServeArgs),
    /// Agents and their settings (the only place timing lives).
    #[command(subcommand)]
    Agent(AgentCommand),
    /// Runner tokens.
    #[command(subcommand)]
    Runner(RunnerCommand),
    /// Talk to and look at sessions.
    #[command(subcommand)]
    Session(SessionCommand),
    /// Environments.
    #[command(subcommand)]
    Environment(EnvironmentCommand),
}

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The SQLite file (created and migrated on start).
    #[arg(long, default_value = "blaise.db")]
    pub db: PathBuf,
    #[arg(long, default_value = "127.0.0.1:7777")]
    pub listen: SocketAddr,
    /// How often the clock checks every limit.
    #[arg(long, default_value = "5s", value_parser = parse_duration)]
    pub check_interval: i64,
    /// No agent's paused lifetime exceeds this.
    #[arg(long, default_value = "7d", value_parser = parse_duration)]
    pub paused_lifetime_cap: i64,
}

#[derive(Subcommand, Debug)]
pub enum AgentCommand {
    /// Creates or changes an agent; unset options keep their value.
    Set {
        name: String,
        #[arg(long, value_parser = parse_duration)]
        inactivity: Option<i64>,
        #[arg(long, value_parser = parse_policy)]
        idle_policy: Option<IdlePolicy>,
        #[arg(long, value_parser = parse_duration)]
        paused_lifetime: Option<i64>,
        #[arg(long, value_parser = parse_duration)]
        timeout: Option<i64>,
        /// Disable (archive) the agent: no new runs start for it, except teardown runs.
        #[arg(long, conflicts_with = "enable")]
        disable: bool,
        /// Enable a disabled agent.
        #[arg(long)]
        enable: bool,
    },
}

#[derive(Subcommand, Debug)]
pub enum RunnerCommand {
    /// Adds a runner and prints its token (shown once).
    Add { name: String },
    /// Revokes a runner's token.
    Revoke { name: String },
}

#[derive(Subcommand, Debug)]
pub enum SessionCommand {
    /// Opens a session; prints its id.
    New {
        #[arg(long)]
        agent: String,
        #[arg(long)]
        message: String,
    },
    /// Sends a follow-up message.
    Send { id: String, text: String },
    /// Closes a session (its environment is torn down).
    Close { id: String },
    List {
        #[arg(long)]
        json: bool,
    },
    Show {
        id: String,
        #[arg(long)]
        json: bool,
    },
    Transcript {
        id: String,
        /// Keep printing new entries until the session ends.
        #[arg(long)]
        follow: bool,
    },
}

#[derive(Subcommand, Debug)]
pub enum EnvironmentCommand {
    /// Retries the teardown of an orphaned environment.
    Retry { id: String },
}

fn parse_duration(text: &str) -> Result<i64, String> {
    duration::parse(text)
}

fn parse_policy(text: &str) -> Result<IdlePolicy, String> {
    IdlePolicy::parse(text).ok_or_else(|| format!("{text:?}: the idle policy is `pause` or `end`"))
}

pub async fn run(cli: Cli, out: &mut (dyn Write + Send)) -> Result<()> {
    match cli.command {
        Command::Serve(args) => serve(args, out).await,
        command => {
            let client = Client::from_env(&cli.url)?;
            client_command(&client, command, out).await
        }
    }
}

/// The admin token: `BLAISE_TOKEN` if set (its hash replaces the stored one), else the stored
/// one, else a new one printed once.
fn bootstrap_admin_token(
    store: &dyn Store,
    env_token: Option<String>,
    out: &mut (dyn Write + Send),
) -> Result<()> {
    let cfg = Config::default();
    let stored =
        crate::lifecycle::transact(store, &cfg, 0, |ctx| Ok(ctx.tx.admin_token_hash()?))?;
    match (env_token.filter(|t| !t.is_empty()), stored) {
        (Some(token), _) => {
            crate::lifecycle::transact(store, &cfg, 0, |ctx| {
                Ok(ctx.tx.set_admin_token_hash(&hash_token(&token))?)
            })?;
            writeln!(out, "admin token: the one in BLAISE_TOKEN")?;
        }
        (None, Some(_)) => writeln!(
            out,
            "admin token: the one stored in the database (set BLAISE_TOKEN to replace it)"
        )?,
        (None, None) => {
            let token = new_token("bla_");
            crate::lifecycle::transact(store, &cfg, 0, |ctx| {
                Ok(ctx.tx.set_admin_token_hash(&hash_token(&token))?)
            })?;
            writeln!(
                out,
                "admin token (shown once, stored hashed): {token}\n  export BLAISE_TOKEN={token}"
            )?;
        }
    }
    Ok(())
}

async fn serve(args: ServeArgs, out: &mut (dyn Write + Send)) -> Result<()> {
    let store = SqliteStore::open(&args.db)
        .with_context(|| format!("cannot open the database {}", args.db.display()))?;
    bootstrap_admin_token(&store, std::env::var("BLAISE_TOKEN").ok(), out)?;
    let cfg = Config {
        check_interval_ms: args.check_interval,
        paused_lifetime_cap_ms: args.paused_lifetime_cap,
        ..Config::default()
    };
    let state = AppState::new(Arc::new(store), cfg);
    writeln!(
        out,
        "dashboard: http://{}/ (log in with /login?token=$BLAISE_TOKEN)",
        args.listen
    )?;
    out.flush()?;
    crate::server::bind_and_serve(args.listen, state).await
}

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

fn time(ms: &Value) -> String {
    ms.as_i64()
        .map(|t| format!("{t}"))
        .unwrap_or_else(|| "-".into())
}

pub async fn client_command(
    client: &Client,
    command: Command,
    out: &mut (dyn Write + Send),
) -> Result<()> {
    match command {
        Command::Serve(_) => unreachable!("serve is not a client command"),
        Command::Agent(AgentCommand::Set {
            name,
            inactivity,
            idle_policy,
            paused_lifetime,
            timeout,
            disable,
            enable,
        }) => {
            let disabled = if disable {
                Some(true)
            } else if enable {
                Some(false)
            } else {
                None
            };
            let body = json!({
                "inactivity_ms": inactivity, "idle_policy": idle_policy, "paused_lifetime_ms": paused_lifetime,
                "timeout_ms": timeout, "disabled": disabled,
            });
            let agent = client
                .call(
                    reqwest::Method::PUT,
                    &format!("/v1/agents/{name}"),
                    Some(body),
                )
                .await?;
            let s = &agent["settings"];
            writeln!(
                out,
                "agent {}: inactivity {}, idle policy {}, paused lifetime {}, timeout {}{}",
                agent["name"].as_str().unwrap_or(&name),
                Human(s["inactivity_ms"].as_i64().unwrap_or(0)),
                s["idle_policy"].as_str().unwrap_or("?"),
                Human(s["paused_lifetime_ms"].as_i64().unwrap_or(0)),
                Human(s["timeout_ms"].as_i64().unwrap_or(0)),
                if agent["disabled"].as_bool() == Some(true) {
                    ", disabled"
                } else {
                    ""
                }
            )?;
        }
        Command::Runner(RunnerCommand::Add { name }) => {
            let runner = client.post("/v1/runners", json!({ "name": name })).await?;
            writeln!(out, "{}", runner["token"].as_str().unwrap_or_default())?;
        }
        Command::Runner(RunnerCommand::Revoke { name }) => {
            client
                .post(&format!("/v1/runners/{name}/revoke"), json!({}))
                .await?;
            writeln!(out, "runner {name} revoked")?;
        }
        Command::Session(SessionCommand::New { agent, message }) => {
            let session = client
                .post(
                    "/v1/sessions",
                    json!({ "agent": agent, "message": message }),
                )
                .await?;
            writeln!(out, "{}", session["id"].as_str().unwrap_or_default())?;
        }
        Command::Session(SessionCommand::Send { id, text }) => {
            let message = client
                .post(
                    &format!("/v1/sessions/{id}/messages"),
                    json!({ "text": text }),
                )
                .await?;
            writeln!(
                out,
                "message {} {}",
                message["id"].as_str().unwrap_or_default(),
                message["state"].as_str().unwrap_or_default()
            )?;
        }
        Command::Session(SessionCommand::Close { id }) => {
            let session = client
                .post(&format!("/v1/sessions/{id}/close"), json!({}))
                .await?;
            writeln!(
                out,
                "session {id} {}",
                session["state"].as_str().unwrap_or_default()
            )?;
        }
        Command::Session(SessionCommand::List { json }) => {
            let list = client.get("/v1/sessions").await?;
            if json {
                writeln!(out, "{}", serde_json::to_string_pretty(&list["sessions"])?)?;
            } else {
                writeln!(
                    out,
                    "{:<22} {:<16} {:<10} {:<13} CREATED",
                    "ID", "AGENT", "STATE", "ENVIRONMENT"
                )?;
                for s in list["sessions"].as_array().into_iter().flatten() {
                    writeln!(
                        out,
                        "{:<22} {:<16} {:<10} {:<13} {}",
                        s["id"].as_str().unwrap_or_default(),
                        s["agent"].as_str().unwrap_or_default(),
                        s["state"].as_str().unwrap_or_default(),
                        s["environment_state"].as_str().unwrap_or("-"),
                        time(&s["created_at"])
                    )?;
                }
            }
        }
        Command::Session(SessionCommand::Show { id, json }) => {
            let s = client.get(&format!("/v1/sessions/{id}")).await?;
            if json {
                writeln!(out, "{}", serde_json::to_string_pretty(&s)?)?;
            } else {
                print_session(&s, out)?;
            }
        }
        Command::Session(SessionCommand::Transcript { id, follow }) => {
            let mut after = 0;
            loop {
                let wait = if follow { 25_000 } else { 0 };
                let page = client
                    .get(&format!(
                        "/v1/sessions/{id}/transcript?after={after}&wait_ms={wait}"
                    ))
                    .await?;
                for e in page["entries"].as_array().into_iter().flatten() {
                    after = e["index"].as_i64().unwrap_or(after);
                    let content = &e["content"];
                    let text = content["text"]
                        .as_str()
                        .map(str::to_string)
                        .unwrap_or_else(|| content.to_string());
                    writeln!(
                        out,
                        "[{}] {}: {}",
                        after,
                        e["kind"].as_str().unwrap_or_default(),
                        text
                    )?;
                }
                out.flush()?;
                let ended = !matches!(page["session_state"].as_str(), Some("active" | "paused"));
                let empty = page["entries"].as_array().is_none_or(|a| a.is_empty());
                if !follow || (ended && empty) {
                    break;
                }
            }
        }
        Command::Environment(EnvironmentCommand::Retry { id }) => {
            let e = client
                .post(&format!("/v1/environments/{id}/retry"), json!({}))
                .await?;
            writeln!(
                out,
                "environment {id} {}: a teardown run is offered",
                e["state"].as_str().unwrap_or_default()
            )?;
        }
    }
    Ok(())
}

fn print_session(s: &Value, out: &mut (dyn Write + Send)) -> Result<()> {
    writeln!(
        out,
        "session {}  agent {}  state {}",
        s["id"].as_str().unwrap_or_default(),
        s["agent"].as_str().unwrap_or_default(),
        s["state"].as_str().unwrap_or_default()
    )?;
    if let Some(reason) = s["end_reason"].as_str() {
        writeln!(out, "  ended: {reason}")?;
    }
    let e = &s["environment"];
    if e.is_object() {
        writeln!(
            out,
            "environment {}  state {}  runner {}",
            e["id"].as_str().unwrap_or_default(),
            e["state"].as_str().unwrap_or_default(),
            e["runner"].as_str().unwrap_or("-")
        )?;
        if let Some(err) = e["last_error"].as_str() {
            writeln!(out, "  last error: {err}")?;
        }
    }
    writeln!(out, "runs:")?;
    for r in s["runs"].as_array().into_iter().flatten() {
        writeln!(
            out,
            "  {} {:<8} {:<10} runner {}{}",
            r["id"].as_str().unwrap_or_default(),
            r["kind"].as_str().unwrap_or_default(),
            r["status"].as_str().unwrap_or_default(),
            r["runner"].as_str().unwrap_or("-"),
            r["error"]
                .as_str()
                .map(|e| format!("  ({e})"))
                .unwrap_or_default()
        )?;
    }
    let records = s["plug_records"].as_array().cloned().unwrap_or_default();
    if !records.is_empty() {
        writeln!(out, "plug records:")?;
        for p in records {
            let owner = if p["owned"].as_bool() == Some(true) {
                "owned"
            } else {
                "owned by nothing"
            };
            writeln!(
                out,
                "  {}  {owner}",
                p["plug_id"].as_str().unwrap_or_default()
            )?;
        }
    }
    Ok(())
}
