//! `blaise-runner plug inspect FILE [--json]`.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use serde_json::json;

use blaise_runner::contract;
use blaise_runner::host::bindings::Hook;
use blaise_runner::host::{LoadedPlug, PlugHost};

pub async fn run(host: &PlugHost, file: &Path, as_json: bool) -> Result<ExitCode> {
    let plug = host.load(file).await?;
    let report = describe(&plug);
    if as_json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_text(&plug);
    }
    Ok(ExitCode::SUCCESS)
}

pub fn hook_name(hook: Hook) -> &'static str {
    match hook {
        Hook::OnStart => "on-start",
        Hook::OnResume => "on-resume",
        Hook::OnPause => "on-pause",
        Hook::OnTeardown => "on-teardown",
    }
}

/// The JSON shape of `plug inspect --json`.
pub fn describe(plug: &LoadedPlug) -> serde_json::Value {
    let info = &plug.info;
    let schema: serde_json::Value =
        serde_json::from_str(&info.config_schema).unwrap_or(json!(info.config_schema));
    json!({
        "name": info.name,
        "version": info.version,
        "description": info.description,
        "contract": format!("{}@{}", contract::PACKAGE, plug.contract),
        "contract_adapted": contract::adapted(plug.contract),
        "stateful": info.stateful,
        "can_resume": info.can_resume,
        "keeps_processes": info.keeps_processes,
        "hooks": info.hooks.iter().map(|h| hook_name(*h)).collect::<Vec<_>>(),
        "filters_transcript": info.filters_transcript,
        "config_schema": schema,
        "needs": {
            "exec": info.needs.exec,
            "http": info.needs.http,
            "secrets": info.needs.secrets,
            "storage": info.needs.storage,
        },
        "imports": plug.imports,
        "sha256": plug.sha256,
    })
}

fn print_text(plug: &LoadedPlug) {
    let info = &plug.info;
    let yes = |b: bool| if b { "yes" } else { "no" };
    let hooks: Vec<_> = info.hooks.iter().map(|h| hook_name(*h)).collect();
    println!("{} {}", info.name, info.version);
    if !info.description.is_empty() {
        println!("  {}", info.description);
    }
    println!(
        "  contract:           {}@{}{}",
        contract::PACKAGE,
        plug.contract,
        if contract::adapted(plug.contract) {
            format!(
                " (older: loaded through this runner's adapter; {}@{} is current)",
                contract::PACKAGE,
                contract::VERSION
            )
        } else {
            String::new()
        }
    );
    println!("  stateful:           {}", yes(info.stateful));
    println!("  can resume:         {}", yes(info.can_resume));
    println!("  keeps processes:    {}", yes(info.keeps_processes));
    println!(
        "  hooks:              {}",
        if hooks.is_empty() {
            "none".into()
        } else {
            hooks.join(", ")
        }
    );
    println!("  filters transcript: {}", yes(info.filters_transcript));
    println!("  asks to exec:       {}", list(&info.needs.exec));
    println!("  asks for http to:   {}", list(&info.needs.http));
    println!("  asks for secrets:   {}", list(&info.needs.secrets));
    println!(
        "  asks for storage:   {}",
        if info.needs.storage { "yes" } else { "no" }
    );
    println!("  sha256:             {}", plug.sha256);
    println!("  config schema:      {}", info.config_schema);
    println!("  imports:");
    for import in &plug.imports {
        println!("    {import}");
    }
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "nothing".into()
    } else {
        items.join(", ")
    }
}
