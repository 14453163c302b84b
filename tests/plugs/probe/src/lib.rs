//! The probe: a test plug driven by its `with:` config. Each hook runs the
//! list of actions configured for it, in order; hostile actions (spin, hog
//! memory, recurse, panic, flood) are here to prove the host contains them.

use blaise_plug::process::Command;
use blaise_plug::{
    Context, Contribution, EntryKind, PauseInfo, Plug, PlugError, PlugInfo, PrepareContext,
    TeardownInfo, TranscriptEntry, http, log, state,
};
use serde::Deserialize;

#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(default)]
struct Config {
    // The actions are the tests' to choose, hostile ones included: the schema
    // leaves them open and the hook reads them.
    #[schemars(with = "Vec<serde_json::Value>")]
    on_start: Vec<Action>,
    #[schemars(with = "Vec<serde_json::Value>")]
    on_resume: Vec<Action>,
    #[schemars(with = "Vec<serde_json::Value>")]
    on_pause: Vec<Action>,
    #[schemars(with = "Vec<serde_json::Value>")]
    on_teardown: Vec<Action>,
    #[schemars(with = "Vec<serde_json::Value>")]
    on_prepare: Vec<Action>,
    /// Appended to every transcript entry's text.
    filter_tag: Option<String>,
    /// Appends every entry the filter sees to `<workspace>/filter.log`.
    filter_log: bool,
    /// The filter panics on an entry containing this text.
    filter_panic_on: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Action {
    /// Appends `<label>` and the hook's info to `<workspace>/calls.log`.
    Record(String),
    /// Appends `<label> <hook> <run id> <workspace> [<what it holds>]` to
    /// `<storage>/notes.log` (which outlives a preparation's scratch workspace).
    Note(String),
    Set(String, String),
    /// Sets the state key named after the hook (e.g. `pause:idle:false`), so
    /// that which hooks ran shows in Blaise's plug records.
    Mark,
    Delete(String),
    /// Contributes env `KEY=<state value of KEY or "-">`.
    EnvFromState(String),
    Env(String, String),
    Workdir(String),
    Prefix(Vec<String>),
    Fail(String),
    FailField(String, String),
    Exec(Vec<String>),
    Http(String),
    /// `GET url` with one header of the plug's: `[url, name, value]`.
    HttpHeader(String, String, String),
    ReadFile(String),
    /// Opens a TCP connection with the standard library (WASI sockets).
    TcpConnect(String),
    /// Reads an environment variable of the plug's own process.
    EnvVar(String),
    /// Reads a granted secret, logs it and fails with it in the message (the
    /// runner must mask it in both).
    Secret(String),
    Spin,
    AllocMb(u64),
    Recurse,
    Panic(String),
    LogFlood(u64),
    StateFlood(u64),
}

struct Probe;

fn run(ctx: &Context, actions: &[Action], hook: &str) -> Result<Contribution, PlugError> {
    let mut c = Contribution::default();
    for action in actions {
        match action {
            Action::Note(label) => {
                let storage = ctx
                    .storage
                    .as_deref()
                    .ok_or_else(|| PlugError::new("note: no storage granted"))?;
                let path = format!("{storage}/notes.log");
                let mut log = std::fs::read_to_string(&path).unwrap_or_default();
                let mut held: Vec<String> = std::fs::read_dir(&ctx.workspace)
                    .map(|d| {
                        d.flatten()
                            .map(|e| e.file_name().to_string_lossy().into_owned())
                            .collect()
                    })
                    .unwrap_or_default();
                held.sort();
                log.push_str(&format!(
                    "{label} {hook} {} {} [{}]\n",
                    ctx.run_id,
                    ctx.workspace,
                    held.join(",")
                ));
                std::fs::write(&path, log).map_err(|e| PlugError::new(format!("note: {e}")))?;
            }
            Action::Record(label) => {
                let path = format!("{}/calls.log", ctx.workspace);
                let mut log = std::fs::read_to_string(&path).unwrap_or_default();
                log.push_str(&format!(
                    "{label} {hook} {:?} {}\n",
                    ctx.run_kind, ctx.run_id
                ));
                std::fs::write(&path, log).map_err(|e| PlugError::new(format!("record: {e}")))?;
            }
            Action::Set(k, v) => state::set(k, v)?,
            Action::Mark => state::set(hook, &1)?,
            Action::Delete(k) => state::delete(k)?,
            Action::EnvFromState(k) => {
                let v: Option<String> = state::get(k)?;
                c = c.env(k.clone(), v.unwrap_or_else(|| "-".into()));
            }
            Action::Env(k, v) => c = c.env(k.clone(), v.clone()),
            Action::Workdir(d) => c = c.working_dir(d.clone()),
            Action::Prefix(words) => c = c.command_prefix(words.clone()),
            Action::Fail(msg) => return Err(PlugError::new(msg.clone())),
            Action::FailField(field, msg) => {
                return Err(PlugError::field(field.clone(), msg.clone()));
            }
            Action::Exec(argv) => {
                let out = Command::new(&argv[0])
                    .args(argv[1..].iter().cloned())
                    .run()?;
                c = c.env("EXEC_STDOUT", out.stdout_text().trim().to_string());
            }
            Action::Http(url) => {
                let resp = http::get(url)?;
                c = c.env("HTTP_STATUS", resp.status.to_string());
            }
            Action::HttpHeader(url, name, value) => {
                let resp = http::send(&http::Request {
                    method: "GET".into(),
                    url: url.clone(),
                    headers: vec![(name.clone(), value.clone())],
                    body: Vec::new(),
                    timeout_ms: None,
                })?;
                c = c.env("HTTP_STATUS", resp.status.to_string());
            }
            Action::ReadFile(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| PlugError::new(format!("cannot read {path}: {e}")))?;
                c = c.env("FILE", text);
            }
            Action::TcpConnect(addr) => {
                std::net::TcpStream::connect(addr.as_str())
                    .map_err(|e| PlugError::new(format!("cannot connect to {addr}: {e}")))?;
                c = c.env("CONNECTED", addr.clone());
            }
            Action::EnvVar(name) => {
                let value = std::env::var(name)
                    .map_err(|e| PlugError::new(format!("no environment variable {name}: {e}")))?;
                c = c.env(name.clone(), value);
            }
            Action::Secret(name) => {
                let value = blaise_plug::secrets::get(name)?;
                blaise_plug::log::info(format!("the secret is {value}"));
                return Err(PlugError::new(format!(
                    "failing with {value} in the message"
                )));
            }
            Action::Spin => {
                let mut x: u64 = 0;
                loop {
                    x = std::hint::black_box(x.wrapping_add(1));
                }
            }
            Action::AllocMb(mb) => {
                let mut chunks = Vec::new();
                for _ in 0..*mb {
                    chunks.push(std::hint::black_box(vec![1u8; 1 << 20]));
                }
                c = c.env("ALLOCATED", chunks.len().to_string());
            }
            Action::Recurse => {
                c = c.env("DEPTH", recurse(std::hint::black_box(1)).to_string());
            }
            Action::Panic(msg) => panic!("{msg}"),
            Action::LogFlood(n) => {
                for i in 0..*n {
                    log::info(format!("flood line {i}"));
                    if i % 2 == 0 {
                        eprintln!("stderr flood line {i}");
                    }
                }
            }
            Action::StateFlood(n) => {
                for i in 0..*n {
                    state::set(&format!("flood-{i}"), &"x".repeat(1024))?;
                }
            }
        }
    }
    Ok(c)
}

fn recurse(n: u64) -> u64 {
    let pad = std::hint::black_box([n; 64]);
    if n == u64::MAX {
        pad[0]
    } else {
        recurse(n + 1) + pad[1]
    }
}

fn config(ctx: &Context) -> Result<Config, PlugError> {
    ctx.config()
}

#[blaise_plug::plug]
impl Plug for Probe {
    fn describe() -> PlugInfo {
        PlugInfo::builder("probe", env!("CARGO_PKG_VERSION"))
            .description("test plug")
            .stateful(true)
            .can_resume(true)
            .keeps_processes(true)
            .config::<Config>()
            .exec(&["echo", "sh"])
            .http(&["127.0.0.1"])
            .secrets(&["probe-secret", "missing-secret"])
            // For `note`, which a preparation leaves behind.
            .storage(true)
            .build()
    }

    fn on_start(ctx: &Context) -> Result<Contribution, PlugError> {
        run(ctx, &config(ctx)?.on_start, "start")
    }

    fn on_resume(ctx: &Context) -> Result<Contribution, PlugError> {
        let hook = if ctx.processes_kept {
            "resume:kept"
        } else {
            "resume"
        };
        run(ctx, &config(ctx)?.on_resume, hook)
    }

    fn on_pause(ctx: &Context, info: &PauseInfo) -> Result<(), PlugError> {
        let kept = if info.keep_processes { ":kept" } else { "" };
        let hook = format!("pause:{}:{}{kept}", info.reason, info.may_resume);
        run(ctx, &config(ctx)?.on_pause, &hook).map(|_| ())
    }

    fn on_teardown(ctx: &Context, info: &TeardownInfo) -> Result<(), PlugError> {
        let hook = format!("teardown:{}:{}", info.reason, info.right_after_pause);
        run(ctx, &config(ctx)?.on_teardown, &hook).map(|_| ())
    }

    fn on_prepare(ctx: &PrepareContext) -> Result<(), PlugError> {
        let ctx = ctx.as_start();
        run(&ctx, &config(&ctx)?.on_prepare, "prepare").map(|_| ())
    }

    fn filter(ctx: &Context, mut entry: TranscriptEntry) -> TranscriptEntry {
        let config = config(ctx).unwrap_or_default();
        if config.filter_log {
            let path = format!("{}/filter.log", ctx.workspace);
            let mut log = std::fs::read_to_string(&path).unwrap_or_default();
            log.push_str(&format!(
                "{:?} replay={} last={}: {}\n",
                entry.kind, entry.replay, entry.last, entry.text
            ));
            let _ = std::fs::write(&path, log);
        }
        if let Some(needle) = &config.filter_panic_on
            && entry.text.contains(needle.as_str())
        {
            // As a Rust slicing panic does: the message quotes the text.
            panic!("the filter met {needle} in `{}`", entry.text);
        }
        if let Some(tag) = config.filter_tag {
            entry.text.push_str(&tag);
        }
        if entry.kind == EntryKind::Notice {
            entry.text = entry.text.to_uppercase();
        }
        entry
    }
}
