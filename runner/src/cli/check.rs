//! `blaise-runner check`: validate `blaise.yml`, load every plug, run the
//! startup check, print a table; non-zero exit on any problem.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;

use super::inspect::hook_name;
use crate::config::{ConfigFile, ResolvedPlug, cannot_resume, resolve};
use crate::host::PlugHost;
use crate::protocol::IdlePolicy;

pub async fn run(host: &PlugHost, config: &Path, idle_policy: &str) -> Result<ExitCode> {
    let file = match ConfigFile::load(config) {
        Ok(file) => file,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let plugs = match resolve(&file, host).await {
        Ok(plugs) => plugs,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    print_table(&plugs);
    println!("agent: {}", file.config.agent.command.join(" "));

    let policy = if idle_policy == "pause" {
        IdlePolicy::Pause
    } else {
        IdlePolicy::End
    };
    let problems = startup_check(&plugs, policy);
    for plug in &plugs {
        if let Some(notice) = &plug.notice {
            println!("note: plug `{}`: {notice}", plug.setup.id);
        }
        for line in grant_gaps(plug) {
            println!("{line}");
        }
    }
    if let Some(problem) = problems {
        eprintln!("error: {problem}");
        return Ok(ExitCode::FAILURE);
    }
    println!(
        "ok: {} plug(s), startup check passed for idle policy `{idle_policy}`",
        plugs.len()
    );
    Ok(ExitCode::SUCCESS)
}

/// One line for each thing a plug asks for and blaise.yml does not grant. A
/// secret left out is a normal setup (the plug carries on without it): a
/// note, not a warning.
pub fn grant_gaps(plug: &ResolvedPlug) -> Vec<String> {
    let id = &plug.setup.id;
    plug.grants
        .not_granted
        .iter()
        // What a plug asks for is its author's text.
        .map(|gap| crate::distribution::download::printable(gap))
        .map(|gap| match gap.strip_prefix("secret: ") {
            Some(name) => format!(
                "note: plug `{id}` can use the secret `{name}`; blaise.yml does not grant it, so the plug runs without it"
            ),
            None => format!(
                "warning: plug `{id}` asks for `{gap}`, not granted: such calls will be denied"
            ),
        })
        .collect()
}

/// The runner's startup check: a chain that cannot resume is refused when the
/// agent's idle policy is to pause.
pub fn startup_check(plugs: &[ResolvedPlug], idle_policy: IdlePolicy) -> Option<String> {
    if idle_policy != IdlePolicy::Pause {
        return None;
    }
    let cannot = cannot_resume(plugs);
    (!cannot.is_empty()).then(|| {
        format!(
            "the agent's idle policy is `pause`, but plug(s) {} cannot resume: remove them, or set the agent's idle policy to `end`",
            cannot.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ")
        )
    })
}

fn print_table(plugs: &[ResolvedPlug]) {
    let yes = |b: bool| if b { "yes" } else { "no" };
    let rows: Vec<[String; 7]> = plugs
        .iter()
        .map(|p| {
            let plug = p.loaded();
            let info = &plug.info;
            let effective = &p.grants.effective;
            let grants: Vec<String> = effective
                .exec
                .names
                .iter()
                .map(|e| format!("exec:{e}"))
                .chain(effective.http.0.iter().map(|h| format!("http:{h}")))
                .chain(effective.secrets.0.keys().map(|s| format!("secret:{s}")))
                .chain(effective.storage.then(|| "storage".to_string()))
                .collect();
            [
                p.setup.id.clone(),
                format!("{} {}", info.name, info.version),
                plug.contract.to_string(),
                yes(info.stateful).into(),
                yes(info.can_resume).into(),
                if info.hooks.is_empty() {
                    "-".into()
                } else {
                    info.hooks
                        .iter()
                        .map(|h| hook_name(*h))
                        .collect::<Vec<_>>()
                        .join(",")
                },
                if grants.is_empty() {
                    "-".into()
                } else {
                    grants.join(" ")
                },
            ]
        })
        .collect();
    super::table::print(
        [
            "ID", "PLUG", "CONTRACT", "STATEFUL", "RESUMES", "HOOKS", "GRANTS",
        ],
        &rows,
    );
}
