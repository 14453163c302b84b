//! `blaise-runner plug test [PLUG] [--script FILE] [--json] [--serve]`: runs a
//! plug's hooks in the real host through a lifecycle, and shows what each
//! hook did: its result, contribution, state changes, log lines and time.
//! PLUG is a component (`.wasm`, built in any language) or a Rust plug
//! crate's directory (built first). Exits non-zero when a step fails.
//!
//! `--serve` is the SDK harness's mode: it prints the plug's description as
//! one JSON line, then answers each JSON line read from stdin (a step, or
//! `{"configure": …}`) with one JSON line.

mod capture;
mod script;
mod session;

use std::io::{BufRead as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context as _, Result, bail};
use serde_json::{Value, json};

use blaise_runner::distribution::download::printable;
use blaise_runner::host::PlugHost;
pub use capture::{LogCapture, init_tracing};
use script::{Script, Setup, Step};
use session::{Outcome, TestSession};

pub struct TestArgs {
    pub plug: PathBuf,
    pub script: Option<PathBuf>,
    pub json: bool,
    pub serve: bool,
}

pub async fn run(host: PlugHost, args: TestArgs, capture: LogCapture) -> Result<ExitCode> {
    let component = component(&args.plug)?;
    let host = Arc::new(host);
    let plug = match host.load(&component).await {
        Ok(plug) => plug,
        Err(e) if args.serve => {
            println!("{}", json!({ "error": format!("{e:#}") }));
            return Ok(ExitCode::FAILURE);
        }
        Err(e) => return Err(e.into()),
    };
    let mut session = TestSession::new(host, plug.clone(), capture)?;
    if args.serve {
        return serve(&mut session, &plug).await;
    }
    // A crate's own script, when it has one and no other is given.
    let script_path = args.script.clone().or_else(|| {
        let own = args.plug.join(OWN_SCRIPT);
        own.is_file().then_some(own)
    });
    let script = match &script_path {
        Some(path) => read_script(path)?,
        None => Script::default(),
    };
    let steps = match &script.steps {
        Some(written) => written
            .iter()
            .enumerate()
            .map(|(i, step)| Step::read(step).map_err(|e| anyhow::anyhow!("steps[{i}]: {e}")))
            .collect::<Result<Vec<_>>>()
            .with_context(|| where_(script_path.as_deref()))?,
        None => Step::default_lifecycle(plug.info.filters_transcript),
    };
    if let Err(e) = session.configure(&script.setup()) {
        let hint = if script_path.is_none() {
            format!(
                ": give the plug's config as `with:` in a script (--script FILE, or {OWN_SCRIPT} in the crate)"
            )
        } else {
            String::new()
        };
        bail!(
            "{}: the plug's config: {e}{hint}",
            where_(script_path.as_deref())
        );
    }
    if !args.json {
        print_plug(&session, &component);
    }
    let mut outcomes = Vec::new();
    for step in &steps {
        let outcome = session.run(step).await;
        if !args.json {
            print_outcome(&outcome, step);
        }
        outcomes.push(outcome);
    }
    let failed = outcomes.iter().filter(|o| !o.ok).count();
    if args.json {
        let report = json!({
            "plug": super::inspect::describe(&plug),
            "steps": outcomes,
            "ok": failed == 0,
        });
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else if failed == 0 {
        println!("all {} steps as expected", outcomes.len());
    } else {
        println!("{failed} of {} steps failed", outcomes.len());
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The script a plug crate keeps beside its `Cargo.toml` (`plug new` writes one).
const OWN_SCRIPT: &str = "plug-test.yml";

fn where_(script: Option<&Path>) -> String {
    script.map_or("the default lifecycle".into(), |p| p.display().to_string())
}

/// The component to test: the file, or the crate in the directory built.
fn component(plug: &Path) -> Result<PathBuf> {
    if plug.is_dir() {
        Ok(blaise_runner::build::build_plug(plug, None)?)
    } else if plug.is_file() {
        Ok(plug.to_path_buf())
    } else {
        bail!(
            "{} is neither a component (.wasm) nor a plug crate's directory",
            plug.display()
        )
    }
}

fn read_script(path: &Path) -> Result<Script> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading the script {}", path.display()))?;
    serde_yaml::from_str(&text)
        .map_err(|e| blaise_runner::config::ConfigError::from_yaml(path, &e).into())
}

/// The harness's mode: JSON lines in, JSON lines out.
async fn serve(
    session: &mut TestSession,
    plug: &blaise_runner::host::LoadedPlug,
) -> Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    let hello = json!({
        "plug": super::inspect::describe(plug),
        "workspace": session.workspace(),
    });
    writeln!(out, "{hello}")?;
    out.flush()?;
    drop(out);
    let stdin = std::io::stdin();
    let mut line = String::new();
    loop {
        line.clear();
        // A blocking read is fine: this process serves one harness, in turn.
        if stdin.lock().read_line(&mut line)? == 0 {
            return Ok(ExitCode::SUCCESS);
        }
        if line.trim().is_empty() {
            continue;
        }
        let answer = answer(session, &line).await;
        let mut out = std::io::stdout().lock();
        writeln!(out, "{answer}")?;
        out.flush()?;
    }
}

async fn answer(session: &mut TestSession, line: &str) -> Value {
    let request: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return json!({ "ok": false, "error": { "message": format!("not JSON: {e}") } }),
    };
    if let Some(setup) = request.get("configure") {
        let result = serde_json::from_value::<Setup>(setup.clone())
            .map_err(|e| e.to_string())
            .and_then(|setup| session.configure(&setup));
        return match result {
            Ok(()) => json!({ "ok": true }),
            Err(e) => json!({ "ok": false, "error": { "message": e } }),
        };
    }
    match Step::read(&request) {
        Ok(step) => serde_json::to_value(session.run(&step).await)
            .unwrap_or_else(|e| json!({ "ok": false, "error": { "message": e.to_string() } })),
        Err(e) => json!({ "ok": false, "error": { "message": e } }),
    }
}

fn print_plug(session: &TestSession, component: &Path) {
    let info = session.info();
    let hooks: Vec<&str> = info
        .hooks
        .iter()
        .map(|h| super::inspect::hook_name(*h))
        .collect();
    println!(
        "plug `{}` {} ({})",
        printable(&info.name),
        printable(&info.version),
        component.display()
    );
    println!(
        "  hooks: {}{}",
        if hooks.is_empty() {
            "none".into()
        } else {
            hooks.join(", ")
        },
        if info.filters_transcript {
            "; filters the transcript"
        } else {
            ""
        }
    );
}

fn print_outcome(outcome: &Outcome, step: &Step) {
    let verdict = match (&outcome.error, outcome.ok) {
        (None, true) => "ok".to_string(),
        (Some(_), true) => "failed as expected".to_string(),
        (None, false) => format!(
            "FAILED: expected an error containing `{}`",
            step.expect_error().unwrap_or_default()
        ),
        (Some(_), false) => "FAILED".to_string(),
    };
    println!("{:<10} {verdict} ({:.1} ms)", outcome.step, outcome.millis);
    if let Some(e) = &outcome.error {
        let field = e
            .field
            .as_ref()
            .map(|f| format!(" (with.{})", printable(f)))
            .unwrap_or_default();
        println!("    error in {}: {}{field}", e.hook, printable(&e.message));
    }
    if let Some(c) = &outcome.contribution {
        for pair in c["env"].as_array().into_iter().flatten() {
            println!(
                "    env {}={}",
                printable(pair[0].as_str().unwrap_or_default()),
                printable(pair[1].as_str().unwrap_or_default())
            );
        }
        if let Some(dir) = c["working_dir"].as_str() {
            println!("    working dir {}", printable(dir));
        }
        if let Some(prefix) = c["command_prefix"].as_array().filter(|p| !p.is_empty()) {
            println!(
                "    command prefix {}",
                printable(&Value::Array(prefix.clone()).to_string())
            );
        }
    }
    for entry in outcome.entries.iter().flatten() {
        println!(
            "    entry {}: {}",
            entry["kind"].as_str().unwrap_or_default(),
            printable(&entry["text"].to_string())
        );
    }
    let changes = &outcome.state_changes;
    for (key, value) in changes["set"].as_object().into_iter().flatten() {
        // UTF-8 values as they are (the SDK stores JSON), others as JSON.
        let shown = value
            .as_str()
            .map_or_else(|| value.to_string(), str::to_owned);
        println!("    state set {} = {}", printable(key), printable(&shown));
    }
    for key in changes["deleted"].as_array().into_iter().flatten() {
        println!(
            "    state deleted {}",
            printable(key.as_str().unwrap_or_default())
        );
    }
    for log in &outcome.logs {
        let source = if log.source.is_empty() {
            "host"
        } else {
            &log.source
        };
        println!("    {} {source}: {}", log.level, printable(&log.message));
    }
}
