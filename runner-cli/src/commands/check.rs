//! `blaise-runner check`: validate `blaise.yml`, load every plug, run the
//! startup check, print a table; non-zero exit on any problem.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;

use super::inspect::hook_name;
use blaise_runner::config::{ConfigFile, EnvValue, ResolvedPlug, resolve, startup_check};
use blaise_runner::contract;
use blaise_runner::host::PlugHost;
use blaise_runner::protocol::IdlePolicy;

/// `probe`: also start the agent and wait this long for its answer to `initialize`.
pub async fn run(
    host: &PlugHost,
    config: &Path,
    idle_policy: &str,
    probe: Option<std::time::Duration>,
) -> Result<ExitCode> {
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
    for line in agent_env_notes(&file.config.agent.env) {
        println!("{line}");
    }
    let mut program = agent_program(&file.config.agent.command, &plugs);
    match &program {
        Err(problem) => eprintln!("error: {problem}"),
        Ok(Some(note)) => {
            println!("{note}");
            if probe.is_some() {
                println!(
                    "note: --probe does not start the agent: a plug starts it, in what it sets up"
                );
            }
        }
        Ok(None) => {
            if let Some(deadline) = probe {
                // What the agent printed may hold the key it was given (`invalid key sk-…`):
                // masked here as in every log line.
                let scrub = |text: String| blaise_runner::secret_mask::scrub(&text).into_owned();
                match super::probe::probe(&file.config.agent, deadline).await {
                    Ok(answer) => println!("{answer}"),
                    Err(problem) => {
                        let problem = scrub(problem);
                        eprintln!("error: {problem}");
                        program = Err(problem);
                    }
                }
            }
        }
    }

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
        if let Some(line) = older_contract_note(plug) {
            println!("{line}");
        }
    }
    if let Some(problem) = problems {
        eprintln!("error: {problem}");
        return Ok(ExitCode::FAILURE);
    }
    if program.is_err() {
        return Ok(ExitCode::FAILURE);
    }
    println!(
        "ok: {} plug(s), startup check passed for idle policy `{idle_policy}`",
        plugs.len()
    );
    Ok(ExitCode::SUCCESS)
}

/// For a plug built for an older contract (loaded through an adapter): what
/// it misses.
fn older_contract_note(plug: &ResolvedPlug) -> Option<String> {
    let built_for = plug.loaded().contract;
    contract::adapted(built_for).then(|| {
        format!(
            "note: plug `{}` was built for plug contract {pkg}@{built_for}, which this runner still loads through an adapter ({pkg}@{} is current): it is never told to keep the agent's processes across a pause, so sessions with it always resume cold; rebuild it with a current blaise-plug SDK to lift that",
            plug.setup.id,
            contract::VERSION,
            pkg = contract::PACKAGE,
        )
    })
}

/// Whether the agent's program is there to start. Without a plug that may
/// put a program before it (only a plug granted `exec` can), the runner
/// starts it itself, from its `PATH` or as a path: it must be found here, or
/// every session would fail at once. With such a plug (a sandbox, a
/// container), it is found where that plug starts it: a note.
fn agent_program(command: &[String], plugs: &[ResolvedPlug]) -> Result<Option<String>, String> {
    let Some(program) = command.first() else {
        return Err("agent.command is empty: give the agent's program and its arguments".into());
    };
    let wrappers: Vec<&str> = plugs
        .iter()
        .filter(|p| !p.grants.effective.exec.names.is_empty())
        .map(|p| p.setup.id.as_str())
        .collect();
    if !wrappers.is_empty() {
        return Ok(Some(format!(
            "note: agent.command `{program}` is not looked for here: plug(s) {} may start it where they set it up (a sandbox, a container)",
            wrappers
                .iter()
                .map(|id| format!("`{id}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    match find_program(program) {
        Some(_) => Ok(None),
        None if program.contains('/') => Err(format!(
            "agent.command: `{program}` is not an executable file: every session would fail to start its agent"
        )),
        None => Err(format!(
            "agent.command: `{program}` is not on PATH ({}): every session would fail to start its agent; install it, or give its full path",
            std::env::var("PATH").unwrap_or_default()
        )),
    }
}

/// `program` as the runner would start it: a path as it is, a name on `PATH`.
fn find_program(program: &str) -> Option<std::path::PathBuf> {
    use std::os::unix::fs::PermissionsExt as _;
    let executable = |p: &Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        let p = Path::new(program);
        return executable(p).then(|| p.to_path_buf());
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|p| executable(p))
}

/// One line for each thing a plug asks for and blaise.yml does not grant (a
/// secret left out is a normal setup, the plug carries on without it: a
/// note, not a warning), and for each grant the plug never asked for (it has
/// no effect: a typo, or a plug that changed).
pub fn grant_gaps(plug: &ResolvedPlug) -> Vec<String> {
    let id = &plug.setup.id;
    let unused = plug.grants.not_asked.iter().map(|grant| {
        format!(
            "warning: plug `{id}`: blaise.yml grants `{}`, which the plug does not ask for: it has no effect",
            blaise_runner::distribution::download::printable(grant)
        )
    });
    plug.grants
        .not_granted
        .iter()
        // What a plug asks for is its author's text.
        .map(|gap| blaise_runner::distribution::download::printable(gap))
        .map(|gap| {
            if gap == "storage" {
                // Its path reaches hooks as `ctx.storage`, absent when not
                // granted: a plug that cannot work without one says so at start.
                return format!(
                    "note: plug `{id}` can keep a directory of its own (`storage`); blaise.yml does not grant it, so the plug runs without one"
                );
            }
            if let Some(name) = gap.strip_prefix("secret: ") {
                return format!(
                    "note: plug `{id}` can use the secret `{name}`; blaise.yml does not grant it, so the plug runs without it"
                );
            }
            // A program shipped with the runner that a plug runs only for a
            // feature of its config (`blaise-egress`: an egress policy).
            match gap.strip_prefix("exec: ") {
                Some(program) if blaise_runner::host::grants::SHIPPED.contains(&program) => format!(
                    "note: plug `{id}` can run `{program}` (shipped with the runner); blaise.yml does not grant it, so a config that needs it fails at start"
                ),
                _ => format!(
                    "warning: plug `{id}` asks for `{gap}`, not granted: such calls will be denied"
                ),
            }
        })
        .chain(unused)
        .collect()
}

/// What `check` says of `agent.env`: a written-out value that looks like a
/// key (it belongs in a source, where it is masked), and a source this
/// machine cannot read (the runner that starts the agent must).
pub fn agent_env_notes(env: &std::collections::BTreeMap<String, EnvValue>) -> Vec<String> {
    let detector = redaction_detect::Redactor::new(&[]);
    let mut notes = Vec::new();
    for (name, value) in env {
        match value {
            EnvValue::Literal(text) => {
                let found = detector.find(text);
                let named = looks_like_a_key_by_name(name, text);
                if let Some(kind) = found.first().map(|f| f.kind).or(named.then_some("key")) {
                    notes.push(format!(
                        "warning: agent.env.{name} is written out and looks like a credential ({kind}): keep it out of blaise.yml and let the runner read and mask it: `{name}: {{ env: {name} }}` (or `{{ file: /path }}`)"
                    ));
                }
            }
            EnvValue::Secret(source) => {
                if let Err(why) = source.read() {
                    notes.push(format!(
                        "note: agent.env.{name} cannot be read here ({why}): the runner that starts the agent must be able to"
                    ));
                }
            }
        }
    }
    notes
}

/// A name like `OPENAI_API_KEY` or `GH_TOKEN` with a value like a key (long,
/// one word, not a path or a URL).
fn looks_like_a_key_by_name(name: &str, value: &str) -> bool {
    let secretive = name.split('_').any(|w| {
        matches!(
            w,
            "KEY" | "TOKEN" | "SECRET" | "PASSWORD" | "PASSWD" | "CREDENTIALS"
        )
    });
    secretive
        && value.len() >= 12
        && !value.contains(char::is_whitespace)
        && !value.starts_with('/')
        && !value.contains("://")
}

fn print_table(plugs: &[ResolvedPlug]) {
    if plugs.is_empty() {
        println!("plugs: none");
        return;
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use blaise_runner::host::grants::SecretSource;

    #[test]
    fn a_written_out_key_is_warned_about_and_an_unreadable_source_noted() {
        let env: std::collections::BTreeMap<String, EnvValue> = [
            (
                "ANTHROPIC_API_KEY",
                EnvValue::Literal("sk-ant-api03-".to_owned() + &"x".repeat(90)),
            ),
            (
                "GH",
                EnvValue::Literal("ghp_0123456789abcdefghijABCDEFGHIJ012345".into()),
            ),
            (
                "MY_SERVICE_TOKEN",
                EnvValue::Literal("k3y-Zm9vYmFyYmF6cXV4".into()),
            ),
            ("MAX_TOKENS", EnvValue::Literal("4096".into())),
            (
                "BASE_URL",
                EnvValue::Literal("https://api.example.com/v1".into()),
            ),
            ("KEY_FILE", EnvValue::Literal("/run/secrets/key".into())),
            (
                "FROM_ENV",
                EnvValue::Secret(SecretSource::Env("BLAISE_TEST_SURELY_UNSET".into())),
            ),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        let notes = agent_env_notes(&env);
        let about = |name: &str| {
            notes
                .iter()
                .filter(|n| n.contains(&format!("agent.env.{name} ")))
                .count()
        };
        assert_eq!(about("ANTHROPIC_API_KEY"), 1, "{notes:#?}");
        assert_eq!(about("GH"), 1, "{notes:#?}");
        assert_eq!(about("MY_SERVICE_TOKEN"), 1, "{notes:#?}");
        assert_eq!(
            about("MAX_TOKENS") + about("BASE_URL") + about("KEY_FILE"),
            0,
            "{notes:#?}"
        );
        assert!(
            notes
                .iter()
                .any(|n| n.starts_with("note: agent.env.FROM_ENV cannot be read here"))
        );
        // The warning never prints the value it warns about.
        assert!(
            notes
                .iter()
                .all(|n| !n.contains("ghp_0123") && !n.contains("k3y-Zm9v"))
        );
    }
}
