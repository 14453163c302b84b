//! A plug built for contract 0.2.0 (`wit/0.2/plug.wit`, frozen), with plain
//! wit-bindgen: what a plug published before 0.3.0 is. Every hook uses each
//! import once and appends what it saw to `<workspace>/older.log`, one line
//! each, so a test can tell that calls and answers crossed the runner's
//! adapter intact in both directions.

wit_bindgen::generate!({ path: "../../../wit/0.2/plug.wit", world: "plug" });

use std::io::Write as _;

use blaise::plug::types::{Hook, Needs, RunKind};
use blaise::plug::{http, log, process, secrets, state};
use exports::blaise::plug::hooks::{
    Context, Contribution, Guest, PauseInfo, PlugError, PlugInfo, TeardownInfo,
};
use exports::blaise::plug::transcript::{Guest as Transcript, TranscriptEntry};

struct Older;

fn note(ctx: &Context, line: String) {
    let path = format!("{}/older.log", ctx.workspace);
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .expect("the workspace is preopened");
    writeln!(file, "{line}").expect("writing older.log");
}

fn kind(ctx: &Context) -> &'static str {
    match ctx.run_kind {
        RunKind::Start => "start",
        RunKind::Resume => "resume",
        RunKind::Teardown => "teardown",
    }
}

/// Uses each import once and says what came back.
fn use_imports(ctx: &Context) -> Result<u32, PlugError> {
    let runs = match state::get("runs") {
        Ok(Some(bytes)) => String::from_utf8_lossy(&bytes).parse().unwrap_or(0),
        Ok(None) => 0,
        Err(e) => return Err(fail(format!("state: {e:?}"))),
    } + 1;
    state::set("runs", runs.to_string().as_bytes()).map_err(|e| fail(format!("{e:?}")))?;
    log::log(log::Level::Info, &format!("older plug, run {runs}"));
    let echo = process::run(&process::Command {
        argv: vec!["echo".into(), format!("run {runs}")],
        env: Vec::new(),
        cwd: None,
        stdin: Vec::new(),
        timeout_ms: Some(5_000),
    });
    let echo = match echo {
        Ok(out) => format!(
            "{:?} {}",
            out.status,
            String::from_utf8_lossy(&out.stdout).trim()
        ),
        Err(e) => format!("{e:?}"),
    };
    let secret = match secrets::get("OLDER_TOKEN") {
        Ok(value) => format!("{} bytes", value.len()),
        Err(e) => format!("{e:?}"),
    };
    let http = match http::send(&http::Request {
        method: "GET".into(),
        url: "http://not-granted.invalid/".into(),
        headers: Vec::new(),
        body: Vec::new(),
        timeout_ms: None,
    }) {
        Ok(response) => format!("status {}", response.status),
        Err(http::HttpError::Denied(_)) => "denied".into(),
        Err(e) => format!("{e:?}"),
    };
    note(
        ctx,
        format!(
            "imports {} runs={runs} echo={echo} secret={secret} http={http}",
            kind(ctx)
        ),
    );
    Ok(runs)
}

fn fail(message: String) -> PlugError {
    PlugError {
        message,
        field: None,
    }
}

fn contribution(runs: u32) -> Contribution {
    Contribution {
        env: vec![
            ("OLDER_PLUG".into(), "0.2".into()),
            ("OLDER_RUNS".into(), runs.to_string()),
        ],
        working_dir: None,
        command_prefix: Vec::new(),
    }
}

impl Guest for Older {
    fn describe() -> PlugInfo {
        PlugInfo {
            name: "older".into(),
            version: "0.1.0".into(),
            description: "Built for blaise:plug@0.2.0".into(),
            stateful: true,
            can_resume: true,
            hooks: vec![Hook::OnStart, Hook::OnResume, Hook::OnPause, Hook::OnTeardown],
            filters_transcript: true,
            config_schema: r#"{"type":"object","properties":{"fail_resume":{"type":"boolean"}},"additionalProperties":false}"#.into(),
            needs: Needs {
                exec: vec!["echo".into()],
                http: Vec::new(),
                secrets: vec!["OLDER_TOKEN".into()],
                storage: false,
            },
        }
    }

    fn on_start(ctx: Context) -> Result<Contribution, PlugError> {
        note(
            &ctx,
            format!("on-start {} config={}", kind(&ctx), ctx.config),
        );
        use_imports(&ctx).map(contribution)
    }

    fn on_resume(ctx: Context) -> Result<Contribution, PlugError> {
        note(&ctx, format!("on-resume {}", kind(&ctx)));
        if ctx.config.contains(r#""fail_resume":true"#) {
            return Err(PlugError {
                message: "the older plug was told to fail its resume".into(),
                field: Some("fail_resume".into()),
            });
        }
        use_imports(&ctx).map(contribution)
    }

    fn on_pause(ctx: Context, info: PauseInfo) -> Result<(), PlugError> {
        note(
            &ctx,
            format!(
                "on-pause reason={} may_resume={}",
                info.reason, info.may_resume
            ),
        );
        Ok(())
    }

    fn on_teardown(ctx: Context, info: TeardownInfo) -> Result<(), PlugError> {
        note(
            &ctx,
            format!(
                "on-teardown reason={} right_after_pause={}",
                info.reason, info.right_after_pause
            ),
        );
        Ok(())
    }
}

impl Transcript for Older {
    fn filter(
        _: exports::blaise::plug::transcript::Context,
        entries: Vec<TranscriptEntry>,
    ) -> Vec<TranscriptEntry> {
        entries
            .into_iter()
            .map(|mut entry| {
                entry.text = format!("{} [seen by a 0.2 plug]", entry.text);
                entry
            })
            .collect()
    }
}

export!(Older);
